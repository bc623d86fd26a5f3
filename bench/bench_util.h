/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small helpers of the userspace benches (wsx_flood, wsx_chanbench,
 * wsx_pollbench): bench_util.c.  The stats reader is bench_stats.h, the
 * ring setup bench_rings.h.
 */
#ifndef _BENCH_UTIL_H
#define _BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

#include <linux/types.h>
#include <linux/wsx.h>

static inline __u64 bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/*
 * @s as a decimal number in @lo .. @hi; anything else calls @usage, which
 * does not return.
 */
unsigned long bench_number(const char *s, unsigned long lo, unsigned long hi,
			   void (*usage)(void));

/*
 * RLIMIT_NOFILE to at least @need, the hard limit too (as root): 0, or -1
 * with the failure printed.
 */
int bench_raise_nofile(rlim_t need);

/*
 * WSX_IOC_SUBMIT of all @n requests at @reqs on the session @fd,
 * WSX_SUBMIT_MAX a call: 0, or -1 with the failure printed.
 */
int bench_submit(int fd, struct wsx_req *reqs, unsigned long n);

#endif /* _BENCH_UTIL_H */
