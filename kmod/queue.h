/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx run queues (queue.c): a P's runnext, runq, inbox and backlog, the
 * global queues, and queueing.  The fields are struct wsx_p's and struct
 * wsx_gqueue's, tagged in sched.h.
 */
#ifndef _WSX_QUEUE_H
#define _WSX_QUEUE_H

#include "sched.h"

/* Module parameter latency_sample: one item in this many is timed. */
extern unsigned int wsx_latency_sample;

int wsx_queue_counted(struct wsx_item *item, enum wsx_where where,
		      unsigned int p, bool add);

/* Items in the global queues, all together (racy). */
unsigned int wsx_gq_len_all(void);
/* Approximate number of items queued on @p (runq, runnext, inbox). */
unsigned int wsx_p_depth(struct wsx_p *p);

/* For the M loop (sched.c) and stealing (steal.c) */
struct wsx_p *wsx_p_here(void);
struct wsx_p *wsx_p_busy_here(void);
void wsx_walk_point(unsigned int n);
void wsx_item_stamp(struct wsx_item *item, unsigned int p, u8 origin);
void wsx_item_to_gq(struct wsx_item *item);
void wsx_gq_put_near(struct wsx_p *here, struct list_head *items,
		     unsigned int n);
void wsx_runq_put(struct wsx_p *p, struct wsx_item *item, bool next);
struct wsx_item *wsx_runq_get(struct wsx_p *p, bool *inherit);
void wsx_inbox_drain(struct wsx_p *p);
struct wsx_item *wsx_gq_get_nearest(struct wsx_p *p);
struct wsx_item *wsx_gq_tick_get(struct wsx_p *p);
void wsx_p_drain(struct wsx_p *p);
int wsx_gq_init(void);

#endif /* _WSX_QUEUE_H */
