/* SPDX-License-Identifier: GPL-2.0 */
/* wsx stealing (steal.c) */
#ifndef _WSX_STEAL_H
#define _WSX_STEAL_H

#include "sched.h"

struct wsx_item *wsx_steal_work(struct wsx_m *m);

#endif /* _WSX_STEAL_H */
