// SPDX-License-Identifier: GPL-2.0
/*
 * wsx timers: delayed items, as Go's per-P timer heaps.
 *
 * Each P keeps its delayed items ordered by due time in a timerqueue (the
 * kernel's time-ordered rbtree with a cached earliest node: O(log n) insert,
 * O(1) earliest, what a min-heap gives) under p->tlock, and one hrtimer armed
 * for the earliest.  When it fires, the due items enter their P's inbox (or
 * the global queue), as if queued then.  The hrtimer is not pinned to the
 * P's CPU: a P that goes offline keeps its timers, which still fire, and its
 * items go to the global queue (wsx_queue_counted() routes them there), so
 * nothing is lost.  In the last round of stealing, a thief runs the due
 * items of a P whose own M is busy (wsx_timers_pop_due()), as Go's
 * stealWork runs other Ps' timers.
 *
 * A delayed item counts in its job from wsx_queue_after() on, so the job
 * cannot complete under it; firing queues it without counting it again.
 * Closing a session fires its delayed items at once (wsx_timers_flush());
 * being cancelled, they skip their work.
 *
 * The timers run in softirq context (HRTIMER_MODE_ABS_SOFT), so that
 * p->tlock and the queues' locks are never taken in hard interrupts, which
 * also keeps PREEMPT_RT kernels happy.
 *
 * Bounds.  A user decides how many items are delayed and when they fall
 * due (up to max_inflight of them, all at once), so no walk of the timers
 * is as long as they are: a hold of tlock (interrupts off) looks at or
 * takes at most WSX_TIMERS_BATCH items, and one run of the hrtimer queues
 * at most that many.  After a full batch it re-arms for a time after the
 * softirq's own clock read (the soft pass, __hrtimer_run_queues() from
 * hrtimer_run_softirq(), runs every timer due by then, re-armed ones too),
 * so the rest come in the next pass, a softirq raise later, with other
 * softirqs and, past softirq's restart limit, ksoftirqd between.  (With
 * low-resolution timers that next pass is the next tick's: 64 items per
 * tick per P, and thieves take due items of a busy P meanwhile.)
 *
 * wsx_timers_flush() walks a P's timers in batches and resumes at the
 * item it stopped before, kept in p->tcursor while tlock is dropped.
 * Flushes are serialized, so the only thing that can take that item
 * meanwhile is a pop of due items; wsx_timers_take() then moves the
 * cursor on to the item after it, which the flush has not looked at
 * either, so the walk only goes forward.  It ends at the first item due
 * after the last one there was when it started: a closing session adds
 * no items, so all of its items are due by then, and other sessions'
 * items added later, however many, cannot keep it walking.  Items added
 * while tlock is dropped are other sessions', and the walk may or may not
 * meet them: either is right (models/timers.pml).
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/timerqueue.h>

#include "fault.h"
#include "job.h"
#include "queue.h"
#include "sched.h"
#include "timers.h"

/* Items looked at or taken in one hold of tlock, queued by one hrtimer run */
#define WSX_TIMERS_BATCH	64
/* After a full batch the hrtimer fires again this long from now at least */
#define WSX_TIMERS_REARM_NS	1000

/* One flush at a time: each P has one cursor (p->tcursor) */
static DEFINE_MUTEX(wsx_timers_flush_lock);

static struct wsx_item *wsx_item_of(struct timerqueue_node *node)
{
	return container_of(node, struct wsx_item, tnode);
}

/*
 * Under p->tlock: (re)arm @p's hrtimer for its earliest item, if any, and
 * not before @not_before.
 */
static void wsx_timers_arm(struct wsx_p *p, ktime_t not_before)
{
	struct timerqueue_node *first = timerqueue_getnext(&p->timers);

	lockdep_assert_held(&p->tlock);
	if (first)
		hrtimer_start(&p->hrt, max(first->expires, not_before),
			      HRTIMER_MODE_ABS_SOFT);
}

