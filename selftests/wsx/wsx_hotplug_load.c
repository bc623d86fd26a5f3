// SPDX-License-Identifier: GPL-2.0
/*
 * Load generator for wsx_hotplug.sh: keeps up to 512 SPAWN(4, 4) trees
 * (341 items each) queued on the local P and the global queue until the file named by its
 * argument exists, then waits for every completion.  Exits 0 when every
 * tree completed exactly once with all its 341 items and the Ps' executed
 * counters grew by exactly the items submitted; prints what it saw.
 */
#include <sys/stat.h>

#include "wsx_test.h"

#define TREE_NODES	341
#define BATCH		64
#define IN_FLIGHT	512
#define MAX_TREES	(1 << 22)

static struct wsx_completion recs[WSX_WAIT_MAX];
static unsigned char seen[MAX_TREES];
static char before[1 << 16], after[1 << 16];

int main(int argc, char **argv)
{
	size_t sent = 0, done = 0, dups = 0, bad = 0;
	struct wsx_req reqs[BATCH];
	long long executed;
	struct stat st;
	int fd, nprocs;
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s STOPFILE\n", argv[0]);
		return 2;
	}
	fd = wsx_test_open();
	nprocs = fd < 0 ? fd : wsx_test_nprocs(fd);
	if (nprocs <= 0 || wsx_test_read_debugfs("stats", before,
						 sizeof(before)) <= 0) {
		fprintf(stderr, "cannot open /dev/wsx or its stats\n");
		return 1;
	}
	while (done < sent || stat(argv[1], &st)) {
		if (stat(argv[1], &st) && sent - done < IN_FLIGHT &&
		    sent + BATCH <= MAX_TREES) {
			for (int i = 0; i < BATCH; i++)
				reqs[i] = wsx_test_req(WSX_OP_SPAWN, sent + i,
					i % 2 ? WSX_PLACE_GLOBAL : WSX_PLACE_LOCAL,
					0, 4, 4, 0);
			ret = wsx_test_submit(fd, reqs, BATCH, NULL);
			if (ret > 0)
				sent += ret;
			else if (ret != -EAGAIN)
				return fprintf(stderr, "submit: %ld\n", ret), 1;
		}
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, done < sent, 30LL * 1000000000);
		if (ret < 0)
			return fprintf(stderr, "wait: %ld\n", ret), 1;
		for (long i = 0; i < ret; i++) {
			__u64 id = recs[i].user_data;

			if (id >= sent || recs[i].status ||
			    recs[i].result != TREE_NODES)
				bad++;
			else if (seen[id]++)
				dups++;
		}
		done += ret;
	}
	wsx_test_read_debugfs("stats", after, sizeof(after));
	executed = wsx_test_stat_sum(after, nprocs, "executed") -
		   wsx_test_stat_sum(before, nprocs, "executed");
	printf("# %zu trees submitted, %zu completed, %zu twice, %zu wrong; %lld items executed, %lld expected\n",
	       sent, done, dups, bad, executed, (long long)sent * TREE_NODES);
	close(fd);
	return done == sent && !dups && !bad &&
	       executed == (long long)sent * TREE_NODES ? 0 : 1;
}
