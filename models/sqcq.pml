/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqcq.pml: the rings /dev/wsx shares with userspace (kmod/rings.c), their
 * submission queue (SQ: userspace produces, the kernel consumes in ENTER)
 * and completion queue (CQ: the Ms that finish jobs produce under the
 * session's lock, userspace consumes), with the backpressure that keeps the
 * kernel from ever holding more jobs than the CQ can take, the job slots
 * recycled through a free list, and the wake-once handshake of a waiter
 * with the posters.
 *
 * Checked (spin -a sqcq.pml && gcc -O2 -o pan pan.c && ./pan):
 *  - every submitted item's record is read exactly once (assert in the
 *    user, and no invalid end state: the user ends only with all N read);
 *  - a poster never overwrites a record the user has not read;
 *  - a record never shows before the SQ head covers its entry: a user
 *    that reads the CQ tail, then the SQ head, never finds more records
 *    than entries consumed (BUG_HEADLATE, the head stored once after the
 *    loop, lets an M post a record of an entry the head does not cover);
 *  - ENTER always finds a free job slot when the CQ has room for the item
 *    (so the job slots can be exactly as many as the CQ's entries);
 *  - no lost wakeup: a waiter whose min_complete records were posted does
 *    not sleep for ever (it would be an invalid end state: nothing else
 *    can move);
 *  - ENTER returns only once the min_complete records it waited for are
 *    visible in the shared CQ tail: a poster stores the shared tail before
 *    cq_tail_k, the copy that waiters test (BUG_F2, the other order, lets
 *    a waiter return between the two stores); and ENTER never refuses an
 *    honest user's CQ head, which may be one past cq_tail_k while a post
 *    is between its stores: ENTER looks again under cq_lock (BUG_HEAD,
 *    without that, refuses it with -EINVAL).
 * sqcq_scribble.pml (SCRIBBLE defined) adds a hostile thread that writes
 * arbitrary values into the user-writable words (SQ tail, CQ head, SQ
 * slots) while everything runs:
 * the kernel must then still never take a job slot that is in use and
 * never index outside the rings (the record checks are off: a user who
 * lies about its head loses records, by its own doing).
 *
 * Memory model: SPIN interleaves statements under sequential consistency.
 * The code gets the same orders from its barriers and, for the CQ's
 * waiter and poster, from cq_lock (rings.c says which pairs with which);
 * each statement here is one access of the code.
 * Indices do not wrap in the model (N is small); the code's u32 indices
 * wrap, and every comparison there is of differences.
 */

#ifdef SCRIBBLE
#define N	3	/* fewer: the scribbles multiply the states */
#else
#define N	4	/* items the user submits */
#endif
#define SQ	2	/* SQ entries */
#define CQ	2	/* CQ entries = job slots */
#define NM	2	/* Ms */

/* shared with userspace: the user writes sq_tail, cq_head, sq_slot */
byte sq_tail, sq_head, cq_tail, cq_head;
byte sq_slot[SQ];
byte cq_rec[CQ];

/* the kernel's own */
byte ksq_head;		/* SQ entries consumed: sq_head is its copy */
byte kcq_tail;		/* records posted: cq_tail is its copy */
byte sub_total;		/* items accepted by ENTER */
bool slot_used[CQ];	/* job slots */
byte job_ud[CQ];	/* the request copied into the slot */
bool cq_lock;
byte cq_want;		/* a waiter's target tail */
bool waiting, woken;

chan runq = [CQ] of { byte };	/* the executor's queues */

bool seen[N];
byte nseen;

inline lock(l)   { atomic { !l -> l = true } }
inline unlock(l) { l = false }

/*
 * ENTER's submission half: copy each new SQ entry out once, check the CQ
 * has room for its record, take a job slot, queue the job.
 */
inline enter_submit()
{
	t = sq_tail;			/* acquire */
	if
	:: t < ksq_head || t - ksq_head > SQ -> goto sub_done	/* -EINVAL */
	:: else
	fi;
	do
	:: ksq_head == t -> break
	:: else ->
		h = cq_head;		/* acquire */
		kt = kcq_tail;
#ifndef BUG_HEAD
		/*
		 * A post between its two stores: the user may have read its
		 * record already.  Look again under cq_lock, after it.
		 */
		if
		:: h > kt -> lock(cq_lock); kt = kcq_tail; unlock(cq_lock)
		:: else
		fi;
#endif
		if
		:: h > kt || kt - h > CQ ->
#ifndef SCRIBBLE
			assert(false);	/* an honest user's head refused */
#endif
			break		/* bad head: -EINVAL */
		:: sub_total - h >= CQ -> break		/* CQ full: stop short */
		:: else
		fi;
		ud = sq_slot[ksq_head % SQ];	/* the one read of the slot */
		j = 0;
		do
		:: j < CQ && slot_used[j] -> j++
		:: else -> break
		od;
		assert(j < CQ);		/* room in the CQ means a free slot */
		slot_used[j] = true;
		job_ud[j] = ud;
		sub_total++;
		ksq_head++;
#ifndef BUG_HEADLATE
		/* release: the slot may be reused; and before the job is
		 * queued, so that its record never shows before the head
		 * covers its entry
		 */
		sq_head = ksq_head;
#endif
		runq ! j
	od;
sub_done:
#ifdef BUG_HEADLATE
	sq_head = ksq_head;	/* once, after the loop (c1e3599 to bba18a8) */
#endif
	skip
}

/* ENTER's wait half: until @want records are ready to read. */
inline enter_wait(want)
{
	if
	:: want > 0 ->
		h = cq_head;		/* acquire */
		kt = kcq_tail;
#ifndef BUG_HEAD
		if
		:: h > kt -> lock(cq_lock); kt = kcq_tail; unlock(cq_lock)
		:: else
		fi;
#endif
#ifndef SCRIBBLE
		assert(h <= kt && kt - h <= CQ);	/* not refused */
#endif
		cq_want = h + want;
		do
		:: waiting = true;	/* joins, under cq_lock in the code */
		   if
		   :: kcq_tail >= cq_want -> waiting = false; break	/* reached() */
		   :: else ->
#ifdef SCRIBBLE
end_sleep:			/* lost records may leave it asleep */
#endif
			(woken);	/* schedule() until a wake_up() */
			woken = false;
			waiting = false
		   fi
		od
	:: else
	fi
}

proctype user()
{
	byte next, t, h, kt, ud, j, want, out;

	do
	:: nseen == N -> break
	:: else ->
		/* fill the SQ as far as it has room */
		do
		:: next < N && sq_tail - sq_head < SQ ->
			sq_slot[sq_tail % SQ] = next;
			next++;
			sq_tail++		/* release */
		:: else -> break
		od;
		enter_submit();
		/* min_complete: anything up to what is outstanding */
		out = sub_total - nseen;
#ifdef SCRIBBLE
		out = (nseen < sub_total -> 1 : 0);
#endif
		want = 0;
		do
		:: want < out -> want++
		:: break
		od;
		enter_wait(want);
#ifndef SCRIBBLE
		/* ENTER returned: the records it waited for are visible */
		assert(cq_tail - cq_head >= want);
#endif
		/* reap, maybe stopping early (a slow reader) */
		do
#ifdef SCRIBBLE
		:: cq_head < cq_tail ->
#else
		:: cq_head != cq_tail ->
#endif
			ud = cq_rec[cq_head % CQ];
#ifndef SCRIBBLE
			assert(ud < N && !seen[ud]);
			seen[ud] = true;
#endif
			nseen++;
			cq_head++		/* release */
		:: break
		od
	od
}

proctype m()
{
	byte j, t;

end:	do
	:: runq ? j ->
		/* the job ran; its done callback posts the record */
		lock(cq_lock);
		t = kcq_tail;
#ifndef SCRIBBLE
		assert(t - cq_head < CQ);	/* never over an unread record */
#endif
		cq_rec[t % CQ] = job_ud[j];
		slot_used[j] = false;	/* the slot is free before the record shows */
#ifdef BUG_F2
		kcq_tail = t + 1;	/* the waiters' test before the shared tail */
		cq_tail = t + 1;
#else
		cq_tail = t + 1;	/* release */
		kcq_tail = t + 1;	/* release: what the waiters test */
#endif
		unlock(cq_lock);
#ifndef SCRIBBLE
		/*
		 * Another thread of the user (or, in pick-up, the user while
		 * the Ms consume) may read the CQ tail (acquire), then the SQ
		 * head (acquire), at any time: it never finds more records
		 * than entries consumed.  Both only grow, so it is enough that
		 * it holds after each post.
		 */
		assert(cq_tail <= sq_head);
#endif
		/* wake once: only a waiter whose target is reached */
		if
		:: waiting ->		/* read under cq_lock in the code */
			if
			:: kcq_tail >= cq_want -> woken = true	/* wake_up() */
			:: else
			fi
		:: else
		fi
	od
}

#ifdef SCRIBBLE
/* A thread of the user that writes garbage over the user-writable words. */
proctype scribbler()
{
	if
	:: sq_tail = 0
	:: sq_tail = 7
	:: sq_tail = sq_tail + 1
	:: cq_head = 0
	:: cq_head = 7
	:: cq_head = kcq_tail
	:: cq_head = kcq_tail + 1
	:: sq_slot[0] = 200
	fi
}
#endif

init
{
	atomic {
		run user();
		run m();
		run m();
#ifdef SCRIBBLE
		run scribbler();
#endif
	}
}
