// SPDX-License-Identifier: GPL-2.0
/*
 * wsx scheduler: Ps and Ms - finding work, waking, spinning and parking,
 * the M loop, CPU hotplug.  Where items live and how they are queued is
 * queue.c's ("Where runnable items live"), taking them from other Ps
 * steal.c's.
 *
 * The model is the Go runtime's.  A P (logical processor) owns the runnable
 * work of one CPU; an M (a kthread "wsx/<n>") runs items only while it holds
 * a P.  There is one P per online CPU by default (module parameter nprocs),
 * and one M per P to start with; an M holding a P runs on the P's CPU
 * (but the last online P's, see "CPU hotplug").  Ms
 * beyond those come and go with blocking sections (handoff.c), so which M
 * holds a P changes: p->m is its current holder.
 *
 * Finding work (wsx_find_runnable), in order:
 *  - every global_tick-th (61st) schedule tick, first the P itself to an M
 *    that left a blocking section and waits for a P (wsx_m_yield_p(), the
 *    bound of its wait), then one item from the global queue (the P's
 *    node's), so that neither can starve behind busy local queues.  With
 *    per-node queues every 8th such check looks first at another node's
 *    queue, the other nodes in turn, so that a node whose Ps are all busy
 *    (or offline) does not hold its queue for good;
 *  - runnext, then the runq.  A runnext item inherits the tick of the item
 *    that spawned it, as Go's inheritTime, so that a parent and its child
 *    count as one tick.  Go bounds such chains by preempting after 10 ms;
 *    wsx cannot preempt an item, so it bounds them by count: after
 *    WSX_RUNNEXT_CHAIN_MAX (64) runnext picks in a row the next pick takes
 *    the runq's head (or the global queue) and starts a new tick.  So an
 *    item at the head of the runq starts within 65 picks, and an item in
 *    the global queue within global_tick ticks of at most 65 picks each.
 *    With per-node queues, an item at the head of a node's queue starts
 *    within global_tick ticks of any running P of that node, and within
 *    8 * (nnodes - 1) * global_tick ticks of any running P of another
 *    node (each such P's turn comes round to every other node in
 *    nnodes - 1 of its remote looks): with 2 nodes and the default, 488
 *    ticks of at most 65 picks each.  So the queue of a node whose Ps are
 *    all busy, or all offline (a whole node's hotplug drain), empties at
 *    one item per 488 ticks of each other node's busy Ps - and at once
 *    when one of them runs dry and takes a batch;
 *    A chain ends anyway at an item that spawns nothing, so the bound only
 *    matters for paths longer than 64; a small bound would, in deep spawn
 *    trees, take the runq's oldest (largest) subtrees early and turn the
 *    depth-first walk breadth-first, overflowing the runq;
 *  - a batch from the global queue: min(len, len / online Ps + 1, 128);
 *    with per-node queues, from the P's node's queue, and only when that
 *    is empty from the other nodes' queues, nearest first (node_near);
 *  - steal (wsx_steal_work(), steal.c): up to steal_tries rounds over the
 *    other Ps, nearest first; a round in which no victim showed anything
 *    ends the search;
 *  - park, rechecking the queues once after announcing it (below).
 *
 * Spinning and parking
 * --------------------
 * An M that looks for work to steal is "spinning", counted in nmspinning.
 * At most half of the busy Ps may have a spinning M (2 * nmspinning <
 * online - idle, wsx_may_spin(); Ms woken spinning by racing queuers may
 * exceed it for a while), so idle CPUs do not all hammer the same victims.  An M
 * that finds work while spinning stops spinning and, if it was the last
 * spinning M, wakes another (wsx_wakep()) because more work may be queued.
 * Whoever queues work calls wsx_wakep() (after an inbox put, wsx_wake_p(),
 * which first tries the P's own idle bit - unless its caller runs on, below
 * - then the same search after the same barrier): if no M is spinning and
 * a P is idle, it claims
 * that P's idle bit - the idle P nearest the work: the P holding it, then
 * that P's victim order; for a global queue the search starts at the
 * queuing CPU's P; a submitter's own CPU's P is tried last, as its M
 * would wait for that CPU, and so is the P a submitter that runs on
 * queued on when it is its own CPU's (struct wsx_queue_batch's
 * caller_runs: the other M steals the items from the inbox)
 * (wsx_pidle_get(), wsx_p_busy_here(); counted by distance in the stats'
 * wakes_<level>) - then counts the M as spinning and wakes
 * it (a count before the claim would tell other queuers an M searches when
 * none may: N4 of models/README.md).  An owner that puts items in its own
 * runq from a global batch or its inbox calls it too when more than the
 * item it runs next are queued there (wsx_runq_added(), N2): they were
 * nowhere a parker looks while in its hands.
 *
 * The lost-wakeup race is the one Go's findRunnable describes: a queuer that
 * sees an M spinning does not wake anybody, trusting that M to find the
 * item; the M may be about to give up.  Both sides therefore do a store, a
 * full barrier (StoreLoad), then a load:
 *   queuer:  put the item;            smp_mb(); read nmspinning and npidle
 *   parker:  nmspinning--, P idle;   smp_mb(); read the queues
 * (litmus/wakep-park-sb; through an inbox, litmus/inbox-put-park-sb).
 * At least one of them sees the other's store: either the queuer sees the
 * parker idle and not spinning and wakes it, or the parker sees the item and
 * takes its P back.  A put into an empty runnext (wsx_put_next(): a spawn,
 * or a ready from an M) is a fully ordered xchg(), which is the queuer's
 * barrier already (wsx_wakep_ordered(), litmus/runnext-put-wakep-park-sb).
 * The parker reads the length of every node's global
 * queue, not only its own node's: a queuer on another node that saw it
 * spinning woke nobody (models/queue.pml, BUG_G1).  Every parker, spinning
 * or not, also rechecks every P's runq, runnext and inbox: the last
 * spinning M may have found work, stopped spinning and called wsx_wakep()
 * while this P was not yet idle, waking nobody (N1).  A parker that takes
 * its P back for work on another P spins, to steal it; one that was not
 * spinning does so only when no M is counted spinning, so that the bound
 * above holds: a spinning M finds that work, or, when it stops, sees this
 * P idle and wakes it, or rechecks every P when it parks.  A parker that saw
 * work but whose idle bit a waker claimed first (an item on its inbox, a P
 * handed back) calls wsx_wakep() before it sleeps: that waker wakes it for
 * its own reason, and the work seen would be nobody's (N3).  A parker also
 * takes its P back, to look at the work sources again, when a source let
 * its users rely on the Ms since its last look (source.h, the rely: the
 * sources' generation, noted before the look, compared after the barrier).
 *
 * The idle bit of a P (wsx_sched.pidle) is the token of the wakeup: the one
 * who clears it (a waker, or the parking M taking its P back, or an M
 * leaving a blocking section taking the P: handoff.c) owns the M's wakeup.
 * A waker writes m->wake_spinning (and lose_p), then sets m->woken with a
 * store-release; the M reads woken with a load-acquire before it reads
 * them, then clears woken itself.  Nobody else writes these fields.
 *
 * CPU hotplug: the offline callback clears want_online and wakes the P's
 * holder, which waits for an RCU grace period (submitters and thieves
 * giving items back test want_online under rcu_read_lock() before adding to
 * the inbox, so after the grace period nobody adds), moves everything
 * queued on its P - inbox, backlog, runnext and runq - to its node's global
 * queue and acknowledges (m_online false); the callback waits for that, so it
 * waits for the item the holder is running.  The online callback sets
 * want_online again and waits until the holder has rebound itself and
 * acknowledged (m_online true), so each offline callback starts from a P
 * whose holder runs it, and finds the acknowledgment of its own stop.
 *
 * The last online P (models/lastp.pml): an offline callback that finds its
 * P the only one online (nponline 1: the callbacks are serialized by the
 * kernel's hotplug lock, so the count is exact there) does not stop it.
 * Items queued meanwhile would wait for a CPU of the module's to return,
 * and close() with them, while CPUs without a P (added after the load, or
 * beyond nprocs) run the machine.
 * The P becomes an orphan: want_online stays true and its holder goes on
 * running it wherever the scheduler moves it (an M is not a per-CPU
 * kthread: its affinity is broken when its only CPU goes).  The online
 * callback of an orphan's CPU only clears the mark (the P is still counted
 * in nponline); the P's holder binds itself to the CPU at its next pass
 * once the hotplug operation is over and the CPU active, as any M that
 * takes a P does (handoff.c, "Affinity": a bind races CPUs going down
 * unless it holds the hotplug lock).  The module's exit sets unloading
 * before its teardown, so that the last offline callback stops its P, and
 * then stops the orphans, whose CPUs are down and get no callback
 * (wsx_sched_stop_orphans()).  orphan is written by the callbacks, and by
 * the exit once no callback can run; unloading is read racily.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "account.h"
#include "fault.h"
#include "handoff.h"
#include "job.h"
#include "monitor.h"
#include "queue.h"
#include "sched.h"
#include "source.h"
#include "steal.h"
#include "timers.h"
#include "wsx_trace.h"

struct wsx_sched wsx_sched;
DEFINE_STATIC_KEY_TRUE(wsx_stats_on);

/* ---- statistics ------------------------------------------------------- */

