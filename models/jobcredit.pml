/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobcredit.pml - an M's credit of job counts (job.c, "An M's credit";
 * wsx_spawn(), wsx_execute(), wsx_job_credit_return()).
 *
 * What is modelled
 * ----------------
 * A job counts its unfinished items (pending) and the items ever added
 * (nodes) in one atomic word, job->refs; done() runs once, from whoever
 * brings pending to 0, and may free the job.  Two jobs, each a spawn
 * tree: the creator holds one count from wsx_job_init() to
 * wsx_job_start(), queues the root (one atomic add: a count and a node),
 * then drops its count.  The root spawns a kind-1 and a kind-2 child, a
 * kind-1 item spawns a kind-2 one, a kind-2 item spawns nothing; and job
 * 0's kind-1 item first spawns a kind-3 item of job 1, which waits until
 * job 0 is done (an item that waits for another job's completion; job 1's
 * creator starts it only after that spawn, so the spawn is legal).  Job 0
 * has 4 items, job 1 has 5.  Queued items sit in one bag that NM Ms take
 * from, in FIFO order: the runqs, runnext and stealing abstracted to "any
 * M may run any item".
 *
 * An M holds a credit: counts of one job (cjob) it took over from the
 * items of that job it finished, and the nodes it added with them
 * (cnodes), both its own, written and read by it alone:
 *   - an item's end does not decrement pending: the count moves to the
 *     M's credit (credit++), the M taking cjob = the item's job;
 *   - a spawn of an item of cjob while credit > 0 spends one count on the
 *     child (credit--, cnodes++), no atomic; else one atomic add, as a
 *     queue does;
 *   - before running an item of another job, before it takes an item
 *     from anywhere but its P's runnext and runq (a bind, an inbox's
 *     drain, a global queue's get, a steal: here, a take from the bag
 *     chosen as such, any of which may wait), and before it spins, parks,
 *     waits in the pool, stops or exits (here, finds the bag empty), the
 *     M returns the credit: one atomic, pending -= credit and nodes +=
 *     cnodes, which runs done() if it brought pending to 0.
 * So pending counts the unfinished items plus every M's credit (and the
 * creator's count), and a job is done only after every M gave its
 * credit back.  A spawn spends credit only while the spawning item, an
 * item of cjob, runs: that item's own count keeps the job alive, so an
 * M with credit 0 and cnodes > 0 never touches a job that is done.
 *
 * The model is sequentially consistent; the atomics are atomic blocks
 * (job->refs is one atomic64_t, every change a fully ordered RMW).
 *
 * Properties
 * ----------
 *  - no one touches a job after its done() (assert at every atomic);
 *  - done() runs after every item of the job finished, with every node
 *    counted (assert in job_done);
 *  - every job is done once the Ms run out of items, and no M waits for
 *    good in job 1's kind-3 item, as one that ran it holding job 0's
 *    credit would (assert at the end, and no invalid end state);
 *  - no M enters a look that may wait holding the count of a job whose
 *    items have all finished: that job's done() (its record's
 *    finished_ns, its completion) would wait for the look (assert there).
 *
 * Variants (spin -D...):
 *   BUG_NODES_AFTER  the credit returned as two atomics, the counts
 *                    first: the one that brings pending to 0 runs done()
 *                    with nodes missing, and the nodes are then added to
 *                    a job done() may have freed.
 *   BUG_IDLE_KEEP    the M keeps its credit when it runs out of items:
 *                    the job is never done.
 *   BUG_ANY_JOB      a spawn spends credit of whatever job the M holds,
 *                    not only the spawned item's: job 0's count pays for
 *                    job 1's kind-3 item, and job 1 is done before it.
 *   BUG_NO_SWITCH    no return before an item of another job: the M that
 *                    holds job 0's credit runs the kind-3 item, which
 *                    waits for job 0, which waits for that credit.
 *   BUG_LATE_RETURN  the credit returned after a look beyond the P's
 *                    runnext and runq rather than before it (the first
 *                    version: after the global queue's get, whose fault
 *                    point held a finished job's done() for 500 ms).
 */

#define NJ	2
#ifndef NM
#define NM	2
#endif
#define TOTAL(j)	((j) == 0 -> 4 : 5)	/* items of job j */
#define NONE	NJ			/* cjob of an M without credit */

byte pending[NJ];	/* job->refs, low half */
byte nodes[NJ];		/* job->refs, high half */
bool done[NJ];		/* done() ran: the job may be freed */
byte finished[NJ];	/* ghost: items whose function returned */
byte started;		/* ghost: jobs whose creator is through */
bool crossed;		/* ghost: job 0 spawned job 1's kind-3 item */

chan bag = [9] of { byte, byte };	/* queued items: job, kind */

/* done(): may free the job */
inline job_done(j)
{
	assert(finished[j] == TOTAL(j) && nodes[j] == TOTAL(j));
	done[j] = true
}

/* wsx_job_add(): one count and one node, one atomic */
inline job_add(j)
{
	atomic {
		assert(!done[j]);
		pending[j]++;
		nodes[j]++
	}
}

/* wsx_job_start(): the creator's count */
inline job_put(j)
{
	atomic {
		assert(!done[j]);
		pending[j]--;
		if
		:: pending[j] == 0 -> job_done(j)
		:: else
		fi
	}
}

/* wsx_job_credit_return() */
inline return_credit()
{
	if
	:: cjob != NONE ->
#ifdef BUG_NODES_AFTER
		atomic {
			assert(!done[cjob]);
			pending[cjob] = pending[cjob] - credit;
			if
			:: pending[cjob] == 0 -> job_done(cjob)
			:: else
			fi
		};
		atomic {
			assert(!done[cjob]);
			nodes[cjob] = nodes[cjob] + cnodes
		};
#else
		atomic {
			assert(!done[cjob]);
			nodes[cjob] = nodes[cjob] + cnodes;
			pending[cjob] = pending[cjob] - credit;
			if
			:: pending[cjob] == 0 -> job_done(cjob)
			:: else
			fi
		};
#endif
		cjob = NONE;
		credit = 0;
		cnodes = 0
	:: else
	fi
}

/* wsx_spawn() of an item of job j and kind k, from an item of job j */
inline spawn(j, k)
{
	if
#ifdef BUG_ANY_JOB
	:: credit > 0 ->
		credit--;
		cnodes++
#else
	:: cjob == j && credit > 0 ->
		credit--;
		cnodes++
#endif
	:: else -> job_add(j)
	fi;
	bag!j,k;
	if
	:: k == 3 -> crossed = true
	:: else
	fi
}

proctype creator()
{
	pending[0] = 1;		/* wsx_job_init() */
	pending[1] = 1;
	job_add(0);
	bag!0,0;
	job_put(0);		/* wsx_job_start() */
	job_add(1);
	bag!1,0;
	crossed;		/* job 0 spawned into job 1 */
	job_put(1);
	started = NJ
}

proctype m()
{
	byte cjob = NONE, credit = 0, cnodes = 0;
	byte j, k;

	do
	:: bag?j,k ->
		/*
		 * from its P's runnext or runq, or from a look elsewhere,
		 * which may wait (wsx_find_runnable())
		 */
		if
		:: skip
		::
#ifndef BUG_LATE_RETURN
			return_credit();
#endif
			/* it may wait here: a finished job must not wait too */
			assert(cjob == NONE || finished[cjob] < TOTAL(cjob))
		fi;
		/* wsx_execute(): another job's item: give the credit back */
#ifndef BUG_NO_SWITCH
		if
		:: cjob != j -> return_credit()
		:: else
		fi;
#endif
		if
		:: k == 0 -> spawn(j, 1); spawn(j, 2)
		:: k == 1 && j == 0 -> spawn(1, 3); spawn(0, 2)
		:: k == 1 && j == 1 -> spawn(1, 2)
		:: k == 2
		:: k == 3 -> done[0]	/* waits for job 0 */
		fi;
		/* the item's end: its count to the M's credit */
		finished[j]++;
		if
		:: cjob == j -> credit++
		:: else ->
			return_credit();
			cjob = j;
			credit = 1
		fi
	:: empty(bag) ->
		/* nothing in its own queues: give the credit back, then look */
#ifndef BUG_IDLE_KEEP
		return_credit();
#endif
		if
		:: started == NJ && empty(bag) -> break
		:: nempty(bag)
		fi
	od
}

init
{
	byte i;

	atomic {
		run creator();
		for (i : 1 .. NM) {
			run m()
		}
	};
	/* every M has left: every job done */
	(_nr_pr == 1);
	for (i : 0 .. NJ - 1) {
		assert(done[i])
	}
}
