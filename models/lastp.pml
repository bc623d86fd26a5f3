/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lastp.pml - the last online P keeps running without its CPU
 * (wsx_sched_cpu_offline(), wsx_sched_cpu_online(), wsx_m_stop_p(),
 * wsx_sched_stop_orphans()).
 *
 * What is modelled
 * ----------------
 * NP Ps, each with its M and the hotplug callbacks of its CPU (process
 * cpu(i), NCYCLES offlines and onlines, ending offline: every CPU the
 * module loaded on goes away, as when later-added CPUs run the machine).
 * All callbacks are serialized by the hotplug lock (hp).  An offline
 * callback that finds its P the only one online (nponline == 1) does not
 * stop it: the P becomes an orphan and its M goes on running it wherever
 * the scheduler puts it; the online callback of an orphan's CPU only
 * clears the mark (its M binds itself to the CPU again once the CPU is
 * active, handoff.c's "Affinity": not modelled, affinity is not part of
 * correctness).  Any other offline stops the P as hotplug.pml
 * models it (want_online cleared, the M acknowledges, nponline drops); an
 * online starts it and waits for the acknowledgement.
 *
 * Process submitter queues NSUB items on the global queue (wsx_queue() of
 * an item that does not name an online P: it never fails); an M whose P
 * is online runs them (the wakeups are queue.pml's: here an M waits for
 * work or for its stop as one guard).  With -DEXIT, process unload is
 * the module's exit once no session is left (every item ran):
 * cpuhp_remove_state() runs the offline callback of every CPU still up,
 * under the hotplug lock, with unloading set so that the last one stops
 * too; after it the callbacks are never called again, and the orphans
 * (whose CPUs are down) are stopped by wsx_sched_stop_orphans() without
 * the lock.
 *
 * The model is sequentially consistent: every field of the decision is
 * written under the hotplug lock (H fields) or is the M's own.
 *
 * Properties
 * ----------
 *  - nponline counts the Ps with want_online (orphans included), and an
 *    orphan's CPU is down, whenever no callback runs (invariant);
 *  - every item queued runs (ltl alldone), though every CPU ends offline;
 *  - with EXIT: the exit leaves no P running and nothing queued (assert).
 *
 * Variants (spin -D...):
 *   BUG_NOLAST  the offline callback stops the last P too (the code before
 *               the orphans): the items queued after it wait for good.
 *   BUG_COUNT   the online callback of an orphan's CPU counts the P again.
 *   BUG_EXIT    the exit does not stop the orphans: their Ms still run.
 */

#ifndef NP
#define NP	2
#endif
#ifndef NSUB
#define NSUB	2
#endif
#ifndef NCYCLES
#define NCYCLES	1
#endif

bool want_online[NP];	/* p->want_online (H) */
bool m_online[NP];	/* p->m_online (M) */
bool orphan[NP];	/* p->orphan (H) */
byte nponline;		/* wsx_sched.nponline (H) */
bool unloading;		/* wsx_sched.unloading: set by the exit */
bool removed;		/* cpuhp_remove_state() returned: no callback again */
bool exited;		/* kthread_stop() of every M */
bool hp;		/* cpu_hotplug_lock */
bool cpu_up[NP];	/* ghost: the CPU is online */
byte glen;		/* the global queue */
byte created;		/* ghost: items queued */
byte ran;		/* ghost: items run */
byte cpus_done;		/* ghost: cpu() processes ended */

inline hp_lock()
{
	atomic { !hp -> hp = true }
}

inline hp_unlock()
{
	hp = false
}

/* the stop of P i: wsx_sched_cpu_offline()'s wait, as hotplug.pml's */
inline stop_p(i)
{
	want_online[i] = false;
	!m_online[i];
	nponline--
}

/* wsx_sched_cpu_offline() */
inline offline(i)
{
#ifndef BUG_NOLAST
	if
	:: nponline == 1 && !unloading ->
		orphan[i] = true
	:: else ->
		stop_p(i)
	fi
#else
	stop_p(i)
#endif
}

