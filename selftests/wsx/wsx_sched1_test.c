// SPDX-License-Identifier: GPL-2.0
/*
 * The executor with one P (wsx_sched1.sh loads the module with nprocs=1):
 * a spawned child runs next, and neither the ring nor the global queue
 * starves behind an endless chain of runnext items; delayed items
 * submitted on a CPU that has no P run on P0.
 *
 * The first tests keep P0 busy with a 5 ms SPIN so that the items after
 * it reach P0's ring together, in submission order.
 */
#include <sched.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define BLOCKER_NS	5000000

FIXTURE(one) {
	int fd;
};

FIXTURE_SETUP(one)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	if (wsx_test_nprocs(self->fd) != 1)
		SKIP(return, "needs the module loaded with nprocs=1 (wsx_sched1.sh)");
}

FIXTURE_TEARDOWN(one)
{
	close(self->fd);
}

/*
 * Queued on P0: a SPAWN(1, 1) item, then 50 NOPs.  The SPAWN item's child
 * goes to runnext and runs before the NOPs waiting in the ring, so the
 * SPAWN job finishes before any NOP starts.
 */
TEST_F(one, spawned_child_runs_next)
{
	struct wsx_completion recs[52] = { 0 };
	struct wsx_req reqs[52];

	reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0, BLOCKER_NS, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_SPAWN, 1, WSX_PLACE_P, 0, 1, 1, 0);
	for (int i = 2; i < 52; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_P, 0, 0, 0, 0);
	ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, 52, recs));
	EXPECT_EQ(2, recs[1].result);
	for (int i = 2; i < 52; i++) {
		EXPECT_LE(recs[1].finished_ns, recs[i].started_ns) {
			TH_LOG("NOP %d started before the spawned child ran", i);
		}
	}
}

/*
 * The doors queue a request's items in batches (wsx_queue_batch_add()),
 * each listed in one step: ORDER_NOPS NOPs behind the blocker, in one
 * SUBMIT (several batches), start in submission order, on P0's inbox and
 * on the global queue.  A batch listed in the order of its chain (newest
 * first) would run each batch backwards.  On the global queue, a SUBMIT
 * that outlasts the blocker (a debug kernel) lets P0 move a first batch
 * into its runq while later ones come; every global_tick-th tick then
 * takes the global queue's head ahead of the runq: at most one NOP out of
 * order per global_tick NOPs (+1) is allowed there.
 */
#define ORDER_NOPS	100

TEST_F(one, submitted_items_start_in_submission_order)
{
	static const __u32 places[] = { WSX_PLACE_P, WSX_PLACE_GLOBAL };
	struct wsx_completion recs[ORDER_NOPS + 1];
	struct wsx_req reqs[ORDER_NOPS + 1];
	char param[32];
	int tick;

	ASSERT_EQ(0, wsx_test_param("global_tick", param, sizeof(param)));
	tick = atoi(param);
	ASSERT_LT(0, tick);
	for (int k = 0; k < 2; k++) {
		int late = 0, allowed = k ? ORDER_NOPS / tick + 1 : 0;

		memset(recs, 0, sizeof(recs));
		reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0,
				       BLOCKER_NS, 0, 0);
		for (int i = 1; i <= ORDER_NOPS; i++)
			reqs[i] = wsx_test_req(WSX_OP_NOP, i, places[k], 0, 0,
					       0, 0);
		ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, ORDER_NOPS + 1,
					      recs));
		for (int i = 2; i <= ORDER_NOPS; i++)
			late += recs[i].started_ns < recs[i - 1].started_ns;
		EXPECT_GE(allowed, late) {
			TH_LOG("%s: %d NOPs started before the one submitted before them (%d allowed)",
			       k ? "global" : "P0", late, allowed);
		}
	}
}

/*
 * An endless-looking chain: SPAWN(1, CHAIN) is CHAIN+1 items, each spawning
 * its successor into runnext.  A NOP waiting in P0's ring and a NOP in the
 * global queue both start before the chain ends.  (The chain's items have
 * no records: where in the chain they started is only estimated from the
 * timestamps and logged; the count of the 61-tick rule is asserted below.)
 */
TEST_F(one, ring_and_global_do_not_starve_behind_a_runnext_chain)
{
	const __u64 chain = 50000;
	struct wsx_completion recs[4] = { 0 };
	struct wsx_req reqs[4];
	double span;

	reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0, BLOCKER_NS, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_SPAWN, 1, WSX_PLACE_P, 0, 1, chain, 0);
	reqs[2] = wsx_test_req(WSX_OP_NOP, 2, WSX_PLACE_P, 0, 0, 0, 0);
	reqs[3] = wsx_test_req(WSX_OP_NOP, 3, WSX_PLACE_GLOBAL, 0, 0, 0, 0);
	ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, 4, recs));
	ASSERT_EQ(chain + 1, recs[1].result);

	span = recs[1].finished_ns - recs[1].started_ns;
	for (int i = 2; i < 4; i++) {
		double at = (double)recs[i].started_ns - recs[1].started_ns;

		TH_LOG("%s NOP started at about item %.0f of %llu of the chain",
		       i == 2 ? "runq" : "global",
		       at > 0 ? at / span * chain : 0.0,
		       (unsigned long long)chain);
		EXPECT_LT(recs[i].started_ns, recs[1].finished_ns);
	}
}

