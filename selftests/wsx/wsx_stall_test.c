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
 * stall_blackbox(_offline): the same hold made from userspace alone, as
 * issue 20's finding 1 made it: A's ENTER submits CRC32C entries over a
 * memfd buffer (MAP_SHARED) while another thread zaps the buffer's PTEs
 * (MADV_DONTNEED in a loop), so that each pin of the buffer, under
 * sq_lock, takes page faults all the way.  Each entry also covers one
 * page past the file's end, where its pin fails (-EFAULT): no CRC runs
 * on the Ms, the hold is pinning only, and the Ms have nothing to do but
 * walk.  A NOP pushed behind the entries keeps A's SQ non-empty for the
 * whole hold.  Once the first entry's record is posted and the ENTER has
 * not returned, the hold is under way: the other session's NOPs and the
 * offline are asserted as in stall; then the zapper stops (the pins
 * left find the PTEs in place: the hold ends soon) and A's records must
 * come each once and in order.  An M that sleeps on sq_lock blocks the
 * NOPs until the ENTER returns.  How long the ENTER took, and how many
 * pins it had done when the zapper stopped, is printed, never compared.
 *
 * starve: two pick-up sessions, A (set up first: the head of the list of
 * pick-up rings) flooded by a thread that keeps its SQ non-empty (a
 * correct user: it reaps, and ENTERs only when WSX_SQ_NEED_ENTER is set),
 * and B.  Each round B leaves priming SPINs to the Ms whatever its flag
 * says (for STARVE_PRIME_NS at most when B's flag is set: a walk that
 * found B idle took it off the Ms' list, and then B ENTERs them, which
 * lists it again once a grace period has passed, and redoes the round; with
 * its flag clear B relies on the Ms, and they must take them up before
 * the guard): the M that takes them clears
 * the flag, and no M walks to set it
 * again while the SPINs keep every M busy (on TCG a vCPU runs alone for
 * many ms: a shorter window is never seen from another one).  Once they
 * are consumed (B's SQ head, which that M publishes entry by entry as it
 * consumes, before it lets go of sq_lock) and an ENTER of no entry
 * has taken sq_lock after that M (which a vCPU's pause or a preemption
 * can stop between the two), B pushes one NOP and relies
 * on the Ms while the flag is clear (a round that finds it set ENTERs,
 * does not count and is redone, at most 4 tries a round).  The bound
 * below counts from a free sq_lock: a NOP pushed as soon as the flag
 * clears, while that M still consumes, would also count every pick-up of
 * A during the hold, which is bounded in time, not in pick-ups (the other
 * Ms skip B meanwhile).  The NOP must be consumed, and complete, with at most
 * STARVE_BOUND(P) of A's entries consumed by the Ms after B's push and
 * before B's NOP: an order read from the records' queued_ns
 * (WSX_REQ_TIMESTAMPS), not from this thread's look, which comes late;
 * A's entries that the feeder's own ENTERs may have taken are left out.
 * The same holds for the M that takes B's NOP: once it holds sq_lock the
 * other Ms skip B, and A's pick-ups during its hold are bounded in time,
 * not in number.  TCG runs the vCPUs in turns of milliseconds (and the
 * matrix boots three guests at once on two host cores): a vCPU stopped in
 * that hold let the Ms take more than the bound of A's entries in one
 * round of 16 in one CI run, so at most STARVE_OVER_MAX rounds may be
 * over the bound.  The time of the push is read after it,
 * so that this thread's own pause is not counted.
 * Rings taken up least recently first take B's entry within (rings with
 * entries - 1) x (Ms walking at once) pick-ups of other rings: with two
 * rings at most P pick-ups of WSX_SOURCE_BUDGET (256) entries of A's,
 * and the bound is twice that.  A walk
 * that takes the first pending ring from the head keeps the Ms on A
 * until A's SQ is found empty or two Ms collide on its sq_lock (those
 * skip A): 5,000 to 17,000 of A's entries in some rounds (a mutant with
 * that walk put 9 to 11 rounds of 16 over the bound, in 4 runs of 4).  A walk that prefers the ring served
 * most recently passes: B, whose priming entries were just taken up, is
 * that ring when its NOP comes (waiting for the Ms to take A up again
 * first was tried: the feeder's ENTERs then consume most of A's entries
 * and the wait outlasts the guard).  B's records and the flood's are checked
 * once each; STARVE_GUARD_S only catches a hang.
 *
 * offline_fed: a pick-up session fed by a thread as above while CPU 1
 * goes offline.  The entries are refused ones (an unknown op: whoever
 * consumes one posts its record at once, no M need run it), the feeder's
 * ENTERs submit FED_ENTER at a time (the SQ stays nearly full, so the
 * stopping M's walk finds entries), and the Ms of the other Ps run SPINs
 * of another session (none of them walks).  The offline must return while
 * the feeder still feeds: it pushes FED_AFTER more entries after the
 * offline returned, within its own FED_GUARD_S; since no other M walks,
 * that also needs the stopping M to leave the flag set (an entry left
 * with the flag clear would wait for the SPINs' end).  Every entry pushed
 * completes exactly once (user_data identities), CPU 1 comes back.  A
 * stopping M that walks until it finds no entries keeps the offline
 * waiting while the feeder keeps up with it.  SKIP when CPU 1 cannot go
 * offline.
 *
 * relies_while_every_p_is_busy: issue 20's finding 7, the flag says who
 * looks.  While every P runs SPINs of another session for RELY_BUSY_S, a
 * pick-up session pushes a NOP and ENTERs (the flag is set at setup): the
 * ENTER must leave the flag clear, since every M walks the pick-up rings
 * before it parks (an ENTER of an entry refused at once, which queues no
 * job, must not: a loop of those kept the Ms from sleeping); then it
 * pushes RELY_MORE NOPs and never ENTERs again: every record must come (the Ms take them up once their SPINs end).
 * Then, with every P idle, the same ENTER must leave the flag set (an idle
 * P's M would not look).  The flag used to be cleared only by an M's
 * take-up: the ENTER left it set and the user ENTERed again.
 *
 * read_only: a file opened read-only cannot queue work or set up rings:
 * SUBMIT, RING_SETUP and ENTER fail with EBADF, VERSION works.
 *
 * waiters_own_timeout, waiters_own_target(_nearer_joins_second): several
 * threads in ENTER on one file each wait to their own min_complete and
 * timeout (issue 20's finding 4: waiters took a lock one at a time).  The
 * records are held back, not timed: A waits for one record, and B (once A
 * sleeps in its ENTER) for two with a 100 ms timeout: B must time out
 * while A still waits, then one NOP returns A.  Two waiters for 1 and 2
 * records, either joining first: one NOP returns the one for 1 while the
 * other still waits, a second NOP the other.
 *
 * batch_queued_before_a_pin: the doors queue a request's items in batches
 * (wsx_queue_batch_add()), and an op that pins its submitter's pages
 * (CRC32C) may wait there for a page fault a user serves: the items before
 * it are queued first (wsx_submit_before_setup()).  One SUBMIT holds
 * PIN_NOPS NOPs (the first batch holds one item, so the second is held
 * in the next), then a CRC32C over a page registered with userfaultfd,
 * whose handler serves the fault only once the NOPs' records came, or
 * after PIN_WAIT_S (then the test fails).  Without the rule the second
 * NOP waited in the batch behind the pin, and the pin for the NOP: a
 * deadlock a user could build on purpose, broken here only by the
 * handler's timeout.  Linux 6.1's FOLL_LONGTERM pin does not wait for a
 * userfaultfd page (it fails with EFAULT): there the test skips, saying
 * so; 6.12 (the matrix) waits.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wsx_rings.h"

#define HOLD_FAULT	"enter_in_sq_lock"
#define HOLD_US		"4000000"	/* the ENTER's hold: 4 s */
#define NOPS		32		/* the other session's NOPs */
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

struct holder {
	struct wsx_tring ring;
	pthread_t thread;
	__u32 to_submit;	/* the ENTER's */
	struct wsx_enter e;	/* as the ENTER returned it */
	__u64 ns;		/* how long the ENTER took */
	long ret;
	int done;	/* set (release) when the ENTER returned */
};

static void *holder_enter(void *arg)
{
	struct holder *h = arg;
	__u64 t0 = wsx_test_now_ns();

	memset(&h->e, 0, sizeof(h->e));
	h->e.to_submit = h->to_submit;
	h->ret = wsx_test_ioctl(h->ring.fd, WSX_IOC_ENTER, &h->e);
	h->ns = wsx_test_now_ns() - t0;
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

/*
 * While @h's ENTER is inside its call (it holds sq_lock, and its ring
 * holds entries: every M that walks the pick-up rings finds it pending),
 * NOPS NOPs of the session @fd_b, one at a time, each waking an M that
 * then walks, and, when @offline, CPU 1 offline and back.  Expects that
 * every NOP completed, and the offline returned, while the ENTER was
 * still inside (its thread's flag, set after it returned, still clear).
 * The caller joins the ENTER's thread.
 */
static void expect_free_in_hold(struct __test_metadata *_metadata,
				struct holder *h, int fd_b, bool offline)
{
	struct wsx_completion rec;
	bool offline_in_hold = false, have_cpu1;
	__u64 t0 = wsx_test_now_ns(), t_nops, t_off = 0;
	struct wsx_req req;
	int i, nops = 0;

	for (i = 0; i < NOPS && held(h); i++) {
		req = wsx_test_req(WSX_OP_NOP, 100 + i, WSX_PLACE_LOCAL, 0, 0,
				   0, 0);
		ASSERT_EQ(1, wsx_test_submit(fd_b, &req, 1, NULL));
		ASSERT_EQ(1, wsx_test_wait(fd_b, &rec, 1, 1, 10000000000LL));
		ASSERT_EQ((__u64)(100 + i), rec.user_data);
		ASSERT_EQ(0, rec.status);
		if (held(h))
			nops++;
	}
	have_cpu1 = offline && !access(CPU1_ONLINE, W_OK);
	t_nops = wsx_test_now_ns();
	if (have_cpu1 && held(h)) {
		ASSERT_EQ(0, wsx_test_write_file(CPU1_ONLINE, "0"));
		offline_in_hold = held(h);
		t_off = wsx_test_now_ns();
		ASSERT_EQ(0, wsx_test_write_file(CPU1_ONLINE, "1"));
	}
	ksft_print_msg("NOPs completed during the hold: %d of %d (%llu ms); CPU 1 offline during the hold: %s (%llu ms)\n",
		       nops, NOPS, (t_nops - t0) / 1000000,
		       have_cpu1 ? (offline_in_hold ? "yes" : "no") : "no CPU 1",
		       t_off ? (t_off - t_nops) / 1000000 : 0);
	EXPECT_EQ(NOPS, nops);
	if (offline && !have_cpu1)
		ksft_print_msg("no CPU 1 to take offline: the offline half not run\n");
	if (have_cpu1)
		EXPECT_TRUE(offline_in_hold);
}

static void stall_run(struct __test_metadata *_metadata, bool offline)
{
	struct wsx_completion rec;
	struct wsx_req req;
	struct holder h;
	struct wsx_enter e;
	int fd_a, fd_b, i, round;
	long hits;

	if (!wsx_test_have_faults())
		SKIP(return, "%s: no fault points (release build): the hold of sq_lock cannot be made long",
		     _metadata->name);
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
		h.to_submit = 1;
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
		/* the hold is at the consume's start: the shared head has
		 * not moved for this ENTER's entry yet
		 */
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
	push_nop(&h.ring, 3 + 2 * round);	/* during the hold, relying on the Ms */
	expect_free_in_hold(_metadata, &h, fd_b, offline);
	ASSERT_EQ(0, pthread_join(h.thread, NULL));
	ksft_print_msg("the ENTER took %llu ms\n", h.ns / 1000000);
	EXPECT_EQ(0, h.ret);

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

/* ---- the stall from userspace alone: no fault point ------------------- */

#define BB_BUF		(64UL << 20)	/* the shmem each entry covers */
#define BB_ENTRIES	255		/* CRC32C entries of the ENTER */
#define BB_ENTRIES_MIN	32		/* ... on a slow kernel (WSX_SCALE) */
#define BB_SQ		256		/* they and the NOP after them */
#define BB_CQ		512

struct zapper {
	char *buf;
	pthread_t thread;
	unsigned long zaps;
	int stop;		/* set (release) by the test */
};

/* Zap every PTE of the buffer, again and again, until told to stop. */
static void *zapper_run(void *arg)
{
	struct zapper *z = arg;

	while (!__atomic_load_n(&z->stop, __ATOMIC_ACQUIRE) &&
	       !madvise(z->buf, BB_BUF, MADV_DONTNEED))
		z->zaps++;
	return NULL;
}

/* A's records: @n refused pins in order, then the NOP. */
struct bb_recs {
	__u64 next, n;
};

static bool bb_rec(const struct wsx_completion *rec, void *ctx)
{
	struct bb_recs *r = ctx;

	return rec->user_data == r->next++ &&
	       rec->status == (rec->user_data < r->n ? -EFAULT : 0);
}

/*
 * The hold made by page faults: A's ENTER submits BB_ENTRIES CRC32C
 * entries (fewer on a slow kernel, at least BB_ENTRIES_MIN), each over
 * BB_BUF of a memfd mapped MAP_SHARED and one page
 * past the file's end.  Each pin faults its way through the buffer (the
 * zapper keeps zapping the PTEs, and the pages it had are unpinned when
 * it fails) and fails at that last page: -EFAULT, a record posted at
 * once, no item for the Ms to run, so the hold is pinning only.  A NOP
 * pushed behind them keeps A's SQ non-empty throughout.
 */
static void blackbox_run(struct __test_metadata *_metadata, bool offline)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bb_recs recs = {
		.n = wsx_test_scaled(BB_ENTRIES, BB_ENTRIES_MIN),
	};
	struct zapper z = { 0 };
	struct holder h;
	int fd_a, fd_b, mfd, i;
	__u32 faulted;
	__u64 t_stop;

	fd_a = wsx_test_open();
	fd_b = wsx_test_open();
	ASSERT_LE(0, fd_a);
	ASSERT_LE(0, fd_b);
	mfd = memfd_create("wsx_stall", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, BB_BUF));
	z.buf = mmap(NULL, BB_BUF + page, PROT_READ | PROT_WRITE, MAP_SHARED,
		     mfd, 0);
	ASSERT_NE(MAP_FAILED, z.buf);
	memset(z.buf, 0x5a, BB_BUF);	/* in the page cache: minor faults */
	ASSERT_EQ(0, wsx_tring_setup_flags(&h.ring, fd_a, BB_SQ, BB_CQ,
					   WSX_RING_SQ_PICKUP));
	for (i = 0; i < recs.n; i++)
		push_req(&h.ring, wsx_test_req(WSX_OP_CRC32C, i,
					       WSX_PLACE_LOCAL, 0,
					       (uintptr_t)z.buf, BB_BUF + page,
					       0));
	push_nop(&h.ring, recs.n);
	h.to_submit = recs.n;
	h.done = 0;
	ASSERT_EQ(0, pthread_create(&z.thread, NULL, zapper_run, &z));
	ASSERT_EQ(0, pthread_create(&h.thread, NULL, holder_enter, &h));
	/* the hold is under way: a record posted, the ENTER still inside */
	while (!__atomic_load_n(h.ring.cq_tail, __ATOMIC_ACQUIRE) && held(&h))
		usleep(1000);
	expect_free_in_hold(_metadata, &h, fd_b, offline);
	/* the pins left find the PTEs there: the hold ends soon */
	__atomic_store_n(&z.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(z.thread, NULL));
	faulted = __atomic_load_n(h.ring.cq_tail, __ATOMIC_ACQUIRE);
	t_stop = wsx_test_now_ns();
	ASSERT_EQ(0, pthread_join(h.thread, NULL));
	ksft_print_msg("the ENTER took %llu ms: %u of %llu pins of %lu MiB done while %lu zaps ran, the rest %llu ms after\n",
		       h.ns / 1000000, faulted, recs.n, BB_BUF >> 20, z.zaps,
		       (wsx_test_now_ns() - t_stop) / 1000000);
	EXPECT_EQ(0, h.ret);
	EXPECT_EQ(recs.n, h.e.submitted);
	/* every record once, in order: the NOP's whoever consumed it */
	EXPECT_EQ(0, wsx_tring_enter(&h.ring, wsx_tring_unsubmitted(&h.ring),
				     recs.n + 1, 10000000000LL, NULL));
	EXPECT_EQ(recs.n + 1, wsx_tring_reap(&h.ring, 0, bb_rec, &recs));
	wsx_tring_unmap(&h.ring);
	munmap(z.buf, BB_BUF + page);
	close(mfd);
	close(fd_a);
	close(fd_b);
}

/*
 * The hold is as long as the pins' page faults take: on the strict KCSAN
 * kernel (every access of the fault path instrumented, with weak-memory
 * reordering) longer than the harness's default 30 s per test, so these
 * two have 240 s; only a hang comes near that.
 */
FIXTURE(blackbox) {};
FIXTURE_SETUP(blackbox) {}
FIXTURE_TEARDOWN(blackbox) {}

/* NOPs of another session during a hold of page faults. */
TEST_F_TIMEOUT(blackbox, stall_blackbox, 240)
{
	blackbox_run(_metadata, false);
}

/* The same with CPU 1 offline and back during the hold. */
TEST_F_TIMEOUT(blackbox, stall_blackbox_offline, 240)
{
	blackbox_run(_metadata, true);
}

/* ---- a session fed without a pause ------------------------------------ */

#define PICKUP_BATCH	256		/* WSX_SOURCE_BUDGET, kmod/source.h */
#define FEED_SQ		8192		/* the fed SQ; the CQ holds two of it */
#define FEED_CQ		16384
#define FEED_MAX	(1U << 21)	/* entries one feeder pushes at most */
#define SPIN_MAX_NS	10000000ULL	/* max_item_ns's default */
#define FEED_NAP_US	1000		/* a full SQ: the feeder leaves the CPU */

struct feeder {
	struct wsx_tring ring;
	pthread_t thread;
	unsigned char *seen;	/* records read, per user_data */
	unsigned char *entered;	/* maybe consumed by the feeder's ENTER */
	__u64 *queued_ns;	/* when each was consumed */
	__u64 guard_ns;		/* feeds at most this long */
	__u32 pushed;		/* written by the feeder (release) */
	__u32 reaped;
	__u64 enters;
	__u32 op;		/* of every entry */
	__s32 status;		/* of every record */
	__u32 enter_max;	/* entries one ENTER submits at most */
	long ret;		/* 0, or the -errno that stopped it */
	int stop;		/* set by the test: stop feeding, drain */
	int stopped;		/* set by the feeder when it stopped feeding */
	int timed_out;		/* it stopped at guard_ns */
};

/* A record of the flood: its user_data pushed, read once. */
static bool feeder_rec(const struct wsx_completion *rec, void *ctx)
{
	struct feeder *f = ctx;

	if (rec->user_data >= f->pushed || f->seen[rec->user_data]++ ||
	    rec->status != f->status)
		return false;
	f->queued_ns[rec->user_data] = rec->queued_ns;
	f->reaped++;
	return true;
}

/* Entries of the flood consumed so far (its shared SQ head). */
static __u32 fed_head(struct feeder *f)
{
	return __atomic_load_n(f->ring.sq_head, __ATOMIC_ACQUIRE);
}

/*
 * Keep the SQ full as a correct user does: reap, push entries while there
 * is room, ENTER (up to enter_max of them) only when the flag asks for
 * it.  Then ENTER the rest and read every record.
 */
static void *feeder_run(void *arg)
{
	struct feeder *f = arg;
	struct wsx_req req = wsx_test_req(f->op, 0, WSX_PLACE_LOCAL, 0, 0, 0,
					  0);
	__u64 end = wsx_test_now_ns() + f->guard_ns;
	long ret = 0;
	__u32 n, head;

	req.flags = WSX_REQ_TIMESTAMPS;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		if (wsx_test_now_ns() > end || f->pushed >= FEED_MAX) {
			f->timed_out = 1;
			break;
		}
		ret = wsx_tring_reap(&f->ring, 0, feeder_rec, f);
		if (ret < 0)
			goto out;
		for (req.user_data = f->pushed; req.user_data < FEED_MAX &&
		     wsx_tring_push(&f->ring, &req); req.user_data++)
			;
		/* full: the Ms need a while for the SQ, leave them the CPU */
		if (req.user_data == f->pushed)
			usleep(FEED_NAP_US);
		__atomic_store_n(&f->pushed, req.user_data, __ATOMIC_RELEASE);
		if (!wsx_tring_picked_up(&f->ring)) {
			n = wsx_tring_unsubmitted(&f->ring);
			head = fed_head(f);
			ret = wsx_tring_enter(&f->ring, n < f->enter_max ?
					      n : f->enter_max, 0, 0, NULL);
			if (ret < 0)
				goto out;
			f->enters++;
			/* an M may have taken some of them: marked anyway */
			for (n = fed_head(f); head != n; head++)
				f->entered[head] = 1;
		}
	}
	__atomic_store_n(&f->stopped, 1, __ATOMIC_RELEASE);
	while (f->reaped < f->pushed) {
		ret = wsx_tring_enter(&f->ring, wsx_tring_unsubmitted(&f->ring),
				      1, 10000000000LL, NULL);
		if (ret < 0)
			goto out;
		ret = wsx_tring_reap(&f->ring, 0, feeder_rec, f);
		if (ret < 0)
			goto out;
	}
	ret = 0;
out:
	f->ret = ret;
	__atomic_store_n(&f->stopped, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Set up a pick-up ring on @fd and start feeding it entries of @op whose
 * records say @status, ENTERing at most @enter_max at a time, for @guard_s
 * at most.
 */
static int feeder_start(struct feeder *f, int fd, __u32 op, __s32 status,
			__u32 enter_max, unsigned int guard_s)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = wsx_tring_setup_flags(&f->ring, fd, FEED_SQ, FEED_CQ,
				    WSX_RING_SQ_PICKUP);
	if (ret)
		return ret;
	f->seen = calloc(FEED_MAX, 1);
	f->entered = calloc(FEED_MAX, 1);
	f->queued_ns = calloc(FEED_MAX, sizeof(*f->queued_ns));
	if (!f->seen || !f->entered || !f->queued_ns)
		return -ENOMEM;
	f->guard_ns = guard_s * 1000000000ULL;
	f->enter_max = enter_max;
	f->op = op;
	f->status = status;
	return -pthread_create(&f->thread, NULL, feeder_run, f);
}

/*
 * Entries of the flood the Ms consumed after @from_ns and up to @to_ns
 * (records' queued_ns), once every record was read.
 */
static __u32 fed_by_ms(const struct feeder *f, __u64 from_ns, __u64 to_ns)
{
	__u32 n = 0;

	for (__u32 i = 0; i < f->pushed; i++)
		n += !f->entered[i] && f->queued_ns[i] > from_ns &&
		     f->queued_ns[i] <= to_ns;
	return n;
}

/* Stop feeding, wait for every record; true if each came once. */
static bool feeder_finish(struct feeder *f)
{
	bool ok;

	__atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
	pthread_join(f->thread, NULL);
	ok = !f->ret && f->reaped == f->pushed;
	for (__u32 i = 0; ok && i < f->pushed; i++)
		ok = f->seen[i] == 1;
	ksft_print_msg("flood: %u entries pushed, %u records read once each, %llu ENTERs, ret %ld%s\n",
		       f->pushed, f->reaped, (unsigned long long)f->enters,
		       f->ret, f->timed_out ? ", stopped by its guard" : "");
	return ok;
}

static void feeder_free(struct feeder *f)
{
	free(f->seen);
	free(f->entered);
	free(f->queued_ns);
	wsx_tring_unmap(&f->ring);
}

/* The longest SPIN there is, at most SPIN_MAX_NS; 0 when unknown. */
static __u64 spin_ns(void)
{
	char param[32];
	__u64 ns;

	if (wsx_test_param("max_item_ns", param, sizeof(param)))
		return 0;
	ns = strtoull(param, NULL, 10);
	return ns < SPIN_MAX_NS ? ns : SPIN_MAX_NS;
}

#define STARVE_BOUND(p)	(2 * (p) * PICKUP_BATCH)
/* rounds allowed over the bound: a paused taker (see the top) */
#define STARVE_OVER_MAX	1
#define STARVE_GUARD_S	20
#define STARVE_ROUNDS	16
#define STARVE_SQ	64		/* B's SQ: the priming SPINs and a NOP */
/* How long the priming SPINs are left to the Ms before B ENTERs them. */
#define STARVE_PRIME_NS	200000000ULL

/* Are B's entries up to @id consumed (its SQ head published)? */
static bool starve_done(struct wsx_tring *b, __u32 id)
{
	return __atomic_load_n(b->sq_head, __ATOMIC_ACQUIRE) == id;
}

/*
 * Wait without ENTER until starve_done() or the guard passed.  Returns
 * the flood's entries consumed since @a0 (by the Ms or its ENTERs).
 */
static __u32 starve_wait(struct feeder *a, struct wsx_tring *b, __u32 id,
			 __u32 a0, __u64 end)
{
	while (!starve_done(b, id) && wsx_test_now_ns() < end)
		;
	return fed_head(a) - a0;
}

/* A record of B's round: user_data in [lo, hi), summed; the last's time. */
struct starve_recs {
	__u32 lo, hi;
	__u64 sum, queued_ns;
};

static bool starve_rec(const struct wsx_completion *rec, void *ctx)
{
	struct starve_recs *r = ctx;

	r->sum += rec->user_data;
	if (rec->user_data == r->hi - 1)
		r->queued_ns = rec->queued_ns;
	return rec->user_data >= r->lo && rec->user_data < r->hi &&
	       !rec->status;
}

TEST(starve)
{
	int fd_a = wsx_test_open(), fd_b = wsx_test_open(), nprocs, i;
	__u32 id = 0, a0, n, n_max = 0, prime_max = 0, bound, spins;
	int rounds = wsx_test_scaled(STARVE_ROUNDS, 2), counted = 0, over = 0;
	__u64 pushed_ns[STARVE_ROUNDS], taken_ns[STARVE_ROUNDS];
	struct wsx_req req;
	bool relied;
	int tries;
	struct starve_recs recs;
	struct wsx_tring b;
	struct feeder a;
	__u64 end, spin, now;
	int unlisted = 0;
	bool ok = true;

	ASSERT_LE(0, fd_a);
	ASSERT_LE(0, fd_b);
	nprocs = wsx_test_nprocs(fd_a);
	ASSERT_LT(0, nprocs);
	spin = spin_ns();
	ASSERT_LT(0, spin);
	spins = 16 * nprocs < STARVE_SQ - 1 ? 16 * nprocs : STARVE_SQ - 1;
	bound = STARVE_BOUND(nprocs);
	/* A first: the head of the list of pick-up rings */
	ASSERT_EQ(0, feeder_start(&a, fd_a, WSX_OP_NOP, 0, FEED_SQ,
				  STARVE_GUARD_S + 5));
	ASSERT_EQ(0, wsx_tring_setup_flags(&b, fd_b, STARVE_SQ, 2 * STARVE_SQ,
					   WSX_RING_SQ_PICKUP));
	end = wsx_test_now_ns() + STARVE_GUARD_S * 1000000000ULL;
	for (tries = 0; ok && counted < rounds && tries < 4 * rounds;) {
		tries++;
		/*
		 * The priming SPINs, left to the Ms whatever the flag says:
		 * the M that takes them clears the flag, and no M walks to
		 * set it again while the SPINs keep every M busy (a window
		 * longer than TCG runs one vCPU).  B's NOP follows once they
		 * are consumed: that M is leaving sq_lock.
		 */
		a0 = fed_head(&a);
		recs.lo = id;
		for (i = 0; i < spins; i++)
			push_req(&b, wsx_test_req(WSX_OP_SPIN, id++,
						  WSX_PLACE_LOCAL, 0, spin,
						  0, 0));
		now = wsx_test_now_ns();
		n = starve_wait(&a, &b, id, a0,
				now + STARVE_PRIME_NS < end ?
				now + STARVE_PRIME_NS : end);
		prime_max = n > prime_max ? n : prime_max;
		if (!starve_done(&b, id) && wsx_test_now_ns() < end &&
		    !wsx_tring_picked_up(&b)) {
			/*
			 * B may be off the Ms' list: a walk found it idle,
			 * with its flag set.  A correct user ENTERs, which
			 * lists it again once a grace period has passed
			 * since; the round is redone.  With its flag clear,
			 * B relies on the Ms: they must take the entries up
			 * before the guard (below).
			 */
			recs.hi = id;
			recs.sum = 0;
			ASSERT_EQ(0, wsx_tring_enter(&b, wsx_tring_unsubmitted(&b),
						     spins, 10000000000LL, NULL));
			ASSERT_EQ(spins, wsx_tring_reap(&b, 0, starve_rec,
							&recs));
			unlisted++;
			continue;
		}
		n = starve_wait(&a, &b, id, a0, end);
		if (!starve_done(&b, id)) {
			ksft_print_msg("B's priming entries waited, its flag %#x, while %u of A's were taken\n",
				       *b.sq_flags, n);
			ok = false;
			break;
		}
		/*
		 * The M that consumed them may still hold sq_lock (it
		 * publishes the head before its unlock, and a vCPU or a
		 * preemption can stop it there): the bound holds from a free
		 * sq_lock.  An ENTER of nothing takes the lock after it.
		 */
		ASSERT_EQ(0, wsx_tring_enter(&b, 1, 0, 0, NULL));
		a0 = fed_head(&a);
		req = wsx_test_req(WSX_OP_NOP, id++, WSX_PLACE_LOCAL, 0, 0, 0,
				   0);
		req.flags = WSX_REQ_TIMESTAMPS;
		push_req(&b, req);
		/* after the push: this thread's vCPU may pause before it */
		pushed_ns[counted] = wsx_test_now_ns();
		relied = wsx_tring_picked_up(&b);
		if (!relied) {
			/* the flag is set: a correct user ENTERs, redo */
			ASSERT_EQ(0, wsx_tring_enter(&b, 1, 0, 0, NULL));
		} else {
			n = starve_wait(&a, &b, id, a0, end);
			if (!starve_done(&b, id)) {
				ksft_print_msg("B's NOP waited while %u of A's were taken\n",
					       n);
				ok = false;
				break;
			}
		}
		/* the round's records, each once */
		recs.hi = id;
		recs.sum = 0;
		recs.queued_ns = 0;
		ASSERT_EQ(0, wsx_tring_enter(&b, 0, spins + 1, 10000000000LL,
					     NULL));
		ASSERT_EQ(spins + 1, wsx_tring_reap(&b, 0, starve_rec, &recs));
		ASSERT_EQ(((__u64)recs.lo + id - 1) * (spins + 1) / 2, recs.sum);
		if (relied)
			taken_ns[counted++] = recs.queued_ns;
	}
	/* an abandoned round: B's entries complete once the flood stops */
	EXPECT_TRUE(feeder_finish(&a));
	for (i = 0; i < counted; i++) {
		n = fed_by_ms(&a, pushed_ns[i], taken_ns[i]);
		n_max = n > n_max ? n : n_max;
		over += n > bound;
	}
	feeder_free(&a);
	ksft_print_msg("%d rounds counted of %d tries (%d redone as B's priming waited with its flag set, B maybe off the Ms' list; the others found its flag set after the priming), %d over the bound: the Ms took at most %u of A's entries between B's push and B's NOP (bound %u, P=%d); while B's priming entries waited, A's head moved at most %u\n",
		       counted, tries, unlisted, over, n_max, bound, nprocs, prime_max);
	EXPECT_TRUE(ok);
	/* one round may lose to a vCPU paused holding B's sq_lock (above) */
	EXPECT_GE(STARVE_OVER_MAX, over);
	EXPECT_EQ(rounds, counted);
	EXPECT_EQ(0, wsx_tring_enter(&b, wsx_tring_unsubmitted(&b),
				     id - *b.cq_head, 10000000000LL, NULL));
	EXPECT_EQ(id, __atomic_load_n(b.cq_tail, __ATOMIC_ACQUIRE));
	wsx_tring_unmap(&b);
	close(fd_a);
	close(fd_b);
}

#define FEED_GUARD_S	15
/*
 * offline_fed's feeder: on the debug kernels it pushed 1,000-3,000 entries
 * a second (KCSAN, both debug boots and other VMs on two host cores: 13,440
 * of 32,768 within a 15 s guard), so it gets its own guard and its
 * fixture's harness timeout
 */
#define FED_GUARD_S	60
#define FED_AFTER	(2 * FEED_SQ)
#define FED_ENTER	64		/* its ENTERs leave the SQ nearly full */
#define FED_OP		0xffff		/* refused: its record is posted at once */

/*
 * Keep the Ms of every P but P @skip busy for @s seconds with SPINs of
 * another session (offline_fed: P 1, CPU 1's, so that only its M walks
 * the pick-up rings; it may steal some SPINs too; -1: every P).
 */
static int keep_busy(int fd, int nprocs, int skip, unsigned int s)
{
	struct wsx_req reqs[256];
	__u64 ns = spin_ns();
	long n, ret;

	if (!ns)
		return -EINVAL;
	for (int p = 0; p < nprocs; p++) {
		if (p == skip)
			continue;
		for (int i = 0; i < 256; i++)
			reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, p,
					       ns, 0, 0);
		for (n = s * 1000000000ULL / ns; n > 0; n -= ret) {
			ret = wsx_test_submit(fd, reqs, n < 256 ? n : 256,
					      NULL);
			if (ret < 0)
				return (int)ret;
		}
	}
	return 0;
}

FIXTURE(fed) {};
FIXTURE_SETUP(fed) {}
FIXTURE_TEARDOWN(fed) {}

TEST_F_TIMEOUT(fed, offline_fed, 2 * FED_GUARD_S)
{
	int fd = wsx_test_open(), fd_busy = wsx_test_open(), ret;
	__u32 p_off, p_on, p_end;
	__u64 t0, t_off;
	bool stopped, flag;
	char buf[8] = "";
	struct feeder f;
	FILE *st;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd_busy);
	if (access(CPU1_ONLINE, W_OK))
		SKIP(return, "%s: no CPU 1 that can go offline", _metadata->name);
	/* the offline returns well within the SPINs' FEED_GUARD_S */
	ASSERT_EQ(0, keep_busy(fd_busy, wsx_test_nprocs(fd), 1, FEED_GUARD_S));
	ASSERT_EQ(0, feeder_start(&f, fd, FED_OP, -EINVAL, FED_ENTER,
				  FED_GUARD_S));
	/* the flood under way */
	while (fed_head(&f) < 2 * FEED_SQ &&
	       !__atomic_load_n(&f.stopped, __ATOMIC_ACQUIRE))
		usleep(1000);
	flag = wsx_tring_picked_up(&f.ring);
	p_on = __atomic_load_n(&f.pushed, __ATOMIC_ACQUIRE);
	t0 = wsx_test_now_ns();
	ret = wsx_test_write_file(CPU1_ONLINE, "0");
	t_off = wsx_test_now_ns();
	stopped = __atomic_load_n(&f.stopped, __ATOMIC_ACQUIRE);
	p_off = __atomic_load_n(&f.pushed, __ATOMIC_ACQUIRE);
	/* feeding goes on a little after the offline returned */
	while (__atomic_load_n(&f.pushed, __ATOMIC_ACQUIRE) - p_off < FED_AFTER &&
	       !__atomic_load_n(&f.stopped, __ATOMIC_ACQUIRE))
		usleep(1000);
	p_end = __atomic_load_n(&f.pushed, __ATOMIC_ACQUIRE);
	EXPECT_TRUE(feeder_finish(&f));
	feeder_free(&f);
	close(fd_busy);		/* cancels the SPINs left */
	if (!ret)
		EXPECT_EQ(0, wsx_test_write_file(CPU1_ONLINE, "1"));
	st = fopen(CPU1_ONLINE, "r");
	ASSERT_NE(NULL, st);
	EXPECT_NE(NULL, fgets(buf, sizeof(buf), st));
	fclose(st);
	close(fd);
	ksft_print_msg("offline took %llu ms, %u entries pushed meanwhile, %u after (feeder stopped first: %s; flag clear before: %s)\n",
		       (t_off - t0) / 1000000, p_off - p_on, p_end - p_off,
		       stopped ? "yes" : "no", flag ? "yes" : "no");
	if (ret)
		SKIP(return, "%s: CPU 1 cannot go offline (%d)", _metadata->name,
		     ret);
	EXPECT_FALSE(stopped);
	EXPECT_LE(FED_AFTER, p_end - p_off);
	EXPECT_EQ('1', buf[0]);
}

#define RELY_BUSY_S	3
#define RELY_MORE	8
#define RELY_GUARD_S	20

TEST_F_TIMEOUT(fed, relies_while_every_p_is_busy, 2 * RELY_GUARD_S)
{
	int fd = wsx_test_open(), fd_busy = wsx_test_open(), nprocs;
	struct wsx_tring t;
	bool relied, idle_relied, refused_relied;
	__u64 end;
	__u32 i;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd_busy);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_LT(0, nprocs);
	/* one P: the ENTER's own NOP claims the only idle P (a rely) */
	if (nprocs < 2)
		SKIP(return, "one P: the ENTER's own item leaves no P idle");
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd, 16, 32, WSX_RING_SQ_PICKUP));
	ASSERT_FALSE(wsx_tring_picked_up(&t));	/* set at setup */
	ASSERT_EQ(0, keep_busy(fd_busy, nprocs, -1, RELY_BUSY_S));
	usleep(20000);	/* every M into its first SPIN */
	/* an entry refused at once queues no job: no rely */
	push_req(&t, wsx_test_req(FED_OP, 100, WSX_PLACE_LOCAL, 0, 0, 0, 0));
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, NULL));
	refused_relied = wsx_tring_picked_up(&t);
	ASSERT_EQ(1, wsx_tring_ready(&t));	/* posted by the ENTER */
	ASSERT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	push_nop(&t, 0);
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, NULL));
	relied = wsx_tring_picked_up(&t);
	/* the user relies on the Ms from here: no ENTER that submits */
	for (i = 1; i <= RELY_MORE; i++)
		push_nop(&t, i);
	end = wsx_test_now_ns() + RELY_GUARD_S * 1000000000ULL;
	while (wsx_tring_ready(&t) < RELY_MORE + 1 && wsx_test_now_ns() < end)
		usleep(1000);
	ksft_print_msg("every P busy: the ENTER of a refused entry left the flag %s, of a NOP %s; %u of %u records came without another ENTER\n",
		       refused_relied ? "clear" : "set",
		       relied ? "clear" : "set", wsx_tring_ready(&t),
		       RELY_MORE + 1);
	EXPECT_FALSE(refused_relied);
	EXPECT_TRUE(relied);
	EXPECT_EQ(RELY_MORE + 1, wsx_tring_ready(&t));
	EXPECT_EQ(RELY_MORE + 1, wsx_tring_reap(&t, 0, NULL, NULL));
	/* every P idle (the SPINs are done, the Ms parked): no rely */
	usleep(100000);
	push_nop(&t, RELY_MORE + 1);
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, NULL));
	idle_relied = wsx_tring_picked_up(&t);
	ASSERT_EQ(0, wsx_tring_enter(&t, 0, 1, 10000000000LL, NULL));
	ksft_print_msg("every P idle: the ENTER left the flag %s\n",
		       idle_relied ? "clear" : "set");
	EXPECT_FALSE(idle_relied);
	EXPECT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	wsx_tring_unmap(&t);
	close(fd);
	close(fd_busy);
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

