// SPDX-License-Identifier: GPL-2.0
/*
 * Exactly once: WSX_ITEMS items (default 1,000,000, divided by WSX_SCALE)
 * spread over every placement - the submitting CPU's P, each P in turn and
 * the global queue - with a SPAWN tree every 1000th item, so that spawned
 * children are in the mix.  Every id must complete exactly once with the
 * right result, and the executed counters of the Ps must have grown by
 * exactly the number of items plus spawned children.
 */
#include "../kselftest_harness.h"
#include "wsx_test.h"

#define SPAWN_EVERY	1000
#define SPAWN_FANOUT	2
#define SPAWN_DEPTH	5
#define SPAWN_NODES	63	/* 2^(5+1) - 1 */

struct once_ctx {
	unsigned char *seen;
	size_t n;
	size_t dups, bad;
};

static bool once_check(const struct wsx_completion *rec, void *arg)
{
	struct once_ctx *ctx = arg;
	__u64 id = rec->user_data;
	bool spawn = id % SPAWN_EVERY == SPAWN_EVERY - 1;

	if (id >= ctx->n || rec->status) {
		ctx->bad++;
		return false;
	}
	if (ctx->seen[id]++)
		ctx->dups++;
	if (rec->nodes != (spawn ? SPAWN_NODES : 1) ||
	    rec->result != (spawn ? SPAWN_NODES : 0))
		ctx->bad++;
	return true;
}

FIXTURE(once) {
	int unused;
};

FIXTURE_SETUP(once)
{
}

FIXTURE_TEARDOWN(once)
{
}

/* a million items take minutes on a loaded host under TCG */
TEST_F_TIMEOUT(once, every_item_runs_exactly_once, 900)
{
	const char *env = getenv("WSX_ITEMS");
	size_t n = env ? strtoul(env, NULL, 10) : wsx_test_scaled(1000000, 10000);
	static char before[1 << 16], after[1 << 16];
	struct once_ctx ctx = { .n = n };
	size_t spawns = 0, missing = 0;
	long long executed;
	struct wsx_req *reqs;
	int fd, nprocs;

	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_LT(0, nprocs);
	reqs = calloc(n, sizeof(*reqs));
	ctx.seen = calloc(n, 1);
	ASSERT_NE(NULL, reqs);
	ASSERT_NE(NULL, ctx.seen);

	for (size_t id = 0; id < n; id++) {
		__u16 place = id % 3;
		__u32 target = place == WSX_PLACE_P ? (id / 3) % nprocs : 0;

		if (id % SPAWN_EVERY == SPAWN_EVERY - 1) {
			reqs[id] = wsx_test_req(WSX_OP_SPAWN, id, place, target,
						SPAWN_FANOUT, SPAWN_DEPTH, 0);
			spawns++;
		} else {
			reqs[id] = wsx_test_req(WSX_OP_NOP, id, place, target,
						0, 0, 0);
		}
	}

	ASSERT_LT(0, wsx_test_read_debugfs("stats", before, sizeof(before)));
	ASSERT_EQ(0, wsx_test_run(fd, reqs, n, once_check, &ctx,
				  30LL * 1000000000));
	ASSERT_LT(0, wsx_test_read_debugfs("stats", after, sizeof(after)));

	for (size_t id = 0; id < n; id++)
		missing += !ctx.seen[id];
	EXPECT_EQ(0, ctx.dups);
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, ctx.bad);
	executed = wsx_test_stat_sum(after, nprocs, "executed") -
		   wsx_test_stat_sum(before, nprocs, "executed");
	EXPECT_EQ((long long)(n - spawns + spawns * SPAWN_NODES), executed);
	TH_LOG("%zu items (%zu SPAWN trees of %d) on %d Ps: %lld executed",
	       n, spawns, SPAWN_NODES, nprocs, executed);
	free(reqs);
	free(ctx.seen);
	close(fd);
}

TEST_HARNESS_MAIN
