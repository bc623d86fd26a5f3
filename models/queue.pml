/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.pml - queueing, stealing, spinning, parking and waking (queue.c,
 * steal.c, sched.c):
 * the lost-wakeup handshake ("Spinning and parking" in sched.c's design
 * comment; wsx_wakep() against wsx_m_park()) with the inbox and fix F7.
 *
 * What is modelled
 * ----------------
 * NP Ps, each held for good by its own M (process M(i) holds P i: blocking
 * sections are handoff.pml's), all online (hotplug is hotplug.pml's), and a
 * submitter process queueing from outside.  Per P:
 *   rq[p]     runnext and the runq together: what the owner takes one item
 *             at a time and thieves take n - n/2 of in one atomic step
 *             (wsx_runq.h's protocol is taken as proved: an item is taken
 *             once, a grab is atomic at its cmpxchg on head);
 *   inbox[p]  the llist that items queued from outside go to; the owner
 *             empties it at each schedule point and (F7 (ii)) so may a thief;
 *   bl[p]     the owner's private backlog: what it took from its inbox
 *             beyond its runq's room (RQMAX, a runq of that many slots for
 *             the inbox's items, runnext counted in; spawns and global
 *             batches are put as if it had room, their spill being not
 *             modelled), moved into the runq at each schedule point as far
 *             as it has room (asserted).  Thieves never see it: an item
 *             there waits for the P's next schedule point, the rest of one
 *             item's run, by design, so the invariant counts it as queued
 *             only while its owner sleeps;
 *   pidle[p]  the P's idle bit; with npidle, nmspinning and each M's woken
 *             and wake_spinning, the wakeup protocol.  Set by the parking
 *             holder after it found its runq and runnext empty, cleared by
 *             a waker or by the holder taking its P back.  A thief skips a
 *             victim whose bit is set and whose inbox is empty
 *             (wsx_steal_group()), and asserts there that its runq and
 *             runnext are empty.
 * glen[q] is global queue q: one (NODES 1, steal_topology flat or cache,
 * or one node), or one per NUMA node (NODES 2, steal_topology=numa): P p
 * is on node NODE(p); a submitter on either node's CPU puts on its node's
 * queue; an M takes from its own node's queue, then from the others, only
 * after its own came up empty; a parker's recheck after the barrier reads
 * every node's queue.  Items are counted, not named: created counts
 * the items queued, ran the items started.  An item moved from one place
 * to another is invisible in between (the owner's inbox drain, a global
 * batch, a thief's copy, a thief's give-back): each move is two steps, as
 * in the code.  A running item spawns at most NSPAWN children in all.
 *
 * Each step is one access to shared memory or one atomic operation (a
 * test_bit() and its test_and_clear_bit() are one step: the pair fails at
 * the test or succeeds at the clear); local computation is folded in.  The
 * model is sequentially consistent: the handshake's "store; smp_mb();
 * load" on both sides (wsx_wakep(), wsx_wake_p() and wsx_m_park()) is the order of the steps here; that
 * the barriers give that order is argued in the code's comments and
 * checked by KCSAN, not here.  An item may run for as long as it likes
 * (state RUN), as the module cannot preempt it.
 *
 * Properties
 * ----------
 *  - no lost wakeup (invariant SAFE, process watch): never a state where
 *    every M runs an item or sleeps with nobody about to wake it, the
 *    submitter is not inside a call, some M sleeps (its P idle) and an item
 *    is queued where that M could take it (global queue, any runq, runnext
 *    or inbox).  Such a state lasts as long as the running items do; with
 *    every M asleep it is "work queued and every M sleeps", for good.
 *  - no item lost or run twice: ran <= created and nothing is queued in a
 *    final state (the invariant, with every M asleep in a valid end state);
 *    a counter never goes below zero (assertions).
 *  - progress: no cycle that starts no item (pan -l, -DNOWATCH): with the
 *    invariant, every queued item runs.  (ltl alldone says the same under
 *    weak fairness; it costs ten times more and is not run by default.)
 *
 * Variants (spin -D...): the code as of f7ca79a or the F7 design as
 * written, each of which pan must find violating the invariant:
 *   BUG_F7    finding 7: inboxes are the owner's only, and a submitter that
 *             cannot claim the P's idle bit wakes nobody.
 *   BUG_F7III F7 without (iii): a parker does not look at other Ps' inboxes.
 *   BUG_F4    finding 4: the parker's look at a runq may read a non-empty
 *             runq as empty (wsx_runq_len() of a churning full runq; here
 *             at any length).
 *   BUG_N1    wsx_work_visible(): a parker that was not spinning looks only at
 *             the global queue and its own inbox.
 *   BUG_N2    wsx_inbox_drain() and wsx_gq_get(): the owner puts items in
 *             its runq from its inbox or a global batch and wakes nobody (the inbox
 *             only for n > 1).
 *   BUG_BACKLOG  wsx_inbox_drain(): the owner moves its backlog into its
 *             runq at a schedule point where its inbox was empty and wakes
 *             nobody (a wakeup only for what the inbox brought): the
 *             items, hidden while it ran the last one, stay hidden from
 *             the idle Ps for as long as it runs the next (-DRQMAX=2
 *             -DNSUB=4).
 *   BUG_REFILL1  wsx_inbox_drain() moves one backlog item per schedule
 *             point, not as many as the runq has room for: a backlog
 *             beside a runq with room (the assertion in the drain step).
 *   BUG_PARKBL   wsx_work_visible(): the parker does not look at its own
 *             backlog, and sleeps on it.
 *   BUG_N3    wsx_m_park(): a parker that saw work but whose idle bit a
 *             waker claimed first sleeps without handing the search on.
 *   BUG_N4    wsx_wakep() reserves nmspinning before it
 *             has found an idle P.
 *   BUG_SKIP  the parker's recheck takes its own inbox into its runq before
 *             it takes its idle bit back: the runq fills while the bit is
 *             set, and a thief skips a P with items (the assertion in
 *             try_victim()).
 *   BUG_G1    per-node global queues (NODES 2) whose parker rechecks only
 *             its own node's queue: a queuer on the other node that saw
 *             this M spinning woke nobody, and nobody looks at that queue.
 *   BUG_N1TRUST  wsx_m_park(): a parker that was not spinning leaves work
 *             it saw on other Ps to the spinning Ms counted before its P
 *             was idle, not after its recheck: one that stopped meanwhile
 *             woke nobody (this P was not idle yet).  With NP 2 only: the
 *             3-P cases of check-models do not reach the trust rule (no
 *             parker there sees work on a third P while an M is counted).
 *   BUG_BATCHEARLY  (with BATCH) the batch's wakeup decision made before
 *             its items are listed, as a flush that decided at the first
 *             wsx_queue_batch_add() would: the M woken (or the idle bit
 *             claimed) finds nothing, and the items wait behind a running
 *             one.
 *   BUG_HERENEVER  sub_wake_p(): a submitter that runs on never wakes
 *             the P it queued on, not even last.
 * The fixes N1-N4 are in the default model; models/README.md explains
 * them and shows the trails.
 *
 * BATCH: the submitter queues its NSUB items in one step, to one place,
 * and makes one wakeup decision after it (wsx_queue_batch_flush(), the
 * doors' batch): the M it wakes must hand the search on to find the rest
 * for the other idle Ps (wsx_m_reset_spinning()).
 *
 * Sizes: NP Ps (= Ms, 2 or 3), NSUB items queued by the submitter, NSPAWN
 * items spawned, NAWAKE Ms looking for work at the start (the others start
 * parked, their P idle), NODES global queues (1 or 2), RQMAX the runq's
 * room for the inbox's items (default 255: no backlog).  The defaults (2, 2,
 * 1, 1, 1) take 5.5 million states (4.2 million before a submitter could
 * run on, sub_wake_p(); 3.2 million while pidle_get() took the
 * lowest-numbered idle P: every order of its tries costs the rest).
 */

