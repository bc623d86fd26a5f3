/* SPDX-License-Identifier: GPL-2.0 */
/* submit.c: the submission core of WSX_IOC_SUBMIT and the shared rings. */
#ifndef _WSX_SUBMIT_H
#define _WSX_SUBMIT_H

#include <linux/atomic.h>
#include <linux/types.h>

struct wsx_completion;
struct wsx_item;
struct wsx_job;
struct wsx_queue_batch;
struct wsx_req;

extern unsigned int wsx_max_inflight;
extern atomic64_t wsx_cancelled_jobs;
int wsx_req_check(const struct wsx_req *req, u16 flags_ok);
int wsx_inflight_reserve(unsigned int n);
void wsx_inflight_unreserve(unsigned int n);
void wsx_submit_before_setup(const struct wsx_req *req,
			     struct wsx_queue_batch *batch);
void wsx_submit_root(struct wsx_item *root, const struct wsx_req *req,
		     struct wsx_queue_batch *batch);
void wsx_record_fill(struct wsx_completion *rec, u64 user_data, u32 op,
		     const struct wsx_job *job, u64 queued_ns, u64 finished_ns);

#endif /* _WSX_SUBMIT_H */
