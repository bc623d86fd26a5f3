// SPDX-License-Identifier: GPL-2.0
/*
 * The channels a /dev/wsx session owns (ABI 1.2): WSX_IOC_CHAN_CREATE and
 * WSX_IOC_CHAN_CLOSE with every error they document, WSX_OP_SEND and
 * WSX_OP_RECV with bad arguments and unknown ids, every value received
 * exactly once over unbuffered and buffered channels, Go's close()
 * semantics (waiting receivers -ENODATA, waiting senders -EPIPE, a
 * buffer drained after close), an 8-stage pipeline with a slow stage,
 * parked items that hold no kernel thread (the schedtrace line's threads
 * and waiting), the module parameters max_chans, max_chan_cap and
 * max_parked changed at run time, close() of a session with 10,000
 * parked items, both ops through the rings, and a ping-pong whose every
 * handoff is readied into the readier's runnext.
 *
 * Sizes are divided by WSX_SCALE (wsx_test_scaled()).  The schedtrace
 * cases skip, saying why, without a readable debugfs; before they count
 * the Ms they let earlier tests' spare Ms exit (m_bound()).  Every
 * parameter a case changes is restored by the fixture's teardown, also
 * after a failed ASSERT.
 */
#include <pthread.h>

#include "../kselftest_harness.h"
#include "wsx_parked.h"
#include "wsx_rings.h"

/* ---- helpers ------------------------------------------------------------ */

/* WSX_IOC_CHAN_CREATE with @cap, @flags and @reserved; 0 or -errno. */
static long chan_create_raw(int fd, __u32 cap, __u32 flags, __u32 reserved,
			    __u32 *id)
{
	struct wsx_chan_create cc = {
		.cap = cap, .flags = flags, .reserved = reserved,
	};
	long ret = wsx_test_ioctl(fd, WSX_IOC_CHAN_CREATE, &cc);

	if (!ret && id)
		*id = cc.id;
	return ret;
}

static long chan_create(int fd, __u32 cap, __u32 *id)
{
	return chan_create_raw(fd, cap, 0, 0, id);
}

static long chan_close(int fd, __u32 id)
{
	return wsx_test_ioctl(fd, WSX_IOC_CHAN_CLOSE, &id);
}

static struct wsx_req send_req(__u64 ud, __u64 id, __u64 first, __u64 count)
{
	return wsx_test_req(WSX_OP_SEND, ud, WSX_PLACE_LOCAL, 0, id, first,
			    count);
}

static struct wsx_req recv_req(__u64 ud, __u64 id, __u64 count, __u64 fwd,
			       __u64 ns)
{
	struct wsx_req r = wsx_test_req(WSX_OP_RECV, ud, WSX_PLACE_LOCAL, 0,
					id, count, fwd);

	r.args[3] = ns;
	return r;
}

/* Stores each record at recs[user_data] (user_data below n). */
struct store {
	struct wsx_completion *recs;
	size_t n, bad, dups;
	unsigned char *seen;
};

static bool store_one(const struct wsx_completion *rec, void *arg)
{
	struct store *s = arg;

	if (rec->user_data >= s->n) {
		s->bad++;
		return true;
	}
	if (s->seen[rec->user_data]++)
		s->dups++;
	s->recs[rec->user_data] = *rec;
	return true;
}

static void store_init(struct store *s, size_t n)
{
	s->n = n;
	s->bad = s->dups = 0;
	s->recs = calloc(n, sizeof(*s->recs));
	s->seen = calloc(n, 1);
}

static void store_free(struct store *s)
{
	free(s->recs);
	free(s->seen);
}

/* Sum of @count values from @first on, modulo 2^64. */
static __u64 range_sum(__u64 first, __u64 count)
{
	/* count * first + count * (count - 1) / 2, the halving done exactly */
	__u64 a = count, b = count - 1;

	if (a % 2 == 0)
		a /= 2;
	else
		b /= 2;
	return count * first + a * b;
}

/* ---- the fixture -------------------------------------------------------- */

static const char *const params[] = { "max_chans", "max_chan_cap",
				      "max_parked", "max_inflight",
				      "idle_thread_ms" };
#define NPARAMS	ARRAY_SIZE(params)

FIXTURE(chan) {
	int fd;
	int nprocs;
	struct parked_params saved;
};

FIXTURE_SETUP(chan)
{
	if (parked_setup(_metadata, &self->fd, &self->nprocs, &self->saved,
			 params, NPARAMS))
		SKIP(return, "/dev/wsx missing: load wsx.ko first");
}

/* Every parameter back as it was, also after a failed ASSERT. */
FIXTURE_TEARDOWN(chan)
{
	parked_teardown(self->fd, &self->saved);
}

/* ---- WSX_IOC_CHAN_CREATE and WSX_IOC_CHAN_CLOSE ------------------------- */

