// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: Go's chan for items, the wait queues of the seeds' fourth
 * queue (docs/park.md, section 2; models/chan.pml).
 *
 * A channel carries u64 values, unbuffered (a send waits for a receiver,
 * which takes the value from the sender's hand) or with a buffer of @cap
 * values.  A send or a receive that cannot go on at once parks a
 * continuation (wsx_park()) in a struct wsx_chan_waiter on the channel's
 * sendq or recvq and returns -EINPROGRESS; the item that called it returns
 * too, holding no M.  The other side, finding the waiter, finishes the
 * operation for it (a sender copies its value straight to a parked
 * receiver, as Go's send(); a receiver takes a parked sender's value) and
 * readies the continuation (wsx_ready()), which runs next on the readier's
 * P when the readier is an item.  wsx_chan_close() readies every waiter
 * with a closed status; values still buffered stay for the receivers.
 *
 * The protocol (models/chan.pml checks it, with its BUG_ variants):
 *  - every decision is one critical section of @lock: the test of
 *    @closed, the look at the other side's queue, the buffer and the park;
 *    a test of @closed outside the lock would let a close between the
 *    test and the park ready nobody (BUG_CLOSE_MISSES);
 *  - a waiter is taken off its queue in the critical section that finds
 *    it, its value and status written there, and only then, after the
 *    unlock, readied: taken off later, a closer could find it still queued
 *    and ready it a second time (BUG_READY_TWICE);
 *  - a parker counts its continuation in its job (wsx_park()) before it
 *    publishes the waiter on a queue, under the lock: counted after, the
 *    continuation could be readied, run and end, dropping the job's count
 *    to 0 while the parker still runs (BUG_LATE_COUNT);
 *  - a receive from a full buffer with a sender parked takes the head and
 *    moves the sender's value to the tail, as Go's recv() (BUG_FULL_RECV).
 *
 * Memory ordering: the lock orders a waiter's fields between its parker,
 * which writes them before the publishing list_add_tail(), and its
 * readier, which reads and writes them after finding it under the lock.
 * The continuation reads @val and @status after wsx_ready() queued it:
 * the queue's publication (runnext's fully ordered xchg(), an inbox's
 * llist cmpxchg or the global queue's lock) orders the readier's writes
 * before the run, as for any queued item's fields.
 *
 * Fields: I = set at init, read-only afterwards; Q = under the lock of
 * the channel (wsx_chan.lock), taken with spin_lock_irqsave() since
 * in-kernel users may send or close in any context but NMI (and, on
 * PREEMPT_RT, where the lock sleeps, but hard interrupts).  A waiter's
 * fields are its parker's until it is on a queue, Q while on one, the
 * readier's from taking it off until wsx_ready(), and the continuation's
 * after.
 */
#include <linux/err.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "wsx.h"

/**
 * struct wsx_chan - a channel of u64 values
 * @lock:	the channel's lock (Q)
 * @closed:	set once by wsx_chan_close() (Q)
 * @cap:	the buffer's size in values, 0 for an unbuffered channel (I)
 * @head:	the oldest buffered value's slot (Q)
 * @count:	values in the buffer (Q)
 * @buf:	@cap slots, NULL when @cap is 0 (I; its contents Q)
 * @sendq:	parked senders, oldest first (Q)
 * @recvq:	parked receivers, oldest first (Q)
 */
struct wsx_chan {
	spinlock_t lock;		/* guards the fields tagged Q */
	bool closed;			/* Q */
	u32 cap;			/* I */
	u32 head;			/* Q */
	u32 count;			/* Q */
	u64 *buf;			/* I */
	struct list_head sendq;		/* Q */
	struct list_head recvq;		/* Q */
};

/**
 * wsx_chan_create - a new, open channel
 * @cap:	the buffer's size in values, 0 for an unbuffered channel; at
 *		most WSX_CHAN_CAP_MAX
 * @gfp:	how to allocate the channel and its buffer
 *
 * Return: the channel, ERR_PTR(-EINVAL) for a @cap beyond the limit, or
 * ERR_PTR(-ENOMEM).
 */
struct wsx_chan *wsx_chan_create(u32 cap, gfp_t gfp)
{
	struct wsx_chan *c;

	if (cap > WSX_CHAN_CAP_MAX)
		return ERR_PTR(-EINVAL);
	c = kzalloc(sizeof(*c), gfp);
	if (!c)
		return ERR_PTR(-ENOMEM);
	if (cap) {
		/* a failure is the caller's -ENOMEM, not a splat */
		c->buf = kvmalloc_array(cap, sizeof(*c->buf),
					gfp | __GFP_NOWARN);
		if (!c->buf) {
			kfree(c);
			return ERR_PTR(-ENOMEM);
		}
	}
	spin_lock_init(&c->lock);
	c->cap = cap;
	INIT_LIST_HEAD(&c->sendq);
	INIT_LIST_HEAD(&c->recvq);
	return c;
}
EXPORT_SYMBOL_GPL(wsx_chan_create);

/**
 * wsx_chan_destroy - free @c
 * @c:	a channel no item uses any more, with no waiter parked on it (close
 *	it first: wsx_chan_close() readies them); NULL is ignored
 *
 * Values still in its buffer are dropped: a user whose values own memory
 * receives them first (on a closed channel, wsx_chan_tryrecv() until
 * -ENODATA).  A channel with
 * waiters is a caller's bug: it warns and leaks the channel rather than
 * free what their continuations may still touch.
 */
void wsx_chan_destroy(struct wsx_chan *c)
{
	unsigned long flags;
	bool waiters;

	if (!c)
		return;
	spin_lock_irqsave(&c->lock, flags);
	waiters = !list_empty(&c->sendq) || !list_empty(&c->recvq);
	spin_unlock_irqrestore(&c->lock, flags);
	if (WARN_ON_ONCE(waiters))
		return;
	kvfree(c->buf);
	kfree(c);
}
EXPORT_SYMBOL_GPL(wsx_chan_destroy);

/* The slot @n values after the head, without a division. */
static u32 wsx_chan_slot(const struct wsx_chan *c, u32 n)
{
	u32 i = c->head + n;	/* < 2 * WSX_CHAN_CAP_MAX */

	return i < c->cap ? i : i - c->cap;
}

/* Park @w (its value and continuation set) at @q's tail; under @c's lock. */
static int wsx_chan_park(struct wsx_chan *c, struct wsx_chan_waiter *w,
			 struct list_head *q)
{
	lockdep_assert_held(&c->lock);
	/* counted before it is published (BUG_LATE_COUNT) */
	wsx_park(w->cont);
	w->status = 0;
	list_add_tail(&w->node, q);
	return -EINPROGRESS;
}

/**
 * wsx_chan_send - send @val on @c, or park until a receiver takes it
 * @c:		the channel
 * @val:	the value
 * @w:		the waiter to park, its @cont set (wsx_chan_waiter_init()), or
 *		NULL for a send that never parks (wsx_chan_trysend())
 *
 * A receiver parked on @c gets @val in its waiter and is readied; else
 * @val goes to the buffer if it has room; else the send parks @w.  After
 * -EINPROGRESS the caller touches neither @w nor its continuation: the
 * continuation may already run.  It runs once, with @w->status 0 when a
 * receiver took the value, -EPIPE when @c was closed meanwhile.
 *
 * The caller holds a count in the job of @w's continuation (it is an item
 * of that job that runs, or the job is not started), as wsx_park()
 * requires, and @w is parked nowhere else.
 *
 * Context: any but NMI, and not hard interrupts on PREEMPT_RT.
 * Return: 0 when @val was delivered or buffered; -EINPROGRESS when @w is
 * parked; -EPIPE when @c is closed (Go panics; the value was not sent);
 * -EAGAIN when @w is NULL and the send would park.
 */
int wsx_chan_send(struct wsx_chan *c, u64 val, struct wsx_chan_waiter *w)
{
	struct wsx_chan_waiter *r;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (c->closed) {
		ret = -EPIPE;
		goto unlock;
	}
	r = list_first_entry_or_null(&c->recvq, struct wsx_chan_waiter, node);
	if (r) {
		/* a receiver parks only on an empty buffer */
		WARN_ON_ONCE(c->count);
		/* off the queue where it was found (BUG_READY_TWICE) */
		list_del(&r->node);
		r->val = val;
		r->status = 0;
		spin_unlock_irqrestore(&c->lock, flags);
		wsx_ready(r->cont);
		return 0;
	}
	if (c->count < c->cap) {
		c->buf[wsx_chan_slot(c, c->count)] = val;
		c->count++;
	} else if (w) {
		w->val = val;
		ret = wsx_chan_park(c, w, &c->sendq);
	} else {
		ret = -EAGAIN;
	}
unlock:
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(wsx_chan_send);

/**
 * wsx_chan_recv - receive a value from @c, or park until one is sent
 * @c:		the channel
 * @val:	where the value goes when one is there at once
 * @w:		the waiter to park, its @cont set (wsx_chan_waiter_init()), or
 *		NULL for a receive that never parks (wsx_chan_tryrecv())
 *
 * Values come in the order they were sent: the buffer's head first, then
 * the parked senders', oldest first.  After -EINPROGRESS the caller
 * touches neither @w nor its continuation: the continuation may already
 * run.  It runs once, with @w->status 0 and the value in @w->val, or
 * -ENODATA when @c was closed meanwhile.
 *
 * The caller holds a count in the job of @w's continuation, as for
 * wsx_chan_send(), and @w is parked nowhere else.
 *
 * Context: any but NMI, and not hard interrupts on PREEMPT_RT.
 * Return: 0 with the value in @val; -EINPROGRESS when @w is parked;
 * -ENODATA when @c is closed and drained; -EAGAIN when @w is NULL and the
 * receive would park.
 */
int wsx_chan_recv(struct wsx_chan *c, u64 *val, struct wsx_chan_waiter *w)
{
	struct wsx_chan_waiter *s;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&c->lock, flags);
	s = list_first_entry_or_null(&c->sendq, struct wsx_chan_waiter, node);
	if (s) {
		/* a sender parks only on a full buffer */
		WARN_ON_ONCE(c->count != c->cap);
		list_del(&s->node);
		if (c->count) {
			/* full: the head out, the sender's value to the tail,
			 * which is the head's slot (BUG_FULL_RECV)
			 */
			*val = c->buf[c->head];
			c->buf[c->head] = s->val;
			c->head = wsx_chan_slot(c, 1);
		} else {
			*val = s->val;
		}
		s->status = 0;
		spin_unlock_irqrestore(&c->lock, flags);
		wsx_ready(s->cont);
		return 0;
	}
	if (c->count) {
		*val = c->buf[c->head];
		c->head = wsx_chan_slot(c, 1);
		c->count--;
	} else if (c->closed) {
		ret = -ENODATA;
	} else if (w) {
		ret = wsx_chan_park(c, w, &c->recvq);
	} else {
		ret = -EAGAIN;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(wsx_chan_recv);

/**
 * wsx_chan_close - close @c: no more sends; ready every waiter
 * @c:	the channel
 *
 * Parked receivers are readied with -ENODATA (a receiver parks only on an
 * empty buffer) and parked senders with -EPIPE, after the unlock, as Go's
 * closechan().  Values in the buffer stay: receives take them, then end
 * with -ENODATA.
 *
 * Context: any but NMI, and not hard interrupts on PREEMPT_RT.
 * Return: 0, or -EALREADY when @c was closed before (Go panics).
 */
int wsx_chan_close(struct wsx_chan *c)
{
	struct wsx_chan_waiter *w, *tmp;
	unsigned long flags;
	LIST_HEAD(woken);

	spin_lock_irqsave(&c->lock, flags);
	if (c->closed) {
		spin_unlock_irqrestore(&c->lock, flags);
		return -EALREADY;
	}
	c->closed = true;
	list_for_each_entry(w, &c->recvq, node)
		w->status = -ENODATA;
	list_for_each_entry(w, &c->sendq, node)
		w->status = -EPIPE;
	list_splice_init(&c->recvq, &woken);
	list_splice_tail_init(&c->sendq, &woken);
	spin_unlock_irqrestore(&c->lock, flags);
	/* the next one read before each ready: a readied waiter is not ours */
	list_for_each_entry_safe(w, tmp, &woken, node)
		wsx_ready(w->cont);
	return 0;
}
EXPORT_SYMBOL_GPL(wsx_chan_close);