#ifndef NP
#define NP	2
#endif
#ifndef NSUB
#define NSUB	2
#endif
#ifndef NSPAWN
#define NSPAWN	1
#endif
#ifndef NAWAKE
#define NAWAKE	1
#endif
#ifndef NODES
#define NODES	1
#endif
#ifndef RQMAX
#define RQMAX	255	/* the runq's room for the inbox's items: no backlog */
#endif
#if NODES < 1 || NODES > 2
#error NODES must be 1 or 2
#endif

/* the node of P p (p->node): Ps spread over the nodes in order */
#define NODE(p)	((p) * NODES / NP)

#define NONE	255

/* what an M is doing, for the invariant */
#define BUSY	0	/* scheduler code */
#define RUN	1	/* inside an item, not calling wsx */
#define SLEEP	2	/* in wait_event_idle() */

byte rq[NP];		/* p->runnext + p->runq */
byte inbox[NP];		/* p->inbox */
byte bl[NP];		/* p->backlog_len */
byte glen[NODES];	/* the global queues' len */
bool pidle[NP];		/* wsx_sched.pidle */
byte npidle;		/* wsx_sched.npidle */
byte nmspinning;	/* wsx_sched.nmspinning */
bool woken[NP];		/* m->woken of M i */
bool wake_spinning[NP];	/* m->wake_spinning */
byte mst[NP];		/* ghost: BUSY, RUN, SLEEP */
byte created;		/* ghost: items queued */
byte spawned;		/* ghost: ... of which by running items */
byte ran;		/* ghost: items started */
bool sub_busy;		/* ghost: the submitter is inside wsx_queue() */
bool sub_done;		/* ghost: it queued all it will */

