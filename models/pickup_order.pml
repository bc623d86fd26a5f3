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
 *   does not ENTER: it relies on the Ms.
 *   NM Ms loop: the walk chooses a ring with entries (one step: the
 *   stamps and tails read), stamps it with the pick-up clock (a second
 *   step: Ms that walked at once may choose the same ring), then
 *   consumes (a third).
 *   Fixed: the walk chooses the ring with entries whose stamp is the
 *   oldest.  Every choice stamps the chosen ring newest, so once ring 1
 *   holds an entry at most one walk chooses each other ring before ring
 *   1 is chosen, plus the walks that ran at once with that one: the
 *   bound is (pick-up rings with entries - 1) + (Ms - 1) choices of the
 *   Ms together, whatever the flood does.
 *
 * Checked (scripts/check-models): between the push of ring 1's entry and
 * the first choice of ring 1 after it, the Ms choose ring 0 at most
 * NR - 1 + NM - 1 times (assertion).
 *
 * Variant (must fail):
 *   BUG_HEAD  0b3258a: the walk takes the first ring with entries from
 *             the list head: the flooded ring 0 is chosen as long as it
 *             is fed, ring 1's entry waits.
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
#define FLOOD	4	/* choices of ring 0 the model lets happen */
#endif

byte stamp[NR];		/* the pick-up clock at each ring's last choice */
byte clock;
bool pending[NR];	/* the ring's SQ holds entries */
bool b_pushed;		/* ring 1's entry was pushed */
bool b_chosen;		/* ... and ring 1 chosen since */
bool b_done;		/* ... and consumed */
byte a_while_b;		/* choices of ring 0 while ring 1's entry waited */
byte a_choices;

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
			:: pending[0] -> r = 0
			:: else -> r = 1
			fi;
#else
			if
			:: pending[0] && (!pending[1] || stamp[0] <= stamp[1]) -> r = 0
			:: else -> r = 1
			fi;
#endif
			if
			:: !pending[r] -> goto skip_it	/* nothing: the model's park */
			:: else
			fi
		}
		/* the stamp, a step after the racy choice */
		atomic {
			clock++;
			stamp[r] = clock;
			if
			:: r == 0 ->
				a_choices++;
				if
				:: b_pushed && !b_chosen ->
					a_while_b++;
					assert(a_while_b <= NR - 1 + NM - 1)
				:: else
				fi
			:: else -> b_chosen = b_pushed
			fi
		}
		/* consume: ring 0's user refills at once while it floods */
		atomic {
			if
			:: r == 0 -> pending[0] = (a_choices < FLOOD)
			:: r == 1 && pending[1] -> pending[1] = false; b_done = b_pushed
			:: else
			fi
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
		stamp[0] = 1;	/* ring 1 served last: its flag is clear */
		stamp[1] = 2;
		clock = 2;
		run user_b();
		for (i : 1 .. NM) {
			run m()
		}
	}
}
