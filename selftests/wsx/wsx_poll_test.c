// SPDX-License-Identifier: GPL-2.0
/*
 * poll() and epoll on /dev/wsx: an event loop that sleeps in epoll_wait()
 * and reaps with WSX_IOC_WAIT(min 0) receives every completion exactly
 * once, level- and edge-triggered; a session with nothing ready reports no
 * event; a poll() blocked in another thread is woken by a completion.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

FIXTURE(wsxpoll) {
	int fd;
	int nprocs;
};

FIXTURE_VARIANT(wsxpoll) {
	bool edge;
};

FIXTURE_VARIANT_ADD(wsxpoll, level) {
	.edge = false,
};

FIXTURE_VARIANT_ADD(wsxpoll, edge) {
	.edge = true,
};

FIXTURE_SETUP(wsxpoll)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	self->nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, self->nprocs);
}

FIXTURE_TEARDOWN(wsxpoll)
{
	close(self->fd);
}

/*
 * 20,000 (scaled) NOP and short SPIN items over every place, a tenth of
 * them delayed by up to 0.6 ms, submitted in
 * batches between epoll_wait() calls; every readiness is followed by a
 * WAIT(min 0).  Level-triggered, a readiness with nothing to reap is a bug
 * (only this thread reaps); edge-triggered it can be an old edge, so the
 * loop drains until WAIT returns 0 and only counts them.
 */
TEST_F_TIMEOUT(wsxpoll, epoll_loop_gets_each_completion_once, 240)
{
	static struct wsx_completion recs[WSX_WAIT_MAX];
	size_t n = wsx_test_scaled(20000, 2000);
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	unsigned char *seen = calloc(n, 1);
	size_t sent = 0, got = 0, dups = 0, bad = 0, missing = 0;
	size_t wakeups = 0, empty = 0, waits = 0;
	struct epoll_event ev;
	__u64 t0;
	long ret;
	int epfd;

	ASSERT_NE(NULL, reqs);
	ASSERT_NE(NULL, seen);
	for (size_t i = 0; i < n; i++) {
		__u16 place = i % 3;
		__u32 target = place == WSX_PLACE_P ? i % self->nprocs : 0;

		if (i % 4 == 0)
			reqs[i] = wsx_test_req(WSX_OP_SPIN, i, place, target,
					       (i * 7919) % 50000, 0, 0);
		else
			reqs[i] = wsx_test_req(WSX_OP_NOP, i, place, target,
					       0, 0, 0);
		if (i % 10 == 5)	/* some on the Ps' timers */
			reqs[i].delay_ns = (i % 7) * 100000;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, epfd);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | (variant->edge ? EPOLLET : 0);
	ev.data.fd = self->fd;
	ASSERT_EQ(0, epoll_ctl(epfd, EPOLL_CTL_ADD, self->fd, &ev));

	t0 = wsx_test_now_ns();
	while (got < n) {
		if (sent < n) {
			__u32 batch = n - sent > 1000 ? 1000 : n - sent;

			ret = wsx_test_submit(self->fd, reqs + sent, batch,
					      NULL);
			ASSERT_EQ(batch, ret);
			sent += ret;
		}
		memset(&ev, 0, sizeof(ev));
		ret = epoll_wait(epfd, &ev, 1, 30000);
		ASSERT_EQ(1, ret) {
			TH_LOG("no readiness in 30 s with %zu of %zu reaped",
			       got, n);
		}
		ASSERT_EQ(self->fd, ev.data.fd);
		EXPECT_TRUE(ev.events & EPOLLIN);
		EXPECT_FALSE(ev.events & (EPOLLERR | EPOLLHUP));
		wakeups++;
		for (bool first = true;; first = false) {
			ret = wsx_test_wait(self->fd, recs, WSX_WAIT_MAX, 0, 0);
			ASSERT_LE(0, ret);
			waits++;
			if (!ret) {
				/* a readiness with nothing to reap */
				empty += first;
				break;
			}
			for (long i = 0; i < ret; i++) {
				__u64 id = recs[i].user_data;

				if (id >= n || recs[i].status) {
					bad++;
					continue;
				}
				if (seen[id]++)
					dups++;
			}
			got += ret;
			if (!variant->edge)
				break;
		}
	}
	/* and nothing more: no readiness, no records */
	memset(&ev, 0, sizeof(ev));
	if (!variant->edge) {
		EXPECT_EQ(0, epoll_wait(epfd, &ev, 1, 100));
	}
	EXPECT_EQ(0, wsx_test_wait(self->fd, recs, WSX_WAIT_MAX, 0, 0));
	for (size_t i = 0; i < n; i++)
		missing += !seen[i];
	EXPECT_EQ(0, dups);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, missing);
	if (!variant->edge) {
		EXPECT_EQ(0, empty);
	}
	TH_LOG("%s-triggered: %zu items in %llu ms, %zu wakeups (%zu empty), %zu WAITs",
	       variant->edge ? "edge" : "level", n,
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC,
	       wakeups, empty, waits);
	close(epfd);
	free(reqs);
	free(seen);
}

