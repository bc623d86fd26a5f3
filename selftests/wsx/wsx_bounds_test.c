// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_bounds_test: no walk of a P's delayed items is as long as a user
 * makes it.  The watermarks of a WSX_DEBUG build (kmod/fault.h) count the
 * delayed items looked at or taken in one hold of a P's timer lock (taken
 * with interrupts off) and the due items one run of its hrtimer (a
 * softirq) queued; a release build has none and says SKIP.
 *
 * flush_hold_bounded: sessions A and B each delay NITEMS NOPs on P0, their
 * items interleaved in P0's timers, B's due first.  Closing A must fire
 * all of A's items at once (A's close returns before any of them falls
 * due, and exactly NITEMS jobs are counted cancelled) and none of B's,
 * looking at no more than BATCH items per hold of the lock.  The walk
 * that took the lock once for the whole P looked at all 2 x NITEMS.
 *
 * flush_resumes_after_pops: as flush_hold_bounded, with B's items due
 * while A's close walks them, and the flush_between_batches fault point
 * sleeping 20 ms between two holds: B's items fall due and are popped
 * meanwhile, the item the flush stopped before among them, so the walk
 * resumes from the earliest.  Every one of A's items is still fired by
 * the flush, and every one of B's runs once, in its time.
 *
 * due_batch_bounded: NITEMS NOPs on P0, all due at about the same time.
 * Each runs once, none before its time, and no hold of the lock took more
 * than BATCH of them, nor did one run of the hrtimer queue more than
 * BATCH: the rest come in later runs.  The pop that took every due item at
 * once, queueing them all from one softirq run, failed both.
 */
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define NITEMS		2048
#define BATCH		64	/* WSX_TIMERS_BATCH of kmod/timers.c */
#define WM_DIR		"/sys/kernel/debug/wsx/watermark"

static long watermark(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), WM_DIR "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 10);
}

static int watermarks_reset(void)
{
	if (wsx_test_write_file(WM_DIR "/tlock_items", "0"))
		return -1;
	return wsx_test_write_file(WM_DIR "/fire_items", "0");
}

/* Delay @n NOPs on P0 by @delay_ns + i us each; 0 or -errno. */
static int delay_nops(int fd, __u64 delay_ns, size_t n)
{
	static struct wsx_req reqs[NITEMS];
	size_t i;

	for (i = 0; i < n; i++) {
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_P, 0, 0, 0, 0);
		reqs[i].delay_ns = delay_ns + i * 1000;
	}
	return wsx_test_submit(fd, reqs, n, NULL) == (long)n ? 0 : -1;
}

FIXTURE(bounds) {
	int a, b;
};

FIXTURE_SETUP(bounds)
{
	self->a = -1;
	self->b = -1;
	if (access(WM_DIR, F_OK))
		SKIP(return, "no watermarks: a release build (WSX_DEBUG=1 has them)");
	self->a = wsx_test_open();
	self->b = wsx_test_open();
	ASSERT_GE(self->a, 0);
	ASSERT_GE(self->b, 0);
}

FIXTURE_TEARDOWN(bounds)
{
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
}

TEST_F(bounds, flush_hold_bounded)
{
	static struct wsx_completion recs[NITEMS];
	const __u64 a_delay = 9000000000ULL, b_delay = 3000000000ULL;
	long long cancelled;
	__u64 t0, t1;
	size_t got = 0;

	/* B's first, then A's and B's halves interleaved in time order */
	ASSERT_EQ(0, delay_nops(self->b, b_delay, NITEMS / 2));
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, delay_nops(self->a, a_delay, NITEMS));
	ASSERT_EQ(0, delay_nops(self->b, a_delay, NITEMS / 2));
	cancelled = wsx_test_global_stat("cancelled");
	ASSERT_GE(cancelled, 0);
	ASSERT_EQ(0, watermarks_reset());
	close(self->a);
	self->a = -1;
	t1 = wsx_test_now_ns();
	EXPECT_EQ(cancelled + NITEMS, wsx_test_global_stat("cancelled"));
	/* fired by the flush, not by their hrtimer */
	EXPECT_LT(t1, t0 + a_delay);
	TH_LOG("closing A: %ld items at most in one hold, %.1f ms",
	       watermark("tlock_items"), (t1 - t0) / 1e6);
	EXPECT_LE(watermark("tlock_items"), BATCH);
	EXPECT_GE(watermark("tlock_items"), 1);
	/* B's items are still delayed, and all of them run in their time */
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->b, recs, NITEMS, 1, 0));
	while (got < NITEMS) {
		long r = wsx_test_wait(self->b, recs, NITEMS, 1,
				       30LL * 1000000000);

		ASSERT_GT(r, 0);
		for (long i = 0; i < r; i++) {
			EXPECT_EQ(0, recs[i].status);
			EXPECT_GE(recs[i].started_ns - recs[i].queued_ns,
				  b_delay);
		}
		got += r;
	}
}

