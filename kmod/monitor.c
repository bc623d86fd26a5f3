// SPDX-License-Identifier: GPL-2.0
/*
 * wsx monitor: notices a P stuck on one item, as Go's sysmon notices a G
 * running for 10 ms and the workqueue a CPU-intensive work item.
 *
 * A delayed work runs every long_item_ms / 2 while any P is busy and goes
 * to sleep when the executor is idle (an M waking from park re-arms it).
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
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "monitor.h"
#include "sched.h"

unsigned int wsx_long_item_ms = 10;
module_param_named(long_item_ms, wsx_long_item_ms, uint, 0644);
MODULE_PARM_DESC(long_item_ms, "Hand a P stuck this long on one item to another M (0: off)");

static atomic_t wsx_monitor_armed = ATOMIC_INIT(0);
static void wsx_monitor_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(wsx_monitor_work, wsx_monitor_fn);

static unsigned long wsx_monitor_period(unsigned int ms)
{
	return max(msecs_to_jiffies(ms) / 2, 1UL);
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

static void wsx_monitor_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(wsx_long_item_ms), id;
	bool running = false;

	for (id = 0; ms && id < wsx_sched.nprocs; id++)
		running |= wsx_monitor_check(wsx_sched.ps[id],
					     (u64)ms * NSEC_PER_MSEC);
	if (ms && (running || wsx_busy())) {
		schedule_delayed_work(&wsx_monitor_work,
				      wsx_monitor_period(ms));
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
	unsigned int ms = READ_ONCE(wsx_long_item_ms);

	if (!ms)
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
	schedule_delayed_work(&wsx_monitor_work, wsx_monitor_period(ms));
}

/**
 * wsx_monitor_stop - module exit, once no M can kick it any more
 */
void wsx_monitor_stop(void)
{
	cancel_delayed_work_sync(&wsx_monitor_work);
}
