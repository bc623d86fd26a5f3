// SPDX-License-Identifier: GPL-2.0
/*
 * wsx jobs: completion groups of items.
 *
 * A job counts its unfinished items in the low 32 bits of @refs and every
 * item ever added in the high 32 bits, so that adding an item is one atomic
 * add and finishing one is one atomic decrement: the hot path of a spawn
 * tree touches the job's cache line twice per item and nothing else.  The
 * creator holds one extra count from wsx_job_init() to wsx_job_start(), so
 * the done callback cannot run while the first items are being queued.
 */
#include <linux/atomic.h>
#include <linux/module.h>

#include "wsx.h"
#include "job.h"

#define WSX_JOB_PENDING_MASK	0xffffffffULL
#define WSX_JOB_ADD		((1ULL << 32) + 1)

/**
 * wsx_job_init - prepare a job
 * @job:	the job
 * @done:	called once all its items have finished
 *
 * The creator holds one reference until wsx_job_start(), so that @done
 * cannot run while items are still being added.
 */
void wsx_job_init(struct wsx_job *job, void (*done)(struct wsx_job *job))
{
	atomic64_set(&job->refs, 1);
	job->done = done;
	job->cancel = NULL;
	job->result = 0;
	job->status = 0;
	job->cpu = 0;
	job->started_ns = 0;
	job->acct = NULL;
}
EXPORT_SYMBOL_GPL(wsx_job_init);

/* Count one more item of @job: wsx_queue() and wsx_spawn() call it. */
void wsx_job_add(struct wsx_job *job)
{
	atomic64_add(WSX_JOB_ADD, &job->refs);
}

/* One item of @job finished: the last one runs the done callback. */
void wsx_job_put(struct wsx_job *job)
{
	/* fully ordered: the items' writes happen before done() */
	if (!(atomic64_dec_return(&job->refs) & WSX_JOB_PENDING_MASK))
		job->done(job);
}

/**
 * wsx_job_start - drop the creator's reference taken by wsx_job_init()
 * @job:	the job
 *
 * Call after queueing the job's first items.  @job->done may run before this
 * returns, so do not touch @job afterwards unless @done keeps it alive.
 */
void wsx_job_start(struct wsx_job *job)
{
	wsx_job_put(job);
}
EXPORT_SYMBOL_GPL(wsx_job_start);

/**
 * wsx_job_nodes - how many items were ever added to a job
 * @job:	the job
 *
 * Return: the count, modulo 2^32.
 */
u32 wsx_job_nodes(const struct wsx_job *job)
{
	return atomic64_read(&job->refs) >> 32;
}
EXPORT_SYMBOL_GPL(wsx_job_nodes);
