/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chan.pml: an unbuffered channel (struct wsx_chan of docs/park.md) with
 * its lock, its two wait queues (sendq, recvq), senders and receivers that
 * park and are readied by the other side, and a closer.  Written before
 * the code (issue 21, "Models first"); the names are the design's.
 *
 * What is modelled
 * ----------------
 * NS senders each send NV values (sender i sends i*NV+1 .. i*NV+NV), NR
 * receivers receive until the channel is closed, and one closer closes
 * it at any moment.  With -DCAP=n the channel is buffered: a send with
 * no receiver parked puts its value in the buffer when there is room; a
 * receive with a sender parked (the buffer is then full) takes the
 * buffer's head and moves the sender's value to its tail (Go's recv()),
 * else takes the head when there is one; values left in the buffer at the
 * close are still received.  Each of them is an item of one job.  A send or a
 * receive takes the channel's lock and, in one critical section (one
 * atomic step here):
 *   - on a closed channel: a send ends with EPIPE (Go panics), a receive
 *     with the closed status (Go's ok == false);
 *   - with a waiter parked on the other queue: takes it off the queue,
 *     hands the value over (a send copies its value straight to the
 *     parked receiver, Go's send(); a receive takes the parked sender's),
 *     sets the waiter's status to OK; then, after the lock, readies it;
 *   - else parks: counts a continuation in the job (wsx_job_add()),
 *     puts its waiter on the queue (with the value for a sender), and
 *     returns; the continuation is another item, which a readier queues.
 * The item that parked ends (its count given back: wsx_execute(),
 * wsx_job_credit_return(); one decrement here, jobcredit.pml has the
 * credit) in a process of its own (item_end), so its end and its
 * continuation run in any order, as on two Ps.  A readied continuation
 * is queued (q[w]) and runs once (taken by whatever M); it reads its
 * status: a sender's OK means its value was taken, closed means EPIPE;
 * a receiver's OK carries the value.  The closer, under the lock, sets
 * closed and takes every waiter off both queues with the closed status,
 * then readies them after the lock (as Go's closechan readies its
 * list).  Which P a ready queues on (docs/park.md) is not modelled: a
 * queue here is a count.  Waiter
 * order on a queue is not modelled either: a readier takes the first
 * waiter by number, and every property below holds for any order.
 *
 * Memory model: sequential consistency; each atomic block is one
 * critical section of the channel's lock, or one atomic operation.
 *
 * Checked (scripts/check-models, safety):
 *  - a continuation is readied at most once per park and runs at most
 *    once per park (assertions in ready() and in the run);
 *  - every value sent is received exactly once or its send ended with
 *    EPIPE; every park's continuation ran; no waiter is left on a queue
 *    (assertions at the end);
 *  - no waiter stays parked for good (a receiver parked after the close,
 *    or one nobody readies, is an invalid end state);
 *  - the job is not done while an item of it runs or is parked: the
 *    job's count (refs) reaches 0 only when none is (assertion at each
 *    put).
 *
 * Variants (must fail):
 *   BUG_READY_TWICE  a receiver reads the parked sender under the lock
 *                    but takes it off the queue only after readying it,
 *                    in a second critical section: the closer finds it
 *                    still queued and readies it too.
 *   BUG_CLOSE_MISSES senders and receivers test closed outside the lock
 *                    and park without testing it again under the lock:
 *                    a close between the two readies nobody and the
 *                    waiter stays parked.
 *   BUG_FULL_RECV    (-DCAP=1) a receive from a full buffer with a
 *                    sender parked takes the head and readies the sender
 *                    without moving its value to the tail: the value is
 *                    lost.
 *   BUG_LATE_COUNT   the parker counts its continuation in the job after
 *                    letting go of the lock: the continuation, readied
 *                    and run to its end meanwhile, drops the count to 0
 *                    while the parker still runs.
 */

#ifndef NS
#define NS	1	/* senders */
#endif
#ifndef NR
#define NR	2	/* receivers */
#endif
#ifndef NV
#define NV	2	/* values per sender */
#endif
#ifndef CAP
#define CAP	0	/* the channel's capacity: 0 unbuffered */
#endif
#if CAP > 0
#define BMOD	CAP
#else
#define BMOD	1
#endif
#define NW	(NS + NR)	/* waiters: senders 0 .. NS-1, then receivers */
#define NVAL	(NS * NV + 1)	/* values 1 .. NS*NV */

#define ST_NONE		0
#define ST_OK		1
#define ST_CLOSED	2

bool closed;
byte buf[BMOD];		/* the buffer's values, bcount from bhead on */
byte bhead;
byte bcount;
bool onq[NW];		/* on sendq (a sender) or recvq (a receiver) */
byte wval[NW];		/* a parked sender's value, a readied receiver's */
byte status[NW];	/* set by whoever took the waiter off its queue */
byte q[NW];		/* the continuation queued on a run queue */
byte parks[NW];
byte readies[NW];
byte runs[NW];
byte got[NVAL];		/* receptions of each value */
byte epipe[NVAL];	/* sends of each value that ended with EPIPE */
byte refs = NW + 1;	/* the job's count: the items, the closer's */
byte live = NW + 1;	/* what refs must count: items running or parked */

