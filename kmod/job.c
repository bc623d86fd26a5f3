// SPDX-License-Identifier: GPL-2.0
/*
 * wsx jobs: completion groups of items.
 *
 * A job counts its unfinished items in the low 32 bits of @refs and every
 * item ever added in the high 32 bits, so that adding an item is one atomic
 * add, and an item's end none until its M gives its credit back (below):
 * a spawn tree's items mostly touch the job's word not at all.  The
 * creator holds one extra count from wsx_job_init() to wsx_job_start(), so
 * the done callback cannot run while the first items are being queued.
 *
 * An M's credit (struct wsx_job_credit, models/jobcredit.pml).  In a spawn
 * tree those two atomics per item are mostly a count handed from a parent
 * that ends to a child it spawned on the same M.  So an item's end does not
 * decrement: its count goes to its M's credit (wsx_job_credit_put()), and a
 * spawn of an item of the same job spends a count of the credit instead of
 * adding one (wsx_job_credit_spend()), the item added to the credit's
 * nodes.  Pending thus counts the unfinished items plus the counts every
 * M holds, and the job is done only once each M gave its credit back
 * (wsx_job_credit_return(): one fully ordered atomic for the counts and
 * the nodes together - with the nodes after, done() would see them short
 * and the add would touch a job done() may have freed, BUG_NODES_AFTER).
 * The M gives it back before it runs an item of another job
 * (wsx_execute()), before anything in its search for the next item but a
 * look at its P's runnext and runq (wsx_find_runnable(): a bind, an
 * inbox's drain, a global queue's get, a yield, a spin, a steal or a park
 * may each take long), before it stops with its P (wsx_m_stop_p()) or
 * waits in the pool or exits (wsx_m_main()), when need_resched() says its
 * cond_resched() between items will yield (wsx_execute()), and once it
 * holds WSX_JOB_CREDIT_MAX (wsx_job_credit_put()).  So a job whose last
 * item ended is done within one pass of the M's loop, not when the M next
 * finds work (BUG_IDLE_KEEP), and before the M does anything of its own
 * that can wait (BUG_LATE_RETURN); a preemption inside that pass may still
 * delay it, as it may delay any item's end.  A done() run by a return may
 * queue on the M's P: the M drains its inbox after a return, and after a
 * return that found its runq empty it looks there again before it looks
 * elsewhere.  The credit stays across an item of its own job, whatever
 * the item does (a blocking section, a wait for a P): that item's own
 * count keeps the job from being done meanwhile.  A credit
 * is spent only on an item of its own job, from an item of that job
 * running on the M: that item's count keeps the job from being done while
 * the credit is at 0, and pays nothing of another job's (BUG_ANY_JOB).
 * Ordering: an item's writes precede its M's return in program order, and
 * the return is a fully ordered RMW, as the put was.
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

/*
 * Give the M's credit @c back to its job (see "An M's credit" above); the
 * last count runs the done callback.  Between items the credit holds at
 * least one count (the last item's), so the job is not done before this.
 * Returns whether there was a credit: one atomic on the job's word.
 */
bool wsx_job_credit_return(struct wsx_job_credit *c)
{
	struct wsx_job *job = c->job;
	u64 delta;

	if (!job)
		return false;
	/* the nodes into the high half, the counts out of the low one */
	delta = ((u64)c->nodes << 32) - c->counts;
	c->job = NULL;
	c->nodes = 0;
	/* a credit of no count: the job may be done and freed already */
	if (WARN_ON_ONCE(!c->counts))
		return false;
	c->counts = 0;
	/* fully ordered: the items' writes happen before done() */
	if (!(atomic64_add_return(delta, &job->refs) & WSX_JOB_PENDING_MASK))
		job->done(job);
	return true;
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
	/* fully ordered: the creator's writes happen before done() */
	if (!(atomic64_dec_return(&job->refs) & WSX_JOB_PENDING_MASK))
		job->done(job);
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
