/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl: the submit and reap loops that "run" and "crc32c" share: through
 * the rings (ABI 1.1) by default, through WSX_IOC_SUBMIT and WSX_IOC_WAIT
 * with job->ioctl or on a module without rings.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wsxctl.h"

struct job_state {
	struct job *job;
	struct wsx_req *items;
	struct wsx_completion *recs;
	uint64_t submitted;
	uint64_t reaped;
	bool blocked;		/* the last submission met -EAGAIN */
	bool all_in;		/* job->all_in ran */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Submits the next batch; 0 or -errno of a refusal other than -EAGAIN. */
static int submit_batch(struct job_state *js)
{
	struct job *job = js->job;
	uint64_t left = job->count - js->submitted;
	unsigned int i, n = left < job->batch ? left : job->batch;
	int ret, item_error;

	for (i = 0; i < n; i++)
		job->fill(&js->items[i], js->submitted + i, job->ctx);
	ret = wsx_submit(job->w, js->items, n, &item_error);
	if (ret < 0)
		item_error = ret;
	else
		js->submitted += ret;
	/* with all_in, no record comes before all are in: fail */
	if (item_error == -EAGAIN && js->submitted > js->reaped &&
	    !job->all_in) {
		js->blocked = true;
		return 0;
	}
	return item_error;
}

/* Calls job->all_in once all items are in the module. */
static void all_in(struct job *job, uint64_t submitted, bool *done)
{
	if (job->all_in && !*done && submitted == job->count) {
		job->all_in(job->ctx);
		*done = true;
	}
}

/* Reaps what is ready, waiting for one record when nothing else is to do. */
static int reap(struct job_state *js)
{
	struct job *job = js->job;
	bool must_wait = js->blocked || js->submitted == job->count;
	int i, ret;

	do {
		ret = wsx_wait(job->w, js->recs, job->batch, must_wait,
			       must_wait ? -1 : 0);
	} while (ret == -EINTR);
	if (ret < 0)
		return ret;
	for (i = 0; i < ret; i++)
		job->complete(&js->recs[i], job->ctx);
	js->reaped += ret;
	if (ret)
		js->blocked = false;
	return 0;
}

static int job_loop(struct job_state *js)
{
	int ret;

	while (js->reaped < js->job->count) {
		if (js->submitted < js->job->count && !js->blocked) {
			ret = submit_batch(js);
			if (ret) {
				js->job->err = ret;
				return report("submit", ret);
			}
		}
		all_in(js->job, js->submitted, &js->all_in);
		ret = reap(js);
		if (ret)
			return report("wait", ret);
	}
	return 0;
}

/* Most SQ entries wsxctl asks for; the CQ gets four times as many. */
#define RING_SQ_MAX	4096

static unsigned int pow2_at_least(unsigned int n)
{
	unsigned int p = 1;

	while (p < n && p < RING_SQ_MAX)
		p <<= 1;
	return p;
}

/*
 * The rings' loop: fill up to a batch of free SQ entries, submit them with
 * one call that also waits for a record when nothing else can move, and
 * read every ready record in place.
 */
static int ring_loop(struct job *job, struct wsx_ring *r)
{
	uint64_t submitted = 0, reaped = 0;
	const struct wsx_completion *recs[256];
	bool blocked = false;	/* the CQ had no room at the last submit */
	bool in = !job->all_in;	/* no record waits for all_in */
	struct wsx_req *req;
	unsigned int i, n, got;
	int ret;

	while (reaped < job->count) {
		for (n = 0; n < job->batch && submitted < job->count; n++) {
			req = wsx_ring_get_req(r);
			if (!req)
				break;
			job->fill(req, submitted++, job->ctx);
		}
		/* nothing else to do: wait for one record */
		ret = wsx_ring_submit(r, (!n || blocked) && in &&
				      !wsx_ring_ready(r), -1);
		if (ret < 0 && ret != -EBUSY && ret != -EINTR)
			return report("submit", ret);
		blocked = ret == -EBUSY || wsx_ring_sq_pending(r);
		if (ret == -EBUSY && !in) {
			job->err = ret;
			return report("submit", ret);
		}
		if (!blocked)	/* (in pick-up mode, pending a while) */
			all_in(job, submitted, &in);
		do {
			got = wsx_ring_peek(r, recs, 256);
			for (i = 0; i < got; i++)
				job->complete(recs[i], job->ctx);
			wsx_ring_seen(r, got);
			reaped += got;
		} while (got);
	}
	return 0;
}

/*
 * Set up the rings; NULL (and *@err 0) on a module without them, unless
 * @job wants pick-up mode, which the ioctls cannot give.
 */
static struct wsx_ring *job_ring(struct job *job, int *err)
{
	unsigned int sq = pow2_at_least(job->batch), cq = 4 * sq;
	struct wsx_ring *r;

	/* all in flight at once: a CQ entry each (the module may refuse) */
	while (job->all_in && cq < job->count && cq <= UINT32_MAX / 2)
		cq <<= 1;
	*err = wsx_ring_setup(job->w, sq, cq,
			      job->pickup ? WSX_RING_SQ_PICKUP : 0, &r);
	if (*err == -ENOTTY && !job->pickup)
		*err = 0;
	return r;
}

int run_job(struct job *job)
{
	struct job_state js = { .job = job };
	struct wsx_ring *r = NULL;
	uint64_t start;
	int ret = 0;

	if (!job->ioctl) {
		r = job_ring(job, &ret);
		if (ret) {
			job->ring_err = ret;
			report("ring setup", ret);
			if (ret == -ENOTTY)
				fputs("wsxctl: --pickup needs the rings, which the module (ABI 1.0) has not\n",
				      stderr);
			return EXIT_FAILURE;
		}
	}
	js.items = calloc(job->batch, sizeof(*js.items));
	js.recs = calloc(job->batch, sizeof(*js.recs));
	if (!js.items || !js.recs) {
		ret = report("run", -ENOMEM);
	} else {
		start = now_ns();
		ret = r ? ring_loop(job, r) : job_loop(&js);
		job->elapsed_ns = now_ns() - start;
	}
	wsx_ring_free(r);
	free(js.items);
	free(js.recs);
	return ret;
}