/* Queue the items of @chain (linked through lnode): they are due. */
static void wsx_timers_deliver(struct llist_node *chain)
{
	struct wsx_item *item, *tmp;

	llist_for_each_entry_safe(item, tmp, chain, lnode) {
		if (item->queued_p == WSX_NO_P)
			wsx_queue_counted(item, WSX_WHERE_GLOBAL, 0, false);
		else
			wsx_queue_counted(item, WSX_WHERE_P, item->queued_p,
					  false);
	}
}

/* Under p->tlock: move @item's node from @p's timers to @chain. */
static void wsx_timers_take(struct wsx_p *p, struct wsx_item *item,
			    struct llist_node **chain)
{
	lockdep_assert_held(&p->tlock);
	if (p->tcursor == &item->tnode) {
		/* a paused flush goes on with the next */
		p->tcursor = timerqueue_iterate_next(&item->tnode);
		wsx_count(WSX_COUNT_CURSOR_MOVES);
	}
	timerqueue_del(&p->timers, &item->tnode);
	WRITE_ONCE(p->ntimers, p->ntimers - 1);
	/* tnode and lnode share memory: tnode is free from here on */
	item->lnode.next = *chain;
	*chain = &item->lnode;
}

/**
 * wsx_timers_pop_due - take up to WSX_TIMERS_BATCH of @p's items that are
 * due, the earliest first
 * @p:		the P
 *
 * Return: a chain of items linked through lnode, earliest first, or NULL.
 */
struct llist_node *wsx_timers_pop_due(struct wsx_p *p)
{
	struct timerqueue_node *node;
	struct llist_node *chain = NULL;
	unsigned int n = 0;
	unsigned long flags;
	ktime_t now;

	if (!READ_ONCE(p->ntimers))
		return NULL;
	now = ktime_get();
	spin_lock_irqsave(&p->tlock, flags);
	while (n < WSX_TIMERS_BATCH &&
	       (node = timerqueue_getnext(&p->timers)) && node->expires <= now) {
		wsx_timers_take(p, wsx_item_of(node), &chain);
		n++;
	}
	wsx_watermark(WSX_WM_TLOCK_ITEMS, n);
	spin_unlock_irqrestore(&p->tlock, flags);
	return llist_reverse_order(chain);
}

/*
 * A batch of due items, then the hrtimer again for the earliest left; after
 * a full batch, not before the next pass (see "Bounds").
 */
static enum hrtimer_restart wsx_timers_fire(struct hrtimer *hrt)
{
	struct wsx_p *p = container_of(hrt, struct wsx_p, hrt);
	struct llist_node *chain = wsx_timers_pop_due(p), *node;
	ktime_t not_before = 0;
	unsigned int n = 0;
	unsigned long flags;

	for (node = chain; node; node = node->next)
		n++;
	wsx_watermark(WSX_WM_FIRE_ITEMS, n);
	wsx_timers_deliver(chain);
	/* a full batch: the rest in the next pass (see "Bounds") */
	if (n == WSX_TIMERS_BATCH)
		not_before = ktime_add_ns(ktime_get(), WSX_TIMERS_REARM_NS);
	spin_lock_irqsave(&p->tlock, flags);
	wsx_timers_arm(p, not_before);
	spin_unlock_irqrestore(&p->tlock, flags);
	return HRTIMER_NORESTART;
}

/**
 * wsx_queue_after - queue @item once @delay_ns have passed
 * @item:	initialised with wsx_item_init()
 * @where:	as for wsx_queue(); WSX_WHERE_LOCAL means the calling CPU's P
 * @p:		the P number for WSX_WHERE_P
 * @delay_ns:	how long from now
 *
 * The item waits in its P's timers (the calling CPU's P, or P0, for the
 * global queue) and is queued when due, on its P or, if that P is offline
 * by then, on the global queue.  Any context but hard interrupts on
 * PREEMPT_RT, where the P's timer lock (a spinlock_t) sleeps, as
 * wsx_queue().
 *
 * Return: 0, -ENXIO when P @p does not exist or is offline, -EINVAL for an
 * unknown @where.
 */
