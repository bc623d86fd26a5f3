/* SPDX-License-Identifier: GPL-2.0 */
/*
 * select.pml: a select that receives on two unbuffered channels, parked
 * on both at once, against a sender on each and a closer of both
 * (docs/park.md, section 2, "select"; after Go's selectgo() and its
 * selectDone claim).  Written before the code (issue 21); the names are
 * the design's.
 *
 * What is modelled
 * ----------------
 * Channels 0 and 1, each with its lock; sender c sends the value c + 1
 * on channel c once; the selector makes NSEL selects, each receiving on
 * both channels; the closer closes channel 0, then channel 1, each in a
 * critical section of its own, at any moment.  A select takes both
 * channels' locks (one atomic step: the locks are taken in one order and
 * held together) and proceeds with any case that can (a parked sender,
 * or a closed channel: the nondeterministic choice stands for the random
 * poll order); with none it puts one waiter on each channel's recvq, all
 * pointing to one select record whose done word is 0, and parks.  A
 * readier (a sender, the closer) that meets the select's waiter on its
 * channel's recvq takes it off and claims the select with a cmpxchg of
 * done 0 -> 1 under that channel's lock: won, it records the case, the
 * value or the closed status, and readies the select's continuation
 * after its lock; lost, the waiter was stale and it goes on as if the
 * queue were empty (a sender parks on sendq).  The continuation takes
 * both locks again, takes its waiters off both queues, and goes on with
 * the case that won.  The closer, under a channel's lock, sets closed,
 * takes the parked sender off with EPIPE and readies it, and claims a
 * select waiter as a sender does.
 *
 * Memory model: sequential consistency; each atomic block is one
 * critical section (of one channel's lock, or of both).
 *
 * Checked (scripts/check-models, safety):
 *  - a continuation (the select's, a sender's) is readied at most once
 *    per park (assertion in ready());
 *  - each value is received exactly once or its send ended with EPIPE
 *    (assertion at the end);
 *  - nothing stays parked (invalid end state).
 *
 * Variants (must fail):
 *   BUG_NOCLAIM  a sender takes the select's waiter without the cmpxchg
 *                of done: both senders hand their values to one select,
 *                which is readied twice and one value is lost.
 *
 * select_race.pml goes on from here: selects that send, two selects
 * racing for one counterpart and claiming each other's waiters, a
 * channel named twice, buffers, and a select record reused while a stale
 * waiter of its last select could still be queued.
 */

#ifndef NSEL
#define NSEL	2	/* selects the selector makes */
#endif

#define ST_NONE		0
#define ST_OK		1
#define ST_CLOSED	2

#define SEL	2	/* the select's continuation: waiter number 2 */

bool closed[2];
bool sq[2];		/* sender c parked on channel c's sendq */
bool rq[2];		/* the select's waiter on channel c's recvq */
byte done;		/* the select record's claim word */
byte sel_case;		/* the case that won */
byte sel_val;
byte status[3];		/* senders 0, 1; the select */
byte q[3];
byte parks[3];
byte readies[3];
byte got[3];		/* receptions of values 1, 2 */
byte epipe[3];

inline ready(w)
{
	atomic {
		assert(q[w] == 0 && readies[w] < parks[w]);
		readies[w]++;
		q[w]++
	}
}

inline resume(w, st)
{
	atomic {
		q[w] > 0 ->
		q[w]--;
		st = status[w];
		assert(st != ST_NONE);
		status[w] = ST_NONE
	}
}

/* Under channel c's lock: the select's waiter there, claimed or stale. */
inline claim(c, st, won)
{
	rq[c] = false;
	if
#ifdef BUG_NOCLAIM
	:: st == ST_OK -> done = 1; won = true
	:: st != ST_OK && done == 0 -> done = 1; won = true
	:: st != ST_OK && done != 0 -> won = false
#else
	:: done == 0 -> done = 1; won = true
	:: else -> won = false
#endif
	fi;
	if
	:: won ->
		sel_case = c;
		sel_val = c + 1;
		status[SEL] = st
	:: else
	fi
}

proctype sender(byte c)
{
	bool won = false, parked = false;
	byte st;

	atomic {
		if
		:: closed[c] -> epipe[c + 1]++
		:: else ->
			if
			:: rq[c] -> claim(c, ST_OK, won)
			:: else
			fi;
			if
			:: !won -> parks[c]++; sq[c] = true; parked = true
			:: else
			fi
		fi
	}
	if
	:: won -> ready(SEL)
	:: parked ->
		resume(c, st);
		if
		:: st == ST_CLOSED -> epipe[c + 1]++
		:: else
		fi
	:: else
	fi
}

proctype selector()
{
	byte n, c, st;
	bool parked;

	for (n : 1 .. NSEL) {
		parked = false;
		atomic {	/* both locks, in address order */
			if
			:: sq[0] -> c = 0
			:: sq[1] -> c = 1
			:: closed[0] && !sq[0] -> c = 2
			:: closed[1] && !sq[1] -> c = 3
			:: else ->
				done = 0;
				rq[0] = true;
				rq[1] = true;
				parks[SEL]++;
				parked = true
			fi;
			if
			:: c < 2 && !parked ->
				sq[c] = false;
				got[c + 1]++;
				status[c] = ST_OK
			:: else
			fi
		}
		if
		:: parked ->
			resume(SEL, st);
			atomic {	/* both locks: its waiters off */
				rq[0] = false;
				rq[1] = false
			}
			if
			:: st == ST_OK -> got[sel_val]++
			:: else
			fi
		:: !parked && c < 2 -> ready(c)
		:: else
		fi
	}
}

proctype closer()
{
	byte c;
	bool s, won;

	for (c : 0 .. 1) {
		s = false;
		won = false;
		atomic {
			closed[c] = true;
			if
			:: sq[c] -> sq[c] = false; status[c] = ST_CLOSED; s = true
			:: else
			fi;
			if
			:: rq[c] -> claim(c, ST_CLOSED, won)
			:: else
			fi
		}
		if
		:: s -> ready(c)
		:: else
		fi;
		if
		:: won -> ready(SEL)
		:: else
		fi
	}
}

init {
	atomic {
		run sender(0);
		run sender(1);
		run selector();
		run closer()
	}
	_nr_pr == 1;
	assert(got[1] + epipe[1] == 1 && got[2] + epipe[2] == 1);
	assert(q[0] + q[1] + q[2] == 0 && !sq[0] && !sq[1])
}
