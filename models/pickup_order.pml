/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pickup_order.pml: which pick-up ring the Ms serve (kmod/rings.c,
 * wsx_rings_pickup_find(); issue 20, finding 2).  sqpickup.pml checks one
 * ring's handshake; this model checks the order among rings, the
 * handshake taken as given.
 *
 *   Rings 0 .. NR - 2 are flooded: their users refill an SQ as soon as an
 *   M consumed it, so each holds entries while the flood lasts.  Ring
 *   NR - 1 (the quiet ring, Q) gets one entry, pushed while its flag is
 *   clear (an M served it before), and its user does not ENTER: it relies
 *   on the Ms.  Q was taken up last, so the flooded rings' stamps are all
 *   older than Q's.  At the start an M holds Q's sq_lock, consuming an
 *   earlier entry (its tail read before the push), and lets go at some
 *   point.
 *   NM Ms loop: the walk chooses a ring with entries that is not marked
 *   missed (one step: the stamps, tails and "missed" read); then the try
 *   of its sq_lock (a second step): taken, it marks the ring missed and
 *   goes back to the loop; got, it stamps the ring with the pick-up clock
 *   (wsx_rings_pickup_one(), under the lock); then it consumes and
 *   unlocks, clearing "missed" (a third step; the holder walks again).
 *   Fixed: the walk chooses the ring with entries whose stamp is the
 *   oldest.  Once Q holds an entry, its stamp no longer changes until it
 *   is taken up, and every take-up of another ring R stamps R newer than
 *   Q: from then on no walk prefers R to Q.  Only a walk that read R's
 *   stamp before that take-up can still choose R, and each M has at most
 *   one such walk per ring (its next walk reads the new stamp).  So the
 *   bound is (pick-up rings with entries - 1) x (Ms walking at once)
 *   pick-ups of other rings, whatever the flood does.
 *
 * Checked (scripts/check-models): while Q's entry waits and its sq_lock is
 * free, the other rings are taken up at most (NR - 1) * NM times in all
 * (assertion, counted until Q's entry is consumed).
 *
 * Variants (must fail):
 *   BUG_HEAD  0b3258a: the walk takes the first ring with entries from
 *             the list head: the flooded ring 0 is taken as long as it is
 *             fed, Q's entry waits.
 *   BUG_CHOICE 978a945: the walk stamps the ring it chose, before the try
 *             of sq_lock: a choice that finds the lock taken sends Q to
 *             the back, and the flood is taken up beyond the bound.
 *   BUG_BOUND the bound as first stated, (NR - 1) + (NM - 1): with 3 rings
 *             and 2 Ms each M makes a stale pick-up of each older ring,
 *             4 in all (found in review).
 *
 * Not modelled: the abandon pass, which stamps a ring before its try of
 * the lock (rings.c says why the bound has that exception), and the
 * window between the holder's unlock and its clearing of "missed" (one
 * step here: the bound counts from the holder's leaving
 * wsx_rings_unlock_sq(); a model with the two apart finds the walks
 * skipping Q meanwhile, found in review).
 *
 * Memory model: sequential consistency; the stamps and the tail are read
 * racily by the walk in the code, a hint for the choice, not for the
 * handshake (sqpickup.pml).
 */

#ifndef NM
#define NM	2	/* Ms */
#endif
#ifndef NR
#define NR	2	/* pick-up rings, the quiet one last */
#endif
#define Q	(NR - 1)
#ifndef FLOOD
#define FLOOD	4	/* pick-ups of the flooded rings the model lets happen */
#endif

#ifdef BUG_BOUND
#define BOUND	(NR - 1 + NM - 1)
#else
#define BOUND	((NR - 1) * NM)
#endif

byte stamp[NR];		/* the pick-up clock at each ring's last pick-up */
byte clock;
bool pending[NR];	/* the ring's SQ holds entries */
bool lk[NR];		/* its sq_lock */
bool missed[NR];	/* an M found the lock taken: the holder looks */
bool q_pushed;		/* Q's entry was pushed */
bool q_done;		/* ... and consumed */
byte others_while_q;	/* pick-ups of other rings while it waited, lock free */
byte flood_taken;	/* pick-ups of the flooded rings */

inline stamp_it(r)
{
	clock++;
	stamp[r] = clock
}

/* The M that holds Q's lock at the start lets go (and walks again). */
proctype holder()
{
	atomic { lk[Q] = false; missed[Q] = false }
}

proctype user_q()
{
	atomic { pending[Q] = true; q_pushed = true }
}

proctype m()
{
	byte r, i;

end:	do
	:: flood_taken < FLOOD || !q_done ->
		atomic {
			/* wsx_rings_pickup_find(): r = NR when no ring qualifies */
			r = NR;
			for (i : 0 .. NR - 1) {
				if
				:: pending[i] && !missed[i] ->
#ifdef BUG_HEAD
					if
					:: r == NR -> r = i
					:: else
					fi
#else
					if
					:: r == NR || stamp[i] < stamp[r] -> r = i
					:: else
					fi
#endif
				:: else
				fi
			}
			if
			:: r == NR -> goto skip_it	/* parks */
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
			:: r != Q ->
				flood_taken++;
				if
				:: q_pushed && !q_done && !lk[Q] ->
					others_while_q++;
					assert(others_while_q <= BOUND)
				:: else
				fi
			:: else
			fi
		}
		/* consume (a flooded ring's user refills at once), unlock */
		atomic {
			if
			:: r != Q -> pending[r] = (flood_taken < FLOOD)
			:: else -> q_done = q_pushed; pending[Q] = false
			fi;
			lk[r] = false;
			missed[r] = false
		}
skip_it:	skip
	:: flood_taken >= FLOOD && q_done -> break
	od
}

init
{
	byte i;

	atomic {
		for (i : 0 .. Q - 1) {
			pending[i] = true;
			stamp[i] = i + 1
		}
		stamp[Q] = NR;	/* Q taken up last, by its holder */
		clock = NR;
		lk[Q] = true;
		run holder();
		run user_q();
		for (i : 1 .. NM) {
			run m()
		}
	}
}
