/* SPDX-License-Identifier: GPL-2.0 */
/*
 * select_race.pml: two selects that send and receive, racing each other
 * and a plain sender for the same channels, each reusing its select
 * record from one select to the next, against a closer (docs/park.md,
 * section 2, "select"; after Go's selectgo(), its selectDone claim and
 * its dequeue()).  The names are kmod/chan.c's: wsx_chan_select(),
 * wsx_chan_select_resume(), wsx_chan_dequeue(), wsx_chan_close().
 * select.pml is the first, smaller model (one select that only
 * receives); this one adds what it leaves out.
 *
 * What is modelled
 * ----------------
 * Channels 0 and 1 (unbuffered; -DCAP=1 gives each a buffer of one
 * value), each with its lock, its sendq and its recvq.  Two selectors,
 * A and B, each make NSEL selects with one select record of their own
 * (struct wsx_select, reused: its done word, its winning case and its
 * waiters, one per case, embedded in it as in the code):
 *   A: receive on 0, or receive on 1;
 *   B: send on 0, or receive on 1 (default): B's send meets A's receive,
 *      select against select, and A and B race for the plain sender;
 *      -DBSENDS: send on 0, or send on 1: A is the one counterpart of B
 *      and of the plain sender on 1;
 *      -DBRECV: receive on 0, or receive on 1: both selects parked on
 *      the same queues at once (the sender claims one, a close readies
 *      both);
 *      -DSAME: send on 1, or receive on 1: one channel named twice, a
 *      waiter of B on both of its queues (the closer claims one, finds
 *      the other stale).
 * -DVARY: each of A's selects has both cases or only its case 0, so a
 * record is reused by a select with fewer cases than the one before.
 * The plain sender sends NSV values on channel 1; the closer closes
 * channel 0 and channel 1, in either order, each in a critical section
 * of its own, at any moment.
 *
 * A select (wsx_chan_select()) takes all its cases' locks (one atomic
 * step) and tries its cases in either order (the random poll order); the
 * first that can proceed does: a send on a closed channel (EPIPE), to a
 * claimable waiter on recvq (the value copied to it, readied after the
 * unlock) or into buffer room; a receive from a claimable waiter on
 * sendq (buffered: the buffer's head, the sender's value to its tail),
 * from the buffer, or from a closed channel (ENODATA).  Finding a waiter
 * is wsx_chan_dequeue(): the waiter is taken off its queue
 * (list_del_init()); a plain one is the finder's; a select's only if the
 * finder wins cmpxchg(done, 0 -> 1) under that channel's lock, and then
 * the finder records the waiter's case as the record's winning case;
 * lost, it is stale and the next waiter is tried.  With no case ready the
 * select sets done to 0, puts one waiter per case at its channel's
 * queue, parks its continuation once and unlocks.  The plain sender and
 * the closer (wsx_chan_close(): closed set, every waiter of both queues
 * dequeued so, each readied after the unlock) are readiers of the same
 * kind.  The continuation (wsx_chan_select_resume()) reads the winning
 * case, takes all the locks again, takes every other waiter off its
 * queue if it is still queued, unlocks, and reads the winner's value and
 * status.  The record is then reused by the selector's next select.
 * A queue is a set: a readier takes any waiter on it, not only the
 * oldest, which covers every order the FIFO can have.
 *
 * Memory model: sequential consistency; each atomic block is one
 * critical section (of one channel's lock, or of all a select's) or one
 * queueing of a continuation (wsx_ready()) or one run of it.
 *
 * Checked (scripts/check-models, safety):
 *  - a continuation (a select's, the sender's) is readied at most once
 *    per park (assertion in ready());
 *  - a record is reused (done reset to 0, its waiters queued) only with
 *    none of its waiters still on a queue (the reuse assertion): a
 *    stale one would be claimable again, or, its case a case of the
 *    new select, queued twice (list_add_tail() of a queued node: list
 *    corruption, which CONFIG_DEBUG_LIST reports as a double add);
 *  - a readier claims only a waiter of the select its record holds now,
 *    never one left queued by an earlier select of the record (the
 *    claim's assertion, on the waiter's ghost generation);
 *  - the case a resumed select reads is a case of that select and its
 *    waiter that select's (assertion); a received value comes from the
 *    case's channel (assertion);
 *  - each value is received exactly once, or is still in a buffer, iff
 *    its send completed; a send completes or ends with EPIPE at most once,
 *    the plain sender's exactly once (assertions at the end);
 *  - no waiter left on a queue, nothing queued to run, every park
 *    readied (assertions at the end); nothing stays parked (invalid end
 *    state).
 *
 * Variants (must fail):
 *   BUG_NOCLAIM        the plain sender and the closer take a select's
 *                      waiter without the cmpxchg of its done word: a
 *                      select already won elsewhere is readied twice.
 *   BUG_SELECT_NOCLAIM a select in its first pass takes another select's
 *                      waiter without the cmpxchg: the same, select
 *                      against select.
 *   BUG_STALE_LEFT     wsx_chan_select_resume() does not take the other
 *                      waiters off their queues: the record's next
 *                      select parks with a waiter of the last one still
 *                      queued (the reuse assertion): with the same cases
 *                      it queues that waiter twice; with fewer (-DVARY)
 *                      it resets done to 0 under the stale waiter.
 *                      -DVARY -DNOREUSECHECK leaves the reuse assertion
 *                      out: a readier then claims the stale waiter (the
 *                      claim's assertion).  With the same cases and
 *                      -DNOREUSECHECK nothing else fails: the stale
 *                      waiter is the one queued again, and only the
 *                      double add (list corruption) shows the bug.
 */

