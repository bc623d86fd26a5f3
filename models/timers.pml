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
 * Keys are not numbers here, only their order (the queue's) and, while a
 * flush runs, on which side of its END they are: past[s], the item's key
 * is greater than END.  The items keyed <= END are a prefix of the queue.
 *
 * The flush (process flusher; wsx_timers_flush_p() under
 * wsx_timers_flush_lock, a lock here) of session S, closing, which
 * submits nothing any more: in its first hold it records END, the key of
 * the last node (every item then in the set is keyed <= END: past[]
 * cleared; no node, nothing to do), and starts at the earliest.  In each
 * hold it visits up to BATCH nodes from its node on; it stops at the
 * first node keyed past END (the walk is over: all of S's items are
 * keyed <= END); at each node it reads the next one, then takes the
 * visited one if it is S's (wsx_timers_take()).  It stores the next
 * unvisited node in tcursor (NIL when the walk is over) and lets go of
 * tlock.  In the next hold it continues at tcursor, which a pop may have
 * moved on meanwhile (NIL: the walk is over), and sets tcursor to NIL.
 * It ends after the hold whose walk was over.
 *
 * wsx_timers_take() of the node tcursor names moves tcursor to its
 * successor in the queue (read before the node leaves it; NIL if none):
 * the first node the flush has not visited either.
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
 * queued, ran cancelled and was freed) and puts it at any position its
 * key allows: its key is a now read before tlock plus any delay, so it
 * goes before the items due later, and even among due items whose keys
 * are above its stale now; an equal key goes after the existing ones,
 * which is one of the positions.  While a flush has an END, the insert's
 * key is either <= END (anywhere among the items keyed <= END, also
 * after the last of them: a key equal to END) or past END (anywhere
 * among the items keyed past END, also before the first of them).  NINS
 * inserts in all, or (-DCHURN) without end.
 *
 * -DCHURN: inserts and pops without end, and the clock (process clock)
 * in so far as it limits inserts: a key <= END needs a now <= END, and
 * time passes END.  The clock's one step in each flush (weak fairness
 * makes it) is the point from which every insert is keyed past END: the
 * last insert whose now, read before tlock, was <= END is done (each
 * inserter has at most one such stale now once time is past END).
 * -DNOCLOCK leaves the clock out: inserts keyed <= END without end (the
 * clock never passes END, or END is far ahead).
 *
 * Checked (scripts/check-models):
 *  (a) the flush visits only nodes in the set (no use after free), and
 *      it continues at the item tcursor names, not at a freed and reused
 *      slot (ghost tgone: the node in tcursor left the set while
 *      tcursor named it);
 *  (b) when a flush ends, no item of its session is in the set;
 *  (c) a flush takes only its session's items: it compares the session
 *      of the item at a node in the set, so this holds once (a) does (the
 *      assertion at the take restates it);
 *  (d) ltl done: every flush ends: with NINS finite inserts, without
 *      fairness; with -DCHURN, under weak fairness (fair:done): the END
 *      bound leaves the walk only the inserts keyed <= END, which end
 *      when the clock passes END;
 *  (e) a flush visits no item twice (visited[], a bit per slot, cleared
 *      when the slot is reused): the walk only goes forward in due-time
 *      order, and a pop that takes the cursor moves it to the node after,
 *      which the flush has not visited either; so a flush visits at most
 *      the items in the set while it runs.  -DNOBOUND leaves (e) out.
 *  -DTWO: two sessions close, their flushes serialized by the mutex.
 *
 * Variants (must fail):
 *   BUG_NO_CURSOR_MOVE   wsx_timers_take() leaves tcursor naming the node
 *                        it takes: the flush continues at a freed node (or
 *                        a freed and reused one).  BATCH 1: S's first
 *                        item taken, the cursor the next; a pop takes it.
 *   BUG_RESUME_NEXT      the flush continues at its saved next node
 *                        without the cursor protocol (the walk of an
 *                        rbtree across an unlock): the same trail.
 *   BUG_UNSERIALIZED     (-DNINS=0) two flushes (sessions 1 and 2) at
 *                        once without wsx_timers_flush_lock, sharing
 *                        tcursor: one overwrites the cursor the other
 *                        stored.  BATCH 1, items [2, 2, 2, 2]: flush 2
 *                        takes the first, its cursor the second; flush 1
 *                        visits the second, then the third, its cursor the
 *                        fourth; flush 2 continues there, takes it and
 *                        ends with the second and third left (b).  (One
 *                        past[] for both, each flush's END clearing it:
 *                        with inserts it would not tell two ENDs apart.)
 *   BUG_NO_END           (-DCHURN, fair:done) no END bound: the walk goes
 *                        to the end of the queue (the code as of
 *                        b50c463), and inserts past its cursor keep the
 *                        end ahead of it: BATCH 1, it visits x, its cursor
 *                        y; a pop takes x; x's memory is queued after y;
 *                        it visits y, its cursor x; ...  An acceptance
 *                        cycle.  -DNOCLOCK without BUG_NO_END is the
 *                        same cycle with keys <= END.
 *
 * Sequential consistency: every access to the queue and tcursor is under
 * tlock; the mutex orders the flushes.
 */

#ifndef NSLOT
#define NSLOT	5	/* items' memory: 4 .. 6 (FREE, inserter()) */
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
#define GOING	254	/* a flush's node between holds: not NIL */
#define OTHER	0	/* a session that does not close */

