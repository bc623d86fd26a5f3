/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of wsx.ko that are neither the
 * scheduler's (sched.h) nor the ops' (ops.h).  Nothing here is exported.
 */
#ifndef _WSX_INTERNAL_H
#define _WSX_INTERNAL_H

#include <linux/atomic.h>
#include <linux/types.h>

struct wsx_job;

/* job.c */
void wsx_job_add(struct wsx_job *job);
void wsx_job_put(struct wsx_job *job);

/* dev.c: the /dev/wsx misc device */
int wsx_dev_init(void);
void wsx_dev_exit(void);
extern unsigned int wsx_max_inflight_fd;
extern unsigned int wsx_max_inflight;
extern atomic64_t wsx_cancelled_jobs;

/* stats.c: /sys/kernel/debug/wsx/ */
void wsx_debugfs_init(void);
void wsx_debugfs_exit(void);

#endif /* _WSX_INTERNAL_H */
