/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqpickup.pml: the opt-in mode of the shared rings in which the Ms pick up
 * a session's SQ entries themselves before they park (kmod/rings.c,
 * wsx_rings_pickup_find() and wsx_rings_pickup_one()), so that a submitter
 * calls ENTER only when the module asks for it with the NEED_ENTER flag in
 * the shared header.
 *
 *   user: write the entry, store tail; full barrier; load the flag: if set,
 *         ENTER (which consumes what is pending, as far as the CQ has
 *         room, and clears "blocked").  A submitter that polls: whenever
 *         entries are pending and the flag is set, ENTER; read records.
 *         With -DTWO a second thread of the user polls and reads, so an
 *         ENTER may hold sq_lock while the first thread pushes entries
 *         with the flag clear.
 *   ENTER, under sq_lock after it consumed: list the ring again when a
 *         walk took it off (the code: only a grace period after that, so
 *         that no walk is cut short; here it may or may not), the flag
 *         left as it is (set: the user ENTERs until an M takes the ring
 *         up).  After it unlocks: full barrier, then load "missed"; if set,
 *         clear it and take the pick-up over: take sq_lock as an M does
 *         (when another holder has it, that holder looks), consume,
 *         announce (set the flag, full barrier, load the tail), consume
 *         once more if entries came before the announce, the flag left
 *         set; clear "missed" under the lock (owed nothing: the flag is
 *         set) and unlock; one pass (wsx_rings_submit(),
 *         wsx_rings_take_over()).
 *   M, before parking, the walk (no lock) over the listed rings (issue
 *         20, finding 3: a ring that needs no M leaves the list, so an
 *         idle ring costs a park nothing): skip the ring if not listed or
 *         missed; if blocked, retire it (below); if the SQ holds entries
 *         go on, else set the flag, full barrier, load the tail again and
 *         go on only if entries came; else, unless the ring was used
 *         lately (an ENTER or a take-up: it stays listed), retire it: a
 *         plain try of
 *         sq_lock (no "missed" left behind: when taken, the ring stays
 *         listed, its flag set, and the M parks); under it, unless
 *         blocked, announce again (the flag set, full barrier, the tail
 *         loaded: when entries came, go on to the pick-up below); then
 *         take the ring off the list, clear "missed" (owed nothing: the
 *         flag is set, as after a take-over) and unlock.  An unlisted
 *         ring's user ENTERs: its flag is set.
 *         Then it TRIES sq_lock, never sleeping on it (an ENTER may hold it
 *         for as long as the user's page faults take: issue 20, finding 1):
 *         if taken, set "missed", full barrier, try once more; if still
 *         taken, leave the ring to the holder and go back to the loop: the
 *         holder loads "missed" after its unlock (store buffering against
 *         the M's store and retry), and an ENTER holder takes the pick-up
 *         over, an M holder walks again anyway.  Under sq_lock: leave at
 *         once if blocked (F1), or if the session is closing (dead); list the
 *         ring again if a walk took it off; clear the flag and consume.  A full CQ (or a CRC32C entry, bad indices: the same
 *         outcome) sets the flag and "blocked": the Ms skip the ring until
 *         an ENTER.  Nothing consumed and no error (another consumer was
 *         first): set the flag again (F4).  Then back to the loop, which
 *         looks again before parking.
 *   M whose P goes offline: it cannot hand the walk on (F4), since
 *         wsx_wakep() wakes nobody while no P is idle or an M spins, and a
 *         parker rechecks its queues, not the rings; so before it stops it
 *         abandons the ring, one pass whatever the user pushes (issue 20,
 *         finding 6; wsx_rings_abandon()): skip it if not listed, blocked
 *         or stamped
 *         since the pass began (an M that took it up since walks again,
 *         another pass looks), else stamp it; try sq_lock
 *         as above (if taken, the holder looks); under it, unless blocked,
 *         announce (set the flag, full barrier), then consume once, as far
 *         as the CQ has room (a full CQ blocks the ring as in a pick-up);
 *         the flag stays set, so what the user pushes afterwards it
 *         ENTERs itself, and "missed" is owed nothing: cleared under the
 *         lock, as the take-over does.  Parking: the P's idle count
 *         (npidle), the recheck of the queues, then the sleep.
 *   rely (-DRELY; issue 20, finding 7: wsx_rings_rely(),
 *         wsx_sources_rely()): an ENTER that queued jobs without filling
 *         the CQ, on a listed ring, lets the ring rely on the Ms when
 *         every P is busy, since each M walks before it parks: under
 *         sq_lock, the flag cleared, then a generation moved with a fully
 *         ordered atomic, then npidle read; when a P is idle, the flag set again,
 *         full barrier, the tail read again, and what came meanwhile
 *         consumed in this ENTER.  Each M notes the generation at the top
 *         of its walk; parking, after npidle++ and its full barrier, it
 *         walks again when the generation moved (store buffering against
 *         the ENTER's clear, move and read).  No count of stopping Ps:
 *         a P going offline while the ENTER sees every P busy leaves the
 *         others, which walk (checked with one offline; the case with an
 *         offline is by hand, 26.7 million states).
 *   close (-DCLOSE): the user, once it read every record, closes the
 *         session: under sq_lock, marks it dead and takes it off the list;
 *         then waits for the Ms that found it listed (an RCU grace period
 *         and their references) and frees it.  An M touches the ring only
 *         after finding it listed, and asserts it is not freed.
 *
 * Checked (scripts/check-models): a stopping M consumes at most once
 * (the bound of its last pass: one ring here); an entry the user leaves
 * in the SQ is always consumed, and every record read: the user, having pushed N
 * entries, polls as above until it has read N records, and never calls
 * ENTER otherwise; a stranded entry is an invalid end state (every M
 * parked or offline, the user with nothing to do).  The consumers (ENTER
 * and the Ms) are serialised by the session's sq_lock, a lock here; the
 * Ms read "blocked" and the tail outside it, as the code does.
 *
 * Variants (each must fail):
 *   BUG_F1     no test of "blocked" under sq_lock: an M that passed the
 *              walk before another M set it clears the flag and consumes,
 *              leaving the flag 0 and the ring skipped by every M.
 *   BUG_F4     0d71f9e: an M that consumed nothing leaves the flag 0, and
 *              an M whose P goes offline wakes nobody.
 *   BUG_F4OFF  only the second half of BUG_F4 (NM=3, two offlines): the M
 *              that consumed stops, the M that ran its items stops too.
 *   BUG_F4WAKEP 886f5be: the stopping M calls wsx_wakep() instead of its
 *              last walk; with no P idle yet it wakes nobody, the other M
 *              parks, and the entries stay.
 *   BUG_SLEEP  a6d6be6 (issue 20, finding 1): the M sleeps on sq_lock.  With
 *              -DSTALL an ENTER holds the lock until another session's item
 *              has run (a pin of the user's pages that takes as long as
 *              the user wants); every M sleeps on the lock, the other
 *              session's item never runs: the engine is stalled (an
 *              invalid end state).
 *   BUG_ABANDON 0b3258a (issue 20, finding 6): the stopping M walks and
 *              picks up until a walk finds no entries, as long as the user
 *              keeps pushing: the assertion that a stopping M consumes at
 *              most once fails.
 *   BUG_EVER   the pass skips a ring stamped at any time, not only since
 *              it began: a ring this M took up before its P went offline
 *              (the flag cleared) is skipped, and an entry stays.
 *   BUG_ABANDON_CLEAR a pass that is bounded but consumes as a pick-up
 *              does (the flag cleared, no announce) and stops: an entry
 *              pushed after its consume, the user seeing the flag clear,
 *              stays while every M is parked.
 *   BUG_UNLIST the walk takes a ring off the list on its lockless
 *              announce alone (no sq_lock, no second announce): an M that
 *              took the ring up meanwhile (the flag cleared) walks again,
 *              finds the ring unlisted and parks; the user pushes with the
 *              flag clear.
 *   BUG_NORELIST the pick-up does not list again a ring a walk took off:
 *              it clears the flag of a ring no walk visits.
 *   BUG_RELISTDEAD (-DCLOSE) the pick-up lists again a ring whose session
 *              is closing: the close waits for the Ms it knows of, frees,
 *              and a later walk finds the freed ring listed.
 *   BUG_NOGEN  (-DRELY) the parker does not compare the generation: an M
 *              between its walk and its park when the ENTER read npidle 0
 *              sleeps, and the entry pushed with the flag clear stays.
 *   BUG_RELY   (-DRELY) the ENTER clears the flag without reading npidle:
 *              it leaves a ring relying on Ms that are all asleep.
 *   BUG_GENFIRST (-DRELY) the generation moved before the flag is
 *              cleared: a walk that notes the new generation and finds
 *              the ring announced parks on a note that matches.
 *   BUG_MISS   (-DTWO) the M tries the lock and leaves when it is taken, but
 *              hands nothing over: an ENTER that consumed before the user's other
 *              thread pushed an entry with the flag clear unlocks, and the
 *              entry stays while every M is parked.
 *
 * Memory model: sequential consistency; the two full barriers give the
 * store-then-load orders the model relies on (rings.c says which pairs
 * with which).
 */

#ifndef N
#define N	3	/* entries the user pushes */
#endif
#ifndef NM
#define NM	2	/* Ms */
#endif
#ifndef CQ
#define CQ	1	/* CQ entries: records unread plus items in flight */
#endif
#ifndef NOFF
#define NOFF	(NM - 1)	/* Ps that may go offline (one CPU stays) */
#endif

byte tail;		/* shared: the SQ tail, the user's */
bool need_enter;	/* shared: the flag, the module's */
byte cq_tail;		/* shared: records posted */
byte cq_head;		/* shared: records read, the user's */
byte head_k;		/* entries consumed (S) */
byte sub_total;		/* entries accepted (S): = head_k here */
bool blocked;		/* S, read racily by the walk */
bool sq_lock;
bool missed;		/* an M found sq_lock taken: the holder's to look */
byte owork;		/* another session's items, queued and not yet run */
byte odone;		/* ... run */
byte work;		/* items queued and not yet run */
bool kick;		/* wsx_wakep() for a parked M */
byte npidle;		/* parked Ms: their Ps idle */
byte noff;		/* Ms stopped by an offline */
bool stalled;		/* -DSTALL: the one long hold has begun */
bool inpass[NM];	/* M i's abandon pass has begun */
bool stamped[NM];	/* ... and the ring was stamped since */
bool listed = true;	/* on the pick-up list (S; at setup, listed) */
bool dead;		/* S: the session is closing (-DCLOSE) */
bool freed;		/* ... and the rings are freed */
bool found[NM];		/* M i found the ring listed: an RCU reader, or
			 * the holder of a reference (-DCLOSE) */
#ifdef RELY
byte gen;		/* moved by each ENTER that clears the flag */
#endif
#ifdef LIST
#define EMPTY	retire	/* no M needed: off the list */
#else
#define EMPTY	end_park	/* as before the list: nothing to do */
#endif
#ifdef CLOSE
#define FOUND(b)	found[id] = b
#define ABANDONED	goto abandoned
#define UNFIND		goto unfind
#else
#define FOUND(b)	skip
#define ABANDONED	break
#define UNFIND		goto end_park
#endif

/*
 * The ring is stamped with the pick-up clock: for each M whose abandon
 * pass has begun, "stamped since" (BUG_EVER: for every M, as if a pass
 * skipped rings stamped at any time).
 */
inline stamp()
{
	atomic {
		j = 0;
		do
		:: j < NM ->
#ifdef BUG_EVER
			stamped[j] = true;
#else
			if
			:: inpass[j] -> stamped[j] = true
			:: else
			fi;
#endif
			j++
		:: else -> break
		od
	}
}

inline lock(l)   { atomic { !l -> l = true } }
inline unlock(l) { l = false }

/*
 * Consume what the SQ holds, under sq_lock, as far as the CQ has room;
 * @busy: stopped short for lack of room (-EBUSY); @n: entries consumed.
 */
inline consume(n, busy)
{
	atomic {
		n = 0;
		busy = false;
		do
		:: head_k == tail -> break
		:: else ->
			if
			:: sub_total - cq_head >= CQ -> busy = true; break
			:: else
			fi;
			head_k++;
			sub_total++;
			work++;
			n++
		od
	}
}

/*
 * An M tries sq_lock (mutex_trylock()); @got: it holds it.  On failure it
 * sets "missed" and tries once more after a full barrier.
 */
inline m_trylock(got)
{
	atomic {
		if
		:: !sq_lock -> sq_lock = true; got = true
		:: else -> got = false
		fi
	}
	if
	:: !got ->
		missed = true;
		/* full barrier, then the lock word again */
		atomic {
			if
			:: !sq_lock -> sq_lock = true; got = true
			:: else
			fi
		}
	:: else
	fi
}

/*
 * WSX_IOC_ENTER with to_submit = what is pending.  With -DSTALL its first
 * hold of sq_lock lasts until another session's item ran.
 */
inline enter()
{
	lock(sq_lock);
#ifdef STALL
	if
	:: !stalled -> stalled = true; odone > 0
	:: else
	fi;
#endif
	consume(un, ubusy);
	blocked = false;
#ifdef LIST
	if
	:: !listed -> listed = true	/* a grace period after */
	:: true				/* ... or not yet */
	fi;
#endif
#ifdef RELY
	/*
	 * Every P busy: each M walks before it parks, so the ring may rely on
	 * them (the flag cleared); else it does not (the flag set again, and
	 * what came meanwhile consumed here).  Only a listed ring, with room.
	 */
	if
	:: !ubusy && un > 0 && listed && !dead ->
#ifdef BUG_GENFIRST
		gen++;
		need_enter = false;
#else
		need_enter = false;
		gen++;			/* fully ordered: atomic_inc_return() */
#endif
#ifndef BUG_RELY
		if
		:: npidle > 0 ->
			need_enter = true;	/* full barrier, the tail */
			if
			:: tail != head_k ->
				consume(un, ubusy);
				if
				:: ubusy -> blocked = true
				:: else
				fi
			:: else
			fi
		:: else
		fi
#endif
	:: else
	fi;
#endif
	unlock(sq_lock);
#ifndef BUG_MISS
	/* full barrier, then "missed" (xchg): wsx_rings_take_over() */
	if
	:: atomic { missed -> missed = false };
		m_trylock(got);		/* wsx_rings_trylock_sq() */
		if
		:: got ->
			consume(un, ubusy);
			if
			:: ubusy -> blocked = true; need_enter = true
			:: else ->
				need_enter = true;	/* the announce: full barrier */
				if
				:: tail != head_k ->	/* came before it: once more */
					consume(un, ubusy);
					if
					:: ubusy -> blocked = true
					:: else
					fi
				:: else
				fi
			fi;
			missed = false;		/* under the lock: owed nothing */
			unlock(sq_lock)
		:: else			/* the holder will look */
		fi
	:: else
	fi
#endif
}

/*
 * The user.  With -DTWO, a second thread polls the flag and reads the
 * records, so that an ENTER may hold sq_lock while the first pushes.
 */
proctype user()
{
	byte i = 0, un, j;
	bool ubusy, got;

	do
	:: i < N ->
		tail++;			/* release store of the tail */
		i++;
		/* full barrier, then the flag */
		if
		:: need_enter -> enter()
		:: else
		fi
#ifdef TWO
	:: i == N -> break
#else
	:: cq_tail != cq_head -> cq_head = cq_tail	/* read the records */
	:: need_enter && tail != head_k -> enter()	/* it polls the flag */
	:: cq_head == N -> break
#endif
	od;
#ifdef CLOSE
	/* release(): dead and unlisted under sq_lock (wsx_rings_quiesce()) */
	lock(sq_lock);
	dead = true;
	listed = false;
	unlock(sq_lock);
	/* a grace period, then the Ms' references */
	atomic {
		j = 0;
		do
		:: j < NM -> !found[j]; j++
		:: else -> break
		od;
		freed = true
	}
#endif
}

#ifdef TWO
proctype user2()
{
	byte un;
	bool ubusy, got;

	do
	:: cq_tail != cq_head -> cq_head = cq_tail	/* read the records */
	:: need_enter && tail != head_k -> enter()	/* it polls the flag */
	:: cq_head == N -> break
	od
}
#endif

/* Another session: one item queued through the ioctl door. */
proctype other()
{
	owork++
}

proctype m(byte id)
{
	byte n, spicks, j;
#ifdef RELY
	byte note;
#endif
	bool busy, stopping, got;

end:	do
	:: atomic { !stopping && work > 0 -> work--; cq_tail++ }	/* run, post */
	:: atomic { !stopping && owork > 0 -> owork--; odone++ }
	:: atomic { !stopping && work == 0 && owork == 0 && noff < NOFF ->
		noff++; stopping = true }
		/* its P went offline: the fixed M takes its last walk below */
#if defined(BUG_F4WAKEP)
		if				/* wsx_wakep(): needs an idle P */
		:: npidle > 0 -> kick = true
		:: else
		fi;
		break
#elif defined(BUG_F4) || defined(BUG_F4OFF)
		break				/* wakes nobody */
#endif
	:: stopping || (work == 0 && owork == 0) ->
#ifdef RELY
		note = gen;	/* before the walk (and its guard) */
#endif
#ifndef BUG_ABANDON
		if
		:: stopping -> goto abandon
		:: else
		fi;
#endif
		/* before parking: the walk, without the lock */
#ifdef LIST
		atomic {
			if
			:: !listed -> goto end_park	/* not walked */
			:: else -> assert(!freed); FOUND(true)
			fi
		}
#endif
		if
#ifndef BUG_SLEEP
		:: missed -> UNFIND	/* the holder's to look */
#endif
		:: blocked -> goto EMPTY
		:: else
		fi;
		if
		:: tail != head_k
		:: else ->
			need_enter = true;
			/* full barrier, then the tail again */
			if
			:: tail != head_k
			:: else -> goto EMPTY
			fi
		fi;
		goto pickup;
#ifdef LIST
retire:		/* no M needed: off the list (wsx_rings_retire()) */
		if
		:: true -> UNFIND	/* used lately: it stays listed */
		:: true
		fi;
#ifdef BUG_UNLIST
		listed = false;
		UNFIND;
#endif
		atomic {			/* a plain try */
			if
			:: !sq_lock -> sq_lock = true
			:: else -> UNFIND	/* stays listed */
			fi
		}
		if
		:: !blocked ->
			need_enter = true;	/* full barrier, the tail */
			if
			:: tail != head_k ->
				missed = false;
				unlock(sq_lock);
				goto pickup
			:: else
			fi
		:: else
		fi;
		listed = false;
		missed = false;		/* under the lock: owed nothing */
		unlock(sq_lock);
		UNFIND;
#endif
pickup:
		/* wsx_rings_pickup_one() */
#ifdef BUG_SLEEP
		lock(sq_lock);
#else
		m_trylock(got);
		if
		:: !got -> goto again	/* left to the holder */
		:: else
		fi;
#endif
#ifndef BUG_F1
		if
		:: blocked -> unlock(sq_lock); missed = false; goto again
		:: else
		fi;
#endif
#ifndef BUG_RELISTDEAD
		if
		:: dead -> unlock(sq_lock); missed = false; goto again
		:: else
		fi;
#endif
#ifndef BUG_NORELIST
		listed = true;		/* a walk may have taken it off */
#endif
		stamp();		/* taken up: under the lock */
		need_enter = false;	/* this M comes back before parking */
		consume(n, busy);
		if
		:: stopping -> spicks++; assert(spicks <= 1)
		:: else
		fi;
		if
		:: busy ->
			need_enter = true;
			blocked = true
		:: !busy && n == 0 ->
#ifndef BUG_F4
			need_enter = true	/* and the walk looks again */
#else
			skip
#endif
		:: else
		fi;
		unlock(sq_lock);
		missed = false;	/* full barrier, then "missed": it walks again */
		goto again;
abandon:	/* wsx_rings_abandon(): one pass, the flag left set */
		inpass[id] = true;	/* the pass's own tick of the clock */
#ifdef LIST
		atomic {
			if
			:: !listed -> break	/* the flag is set */
			:: else -> assert(!freed); FOUND(true)
			fi
		}
#endif
		if
		:: blocked -> ABANDONED	/* the flag is set: ENTER will come */
		:: stamped[id] -> ABANDONED	/* stamped since: its stamper looks */
		:: else
		fi;
		stamp();		/* visited */
		m_trylock(got);
		if
		:: !got -> ABANDONED	/* the holder looks */
		:: else
		fi;
		if
		:: !blocked ->
#ifdef BUG_ABANDON_CLEAR
			need_enter = false;
#else
			need_enter = true;	/* the announce: full barrier */
#endif
			consume(n, busy);
			spicks++;
			assert(spicks <= 1);
			if
			:: busy -> need_enter = true; blocked = true
			:: else
			fi
		:: else
		fi;
		missed = false;		/* under the lock: owed nothing */
		unlock(sq_lock);
		ABANDONED;
#ifdef CLOSE
abandoned:	found[id] = false;
		break;
unfind:		found[id] = false;	/* out of the walk */
#endif
end_park:	if
		:: stopping -> break	/* drains its P's queue and stops */
		:: else
		fi;
		/* park: idle, full barrier, recheck the queues, then sleep */
		npidle++;
		if
		:: work > 0 || owork > 0 -> npidle--; goto again
#if defined(RELY) && !defined(BUG_NOGEN)
		/* a ring began to rely after the note: walk again */
		:: gen != note -> npidle--; goto again
#endif
		:: else
		fi;
		/* woken when items are queued, or by a wsx_wakep() */
end_wait:	atomic { (work > 0 || owork > 0 || kick) -> kick = false; npidle-- };
again:
#ifdef CLOSE
		found[id] = false;	/* the reference dropped */
#else
		skip
#endif
	od
}

init
{
	byte i;

	atomic {
		need_enter = true;	/* no M has looked yet */
		run user();
#ifdef TWO
		run user2();
#endif
#ifdef STALL
		run other();
#endif
		for (i : 0 .. NM - 1) {
			run m(i)
		}
	}
}
