// SPDX-License-Identifier: GPL-2.0
/*
 * wsx handoff: Ms without a P, and blocking sections.
 *
 * Go's entersyscallblock/handoffp in wsx's terms.  An item about to block
 * calls wsx_block_begin(): its M hands the P it holds to a spare M - one
 * from the pool of idle Ms without a P, or a new kthread while there are
 * fewer than max_threads - and blocks without a P, so the P keeps running
 * its queue.  wsx_block_end() takes a P back: the old one if it is idle,
 * else any idle P, else the M waits in mwait until an M parking its P hands
 * that P over instead of idling it, or, under sustained load where no P runs
 * dry, until a busy P's holder yields its P at its next global_tick-th
 * schedule tick (wsx_m_yield_p()): the wait is bounded by global_tick
 * schedule ticks of any running P.  So the number of items running outside
 * blocking sections never exceeds the number of Ps.  With no spare M to be
 * had (max_threads reached) the M keeps its P while it blocks, and the P's
 * queue waits (thieves may still take from its runq).
 *
 * Taking an idle P from the M parked on it uses the P's idle bit as every
 * wakeup does (sched.c): whoever clears the bit owns the parked M's wakeup;
 * here it sets the M's lose_p before waking it, and the M goes to the pool.
 *
 * Every P always has exactly one holder, p->m, changed only by the one who
 * hands the P over: the holder itself (handoff, or giving its P to a waiting
 * M), or whoever cleared the P's idle bit.  Setting a P idle and looking for
 * an idle P to take happen under wsx_sched.mlock together with mwait, so an
 * M that starts waiting for a P cannot miss one that is being idled.
 *
 * Pool Ms beyond one per P exit after idle_thread_ms (default 5 s, as
 * io-wq's workers): a reaper work stops them.
 *
 * Affinity.  An M holding a P runs bound to the P's CPU; an M in a
 * blocking section, and the holder of a stopped P or of an orphan (sched.c,
 * "CPU hotplug"), runs anywhere.  The M sets its own mask, and the kernel
 * widens it when the CPU goes down under it, so the M keeps no record of
 * what it set: it looks at its mask (current->nr_cpus_allowed, one CPU,
 * the one it runs on).  Taking a P does not bind; the M binds itself with
 * wsx_m_bind() at each pass of wsx_find_runnable() that finds it unbound,
 * and at the end of a blocking section, synchronized with CPU hotplug.
 * A CPU going down is "dying" from the start of the kernel's _cpu_down,
 * and still online and active until its deactivation: a task bound to it
 * then is accepted, but the kernel may fail to move it there and it runs
 * outside its mask (a scheduler WARNING on PREEMPT_RT, seen on 6.12-rt).
 * The kernel brings CPUs up and down, and sets and clears dying, under
 * cpu_hotplug_lock held for write, so wsx_m_bind() binds only under
 * cpus_read_trylock(), to an active CPU that is not dying.  Never the
 * blocking cpus_read_lock(): a hotplug callback holding the lock for
 * write waits for the P's holder (wsx_p_stop() in sched.c), which would
 * wait for the callback; and a writer that only waits for the lock shuts
 * new readers out, while a reader may be waiting for this M (the module's
 * load: cpuhp_setup_state() holds the lock for read while the online
 * callbacks wait for the Ms).  When the bind cannot be made now, an
 * M bound to another CPU unbinds (a wider mask needs no lock), so that the
 * P's items do not share another P's CPU meanwhile; it tries again at its
 * next pass, so the holder of an orphan binds itself to the CPU when the
 * CPU is back.  The one bind outside it is the online callback's:
 * wsx_m_stop_p() binds the holder to the callback's own CPU, coming up,
 * while the callback holds the lock and waits for it.  models/bind.pml
 * checks this.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "fault.h"
#include "handoff.h"
#include "sched.h"
#include "wsx_trace.h"

unsigned int wsx_idle_thread_ms = 5000;
module_param_named(idle_thread_ms, wsx_idle_thread_ms, uint, 0644);
MODULE_PARM_DESC(idle_thread_ms, "Spare Ms beyond one per P exit after this long idle");

static void wsx_reaper_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(wsx_reaper_work, wsx_reaper_fn);

/* Let the calling M run on any CPU (see "Affinity"); needs no lock. */
void wsx_m_unbind(void)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/* Under the hotplug lock: bind the current M to @cpu if it can be. */
static bool wsx_m_bind_locked(unsigned int cpu)
{
	/* dying too: hotplug's debugfs target can stop a CPU half-way down */
	if (!cpu_active(cpu) || cpu_dying(cpu))
		return false;
	if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		return false;
	/* the kernel moved us there before returning: it could not if dying */
	if (raw_smp_processor_id() != cpu)
		wsx_count(WSX_COUNT_BIND_MISSED);
	return true;
}

