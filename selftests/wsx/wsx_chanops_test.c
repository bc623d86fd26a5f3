// SPDX-License-Identifier: GPL-2.0
/*
 * WSX_OP_PINGPONG and WSX_OP_PIPELINE (ABI 1.4): Go's two channel shapes
 * inside one request, over unbuffered channels of the op's own.  Every
 * refusal at submission (0 rounds, stages or values and any unused
 * argument -EINVAL; over WSX_CHAN_COUNT_MAX rounds or values, or over
 * WSX_PIPELINE_MAX_STAGES stages, -E2BIG; the limits themselves taken);
 * no session channel needed (max_chans 0) and none taken (the session's
 * next id is 1); PINGPONG(100,000) makes its round trips, each handoff
 * readied into the readier's runnext and run there (the stats' counters:
 * at least 99% on the readier's CPU); PIPELINE(8, 100,000) gives the
 * sink's sum while the schedtrace line's threads stay at one M per P and
 * two spare, and so do 32 pipelines of 64 stages at once; PIPELINE(64,
 * 1,000) and a mix of 16 at once over every place, each with its own
 * result; a PINGPONG of 10^9 round trips ended by close() with
 * -ECANCELED (traced) within a few seconds, nothing left behind; status
 * -EAGAIN at max_parked (0, and another kind of item filling the
 * session's count), per session; both doors (the SQ, also in pick-up
 * mode).
 *
 * Sizes are divided by WSX_SCALE (wsx_test_scaled()).  The cases that
 * read the stats, schedtrace or tracefs check the results first, then
 * skip, saying why, when those are not there; before they count the Ms
 * they let earlier tests' spare Ms exit (m_bound()).  Every parameter a
 * case changes is restored by the fixture's teardown, also after a failed
 * ASSERT.  Nothing here asserts a time but close()'s generous bound.
 */
#include "../kselftest_harness.h"
#include "wsx_op_expect.h"
#include "wsx_parked.h"
#include "wsx_rings.h"

/* ---- helpers ------------------------------------------------------------ */

static struct wsx_req pingpong_req(__u64 ud, __u64 rounds)
{
	return wsx_test_req(WSX_OP_PINGPONG, ud, WSX_PLACE_LOCAL, 0, rounds, 0,
			    0);
}

static struct wsx_req pipeline_req(__u64 ud, __u64 stages, __u64 values)
{
	return wsx_test_req(WSX_OP_PIPELINE, ud, WSX_PLACE_LOCAL, 0, stages,
			    values, 0);
}

/* 1 + 2 + ... + @n modulo 2^64, as a PIPELINE's sink adds them. */
#define sum_to(n)	wsx_expect_pipeline_sum(n)

/* Submit @r alone and wait up to @timeout_ns for its record: 0 or -errno. */
static long run_one(int fd, struct wsx_req r, struct wsx_completion *rec,
		    __s64 timeout_ns)
{
	long ret = submit_one(fd, r);

	if (ret)
		return ret;
	ret = wsx_test_wait(fd, rec, 1, 1, timeout_ns);
	return ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
}

/*
 * @r alone on @fd ends, within 2 minutes (ASSERTed), with @status and
 * @result; its record in *@rec for what the case checks besides.
 */
static void ends_with(struct __test_metadata *_metadata, int fd,
		      struct wsx_req r, int status, __u64 result,
		      struct wsx_completion *rec)
{
	ASSERT_EQ(0, run_one(fd, r, rec, 120 * NSEC_PER_SEC));
	EXPECT_EQ(r.user_data, rec->user_data);
	EXPECT_EQ(status, rec->status)
		TH_LOG("op %u args %llu %llu", r.op,
		       (unsigned long long)r.args[0],
		       (unsigned long long)r.args[1]);
	EXPECT_EQ(result, rec->result)
		TH_LOG("op %u args %llu %llu", r.op,
		       (unsigned long long)r.args[0],
		       (unsigned long long)r.args[1]);
}

