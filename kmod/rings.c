// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the submission and completion rings a session shares with userspace
 * (ABI 1.1: uapi/linux/wsx.h gives the layout and the calls).
 *
 * WSX_IOC_RING_SETUP allocates one area of pages, which userspace maps
 * with mmap(): a header of four u32 indices, each on its own cache line,
 * the SQ's array of requests and the CQ's array of records.  The kernel
 * works on its own mapping of the pages (vmap()), which lives until the
 * session is released; a user mapping holds a reference on the file, so
 * release comes after the last munmap() and munmap() while items run
 * changes nothing for the kernel.
 *
 * Memory.  The pages, the job slots and struct wsx_rings are charged to
 * the memory cgroup of the task that sets the rings up, as io_uring charges
 * its rings (GFP_KERNEL_ACCOUNT), so a container's limit bounds the rings
 * its users make; beyond it the setup fails with -ENOMEM
 * (__GFP_RETRY_MAYFAIL: the charge fails rather than calling the cgroup's
 * OOM killer).  max_inflight bounds them in all (one unit per CQ entry).
 *
 * Jobs live in job slots preallocated at setup, one per CQ entry, each
 * holding the job and its root node (ops.h), so that a NOP, SPIN or SLEEP
 * request allocates nothing and reads no clock unless it asks for
 * timestamps.  Free slots sit on a lock-free list: the done callbacks
 * push, ENTER takes the whole list at once when its private list runs dry.
 *
 * Protocol (modelled in models/sqcq.pml and models/sqcq_scribble.pml,
 * which check these steps under sequential consistency; the barriers named
 * here give the orders the model assumes)
 * --------
 * SQ  Userspace writes sqes[tail & mask], then stores tail (release).
 *     ENTER, under sq_lock, loads tail (acquire: pairs with that release,
 *     so the entries below tail are written), refuses tail - sq_head_k >
 *     sq_entries, copies each entry once into a struct on the stack (the
 *     shared entry is never read again: no double fetch), and stores
 *     sq_head_k into the shared head (release: the copy is done before
 *     userspace may reuse the entry) before it checks the copy and queues
 *     its job, or posts its error record: a record never shows before the
 *     head covers its entry, so userspace's sq_head - cq_head (entries in
 *     flight) never reads negative.  sq_head_k is the kernel's own; the
 *     shared head is written, never read.
 *
 * CQ  A record is posted under cq_lock, by the done callbacks of the Ms
 *     and by ENTER for a malformed entry: write cqes[cq_tail_k & mask], put
 *     the job slot back on the free list, store cq_tail_k + 1 into the
 *     shared tail (release: the record and the slot's return before the
 *     tail), and only then into cq_tail_k (release: the shared tail before
 *     it).  cq_tail_k is the kernel's own, written only here; the shared
 *     tail is written, never read.  Whoever tests cq_tail_k without the
 *     lock (a waiter's first look and its timeout's, wsx_rings_destroy()
 *     through the same wait) loads it with acquire:
 *     once it shows a record, the shared tail shows it too, so ENTER never
 *     returns before the records it waited for are visible to userspace.
 *     So userspace may see a record, and store a head one past it, before
 *     cq_tail_k shows it: ENTER's range check of the head (head at most
 *     cq_entries behind cq_tail_k and not past it) looks again under
 *     cq_lock before it refuses a head past cq_tail_k.  In the lock order,
 *     ENTER's section comes after that of every post whose shared tail
 *     userspace had seen when it stored the head, so it refuses no honest
 *     head (wsx_rings_cq_head_ok()).
 *     Userspace loads tail (acquire), reads the records below it and
 *     stores head (release).
 *
 * Backpressure: an accepted SQ entry takes a CQ entry at once.  ENTER loads
 *     the shared CQ head (acquire: pairs with userspace's release after its
 *     reads), then cq_tail_k, and refuses a head past cq_tail_k or more than
 *     cq_entries behind sub_total, the count of entries accepted (-EINVAL);
 *     it accepts entries while sub_total - head < cq_entries.  So records
 *     unread plus items in flight never exceed the CQ: no record is dropped
 *     or overwritten, and a CQ nobody reads stops submission (-EBUSY).
 *     Slots in use are sub_total - (slots freed) <= sub_total - cq_tail_k
 *     <= sub_total - head < cq_entries, because a slot is freed before its
 *     record's tail is stored; the chain slot push -> tail release ->
 *     userspace acquire, head release -> ENTER's acquire makes that push
 *     visible to an ENTER that sees the head.  So ENTER finds a free slot
 *     whenever the CQ has room (WARN otherwise).
 *
 * Wake once (models/cqwait.pml): each waiter (an ENTER with min_complete,
 *     any number of them at once, or wsx_rings_destroy()) waits for its
 *     own target tail, head + min_complete, in wsx_rings_wait_tail().
 *     Under cq_lock it joins cq_wq and lowers cq_want to its target (sets
 *     it when the queue was empty), sets its task state and tests
 *     cq_tail_k; woken, it finds itself off the queue and returns.  A
 *     poster, under cq_lock after storing the tail, wakes if somebody is
 *     on the queue and the tail has reached cq_want: wsx_rings_wake()
 *     wakes each sleeping waiter whose own target is reached and takes it
 *     off the queue (a waiter already running, after a timeout or a
 *     signal, stays on it, uncounted: it tests the tail itself), and
 *     cq_want becomes the lowest target of those left.  Invariant: every
 *     waiter on the queue whose target is not reached has a target at or
 *     after cq_want, so a tail before cq_want wakes no one asleep.  The
 *     lock orders a waiter's section and a poster's: either the poster
 *     sees the waiter and its cq_want or the waiter sees the tail, with no
 *     barrier on the post (litmus/rings-wait-post-locked): no wakeup is
 *     lost, a waiter for 256 records is woken once, not 256 times, and a
 *     waiter for a far target or with a long timeout delays no other.  A
 *     wakeup walks every waiter on the queue under cq_lock: as many as the
 *     user has threads in ENTER on the file.  poll() and epoll sleepers
 *     are on the session's queue (s->wq, on which wsx_session_poll() always
 *     waits, so that an epoll watch added before RING_SETUP sees the
 *     records too), woken by every record; wsx_rings_poll() tests the
 *     tail under cq_lock, after joining that queue, so a poster sees the
 *     sleeper or the sleeper the record (litmus/rings-poll-post-locked);
 *     a poll() that found no rings is woken by their setup (kmod/dev.c,
 *     wsx_ioctl_ring_setup(); litmus/rings-setup-poll-sb).  Every
 *     section under cq_lock runs in task context, with interrupts on.
 *     A poster wakes s->wq holding cq_lock, and wsx_rings_poll() takes
 *     it: no wake function on s->wq may poll the file from within the
 *     wake (none of the kernel's does: epoll and io_uring poll later).
 *
 * Pick-up (WSX_RING_SQ_PICKUP; models/sqpickup.pml): the rings are a work
 *     source of the scheduler (source.h, wsx_rings_source).  Such rings
 *     are on an RCU list that an M with nothing to run walks before it
 *     parks (wsx_rings_pickup_find()).  It skips a ring marked
 *     pickup_missed, and one marked pickup_blocked but to take it off the
 *     list (below).  Of the rings whose SQ holds entries it returns the
 *     one the Ms took up least recently (below), and the M consumes up to
 *     WSX_SOURCE_BUDGET entries (wsx_rings_pickup_one()).  When none holds
 *     entries, it sets WSX_SQ_NEED_ENTER on each, takes a full barrier and
 *     loads the SQ tail again (and takes the idle ones off the list,
 *     below).  Invariant: a live ring whose flag the module cleared is
 *     listed.  Userspace stores the tail, takes a full barrier and
 *     loads the flag.  Either the M sees the new tail or userspace sees the
 *     flag and calls ENTER: no entry is left behind while every M sleeps.
 *
 *     The list (issue 20, finding 3; models/sqpickup.pml, -DLIST): a ring
 *     whose flag is set needs no M, so the walk takes it off the list
 *     (wsx_rings_retire()) and a park costs nothing per idle session.  When
 *     its announce finds the SQ empty, or the ring is blocked, and no ENTER
 *     or take-up came for WSX_PICKUP_IDLE (active, a racy hint: a ring
 *     left listed is as before, one taken off is the user's to ENTER; a
 *     session busy now and then keeps its chance to be taken up), the walk
 *     tries sq_lock (a plain try: when taken, the ring stays listed, its
 *     flag set, which costs a later walk one more look); under it, unless
 *     blocked, it announces again (the flag may have been cleared by a
 *     take-up since the first), and takes the ring up when entries came;
 *     else it unlists the ring and clears pickup_missed (owed nothing: the
 *     flag is set, as after a take-over).  An unlisted ring's flag stays
 *     set: only wsx_rings_pickup_one() clears it, and it lists the ring
 *     first, under sq_lock, unless the session is closing (dead).  An
 *     ENTER lists an unlisted ring again, with its flag as it is (set), so
 *     that the Ms may take it up as before; it does so only once a grace
 *     period has passed since the unlisting (unlisted_gp): a node taken
 *     off an RCU list and put back at its tail sends a walk that is still
 *     on it back to the head, past the rings behind it.  A take-up lists
 *     the ring at once: the walk that it may cut short is covered by the
 *     taker's own, which comes after (it walks again before it parks), and
 *     which sees every ring listed throughout (models/pickup_cut.pml, with
 *     several rings: BUG_ENTERRELIST, an ENTER that lists at once, strands
 *     an entry).  A ring is listed at setup.
 *
 *     The rely (issue 20, finding 7; models/sqpickup.pml, -DRELY): the
 *     flag was cleared only by an M that took the ring up, so a user that
 *     ENTERs kept ENTERing while the Ms were busy and would have come.  An
 *     ENTER that queued jobs without an error (nor a full CQ) on a listed
 *     ring whose flag is set, when every P is busy (wsx_sources_busy()),
 *     lets the ring rely on the Ms (wsx_rings_rely()): the flag cleared,
 *     then wsx_sources_rely() moves the sources' generation and reads
 *     npidle again; each M walks before it parks, and one between its walk
 *     and its park sees the generation moved and walks again (source.h,
 *     the rely).  When a P went idle meanwhile, the ring does not rely:
 *     the flag set again (the announce: full barrier, the tail) and what
 *     came before it consumed in this ENTER (as the take-over does); the
 *     idle P's M, woken by what the ENTER queued, runs it.  A relied ring
 *     waits for the first M to run out of work: while another user keeps
 *     the queues fed, for as long as that lasts (the Ms ask the sources
 *     last, as Go's scheduler its poller; the monitor does not poll them),
 *     as after a take-up.  A user that waits through ENTER submits what
 *     is pending there (libwsx does); one that waits in poll() relies on
 *     the Ms.  An ENTER that queued no job (nothing consumed, or refused
 *     entries only) does not rely: each move of the generation sends the
 *     parkers round their loop once more, and only a job pays for it.
 *
 *     The order (models/pickup_order.pml): an M that takes a ring up
 *     stamps it, under sq_lock, with the next value of wsx_pickup_clock
 *     (served; a stamp only grows), and the walk chooses, among the rings
 *     with entries, the oldest stamp.  A choice whose try of sq_lock fails
 *     stamps nothing: the ring keeps its place.  Once a ring Q holds an
 *     entry pushed while its flag is clear and its sq_lock is free (its
 *     holder has left wsx_rings_unlock_sq(): until its xchg() of
 *     pickup_missed the walks skip Q, which counts as part of the hold),
 *     Q's stamp stays as it is until Q is taken up, and each take-up of
 *     another ring stamps that ring newer than Q: only a walk that read its
 *     stamp before can still prefer it, one such walk per M and ring.  So
 *     Q's entry is taken within (rings with entries - 1) x (Ms walking at
 *     once) pick-ups of other rings, each of at most WSX_SOURCE_BUDGET
 *     entries, however other sessions flood their SQs (spin finds the
 *     bound reached with 3 rings and 2 Ms).  An abandon pass (below) is
 *     the exception: it stamps Q before its try of Q's lock, and until
 *     that try the walks prefer older rings, for as long as the stopping
 *     M is delayed between the two; then it consumes Q, or the holder it
 *     met looks (from there the bound holds).  Neither a hold of sq_lock
 *     nor that window is bounded in pick-ups.  The stamps are read
 *     racily: a hint for the order, not part of the handshake.
 *
 *     Invariant: while the flag is clear, an M that will walk the list
 *     again before it parks exists, or the holder of sq_lock will look at
 *     pickup_missed after its unlock (below), or the ENTER that cleared
 *     it saw every P busy after moving the generation (the rely).  Under
 *     sq_lock, the M first tests pickup_blocked again (the walk's test is
 *     racy: another M may have set it since), and leaves the ring as it is
 *     if set.  Else it clears the flag (it walks again: the sched.c loop
 *     goes back after every pick-up) and consumes as ENTER does.  What it
 *     cannot consume (a full CQ, indices out of range, a submitter's entry
 *     - an op that starts only in its submitter, wsx_op_needs_submitter():
 *     an M works in no user's mm and cannot pin pages) it leaves with the
 *     flag set and pickup_blocked set, so the Ms skip the ring until an
 *     ENTER (which clears it under sq_lock); the flag stays set meanwhile,
 *     since every writer of a clear flag tests pickup_blocked under the
 *     lock first.
 *     If it consumed nothing for lack of entries (a consumer was first),
 *     it sets the flag again, with the same full barrier, and the next
 *     walk loads the tail.
 *
 *     An M whose P goes offline cannot hand the walk on (wsx_wakep() wakes
 *     nobody while no P is idle or an M spins): before it stops it
 *     abandons the rings (wsx_rings_abandon()), one pass, bounded by the
 *     rings listed when it begins (and setups under way then) and their
 *     SQs' sizes, however fast a user pushes.  For each ring not blocked
 *     (a full CQ, indices out of range or a submitter's entry left it to an
 *     ENTER, with the flag set) nor stamped since the pass began (visited
 *     by a pass, or taken up by an M, which walks again), stamped as it is
 *     visited, before its try (which the pass's end needs; the order's
 *     bound has that exception, above): it
 *     tries sq_lock as a pick-up does (when taken, the holder looks);
 *     under it, unless blocked, it announces (the flag set, full barrier)
 *     and then consumes once, as an M (a submitter's entry or a full CQ blocks
 *     the ring); the flag stays set, so what the user pushes afterwards it
 *     ENTERs, and pickup_missed is owed nothing: it is cleared under the
 *     lock, as the take-over does (below).  Rings set up after the pass
 *     began are stamped after it, with their flag set, and skipped.
 *
 *     Writers of the flag: the walk (set, without the lock), pickup_one,
 *     the retire, the abandon pass, the take-over and the rely (under
 *     sq_lock); a stray set only costs an ENTER.
 *
 *     An M never sleeps on sq_lock: ENTER holds it while it pins a CRC32C
 *     entry's pages, which takes as long as the user's page faults take.
 *     The M tries the lock; when it is taken, the M stores pickup_missed,
 *     takes a full barrier and tries once more; when it is still taken it
 *     leaves the ring to the holder.  Every holder but the take-over, the
 *     retire and the abandon pass (below), after its unlock, exchanges
 *     pickup_missed with 0 (xchg(): a full barrier on both sides),
 *     wsx_rings_unlock_sq().
 *     Store buffering: either the M's second try sees the lock free, or
 *     the holder sees pickup_missed.  An M holder in
 *     wsx_rings_pickup_one() walks again anyway; the abandon pass leaves
 *     the flag set and clears pickup_missed under the lock (above), as the
 *     take-over does; an ENTER holder takes the pick-up
 *     over (wsx_rings_take_over()): it consumes, announces as the walk does
 *     and consumes once more if entries came before the announce; the
 *     flag stays set (no M can clear it while the lock is held), so what
 *     the user pushes later it ENTERs itself, and what the Ms missed so
 *     far is owed nothing: it clears pickup_missed under the lock, before
 *     its unlock (an xchg() after it could swallow the next holder's
 *     miss), and takes no second pass.  A miss between that clear and the
 *     unlock stays for the next holder: the Ms skip the ring, the flag
 *     being set, until the user's next ENTER takes the pick-up over.  It
 *     takes the lock as an M does (wsx_rings_trylock_sq()): when another
 *     holder has it, that holder looks.  The walk skips a ring while
 *     pickup_missed is set.  The ENTER's thread does the Ms' work then,
 *     for entries of its own ring: one pass of two rounds, each bounded by
 *     the SQ's size, that a fatal signal does not cut short, since the
 *     file may be shared by a process that relies on the Ms.
 *
 *     An M holds a reference on the rings while it consumes outside the
 *     RCU read section; wsx_rings_quiesce() marks them dead and unlists
 *     them under sq_lock, waits for a grace period since the unlisting and
 *     for the references.
 *
 * Release: the session's closing flag, the cancel flag of every job, is
 *     set, so queued items skip their work.  wsx_rings_quiesce() then stops
 *     the pick-up (after it no M consumes an entry: dead and unlisted under
 *     sq_lock, a grace period since the unlisting, which a walk that
 *     retired an idle session made long ago, then the Ms' references),
 *     before the session's delayed items are fired at once
 *     (wsx_timers_flush()), so that no delayed item is queued behind the
 *     flush.  wsx_rings_destroy() waits
 *     until cq_tail_k == sub_total (every accepted entry posted), takes
 *     cq_lock once so that the last poster has left, then frees.
 *
 * Field tags: I = set at init, read-only afterwards; S = under sq_lock;
 * C = under cq_lock; A = atomic or lock-free
 * (llist, bitops, atomic64); P = the pick-up's missed handshake
 * ("Pick-up": set without a lock by a failed try of sq_lock, cleared by
 * xchg() after an unlock of sq_lock, or under it at the end of a take-over,
 * a retire or an abandon).  The rings are set up (I) before they are published.
 */
#include <linux/completion.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include <linux/wsx.h>

#include "fault.h"
#include "ops.h"
#include "rings.h"
#include "source.h"
#include "submit.h"

/* How long a pick-up ring stays listed after its last ENTER or take-up. */
#define WSX_PICKUP_IDLE		HZ
/* Most entries of either ring, whatever the module parameter says. */
#define WSX_RING_ENTRIES_LIMIT	65536U
/* Entries ENTER consumes between two checks for a fatal signal. */
#define WSX_ENTER_RESCHED	64
unsigned int wsx_ring_max_entries = 16384;

/*
 * The shared header: each index written by the side uapi/linux/wsx.h names,
 * on a 64-byte line of its own on every architecture.
 */
struct wsx_rings_hdr {
	u32 sq_head;
	u32 pad0[15];
	u32 sq_tail;
	u32 pad1[15];
	u32 cq_head;
	u32 pad2[15];
	u32 cq_tail;
	u32 pad3[15];
	u32 sq_flags;
	u32 pad4[15];
};

struct wsx_rings;

/* A preallocated job: one per CQ entry. */
struct wsx_rslot {
	struct wsx_job job;
	struct wsx_rings *r;		/* I */
	struct llist_node free;		/* on r->free or r->free_local */
	u64 user_data;
	u64 queued_ns;			/* 0 unless timed */
	u32 op;
	bool timed;			/* WSX_REQ_TIMESTAMPS */
	struct wsx_node root;
};

struct wsx_rings {
	void *mem;				/* I: the shared area */
	size_t size;				/* I: its mapped length */
	struct page **pages;			/* I: the area's pages */
	struct wsx_rings_hdr *hdr;		/* I */
	struct wsx_req *sqes;			/* I */
	struct wsx_completion *cqes;		/* I */
	u32 sq_entries;				/* I */
	u32 cq_entries;				/* I */
	const bool *cancel;			/* I: the session's closing */
	struct wsx_account *acct;		/* I: the session's user */
	struct wsx_uchans *chans;		/* I: the session's channels */
	struct wsx_rslot *slots;		/* I */
	bool pickup;				/* I: WSX_RING_SQ_PICKUP */
	/* S, and wsx_pickup_lock for the node: on wsx_pickup_rings */
	bool listed;
	bool dead;				/* S: closing, never listed again */
	/* S, read racily by the walk: jiffies at setup, last ENTER, take-up */
	unsigned long active;
	unsigned long unlisted_gp;		/* S: RCU's state at the unlisting */
	struct list_head pickup_node;		/* on wsx_pickup_rings */
	refcount_t refs;			/* the session's, and Ms' */
	struct completion unref;		/* refs dropped to 0 */
	/* A: the pick-up clock when an M last took the rings up (under
	 * sq_lock) or a pass of wsx_rings_abandon() visited them ("Pick-up")
	 */
	atomic64_t served;

	struct mutex sq_lock;			/* the S: fields */
	u32 sq_head_k;			/* S, read racily by the walk */
	bool pickup_blocked;		/* S, read racily: Ms wait for ENTER */
	/* P: set by whoever found sq_lock taken (wsx_rings_trylock_sq()) */
	u32 pickup_missed;
	u32 sub_total;			/* S, read by wsx_rings_destroy() */
	u32 jobs_total;			/* S: of those, queued as jobs */
	struct llist_node *free_local;		/* S */
	struct llist_head free;			/* A */

	spinlock_t cq_lock ____cacheline_aligned_in_smp;
	u32 cq_tail_k;			/* C, read (acquire) by waiters */

	u32 cq_want;				/* C */
	/* ENTER's and release's waiters: only struct wsx_cq_waiter, woken
	 * only with a struct wsx_cq_wake key (wsx_rings_wake()); joined
	 * and woken under cq_lock, left under its own lock alone
	 */
	wait_queue_head_t cq_wq;
	wait_queue_head_t *poll_wq;		/* I: the session's, poll() */
};

/*
 * Rings of WSX_RING_SQ_PICKUP sessions that the Ms walk: under RCU, written
 * under the lock ("Pick-up", the list); and how many.
 */
static LIST_HEAD(wsx_pickup_rings);
static DEFINE_SPINLOCK(wsx_pickup_lock);
static unsigned int wsx_pickup_listed;
/* Rings the walks visited, and took off the list: the stats' counters. */
static DEFINE_PER_CPU(u64, wsx_pickup_visits);
static DEFINE_PER_CPU(u64, wsx_pickup_retired);
/*
 * Ticks at each take-up (wsx_rings_pickup_one()), at the start of each
 * abandon pass and at each of its visits: see "Pick-up", the order.
 */
static atomic64_t wsx_pickup_clock = ATOMIC64_INIT(0);

/* ---- the CQ ------------------------------------------------------------ */

/* A waiter on cq_wq, for its own target tail: see "Wake once". */
struct wsx_cq_waiter {
	struct wait_queue_entry wq;
	u32 target;
};

/* What a poster's wakeup passes to wsx_rings_wake(), the key. */
struct wsx_cq_wake {
	u32 tail;	/* the tail just posted */
	u32 lowest;	/* the lowest target of the waiters left, if @left */
	bool left;
};

/*
 * cq_wq's wake function, under the queue's lock (wsx_rings_post()): wake
 * the waiter only when the tail has reached its own target, and take it
 * off the queue if it slept (autoremove_wake_function(): a running waiter
 * stays, and tests the tail itself); else count its target in the lowest
 * left.
 */
static int wsx_rings_wake(struct wait_queue_entry *wq, unsigned int mode,
			  int sync, void *key)
{
	struct wsx_cq_waiter *w = container_of(wq, struct wsx_cq_waiter, wq);
	struct wsx_cq_wake *k = key;

	if ((s32)(k->tail - w->target) >= 0)
		return autoremove_wake_function(wq, mode, sync, NULL);
	if (!k->left || (s32)(w->target - k->lowest) < 0)
		k->lowest = w->target;
	k->left = true;
	return 0;
}

/*
 * Post @rec, freeing @slot (if any) first: see "CQ" and "Wake once".  In
 * task context only (a job's done callback, in an M that ran one of its
 * items or in wsx_job_start() under sq_lock; ENTER's refusal): cq_lock is
 * never taken from an interrupt, so it is taken with interrupts on.
 */
static void wsx_rings_post(struct wsx_rings *r,
			   const struct wsx_completion *rec,
			   struct wsx_rslot *slot)
{
	u32 t;

	lockdep_assert_irqs_enabled();
	spin_lock(&r->cq_lock);
	t = r->cq_tail_k;
	memcpy(&r->cqes[t & (r->cq_entries - 1)], rec, sizeof(*rec));
	if (slot)
		llist_add(&slot->free, &r->free);
	/* release: the record and the slot's return before the tail
	 * (litmus/rings-cq-post-reap-mp, rings-post-slot-free)
	 */
	smp_store_release(&r->hdr->cq_tail, t + 1);
	wsx_fault(WSX_FAULT_POST_BETWEEN_TAILS);
	/* release: the shared tail before what waiters test (acquire;
	 * litmus/rings-post-tails-wait)
	 */
	smp_store_release(&r->cq_tail_k, t + 1);
	/*
	 * No barrier: a waiter joins cq_wq and a poller tests the tail
	 * under cq_lock, so this section either comes before theirs (they
	 * see the tail) or after (it sees them on their queues:
	 * litmus/rings-wait-post-locked, rings-poll-post-locked)
	 */
	if (waitqueue_active(&r->cq_wq) && (s32)(t + 1 - r->cq_want) >= 0) {
		struct wsx_cq_wake k = { .tail = t + 1 };

		spin_lock(&r->cq_wq.lock);
		__wake_up_locked_key(&r->cq_wq, TASK_NORMAL, &k);
		spin_unlock(&r->cq_wq.lock);
		if (k.left)
			r->cq_want = k.lowest;
	}
	/* a poller joined it before its section (wsx_rings_poll()) */
	if (waitqueue_active(r->poll_wq))
		wake_up(r->poll_wq);
	/* under the lock: wsx_rings_destroy() frees @r only after taking it */
	spin_unlock(&r->cq_lock);
}

/* The job of @slot finished: runs in an M that ran one of its items. */
static void wsx_rslot_done(struct wsx_job *job)
{
	struct wsx_rslot *slot = container_of(job, struct wsx_rslot, job);
	struct wsx_completion rec;

	if (READ_ONCE(*slot->r->cancel))
		atomic64_inc(&wsx_cancelled_jobs);
	wsx_record_fill(&rec, slot->user_data, slot->op, job, slot->queued_ns,
			slot->timed ? ktime_get_ns() : 0);
	wsx_rings_post(slot->r, &rec, slot);
}

/*
 * Is userspace's CQ head @head (loaded with acquire) in range: at most
 * cq_entries behind cq_tail_k, and not past it?  See "CQ" for the look
 * under cq_lock.
 */
static bool wsx_rings_cq_head_ok(struct wsx_rings *r, u32 head)
{
	u32 tail = READ_ONCE(r->cq_tail_k);

	if (tail - head <= r->cq_entries)
		return true;
	spin_lock(&r->cq_lock);
	tail = r->cq_tail_k;
	spin_unlock(&r->cq_lock);
	return tail - head <= r->cq_entries;
}

/* ---- ENTER: the SQ ------------------------------------------------------ */

/* A free job slot, for whoever consumes the SQ (under sq_lock). */
static struct wsx_rslot *wsx_rslot_get(struct wsx_rings *r)
{
	struct llist_node *node = r->free_local;

	lockdep_assert_held(&r->sq_lock);
	if (!node)
		node = llist_del_all(&r->free);
	if (!node)
		return NULL;
	r->free_local = node->next;
	return container_of(node, struct wsx_rslot, free);
}

static void wsx_rslot_unget(struct wsx_rings *r, struct wsx_rslot *slot)
{
	lockdep_assert_held(&r->sq_lock);
	slot->free.next = r->free_local;
	r->free_local = &slot->free;
}

/*
 * Turn one SQ entry, copied out, into a job queued in @batch or an error
 * record.
 */
static void wsx_rings_submit_one(struct wsx_rings *r, const struct wsx_req *req,
				 struct wsx_queue_batch *batch)
{
	struct wsx_completion rec;
	struct wsx_rslot *slot;
	int err;

	lockdep_assert_held(&r->sq_lock);
	err = wsx_req_check(req, WSX_REQ_TIMESTAMPS);
	if (err)
		goto refuse;
	slot = wsx_rslot_get(r);
	if (WARN_ON_ONCE(!slot)) {	/* the protocol says it cannot be */
		err = -EBUSY;
		goto refuse;
	}
	wsx_job_init(&slot->job, wsx_rslot_done);
	slot->job.cancel = r->cancel;
	slot->job.acct = r->acct;
	slot->user_data = req->user_data;
	slot->op = req->op;
	slot->timed = req->flags & WSX_REQ_TIMESTAMPS;
	wsx_submit_before_setup(req, batch);
	err = wsx_op_init(&slot->root, req, &slot->job, r->chans);
	if (err) {
		wsx_rslot_unget(r, slot);
		goto refuse;
	}
	slot->queued_ns = 0;
	if (slot->timed) {
		slot->root.item.flags |= WSX_ITEM_ROOT;	/* times the start */
		slot->queued_ns = ktime_get_ns();
	}
	wsx_submit_root(&slot->root.item, req, batch);
	wsx_job_start(&slot->job);
	r->jobs_total++;
	return;
refuse:
	memset(&rec, 0, sizeof(rec));
	rec.user_data = req->user_data;
	rec.status = err;
	wsx_rings_post(r, &rec, NULL);
}

/* Who consumes SQ entries: see "Pick-up". */
enum wsx_consumer {
	WSX_BY_ENTER,		/* ENTER's to_submit: stops for a fatal signal */
	WSX_BY_TAKE_OVER,	/* ENTER doing the Ms' part: runs to the end */
	WSX_BY_M,		/* an M: no user mm, stops at a submitter's entry */
};

/*
 * Consume up to @to_submit new SQ entries, as far as the CQ has room, with
 * sq_lock held: see "SQ" and "Backpressure" above.  An M stops at a
 * submitter's entry (*@error = -EAGAIN).  @caller_runs: an ENTER that does
 * not wait, whose caller goes on running on this CPU (struct
 * wsx_queue_batch).  Returns 0 or -EINVAL (indices out of range);
 * *@submitted and *@error as WSX_IOC_ENTER says.
 */
static int wsx_rings_consume(struct wsx_rings *r, u32 to_submit,
			     enum wsx_consumer by, bool caller_runs,
			     u32 *submitted, s32 *error)
{
	struct wsx_queue_batch batch = WSX_QUEUE_BATCH_INIT;
	u32 tail, head, n, room, i = 0;
	struct wsx_req req;
	int ret = 0;

	lockdep_assert_held(&r->sq_lock);
	batch.caller_runs = caller_runs;
	if (by == WSX_BY_ENTER)
		wsx_fault_sleep(WSX_FAULT_ENTER_IN_SQ_LOCK);
	/* acquire: pairs with userspace's release of the SQ tail
	 * (litmus/rings-sq-tail-consume-mp)
	 */
	tail = smp_load_acquire(&r->hdr->sq_tail);
	/* acquire: pairs with userspace's release of the CQ head
	 * (litmus/rings-cq-head-reuse)
	 */
	head = smp_load_acquire(&r->hdr->cq_head);
	n = tail - r->sq_head_k;
	if (n > r->sq_entries || !wsx_rings_cq_head_ok(r, head) ||
	    r->sub_total - head > r->cq_entries) {
		ret = -EINVAL;
		goto out;
	}
	room = r->cq_entries - (r->sub_total - head);
	n = min(n, to_submit);
	for (; i < n; i++) {
		if (!room--) {
			*error = -EBUSY;
			break;
		}
		if (i % WSX_ENTER_RESCHED == WSX_ENTER_RESCHED - 1) {
			if (by == WSX_BY_ENTER && fatal_signal_pending(current))
				break;
			/* the batch's items wait for no turn of ours */
			wsx_queue_batch_flush(&batch);
			cond_resched();
		}
		/* the one read of the entry */
		memcpy(&req, &r->sqes[r->sq_head_k & (r->sq_entries - 1)],
		       sizeof(req));
		if (by == WSX_BY_M && wsx_op_needs_submitter(req.op)) {
			/* forgotten: ENTER reads the entry afresh */
			*error = -EAGAIN;
			break;
		}
		WRITE_ONCE(r->sq_head_k, r->sq_head_k + 1);
		/* before the job can finish: wsx_rings_destroy() reads it */
		WRITE_ONCE(r->sub_total, r->sub_total + 1);
		/*
		 * release: the entry is copied out before userspace reuses it
		 * (litmus/rings-sq-head-reuse); and stored before the job is
		 * queued, so that its record never shows before the head
		 * covers its entry (litmus/rings-sq-head-record-mp)
		 */
		smp_store_release(&r->hdr->sq_head, r->sq_head_k);
		wsx_rings_submit_one(r, &req, &batch);
		if (by == WSX_BY_ENTER &&
		    wsx_fault_armed(WSX_FAULT_CONSUME_AFTER_SUBMIT)) {
			/* the window after an entry's job is queued */
			wsx_queue_batch_flush(&batch);
			wsx_fault_sleep(WSX_FAULT_CONSUME_AFTER_SUBMIT);
		}
	}
	wsx_queue_batch_flush(&batch);
out:
	*submitted = i;
	return ret;
}

/* Does the SQ of @r hold entries nobody consumed?  Racy: a hint. */
static bool wsx_rings_sq_pending(struct wsx_rings *r)
{
	return READ_ONCE(r->hdr->sq_tail) != READ_ONCE(r->sq_head_k);
}

/*
 * The SQ of @r looks empty: announce that no M will look again, then look
 * again (see "Pick-up").  True if entries came meanwhile.
 */
static bool wsx_rings_announce(struct wsx_rings *r)
{
	if (!(READ_ONCE(r->hdr->sq_flags) & WSX_SQ_NEED_ENTER))
		WRITE_ONCE(r->hdr->sq_flags, WSX_SQ_NEED_ENTER);
	/* StoreLoad: pairs with userspace's fence after its tail store
	 * (litmus/rings-announce-submit-sb)
	 */
	smp_mb();
	return wsx_rings_sq_pending(r);
}

/*
 * Take sq_lock without sleeping on it; when it is taken, leave the ring to
 * its holder through pickup_missed (see "Pick-up").  True if taken.
 */
static bool wsx_rings_trylock_sq(struct wsx_rings *r)
{
	if (mutex_trylock(&r->sq_lock))
		return true;
	WRITE_ONCE(r->pickup_missed, 1);
	/* StoreLoad: pairs with the xchg() of wsx_rings_unlock_sq()
	 * (litmus/rings-trylock-unlock-sb)
	 */
	smp_mb();
	return mutex_trylock(&r->sq_lock);
}

/*
 * Unlock sq_lock; true when an M found it taken meanwhile and left the
 * ring to us (see "Pick-up": xchg() orders the unlock before the load).
 */
static bool wsx_rings_unlock_sq(struct wsx_rings *r)
{
	mutex_unlock(&r->sq_lock);
	/* fully ordered: litmus/rings-trylock-unlock-sb */
	return r->pickup && xchg(&r->pickup_missed, 0);
}

/* Put @r on the Ms' list ("Pick-up", the list). */
static void wsx_rings_list(struct wsx_rings *r)
{
	lockdep_assert_held(&r->sq_lock);
	r->listed = true;
	spin_lock(&wsx_pickup_lock);
	list_add_tail_rcu(&r->pickup_node, &wsx_pickup_rings);
	WRITE_ONCE(wsx_pickup_listed, wsx_pickup_listed + 1);
	spin_unlock(&wsx_pickup_lock);
}

/* Take @r off the Ms' list, and note when ("Pick-up", the list). */
static void wsx_rings_unlist(struct wsx_rings *r)
{
	lockdep_assert_held(&r->sq_lock);
	r->listed = false;
	spin_lock(&wsx_pickup_lock);
	list_del_rcu(&r->pickup_node);
	WRITE_ONCE(wsx_pickup_listed, wsx_pickup_listed - 1);
	spin_unlock(&wsx_pickup_lock);
	/*
	 * a walk that may still be on the node began before this; and one
	 * grace period is started, so that an ENTER lists the ring again
	 * (wsx_rings_submit()) within one, even on an idle system
	 */
	r->unlisted_gp = start_poll_synchronize_rcu();
}

/*
 * Consume what the SQ holds, up to its size, for the Ms (the take-over,
 * @by WSX_BY_TAKE_OVER; an abandon pass, WSX_BY_M); false, the flag set
 * and the ring blocked, if what is left cannot be consumed.
 */
static bool wsx_rings_take_round(struct wsx_rings *r, enum wsx_consumer by)
{
	u32 submitted;
	s32 error = 0;

	lockdep_assert_held(&r->sq_lock);
	if (wsx_rings_consume(r, r->sq_entries, by, false, &submitted,
			      &error) ||
	    error) {
		WRITE_ONCE(r->hdr->sq_flags, WSX_SQ_NEED_ENTER);
		WRITE_ONCE(r->pickup_blocked, true);
		return false;
	}
	return true;
}

/*
 * An M left the pick-up of @r to this ENTER, which held sq_lock: consume,
 * announce as the walk does, and consume once more if entries came before
 * the announce; the flag is then set, so what comes later is the user's
 * to ENTER, and what the Ms missed until now is owed nothing: clear
 * pickup_missed before the unlock, not after it (an xchg() after it could
 * swallow a miss of the next holder's).  One pass, two rounds, each
 * bounded by the SQ's size, whatever the user pushes meanwhile, and no
 * fatal signal cuts them short (the file may be shared with a process
 * that relies on the Ms).  When another holder has the lock, it looks.
 */
static void wsx_rings_take_over(struct wsx_rings *r)
{
	if (!wsx_rings_trylock_sq(r))
		return;		/* the holder will look */
	if (wsx_rings_take_round(r, WSX_BY_TAKE_OVER) && wsx_rings_announce(r))
		wsx_rings_take_round(r, WSX_BY_TAKE_OVER);
	WRITE_ONCE(r->pickup_missed, 0);
	mutex_unlock(&r->sq_lock);
}

/*
 * After an ENTER consumed without an error, with @r listed: while every P
 * is busy, each M walks before it parks, so let the ring rely on the Ms
 * (the flag cleared): the user's next entries need no ENTER ("Pick-up",
 * the rely; source.h).  When a P went idle meanwhile, the flag is set
 * again and what came before that announce is consumed here, as the
 * take-over does.
 */
static void wsx_rings_rely(struct wsx_rings *r)
{
	lockdep_assert_held(&r->sq_lock);
	if (!r->listed || r->dead ||
	    !(READ_ONCE(r->hdr->sq_flags) & WSX_SQ_NEED_ENTER) ||
	    !wsx_sources_busy())
		return;
	/* published before the move: litmus/rings-rely-note-mp */
	WRITE_ONCE(r->hdr->sq_flags, 0);
	if (wsx_sources_rely())
		return;
	if (wsx_rings_announce(r))
		wsx_rings_take_round(r, WSX_BY_TAKE_OVER);
}

static int wsx_rings_submit(struct wsx_rings *r, u32 to_submit,
			    bool caller_runs, u32 *submitted, s32 *error)
{
	u32 jobs;
	int ret;

	if (mutex_lock_killable(&r->sq_lock))
		return -EINTR;
	jobs = r->jobs_total;
	ret = wsx_rings_consume(r, to_submit, WSX_BY_ENTER, caller_runs,
				submitted, error);
	/* the Ms may try again; the flag stays set unless the rely clears it */
	WRITE_ONCE(r->pickup_blocked, false);
	if (r->pickup) {
		WRITE_ONCE(r->active, jiffies);
		/* they look at it again once no walk can be on its old node */
		if (!r->listed && poll_state_synchronize_rcu(r->unlisted_gp))
			wsx_rings_list(r);
		/*
		 * an ENTER that queued no job (nothing consumed, or only
		 * refused entries) moves nothing: a loop of them cannot keep
		 * the Ms from sleeping; each move is paid for by a job
		 */
		if (!ret && !*error && r->jobs_total != jobs)
			wsx_rings_rely(r);
	}
	if (wsx_rings_unlock_sq(r))
		wsx_rings_take_over(r);
	return ret;
}

/* ---- pick-up by the Ms: the rings as a work source (source.h) ---------- */

/* The Ms skip @r: blocked (the flag is set, ENTER will come), or missed
 * (sq_lock's holder will look).
 */
static bool wsx_rings_pickup_skip(struct wsx_rings *r)
{
	return READ_ONCE(r->pickup_blocked) || READ_ONCE(r->pickup_missed);
}

/*
 * An M took @r up, or a pass of wsx_rings_abandon() visits it: the next
 * value of the pick-up clock, unless a newer one is there already (two
 * stampers may take values in one order and store them in the other).
 */
static void wsx_rings_stamp(struct wsx_rings *r)
{
	s64 now = atomic64_inc_return(&wsx_pickup_clock);
	s64 old = atomic64_read(&r->served);

	do {
		if (old >= now)
			return;
	} while (!atomic64_try_cmpxchg(&r->served, &old, now));
}

/* Drop an M's reference on @r (wsx_rings_quiesce() may wait for it). */
static void wsx_rings_unref(struct wsx_rings *r)
{
	if (refcount_dec_and_test(&r->refs))
		complete(&r->unref);
}

/* Take an M's reference on @r, found on the list under RCU. */
static struct wsx_rings *wsx_rings_ref(struct wsx_rings *r)
{
	/* never 0 while listed or a grace period from it (quiesce) */
	if (WARN_ON_ONCE(!refcount_inc_not_zero(&r->refs)))
		return NULL;
	return r;
}

/*
 * Did an ENTER or a take-up come within WSX_PICKUP_IDLE?  Racy: a hint
 * ("Pick-up", the list).  A ring idle for longer than half the range of
 * jiffies counts as idle, not as used in the future.
 */
static bool wsx_rings_used_lately(struct wsx_rings *r)
{
	unsigned long active = READ_ONCE(r->active);

	return time_in_range(jiffies, active, active + WSX_PICKUP_IDLE);
}

/* Is a pick-up ring listed?  Racy: source.h's cheap guard. */
static bool wsx_rings_source_pending(void)
{
	return !list_empty(&wsx_pickup_rings);
}

/*
 * @r needs no M: its SQ looked empty after the walk's announce, or it is
 * blocked, and it was not used for WSX_PICKUP_IDLE.  Take it off the list
 * under a plain try of sq_lock (when taken, it stays listed, announced),
 * after a second announce under the lock unless blocked ("Pick-up", the
 * list).  True when entries came before that announce: the walk takes the
 * rings up.  Called in the walk's RCU read section.
 */
static bool wsx_rings_retire(struct wsx_rings *r)
{
	bool came = false;

	if (!mutex_trylock(&r->sq_lock))
		return false;
	if (!r->pickup_blocked)
		came = wsx_rings_announce(r);
	if (!came && r->listed) {
		wsx_rings_unlist(r);
		this_cpu_inc(wsx_pickup_retired);
	}
	/* owed nothing: the flag is set (as after a take-over) */
	WRITE_ONCE(r->pickup_missed, 0);
	mutex_unlock(&r->sq_lock);
	return came;
}

/*
 * wsx_rings_pickup_find - an M with nothing to run, before it parks: the
 * WSX_RING_SQ_PICKUP session whose SQ holds entries and that the Ms took
 * up least recently; when none holds entries, announce each that is not
 * blocked, and take off the list those not used for WSX_PICKUP_IDLE
 * (wsx_rings_retire(); see "Pick-up").  Returns the rings, with a
 * reference that wsx_rings_pickup_one() drops, or NULL once every session
 * was announced (or is skipped).  The reference cannot fail
 * (wsx_rings_ref()).
 */
static void *wsx_rings_pickup_find(void)
{
	struct wsx_rings *r, *found = NULL;
	unsigned int visits = 0;
	s64 oldest = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(r, &wsx_pickup_rings, pickup_node) {
		s64 served = atomic64_read(&r->served);

		visits++;
		if (wsx_rings_pickup_skip(r) || !wsx_rings_sq_pending(r))
			continue;
		if (!found || served < oldest) {
			found = r;
			oldest = served;
		}
	}
	if (!found) {
		list_for_each_entry_rcu(r, &wsx_pickup_rings, pickup_node) {
			visits++;
			if (READ_ONCE(r->pickup_missed))
				continue;	/* sq_lock's holder looks */
			if (!READ_ONCE(r->pickup_blocked) &&
			    wsx_rings_announce(r)) {
				found = r;
				break;
			}
			/* used lately: it stays listed, announced */
			if (wsx_rings_used_lately(r))
				continue;
			if (wsx_rings_retire(r)) {
				found = r;
				break;
			}
		}
	}
	if (found)
		found = wsx_rings_ref(found);
	rcu_read_unlock();
	this_cpu_add(wsx_pickup_visits, visits);
	return found;
}

/*
 * wsx_rings_pickup_one - consume up to @budget entries of the SQ of @work
 * (the rings from wsx_rings_pickup_find(), whose reference it drops), as
 * ENTER would.  See "Pick-up".  The caller looks again before it parks.
 * What it cannot consume (a full CQ, bad indices, a submitter's entry) it
 * leaves to ENTER, with the flag set; the Ms skip the rings until the next
 * ENTER.  It never sleeps on sq_lock: when the lock is taken, the rings
 * are left to its holder.
 */
static void wsx_rings_pickup_one(void *work, unsigned int budget)
{
	struct wsx_rings *r = work;
	u32 submitted = 0;
	s32 error = 0;

	wsx_fault(WSX_FAULT_PICKUP_BEFORE_LOCK);
	if (!wsx_rings_trylock_sq(r))
		goto unref;	/* the holder will look */
	/* blocked after our walk looked: the flag is set, leave it so */
	if (r->pickup_blocked)
		goto out;
	/* closing: no M consumes any more (wsx_rings_quiesce()) */
	if (r->dead)
		goto out;
	/* a walk took it off the list: it relies on the Ms' walks again */
	if (!r->listed)
		wsx_rings_list(r);
	/* taken up: the newest of the Ms' order, under sq_lock */
	wsx_rings_stamp(r);
	WRITE_ONCE(r->active, jiffies);
	/* this M walks again before it parks: userspace need not enter */
	WRITE_ONCE(r->hdr->sq_flags, 0);
	if (wsx_rings_consume(r, budget, WSX_BY_M, false, &submitted,
			      &error) ||
	    error) {
		WRITE_ONCE(r->hdr->sq_flags, WSX_SQ_NEED_ENTER);
		WRITE_ONCE(r->pickup_blocked, true);
	} else if (!submitted) {
		/* another consumer was first: the walk's announce, again */
		wsx_rings_announce(r);
	}
out:
	/* what another M missed meanwhile, this one sees: it walks again */
	wsx_rings_unlock_sq(r);
unref:
	wsx_rings_unref(r);
}

/*
 * The next rings for wsx_rings_abandon()'s pass that began at @pass: one
 * not blocked and not stamped since (visited by this pass or another, or
 * taken up by an M that walks again), with a reference and stamped; NULL
 * when none is left.  Each call walks from the list's head (a node may be
 * unlisted while the pass consumes): a pass over N rings takes N * N / 2
 * steps of the list, all without a lock.
 */
static struct wsx_rings *wsx_rings_abandon_next(s64 pass)
{
	struct wsx_rings *r, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(r, &wsx_pickup_rings, pickup_node) {
		if (READ_ONCE(r->pickup_blocked) ||
		    atomic64_read(&r->served) >= pass)
			continue;
		found = wsx_rings_ref(r);
		if (found) {
			wsx_rings_stamp(found);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * One ring of wsx_rings_abandon(): announce, then consume once as an M
 * does; the flag stays set, so "missed" is owed nothing (as in the
 * take-over).  When sq_lock is taken, its holder looks.
 */
static void wsx_rings_abandon_one(struct wsx_rings *r)
{
	if (!wsx_rings_trylock_sq(r))
		goto unref;	/* the holder will look */
	if (!r->pickup_blocked) {
		wsx_rings_announce(r);
		wsx_rings_take_round(r, WSX_BY_M);
	}
	WRITE_ONCE(r->pickup_missed, 0);
	mutex_unlock(&r->sq_lock);
unref:
	wsx_rings_unref(r);
}

/*
 * wsx_rings_abandon - an M whose P goes offline, before it stops: one
 * pass over the pick-up rings (see "Pick-up"), each visited at most once
 * and left with the flag set unless another holds its responsibility.
 * Rings set up after the pass began are stamped after it, with the flag
 * set, and are not visited (litmus/rings-create-abandon-pass-lb).
 */
static void wsx_rings_abandon(void)
{
	s64 pass = atomic64_inc_return(&wsx_pickup_clock);
	struct wsx_rings *r;

	while ((r = wsx_rings_abandon_next(pass)))
		wsx_rings_abandon_one(r);
}

/* The stats' counters (source.h, show()). */
static void wsx_rings_source_show(struct seq_file *sf)
{
	u64 visits = 0, retired = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		/* statistics: another CPU's, read while it may add to it */
		visits += data_race(per_cpu(wsx_pickup_visits, cpu));
		/* the same */
		retired += data_race(per_cpu(wsx_pickup_retired, cpu));
	}
	seq_printf(sf, " rings_listed=%u rings_visited=%llu rings_retired=%llu",
		   READ_ONCE(wsx_pickup_listed), visits, retired);
}

const struct wsx_source wsx_rings_source = {
	.name		= "rings",
	.pending	= wsx_rings_source_pending,
	.find		= wsx_rings_pickup_find,
	.take		= wsx_rings_pickup_one,
	.abandon	= wsx_rings_abandon,
	.show		= wsx_rings_source_show,
};

/* ---- ENTER: waiting ----------------------------------------------------- */

/* Has the CQ tail reached @target? */
static bool wsx_rings_reached(struct wsx_rings *r, u32 target)
{
	/* acquire: pairs with wsx_rings_post(), the shared tail shows it
	 * (litmus/rings-post-tails-wait)
	 */
	return (s32)(smp_load_acquire(&r->cq_tail_k) - target) >= 0;
}

/*
 * Wait until cq_tail_k reaches @target, at most @timeout_ns (< 0: no
 * limit), in task @state (TASK_INTERRUPTIBLE: a signal ends it): see
 * "Wake once".  Returns 0, -ETIMEDOUT or -EINTR.
 */
static int wsx_rings_wait_tail(struct wsx_rings *r, u32 target,
			       s64 timeout_ns, unsigned int state)
{
	struct wsx_cq_waiter w = { .target = target };
	bool joined = false;
	ktime_t expires = 0;
	int ret = 0;

	if (wsx_rings_reached(r, target))
		return 0;
	init_wait(&w.wq);
	w.wq.func = wsx_rings_wake;
	if (timeout_ns >= 0)
		expires = ktime_add_safe(ktime_get(), ns_to_ktime(timeout_ns));
	for (;;) {
		bool reached;

		/* a wake takes a waiter off under cq_lock (wsx_rings_post()) */
		spin_lock(&r->cq_lock);
		if (list_empty(&w.wq.entry)) {
			if (joined) {
				/* only a wake that found the target reached
				 * takes the waiter off
				 */
				spin_unlock(&r->cq_lock);
				break;
			}
			/*
			 * nobody joins meanwhile; a waiter that leaves
			 * (finish_wait(), without cq_lock) may leave the
			 * queue looking active: a lower cq_want than
			 * needed, one wake that finds nobody
			 */
			if (!waitqueue_active(&r->cq_wq) ||
			    (s32)(target - r->cq_want) < 0)
				r->cq_want = target;
			add_wait_queue(&r->cq_wq, &w.wq);
			joined = true;
		}
		set_current_state(state);
		/* under cq_lock: see "Wake once" (litmus/rings-wait-post-locked) */
		reached = (s32)(r->cq_tail_k - target) >= 0;
		spin_unlock(&r->cq_lock);
		if (reached)
			break;
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			break;
		}
		if (timeout_ns < 0) {
			schedule();
		} else if (!schedule_hrtimeout(&expires, HRTIMER_MODE_ABS)) {
			ret = wsx_rings_reached(r, target) ? 0 : -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&r->cq_wq, &w.wq);
	return ret;
}

/* Wait until @min records are ready to read: see "Wake once" above. */
static int wsx_rings_wait(struct wsx_rings *r, u32 min, s64 timeout_ns)
{
	u32 head;

	/*
	 * acquire, as everywhere the CQ head is read, though nothing here
	 * needs it: the head only gives the target (no litmus test; the one
	 * that needs it is wsx_rings_consume()'s, rings-cq-head-reuse)
	 */
	head = smp_load_acquire(&r->hdr->cq_head);
	if (!wsx_rings_cq_head_ok(r, head))
		return -EINVAL;
	return wsx_rings_wait_tail(r, head + min, timeout_ns,
				   TASK_INTERRUPTIBLE);
}

/**
 * wsx_rings_enter - WSX_IOC_ENTER, on a copy of its argument
 * @r:		the session's rings
 * @e:		the copy; @e->submitted and @e->error are set
 *
 * Return: 0, or -errno as WSX_IOC_ENTER documents.
 */
long wsx_rings_enter(struct wsx_rings *r, struct wsx_enter *e)
{
	int ret;

	e->submitted = 0;
	e->error = 0;
	if (e->flags || e->reserved)
		return -EINVAL;
	if (e->min_complete > r->cq_entries)
		return -E2BIG;
	if (e->to_submit) {
		/* without min_complete the caller goes on running */
		ret = wsx_rings_submit(r, e->to_submit, !e->min_complete,
				       &e->submitted, &e->error);
		if (ret)
			return ret;
	}
	return e->min_complete ?
	       wsx_rings_wait(r, e->min_complete, e->timeout_ns) : 0;
}

/* ---- setup, mmap, poll, release ----------------------------------------- */

/*
 * Check @setup and fill in its cq_entries (0 = 2 x sq_entries, at most the
 * largest power of two within the limit: an SQ at the limit with the
 * default CQ is allowed, whatever ring_max_entries is set to).
 */
static int wsx_rings_check(struct wsx_ring_setup *setup)
{
	u32 max = min(READ_ONCE(wsx_ring_max_entries), WSX_RING_ENTRIES_LIMIT);

	if ((setup->flags & ~WSX_RING_SQ_PICKUP) || setup->reserved0 ||
	    memchr_inv(setup->reserved, 0, sizeof(setup->reserved)) ||
	    !is_power_of_2(setup->sq_entries))
		return -EINVAL;
	if (setup->sq_entries > max)
		return -E2BIG;
	/* no overflow: max <= 65536; max >= sq_entries >= 1 */
	if (!setup->cq_entries)
		setup->cq_entries = min(2 * setup->sq_entries,
					(u32)rounddown_pow_of_two(max));
	if (!is_power_of_2(setup->cq_entries) ||
	    setup->cq_entries < setup->sq_entries)
		return -EINVAL;
	if (setup->cq_entries > max)
		return -E2BIG;
	return 0;
}

/* Lay the area out; fill in @setup's offsets and size. */
static void wsx_rings_layout(struct wsx_rings *r,
			     struct wsx_ring_setup *setup)
{
	size_t sqes = ALIGN(sizeof(struct wsx_rings_hdr), 64);
	size_t cqes = sqes + (size_t)r->sq_entries * sizeof(struct wsx_req);

	r->size = PAGE_ALIGN(cqes + (size_t)r->cq_entries *
			     sizeof(struct wsx_completion));
	setup->mmap_size = r->size;
	setup->sq_head = offsetof(struct wsx_rings_hdr, sq_head);
	setup->sq_tail = offsetof(struct wsx_rings_hdr, sq_tail);
	setup->cq_head = offsetof(struct wsx_rings_hdr, cq_head);
	setup->cq_tail = offsetof(struct wsx_rings_hdr, cq_tail);
	setup->sq_flags = offsetof(struct wsx_rings_hdr, sq_flags);
	setup->sqes = sqes;
	setup->cqes = cqes;
}

/* What the rings allocate for their user, charged to its memory cgroup. */
#define WSX_RINGS_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Allocate the shared area's pages, zeroed, and map them for the kernel. */
static int wsx_rings_alloc_mem(struct wsx_rings *r)
{
	unsigned long i, n = r->size >> PAGE_SHIFT;

	r->pages = kvcalloc(n, sizeof(*r->pages), WSX_RINGS_GFP);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r->pages[i] = alloc_page(WSX_RINGS_GFP | __GFP_HIGHMEM |
					 __GFP_ZERO);
		if (!r->pages[i])
			return -ENOMEM;
	}
	/* VM_USERMAP: wsx_rings_mmap() maps it with remap_vmalloc_range() */
	r->mem = vmap(r->pages, n, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	return r->mem ? 0 : -ENOMEM;
}

/* Free what wsx_rings_create() allocated, whatever it got to. */
static void wsx_rings_free(struct wsx_rings *r)
{
	unsigned long i;

	if (r->mem)
		vunmap(r->mem);
	/* a user mapping keeps its own reference on each page */
	for (i = 0; r->pages && i < r->size >> PAGE_SHIFT && r->pages[i]; i++)
		__free_page(r->pages[i]);
	kvfree(r->pages);
	vfree(r->slots);
	kfree(r);
}

/**
 * wsx_rings_create - WSX_IOC_RING_SETUP, on a copy of its argument
 * @setup:	the copy; its out fields are filled
 * @cancel:	the session's closing flag, the cancel flag of its jobs
 * @poll_wq:	the session's queue of poll() sleepers
 * @acct:	the session's account, for its items (account.c)
 * @chans:	the session's channels, for its SEND and RECV (uchan.c)
 *
 * Return: the rings, or an ERR_PTR of the errors WSX_IOC_RING_SETUP lists.
 */
struct wsx_rings *wsx_rings_create(struct wsx_ring_setup *setup,
				   const bool *cancel,
				   wait_queue_head_t *poll_wq,
				   struct wsx_account *acct,
				   struct wsx_uchans *chans)
{
	struct wsx_rings *r;
	u32 i;
	int ret;

	ret = wsx_rings_check(setup);
	if (ret)
		return ERR_PTR(ret);
	ret = wsx_inflight_reserve(setup->cq_entries);
	if (ret)
		return ERR_PTR(ret);
	r = kzalloc(sizeof(*r), WSX_RINGS_GFP);
	if (!r)
		goto nomem;
	r->sq_entries = setup->sq_entries;
	r->cq_entries = setup->cq_entries;
	r->cancel = cancel;
	r->poll_wq = poll_wq;
	r->acct = acct;
	r->chans = chans;
	wsx_rings_layout(r, setup);
	/* not kvcalloc(): its kmalloc would retry hard for a large block */
	r->slots = __vmalloc(array_size(r->cq_entries, sizeof(*r->slots)),
			     WSX_RINGS_GFP | __GFP_ZERO);
	if (!r->slots || wsx_rings_alloc_mem(r)) {
		wsx_rings_free(r);
		goto nomem;
	}
	r->hdr = r->mem;
	r->sqes = r->mem + setup->sqes;
	r->cqes = r->mem + setup->cqes;
	init_llist_head(&r->free);
	mutex_init(&r->sq_lock);
	spin_lock_init(&r->cq_lock);
	init_waitqueue_head(&r->cq_wq);
	r->pickup = setup->flags & WSX_RING_SQ_PICKUP;
	/* the lock of the free list and the Ms' list, though nobody else
	 * knows the rings yet
	 */
	mutex_lock(&r->sq_lock);
	for (i = 0; i < r->cq_entries; i++) {
		r->slots[i].r = r;
		wsx_rslot_unget(r, &r->slots[i]);
	}
	if (r->pickup) {
		/* no M has looked yet */
		r->hdr->sq_flags = WSX_SQ_NEED_ENTER;
		refcount_set(&r->refs, 1);
		init_completion(&r->unref);
		/*
		 * stamped with the clock as it is set up: a pass of
		 * wsx_rings_abandon() whose tick this read sees skips it;
		 * one whose tick it does not see (a setup under way when
		 * the pass began) visits it if it is listed before the
		 * pass's last walk.  Skipped, its flag is set, as no M has
		 * looked.  A ring an M found listed (and whose flag it
		 * cleared) before the pass began cannot carry the pass's
		 * tick, so the pass visits it
		 * (litmus/rings-create-abandon-pass-lb).
		 */
		atomic64_set(&r->served, atomic64_read(&wsx_pickup_clock));
		r->active = jiffies;
		wsx_rings_list(r);
	}
	mutex_unlock(&r->sq_lock);
	return r;
nomem:
	wsx_inflight_unreserve(setup->cq_entries);
	return ERR_PTR(-ENOMEM);
}

/**
 * wsx_rings_quiesce - stop the Ms' pick-up of @r: no M consumes after it
 * @r:		the rings; the session is closing, nobody calls ENTER
 *
 * For release, before it fires the session's delayed items (see
 * "Release"); wsx_rings_destroy() calls it too.  Idempotent.
 */
void wsx_rings_quiesce(struct wsx_rings *r)
{
	/*
	 * dead: written by this thread alone (a second call comes from
	 * wsx_rings_destroy(), after this one); unlisted_gp: by this thread
	 * alone once dead is set under sq_lock, below
	 */
	if (!r->pickup || r->dead)
		return;
	mutex_lock(&r->sq_lock);
	r->dead = true;
	if (r->listed)
		wsx_rings_unlist(r);
	mutex_unlock(&r->sq_lock);
	/*
	 * No M finds the rings any more once a grace period has passed since
	 * they left the list: none to wait for when a walk took an idle
	 * session off long ago.
	 */
	cond_synchronize_rcu(r->unlisted_gp);
	if (!refcount_dec_and_test(&r->refs))
		wait_for_completion(&r->unref);
}

/**
 * wsx_rings_destroy - free the rings once every accepted job has posted
 * @r:		the rings; the session is closing, nobody calls ENTER
 */
void wsx_rings_destroy(struct wsx_rings *r)
{
	u32 all;

	wsx_rings_quiesce(r);
	all = READ_ONCE(r->sub_total);
	wsx_rings_wait_tail(r, all, -1, TASK_UNINTERRUPTIBLE);
	/* the last poster wakes us under the lock: let it leave */
	spin_lock(&r->cq_lock);
	spin_unlock(&r->cq_lock);
	wsx_inflight_unreserve(r->cq_entries);
	wsx_rings_free(r);
}

/**
 * wsx_rings_mmap - map the rings into userspace
 * @r:		the rings
 * @vma:	at offset WSX_RING_MMAP_OFF, at most the rings' size
 *
 * Return: 0, or -EINVAL for another offset, a longer or a private mapping.
 */
int wsx_rings_mmap(struct wsx_rings *r, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED) ||
	    vma->vm_pgoff != WSX_RING_MMAP_OFF >> PAGE_SHIFT ||
	    vma->vm_end - vma->vm_start > r->size)
		return -EINVAL;
	return remap_vmalloc_range(vma, r->mem, 0);
}

/**
 * wsx_rings_poll - poll(): are records ready to read in the CQ?
 * @r:		the rings; the caller is on the session's wait queue already
 *		(wsx_session_poll()): the tail is read under cq_lock, after joining it
 */
bool wsx_rings_poll(struct wsx_rings *r)
{
	u32 tail;

	/* under cq_lock: see "Wake once" (litmus/rings-poll-post-locked) */
	spin_lock(&r->cq_lock);
	tail = r->cq_tail_k;
	spin_unlock(&r->cq_lock);
	return (s32)(tail - READ_ONCE(r->hdr->cq_head)) > 0;
}
