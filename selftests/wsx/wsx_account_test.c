// SPDX-License-Identifier: GPL-2.0
/*
 * Who the executor worked for: the stats file's version line and its
 * "user" lines (kmod/account.c).  /dev/wsx is given to a group for the
 * test (as the packages give it to the group wsx) and given back after.
 *
 * counts: a child with real uid ACCT_UID and effective uid ACCT_EUID, a
 * member of the group, runs NOPs, a SPAWN tree, SPINs and SLEEPs through
 * WSX_IOC_SUBMIT and NOPs through the rings; root runs NOPs of its own.
 * Each real uid's items grow by exactly the items it ran (every node of
 * the tree), the effective uid's by none; the child's CPU time grows by
 * at least half of what its SPINs last (a SPIN stays busy on the CPU; the
 * M's runtime is updated at the ticks) and by less than the SPINs and
 * half the SLEEPs (a SLEEP waits in a blocking section: no CPU time);
 * a reset zeroes both users' counters.
 *
 * collision: uid COLLIDE_UID and root share a bucket of the table (its
 * key hash_32(uid, 6): both 0), root's account first.  A child as
 * COLLIDE_UID runs NOPs (its lookup walks past root's account, and its
 * new account goes into a bucket that is not empty), then root runs NOPs
 * (its lookup walks past the new account): each uid has one line, which
 * grows by exactly its own NOPs.
 *
 * table: with at least five uids in the table, max_users is set to 2 and
 * the table shrinks to it as new uids come: a uid A that holds a session
 * keeps its own line while two other uids come and go (each taking the
 * place of an account no session holds, which is folded into the
 * overflow line, uid 4294967295) and a uid B takes the other place and
 * holds it; A's second session, opened while every place is held, is
 * counted on A's line, a fifth uid's in the overflow line; the items of
 * all lines together grow by exactly the items run.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "wsx_rings.h"

#define ACCT_UID	4242
#define ACCT_EUID	4243
#define NOPS		300
#define RING_NOPS	100
#define SPINS		10
#define SPIN_NS		8000000ULL	/* under max_item_ns's 10 ms */
#define SLEEPS		10
#define SLEEP_US	300000ULL	/* 3 s of SLEEPs: a wide margin over CPU time */
#define FANOUT		4
#define DEPTH		3		/* 1 + 4 + 16 + 64 nodes */
#define TREE_NODES	85
#define ROOT_NOPS	50
#define STALL_NS	(60LL * 1000000000)
#define OVERFLOW_UID	4294967295U
#define TABLE_UID	5001		/* holds a session; then 5002 .. 5004 */
#define MAX_USERS	"max_users"
#define COLLIDE_UID	55		/* hash_32(55, 6) == hash_32(0, 6) */
#define COLLIDE_NOPS	20
#define COLLIDE_ROOT_NOPS 30

struct usage {
	bool found;
	unsigned int lines;	/* the uid's lines: one, once found */
	unsigned long long items, cpu_ns;
};

static char stats[1 << 20];

/*
 * The "user" line of @uid in the stats file (found false if none); the
 * items of all lines in *@all and how many lines not of the overflow in
 * *@uids, when not NULL.
 */
