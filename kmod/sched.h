/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx scheduler internals: Ps, Ms and the global queues.  See the design
 * comments at the top of sched.c, queue.c and steal.c.
 *
 * Field tags:
 *   I: set at init, read-only afterwards.
 *   A: atomic or lock-free (llist, bitops, atomic64).
 *   L: under the lock of the global queue it belongs to (wsx_gqueue.lock).
 *   M: written only by the M itself.
 *   W: written by whoever cleared the P's idle bit, before the M's @woken
 *      is set with a store-release (see wsx_m_wake()).
 *   H: written by the CPU hotplug callbacks (the kernel serializes them),
 *      or by the module's exit where none can run (sched.c, "CPU hotplug").
 *   T: under the P's tlock (timers.c).
 *   K: under wsx_sched.mlock (handoff.c).
 *   N: the monitor's own, written only by its work (monitor.c, "Wasted
 *      cores"), which never runs twice at once.
 * and O, X: wsx_runq.h's (included below), which the per-P runq uses too;
 * the per-P counters are O (level_wakes W), read racily with READ_ONCE
 * (statistics).
 */
#ifndef _WSX_SCHED_H
#define _WSX_SCHED_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/hrtimer.h>
#include <linux/jump_label.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "wsx.h"
#include "job.h"
#include "topology.h"
#include "wsx_runq.h"

/* Consecutive runnext picks that share one schedule tick (see sched.c). */
#define WSX_RUNNEXT_CHAIN_MAX	64
/* Steals remembered per P for debugfs steal_log. */
#define WSX_STEAL_LOG		16

/*
 * Per-P counters, written by the owner (O) except @level_wakes (W) and
 * @stolen_from (A).
 */
struct wsx_pstats {
	u64 executed;		/* items run */
	u64 runnext_hits;	/* ... of which taken from runnext */
	u64 ring_puts;		/* items put in the runq (libwsx ABI name) */
	u64 spills;		/* runq overflows to the global queue */
	u64 spilled;		/* items moved by them (129 each) */
	u64 global_gets;	/* items taken from the global queue */
	u64 steal_attempts;	/* victims tried */
	u64 steals;		/* successful steals */
	u64 stolen;		/* items taken by them */
	u64 steal_cas_fails;	/* lost cmpxchg on a victim's head */
	u64 spins;		/* times the M became spinning */
	u64 parks;		/* times the M parked */
	u64 wakeups;		/* times it was woken from park */
	u64 item_parks;		/* continuations parked by its items */
	u64 ready_runnext;	/* ... readied by its items, into its runnext */
	u64 ready_displaced;	/* ... of those, which moved runnext's item */
	u64 job_adds;		/* spawns that counted their item: an atomic */
	u64 job_returns;	/* credits its M gave back: an atomic each */
	u64 level_steals[WSX_NR_LEVELS]; /* steals by victim distance */
	u64 level_stolen[WSX_NR_LEVELS]; /* items taken by them */
	/* W: times woken for work, by its distance from the search's start */
	u64 level_wakes[WSX_NR_LEVELS];
	atomic64_t stolen_from;	/* items thieves took from this P */
	atomic64_t long_items;	/* items the monitor found running long */
	atomic64_t rescued;	/* ... whose P it handed to another M */
};

/* How an item reached the P that runs it: the latency histograms' kinds. */
enum wsx_origin {
	WSX_ORIGIN_LOCAL,	/* spawned there, or queued from its CPU */
	WSX_ORIGIN_REMOTE,	/* queued on it from another CPU */
	WSX_ORIGIN_GLOBAL,	/* through the global queue */
	WSX_ORIGIN_STOLEN,	/* queued on another P, moved by a thief */
	WSX_NR_ORIGINS,
};

/* log2 buckets: bucket b counts values v with fls64(v) == b */
#define WSX_LAT_BUCKETS		64
#define WSX_STEAL_BUCKETS	10	/* 1, 2-3, ... 256-511 */