struct waiter {
	struct wsx_tring *t;
	__u32 min;
	__s64 timeout_ns;
	pid_t tid;		/* set (release) before its ENTER */
	long ret;
	int done;		/* set (release) when the ENTER returned */
};

static void *waiter_enter(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->ret = wsx_tring_enter(w->t, 0, w->min, w->timeout_ns, NULL);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Has thread @w started, and does it sleep (its task state S)? */
static bool waiter_sleeps(struct waiter *w)
{
	pid_t tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
	char path[64], buf[256], *p;
	int fd, n;

	if (!tid)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* after the name: " S ..." */
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Start @w's ENTER in @th and wait (at most 10 s) until it sleeps. */
static bool waiter_start(struct waiter *w, pthread_t *th)
{
	int i;

	if (pthread_create(th, NULL, waiter_enter, w))
		return false;
	for (i = 0; i < 10000 && !waiter_sleeps(w); i++)
		usleep(1000);
	return waiter_sleeps(w);
}

/* Submit one NOP already pushed to @t's SQ's tail: ENTER(1, 0). */
static long submit_nop(struct wsx_tring *t, __u64 user_data)
{
	push_nop(t, user_data);
	return wsx_tring_enter(t, 1, 0, 0, NULL);
}

/* Wait (at most 10 s: a hang guard) until @w's ENTER returned. */
static bool waiter_returned(struct waiter *w)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			return true;
		usleep(1000);
	}
	return false;
}