/* Owner of @p: @item starts; account its queueing latency. */
static void wsx_item_account_start(struct wsx_p *p, struct wsx_item *item,
				   struct wsx_m *m)
{
	bool stolen = item->queued_p != WSX_NO_P && item->queued_p != p->id;
	unsigned int kind = stolen ? WSX_ORIGIN_STOLEN : item->origin;

	trace_wsx_item_start(item, p->id, m->id,
			     item->queued_p == WSX_NO_P ? -1 : item->queued_p,
			     stolen);
	if (static_branch_likely(&wsx_stats_on) && item->queued_ns) {
		/* local_clock() of two CPUs may disagree slightly: clamp */
		s64 wait = local_clock() - item->queued_ns;
		u64 *bucket = &p->hist.latency[kind][wait > 0 ?
						     min(fls64(wait), 63) : 0];

		WRITE_ONCE(*bucket, READ_ONCE(*bucket) + 1);	/* reset */
	}
}

/*
 * The P a wakeup from here tries last (wsx_pidle_get()): this CPU's, when
 * the caller is a task but not an M (a submitter), as that P's M would wait
 * for this CPU while counted spinning, even if the wakeup then goes to
 * another node, where a woken M runs at once.  NULL from an M (it holds a
 * P, or blocks) and from a timer (this CPU is free when the softirq ends).
 */
struct wsx_p *wsx_p_busy_here(void)
{
	return in_task() && !wsx_current_m() ? wsx_p_here() : NULL;
}

/* ---- waking Ms ----------------------------------------------------- */

/*
 * Clear @p's idle bit; true if this caller did, and so owns the wakeup
 * (litmus/pidle-claim-once; npidle > 0 when it does, litmus/pidle-idle-claim-count).
 */
bool wsx_pidle_claim(struct wsx_p *p)
{
	if (!test_bit(p->id, wsx_sched.pidle) ||
	    !test_and_clear_bit(p->id, wsx_sched.pidle))
		return false;
	atomic_dec(&wsx_sched.npidle);
	return true;
}

