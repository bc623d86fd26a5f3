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
 * Select (wsx_chan_select(), Go's selectgo(); models/select.pml and
 * models/select_race.pml): a select locks all its cases' channels, each
 * once, in the order of their addresses (two selects never wait for each
 * other), and proceeds with the first case, in a random order, that can;
 * else it parks one waiter per case, all naming one struct wsx_select,
 * and one continuation.
 *  - A select's waiter is finished only by the readier that claims the
 *    select, by a cmpxchg of @done from 0 to 1 under the lock of the
 *    channel where it found the waiter (wsx_chan_dequeue()): senders,
 *    receivers, closers and other selects alike.  Two readiers of two
 *    channels meet only in that word: without the claim both would
 *    finish a case and ready the continuation twice (BUG_NOCLAIM).  A
 *    waiter whose claim is lost is stale: taken off, passed over.
 *  - @done is 0 and the continuation counted (wsx_park()) before any
 *    waiter is queued, under every lock of the select.
 *  - The continuation's wsx_chan_select_resume() takes every lock again
 *    and the other waiters off their queues before it returns: until
 *    then a readier may hold any of them and read @done, so the record
 *    outlives them; after, it may be freed or park again with @done 0
 *    and no stale waiter of the last select left (BUG_STALE_LEFT).
 *  - The selecting item reads its record until its last unlock, that of
 *    the first channel in lock order, which its resume takes first.
 *  - A parked select holds a reference on each of its channels until its
 *    resume has unlocked them: a readier may close a channel and its
 *    user destroy it before the resume locks it again.
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
 * after.  A select's @cases and @n are its caller's, read by
 * wsx_chan_select() and its resume; @lockorder is written by
 * wsx_chan_select() before it locks, read-only until the resume returns;
 * @done is written under a case's channel lock (0 by the parking select,
 * 1 by the claim) and read by the resume; @won is written by the claiming
 * readier under that lock, read by the resume after the ready.  A failed
 * cmpxchg orders nothing, and needs to: the loser touches no other field
 * of the record.
 */
#include <linux/err.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "chan.h"
#include "wsx.h"

/* Channels that exist, every user's (A: atomic) */
static atomic_long_t wsx_chans_live = ATOMIC_LONG_INIT(0);

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
 * @ref:	its creator's, and one per parked select naming it, until that
 *		select's resume: the resume locks the channel again, after
 *		a close and a destroy may have come (atomic)
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
	refcount_t ref;			/* atomic */
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
	refcount_set(&c->ref, 1);
	atomic_long_inc(&wsx_chans_live);
	c->cap = cap;
	INIT_LIST_HEAD(&c->sendq);
	INIT_LIST_HEAD(&c->recvq);
	return c;
}
EXPORT_SYMBOL_GPL(wsx_chan_create);

static void wsx_chan_put(struct wsx_chan *c)
{
	if (refcount_dec_and_test(&c->ref)) {
		kvfree(c->buf);
		kfree(c);
		atomic_long_dec(&wsx_chans_live);
	}
}

/* Channels created and not yet freed, every user's. */
long wsx_chans_count(void)
{
	return atomic_long_read(&wsx_chans_live);
}

/*
 * Does @q hold a waiter that some readier must still finish: a send's or
 * a receive's, or one of a select nobody claimed?  Under @c's lock, which
 * keeps a select's record there (its resume takes the lock).
 */
static bool wsx_chan_waiting(struct wsx_chan *c, struct list_head *q)
{
	struct wsx_chan_waiter *w;

	lockdep_assert_held(&c->lock);
	list_for_each_entry(w, q, node)
		if (!w->sel || !atomic_read(&w->sel->done))
			return true;
	return false;
}

/**
 * wsx_chan_destroy - drop @c: freed once no parked select names it
 * @c:	a channel no item uses any more, with no waiter parked on it (close
 *	it first: wsx_chan_close() readies them); NULL is ignored
 *
 * Values still in its buffer are dropped: a user whose values own memory
 * receives them first (on a closed channel, wsx_chan_tryrecv() until
 * -ENODATA).  A select readied meanwhile, by @c or another channel, may
 * still have to lock @c in its resume: @c is freed after that.  A channel
 * with waiters is a caller's bug: it warns and leaks the channel rather
 * than free what their continuations may still touch.
 */
void wsx_chan_destroy(struct wsx_chan *c)
{
	unsigned long flags;
	bool waiters;

	if (!c)
		return;
	spin_lock_irqsave(&c->lock, flags);
	waiters = wsx_chan_waiting(c, &c->sendq) ||
		  wsx_chan_waiting(c, &c->recvq);
	spin_unlock_irqrestore(&c->lock, flags);
	if (WARN_ON_ONCE(waiters))
		return;
	wsx_chan_put(c);
}
EXPORT_SYMBOL_GPL(wsx_chan_destroy);

