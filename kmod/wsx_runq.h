/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx_runq: the per-P run queue (Go's runq), a single-producer
 * multi-consumer lock-free circular buffer of WSX_RUNQ_SIZE item pointers.
 * Pure data structure: no scheduling, no allocation, usable from KUnit
 * tests.  wsx_runq_push() and wsx_runq_pop() are the buffer's own; the
 * owner's wsx_runq_put() and wsx_runq_get() (queue.c, queue.h) add runnext and the
 * spill to the global queue, as Go's runqput() and runqget().
 *
 * Protocol
 * --------
 * head and tail are free-running u32 indices; slot i lives at
 * slots[i & WSX_RUNQ_MASK].  The runq holds the items [head, tail), so it is
 * empty when head == tail and full when tail - head == WSX_RUNQ_SIZE.
 *
 *   tail   written only by the owner (the M holding the P), with a store-
 *          release after the slot it publishes has been written.  Read by
 *          the owner plainly and by everyone else with a load-acquire, which
 *          pairs with that store-release: a consumer that sees tail == t
 *          also sees the contents of every slot below t.
 *
 *   head   advanced by every consumer - the owner taking one item
 *          (wsx_runq_pop), the owner spilling half to the global queue
 *          (wsx_runq_take_half) and thieves taking a batch (wsx_runq_grab) -
 *          always with one compare-and-exchange from the value it read to
 *          that value plus the number of items taken.  Everyone reads head
 *          with a load-acquire; the successful cmpxchg is fully ordered.
 *          The owner's acquire of head in wsx_runq_push pairs with the
 *          consumers' cmpxchg: their reads of slots below the new head are
 *          done before the owner reuses those slots.
 *
 *   slots  written only by the owner, only at index tail, and only while
 *          tail - head < WSX_RUNQ_SIZE, i.e. never inside [head, tail).
 *          Consumers read the slots of [head, head + n) before their cmpxchg
 *          on head; if the owner overwrote one of those slots meanwhile,
 *          head must have moved past it first, so the cmpxchg fails and the
 *          copy is thrown away.  That read/overwrite race is the one benign
 *          race of the protocol: both sides use READ_ONCE/WRITE_ONCE so the
 *          compiler neither tears nor invents accesses.
 *
 * Why one cmpxchg is enough for a thief: the items it takes are exactly
 * [h, h + n) for the head h it read, and the cmpxchg succeeds only if no
 * other consumer took any item since, so each item is taken exactly once.
 * The owner never moves head backwards and never takes from the tail end.
 *
 * Why 32-bit indices do not suffer ABA: a consumer's cmpxchg could succeed
 * wrongly only if head advanced by exactly 2^32 between its load and its
 * cmpxchg.  Callers run the grab with preemption disabled, so the window is
 * a few hundred instructions plus at most an interrupt: far from 2^32 items.
 *
 * A snapshot of head then tail is not atomic: while a thief reads them the
 * owner may consume and refill, so tail - head can exceed the runq size.
 * wsx_runq_grab and wsx_runq_len retry in that case rather than use a
 * bogus range (a length of 0 would tell a parking M a full runq is empty).
 *
 * head and tail sit on separate cache lines so that the owner's pushes and
 * the thieves' cmpxchg do not false-share.
 */
#ifndef _WSX_RUNQ_H
#define _WSX_RUNQ_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/types.h>

#define WSX_RUNQ_SIZE	256
#define WSX_RUNQ_MASK	(WSX_RUNQ_SIZE - 1)

struct wsx_item;

/*
 * Field tags:
 *   O: written only by the P's owner, the M holding it; how others read
 *      it, each field's comment says.
 *   X: exchanged by cmpxchg/xchg between the owner and thieves.
 * sched.h's fields use them too.  See the protocol above.
 */
struct wsx_runq {
	u32 head ____cacheline_aligned_in_smp;			/* X */
	u32 tail ____cacheline_aligned_in_smp;			/* O */
	struct wsx_item *slots[WSX_RUNQ_SIZE];			/* O */
};

/* How much of a victim's runq a thief takes (module parameter steal_policy). */
enum wsx_steal_policy {
	WSX_STEAL_HALF,		/* n - n/2, as Go's runqgrab */
	WSX_STEAL_ONE,		/* one item */
	WSX_STEAL_ALL,		/* every item */
	WSX_STEAL_NONE,		/* no stealing: isolated queues */
};

static inline void wsx_runq_init(struct wsx_runq *r)
{
	r->head = 0;
	r->tail = 0;
}

/*
 * A named point between the two reads of a snapshot, for tests: the KUnit
 * tests define it to move the runq there; elsewhere it is nothing.
 */
#ifndef wsx_runq_snapshot_point
#define wsx_runq_snapshot_point(r)	do { } while (0)
#endif

/*
 * Number of items in the runq.  Racy by nature (it may be stale by the
 * time the caller looks), but never reports an empty runq for one that
 * held items during the whole call: a parking M's recheck relies on it.
 * An inconsistent snapshot (see above) is retried as wsx_runq_grab() does,
 * not taken for an empty runq; every retry means the runq moved, so this
 * ends as soon as it holds still for two loads.
 */
static inline u32 wsx_runq_len(const struct wsx_runq *r)
{
	for (;;) {
		/* acquire both: see the protocol above */
		u32 h = smp_load_acquire(&r->head);
		u32 t;

		wsx_runq_snapshot_point(r);
		/* acquire: pairs with the owner's release of tail
		 * (litmus/wakep-park-sb: a parker's recheck)
		 */
		t = smp_load_acquire(&r->tail);
		if (t - h <= WSX_RUNQ_SIZE)
			return t - h;
	}
}

static inline bool wsx_runq_empty(const struct wsx_runq *r)
{
	return wsx_runq_len(r) == 0;
}

/*
 * wsx_runq_push - append @item at the tail.  Owner only.
 *
 * Returns false, leaving the runq unchanged, when the runq is full.
 */
static inline bool wsx_runq_push(struct wsx_runq *r, struct wsx_item *item)
{
	/* acquire: consumers are done with the slots below head
	 * (litmus/runq-put-steal-reuse)
	 */
	u32 h = smp_load_acquire(&r->head);
	u32 t = r->tail;

	if (t - h >= WSX_RUNQ_SIZE)
		return false;
	WRITE_ONCE(r->slots[t & WSX_RUNQ_MASK], item);
	/* release: the slot's content before the new tail (litmus/runq-put-steal-mp) */
	smp_store_release(&r->tail, t + 1);
	return true;
}

/*
 * A named point in the owner's runnext take, between its peek and its
 * xchg, for tests: the KUnit race defines it to wait there for thieves;
 * elsewhere it is nothing.
 */
#ifndef wsx_runnext_peek_point
#define wsx_runnext_peek_point(runnext)	do { } while (0)
#endif

/*
 * Owner only: take the item in @runnext (a P's runnext, beside its runq),
 * if any.  Only the owner stores an item there (thieves only take it, with
 * a cmpxchg to NULL), and each hand-over of a P orders the old holder's
 * stores before the new holder's reads (mlock, wsx_m_take_p()'s smp_mb():
 * litmus/runq-get-runnext-peek-handover), so a read of NULL is exact and
 * spares the xchg.  Its full barrier is not missed: on that path the M
 * goes on to look elsewhere, and the park and the stop bring their own
 * (litmus/runq-get-runnext-peek-once).  Against a thief the take is the
 * xchg (litmus/runq-put-runnext-steal-once).
 */
static inline struct wsx_item *wsx_runnext_take(struct wsx_item **runnext)
{
	if (!READ_ONCE(*runnext))
		return NULL;
	wsx_runnext_peek_point(runnext);
	return xchg(runnext, NULL);
}

/*
 * wsx_runq_pop - take the item at the head.  Any consumer; the owner uses it
 * for its own queue, the hotplug drain for a stopped P's.
 *
 * Returns NULL when the runq is empty.
 */
static inline struct wsx_item *wsx_runq_pop(struct wsx_runq *r)
{
	/* acquire: pairs with the other consumers' cmpxchg */
	u32 h = smp_load_acquire(&r->head);
	struct wsx_item *item;

	for (;;) {
		/* acquire: pairs with the owner's release of tail */
		if (h == smp_load_acquire(&r->tail))
			return NULL;
		item = READ_ONCE(r->slots[h & WSX_RUNQ_MASK]);
		/* one consumer per slot: litmus/runq-get-steal-cas */
		if (try_cmpxchg(&r->head, &h, h + 1))
			return item;
		/* h now holds the current head: another consumer won */
	}
}

/*
 * wsx_runq_take_half - the owner's spill: take the oldest half of a full
 * runq into @batch (room for WSX_RUNQ_SIZE / 2 items).
 *
 * Returns the number taken: WSX_RUNQ_SIZE / 2, or 0 when the runq was not
 * full at the snapshot or a thief moved head meanwhile (then the runq has
 * room again and the caller retries its put).
 */
static inline u32 wsx_runq_take_half(struct wsx_runq *r,
				     struct wsx_item **batch)
{
	/* acquire: pairs with the thieves' cmpxchg */
	u32 h = smp_load_acquire(&r->head);
	u32 n = (r->tail - h) / 2;
	u32 i;

	if (n != WSX_RUNQ_SIZE / 2)
		return 0;
	for (i = 0; i < n; i++)
		batch[i] = READ_ONCE(r->slots[(h + i) & WSX_RUNQ_MASK]);
	/* one consumer per slot, as a thief's grab: litmus/runq-get-steal-cas */
	if (!try_cmpxchg(&r->head, &h, h + n))
		return 0;
	return n;
}

/* How many of @n queued items a thief takes under @policy. */
static inline u32 wsx_steal_amount(enum wsx_steal_policy policy, u32 n)
{
	switch (policy) {
	case WSX_STEAL_HALF:
		return n - n / 2;
	case WSX_STEAL_ONE:
		return n ? 1 : 0;
	case WSX_STEAL_ALL:
		return n;
	default:
		return 0;
	}
}

/*
 * wsx_runq_grab - a thief's batch: take wsx_steal_amount(@policy, n) of the
 * oldest items of @victim, with one cmpxchg on its head, copying them into
 * @dst's slots from index @dst_tail on.  @dst must belong to the caller and
 * have room: the caller publishes them by moving its own tail.
 *
 * Call with preemption disabled (see "ABA" above).  @seen, if not NULL, gets
 * the victim's queue length n at the successful snapshot; @cas_fails is
 * incremented for every lost cmpxchg.
 *
 * Returns the number of items taken, 0 when the victim's runq is empty.
 */
static inline u32 wsx_runq_grab(struct wsx_runq *victim, struct wsx_runq *dst,
				u32 dst_tail, enum wsx_steal_policy policy,
				u32 *seen, u64 *cas_fails)
{
	for (;;) {
		/* acquire: pairs with the other consumers' cmpxchg */
		u32 h = smp_load_acquire(&victim->head);
		u32 t, n, k, i;

		wsx_runq_snapshot_point(victim);
		/* acquire: the victim's slots below t are written (litmus/runq-put-steal-mp) */
		t = smp_load_acquire(&victim->tail);
		n = t - h;

		if (n > WSX_RUNQ_SIZE)
			continue;	/* inconsistent snapshot: retry */
		k = wsx_steal_amount(policy, n);
		if (!k)
			return 0;
		for (i = 0; i < k; i++)
			WRITE_ONCE(dst->slots[(dst_tail + i) & WSX_RUNQ_MASK],
				   READ_ONCE(victim->slots[(h + i) &
							   WSX_RUNQ_MASK]));
		/* one consumer per slot (litmus/runq-get-steal-cas); the slots
		 * read before it (litmus/runq-put-steal-reuse)
		 */
		if (try_cmpxchg(&victim->head, &h, h + k)) {
			if (seen)
				*seen = n;
			return k;
		}
		(*cas_fails)++;
	}
}

#endif /* _WSX_RUNQ_H */