/*
 * wsx_pidle_claim().  test_bit() and test_and_clear_bit() are one
 * step here: the pair returns false at the test or succeeds at the clear,
 * which one atomic step at either moment covers.  atomic_dec(npidle)
 * is a step of its own.
 */
inline pidle_claim(id, got)
{
	atomic {
		if
		:: pidle[id] -> pidle[id] = false; got = true
		:: else -> got = false
		fi
	}
	if
	:: got ->
		/* F6: npidle was incremented before the bit was set */
		atomic { assert(npidle > 0); npidle-- }
	:: else
	fi
}

/*
 * wsx_pidle_get(): each P tried once, the nearest to the search's start
 * first (that P, then its victim order), or NONE.  Which P that is depends
 * on the caller and on the topology, so here each try takes any P not
 * tried yet: every order the code can take (NP is 2 or 3, below).  pg is
 * the set of Ps tried (a local of each caller, 0 between calls).
 */
inline pidle_get(id)
{
#ifndef BUG_HERENEVER
	assert(pg == 0);
#endif
	do
	:: atomic { pg == (1 << NP) - 1 -> id = NONE; pg = 0 }
		break
	:: atomic {
		if
		:: !(pg & 1) -> id = 0
		:: NP > 1 && !(pg & 2) -> id = 1
		:: NP > 2 && !(pg & 4) -> id = 2
		fi
	   }
		if
		:: atomic { pidle[id] -> pidle[id] = false; pg = 0 }
			atomic { assert(npidle > 0); npidle-- }
			break
		:: atomic { !pidle[id] -> pg = pg | (1 << id) }
		fi
	od
}

/*
 * wsx_m_wake(): wake_spinning, then woken with a store-release;
 * the wake_up() is the M's blocking guard on woken (handoff.pml models the
 * wake_up() as a step of its own, against the reaper).
 */
inline m_wake(m, s)
{
	atomic { wake_spinning[m] = s; woken[m] = true }
}

/*
 * wsx_wakep() (its smp_mb() is the order of the steps).
 *
 * As of f7ca79a (BUG_N4) it reserves the wakeup first, nmspinning 0 -> 1
 * (wsx_wakep()), then looks for an idle P, and drops the reservation when it finds
 * none (wsx_wakep()).  A queuer that reads nmspinning meanwhile relies on the
 * reservation and wakes nobody, though nobody will search: finding N4.
 * Fix N4: claim an idle P first, then count its M spinning and wake it;
 * nmspinning counts only Ms that search or are woken to.  Two queuers may
 * then both wake an M (the half-busy bound of wsx_may_spin() limits it).
 */
