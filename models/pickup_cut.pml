/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pickup_cut.pml: several pick-up rings on the Ms' RCU list, and the walks
 * that a ring taken off the list and put back may cut short (kmod/rings.c,
 * "Pick-up", the list: wsx_rings_pickup_find(), wsx_rings_announce(),
 * wsx_rings_retire(), wsx_rings_unlist(), wsx_rings_list(),
 * wsx_rings_pickup_one(), wsx_rings_submit()).  sqpickup.pml checks one
 * ring's handshake (-DLIST: its retire and relisting); with one ring no
 * walk can miss another, which is what the grace period of ENTER's
 * relisting is for.
 *
 *   The list: nxt[] over the rings and the head H (wsx_pickup_rings); a
 *         walk follows nxt[] one node per step (list_for_each_entry_rcu()).
 *         An unlisting (list_del_rcu()) links the node's neighbours and
 *         keeps its nxt, so a walk that stands on it goes on to the ring
 *         that followed it; a listing (list_add_tail_rcu()) puts the node
 *         before H and points its nxt at H, so a walk that stands on it
 *         ends there, and misses the rings behind it.  Each is one step
 *         (under wsx_pickup_lock).
 *   RCU:  an M's walk, both passes, is one read section (readers, a mask
 *         of the Ms).  An unlisting notes the readers then in their
 *         section (unl[r]: start_poll_synchronize_rcu(), the unlisting M
 *         among them); each leaves unl[] at its rcu_read_unlock();
 *         poll_state_synchronize_rcu() is true once none is left.  The
 *         code's poll may say so later: ENTER may leave the ring unlisted
 *         in any case.
 *   user: one per ring, PUSH0, PUSH1, PUSH2 entries: stores the tail (full
 *         barrier) and, whenever its flag is set and entries are pending,
 *         ENTERs (a user that pushes and polls the flag; it never ENTERs
 *         while the flag is clear: it relies on an M).  ENTER, under
 *         sq_lock: consume all; list the ring again if a walk took it off
 *         and a grace period has passed since (unlisted_gp), its flag as it
 *         is (set); unlock.
 *   M:    walks before it parks.  First pass: any ring whose SQ holds
 *         entries may be the one chosen (the stamps, least recently taken
 *         up, are a hint: any order), one is if any is seen.  None: the
 *         second pass, from the head again: announce (set the flag, full
 *         barrier, load the tail): entries came, take the ring up; else,
 *         unless used lately (an ENTER or a take-up in WSX_PICKUP_IDLE:
 *         either, here), retire it: a plain try of sq_lock (taken: it
 *         stays listed, announced); under it announce again (entries
 *         came: unlock, take it up); else unlist it if listed (a walk may
 *         stand on an unlisted node); unlock; the next node.  The end of
 *         the list, nothing found: leave the read section and park for
 *         good (a woken M would only walk once more).  Take-up, after the
 *         read section: try sq_lock (taken: the holder, or this M's next
 *         walk, looks); list the ring at once if a walk took it off; clear
 *         the flag; consume all, or, nothing left, set the flag again (the
 *         announce); unlock; walk again.  The take-up's relisting may cut
 *         another M's walk short; rings.c's argument is that the taker's
 *         own next walk covers it, and SHOW_TAKEUPCUT checks that such a
 *         cut is reached.
 *
 * Not modelled (sqpickup.pml has them, with one ring): pickup_missed and
 * the take-over (one user thread: while its ENTER holds sq_lock it pushes
 * nothing, and that ENTER consumes all an M saw), pickup_blocked (the CQ
 * has room), the abandon pass, the close, the stamps (any order).
 *
 * Checked (scripts/check-models): no entry is left while its ring's flag is
 * clear and every M is parked: an invalid end state (the user waits in its
 * loop, every M at its end).  A ring can be left so only with 2 entries
 * (the take-up that clears the flag consumes what is there when it
 * unlocks).  Sizes: 2 Ms; 2 rings of 2 entries each, or 3 rings of 1, 0
 * (an idle ring, which a walk may stand on when it is unlisted) and 2.
 *
 * Variants (must fail):
 *   BUG_ENTERRELIST ENTER lists an unlisted ring at once, no grace period
 *              (the list without unlisted_gp): a walk retires ring
 *              A and stands on it when A's user ENTERs (the flag set) and
 *              lists A at the tail; the walk's next step is the head, past
 *              ring B, whose entry came while its flag was clear (this M,
 *              or the other, took B up before); every M parks, B's entry
 *              stays.  One M is enough (-DNM=1).
 *   SHOW_TAKEUPCUT (NM 2, not a bug: the cut that the take-up's relisting
 *              may make is reached) an assertion that fails when an M
 *              takes up a ring that the other M's walk stands on, the
 *              node's old next a ring.
 *
 * Memory model: sequential consistency.  One step, one access, but for
 * these: the tail and sq_head_k load as one (as sqpickup.pml does); a lock
 * taken in one step with the step after it, released with the step
 * before it (what comes between touches neither the lock nor what the
 * step does, or is moved across); the retire's load of the tail with its
 * unlisting and unlock (what moves the tail, the user's push, touches
 * nothing of the unlisting).  What the grace period needs of the memory
 * model is RCU's, not modelled.
 */

#ifndef NR
#define NR	2	/* rings */
#endif
#ifndef NM
#define NM	2	/* Ms */
#endif
#ifndef PUSH0
#define PUSH0	2	/* entries the user of ring 0 pushes */
#endif
#ifndef PUSH1
#define PUSH1	2	/* ... of ring 1 */
#endif
#ifndef PUSH2
#define PUSH2	2	/* ... of ring 2 (NR 3) */
#endif
#define H	NR	/* the list head */
#define NONE	255
#define NPUSH(x)	(x == 0 -> PUSH0 : (x == 1 -> PUSH1 : PUSH2))

