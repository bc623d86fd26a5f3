// SPDX-License-Identifier: GPL-2.0
/*
 * wsx run queues: where runnable items live, and how they get there - a P's
 * runnext and runq, its inbox and backlog, the global queues - with the
 * queueing API (wsx_spawn(), wsx_queue()).  Waking an M for what is queued
 * is sched.c's (wsx_wakep(), wsx_wake_p()), next to the parking it pairs
 * with; taking from other Ps is steal.c's.
 *
 * Where runnable items live
 * -------------------------
 * 1. p->runnext: one slot, highest priority.  wsx_spawn() from a running
 *    item puts the new item here, kicking the previous occupant to the
 *    runq's tail, so a parent's child runs next on the same CPU while the
 *    data it shares with the parent is still in L1/L2.
 * 2. p->runq: 256 item pointers, lock-free, written at the tail only by the
 *    owner and consumed at the head by the owner and by thieves (wsx_runq.h
 *    states the protocol).  When a put finds it full, the owner moves its
 *    oldest half (128) plus the new item to the global queue in one lock
 *    acquisition.
 * 3. the global queue: a list under its own lock (struct wsx_gqueue).  With
 *    steal_topology=numa and Ps on more than one NUMA node there is one
 *    per node (as in Vyukov's NUMA-aware scheduler design for Go, 2014),
 *    so that what a node's Ps spill or drain, or what is queued from its
 *    CPUs, stays with the node's Ps and caches; otherwise (flat, cache,
 *    one node) one, as in Go.  A runq's spill and a hotplug drain go to
 *    the P's node's queue; an item queued to the global queue from
 *    outside goes to the queue of the calling CPU's P's node, node 0's on
 *    a CPU without a P.
 * Items queued from outside an M (ioctl, other kernel code) for a given P go
 * to that P's inbox, a lock-free list the owner empties at each scheduling
 * point: only the owner may write its runq's tail.  The owner moves them,
 * in order, through a private backlog into the runq as far as the runq has
 * room, so that a large batch queued on one P stays there for thieves to
 * take half of, rather than overflowing to the global queue.  A thief that
 * finds a victim's runq empty takes half of its inbox instead
 * (wsx_inbox_steal()), so that items queued on a P whose M is busy with a
 * long item are not stuck behind it; and a submitter that cannot wake the
 * P's own M (it is not idle) wakes a spinning M for that.  The backlog is
 * the owner's alone: what it holds (a batch beyond the runq's room, with
 * the runq's 256 for thieves to take) waits for the owner's next
 * scheduling point.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "fault.h"
#include "job.h"
#include "queue.h"
#include "sched.h"
#include "wsx_order.h"
#include "wsx_trace.h"

unsigned int wsx_latency_sample = 16;

/* Items each CPU queues before the next one it times: see below. */
static DEFINE_PER_CPU(int, wsx_lat_countdown);

/* ---- statistics ---------------------------------------------------------- */

/*
 * Is the item being queued on this CPU to be timed?  Reading the clock at
 * queueing and at start costs more than the rest of the bookkeeping (the
 * kernel's local_clock() on a machine whose TSC is not trusted), so one
 * item in latency_sample per CPU is timed.  The countdown is per CPU and
 * lock-free: a task and an interrupt on the same CPU may both see it run
 * out and both time their item, which only shifts the sampling a little.
 */
static bool wsx_latency_sampled(void)
{
	int every = min_t(unsigned int, READ_ONCE(wsx_latency_sample), INT_MAX);
	int left;

	if (!every)
		return false;
	left = this_cpu_dec_return(wsx_lat_countdown);
	/* above @every: the parameter was lowered meanwhile */
	if (left > 0 && left < every)
		return false;
	this_cpu_write(wsx_lat_countdown, every);
	return true;
}

/*
 * Note where and when @item is queued (its first queueing only); "when"
 * only for the items sampled for the latency histograms, 0 for the others.
 * Inline in this file, where a spawn calls it for every item; steal.c
 * calls wsx_item_stamp().
 */
