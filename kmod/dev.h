/* SPDX-License-Identifier: GPL-2.0 */
/* dev.c: the /dev/wsx misc device and its sessions. */
#ifndef _WSX_DEV_H
#define _WSX_DEV_H

extern unsigned int wsx_max_inflight_fd;
int wsx_dev_init(void);
void wsx_dev_exit(void);

#endif /* _WSX_DEV_H */
