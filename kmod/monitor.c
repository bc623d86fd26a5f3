// SPDX-License-Identifier: GPL-2.0
/*
 * wsx monitor: notices a P stuck on one item, as Go's sysmon notices a G
 * running for 10 ms and the workqueue a CPU-intensive work item.
 *
 * A delayed work runs every long_item_ms / 2 while any P is busy and goes
 * to sleep when the executor is idle (an M waking from park re-arms it);
 * with long_item_ms at 0 it runs for the wasted-cores check alone (below).
 * For each P it looks at the item running now (cur_seq, and cur_runtime, the
 * CPU time its M had used when it started, written by the P's owner); an
 * item that has used more than long_item_ms of CPU - CPU time, not wall
 * time, as the workqueue's CPU-intensive detection, so that an M merely
 * waiting for its CPU is not blamed - is counted (long_items) and its M
 * asked to hand the P to another M (handoff_req).  The M does so at its next
 * wsx_cond_handoff() - the built-in SPIN calls it every ms - so the items
 * queued behind the long one run on another M while the kernel's scheduler
 * shares the CPU between the two (rescued).  An item that never calls into
 * wsx cannot be rescued before it returns.
 *
 * Wasted cores.  The same work checks Lozi et al.'s invariant ("The Linux
 * Scheduler: a Decade of Wasted Cores") in wsx's terms, docs/wasted.md:
 * no P idle for longer than waste_ms while an item it could take has
 * waited longer than waste_ms.  At its first run at least waste_ms after
 * its last look, the work looks again, and compares:
 *   - each online P: idle now and then (its bit in wsx_sched.pidle), with
 *     the same idle_gen (wsx_m_idle_p() counts each idle period), was idle
 *     all the time between;
 *   - each place where items wait for any P (every P's runq and inbox, every
 *     global queue; under steal_policy=none only the idle P's own and the
 *     global queues): "out", a count that grows only as items leave, in
 *     the order they came (the runq's head; the queue's gets), grew by
 *     less than the depth then, so an item that was in line then still
 *     is and waited all the time between: a queue that keeps moving but
 *     stays deep counts, not only one whose first item stays.  The inbox,
 *     which each drain and steal empties, counts by inbox_takes (a thief
 *     that gives some back errs towards silence): the same count, not
 *     empty then and now.  A busy P's runnext and backlog are left out,
 *     as thieves leave them.
 * Both at once is a violation: wasted_checks counts the looks that found
 * one, wasted_ms the time between the two looks (the waste's lower bound),
 * the tracepoint wsx_wasted names the idle P and the place; a WSX_DEBUG
 * build logs the first with both sides' state.  The looks are racy reads,
 * no lock and no barrier but one (wsx_waste_idle()), but for each global
 * queue's pair, read under its lock (wsx_gq_sample()): nothing in the
 * scheduler depends on them.  The work sleeps once every P is idle and
 * the global queues are empty.  An item stranded on a global queue while
 * it runs keeps it running, and is counted; a wakeup lost while it sleeps
 * (every P idle already) kicks nothing, and is not seen; nor is an item
 * stranded in an idle P's own runq or inbox with every P idle.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "monitor.h"
#include "queue.h"
#include "sched.h"
#include "wsx_trace.h"

unsigned int wsx_long_item_ms = 10;
module_param_named(long_item_ms, wsx_long_item_ms, uint, 0644);
MODULE_PARM_DESC(long_item_ms, "Hand a P stuck this long on one item to another M (0: off)");

static unsigned int wsx_waste_ms = 2;
module_param_named(waste_ms, wsx_waste_ms, uint, 0644);
MODULE_PARM_DESC(waste_ms, "Count a P idle this long while an item waited this long (0: off)");

/* "Wasted cores": added to by the work, read and zeroed by the stats */
static atomic64_t wsx_wasted_checks = ATOMIC64_INIT(0);
static atomic64_t wsx_wasted_ns = ATOMIC64_INIT(0);
static u64 wsx_waste_look_ns;	/* the work's: the last look, 0 before any */

static atomic_t wsx_monitor_armed = ATOMIC_INIT(0);
static void wsx_monitor_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(wsx_monitor_work, wsx_monitor_fn);

/*
 * The work's period, in jiffies, for these values of long_item_ms and
 * waste_ms (0: both its jobs off): half of long_item_ms, or just over
 * waste_ms when the rescue is off; a look needs waste_ms between looks, so
 * the check never makes the work run more often than the rescue does.
 */
static unsigned long wsx_monitor_period(unsigned int long_ms,
					unsigned int waste_ms)
{
	if (long_ms)
		return max(msecs_to_jiffies(long_ms) / 2, 1UL);
	/* a delay of n jiffies may end after n - 1 ticks: one more */
	return waste_ms ? msecs_to_jiffies(waste_ms) + 1 : 0;
}

static bool wsx_busy(void)
{
	return atomic_read(&wsx_sched.npidle) <
	       atomic_read(&wsx_sched.nponline);
}