byte tail[NR];		/* the SQ tail, the user's: entries pushed */
byte head[NR];		/* sq_head_k (S), read racily by the walk */
bool flag[NR];		/* WSX_SQ_NEED_ENTER */
bool lck[NR];		/* sq_lock */
bool listed[NR];	/* S: on the list */
byte nxt[NR + 1];	/* the list: next pointers, the head's at H */
byte readers;		/* Ms in their read section, a mask */
byte unl[NR];		/* readers at the unlisting still in their section */
hidden byte p;		/* scratch of the list's writers (one step) */

inline unlist(x)	/* wsx_rings_unlist(): list_del_rcu, the state noted */
{
	p = H;
	do
	:: nxt[p] == x -> break
	:: else -> p = nxt[p]
	od;
	nxt[p] = nxt[x];	/* nxt[x] kept */
	listed[x] = false;
	unl[x] = readers;	/* start_poll_synchronize_rcu() */
	p = 0
}

inline relist(x)	/* wsx_rings_list(): list_add_tail_rcu */
{
	p = H;
	do
	:: nxt[p] == H -> break
	:: else -> p = nxt[p]
	od;
	nxt[p] = x;
	nxt[x] = H;
	listed[x] = true;
	p = 0
}

/* rcu_read_unlock(): M id has left its read section */
inline rcu_unlock(id)
{
	readers = readers & ~(1 << id);
	unl[0] = unl[0] & ~(1 << id);
	unl[1] = unl[1] & ~(1 << id);
#if NR > 2
	unl[2] = unl[2] & ~(1 << id);
#endif
#if NR > 3
#error "NR > 3: add unl[] lines to rcu_unlock()"
#endif
}

/* The user of ring x: pushes, and ENTERs while its flag is set. */
proctype user(byte x)
{
	do
	:: atomic { tail[x] < NPUSH(x) -> tail[x]++ }	/* a full barrier */
	:: atomic { flag[x] && tail[x] != head[x] -> !lck[x];
		/* ENTER (wsx_rings_submit()): sq_lock, consume */
		lck[x] = true; head[x] = tail[x] };
		atomic {
			if
#ifdef BUG_ENTERRELIST
			:: !listed[x] -> relist(x)	/* at once */
#else
			:: !listed[x] && unl[x] == 0 -> relist(x)	/* a GP since */
#endif
			:: true				/* listed, or not yet */
			fi;
			lck[x] = false
		}
	:: tail[x] == NPUSH(x) && tail[x] == head[x] -> break
	od
}

proctype m(byte id)
{
	byte pos, found;

walk:
	/* pass 1: rcu_read_lock(), the first node */
	atomic { readers = readers | (1 << id); found = NONE; pos = nxt[H] }
	do
	:: pos == H -> break
	:: atomic { pos != H && tail[pos] != head[pos] ->
		if			/* entries: a candidate */
		:: found == NONE -> found = pos
		:: found != NONE -> found = pos	/* older */
		:: found != NONE			/* newer */
		fi };
		pos = nxt[pos]
	:: pos != H && tail[pos] == head[pos] ->
		pos = nxt[pos]
	od;
	if
	:: found != NONE -> goto out
	:: else -> pos = nxt[H]		/* pass 2, from the head again */
	fi;
	do
	:: pos == H -> break
	:: atomic { pos != H -> flag[pos] = true }	/* announce, full barrier */
		if
		:: atomic { tail[pos] != head[pos] -> found = pos; break }
		:: tail[pos] == head[pos] ->
			if			/* idle: wsx_rings_retire() */
			:: atomic { !lck[pos] -> lck[pos] = true;
				flag[pos] = true };	/* announce again */
				if
				:: atomic { tail[pos] != head[pos] ->	/* came */
					lck[pos] = false; found = pos; break }
				:: atomic { tail[pos] == head[pos] ->
					if
					:: listed[pos] -> unlist(pos)
					:: else
					fi;
					lck[pos] = false }
				fi
			:: atomic { lck[pos] -> skip }	/* taken: stays listed */
			:: true				/* used lately */
			fi
		fi;
		pos = nxt[pos]
	od;
out:
	atomic {
		rcu_unlock(id);
		pos = 0;
		if
		:: found == NONE -> found = 0; goto park
		:: else
		fi
	}
	/* wsx_rings_pickup_one(found): try sq_lock, list at once */
	atomic {
		if
		:: !lck[found] -> lck[found] = true;
			if
			:: !listed[found] ->
#ifdef SHOW_TAKEUPCUT
#if NM != 2
#error "SHOW_TAKEUPCUT needs NM 2"
#endif
				/* must fail: the other M's walk stands on it */
				assert(!(readers & (1 << (1 - id)) &&
					 m[NR + 2 - id]:pos == found &&
					 nxt[found] != H));
#endif
				relist(found)
			:: else
			fi
		:: else -> found = 0; goto walk		/* the holder looks */
		fi
	}
	flag[found] = false;
	atomic {
		if
		:: tail[found] != head[found] -> head[found] = tail[found]
		:: else -> flag[found] = true	/* nothing left: announce */
		fi;
		lck[found] = false;
		found = 0
	}
	goto walk;
park:
end:	false
}

init
{
	byte i;

	atomic {
		/* at setup: every ring listed, in order, its flag set */
		for (i : 0 .. NR - 1) {
			nxt[i] = i + 1;
			listed[i] = true;
			flag[i] = true;
			run user(i)
		}
		nxt[H] = 0;
		/* M id's _pid is NR + 1 + id (SHOW_TAKEUPCUT) */
		for (i : 0 .. NM - 1) {
			run m(i)
		}
	}
}