/* The slot @n values after the head, without a division. */
static u32 wsx_chan_slot(const struct wsx_chan *c, u32 n)
{
	u32 i = c->head + n;	/* < 2 * WSX_CHAN_CAP_MAX */

	return i < c->cap ? i : i - c->cap;
}

/*
 * The first waiter of @q that the caller may finish, taken off @q, or
 * NULL; under @c's lock.  A send's or a receive's waiter is the caller's;
 * a select's only if the caller wins its claim, and then the caller
 * records which case won.  A select's waiter whose claim another readier
 * won is stale: it is taken off too, and the next one is tried.
 */
static struct wsx_chan_waiter *wsx_chan_dequeue(struct wsx_chan *c,
						struct list_head *q)
{
	struct wsx_chan_waiter *w;

	lockdep_assert_held(&c->lock);
	while ((w = list_first_entry_or_null(q, struct wsx_chan_waiter,
					     node))) {
		/* off the queue where it was found (BUG_READY_TWICE); init:
		 * the select's resume looks whether it is still queued
		 */
		list_del_init(&w->node);
		if (!w->sel)
			return w;
		/* a select is readied by one readier only (BUG_NOCLAIM) */
		if (atomic_cmpxchg(&w->sel->done, 0, 1) == 0) {
			w->sel->won = w->idx;
			return w;
		}
	}
	return NULL;
}

/* Park @w (its value and continuation set) at @q's tail; under @c's lock. */
static int wsx_chan_park(struct wsx_chan *c, struct wsx_chan_waiter *w,
			 struct list_head *q)
{
	lockdep_assert_held(&c->lock);
	/* counted before it is published (BUG_LATE_COUNT) */
	wsx_park(w->cont);
	w->sel = NULL;
	w->status = 0;
	list_add_tail(&w->node, q);
	return -EINPROGRESS;
}

/*
 * Send @val on @c if no wait is needed, under its lock.  Return: 0 when
 * @val was delivered (*@r is then the receiver to ready after the unlock)
 * or buffered (*@r NULL); -EPIPE when @c is closed; -EAGAIN when the send
 * must wait.
 */
static int wsx_chan_send_locked(struct wsx_chan *c, u64 val,
				struct wsx_chan_waiter **r)
{
	lockdep_assert_held(&c->lock);
	*r = NULL;
	if (c->closed)
		return -EPIPE;
	*r = wsx_chan_dequeue(c, &c->recvq);
	if (*r) {
		/* a receiver parks only on an empty buffer */
		WARN_ON_ONCE(c->count);
		(*r)->val = val;
		(*r)->status = 0;
		return 0;
	}
	if (c->count < c->cap) {
		c->buf[wsx_chan_slot(c, c->count)] = val;
		c->count++;
		return 0;
	}
	return -EAGAIN;
}

/*
 * Receive a value from @c into *@val if no wait is needed, under its
 * lock.  Return: 0 with the value (*@s is then the sender to ready after
 * the unlock, or NULL); -ENODATA when @c is closed and drained; -EAGAIN
 * when the receive must wait.
 */