static long chan_create(int fd, __u32 *id)
{
	struct wsx_chan_create cc = { .cap = 0 };
	long ret = wsx_test_ioctl(fd, WSX_IOC_CHAN_CREATE, &cc);

	if (!ret)
		*id = cc.id;
	return ret;
}

/* ---- the fixture -------------------------------------------------------- */

static const char *const params[] = { "max_parked", "max_inflight",
				      "max_chans", "idle_thread_ms" };
#define NPARAMS	ARRAY_SIZE(params)

#define INSTANCE	"instances/wsx_chanops"
#define END_EVENT	"events/wsx/wsx_item_end"

FIXTURE(chanops) {
	int fd;
	int nprocs;
	struct parked_params saved;
	char inst[128];		/* a tracefs instance, "" until made */
};

FIXTURE_SETUP(chanops)
{
	self->inst[0] = '\0';
	if (parked_setup(_metadata, &self->fd, &self->nprocs, &self->saved,
			 params, NPARAMS))
		SKIP(return, "/dev/wsx missing: load wsx.ko first");
}

/* Every parameter back as it was, also after a failed ASSERT. */
FIXTURE_TEARDOWN(chanops)
{
	parked_teardown(self->fd, &self->saved);
	if (self->inst[0])
		rmdir(self->inst);
}

/* ---- refused at submission ---------------------------------------------- */

/*
 * Every refusal: 0 rounds, stages or values, and each unused argument
 * set, -EINVAL; rounds or values over WSX_CHAN_COUNT_MAX, stages over
 * WSX_PIPELINE_MAX_STAGES, -E2BIG.  Nothing refused is queued, and a
 * batch stops at the first refused.  The limits themselves are taken
 * (on a session of their own, closed at once: 2^32 - 1 round trips would
 * run for hours).
 */
TEST_F(chanops, bad_arguments_refused)
{
	static const struct {
		__u32 op;
		__u64 args[4];
		long err;
	} bad[] = {
		{ WSX_OP_PINGPONG, { 0 }, -EINVAL },
		{ WSX_OP_PINGPONG, { WSX_CHAN_COUNT_MAX + 1 }, -E2BIG },
		{ WSX_OP_PINGPONG, { ~0ULL }, -E2BIG },
		{ WSX_OP_PINGPONG, { 1, 1 }, -EINVAL },
		{ WSX_OP_PINGPONG, { 1, 0, 1 }, -EINVAL },
		{ WSX_OP_PINGPONG, { 1, 0, 0, 1 }, -EINVAL },
		{ WSX_OP_PINGPONG, { 1, ~0ULL, ~0ULL, ~0ULL }, -EINVAL },
		{ WSX_OP_PIPELINE, { 0, 1 }, -EINVAL },
		{ WSX_OP_PIPELINE, { 1, 0 }, -EINVAL },
		{ WSX_OP_PIPELINE, { WSX_PIPELINE_MAX_STAGES + 1, 1 }, -E2BIG },
		{ WSX_OP_PIPELINE, { 1ULL << 32, 1 }, -E2BIG },
		{ WSX_OP_PIPELINE, { ~0ULL, 1 }, -E2BIG },
		{ WSX_OP_PIPELINE, { 1, WSX_CHAN_COUNT_MAX + 1 }, -E2BIG },
		{ WSX_OP_PIPELINE, { 1, ~0ULL }, -E2BIG },
		{ WSX_OP_PIPELINE, { 1, 1, 1 }, -EINVAL },
		{ WSX_OP_PIPELINE, { 1, 1, 0, 1 }, -EINVAL },
		{ WSX_OP_PIPELINE, { 1, 1, ~0ULL }, -EINVAL },
	};
	struct wsx_completion rec;
	struct wsx_submit out;
	struct wsx_req r, three[3];
	int fd2;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		r = wsx_test_req(bad[i].op, i, WSX_PLACE_LOCAL, 0, 0, 0, 0);
		memcpy(r.args, bad[i].args, sizeof(r.args));
		EXPECT_EQ(bad[i].err, submit_one(self->fd, r))
			TH_LOG("refusal %zu: op %u args %#llx %#llx %#llx %#llx",
			       i, bad[i].op,
			       (unsigned long long)bad[i].args[0],
			       (unsigned long long)bad[i].args[1],
			       (unsigned long long)bad[i].args[2],
			       (unsigned long long)bad[i].args[3]);
	}
	/* none of them was queued */
	EXPECT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, 0));

	/* a batch: the first queued, the second refused, the third not tried */
	three[0] = pingpong_req(100, 10);
	three[1] = pipeline_req(101, WSX_PIPELINE_MAX_STAGES + 1, 10);
	three[2] = pipeline_req(102, 2, 10);
	EXPECT_EQ(1, wsx_test_submit(self->fd, three, 3, &out));
	EXPECT_EQ(1U, out.queued);
	EXPECT_EQ(-E2BIG, out.error);
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 30 * NSEC_PER_SEC));
	EXPECT_EQ(100U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(10U, rec.result);
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));

	/* the limits are taken */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, submit_one(fd2, pingpong_req(1, WSX_CHAN_COUNT_MAX)));
	EXPECT_EQ(0, submit_one(fd2, pipeline_req(2, WSX_PIPELINE_MAX_STAGES,
						  WSX_CHAN_COUNT_MAX)));
	EXPECT_EQ(0, close(fd2));
}

