/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl: the submit and reap loop that "run" and "crc32c" share.
 */
#include <errno.h>
#include <stdbool.h>
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
	if (item_error == -EAGAIN && js->submitted > js->reaped) {
		js->blocked = true;
		return 0;
	}
	return item_error;
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
			if (ret)
				return report("submit", ret);
		}
		ret = reap(js);
		if (ret)
			return report("wait", ret);
	}
	return 0;
}

int run_job(struct job *job)
{
	struct job_state js = { .job = job };
	uint64_t start;
	int ret;

	js.items = calloc(job->batch, sizeof(*js.items));
	js.recs = calloc(job->batch, sizeof(*js.recs));
	if (!js.items || !js.recs) {
		ret = report("run", -ENOMEM);
	} else {
		start = now_ns();
		ret = job_loop(&js);
		job->elapsed_ns = now_ns() - start;
	}
	free(js.items);
	free(js.recs);
	return ret;
}