/**
 * wsx_m_bind - bind the current M to its P's CPU, if it is not
 * @m:	the current M, holding a P
 *
 * When it cannot be done now (hotplug under way, the CPU not active), an
 * M bound to another CPU unbinds, and a later call tries again (see
 * "Affinity").
 *
 * Context: process context, the M itself; may sleep.
 */
void wsx_m_bind(struct wsx_m *m)
{
	unsigned int cpu = m->p->cpu;
	/* as in wsx_m_bound(): the kernel changes it under us */
	bool one = data_race(current->nr_cpus_allowed) == 1;
	bool bound;

	if (likely(wsx_m_bound(m)))
		return;
	/* racy, a cheap guard: an orphan's holder passes here every time */
	if (cpu_active(cpu)) {
		wsx_fault_sleep(WSX_FAULT_BIND_BEFORE_LOCK);
		if (cpus_read_trylock()) {
			bound = wsx_m_bind_locked(cpu);
			cpus_read_unlock();
			if (bound)
				return;
		}
	}
	if (one)
		wsx_m_unbind();
}

/*
 * The M starts holding @p (the M itself, or its creator before it runs);
 * the M binds itself to the P's CPU at its next pass (see "Affinity").
 */
static void wsx_m_take_p(struct wsx_m *m, struct wsx_p *p)
{
	WRITE_ONCE(m->p, p);
	m->lastp = p;
	/*
	 * Full barrier: whoever made us p->m did so before this; our next
	 * read of p->want_online (wsx_find_runnable()) comes after.  Pairs
	 * with smp_mb() in wsx_p_stop(), which writes want_online
	 * and then reads p->m: either it wakes us, or we see the P going
	 * offline (store buffering, fenced on both sides;
	 * litmus/m-take-p-cpu-offline-sb).
	 */
	smp_mb();
}

/* Under mlock: hand @p to @to, an M in the pool or in mwait. */
static void wsx_m_give(struct wsx_m *to, struct wsx_p *p)
{
	lockdep_assert_held(&wsx_sched.mlock);
	list_del_init(&to->node);
	WRITE_ONCE(p->m, to);
	WRITE_ONCE(to->nextp, p);
	wake_up(&to->wq);
}

/* Under mlock: hand @m's P to the first M in mwait, if any; true if so. */
static bool wsx_m_give_waiter(struct wsx_m *m)
{
	struct wsx_m *waiter;

	lockdep_assert_held(&wsx_sched.mlock);
	waiter = list_first_entry_or_null(&wsx_sched.mwait, struct wsx_m,
					  node);
	if (!waiter)
		return false;
	atomic_dec(&wsx_sched.nmwait);
	m->lastp = m->p;
	WRITE_ONCE(m->p, NULL);
	wsx_m_give(waiter, m->lastp);
	return true;
}

/**
 * wsx_m_create - create a new M holding a P, not yet running
 * @p:		the P it holds from the start
 * @extra:	an M beyond one per P: refused at max_threads
 *
 * Start it with wsx_m_start().
 *
 * Return: the M, or NULL when out of memory or at max_threads.  Sleeps.
 */
struct wsx_m *wsx_m_create(struct wsx_p *p, bool extra)
{
	struct wsx_m *m;

	m = kzalloc_node(sizeof(*m), GFP_KERNEL, cpu_to_node(p->cpu));
	if (!m)
		return NULL;
	spin_lock(&wsx_sched.mlock);
	if (extra && wsx_sched.nthreads >= wsx_sched.max_threads) {
		spin_unlock(&wsx_sched.mlock);
		kfree(m);
		return NULL;
	}
	m->id = wsx_sched.next_m_id++;
	wsx_sched.nthreads++;	/* reserved: undone below on failure */
	spin_unlock(&wsx_sched.mlock);

