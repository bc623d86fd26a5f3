/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The frame of `wsxctl top`, rendered from two samples of the counters.
 * Pure: no system calls, for the host tests.
 */
#ifndef WSX_TOP_FRAME_H
#define WSX_TOP_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Steal levels, the victim's distance from the thief. */
enum top_level { TOP_SMT, TOP_CACHE, TOP_NODE, TOP_REMOTE, TOP_LEVELS };

struct top_p {
	uint64_t executed, steals, stolen_from, parks, wakeups, depth;
	unsigned int node;	/* NUMA node index */
	uint64_t steals_at[TOP_LEVELS];	/* steals by level */
	bool online;
	bool have_cpu;		/* cpu_idle and cpu_total are known */
	uint64_t cpu_idle;	/* idle + iowait time of the P's CPU */
	uint64_t cpu_total;	/* all time of the P's CPU, same unit */
};

struct top_sample {
	uint64_t t_ns;		/* CLOCK_MONOTONIC when taken */
	unsigned int nprocs;
	struct top_p *p;
	uint64_t gdepth, gputs, ggets;
	unsigned int nnodes;	/* 1 + the highest node of a P */
	unsigned int nnodeqs;	/* per-node global queues, 0 for none */
	uint64_t *nodeq_depth;	/* nnodeqs entries, index = node */
};

struct top_opts {
	unsigned int width;	/* columns, at least 60 used */
	unsigned int height;	/* rows; 0: no limit */
	bool ansi;		/* clear to end of line, home the cursor */
	const char *hint;	/* shown in the header line, or NULL */
};

/*
 * Writes one frame: a header line, a column line, one row per P (a bar of
 * its queue depth, items/s, steals/s, stolen-from/s, idle %) and a row for
 * the global queue.  With @prev NULL (or no time between the samples) the
 * counters themselves are shown instead of rates and idle % is "-".
 * With more than one node, a row per node follows: its Ps, items/s and
 * steals/s by level (smt, cache, node, remote: cross-node) of its Ps, and
 * the depth of its global queue ("-" without per-node queues).
 * Idle % is 100 * delta cpu_idle / delta cpu_total: the share of the
 * interval the P's CPU ran nothing (its M parked, no other task).
 * Returns the number of lines written.
 */
unsigned int top_render(FILE *f, const struct top_sample *prev,
			const struct top_sample *cur,
			const struct top_opts *o);

#endif /* WSX_TOP_FRAME_H */
