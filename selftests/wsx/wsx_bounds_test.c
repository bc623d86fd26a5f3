// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_bounds_test: no walk of a P's delayed items is as long as a user
 * makes it.  The watermarks of a WSX_DEBUG build (kmod/fault.h) count the
 * delayed items looked at or taken in one hold of a P's timer lock (taken
 * with interrupts off) and the due items one run of its hrtimer (a
 * softirq) queued; a release build has none and says SKIP.
 *
 * flush_hold_bounded: sessions A and B each delay NITEMS NOPs on P0 by
 * about 10 s, in alternating chunks, so that their items interleave in
 * P0's timers.  Closing A must fire all of A's items at once (exactly
 * NITEMS jobs are counted cancelled, and A's close returns before any of
 * them falls due) and none of B's (B has no record yet; closing B then
 * cancels all NITEMS of its own), looking at no more than BATCH items per
 * hold of the lock.  The walk that took the lock once for the whole P
 * looked at all 2 x NITEMS at once.
 *
 * flush_resumes_after_pops: A delays 64 NOPs by about 10 s, B 128 NOPs by
 * 1.5 s; then A closes with the flush_between_batches fault point sleeping
 * 3 s between two holds.  B's items come first in P0's timers and fall due
 * during the first pause, so a pop takes the item the flush stopped
 * before, and the flush goes on from the item after it (the count
 * cursor_moves).  Every one of A's items is still fired by the flush, and
 * every one of B's runs once, in its time.
 *
 * due_batch_bounded: NITEMS NOPs on P0, all due at about the same time.
 * Each runs once, none before its time, and no hold of the lock took more
 * than BATCH of them, nor did one run of the hrtimer queue more than
 * BATCH: the rest come in later runs.  The pop that took every due item at
 * once, queueing them all from one softirq run, failed both.
 *
 * traced.due_batches_one_per_run, on a release build too (it needs
 * tracefs, not the watermarks): NITEMS NOPs on P0 due at about the same
 * instant, each submitted alone with its delay counted down to that
 * instant.  The event timer:hrtimer_expire_entry, traced in a tracefs
 * instance of the case's own, gives each call of an hrtimer's function
 * with the clock of the run of the hrtimer queues that made it: `now`, the
 * basenow that __hrtimer_run_queues() reads once per run and passes to
 * __run_hrtimer(); the run calls every timer due by then, one re-armed by
 * its own function too.  No two calls of wsx_timers_fire() for one hrtimer
 * may carry the same now: after a full batch, the P's hrtimer is re-armed
 * for after that clock read, so the rest come in later runs.  Re-armed for
 * the next item alone, already due, the run called it again at once, and
 * again, until every due item was queued, the batch bounding nothing; that
 * build fails here.  The case fails, not skips, when it could not have
 * seen that: when the first run had no more items due by its clock (the
 * records' queued_ns plus delay) than its call took and the other Ps' Ms
 * could take meanwhile, each a batch from wsx_timers_pop_due() as a thief.
 * (Not a number of calls: those thieves take batches of due items whenever
 * P0's M is busy, so the calls that came to NITEMS / BATCH in most runs
 * came to 23 in one.)
 */
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define NITEMS		2048
#define BATCH		64	/* WSX_TIMERS_BATCH of kmod/timers.c */
#define WM_DIR		"/sys/kernel/debug/wsx/watermark"
#define EXPIRE_ENABLE	"events/timer/hrtimer_expire_entry/enable"
#define INSTANCE	"instances/wsx_bounds"

static long watermark(const char *name)
{
	return wsx_test_debug_number("watermark", name);
}

static int watermarks_reset(void)
{
	if (wsx_test_write_file(WM_DIR "/tlock_items", "0"))
		return -1;
	return wsx_test_write_file(WM_DIR "/fire_items", "0");
}

/*
 * Delay NOPs @first .. @first + @n - 1 on P0, NOP i by @delay_ns + i x
 * @step_ns; 0 or -1.
 */
static int delay_nops(int fd, __u64 delay_ns, __u64 step_ns, size_t first,
		      size_t n)
{
	static struct wsx_req reqs[NITEMS];
	size_t i;

	for (i = 0; i < n; i++) {
		reqs[i] = wsx_test_req(WSX_OP_NOP, first + i, WSX_PLACE_P, 0,
				       0, 0, 0);
		reqs[i].delay_ns = delay_ns + (first + i) * step_ns;
	}
	return wsx_test_submit(fd, reqs, n, NULL) == (long)n ? 0 : -1;
}

FIXTURE(bounds) {
	int a, b;
};

/* 6.1's harness runs the body after a setup that skipped: each checks */
FIXTURE_SETUP(bounds)
{
	self->a = -1;
	self->b = -1;
	if (access(WM_DIR, F_OK))
		SKIP(return, "no watermarks: a release build (WSX_DEBUG=1 has them)");
	/* a run cut short may have left the pause set */
	if (wsx_test_have_faults())
		ASSERT_EQ(0, wsx_test_fault_set("flush_between_batches", "0"));
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
	const __u64 delay = 9900000000ULL, step = 40000;
	long long cancelled;
	__u64 t0, t1;
	size_t i;

	if (self->a < 0)
		SKIP(return, "no watermarks: a release build (WSX_DEBUG=1 has them)");

	t0 = wsx_test_now_ns();
	for (i = 0; i < NITEMS; i += 256) {
		ASSERT_EQ(0, delay_nops(self->a, delay, step, i, 256));
		ASSERT_EQ(0, delay_nops(self->b, delay, step, i, 256));
	}
	cancelled = wsx_test_global_stat("cancelled");
	ASSERT_GE(cancelled, 0);
	ASSERT_EQ(0, watermarks_reset());
	close(self->a);
	self->a = -1;
	t1 = wsx_test_now_ns();
	EXPECT_EQ(cancelled + NITEMS, wsx_test_global_stat("cancelled"));
	/* fired by the flush, not by their hrtimer */
	EXPECT_LT(t1, t0 + delay);
	TH_LOG("closing A: %ld items at most in one hold, %.1f ms from the first submit",
	       watermark("tlock_items"), (t1 - t0) / 1e6);
	EXPECT_LE(watermark("tlock_items"), BATCH);
	EXPECT_GE(watermark("tlock_items"), 1);
	/* B's items are all still delayed: its close cancels them all */
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->b, recs, NITEMS, 1, 0));
	close(self->b);
	self->b = -1;
	EXPECT_EQ(cancelled + 2 * NITEMS, wsx_test_global_stat("cancelled"));
	EXPECT_LT(wsx_test_now_ns(), t0 + delay);
}

