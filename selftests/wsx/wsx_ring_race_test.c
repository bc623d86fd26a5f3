// SPDX-License-Identifier: GPL-2.0
/*
 * Holes in the protocol of the rings (kmod/rings.c), one test each; each
 * failed before its fix.  In a WSX_DEBUG build (make check-debug) a fault
 * point (kmod/fault.h) widens the window, and each test asserts that its
 * point was passed; a release build runs the same steps without it, where
 * the window is narrow: a test that passed them there ends as a skip that
 * says its window was not widened (a failure is still a failure).
 *
 *   enter_returns_with_records_visible  ENTER that waited for a record, and
 *	poll() that reported one, must find it behind the shared CQ tail.
 *	The module used to store its own copy of the tail, which waiters
 *	test, before the shared one (fault point post_between_tails).
 *   cq_head_read_at_once_is_accepted  a CQ head stored as soon as the
 *	shared tail shows the record (before the module's own copy of the
 *	tail may) is in range: ENTER must not refuse it with -EINVAL, as the
 *	first fix of the above did (fault point post_between_tails).
 *   pickup_blocked_keeps_the_flag  a submitter in pick-up mode that calls
 *	ENTER only when WSX_SQ_NEED_ENTER is set and the CQ has room, and
 *	reads records only when the CQ is full, so that the Ms often meet a
 *	full CQ: every entry must be consumed.  An M that had passed the walk before
 *	another M marked the ring blocked used to clear the flag and consume,
 *	leaving the flag clear while every M skipped the ring: the entries
 *	pushed next stayed in the SQ for good (fault point
 *	pickup_before_lock).
 *   record_never_before_its_sq_head  another thread that reads the CQ
 *	tail, then the SQ head, never finds more records than entries
 *	consumed (sq_head - cq_head of -1, issue 20's finding 7).  The
 *	module stored the shared SQ head once, after it had queued every
 *	entry's job, so a job that ran meanwhile could post its record first
 *	(fault point consume_after_submit).
 *   epoll_before_setup  an epoll watch added before WSX_IOC_RING_SETUP
 *	must be woken by the CQ's records; it used to wait on a queue the
 *	records never woke.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>

#include "../kselftest_harness.h"
#include "wsx_rings.h"

#define SEC		1000000000LL

static const char *const faults[] = {
	"post_between_tails", "pickup_before_lock", "consume_after_submit",
};

/* Every test leaves the fault points as it found them: off. */
FIXTURE(race) {
	bool faults;
	long hits0[ARRAY_SIZE(faults)];	/* each point's _hits at the start */
};

FIXTURE_SETUP(race)
{
	self->faults = wsx_test_have_faults();
	for (size_t i = 0; self->faults && i < ARRAY_SIZE(faults); i++) {
		self->hits0[i] = wsx_test_fault_hits(faults[i]);
		ASSERT_LE(0, self->hits0[i]);
	}
}

FIXTURE_TEARDOWN(race)
{
	for (size_t i = 0; self->faults && i < ARRAY_SIZE(faults); i++)
		wsx_test_fault_set(faults[i], "0");
}

/* Set fault point @name to @us when the module has fault points. */
static int fault(bool have, const char *name, const char *us)
{
	return have ? wsx_test_fault_set(name, us) : 0;
}

/*
 * At the end of a test: the window it is about was there, fault point
 * faults[@i] was passed during the test (its _hits in debugfs grew).
 * Without fault points (a release build) the steps ran without it: a test
 * that passed them ends as a skip that says so, one that failed stays a
 * failure.
 */
#define EXPECT_WIDENED(i) do {						\
	if (!self->faults && _metadata->passed)				\
		SKIP(return, "%s: no fault points (release build): %s not widened", \
		     _metadata->name, faults[i]);			\
	if (self->faults) {						\
		long hits = wsx_test_fault_hits(faults[i]);		\
									\
		TH_LOG("fault point %s passed %ld times", faults[i],	\
		       hits - self->hits0[i]);				\
		EXPECT_LT(self->hits0[i], hits);			\
	}								\
} while (0)

/* Rings of 4 entries on @fd, posts widened between their two tails. */
static int widened_rings(struct wsx_tring *t, int fd, bool faults)
{
	int ret = fault(faults, "post_between_tails", "2000");

	return ret ? ret : wsx_tring_setup(t, fd, 4, 4);
}