/* Claim @p unless it is @last, which wsx_pidle_get() tries after the rest. */
static bool wsx_pidle_try(struct wsx_p *p, const struct wsx_p *last)
{
	return p != last && wsx_pidle_claim(p);
}

/*
 * Claim an idle P of group @g of @near's victims (topology.c), which lists
 * a group's Ps by number: those numbered above @near first, then from the
 * group's start, so that queuers on different Ps spread their wakeups.
 */
static struct wsx_p *wsx_pidle_get_group(const struct wsx_p *near,
					 unsigned int g,
					 const struct wsx_p *last)
{
	const struct wsx_victims *v = &near->victims;
	unsigned int start = g ? v->group_end[g - 1] : 0;
	unsigned int len = v->group_end[g] - start, split = 0, k, i;
	struct wsx_p *p;

	while (split < len && v->order[start + split] < near->id)
		split++;
	for (k = 0; k < len; k++) {
		i = split + k < len ? split + k : split + k - len;
		p = wsx_sched.ps[v->order[start + i]];
		if (wsx_pidle_try(p, last))
			return p;
	}
	return NULL;
}

/**
 * wsx_pidle_get - claim an idle P, the nearest to @near first
 * @near:	where the search starts: the P that holds the work, the P of
 *		the CPU that queued it on its node's global queue, or the P of
 *		an M that hands the search on; NULL: none (the lowest-numbered
 *		idle P then)
 * @last:	a P to try only after all the others, or NULL: a
 *		submitter's own CPU's P (wsx_p_busy_here())
 *
 * Nearest as a thief looks (topology.c): @near itself, then its victims'
 * groups in order - under steal_topology=numa its SMT siblings, its
 * last-level cache, its node, then the other nodes by distance - so that
 * a woken M finds the work among its first victims, and its data in a
 * near cache.  Each idle bit is tested once (test_bit() in
 * wsx_pidle_claim(), not find_next_bit(): the bits change under us), so a
 * call tries each P at most once.  Which P is claimed matters to no
 * wakeup's correctness, only that each is tried (models/queue.pml tries
 * them in any order).
 *
 * Return: the P whose idle bit this caller cleared, or NULL.
 */
struct wsx_p *wsx_pidle_get(const struct wsx_p *near,
			    const struct wsx_p *last)
{
	struct wsx_p *p;
	unsigned int g, id;

	if (!near) {
		for (id = 0; id < wsx_sched.nprocs; id++)
			if (wsx_pidle_try(wsx_sched.ps[id], last))
				return wsx_sched.ps[id];
	} else {
		p = wsx_sched.ps[near->id];
		if (wsx_pidle_try(p, last))
			return p;
		for (g = 0; g < near->victims.ngroups; g++) {
			p = wsx_pidle_get_group(near, g, last);
			if (p)
				return p;
		}
	}
	if (last && wsx_pidle_claim(wsx_sched.ps[last->id]))
		return wsx_sched.ps[last->id];
	return NULL;
}

/*
 * Wake @m, whose P's idle bit the caller has just claimed.
 *
 * Under RCU: once @woken is set, @m may go on without this wake_up() (it
 * had not gone to sleep yet), lose its P, enter the pool and be reaped;
 * the reaper frees an M only after synchronize_rcu() (handoff.c).
 */
void wsx_m_wake(struct wsx_m *m, bool spinning)
{
	rcu_read_lock();
	WRITE_ONCE(m->wake_spinning, spinning);
	/* release: pairs with wsx_m_unpark() (litmus/m-wake-unpark-mp) */
	smp_store_release(&m->woken, true);
	wsx_fault(WSX_FAULT_WAKE_AFTER_RELEASE);
	wake_up(&m->wq);
	rcu_read_unlock();
}

/*
 * @p, whose idle bit the caller has just claimed, is woken by a search from
 * @near (wsx_pidle_get(); NULL: none): count it by its distance from @near.
 */
static void wsx_wake_count(struct wsx_p *p, const struct wsx_p *near)
{
	if (near)
		wsx_stat_inc(p, level_wakes[near->victims.level[p->id]]);
}

/*
 * __wsx_wakep - wsx_wakep() after its full barrier (wsx_wake_p()'s, its
 * own, or the xchg() of wsx_wakep_ordered()'s caller); @near and @last as
 * for wsx_pidle_get().  The inline wrappers (sched.h) test npidle and
 * nmspinning first, as it does, and call it only when a P is idle and no
 * M spins; wsx_wake_p() calls it directly.
 */
void __wsx_wakep(const struct wsx_p *near, const struct wsx_p *last)
{
	struct wsx_p *p;

	if (!atomic_read(&wsx_sched.npidle) ||
	    atomic_read(&wsx_sched.nmspinning))
		return;
	/* tests: a lost wakeup, which the monitor's check must see */
	if (wsx_fault_drop(WSX_FAULT_WAKEP_DROP))
		return;
	/* tests: the window N4's reservation was held in (lost_reserve) */
	wsx_fault(WSX_FAULT_WAKEP_BEFORE_CLAIM);
	/*
	 * The idle P first, then the count: a count reserved before there
	 * is a P to wake would tell another queuer that an M searches when
	 * none may (N4, models/queue.pml).  Queuers that race here may each
	 * wake one: a woken M spins without wsx_may_spin()'s test, so its
	 * bound is exceeded by at most the queuers racing, until the extra
	 * Ms find nothing and park.
	 */
	p = wsx_pidle_get(near, last);
	if (!p)
		return;
	atomic_inc(&wsx_sched.nmspinning);
	wsx_wake_count(p, near);
	wsx_m_wake(READ_ONCE(p->m), true);
}

