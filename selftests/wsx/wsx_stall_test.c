// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_stall_test: no user can stall the engine through its rings.
 *
 * stall: a WSX_RING_SQ_PICKUP session first has an M pick up one entry
 * (so the flag is clear: the user relies on the Ms); then its ENTER holds
 * sq_lock for seconds (the enter_in_sq_lock fault point stands for a pin
 * of the user's pages that takes as long as the user's page faults take)
 * while entries wait in its SQ, one pushed during the hold with the flag
 * clear, so every M that walks the pick-up rings finds the ring pending.
 * Another session's NOPs, one at a time, each waking an M that then walks,
 * must all complete, and CPU 1 must go offline and come back, while that
 * ENTER still holds the lock.  An M that slept on sq_lock (the code before
 * the pick-up's trylock) fails both: the NOPs wait for the hold to end,
 * and so does the offline (the stopping M's last walk).  Then, without
 * another ENTER that submits, every entry must complete: an M that left
 * the ring without handing the pick-up to the holder strands the one
 * pushed during the hold (flag clear, every M parked).
 * Needs the fault points of a WSX_DEBUG build: a release build says SKIP.
 *
 * read_only: a file opened read-only cannot queue work or set up rings:
 * SUBMIT, RING_SETUP and ENTER fail with EBADF, VERSION works.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wsx_rings.h"

#define HOLD_FAULT	"enter_in_sq_lock"
#define HOLD_US		"4000000"	/* the ENTER's hold: 4 s */
#define NOPS		32		/* the other session's NOPs */

struct holder {
	struct wsx_tring ring;
	pthread_t thread;
	long ret;
	int done;	/* set (release) when the ENTER returned */
};

static void *holder_enter(void *arg)
{
	struct holder *h = arg;
	struct wsx_enter e;

	memset(&e, 0, sizeof(e));
	e.to_submit = 1;
	h->ret = wsx_test_ioctl(h->ring.fd, WSX_IOC_ENTER, &e);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Push @req into the SQ of @t (store-release of tail). */
static void push_req(struct wsx_tring *t, struct wsx_req req)
{
	__u32 tail = __atomic_load_n(t->sq_tail, __ATOMIC_RELAXED);

	t->sqes[tail & (t->p.sq_entries - 1)] = req;
	__atomic_store_n(t->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

static void push_nop(struct wsx_tring *t, __u64 user_data)
{
	push_req(t, wsx_test_req(WSX_OP_NOP, user_data, WSX_PLACE_LOCAL, 0, 0,
				 0, 0));
}

static bool held(struct holder *h)
{
	return !__atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

static void stall_run(struct __test_metadata *_metadata, bool offline)
{
	struct wsx_completion rec;
	struct wsx_req req;
	struct holder h;
	struct wsx_enter e;
	int fd_a, fd_b, i, round, nops = 0;
	long hits;
	bool offline_in_hold = false, have_cpu1;
	__u64 t_hold, t_nops, t_off = 0;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points (release build): the hold of sq_lock cannot be made long");
	fd_a = wsx_test_open();
	fd_b = wsx_test_open();
	ASSERT_LE(0, fd_a);
	ASSERT_LE(0, fd_b);
	ASSERT_EQ(0, wsx_tring_setup_flags(&h.ring, fd_a, 16, 32,
					   WSX_RING_SQ_PICKUP));
	/* an M picks the first entry up: another session's NOP wakes one */
	push_nop(&h.ring, 1);
	for (i = 0; i < 1000 && __atomic_load_n(h.ring.sq_head, __ATOMIC_ACQUIRE) != 1; i++) {
		req = wsx_test_req(WSX_OP_NOP, 50, WSX_PLACE_LOCAL, 0, 0, 0, 0);
		ASSERT_EQ(1, wsx_test_submit(fd_b, &req, 1, NULL));
		ASSERT_EQ(1, wsx_test_wait(fd_b, &rec, 1, 1, 10000000000LL));
	}
	ASSERT_EQ(1u, __atomic_load_n(h.ring.sq_head, __ATOMIC_ACQUIRE));
	/*
	 * The ENTER's own entry is refused (an unknown op): it queues no item
	 * whose M would walk afterwards, so only the hand-over can take the
	 * entry pushed during the hold.  An M may take it before the ENTER
	 * holds the lock (then no M misses): such a round is redone.
	 */
	for (round = 0; round < 4; round++) {
		h.done = 0;
		usleep(100000);	/* fewer redone rounds: the Ms parked */
		push_req(&h.ring, wsx_test_req(0xffff, 2 + 2 * round,
					       WSX_PLACE_LOCAL, 0, 0, 0, 0));
		hits = wsx_test_fault_hits(HOLD_FAULT);
		ASSERT_EQ(0, wsx_test_fault_set(HOLD_FAULT, HOLD_US));
		ASSERT_EQ(0, pthread_create(&h.thread, NULL, holder_enter, &h));
		/* the hold has begun when the fault point was passed once more */
		while (wsx_test_fault_hits(HOLD_FAULT) <= hits && held(&h))
			usleep(1000);
		ASSERT_EQ(0, wsx_test_fault_set(HOLD_FAULT, "0"));
		/* the shared head moves only at the end of a consume */
		if (__atomic_load_n(h.ring.sq_head, __ATOMIC_ACQUIRE) == 1 + 2 * round)
			break;
		ksft_print_msg("round %d: an M took the ENTER's entry first, again\n", round);
		ASSERT_EQ(0, pthread_join(h.thread, NULL));
		push_nop(&h.ring, 3 + 2 * round);	/* keeps the count even */
		for (i = 0; i < 1000 && __atomic_load_n(h.ring.sq_head, __ATOMIC_ACQUIRE) !=
				2 + 2 * round + 1; i++) {
			req = wsx_test_req(WSX_OP_NOP, 50, WSX_PLACE_LOCAL, 0, 0, 0, 0);
			ASSERT_EQ(1, wsx_test_submit(fd_b, &req, 1, NULL));
			ASSERT_EQ(1, wsx_test_wait(fd_b, &rec, 1, 1, 10000000000LL));
		}
	}
	ASSERT_LT(round, 4);	/* 4 holds of 4 s: within the 30 s of a TEST */
	t_hold = wsx_test_now_ns();
	push_nop(&h.ring, 3 + 2 * round);	/* during the hold, relying on the Ms */

	/* another session's NOPs, each waking an M that then walks */
	for (i = 0; i < NOPS && held(&h); i++) {
		req = wsx_test_req(WSX_OP_NOP, 100 + i, WSX_PLACE_LOCAL, 0, 0,
				   0, 0);
		ASSERT_EQ(1, wsx_test_submit(fd_b, &req, 1, NULL));
		ASSERT_EQ(1, wsx_test_wait(fd_b, &rec, 1, 1, 10000000000LL));
		ASSERT_EQ((__u64)(100 + i), rec.user_data);
		ASSERT_EQ(0, rec.status);
		if (held(&h))
			nops++;
	}
	have_cpu1 = offline &&
		    !access("/sys/devices/system/cpu/cpu1/online", W_OK);
	t_nops = wsx_test_now_ns();
	if (have_cpu1 && held(&h)) {
		ASSERT_EQ(0, wsx_test_write_file("/sys/devices/system/cpu/cpu1/online", "0"));
		offline_in_hold = held(&h);
		t_off = wsx_test_now_ns();
		ASSERT_EQ(0, wsx_test_write_file("/sys/devices/system/cpu/cpu1/online", "1"));
	}
	ASSERT_EQ(0, pthread_join(h.thread, NULL));
	ksft_print_msg("NOPs completed during the hold: %d of %d (%llu ms); CPU 1 offline during the hold: %s (%llu ms); hold %llu ms\n",
		       nops, NOPS, (t_nops - t_hold) / 1000000,
		       have_cpu1 ? (offline_in_hold ? "yes" : "no") : "no CPU 1",
		       t_off ? (t_off - t_nops) / 1000000 : 0,
		       (wsx_test_now_ns() - t_hold) / 1000000);
	EXPECT_EQ(0, h.ret);
	EXPECT_EQ(NOPS, nops);
	if (offline && !have_cpu1)
		ksft_print_msg("no CPU 1 to take offline: the offline half not run\n");
	if (have_cpu1)
		EXPECT_TRUE(offline_in_hold);

	/* every entry completes, no ENTER submitting: the take-over did it */
	memset(&e, 0, sizeof(e));
	e.min_complete = 3 + 2 * round;
	e.timeout_ns = 10000000000LL;
	EXPECT_EQ(0, wsx_test_ioctl(fd_a, WSX_IOC_ENTER, &e));
	EXPECT_EQ(3u + 2 * round, __atomic_load_n(h.ring.cq_tail, __ATOMIC_ACQUIRE));
	wsx_tring_unmap(&h.ring);
	close(fd_a);
	close(fd_b);
}

/* The NOPs, then every entry of the ring without an ENTER that submits. */
TEST(stall)
{
	stall_run(_metadata, false);
}

/* The same with CPU 1 offline and back during the hold. */
TEST(stall_offline)
{
	stall_run(_metadata, true);
}

TEST(read_only)
{
	struct wsx_ring_setup setup;
	struct wsx_version ver;
	struct wsx_enter e;
	struct wsx_req req;
	int fd = open(WSX_DEVICE_PATH, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	memset(&ver, 0, sizeof(ver));
	EXPECT_EQ(0, wsx_test_ioctl(fd, WSX_IOC_VERSION, &ver));
	req = wsx_test_req(WSX_OP_NOP, 1, WSX_PLACE_LOCAL, 0, 0, 0, 0);
	EXPECT_EQ(-EBADF, wsx_test_submit(fd, &req, 1, NULL));
	memset(&setup, 0, sizeof(setup));
	setup.sq_entries = 4;
	EXPECT_EQ(-EBADF, wsx_test_ioctl(fd, WSX_IOC_RING_SETUP, &setup));
	memset(&e, 0, sizeof(e));
	EXPECT_EQ(-EBADF, wsx_test_ioctl(fd, WSX_IOC_ENTER, &e));
	close(fd);
}

TEST_HARNESS_MAIN