/*
 * The ops' channels are their own: with max_chans 0 the session can
 * make none (-EMFILE), yet a PINGPONG and a PIPELINE of 64 stages (65
 * channels) run; then, max_chans 1, the session's first channel gets id
 * 1 and a second is -EMFILE: the ops took no id and count against no
 * limit of the session's.
 */
TEST_F(chanops, no_session_channel_needed)
{
	struct wsx_completion rec;
	__u32 id = 0;

	ASSERT_EQ(0, wsx_test_param_set("max_chans", "0"));
	EXPECT_EQ(-EMFILE, chan_create(self->fd, &id));
	ends_with(_metadata, self->fd, pingpong_req(1, 1000), 0, 1000, &rec);
	ends_with(_metadata, self->fd, pipeline_req(2, 64, 100), 0,
		  sum_to(100), &rec);
	ASSERT_EQ(0, wsx_test_param_set("max_chans", "1"));
	EXPECT_EQ(0, chan_create(self->fd, &id));
	EXPECT_EQ(1U, id);
	EXPECT_EQ(-EMFILE, chan_create(self->fd, &id));
}

/* ---- results --------------------------------------------------------------- */

/*
 * The smallest and the deepest: PINGPONG(1), PIPELINE(1, 1) and
 * PIPELINE(64, 1,000); then 16 at once, placed over every place (8
 * PINGPONGs of 1,000 + i round trips, 8 PIPELINEs of 1 + 9i stages and
 * 100 + i values): each record its own result, status 0, once.
 */
