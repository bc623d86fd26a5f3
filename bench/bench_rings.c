// SPDX-License-Identifier: GPL-2.0
/*
 * The rings of /dev/wsx and io_uring on raw system calls: see
 * bench_rings.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_rings.h"

__u32 bench_pow2_at_least(__u64 n)
{
	__u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static void *map(int fd, size_t len, off_t off)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (m == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return m;
}

int bench_rings_wsx(struct bench_rings *r, __u32 sq, __u32 cq, __u32 flags)
{
	struct wsx_ring_setup p;
	char *m;

	r->fd = open(WSX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		perror(WSX_DEVICE_PATH);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.sq_entries = sq;
	p.cq_entries = cq;
	p.flags = flags;
	if (ioctl(r->fd, WSX_IOC_RING_SETUP, &p)) {
		int err = errno;

		fprintf(stderr, "WSX_IOC_RING_SETUP of %u entries: %s%s\n", sq,
			strerror(err),
			err == E2BIG ? " (raise wsx.ko's ring_max_entries)" : "");
		return -1;
	}
	m = map(r->fd, p.mmap_size, WSX_RING_MMAP_OFF);
	if (!m)
		return -1;
	r->sq_head = (__u32 *)(m + p.sq_head);
	r->sq_tail = (__u32 *)(m + p.sq_tail);
	r->cq_head = (__u32 *)(m + p.cq_head);
	r->cq_tail = (__u32 *)(m + p.cq_tail);
	r->sq_flags = (__u32 *)(m + p.sq_flags);
	r->sqes = (struct wsx_req *)(m + p.sqes);
	r->cqes = (struct wsx_completion *)(m + p.cqes);
	r->sq_mask = sq - 1;
	r->cq_mask = p.cq_entries - 1;
	return 0;
}

int bench_rings_uring(struct bench_rings *r, __u32 sq, __u32 cq, __u32 flags)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sqm, *cqm;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | flags;
	p.cq_entries = cq;
	r->fd = syscall(__NR_io_uring_setup, sq, &p);
	if (r->fd < 0) {
		perror("io_uring_setup");
		return -1;
	}
	if (p.sq_entries < sq || p.cq_entries < cq) {
		fprintf(stderr, "io_uring_setup: %u SQ and %u CQ entries for %u and %u\n",
			p.sq_entries, p.cq_entries, sq, cq);
		return -1;
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(__u32);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		sq_len = sq_len > cq_len ? sq_len : cq_len;
		sqm = map(r->fd, sq_len, IORING_OFF_SQ_RING);
		cqm = sqm;
	} else {
		sqm = map(r->fd, sq_len, IORING_OFF_SQ_RING);
		cqm = map(r->fd, cq_len, IORING_OFF_CQ_RING);
	}
	r->usqes = map(r->fd, p.sq_entries * sizeof(struct io_uring_sqe),
		       IORING_OFF_SQES);
	if (!sqm || !cqm || !r->usqes)
		return -1;
	r->sq_head = (__u32 *)(sqm + p.sq_off.head);
	r->sq_tail = (__u32 *)(sqm + p.sq_off.tail);
	r->sq_array = (__u32 *)(sqm + p.sq_off.array);
	r->sq_mask = *(__u32 *)(sqm + p.sq_off.ring_mask);
	r->cq_head = (__u32 *)(cqm + p.cq_off.head);
	r->cq_tail = (__u32 *)(cqm + p.cq_off.tail);
	r->cq_mask = *(__u32 *)(cqm + p.cq_off.ring_mask);
	r->ucqes = (struct io_uring_cqe *)(cqm + p.cq_off.cqes);
	return 0;
}
