/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxtrace: the wsx tracepoints as tracefs prints them, parsed into a
 * timeline (items with their queue, start and end, steals, spills, parks,
 * handoffs, continuations parked and readied),
 * with the kernel's sched_switch events beside it (what each CPU ran),
 * and that timeline written as Chrome/Perfetto trace-event JSON or as a
 * self-contained SVG.  No system calls: `wsxctl trace` feeds it the text of
 * tracefs's "trace" file, the host tests a captured sample.
 */
#ifndef WSXTRACE_H
#define WSXTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct wt_waste;

enum wt_type {
	WT_QUEUE, WT_START, WT_END, WT_STEAL, WT_SPILL, WT_PARK, WT_UNPARK,
	WT_HANDOFF, WT_ITEM_PARK, WT_ITEM_READY, WT_NR_TYPES
};

/* One tracepoint hit.  Fields the event does not have stay 0. */
struct wt_event {
	uint64_t ts;		/* ns, as the trace clock gives it */
	int cpu;
	enum wt_type type;
	uint64_t item;		/* the (hashed) item pointer */
	int p, m, from, stolen, status;
	int thief, victim;
	int to;			/* wsx_handoff: M @m handed P @p to M @to */
	int readier;		/* wsx_item_ready: the readier's CPU (cpu=) */
	unsigned int count;
};

/*
 * One run of an item: an item pointer between its queue and end events
 * (pointers are reused once an item ended).  An item started before the
 * trace began has no queue event; one still running at its end has no end
 * event (its slice is cut at the trace's last timestamp).
 */
struct wt_item {
	uint64_t item;
	unsigned int seq;	/* 1, 2, ... in queue (or start) order */
	bool queued, started, ended;
	uint64_t q_ts;
	int q_p;		/* queued on this P, -1: the global queue */
	uint64_t s_ts, e_ts;
	int cpu, p, m, from, stolen, status;
	/*
	 * readied: this run is the first start of its pointer after a
	 * wsx_item_ready (the latest one), made at r_ts on CPU r_cpu
	 */
	bool readied;
	uint64_t r_ts;
	int r_cpu;
};

/*
 * A sched:sched_switch event: from @ts on, CPU @cpu ran the task named
 * comms[@comm] of its trace (the event's next_comm).
 */
struct wt_switch {
	uint64_t ts;
	int cpu;
	size_t comm;
};

struct wt_trace {
	struct wt_event *ev;
	size_t nev;
	/*
	 * The sched_switch events, in trace order, and the distinct task
	 * names they switched to.  They are not events of @ev: they change
	 * neither t0, t1, ncpus nor the counts below.
	 */
	struct wt_switch *sw;
	size_t nsw;
	char **comms;
	size_t ncomms;
	struct wt_item *items;
	size_t nitems;
	uint64_t t0, t1;	/* first and last timestamp */
	int ncpus;		/* highest CPU seen + 1 */
	int nprocs;		/* highest P seen + 1 */
	size_t count[WT_NR_TYPES];
	size_t stolen_starts;	/* start events with stolen=1 */
	size_t readied_starts;	/* item runs with readied set */
	size_t readied_here;	/* ... that started on the readier's CPU */
	size_t orphan_ends;	/* end events without a start in the trace */
	size_t skipped;		/* wsx_ lines that did not parse */
	uint64_t lost;		/* entries-written minus entries-in-buffer */
};

/*
 * wt_parse - parse the text of tracefs's "trace" file
 *
 * Lines that are not wsx events (comments, other tracers' events) are
 * skipped; wsx events that do not parse are counted in @t->skipped.
 * sched:sched_switch lines ("... sched_switch: prev_comm=... ==>
 * next_comm=NAME next_pid=N next_prio=N") go to @t->sw, NAME being all
 * between "next_comm=" and the last " next_pid=" (spaces included); one
 * that does not parse so is skipped, and not counted.
 * Returns 0, -ENOMEM, or -EINVAL (NULL arguments).  Free with wt_free().
 */
int wt_parse(const char *text, struct wt_trace *t);
void wt_free(struct wt_trace *t);

/* The P whose M runs on @cpu in the trace (the first seen), or -1. */
int wt_cpu_p(const struct wt_trace *t, int cpu);

/* The CPU lane of P @p: where its M ran, else @p itself. */
int wt_p_cpu(const struct wt_trace *t, int p);

/*
 * Chrome/Perfetto trace-event JSON ("JSON Object Format").  Process 1
 * "wsx"; thread 1 + cpu per CPU ("CPU <n> (P<p>)"), holding a complete
 * event (ph X, cat "item") per item run and cat "parked" slices; thread
 * 1001 + p per P ("P<p> queue"), holding a zero-length cat "queue" slice
 * per queue event, which a stolen item's flow (ph s, cat "steal") leaves
 * from; its ph f (bp e) binds to the item's slice.  Counters (ph C)
 * "depth P<p>" and "depth global": items by the queue they were queued on,
 * +1 at a queue event on the P, -1 at a start from it, -count at a spill
 * from it (to global); "runq P<p>" and "runq global": items by the run
 * queue holding them now (as schedtrace's depths): steals move their
 * count from victim to thief, a start takes 1 from the P that runs it.
 * Steals, spills and handoffs (cat "handoff": M m handed P p to M to, as
 * the monitor asks of an M stuck on a long item, or an M entering a
 * blocking section) are instant events (ph i) on the CPU that made them;
 * so are the parks of continuations (cat "park").  Each ready is a
 * zero-length cat "ready" slice on the readier's CPU track; the readied
 * run's flow (ph s, cat "ready", id its seq) leaves from it and binds
 * (ph f, bp e) to the slice of the run it readied (the pointer's first
 * start after the ready), as Go's execution tracer draws an unblock.  A
 * ready without a later start has its slice and no flow.
 * Returns 0 or -EIO.
 */
int wt_write_json(FILE *f, const struct wt_trace *t);

/*
 * The same timeline as a self-contained SVG: one lane per CPU, items as
 * boxes coloured by the P they were queued on, steal arrows from the queue
 * event to the start, ready arrows (green) from a wsx_item_ready on the
 * readier's lane to the start of the run it readied, the spans of @w
 * (wsxwaste.h: a P idle while an item waited) as red bands behind the
 * lanes, each handoff as a black mark on its CPU's lane (two Ms then share
 * the CPU: boxes that overlap there get rows of their own), the "runq"
 * depths per P below, a time axis and a legend.
 * Returns 0 or -EIO.
 */
int wt_write_svg(FILE *f, const struct wt_trace *t, const struct wt_waste *w,
		 const char *title);

#endif /* WSXTRACE_H */
