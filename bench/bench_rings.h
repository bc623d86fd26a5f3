/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings shared with the kernel, set up on raw system calls, without libwsx
 * or liburing: /dev/wsx's SQ and CQ (ABI 1.1, WSX_IOC_RING_SETUP) and
 * io_uring's (bench_rings.c).  Used by flood_rings.c and wsx_pollbench.c.
 */
#ifndef _BENCH_RINGS_H
#define _BENCH_RINGS_H

#include <linux/io_uring.h>
#include <linux/types.h>
#include <linux/wsx.h>

struct bench_rings {
	int fd;
	/* SQ: the kernel's head, our tail (published before enter) */
	__u32 *sq_head, *sq_tail, sq_mask, tail;
	/* CQ: our head, the kernel's tail */
	__u32 *cq_head, *cq_tail, cq_mask;
	/* wsx */
	__u32 *sq_flags;	/* WSX_SQ_*, the module's (pick-up mode) */
	struct wsx_req *sqes;
	struct wsx_completion *cqes;
	/* io_uring */
	__u32 *sq_array;
	struct io_uring_sqe *usqes;
	struct io_uring_cqe *ucqes;
};

/* The least power of two that is @n or more. */
__u32 bench_pow2_at_least(__u64 n);

/*
 * Open a /dev/wsx session into @r with rings of @sq and @cq entries (powers
 * of two) and WSX_RING_* @flags, mapped: 0, or -1 with the failure printed.
 */
int bench_rings_wsx(struct bench_rings *r, __u32 sq, __u32 cq, __u32 flags);

/*
 * Set up an io_uring into @r with @sq SQ and @cq CQ entries and
 * IORING_SETUP_* @flags (besides IORING_SETUP_CQSIZE), mapped: 0, or -1
 * with the failure printed.
 */
int bench_rings_uring(struct bench_rings *r, __u32 sq, __u32 cq, __u32 flags);

#endif /* _BENCH_RINGS_H */