static __always_inline void wsx_stamp(struct wsx_item *item, unsigned int p,
				      u8 origin)
{
	item->queued_p = p;
	item->origin = origin;
	item->queued_ns = 0;
	if (static_branch_likely(&wsx_stats_on) && wsx_latency_sampled())
		item->queued_ns = local_clock();
	trace_wsx_item_queue(item, p == WSX_NO_P ? -1 : (int)p);
}

void wsx_item_stamp(struct wsx_item *item, unsigned int p, u8 origin)
{
	wsx_stamp(item, p, origin);
}

/* ---- the global queues --------------------------------------------------- */

/* A P's global_tick checks look at another node's queue first every ... */
#define WSX_GQ_REMOTE_EVERY	8

/*
 * The global queue of node index @node: its own under per-node queues,
 * else the only one.
 */
static struct wsx_gqueue *wsx_gq_of_node(unsigned int node)
{
	return &wsx_sched.gq[wsx_sched.ngq > 1 ? node : 0];
}

/* The global queue of @p's node. */
static struct wsx_gqueue *wsx_gq_of(const struct wsx_p *p)
{
	return wsx_gq_of_node(p->node);
}

/*
 * The global queue for items queued on a CPU whose P is @here: its node's;
 * node 0's on a CPU without a P, which the other nodes' Ps take from when
 * theirs are empty and at their tick checks (wsx_gq_tick_get()).
 */
static struct wsx_gqueue *wsx_gq_near(struct wsx_p *here)
{
	return here ? wsx_gq_of(here) : &wsx_sched.gq[0];
}

unsigned int wsx_gq_len_all(void)
{
	unsigned int q, len = 0;

	for (q = 0; q < wsx_sched.ngq; q++)
		len += READ_ONCE(wsx_sched.gq[q].len);
	return len;
}

/*
 * A global queue's items taken so far and in line now, read together (the
 * monitor's wasted-cores check): under the lock, as wsx_gq_get() writes
 * both in one section and a racy pair of reads could see the new count
 * with the old length.
 */
void wsx_gq_sample(struct wsx_gqueue *gq, u64 *gets, unsigned int *len)
{
	unsigned long flags;

	spin_lock_irqsave(&gq->lock, flags);
	*gets = gq->gets;
	*len = gq->len;
	spin_unlock_irqrestore(&gq->lock, flags);
}

static void wsx_gq_put_list(struct wsx_gqueue *gq, struct list_head *items,
			    unsigned int n)
{
	unsigned long flags;

	spin_lock_irqsave(&gq->lock, flags);
	list_splice_tail(items, &gq->items);
	WRITE_ONCE(gq->len, gq->len + n);
	WRITE_ONCE(gq->puts, gq->puts + n);
	spin_unlock_irqrestore(&gq->lock, flags);
}

/* Not as a P's owner: to the global queue of the node of @here, this CPU's P. */
void wsx_gq_put_near(struct wsx_p *here, struct list_head *items,
		     unsigned int n)
{
	wsx_gq_put_list(wsx_gq_near(here), items, n);
}

/* ---- the local run queue ------------------------------------------------- */

/* The runq is full: move its oldest half and @item to the global queue. */
static bool wsx_runq_spill(struct wsx_p *p, struct wsx_item *item)
{
	struct wsx_item *batch[WSX_RUNQ_SIZE / 2];
	LIST_HEAD(items);
	u32 n, i;

	n = wsx_runq_take_half(&p->runq, batch);
	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		wsx_item_to_gq(batch[i]);
		list_add_tail(&batch[i]->node, &items);
	}
	wsx_item_to_gq(item);
	list_add_tail(&item->node, &items);
	wsx_gq_put_list(wsx_gq_of(p), &items, n + 1);
	trace_wsx_spill(p->id, n + 1);
	wsx_stat_inc(p, spills);
	wsx_stat_add(p, spilled, n + 1);
	return true;
}

/*
 * wsx_runq_put - owner only: queue @item on @p, in runnext when @next (the
 * displaced runnext item goes to the runq), else at the runq's tail.
 * Returns true when @next displaced an item.
 */