TEST_F(bounds, flush_resumes_after_pops)
{
	static struct wsx_completion recs[NITEMS];
	static unsigned char seen[NITEMS];
	const __u64 a_delay = 9000000000ULL, b_delay = 200000000ULL;
	long long cancelled;
	__u64 t0, t1;
	size_t got = 0;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a release build");
	memset(seen, 0, sizeof(seen));
	/* B's items 100 us apart: due over 200 ms .. 300 ms from now */
	for (size_t i = 0; i < NITEMS / 2; i++) {
		struct wsx_req req = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_P,
						  0, 0, 0, 0);

		req.delay_ns = b_delay + i * 100000;
		ASSERT_EQ(1, wsx_test_submit(self->b, &req, 1, NULL));
	}
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, delay_nops(self->a, a_delay, NITEMS));
	cancelled = wsx_test_global_stat("cancelled");
	ASSERT_GE(cancelled, 0);
	ASSERT_EQ(0, wsx_test_fault_set("flush_between_batches", "20000"));
	close(self->a);
	self->a = -1;
	t1 = wsx_test_now_ns();
	EXPECT_EQ(0, wsx_test_fault_set("flush_between_batches", "0"));
	EXPECT_EQ(cancelled + NITEMS, wsx_test_global_stat("cancelled"));
	EXPECT_LT(t1, t0 + a_delay);
	EXPECT_GT(wsx_test_fault_hits("flush_between_batches"), 0);
	TH_LOG("closing A took %.1f ms", (t1 - t0) / 1e6);
	while (got < NITEMS / 2) {
		long r = wsx_test_wait(self->b, recs, NITEMS, 1,
				       30LL * 1000000000);

		ASSERT_GT(r, 0);
		for (long i = 0; i < r; i++) {
			ASSERT_LT(recs[i].user_data, NITEMS / 2);
			EXPECT_EQ(0, seen[recs[i].user_data]++);
			EXPECT_EQ(0, recs[i].status);
			EXPECT_GE(recs[i].started_ns - recs[i].queued_ns,
				  b_delay + recs[i].user_data * 100000);
		}
		got += r;
	}
}

TEST_F(bounds, due_batch_bounded)
{
	static struct wsx_completion recs[NITEMS];
	static unsigned char seen[NITEMS];
	const __u64 delay = 300000000ULL;
	size_t got = 0;

	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, watermarks_reset());
	/* 1 us apart: all due within 2 ms, most before the hrtimer runs */
	ASSERT_EQ(0, delay_nops(self->a, delay, NITEMS));
	while (got < NITEMS) {
		long r = wsx_test_wait(self->a, recs, NITEMS, 1,
				       30LL * 1000000000);

		ASSERT_GT(r, 0);
		for (long i = 0; i < r; i++) {
			ASSERT_LT(recs[i].user_data, NITEMS);
			EXPECT_EQ(0, seen[recs[i].user_data]++);
			EXPECT_EQ(0, recs[i].status);
			EXPECT_GE(recs[i].started_ns - recs[i].queued_ns,
				  delay + recs[i].user_data * 1000);
		}
		got += r;
	}
	TH_LOG("%d due items: at most %ld in one hold, %ld in one hrtimer run",
	       NITEMS, watermark("tlock_items"), watermark("fire_items"));
	EXPECT_LE(watermark("tlock_items"), BATCH);
	EXPECT_LE(watermark("fire_items"), BATCH);
	EXPECT_GE(watermark("fire_items"), 1);
}

TEST_HARNESS_MAIN
