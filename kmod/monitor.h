/* SPDX-License-Identifier: GPL-2.0 */
/* monitor.c: the long-item monitor. */
#ifndef _WSX_MONITOR_H
#define _WSX_MONITOR_H

void wsx_monitor_kick(void);
void wsx_monitor_stop(void);
void wsx_monitor_wasted(u64 *checks, u64 *ms);
void wsx_monitor_reset_wasted(void);
extern unsigned int wsx_long_item_ms;

#endif /* _WSX_MONITOR_H */
