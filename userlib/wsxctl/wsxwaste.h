/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxwaste: the wasted-cores measure of a parsed trace, "idle P x ms while
 * items waited", from the item events alone (wsx_item_queue, _start and
 * _end).  A P is idle while no item it started is running (from the trace's
 * first event, or an item's end, to the next start on it); an item waits
 * from its queue event to its start (or the trace's last event).  With a
 * threshold T, at time t let I(t) be the Ps that have been idle more than T
 * and W(t) the items that have waited more than T; the measure is the
 * integral of min(I(t), W(t)) over the trace: the P-time for which a P
 * idled while an item it could have run waited, each waiting item matched
 * to at most one idle P.  Every queued item is counted as one an idle P
 * could take (the trace does not tell a runnext from a ring slot).
 *
 * Not seen: Ps that have no event in the trace, and items that were
 * running when the trace began (an end without a start): their P counts as
 * idle until its first start.
 *
 * With sched:sched_switch events in the trace, the idle P time is split by
 * what the P's CPU ran.  The time split is the measure's own, restricted as
 * it is by T: each P's idle periods longer than T, from T into the period
 * to its end, at the times when W(t) > 0 (an item had waited more than T).
 * Summed over the Ps that is the integral of I(t) over the times W(t) > 0,
 * each idle P counted: it can exceed the measure, min(I, W), when fewer
 * items waited than Ps idled.  A P's CPU is the one its wsx_item_start
 * events are recorded on (the [cpu] column of the events with its p=):
 * the CPU of its latest start at or before the moment, or of its first
 * start for moments before it (a P starts nothing while idle, so one CPU
 * per idle period).  A P never seen starting an item is not split.  What
 * ran on a CPU at a moment is the next_comm of its latest sched_switch at
 * or before it, unknown before its first: "swapper" or "swapper/..." is
 * nothing (the idle task), "wsx/..." an M (between items: spinning,
 * stealing, the executor's overhead), any other name another task (the M
 * could not run).
 */
#ifndef WSXWASTE_H
#define WSXWASTE_H

#include <stddef.h>
#include <stdint.h>

#include "wsxtrace.h"

/* A maximal interval in which min(I, W) > 0. */
struct wt_waste_span {
	uint64_t start, end;	/* ns, the trace's clock */
	unsigned int most;	/* the highest min(I, W) in it */
};

/* What a P's CPU ran while the P was counted idle. */
enum wt_ran {
	WT_RAN_IDLE,	/* nothing: the idle task, "swapper/..." */
	WT_RAN_M,	/* an M, "wsx/...", between items */
	WT_RAN_OTHER,	/* another task */
	WT_RAN_UNKNOWN,	/* before the CPU's first sched_switch */
	WT_RAN_NR
};

#define WT_TOP_COMMS	3

struct wt_waste_comm {
	const char *comm;	/* into the trace's comms */
	uint64_t ns;
};

struct wt_waste {
	uint64_t threshold_ns;	/* T */
	uint64_t wasted_ns;	/* the integral of min(I, W) */
	uint64_t p_time_ns;	/* Ps seen x the trace's span */
	struct wt_waste_span *spans;	/* in time order */
	size_t nspans;
	/*
	 * The longest span (the first of equals), and as it ended: the P idle
	 * longest and the item waiting longest, with how long.
	 */
	size_t longest;		/* index into spans; 0 without spans */
	int idle_p;
	uint64_t idle_ns;
	const struct wt_item *waiter;	/* into the trace's items */
	uint64_t wait_ns;
	/*
	 * The idle P time by what its CPU ran (see above), if the trace had
	 * sched_switch events (@split); the other tasks that ran longest,
	 * longest first (the first seen of equals), @ntop of them.
	 */
	bool split;
	uint64_t ran_ns[WT_RAN_NR];
	struct wt_waste_comm top[WT_TOP_COMMS];
	size_t ntop;
};

/*
 * wt_waste - measure @t with threshold @threshold_ns into @w
 *
 * Returns 0, or -ENOMEM (@w then holds nothing to free).  Free with
 * wt_waste_free().  @w->waiter points into @t->items, @w->top's names into
 * @t->comms: free @t after @w.
 */
int wt_waste(const struct wt_trace *t, uint64_t threshold_ns,
	     struct wt_waste *w);
void wt_waste_free(struct wt_waste *w);

#endif /* WSXWASTE_H */
