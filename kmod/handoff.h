/* SPDX-License-Identifier: GPL-2.0 */
/* handoff.c: Ms without a P, the pool of spare Ms, blocking sections. */
#ifndef _WSX_HANDOFF_H
#define _WSX_HANDOFF_H

#include <linux/types.h>

struct wsx_m;
struct wsx_p;

struct wsx_m *wsx_m_create(struct wsx_p *p, bool extra);
void wsx_m_start(struct wsx_m *m);
void wsx_m_destroy_all(void);
bool wsx_m_bound(struct wsx_m *m);
void wsx_m_bind(struct wsx_m *m);
void wsx_m_unbind(void);
bool wsx_m_pool_wait(struct wsx_m *m);
bool wsx_m_idle_p(struct wsx_m *m);
bool wsx_m_yield_p(struct wsx_m *m);
bool wsx_pidle_reclaim(struct wsx_m *m);
void wsx_m_block_end(struct wsx_m *m);
extern unsigned int wsx_idle_thread_ms;

#endif /* _WSX_HANDOFF_H */