bool wsx_runq_put(struct wsx_p *p, struct wsx_item *item, bool next)
{
	if (next) {
		/* thieves may empty runnext meanwhile: xchg, not a store
		 * (litmus/runq-put-runnext-steal-mp, runq-put-runnext-steal-once);
		 * fully ordered, as wsx_put_next()'s wakeup uses it as its
		 * StoreLoad barrier when it displaced nothing
		 * (litmus/runnext-put-wakep-park-sb)
		 */
		item = xchg(&p->runnext, item);
		if (!item)
			return false;
	}
	while (!wsx_runq_push(&p->runq, item))
		if (wsx_runq_spill(p, item))
			return next;
	wsx_stat_inc(p, ring_puts);
	return next;
}

/*
 * Owner of @p, which has just put @n items in its runq: they were nowhere
 * a parker looks while they were in our hands (a global batch, an inbox),
 * so when the runq and runnext now hold more than the @next items we run
 * before any of them is stolen (1 after an inbox drain, 0 after a global
 * batch whose first item we run), wake an M to steal the rest (N2,
 * models/queue.pml).
 */
static void wsx_runq_added(struct wsx_p *p, u32 n, u32 next)
{
	if (n && wsx_runq_len(&p->runq) + !!READ_ONCE(p->runnext) > next)
		wsx_wakep(p, NULL);
}

/*
 * wsx_inbox_drain - move what was queued on @p from outside into its runq,
 * in order, through the backlog: no more than the runq has room for, so
 * that a large batch queued on one P stays in its runq for thieves rather
 * than spilling to the global queue.
 */
void wsx_inbox_drain(struct wsx_p *p)
{
	struct wsx_item *item, *tmp;
	struct llist_node *list;
	u32 room;
	int n = 0;

	if (!llist_empty(&p->inbox)) {
		/* the items' contents: llist_add()'s full ordering and
		 * our address dependency (litmus/inbox-put-drain-mp)
		 */
		list = llist_reverse_order(llist_del_all(&p->inbox));
		atomic_inc(&p->inbox_takes);
		llist_for_each_entry_safe(item, tmp, list, lnode) {
			list_add_tail(&item->node, &p->backlog);
			wsx_walk_point(++n);
		}
		atomic_sub(n, &p->inbox_len);
		WRITE_ONCE(p->backlog_len, p->backlog_len + n);
	}
	if (!p->backlog_len)
		return;
	room = WSX_RUNQ_SIZE - (p->runq.tail - READ_ONCE(p->runq.head));
	n = min(room, p->backlog_len);
	WRITE_ONCE(p->backlog_len, p->backlog_len - n);
	list_for_each_entry_safe(item, tmp, &p->backlog, node) {
		if (!room--)
			break;
		list_del(&item->node);
		wsx_runq_put(p, item, false);
	}
	wsx_runq_added(p, n, 1);
}

/*
 * Owner only: take up to @max (0 = no limit but the batch formula) items
 * from global queue @gq; run the first, queue the rest on @p.
 *
 * The batch is a share of all online Ps, not of @gq's node's: the other
 * nodes' Ps take from @gq too once their own queues are empty, and a
 * node's share would hand a P of a two-node machine twice the items to
 * hold in its runq while others may be idle; the runq's half bounds it.
 */
