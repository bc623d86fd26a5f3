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

struct top_p {
	uint64_t executed, steals, stolen_from, parks, wakeups, depth;
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
 * Idle % is 100 * delta cpu_idle / delta cpu_total: the share of the
 * interval the P's CPU ran nothing (its M parked, no other task).
 * Returns the number of lines written.
 */
unsigned int top_render(FILE *f, const struct top_sample *prev,
			const struct top_sample *cur,
			const struct top_opts *o);

#endif /* WSX_TOP_FRAME_H */
