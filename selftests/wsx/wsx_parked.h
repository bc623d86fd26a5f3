/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the kselftests whose items park (wsx_chan_test: SEND and
 * RECV on channels; wsx_netpoll_test: POLL on files; wsx_chanops_test:
 * PINGPONG and PIPELINE): the fixture's session and the module parameters
 * it restores, submitting one item or many, placing items over every
 * place, the schedtrace line's threads (the Ms) and waiting (the parked
 * items) sampled and awaited, the bound the Ms must keep while items
 * wait, the stats' counts of where readied items went, and what a closed
 * session must not leave behind.  The helpers given the harness's @_metadata ASSERT and
 * log (TH_LOG()) as a test case does.
 */
#ifndef _WSX_PARKED_H
#define _WSX_PARKED_H

#include <limits.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

/* The most module parameters a fixture saves. */
#define PARKED_PARAMS_MAX	8

/* The module parameters a fixture may change, saved at its setup. */
struct parked_params {
	const char *const *names;
	size_t n;
	char saved[PARKED_PARAMS_MAX][32];
	bool have[PARKED_PARAMS_MAX];	/* saved: restored at teardown */
};

/*
 * A fixture's setup: a session in *@fd and its number of Ps in *@nprocs
 * (ASSERTed), and the @n module parameters @names saved in @pp for
 * parked_teardown().  0, or -ENOENT without /dev/wsx: the caller skips.
 */
static inline int parked_setup(struct __test_metadata *_metadata, int *fd,
			       int *nprocs, struct parked_params *pp,
			       const char *const *names, size_t n)
{
	*fd = wsx_test_open();
	if (*fd == -ENOENT)
		return -ENOENT;
	ASSERT_LE(0, *fd);
	*nprocs = wsx_test_nprocs(*fd);
	ASSERT_LT(0, *nprocs);
	ASSERT_GE(PARKED_PARAMS_MAX, n);
	pp->names = names;
	pp->n = n;
	for (size_t i = 0; i < n; i++)
		pp->have[i] = !wsx_test_param(names[i], pp->saved[i],
					      sizeof(pp->saved[i]));
	return 0;
}

/*
 * A fixture's teardown, also after a failed ASSERT: the session closed,
 * every parameter parked_setup() saved back as it was.
 */
static inline void parked_teardown(int fd, const struct parked_params *pp)
{
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < pp->n; i++)
		if (pp->have[i])
			wsx_test_param_set(pp->names[i], pp->saved[i]);
}

/* The error of submitting @r alone (0: queued). */
static inline long submit_one(int fd, struct wsx_req r)
{
	struct wsx_submit out;
	long ret = wsx_test_submit(fd, &r, 1, &out);

	return ret == 1 ? 0 : ret;
}

/* Submit all @n of @reqs, in calls of at most WSX_SUBMIT_MAX; -errno. */
static inline long submit_all(int fd, struct wsx_req *reqs, size_t n)
{
	for (size_t sent = 0; sent < n;) {
		__u32 batch = n - sent > WSX_SUBMIT_MAX ? WSX_SUBMIT_MAX :
			      n - sent;
		long ret = wsx_test_submit(fd, reqs + sent, batch, NULL);

		if (ret < 0)
			return ret;
		sent += ret;
	}
	return 0;
}

/* @r placed by @i: local, on a P (P i mod @nprocs), global in turn. */
static inline void place_by(struct wsx_req *r, size_t i, int nprocs)
{
	r->place = i % 3;
	r->target = r->place == WSX_PLACE_P ? i % nprocs : 0;
}

/*
 * The schedtrace line's threads (the Ms) and waiting (items parked, not
 * yet readied, all sessions); -errno when the debugfs file cannot be read
 * or parsed, both then -1.
 */
static inline int sched_sample(long *threads, long *waiting)
{
	char buf[4096];
	const char *t, *w;
	int ret = wsx_test_read_debugfs("schedtrace", buf, sizeof(buf));

	*threads = *waiting = -1;
	if (ret < 0)
		return ret;
	t = strstr(buf, " threads=");
	w = strstr(buf, " waiting=");
	if (!t || !w)
		return -EPROTO;
	*threads = strtol(t + strlen(" threads="), NULL, 10);
	*waiting = strtol(w + strlen(" waiting="), NULL, 10);
	return 0;
}

/*
 * Poll schedtrace every 10 ms, for @timeout_ns, until @done() says its
 * sample is what the caller waits for; the last sample in *@threads and
 * *@waiting, the most threads seen in *@max_threads.  0, -ETIMEDOUT, or
 * the -errno of sched_sample().
 */