/*
 * Every error of the two ioctls, each on its own: refused creates take
 * no id (the first channel is 1), ids are distinct, a closed channel
 * still counts, a second close is -EALREADY.
 */
TEST_F(chan, create_and_close_errors)
{
	__u32 ids[8], id = 0, cap_max;
	char buf[32];
	int ro;

	ASSERT_EQ(0, wsx_test_param("max_chan_cap", buf, sizeof(buf)));
	cap_max = strtoul(buf, NULL, 10);
	EXPECT_EQ(-EINVAL, chan_create_raw(self->fd, 0, 1, 0, NULL));
	EXPECT_EQ(-EINVAL, chan_create_raw(self->fd, 0, 0x80000000, 0, NULL));
	EXPECT_EQ(-EINVAL, chan_create_raw(self->fd, 0, 0, 1, NULL));
	if (cap_max < 0xffffffffU) {
		EXPECT_EQ(-E2BIG, chan_create(self->fd, cap_max + 1, NULL));
	}
	EXPECT_EQ(-E2BIG, chan_create(self->fd, 0xffffffffU, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_CHAN_CREATE,
					  NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_CHAN_CLOSE,
					  NULL));
	/* no channel yet: every id is unknown */
	EXPECT_EQ(-ENOENT, chan_close(self->fd, 0));
	EXPECT_EQ(-ENOENT, chan_close(self->fd, 1));

	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(0, chan_create(self->fd, i % 2 ? 4 : 0, &ids[i]));
		EXPECT_NE(0U, ids[i]);
		for (int j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]);
	}
	EXPECT_EQ(1U, ids[0]);
	EXPECT_EQ(-ENOENT, chan_close(self->fd, 0));
	EXPECT_EQ(-ENOENT, chan_close(self->fd, 0xffffffffU));
	for (id = 1; id < 100; id++) {	/* an id the session never had */
		bool known = false;

		for (int j = 0; j < 8; j++)
			known |= ids[j] == id;
		if (!known)
			break;
	}
	EXPECT_EQ(-ENOENT, chan_close(self->fd, id));
	EXPECT_EQ(0, chan_close(self->fd, ids[3]));
	EXPECT_EQ(-EALREADY, chan_close(self->fd, ids[3]));
	EXPECT_EQ(-EALREADY, chan_close(self->fd, ids[3]));
	EXPECT_EQ(0, chan_close(self->fd, ids[4]));
	/* a new channel after closes: an id not used before */
	ASSERT_EQ(0, chan_create(self->fd, 1, &id));
	for (int j = 0; j < 8; j++)
		EXPECT_NE(ids[j], id);

	/* read-only: -EBADF before any other check */
	ro = open(WSX_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, chan_create(ro, 0, NULL));
	EXPECT_EQ(-EBADF, chan_create_raw(ro, 0, 1, 1, NULL));
	EXPECT_EQ(-EBADF, chan_close(ro, 1));
	EXPECT_EQ(-EBADF, wsx_test_ioctl(ro, WSX_IOC_CHAN_CREATE, NULL));
	close(ro);
}

/*
 * max_chan_cap and max_chans are read when a channel is created: lowered
 * at run time, they bound the next create; max_chans counts channels
 * created, closed ones too, per session.
 */
TEST_F(chan, limits_follow_the_parameters)
{
	__u32 id, first;
	int fd2;

	ASSERT_EQ(0, wsx_test_param_set("max_chan_cap", "16"));
	EXPECT_EQ(-E2BIG, chan_create(self->fd, 17, NULL));
	EXPECT_EQ(0, chan_create(self->fd, 16, &first));
	EXPECT_EQ(0, chan_create(self->fd, 0, &id));

	/* a session of its own: its channels counted from none */
	ASSERT_EQ(0, wsx_test_param_set("max_chans", "4"));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, chan_create(fd2, 0, &id)) TH_LOG("channel %d", i);
		if (i == 0) {
			EXPECT_EQ(1U, id);
		}
	}
	EXPECT_EQ(-EMFILE, chan_create(fd2, 0, NULL));
	/* closing one frees nothing: ids are never reused */
	EXPECT_EQ(0, chan_close(fd2, id));
	EXPECT_EQ(-EMFILE, chan_create(fd2, 0, NULL));
	/* the error order: a bad struct is -EINVAL even at the limit */
	EXPECT_EQ(-EINVAL, chan_create_raw(fd2, 0, 1, 0, NULL));
	/* the other session had 2: it may have 2 more, not 3 */
	EXPECT_EQ(0, chan_create(self->fd, 0, NULL));
	EXPECT_EQ(0, chan_create(self->fd, 0, NULL));
	EXPECT_EQ(-EMFILE, chan_create(self->fd, 0, NULL));
	/* raised again, both may go on */
	ASSERT_EQ(0, wsx_test_param_set("max_chans", "5"));
	EXPECT_EQ(0, chan_create(fd2, 0, &id));
	EXPECT_EQ(5U, id);
	EXPECT_EQ(0, chan_create(self->fd, 0, NULL));
	close(fd2);
}

