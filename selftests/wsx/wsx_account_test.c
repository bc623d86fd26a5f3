// SPDX-License-Identifier: GPL-2.0
/*
 * Who the executor worked for: the stats file's version line and its
 * "user" lines (kmod/account.c).  A child that drops to uid and gid
 * ACCT_UID opens /dev/wsx (made 0666 for the test, its mode restored
 * after) and runs NOPs and a SPAWN tree through WSX_IOC_SUBMIT, NOPs
 * through the rings and SPIN items; root runs NOPs of its own.  Each
 * uid's items grow by exactly the items it ran (every node of the tree),
 * the child's CPU time by at least half of what its SPIN items last (a
 * SPIN stays busy on the CPU; the M's runtime is updated at the ticks),
 * and a reset zeroes both.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "wsx_rings.h"

#define ACCT_UID	4242
#define NOPS		300
#define RING_NOPS	100
#define SPINS		10
#define SPIN_NS		8000000ULL	/* under max_item_ns's 10 ms */
#define FANOUT		4
#define DEPTH		3		/* 1 + 4 + 16 + 64 nodes */
#define TREE_NODES	85
#define ROOT_NOPS	50
#define STALL_NS	(60LL * 1000000000)

struct usage {
	bool found;
	unsigned long long items, cpu_ns;
};

static char stats[1 << 20];

/* The "user" line of @uid in the stats file (found false if none). */
static int read_usage(unsigned int uid, struct usage *u)
{
	char *line, *save = NULL;
	int n = wsx_test_read_debugfs("stats", stats, sizeof(stats));

	memset(u, 0, sizeof(*u));
	if (n < 0)
		return n;
	for (line = strtok_r(stats, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int id;
		unsigned long long items, cpu_ns;

		if (sscanf(line, "user uid=%u items=%llu cpu_ns=%llu",
			   &id, &items, &cpu_ns) == 3 && id == uid) {
			u->found = true;
			u->items = items;
			u->cpu_ns = cpu_ns;
		}
	}
	return 0;
}

/* The child's work, as ACCT_UID: 0 on success, else the step that failed. */
static int child_work(void)
{
	static struct wsx_req reqs[NOPS + 1 + SPINS];
	static struct wsx_completion recs[NOPS + 1 + SPINS];
	struct wsx_tring t;
	size_t i, n = 0;
	int fd;

	if (setgid(ACCT_UID) || setuid(ACCT_UID))
		return 10;
	fd = wsx_test_open();
	if (fd < 0)
		return 11;
	for (i = 0; i < NOPS; i++, n++)
		reqs[n] = wsx_test_req(WSX_OP_NOP, n, WSX_PLACE_LOCAL, 0,
				       0, 0, 0);
	reqs[n] = wsx_test_req(WSX_OP_SPAWN, n, WSX_PLACE_LOCAL, 0,
			       FANOUT, DEPTH, 0);
	n++;
	for (i = 0; i < SPINS; i++, n++)
		reqs[n] = wsx_test_req(WSX_OP_SPIN, n, WSX_PLACE_GLOBAL, 0,
				       SPIN_NS, 0, 0);
	if (wsx_test_collect(fd, reqs, n, recs))
		return 12;
	for (i = 0; i < n; i++)
		if (recs[i].status)
			return 13;
	if (recs[NOPS].result != TREE_NODES)
		return 14;
	close(fd);
	/* a second session, through the rings */
	fd = wsx_test_open();
	if (fd < 0 || wsx_tring_setup(&t, fd, 64, 128))
		return 15;
	for (i = 0; i < RING_NOPS; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_LOCAL, 0,
				       0, 0, 0);
	if (wsx_tring_run(&t, reqs, RING_NOPS, NULL, NULL, STALL_NS))
		return 16;
	wsx_tring_unmap(&t);
	close(fd);
	return 0;
}

int main(void)
{
	static struct wsx_req reqs[ROOT_NOPS];
	struct usage u0, u1, r0, r1;
	struct stat st;
	int fd, status;
	size_t i;
	pid_t pid;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root (drops to uid %d)\n", ACCT_UID);
	if (stat(WSX_DEVICE_PATH, &st))
		ksft_exit_skip("%s: %s (module not loaded)\n", WSX_DEVICE_PATH,
			       strerror(errno));
	if (wsx_test_read_debugfs("stats", stats, sizeof(stats)) < 0)
		ksft_exit_skip("no %s/stats (debugfs)\n", WSX_DEBUGFS_PATH);
	ksft_set_plan(5);

	ksft_test_result(!strncmp(stats, "wsx_stats version=1\n", 20),
			 "the stats file begins with its version line\n");

	if (read_usage(ACCT_UID, &u0) || read_usage(0, &r0))
		ksft_exit_fail_msg("reading the stats\n");
	if (chmod(WSX_DEVICE_PATH, 0666))
		ksft_exit_fail_msg("chmod %s: %s\n", WSX_DEVICE_PATH,
				   strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(child_work());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("fork/waitpid\n");
	chmod(WSX_DEVICE_PATH, st.st_mode & 07777);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		ksft_exit_fail_msg("the child as uid %d failed at step %d\n",
				   ACCT_UID, WIFEXITED(status) ?
				   WEXITSTATUS(status) : -1);

	fd = wsx_test_open();
	if (fd < 0)
		ksft_exit_fail_msg("open as root: %s\n", strerror(-fd));
	for (i = 0; i < ROOT_NOPS; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_GLOBAL, 0,
				       0, 0, 0);
	if (wsx_test_run(fd, reqs, ROOT_NOPS, NULL, NULL, STALL_NS))
		ksft_exit_fail_msg("root's NOPs\n");
	close(fd);

	if (read_usage(ACCT_UID, &u1) || read_usage(0, &r1))
		ksft_exit_fail_msg("reading the stats\n");
	ksft_print_msg("uid %d: items %llu -> %llu, cpu_ns %llu -> %llu; uid 0: items %llu -> %llu, cpu_ns %llu -> %llu\n",
		       ACCT_UID, u0.items, u1.items, u0.cpu_ns, u1.cpu_ns,
		       r0.items, r1.items, r0.cpu_ns, r1.cpu_ns);
	ksft_test_result(u1.found &&
			 u1.items - u0.items == NOPS + TREE_NODES + SPINS +
						RING_NOPS,
			 "uid %d: %d items counted (ioctl NOPs, every node of a SPAWN tree, SPINs, ring NOPs)\n",
			 ACCT_UID, NOPS + TREE_NODES + SPINS + RING_NOPS);
	ksft_test_result(r1.found && r1.items - r0.items == ROOT_NOPS,
			 "uid 0: its %d items counted, none of the child's\n",
			 ROOT_NOPS);
	ksft_test_result(u1.cpu_ns - u0.cpu_ns >= SPINS * SPIN_NS / 2,
			 "uid %d: CPU time at least half of its SPINs' %llu ms\n",
			 ACCT_UID, SPINS * SPIN_NS / 1000000);

	if (wsx_test_write_file(WSX_DEBUGFS_PATH "/reset", "1"))
		ksft_exit_fail_msg("reset\n");
	if (read_usage(ACCT_UID, &u1) || read_usage(0, &r1))
		ksft_exit_fail_msg("reading the stats\n");
	ksft_test_result(u1.found && r1.found && !u1.items && !u1.cpu_ns &&
			 !r1.items && !r1.cpu_ns,
			 "a reset zeroes both users' counters\n");
	ksft_finished();
}
