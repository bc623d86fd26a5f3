/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.pml: the bounded flush of a P's delayed items (kmod/timers.c,
 * "Bounds": wsx_timers_flush() and wsx_timers_flush_p(), against
 * wsx_timers_pop_due(), which wsx_timers_fire() and a thief's
 * wsx_steal_timers() call, and wsx_queue_after(); issue 23).
 *
 * What is modelled
 * ----------------
 * One P's timerqueue: its delayed items in due-time order (q[0 .. qlen-1],
 * earliest first), under p->tlock.  An item is a slot: its memory, which
 * a take frees and a later insert may reuse; sess[] is its job's session
 * (the cancel flag a flush compares).  A hold of tlock is one step.
 *
 * The flush (process flusher; wsx_timers_flush_p() under
 * wsx_timers_flush_lock, a lock here) of session S, closing, which
 * submits nothing any more: in one hold it visits up to BATCH nodes from
 * its node on (the earliest at first), each time reading the next node
 * before it takes the visited one if it is S's (wsx_timers_take()), then
 * stores the next unvisited node in tcursor and lets go of tlock.  In the
 * next hold it starts from the earliest if tcursor is NULL (the node was
 * taken meanwhile: wsx_timers_take() clears tcursor when it takes that
 * node), else at its node; it clears tcursor and visits the next batch.
 * It ends after the hold that walked off the end.
 *
 * A pop (process popper: the hrtimer's wsx_timers_fire() and thieves,
 * each a wsx_timers_pop_due() in one hold) takes 1 .. BATCH items from
 * the front.  The due items are a prefix of the queue (sorted by due
 * time); the clock, which makes any prefix due as time passes, is folded
 * into the pop's choice of how many it takes: a pop whose now (read
 * before tlock) is older takes fewer, a pop when more is due takes more,
 * up to BATCH, and the next pop goes on.
 *
 * An insert (process inserter: wsx_queue_after() of another session's
 * item) reuses any free slot (a taken item's memory, S's too: it was
 * queued, ran cancelled and was freed) and puts it at any position: its
 * key is a now read before tlock plus any delay, so it goes before the
 * items due later, and even among due items whose keys are above its
 * stale now; an equal key goes after the existing ones, which is one of
 * the positions.  NINS inserts in all, or (-DCHURN) without end.
 *
 * Checked (scripts/check-models):
 *  (a) the flush visits only nodes in the set (no use after free), and a
 *      flush that continues at its saved node continues at the item it
 *      saved, not at a freed and reused slot (ghost gone[]);
 *  (b) when a flush ends, no item of its session is in the set;
 *  (c) a flush takes only its session's items: it compares the session
 *      of the item at a node in the set, so this holds once (a) does (the
 *      assertion at the take restates it);
 *  (d) ltl done: every flush ends, with NINS finite inserts, without
 *      fairness;
 *  (e) a flush visits no item twice (visited[], a bit per slot, cleared
 *      when the slot is reused): after a restart from the earliest it
 *      meets only items inserted since, because a pop that took the
 *      cursor took every item before it (the "Bounds" argument); so a
 *      flush visits at most the items in the set while it runs.
 *      -DNOBOUND leaves (e) out.
 *  -DTWO: two sessions close, their flushes serialized by the mutex.
 *  -DCHURN: other sessions insert without end (and pops take without
 *      end); (a)-(c) and (e) still hold, but the flush need not end, even
 *      under weak fairness: inserts past its cursor keep the end of the
 *      walk ahead of it (BATCH 1: it visits x, its cursor y; a pop takes
 *      x; x's memory is queued after y; it visits y, its cursor x; ...).
 *      The case fair:done must find that acceptance cycle.
 *
 * Variants (must fail):
 *   BUG_NO_CURSOR_CLEAR  wsx_timers_take() does not clear tcursor: the
 *                        flush continues at a node a pop took (freed, or
 *                        freed and reused).  BATCH 1: S's first item
 *                        taken, the cursor the next; a pop takes it.
 *   BUG_RESUME_NEXT      the flush continues at its saved next node
 *                        without the cursor protocol (the walk of an
 *                        rbtree across an unlock): the same trail.
 *   BUG_UNSERIALIZED     (-DNOBOUND) two flushes (sessions 1 and 2) at
 *                        once without wsx_timers_flush_lock, sharing
 *                        tcursor.  BATCH 1, items [2, 1, 2, 2]: flush 2
 *                        takes the first, its cursor the second; flush 1
 *                        takes that one (tcursor cleared), then stores its
 *                        own cursor; flush 2 finds tcursor set and
 *                        continues at its node, freed.  (With (e) kept,
 *                        pan first finds a harmless double visit: a
 *                        flush's relock clears the other's cursor, which
 *                        restarts from the earliest.)

 * Sequential consistency: every access to the queue and tcursor is under
 * tlock; the mutex orders the flushes.
 */

#ifndef NSLOT
#define NSLOT	5	/* items' memory (at most 8: visited[] is a byte) */
#endif
#ifndef NINIT
#define NINIT	4	/* items queued when the flush begins */
#endif
#ifndef NINS
#define NINS	2	/* other sessions' inserts during the flush */
#endif
#ifndef BATCH
#define BATCH	2	/* WSX_TIMERS_BATCH */
#endif
#if defined(TWO) || defined(BUG_UNSERIALIZED)
#define NF	2	/* flushes: sessions 1 .. NF */
#else
#define NF	1
#endif

#define NIL	255
#define OTHER	0	/* a session that does not close */

byte q[NSLOT];		/* the timerqueue, earliest first: slots */
byte qlen;
byte sess[NSLOT];	/* the item's session (its job's cancel flag) */
bool inset[NSLOT];	/* the slot is an item in the set */
byte tcursor = NIL;	/* p->tcursor */
bool flushing;		/* wsx_timers_flush_lock */
byte fnode[NF];		/* each flush's node (wsx_timers_flush_p()'s) */
bool gone[NF];		/* ghost: fnode[f] taken since its flush saved it */
byte visited[NF];	/* ghost: the items a flush visited, a bit per slot */
byte nflushed;		/* flushes ended */

/* wsx_timers_take(): @s leaves the set; @i scratch */
inline take(s, i)
{
#ifndef BUG_NO_CURSOR_CLEAR
	if
	:: tcursor == s -> tcursor = NIL
	:: else
	fi;
#endif
	i = 0;
	do
	:: q[i] == s -> break
	:: else -> i++
	od;
	do
	:: i + 1 < qlen -> q[i] = q[i + 1]; i++
	:: else -> break
	od;
	qlen--;
	q[qlen] = NIL;
	inset[s] = false;
	i = 0;
	do
	:: i < NF ->
		if
		:: fnode[i] == s -> gone[i] = true
		:: else
		fi;
		i++
	:: else -> break
	od;
	i = 0
}

/*
 * One hold of a flush after its node is chosen: visit up to BATCH nodes,
 * taking @me's, then store the next one in tcursor.
 */
inline batch(f, me, n, s, i, nx)
{
	n = 0;
	do
	:: n < BATCH && fnode[f] != NIL ->
		s = fnode[f];
		assert(inset[s]);			/* (a) */
		if
		:: !inset[s] -> fnode[f] = NIL; break	/* for pan -i */
		:: else
		fi;
#ifndef NOBOUND
		assert((visited[f] & (1 << s)) == 0);	/* (e) */
#endif
		visited[f] = visited[f] | (1 << s);
		i = 0;
		do
		:: q[i] == s -> break
		:: else -> i++
		od;
		if
		:: i + 1 < qlen -> nx = q[i + 1]	/* timerqueue_iterate_next() */
		:: else -> nx = NIL
		fi;
		if
		:: sess[s] == me ->
			assert(sess[s] != OTHER);	/* (c) */
			take(s, i)
		:: else
		fi;
		fnode[f] = nx;
		n++
	:: else -> break
	od;
	tcursor = fnode[f];
	gone[f] = false;
	n = 0; s = 0; i = 0; nx = 0
}

proctype flusher(byte f)
{
	byte me = f + 1, n, s, i, nx;

#ifndef BUG_UNSERIALIZED
	atomic { !flushing -> flushing = true }	/* mutex_lock() */
#endif
	d_step {	/* the first hold */
		if
		:: qlen > 0 -> fnode[f] = q[0]	/* timerqueue_getnext() */
		:: else -> fnode[f] = NIL
		fi;
		batch(f, me, n, s, i, nx)
	}
	/* unlock, queue the batch, cond_resched(), lock */
	do
	:: fnode[f] == NIL -> break
	:: fnode[f] != NIL ->
		d_step {
#ifndef BUG_RESUME_NEXT
			if
			:: tcursor == NIL ->	/* taken: resume from the earliest */
				if
				:: qlen > 0 -> fnode[f] = q[0]
				:: else -> fnode[f] = NIL
				fi
			:: else ->
				assert(!gone[f])	/* (a): the item it saved */
			fi;
#else
			assert(!gone[f]);
#endif
			tcursor = NIL;
			batch(f, me, n, s, i, nx)
		}
	od;
	atomic {	/* (b) */
		i = 0;
		do
		:: i < NSLOT ->
			assert(!(inset[i] && sess[i] == me));
			i++
		:: else -> break
		od;
		i = 0;
		visited[f] = 0;
		nflushed++
	}
#ifndef BUG_UNSERIALIZED
	flushing = false	/* mutex_unlock() */
#endif
}

/* wsx_timers_pop_due(): the first k items, 1 <= k <= BATCH */
proctype popper()
{
	byte k, s, i;

end:
	do
	:: atomic {
		qlen > 0 ->
		k = 1;
		do
		:: k < BATCH && k < qlen -> k++
		:: break
		od;
		do
		:: k > 0 -> s = q[0]; take(s, i); k--
		:: else -> break
		od;
		s = 0
	   }
	od
}

/* wsx_queue_after() of another session's item into free slot @s */
inline insert(s, p, i)
{
	p = 0;
	do
	:: p < qlen -> p++
	:: break
	od;
	i = qlen;
	do
	:: i > p -> q[i] = q[i - 1]; i--
	:: else -> break
	od;
	q[p] = s;
	qlen++;
	inset[s] = true;
	sess[s] = OTHER;
	i = 0;
	do
	:: i < NF -> visited[i] = visited[i] & ~(1 << s); i++
	:: else -> break
	od;
	p = 0; i = 0
}

#ifdef CHURN
#define MORE	true
#define COUNT	skip
#else
#define MORE	(n < NINS)
#define COUNT	n++
#endif

proctype inserter()
{
	byte n, s, p, i;

end:
	do
	:: atomic { MORE && !inset[0] -> s = 0; insert(s, p, i); COUNT; s = 0 }
	:: atomic { MORE && !inset[1] -> s = 1; insert(s, p, i); COUNT; s = 0 }
	:: atomic { MORE && !inset[2] -> s = 2; insert(s, p, i); COUNT; s = 0 }
	:: atomic { MORE && !inset[3] -> s = 3; insert(s, p, i); COUNT; s = 0 }
	:: atomic { MORE && !inset[4] -> s = 4; insert(s, p, i); COUNT; s = 0 }
#if NSLOT > 5
	:: atomic { MORE && !inset[5] -> s = 5; insert(s, p, i); COUNT; s = 0 }
#endif
	od
}

ltl done { <> (nflushed == NF) }

init
{
	byte i;

	atomic {
		/* NINIT items of any session in slots 0 .. NINIT-1, in order */
		i = 0;
		do
		:: i < NSLOT ->
			q[i] = NIL;
			if
			:: i < NINIT ->
				q[i] = i;
				inset[i] = true;
				if
				:: sess[i] = OTHER
				:: sess[i] = 1
				:: NF > 1 -> sess[i] = 2
				fi
			:: else
			fi;
			i++
		:: else -> break
		od;
		qlen = NINIT;
		i = 0;
		do
		:: i < NF -> run flusher(i); i++
		:: else -> break
		od;
		run popper();
		run inserter()
	}
}