/* one SUBMIT batch of wsx_test_run(): all queued while the blocker runs */
#define LOCAL_NOPS	254

static int by_start(const void *a, const void *b)
{
	const struct wsx_completion *x = a, *y = b;

	return x->started_ns < y->started_ns ? -1 :
	       x->started_ns > y->started_ns;
}

/*
 * The global_tick rule (wsx_find_runnable()): every global_tick-th schedule
 * tick takes an item from the global queue before the ring.  Queued at
 * once behind the blocker: a NOP in the global queue, then LOCAL_NOPS NOPs
 * on P0's ring (the global one first: on the KASAN kernel queueing 256
 * items outlasts the blocker, and a global NOP queued last came after the
 * ring had run).  With one P the items run one after another, each its
 * own tick, so fewer than global_tick NOPs of the ring start before the
 * global one (without the rule, all LOCAL_NOPS that were queued when the
 * blocker ended would: the global queue is read when the ring is empty).  Three rounds, each starting at another tick
 * (LOCAL_NOPS + 2 is no multiple of global_tick).
 */
TEST_F(one, global_item_within_global_tick_ring_items)
{
	static struct wsx_completion recs[LOCAL_NOPS + 2];
	static struct wsx_req reqs[LOCAL_NOPS + 2];
	const size_t n = LOCAL_NOPS + 2;
	long global_tick;
	char param[32];

	ASSERT_EQ(0, wsx_test_param("global_tick", param, sizeof(param)));
	global_tick = strtol(param, NULL, 10);
	ASSERT_LT(0, global_tick);
	ASSERT_GT(LOCAL_NOPS, global_tick);
	reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0, BLOCKER_NS, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_NOP, n - 1, WSX_PLACE_GLOBAL, 0, 0, 0, 0);
	for (size_t i = 1; i <= LOCAL_NOPS; i++)
		reqs[i + 1] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_P, 0, 0, 0,
					   0);
	for (int round = 0; round < 3; round++) {
		long before = 0, global_at = -1;

		ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, n, recs));
		qsort(recs, n, sizeof(recs[0]), by_start);
		for (size_t i = 0; i < n; i++) {
			if (recs[i].user_data == n - 1) {
				global_at = i;
				break;
			}
			before += recs[i].user_data != 0;
		}
		TH_LOG("round %d: %ld of the ring's %d NOPs started before the global one (global_tick %ld)",
		       round, before, LOCAL_NOPS, global_tick);
		ASSERT_LE(0, global_at);
		EXPECT_GT(global_tick, before);
	}
}

#define DELAY_NS	20000000ULL

/*
 * Delayed items submitted on a CPU without a P (with nprocs=1, any CPU but
 * P0's): wsx_queue_after() arms them on P0's timers, for WSX_PLACE_LOCAL
 * because the CPU has no P and for WSX_PLACE_GLOBAL because the global
 * queue has none; when due, wsx_timers_deliver() puts both on the global
 * queue, where P0 takes them.  One SUBMIT of a NOP of each placement, each
 * delayed by DELAY_NS: both run once, on P0's CPU, after their delay, and
 * the global queue's puts grow by exactly 2.
 */
TEST_F(one, delayed_items_from_a_cpu_without_a_p)
{
	struct wsx_completion recs[2], first, extra;
	struct wsx_req reqs[2];
	long long puts0, puts1;
	cpu_set_t cpus;
	int other = -1;

	reqs[0] = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_P, 0, 0, 0, 0);
	ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, 1, &first));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	for (int cpu = 0; cpu < CPU_SETSIZE && other < 0; cpu++)
		if (CPU_ISSET(cpu, &cpus) && cpu != (int)first.cpu)
			other = cpu;
	if (other < 0)
		SKIP(return, "no CPU but P0's (CPU %u) to submit from",
		     first.cpu);
	CPU_ZERO(&cpus);
	CPU_SET(other, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	ASSERT_EQ(other, sched_getcpu());

	puts0 = wsx_test_global_stat("puts");
	ASSERT_LE(0, puts0);
	reqs[0] = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_LOCAL, 0, 0, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_NOP, 1, WSX_PLACE_GLOBAL, 0, 0, 0, 0);
	reqs[0].delay_ns = reqs[1].delay_ns = DELAY_NS;
	ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, 2, recs));
	puts1 = wsx_test_global_stat("puts");
	/* no third record: each ran once */
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &extra, 1, 1, 100000000));
	TH_LOG("submitted on CPU %d; P0's CPU %u; global puts %lld -> %lld",
	       other, first.cpu, puts0, puts1);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(i, recs[i].user_data);
		EXPECT_NE(0, recs[i].finished_ns);
		EXPECT_EQ(0, recs[i].status);
		EXPECT_EQ(first.cpu, recs[i].cpu);
		EXPECT_LE(recs[i].queued_ns + DELAY_NS, recs[i].started_ns) {
			TH_LOG("%s NOP started %lld ns after its submission",
			       i ? "global" : "local",
			       (long long)(recs[i].started_ns -
					   recs[i].queued_ns));
		}
	}
	EXPECT_EQ(2, puts1 - puts0);
}

TEST_HARNESS_MAIN
