/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handoff.pml - blocking sections and the Ms without a P: the handoff to a
 * spare M, the pool, the waiting list mwait, the reaper that stops and
 * frees pool Ms, the wakeups against it, and the bounded wait of an M
 * leaving a blocking section (handoff.c; in sched.c wsx_pidle_claim() to
 * wsx_wake_p(), wsx_m_unpark(), wsx_m_park(), wsx_execute() and
 * wsx_m_main()).
 *
 * What is modelled
 * ----------------
 * One P (P 0), NM Ms (process M(i)), nprocs = 1, max_threads = NM.  M 0
 * holds the P at the start; Ms 1 .. NM-1 exist only once wsx_m_create()
 * made them (a spare for a blocking section).  A running item may open a
 * blocking section (wsx_block_begin(): NBLOCK of them in all) and closes it
 * before it returns (wsx_block_end()).  Process submitter queues items on
 * the P from outside (wsx_queue(WSX_WHERE_P) and wsx_wake_p(), F7 (i)
 * included); process reaper is wsx_reaper_fn(), run any number of times,
 * the idle time of each pool M being whatever it may be.
 *
 * mlock is a lock variable; mpool and mwait are sets (any member may come
 * first: that covers every order of the lists).  The P's queue (inbox,
 * backlog, runnext, ring: only its holder takes from it here) is one count.
 * RCU: a waker in wsx_m_wake() is in a read-side section (rcu_in[]);
 * synchronize_rcu() waits, reader by reader, until the sections open when
 * it started have ended.  wait_event()/wake_up() is a process blocking on
 * the condition, except that the wake_up() of wsx_m_wake() is a step of
 * its own that touches the M (the use-after-free of finding 2).
 * Sequentially consistent, as the other models.
 *
 * Two configurations:
 *   default   NSUB items queued, NBLOCK blocking sections: safety.
 *   LOAD      sustained load: the submitter queues forever, an item
 *             whenever none is queued, and M 0's item blocks once: the
 *             liveness of the M leaving the blocking section (finding 3).
 *
 * Properties
 * ----------
 *  - no M touched after it was freed: wsx_m_wake()'s store and wake_up(),
 *    and any step of the M itself (assertions);
 *  - no P with two holders: at most one M acts as the P's holder (runs its
 *    items or its scheduler code), and that M is p->m (invariant); an M
 *    that takes an item holds the P;
 *  - no item lost or run twice: ran <= created, the queue never goes
 *    negative; at the end every item ran (ltl alldone, pan -a);
 *  - an M entering the pool or exiting is not counted spinning;
 *  - with LOAD: an M leaving a blocking section gets a P (ltl nostarve,
 *    weak fairness); and F3's bound: while M 0 waits, the P starts at most
 *    global_tick (GT) items (an assertion, off with -DNOBOUND; every item
 *    counts as a tick here, runnext inheritance is not modelled).
 *
 * Variants (spin -D...):
 *   BUG_F2    wsx_m_wake() without rcu_read_lock() (f7ca79a): finding 2.
 *   BUG_F3    no yield to a waiting M at the global_tick point (f7ca79a):
 *             finding 3, with LOAD.
 *   BUG_F3SPIN  F3 gives the P away without resetting a spinning M
 *             (wsx_m_park() does, through wsx_m_idle_p()).
 *
 * Line numbers are kmod/handoff.c's as of f7ca79a, "sched.c:" for sched.c.
 */

#ifndef NM
#define NM	2
#endif
#ifndef NSUB
#define NSUB	2
#endif
#ifndef NBLOCK
#define NBLOCK	1
#endif
#ifndef GT
#define GT	2	/* global_tick (61 in the module) */
#endif

#define NONE	255
#define P	0

byte pm;		/* p->m: the holder */
byte queued;		/* items queued on the P */
bool pidle;		/* the P's idle bit (npidle is the same here) */
byte nmspinning;
byte schedtick;		/* p->tick_phase: p->schedtick % GT */
byte mlock = NONE;	/* wsx_sched.mlock: its owner */
byte nthreads = 1;
byte nmwait;		/* F3: atomic count of mwait */

bool exists[NM];	/* wsx_m_create() made it */
bool freed[NM];		/* kfree()d by the reaper */
bool exited[NM];	/* its thread ended (kthread_stop() returns) */
bool should_stop[NM];	/* kthread_should_stop() */
byte mp[NM];		/* m->p */
byte nextp[NM];		/* m->nextp */
bool woken[NM];
bool wake_spinning[NM];
bool lose_p[NM];
bool in_pool[NM];	/* on mpool */
bool in_mwait[NM];	/* on mwait */