inline wakep(id)
{
	if
	:: npidle == 0				/* wsx_wakep() */
	:: else ->
		if
		:: nmspinning != 0		/* wsx_wakep() */
		:: else ->
#ifdef BUG_N4
			if
			/* wsx_wakep() try_cmpxchg(nmspinning, 0, 1) */
			:: atomic { nmspinning == 0 -> nmspinning = 1 }
				pidle_get(id);		/* wsx_wakep() */
				if
				:: id == NONE ->	/* wsx_wakep() */
					atomic { assert(nmspinning > 0);
						 nmspinning-- }
				:: else ->
					/* wsx_wakep(), p->m of P id is M id */
					m_wake(id, true)
				fi
			:: nmspinning != 0
			fi
#else
			pidle_get(id);
			if
			:: id == NONE
			:: else ->
				nmspinning++;
				m_wake(id, true)
			fi
#endif
		fi
	fi;
	id = 0
}

/*
 * wsx_wake_p(), and F7 (i): a submitter that could not claim the
 * P's idle bit (its M is busy, or another waker has it) calls wsx_wakep().
 */
inline wake_p(p, got, id)
{
	pidle_claim(p, got);			/* wsx_wake_p() */
	if
	:: got -> m_wake(p, false)		/* wsx_wake_p() */
	:: else ->
#ifdef BUG_F7
		skip
#else
		wakep(id)			/* F7 (i) */
#endif
	fi;
	got = false
}

/*
 * A submitter's wakeup after its inbox put (wsx_inbox_put(), then
 * wsx_wake_p()).  A caller that runs on after the put (a batch with
 * caller_runs: the rings' ENTER that does not wait) on the CPU of the P it
 * queued on does not claim that P first, whose M would wait for the
 * caller's CPU: it calls wsx_wakep(), which tries that P last.  The
 * submitter may be on any CPU and may run on or wait: either choice, at
 * each put.  pidle_get() tries the Ps in any order, the target's last
 * among them.
 *   BUG_HERENEVER: the caller that runs on never wakes its own P, not even
 *   last (the P marked tried): with the other Ps busy, nobody wakes.
 */
inline sub_wake_p(p, got, id)
{
	if
	:: true ->	/* waits, or queues on another CPU's P */
		wake_p(p, got, id)
	:: true ->	/* runs on, on @p's CPU: wsx_wake_p()'s caller_runs */
#ifdef BUG_HERENEVER
		pg = 1 << p;
		wakep(id);
		pg = 0
#else
		wakep(id)
#endif
	fi
}

/*
 * wsx_work_visible(): every P's runq and runnext, and with F7 (iii)
 * every other P's inbox; @far: something was seen.
 */
inline scan_all(id, far)
{
	id = 0;
	do
	:: id < NP ->
		if
		:: rq[id] > 0 ->
#ifdef BUG_F4
			if
			:: far = true; break
			:: skip		/* finding 4: read as empty */
			fi
#else
			far = true;
			break
#endif
		:: else
		fi;
#if !defined(BUG_F7) && !defined(BUG_F7III)
		if
		:: id != me && inbox[id] > 0 ->	/* F7 (iii) */
			far = true;
			break
		:: else
		fi;
#endif
		id++
	:: else -> break
	od;
	id = 0
}

/*
 * wsx_runq_steal(): wsx_runq_grab() takes k = n - n/2 with one
 * cmpxchg on the victim's head.
 */
inline steal_ring(v)
{
	n = rq[v];
	k = n - n / 2;
	rq[v] = rq[v] - k;
	n = 0
}

/*
 * F7 (ii): the runq gave nothing: llist_del_all() of the victim's inbox,
 * keep k = n - n/2, give the rest back the way a submitter does.
 */
