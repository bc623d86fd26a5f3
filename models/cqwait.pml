/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqwait.pml: several ENTER waiters on one session's CQ, each to its own
 * target (kmod/rings.c, "Wake once": wsx_rings_wait_tail(), its wake
 * function wsx_rings_wake() and wsx_rings_post(); issue 20, finding 4).
 *
 *   Two waiters sleep on cq_wq, each until the CQ tail reaches its own
 *   target (head + min_complete).  Waiter 0 has no timeout and targets
 *   the poster reaches: it may ENTER a second time, for one more record
 *   than the first.  Waiter 1 may have a timeout (or take a signal) that
 *   fires at any moment of its sleep, and then its target may be beyond
 *   what is posted.  A waiter, under cq_lock, joins the queue and lowers
 *   cq_want to its target (sets it when the queue was empty), sets its
 *   task state and tests the tail; it sleeps until woken.  Woken,
 *   it finds itself off the queue (only a wake that found its target
 *   reached takes it off) and returns; else it tests again.  Timed out,
 *   it is running again, then takes itself off the queue (finish_wait(),
 *   a second step).
 *   The poster, under cq_lock, stores each new tail, reads whether anyone
 *   is on the queue and cq_want; when the tail has reached it, it wakes
 *   (under the queue's lock too): each sleeping waiter whose own target is
 *   woken and taken off the queue (autoremove_wake_function()); a waiter
 *   already running (timed out, or signalled) is left on it and not
 *   counted; cq_want is set to the lowest target of those left.
 *   Invariant: every waiter on the queue whose target is not reached has
 *   a target >= cq_want, so a tail below cq_want reaches no one asleep on
 *   it, and a waiter whose section came after the poster's sees the tail
 *   itself (with no barrier on the post: litmus/rings-wait-post-locked).
 *
 * Checked (scripts/check-models): no waiter sleeps while its target is
 * reached and nothing else will move (an invalid end state otherwise);
 * a waiter that returns reached has its target posted (assertion).
 *
 * Variants (must fail):
 *   BUG_ONE_WANT  cq_want holds the last waiter's target, not the lowest
 *                 (what the single cq_want of 0b87675 and before would
 *                 do without wait_lock's one waiter at a time): a waiter
 *                 for a far target hides a near one's wakeup.
 *   BUG_LATE_WANT the poster sets cq_want after it let go of cq_lock (what
 *                 setting it outside the lock that waiters join under
 *                 would do): a waiter that joined meanwhile with a lower
 *                 target has it overwritten.
 *   BUG_SKIP1     the wake never wakes waiter 1: the model must see a
 *                 lost wakeup of the waiter that may time out too (found
 *                 in review: an earlier version let its timeout hide it).
 *
 * Memory model: sequential consistency; each statement is one access of
 * the code, or one critical section of cq_lock (a waiter's join and test,
 * a poster's post and wake).
 */

#define N	2	/* records the poster posts */
#define NW	2

byte tail;		/* cq_tail_k */
byte want;		/* cq_want */
bool listed[NW];	/* on cq_wq */
bool running[NW];	/* the task's state: woken, timed out or signalled */
byte target[NW];
bool returned[NW];


proctype waiter(byte i)
{
	byte waits = 0;
	bool to = false;	/* it may time out, or take a signal */
	bool joined = false;

	/* target: head (0) + min_complete */
	if
	:: target[i] = 1
	:: target[i] = 2
	:: i == 1 -> target[i] = N + 1; to = true
	:: i == 1 -> target[i] = 1; to = true
	:: i == 1 -> target[i] = 2; to = true
	fi;
loop:
	atomic {	/* spin_lock(&cq_lock) */
		if
		:: !listed[i] && joined ->
			/* only a wake that found the target reached took it off */
			assert(tail >= target[i]);
			running[i] = true;
			goto out
		:: !listed[i] && !joined ->
#ifdef BUG_ONE_WANT
			want = target[i];
#else
			if
			:: !listed[1 - i] || target[i] < want -> want = target[i]
			:: else
			fi;
#endif
			listed[i] = true;
			joined = true
		:: else
		fi;
		running[i] = false;	/* set_current_state() */
		/* the test, still under cq_lock */
		if
		:: tail >= target[i] -> goto reached
		:: else
		fi
	}
	goto asleep;
reached:
	atomic { listed[i] = false; running[i] = true }	/* finish_wait */
	assert(tail >= target[i]);
	goto out;
asleep:
	if
	:: running[i] -> goto loop	/* schedule() returned: woken */
	:: to ->	/* a timeout or a signal: TASK_RUNNING, then finish_wait */
		running[i] = true;
		atomic { listed[i] = false; running[i] = true };
		goto out
	fi;
out:
	joined = false;
	/* waiter 0 may ENTER once more, for the next record */
	waits++;
	if
	:: i == 0 && waits == 1 && target[0] < N ->
		target[0]++;
		goto loop
	:: else
	fi;
	returned[i] = true
}

proctype poster()
{
	byte t, lowest, j;

	do
	:: tail < N ->
		atomic {	/* spin_lock(&cq_lock) */
			t = tail + 1;
			tail = t;	/* store-release of cq_tail_k */
			lowest = 255;
			/* no barrier: the waiters join and test under cq_lock */
			if
			:: (listed[0] || listed[1]) && t >= want ->
				/* the wake, under the queue's lock too */
				for (j : 0 .. NW - 1) {
					if
#ifdef BUG_SKIP1
					:: listed[j] && t >= target[j] && j == 1 -> skip
					:: listed[j] && t >= target[j] && j == 0 && !running[j] ->
#else
					:: listed[j] && t >= target[j] && !running[j] ->
#endif
						listed[j] = false;
						running[j] = true
					:: listed[j] && t >= target[j] && running[j] -> skip	/* ttwu fails: stays, uncounted */
					:: listed[j] && t < target[j] &&
					   target[j] < lowest ->
						lowest = target[j]
					:: else
					fi
				}
#ifndef BUG_LATE_WANT
				if
				:: lowest != 255 -> want = lowest
				:: else
				fi
#endif
			:: else
			fi
		}
#ifdef BUG_LATE_WANT
		if
		:: lowest != 255 -> want = lowest
		:: else
		fi
#endif
	:: else -> break
	od
}

init
{
	atomic {
		run waiter(0);
		run waiter(1);
		run poster()
	}
}