/* ---- SEND and RECV: bad requests ------------------------------------------ */

/*
 * Requests the module refuses at submission: an id the session does not
 * have (-ENOENT, the forward channel too, and another session's), a
 * count of 0 (-EINVAL) or over WSX_CHAN_COUNT_MAX (-E2BIG), an id over
 * 32 bits (-EINVAL), SEND's args[3] (-EINVAL), RECV's work over
 * max_item_ns (-E2BIG).  A batch stops at the first refused one.
 */
TEST_F(chan, bad_requests_refused)
{
	struct wsx_completion rec;
	struct wsx_submit out;
	struct wsx_req two[2], r;
	__u32 c, other;
	char buf[32];
	__u64 max_ns;
	int fd2;

	ASSERT_EQ(0, wsx_test_param("max_item_ns", buf, sizeof(buf)));
	max_ns = strtoull(buf, NULL, 10);
	/* a session with no channel: every id unknown */
	EXPECT_EQ(-ENOENT, submit_one(self->fd, send_req(1, 1, 0, 1)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, recv_req(1, 1, 1, 0, 0)));
	ASSERT_EQ(0, chan_create(self->fd, 4, &c));
	ASSERT_EQ(0, chan_create(self->fd, 4, &other));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, send_req(1, 0, 0, 1)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, send_req(1, 1000, 0, 1)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, recv_req(1, 0, 1, 0, 0)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, recv_req(1, 1000, 1, 0, 0)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd, recv_req(1, c, 1, 1000, 0)));
	EXPECT_EQ(-ENOENT, submit_one(self->fd,
				      recv_req(1, 0xffffffffULL, 1, 0, 0)));
	/* counts */
	EXPECT_EQ(-EINVAL, submit_one(self->fd, send_req(1, c, 0, 0)));
	EXPECT_EQ(-EINVAL, submit_one(self->fd, recv_req(1, c, 0, 0, 0)));
	EXPECT_EQ(-E2BIG, submit_one(self->fd,
				     send_req(1, c, 0, WSX_CHAN_COUNT_MAX + 1)));
	EXPECT_EQ(-E2BIG, submit_one(self->fd,
				     recv_req(1, c, WSX_CHAN_COUNT_MAX + 1, 0,
					      0)));
	EXPECT_EQ(-E2BIG, submit_one(self->fd, send_req(1, c, 0, ~0ULL)));
	/* ids over 32 bits, also one whose low half is a good id */
	EXPECT_EQ(-EINVAL, submit_one(self->fd,
				      send_req(1, 0x100000000ULL | c, 0, 1)));
	EXPECT_EQ(-EINVAL, submit_one(self->fd,
				      recv_req(1, 0x100000000ULL | c, 1, 0, 0)));
	EXPECT_EQ(-EINVAL, submit_one(self->fd,
				      recv_req(1, c, 1, 0x100000000ULL | c,
					       0)));
	/* SEND's unused argument; RECV's work per value */
	r = send_req(1, c, 0, 1);
	r.args[3] = 1;
	EXPECT_EQ(-EINVAL, submit_one(self->fd, r));
	EXPECT_EQ(-E2BIG, submit_one(self->fd, recv_req(1, c, 1, 0,
							max_ns + 1)));
	/* the channels of one session are not another's */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, submit_one(fd2, send_req(1, c, 0, 1)));
	EXPECT_EQ(-ENOENT, submit_one(fd2, recv_req(1, other, 1, 0, 0)));
	close(fd2);

	/* a batch: the good SEND queued, the unknown id refuses the rest */
	two[0] = send_req(7, c, 42, 1);
	two[1] = send_req(8, 999, 0, 1);
	EXPECT_EQ(1, wsx_test_submit(self->fd, two, 2, &out));
	EXPECT_EQ(1U, out.queued);
	EXPECT_EQ(-ENOENT, out.error);
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(7U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(1U, rec.result);
	/* and nothing else came: the refused ones have no record */
	EXPECT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, 0));
	/* the value is in the buffer for a RECV at its limit of work */
	ASSERT_EQ(0, submit_one(self->fd, recv_req(9, c, 1, 0, max_ns)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(9U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(42U, rec.result);
}

/* ---- values exactly once -------------------------------------------------- */

FIXTURE(once) {
	int fd;
};

FIXTURE_VARIANT(once) {
	__u32 cap;
};

FIXTURE_VARIANT_ADD(once, unbuffered) {
	.cap = 0,
};

FIXTURE_VARIANT_ADD(once, cap4) {
	.cap = 4,
};

FIXTURE_SETUP(once)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(once)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * 16 SEND items of 1000 values each, each its own range of 64-bit values
 * ((i + 1) << 32 on), and 16 RECV items of 1000 each, interleaved over
 * every place: every SEND sends all its values, and the RECV results sum
 * to the sum of all values sent (one value lost, duplicated or garbled
 * changes it).
 */
TEST_F_TIMEOUT(once, sixteen_senders_sixteen_receivers, 120)
{
	enum { N = 16, PER = 1000 };
	struct wsx_req reqs[2 * N];
	struct wsx_completion recs[2 * N];
	__u64 want = 0, got = 0;
	int nprocs = wsx_test_nprocs(self->fd);
	__u32 c;

	ASSERT_LT(0, nprocs);
	ASSERT_EQ(0, chan_create(self->fd, variant->cap, &c));
	for (int i = 0; i < N; i++) {
		__u64 first = (__u64)(i + 1) << 32;

		reqs[2 * i] = send_req(2 * i, c, first, PER);
		reqs[2 * i + 1] = recv_req(2 * i + 1, c, PER, 0, 0);
		want += range_sum(first, PER);
	}
	for (int i = 0; i < 2 * N; i++) {
		reqs[i].place = i % 3;
		if (reqs[i].place == WSX_PLACE_P)
			reqs[i].target = (i / 3) % nprocs;
	}
	ASSERT_EQ(0, wsx_test_collect(self->fd, reqs, 2 * N, recs));
	for (int i = 0; i < 2 * N; i++) {
		EXPECT_EQ((__u64)i, recs[i].user_data);
		EXPECT_EQ(0, recs[i].status) TH_LOG("item %d", i);
		if (i % 2 == 0) {
			EXPECT_EQ((__u64)PER, recs[i].result) TH_LOG("SEND %d", i);
		} else {
			got += recs[i].result;
		}
	}
	EXPECT_EQ(want, got);
	/* nothing left: a RECV of one more waits, then ends at close */
	ASSERT_EQ(0, submit_one(self->fd, recv_req(99, c, 1, 0, 0)));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, recs, 1, 1,
					    100 * NSEC_PER_MSEC));
	EXPECT_EQ(0, chan_close(self->fd, c));
	ASSERT_EQ(1, wsx_test_wait(self->fd, recs, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(-ENODATA, recs[0].status);
	EXPECT_EQ(0U, recs[0].result);
}

/* ---- close semantics ------------------------------------------------------- */

/*
 * Go's close(): a RECV waiting on an empty channel ends -ENODATA with
 * nothing; a SEND waiting for a receiver -EPIPE with what it sent (none
 * unbuffered, the buffer's worth buffered); a closed buffer still gives
 * its values, then -ENODATA; a SEND on a closed channel -EPIPE at once; a
 * RECV whose forward channel is closed -EPIPE, the value it received
 * counted.
 */
TEST_F(chan, close_wakes_waiters_as_go_does)
{
	struct wsx_completion rec;
	__u32 a, b, c, d, e;

	/* a RECV parked on an empty unbuffered channel */
	ASSERT_EQ(0, chan_create(self->fd, 0, &a));
	ASSERT_EQ(0, submit_one(self->fd, recv_req(1, a, 1, 0, 0)));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, chan_close(self->fd, a));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(1U, rec.user_data);
	EXPECT_EQ(-ENODATA, rec.status);
	EXPECT_EQ(0U, rec.result);

	/* a SEND of 5 with no receiver */
	ASSERT_EQ(0, chan_create(self->fd, 0, &b));
	ASSERT_EQ(0, submit_one(self->fd, send_req(2, b, 10, 5)));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, chan_close(self->fd, b));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(2U, rec.user_data);
	EXPECT_EQ(-EPIPE, rec.status);
	EXPECT_EQ(0U, rec.result);

	/* 3 values in a buffer of 4, closed, then a RECV of 5 */
	ASSERT_EQ(0, chan_create(self->fd, 4, &c));
	ASSERT_EQ(0, submit_one(self->fd, send_req(3, c, 1000, 3)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(3U, rec.result);
	ASSERT_EQ(0, chan_close(self->fd, c));
	ASSERT_EQ(0, submit_one(self->fd, recv_req(4, c, 5, 0, 0)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(4U, rec.user_data);
	EXPECT_EQ(-ENODATA, rec.status);
	EXPECT_EQ(range_sum(1000, 3), rec.result);
	/* drained and closed: nothing, at once */
	ASSERT_EQ(0, submit_one(self->fd, recv_req(5, c, 1, 0, 0)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(-ENODATA, rec.status);
	EXPECT_EQ(0U, rec.result);
	/* a SEND on a closed channel */
	ASSERT_EQ(0, submit_one(self->fd, send_req(6, c, 0, 2)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(-EPIPE, rec.status);
	EXPECT_EQ(0U, rec.result);

	/* a SEND of 5 into a buffer of 2: 2 sent, then closed while waiting */
	ASSERT_EQ(0, chan_create(self->fd, 2, &d));
	ASSERT_EQ(0, submit_one(self->fd, send_req(7, d, 0, 5)));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, chan_close(self->fd, d));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(7U, rec.user_data);
	EXPECT_EQ(-EPIPE, rec.status);
	EXPECT_EQ(2U, rec.result);

	/* a stage whose forward channel is closed: received, not passed on */
	ASSERT_EQ(0, chan_create(self->fd, 1, &e));
	ASSERT_EQ(0, submit_one(self->fd, send_req(8, e, 77, 1)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0, rec.status);
	ASSERT_EQ(0, submit_one(self->fd, recv_req(9, e, 1, a, 0)));
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(9U, rec.user_data);
	EXPECT_EQ(-EPIPE, rec.status);
	EXPECT_EQ(77U, rec.result);
	EXPECT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, 0));
}

/* ---- a pipeline ------------------------------------------------------------ */

#define STAGES		8

/*
 * SEND of N values (100,000, scaled) into c0, stage i a RECV from c_i
 * forwarding to c_i+1 (stage 3 spinning 20 us per value), a sink RECV on
 * c8; the channels alternately unbuffered and of 8.  Every stage and the
 * sink receive every value once: each result is the sum of all, every
 * status 0.  While it runs the schedtrace line is sampled: the Ms stay at
 * one per P and two spare, though nine items wait on each other.
 */
TEST_F_TIMEOUT(chan, pipeline_of_eight_stages, 280)
{
	struct wsx_completion recs[STAGES + 2];
	struct wsx_req reqs[STAGES + 2];
	__u64 n = wsx_test_scaled(100000, 2000), sum = range_sum(1, n);
	struct sched_seen seen = { .traced = false };
	long threads = 0, waiting, bound;
	__u32 ch[STAGES + 1];
	__u64 t0;

	seen.traced = !sched_sample(&threads, &waiting);
	bound = seen.traced ? m_bound(_metadata, self->nprocs) : 0;
	for (int i = 0; i <= STAGES; i++)
		ASSERT_EQ(0, chan_create(self->fd, i % 2 ? 8 : 0, &ch[i]));
	/* the sink first, the source last: all wait on each other */
	reqs[0] = recv_req(0, ch[STAGES], n, 0, 0);
	for (int i = 0; i < STAGES; i++)
		reqs[1 + i] = recv_req(1 + i, ch[i], n, ch[i + 1],
				       i == 3 ? 20000 : 0);
	reqs[STAGES + 1] = send_req(STAGES + 1, ch[0], 1, n);
	for (int i = 0; i < STAGES + 2; i++) {
		place_by(&reqs[i], i, self->nprocs);
	}
	memset(recs, 0, sizeof(recs));
	t0 = wsx_test_now_ns();
	run_sampled(_metadata, self->fd, reqs, STAGES + 2, recs,
		    240 * NSEC_PER_SEC, &seen);
	TH_LOG("%llu values through %d stages in %llu ms; at most %ld Ms in %ld samples (bound %ld)",
	       (unsigned long long)n, STAGES,
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC,
	       seen.threads, seen.samples, bound);
	for (int i = 0; i <= STAGES; i++) {
		EXPECT_EQ(0, recs[i].status) TH_LOG("RECV %d", i);
		EXPECT_EQ(sum, recs[i].result) TH_LOG("RECV %d", i);
	}
	EXPECT_EQ(0, recs[STAGES + 1].status);
	EXPECT_EQ(n, recs[STAGES + 1].result);
	ms_stayed_bounded(_metadata, &seen, bound);
}

/* ---- parked items ------------------------------------------------------------ */

/*
 * 10,000 (scaled) RECV items on one empty unbuffered channel all wait
 * (the schedtrace line's waiting counts them) while the Ms stay at one
 * per P and two spare; then one SEND of as many values readies each, and
 * every RECV gets one value: the results are distinct values of the
 * range and sum to the range's sum.
 */
TEST_F_TIMEOUT(chan, parked_items_hold_no_thread, 200)
{
	size_t k = wsx_test_scaled(10000, 500), bad = 0, missing = 0;
	long threads, waiting0, waiting, max_threads = 0, bound;
	struct wsx_req *reqs = calloc(k, sizeof(*reqs));
	unsigned char *value_seen = calloc(k + 1, 1);
	struct store st;
	__u64 got = 0;
	__u32 c;

	ASSERT_NE(NULL, reqs);
	ASSERT_NE(NULL, value_seen);
	if (sched_sample(&threads, &waiting0))
		SKIP(return, "no schedtrace in debugfs: waiting and threads unreadable");
	bound = m_bound(_metadata, self->nprocs);
	ASSERT_EQ(0, chan_create(self->fd, 0, &c));
	for (size_t i = 0; i < k; i++) {
		reqs[i] = recv_req(i, c, 1, 0, 0);
		place_by(&reqs[i], i, self->nprocs);
	}
	/* none ends without a value */
	park_all(_metadata, self->fd, reqs, k, waiting0, bound, &max_threads,
		 &waiting);
	TH_LOG("%zu RECVs waiting: waiting=%ld, at most %ld Ms (bound %ld)",
	       k, waiting, max_threads, bound);

	/* one SEND of k values readies them all */
	store_init(&st, k + 1);
	ASSERT_NE(NULL, st.recs);
	ASSERT_EQ(0, submit_one(self->fd, send_req(k, c, 1, k)));
	ASSERT_EQ((long)(k + 1), wsx_test_reap(self->fd, k + 1, store_one, &st,
					       30 * NSEC_PER_SEC));
	EXPECT_EQ(0, st.bad);
	EXPECT_EQ(0, st.dups);
	for (size_t i = 0; i < k; i++) {
		__u64 v = st.recs[i].result;

		if (st.recs[i].status || !v || v > k || value_seen[v]++)
			bad++;
		got += v;
	}
	for (size_t v = 1; v <= k; v++)
		missing += !value_seen[v];
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, missing);
	EXPECT_EQ(range_sum(1, k), got);
	EXPECT_EQ(0, st.recs[k].status);
	EXPECT_EQ(k, st.recs[k].result);
	ASSERT_EQ(0, sched_sample(&threads, &waiting));
	EXPECT_GE(waiting0, waiting);
	store_free(&st);
	free(reqs);
	free(value_seen);
}

/*
 * max_parked lowered to 10 at run time: of 20 RECVs on an empty channel,
 * 10 wait and 10 end at once with -EAGAIN, nothing received; closing the
 * channel ends the 10 with -ENODATA.  The count is the session's: another
 * session parks its own 10 meanwhile.
 */
TEST_F_TIMEOUT(chan, max_parked_gives_eagain, 60)
{
	unsigned char refused[20] = { 0 };
	struct wsx_req reqs[20];
	struct wsx_completion recs[20];
	int enodata = 0, other = 0, fd2;
	__u32 c, c2;

	ASSERT_EQ(0, wsx_test_param_set("max_parked", "10"));
	ASSERT_EQ(0, chan_create(self->fd, 0, &c));
	for (int i = 0; i < 20; i++)
		reqs[i] = recv_req(i, c, 1, 0, 0);
	half_refused(_metadata, self->fd, self->nprocs, reqs, refused);

	/* another session: its own 10 */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, chan_create(fd2, 0, &c2));
	for (int i = 0; i < 10; i++)
		reqs[i] = recv_req(100 + i, c2, 1, 0, 0);
	ASSERT_EQ(10, wsx_test_submit(fd2, reqs, 10, NULL));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(fd2, recs, 10, 1,
					    200 * NSEC_PER_MSEC));
	close(fd2);

	ASSERT_EQ(0, chan_close(self->fd, c));
	ASSERT_EQ(10, wsx_test_wait(self->fd, recs, 20, 10,
				    10 * NSEC_PER_SEC));
	for (int i = 0; i < 10; i++) {
		if (recs[i].status == -ENODATA && !recs[i].result)
			enodata++;
		else
			other++;
	}
	EXPECT_EQ(10, enodata);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, wsx_test_wait(self->fd, recs, 20, 0, 0));
}

/*
 * close() of a session with 10,000 (scaled) RECVs waiting returns within
 * 1 s, its waiting items gone from the schedtrace line; nothing of its
 * in-flight count is left: with max_inflight at exactly that many, a new
 * session queues as many items at once.
 */
TEST_F_TIMEOUT(chan, close_with_parked_items, 200)
{
	size_t k = wsx_test_scaled(10000, 500);
	struct wsx_req *reqs = calloc(k, sizeof(*reqs));
	long threads, waiting0, waiting;
	__u32 c;
	int fd2;

	ASSERT_NE(NULL, reqs);
	if (sched_sample(&threads, &waiting0))
		SKIP(return, "no schedtrace in debugfs: waiting unreadable");
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, chan_create(fd2, 0, &c));
	for (size_t i = 0; i < k; i++)
		reqs[i] = recv_req(i, c, 1 + i % 3, 0, 0);
	close_parked(_metadata, fd2, reqs, k, 0, waiting0);
	ASSERT_EQ(0, sched_sample(&threads, &waiting));
	EXPECT_GE(waiting0, waiting);

	no_inflight_left(_metadata, reqs, k);
	free(reqs);
}

/* ---- the rings --------------------------------------------------------------- */

/*
 * The channels are the session's, whichever door: a RECV submitted by
 * WSX_IOC_SUBMIT gets the values of a SEND from the SQ, and a SEND and
 * a RECV both through the rings meet; a SEND with an unknown id in the SQ
 * is answered by a CQ record with -ENOENT.
 */
TEST_F(chan, through_the_rings)
{
	struct ring_recs rr = { .bad = 0 };
	struct wsx_completion *recs = rr.recs, rec;
	struct wsx_req sq[4];
	struct wsx_tring t;
	__u32 c, c2;
	long got = 0, ret;
	__u64 t0;

	ASSERT_EQ(0, wsx_tring_setup(&t, self->fd, 8, 16));
	ASSERT_EQ(0, chan_create(self->fd, 0, &c));
	ASSERT_EQ(0, chan_create(self->fd, 0, &c2));
	/* the receiver by ioctl, the sender through the SQ */
	ASSERT_EQ(0, submit_one(self->fd, recv_req(10, c, 10, 0, 0)));
	sq[0] = send_req(0, c, 100, 10);
	sq[0].flags = WSX_REQ_TIMESTAMPS;
	/* a pair both in the rings, and an unknown id */
	sq[1] = recv_req(1, c2, 3, 0, 0);
	sq[2] = send_req(2, c2, 5, 3);
	sq[3] = send_req(3, 999, 0, 1);
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(wsx_tring_push(&t, &sq[i]));
	t0 = wsx_test_now_ns();
	ret = wsx_tring_enter(&t, 4, 4, 10 * NSEC_PER_SEC, NULL);
	ASSERT_EQ(0, ret);
	while (got < 4 && wsx_test_now_ns() - t0 < 10 * NSEC_PER_SEC) {
		ret = wsx_tring_reap(&t, 0, ring_store, &rr);
		ASSERT_LE(0, ret);
		got += ret;
	}
	ASSERT_EQ(4, got);
	EXPECT_EQ(0, rr.bad);
	EXPECT_EQ(0, recs[0].status);
	EXPECT_EQ(10U, recs[0].result);
	EXPECT_NE(0U, recs[0].finished_ns);
	EXPECT_EQ(0, recs[1].status);
	EXPECT_EQ(range_sum(5, 3), recs[1].result);
	EXPECT_EQ(0, recs[2].status);
	EXPECT_EQ(3U, recs[2].result);
	EXPECT_EQ(3U, recs[3].user_data);
	EXPECT_EQ(-ENOENT, recs[3].status);
	ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 10 * NSEC_PER_SEC));
	EXPECT_EQ(10U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(range_sum(100, 10), rec.result);
	wsx_tring_unmap(&t);
}

