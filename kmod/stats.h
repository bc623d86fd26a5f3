/* SPDX-License-Identifier: GPL-2.0 */
/* stats.c: /sys/kernel/debug/wsx/. */
#ifndef _WSX_STATS_H
#define _WSX_STATS_H

void wsx_debugfs_init(void);
void wsx_debugfs_exit(void);

#endif /* _WSX_STATS_H */