inline steal_inbox(v)
{
#ifndef BUG_F7
	if
	:: k == 0 ->
		atomic { n = inbox[v]; inbox[v] = 0; k = n - n / 2; n = n - k }
		if
		:: n > 0 ->
			atomic { inbox[v] = inbox[v] + n; n = 0 }
			wake_p(v, ok, w)
		:: else
		fi
	:: else
	fi
#else
	skip
#endif
}

/*
 * wsx_steal_group()'s look at one victim: an idle P (test_bit() of its bit
 * in wsx_sched.pidle) whose inbox is empty (llist_empty(), a step of its
 * own) is skipped, not tried; otherwise wsx_runq_steal(), then F7 (ii).
 * The skip relies on the rule that an idle P's runq and runnext are empty:
 * only its holder fills them, and it sets its idle bit (wsx_m_idle_p())
 * only after finding both empty; a waker or the holder clears the bit
 * before the holder fills them again.  The assertion checks the rule at
 * the moment the bit is read set.  k > 0: something was taken; no skip
 * and no grab leaves k 0.
 */
inline try_victim(v)
{
	atomic { skipped = pidle[v]; assert(!skipped || rq[v] == 0) }
	if
	:: skipped -> atomic { skipped = (inbox[v] == 0) }
	:: else
	fi;
	if
	:: skipped -> skipped = false; k = 0
	:: else ->
		atomic { steal_ring(v) }
		steal_inbox(v)
	fi
}

/*
 * wsx_work_visible()'s look at the global queues: every node's len, own
 * node first, one read per queue (BUG_G1: its own node's only).
 */
inline global_visible()
{
#if NODES == 1
	if
	:: glen[0] > 0 -> ok = true		/* wsx_work_visible() */
	:: else
	fi
#else
	do
	:: glen[q] > 0 -> ok = true; break
	:: else ->
#ifdef BUG_G1
		break
#else
		g++;
		q = (q + 1) % NODES;
		if
		:: g == NODES -> break
		:: else
		fi
#endif
	od;
	atomic { q = NODE(me); g = 0 }
#endif
}

