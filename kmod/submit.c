// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the submission core both doors share.  WSX_IOC_SUBMIT (dev.c) and
 * the shared rings (rings.c: ENTER and the Ms' pick-up) turn a request
 * into a job through the same steps: check the copied request
 * (wsx_req_check()), count the job in flight in all (max_inflight:
 * wsx_inflight_reserve()), queue its root where it asks
 * (wsx_submit_root()), and fill its completion record when it is done
 * (wsx_record_fill()).  rings.c never calls dev.c.
 */
#include <linux/atomic.h>
#include <linux/string.h>

#include <linux/wsx.h>

#include "ops.h"
#include "sched.h"
#include "submit.h"

unsigned int wsx_max_inflight = 1U << 20;
static atomic_t wsx_inflight_total = ATOMIC_INIT(0);
/* jobs whose session closed before they finished: the stats' cancelled */
atomic64_t wsx_cancelled_jobs = ATOMIC64_INIT(0);

/**
 * wsx_req_check - check a request copied from userspace
 * @req:	the copy
 * @flags_ok:	the WSX_REQ_* flags allowed (none in WSX_IOC_SUBMIT)
 *
 * Return: 0 or the -errno WSX_IOC_SUBMIT documents for a refused item.
 */
int wsx_req_check(const struct wsx_req *req, u16 flags_ok)
{
	if ((req->flags & ~flags_ok) || req->reserved)
		return -EINVAL;
	switch (req->place) {
	case WSX_PLACE_LOCAL:
	case WSX_PLACE_GLOBAL:
		if (req->target)
			return -EINVAL;
		break;
	case WSX_PLACE_P:
		if (!wsx_p_is_online(req->target))
			return -ENXIO;
		break;
	default:
		return -EINVAL;
	}
	if (req->delay_ns > WSX_DELAY_MAX_NS)
		return -E2BIG;
	return wsx_op_check(req);
}

/**
 * wsx_inflight_reserve - count @n more jobs in flight in all
 * @n:		how many
 *
 * Return: 0, or -EAGAIN (nothing counted) when that would pass
 * max_inflight.  wsx_inflight_unreserve() gives them back.
 */
int wsx_inflight_reserve(unsigned int n)
{
	if ((unsigned int)atomic_add_return(n, &wsx_inflight_total) >
	    READ_ONCE(wsx_max_inflight)) {
		atomic_sub(n, &wsx_inflight_total);
		return -EAGAIN;
	}
	return 0;
}

void wsx_inflight_unreserve(unsigned int n)
{
	atomic_sub(n, &wsx_inflight_total);
}

static const enum wsx_where wsx_where_of[] = {
	[WSX_PLACE_LOCAL] = WSX_WHERE_LOCAL,
	[WSX_PLACE_P] = WSX_WHERE_P,
	[WSX_PLACE_GLOBAL] = WSX_WHERE_GLOBAL,
};

/*
 * Queue a request's root item where it asks, now (in @batch: the caller
 * flushes it) or after its delay; on a P that went offline since the
 * check, on the global queue instead.
 */
void wsx_submit_root(struct wsx_item *root, const struct wsx_req *req,
		     struct wsx_queue_batch *batch)
{
	enum wsx_where where = wsx_where_of[req->place];

	if (!req->delay_ns)
		wsx_queue_batch_add(batch, root, where, req->target);
	else if (wsx_queue_after(root, where, req->target, req->delay_ns))
		wsx_queue_after(root, WSX_WHERE_GLOBAL, 0, req->delay_ns);
}

/*
 * Before a request's op is set up: an op whose start may fault on the
 * submitter's pages (wsx_op_may_fault(): a fault that a user serves, one
 * that waits for these very items) must not hold up what @batch holds:
 * queue it first.  Not for every op of the submitter: a POLL's start looks
 * a descriptor up, which waits for no user, and a flush per POLL would
 * queue each alone and wake an M for each.
 */
void wsx_submit_before_setup(const struct wsx_req *req,
			     struct wsx_queue_batch *batch)
{
	if (wsx_op_may_fault(req->op))
		wsx_queue_batch_flush(batch);
}

/**
 * wsx_record_fill - the completion record of a finished job
 * @rec:	filled
 * @user_data:	the request's
 * @op:		its enum wsx_op
 * @job:	the job
 * @queued_ns:	when it was queued (0: not timed)
 * @finished_ns: when it finished (0: not timed)
 */
void wsx_record_fill(struct wsx_completion *rec, u64 user_data, u32 op,
		     const struct wsx_job *job, u64 queued_ns, u64 finished_ns)
{
	memset(rec, 0, sizeof(*rec));
	rec->user_data = user_data;
	rec->result = wsx_op_result(op, job);
	rec->status = job->status;
	rec->cpu = job->cpu;
	rec->queued_ns = queued_ns;
	rec->started_ns = job->started_ns;
	rec->finished_ns = finished_ns;
	rec->nodes = wsx_job_nodes(job);
}
