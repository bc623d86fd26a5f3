/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind.pml - an M binds itself to its P's CPU only under the hotplug lock
 * (wsx_m_bind(), wsx_m_unbind(), wsx_m_stop_p(); handoff.c's "Affinity").
 *
 * What is modelled
 * ----------------
 * One P, its CPU, the M holding it, and the kernel taking the CPU down and
 * up NCYCLES times (_cpu_down, _cpu_up), each under cpu_hotplug_lock held
 * for write.  The lock is a percpu rwsem: the writer first shuts new
 * readers out (writer), then waits for the readers inside to leave; a
 * reader's trylock fails while a writer is there.  Going down, the CPU is
 * dying from the start, still active until its deactivation, and then the
 * module's offline callback (wsx_p_stop()) clears want_online and waits for
 * the M's acknowledgment; coming up, the online callback sets want_online
 * and waits for the M, which binds itself to the CPU before acknowledging
 * (wsx_m_stop_p()), and the CPU becomes active after the callback.
 *
 * With -DORPHAN the P is the last online one (sched.c, "CPU hotplug"): the
 * callbacks leave it running, and when the CPU is down the kernel widens
 * the mask of the M bound to it (its affinity broken); the M goes on
 * passing, and binds again once the CPU is back.
 *
 * The M, at each pass of wsx_find_runnable() with its P online: when not
 * bound (bound is the M's real mask, which the M reads: it keeps no record
 * of its own), wsx_m_bind(): a racy look at the CPU (active), then the
 * trylock, a second look (active, not dying), the bind.  At any pass it
 * may also start a blocking section and come back with the P
 * (wsx_block_begin() unbinds it; wsx_m_block_end() takes a P and binds
 * through wsx_m_bind(), the same steps), so that it binds again and again
 * while the CPU comes and goes.  With its P stopped it unbinds,
 * acknowledges, waits for the online and binds (the callback's bind).
 *
 * Not modelled: a second CPU (an M bound to another P's CPU, which
 * wsx_m_bind() unbinds when it cannot bind now: a wider mask, no hazard);
 * the load, whose online callbacks run under the lock held for read.  The
 * kernel leaves dying set on a CPU that is down until its next bring-up;
 * the model clears it, as the M looks at cpu_active first.
 *
 * Properties
 * ----------
 *  - safety: the M never binds to a CPU that is dying or not active,
 *    outside the online callback (the assertion at the bind); no deadlock
 *    (no invalid end state);
 *  - after the last online, the M's next pass binds it (the assertion at
 *    the end).
 *
 * Bug variants
 * ------------
 *   BUG_NOLOCK  the bind after the racy look alone (the code before
 *               wsx_m_bind(): wsx_m_take_p() bound the M as it took the
 *               P): a bind to a dying CPU (on PREEMPT_RT, a scheduler
 *               WARNING, seen on 6.12-rt).
 *   BUG_BLOCK   the blocking cpus_read_lock() instead of the trylock: the
 *               offline callback, holding the lock for write, waits for
 *               the M, which waits for the lock (a deadlock).
 *   BUG_NORECHECK  (with -DORPHAN) no second look under the lock: a look
 *               made before a whole offline binds to a CPU that is down.
 */

#ifndef NCYCLES
#define NCYCLES 2
#endif

bool writer;		/* cpu_hotplug_lock: a writer is there */
byte readers;		/* cpu_hotplug_lock: readers inside */
bool cpu_active = true;	/* cpu_active() */
bool dying;		/* cpu_dying() */
bool want_online = true;	/* p->want_online (H) */
bool m_online = true;		/* p->m_online (M) */
bool bound;	/* the M's mask is the P's CPU (nr_cpus_allowed 1, on it) */
bool done;		/* the hotplug operations are over */

inline write_lock()
{
	writer = true;
	readers == 0
}

proctype hotplug()
{
	byte n;

	do
	:: n < NCYCLES ->
		/* _cpu_down */
		write_lock();
		dying = true;
		cpu_active = false;		/* sched_cpu_deactivate */
#ifdef ORPHAN
		bound = false;			/* the M's affinity broken */
#else
		want_online = false;		/* wsx_p_stop() */
		!m_online;
#endif
		dying = false;			/* the CPU is down */
		writer = false;
		/* _cpu_up */
		write_lock();
#ifndef ORPHAN
		want_online = true;		/* wsx_sched_cpu_online() */
		m_online;
#endif
		cpu_active = true;		/* sched_cpu_activate */
		writer = false;
		n++
	:: else -> break
	od;
	done = true
}

/* wsx_m_bind() */
inline bind()
{
	if
	:: !cpu_active -> skip		/* the racy look */
	:: else ->
#ifdef BUG_NOLOCK
		assert(cpu_active && !dying);
		bound = true
#else
		if
		:: atomic { !writer -> readers++ };
			if
#ifdef BUG_NORECHECK
			:: true ->
#else
			:: cpu_active && !dying ->
#endif
				assert(cpu_active && !dying);
				bound = true
			:: else -> skip
			fi;
			readers--
#ifndef BUG_BLOCK
		:: atomic { writer -> skip }	/* a failed trylock */
#endif
		fi
#endif
	fi
}

active proctype m()
{
	run hotplug();
end_loop:
	do
	:: !want_online ->		/* wsx_m_stop_p() */
		bound = false;
		m_online = false;
		want_online;
		assert(writer && !dying);	/* the callback's CPU, coming up */
		bound = true;
		m_online = true
	:: want_online && !bound -> bind()
	:: want_online && bound -> bound = false	/* a blocking section */
	:: done -> break
	od;
	/* no hotplug under way: the next pass binds */
	bind();
	assert(bound)
}