proctype M(byte me; bool parked)
{
	bool spinning, was, ok, far, skipped;
	byte n, k, v, id, w, pg;
#ifdef BUG_N1TRUST
	byte early;	/* the other spinning Ms, read as it starts to park */
#endif
	byte q = NODE(me), g;	/* the global queue looked at, how many */

	if
	:: parked -> goto end_sleep
	:: else
	fi;

top:	/* wsx_find_runnable(), one turn of its loop */

	/*
	 * wsx_inbox_drain(): llist_del_all() into the backlog, then from the
	 * backlog as far as the runq has room (one step: the backlog is the
	 * owner's alone, so nobody sees a state between the two)
	 */
	atomic {
		n = inbox[me];
		inbox[me] = 0;
		bl[me] = bl[me] + n;
#if defined(BUG_N2) || defined(BUG_BACKLOG)
		w = n;	/* what the inbox brought, for the bug variants */
#endif
		if
		:: rq[me] >= RQMAX -> n = 0
		:: else ->
			n = RQMAX - rq[me];
			if
			:: n > bl[me] -> n = bl[me]
			:: else
			fi
		fi;
#ifdef BUG_REFILL1
		if
		:: n > 1 -> n = 1
		:: else
		fi;
#endif
		bl[me] = bl[me] - n;
		/*
		 * a backlog only behind a full runq: what bounds its wait to
		 * one run, with the wakeup below
		 */
		assert(bl[me] == 0 || rq[me] + n >= RQMAX)
	}
	if
	:: n > 0 ->
#ifdef BUG_N2
		atomic { rq[me] = rq[me] + n; n = 0 }
		if
		:: w > 1 -> wakep(id)	/* wsx_inbox_drain() */
		:: else
		fi
#else
		/*
		 * fix N2: wake whenever the runq and runnext hold more than
		 * the one item this M runs next (wsx_runq_added()); the
		 * inbox's n > 1 misses one item put behind a runnext item,
		 * which a parker looking for work did not see while it was
		 * in transit
		 */
		atomic { rq[me] = rq[me] + n; n = 0 }
		if
#ifdef BUG_BACKLOG
		:: w > 0 && rq[me] > 1 -> wakep(id)
#else
		:: rq[me] > 1 -> wakep(id)
#endif
		:: else
		fi
#endif
	:: else
	fi;
#if defined(BUG_N2) || defined(BUG_BACKLOG)
	w = 0;
#endif

	/* wsx_runq_get(): runnext, then the runq's head */
gget:
	if
	:: atomic { rq[me] > 0 -> rq[me]-- }
		goto execute
	/*
	 * wsx_gq_get_nearest(), through wsx_gq_get(p, gq, 0) (the global_tick
	 * pick in wsx_find_runnable() only changes the order).  Only the owner adds to rq[me]: still 0 here.
	 * With NODES 2: its own node's queue, then the other's (each under
	 * its own lock), which is node_near's order.
	 */
	:: atomic { rq[me] == 0 && glen[q] > 0 ->	/* wsx_gq_get_nearest(), under glock */
		n = glen[q] / NP + 1;	/* wsx_gq_batch(), online = NP */
		if
		:: n > glen[q] -> n = glen[q]
		:: else
		fi;
		glen[q] = glen[q] - n;
		q = NODE(me);
		g = 0
	   }
		/* wsx_gq_get_nearest(): run the first, the rest to the runq */
		if
		:: n > 1 ->
			atomic { rq[me] = rq[me] + n - 1; n = 0 }
#ifndef BUG_N2
			wakep(id)	/* fix N2, as for the inbox */
#endif
		:: else -> n = 0
		fi;
		goto execute
	:: atomic { rq[me] == 0 && glen[q] == 0 && g + 1 < NODES ->
		g++; q = (q + 1) % NODES }
		goto gget
	:: atomic { rq[me] == 0 && glen[q] == 0 && g + 1 >= NODES ->
		g = 0; q = NODE(me) }
	fi;

	/* wsx_may_spin(), wsx_m_spin() */
	if
	:: spinning
	:: !spinning ->
		w = NP - npidle;		/* busy = nponline - npidle */
		if
		:: atomic { 2 * nmspinning < w -> w = 0; spinning = true }
			nmspinning++		/* wsx_m_spin() */
		:: atomic { 2 * nmspinning >= w -> w = 0 }
			goto park
		fi
	fi;

	/*
	 * wsx_steal_work(): the other Ps from a random one.  One
	 * round stands for steal_tries: a grab is atomic here and what comes
	 * after a round is the parker's recheck (a round in which no victim
	 * showed anything ends the search in the code too).  runnext is in rq, so the
	 * last round's runnext steal (wsx_runq_steal(), wsx_steal_runnext()) is part of the grab.
	 */
	if
	:: v = (me + 1) % NP
	:: NP > 2 -> v = (me + 2) % NP
	fi;
	try_victim(v);
	if
	:: NP > 2 && k == 0 ->
		v = 3 - me - v;		/* the other one */
		try_victim(v)
	:: else
	fi;
	v = 0;
	if
	:: k > 0 ->
		/* wsx_runq_steal(): publish all but the one to run with the tail */
		if
		:: k > 1 -> atomic { rq[me] = rq[me] + k - 1; k = 0 }
		:: else -> k = 0
		fi;
		goto execute
	:: else
	fi;

park:	/* wsx_m_park() */
#ifdef BUG_N1TRUST
	atomic { early = nmspinning - (spinning -> 1 : 0) };
#endif
	if
	:: atomic { spinning -> spinning = false; was = true;
		    assert(nmspinning > 0); nmspinning-- }
		npidle++			/* wsx_m_idle_p() */
	:: atomic { !spinning -> npidle++ }	/* wsx_m_idle_p() */
	fi;
	/* wsx_m_park(); wsx_m_idle_p(), nobody in mwait here */
	pidle[me] = true;			/* wsx_m_idle_p() */
	/* wsx_m_park(): parked, smp_mb(); wsx_work_visible() */
	global_visible();
	if
	:: ok
	:: else ->
		if
#ifdef BUG_SKIP
		/*
		 * the holder takes its inbox into its runq while its idle bit
		 * is still set, before it takes the bit back: a thief reading
		 * the bit skips a P whose runq holds items
		 */
		:: atomic { inbox[me] > 0 -> rq[me] = rq[me] + inbox[me];
			    inbox[me] = 0; ok = true }
#else
#ifdef BUG_PARKBL
		:: inbox[me] > 0 -> ok = true
#else
		:: inbox[me] > 0 || bl[me] > 0 -> ok = true	/* wsx_work_visible() */
#endif
#endif
		:: else ->
#ifdef BUG_N1
			/* wsx_work_visible(): only a parker that was spinning */
			if
			:: was -> scan_all(id, far)
			:: else
			fi
#else
			/* fix N1: every parker looks at every P */
			scan_all(id, far);
			/*
			 * ... but one that was not spinning trusts an M still
			 * counted spinning (wsx_m_park()): that M finds the
			 * work, or hands the search on when it stops (it
			 * sees this P idle), or rechecks every P when it
			 * parks.  This keeps wsx_may_spin()'s bound.
			 */
			if
#ifdef BUG_N1TRUST
			:: atomic { far && !was && early > 0 -> far = false }
#else
			:: atomic { far && !was && nmspinning > 0 -> far = false }
#endif
			:: else
			fi
#endif
		fi
	fi;
	if
	:: ok || far ->
		/* wsx_m_park(), wsx_pidle_reclaim() (p->m == m) */
		pidle_claim(me, ok);
		if
		:: ok ->
			if
			:: atomic { was || far -> ok = false; was = false;
				    far = false; spinning = true }
				nmspinning++	/* wsx_m_park(): wsx_m_spin() */
			:: atomic { !was && !far -> ok = false }
			fi;
			goto top
		:: else ->
			far = false;
#ifndef BUG_N3
			/*
			 * fix N3: a waker has the idle bit and wakes this M
			 * for its own reason (wsx_wake_p: not spinning, or
			 * lose_p); the work seen here is nobody's: hand the
			 * search on
			 */
			wakep(id)
#else
			skip
#endif
		fi
	:: else
	fi;
	/* wsx_m_park(): wait for the waker that claimed the idle bit */
	atomic { was = false; mst[me] = SLEEP }
end_sleep:
	atomic { woken[me] -> mst[me] = BUSY;
		 /* wsx_m_unpark(): take over the waker's state */
		 woken[me] = false; spinning = wake_spinning[me] }
	goto top;

execute:	/* wsx_execute() */
	if
	:: spinning ->
		/* wsx_m_reset_spinning() */
		atomic { assert(nmspinning > 0); nmspinning--; w = nmspinning;
			 spinning = false }
		if
		:: w == 0 -> w = 0; wakep(id)
		:: else -> w = 0
		fi
	:: else
	fi;
progress:
	atomic { ran++; mst[me] = RUN }		/* wsx_execute(): the item starts */
	if
	/* the item spawns a child: wsx_spawn(), runnext */
	:: atomic { spawned < NSPAWN -> spawned++; created++; mst[me] = BUSY;
		    rq[me]++ }
		wakep(id);			/* wsx_spawn() */
		mst[me] = RUN
	:: skip
	fi;
	mst[me] = BUSY;				/* the item returns */
	goto top
}