/* RCU readers: the Ms (0 .. NM-1) and the submitter (NM) */
bool rcu_in[NM + 1];	/* in a read-side section */
bit rcu_par[NM + 1];	/* flips at each rcu_read_unlock() */
byte created;		/* ghost: items queued */
byte ran;		/* ghost: items run */
byte nblocks;		/* ghost: blocking sections opened */
bool hold[NM];		/* ghost: acts as the P's holder */
bool waiting0;		/* ghost: M 0 waits in mwait for a P */
byte wticks;		/* ghost: items the P started meanwhile */
bool sub_done;

inline lock()
{
	atomic { mlock == NONE -> mlock = me }
}

inline unlock()
{
	assert(mlock == me);
	mlock = NONE
}

/* wsx_pidle_claim(), the bit and npidle in one */
inline pidle_claim(got)
{
	atomic {
		if
		:: pidle -> pidle = false; got = true
		:: else -> got = false
		fi
	}
}

/* wsx_m_give(), under mlock: hand the P to @to (pool or mwait) */
inline m_give(to)
{
	assert(!freed[to]);
	in_pool[to] = false;
	if
	:: in_mwait[to] -> in_mwait[to] = false; nmwait--
	:: else
	fi;
	pm = to;
	nextp[to] = P		/* and wake_up(&to->wq) */
}

/* the first M of mwait, or NONE */
inline first_waiter(w)
{
	w = NONE;
	if
	:: in_mwait[0] -> w = 0
	:: in_mwait[1] -> w = 1
#if NM > 2
	:: in_mwait[2] -> w = 2
#endif
	:: else
	fi
}

/* an M of the pool, or NONE */
inline pool_pick(w)
{
	w = NONE;
	if
	:: in_pool[0] -> w = 0
	:: in_pool[1] -> w = 1
#if NM > 2
	:: in_pool[2] -> w = 2
#endif
	:: else
	fi
}

/* wsx_block_begin() and, after the blocking, wsx_block_end(), wsx_m_block_end() */
inline block_begin_end()
{
	atomic { assert(hold[me]); hold[me] = false; mp[me] = NONE } /* wsx_block_begin() */
	/* wsx_p_to_spare(): a pool M ... */
	lock();
	pool_pick(w);
	if
	:: w != NONE -> m_give(w); w = NONE; unlock()
	:: else ->
		unlock();
		/* ... or a new one: wsx_m_create() */
		lock();
		if
		:: nthreads >= NM ->			/* wsx_m_create() */
			unlock();
			/* wsx_block_begin(): keep the P; its queue waits */
			atomic { mp[me] = P; hold[me] = true };
			goto blocked
		:: else ->
			nthreads++;
			unlock()
		fi;
		/* the new M: the first never created */
		atomic {
			w = 1;
			do
			:: w < NM && exists[w] -> w++
			:: else -> break
			od;
			if
			:: w == NM ->
				/*
				 * the model has no M left: as a failed
				 * kthread_create() (wsx_m_create()), keep the P
				 */
				nthreads--;
				mp[me] = P;
				hold[me] = true
			:: else ->
				pm = w;			/* wsx_m_create() */
				mp[w] = P;		/* wsx_m_create(): wsx_m_take_p() */
				hold[w] = true;
				exists[w] = true	/* wsx_m_start() */
			fi;
			w = 0
		}
	fi;
blocked:	/* the item sleeps; then wsx_m_block_end() */
	if
	:: mp[me] != NONE -> skip		/* wsx_m_block_end(): kept its P */
	:: else ->
		lock();
		/* wsx_p_take_idle() */
		pidle_claim(ok);
		if
		:: ok ->
			w = pm;
			lose_p[w] = true;		/* wsx_p_take_idle() */
			m_wake_locked(w);		/* wsx_p_take_idle() */
			pm = me;			/* wsx_p_take_idle() */
			w = 0;
			unlock()
		:: else ->
			atomic { in_mwait[me] = true; nmwait++;	/* wsx_m_block_end() */
				 waiting0 = (me == 0) }
			unlock();
			nextp[me] != NONE;		/* wsx_m_block_end() */
			lock();
			atomic { p = nextp[me]; nextp[me] = NONE;
				 waiting0 = false; wticks = 0 }
			unlock()
		fi;
		/* wsx_m_block_end(): wsx_m_take_p() */
		atomic { assert(pm == me); ok = false; p = 0; mp[me] = P;
			 hold[me] = true }
	fi
}

/*
 * wsx_m_wake() by the submitter: the store-release of woken,
 * then wake_up() - under rcu_read_lock() with F2.
 */