TEST_F_TIMEOUT(chanops, results_right, 120)
{
	struct ring_recs st = { .bad = 0 };
	struct wsx_completion rec;
	struct wsx_req reqs[16];
	__u64 want;

	/* nodes: the items that ran for it, at least its two or 66 */
	ends_with(_metadata, self->fd, pingpong_req(1, 1), 0, 1, &rec);
	EXPECT_LE(2U, rec.nodes);
	ends_with(_metadata, self->fd, pipeline_req(2, 1, 1), 0, 1, &rec);
	EXPECT_LE(3U, rec.nodes);
	ends_with(_metadata, self->fd, pipeline_req(3, 64, 1000), 0, 500500,
		  &rec);
	EXPECT_LE(66U, rec.nodes);

	for (int i = 0; i < 16; i++) {
		reqs[i] = i < 8 ? pingpong_req(i, 1000 + i) :
				  pipeline_req(i, 1 + 9 * (i - 8), 100 + i);
		place_by(&reqs[i], i, self->nprocs);
	}
	ASSERT_EQ(16, wsx_test_submit(self->fd, reqs, 16, NULL));
	ASSERT_EQ(16, wsx_test_reap(self->fd, 16, ring_store, &st,
				    60 * NSEC_PER_SEC));
	EXPECT_EQ(0, st.bad);
	for (int i = 0; i < 16; i++) {
		want = i < 8 ? 1000U + i : sum_to(100 + i);
		EXPECT_EQ(1, st.seen[i]) TH_LOG("op %d", i);
		EXPECT_EQ(0, st.recs[i].status) TH_LOG("op %d", i);
		EXPECT_EQ(want, st.recs[i].result) TH_LOG("op %d", i);
	}
	/* and nothing more */
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
}

/* ---- PINGPONG: a readied item runs next on the readier's P ---------------- */

/*
 * PINGPONG(100,000, scaled) makes its round trips, and on idle Ps stays
 * on one CPU: every one of its 2 x 100,000 handoffs parks one item
 * (item_parks) and readies it from the other, a running item, so into
 * the readier's P's runnext (Go's goready()), never to the global queue
 * or an idle P's inbox (ready_global, ready_inbox); an item readied
 * there runs on that P unless a thief takes it (stolen, which counts
 * every item stolen meanwhile, so over-counts).  At least 99% of the
 * handoffs must run on the readier's CPU: readied into runnext and not
 * stolen.  On a debug kernel (WSX_SCALE over 1: 4 vCPUs under TCG on 2
 * host cores, KASAN) a spinning thief takes runnext more often before
 * its owner's M comes back to it, and the bound is 90%, as
 * wsx_chan_test's pingpong_readies_into_the_readiers_runnext has it.
 * The counts are the module's: no other user of wsx may run meanwhile.
 */