static int read_usage(unsigned int uid, struct usage *u,
		      unsigned long long *all, unsigned int *uids)
{
	char *line, *save = NULL;
	int n = wsx_test_read_debugfs("stats", stats, sizeof(stats));

	memset(u, 0, sizeof(*u));
	if (all)
		*all = 0;
	if (uids)
		*uids = 0;
	if (n < 0)
		return n;
	for (line = strtok_r(stats, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int id;
		unsigned long long items, cpu_ns;

		if (sscanf(line, "user uid=%u items=%llu cpu_ns=%llu",
			   &id, &items, &cpu_ns) != 3)
			continue;
		if (all)
			*all += items;
		if (uids && id != OVERFLOW_UID)
			(*uids)++;
		if (id == uid) {
			u->found = true;
			u->lines++;
			u->items = items;
			u->cpu_ns = cpu_ns;
		}
	}
	return 0;
}

/* In a child: real uid @ruid, effective @euid, a member of @gid only. */
static bool become(uid_t ruid, uid_t euid, gid_t gid)
{
	gid_t groups[1] = { gid };

	return !setgroups(1, groups) && !setgid(ruid) &&
	       !setresuid(ruid, euid, euid);
}

/* @n NOPs through WSX_IOC_SUBMIT on a new session; 0 or the step. */
static int run_nops(size_t n)
{
	static struct wsx_req reqs[NOPS];
	int fd = wsx_test_open();
	size_t i;

	if (fd < 0)
		return 20;
	for (i = 0; i < n; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_GLOBAL, 0,
				       0, 0, 0);
	if (wsx_test_run(fd, reqs, n, NULL, NULL, STALL_NS))
		return 21;
	close(fd);
	return 0;
}

/* The counts child's work; 0 on success, else the step that failed. */
static int counts_child(gid_t gid)
{
	static struct wsx_req reqs[NOPS + 1 + SPINS + SLEEPS];
	static struct wsx_completion recs[NOPS + 1 + SPINS + SLEEPS];
	struct wsx_tring t;
	size_t i, n = 0;
	int fd;

	if (!become(ACCT_UID, ACCT_EUID, gid))
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
	for (i = 0; i < SLEEPS; i++, n++)
		reqs[n] = wsx_test_req(WSX_OP_SLEEP, n, WSX_PLACE_GLOBAL, 0,
				       SLEEP_US, 0, 0);
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

/* Wait for @pid; its exit status, or -1. */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A child as @uid (real and effective) that runs @n NOPs; its status. */
static int nops_as(uid_t uid, gid_t gid, size_t n)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(become(uid, uid, gid) ? run_nops(n) : 10);
	return reap(pid);
}

static void test_counts(gid_t gid)
{
	static struct wsx_req reqs[ROOT_NOPS];
	struct usage u0, u1, e0, e1, r0, r1;
	unsigned long long ran = NOPS + TREE_NODES + SPINS + SLEEPS +
				 RING_NOPS;
	int fd, status;
	size_t i;
	pid_t pid;

	if (read_usage(ACCT_UID, &u0, NULL, NULL) ||
	    read_usage(ACCT_EUID, &e0, NULL, NULL) ||
	    read_usage(0, &r0, NULL, NULL))
		ksft_exit_fail_msg("reading the stats\n");
	pid = fork();
	if (pid == 0)
		_exit(counts_child(gid));
	status = reap(pid);
	if (status)
		ksft_exit_fail_msg("the child (uid %d, euid %d) failed at step %d\n",
				   ACCT_UID, ACCT_EUID, status);
	fd = wsx_test_open();
	if (fd < 0)
		ksft_exit_fail_msg("open as root: %s\n", strerror(-fd));
	for (i = 0; i < ROOT_NOPS; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_GLOBAL, 0,
				       0, 0, 0);
	if (wsx_test_run(fd, reqs, ROOT_NOPS, NULL, NULL, STALL_NS))
		ksft_exit_fail_msg("root's NOPs\n");
	close(fd);

	if (read_usage(ACCT_UID, &u1, NULL, NULL) ||
	    read_usage(ACCT_EUID, &e1, NULL, NULL) ||
	    read_usage(0, &r1, NULL, NULL))
		ksft_exit_fail_msg("reading the stats\n");
	ksft_print_msg("uid %d: items %llu -> %llu, cpu_ns %llu -> %llu; euid %d: items %llu -> %llu; uid 0: items %llu -> %llu\n",
		       ACCT_UID, u0.items, u1.items, u0.cpu_ns, u1.cpu_ns,
		       ACCT_EUID, e0.items, e1.items, r0.items, r1.items);
	ksft_test_result(u1.found && u1.items - u0.items == ran,
			 "counts: real uid %d: its %llu items (ioctl NOPs, every node of a SPAWN tree, SPINs, SLEEPs, ring NOPs)\n",
			 ACCT_UID, ran);
	ksft_test_result(e1.items == e0.items,
			 "counts: effective uid %d: none\n", ACCT_EUID);
	ksft_test_result(r1.found && r1.items - r0.items == ROOT_NOPS,
			 "counts: uid 0: its %d items, none of the child's\n",
			 ROOT_NOPS);
	ksft_test_result(u1.cpu_ns - u0.cpu_ns >= SPINS * SPIN_NS / 2,
			 "counts: uid %d: CPU time at least half of its SPINs' %llu ms\n",
			 ACCT_UID, SPINS * SPIN_NS / 1000000);
	ksft_test_result(u1.cpu_ns - u0.cpu_ns <
			 SPINS * SPIN_NS + SLEEPS * SLEEP_US * 1000 / 2,
			 "counts: uid %d: CPU time less than its SPINs and half its SLEEPs (%llu ms)\n",
			 ACCT_UID, (SPINS * SPIN_NS + SLEEPS * SLEEP_US * 1000 / 2) /
			 1000000);

	if (wsx_test_write_file(WSX_DEBUGFS_PATH "/reset", "1"))
		ksft_exit_fail_msg("reset\n");
	if (read_usage(ACCT_UID, &u1, NULL, NULL) ||
	    read_usage(0, &r1, NULL, NULL))
		ksft_exit_fail_msg("reading the stats\n");
	ksft_test_result(u1.found && r1.found && !u1.items && !u1.cpu_ns &&
			 !r1.items && !r1.cpu_ns,
			 "counts: a reset zeroes both users' counters\n");
}

/* The lines of the two uids of the collision, in *@c and *@r. */
static void read_collision(struct usage *c, struct usage *r)
{
	if (read_usage(COLLIDE_UID, c, NULL, NULL) ||
	    read_usage(0, r, NULL, NULL))
		ksft_exit_fail_msg("reading the stats\n");
}

static void test_collision(gid_t gid)
{
	struct usage c0, c1, r0, r1;
	int status;

	/* root's account, first in the bucket: root ran NOPs in counts */
	read_collision(&c0, &r0);
	if (!r0.found)
		ksft_exit_fail_msg("uid 0 has no line after its NOPs\n");
	status = nops_as(COLLIDE_UID, gid, COLLIDE_NOPS);
	if (status)
		ksft_exit_fail_msg("the child (uid %d) failed at step %d\n",
				   COLLIDE_UID, status);
	if (run_nops(COLLIDE_ROOT_NOPS))
		ksft_exit_fail_msg("root's NOPs\n");
	read_collision(&c1, &r1);
	ksft_print_msg("uid %d: %u lines, items %llu -> %llu; uid 0: %u lines, items %llu -> %llu\n",
		       COLLIDE_UID, c1.lines, c0.items, c1.items, r1.lines,
		       r0.items, r1.items);
	ksft_test_result(c1.lines == 1 && c1.items - c0.items == COLLIDE_NOPS,
			 "collision: uid %d, in uid 0's bucket: one line, its %d items\n",
			 COLLIDE_UID, COLLIDE_NOPS);
	ksft_test_result(r1.items - r0.items == COLLIDE_ROOT_NOPS,
			 "collision: uid 0, found past uid %d: its %d items\n",
			 COLLIDE_UID, COLLIDE_ROOT_NOPS);
	ksft_test_result(c1.lines == 1 && r1.lines == 1,
			 "collision: each uid of the bucket has one line\n");
}

/* A child's pipes: it says ready on one, waits for go on the other. */
struct holder {
	pid_t pid;
	int ready[2], go[2];
};

/*
 * A child as @uid that opens a session and holds it: @first NOPs on it
 * (ready), then, told to go, @second NOPs on a second session (ready),
 * then, told to go again, closes and exits.
 */
static bool holder_start(struct holder *h, uid_t uid, gid_t gid, size_t first,
			 size_t second)
{
	char c = 0;
	int fd;

	if (pipe(h->ready) || pipe(h->go))
		return false;
	h->pid = fork();
	if (h->pid == 0) {
		if (!become(uid, uid, gid))
			_exit(10);
		fd = wsx_test_open();
		if (fd < 0 || run_nops(first) || write(h->ready[1], &c, 1) != 1 ||
		    read(h->go[0], &c, 1) != 1 || (second && run_nops(second)) ||
		    write(h->ready[1], &c, 1) != 1 || read(h->go[0], &c, 1) != 1)
			_exit(11);
		close(fd);
		_exit(0);
	}
	return h->pid > 0 && read(h->ready[0], &c, 1) == 1;
}

/* Tell @h to go on and wait until it is ready again. */
static bool holder_go(struct holder *h)
{
	char c = 0;

	return write(h->go[1], &c, 1) == 1 && read(h->ready[0], &c, 1) == 1;
}

static int holder_end(struct holder *h)
{
	char c = 0;

	if (write(h->go[1], &c, 1) != 1)
		return -1;
	return reap(h->pid);
}

static void test_table(gid_t gid)
{
	unsigned long long all0, all1;
	struct holder a, b;
	unsigned int uids;
	uid_t uid;
	struct usage u, o;
	char old[32];
	bool ok;

	/* three more uids in the table before it is made smaller */
	for (uid = TABLE_UID + 5; uid <= TABLE_UID + 7; uid++)
		if (nops_as(uid, gid, 1))
			ksft_exit_fail_msg("uid %u's NOP\n", uid);
	if (wsx_test_param(MAX_USERS, old, sizeof(old)) < 0 ||
	    wsx_test_param_set(MAX_USERS, "2"))
		ksft_exit_fail_msg("max_users\n");
	if (read_usage(TABLE_UID, &u, &all0, NULL))
		ksft_exit_fail_msg("reading the stats\n");
	/* A holds a session; 5002 and 5003 come and go, each taking the
	 * place of an account no session holds; then B holds one: the table
	 * is full of held accounts when A opens its second session and when
	 * 5005 comes (counted in the overflow line)
	 */
	ok = holder_start(&a, TABLE_UID, gid, 3, 4) &&
	     !nops_as(TABLE_UID + 1, gid, 6) &&
	     !nops_as(TABLE_UID + 2, gid, 7) &&
	     holder_start(&b, TABLE_UID + 3, gid, 8, 0) &&
	     holder_go(&a) && !nops_as(TABLE_UID + 4, gid, 9);
	ok = !holder_end(&a) && ok;
	ok = holder_go(&b) && !holder_end(&b) && ok;
	wsx_test_param_set(MAX_USERS, old);
	if (!ok)
		ksft_exit_fail_msg("the table's children failed\n");
	if (read_usage(TABLE_UID, &u, &all1, &uids) ||
	    read_usage(OVERFLOW_UID, &o, NULL, NULL))
		ksft_exit_fail_msg("reading the stats\n");
	ksft_print_msg("max_users=2: uid %d items %llu, overflow items %llu, %u uid lines; all lines' items %llu -> %llu\n",
		       TABLE_UID, u.items, o.items, uids, all0, all1);
	ksft_test_result(u.found && u.items == 3 + 4,
			 "table: a uid holding a session keeps its line, its second session counted there, the table full\n");
	ksft_test_result(o.found && uids <= 2,
			 "table: at most max_users uid lines, the rest folded into the overflow line\n");
	ksft_test_result(all1 - all0 == 3 + 6 + 7 + 8 + 4 + 9,
			 "table: every item run counted once in all the lines\n");
}

int main(void)
{
	struct wsx_test_node saved = { 0 };
	struct stat st;
	gid_t gid = 0;
	int ret;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root (drops to uid %d)\n", ACCT_UID);
	if (stat(WSX_DEVICE_PATH, &st))
		ksft_exit_skip("%s: %s (module not loaded)\n", WSX_DEVICE_PATH,
			       strerror(errno));
	if (wsx_test_read_debugfs("stats", stats, sizeof(stats)) < 0)
		ksft_exit_skip("no %s/stats (debugfs)\n", WSX_DEBUGFS_PATH);
	ksft_set_plan(13);

	ksft_test_result(!strncmp(stats, "wsx_stats version=1\n", 20),
			 "the stats file begins with its version line\n");
	ret = wsx_test_group_device(&saved, &gid);
	if (ret)
		ksft_exit_fail_msg("giving %s to a group: %s\n",
				   WSX_DEVICE_PATH, strerror(-ret));
	test_counts(gid);
	test_collision(gid);
	test_table(gid);
	if (wsx_test_restore_device(&saved))
		ksft_exit_fail_msg("giving %s back\n", WSX_DEVICE_PATH);
	ksft_finished();
}
