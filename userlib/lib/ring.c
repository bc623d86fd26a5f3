/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libwsx: the rings a session shares with the module (ABI 1.1), in the
 * shape of liburing: get a free request entry, fill it, submit (and wait)
 * with one WSX_IOC_ENTER, peek at the records in place, mark them seen.
 *
 * The library keeps its own SQ tail and publishes it at wsx_ring_submit()
 * with a release store, so requests got and filled become visible to the
 * module together; it reads the module's indices with acquire loads and
 * frees CQ entries with a release store of the head, as uapi/linux/wsx.h
 * describes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <wsx/libwsx.h>

_Static_assert(sizeof(struct wsx_ring_setup) == 64, "wsx_ring_setup ABI size");
_Static_assert(sizeof(struct wsx_enter) == 32, "wsx_enter ABI size");

struct wsx_ring {
	int fd;
	void *mem;
	size_t size;
	unsigned int sq_entries, cq_entries;
	__u32 *sq_head, *sq_tail, *cq_head, *cq_tail, *sq_flags;
	bool pickup;		/* WSX_RING_SQ_PICKUP */
	struct wsx_req *sqes;
	struct wsx_completion *cqes;
	__u32 tail;		/* requests got: published at submit */
};

static __u32 load_acquire(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(__u32 *p, __u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

int wsx_ring_setup(struct wsx *w, unsigned int sq_entries,
		   unsigned int cq_entries, unsigned int flags,
		   struct wsx_ring **out)
{
	struct wsx_ring_setup p = {
		.sq_entries = sq_entries, .cq_entries = cq_entries,
		.flags = flags,
	};
	struct wsx_ring *r;
	char *m;
	int fd = wsx_fd(w);

	if (!out || fd < 0)
		return -EINVAL;
	*out = NULL;
	if (ioctl(fd, WSX_IOC_RING_SETUP, &p))
		return -errno;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	m = mmap(NULL, p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSX_RING_MMAP_OFF);
	if (m == MAP_FAILED) {
		free(r);
		return -errno;
	}
	r->fd = fd;
	r->mem = m;
	r->size = p.mmap_size;
	r->sq_entries = p.sq_entries;
	r->cq_entries = p.cq_entries;
	r->sq_head = (__u32 *)(m + p.sq_head);
	r->sq_tail = (__u32 *)(m + p.sq_tail);
	r->cq_head = (__u32 *)(m + p.cq_head);
	r->cq_tail = (__u32 *)(m + p.cq_tail);
	r->sq_flags = (__u32 *)(m + p.sq_flags);
	r->pickup = flags & WSX_RING_SQ_PICKUP;
	r->sqes = (struct wsx_req *)(m + p.sqes);
	r->cqes = (struct wsx_completion *)(m + p.cqes);
	r->tail = *r->sq_tail;
	*out = r;
	return 0;
}

void wsx_ring_free(struct wsx_ring *r)
{
	if (!r)
		return;
	munmap(r->mem, r->size);
	free(r);
}

unsigned int wsx_ring_sq_pending(const struct wsx_ring *r)
{
	return r ? r->tail - load_acquire(r->sq_head) : 0;
}

unsigned int wsx_ring_cq_entries(const struct wsx_ring *r)
{
	return r ? r->cq_entries : 0;
}

struct wsx_req *wsx_ring_get_req(struct wsx_ring *r)
{
	if (!r || wsx_ring_sq_pending(r) >= r->sq_entries)
		return NULL;
	return &r->sqes[r->tail++ & (r->sq_entries - 1)];
}

unsigned int wsx_ring_ready(const struct wsx_ring *r)
{
	return r ? load_acquire(r->cq_tail) - *r->cq_head : 0;
}

int wsx_ring_submit(struct wsx_ring *r, unsigned int wait_nr,
		    int64_t timeout_ns)
{
	struct wsx_enter e = { .timeout_ns = timeout_ns };

	if (!r)
		return -EINVAL;
	if (wait_nr > r->cq_entries)
		return -E2BIG;
	/* release: the requests' contents before the tail */
	store_release(r->sq_tail, r->tail);
	e.to_submit = wsx_ring_sq_pending(r);
	if (wsx_ring_ready(r) < wait_nr)
		e.min_complete = wait_nr;
	if (r->pickup && e.to_submit && !e.min_complete) {
		/* StoreLoad: the tail before the flag, see <linux/wsx.h> */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!(load_acquire(r->sq_flags) & WSX_SQ_NEED_ENTER))
			return e.to_submit;	/* an M will take them */
	}
	if (!e.to_submit && !e.min_complete)
		return 0;
	if (ioctl(r->fd, WSX_IOC_ENTER, &e))
		return -errno;
	if (!e.submitted && e.to_submit && e.error)
		return e.error;
	return e.submitted;
}

unsigned int wsx_ring_peek(struct wsx_ring *r,
			   const struct wsx_completion **recs,
			   unsigned int max)
{
	unsigned int n = wsx_ring_ready(r), i;
	__u32 head;

	if (!r || !recs)
		return 0;
	head = *r->cq_head;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		recs[i] = &r->cqes[(head + i) & (r->cq_entries - 1)];
	return n;
}

void wsx_ring_seen(struct wsx_ring *r, unsigned int n)
{
	unsigned int ready = wsx_ring_ready(r);

	if (!r)
		return;
	if (n > ready)
		n = ready;
	/* release: our reads of the records before the module reuses them */
	store_release(r->cq_head, *r->cq_head + n);
}