TEST_F_TIMEOUT(chanops, pingpong_stays_on_the_readiers_cpu, 180)
{
	size_t n = wsx_test_scaled(100000, 2000);
	long long handoffs = 2 * (long long)n, readies, far, stolen, parks;
	long long pct = wsx_test_scale() > 1 ? 90 : 99;
	struct pp_counts before, after;
	struct wsx_completion rec;
	int ret;

	ret = pp_sample(self->nprocs, &before);
	ASSERT_EQ(0, run_one(self->fd, pingpong_req(7, n), &rec,
			     150 * NSEC_PER_SEC));
	EXPECT_EQ(7U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ((__u64)n, rec.result);
	/* the result was checked; a skip must not hide a failure */
	if (ret && !_metadata->passed)
		return;
	if (ret == -EIO)
		SKIP(return, "debugfs stats unreadable: mount debugfs");
	if (ret)
		SKIP(return, "no ready_runnext counted (stats=0, or an older module)");
	ASSERT_EQ(0, pp_sample(self->nprocs, &after));
	readies = after.runnext - before.runnext;
	far = after.far - before.far;
	stolen = after.stolen - before.stolen;
	parks = after.parks - before.parks;
	TH_LOG("%lld handoffs in %.1f ms: %lld parks, %lld readied into the readier's runnext, %lld elsewhere, %lld items stolen, %lld runnext hits; %.2f%% on the readier's CPU (bound %lld%%)",
	       handoffs, (rec.finished_ns - rec.started_ns) / 1e6, parks,
	       readies, far, stolen, after.hits - before.hits,
	       handoffs ? 100.0 * (readies - stolen) / handoffs : 0.0, pct);
	/* each handoff parked one item and readied it, from a running item */
	EXPECT_LE(handoffs * 99 / 100, parks);
	EXPECT_LE(handoffs * 99 / 100, readies);
	EXPECT_GE(handoffs + 16, readies);
	EXPECT_GE(handoffs / 100, far);
	/* readied into runnext and run there, not stolen */
	EXPECT_LE(handoffs * pct, 100 * (readies - stolen));
}

/* ---- PIPELINE: parked items hold no M ------------------------------------- */

/*
 * PIPELINE(8, 100,000, scaled): the sink's sum is 1 + ... + 100,000,
 * status 0, and while its ten items hand the values on, the schedtrace
 * line's threads stay at one M per P and two spare (sampled every 20 ms).
 */
TEST_F_TIMEOUT(chanops, pipeline_of_eight_stages_holds_no_thread, 240)
{
	__u64 n = wsx_test_scaled(100000, 2000);
	struct sched_seen seen = { .traced = false };
	struct wsx_req r = pipeline_req(0, 8, n);
	long threads = 0, waiting, bound;
	struct wsx_completion rec;

	seen.traced = !sched_sample(&threads, &waiting);
	bound = seen.traced ? m_bound(_metadata, self->nprocs) : 0;
	run_sampled(_metadata, self->fd, &r, 1, &rec, 200 * NSEC_PER_SEC,
		    &seen);
	TH_LOG("%llu values through 8 stages in %.1f ms; at most %ld Ms, %ld waiting in %ld samples (bound %ld)",
	       (unsigned long long)n, (rec.finished_ns - rec.started_ns) / 1e6,
	       seen.threads, seen.waiting, seen.samples, bound);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(sum_to(n), rec.result);
	ms_stayed_bounded(_metadata, &seen, bound);
}

/*
 * 32 PIPELINEs of 64 stages and 1,000 values (scaled) at once, 2,112
 * items: each sink's sum right, and while they run more items wait at
 * once than the Ms the module may have (waiting over the bound), the Ms
 * still at one per P and two spare: parked items hold none.
 */
TEST_F_TIMEOUT(chanops, many_pipelines_hold_no_thread, 240)
{
	enum { N = 32 };
	__u64 n = wsx_test_scaled(1000, 100);
	struct sched_seen seen = { .traced = false };
	long threads = 0, waiting, bound;
	struct wsx_completion recs[N];
	struct wsx_req reqs[N];

	seen.traced = !sched_sample(&threads, &waiting);
	bound = seen.traced ? m_bound(_metadata, self->nprocs) : 0;
	for (int i = 0; i < N; i++) {
		reqs[i] = pipeline_req(i, WSX_PIPELINE_MAX_STAGES, n);
		place_by(&reqs[i], i, self->nprocs);
	}
	memset(recs, 0, sizeof(recs));
	run_sampled(_metadata, self->fd, reqs, N, recs, 200 * NSEC_PER_SEC,
		    &seen);
	TH_LOG("%d pipelines of 64 stages, %llu values each: at most %ld Ms and %ld waiting in %ld samples (bound %ld)",
	       N, (unsigned long long)n, seen.threads, seen.waiting,
	       seen.samples, bound);
	for (int i = 0; i < N; i++) {
		EXPECT_EQ((__u64)i, recs[i].user_data);
		EXPECT_EQ(0, recs[i].status) TH_LOG("pipeline %d", i);
		EXPECT_EQ(sum_to(n), recs[i].result) TH_LOG("pipeline %d", i);
	}
	/* more items parked at once than there may be Ms */
	if (seen.traced) {
		EXPECT_LT(bound, seen.waiting);
	}
	ms_stayed_bounded(_metadata, &seen, bound);
}

/* ---- close() ---------------------------------------------------------------- */

/* The wsx_item_end events of @text: *@all of them, *@cancelled -ECANCELED. */
static void count_ends(const char *text, int *all, int *cancelled)
{
	char pat[32];
	const char *at;

	snprintf(pat, sizeof(pat), "status=%d", -ECANCELED);
	*all = *cancelled = 0;
	for (at = strstr(text, "wsx_item_end:"); at;
	     at = strstr(at + 1, "wsx_item_end:")) {
		const char *eol = strchr(at, '\n'), *st = strstr(at, pat);

		++*all;
		*cancelled += st && (!eol || st < eol);
	}
}

/*
 * A PINGPONG of 10^9 round trips (an hour or more), running (its items
 * park and are readied: item_parks grows), then close() of its session:
 * close() returns within 5 s (x WSX_SCALE), the op's items end with
 * -ECANCELED (the event wsx:wsx_item_end, traced in a tracefs instance of
 * the case's own with the filter status != 0: every such end is
 * -ECANCELED, and there is one), the job counts in the stats' cancelled,
 * the parked count is back where it was, nothing of the in-flight count
 * is left (max_inflight at exactly 64, a new session queues 64 at once)
 * and a new session's PINGPONG runs.
 */
TEST_F_TIMEOUT(chanops, close_ends_a_long_pingpong, 120)
{
	const char *root = wsx_test_tracefs(END_EVENT "/enable");
	long long cancelled0, cancelled = -1;
	long threads, waiting0 = -1, waiting;
	struct pp_counts c0, c1;
	struct wsx_completion rec;
	struct wsx_req nops[64];
	int fd2, all = 0, ecanceled = 0;
	bool counted, traced = false;
	__u64 t0, took, end;
	char *text = NULL;

	if (sched_sample(&threads, &waiting0))
		waiting0 = -1;
	cancelled0 = wsx_test_global_stat("cancelled");
	if (root) {
		snprintf(self->inst, sizeof(self->inst), "%s/" INSTANCE, root);
		rmdir(self->inst);	/* left by a run cut short */
		ASSERT_EQ(0, mkdir(self->inst, 0700)) {
			TH_LOG("mkdir %s: %s", self->inst, strerror(errno));
			self->inst[0] = '\0';
		}
		/* only the ends that are not 0: the running op's are many */
		ASSERT_EQ(0, wsx_test_tracefs_set(self->inst,
						  END_EVENT "/filter",
						  "status != 0"));
	}
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, submit_one(fd2, pingpong_req(1, 1000000000ULL)));
	/* it runs: no record, and (with the stats) its items keep parking */
	counted = !pp_sample(self->nprocs, &c0);
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(fd2, &rec, 1, 1,
					    300 * NSEC_PER_MSEC));
	if (counted) {
		ASSERT_EQ(0, pp_sample(self->nprocs, &c1));
		EXPECT_LT(c0.parks + 100, c1.parks)
			TH_LOG("the PINGPONG's items do not park: not running?");
	}
	if (self->inst[0]) {
		ASSERT_EQ(0, wsx_test_tracefs_set(self->inst,
						  END_EVENT "/enable", "1"));
		traced = true;
	}
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, close(fd2));
	took = wsx_test_now_ns() - t0;
	TH_LOG("close() of a running PINGPONG took %llu us",
	       (unsigned long long)took / 1000);
	EXPECT_GT(5 * NSEC_PER_SEC * wsx_test_scale(), (__s64)took);
	if (traced) {
		end = wsx_test_now_ns() + 5 * NSEC_PER_SEC;
		do {
			free(text);
			text = wsx_test_tracefs_get(self->inst, "trace");
			ASSERT_NE(NULL, text);
			count_ends(text, &all, &ecanceled);
			if (ecanceled || wsx_test_now_ns() > end)
				break;
			usleep(50000);
		} while (true);
		ASSERT_EQ(0, wsx_test_tracefs_set(self->inst,
						  END_EVENT "/enable", "0"));
		TH_LOG("%d item ends of a status other than 0 traced, %d -ECANCELED",
		       all, ecanceled);
		EXPECT_LT(0, ecanceled);
		EXPECT_EQ(all, ecanceled);
		free(text);
	}
	if (cancelled0 >= 0) {
		end = wsx_test_now_ns() + 5 * NSEC_PER_SEC;
		do {
			cancelled = wsx_test_global_stat("cancelled");
			if (cancelled > cancelled0)
				break;
			usleep(10000);
		} while (wsx_test_now_ns() < end);
		EXPECT_EQ(1, cancelled - cancelled0);
	}
	if (waiting0 >= 0) {
		EXPECT_EQ(0, wait_for_waiting_below(waiting0, 5 * NSEC_PER_SEC,
						    &waiting))
			TH_LOG("waiting=%ld, was %ld", waiting, waiting0);
	}
	no_inflight_left(_metadata, nops, 64);
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ends_with(_metadata, fd2, pingpong_req(2, 1000), 0, 1000, &rec);
	close(fd2);
	if (!traced && _metadata->passed)
		SKIP(return, "no tracefs with the event wsx/wsx_item_end: -ECANCELED not seen");
}

