// SPDX-License-Identifier: GPL-2.0
/*
 * The NOP flood of wsx_flood through rings shared with the kernel, on raw
 * system calls: /dev/wsx's SQ and CQ (ABI 1.1, mode "rings"; "pickup":
 * with WSX_RING_SQ_PICKUP, entering only when the module asks for it or to
 * wait) and, as the contenders, io_uring's, with every NOP handed to
 * io-wq's kernel workers (IOSQE_ASYNC, mode "uring-async") or completed
 * inside the system call (mode "uring-inline").
 *
 * All run the same loop: push up to BATCH items (no more than
 * INFLIGHT unreaped), one enter call that submits them and, when nothing
 * more may be submitted before records are read, waits for min(BATCH,
 * outstanding) records; then read every ready record from shared memory.
 * In pick-up mode a full SQ also waits, for one record.
 * With BATCH 1 and INFLIGHT 1 that is a round trip: submit one, wait for it
 * (wsx_flood idle times it so, beside sessions flood_idle_session() made).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/io_uring.h>
#include <linux/wsx.h>

#include "bench_rings.h"
#include "bench_util.h"
#include "wsx_flood.h"

struct door {
	const char *name;
	struct bench_rings r;
	__u64 total;
	bool async;
	bool pickup;
	unsigned long enters;	/* system calls made to submit or wait */
};

/* ---- /dev/wsx ---------------------------------------------------------- */

static int wsx_door_setup(struct door *d, __u32 sq, __u32 cq)
{
	return bench_rings_wsx(&d->r, sq, cq,
			       d->pickup ? WSX_RING_SQ_PICKUP : 0);
}

static void wsx_door_push(struct door *d, __u64 id)
{
	struct wsx_req *req = &d->r.sqes[d->r.tail++ & d->r.sq_mask];

	memset(req, 0, sizeof(*req));
	req->op = WSX_OP_NOP;
	req->user_data = id;
}

static int wsx_door_enter(struct door *d, unsigned int n, unsigned int min)
{
	struct wsx_enter e;
	int ret;

	if (d->pickup) {
		/* every entry not taken yet, the older ones too */
		n = *d->r.sq_tail - __atomic_load_n(d->r.sq_head,
						    __ATOMIC_ACQUIRE);
		if (!min && !n)
			return 0;
		/* StoreLoad: the tail before the flag */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!min && !(__atomic_load_n(d->r.sq_flags,
					      __ATOMIC_ACQUIRE) &
			      WSX_SQ_NEED_ENTER))
			return 0;	/* the Ms take the entries */
	}
	memset(&e, 0, sizeof(e));
	e.to_submit = n;
	e.min_complete = min;
	e.timeout_ns = 60LL * 1000000000LL;
	ret = ioctl(d->r.fd, WSX_IOC_ENTER, &e);
	d->enters++;
	if (ret < 0 || (!d->pickup && e.submitted != n) || e.error) {
		fprintf(stderr, "WSX_IOC_ENTER: %s, submitted %u of %u, error %d\n",
			ret < 0 ? strerror(errno) : "ok", e.submitted, n,
			e.error);
		return -1;
	}
	return 0;
}

/* Is the wsx record at @idx right? */
static bool wsx_door_ok(const struct door *d, __u32 idx)
{
	const struct wsx_completion *c = &d->r.cqes[idx];

	if (c->status || c->user_data >= d->total) {
		fprintf(stderr, "record %llu: status %d\n",
			(unsigned long long)c->user_data, c->status);
		return false;
	}
	return true;
}

/* ---- io_uring ---------------------------------------------------------- */

static int uring_door_setup(struct door *d, __u32 sq, __u32 cq)
{
	return bench_rings_uring(&d->r, sq, cq, 0);
}

static void uring_door_push(struct door *d, __u64 id)
{
	__u32 idx = d->r.tail++ & d->r.sq_mask;
	struct io_uring_sqe *s = &d->r.usqes[idx];

	memset(s, 0, sizeof(*s));
	s->opcode = IORING_OP_NOP;
	s->flags = d->async ? IOSQE_ASYNC : 0;
	s->user_data = id;
	d->r.sq_array[idx] = idx;
}

