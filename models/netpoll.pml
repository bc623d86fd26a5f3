/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netpoll.pml: a POLL item parked on a kernel wait queue through a wait
 * queue entry whose wake function readies it, racing the event's wakeups
 * against its cancellation (timeout, close()); the ownership handoff of
 * docs/park.md ("The netpoller"), after io_uring's poll (io_poll_wake(),
 * io_poll_get_ownership(), io_poll_remove_entry()).  Written before the
 * code (issue 21, "Models first"); the names are the design's.
 *
 * What is modelled
 * ----------------
 * The item (process poller) arms: it owns itself (refs = 1), is on its
 * session's list of parked items (onlist, under the session's lock
 * slock), and adds its entry to the file's wait queue under the queue's
 * lock (listed; head, the entry's pointer to the queue, which the item
 * reads without the lock).  Then, the owner, it looks (the owner's loop,
 * io_poll_check_events()): a cancel flag set: it completes cancelled; the
 * event there (vfs_poll()): it completes with it; else it gives back the
 * ownership counts it saw (atomic_sub_return()) and, when none came
 * meanwhile, returns: parked, no M held.  When some came, it looks again.
 *
 * The waker (process waker) makes the event true and calls wake_up(),
 * NWAKE times: under the queue's lock, for a listed entry, the wake
 * function takes an ownership count (atomic_fetch_inc()); the one that
 * took it from 0 owns the item: it takes the entry off the queue (it
 * holds the lock) and readies the item.  Others only count.
 *
 * A canceller (process canceller: the timeout, which may fire or not,
 * and close(), which always comes; rmmod comes after every close) finds
 * the item on the session's list under slock, sets the cancel flag
 * (atomic_or()), takes an ownership count and readies the item if it
 * took it from 0.  close() then waits for the session's jobs
 * (wait_event() in wsx_release()): after it the session is gone.
 *
 * The readied continuation runs the owner's loop again.  Completing, the
 * owner takes the entry off the queue if head is still set (under the
 * queue's lock: a wake function running for it holds that lock), takes
 * the item off the session's list (under slock: a canceller holds it while
 * it touches the item), posts its result and frees the item.  The item
 * never gives back the ownership it completes with, so nobody readies it
 * after.
 *
 * A lock is a bool taken in an atomic step; a section under it is one
 * atomic step where nothing in it races with lockless accesses, else one
 * step per access.  Sequential consistency.
 *
 * Checked (scripts/check-models, safety):
 *  - the item is readied only while nobody runs it, at most once before
 *    it runs, never after it is freed (assertion in ready());
 *  - no wake function or canceller touches the item after it is freed
 *    (assertions at each of their accesses); nothing of it runs after its
 *    session is gone;
 *  - it completes exactly once and is freed, off the queue and off the
 *    session's list (assertions at the end); nothing leaks and it does
 *    not stay parked (an invalid end state otherwise: close() waits);
 *  - -DNOCANCEL: without timeout and close(), the event's wakeup is not
 *    lost: the item completes with the event (invalid end state else).
 *
 * Variants (must fail):
 *   BUG_WAKE_AFTER_FREE  the completing item takes its entry off the
 *                        queue without the queue's lock and frees itself
 *                        while a wake function, holding that lock, is
 *                        still at the entry.
 *   BUG_DOUBLE_READY     the wake function tests the ownership count
 *                        and, seeing 0, stores 1 (two accesses, no
 *                        atomic fetch-and-increment or cmpxchg): it and
 *                        a canceller both own and both ready the item.
 *   BUG_CANCEL_NOLOCK    a canceller finds the item on the session's list
 *                        without the session's lock: the item frees
 *                        itself between the look and the flag.
 *   BUG_CHECK_FIRST      (-DNOCANCEL) the arming item looks for the
 *                        event before it adds its entry to the queue,
 *                        and parks without looking again: an event and
 *                        its wakeup between the two are lost.
 *   BUG_ARM_LOST         (-DNOCANCEL) the arming item gives its
 *                        ownership back by storing 0, not by subtracting
 *                        what it saw: a wakeup counted while it looked is
 *                        dropped and the item stays parked with its event.
 */