/*
 * wsx_wake_p - after queueing on @p's inbox: wake @p's M if it is idle; if
 * it is busy, make sure an M is spinning, which may steal the item
 * (wsx_inbox_steal()): one near @p, a submitter's own P last
 * (wsx_p_busy_here()).  @caller_runs: the caller goes on running on its
 * CPU (struct wsx_queue_batch); when @p is that CPU's P, its M would wait
 * for the caller, so the search comes first and @p is tried last; the M
 * it wakes steals the items (models/queue.pml, the submitter that runs
 * on; BUG_HERENEVER: @p never tried).
 */
void wsx_wake_p(struct wsx_p *p, bool caller_runs)
{
	/*
	 * StoreLoad: the inbox item before the idle bits
	 * (litmus/inbox-put-park-sb), or before npidle and nmspinning
	 * (litmus/inbox-put-runs-park-sb)
	 */
	smp_mb();
	if (caller_runs && wsx_sched.steal_policy != WSX_STEAL_NONE &&
	    p == wsx_p_busy_here()) {
		__wsx_wakep(p, p);
		return;
	}
	if (wsx_pidle_claim(p)) {
		wsx_wake_count(p, p);
		wsx_m_wake(READ_ONCE(p->m), false);
	} else if (wsx_sched.steal_policy != WSX_STEAL_NONE) {
		__wsx_wakep(p, wsx_p_busy_here());
	}
}

/* ---- spinning, parking, hotplug stops ------------------------------- */

static void wsx_m_spin(struct wsx_m *m)
{
	WRITE_ONCE(m->spinning, true);
	atomic_inc(&wsx_sched.nmspinning);
	wsx_stat_inc(m->p, spins);
}

/* The M found work while spinning: stop, and hand the search on. */
static void wsx_m_reset_spinning(struct wsx_m *m)
{
	WRITE_ONCE(m->spinning, false);
	if (atomic_dec_return(&wsx_sched.nmspinning) == 0)
		wsx_wakep(m->p, NULL);
}

static bool wsx_may_spin(struct wsx_m *m)
{
	int busy = atomic_read(&wsx_sched.nponline) -
		   atomic_read(&wsx_sched.npidle);

	return m->spinning || 2 * atomic_read(&wsx_sched.nmspinning) < busy;
}

/*
 * Is there work this parking M must not sleep on?  (After the barrier.)
 * @far: set when it is only on other Ps, where this M must steal it.
 */
static bool wsx_work_visible(struct wsx_p *p, bool *far)
{
	unsigned int id;

	*far = false;
	/* every node's queue: a queuer on another node may have relied on us */
	if (wsx_gq_len_all() || !llist_empty(&p->inbox) ||
	    READ_ONCE(p->backlog_len))
		return true;
	if (wsx_sched.steal_policy == WSX_STEAL_NONE)
		return false;
	/*
	 * Every parker, spinning or not: the last spinning M may have found
	 * work and woken nobody because this P was not idle yet (N1,
	 * models/queue.pml).
	 */
	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *other = wsx_sched.ps[id];

		if (!wsx_runq_empty(&other->runq) ||
		    READ_ONCE(other->runnext) || !llist_empty(&other->inbox)) {
			*far = true;
			return true;
		}
	}
	return false;
}

/*
 * Leave the idle state: take the P's idle bit back, or, if a waker cleared
 * it first, wait for that waker's wakeup (it is on its way) and take over
 * the spinning state, or the loss of the P, it passed.
 */
static void wsx_m_unpark(struct wsx_m *m)
{
	/* acquire: see below; a woken M's P bit is not its own any more */
	if (!smp_load_acquire(&m->woken) && !wsx_pidle_reclaim(m))
		/* acquire: pairs with the waker's release in wsx_m_wake()
		 * (litmus/m-wake-unpark-mp)
		 */
		wait_event_idle(m->wq, smp_load_acquire(&m->woken));
	/* acquire: wake_spinning and lose_p were written before woken
	 * (litmus/m-wake-unpark-mp)
	 */
	if (smp_load_acquire(&m->woken)) {
		WRITE_ONCE(m->woken, false);
		if (READ_ONCE(m->lose_p)) {
			/* an M leaving a blocking section took the P */
			WRITE_ONCE(m->lose_p, false);
			m->lastp = m->p;
			WRITE_ONCE(m->p, NULL);
		} else {
			wsx_stat_inc(m->p, wakeups);
			if (READ_ONCE(m->wake_spinning)) {
				WRITE_ONCE(m->spinning, true);
				wsx_stat_inc(m->p, spins);
			}
		}
	}
	WRITE_ONCE(m->parked, false);
	wsx_monitor_kick();
}