static int wsx_chan_recv_locked(struct wsx_chan *c, u64 *val,
				struct wsx_chan_waiter **s)
{
	lockdep_assert_held(&c->lock);
	*s = wsx_chan_dequeue(c, &c->sendq);
	if (*s) {
		/* a sender parks only on a full buffer */
		WARN_ON_ONCE(c->count != c->cap);
		if (c->count) {
			/* full: the head out, the sender's value to the tail,
			 * which is the head's slot (BUG_FULL_RECV)
			 */
			*val = c->buf[c->head];
			c->buf[c->head] = (*s)->val;
			c->head = wsx_chan_slot(c, 1);
		} else {
			*val = (*s)->val;
		}
		(*s)->status = 0;
		return 0;
	}
	if (c->count) {
		*val = c->buf[c->head];
		c->head = wsx_chan_slot(c, 1);
		c->count--;
		return 0;
	}
	return c->closed ? -ENODATA : -EAGAIN;
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
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = wsx_chan_send_locked(c, val, &r);
	if (ret == -EAGAIN && w) {
		w->val = val;
		ret = wsx_chan_park(c, w, &c->sendq);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (r)
		wsx_ready(r->cont);
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
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = wsx_chan_recv_locked(c, val, &s);
	if (ret == -EAGAIN && w)
		ret = wsx_chan_park(c, w, &c->recvq);
	spin_unlock_irqrestore(&c->lock, flags);
	if (s)
		wsx_ready(s->cont);
	return ret;
}
EXPORT_SYMBOL_GPL(wsx_chan_recv);

/**
 * wsx_chan_close - close @c: no more sends; ready every waiter
 * @c:	the channel
 *
 * Parked receivers are readied with -ENODATA (a receiver parks only on an
 * empty buffer) and parked senders with -EPIPE, after the unlock, as Go's
 * closechan().  A select parked on @c is readied so if @c's case wins its
 * claim.  Values in the buffer stay: receives take them, then end with
 * -ENODATA.
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
	while ((w = wsx_chan_dequeue(c, &c->recvq))) {
		w->status = -ENODATA;
		list_add_tail(&w->node, &woken);
	}
	while ((w = wsx_chan_dequeue(c, &c->sendq))) {
		w->status = -EPIPE;
		list_add_tail(&w->node, &woken);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	/* the next one read before each ready: a readied waiter is not ours */
	list_for_each_entry_safe(w, tmp, &woken, node)
		wsx_ready(w->cont);
	return 0;
}
EXPORT_SYMBOL_GPL(wsx_chan_close);

/* @sel's cases in a random order (Fisher-Yates, inside out), Go's pollorder */
static void wsx_select_pollorder(const struct wsx_select *sel, u8 *order)
{
	unsigned int i, j;

	for (i = 0; i < sel->n; i++) {
		j = get_random_u32_below(i + 1);
		if (j != i)
			order[i] = order[j];
		order[j] = i;
	}
}

static struct wsx_chan *wsx_select_chan(const struct wsx_select *sel,
					unsigned int i)
{
	return sel->cases[sel->lockorder[i]].chan;
}

/* @sel's cases by their channel's address (insertion sort), Go's lockorder */
static void wsx_select_lockorder(struct wsx_select *sel)
{
	unsigned int i, j;
	u8 k;

	for (i = 0; i < sel->n; i++) {
		k = i;
		for (j = i; j && sel->cases[sel->lockorder[j - 1]].chan >
				 sel->cases[k].chan; j--)
			sel->lockorder[j] = sel->lockorder[j - 1];
		sel->lockorder[j] = k;
	}
}

/* Is place @i of lockorder its channel's first (a channel named twice)? */
static bool wsx_select_first(const struct wsx_select *sel, unsigned int i)
{
	return !i || wsx_select_chan(sel, i) != wsx_select_chan(sel, i - 1);
}

/*
 * Lock every channel of @sel once, in lockorder, so that two selects
 * never wait for each other's locks; the first lock saves the interrupt
 * state, and each further one is its own lockdep subclass.
 */
static unsigned long wsx_select_lock(const struct wsx_select *sel)
{
	unsigned long flags = 0;
	unsigned int i, sub = 0;
	struct wsx_chan *c;

	for (i = 0; i < sel->n; i++) {
		if (!wsx_select_first(sel, i))
			continue;
		c = wsx_select_chan(sel, i);
		if (!sub)
			spin_lock_irqsave_nested(&c->lock, flags, 0);
		else
			spin_lock_nested(&c->lock, sub);
		sub++;
	}
	return flags;
}

/*
 * Unlock @sel's channels, the first in lockorder last: a parked select's
 * continuation, readied meanwhile, takes that one first in its resume,
 * so @sel is still there until this returns, and not after.
 */
static void wsx_select_unlock(const struct wsx_select *sel,
			      unsigned long flags)
{
	unsigned int i;

	for (i = sel->n - 1; i > 0; i--)
		if (wsx_select_first(sel, i))
			spin_unlock(&wsx_select_chan(sel, i)->lock);
	spin_unlock_irqrestore(&wsx_select_chan(sel, 0)->lock, flags);
}