static struct wsx_item *wsx_gq_get(struct wsx_p *p, struct wsx_gqueue *gq,
				   unsigned int max)
{
	unsigned int n, online, i;
	struct wsx_item *item, *tmp, *first;
	unsigned long flags;
	LIST_HEAD(batch);

	if (!READ_ONCE(gq->len))
		return NULL;
	spin_lock_irqsave(&gq->lock, flags);
	online = max_t(int, atomic_read(&wsx_sched.nponline), 1);
	n = wsx_gq_batch(gq->len, online, max);
	for (i = 0; i < n; i++)
		list_move_tail(gq->items.next, &batch);
	WRITE_ONCE(gq->len, gq->len - n);
	WRITE_ONCE(gq->gets, gq->gets + n);
	spin_unlock_irqrestore(&gq->lock, flags);

	if (!n)
		return NULL;
	wsx_stat_add(p, global_gets, n);
	first = list_first_entry(&batch, struct wsx_item, node);
	list_del(&first->node);
	if (n > 1)
		wsx_fault_sleep(WSX_FAULT_GLOBAL_BATCH_IN_TRANSIT);
	list_for_each_entry_safe(item, tmp, &batch, node) {
		list_del(&item->node);
		wsx_runq_put(p, item, false);
	}
	wsx_runq_added(p, n - 1, 0);
	return first;
}

/*
 * Owner only: a batch from the global queues, @p's node's first, then the
 * other nodes' nearest first (node_near), each only once the one before
 * came up empty.
 */
struct wsx_item *wsx_gq_get_nearest(struct wsx_p *p)
{
	const unsigned int *near = &wsx_sched.node_near[p->node *
							 wsx_sched.nnodes];
	struct wsx_item *item;
	unsigned int k;

	for (k = 0; k < wsx_sched.ngq; k++) {
		item = wsx_gq_get(p, wsx_gq_of_node(near[k]), 0);
		if (item)
			return item;
	}
	return NULL;
}

/*
 * Owner only, at a global_tick check: one item from @p's node's queue, but
 * every WSX_GQ_REMOTE_EVERY-th check first from another node's queue, the
 * other nodes in turn, so that an item on a node whose Ps are all busy (or
 * offline) does not wait for them: see sched.c, "Finding work", for
 * the bound.
 */
struct wsx_item *wsx_gq_tick_get(struct wsx_p *p)
{
	unsigned int ngq = wsx_sched.ngq;
	struct wsx_item *item;

	if (ngq > 1 &&
	    p->schedtick / wsx_sched.global_tick % WSX_GQ_REMOTE_EVERY == 0) {
		/* offsets 1 .. ngq - 1 from the P's own node, in turn */
		p->gq_next = p->gq_next % (ngq - 1) + 1;
		item = wsx_gq_get(p, wsx_gq_of_node((p->node + p->gq_next) %
						    ngq), 1);
		if (item)
			return item;
	}
	return wsx_gq_get(p, wsx_gq_of(p), 1);
}

/* ---- queueing: the exported API ------------------------------------------ */

/*
 * From an M holding @p: @item in @p's runnext, the item that held it to the
 * runq's tail (Go's runqput(next=true)), and a wakeup for an idle P that
 * may steal either.  Returns true when an item was displaced.
 */
static bool wsx_put_next(struct wsx_p *p, struct wsx_item *item)
{
	bool displaced;

	wsx_stamp(item, p->id, WSX_ORIGIN_LOCAL);
	displaced = wsx_runq_put(p, item, true);
	/*
	 * When it displaced nothing, the item was published by
	 * wsx_runq_put()'s fully ordered xchg(), the barrier wsx_wakep()
	 * would add (litmus/runnext-put-wakep-park-sb).  A displaced one went
	 * to the runq's tail by a release store, or with half the runq to
	 * the global queue under its lock (wsx_runq_spill()): neither orders
	 * a later load (litmus/wakep-park-sb).
	 */
	if (displaced)
		wsx_wakep(p, NULL);
	else
		wsx_wakep_ordered(p, NULL);
	return displaced;
}

/**
 * wsx_spawn - from a running item: queue @item in the current P's runnext
 * @item: initialised with wsx_item_init(), normally with the caller's job
 *
 * The new item runs next on this CPU unless a thief takes it; the item that
 * held runnext moves to the runq's tail.  Called outside an M, or in a
 * blocking section that handed its P off, it falls back to
 * wsx_queue(@item, WSX_WHERE_LOCAL, 0).
 */