inline m_wake(m, s, r)
{
#ifndef BUG_F2
	rcu_in[r] = true;		/* F2: rcu_read_lock() */
#endif
	atomic { assert(!freed[m]); wake_spinning[m] = s; woken[m] = true }
	assert(!freed[m]);		/* wake_up(&m->wq) */
#ifndef BUG_F2
	atomic { rcu_in[r] = false; rcu_par[r] = 1 - rcu_par[r] }
#endif
}

/*
 * wsx_m_wake() from wsx_p_take_idle(), under mlock: the woken M must take
 * mlock before the pool (and the reaper), so it cannot be freed meanwhile.
 */
inline m_wake_locked(m)
{
	atomic { assert(!freed[m]); wake_spinning[m] = false; woken[m] = true }
}

/* wsx_wakep(), queue.pml's fix N4: one P here; @r: the caller */
inline wakep(w, r)
{
	if
	:: pidle && nmspinning == 0 ->
		pidle_claim(ok);
		if
		:: ok ->
			ok = false;
			nmspinning++;
			w = pm;
			m_wake(w, true, r);
			w = 0
		:: else
		fi
	:: else
	fi
}

/* the M's own steps: it must exist */
#define ALIVE	assert(exists[me] && !freed[me])

proctype M(byte me)
{
	bool spinning, was, ok;
	byte p, w, n;

end_start:
	exists[me];		/* wsx_m_start() */

main:	/* wsx_m_main() */
	ALIVE;
	if
	:: mp[me] == NONE ->
		/* wsx_m_pool_wait() */
		assert(!spinning && !hold[me]);
		lock();
		if
		:: nextp[me] == NONE -> in_pool[me] = true	/* wsx_m_pool_wait() */
		:: else
		fi;
		unlock();
end_pool:	(nextp[me] != NONE || should_stop[me]);	/* wsx_m_pool_wait() */
		lock();
		atomic { p = nextp[me]; nextp[me] = NONE; in_pool[me] = false }
		unlock();
		if
		:: p == NONE -> goto exit		/* wsx_m_pool_wait() */
		:: else
		fi;
		/* wsx_m_take_p() */
		atomic { assert(pm == me); mp[me] = p; p = 0; hold[me] = true }
	:: else
	fi;

top:	/* wsx_find_runnable() */
	ALIVE;
	if
	:: mp[me] == NONE -> goto main		/* wsx_find_runnable() */
	:: else
	fi;
#ifndef BUG_F3
	/*
	 * F3: every global_tick-th tick, an M waiting for a P gets this one
	 * (under mlock, as wsx_m_idle_p()'s waiter branch).
	 */
	if
	:: schedtick == 0 && nmwait > 0 ->
		lock();
		first_waiter(w);
		if
		:: w != NONE ->
#ifndef BUG_F3SPIN
			if
			:: spinning -> spinning = false; was = true;
				assert(nmspinning > 0); nmspinning--
			:: else
			fi;
#endif
			atomic { hold[me] = false; mp[me] = NONE }
			m_give(w);
			w = NONE;
			unlock();
			if
			:: was -> was = false; wakep(w, me)
			:: else
			fi;
			goto main
		:: else -> unlock()
		fi
	:: else
	fi;
#endif
	/* wsx_inbox_drain(), wsx_runq_get() in wsx_find_runnable() */
	if
	:: atomic { queued > 0 -> assert(hold[me] && pm == me); queued-- }
		goto execute
	:: queued == 0
	fi;

	/* wsx_m_park() */
	if
	:: atomic { spinning -> spinning = false; was = true;
		    assert(nmspinning > 0); nmspinning-- }
	:: !spinning
	fi;
	/* wsx_m_idle_p() */
	lock();
	first_waiter(w);
	if
	:: w != NONE ->
		atomic { hold[me] = false; mp[me] = NONE }	/* wsx_m_idle_p() */
		m_give(w);
		w = NONE;
		unlock();
		if
		:: was -> was = false; wakep(w, me)		/* wsx_m_park() */
		:: else
		fi;
		goto top			/* wsx_m_park(), then wsx_find_runnable() */
	:: else ->
		atomic { hold[me] = false; pidle = true }	/* wsx_m_idle_p() */
		unlock()
	fi;
	/* wsx_m_park(): smp_mb(); wsx_work_visible(): the P's queue */
	if
	:: queued > 0 ->
		/* wsx_pidle_reclaim() */
		lock();
		if
		:: pm == me -> pidle_claim(ok)
		:: else -> ok = false
		fi;
		if
		:: ok -> hold[me] = true
		:: else
		fi;
		unlock();
		if
		:: ok ->
			ok = false;
			if
			:: was -> was = false; spinning = true; nmspinning++
			:: else
			fi;
			goto top
		:: else -> wakep(w, me)	/* queue.pml's fix N3 */
		fi
	:: else
	fi;
	was = false;
end_park:	/* wsx_m_park() (kthread_stop() is for pool Ms only) */
	woken[me];
	/* wsx_m_unpark() */
	ALIVE;
	atomic {
		woken[me] = false;
		if
		:: lose_p[me] ->			/* wsx_m_unpark() */
			lose_p[me] = false;
			mp[me] = NONE
		:: else ->
			hold[me] = true;
			spinning = wake_spinning[me]
		fi
	}
	goto top;

execute:	/* wsx_execute() */
	if
	:: atomic { spinning -> spinning = false;	/* wsx_m_reset_spinning() */
		    assert(nmspinning > 0); nmspinning--; w = nmspinning }
		if
		:: w == 0 -> wakep(w, me)
		:: else -> w = 0
		fi
	:: else
	fi;
	atomic {
		schedtick = (schedtick + 1) % GT;	/* wsx_execute() */
		/* F3's bound: a waiting M waits for at most GT items */
		if
		:: waiting0 -> wticks++;
#ifndef NOBOUND
			assert(wticks <= GT)
#endif
		:: else
		fi
	}
	if
	:: atomic { nblocks < NBLOCK -> nblocks++ }
		block_begin_end()
	:: skip
	fi;
progress:
#ifndef LOAD
	ran++;					/* the item returns */
#else
	skip;
#endif
	goto top;

exit:
	assert(!spinning);
	exited[me] = true
}