/* ---- ping-pong: a readied item runs next on the readier's P ------------ */

/*
 * Two items hand one value back and forth over two unbuffered channels,
 * the PINGPONG built of two RECV stages (B receives on c1 and
 * sends on c2, A the other way round): each handoff readies the other
 * item from an item, so into the readier's own P's runnext (Go's
 * goready()), never to the global queue or an idle P's inbox, which the
 * stats tell apart (ready_runnext against ready_global and ready_inbox).
 * And it runs there unless a thief took it (the Ps' stolen): at least
 * 90% must run on the readier's P.  The figure is 99%, which the
 * KUnit ping-pong and make bench's chan phase report; the bound here is
 * lower, since a debug kernel under TCG (4 vCPUs on 2 host cores) lets a
 * spinning thief take runnext before its owner's M comes back to it.
 */
TEST_F_TIMEOUT(chan, pingpong_readies_into_the_readiers_runnext, 120)
{
	size_t n = wsx_test_scaled(20000, 1000);
	long long handoffs = 2 * (long long)n, readies, far, stolen;
	long threads, waiting, most = 0, base;
	struct pp_counts before, after;
	struct wsx_req reqs[3];
	struct store st;
	__u32 c1, c2;
	int ret;

	ret = pp_sample(self->nprocs, &before);
	if (ret == -EIO)
		SKIP(return, "debugfs stats unreadable: mount debugfs");
	if (ret)
		SKIP(return, "no ready_runnext counted (stats=0, or an older module)");
	ASSERT_EQ(0, chan_create(self->fd, 0, &c1));
	ASSERT_EQ(0, chan_create(self->fd, 0, &c2));
	reqs[0] = recv_req(0, c1, n, c2, 0);		/* B */
	reqs[1] = recv_req(1, c2, n - 1, c1, 0);	/* A */
	reqs[2] = send_req(2, c1, 7, 1);		/* the ball */
	/*
	 * The ball once both wait: thrown before, it could park, and B,
	 * run first, ready it and then A in one run (one displacement)
	 */
	ASSERT_EQ(0, sched_sample(&threads, &base));
	ASSERT_EQ(0, submit_all(self->fd, reqs, 2));
	ASSERT_EQ(0, wait_for_waiting(base + 2, 30 * NSEC_PER_SEC, &threads,
				      &waiting, &most));
	ASSERT_EQ(0, submit_one(self->fd, reqs[2]));
	store_init(&st, 4);
	/*
	 * B's last value waits on c2 for the sink, submitted once A ended: a
	 * sink parked on c2 before then could take a value meant for A
	 */
	ASSERT_EQ(2, wsx_test_reap(self->fd, 2, store_one, &st,
				   60 * NSEC_PER_SEC));
	ASSERT_TRUE(st.seen[1] && st.seen[2]);
	ASSERT_EQ(0, submit_one(self->fd, recv_req(3, c2, 1, 0, 0)));
	ASSERT_EQ(2, wsx_test_reap(self->fd, 2, store_one, &st,
				   60 * NSEC_PER_SEC));
	ASSERT_EQ(0, pp_sample(self->nprocs, &after));
	EXPECT_EQ(0, st.bad + st.dups);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(0, st.recs[i].status);
	EXPECT_EQ(7 * (__u64)n, st.recs[0].result);
	EXPECT_EQ(7 * (__u64)(n - 1), st.recs[1].result);
	EXPECT_EQ(1, st.recs[2].result);
	EXPECT_EQ(7, st.recs[3].result);
	store_free(&st);
	readies = after.runnext - before.runnext;
	far = after.far - before.far;
	stolen = after.stolen - before.stolen;
	TH_LOG("%lld handoffs: %lld readied into the readier's runnext, %lld elsewhere, %lld items stolen",
	       handoffs, readies, far, stolen);
	/* every handoff readies the side that waited for it */
	EXPECT_EQ(handoffs, readies);
	EXPECT_EQ(0, far);
	EXPECT_LE(stolen, handoffs / 10);
	/* a readier parks before its runnext's item runs: nothing to move */
	EXPECT_EQ(0, after.displaced - before.displaced);
}