TEST(waiters_own_timeout)
{
	struct waiter a = { .min = 1, .timeout_ns = 30LL * 1000000000 };
	struct wsx_tring t;
	pthread_t th;
	long ret;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 16));
	a.t = &t;
	/* A waits for a record that only comes once B has returned */
	ASSERT_TRUE(waiter_start(&a, &th));
	ret = wsx_tring_enter(&t, 0, 2, 100000000, NULL);	/* B */
	ksft_print_msg("B's ENTER (2 records, 100 ms) returned %ld; A's %s\n",
		       ret, __atomic_load_n(&a.done, __ATOMIC_ACQUIRE) ?
		       "had returned" : "still waited");
	EXPECT_EQ(-ETIMEDOUT, ret);
	EXPECT_FALSE(__atomic_load_n(&a.done, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, submit_nop(&t, 1));
	pthread_join(th, NULL);
	EXPECT_EQ(0, a.ret);
	EXPECT_EQ(1, wsx_tring_ready(&t));
	wsx_tring_unmap(&t);
	close(fd);
}

/*
 * Two waiters for 1 and 2 records, the first to join waiting for @first:
 * one NOP must return the one for 1 while the other still waits, a second
 * NOP the other.
 */
static void two_waiters(struct __test_metadata *_metadata, __u32 first)
{
	struct waiter w1 = { .min = first, .timeout_ns = 30LL * 1000000000 };
	struct waiter w2 = { .min = 3 - first,
			     .timeout_ns = 30LL * 1000000000 };
	struct waiter *near = first == 1 ? &w1 : &w2;
	struct waiter *far = first == 1 ? &w2 : &w1;
	struct wsx_tring t;
	pthread_t th1, th2;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 16));
	w1.t = w2.t = &t;
	ASSERT_TRUE(waiter_start(&w1, &th1));
	ASSERT_TRUE(waiter_start(&w2, &th2));
	EXPECT_EQ(0, submit_nop(&t, 1));
	EXPECT_TRUE(waiter_returned(near));
	ksft_print_msg("one record: the waiter for 1 (joined %s) %s, the one for 2 %s\n",
		       first == 1 ? "first" : "second",
		       __atomic_load_n(&near->done, __ATOMIC_ACQUIRE) ?
		       "returned" : "still waited",
		       __atomic_load_n(&far->done, __ATOMIC_ACQUIRE) ?
		       "returned" : "still waited");
	EXPECT_FALSE(__atomic_load_n(&far->done, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, submit_nop(&t, 2));
	pthread_join(th1, NULL);
	pthread_join(th2, NULL);
	EXPECT_EQ(0, w1.ret);
	EXPECT_EQ(0, w2.ret);
	EXPECT_EQ(2, wsx_tring_ready(&t));
	wsx_tring_unmap(&t);
	close(fd);
}