/* Flag @p's running item if it has run too long; true if one is running. */
static bool wsx_monitor_check(struct wsx_p *p, u64 limit_ns)
{
	struct wsx_m *m;
	u64 used;
	u32 seq;

	if (!READ_ONCE(p->cur))
		return false;
	/* acquire: pairs with the owner's release; cur_runtime below
	 * (litmus/execute-monitor-seq-mp)
	 */
	seq = smp_load_acquire(&p->cur_seq);
	if (seq == p->mon_seq)
		return true;
	/* under RCU: the holder read may be a spare M being reaped */
	rcu_read_lock();
	m = READ_ONCE(p->m);
	/* racy by nature: the scheduler updates it at ticks and switches */
	used = data_race(m->task->se.sum_exec_runtime) -
	       READ_ONCE(p->cur_runtime);
	/*
	 * The P may have changed holder or item since @seq was read, making
	 * @used meaningless: flag only if the same item still runs, and name
	 * it in the request, which its M checks (wsx_cond_handoff()).
	 */
	smp_rmb();	/* the reads above before the second look at cur_seq */
	if ((s64)used >= (s64)limit_ns && READ_ONCE(p->cur) &&
	    READ_ONCE(p->cur_seq) == seq) {
		p->mon_seq = seq;
		atomic64_inc(&p->stats.long_items);
		WRITE_ONCE(m->handoff_p, p);
		WRITE_ONCE(m->handoff_seq, seq);
		/* release: the seq before the request; wsx_cond_handoff()
		 * (litmus/monitor-check-handoff-mp)
		 */
		smp_store_release(&m->handoff_req, true);
	}
	rcu_read_unlock();
	return true;
}

/*
 * Look at one place again: true when fewer items left it since the last
 * look than were in line then, so that one of those is still waiting.
 * @out counts the items that left, in the order they were queued; @depth
 * is how many wait now.  An inbox, which each take empties, passes 1 for
 * "not empty", so only a take that did not happen keeps an item waiting.
 */
static bool wsx_waste_seen(struct wsx_waste_seen *seen, u32 out, u32 depth)
{
	bool still = depth && out - seen->out < seen->depth;

	seen->out = out;
	seen->depth = depth;
	return still;
}

/* A P's runq and inbox, looked at again: the first still waiting, or -1. */
static int wsx_waste_p(struct wsx_p *p)
{
	u32 head = READ_ONCE(p->runq.head);
	bool runq, inbox;

	/* the length read after the head errs short: towards silence */
	runq = wsx_waste_seen(&p->seen_runq, head, wsx_runq_len(&p->runq));
	inbox = wsx_waste_seen(&p->seen_inbox, atomic_read(&p->inbox_takes),
			       !llist_empty(&p->inbox));
	return runq ? WSX_WASTE_RUNQ : inbox ? WSX_WASTE_INBOX : -1;
}

/* A P looked at again: true when it was idle all the time between. */
static bool wsx_waste_idle(struct wsx_p *p)
{
	bool idle = READ_ONCE(p->want_online) &&
		    test_bit(p->id, wsx_sched.pidle);
	bool still;
	u32 gen;

	/*
	 * The bit before idle_gen: wsx_m_idle_p() counts the period before it
	 * sets the bit (smp_mb__before_atomic()), so a bit seen set comes
	 * with its own period's count, not the last one's
	 * (litmus/waste-idle-gen-mp)
	 */
	smp_rmb();
	gen = READ_ONCE(p->idle_gen);
	still = idle && p->seen_idle && gen == p->seen_idle_gen;

	p->seen_idle = idle;
	p->seen_idle_gen = gen;
	return still;
}

/* Log the first violation with both sides' state (WSX_DEBUG builds). */
#ifdef WSX_DEBUG
static void wsx_waste_report(struct wsx_p *idle, int place, int where)
{
	static bool done;
	char what[64];

	if (done)
		return;
	done = true;
	if (place == WSX_WASTE_GLOBAL)
		snprintf(what, sizeof(what), "global queue %d (%u items in all)",
			 where, wsx_gq_len_all());
	else
		snprintf(what, sizeof(what), "P%d's %s (P%d: %u items)", where,
			 place == WSX_WASTE_RUNQ ? "runq" : "inbox", where,
			 wsx_p_depth(wsx_sched.ps[where]));
	pr_info("wasted core: P%u idle (idle_gen %u) while %s kept an item waiting; nmspinning %d npidle %d\n",
		idle->id, READ_ONCE(idle->idle_gen), what,
		atomic_read(&wsx_sched.nmspinning),
		atomic_read(&wsx_sched.npidle));
}
#else
static inline void wsx_waste_report(struct wsx_p *idle, int place, int where)
{
}
#endif

/*
 * The wasted-cores check (see above): look again at every P and place if
 * waste_ms passed since the last look, and count a violation.
 */