int wsx_queue_after(struct wsx_item *item, enum wsx_where where,
		    unsigned int p, u64 delay_ns)
{
	struct wsx_p *local = wsx_p_here();
	struct wsx_p *heap;
	unsigned long flags;

	switch (where) {
	case WSX_WHERE_LOCAL:
		item->queued_p = local ? local->id : WSX_NO_P;
		break;
	case WSX_WHERE_P:
		if (!wsx_p_is_online(p))
			return -ENXIO;
		item->queued_p = p;
		break;
	case WSX_WHERE_GLOBAL:
		item->queued_p = WSX_NO_P;
		break;
	default:
		return -EINVAL;
	}
	heap = item->queued_p == WSX_NO_P ? local ?: wsx_sched.ps[0] :
	       wsx_sched.ps[item->queued_p];
	wsx_job_add(item->job);
	timerqueue_init(&item->tnode);
	item->tnode.expires = ktime_add_ns(ktime_get(), delay_ns);
	spin_lock_irqsave(&heap->tlock, flags);
	WRITE_ONCE(heap->ntimers, heap->ntimers + 1);
	if (timerqueue_add(&heap->timers, &item->tnode))
		wsx_timers_arm(heap, 0);	/* the new earliest */
	spin_unlock_irqrestore(&heap->tlock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(wsx_queue_after);

/*
 * Take the delayed items of @p whose job's cancel flag is @cancel, a batch
 * per hold of tlock, queueing each batch with tlock dropped; see "Bounds"
 * above for the cursor.  Under wsx_timers_flush_lock.
 */
static void wsx_timers_flush_p(struct wsx_p *p, const bool *cancel)
{
	struct timerqueue_node *node, *next;
	struct llist_node *chain;
	struct rb_node *last;
	unsigned int n;
	unsigned long flags;
	ktime_t end;

	lockdep_assert_held(&wsx_timers_flush_lock);
	spin_lock_irqsave(&p->tlock, flags);
	last = rb_last(&p->timers.rb_root.rb_root);
	end = last ? rb_entry(last, struct timerqueue_node, node)->expires : 0;
	node = timerqueue_getnext(&p->timers);
	for (;;) {
		chain = NULL;
		for (n = 0; node && n < WSX_TIMERS_BATCH; node = next, n++) {
			if (node->expires > end) {
				node = NULL;	/* added since: not ours */
				break;
			}
			next = timerqueue_iterate_next(node);
			if (wsx_item_of(node)->job->cancel == cancel)
				wsx_timers_take(p, wsx_item_of(node), &chain);
		}
		wsx_watermark(WSX_WM_TLOCK_ITEMS, n);
		p->tcursor = node;
		spin_unlock_irqrestore(&p->tlock, flags);
		wsx_timers_deliver(llist_reverse_order(chain));
		if (!node)
			return;
		wsx_fault_sleep(WSX_FAULT_FLUSH_BETWEEN_BATCHES);
		cond_resched();
		spin_lock_irqsave(&p->tlock, flags);
		node = p->tcursor;	/* perhaps moved on by a pop */
		p->tcursor = NULL;
	}
}

/**
 * wsx_timers_flush - queue at once every delayed item whose job's cancel
 * flag is @cancel (a closing session's)
 * @cancel:	the flag
 *
 * Process context: it sleeps between batches.
 */
void wsx_timers_flush(const bool *cancel)
{
	unsigned int id;

	mutex_lock(&wsx_timers_flush_lock);
	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];

		if (READ_ONCE(p->ntimers))
			wsx_timers_flush_p(p, cancel);
	}
	mutex_unlock(&wsx_timers_flush_lock);
}

void wsx_timers_init(struct wsx_p *p)
{
	spin_lock_init(&p->tlock);
	timerqueue_init_head(&p->timers);
	hrtimer_init(&p->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	p->hrt.function = wsx_timers_fire;
}

/* Module exit: no delayed item may be left (their sessions are closed). */
void wsx_timers_exit(struct wsx_p *p)
{
	hrtimer_cancel(&p->hrt);
	WARN_ON_ONCE(READ_ONCE(p->ntimers));
}
