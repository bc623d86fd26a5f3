/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The module's histograms (debugfs "latency" and "steals"), for
 * `wsxctl stats --json`.  Not exported by libwsx.so (not in libwsx.map):
 * wsxctl links libwsx.a.
 */
#ifndef WSX_STATS_HIST_H
#define WSX_STATS_HIST_H

#include <stdio.h>

#include <wsx/libwsx.h>

#define WSX_HIST_KINDS		8
#define WSX_HIST_LAT_BUCKETS	64
#define WSX_HIST_SIZE_BUCKETS	32

struct wsx_hist {
	unsigned int nkinds;
	struct {
		char name[16];
		__u64 count;		/* the line's count= */
		unsigned int nbuckets;
		__u64 buckets[WSX_HIST_LAT_BUCKETS];
	} lat[WSX_HIST_KINDS];
	unsigned int nsizes;
	__u64 sizes[WSX_HIST_SIZE_BUCKETS];
	unsigned int nprocs;	/* rows of the matrix */
	__u64 *steals_from;	/* [thief * nprocs + victim] */
};

/*
 * Parses the texts of the "latency" and "steals" files; 0, -EINVAL
 * (malformed: a latency line without count=, more than 64 buckets or 8
 * kinds, a steals file without its "sizes" line, matrix rows not P0..Pn-1
 * in order or not n wide) or -ENOMEM.  Free with wsx_hist_free().
 */
int wsx_hist_parse(const char *latency, const char *steals,
		   struct wsx_hist *h);

/* Reads and parses them from $WSX_DEBUGFS; also -errno of the reads. */
int wsx_hist_read(struct wsx_hist *h);

void wsx_hist_free(struct wsx_hist *h);

/*
 * wsx_stats_kv_write() with WSX_STATS_JSON, plus, when @h is not NULL, the
 * keys "latency" ({"<kind>": {"count": n, "buckets": [64]}, ...}; bucket b
 * counts times t in ns with 2^(b-1) <= t < 2^b, b0: t == 0),
 * "steal_sizes" ({"count": n, "buckets": [10]}; bucket b: 2^b <= items
 * taken < 2^(b+1)) and "steals_from" ([thief][victim] steal counts).
 */
int wsx_stats_kv_write_json_hist(FILE *f, const struct wsx_stats_kv *kv,
				 const struct wsx_hist *h);

#endif /* WSX_STATS_HIST_H */