static void wsx_m_park(struct wsx_m *m)
{
	struct wsx_p *p = m->p;
	bool was_spinning = m->spinning, visible, far, moved;

	if (was_spinning) {
		wsx_fault_sleep(WSX_FAULT_PARK_STILL_SPINNING);
		WRITE_ONCE(m->spinning, false);
		atomic_dec(&wsx_sched.nmspinning);
	}
	/* counted as it starts to park: the P may be another M's below */
	wsx_stat_inc(p, parks);
	trace_wsx_park(m->id);
	wsx_fault_sleep(WSX_FAULT_PARK_BEFORE_IDLE);
	/* idle the P, or give it to an M leaving a blocking section */
	if (wsx_m_idle_p(m)) {
		/* a queuer may have relied on our spinning: hand it on */
		if (was_spinning)
			wsx_wakep(p, NULL);
		return;
	}
	WRITE_ONCE(m->parked, true);
	wsx_fault_sleep(WSX_FAULT_PARK_BEFORE_RECHECK);
	/*
	 * StoreLoad: pairs with smp_mb() in wsx_wakep() and wsx_wake_p()
	 * (litmus/wakep-park-sb, inbox-put-park-sb), and with the xchg() of
	 * wsx_runq_put() before wsx_wakep_ordered()
	 * (litmus/runnext-put-wakep-park-sb)
	 */
	smp_mb();

	visible = wsx_work_visible(p, &far);
	if (visible && far && !was_spinning) {
		/*
		 * Only on other Ps, and we were not spinning: leave it to the
		 * Ms counted spinning now, as wsx_may_spin() did.  Each that
		 * leaves the count finds work, or parks and rechecks every P
		 * (litmus/park-far-spinner-parks-sb: this full barrier, the
		 * queues read before the count), or, the last, calls
		 * wsx_wakep() and sees our P idle
		 * (litmus/park-far-spinner-stops-sb); models/queue.pml,
		 * BUG_N1TRUST: the count read before our P was idle.
		 */
		smp_mb();
		visible = !atomic_read(&wsx_sched.nmspinning);
	}
	/*
	 * A source let its users rely on the Ms after our look: look again
	 * (source.h, the rely: either it saw our P idle or we see the move;
	 * litmus/rings-rely-park-sb, models/sqpickup.pml -DRELY)
	 */
	moved = !visible && wsx_sources_moved(m->source_note);
	if (moved)
		far = false;
	if (visible || moved) {
		if (wsx_pidle_reclaim(m)) {
			WRITE_ONCE(m->parked, false);
			/*
			 * The P is busy again without an unpark: the monitor
			 * may have gone to sleep while it was counted idle
			 * (litmus/monitor-disarm-kick-sb).
			 */
			wsx_monitor_kick();
			/* round the loop again without sleeping: a point to
			 * give the CPU up (a non-preemptible kernel), before
			 * it counts as spinning (queuers rely on a spinner)
			 */
			cond_resched();
			/* work elsewhere is taken by stealing: spin for it */
			if (was_spinning || far)
				wsx_m_spin(m);
			return;
		}
		/*
		 * A waker has our idle bit and wakes us for its own reason
		 * (an item on our inbox, or a P handed back): the work we
		 * saw, which a queuer may have left to our spinning, would
		 * be nobody's.  Hand the search on (N3, models/queue.pml).
		 * A move of the sources' generation needs no hand-on: we are
		 * woken and look, or the M that took our P looks.
		 */
		if (visible)
			wsx_wakep(p, NULL);
	}
	/* acquire: pairs with the waker's release in wsx_m_wake()
	 * (litmus/m-wake-unpark-mp)
	 */
	wait_event_idle(m->wq, smp_load_acquire(&m->woken) ||
			!READ_ONCE(p->want_online) || kthread_should_stop());
	wsx_m_unpark(m);
	trace_wsx_unpark(m->id);
}

/*
 * Give @m's credit back (job.c, "An M's credit"), counted on its P.
 * Returns whether there was one: a done() may have queued items since.
 */
static bool wsx_m_return_credit(struct wsx_m *m)
{
	if (!wsx_job_credit_return(&m->credit))
		return false;
	if (m->p)
		wsx_stat_inc(m->p, job_returns);
	return true;
}

/*
 * The P's CPU is going offline (or was never brought up): stop until it is
 * online again, letting the M run anywhere meanwhile.  Returns false when
 * the M must exit.
 */
static bool wsx_m_stop_p(struct wsx_m *m)
{
	struct wsx_p *p = m->p;

	wsx_m_return_credit(m);	/* it may stop for long */
	if (m->spinning)
		wsx_m_reset_spinning(m);
	/*
	 * A source may rely on this M to look again before it parks; it will
	 * not come back, and cannot hand the look on (wsx_wakep() wakes
	 * nobody while no P is idle or an M spins, and a parker looks at its
	 * queues, not the sources): each source is abandoned, a bounded step
	 * (source.h).  want_online is false already, so what a source
	 * queues meanwhile goes to the global queue or to other Ps.
	 */
	wsx_sources_abandon();
	/*
	 * A submitter that saw want_online still true may be adding to the
	 * inbox: let it finish (it does so under rcu_read_lock()) before the
	 * drain, since this M may have seen want_online cleared long before
	 * a grace period has passed (litmus/inbox-put-stop-p-rcu).
	 */
	synchronize_rcu();
	wsx_p_drain(p);
	wsx_m_unbind();
	WRITE_ONCE(p->m_online, false);
	wake_up(&p->ack_wq);
	wait_event_idle(m->wq, READ_ONCE(p->want_online) ||
			kthread_should_stop());
	if (kthread_should_stop())
		return false;
	/*
	 * The online callback's own CPU, coming up: bound while the callback
	 * holds the hotplug lock (handoff.c, "Affinity")
	 */
	set_cpus_allowed_ptr(current, cpumask_of(p->cpu));
	WRITE_ONCE(p->m_online, true);
	wake_up(&p->ack_wq);	/* the online callback waits for it */
	return true;
}

/* ---- the M loop ------------------------------------------------------ */

/*
 * wsx_find_runnable - the next item for @m to run, or NULL when the M must
 * exit or lost its P while parked.  @inherit tells whether the item shares
 * the current schedule tick.
 */
static struct wsx_item *wsx_find_runnable(struct wsx_m *m, bool *inherit)
{
	struct wsx_source_work found;
	struct wsx_item *item;
	struct wsx_p *p;
	bool tick;