	m->rnd = get_random_u32() | 1;
	INIT_LIST_HEAD(&m->node);
	init_waitqueue_head(&m->wq);
	m->task = kthread_create_on_node(wsx_m_main, m, cpu_to_node(p->cpu),
					 "wsx/%u", m->id);
	spin_lock(&wsx_sched.mlock);
	if (IS_ERR(m->task)) {
		wsx_sched.nthreads--;
		spin_unlock(&wsx_sched.mlock);
		kfree(m);
		return NULL;
	}
	list_add_tail(&m->all, &wsx_sched.mall);
	wsx_sched.threads_started++;
	wsx_sched.nthreads_max = max(wsx_sched.nthreads_max,
				     wsx_sched.nthreads);
	spin_unlock(&wsx_sched.mlock);
	WRITE_ONCE(p->m, m);
	wsx_m_take_p(m, p);
	return m;
}

/**
 * wsx_m_start - let an M created by wsx_m_create() run
 * @m:	the M; it may give its P up and, if a spare, exit at once
 */
void wsx_m_start(struct wsx_m *m)
{
	wake_up_process(m->task);
	/* a hint only: the reaper itself looks again under mlock */
	if (data_race(wsx_sched.nthreads) > wsx_sched.nprocs)
		mod_delayed_work(system_wq, &wsx_reaper_work,
				 msecs_to_jiffies(READ_ONCE(wsx_idle_thread_ms)));
}

/* Hand @p to a spare M: one from the pool, else a new one.  Sleeps. */
static struct wsx_m *wsx_p_to_spare(struct wsx_p *p, unsigned int *id)
{
	struct wsx_m *m;

	spin_lock(&wsx_sched.mlock);
	m = list_first_entry_or_null(&wsx_sched.mpool, struct wsx_m, node);
	if (m) {
		*id = m->id;
		wsx_m_give(m, p);
	}
	spin_unlock(&wsx_sched.mlock);
	if (!m) {
		m = wsx_m_create(p, true);
		if (m) {
			*id = m->id;
			wsx_m_start(m);
		}
	}
	return m;
}

/**
 * wsx_m_pool_wait - an M without a P waits in the pool for one
 * @m:	the M
 *
 * Return: true holding a P, false when the M must exit.
 */
bool wsx_m_pool_wait(struct wsx_m *m)
{
	struct wsx_p *p;

	spin_lock(&wsx_sched.mlock);
	if (!m->nextp) {
		m->idle_since = jiffies;
		list_add(&m->node, &wsx_sched.mpool);
	}
	spin_unlock(&wsx_sched.mlock);
	wait_event_idle(m->wq, READ_ONCE(m->nextp) || kthread_should_stop());
	spin_lock(&wsx_sched.mlock);
	p = m->nextp;
	m->nextp = NULL;
	list_del_init(&m->node);
	spin_unlock(&wsx_sched.mlock);
	if (!p)
		return false;
	wsx_m_take_p(m, p);
	return true;
}

/**
 * wsx_m_idle_p - a parking M makes its P idle, or gives it to an M waiting
 * for one
 * @m:	the M, holding a P with nothing to run
 *
 * Return: true when the P went to a waiting M (@m holds none any more);
 * false when the P is now idle, its idle bit set for wakers to claim.
 */
bool wsx_m_idle_p(struct wsx_m *m)
{
	struct wsx_p *p = m->p;
	bool given;

	spin_lock(&wsx_sched.mlock);
	given = wsx_m_give_waiter(m);
	if (!given) {
		/* count first, so whoever claims the bit finds npidle > 0 */
		atomic_inc(&wsx_sched.npidle);
		/* a new idle period, for the monitor's wasted-cores check */
		WRITE_ONCE(p->idle_gen, p->idle_gen + 1);
		/* set_bit() is unordered: the count before the bit
		 * (litmus/pidle-idle-claim-count)
		 */
		smp_mb__before_atomic();
		set_bit(p->id, wsx_sched.pidle);
	}
	spin_unlock(&wsx_sched.mlock);
	return given;
}