/* Per-P histograms, written by the owner (O). */
struct wsx_phist {
	u64 latency[WSX_NR_ORIGINS][WSX_LAT_BUCKETS];	/* queued to started, ns */
	u64 steal_size[WSX_STEAL_BUCKETS];		/* items per steal */
	u64 *steals_from;		/* I (array): steals from each P */
};

/* One successful steal, for debugfs steal_log. */
struct wsx_steal_rec {
	u32 victim;		/* P stolen from */
	u32 seen;	/* its runq (or inbox) length at the snapshot */
	u32 taken;		/* items taken */
	u32 level;		/* enum wsx_level of the victim */
};

/*
 * The monitor's last look at one place where items wait (a P's runq or
 * inbox, a global queue): a count of the items that left it, and how many
 * were in line then (the inbox: 1 if not empty; monitor.c, "Wasted
 * cores").
 */
struct wsx_waste_seen {
	u32 out;	/* modulo 2^32: only its growth between looks counts */
	u32 depth;
};

/* The places the wasted-cores check names (tracepoint wsx_wasted). */
enum wsx_waste_place {
	WSX_WASTE_RUNQ,		/* a P's runq */
	WSX_WASTE_INBOX,	/* a P's inbox */
	WSX_WASTE_GLOBAL,	/* a global queue */
};

/* A thief's victims, nearest group first: see topology.c. */
struct wsx_victims {
	u16 *order;		/* I: the other Ps, group by group */
	u16 *group_end;		/* I: each group's end in @order */
	u8 *level;		/* I: enum wsx_level of each P from this one */
	unsigned int ngroups;	/* I */
};

struct wsx_m;

struct wsx_p {
	unsigned int id;			/* I */
	unsigned int cpu;			/* I */
	unsigned int node;		/* I: index of its CPU's node */
	struct wsx_victims victims;		/* I */
	struct wsx_m *m;		/* its holder: see handoff.c */

	struct wsx_runq runq;			/* see wsx_runq.h */
	struct wsx_item *runnext ____cacheline_aligned_in_smp; /* X */
	struct llist_head inbox;		/* A: items queued from outside */
	atomic_t inbox_len;			/* A: approximate */
	atomic_t inbox_takes;	/* A: the inbox emptied, for the monitor */
	struct list_head backlog;		/* O: inbox items, in order */
	u32 backlog_len;	/* O, others READ_ONCE (wsx_p_depth()) */

	bool want_online;	/* H: submitters check it under RCU */
	bool m_online;		/* M: the M's acknowledgment */
	/* H: the last online P, its CPU gone: it runs anywhere (sched.c) */
	bool orphan;
	wait_queue_head_t ack_wq;		/* hotplug waits for the ack */

	spinlock_t tlock;			/* T: the delayed items */
	struct timerqueue_head timers;		/* T: by due time */
	unsigned int ntimers;			/* T, read racily */
	/*
	 * T: the item a paused flush resumes at; a pop that takes it moves
	 * it on to the next (NULL: none left), see timers.c's "Bounds"
	 */
	struct timerqueue_node *tcursor;
	struct hrtimer hrt;			/* armed for the earliest */

	u32 schedtick;				/* O */
	/*
	 * O: schedule ticks since the last global_tick check, 0 .. global_tick
	 * - 1 (schedtick % global_tick until schedtick wraps), kept without a
	 * division per item
	 */
	u32 tick_phase;
	u32 gq_next;	/* O: offset of the node a tick check saw last */
	u32 runnext_chain;			/* O */
	struct wsx_item *cur;			/* O: the item running */
	u64 cur_runtime;		/* O: its M's CPU time when it started */
	u32 cur_seq;		/* O: items started; store-release */
	u32 mon_seq;			/* the monitor's: cur_seq it flagged */
	u32 idle_gen;		/* K: times made idle, read racily (monitor) */
	/* at the monitor's last look: idle or not, idle_gen, runq, inbox */
	bool seen_idle;				/* N */
	u32 seen_idle_gen;			/* N */
	struct wsx_waste_seen seen_runq;	/* N */
	struct wsx_waste_seen seen_inbox;	/* N */