/* wsx_sched_cpu_online() */
inline online(i)
{
	if
	:: orphan[i] ->
		orphan[i] = false
#ifdef BUG_COUNT
		; nponline++
#endif
	:: else ->
		nponline++;
		want_online[i] = true;
		m_online[i]
	fi
}

proctype M(byte i)
{
top:	/* wsx_find_runnable() */
	if
	:: !want_online[i] -> goto stop
	:: else
	fi;
	if
	:: atomic { glen > 0 -> glen--; ran++ }
progress:	goto top
	:: atomic { glen == 0 }
		/* parked until work or the stop (queue.pml: no lost wakeup) */
		(glen > 0 || !want_online[i] || exited);
		if
		:: exited -> goto gone
		:: else -> goto top
		fi
	fi;
stop:	/* wsx_m_stop_p(): nothing of its own to drain here */
	m_online[i] = false;
end_stopped:
	(want_online[i] || exited);
	if
	:: exited -> goto gone
	:: else
	fi;
	m_online[i] = true;
	goto top;
gone:
	skip
}

/* CPU i: offline and online NCYCLES times, then offline for good */
proctype cpu(byte i)
{
	byte c;

	do
	:: c < NCYCLES ->
		hp_lock();
		if
		:: !removed -> offline(i)
		:: else
		fi;
		cpu_up[i] = false;
		hp_unlock();
		hp_lock();
		if
		:: !removed -> online(i)
		:: else
		fi;
		cpu_up[i] = true;
		hp_unlock();
		c++
	:: else -> break
	od;
	hp_lock();
	if
	:: !removed -> offline(i)
	:: else
	fi;
	cpu_up[i] = false;
	hp_unlock();
	cpus_done++
}

proctype submitter()
{
	byte n;

	do
	:: n < NSUB -> atomic { glen++; created++; n++ }
	:: else -> break
	od
}

#ifdef EXIT
/* wsx_exit(): once no session is left */
proctype unload()
{
	byte i;

	ran == created && created == NSUB;
	unloading = true;
	/* cpuhp_remove_state(): the offline callback of each CPU up */
	hp_lock();
	i = 0;
	do
	:: i < NP ->
		if
		:: cpu_up[i] -> offline(i)
		:: else
		fi;
		i++
	:: else -> break
	od;
	removed = true;
	hp_unlock();
#ifndef BUG_EXIT
	/* wsx_sched_stop_orphans() */
	i = 0;
	do
	:: i < NP ->
		if
		:: orphan[i] -> stop_p(i); orphan[i] = false
		:: else
		fi;
		i++
	:: else -> break
	od;
#endif
	/* wsx_sched_exit() */
	assert(glen == 0);
	i = 0;
	do
	:: i < NP -> assert(!want_online[i] && !m_online[i]); i++
	:: else -> break
	od;
	exited = true
}
#endif

#ifndef NOWATCH
/* the invariant, whenever no callback runs */
active proctype watch()
{
	byte k, n;
	bool down;

end:	do
	:: d_step {
		!hp ->
		k = 0; n = 0; down = true;
		do
		:: k < NP ->
			n = n + want_online[k];
			down = down && (!orphan[k] || !cpu_up[k]);
			k++
		:: else -> break
		od;
		assert(removed || (nponline == n && down));
		k = 0; n = 0; down = false
	}
	od
}
#endif

init
{
	byte i;

	atomic {
		/* loaded with every CPU online: each P online, acknowledged */
		do
		:: i < NP ->
			want_online[i] = true;
			m_online[i] = true;
			cpu_up[i] = true;
			run M(i);
			run cpu(i);
			i++
		:: else -> break
		od;
		nponline = NP;
		run submitter();
#ifdef EXIT
		run unload()
#endif
	}
}

/* every item queued runs, though every CPU ends offline */
ltl alldone { <> [] (ran == created) }