static int uring_door_enter(struct door *d, unsigned int n, unsigned int min)
{
	long ret;

	ret = syscall(__NR_io_uring_enter, d->r.fd, n, min,
		      min ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
	d->enters++;
	if (ret != n) {
		fprintf(stderr, "io_uring_enter: %ld of %u: %s\n", ret, n,
			ret < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

/* Is the io_uring CQE at @idx right? */
static bool uring_door_ok(const struct door *d, __u32 idx)
{
	const struct io_uring_cqe *c = &d->r.ucqes[idx];

	if (c->res || c->user_data >= d->total) {
		fprintf(stderr, "cqe %llu: res %d\n",
			(unsigned long long)c->user_data, c->res);
		return false;
	}
	return true;
}

/* ---- the loop ---------------------------------------------------------- */

/* Read every ready record of either door, checking each; count or -1. */
static long door_reap(struct door *d,
		      bool (*ok)(const struct door *d, __u32 idx))
{
	__u32 head = *d->r.cq_head;
	__u32 tail = __atomic_load_n(d->r.cq_tail, __ATOMIC_ACQUIRE);
	__u32 n = tail - head;

	for (; head != tail; head++)
		if (!ok(d, head & d->r.cq_mask))
			return -1;
	/* release: our reads of the records before the kernel reuses them */
	__atomic_store_n(d->r.cq_head, tail, __ATOMIC_RELEASE);
	return n;
}

struct door_ops {
	const char *mode;
	int (*setup)(struct door *d, __u32 sq, __u32 cq);
	void (*push)(struct door *d, __u64 id);
	int (*enter)(struct door *d, unsigned int n, unsigned int min);
	bool (*ok)(const struct door *d, __u32 idx);
	bool async;
	bool pickup;
};

static const struct door_ops doors[] = {
	{ "rings", wsx_door_setup, wsx_door_push, wsx_door_enter,
	  wsx_door_ok, false, false },
	{ "pickup", wsx_door_setup, wsx_door_push, wsx_door_enter,
	  wsx_door_ok, false, true },
	{ "uring-async", uring_door_setup, uring_door_push, uring_door_enter,
	  uring_door_ok, true, false },
	{ "uring-inline", uring_door_setup, uring_door_push, uring_door_enter,
	  uring_door_ok, false, false },
	{ NULL }
};

int flood_rings(const char *mode, unsigned long total, unsigned int batch,
		unsigned long inflight, __u64 *wall_ns)
{
	const struct door_ops *ops;
	unsigned long sent = 0, done = 0;
	struct door d = { .total = total };
	__u32 sq = bench_pow2_at_least(batch);
	__u64 start, wall;
	unsigned int i;

	for (ops = doors; ops->mode && strcmp(mode, ops->mode); ops++)
		;
	if (!ops->mode)
		return 2;
	d.async = ops->async;
	d.pickup = ops->pickup;
	/* the Ms may not have taken the last batches yet: room for more */
	if (d.pickup)
		sq = bench_pow2_at_least(4 * batch);
	if (ops->setup(&d, sq,
		       bench_pow2_at_least(inflight > sq ? inflight : sq)))
		return 1;
	start = bench_now_ns();
	while (done < total) {
		unsigned long n = total - sent, out;
		unsigned int min = 0;
		long got;

		if (n > batch)
			n = batch;
		if (n > inflight - (sent - done))
			n = inflight - (sent - done);
		/* only in pick-up mode can the SQ still hold entries */
		if (n > sq - (d.r.tail - __atomic_load_n(d.r.sq_head,
							 __ATOMIC_ACQUIRE)))
			n = sq - (d.r.tail - __atomic_load_n(d.r.sq_head,
							     __ATOMIC_ACQUIRE));
		for (i = 0; i < n; i++)
			ops->push(&d, sent + i);
		/* release: the entries before the tail */
		__atomic_store_n(d.r.sq_tail, d.r.tail, __ATOMIC_RELEASE);
		sent += n;
		out = sent - done;
		if (out >= inflight || sent == total)
			min = out < batch ? out : batch;
		/*
		 * pick-up mode, the SQ full while the Ms have the entries
		 * (the flag clear): wait for a record rather than spin on the
		 * CPU the Ms need
		 */
		if (d.pickup && !n && !min && out)
			min = 1;
		/* pick-up mode: the flag decides, also for older entries */
		if ((n || min || d.pickup) && ops->enter(&d, n, min))
			return 1;
		got = door_reap(&d, ops->ok);
		if (got < 0)
			return 1;
		done += got;
	}
	wall = bench_now_ns() - start;
	printf("flood batch=%u items=%lu ns=%llu mode=%s enters=%lu\n", batch,
	       total, (unsigned long long)wall, mode, d.enters);
	if (wall_ns)
		*wall_ns = wall;
	close(d.r.fd);
	return 0;
}

int flood_idle_session(void)
{
	struct door d = { .total = 1, .pickup = true };
	long got = 0;

	if (wsx_door_setup(&d, 1, 1))
		return -1;
	wsx_door_push(&d, 0);
	/* release: the entry before the tail */
	__atomic_store_n(d.r.sq_tail, d.r.tail, __ATOMIC_RELEASE);
	while (!got) {
		if (wsx_door_enter(&d, 1, 1))
			return -1;
		got = door_reap(&d, wsx_door_ok);
		if (got < 0)
			return -1;
	}
	/* the session, its fd and its mapping stay: the process's exit ends them */
	return 0;
}