/**
 * wsx_m_yield_p - a busy P's holder gives its P to an M waiting for one
 * @m:	the M, holding a P, at a schedule point (between items, not spinning)
 *
 * Called every global_tick-th schedule tick (wsx_find_runnable()): an M
 * that left a blocking section while every P was busy waits in mwait, and
 * no P runs dry under sustained load to hand it over (wsx_m_idle_p()).  So
 * a waiting M gets a P within global_tick schedule ticks of any running P,
 * as Go's exitsyscall puts its goroutine on the global queue, which the
 * 61-tick check bounds.  The yielding M goes to the pool.
 *
 * Return: true when the P went to a waiting M (@m holds none any more).
 */
bool wsx_m_yield_p(struct wsx_m *m)
{
	bool given;

	if (!atomic_read(&wsx_sched.nmwait))
		return false;
	spin_lock(&wsx_sched.mlock);
	given = wsx_m_give_waiter(m);
	spin_unlock(&wsx_sched.mlock);
	return given;
}

/**
 * wsx_pidle_reclaim - a parking or woken M takes its own P's idle bit back
 * @m:	the M, holding a P it made idle
 *
 * Under mlock, against wsx_p_take_idle(): once an M leaving a blocking
 * section took the P, the P's idle bit may already be its new holder's, and
 * must not be taken by the old one.
 *
 * Return: true if @m cleared the bit and keeps the P running.
 */
bool wsx_pidle_reclaim(struct wsx_m *m)
{
	bool ok;

	spin_lock(&wsx_sched.mlock);
	ok = READ_ONCE(m->p->m) == m && wsx_pidle_claim(m->p);
	spin_unlock(&wsx_sched.mlock);
	return ok;
}

/*
 * Under mlock: claim an idle P, @prefer first, then the nearest to it, from
 * the M parked on it.
 */
static struct wsx_p *wsx_p_take_idle(struct wsx_m *m, struct wsx_p *prefer)
{
	struct wsx_p *p;

	lockdep_assert_held(&wsx_sched.mlock);
	p = wsx_pidle_get(prefer, NULL);
	if (!p)
		return NULL;
	WRITE_ONCE(p->m->lose_p, true);	/* read after its woken, below */
	wsx_m_wake(p->m, false);
	WRITE_ONCE(p->m, m);
	return p;
}

/**
 * wsx_m_block_end - leave a blocking section: get a P back
 * @m:	the M, in a blocking section
 *
 * Sleeps until a P is available when none is idle.
 */
void wsx_m_block_end(struct wsx_m *m)
{
	struct wsx_p *p;

	WRITE_ONCE(m->blocked, false);	/* scheddetail reads it racily */
	atomic_dec(&wsx_sched.nblocked);
	if (m->p)
		return;		/* it kept its P: no spare M was to be had */
	spin_lock(&wsx_sched.mlock);
	p = wsx_p_take_idle(m, m->lastp);
	if (!p) {
		list_add_tail(&m->node, &wsx_sched.mwait);
		atomic_inc(&wsx_sched.nmwait);
	}
	spin_unlock(&wsx_sched.mlock);
	if (!p) {
		wait_event_idle(m->wq, READ_ONCE(m->nextp));
		spin_lock(&wsx_sched.mlock);
		p = m->nextp;
		m->nextp = NULL;
		spin_unlock(&wsx_sched.mlock);
	}
	wsx_m_take_p(m, p);
	/* the rest of the item runs on the P's CPU (see "Affinity") */
	wsx_m_bind(m);
}

/**
 * wsx_block_begin - an item is about to block: hand its P to another M
 *
 * Call from a running item before something that sleeps for long (I/O, a
 * mutex, msleep); the P's queue keeps running on another M meanwhile.
 * Pair with wsx_block_end().  Outside an item, or nested, it does nothing.
 * Sleeps (it may start a kthread).
 */
void wsx_block_begin(void)
{
	struct wsx_m *m = wsx_current_m(), *spare;
	unsigned int spare_id;
	struct wsx_p *p;

	might_sleep();
	if (!m || !m->p || m->blocked)
		return;
	p = m->p;
	WRITE_ONCE(m->blocked, true);	/* scheddetail reads it racily */
	atomic_inc(&wsx_sched.nblocked);
	/* from here on the P is not this M's: it must not touch it */
	WRITE_ONCE(p->cur, NULL);	/* the monitor must not flag it again */
	m->lastp = p;
	WRITE_ONCE(m->p, NULL);
	spare = wsx_p_to_spare(p, &spare_id);
	if (!spare) {
		/* no M to be had: keep the P, its queue waits */
		WRITE_ONCE(m->p, p);
		return;
	}
	wsx_m_unbind();
	atomic64_inc(&wsx_sched.handoffs);
	/* the spare may have given the P up and exited by now: not spare->id */
	trace_wsx_handoff(m->id, p->id, spare_id);
}
EXPORT_SYMBOL_GPL(wsx_block_begin);