static struct wsx_req global_nop(__u64 id)
{
	return wsx_test_req(WSX_OP_NOP, id, WSX_PLACE_GLOBAL, 0, 0, 0, 0);
}

TEST_F(race, enter_returns_with_records_visible)
{
	int fd = wsx_test_open(), early = 0;
	int rounds = (int)wsx_test_scaled(300, 60);
	struct wsx_tring t;
	struct wsx_enter e;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, widened_rings(&t, fd, self->faults));
	for (int i = 0; i < rounds; i++) {
		struct wsx_req r = global_nop(i);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		ASSERT_TRUE(wsx_tring_push(&t, &r));
		ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, &e));
		ASSERT_EQ(1, e.submitted);
		/* the wait's first test, early or late in the post */
		usleep(i % 5 * 400);
		if (i % 2) {
			ASSERT_EQ(0, wsx_tring_enter(&t, 0, 1, 30 * SEC, NULL));
		} else {
			ASSERT_EQ(1, poll(&pfd, 1, 30000));
		}
		/* it returned: the record it waited for is there */
		if (wsx_tring_ready(&t) < 1)
			early++;
		while (!wsx_tring_ready(&t))
			usleep(100);
		ASSERT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	}
	TH_LOG("%d of %d waits returned before their record showed", early,
	       rounds);
	EXPECT_EQ(0, early);
	wsx_tring_unmap(&t);
	close(fd);
	EXPECT_WIDENED(0);	/* post_between_tails */
}

TEST_F(race, cq_head_read_at_once_is_accepted)
{
	int fd = wsx_test_open(), rounds = (int)wsx_test_scaled(300, 60);
	struct wsx_tring t;
	struct wsx_enter e;
	long ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, widened_rings(&t, fd, self->faults));
	for (int i = 0; i < rounds; i++) {
		struct wsx_req r = global_nop(i);

		ASSERT_TRUE(wsx_tring_push(&t, &r));
		/* ENTER with the head of the record read just before */
		ret = wsx_tring_enter(&t, 1, i % 2, 30 * SEC, &e);
		if (ret) {
			TH_LOG("round %d: ENTER %ld (%s)", i, ret,
			       strerror((int)-ret));
			break;
		}
		ASSERT_EQ(1, e.submitted);
		/* the record, read as soon as the shared tail shows it */
		while (!wsx_tring_ready(&t))
			;
		ASSERT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	}
	EXPECT_EQ(0, ret);
	wsx_tring_unmap(&t);
	close(fd);
	EXPECT_WIDENED(0);	/* post_between_tails */
}

/* Progress of the rings: SQ entries consumed, records posted. */
static __u64 progress(const struct wsx_tring *t)
{
	return (__u64)__atomic_load_n(t->sq_head, __ATOMIC_ACQUIRE) << 32 |
	       __atomic_load_n(t->cq_tail, __ATOMIC_ACQUIRE);
}

TEST_F_TIMEOUT(race, pickup_blocked_keeps_the_flag, 600)
{
	size_t total = wsx_test_scaled(6000, 1000), sent = 0, done = 0;
	size_t enters = 0, reaps = 0;
	int fd = wsx_test_open();
	__u64 last, seen = 0;
	struct wsx_tring t;
	long ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd, 8, 8, WSX_RING_SQ_PICKUP));
	ASSERT_EQ(0, fault(self->faults, "pickup_before_lock", "2000"));
	last = wsx_test_now_ns();
	while (done < total) {
		struct wsx_req r = wsx_test_req(WSX_OP_SPIN, sent,
						WSX_PLACE_GLOBAL, 0, 100000,
						0, 0);
		__u32 pending, room;

		while (sent < total && wsx_tring_push(&t, &r))
			r.user_data = ++sent;
		/*
		 * ENTER only when the module asks for it, and the CQ has
		 * room: else ENTER could take nothing, wait for records
		 */
		pending = wsx_tring_unsubmitted(&t);
		room = t.p.cq_entries -
		       (__atomic_load_n(t.sq_head, __ATOMIC_ACQUIRE) -
			*t.cq_head);
		if (pending && room && !wsx_tring_picked_up(&t)) {
			ASSERT_LE(0, wsx_tring_enter(&t, pending, 0, 0, NULL));
			enters++;
		}
		/* read only a full CQ (or the last records): a slow reader */
		if (wsx_tring_ready(&t) == t.p.cq_entries ||
		    (sent == total && wsx_tring_ready(&t))) {
			ret = wsx_tring_reap(&t, 0, NULL, NULL);
			ASSERT_LT(0, ret);
			done += ret;
			reaps++;
			/* other work before the flag is looked at again */
			usleep(reaps % 4 * 300);
		}
		if (progress(&t) != seen) {
			seen = progress(&t);
			last = wsx_test_now_ns();
		} else if (wsx_test_now_ns() - last > 30 * SEC) {
			/* a hang, not a time limit: nothing moved for 30 s */
			TH_LOG("stuck: %u entries left in the SQ, flag %#x, %u records ready, %zu of %zu read",
			       wsx_tring_unsubmitted(&t), *t.sq_flags,
			       wsx_tring_ready(&t), done, total);
			break;
		}
		usleep(50);
	}
	TH_LOG("%zu items, %zu ENTERs, %zu reads of a full CQ", done, enters,
	       reaps);
	EXPECT_EQ(total, done);
	wsx_tring_unmap(&t);
	close(fd);
	EXPECT_WIDENED(1);	/* pickup_before_lock */
}