TEST(waiters_own_target)
{
	two_waiters(_metadata, 1);
}

TEST(waiters_own_target_nearer_joins_second)
{
	two_waiters(_metadata, 2);
}

#define PIN_WAIT_S	5
/* NOPs before the CRC32C: the second waits in the doors' second batch */
#define PIN_NOPS	2

struct pin_server {
	int uffd, fd;
	char *page, *src;
	long size;
	bool stop, nops_first, served;
};

/*
 * Serve the page's first fault once the NOPs' records came (or after
 * PIN_WAIT_S); give up when told to stop.
 */
static void *pin_serve(void *arg)
{
	struct pin_server *u = arg;
	struct pollfd pfd = { .fd = u->uffd, .events = POLLIN };
	struct wsx_completion recs[PIN_NOPS];
	struct uffdio_copy copy;
	struct uffd_msg msg;

	while (poll(&pfd, 1, 100) != 1)
		if (__atomic_load_n(&u->stop, __ATOMIC_ACQUIRE))
			return NULL;
	/* anything but the page's fault: the test fails, and the SUBMIT
	 * gets EFAULT (a release wakes the faulting thread)
	 */
	if (read(u->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		close(u->uffd);
		u->uffd = -1;
		return NULL;
	}
	/* the SUBMIT waits in the pin meanwhile */
	u->nops_first = wsx_test_wait(u->fd, recs, PIN_NOPS, PIN_NOPS,
				      PIN_WAIT_S * 1000000000LL) == PIN_NOPS;
	memset(&copy, 0, sizeof(copy));
	copy.dst = (uintptr_t)u->page;
	copy.src = (uintptr_t)u->src;
	copy.len = u->size;
	u->served = !ioctl(u->uffd, UFFDIO_COPY, &copy);
	return NULL;
}

TEST(batch_queued_before_a_pin)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_api api = { .api = UFFD_API };
	struct wsx_completion recs[PIN_NOPS + 1];
	struct wsx_req reqs[PIN_NOPS + 1];
	struct pin_server u = { 0 };
	struct wsx_submit sub;
	pthread_t server;
	long got = 0, ret;

	u.size = sysconf(_SC_PAGESIZE);
	u.fd = wsx_test_open();
	ASSERT_LE(0, u.fd);
	u.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u.uffd < 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_API, &api));
	u.page = mmap(NULL, u.size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u.page);
	reg.range.start = (uintptr_t)u.page;
	reg.range.len = u.size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_REGISTER, &reg));
	u.src = malloc(u.size);
	ASSERT_NE(NULL, u.src);
	memset(u.src, 0x5a, u.size);
	ASSERT_EQ(0, pthread_create(&server, NULL, pin_serve, &u));
	for (int i = 0; i < PIN_NOPS; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_LOCAL, 0, 0, 0,
				       0);
	reqs[PIN_NOPS] = wsx_test_req(WSX_OP_CRC32C, PIN_NOPS,
				      WSX_PLACE_LOCAL, 0, (uintptr_t)u.page,
				      u.size, 0);
	ret = wsx_test_submit(u.fd, reqs, PIN_NOPS + 1, &sub);
	__atomic_store_n(&u.stop, true, __ATOMIC_RELEASE);
	pthread_join(server, NULL);
	/* the NOPs' records, if the server did not take them */
	if (!u.nops_first)
		got = wsx_test_wait(u.fd, recs, PIN_NOPS, PIN_NOPS,
				    10000000000LL);
	free(u.src);
	if (ret == PIN_NOPS && sub.error == -EFAULT && !u.served &&
	    got == PIN_NOPS && u.uffd >= 0) {
		munmap(u.page, u.size);
		close(u.uffd);
		close(u.fd);
		SKIP(return, "this kernel's FOLL_LONGTERM pin fails on a userfaultfd page (EFAULT) rather than wait for it (Linux 6.1 does): the wait cannot be built");
	}
	EXPECT_EQ(PIN_NOPS + 1, ret) {
		TH_LOG("queued %u, error %d", sub.queued, sub.error);
	}
	EXPECT_TRUE(u.served);
	EXPECT_TRUE(u.nops_first) {
		TH_LOG("the NOPs' records did not come while the CRC32C's pin waited for its page");
	}
	EXPECT_EQ(1, wsx_test_wait(u.fd, recs, 1, 1, 10000000000LL));
	EXPECT_EQ(PIN_NOPS, recs[0].user_data);
	EXPECT_EQ(0, recs[0].status);
	munmap(u.page, u.size);
	if (u.uffd >= 0)
		close(u.uffd);
	close(u.fd);
}

TEST_HARNESS_MAIN