static inline int sched_wait(bool (*done)(long waiting, long want),
			     long want, __s64 timeout_ns, long *threads,
			     long *waiting, long *max_threads)
{
	__u64 end = wsx_test_now_ns() + timeout_ns;
	int ret;

	for (;;) {
		ret = sched_sample(threads, waiting);
		if (ret)
			return ret;
		if (*threads > *max_threads)
			*max_threads = *threads;
		if (done(*waiting, want))
			return 0;
		if (wsx_test_now_ns() > end)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

static inline bool waiting_at_least(long waiting, long want)
{
	return waiting >= want;
}

static inline bool waiting_at_most(long waiting, long want)
{
	return waiting <= want;
}

/*
 * Poll until waiting is at least @want, for @timeout_ns; the last sample's
 * threads and waiting, and the most threads seen, in the pointers.
 * 0, -ETIMEDOUT, or the -errno of sched_sample().
 */
static inline int wait_for_waiting(long want, __s64 timeout_ns,
				   long *threads, long *waiting,
				   long *max_threads)
{
	return sched_wait(waiting_at_least, want, timeout_ns, threads,
			  waiting, max_threads);
}

/*
 * Poll until waiting is at most @want, for @timeout_ns (items ended at a
 * close() leave the count as they run for the last time); the last
 * sample's waiting in *@waiting.  0, -ETIMEDOUT, or the -errno of
 * sched_sample().
 */
static inline int wait_for_waiting_below(long want, __s64 timeout_ns,
					 long *waiting)
{
	long threads, most = 0;

	return sched_wait(waiting_at_most, want, timeout_ns, &threads,
			  waiting, &most);
}

/*
 * The most Ms a test lets the module have while its items wait (on
 * channels or files): one per P and two spare (a parked item holds
 * none).  Spare Ms that earlier tests left (they exit after
 * idle_thread_ms, 5 s by default) are let go first: idle_thread_ms is
 * lowered to 100 ms (the caller's fixture restores it) and the Ms counted
 * until at most that many are left, for up to 10 s.  Should more stay,
 * the test takes their number as its bound, saying so, so that what it
 * measures is its own.
 */
static inline long m_bound(struct __test_metadata *_metadata, int nprocs)
{
	long bound = nprocs + 2, threads = 0, waiting;
	__u64 end = wsx_test_now_ns() + 10 * NSEC_PER_SEC;

	wsx_test_param_set("idle_thread_ms", "100");
	while (!sched_sample(&threads, &waiting) && threads > bound &&
	       wsx_test_now_ns() < end)
		usleep(50000);
	if (threads > bound) {
		TH_LOG("%ld Ms stay idle from before: the bound is theirs",
		       threads);
		bound = threads;
	}
	return bound;
}

/*
 * Submit all @k of @reqs on @fd, which all park, and check that they
 * wait holding no M: schedtrace's waiting reaches @waiting0 + @k within
 * 60 s and stays there 100 ms later, the Ms at most @bound meanwhile, and
 * no record comes.  The most Ms seen in *@max_threads, the last waiting
 * in *@waiting.
 */
static inline void park_all(struct __test_metadata *_metadata, int fd,
			    struct wsx_req *reqs, size_t k, long waiting0,
			    long bound, long *max_threads, long *waiting)
{
	struct wsx_completion rec;
	long threads;

	ASSERT_EQ(0, submit_all(fd, reqs, k));
	ASSERT_EQ(0, wait_for_waiting(waiting0 + k, 60 * NSEC_PER_SEC,
				      &threads, waiting, max_threads))
		TH_LOG("waiting=%ld, want %ld + %zu", *waiting, waiting0, k);
	/* and they stay so: none ends before the test lets it */
	usleep(100000);
	ASSERT_EQ(0, sched_sample(&threads, waiting));
	if (threads > *max_threads)
		*max_threads = threads;
	EXPECT_LE(waiting0 + (long)k, *waiting);
	EXPECT_GE(bound, *max_threads) TH_LOG("%zu items waiting", k);
	EXPECT_EQ(0, wsx_test_wait(fd, &rec, 1, 0, 0));
}

/*
 * close() of session @fd with @n items parked: @others of them submitted
 * before, then the @n - @others of @reqs, which park_all() submits and
 * checks, returns within 1 s, WSX_SCALE s on a slow kernel (the items
 * never end unless the close cancels them: a bound, not a timing; the
 * KASAN kernel took 1.09 s for 1,250).  The cancelled items' leaving is
 * the caller's to check.
 */
static inline void close_parked(struct __test_metadata *_metadata, int fd,
				struct wsx_req *reqs, size_t n, size_t others,
				long waiting0)
{
	long most = 0, waiting;
	__u64 t0, took;

	park_all(_metadata, fd, reqs, n - others, waiting0 + others, LONG_MAX,
		 &most, &waiting);
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, close(fd));
	took = wsx_test_now_ns() - t0;
	TH_LOG("close() with %zu items waiting took %llu us", n,
	       (unsigned long long)took / 1000);
	EXPECT_GT(NSEC_PER_SEC * wsx_test_scale(), (__s64)took);
}

/* The stats the ping-pongs read: sums over the Ps, and the global line. */
struct pp_counts {
	long long runnext;	/* ready_runnext: readies into runnext */
	long long displaced;	/* ready_displaced: ... that moved an item */
	long long hits;		/* runnext_hits: run from own runnext */
	long long stolen;	/* items thieves took */
	long long parks;	/* item_parks: items that parked */
	long long far;		/* ready_global + ready_inbox */
};

/*
 * The counts in *@c, of a module of @nprocs Ps.  0; -EIO when the stats
 * cannot be read; -ENOENT when they are not kept (stats=0: the keys are
 * there, the counts stay 0) or lack a key (an older module).
 */
static inline int pp_sample(int nprocs, struct pp_counts *c)
{
	static char text[1 << 16];
	static const char *const keys[] = { "ready_runnext", "ready_displaced",
					    "runnext_hits", "item_parks" };
	char kept[8] = "";
	long long g, i;

	if (wsx_test_param("stats", kept, sizeof(kept)) || kept[0] != 'Y')
		return -ENOENT;
	if (wsx_test_read_debugfs("stats", text, sizeof(text)) <= 0)
		return -EIO;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		if (wsx_test_stat(text, 0, keys[k]) < 0)
			return -ENOENT;
	c->runnext = wsx_test_stat_sum(text, nprocs, "ready_runnext");
	c->displaced = wsx_test_stat_sum(text, nprocs, "ready_displaced");
	c->hits = wsx_test_stat_sum(text, nprocs, "runnext_hits");
	c->stolen = wsx_test_stat_sum(text, nprocs, "stolen");
	c->parks = wsx_test_stat_sum(text, nprocs, "item_parks");
	g = wsx_test_stat(text, -1, "ready_global");
	i = wsx_test_stat(text, -1, "ready_inbox");
	if (g < 0 || i < 0)
		return -ENOENT;
	c->far = g + i;
	return 0;
}

/* What run_sampled() saw of the schedtrace line while its items ran. */
struct sched_seen {
	bool traced;		/* in: sample the line */
	long threads;		/* out: the most Ms seen */
	long waiting;		/* out: the most parked items seen */
	long samples;		/* out: the samples read */
};

/*
 * Submit all @n of @reqs (user_data 0 .. @n - 1) on @fd and reap their
 * records into recs[user_data], waiting 20 ms at a time and, when
 * @seen->traced, sampling the schedtrace line after each wait, for at
 * most @limit_ns (ASSERTed, as a record of another user_data is).
 */
static inline void run_sampled(struct __test_metadata *_metadata, int fd,
			       struct wsx_req *reqs, size_t n,
			       struct wsx_completion *recs, __s64 limit_ns,
			       struct sched_seen *seen)
{
	static struct wsx_completion got[WSX_WAIT_MAX];
	__u64 t0 = wsx_test_now_ns();
	long threads, waiting, ret;
	size_t done = 0;

	ASSERT_EQ(0, submit_all(fd, reqs, n));
	while (done < n) {
		ret = wsx_test_wait(fd, got, WSX_WAIT_MAX, 1,
				    20 * NSEC_PER_MSEC);
		if (ret == -ETIMEDOUT)
			ret = 0;
		ASSERT_LE(0, ret);
		for (long i = 0; i < ret; i++) {
			ASSERT_GT(n, got[i].user_data);
			recs[got[i].user_data] = got[i];
		}
		done += ret;
		if (seen->traced && !sched_sample(&threads, &waiting)) {
			seen->samples++;
			if (threads > seen->threads)
				seen->threads = threads;
			if (waiting > seen->waiting)
				seen->waiting = waiting;
		}
		ASSERT_GT(limit_ns, (__s64)(wsx_test_now_ns() - t0)) {
			TH_LOG("%zu of %zu records after %lld s", done, n,
			       (long long)(limit_ns / NSEC_PER_SEC));
		}
	}
}

/*
 * A case's last check after run_sampled(): the schedtrace line was
 * sampled and the Ms in it stayed at most @bound; without the line the
 * case is skipped, saying so, unless a check before failed (a skip must
 * not hide a failure).
 */
static inline void ms_stayed_bounded(struct __test_metadata *_metadata,
				     const struct sched_seen *seen,
				     long bound)
{
	if (!seen->traced) {
		if (_metadata->passed)
			SKIP(return, "no schedtrace in debugfs: threads not sampled");
		return;
	}
	EXPECT_LT(0, seen->samples);
	EXPECT_GE(bound, seen->threads);
}

/* Records by user_data, below 16: one not below, or twice, is bad. */
struct ring_recs {
	struct wsx_completion recs[16];
	unsigned char seen[16];
	int bad;
};

/* A wsx_test_rec_fn that stores a record in struct ring_recs @arg. */
static inline bool ring_store(const struct wsx_completion *rec, void *arg)
{
	struct ring_recs *r = arg;

	if (rec->user_data >= 16 || r->seen[rec->user_data]++) {
		r->bad++;
		return true;
	}
	r->recs[rec->user_data] = *rec;
	return true;
}

/*
 * How many of the @n records @recs @ok() takes (given @arg); each other
 * one is logged.
 */
static inline int records_ok(struct __test_metadata *_metadata,
			     const struct wsx_completion *recs, long n,
			     bool (*ok)(const struct wsx_completion *rec,
					void *arg),
			     void *arg)
{
	int good = 0;

	for (long i = 0; i < n; i++) {
		if (ok(&recs[i], arg)) {
			good++;
			continue;
		}
		TH_LOG("record %llu: status %d result %#llx",
		       (unsigned long long)recs[i].user_data, recs[i].status,
		       (unsigned long long)recs[i].result);
	}
	return good;
}

/*
 * records_ok()'s test of a record that max_parked refused: -EAGAIN,
 * result 0, of an item (user_data below 20) not refused before, marked
 * in @refused (unsigned char[20]).
 */
static inline bool refused_once(const struct wsx_completion *rec,
				void *refused)
{
	unsigned char *seen = refused;

	return rec->status == -EAGAIN && !rec->result && rec->user_data < 20 &&
	       !seen[rec->user_data]++;
}

/*
 * max_parked lowered to 10 (by the caller) and 20 items that all wait if
 * they may, each its own user_data below 20: placed over every place and
 * submitted on @fd, exactly 10 end at once with status -EAGAIN and
 * result 0, each once (marked in @refused), and the other 10 wait.
 */
static inline void half_refused(struct __test_metadata *_metadata, int fd,
				int nprocs, struct wsx_req reqs[20],
				unsigned char refused[20])
{
	struct wsx_completion recs[20];

	for (int i = 0; i < 20; i++)
		place_by(&reqs[i], i, nprocs);
	ASSERT_EQ(20, wsx_test_submit(fd, reqs, 20, NULL));
	ASSERT_EQ(10, wsx_test_wait(fd, recs, 20, 10, 30 * NSEC_PER_SEC));
	EXPECT_EQ(10, records_ok(_metadata, recs, 10, refused_once, refused));
	/* the other 10 wait */
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(fd, recs, 20, 1,
					    200 * NSEC_PER_MSEC));
}

/*
 * Nothing of a closed session's in-flight count is left behind: with
 * max_inflight at exactly @n (the caller's fixture restores it), a new
 * session queues @n NOPs at once (@reqs has room for them) and each ends.
 */
static inline void no_inflight_left(struct __test_metadata *_metadata,
				    struct wsx_req *reqs, size_t n)
{
	char buf[32];
	int fd;

	snprintf(buf, sizeof(buf), "%zu", n);
	ASSERT_EQ(0, wsx_test_param_set("max_inflight", buf));
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	for (size_t i = 0; i < n; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_LOCAL, 0, 0, 0,
				       0);
	ASSERT_EQ(0, submit_all(fd, reqs, n));
	EXPECT_EQ((long)n, wsx_test_reap(fd, n, NULL, NULL,
					 30 * NSEC_PER_SEC));
	close(fd);
}

#endif /* _WSX_PARKED_H */