/* ---- max_parked ------------------------------------------------------------ */

/*
 * Each item of the op counts in max_parked while it waits: at max_parked
 * 0 the first wait of a PINGPONG and of a PIPELINE meets it, and the
 * record says -EAGAIN with nothing made (no handoff can happen without a
 * wait on an unbuffered channel).  The count is the session's and counts
 * every kind of item: at max_parked 4, a session with 4 RECVs waiting
 * gets -EAGAIN for a PINGPONG, while another session's runs; the RECVs
 * end -ENODATA when their channel is closed.
 */
TEST_F_TIMEOUT(chanops, max_parked_gives_eagain, 60)
{
	long threads, waiting, base, most = 0;
	struct wsx_completion rec, recs[4];
	struct wsx_req recv[4];
	int fd2, enodata = 0;
	bool traced;
	__u32 c;

	ASSERT_EQ(0, wsx_test_param_set("max_parked", "0"));
	ends_with(_metadata, self->fd, pingpong_req(1, 1000), -EAGAIN, 0, &rec);
	ends_with(_metadata, self->fd, pipeline_req(2, 8, 1000), -EAGAIN, 0,
		  &rec);

	ASSERT_EQ(0, wsx_test_param_set("max_parked", "4"));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, chan_create(fd2, &c));
	for (int i = 0; i < 4; i++)
		recv[i] = wsx_test_req(WSX_OP_RECV, 10 + i, WSX_PLACE_LOCAL, 0,
				       c, 1, 0);
	/* the 4 wait (counted from their wait on): schedtrace says when */
	traced = !sched_sample(&threads, &base);
	ASSERT_EQ(4, wsx_test_submit(fd2, recv, 4, NULL));
	if (traced) {
		ASSERT_EQ(0, wait_for_waiting(base + 4, 30 * NSEC_PER_SEC,
					      &threads, &waiting, &most));
	}
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(fd2, &rec, 1, 1,
					    300 * NSEC_PER_MSEC));
	ends_with(_metadata, fd2, pingpong_req(3, 1000), -EAGAIN, 0, &rec);
	/* another session: its own count */
	ends_with(_metadata, self->fd, pingpong_req(4, 1000), 0, 1000, &rec);
	ASSERT_EQ(0, wsx_test_ioctl(fd2, WSX_IOC_CHAN_CLOSE, &c));
	ASSERT_EQ(4, wsx_test_wait(fd2, recs, 4, 4, 10 * NSEC_PER_SEC));
	for (int i = 0; i < 4; i++)
		enodata += recs[i].user_data >= 10 &&
			   recs[i].status == -ENODATA;
	EXPECT_EQ(4, enodata);
	close(fd2);
}