/**
 * wsx_block_end - the blocking section started by wsx_block_begin() is over
 *
 * Takes a P back: the one it had if idle, else any idle P, else it waits
 * for one.  An item that returns inside a blocking section has it ended
 * for it.  Sleeps.
 */
void wsx_block_end(void)
{
	struct wsx_m *m = wsx_current_m();

	if (m && m->blocked)
		wsx_m_block_end(m);
}
EXPORT_SYMBOL_GPL(wsx_block_end);

/**
 * wsx_cond_handoff - let the monitor move this item's P to another M
 *
 * Long-running items call it now and then (the built-in SPIN does, every
 * ms, beside cond_resched()): when the monitor found the item running for
 * longer than long_item_ms, the item's M hands its P to another M, as for
 * a blocking section that lasts until the item returns, and the items
 * queued behind it run meanwhile.  May sleep (it may start a kthread).
 */
void wsx_cond_handoff(void)
{
	struct wsx_m *m = wsx_current_m();
	struct wsx_p *p;

	might_sleep();
	/*
	 * Consume the request in one step (a fully ordered xchg, which also
	 * pairs with the monitor's release: handoff_p and handoff_seq below
	 * are the request's; litmus/monitor-check-handoff-mp), so that a new
	 * one is never cleared unseen.
	 */
	if (!m || !READ_ONCE(m->handoff_req) || !xchg(&m->handoff_req, false))
		return;
	p = m->p;
	/*
	 * The request names the item the monitor saw running long, by its P
	 * and seq; one for an item that returned before it got here, or that
	 * the monitor charged to this M after a handoff, is stale.
	 */
	if (!p || m->blocked || READ_ONCE(m->handoff_p) != p ||
	    READ_ONCE(m->handoff_seq) != p->cur_seq)
		return;
	wsx_block_begin();
	if (!m->p)
		atomic64_inc(&p->stats.rescued);
}
EXPORT_SYMBOL_GPL(wsx_cond_handoff);

/* Stop spare Ms idle for longer than idle_thread_ms, keeping one per P. */
static void wsx_reaper_fn(struct work_struct *work)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(wsx_idle_thread_ms));
	struct wsx_m *m, *tmp;
	bool again = false;
	LIST_HEAD(doomed);

	spin_lock(&wsx_sched.mlock);
	list_for_each_entry_safe_reverse(m, tmp, &wsx_sched.mpool, node) {
		if (wsx_sched.nthreads <= wsx_sched.nprocs)
			break;
		if (time_before(jiffies, m->idle_since + idle)) {
			again = true;
			continue;
		}
		list_del_init(&m->node);
		list_move(&m->all, &doomed);
		wsx_sched.nthreads--;
		wsx_sched.threads_exited++;
	}
	again |= wsx_sched.nthreads > wsx_sched.nprocs;
	spin_unlock(&wsx_sched.mlock);
	list_for_each_entry(m, &doomed, all)
		kthread_stop(m->task);
	/*
	 * the monitor, hotplug and wsx_current_m() read a P's holder under
	 * RCU: wait for them
	 */
	synchronize_rcu();
	list_for_each_entry_safe(m, tmp, &doomed, all)
		kfree(m);
	if (again)
		schedule_delayed_work(&wsx_reaper_work, idle ?: 1);
}

/**
 * wsx_m_destroy_all - stop and free every M (module exit, after every P
 * was stopped, or a failed init)
 */
void wsx_m_destroy_all(void)
{
	struct wsx_m *m, *tmp;
	LIST_HEAD(all);

	cancel_delayed_work_sync(&wsx_reaper_work);
	spin_lock(&wsx_sched.mlock);
	list_splice_init(&wsx_sched.mall, &all);
	spin_unlock(&wsx_sched.mlock);
	list_for_each_entry_safe(m, tmp, &all, all) {
		kthread_stop(m->task);
		kfree(m);
	}
}