void wsx_spawn(struct wsx_item *item)
{
	struct wsx_m *m = wsx_current_m();

	if (!m || !m->p) {
		wsx_queue(item, WSX_WHERE_LOCAL, 0);
		return;
	}
	/*
	 * A credit is of the job of the item the M runs, or of the last one
	 * it ran (job.c, "An M's credit"), and is cleared before its done()
	 * runs: a count of it is spent only on an item of that job, while
	 * the running item's own count keeps the job alive.
	 */
	if (!wsx_job_credit_spend(&m->credit, item->job)) {
		wsx_job_add(item->job);
		wsx_stat_inc(m->p, job_adds);
	}
	wsx_put_next(m->p, item);
}
EXPORT_SYMBOL_GPL(wsx_spawn);

/*
 * Queue the chain @first .. @last of @n items (NULL-terminated, newest
 * first: llist order) on @p's inbox unless it is offline, under RCU
 * against hotplug; one list operation and one wakeup for them all
 * (models/queue.pml, BATCH).  @add: count each in its job here;
 * @caller_runs as for wsx_wake_p().
 */
static bool wsx_inbox_put(struct wsx_p *p, struct llist_node *first,
			  struct llist_node *last, unsigned int n, bool add,
			  bool caller_runs)
{
	struct wsx_item *item;
	u8 origin;
	bool ok;

	rcu_read_lock();
	ok = READ_ONCE(p->want_online);
	if (ok) {
		origin = p->cpu == raw_smp_processor_id() ?
			 WSX_ORIGIN_LOCAL : WSX_ORIGIN_REMOTE;
		llist_for_each_entry(item, first, lnode) {
			if (add)
				wsx_job_add(item->job);
			wsx_stamp(item, p->id, origin);
		}
		/* fully ordered, as wsx_wake_p()'s barrier
		 * (litmus/inbox-put-park-sb); the items' contents, links and
		 * job counts before they are listed (litmus/inbox-put-drain-mp,
		 * litmus/inbox-batch-drain-mp): a successful cmpxchg, for a
		 * chain as for one item
		 */
		llist_add_batch(first, last, &p->inbox);
		atomic_add(n, &p->inbox_len);
	}
	rcu_read_unlock();
	if (ok)
		wsx_wake_p(p, caller_runs);
	return ok;
}

/* The chain of wsx_inbox_put() on the global queue, in its order. */
static void wsx_gq_queue(struct llist_node *first, unsigned int n, bool add)
{
	struct wsx_p *here = wsx_p_here();
	struct wsx_item *item, *tmp;
	LIST_HEAD(items);

	/* newest first: each at the list's head leaves the oldest first */
	llist_for_each_entry_safe(item, tmp, first, lnode) {
		if (add)
			wsx_job_add(item->job);
		wsx_stamp(item, WSX_NO_P, WSX_ORIGIN_GLOBAL);
		list_add(&item->node, &items);
	}
	wsx_gq_put_near(here, &items, n);
	/*
	 * wsx_wakep()'s full barrier orders the put above before its look at
	 * the idle Ps (the other half of the park's recheck).  It searches
	 * near the node's queue the items went to, from this CPU's P, which
	 * a submitter's wakeup tries last.  One wakeup for a chain: the M it
	 * starts wakes another when it stops spinning (wsx_m_reset_spinning()).
	 */
	wsx_wakep(here, wsx_p_busy_here());
}

/* The P that @where and @p name, or NULL for the global queue. */
static struct wsx_p *wsx_queue_target(enum wsx_where where, unsigned int p)
{
	switch (where) {
	case WSX_WHERE_LOCAL:
		return wsx_p_here();
	case WSX_WHERE_P:
		return p < wsx_sched.nprocs ? wsx_sched.ps[p] : NULL;
	default:
		return NULL;
	}
}

/*
 * wsx_queue_counted - wsx_queue(), with @add false for an item already
 * counted in its job (a delayed item: timers.c counted it when it was
 * armed), which then goes to the global queue rather than fail when its P
 * is offline.
 */