/* ---- the rings --------------------------------------------------------------- */

/*
 * Both doors: a PINGPONG and a PIPELINE in the SQ, consumed by
 * WSX_IOC_ENTER, end with their results in the CQ (with the times asked
 * for), while a PINGPONG of WSX_IOC_SUBMIT ends in WAIT's records;
 * refused SQ entries are answered by records with the errno SUBMIT gives
 * (-E2BIG, -EINVAL).  In pick-up mode, where the Ms may take them from
 * the SQ themselves (they are not submitter-only), the same requests end
 * alike.
 */
TEST_F_TIMEOUT(chanops, through_the_rings, 120)
{
	static const int want_status[] = { 0, 0, -E2BIG, -EINVAL, -EINVAL };
	const int nsq = ARRAY_SIZE(want_status);
	const __u64 want[] = { 1000, sum_to(1000), 0, 0, 0 };
	struct wsx_req sq[ARRAY_SIZE(want_status)];
	struct wsx_completion rec;
	struct ring_recs got;
	struct wsx_enter e;
	struct wsx_tring t;
	long ret, have = 0;
	int fd2;
	__u64 end;

	sq[0] = pingpong_req(0, 1000);
	sq[0].flags = WSX_REQ_TIMESTAMPS;
	sq[1] = pipeline_req(1, 8, 1000);
	sq[2] = pipeline_req(2, WSX_PIPELINE_MAX_STAGES + 1, 1);
	sq[3] = pingpong_req(3, 0);
	sq[4] = pipeline_req(4, 1, 1);
	sq[4].args[2] = 1;

	ASSERT_EQ(0, wsx_tring_setup(&t, self->fd, 8, 16));
	memset(&got, 0, sizeof(got));
	for (int i = 0; i < nsq; i++)
		ASSERT_TRUE(wsx_tring_push(&t, &sq[i]));
	ASSERT_EQ(0, submit_one(self->fd, pingpong_req(100, 500)));
	ret = wsx_tring_enter(&t, nsq, 0, 0, &e);
	ASSERT_EQ(0, ret);
	EXPECT_EQ((__u32)nsq, e.submitted);
	EXPECT_EQ(0, e.error);
	end = wsx_test_now_ns() + 60 * NSEC_PER_SEC;
	while (have < nsq && wsx_test_now_ns() < end) {
		ret = wsx_tring_enter(&t, 0, 1, 10 * NSEC_PER_SEC, NULL);
		ASSERT_TRUE(ret == 0 || ret == -ETIMEDOUT);
		ret = wsx_tring_reap(&t, 0, ring_store, &got);
		ASSERT_LE(0, ret);
		have += ret;
	}
	ASSERT_EQ(nsq, have);
	EXPECT_EQ(0, got.bad);
	for (int i = 0; i < nsq; i++) {
		EXPECT_TRUE(got.seen[i]);
		EXPECT_EQ(want_status[i], got.recs[i].status)
			TH_LOG("SQ entry %d", i);
		EXPECT_EQ(want[i], got.recs[i].result) TH_LOG("SQ entry %d", i);
	}
	/* the times only where asked for */
	EXPECT_NE(0U, got.recs[0].finished_ns);
	EXPECT_EQ(0U, got.recs[1].finished_ns);
	/* the ioctl door's record in its own door */
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 30 * NSEC_PER_SEC));
	EXPECT_EQ(100U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(500U, rec.result);
	EXPECT_EQ(0U, wsx_tring_ready(&t));
	wsx_tring_unmap(&t);

	/* pick-up mode */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd2, 8, 16,
					   WSX_RING_SQ_PICKUP));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, wsx_tring_run(&t, sq, nsq, ring_store, &got,
				   60 * NSEC_PER_SEC));
	EXPECT_EQ(0, got.bad);
	for (int i = 0; i < nsq; i++) {
		EXPECT_TRUE(got.seen[i]);
		EXPECT_EQ(want_status[i], got.recs[i].status)
			TH_LOG("pick-up, SQ entry %d", i);
		EXPECT_EQ(want[i], got.recs[i].result)
			TH_LOG("pick-up, SQ entry %d", i);
	}
	wsx_tring_unmap(&t);
	close(fd2);
}

TEST_HARNESS_MAIN
