/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of wsx.ko that are neither the
 * scheduler's (sched.h) nor the ops' (ops.h).  Nothing here is exported.
 */
#ifndef _WSX_INTERNAL_H
#define _WSX_INTERNAL_H

#include <linux/atomic.h>
#include <linux/types.h>

struct file;
struct wsx_account;
struct poll_table_struct;
struct vm_area_struct;
struct wsx_completion;
struct wsx_enter;
struct wsx_item;
struct wsx_job;
struct wsx_req;
struct wsx_ring_setup;
struct wsx_rings;

/* job.c */
void wsx_job_add(struct wsx_job *job);
void wsx_job_put(struct wsx_job *job);

/* dev.c: the /dev/wsx misc device */
int wsx_dev_init(void);
void wsx_dev_exit(void);
extern unsigned int wsx_max_inflight_fd;
extern unsigned int wsx_max_inflight;
extern atomic64_t wsx_cancelled_jobs;
int wsx_inflight_reserve(unsigned int n);
void wsx_inflight_unreserve(unsigned int n);
int wsx_req_check(const struct wsx_req *req, u16 flags_ok);
void wsx_submit_root(struct wsx_item *root, const struct wsx_req *req);
void wsx_record_fill(struct wsx_completion *rec, u64 user_data, u32 op,
		     const struct wsx_job *job, u64 queued_ns, u64 finished_ns);

/* rings.c: the rings a session shares with userspace */
extern unsigned int wsx_ring_max_entries;
struct wsx_rings *wsx_rings_create(struct wsx_ring_setup *setup,
				   const bool *cancel,
				   wait_queue_head_t *poll_wq,
				   struct wsx_account *acct);
void wsx_rings_quiesce(struct wsx_rings *r);
void wsx_rings_destroy(struct wsx_rings *r);
long wsx_rings_enter(struct wsx_rings *r, struct wsx_enter *e);
int wsx_rings_mmap(struct wsx_rings *r, struct vm_area_struct *vma);
bool wsx_rings_poll(struct wsx_rings *r);

/* stats.c: /sys/kernel/debug/wsx/ */
void wsx_debugfs_init(void);
void wsx_debugfs_exit(void);

#endif /* _WSX_INTERNAL_H */