int wsx_queue_counted(struct wsx_item *item, enum wsx_where where,
		      unsigned int p, bool add)
{
	struct wsx_p *target;

	if (where > WSX_WHERE_GLOBAL)
		return -EINVAL;
	if (where == WSX_WHERE_P && p >= wsx_sched.nprocs)
		return -ENXIO;
	target = wsx_queue_target(where, p);
	item->lnode.next = NULL;
	if (target &&
	    wsx_inbox_put(target, &item->lnode, &item->lnode, 1, add, false))
		return 0;
	if (where == WSX_WHERE_P && add)
		return -ENXIO;
	wsx_gq_queue(&item->lnode, 1, add);
	return 0;
}

/**
 * wsx_queue - queue @item from outside (any context but hard interrupts on
 * PREEMPT_RT, where the queues' spinlocks sleep)
 * @item:	initialised with wsx_item_init()
 * @where:	WSX_WHERE_LOCAL: the P of the calling CPU (the global queue if
 *		that CPU has no P); WSX_WHERE_P: P number @p;
 *		WSX_WHERE_GLOBAL: the global queue
 * @p:		the P number for WSX_WHERE_P
 *
 * Return: 0, or -ENXIO when P @p does not exist or its CPU is offline, or
 * -EINVAL for an unknown @where.
 */
int wsx_queue(struct wsx_item *item, enum wsx_where where, unsigned int p)
{
	return wsx_queue_counted(item, where, p, true);
}
EXPORT_SYMBOL_GPL(wsx_queue);

/*
 * Parked continuations (docs/park.md, section 1): counted in their jobs by
 * wsx_park(), queued by wsx_ready().  waiting: parked now, all users
 * together; the readies made outside an M, by where they went (an M's go
 * to its P's counters).  A: atomics.
 */
static atomic_long_t wsx_waiting = ATOMIC_LONG_INIT(0);
static atomic64_t wsx_ready_inbox = ATOMIC64_INIT(0);
static atomic64_t wsx_ready_global = ATOMIC64_INIT(0);

/**
 * wsx_park - count @cont, a continuation that is to wait, in its job
 * @cont:	initialised with wsx_item_init(); queued nowhere
 *
 * Call it before @cont is published where its readier finds it (a wait
 * list, under that list's lock or before taking it), while the caller
 * holds a count in @cont's job (it runs as an item of that job, or its
 * creator has not called wsx_job_start() yet): counted later, @cont could
 * be readied, run and end before the count was taken, and its job be done
 * while the parker still runs (models/chan.pml, BUG_LATE_COUNT).  The
 * count is ordered before any publication, a plain store too.  A job with
 * a parked continuation is not done.  After publishing it, the parker
 * touches nothing @cont owns: @cont may run at once on another P, and its
 * function is called once per wsx_ready().  Exactly one wsx_ready() per
 * wsx_park().
 *
 * Context: any; does not sleep.
 */
void wsx_park(struct wsx_item *cont)
{
	struct wsx_m *m = wsx_current_m();

	wsx_job_add(cont->job);
	/*
	 * the count before the publication, however the caller publishes:
	 * pairs with the fully ordered RMW that gives @cont's count back
	 * after its run, its M's wsx_job_credit_return()
	 * (litmus/park-count-publish)
	 */
	smp_mb__after_atomic();
	atomic_long_inc(&wsx_waiting);
	if (m && m->p)
		wsx_stat_inc(m->p, item_parks);
	trace_wsx_item_park(cont);
}
EXPORT_SYMBOL_GPL(wsx_park);

/**
 * wsx_ready - queue @cont, parked by wsx_park(), to run
 * @cont:	the continuation, taken off its wait list by the caller
 *
 * From a running item holding a P: into that P's runnext, the item there moved
 * to the runq's tail (wsx_spawn() without the count: Go's goready()), so
 * that two items handing work to each other run on one P.  Otherwise (a
 * wake function, an interrupt, a thread that is not an M, an item in a
 * blocking section that handed its P off): the calling CPU's P when it is
 * idle, where the waker warmed the caches, else the global queue (a P
 * that goes offline meanwhile sends it there too).  The idle test is racy
 * either way; it only chooses where @cont is likely to start soonest.
 * Not counted again: wsx_park() did.
 *
 * Context: any but hard interrupts on PREEMPT_RT (the global queue's lock
 * sleeps there); does not sleep.
 */