	struct wsx_pstats stats ____cacheline_aligned_in_smp;
	struct wsx_phist hist;
	struct wsx_steal_rec steal_log[WSX_STEAL_LOG];	/* O */
	u32 steal_log_pos;				/* O */
};

struct wsx_m {
	unsigned int id;			/* I */
	struct task_struct *task;		/* I */
	struct wsx_p *p;			/* M: the P it holds, or NULL */
	struct wsx_p *lastp;			/* M: the P it held last */
	struct wsx_p *nextp;			/* K: a P handed to it */
	bool spinning;				/* M, read racily by schedtrace */
	bool parked;				/* M */
	bool blocked;				/* M: in a blocking section */
	bool woken;			/* W/M: release by waker, acquire by M */
	bool wake_spinning;		/* W: the waker counted it spinning */
	bool lose_p;			/* W/M: the waker took its P away */
	/*
	 * The monitor's request to hand the P off, naming the item by the
	 * P and that P's cur_seq: set by the monitor (P and seq, then the
	 * flag with a store-release), consumed by the M with an xchg; the M
	 * honours it only while that item runs.
	 */
	bool handoff_req;
	struct wsx_p *handoff_p;
	u32 handoff_seq;
	struct list_head node;			/* K: in mpool or mwait */
	struct list_head all;			/* K: in mall */
	unsigned long idle_since;		/* K: jiffies, entering mpool */
	wait_queue_head_t wq;
	u32 rnd;				/* M: steal-order PRNG */
	/* M: wsx_sources_note() before its last look at the sources */
	int source_note;
	struct wsx_job_credit credit;	/* M: job counts it holds (job.c) */
};

/*
 * A global queue: the only one, or one NUMA node's (see queue.c, "Where
 * runnable items live").
 */
struct wsx_gqueue {
	spinlock_t lock;			/* the L: fields below */
	struct list_head items;			/* L */
	unsigned int len;			/* L, read racily */
	u64 puts;				/* L */
	u64 gets;				/* L */
	struct wsx_waste_seen seen;		/* N */
} ____cacheline_aligned_in_smp;

struct wsx_sched_params {
	unsigned int nprocs;
	enum wsx_steal_policy steal_policy;
	enum wsx_steal_topology steal_topology;
	unsigned int global_tick;
	unsigned int steal_tries;
	unsigned int max_threads;
};

struct wsx_sched {
	unsigned int nprocs;			/* I */
	enum wsx_steal_policy steal_policy;	/* I */
	enum wsx_steal_topology steal_topology;	/* I */
	unsigned int global_tick;		/* I */
	unsigned int steal_tries;		/* I */
	unsigned int max_threads;		/* I */
	struct wsx_p **ps;			/* I */
	struct wsx_p **cpu_p;			/* I: P of each CPU, or NULL */
	/* I: the strides coprime with each group size that occurs */
	unsigned int **coprimes;
	unsigned int *ncoprimes;		/* I: their number */
	unsigned int nnodes;			/* I: nodes with a P */
	int *node_ids;				/* I: kernel node of each */
	unsigned int *node_near;	/* I: nnodes x nnodes, see topology.c */
	u64 start_ns;				/* I */

	/* I: one per node index (steal_topology=numa, several nodes), or 1 */
	struct wsx_gqueue *gq;
	unsigned int ngq;			/* I */

	spinlock_t mlock;			/* the K: fields */
	struct list_head mall;			/* K: every M */
	struct list_head mpool;			/* K: Ms without a P, idle */
	struct list_head mwait;			/* K: Ms waiting for a P */
	atomic_t nmwait;		/* A: their number, written under K */
	unsigned int nthreads;			/* K */
	unsigned int nthreads_max;		/* K: high-water mark */
	unsigned int next_m_id;			/* K */
	u64 threads_started;			/* K */
	u64 threads_exited;			/* K */
	atomic64_t handoffs;			/* A */
	atomic_t nblocked;			/* A: Ms in blocking sections */