proctype submitter()
{
	byte n, w;
	bool ok;

	do
#ifdef LOAD
	:: queued == 0 ->		/* sustained load */
		queued++
#else
	:: n < NSUB ->
		atomic { queued++; created++; n++ }	/* wsx_inbox_put() */
#endif
		/* wsx_wake_p() */
		pidle_claim(ok);
		if
		:: ok ->
			ok = false;
			w = pm;				/* wsx_wake_p() */
			m_wake(w, false, NM);
			w = 0
		:: else -> wakep(w, NM)			/* F7 (i) */
		fi
#ifndef LOAD
	:: n == NSUB -> break
#endif
	od;
	sub_done = true
}

#if NM == 2
#define POOLED	(in_pool[0] || in_pool[1])
#else
#define POOLED	(in_pool[0] || in_pool[1] || in_pool[2])
#endif

/* wsx_reaper_fn() */
proctype reaper()
{
	byte me = NM, w, d, g;

end:	do
	/*
	 * wsx_reaper_fn(): under mlock: a pool M idle long enough, while nthreads >
	 * nprocs.  (A run that finds nothing to do only takes the lock.)
	 */
	:: atomic { mlock == NONE && nthreads > 1 && POOLED ->
		pool_pick(w);
		mlock = me }
		if
		:: w != NONE ->
			in_pool[w] = false;
			nthreads--;
			d = w;
			unlock();
			should_stop[d] = true;		/* wsx_reaper_fn(): kthread_stop() */
			exited[d];
			/* wsx_reaper_fn(): synchronize_rcu() */
			w = 0;
			do
			:: w <= NM ->
				if
				:: atomic { rcu_in[w] -> g = rcu_par[w] }
					atomic { rcu_par[w] != g -> g = 0 }
				:: atomic { !rcu_in[w] -> w++ }
				fi
			:: else -> break
			od;
			atomic { freed[d] = true; d = 0; w = 0 }	/* wsx_reaper_fn() */
		fi
	od
}

#if NM == 2
#define HOLDERS	(hold[0] + hold[1])
#define HOLDPM	((!hold[0] || pm == 0) && (!hold[1] || pm == 1))
#elif NM == 3
#define HOLDERS	(hold[0] + hold[1] + hold[2])
#define HOLDPM	((!hold[0] || pm == 0) && (!hold[1] || pm == 1) && \
		 (!hold[2] || pm == 2))
#else
#error NM must be 2 or 3
#endif
#define SAFE	(HOLDERS <= 1 && HOLDPM && ran <= created)

#ifndef NOWATCH
active proctype watch()
{
end:	do
	:: assert(SAFE)
	od
}
#endif

init
{
	byte i;

	atomic {
		for (i : 0 .. NM - 1) {
			mp[i] = NONE;
			nextp[i] = NONE
		}
		exists[0] = true;
		mp[0] = P;
		pm = 0;
		hold[0] = true;
		for (i : 0 .. NM - 1) {
			run M(i)
		}
		run submitter();
		run reaper()
	}
}

#ifdef LOAD
ltl nostarve { [] (waiting0 -> <> !waiting0) }
#else
ltl alldone { <> [] (sub_done && ran == created) }
#endif