/* What the peeking thread of record_never_before_its_sq_head shares. */
struct peek {
	struct wsx_tring *t;
	bool stop;
	long looks, early, between;	/* between: entries in flight */
};

static void *peek_fn(void *arg)
{
	struct peek *pk = arg;

	while (!__atomic_load_n(&pk->stop, __ATOMIC_ACQUIRE)) {
		__u32 tail = __atomic_load_n(pk->t->cq_tail, __ATOMIC_ACQUIRE);
		__u32 head = __atomic_load_n(pk->t->sq_head, __ATOMIC_ACQUIRE);

		/* every record is of an entry consumed: tail <= head */
		if ((__s32)(tail - head) > 0)
			pk->early++;
		else if (tail != head)
			pk->between++;
		pk->looks++;
	}
	return NULL;
}

TEST_F(race, record_never_before_its_sq_head)
{
	int fd = wsx_test_open(), rounds = (int)wsx_test_scaled(40, 10);
	struct wsx_tring t;
	struct peek pk = { .t = &t };
	pthread_t th;
	struct wsx_enter e;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 8));
	ASSERT_EQ(0, fault(self->faults, "consume_after_submit", "2000"));
	ASSERT_EQ(0, pthread_create(&th, NULL, peek_fn, &pk));
	for (int i = 0; i < rounds; i++) {
		int n = 0;

		/* NOPs on the global queue: the other Ps run them at once */
		while (n < 8) {
			struct wsx_req r = global_nop(i * 8 + n);

			ASSERT_TRUE(wsx_tring_push(&t, &r));
			n++;
		}
		ASSERT_EQ(0, wsx_tring_enter(&t, 8, 8, 30 * SEC, &e));
		ASSERT_EQ(8, e.submitted);
		ASSERT_EQ(8, wsx_tring_reap(&t, 0, NULL, NULL));
	}
	__atomic_store_n(&pk.stop, true, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(th, NULL));
	TH_LOG("%ld of %ld looks found a record before its SQ head, %ld entries in flight",
	       pk.early, pk.looks, pk.between);
	EXPECT_EQ(0, pk.early);
	/* widened, the looks saw batches under way, not only between them */
	if (self->faults)
		EXPECT_LT(0, pk.between);
	wsx_tring_unmap(&t);
	close(fd);
	EXPECT_WIDENED(2);	/* consume_after_submit */
}

TEST_F(race, epoll_before_setup)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 7, 0, 0, 20000000, 0, 0);
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int fd = wsx_test_open(), ep = epoll_create1(EPOLL_CLOEXEC);
	struct wsx_tring t;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 4));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_TRUE(wsx_tring_push(&t, &r));
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, NULL));
	/* the record comes 20 ms later: epoll sleeps, then wakes */
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 10000));
	EXPECT_TRUE(out.events & EPOLLIN);
	EXPECT_EQ(1, wsx_tring_ready(&t));
	EXPECT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	wsx_tring_unmap(&t);
	close(ep);
	close(fd);
}

TEST_HARNESS_MAIN