/* Queueing from outside (ioctl, timers, other kernel code). */
proctype submitter()
{
	byte n, id, pg, q;
	bool got;

#ifdef BATCH
	/*
	 * The NSUB items of one ENTER or SUBMIT, each counted in its job at
	 * wsx_queue_batch_add(), listed in one step at
	 * wsx_queue_batch_flush() (one llist_add_batch() or one global
	 * put), then one wakeup decision
	 */
	sub_busy = true;
	if
	:: /* WSX_WHERE_P, 0: the inbox */
#ifdef BUG_BATCHEARLY
		wake_p(0, got, id);
#endif
		atomic { inbox[0] = inbox[0] + NSUB; created = created + NSUB }
#ifndef BUG_BATCHEARLY
		sub_wake_p(0, got, id)
#endif
	:: /* WSX_WHERE_GLOBAL: either node's queue */
		atomic {
			if
			:: id = 0
			:: NODES > 1 -> id = NODES - 1
			fi;
#ifndef BUG_BATCHEARLY
			glen[id] = glen[id] + NSUB;
			created = created + NSUB;
#endif
			q = id;
			id = 0
		}
		wakep(id);
#ifdef BUG_BATCHEARLY
		atomic { glen[q] = glen[q] + NSUB; created = created + NSUB }
#endif
		skip
	fi;
	sub_busy = false;
	sub_done = true
#else
	do
	:: n < NSUB ->
		sub_busy = true;
		if
		:: /*
		    * wsx_queue(WSX_WHERE_P, 0): wsx_inbox_put(); its
		    * wakeup as sub_wake_p()'s, either way, which also
		    * covers a rings ENTER of one entry that does not wait
		    * (wsx_queue() itself never passes caller_runs: an
		    * over-approximation)
		    */
			atomic { inbox[0]++; created++ }	/* wsx_inbox_put() */
			sub_wake_p(0, got, id)			/* wsx_inbox_put() */
		:: /*
		    * WSX_WHERE_GLOBAL: wsx_gq_queue(), from a
		    * CPU of either node: that node's queue
		    */
			atomic {				/* wsx_gq_queue() */
				if
				:: id = 0
				:: NODES > 1 -> id = NODES - 1
				fi;
				glen[id]++;
				created++;
				id = 0
			}
			wakep(id)				/* wsx_gq_queue() */
		fi;
		atomic { sub_busy = false; n++ }
	:: else -> break
	od;
	sub_done = true
#endif
}

