/* SPDX-License-Identifier: GPL-2.0 */
/* handoff.c: Ms without a P, the pool of spare Ms, blocking sections. */
#ifndef _WSX_HANDOFF_H
#define _WSX_HANDOFF_H

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/types.h>

#include "sched.h"

struct wsx_m *wsx_m_create(struct wsx_p *p, bool extra);
void wsx_m_start(struct wsx_m *m);
void wsx_m_destroy_all(void);
void wsx_m_bind(struct wsx_m *m);
void wsx_m_unbind(void);
bool wsx_m_pool_wait(struct wsx_m *m);
bool wsx_m_idle_p(struct wsx_m *m);
bool wsx_m_yield_p(struct wsx_m *m);
bool wsx_pidle_reclaim(struct wsx_m *m);
void wsx_m_block_end(struct wsx_m *m);
extern unsigned int wsx_idle_thread_ms;

/*
 * Whether the current M @m, holding a P, runs bound to its P's CPU: then
 * wsx_m_bind() does nothing, else it may wait.  Inline: the M loop asks
 * before every item.
 */
static inline bool wsx_m_bound(struct wsx_m *m)
{
	/* the kernel's, which it changes when a CPU goes down under us */
	return data_race(current->nr_cpus_allowed) == 1 &&
	       raw_smp_processor_id() == m->p->cpu;
}

#endif /* _WSX_HANDOFF_H */