/*
 * One SEND readies 64 receivers parked on an unbuffered channel, in one
 * run (it yields only after 64 values): each ready goes into the
 * sender's runnext and moves the receiver readied before it to the runq
 * (Go's runqput(next=true)), so ready_displaced counts all but the first,
 * less those a thief took from runnext first: at least 63 less the items
 * stolen meanwhile (a runnext steal is one of them), never the first.
 * The counts are the module's: no other user of wsx may run meanwhile.
 */
TEST_F_TIMEOUT(chan, readies_in_a_row_displace_runnext, 60)
{
	struct pp_counts before, after;
	long long displaced, readies;
	struct wsx_req reqs[64];
	long threads, waiting, most = 0, base;
	struct store st;
	__u64 sum = 0;
	__u32 c;
	int ret;

	ret = pp_sample(self->nprocs, &before);
	if (ret == -EIO)
		SKIP(return, "debugfs stats unreadable: mount debugfs");
	if (ret)
		SKIP(return, "no ready_displaced counted (stats=0, or an older module)");
	ASSERT_EQ(0, sched_sample(&threads, &base));
	ASSERT_EQ(0, chan_create(self->fd, 0, &c));
	for (int i = 0; i < 64; i++)
		reqs[i] = recv_req(i, c, 1, 0, 0);
	ASSERT_EQ(0, submit_all(self->fd, reqs, 64));
	ASSERT_EQ(0, wait_for_waiting(base + 64, 30 * NSEC_PER_SEC, &threads,
				      &waiting, &most));
	ASSERT_EQ(0, pp_sample(self->nprocs, &before));
	ASSERT_EQ(0, submit_one(self->fd, send_req(64, c, 1, 64)));
	store_init(&st, 65);
	ASSERT_EQ(65, wsx_test_reap(self->fd, 65, store_one, &st,
				    30 * NSEC_PER_SEC));
	ASSERT_EQ(0, pp_sample(self->nprocs, &after));
	EXPECT_EQ(0, st.bad + st.dups);
	for (int i = 0; i < 64; i++) {
		EXPECT_EQ(0, st.recs[i].status);
		sum += st.recs[i].result;
	}
	EXPECT_EQ(64 * 65 / 2, sum);
	EXPECT_EQ(64, st.recs[64].result);
	store_free(&st);
	readies = after.runnext - before.runnext;
	displaced = after.displaced - before.displaced;
	TH_LOG("64 readies in a row: %lld into runnext, %lld displaced an item, %lld items stolen",
	       readies, displaced, after.stolen - before.stolen);
	EXPECT_EQ(64, readies);
	EXPECT_LE(63 - (after.stolen - before.stolen), displaced);
	EXPECT_GE(63, displaced);
}

TEST_HARNESS_MAIN
