/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx_flood: what its two files share (wsx_flood.c: the command and the
 * ioctl door; flood_rings.c: the doors through shared rings).
 */
#ifndef _WSX_FLOOD_H
#define _WSX_FLOOD_H

#include <linux/types.h>

/*
 * The NOP flood in @mode "rings", "pickup", "uring-async" or "uring-inline":
 * 0, 1 on a failure, 2 for an unknown mode.  Its wall time in *@wall_ns
 * unless NULL.
 */
int flood_rings(const char *mode, unsigned long total, unsigned int batch,
		unsigned long inflight, __u64 *wall_ns);

/*
 * Open a session with pick-up rings (SQ 1, CQ 1), run one NOP through them
 * and leave it idle, open and mapped: 0, or -1 with the failure printed.
 */
int flood_idle_session(void);

#endif /* _WSX_FLOOD_H */
