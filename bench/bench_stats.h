/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's counters as wsx_chanbench and wsx_pollbench read them
 * around their timed parts: the per-P and global lines of debugfs's
 * wsx/stats, the one line of wsx/schedtrace (bench_stats.c).
 */
#ifndef _BENCH_STATS_H
#define _BENCH_STATS_H

#include <stddef.h>

#include <linux/wsx.h>

#ifndef STATS_PATH
#define STATS_PATH	WSX_DEBUGFS_PATH "/stats"
#endif
#ifndef SCHEDTRACE_PATH
#define SCHEDTRACE_PATH	WSX_DEBUGFS_PATH "/schedtrace"
#endif
#define BENCH_STATS_MAX_PS	64

/*
 * The per-P counters the benches report: ready_runnext, runnext_hits,
 * stolen, item_parks, executed, and the spins, parks and wakeups of the
 * P's M (an idle P's M woken to look for work, as a ready's wakep() does).
 */
#define BENCH_STATS_NKEYS	8

struct bench_stats {
	unsigned int nps;
	long long p[BENCH_STATS_MAX_PS][BENCH_STATS_NKEYS];
	long long ready_global, ready_inbox, waiting;
};

/* Value of " @key=" in @line, or -1 when absent. */
long long bench_stats_field(const char *line, const char *key);

/* Read the stats into @st: 0, or -1 with the failure printed. */
int bench_stats_read(struct bench_stats *st);

/*
 * The schedtrace line into @buf (newline cut), from @fd, SCHEDTRACE_PATH
 * kept open: 0, or -1 with the failure printed.
 */
int bench_schedtrace_read(int fd, char *buf, size_t len);

/* One line a P, "@tag P<n> key=N ...": the deltas from @a to @b. */
void bench_stats_print_ps(const char *tag, const struct bench_stats *a,
			  const struct bench_stats *b);

/*
 * " key=N ..." of the deltas from @a to @b summed over the Ps, then
 * " ready_global=N ready_inbox=N" (no newline).
 */
void bench_stats_print_sums(const struct bench_stats *a,
			    const struct bench_stats *b);

#endif /* _BENCH_STATS_H */