#ifndef NWAKE
#define NWAKE	2	/* wake_up() calls of the event's source */
#endif

#define R_NONE		0
#define R_EVENT		1
#define R_CANCELLED	2

bool wqlock;		/* the wait queue's lock */
bool slock;		/* the session's lock of its parked items */
bool listed;		/* the entry on the wait queue: under wqlock */
bool head = false;	/* its pointer to the queue: set/cleared under wqlock */
bool onlist;		/* on the session's list of parked items: under slock */
byte refs;		/* ownership counts */
bool cancel;		/* the cancel flag of refs */
bool ev;		/* the event, as vfs_poll() reports it */
bool running;		/* ghost: the item (its owner's code) runs */
bool freed;
bool gone;		/* ghost: the session is gone */
byte q;			/* the continuation queued on a run queue */
byte completions;
byte result;

inline ready()
{
	atomic {
		assert(!freed && !running && q == 0);
		q++
	}
}

proctype poller()
{
	byte v, r;

	/* arm: refs = 1 and onlist were set before the item was visible */
#ifdef BUG_CHECK_FIRST
	if
	:: ev -> result = R_EVENT; goto done
	:: else
	fi;
#endif
	atomic { !wqlock -> listed = true; head = true }	/* poll_wait() */
#ifdef BUG_CHECK_FIRST
	v = refs;
	goto give_back;
#endif
check:
	v = refs;
	if
	:: cancel -> result = R_CANCELLED; goto done
	:: !cancel && ev -> result = R_EVENT; goto done
	:: else
	fi;
	/* give back what it saw; park when nothing came meanwhile */
give_back:
	atomic {
#ifdef BUG_ARM_LOST
		refs = 0;
#else
		refs = refs - v;
#endif
		r = refs;
		if
		:: r == 0 -> running = false
		:: else
		fi
	}
	if
	:: r > 0 -> goto check
	:: else
	fi;
	/* the continuation, when readied */
	atomic {
		q > 0 ->
		q--;
		running = true;
		assert(!gone && !freed)
	}
	goto check;
done:
	/* io_poll_remove_entry(): head read without the lock */
	if
	:: head ->
#ifdef BUG_WAKE_AFTER_FREE
		listed = false;
		head = false
#else
		atomic { !wqlock -> listed = false; head = false }
#endif
	:: else
	fi;
	atomic { !slock -> onlist = false };
	completions++;
	atomic {
		assert(!gone);
		freed = true;
		running = false
	}
}

proctype waker()
{
	byte n, old;

	for (n : 1 .. NWAKE) {
		ev = true;
		atomic { !wqlock -> wqlock = true };
		if
		:: listed ->
			assert(!freed);
#ifdef BUG_DOUBLE_READY
			old = refs;
			if
			:: old == 0 -> refs = 1
			:: else
			fi;
#else
			atomic { old = refs; refs++ }
#endif
			assert(!freed);
			if
			:: old == 0 ->
				listed = false;
				head = false;
				ready()
			:: else
			fi
		:: else
		fi;
		wqlock = false
	}
}

proctype canceller(bool is_close)
{
	byte old;

#ifndef BUG_CANCEL_NOLOCK
	atomic { !slock -> slock = true };
#endif
	if
	:: onlist ->
		assert(!freed);
		cancel = true;
		atomic { old = refs; refs++ };
		assert(!freed);
		if
		:: old == 0 -> ready()
		:: else
		fi
	:: else
	fi;
#ifndef BUG_CANCEL_NOLOCK
	slock = false;
#endif
	if
	:: is_close ->
		freed;		/* wait_event(): the session's jobs */
		gone = true
	:: else
	fi
}

init {
	atomic {
		refs = 1;
		onlist = true;
		running = true;
		run poller();
		run waker();
#ifndef NOCANCEL
		run canceller(true);
		if
		:: run canceller(false)	/* the timeout fires */
		:: skip
		fi
#endif
	}
	_nr_pr == 1;
	assert(freed && completions == 1 && q == 0 && !listed && !onlist);
#ifdef NOCANCEL
	assert(result == R_EVENT)
#endif
}
