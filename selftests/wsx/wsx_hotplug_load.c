// SPDX-License-Identifier: GPL-2.0
/*
 * Load generator for wsx_hotplug.sh: keeps up to 512 items queued on the
 * local P and the global queue until the file named by its argument exists,
 * then waits for every completion: SPAWN(4, 4) trees (341 items each) and,
 * one in SLEEP_EVERY, a SLEEP of SLEEP_US, whose blocking section hands its
 * P to another M.  It creates that name with ".ready" appended once the
 * NOPs of the first check below ran.  Exits 0 when every tree completed
 * exactly once with all its 341 items and every SLEEP once, the Ps'
 * executed counters grew by exactly the items submitted, and every P is
 * back: a NOP queued on each P in turn, before the load and after it, is
 * run by that P on the same CPU both times; prints what it saw.
 */
#include <sys/stat.h>

#include "wsx_test.h"

#define TREE_NODES	341
#define BATCH		64
#define IN_FLIGHT	512
#define MAX_TREES	(1 << 22)
#define MAX_PS		1024
#define SLEEP_EVERY	16
#define SLEEP_US	1000
#define SLEEP_TAG	(1ULL << 63)	/* in a SLEEP's user_data */

static struct wsx_completion recs[WSX_WAIT_MAX];
static unsigned char seen[MAX_TREES];
static char before[1 << 16], after[1 << 16], stats[1 << 16];

/*
 * Read the stats into @stats; with @total >= 0, until the Ps' executed
 * counters sum to @total (an M counts an item after it posted its
 * completion), for up to 2 s.  Returns the sum, or -1.
 */
static long long read_executed(int nprocs, long long total)
{
	long long sum = -1;

	for (int i = 0; i < 2000; i++) {
		if (wsx_test_read_debugfs("stats", stats, sizeof(stats)) <= 0)
			return -1;
		sum = wsx_test_stat_sum(stats, nprocs, "executed");
		if (total < 0 || sum >= total)
			break;
		usleep(1000);
	}
	return sum;
}

/*
 * One NOP queued on each P in turn, waited for: the CPU it ran on goes to
 * @cpus once the P ran it itself (its executed counter grew).  An idle M may
 * steal a NOP queued on another P, as it should; such a try is redone, up to
 * PIN_TRIES times.  Returns how many Ps ran theirs.
 */
#define PIN_TRIES	20
static int pinned_cpus(int fd, int nprocs, unsigned int *cpus)
{
	struct wsx_completion rec;
	struct wsx_req req;
	int p, try;

	for (p = 0; p < nprocs; p++) {
		for (try = 0; try < PIN_TRIES; try++) {
			long long sum = read_executed(nprocs, -1);
			long long was = wsx_test_stat(stats, p, "executed");

			req = wsx_test_req(WSX_OP_NOP, p, WSX_PLACE_P, p, 0, 0, 0);
			if (sum < 0 || wsx_test_submit(fd, &req, 1, NULL) != 1 ||
			    wsx_test_wait(fd, &rec, 1, 1, 30LL * 1000000000) != 1 ||
			    rec.user_data != (__u64)p || rec.status ||
			    read_executed(nprocs, sum + 1) != sum + 1)
				return p;
			if (wsx_test_stat(stats, p, "executed") == was + 1)
				break;
		}
		if (try == PIN_TRIES)
			return p;
		if (try)
			printf("# P%d ran the NOP queued on it at try %d\n", p, try + 1);
		cpus[p] = rec.cpu;
	}
	return p;
}

int main(int argc, char **argv)
{
	size_t sent = 0, done = 0, dups = 0, bad = 0, trees = 0, sleeps = 0;
	size_t slept = 0;
	struct wsx_req reqs[BATCH];
	unsigned int cpu_before[MAX_PS], cpu_after[MAX_PS];
	char ready[4096];
	long long executed;
	struct stat st;
	int fd, nprocs, lost = 0;
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s STOPFILE\n", argv[0]);
		return 2;
	}
	fd = wsx_test_open();
	nprocs = fd < 0 ? fd : wsx_test_nprocs(fd);
	if (nprocs <= 0 || nprocs > MAX_PS ||
	    pinned_cpus(fd, nprocs, cpu_before) != nprocs ||
	    wsx_test_read_debugfs("stats", before, sizeof(before)) <= 0) {
		fprintf(stderr, "cannot open /dev/wsx, run a NOP on each P or read the stats\n");
		return 1;
	}
	snprintf(ready, sizeof(ready), "%s.ready", argv[1]);
	ret = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (ret < 0)
		return perror(ready), 1;
	close(ret);
	while (done < sent || stat(argv[1], &st)) {
		if (stat(argv[1], &st) && sent - done < IN_FLIGHT &&
		    trees + BATCH <= MAX_TREES) {
			size_t t = trees, s = sleeps;

			for (int i = 0; i < BATCH; i++)
				reqs[i] = i % SLEEP_EVERY == SLEEP_EVERY - 1 ?
					wsx_test_req(WSX_OP_SLEEP, SLEEP_TAG | s++,
						     WSX_PLACE_LOCAL, 0,
						     SLEEP_US, 0, 0) :
					wsx_test_req(WSX_OP_SPAWN, t++,
					i % 2 ? WSX_PLACE_GLOBAL : WSX_PLACE_LOCAL,
					0, 4, 4, 0);
			ret = wsx_test_submit(fd, reqs, BATCH, NULL);
			if (ret < 0 && ret != -EAGAIN)
				return fprintf(stderr, "submit: %ld\n", ret), 1;
			for (long i = 0; i < ret; i++, sent++)
				if (reqs[i].op == WSX_OP_SLEEP)
					sleeps++;
				else
					trees++;
		}
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, done < sent, 30LL * 1000000000);
		if (ret < 0)
			return fprintf(stderr, "wait: %ld\n", ret), 1;
		for (long i = 0; i < ret; i++) {
			__u64 id = recs[i].user_data;

			if (id & SLEEP_TAG) {
				if ((id & ~SLEEP_TAG) >= sleeps || recs[i].status)
					bad++;
				else
					slept++;
			} else if (id >= trees || recs[i].status ||
				   recs[i].result != TREE_NODES) {
				bad++;
			} else if (seen[id]++) {
				dups++;
			}
		}
		done += ret;
	}
	wsx_test_read_debugfs("stats", after, sizeof(after));
	executed = wsx_test_stat_sum(after, nprocs, "executed") -
		   wsx_test_stat_sum(before, nprocs, "executed");
	printf("# %zu trees and %zu SLEEPs submitted, %zu completed (%zu SLEEPs), %zu trees twice, %zu wrong; %lld items executed, %lld expected\n",
	       trees, sleeps, done, slept, dups, bad, executed,
	       (long long)trees * TREE_NODES + (long long)sleeps);
	ret = pinned_cpus(fd, nprocs, cpu_after);
	for (int p = 0; p < nprocs; p++) {
		if (p < ret && cpu_after[p] == cpu_before[p])
			continue;
		if (p < ret)
			printf("# P%d's NOP ran on CPU %u, before the load on CPU %u\n",
			       p, cpu_after[p], cpu_before[p]);
		else
			printf("# P%d's NOP failed after the load\n", p);
		lost++;
	}
	printf("# afterwards %d of %d Ps ran a NOP queued on them on their own CPU\n",
	       nprocs - lost, nprocs);
	close(fd);
	return done == sent && slept == sleeps && !dups && !bad && !lost &&
	       executed == (long long)trees * TREE_NODES + (long long)sleeps ?
	       0 : 1;
}