#ifndef NSEL
#define NSEL	2	/* selects each selector makes */
#endif
#ifndef NSV
#define NSV	1	/* values the plain sender sends on channel 1 */
#endif
#ifndef CAP
#define CAP	0	/* each channel's buffer: 0 or 1 value */
#endif

#define ST_NONE		0
#define ST_OK		1
#define ST_CLOSED	2	/* EPIPE for a send, ENODATA for a receive */

#define SA	0	/* selector A: record 0, waiters 0, 1 */
#define SB	1	/* selector B: record 1, waiters 2, 3 */
#define PLAIN	4	/* the plain sender's waiter */
#define NSLOT	5
#define NONE	5
#define CONT(s)	((s) / 2)	/* a waiter's continuation: A 0, B 1, sender 2 */

#define SCH	1	/* the plain sender's channel */
/* values: B's send of case i in its select n is 1 + 2n + i; the plain
 * sender's k-th is 2 NSEL + 1 + k */
#define SVAL(n, i)	(1 + 2 * (n) + (i))
#define PVAL(k)		(2 * NSEL + 1 + (k))
#define NVAL		(2 * NSEL + NSV + 1)
#define VCHAN(v)	((v) > 2 * NSEL -> SCH : wch[2 + ((v) - 1) % 2])

/* the waiters' cases: their channel, and send or receive (set in init) */
byte wch[NSLOT];
bool wsend[NSLOT];

bool closed[2];
byte bcount[2];		/* 0 .. CAP */
byte buf[2];		/* the buffered value when bcount is 1 */

bool onq[NSLOT];	/* on its channel's sendq (wsend) or recvq */
byte wval[NSLOT];	/* a sender's value; a receiver's, set by its sender */
byte wst[NSLOT];	/* set by the readier */
byte wgen[NSLOT];	/* ghost: the select of its record that queued it */

byte done[2];		/* the records' claim words */
byte won[2];		/* the winning case, set by the claimer */
byte gen[2];		/* ghost: the record's selects that parked */

byte q[3];		/* continuations queued to run: A, B, the sender */
byte parks[3];
byte readies[3];

byte got[NVAL];		/* receptions of each value */
byte sent[NVAL];	/* sends of it that completed (taken or buffered) */
byte epipe[NVAL];	/* sends of it that ended with EPIPE */

#define ONQ(s, c, snd)	(onq[s] && wch[s] == (c) && wsend[s] == (snd))

inline ready(k)
{
	atomic {
		assert(q[k] == 0 && readies[k] < parks[k]);
		readies[k]++;
		q[k]++
	}
}

inline cont_run(k)
{
	atomic {
		q[k] > 0 -> q[k]--
	}
}

/*
 * wsx_chan_dequeue(): under channel c's lock, the first waiter of its
 * sendq (snd) or recvq that the caller may finish, taken off, in w, or
 * NONE.  bysel: the caller is a select in its first pass.  Uses x.
 */
inline dequeue(c, snd, w, bysel)
{
	w = NONE;
	do
	:: true ->
		if
		:: ONQ(0, c, snd) -> x = 0
		:: ONQ(1, c, snd) -> x = 1
		:: ONQ(2, c, snd) -> x = 2
		:: ONQ(3, c, snd) -> x = 3
		:: ONQ(4, c, snd) -> x = 4
		:: else -> x = NONE
		fi;
		if
		:: x == NONE -> break
		:: x == PLAIN -> onq[x] = false; w = x; break
		:: else -> onq[x] = false	/* list_del_init() */
		fi;
		if
#if defined(BUG_NOCLAIM) && defined(BUG_SELECT_NOCLAIM)
		:: true -> done[x / 2] = 1; w = x
#elif defined(BUG_NOCLAIM)
		:: !bysel -> done[x / 2] = 1; w = x
		:: bysel && done[x / 2] == 0 -> done[x / 2] = 1; w = x
		:: bysel && done[x / 2] != 0 -> skip
#elif defined(BUG_SELECT_NOCLAIM)
		:: bysel -> done[x / 2] = 1; w = x
		:: !bysel && done[x / 2] == 0 -> done[x / 2] = 1; w = x
		:: !bysel && done[x / 2] != 0 -> skip
#else
		:: done[x / 2] == 0 -> done[x / 2] = 1; w = x
		:: else -> skip		/* stale: the next one */
#endif
		fi;
		if
		:: w != NONE ->
			/* a waiter of the select parked now, never a stale one */
			assert(wgen[w] == gen[w / 2]);
			won[w / 2] = w % 2;
			break
		:: else
		fi
	od;
	x = 0
}

