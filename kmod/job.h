/* SPDX-License-Identifier: GPL-2.0 */
/* job.c: the jobs' item counts, for the scheduler (wsx.h has the API). */
#ifndef _WSX_JOB_H
#define _WSX_JOB_H

#include <linux/bits.h>
#include <linux/types.h>

struct wsx_job;

/*
 * An M's credit: counts of one job it took over from that job's items it
 * ran, and the nodes it added with them (job.c, "An M's credit").  Tag M
 * of sched.h's legend: written and read by the M alone.
 */
struct wsx_job_credit {
	struct wsx_job *job;	/* NULL: no credit */
	u32 counts;
	u32 nodes;
};

/*
 * The most counts, and nodes, a credit holds at an item's end: it is given
 * back there at this, so that its u32s never wrap and the job's word lags
 * by a bounded amount, however long the M runs one job's items.
 */
#define WSX_JOB_CREDIT_MAX	BIT(16)

void wsx_job_add(struct wsx_job *job);
bool wsx_job_credit_return(struct wsx_job_credit *c);

/*
 * A spawn of an item of @job from an item of @job: one count of the
 * credit pays for it when there is one.  Returns false when the caller
 * must count the item itself (wsx_job_add()).
 */
static inline bool wsx_job_credit_spend(struct wsx_job_credit *c,
					struct wsx_job *job)
{
	if (c->job != job || !c->counts)
		return false;
	c->counts--;
	c->nodes++;
	return true;
}

/*
 * An item of @job ended on the M: its count goes to the M's credit, the
 * credit of another job given back first, and this one once it holds
 * WSX_JOB_CREDIT_MAX counts or nodes (a spend between two ends takes at
 * most the counts held, so nodes stay under twice that).  Returns the
 * credits given back (0 .. 2), each one atomic on a job's word.
 */
static inline unsigned int wsx_job_credit_put(struct wsx_job_credit *c,
					      struct wsx_job *job)
{
	unsigned int returns = 0;

	if (c->job != job) {
		returns += wsx_job_credit_return(c);
		c->job = job;
	}
	if (unlikely(++c->counts >= WSX_JOB_CREDIT_MAX ||
		     c->nodes >= WSX_JOB_CREDIT_MAX))
		returns += wsx_job_credit_return(c);
	return returns;
}

#endif /* _WSX_JOB_H */