	atomic_t nmspinning ____cacheline_aligned_in_smp; /* A */
	atomic_t npidle;			/* A */
	atomic_t nponline;			/* A */
	/*
	 * A: set by the exit before its teardown (which stops the last online
	 * P too), read by the offline callbacks, which may run meanwhile
	 */
	bool unloading;
	unsigned long *pidle;			/* A: bit per idle P */
};

extern struct wsx_sched wsx_sched;

/* sched.c, for queue.c and handoff.c */
int wsx_m_main(void *arg);
struct wsx_m *wsx_current_m(void);
bool wsx_pidle_claim(struct wsx_p *p);
struct wsx_p *wsx_pidle_get(const struct wsx_p *near,
			    const struct wsx_p *last);
void wsx_m_wake(struct wsx_m *m, bool spinning);
struct wsx_p *wsx_p_busy_here(void);
void __wsx_wakep(const struct wsx_p *near, const struct wsx_p *last);
void wsx_wake_p(struct wsx_p *p, bool caller_runs);

int wsx_sched_init(const struct wsx_sched_params *params);
void wsx_sched_exit(void);
void wsx_sched_unload(void);
void wsx_sched_stop_orphans(void);
int wsx_sched_cpu_online(unsigned int cpu);
int wsx_sched_cpu_offline(unsigned int cpu);

void wsx_sched_reset_stats(void);

bool wsx_p_is_online(unsigned int id);

/* Module parameter stats=0 turns the per-P counters off (benchmarks). */
DECLARE_STATIC_KEY_TRUE(wsx_stats_on);

#define wsx_stat_add(p, field, n)					\
	do {								\
		if (static_branch_likely(&wsx_stats_on)) {		\
			u64 *__stat = &(p)->stats.field;		\
									\
			/* the reset's zero may land meanwhile */	\
			WRITE_ONCE(*__stat, READ_ONCE(*__stat) + (n));	\
		}							\
	} while (0)
#define wsx_stat_inc(p, field)	wsx_stat_add(p, field, 1)

/*
 * wsx_wakep_ordered - wsx_wakep() for a queuer whose last step, the one
 * that made the work visible, was a value-returning atomic RMW that
 * succeeded (fully ordered): it stands for wsx_wakep()'s barrier
 * (wsx_put_next()'s xchg() into an empty runnext:
 * litmus/runnext-put-wakep-park-sb).  @near and @last as for wsx_wakep().
 * Inline, as a cheap guard: a queuer asks after every spawn, and most
 * find no P idle or an M spinning.
 */
static inline void wsx_wakep_ordered(const struct wsx_p *near,
				     const struct wsx_p *last)
{
	if (atomic_read(&wsx_sched.npidle) &&
	    !atomic_read(&wsx_sched.nmspinning))
		__wsx_wakep(near, last);
}

/**
 * wsx_wakep - after queueing work anyone may take: wake an idle P's M as a
 * spinning M, unless an M is spinning already (it will find the work)
 * @near:	the P nearest the work, where the search starts
 * @last:	a P to try only after every other, or NULL
 *
 * Call it once the work is where others look.  Its full barrier pairs
 * with wsx_m_park()'s (the lost-wakeup handshake, "Spinning and parking"):
 * either this sees the parker's P idle or the parker sees the work.  @near
 * and @last as for wsx_pidle_get(), which picks the P.
 */
static inline void wsx_wakep(const struct wsx_p *near,
			     const struct wsx_p *last)
{
	/* StoreLoad: the queued item before the reads below (litmus/wakep-park-sb) */
	smp_mb();
	wsx_wakep_ordered(near, last);
}

/* The P of this CPU, or NULL (a CPU beyond nprocs, or offline at load). */
static inline struct wsx_p *wsx_p_here(void)
{
	return wsx_sched.cpu_p[raw_smp_processor_id()];
}

#endif /* _WSX_SCHED_H */
