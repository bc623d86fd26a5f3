/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the selftests for the rings /dev/wsx shares with userspace
 * (ABI 1.1), straight on the ABI: set up and map, push requests into the
 * SQ, WSX_IOC_ENTER, reap records from the CQ.  The indices are read and
 * written with the acquire/release atomics the protocol asks for.
 */
#ifndef _WSX_RINGS_H
#define _WSX_RINGS_H

#include <sys/mman.h>

#include "wsx_test.h"

struct wsx_tring {
	int fd;
	void *mem;
	struct wsx_ring_setup p;
	__u32 *sq_head, *sq_tail, *cq_head, *cq_tail, *sq_flags;
	struct wsx_req *sqes;
	struct wsx_completion *cqes;
};

/* Point @t's fields into the mapping at @mem. */
static inline void wsx_tring_point(struct wsx_tring *t, void *mem)
{
	char *m = mem;

	t->mem = mem;
	t->sq_head = (__u32 *)(m + t->p.sq_head);
	t->sq_tail = (__u32 *)(m + t->p.sq_tail);
	t->cq_head = (__u32 *)(m + t->p.cq_head);
	t->cq_tail = (__u32 *)(m + t->p.cq_tail);
	t->sq_flags = (__u32 *)(m + t->p.sq_flags);
	t->sqes = (struct wsx_req *)(m + t->p.sqes);
	t->cqes = (struct wsx_completion *)(m + t->p.cqes);
}

/* Map the rings of @t->fd; 0 or -errno. */
static inline int wsx_tring_map(struct wsx_tring *t)
{
	void *mem = mmap(NULL, t->p.mmap_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, t->fd, WSX_RING_MMAP_OFF);

	if (mem == MAP_FAILED)
		return -errno;
	wsx_tring_point(t, mem);
	return 0;
}

/* WSX_IOC_RING_SETUP on @fd with @sq, @cq entries, @flags, then mmap. */
static inline int wsx_tring_setup_flags(struct wsx_tring *t, int fd,
					__u32 sq, __u32 cq, __u32 flags)
{
	long ret;

	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->p.sq_entries = sq;
	t->p.cq_entries = cq;
	t->p.flags = flags;
	ret = wsx_test_ioctl(fd, WSX_IOC_RING_SETUP, &t->p);
	if (ret < 0)
		return (int)ret;
	return wsx_tring_map(t);
}

/* The same without flags; 0 or -errno. */
static inline int wsx_tring_setup(struct wsx_tring *t, int fd, __u32 sq,
				  __u32 cq)
{
	return wsx_tring_setup_flags(t, fd, sq, cq, 0);
}

static inline void wsx_tring_unmap(struct wsx_tring *t)
{
	if (t->mem)
		munmap(t->mem, t->p.mmap_size);
	t->mem = NULL;
}

/* Entries pushed into the SQ and not yet consumed by the module. */
static inline __u32 wsx_tring_unsubmitted(const struct wsx_tring *t)
{
	return *t->sq_tail - __atomic_load_n(t->sq_head, __ATOMIC_ACQUIRE);
}

/* Push @req into the SQ; false when it is full. */
static inline bool wsx_tring_push(struct wsx_tring *t,
				  const struct wsx_req *req)
{
	__u32 tail = *t->sq_tail;

	if (wsx_tring_unsubmitted(t) >= t->p.sq_entries)
		return false;
	t->sqes[tail & (t->p.sq_entries - 1)] = *req;
	__atomic_store_n(t->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

/* WSX_IOC_ENTER; returns what the ioctl returns, *@out the struct. */
static inline long wsx_tring_enter(struct wsx_tring *t, __u32 to_submit,
				   __u32 min, __s64 timeout_ns,
				   struct wsx_enter *out)
{
	struct wsx_enter e;
	long ret;

	memset(&e, 0, sizeof(e));
	e.to_submit = to_submit;
	e.min_complete = min;
	e.timeout_ns = timeout_ns;
	ret = wsx_test_ioctl(t->fd, WSX_IOC_ENTER, &e);
	if (out)
		*out = e;
	return ret;
}

/* Records ready to read in the CQ. */
static inline __u32 wsx_tring_ready(const struct wsx_tring *t)
{
	return __atomic_load_n(t->cq_tail, __ATOMIC_ACQUIRE) - *t->cq_head;
}

/*
 * Read up to @max ready records (0: all), calling @fn (may be NULL) on
 * each, and free their entries.  Returns how many were read, or -EBADMSG
 * when @fn refused one.
 */
static inline long wsx_tring_reap(struct wsx_tring *t, __u32 max,
				  wsx_test_rec_fn fn, void *ctx)
{
	__u32 n = wsx_tring_ready(t), head = *t->cq_head, i;
	struct wsx_completion rec;

	if (max && n > max)
		n = max;
	for (i = 0; i < n; i++) {
		rec = t->cqes[(head + i) & (t->p.cq_entries - 1)];
		if (fn && !fn(&rec, ctx))
			return -EBADMSG;
	}
	__atomic_store_n(t->cq_head, head + n, __ATOMIC_RELEASE);
	return n;
}

/*
 * In WSX_RING_SQ_PICKUP mode: after storing the tail, may the program
 * leave its new entries to the executor's threads?  (A full barrier, then
 * the flag.)
 */
static inline bool wsx_tring_picked_up(const struct wsx_tring *t)
{
	if (!(t->p.flags & WSX_RING_SQ_PICKUP))
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(__atomic_load_n(t->sq_flags, __ATOMIC_ACQUIRE) &
		 WSX_SQ_NEED_ENTER);
}

/*
 * Run all @n requests through the rings: push as many as the SQ takes,
 * ENTER them (in pick-up mode only when the module asks for it), wait for
 * at least one record when none is ready, reap, until @n records were
 * read.  *@enters (if not NULL) counts the ENTER calls.  Returns 0, or
 * -errno of the first failure (-ETIMEDOUT when no record came for
 * @stall_ns).
 */
static inline int wsx_tring_run_counted(struct wsx_tring *t,
					const struct wsx_req *reqs, size_t n,
					wsx_test_rec_fn fn, void *ctx,
					__s64 stall_ns, size_t *enters)
{
	size_t sent = 0, done = 0;
	__u32 wait;
	long ret;

	while (done < n) {
		while (sent < n && wsx_tring_push(t, &reqs[sent]))
			sent++;
		wait = wsx_tring_ready(t) ? 0 : 1;
		if (wait || !wsx_tring_picked_up(t)) {
			ret = wsx_tring_enter(t, wsx_tring_unsubmitted(t), wait,
					      stall_ns, NULL);
			if (ret < 0)
				return (int)ret;
			if (enters)
				(*enters)++;
		}
		ret = wsx_tring_reap(t, 0, fn, ctx);
		if (ret < 0)
			return (int)ret;
		done += ret;
	}
	return 0;
}

static inline int wsx_tring_run(struct wsx_tring *t, const struct wsx_req *reqs,
				size_t n, wsx_test_rec_fn fn, void *ctx,
				__s64 stall_ns)
{
	return wsx_tring_run_counted(t, reqs, n, fn, ctx, stall_ns, NULL);
}

#endif /* _WSX_RINGS_H */