/*
 * The send of value v on channel c, as far as it goes without parking
 * (wsx_chan_send_locked()): st OK (w the receiver to ready, or NONE:
 * buffered), CLOSED, or NONE (it must wait).
 */
inline send_locked(c, v, w, st, bysel)
{
	w = NONE;
	if
	:: closed[c] -> st = ST_CLOSED
	:: else ->
		dequeue(c, false, w, bysel);
		if
		:: w != NONE ->
			assert(bcount[c] == 0);	/* WARN_ON_ONCE(c->count) */
			wval[w] = v;
			wst[w] = ST_OK;
			st = ST_OK
		:: w == NONE && bcount[c] < CAP ->
			buf[c] = v;
			bcount[c]++;
			st = ST_OK
		:: else -> st = ST_NONE
		fi
	fi
}

/* The receive (wsx_chan_recv_locked()): the value in v. */
inline recv_locked(c, v, w, st, bysel)
{
	dequeue(c, true, w, bysel);
	if
	:: w != NONE ->
		assert(bcount[c] == CAP);	/* a sender parks on a full buffer */
		if
		:: bcount[c] > 0 -> v = buf[c]; buf[c] = wval[w]
		:: else -> v = wval[w]
		fi;
		wst[w] = ST_OK;
		st = ST_OK
	:: w == NONE && bcount[c] > 0 ->
		v = buf[c];
		buf[c] = 0;
		bcount[c]--;
		st = ST_OK
	:: w == NONE && bcount[c] == 0 && closed[c] -> st = ST_CLOSED
	:: else -> st = ST_NONE
	fi
}

/* The outcome of case i of select n of selector r. */
inline outcome(r, n, i, st, v)
{
	if
	:: wsend[r * 2 + i] && st == ST_OK -> sent[SVAL(n, i)]++
	:: wsend[r * 2 + i] && st == ST_CLOSED -> epipe[SVAL(n, i)]++
	:: !wsend[r * 2 + i] && st == ST_OK ->
		assert(v > 0 && v < NVAL && VCHAN(v) == wch[r * 2 + i]);
		got[v]++
	:: !wsend[r * 2 + i] && st == ST_CLOSED
	fi
}

/* Case k of select n of selector r, as far as it goes without parking. */
inline try_case(r, n, k, v, w, st)
{
	if
	:: wsend[r * 2 + k] ->
		v = SVAL(n, k);
		send_locked(wch[r * 2 + k], v, w, st, true)
	:: else ->
		v = 0;
		recv_locked(wch[r * 2 + k], v, w, st, true)
	fi
}

proctype selector(byte r)
{
	byte n, nc, k, i, st, v, w, x;
	bool parked;

	for (n : 0 .. NSEL - 1) {
		nc = 2;
#ifdef VARY
		if
		:: r == SA -> nc = 1
		:: true
		fi;
#endif
		i = NONE;
		parked = false;
		atomic {	/* wsx_chan_select(): all the cases' locks */
			if	/* the poll order */
			:: k = 0
			:: nc == 2 -> k = 1
			fi;
			try_case(r, n, k, v, w, st);
			if
			:: st == ST_NONE && nc == 2 ->
				k = 1 - k;
				try_case(r, n, k, v, w, st)
			:: else
			fi;
			if
			:: st != ST_NONE -> i = k
			:: else
			fi;
			if
			:: i == NONE ->		/* park on every case */
#ifndef NOREUSECHECK
				/* the record reused with none of its waiters
				 * queued: a stale one would be claimable again,
				 * or queued twice (list corruption)
				 */
				assert(!onq[r * 2] && !onq[r * 2 + 1]);
#endif
				done[r] = 0;
				gen[r]++;
				for (k : 0 .. nc - 1) {
					wgen[r * 2 + k] = gen[r];
					wst[r * 2 + k] = ST_NONE;
					if
					:: wsend[r * 2 + k] -> wval[r * 2 + k] = SVAL(n, k)
					:: else -> wval[r * 2 + k] = 0
					fi;
					onq[r * 2 + k] = true
				}
				parks[r]++;
				parked = true;
				v = 0;
				w = 0
			:: else
			fi;
			k = 0
		}
		if
		:: parked ->
			cont_run(r);
			/* wsx_chan_select_resume() */
			i = won[r];
			assert(done[r] != 0 && i < nc && wgen[r * 2 + i] == gen[r]);
			atomic {	/* all the cases' locks again */
#ifndef BUG_STALE_LEFT
				for (k : 0 .. nc - 1) {
					if
					:: k != i -> onq[r * 2 + k] = false
					:: else
					fi
				}
#endif
				k = 0
			}
			st = wst[r * 2 + i];
			assert(st != ST_NONE);
			v = wval[r * 2 + i];
			outcome(r, n, i, st, v)
		:: else ->
			outcome(r, n, i, st, v);
			if
			:: w != NONE -> ready(CONT(w))
			:: else
			fi
		fi;
		i = 0; st = 0; v = 0; w = 0
	}
}

