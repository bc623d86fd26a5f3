/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqpickup.pml: the opt-in mode of the shared rings in which the Ms pick up
 * a session's SQ entries themselves before they park (kmod/rings.c,
 * wsx_rings_pickup()), so that a submitter calls ENTER only when the
 * module asks for it with the NEED_ENTER flag in the shared header.
 *
 *   user: write the entry, store tail; full barrier; load the flag: if set,
 *         ENTER (which consumes everything pending).
 *   M, before parking: if the SQ holds entries, clear the flag and consume
 *         them (then run them: it does not park); else set the flag; full
 *         barrier; load the tail again: entries that came meanwhile are
 *         consumed, the flag cleared, else park.  Queued items wake a
 *         parked M, which goes through the same step before parking again.
 *
 * Checked (spin -a sqpickup.pml && gcc -O2 -o pan pan.c && ./pan): an
 * entry the user leaves in the SQ without calling ENTER is always consumed
 * (the user, having pushed N entries, waits for all N to be consumed and
 * never calls ENTER otherwise: a stranded entry is an invalid end state).
 * The consumers (ENTER and the Ms)
 * are serialised by the session's sq_lock, an atomic block here.
 *
 * Memory model: sequential consistency; the two full barriers give the
 * store-then-load orders the model relies on (rings.c says which pairs
 * with which).
 */

#define N	3	/* entries the user pushes */
#define NM	2	/* Ms */

byte tail;		/* shared: the SQ tail, the user's */
bool need_enter;	/* shared: the flag, the module's */
byte head_k;		/* entries consumed (under sq_lock) */
byte work;		/* items queued and not yet run */
bool parked[NM];

/* consume what the SQ holds: ENTER or an M, under sq_lock */
inline consume()
{
	atomic {
		work = work + tail - head_k;
		head_k = tail
	}
}

proctype user()
{
	byte i = 0;

	do
	:: i < N ->
		tail++;			/* release store of the tail */
		i++;
		/* full barrier, then the flag */
		if
		:: need_enter -> consume()
		:: else
		fi
	:: else -> break
	od;
	(head_k == N)			/* all consumed, without asking */
}

proctype m(byte id)
{
end:	do
	:: atomic { work > 0 -> work-- }	/* run an item */
	:: work == 0 ->
		/* before parking: the SQ is one more inbox */
		if
		:: tail != head_k ->
			need_enter = false;
			consume()
		:: else ->
			need_enter = true;
			/* full barrier, then the tail again */
			if
			:: tail != head_k ->
				need_enter = false;
				consume()
			:: else ->
				parked[id] = true;
				/* woken when items are queued */
end_park:			(work > 0);
				parked[id] = false
			fi
		fi
	od
}

init
{
	atomic {
		need_enter = true;	/* no M has looked yet */
		run user();
		run m(0);
		run m(1);
	}
}