/*
 * Nothing queued, nothing ready: poll() times out with no events; the same
 * after a run whose records were all reaped; with a record ready, POLLIN
 * at once.
 */
TEST_F(wsxpoll, idle_session_has_no_events)
{
	struct wsx_req req = wsx_test_req(WSX_OP_NOP, 1, 0, 0, 0, 0, 0);
	struct wsx_completion rec;
	struct pollfd pfd;

	memset(&rec, 0, sizeof(rec));
	pfd = (struct pollfd){ .fd = self->fd, .events = POLLIN | POLLOUT };
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	EXPECT_EQ(0, pfd.revents);

	ASSERT_EQ(1, wsx_test_submit(self->fd, &req, 1, NULL));
	/* wait until ready without taking it */
	ASSERT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 1, 1,
					 30 * NSEC_PER_SEC));
	pfd = (struct pollfd){ .fd = self->fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents & (POLLIN | POLLERR | POLLHUP |
					 POLLNVAL));
	EXPECT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 0, 0));
	EXPECT_EQ(1, rec.user_data);

	pfd = (struct pollfd){ .fd = self->fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	EXPECT_EQ(0, pfd.revents);
}

/*
 * Items queued but none finished yet: still no event.  A poll() that
 * reports POLLIN must find the record finished before it returned; the
 * 0.5 s SLEEP is almost always still running when the 10 ms poll ends.
 */
TEST_F(wsxpoll, running_items_are_not_ready)
{
	struct wsx_req req = wsx_test_req(WSX_OP_SLEEP, 2, 0, 0, 500000, 0, 0);
	struct wsx_completion rec;
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	__u64 polled;
	int ret;

	memset(&rec, 0, sizeof(rec));
	ASSERT_EQ(1, wsx_test_submit(self->fd, &req, 1, NULL));
	ret = poll(&pfd, 1, 10);
	polled = wsx_test_now_ns();
	EXPECT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1, 30 * NSEC_PER_SEC));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(ret == 1, !!(pfd.revents & POLLIN));
	if (pfd.revents & POLLIN) {
		EXPECT_LE(rec.finished_ns, polled) {
			TH_LOG("POLLIN %llu us before the SLEEP finished",
			       (unsigned long long)(rec.finished_ns - polled) / 1000);
		}
	}
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 50));
	EXPECT_EQ(0, pfd.revents);
}

/*
 * A completion wakes a poll() it finds blocked within WAKE_BOUND_NS of its
 * record's finish: a lost wakeup leaves the poll() asleep until its 30 s
 * timeout, or until some later wakeup that is not the completion's.  The
 * bound is generous, for a guest whose vCPUs all run on one host thread.
 */
#define WAKE_BOUND_NS	(2 * NSEC_PER_SEC)

struct poller {
	int fd;
	int ret;
	short revents;
	__u64 woken_ns;	/* when poll() returned */
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	p->ret = poll(&pfd, 1, 30000);
	p->woken_ns = wsx_test_now_ns();
	p->revents = pfd.revents;
	return NULL;
}

/*
 * A thread blocked in poll() is woken by a completion: it returns 1 with
 * POLLIN within WAKE_BOUND_NS of the record's finish.  Repeated, for
 * lost-wakeup races.
 */
TEST_F_TIMEOUT(wsxpoll, completion_wakes_blocked_poll, 120)
{
	int rounds = wsx_test_scaled(50, 10);
	struct wsx_completion rec;
	__u64 worst = 0;

	memset(&rec, 0, sizeof(rec));
	for (int r = 0; r < rounds; r++) {
		struct poller p = { .fd = self->fd };
		struct wsx_req req = wsx_test_req(r % 2 ? WSX_OP_NOP :
						  WSX_OP_SLEEP, r,
						  r % 3, 0, r % 2 ? 0 : 2000,
						  0, 0);
		pthread_t th;
		__u64 late;

		if (req.place == WSX_PLACE_P)
			req.target = r % self->nprocs;
		ASSERT_EQ(0, pthread_create(&th, NULL, poll_thread, &p));
		if (r % 5)
			usleep(1000);	/* let it block, mostly */
		ASSERT_EQ(1, wsx_test_submit(self->fd, &req, 1, NULL));
		ASSERT_EQ(0, pthread_join(th, NULL));
		EXPECT_EQ(1, p.ret) {
			TH_LOG("round %d: poll returned %d", r, p.ret);
		}
		EXPECT_TRUE(p.revents & POLLIN);
		EXPECT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1,
					   30 * NSEC_PER_SEC));
		EXPECT_EQ(r, rec.user_data);
		late = p.woken_ns > rec.finished_ns ?
		       p.woken_ns - rec.finished_ns : 0;
		if (late > worst)
			worst = late;
		EXPECT_GE(WAKE_BOUND_NS, late) {
			TH_LOG("round %d: poll returned %llu ms after the record",
			       r, (unsigned long long)late / NSEC_PER_MSEC);
		}
	}
	TH_LOG("%d rounds: the latest poll() returned %llu us after its record",
	       rounds, (unsigned long long)worst / 1000);
}

TEST_HARNESS_MAIN