static void wsx_waste_look(unsigned int ms)
{
	u64 now = ktime_get_ns(), since = now - wsx_waste_look_ns;
	bool own = wsx_sched.steal_policy == WSX_STEAL_NONE;
	int idle = -1, place = -1, where = -1, got;
	unsigned int id, q;

	if (wsx_waste_look_ns && since < (u64)ms * NSEC_PER_MSEC)
		return;
	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];
		bool p_idle = wsx_waste_idle(p);

		if (p_idle && idle < 0)
			idle = id;
		got = wsx_waste_p(p);
		if (got < 0 || place >= 0 || (own && !p_idle))
			continue;
		place = got;
		where = id;
		if (own)	/* only its own P could take it */
			idle = id;
	}
	for (q = 0; q < wsx_sched.ngq; q++) {
		struct wsx_gqueue *gq = &wsx_sched.gq[q];
		unsigned int len;
		u64 gets;

		wsx_gq_sample(gq, &gets, &len);
		if (wsx_waste_seen(&gq->seen, (u32)gets, len) && place < 0) {
			place = WSX_WASTE_GLOBAL;
			where = q;
		}
	}
	if (wsx_waste_look_ns && idle >= 0 && place >= 0) {
		atomic64_inc(&wsx_wasted_checks);
		atomic64_add(since, &wsx_wasted_ns);
		trace_wsx_wasted(idle, place, where,
				 div_u64(since, NSEC_PER_USEC));
		wsx_waste_report(wsx_sched.ps[idle], place, where);
	}
	wsx_waste_look_ns = now;
}

/**
 * wsx_monitor_wasted - the wasted-cores check's counters, for the stats
 * @checks:	looks that found a violation
 * @ms:		the time they covered
 */
void wsx_monitor_wasted(u64 *checks, u64 *ms)
{
	*checks = atomic64_read(&wsx_wasted_checks);
	*ms = div_u64(atomic64_read(&wsx_wasted_ns), NSEC_PER_MSEC);
}

/* The stats' reset: zero the wasted-cores counters. */
void wsx_monitor_reset_wasted(void)
{
	atomic64_set(&wsx_wasted_checks, 0);
	atomic64_set(&wsx_wasted_ns, 0);
}

static void wsx_monitor_fn(struct work_struct *work)
{
	unsigned int long_ms = READ_ONCE(wsx_long_item_ms);
	unsigned int waste_ms = READ_ONCE(wsx_waste_ms), id;
	unsigned long period = wsx_monitor_period(long_ms, waste_ms);
	bool running = false;

	for (id = 0; long_ms && id < wsx_sched.nprocs; id++)
		running |= wsx_monitor_check(wsx_sched.ps[id],
					     (u64)long_ms * NSEC_PER_MSEC);
	if (waste_ms)
		wsx_waste_look(waste_ms);
	/*
	 * Items on a global queue with every P idle: a lost wakeup that left
	 * no M to kick the work; stay to count it
	 */
	if (period && (running || wsx_busy() ||
		       (waste_ms && atomic_read(&wsx_sched.npidle) &&
			wsx_gq_len_all()))) {
		schedule_delayed_work(&wsx_monitor_work, period);
		return;
	}
	atomic_set(&wsx_monitor_armed, 0);
	/*
	 * Full barrier: disarmed before wsx_busy() looks at npidle and
	 * nponline again, against a kicker's P claimed or brought online
	 * before its look at armed (store buffering; litmus/monitor-disarm-kick-sb,
	 * monitor-disarm-wake-kick-sb, monitor-disarm-online-kick-sb).
	 * smp_mb__after_atomic() would order nothing after an atomic_set().
	 */
	smp_mb();
	if (wsx_busy())
		wsx_monitor_kick();
}

/**
 * wsx_monitor_kick - the executor got busy: make sure the monitor runs
 */
void wsx_monitor_kick(void)
{
	unsigned long period = wsx_monitor_period(READ_ONCE(wsx_long_item_ms),
						  READ_ONCE(wsx_waste_ms));

	if (!period)
		return;
	/*
	 * Full barrier: what made the executor busy (a P's idle bit claimed,
	 * npidle decremented, by the caller or by the waker that set its
	 * woken; a P brought online, nponline incremented) before armed is
	 * read.  Pairs with wsx_monitor_fn()'s after its disarm: without it
	 * the two can each miss the other's store, and the monitor sleeps
	 * while a P runs, a long item unrescued until the next kick
	 * (litmus/monitor-disarm-kick-sb, monitor-disarm-wake-kick-sb,
	 * monitor-disarm-online-kick-sb).
	 */
	smp_mb();
	if (atomic_read(&wsx_monitor_armed) ||
	    atomic_xchg(&wsx_monitor_armed, 1))
		return;
	schedule_delayed_work(&wsx_monitor_work, period);
}

/**
 * wsx_monitor_stop - module exit, once no M can kick it any more
 */
void wsx_monitor_stop(void)
{
	cancel_delayed_work_sync(&wsx_monitor_work);
}
