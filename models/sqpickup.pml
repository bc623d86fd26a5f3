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
 *   M, before parking, the walk (no lock): skip the ring if blocked; if
 *         the SQ holds entries go on, else set the flag, full barrier,
 *         load the tail again and go on only if entries came.  Then, under
 *         sq_lock: leave at once if blocked (F1); clear the flag and
 *         consume.  A full CQ (or a CRC32C entry, bad indices: the same
 *         outcome) sets the flag and "blocked": the Ms skip the ring until
 *         an ENTER.  Nothing consumed and no error (another consumer was
 *         first): set the flag again (F4).  Then back to the loop, which
 *         looks again before parking.
 *   M whose P goes offline: before it stops it takes the walk one last
 *         time, and pick-ups until a walk finds no entries (F4): it cannot
 *         hand the walk on, since wsx_wakep() wakes nobody while no P is
 *         idle or an M spins, and a parker rechecks its queues, not the
 *         rings.  Parking: the P's idle count (npidle), the recheck of
 *         the queues, then the sleep.
 *
 * Checked (scripts/check-models): an entry the user leaves in the SQ is
 * always consumed, and every record read: the user, having pushed N
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
byte work;		/* items queued and not yet run */
bool kick;		/* wsx_wakep() for a parked M */
byte npidle;		/* parked Ms: their Ps idle */
byte noff;		/* Ms stopped by an offline */

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

/* WSX_IOC_ENTER with to_submit = what is pending */
inline enter()
{
	lock(sq_lock);
	consume(un, ubusy);
	blocked = false;
	unlock(sq_lock)
}

proctype user()
{
	byte i = 0, un;
	bool ubusy;

	do
	:: i < N ->
		tail++;			/* release store of the tail */
		i++;
		/* full barrier, then the flag */
		if
		:: need_enter -> enter()
		:: else
		fi
	:: cq_tail != cq_head -> cq_head = cq_tail	/* read the records */
	:: need_enter && tail != head_k -> enter()	/* it polls the flag */
	:: cq_head == N -> break
	od
}

proctype m(byte id)
{
	byte n;
	bool busy, stopping;

end:	do
	:: atomic { !stopping && work > 0 -> work--; cq_tail++ }	/* run, post */
	:: atomic { !stopping && work == 0 && noff < NOFF ->
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
	:: stopping || work == 0 ->
		/* before parking (or stopping): the walk, without the lock */
		if
		:: blocked -> goto end_park
		:: else
		fi;
		if
		:: tail != head_k
		:: else ->
			need_enter = true;
			/* full barrier, then the tail again */
			if
			:: tail != head_k
			:: else -> goto end_park
			fi
		fi;
		/* wsx_rings_pickup_one() */
		lock(sq_lock);
#ifndef BUG_F1
		if
		:: blocked -> unlock(sq_lock); goto again
		:: else
		fi;
#endif
		need_enter = false;	/* this M comes back before parking */
		consume(n, busy);
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
		goto again;
end_park:	if
		:: stopping -> break	/* drains its P's queue and stops */
		:: else
		fi;
		/* park: idle, full barrier, recheck the queues, then sleep */
		npidle++;
		if
		:: work > 0 -> npidle--; goto again
		:: else
		fi;
		/* woken when items are queued, or by a wsx_wakep() */
end_wait:	atomic { (work > 0 || kick) -> kick = false; npidle-- };
again:
		skip
	od
}

init
{
	byte i;

	atomic {
		need_enter = true;	/* no M has looked yet */
		run user();
		for (i : 0 .. NM - 1) {
			run m(i)
		}
	}
}
