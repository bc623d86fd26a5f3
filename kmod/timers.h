/* SPDX-License-Identifier: GPL-2.0 */
/* timers.c: delayed items on per-P timers. */
#ifndef _WSX_TIMERS_H
#define _WSX_TIMERS_H

#include <linux/types.h>

struct llist_node;
struct wsx_p;

struct llist_node *wsx_timers_pop_due(struct wsx_p *p);
void wsx_timers_flush(const bool *cancel);
void wsx_timers_init(struct wsx_p *p);
void wsx_timers_exit(struct wsx_p *p);

#endif /* _WSX_TIMERS_H */