	for (;;) {
		*inherit = false;
		p = m->p;
		if (!p)
			return NULL;
		if (!READ_ONCE(p->want_online)) {
			if (!wsx_m_stop_p(m))
				return NULL;
			continue;
		}
		/*
		 * The M keeps its credit (job.c, "An M's credit") only while
		 * it is bound and its next item comes from its P's runnext or
		 * runq: anything else - a bind, an inbox's drain, a global
		 * queue's get, a yield, a spin, a steal, a park - may take
		 * long, and a job whose last item ended on this M is done
		 * before it (BUG_LATE_RETURN).  Items queued after this look
		 * wait for the next pass, as those queued after the drain
		 * always did.
		 */
		if (!wsx_m_bound(m)) {
			wsx_m_return_credit(m);
			wsx_m_bind(m);
		}
		tick = !p->tick_phase;
		if (tick || wsx_inbox_waiting(p)) {
			wsx_m_return_credit(m);
			/* and what its done() queued here */
			if (wsx_inbox_waiting(p))
				wsx_inbox_drain(p);
		}
		if (tick) {
			/* an M back from a blocking section first (handoff.c) */
			if (!m->spinning && wsx_m_yield_p(m))
				return NULL;
			item = wsx_gq_tick_get(p);
			if (item)
				return item;
		}
		item = wsx_runq_get(p, inherit);
		if (item)
			return item;
		/* what a done() queued on this P is looked for first */
		if (wsx_m_return_credit(m))
			continue;
		/*
		 * A backstop: only the exit stops an M holding a P, after
		 * every P stopped, so the stop reaches the holder in
		 * wsx_m_stop_p()'s wait; a look per pass that found the P's
		 * own queues empty is enough.
		 */
		if (kthread_should_stop())
			return NULL;
		item = wsx_gq_get_nearest(p);
		if (item)
			return item;
		if (wsx_may_spin(m)) {
			if (!m->spinning)
				wsx_m_spin(m);
			item = wsx_steal_work(m);
			if (item)
				return item;
		}
		/*
		 * the work sources (source.h), as Go's poller last; the note
		 * first, so that a source that comes to rely on the Ms after
		 * this look sends the park back (source.h, the rely)
		 */
		m->source_note = wsx_sources_note();
		if (wsx_sources_find(&found)) {
			/*
			 * Work found: hand spinning on, as wsx_execute()
			 * does, before the source queues it
			 */
			if (m->spinning)
				wsx_m_reset_spinning(m);
			wsx_sources_take(&found);
			continue;	/* looks again before it parks */
		}
		wsx_m_park(m);
	}
}

/*
 * The calling M's CPU time so far.  The scheduler's tick updates it under
 * us (on this CPU): a snapshot is enough, but on 32-bit a u64 read can
 * tear, so read it until two reads agree.
 */
static u64 wsx_m_runtime(void)
{
	/* racy: the tick's update (see above) */
	u64 now = data_race(current->se.sum_exec_runtime), was;

	if (IS_ENABLED(CONFIG_64BIT))
		return now;
	do {
		was = now;
		/* racy, as above */
		now = data_race(current->se.sum_exec_runtime);
	} while (now != was);
	return now;
}

static void wsx_execute(struct wsx_m *m, struct wsx_item *item, bool inherit)
{
	struct wsx_p *p = m->p;
	struct wsx_job *job = item->job;
	unsigned int returns;
	u64 runtime;

	if (m->credit.job != job)	/* job.c, "An M's credit" */
		wsx_m_return_credit(m);
	if (m->spinning)
		wsx_m_reset_spinning(m);
	if (!inherit) {	/* scheddetail reads it racily (READ_ONCE) */
		WRITE_ONCE(p->schedtick, p->schedtick + 1);
		if (++p->tick_phase == wsx_sched.global_tick)
			p->tick_phase = 0;
	}
	if (item->flags & WSX_ITEM_ROOT) {
		job->started_ns = ktime_get_ns();
		job->cpu = raw_smp_processor_id();
	}
	wsx_item_account_start(p, item, m);
	runtime = wsx_m_runtime();
	WRITE_ONCE(p->cur_runtime, runtime);
	/* release: the monitor that sees this seq sees its cur_runtime
	 * (litmus/execute-monitor-seq-mp)
	 */
	smp_store_release(&p->cur_seq, p->cur_seq + 1);
	WRITE_ONCE(p->cur, item);
	item->fn(item);		/* from here on the item is not ours */
	/* a blocking section the item left open ends here */
	if (m->blocked)
		wsx_m_block_end(m);
	p = m->p;		/* perhaps another P by now */
	WRITE_ONCE(p->cur, NULL);
	trace_wsx_item_end(item, READ_ONCE(job->status));
	wsx_stat_inc(p, executed);
	/*
	 * the job is ours until its count goes, its session holds its
	 * account; an in-kernel user's job has none
	 */
	if (job->acct)
		wsx_account_item(job->acct, wsx_m_runtime() - runtime);
	/* the item's count to the M's credit (job.c, "An M's credit") */
	returns = wsx_job_credit_put(&m->credit, job);
	if (unlikely(returns))
		wsx_stat_add(p, job_returns, returns);
	/* other tasks may run for long: no job waits for this M meanwhile */
	if (need_resched())
		wsx_m_return_credit(m);
	cond_resched();
}

/*
 * wsx_m_main - an M: run items while holding a P; without one (after a
 * blocking section's handoff, or having lost its idle P to an M leaving
 * one) wait in the pool until a P is handed over.
 */
int wsx_m_main(void *arg)
{
	struct wsx_m *m = arg;
	struct wsx_item *item;
	bool inherit;

	for (;;) {
		/*
		 * no job waits for the M while it waits in the pool or after
		 * it exits (job.c, "An M's credit")
		 */
		if (!m->p) {
			wsx_m_return_credit(m);
			if (!wsx_m_pool_wait(m))
				break;
		}
		item = wsx_find_runnable(m, &inherit);
		if (item) {
			wsx_execute(m, item, inherit);
			continue;
		}
		wsx_m_return_credit(m);
		if (kthread_should_stop())
			break;
	}
	return 0;
}