void wsx_ready(struct wsx_item *cont)
{
	struct wsx_m *m = wsx_current_m();
	struct wsx_p *here;

	atomic_long_dec(&wsx_waiting);
	/* where it went: the wsx_item_queue event that follows */
	trace_wsx_item_ready(cont, raw_smp_processor_id());
	if (m && m->p) {
		wsx_stat_inc(m->p, ready_runnext);
		if (wsx_put_next(m->p, cont))
			wsx_stat_inc(m->p, ready_displaced);
		return;
	}
	here = wsx_p_here();
	cont->lnode.next = NULL;
	if (here && test_bit(here->id, wsx_sched.pidle) &&
	    wsx_inbox_put(here, &cont->lnode, &cont->lnode, 1, false, false)) {
		atomic64_inc(&wsx_ready_inbox);
		return;
	}
	atomic64_inc(&wsx_ready_global);
	wsx_gq_queue(&cont->lnode, 1, false);
}
EXPORT_SYMBOL_GPL(wsx_ready);

/*
 * The stats' global line: the parked continuations (never below 0 there:
 * a user's unmatched wsx_ready() must not break the readers' parse) and
 * the far readies.
 */
void wsx_parked_show(struct seq_file *sf)
{
	seq_printf(sf, " waiting=%ld ready_inbox=%lld ready_global=%lld",
		   max(atomic_long_read(&wsx_waiting), 0L),
		   (s64)atomic64_read(&wsx_ready_inbox),
		   (s64)atomic64_read(&wsx_ready_global));
}

/* The stats' reset: the far readies (waiting is a count, not a counter). */
void wsx_parked_reset(void)
{
	atomic64_set(&wsx_ready_inbox, 0);
	atomic64_set(&wsx_ready_global, 0);
}

/* Parked continuations not yet readied (a leak, if any at unload). */
long wsx_parked_left(void)
{
	return atomic_long_read(&wsx_waiting);
}

/**
 * wsx_queue_batch_flush - queue what @batch holds, and empty it
 * @batch:	as wsx_queue_batch_add() left it
 *
 * The items are listed in one step where they asked, in the order they
 * were added, and one wakeup decision is made after (wsx_wake_p() or
 * wsx_wakep(): one M, which hands the search on, models/queue.pml's
 * BATCH; for a caller that runs on, @batch->caller_runs); for a P that
 * does not exist or is offline, on the global queue instead.
 * WSX_WHERE_LOCAL is the P of the CPU that flushes.  An
 * item counts as queued from here (its wsx_item_queue event, the latency
 * histograms' queue time, the monitor's wasted-cores check): what waits in
 * a batch is no queue's yet.  Call it before the caller waits for
 * anything the items may do, and before a sleep it can see coming.
 *
 * Context: process context, or any context wsx_queue() may be called in.
 */
void wsx_queue_batch_flush(struct wsx_queue_batch *batch)
{
	struct wsx_p *target;

	if (!batch->n)
		return;
	target = wsx_queue_target(batch->where, batch->p);
	if (!target || !wsx_inbox_put(target, batch->first, batch->last,
				      batch->n, false, batch->caller_runs))
		wsx_gq_queue(batch->first, batch->n, false);
	batch->first = NULL;
	batch->last = NULL;
	batch->n = 0;
	/* a batch zeroed rather than set up grows from 2 as well */
	batch->max = clamp_t(unsigned int, 2 * batch->max, 2,
			     WSX_QUEUE_BATCH_MAX);
}
EXPORT_SYMBOL_GPL(wsx_queue_batch_flush);