/* The invariants, checked in every reachable state. */
#define SLEEPING(m)	(mst[m] == SLEEP && !woken[m])
#define QUIET(m)	(mst[m] == RUN || SLEEPING(m))
/* a backlog is hidden from the others while its owner runs an item, by
 * design; with its owner asleep, nobody will take it
 */
#define HIDDEN(m)	(SLEEPING(m) -> bl[m] : 0)
#if NODES == 1
#define GLEN		glen[0]
#else
#define GLEN		(glen[0] + glen[1])
#endif
#if NP == 2
#define ALLQUIET	(QUIET(0) && QUIET(1))
#define SOMEASLEEP	(SLEEPING(0) || SLEEPING(1))
#define QUEUED		(GLEN + rq[0] + rq[1] + inbox[0] + inbox[1] + \
			 HIDDEN(0) + HIDDEN(1))
#elif NP == 3
#define ALLQUIET	(QUIET(0) && QUIET(1) && QUIET(2))
#define SOMEASLEEP	(SLEEPING(0) || SLEEPING(1) || SLEEPING(2))
#define QUEUED		(GLEN + rq[0] + rq[1] + rq[2] + inbox[0] + \
			 inbox[1] + inbox[2] + HIDDEN(0) + HIDDEN(1) + \
			 HIDDEN(2))
#else
#error NP must be 2 or 3
#endif
#define LOSTWAKEUP	(!sub_busy && ALLQUIET && SOMEASLEEP && QUEUED > 0)

#define SAFE	(!LOSTWAKEUP && ran <= created && npidle <= NP && \
		 QUEUED <= NSUB + NSPAWN)

#ifndef NOWATCH
/* checks SAFE in every reachable state (a step back to the same state) */
active proctype watch()
{
end:	do
	:: assert(SAFE)
	od
}
#endif

/*
 * Ms 0 .. NAWAKE-1 start looking for work; the others start parked, their
 * P idle, as after the queues ran dry.
 */
init
{
	byte i;

	atomic {
		for (i : 0 .. NP - 1) {
			if
			:: i >= NAWAKE ->
				pidle[i] = true;
				npidle++;
				mst[i] = SLEEP
			:: else
			fi;
			run M(i, i >= NAWAKE)
		}
		run submitter()
	}
}

ltl alldone { <> [] (sub_done && ran == created) }