/* The M running the caller, or NULL when the caller is not an M. */
struct wsx_m *wsx_current_m(void)
{
	struct wsx_p *p;
	struct wsx_m *m;
	bool here;

	/* an interrupt on an M's CPU is not that M */
	if (!in_task() || !(current->flags & PF_KTHREAD))
		return NULL;
	/*
	 * Most callers are the holder of this CPU's P (a spawn): ask it
	 * first, without the kthread's two calls.  If this task is p->m, the
	 * answer holds whatever p->m does next; if not, p->m may be an M
	 * leaving for the pool, which the reaper frees only after a grace
	 * period (wsx_reaper_fn()): read its task with preemption off, an
	 * RCU read-side section.  (wsx_m_destroy_all() frees without one:
	 * no item runs then.)  A stale m->task (wsx_m_create()'s, not yet
	 * seen) is NULL, which only sends us to the slow path.
	 */
	preempt_disable();	/* an RCU reader, inline, and on this CPU */
	p = wsx_p_here();
	m = p ? READ_ONCE(p->m) : NULL;
	here = m && m->task == current;
	preempt_enable();
	if (here)
		return m;
	if (kthread_func(current) != wsx_m_main)
		return NULL;
	return kthread_data(current);
}

/* ---- the Ps, for the other files; the counters' reset ----------------- */

/**
 * wsx_nr_procs - number of Ps (fixed while the module is loaded)
 *
 * Return: the number of Ps: the module parameter nprocs, or the number of
 * CPUs online at load when it is 0.
 */
unsigned int wsx_nr_procs(void)
{
	return wsx_sched.nprocs;
}
EXPORT_SYMBOL_GPL(wsx_nr_procs);

bool wsx_p_is_online(unsigned int id)
{
	return id < wsx_sched.nprocs && READ_ONCE(wsx_sched.ps[id]->want_online);
}

static void wsx_zero_u64(u64 *v, size_t n)
{
	while (n--)
		WRITE_ONCE(v[n], 0);
}

/**
 * wsx_sched_reset_stats - zero every counter and histogram
 *
 * Racy against running Ps by design: an increment that races with the reset
 * may survive it.  The global queue's counters are reset under its lock.
 */
void wsx_sched_reset_stats(void)
{
	unsigned long flags;
	unsigned int id, q;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];

		wsx_zero_u64((u64 *)&p->stats,
			     offsetof(struct wsx_pstats, stolen_from) /
			     sizeof(u64));
		atomic64_set(&p->stats.stolen_from, 0);
		atomic64_set(&p->stats.long_items, 0);
		atomic64_set(&p->stats.rescued, 0);
		wsx_zero_u64(&p->hist.latency[0][0],
			     sizeof(p->hist.latency) / sizeof(u64));
		wsx_zero_u64(p->hist.steal_size, WSX_STEAL_BUCKETS);
		wsx_zero_u64(p->hist.steals_from, wsx_sched.nprocs);
		WRITE_ONCE(p->steal_log_pos, 0);
	}
	for (q = 0; q < wsx_sched.ngq; q++) {
		struct wsx_gqueue *gq = &wsx_sched.gq[q];

		spin_lock_irqsave(&gq->lock, flags);
		WRITE_ONCE(gq->puts, 0);
		WRITE_ONCE(gq->gets, 0);
		spin_unlock_irqrestore(&gq->lock, flags);
	}
	atomic64_set(&wsx_sched.handoffs, 0);
}

/* ---- CPU hotplug ------------------------------------------------------ */

/*
 * The online callback waits for the P's holder to acknowledge, as the
 * offline callback does: without it, an offline callback that came before
 * the holder ran would find the old acknowledgment of the last offline
 * (m_online false) and return at once, while items queued on the P
 * meanwhile waited there for the next online.  (The two callbacks of one
 * CPU never run at once: the hotplug lock serializes them.)
 */
int wsx_sched_cpu_online(unsigned int cpu)
{
	struct wsx_p *p = wsx_sched.cpu_p[cpu];

	if (!p)
		return 0;
	if (p->orphan) {
		/* never stopped, still counted; its M binds itself (above) */
		p->orphan = false;
		pr_info("P%u has its CPU %u back\n", p->id, cpu);
		return 0;
	}
	atomic_inc(&wsx_sched.nponline);
	/*
	 * The executor may be busy from here on (wsx_busy()), with no M
	 * unparking to say so: items queued while every P was offline wait
	 * on the global queue (litmus/monitor-disarm-online-kick-sb).
	 */
	wsx_monitor_kick();
	WRITE_ONCE(p->want_online, true);
	rcu_read_lock();
	wake_up(&READ_ONCE(p->m)->wq);
	rcu_read_unlock();
	wait_event(p->ack_wq, READ_ONCE(p->m_online));
	return 0;
}

/* Stop @p: its holder drains it and acknowledges (see "CPU hotplug"). */
static void wsx_p_stop(struct wsx_p *p)
{
	WRITE_ONCE(p->want_online, false);
	/*
	 * The P's holder, or the M it is being handed to, sees want_online:
	 * full barrier between the store above and the read of p->m below,
	 * paired with the one in wsx_m_take_p() between a new holder's
	 * p->m and its read of want_online.  Under RCU: the holder read here
	 * may be a spare M being reaped (litmus/m-take-p-cpu-offline-sb).
	 */
	smp_mb();
	rcu_read_lock();
	wake_up(&READ_ONCE(p->m)->wq);
	rcu_read_unlock();
	wait_event(p->ack_wq, !READ_ONCE(p->m_online));
	atomic_dec(&wsx_sched.nponline);
}