/**
 * wsx_queue_batch_add - wsx_queue(), deferred to wsx_queue_batch_flush()
 * @batch:	the caller's batch (WSX_QUEUE_BATCH_INIT)
 * @item:	initialised with wsx_item_init()
 * @where:	as for wsx_queue(); an unknown place is the global queue
 * @p:		the P number for WSX_WHERE_P
 *
 * Counts @item in its job now, so that the job cannot end before the item
 * runs, and adds it to @batch, which is flushed first when it holds items
 * for another place, and after when it is full (1 item, then 2, 4 ... up
 * to WSX_QUEUE_BATCH_MAX: the first waits for no other).  Never fails: an item
 * for a P that does not exist or is offline goes to the global queue.
 * Items wait in the batch while the caller runs: between two flushes it
 * must not wait for anything they may do (a reclaim or a memcg's
 * throttling of its allocations only delays them).
 *
 * Context: as wsx_queue_batch_flush().
 */
void wsx_queue_batch_add(struct wsx_queue_batch *batch, struct wsx_item *item,
			 enum wsx_where where, unsigned int p)
{
	if (where != WSX_WHERE_P)
		p = 0;
	if (batch->n && (batch->where != where || batch->p != p))
		wsx_queue_batch_flush(batch);
	wsx_job_add(item->job);
	item->lnode.next = batch->first;
	batch->first = &item->lnode;
	if (!batch->n++) {
		batch->last = &item->lnode;
		batch->where = where;
		batch->p = p;
	}
	if (batch->n >= batch->max)
		wsx_queue_batch_flush(batch);
}
EXPORT_SYMBOL_GPL(wsx_queue_batch_add);

unsigned int wsx_p_depth(struct wsx_p *p)
{
	int inbox = atomic_read(&p->inbox_len);

	return wsx_runq_len(&p->runq) + !!READ_ONCE(p->runnext) +
	       READ_ONCE(p->backlog_len) + max(inbox, 0);
}

/* ---- hotplug and init ---------------------------------------------------- */

/* Owner: move everything queued on @p to the global queue. */
void wsx_p_drain(struct wsx_p *p)
{
	struct wsx_item *item, *tmp;
	struct llist_node *list;
	unsigned int n = 0;
	LIST_HEAD(items);

	list_splice_tail_init(&p->backlog, &items);
	WRITE_ONCE(p->backlog_len, 0);
	/* the items' contents, as in the drain (litmus/inbox-put-drain-mp) */
	list = llist_reverse_order(llist_del_all(&p->inbox));
	atomic_inc(&p->inbox_takes);
	llist_for_each_entry_safe(item, tmp, list, lnode) {
		list_add_tail(&item->node, &items);
		atomic_dec(&p->inbox_len);
		wsx_walk_point(++n);
	}
	/* against a thief's cmpxchg: litmus/runq-put-runnext-steal-once */
	item = xchg(&p->runnext, NULL);
	if (item)
		list_add_tail(&item->node, &items);
	while ((item = wsx_runq_pop(&p->runq)))
		list_add_tail(&item->node, &items);
	n = 0;
	list_for_each_entry(item, &items, node) {
		wsx_item_to_gq(item);
		wsx_walk_point(++n);
	}
	if (n) {
		wsx_gq_put_list(wsx_gq_of(p), &items, n);
		wsx_wakep(p, NULL);
	}
}

/*
 * The global queues, once the Ps' nodes are known: one per node under
 * steal_topology=numa with Ps on several nodes, else one.  No item can be
 * queued yet: the Ms wait in their first stop for the online callbacks.
 */
int wsx_gq_init(void)
{
	unsigned int q;

	wsx_sched.ngq = wsx_sched.steal_topology == WSX_TOPO_NUMA ?
			wsx_sched.nnodes : 1;
	wsx_sched.gq = kcalloc(wsx_sched.ngq, sizeof(*wsx_sched.gq),
			       GFP_KERNEL);
	if (!wsx_sched.gq)
		return -ENOMEM;
	for (q = 0; q < wsx_sched.ngq; q++) {
		spin_lock_init(&wsx_sched.gq[q].lock);
		INIT_LIST_HEAD(&wsx_sched.gq[q].items);
	}
	return 0;
}