byte q[NSLOT];		/* the timerqueue, earliest first: slots */
byte qlen;
byte sess[NSLOT];	/* the item's session (its job's cancel flag) */
bool inset[NSLOT];	/* the slot is an item in the set */
bool past[NSLOT];	/* the item is keyed past the running flush's END */
bool hasend;		/* a flush has recorded its END */
bool pastend;		/* the clock is past END (-DCHURN) */
byte tcursor = NIL;	/* p->tcursor */
bool tgone;		/* ghost: tcursor's node left the set, tcursor kept */
bool flushing;		/* wsx_timers_flush_lock */
byte fnode[NF];		/* each flush's node (wsx_timers_flush_p()'s) */
bool gone[NF];		/* ghost: fnode[f] taken since its flush saved it */
byte visited[NF];	/* ghost: the items a flush visited, a bit per slot */
byte nflushed;		/* flushes ended */

/* wsx_timers_take(): @s, at q[@i], leaves the set; @i scratch */
inline take(s, i)
{
	if
	:: tcursor == s ->
#ifndef BUG_NO_CURSOR_MOVE
		if	/* timerqueue_iterate_next() */
		:: i + 1 < qlen -> tcursor = q[i + 1]
		:: else -> tcursor = NIL
		fi
#else
		tgone = true
#endif
	:: else
	fi;
	do
	:: i + 1 < qlen -> q[i] = q[i + 1]; i++
	:: else -> break
	od;
	qlen--;
	q[qlen] = NIL;
	inset[s] = false;
	past[s] = false;
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
 * One hold of a flush after its node is chosen: visit up to BATCH nodes
 * keyed <= END, taking @me's, then store the next one in tcursor.
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
#ifndef BUG_NO_END
		if
		:: past[s] -> fnode[f] = NIL; break	/* past END: over */
		:: else
		fi;
#endif
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
	tgone = false;
	gone[f] = false;
#ifndef BUG_RESUME_NEXT
	if	/* the flush keeps only whether its walk is over */
	:: fnode[f] != NIL -> fnode[f] = GOING
	:: else
	fi;
#endif
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
		:: qlen > 0 ->
			fnode[f] = q[0];	/* timerqueue_getnext() */
			/* END: the last node's key; past[] is all clear */
			hasend = true;
			pastend = false
		:: else -> fnode[f] = NIL	/* nothing to do */
		fi;
		batch(f, me, n, s, i, nx)
	}
	/* unlock, queue the batch, cond_resched(), lock */
	do
	:: fnode[f] == NIL -> break
	:: fnode[f] != NIL ->
		d_step {
#ifndef BUG_RESUME_NEXT
			assert(!tgone);		/* (a): the item it names */
			fnode[f] = tcursor;	/* perhaps moved on by a pop */
#else
			assert(!gone[f]);	/* (a): the item it saved */
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
			past[i] = false;
			i++
		:: else -> break
		od;
		i = 0;
		hasend = false;
		pastend = false;
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
		:: k > 0 -> s = q[0]; i = 0; take(s, i); k--
		:: else -> break
		od;
		s = 0
	   }
	od
}

/*
 * wsx_queue_after() of another session's item into free slot @s: keyed
 * <= END if @early (the clock allows it) or past END, while a flush has
 * an END; else at any position; @p, @i scratch
 */
inline insert(s, early, p, i)
{
	i = 0;	/* the items keyed <= END: q[0 .. i-1] */
	do
	:: i < qlen && !past[q[i]] -> i++
	:: else -> break
	od;
	if
	:: early || !hasend ->	/* anywhere among them, or after */
		p = 0;
		do
		:: p < i -> p++
		:: break
		od;
		past[s] = false
	:: hasend ->		/* anywhere among the later ones, or before */
		p = i;
		do
		:: p < qlen -> p++
		:: break
		od;
		past[s] = true
	fi;
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

/* a free slot: NSLOT is 4 .. 6 */
#if NSLOT > 5
#define FREE	(!inset[0] || !inset[1] || !inset[2] || !inset[3] || \
		 !inset[4] || !inset[5])
#elif NSLOT > 4
#define FREE	(!inset[0] || !inset[1] || !inset[2] || !inset[3] || \
		 !inset[4])
#else
#define FREE	(!inset[0] || !inset[1] || !inset[2] || !inset[3])
#endif

proctype inserter()
{
	byte n, s, p, i;

end:
	do
	:: atomic {
			MORE && FREE ->
			if
			:: !inset[0] -> s = 0
			:: !inset[1] -> s = 1
			:: !inset[2] -> s = 2
			:: !inset[3] -> s = 3
#if NSLOT > 4
			:: !inset[4] -> s = 4
#endif
#if NSLOT > 5
			:: !inset[5] -> s = 5
#endif
			fi;
			insert(s, !pastend, p, i);
			COUNT;
			s = 0
		}
	od
}

#if defined(CHURN) && !defined(NOCLOCK)
/* time passes the running flush's END */
proctype clock()
{
end:
	do
	:: atomic { hasend && !pastend -> pastend = true }
	od
}
#endif

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
		:: i < NF -> fnode[i] = NIL; run flusher(i); i++
		:: else -> break
		od;
		run popper();
		run inserter();
#if defined(CHURN) && !defined(NOCLOCK)
		run clock()
#endif
	}
}
