/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pickup_order.pml: which pick-up ring the Ms serve (kmod/rings.c,
 * wsx_rings_pickup_find(); issue 20, finding 2).  sqpickup.pml checks one
 * ring's handshake; this model checks the order among rings, the
 * handshake taken as given.
 *
 *   Ring 0 (the first on the list) is flooded: its user refills its SQ
 *   as soon as an M consumed, so it always holds entries.  Ring 1's user
 *   pushes one entry, the flag clear (an M served ring 1 before), and
 *   does not ENTER: it relies on the Ms.  At the start an M holds ring
 *   1's sq_lock, consuming an earlier entry (its tail read before the
 *   push), and lets go at some point.
 *   NM Ms loop: the walk chooses a ring with entries that is not marked
 *   missed (one step: the stamps, tails and "missed" read); then the try
 *   of its sq_lock (a second step): taken, it marks the ring missed and
 *   goes back to the loop; got, it stamps the ring with the pick-up clock
 *   (wsx_rings_pickup_one(), under the lock); then it consumes and
 *   unlocks, clearing "missed" (a third step; the holder walks again).
 *   Fixed: the walk chooses the ring with entries whose stamp is the
 *   oldest.  Every pick-up stamps its ring newest, so once ring 1 holds
 *   an entry and its lock is free, each other ring is taken up at most
 *   once before ring 1, plus once more by each M whose walk ran before
 *   that stamp: the bound is (pick-up rings with entries - 1) + (Ms - 1)
 *   pick-ups of other rings, whatever the flood does.
 *
 * Checked (scripts/check-models): while ring 1's entry waits and its
 * sq_lock is free, ring 0 is taken up at most NR - 1 + NM - 1 times
 * (assertion, counted until ring 1's entry is consumed).
 *
 * Variants (must fail):
 *   BUG_HEAD  0b3258a: the walk takes the first ring with entries from
 *             the list head: the flooded ring 0 is taken as long as it is
 *             fed, ring 1's entry waits.
 *   BUG_CHOICE 978a945: the walk stamps the ring it chose, before the try
 *             of sq_lock: a choice that finds the lock taken sends ring 1
 *             to the back, and ring 0 is taken up beyond the bound.
 *
 * Memory model: sequential consistency; the stamps and the tail are read
 * racily by the walk in the code, a hint for the choice, not for the
 * handshake (sqpickup.pml).
 */

#ifndef NM
#define NM	2	/* Ms */
#endif
#define NR	2	/* pick-up rings */
#ifndef FLOOD
#define FLOOD	4	/* pick-ups of ring 0 the model lets happen */
#endif

byte stamp[NR];		/* the pick-up clock at each ring's last pick-up */
byte clock;
bool pending[NR];	/* the ring's SQ holds entries */
bool lk[NR];		/* its sq_lock */
bool missed[NR];	/* an M found the lock taken: the holder looks */
bool b_pushed;		/* ring 1's entry was pushed */
bool b_done;		/* ... and consumed */
byte a_while_b;		/* pick-ups of ring 0 while it waited, lock free */
byte a_choices;

inline stamp_it(r)
{
	clock++;
	stamp[r] = clock
}

/* The M that holds ring 1's lock at the start lets go (and walks again). */
proctype holder()
{
	atomic { lk[1] = false; missed[1] = false }
}

proctype user_b()
{
	atomic { pending[1] = true; b_pushed = true }
}

proctype m()
{
	byte r;

end:	do
	:: a_choices < FLOOD || !b_done ->
		atomic {
#ifdef BUG_HEAD
			if
			:: pending[0] && !missed[0] -> r = 0
			:: else -> r = 1
			fi;
#else
			if
			:: pending[0] && !missed[0] &&
			   (!pending[1] || missed[1] || stamp[0] <= stamp[1]) -> r = 0
			:: else -> r = 1
			fi;
#endif
			if
			:: !pending[r] || missed[r] -> goto skip_it	/* parks */
			:: else
			fi
		}
#ifdef BUG_CHOICE
		atomic { stamp_it(r) }
#endif
		/* wsx_rings_pickup_one(): the try, the stamp under the lock */
		atomic {
			if
			:: lk[r] -> missed[r] = true; goto skip_it
			:: else -> lk[r] = true
			fi;
#ifndef BUG_CHOICE
			stamp_it(r);
#endif
			if
			:: r == 0 ->
				a_choices++;
				if
				:: b_pushed && !b_done && !lk[1] ->
					a_while_b++;
					assert(a_while_b <= NR - 1 + NM - 1)
				:: else
				fi
			:: else
			fi
		}
		/* consume (ring 0's user refills at once while it floods), unlock */
		atomic {
			if
			:: r == 0 -> pending[0] = (a_choices < FLOOD)
			:: else -> b_done = b_pushed; pending[1] = false
			fi;
			lk[r] = false;
			missed[r] = false
		}
skip_it:	skip
	:: a_choices >= FLOOD && b_done -> break
	od
}

init
{
	byte i;

	atomic {
		pending[0] = true;
		stamp[0] = 1;
		stamp[1] = 2;	/* ring 1 taken up last, by its holder */
		clock = 2;
		lk[1] = true;
		run holder();
		run user_b();
		for (i : 1 .. NM) {
			run m()
		}
	}
}
