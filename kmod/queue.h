/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx run queues (queue.c): a P's runnext, runq, inbox and backlog, the
 * global queues, and queueing.  The fields are struct wsx_p's and struct
 * wsx_gqueue's, tagged in sched.h.
 */
#ifndef _WSX_QUEUE_H
#define _WSX_QUEUE_H

#include <linux/llist.h>
#include <linux/sched.h>

#include "sched.h"

struct seq_file;

/* Module parameter latency_sample: one item in this many is timed. */
extern unsigned int wsx_latency_sample;

int wsx_queue_counted(struct wsx_item *item, enum wsx_where where,
		      unsigned int p, bool add);

/* Parked continuations (wsx_park(), wsx_ready()): the stats' figures. */
void wsx_parked_show(struct seq_file *sf);
void wsx_parked_reset(void);
long wsx_parked_left(void);

/* Items in the global queues, all together (racy). */
unsigned int wsx_gq_len_all(void);
void wsx_gq_sample(struct wsx_gqueue *gq, u64 *gets, unsigned int *len);
/* Approximate number of items queued on @p (runq, runnext, inbox). */
unsigned int wsx_p_depth(struct wsx_p *p);

/* For the M loop (sched.c) and stealing (steal.c) */
void wsx_item_stamp(struct wsx_item *item, unsigned int p, u8 origin);
void wsx_gq_put_near(struct wsx_p *here, struct list_head *items,
		     unsigned int n);
bool wsx_runq_put(struct wsx_p *p, struct wsx_item *item, bool next);
struct wsx_item *wsx_gq_get_nearest(struct wsx_p *p);
struct wsx_item *wsx_gq_tick_get(struct wsx_p *p);
void wsx_p_drain(struct wsx_p *p);
int wsx_gq_init(void);

/*
 * Inline: the M loop (sched.c) and stealing call these for every item, or
 * every item of a walk.
 */

/*
 * A preemption point every 1024 items of a walk a user can lengthen (an
 * inbox holds whatever submitters queued on one P), for an M (process
 * context, no lock held) on a kernel without full preemption.
 */
static inline void wsx_walk_point(unsigned int n)
{
	if (!(n % 1024))
		cond_resched();
}

/*
 * @item moves to the global queue from a P (spill, hotplug drain): it no
 * longer counts as queued on that P, so that running it elsewhere is not
 * taken for a steal.
 */
static inline void wsx_item_to_gq(struct wsx_item *item)
{
	item->queued_p = WSX_NO_P;
	item->origin = WSX_ORIGIN_GLOBAL;
}

/* Owner only: the next local item, and whether it inherits the tick. */
static inline struct wsx_item *wsx_runq_get(struct wsx_p *p, bool *inherit)
{
	bool chain = p->runnext_chain < WSX_RUNNEXT_CHAIN_MAX;
	struct wsx_item *item;

	if (chain) {
		item = wsx_runnext_take(&p->runnext);
		if (item) {
			p->runnext_chain++;
			*inherit = true;
			wsx_stat_inc(p, runnext_hits);
			return item;
		}
	}
	p->runnext_chain = 0;
	*inherit = false;
	item = wsx_runq_pop(&p->runq);
	/*
	 * runnext, found empty above, still is: only its owner, this M,
	 * stores an item there (wsx_runq_put()); thieves only empty it
	 * (see wsx_runnext_take())
	 */
	if (item || chain)
		return item;
	/* the chain bound skipped runnext, but nothing else is queued */
	item = wsx_runnext_take(&p->runnext);
	if (item)
		wsx_stat_inc(p, runnext_hits);
	return item;
}

/*
 * Owner only, at each schedule point, when wsx_inbox_waiting(): move what
 * was queued on @p from outside into its runq, through its backlog.
 */
void wsx_inbox_drain(struct wsx_p *p);

/* Owner only: whether @p's inbox or backlog holds items to drain. */
static inline bool wsx_inbox_waiting(struct wsx_p *p)
{
	return !llist_empty(&p->inbox) || p->backlog_len;
}

#endif /* _WSX_QUEUE_H */