/* Queue @w's continuation: only the one who took it off its queue. */
inline ready(w)
{
	atomic {
		assert(q[w] == 0 && readies[w] < parks[w]);
		readies[w]++;
		q[w]++
	}
}

/* An item of the job ends (wsx_job_credit_return()): done() runs at 0. */
inline job_put()
{
	atomic {
		live--;
		refs--;
		assert(refs > 0 || live == 0)
	}
}

proctype item_end()
{
	job_put()
}

/* Park waiter @w: count its continuation, then queue it (under the lock). */
inline park(w)
{
#ifndef BUG_LATE_COUNT
	refs++;
#endif
	live++;
	parks[w]++;
	onq[w] = true
}

/* The continuation of @w runs: it reads the status its readier set. */
inline resume(w, st)
{
	atomic {
		q[w] > 0 ->
		q[w]--;
		assert(runs[w] < parks[w]);
		runs[w]++;
		st = status[w];
		assert(st != ST_NONE);
		status[w] = ST_NONE
	}
}

/* The first parked waiter in lo .. hi-1, or hi. */
inline first(lo, hi, w)
{
	w = lo;
	do
	:: w < hi && !onq[w] -> w++
	:: w == hi || (w < hi && onq[w]) -> break
	od
}

proctype sender(byte i)
{
	byte v = i * NV + 1;
	byte w, st;
	bool parked;

	do
	:: v > i * NV + NV -> break
	:: else ->
#ifdef BUG_CLOSE_MISSES
		if
		:: closed -> epipe[v]++; v++; goto next
		:: else
		fi;
#endif
		parked = false;
		atomic {
			first(NS, NW, w);
			if
#ifndef BUG_CLOSE_MISSES
			:: closed -> epipe[v]++; w = NW
#endif
			:: else ->
				if
				:: w < NW ->	/* a parked receiver */
					assert(bcount == 0);
					onq[w] = false;
					wval[w] = v;
					status[w] = ST_OK
				:: w == NW && bcount < CAP ->
					buf[(bhead + bcount) % BMOD] = v;
					bcount++
				:: else ->
					wval[i] = v;
					park(i);
					parked = true
				fi
			fi
		}
		if
		:: parked ->
#ifdef BUG_LATE_COUNT
			refs++;
#endif
			run item_end();	/* the parking item returns */
			resume(i, st);	/* ... and its continuation runs */
			if
			:: st == ST_CLOSED -> epipe[v]++
			:: else
			fi
		:: !parked && w < NW -> ready(w)
		:: else
		fi;
		v++;
next:		skip
	od;
	job_put()
}

proctype receiver(byte i)
{
	byte w, st, x;
	bool parked;

	do
	::
#ifdef BUG_CLOSE_MISSES
		if
		:: closed -> break
		:: else
		fi;
#endif
		parked = false;
		atomic {
			first(0, NS, w);
			if
			:: w < NS ->	/* a parked sender: the buffer is full */
				assert(bcount == CAP);
				if
				:: CAP > 0 ->	/* the head; its value to the tail */
					x = buf[bhead];
#ifndef BUG_FULL_RECV
					buf[bhead] = wval[w];
#endif
					bhead = (bhead + 1) % BMOD
				:: else -> x = wval[w]
				fi;
#ifndef BUG_READY_TWICE
				onq[w] = false;
#endif
				status[w] = ST_OK
			:: w == NS && bcount > 0 ->
				x = buf[bhead];
				bhead = (bhead + 1) % BMOD;
				bcount--
#ifndef BUG_CLOSE_MISSES
			:: w == NS && bcount == 0 && closed -> x = 0
#endif
			:: else ->
				park(i);
				parked = true
			fi
		}
		if
		:: parked ->
			run item_end();
			resume(i, st);
			if
			:: st == ST_OK -> got[wval[i]]++
			:: else -> break
			fi
		:: !parked && w < NS ->
			ready(w);
#ifdef BUG_READY_TWICE
			onq[w] = false;	/* the second critical section */
#endif
			got[x]++
		:: !parked && w == NS && x > 0 -> got[x]++	/* buffered */
		:: else -> break	/* closed */
		fi
	od;
	job_put()
}

proctype closer()
{
	byte w;
	bool taken[NW];

	atomic {
		closed = true;
		for (w : 0 .. NW - 1) {
			if
			:: onq[w] ->
				onq[w] = false;
				status[w] = ST_CLOSED;
				taken[w] = true
			:: else
			fi
		}
	}
	for (w : 0 .. NW - 1) {
		if
		:: taken[w] -> ready(w)
		:: else
		fi
	}
	job_put()
}

init {
	byte i;

	atomic {
		for (i : 0 .. NS - 1) {
			run sender(i)
		}
		for (i : NS .. NW - 1) {
			run receiver(i)
		}
		run closer()
	}
	refs == 0;
	for (i : 1 .. NVAL - 1) {
		assert(got[i] + epipe[i] == 1)
	}
	for (i : 0 .. NW - 1) {
		assert(!onq[i] && q[i] == 0 && runs[i] == parks[i])
	}
}