int wsx_sched_cpu_offline(unsigned int cpu)
{
	struct wsx_p *p = wsx_sched.cpu_p[cpu];

	if (!p)
		return 0;
	if (atomic_read(&wsx_sched.nponline) == 1 &&
	    !READ_ONCE(wsx_sched.unloading)) {
		p->orphan = true;
		pr_info("P%u runs on without its CPU %u: no other P is online\n",
			p->id, cpu);
		return 0;
	}
	wsx_p_stop(p);
	return 0;
}

/*
 * wsx_sched_unload - the module's exit, before its hotplug teardown: the
 * last online P stops too (see "CPU hotplug").
 */
void wsx_sched_unload(void)
{
	WRITE_ONCE(wsx_sched.unloading, true);
}

/*
 * wsx_sched_stop_orphans - after the hotplug teardown, which no callback
 * follows: stop the orphans, whose CPUs are down (see "CPU hotplug").
 */
void wsx_sched_stop_orphans(void)
{
	unsigned int i;

	for (i = 0; i < wsx_sched.nprocs; i++) {
		struct wsx_p *p = wsx_sched.ps[i];

		if (p->orphan) {
			wsx_p_stop(p);
			p->orphan = false;
		}
	}
}

/* ---- init and exit ---------------------------------------------------- */

static struct wsx_p *wsx_p_create(unsigned int id, unsigned int cpu,
				  unsigned int nprocs)
{
	struct wsx_p *p = kzalloc_node(sizeof(*p), GFP_KERNEL, cpu_to_node(cpu));

	if (!p)
		return NULL;
	p->hist.steals_from = kcalloc_node(nprocs, sizeof(u64), GFP_KERNEL,
					   cpu_to_node(cpu));
	if (!p->hist.steals_from) {
		kfree(p);
		return NULL;
	}
	p->id = id;
	p->cpu = cpu;
	wsx_runq_init(&p->runq);
	init_llist_head(&p->inbox);
	INIT_LIST_HEAD(&p->backlog);
	init_waitqueue_head(&p->ack_wq);
	wsx_timers_init(p);
	p->m_online = true;	/* until its M acknowledges the first stop */
	return p;
}

static void wsx_sched_free(void)
{
	unsigned int i;

	wsx_m_destroy_all();
	wsx_topology_exit();
	for (i = 0; i < wsx_sched.nprocs; i++) {
		if (wsx_sched.ps && wsx_sched.ps[i]) {
			wsx_timers_exit(wsx_sched.ps[i]);
			kfree(wsx_sched.ps[i]->hist.steals_from);
			kfree(wsx_sched.ps[i]);
		}
	}
	kfree(wsx_sched.ps);
	kfree(wsx_sched.cpu_p);
	kfree(wsx_sched.gq);
	bitmap_free(wsx_sched.pidle);
	memset(&wsx_sched, 0, sizeof(wsx_sched));
}

/*
 * wsx_sched_init - create the Ps and an M holding each, all stopped: the
 * hotplug online callback brings up the P of each online CPU.
 */
int wsx_sched_init(const struct wsx_sched_params *params)
{
	unsigned int n = params->nprocs, i = 0, cpu;
	struct wsx_m *m;

	wsx_sched.steal_policy = params->steal_policy;
	wsx_sched.steal_topology = params->steal_topology;
	wsx_sched.global_tick = params->global_tick;
	wsx_sched.steal_tries = params->steal_tries;
	wsx_sched.max_threads = params->max_threads;
	wsx_sched.start_ns = ktime_get_ns();
	spin_lock_init(&wsx_sched.mlock);
	INIT_LIST_HEAD(&wsx_sched.mall);
	INIT_LIST_HEAD(&wsx_sched.mpool);
	INIT_LIST_HEAD(&wsx_sched.mwait);

	wsx_sched.ps = kcalloc(n, sizeof(*wsx_sched.ps), GFP_KERNEL);
	wsx_sched.cpu_p = kcalloc(nr_cpu_ids, sizeof(*wsx_sched.cpu_p),
				  GFP_KERNEL);
	wsx_sched.pidle = bitmap_zalloc(n, GFP_KERNEL);
	if (!wsx_sched.ps || !wsx_sched.cpu_p || !wsx_sched.pidle)
		goto fail;

	for_each_online_cpu(cpu) {
		if (i == n)
			break;
		wsx_sched.nprocs = i + 1;	/* what wsx_sched_free() frees */
		wsx_sched.ps[i] = wsx_p_create(i, cpu, n);
		if (!wsx_sched.ps[i])
			goto fail;
		wsx_sched.cpu_p[cpu] = wsx_sched.ps[i];
		i++;
	}
	/* the I fields of the topology and the queues, before any M runs */
	if (i != n || wsx_topology_init() || wsx_gq_init())
		goto fail;
	for (i = 0; i < n; i++) {
		m = wsx_m_create(wsx_sched.ps[i], false);
		if (!m)
			goto fail;
		wsx_m_start(m);
	}
	/*
	 * Each M acknowledges its P's first stop before the online callbacks
	 * run: the online callback waits for an acknowledgment of the
	 * online, which an M still in its first stop would otherwise seem
	 * to have given (m_online starts true), letting a quick offline find
	 * that first stop's acknowledgment instead of its own.
	 */
	for (i = 0; i < n; i++)
		wait_event(wsx_sched.ps[i]->ack_wq,
			   !READ_ONCE(wsx_sched.ps[i]->m_online));
	return 0;
fail:
	wsx_sched_free();
	return -ENOMEM;
}

/*
 * wsx_sched_exit - after every P was stopped by the hotplug teardown and
 * wsx_sched_stop_orphans(): stop the Ms and free everything.  Nothing may
 * be queued any more.
 */
void wsx_sched_exit(void)
{
	WARN_ON_ONCE(wsx_gq_len_all());
	wsx_sched_free();
}