TEST_F(bounds, flush_resumes_after_pops)
{
	static struct wsx_completion recs[NITEMS];
	static unsigned char seen[NITEMS];
	const __u64 a_delay = 9900000000ULL, b_delay = 1500000000ULL;
	const size_t na = 64, nb = 128;
	long long cancelled;
	size_t got = 0;
	__u64 t0, t1;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a release build");
	memset(seen, 0, sizeof(seen));
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, delay_nops(self->a, a_delay, 1000, 0, na));
	ASSERT_EQ(0, delay_nops(self->b, b_delay, 10000, 0, nb));
	cancelled = wsx_test_global_stat("cancelled");
	ASSERT_GE(cancelled, 0);
	ASSERT_EQ(0, wsx_test_write_file("/sys/kernel/debug/wsx/count/cursor_moves",
					 "0"));
	ASSERT_EQ(0, wsx_test_fault_set("flush_between_batches", "3000000"));
	close(self->a);
	self->a = -1;
	t1 = wsx_test_now_ns();
	EXPECT_EQ(0, wsx_test_fault_set("flush_between_batches", "0"));
	EXPECT_EQ(cancelled + (long long)na,
		  wsx_test_global_stat("cancelled"));
	EXPECT_LT(t1, t0 + a_delay);
	EXPECT_GE(wsx_test_debug_number("count", "cursor_moves"), 1);
	TH_LOG("closing A took %.1f ms; the cursor moved %ld times",
	       (t1 - t0) / 1e6, wsx_test_debug_number("count", "cursor_moves"));
	while (got < nb) {
		long r = wsx_test_wait(self->b, recs, NITEMS, 1,
				       30LL * 1000000000);

		ASSERT_GT(r, 0);
		for (long i = 0; i < r; i++) {
			ASSERT_LT(recs[i].user_data, nb);
			EXPECT_EQ(0, seen[recs[i].user_data]++);
			EXPECT_EQ(0, recs[i].status);
			EXPECT_GE(recs[i].started_ns - recs[i].queued_ns,
				  b_delay + recs[i].user_data * 10000);
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

	if (self->a < 0)
		SKIP(return, "no watermarks: a release build (WSX_DEBUG=1 has them)");

	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, watermarks_reset());
	/* 1 us apart: all due within 2 ms, most before the hrtimer runs */
	ASSERT_EQ(0, delay_nops(self->a, delay, 1000, 0, NITEMS));
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

/* A call of wsx_timers_fire(), from timer:hrtimer_expire_entry */
struct fire_call {
	char hrtimer[32];	/* %p's hash: the same for one pointer */
	unsigned long long now;	/* the clock of the run that made it */
};

static int fire_call_cmp(const void *a, const void *b)
{
	const struct fire_call *x = a, *y = b;
	int c = strcmp(x->hrtimer, y->hrtimer);

	if (c)
		return c;
	return (x->now > y->now) - (x->now < y->now);
}

/*
 * The calls of wsx_timers_fire() in the trace @text (cut into lines), by
 * hrtimer and then now, in *@calls (malloc'ed); how many, or -1.
 */
static long fire_calls(char *text, struct fire_call **calls)
{
	size_t n = 0, max = 1;
	char *line, *save, fn[64];
	const char *e;

	for (e = text; (e = strchr(e, '\n')); e++)
		max++;
	*calls = calloc(max, sizeof(**calls));
	if (!*calls)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct fire_call *c = &(*calls)[n];

		e = strstr(line, ": hrtimer_expire_entry: ");
		/* %ps: a module's symbol, then " [wsx]" */
		if (!e || sscanf(e, ": hrtimer_expire_entry: hrtimer=%31s function=%63s",
				 c->hrtimer, fn) != 2 ||
		    strcmp(fn, "wsx_timers_fire"))
			continue;
		e = strstr(e, " now=");
		if (!e)
			return -1;
		c->now = strtoull(e + 5, NULL, 10);
		n++;
	}
	qsort(*calls, n, sizeof(**calls), fire_call_cmp);
	return (long)n;
}