proctype sender()
{
	byte k, v, w, st, x;
	bool parked;

	for (k : 0 .. NSV - 1) {
		v = PVAL(k);
		parked = false;
		atomic {	/* wsx_chan_send(): the channel's lock */
			send_locked(SCH, v, w, st, false);
			if
			:: st == ST_NONE ->
				wval[PLAIN] = v;
				wst[PLAIN] = ST_NONE;
				wgen[PLAIN] = 0;
				onq[PLAIN] = true;
				parks[CONT(PLAIN)]++;
				parked = true
			:: else
			fi
		}
		if
		:: parked ->
			cont_run(CONT(PLAIN));
			st = wst[PLAIN]
		:: else
		fi;
		if
		:: st == ST_OK -> sent[v]++
		:: st == ST_CLOSED -> epipe[v]++
		fi;
		if
		:: !parked && w != NONE -> ready(CONT(w))
		:: else
		fi;
		w = 0; st = 0
	}
}

proctype closer()
{
	byte c, k, w, x;
	byte rd[3];	/* the private list: continuations to ready */

	if	/* either channel first */
	:: c = 0
	:: c = 1
	fi;
	for (k : 0 .. 1) {
		atomic {	/* wsx_chan_close(): the channel's lock */
			closed[c] = true;
			do
			:: dequeue(c, false, w, false);
				if
				:: w == NONE -> break
				:: else -> wst[w] = ST_CLOSED; rd[CONT(w)]++
				fi
			od;
			do
			:: dequeue(c, true, w, false);
				if
				:: w == NONE -> break
				:: else -> wst[w] = ST_CLOSED; rd[CONT(w)]++
				fi
			od;
			w = 0
		}
		for (w : 0 .. 2) {	/* after the unlock */
			do
			:: rd[w] > 0 -> rd[w]--; ready(w)
			:: else -> break
			od
		}
		w = 0;
		c = 1 - c
	}
}

init {
	byte v;

	atomic {
		wch[0] = 0;	wsend[0] = false;	/* A: receive on 0 */
		wch[1] = 1;	wsend[1] = false;	/*    or on 1 */
#if defined(BSENDS)
		wch[2] = 0;	wsend[2] = true;	/* B: send on 0 */
		wch[3] = 1;	wsend[3] = true;	/*    or on 1 */
#elif defined(BRECV)
		wch[2] = 0;	wsend[2] = false;	/* B: receive on 0 */
		wch[3] = 1;	wsend[3] = false;	/*    or on 1 */
#elif defined(SAME)
		wch[2] = 1;	wsend[2] = true;	/* B: send on 1 */
		wch[3] = 1;	wsend[3] = false;	/*    or receive on 1 */
#else
		wch[2] = 0;	wsend[2] = true;	/* B: send on 0 */
		wch[3] = 1;	wsend[3] = false;	/*    or receive on 1 */
#endif
		wch[PLAIN] = SCH; wsend[PLAIN] = true;
		run selector(SA);
		run selector(SB);
		run sender();
		run closer()
	}
	_nr_pr == 1;
	for (v : 1 .. NVAL - 1) {
		/* received, or still buffered, iff sent */
		assert(got[v] + (bcount[VCHAN(v)] > 0 &&
				 buf[VCHAN(v)] == v -> 1 : 0) == sent[v]);
		assert(sent[v] + epipe[v] <= 1);
		assert(v <= 2 * NSEL || sent[v] + epipe[v] == 1)
	}
	for (v : 0 .. NSLOT - 1) {
		assert(!onq[v])
	}
	for (v : 0 .. 2) {
		assert(q[v] == 0 && readies[v] == parks[v])
	}
}
