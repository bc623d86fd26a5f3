/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hotplug.pml - CPU hotplug: the online and offline callbacks, the
 * acknowledgement of the P's M, the RCU check of submitters and the
 * holder's drain to the global queue (wsx_m_stop_p(), wsx_p_drain(),
 * wsx_inbox_put(), wsx_sched_cpu_online(), wsx_sched_cpu_offline()).
 *
 * What is modelled
 * ----------------
 * P 1 is the P of the CPU that goes online and offline; process M1 holds it
 * for good (the holder changing hands is handoff.pml's).  Process hotplug
 * runs the callbacks, serialized as the hotplug lock serializes them: the
 * first online at cpuhp_setup_state() time, then offline and online again,
 * NCYCLES times, ending offline (as at module exit, or the finding's CPU
 * going away).  With -DWARM the P starts online and acknowledged, and the
 * first callback is an offline: finding 1's own order.  Process submitter queues NSUB items on P 1 from outside,
 * each either as wsx_queue(WSX_WHERE_P) (fails with -ENXIO when the P is
 * offline) or as a due delayed item (wsx_queue_counted(add = false): goes
 * to the global queue when the P is offline).  The rest of the executor is
 * process others: an online P whose M takes items from the global queue
 * (queue.pml checks that it is woken).
 *
 * Process thief is another P's M stealing from P 1's inbox (fix F7 (ii)):
 * it takes the inbox with llist_del_all(), runs k = n - n/2 of the items on
 * its own P and gives the rest back the way a submitter does: under RCU,
 * to P 1's inbox if want_online, else to the global queue.
 *
 * RCU: rcu_read_lock() sets the reader's rcu_in[] (readers: 0 the
 * submitter, 1 the thief), rcu_read_unlock() clears it and flips its
 * rcu_par[]; synchronize_rcu() waits, reader by reader, until the section
 * open when it started (if any) has ended.  wait_event()/wake_up() pairs
 * are a process blocking on the condition: the waker stores, then wakes.
 *
 * The model is sequentially consistent: F5's smp_mb() pair (want_online
 * against p->m) is the order of the steps; KCSAN and the comments argue the
 * barriers.
 *
 * Properties
 * ----------
 *  - once the offline callback returned, and until the next online
 *    callback starts, nothing is queued on P 1 (inbox, ring, runnext) and
 *    its M runs no item (invariant, process watch; sched.c, "CPU hotplug");
 *  - no item lost or run twice: ran <= created (invariant); a callback or
 *    an M stuck for good is an invalid end state;
 *  - every item queued runs (ltl alldone, pan -a; it holds without
 *    fairness, so with it too).
 *
 * Variants (spin -D...):
 *   BUG_F1    f7ca79a: the online callback does not wait for the M's
 *             acknowledgement: finding 1.
 *   BUG_F1DESIGN  F1 as first designed: the online callback waits for
 *             m_online, which starts true ("until its M acknowledges the
 *             first stop", wsx_p_create()), and the M enters wsx_m_stop_p()
 *             only when want_online is false.  The first online callback
 *             can then return before the M acknowledged anything (README:
 *             "F1 as designed leaves the first online open").
 *   BUG_F7GIVE  the thief gives the rest back to P 1's inbox without
 *             checking want_online under RCU.
 *   default   F1 corrected: m_online starts false; the M stops when
 *             want_online is false or it has not acknowledged an online
 *             yet; wsx_m_stop_p() drains and acknowledges the offline only
 *             if it had acknowledged an online; then it waits for
 *             want_online and acknowledges it.
 *
 * Line numbers are kmod/sched.c's as of f7ca79a unless named otherwise.
 */

#ifndef NSUB
#define NSUB	2
#endif
#ifndef NCYCLES
#define NCYCLES	2
#endif

bool want_online;	/* p->want_online (H) */
bool m_online;		/* p->m_online (M) */
byte inbox;		/* p->inbox */
byte rq;		/* p->runnext + p->ring + p->backlog */
bool pidle;		/* P 1's idle bit */
bool woken;		/* M1's m->woken */
byte glen;		/* the global queue */
bool rcu_in[2];		/* in an RCU read-side section */
bit rcu_par[2];		/* flips at each rcu_read_unlock() */
byte created;		/* ghost: items queued */
byte ran;		/* ghost: items started */
bool running;		/* ghost: M1 is running an item */
bool offline_done;	/* ghost: the offline callback returned, no online since */

#ifndef NSTEAL
#define NSTEAL	1
#endif

/* synchronize_rcu(): wait for the read-side sections open now */
inline synchronize_rcu(r, g)
{
	r = 0;
	do
	:: r < 2 ->
		if
		:: atomic { rcu_in[r] -> g = rcu_par[r] }
			atomic { rcu_par[r] != g -> g = 0 }
		:: atomic { !rcu_in[r] -> r++ }
		fi
	:: else -> r = 0; break
	od
}

inline rcu_read_lock(r)
{
	rcu_in[r] = true
}

inline rcu_read_unlock(r)
{
	atomic { rcu_in[r] = false; rcu_par[r] = 1 - rcu_par[r] }
}

proctype M1()
{
	byte n, g, r;
	bool ok;

top:	/* wsx_find_runnable() */
#if defined(BUG_F1) || defined(BUG_F1DESIGN)
	if
	:: !want_online -> goto stop		/* wsx_find_runnable() */
	:: else
	fi;
#else
	/* F1 corrected: also until the M acknowledged an online */
	if
	:: !want_online || !m_online -> goto stop
	:: else
	fi;
#endif
	/* wsx_inbox_drain() */
	atomic { n = inbox; inbox = 0 }
	atomic { rq = rq + n; n = 0 }
	/* wsx_runq_get() in wsx_find_runnable(); the global queue is the others' */
	if
	:: atomic { rq > 0 -> rq--; running = true; ran++ }
progress:	/* wsx_execute(): the item runs, and returns */
		running = false;
		goto top
	:: rq == 0
	fi;

	/* wsx_m_park(): P idle (wsx_m_idle_p()) */
	pidle = true;
	/* wsx_m_park(): smp_mb(); wsx_work_visible(): the inbox */
	if
	:: inbox > 0 ->
		/* wsx_pidle_reclaim() */
		atomic {
			if
			:: pidle -> pidle = false; ok = true
			:: else -> ok = false
			fi
		}
		if
		:: ok -> ok = false; goto top
		:: else
		fi
	:: else
	fi;
	/* wsx_m_park() */
	atomic { woken || !want_online }
	/* wsx_m_unpark() */
	if
	:: atomic { woken -> woken = false }
	:: atomic { !woken ->
		if
		:: pidle -> pidle = false; ok = true	/* reclaimed */
		:: else -> ok = false
		fi }
		if
		:: ok -> ok = false
		:: else ->
			/* wsx_m_unpark(): a waker has the bit: wait for its wakeup */
			atomic { woken -> woken = false }
		fi
	fi;
	goto top;

stop:	/* wsx_m_stop_p() */
#if !defined(BUG_F1) && !defined(BUG_F1DESIGN)
	if
	:: !m_online -> goto stopped	/* F1 corrected: nothing to drain */
	:: else
	fi;
#endif
	synchronize_rcu(r, g);			/* wsx_m_stop_p() */
	/* wsx_p_drain(): inbox, then runnext and the ring */
	atomic { n = inbox; inbox = 0 }
	atomic { n = n + rq; rq = 0 }
	atomic { glen = glen + n; n = 0 }	/* wsx_p_drain(), and wsx_wakep() */
	m_online = false;			/* wsx_m_stop_p(), then wake_up(ack_wq) */
stopped:
end_stopped:
	want_online;				/* wsx_m_stop_p() */
	m_online = true;			/* wsx_m_stop_p() (F1: and wake_up(ack_wq)) */
	goto top
}

/*
 * wsx_sched_cpu_online() and wsx_sched_cpu_offline(),
 * NCYCLES times each; with WARM the P starts online, acknowledged, and the
 * first callback is an offline.
 */
proctype hotplug()
{
	byte i;

#ifdef WARM
	goto offline;
#endif
online:
	atomic { want_online = true; offline_done = false }	/* wsx_sched_cpu_online() */
	/* wsx_sched_cpu_online(): wake_up(p->m) */
#ifndef BUG_F1
	m_online;			/* F1: wait for the ack */
#endif
offline:
	want_online = false;		/* wsx_p_stop() (F5: smp_mb()) */
	/* wsx_p_stop(): wake_up(p->m) */
	!m_online;			/* wsx_p_stop() */
	atomic { offline_done = true; i++ }
	if
	:: i < NCYCLES -> goto online
	:: else
	fi
}

/*
 * Queueing on P 1 from outside: wsx_queue_counted() with
 * wsx_inbox_put() and wsx_wake_p().
 */
proctype submitter()
{
	byte n;
	bool ok, timer, got;

	do
	:: n < NSUB ->
		if
		:: timer = false	/* wsx_queue(WSX_WHERE_P) */
		:: timer = true		/* a due delayed item (timers.c) */
		fi;
		rcu_read_lock(0);			/* wsx_inbox_put() */
		ok = want_online;			/* wsx_inbox_put() */
		if
		:: ok -> atomic { inbox++; created++ }	/* wsx_inbox_put() */
		:: else
		fi;
		rcu_read_unlock(0);			/* wsx_inbox_put() */
		if
		:: ok ->
			/* wsx_wake_p(): claim the idle bit, wake the M */
			atomic {
				if
				:: pidle -> pidle = false; got = true
				:: else -> got = false
				fi
			}
			if
			:: got -> got = false; woken = true
			:: else
			fi
		:: !ok && timer ->
			/* wsx_queue_counted(): wsx_gq_queue() */
			atomic { glen++; created++ }
		:: !ok && !timer	/* -ENXIO */
		fi;
		atomic { n++; ok = false; timer = false }
	:: else -> break
	od
}

/* F7 (ii): another P's M takes P 1's inbox (its ring gave nothing). */
proctype thief()
{
	byte n, k, i;
	bool ok;

	do
	:: i < NSTEAL ->
		atomic { inbox > 0 -> n = inbox; inbox = 0; k = n - n / 2;
			 n = n - k; i++ }
		/* the k oldest: to the thief's ring, one to run now */
		atomic { ran = ran + k; k = 0 }
		if
		:: n > 0 ->
			/* the rest back, as wsx_inbox_put() */
			rcu_read_lock(1);
#ifdef BUG_F7GIVE
			ok = true;	/* gives back without the check */
#else
			ok = want_online;
#endif
			if
			:: ok -> inbox = inbox + n
			:: else
			fi;
			rcu_read_unlock(1);
			if
			:: ok -> ok = false; n = 0	/* and wsx_wake_p() */
			:: else ->
				atomic { glen = glen + n; n = 0 }
			fi
		:: else
		fi
	:: else -> break
	od
}

/* The other online Ps: their Ms run what reaches the global queue. */
proctype others()
{
end:	do
	:: atomic { glen > 0 -> glen--; ran++ }
progress:	skip
	od
}

#define SAFE	(ran <= created && \
		 !(offline_done && (inbox > 0 || rq > 0 || running)))

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
	atomic {
#ifdef WARM
		want_online = true;
		m_online = true;
#elif defined(BUG_F1) || defined(BUG_F1DESIGN)
		m_online = true;	/* wsx_p_create() */
#endif
		run M1();
		run hotplug();
		run submitter();
		run thief();
		run others()
	}
}

/* every item queued runs (the others' P stays online) */
ltl alldone { <> [] (ran == created) }