/* The case's tracefs instance, made by the case, removed after it */
FIXTURE(traced) {
	int fd;
	char inst[128];		/* "" until made */
};

FIXTURE_SETUP(traced)
{
	self->inst[0] = '\0';
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(traced)
{
	if (self->inst[0])
		rmdir(self->inst);
	close(self->fd);
}

TEST_F(traced, due_batches_one_per_run)
{
	static struct wsx_completion recs[NITEMS];
	static __u64 delays[NITEMS];
	struct wsx_test_collect_ctx ctx = { recs, NITEMS };
	/* time to submit them all, one at a time, on a slow kernel too */
	const __u64 ahead = 500000000ULL * wsx_test_scale();
	const char *root = wsx_test_tracefs(EXPIRE_ENABLE);
	unsigned long long in_buffer, written;
	const struct fire_call *dup = NULL;
	size_t i, runs, due_first = 0;
	struct fire_call *calls;
	int nprocs;
	__u64 at, now;
	char *text;
	long n;

	if (!root)
		SKIP(return, "no tracefs with the event timer/hrtimer_expire_entry");
	nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, nprocs);
	snprintf(self->inst, sizeof(self->inst), "%s/" INSTANCE, root);
	rmdir(self->inst);	/* left by a run cut short */
	ASSERT_EQ(0, mkdir(self->inst, 0700)) {
		TH_LOG("mkdir %s: %s", self->inst, strerror(errno));
		self->inst[0] = '\0';
	}
	ASSERT_EQ(0, wsx_test_tracefs_set(self->inst, EXPIRE_ENABLE, "1"));

	at = wsx_test_now_ns() + ahead;
	for (i = 0; i < NITEMS; i++) {
		now = wsx_test_now_ns();
		ASSERT_LT(now, at) {
			TH_LOG("%zu of %d items submitted in %.0f ms", i,
			       NITEMS, ahead / 1e6);
		}
		delays[i] = at - now;
		ASSERT_EQ(0, delay_nops(self->fd, delays[i], 0, i, 1));
	}
	memset(recs, 0, sizeof(recs));
	ASSERT_EQ(NITEMS, wsx_test_reap(self->fd, NITEMS, wsx_test_collect_one,
					&ctx, 30LL * 1000000000));
	ASSERT_EQ(0, wsx_test_tracefs_set(self->inst, EXPIRE_ENABLE, "0"));
	text = wsx_test_tracefs_get(self->inst, "trace");
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, wsx_test_trace_entries(text, &in_buffer, &written));
	ASSERT_EQ(written, in_buffer) {
		TH_LOG("the trace buffer overflowed");
	}
	n = fire_calls(text, &calls);
	free(text);
	ASSERT_LE(1, n) {
		TH_LOG("no call of wsx_timers_fire in the trace");
	}

	for (i = 0, runs = 1; i + 1 < (size_t)n; i++) {
		if (strcmp(calls[i].hrtimer, calls[i + 1].hrtimer) ||
		    calls[i].now != calls[i + 1].now)
			runs++;
		else if (!dup)
			dup = &calls[i];
	}
	/* the first run: the earliest call of them all (one hrtimer, P0's) */
	now = calls[0].now;
	for (i = 1; i < (size_t)n; i++)
		if (calls[i].now < now)
			now = calls[i].now;
	for (i = 0; i < NITEMS; i++) {
		ASSERT_EQ(i, recs[i].user_data);
		ASSERT_NE(0, recs[i].queued_ns);
		EXPECT_EQ(0, recs[i].status);
		/* queued_ns: read just before its due time was set */
		due_first += recs[i].queued_ns + delays[i] <= now;
	}
	TH_LOG("%d items, %zu due by the first run: %ld calls of wsx_timers_fire in %zu runs",
	       NITEMS, due_first, n, runs);
	EXPECT_EQ(runs, (size_t)n) {
		TH_LOG("%ld calls in a run that had called it already, the first: hrtimer=%s now=%llu",
		       n - (long)runs, dup->hrtimer, dup->now);
	}
	/*
	 * Teeth: the first call took a full batch and left due items, even
	 * if each other P's M took a batch meanwhile.
	 */
	EXPECT_LT((size_t)nprocs * BATCH, due_first) {
		TH_LOG("too few items due at once: the case tested nothing");
	}
	free(calls);
}

TEST_HARNESS_MAIN