/**
 * wsx_chan_select - proceed with one of @sel's cases, or park on all
 * @sel:	the select: @sel->n cases set, each with its channel, its
 *		direction and a send's value
 * @cont:	the continuation to park, initialised with wsx_item_init(), or
 *		NULL for a select that never parks (wsx_chan_tryselect())
 *
 * Go's selectgo(): with every case's channel locked, the cases are
 * looked at in a random order and the first that can proceed does, as
 * wsx_chan_send() or wsx_chan_recv() would without parking: a send on a
 * closed channel proceeds too, with -EPIPE, and a receive on a closed,
 * drained one with -ENODATA.  With none, a waiter per case goes on its
 * channel's queue and @cont is parked once; the first readier to claim
 * one of them finishes its case and readies @cont, which calls
 * wsx_chan_select_resume() to learn which case won.  After -EINPROGRESS
 * the caller touches neither @sel nor @cont until then: the continuation
 * may already run.
 *
 * The caller holds a count in @cont's job, as for wsx_chan_send(); @sel
 * lives until its resume (a readier may look at it until then), and is
 * not parked already.
 *
 * Context: any but NMI, and not hard interrupts on PREEMPT_RT.
 * Return: the case that proceeded, its @status and a receive's @val set;
 * -EINPROGRESS when @cont is parked; -EAGAIN when @cont is NULL and the
 * select would park; -EINVAL for no case, more than WSX_SELECT_MAX, or a
 * case without a channel (Go's nil channel, never ready: leave it out).
 */
int wsx_chan_select(struct wsx_select *sel, struct wsx_item *cont)
{
	struct wsx_chan_waiter *partner = NULL;
	u8 pollorder[WSX_SELECT_MAX];
	struct wsx_select_case *sc;
	struct wsx_chan_waiter *w;
	unsigned long flags;
	unsigned int i;
	int ret;

	if (!sel->n || sel->n > WSX_SELECT_MAX)
		return -EINVAL;
	for (i = 0; i < sel->n; i++)
		if (!sel->cases[i].chan)
			return -EINVAL;
	wsx_select_pollorder(sel, pollorder);
	wsx_select_lockorder(sel);
	flags = wsx_select_lock(sel);
	for (i = 0; i < sel->n; i++) {
		sc = &sel->cases[pollorder[i]];
		if (sc->send)
			ret = wsx_chan_send_locked(sc->chan, sc->val, &partner);
		else
			ret = wsx_chan_recv_locked(sc->chan, &sc->val, &partner);
		if (ret != -EAGAIN) {
			sc->status = ret;
			ret = pollorder[i];
			goto unlock;
		}
	}
	ret = -EAGAIN;
	if (!cont)
		goto unlock;
	/* no readier sees a waiter before the unclaimed word, nor before
	 * the count (BUG_LATE_COUNT)
	 */
	atomic_set(&sel->done, 0);
	wsx_park(cont);
	for (i = 0; i < sel->n; i++)
		if (wsx_select_first(sel, i))
			refcount_inc(&wsx_select_chan(sel, i)->ref);
	for (i = 0; i < sel->n; i++) {
		sc = &sel->cases[i];
		w = &sel->waiters[i];
		w->cont = cont;
		w->sel = sel;
		w->idx = i;
		w->val = sc->val;
		w->status = 0;
		list_add_tail(&w->node,
			      sc->send ? &sc->chan->sendq : &sc->chan->recvq);
	}
	ret = -EINPROGRESS;
unlock:
	/* parked, the last touch of @sel */
	wsx_select_unlock(sel, flags);
	if (partner)
		wsx_ready(partner->cont);
	return ret;
}
EXPORT_SYMBOL_GPL(wsx_chan_select);

/**
 * wsx_chan_select_resume - which case of a parked select won
 * @sel:	the select, whose wsx_chan_select() returned -EINPROGRESS
 *
 * Called by the select's continuation, once, before it touches @sel:
 * takes the other cases' waiters off their channels' queues (Go's
 * selectgo() after its gopark()), so that @sel may be freed or used for
 * the next select on return.
 *
 * Return: the case that won, its @status and a receive's @val set, or
 * -EINVAL (and a warning) when @sel did not park.
 */
int wsx_chan_select_resume(struct wsx_select *sel)
{
	unsigned int i, won = sel->won;
	struct wsx_chan_waiter *w;
	unsigned long flags;

	if (WARN_ON_ONCE(!atomic_read(&sel->done) || won >= sel->n))
		return -EINVAL;
	flags = wsx_select_lock(sel);
	for (i = 0; i < sel->n; i++) {
		w = &sel->waiters[i];
		/* the winner's node is its readier's (a closer's list) */
		if (i != won && !list_empty(&w->node))
			list_del_init(&w->node);
	}
	wsx_select_unlock(sel, flags);
	/* the references its park took: a channel may go with the last */
	for (i = 0; i < sel->n; i++)
		if (wsx_select_first(sel, i))
			wsx_chan_put(wsx_select_chan(sel, i));
	w = &sel->waiters[won];
	sel->cases[won].status = w->status;
	if (!sel->cases[won].send)
		sel->cases[won].val = w->val;
	return won;
}
EXPORT_SYMBOL_GPL(wsx_chan_select_resume);
