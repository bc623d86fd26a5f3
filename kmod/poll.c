// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the netpoller (Go's fourth queue, docs/park.md section 3).  A POLL
 * item waits for a file to report an event without holding an M: it adds
 * a wait-queue entry to the file's wait queue through vfs_poll() and a
 * poll table of its own, parks itself as its own continuation, and the
 * entry's wake function readies it (wsx_ready(): the readier's P when the
 * readier is an item, else the waking CPU's idle P or the global queue),
 * as io_uring's poll does.  Readied items reach the run queues directly,
 * not through a work source: the kernel calls the wake function itself,
 * so there is nothing for an M to poll (docs/park.md says why).
 *
 * Ownership (models/netpoll.pml; the invariant: at any moment at most one
 * party owns the item, and only the owner runs it, readies it, takes its
 * entry off a queue outside a wake, or frees it):
 *
 *  - @refs holds a count in WSX_POLL_COUNT and two flags above it.
 *    Whoever takes the count from 0 with a fully ordered
 *    atomic_fetch_inc() owns the item; the others only count, which tells
 *    the owner to look again.  A test of the count followed by a store
 *    would let two own it and ready it twice (BUG_DOUBLE_READY).
 *  - The arming item (wsx_poll_arm()) owns itself (@refs = 1, set before
 *    the item is published), is on its session's @armed list, and adds
 *    its entry before it looks at the file: vfs_poll() adds the entry
 *    (under the queue's lock) and then reads the file's state, and a
 *    waker changes the state and then takes the queue's lock to wake, so
 *    either the look sees the event or the wake finds the entry
 *    (BUG_CHECK_FIRST looks first).
 *  - The owner's look (wsx_poll_own()): a flag set: end cancelled; the
 *    event there: end with it; else count itself in its job again
 *    (wsx_park()) and give back the counts it read with a fully ordered
 *    atomic_sub_return(): 0 left means nobody came meanwhile, and whoever
 *    comes next takes the count from 0 and owns; more than 0 means
 *    somebody counted while it looked, and the owner readies itself to
 *    look again in its next run (that look comes after the give-back, so
 *    it sees what they saw: both atomics are fully ordered).  Giving back
 *    by a store of 0 drops that count and the event with it
 *    (BUG_ARM_LOST).
 *  - The wake function (wsx_poll_wake(), under the queue's lock) counts;
 *    from 0 it owns: it takes the entry off (it holds the lock), records
 *    the mask, clears @head with a store-release and readies the item as
 *    its last touch of it.
 *  - A canceller (the timeout's hrtimer, wsx_polls_cancel_all() at
 *    close()) sets WSX_POLL_CANCEL, then counts, and readies the item
 *    from 0.  The timeout's callback touches the item while its hrtimer
 *    runs, and the ending owner cancels the hrtimer (waiting for the
 *    callback) before it frees the item; wsx_polls_cancel_all() touches
 *    it under @lock, and the ending owner takes itself off the list under
 *    @lock before it frees (BUG_CANCEL_NOLOCK).
 *  - Ending (the owner, for good: it never gives the ownership back, so
 *    nobody readies it again): the entry off its queue if @head, read with
 *    smp_load_acquire(), is still set, under that queue's lock, so that a
 *    wake function running for the entry has returned and none starts
 *    (BUG_WAKE_AFTER_FREE removes without it); under rcu_read_lock(), for
 *    a queue freed with POLLFREE (freed only after a grace period).  Then
 *    off the session's list, the hrtimer cancelled, the file put.
 *
 * Fields: @file, @events, @item, @chans, @timeout_ns are set at creation
 * and read-only after; @revents, @error, @node's membership and the entry
 * are the owner's (@node under wsx_polls.lock); @head is written by the
 * owner when it adds the entry and cleared by an owning wake function or a
 * POLLFREE wake (under the queue's lock, store-release), read by the owner
 * (load-acquire); @refs is atomic.
 */
#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <linux/wsx.h>

#include "dev.h"
#include "fault.h"
#include "poll.h"
#include "uchan.h"
#include "wsx.h"

#define WSX_POLL_CANCEL		BIT(30)	/* never the sign bit: see above */
#define WSX_POLL_TIMEDOUT	BIT(29)	/* with CANCEL: it was the timeout */
#define WSX_POLL_COUNT		(WSX_POLL_TIMEDOUT - 1)

/* The events a POLL may ask for (uapi/linux/wsx.h). */
#define WSX_POLL_EVENTS	(EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDNORM | \
			 EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND | EPOLLMSG | \
			 EPOLLRDHUP | EPOLLERR | EPOLLHUP)

/* wsx_polls_cancel_all(): items cancelled in one hold of the lock */
#define WSX_POLL_CANCEL_BATCH	64

struct wsx_poll {
	struct wait_queue_entry wait;	/* on *@head; func wsx_poll_wake() */
	struct wait_queue_head *head;	/* the queue it is on, or NULL */
	struct file *file;
	struct wsx_item *item;		/* the continuation */
	struct wsx_uchans *chans;	/* the session's: its list, its count */
	struct hrtimer timeout;
	struct list_head node;		/* in chans->polls' armed or cancelled */
	atomic_t refs;
	__poll_t events;		/* asked, with EPOLLERR and EPOLLHUP */
	__poll_t woken;			/* the mask of the wake that readied it */
	__poll_t revents;
	u64 timeout_ns;
	int error;			/* -EOPNOTSUPP: a second queue */
	bool armed;
};

/* vfs_poll()'s table, with the item it adds an entry for. */
struct wsx_poll_table {
	poll_table pt;
	struct wsx_poll *poll;
};

void wsx_polls_init(struct wsx_polls *ps)
{
	spin_lock_init(&ps->lock);
	INIT_LIST_HEAD(&ps->armed);
	INIT_LIST_HEAD(&ps->cancelled);
	ps->closing = false;
}

/*
 * Cancel @poll (the timeout's cause in @flags too): flag, then count, and
 * from 0 ready it.  The caller keeps @poll alive: its hrtimer runs, or it
 * holds wsx_polls.lock with @poll listed.
 */
static void wsx_poll_cancel(struct wsx_poll *poll, unsigned int flags)
{
	atomic_or(WSX_POLL_CANCEL | flags, &poll->refs);
	if (!(atomic_fetch_inc(&poll->refs) & WSX_POLL_COUNT))
		wsx_ready(poll->item);
}

/**
 * wsx_polls_cancel_all - cancel a session's POLL items, for its close()
 * @ps:		the session's
 *
 * Each armed item is readied (now, or by whoever owns it when it gives
 * its ownership back) and ends with -ECANCELED; none arms after this.
 * The caller then waits for its jobs, which count the items.  At most
 * max_parked items; the lock is dropped every WSX_POLL_CANCEL_BATCH.
 */
void wsx_polls_cancel_all(struct wsx_polls *ps)
{
	struct wsx_poll *poll;
	unsigned int n;

	spin_lock(&ps->lock);
	ps->closing = true;
	while (!list_empty(&ps->armed)) {
		for (n = 0; n < WSX_POLL_CANCEL_BATCH; n++) {
			poll = list_first_entry_or_null(&ps->armed,
							struct wsx_poll, node);
			if (!poll)
				break;
			list_move_tail(&poll->node, &ps->cancelled);
			wsx_poll_cancel(poll, 0);
		}
		spin_unlock(&ps->lock);
		cond_resched();
		spin_lock(&ps->lock);
	}
	spin_unlock(&ps->lock);
}

static enum hrtimer_restart wsx_poll_timeout(struct hrtimer *t)
{
	wsx_poll_cancel(container_of(t, struct wsx_poll, timeout),
			WSX_POLL_TIMEDOUT);
	return HRTIMER_NORESTART;
}

/*
 * The entry's wake function, under the queue's lock: count the wake
 * unless its mask says it is not for us; from 0, own the item: take the
 * entry off and ready the item, the last touch of it.  POLLFREE (the
 * queue is being freed): off the queue whoever owns, and cancel.
 */
static int wsx_poll_wake(struct wait_queue_entry *wait, unsigned int mode,
			 int sync, void *key)
{
	struct wsx_poll *poll = container_of(wait, struct wsx_poll, wait);
	__poll_t mask = key_to_poll(key);

	if (unlikely(mask & POLLFREE)) {
		list_del_init(&wait->entry);
		/* the owner, seeing NULL, never takes the freed queue's lock */
		smp_store_release(&poll->head, NULL);
		wsx_poll_cancel(poll, 0);
		return 1;
	}
	if (mask && !(mask & poll->events))
		return 0;
	if (atomic_fetch_inc(&poll->refs) & WSX_POLL_COUNT)
		return 1;		/* the owner looks again */
	list_del_init(&wait->entry);
	poll->woken = mask;
	/*
	 * The owner-to-be reads @woken after the queueing in wsx_ready(), as
	 * a channel's continuation reads its waiter (chan.c); @head's
	 * release pairs with wsx_poll_remove_entry()'s acquire.
	 */
	smp_store_release(&poll->head, NULL);
	wsx_ready(poll->item);
	return 1;
}

/* vfs_poll()'s callback: add the entry to @head, the file's queue. */
static void wsx_poll_queue(struct file *file, struct wait_queue_head *head,
			   poll_table *pt)
{
	struct wsx_poll *poll = container_of(pt, struct wsx_poll_table,
					     pt)->poll;

	if (poll->head) {		/* a second queue: not supported */
		poll->error = -EOPNOTSUPP;
		return;
	}
	WRITE_ONCE(poll->head, head);
	add_wait_queue(head, &poll->wait);
}

/*
 * The queue the entry is on, or NULL, as the owner sees it: the acquire
 * pairs with the store-release of a wake function that took the entry off
 * (an owning one, or POLLFREE's), so that what it did to the entry before
 * comes before the owner's next touch of it.
 */
static struct wait_queue_head *wsx_poll_queued(struct wsx_poll *poll)
{
	/* pairs with wsx_poll_wake()'s store-release */
	return smp_load_acquire(&poll->head);
}

/* Look at the file, adding the entry when it is off its queue. */
static __poll_t wsx_poll_look(struct wsx_poll *poll)
{
	struct wsx_poll_table t = { .poll = poll };

	if (wsx_poll_queued(poll))
		return vfs_poll(poll->file, NULL);
	init_poll_funcptr(&t.pt, wsx_poll_queue);
	return vfs_poll(poll->file, &t.pt);
}

/*
 * The owner's look, with @mask the events it knows of.  Return: 0 (the
 * event: @poll->revents), -ETIME, -ECANCELED or -EOPNOTSUPP, owned for
 * good; -EINPROGRESS, parked (the item is no longer the caller's).
 */
static int wsx_poll_own(struct wsx_poll *poll, __poll_t mask)
{
	struct wsx_item *item = poll->item;
	bool looked = false;
	unsigned int v;

	for (;; looked = true) {
		v = atomic_read(&poll->refs);
		if (v & WSX_POLL_CANCEL)
			return v & WSX_POLL_TIMEDOUT ? -ETIME : -ECANCELED;
		if (poll->error)
			return poll->error;
		mask &= poll->events;
		if (mask) {
			poll->revents = mask;
			return 0;
		}
		/* off its queue (readied by a wake): the entry again */
		if (wsx_poll_queued(poll))
			break;
		if (looked)	/* the file's poll adds no entry: no wakeup */
			return -EOPNOTSUPP;
		mask = wsx_poll_look(poll);
	}
	/* runs again as itself, not flagged WSX_ITEM_ROOT: its job started */
	wsx_item_init(item, item->fn, item->job);
	poll->woken = 0;
	/* counted in its job before the give-back publishes it */
	wsx_park(item);
	/* BUG_ARM_LOST's window: a wake now counts while it looks */
	wsx_fault(WSX_FAULT_POLL_BEFORE_GIVEBACK);
	if (!(atomic_sub_return(v & WSX_POLL_COUNT, &poll->refs) &
	      WSX_POLL_COUNT))
		return -EINPROGRESS;
	/*
	 * Somebody counted while it looked: it is still the owner, and
	 * readies itself to look again in its next run (each run of the item
	 * looks a bounded number of times, whatever a user's wakes do).
	 */
	wsx_count(WSX_COUNT_POLL_LOOKED_AGAIN);
	wsx_ready(item);
	return -EINPROGRESS;
}

/* Off the file's queue, unless a wake function took it off already. */
static void wsx_poll_remove_entry(struct wsx_poll *poll)
{
	struct wait_queue_head *head;

	rcu_read_lock();	/* a POLLFREE queue is freed after a GP */
	head = wsx_poll_queued(poll);
	if (head) {
		spin_lock_irq(&head->lock);
		/* a POLLFREE wake may have taken it off while we waited */
		if (poll->head) {
			list_del_init(&poll->wait.entry);
			WRITE_ONCE(poll->head, NULL);
		}
		spin_unlock_irq(&head->lock);
	}
	rcu_read_unlock();
}

/*
 * Arm @poll for @item, its first run: own itself, listed, parked, the
 * timeout started, the entry added.  Return as wsx_poll_own(), or
 * -EAGAIN (max_parked) or -ECANCELED (the session closes) without arming.
 */
static int wsx_poll_arm(struct wsx_poll *poll, struct wsx_item *item)
{
	struct wsx_polls *ps = &poll->chans->polls;
	struct wsx_poll_table t = { .poll = poll };
	__poll_t mask;
	int ret;

	ret = wsx_uchans_park_get(poll->chans);
	if (ret)
		return ret;
	atomic_set(&poll->refs, 1);
	spin_lock(&ps->lock);
	if (ps->closing) {
		spin_unlock(&ps->lock);
		wsx_uchans_park_put(poll->chans);
		return -ECANCELED;
	}
	poll->item = item;
	list_add_tail(&poll->node, &ps->armed);
	spin_unlock(&ps->lock);
	poll->armed = true;
	if (poll->timeout_ns)
		hrtimer_start(&poll->timeout, ns_to_ktime(poll->timeout_ns),
			      HRTIMER_MODE_REL_SOFT);
	init_poll_funcptr(&t.pt, wsx_poll_queue);
	mask = vfs_poll(poll->file, &t.pt);
	return wsx_poll_own(poll, mask);
}

/* The owner ends, for good: off every list, nothing of it runs after. */
static void wsx_poll_end(struct wsx_poll *poll)
{
	struct wsx_polls *ps = &poll->chans->polls;

	wsx_poll_remove_entry(poll);
	spin_lock(&ps->lock);
	list_del(&poll->node);
	spin_unlock(&ps->lock);
	hrtimer_cancel(&poll->timeout);
	poll->armed = false;
	wsx_uchans_park_put(poll->chans);
}

/**
 * wsx_poll_check - check a POLL request's events and timeout
 * @events:	args[1]
 * @timeout_ns:	args[2]
 *
 * Return: 0, -EINVAL (no event or an unknown one), -E2BIG (a timeout over
 * WSX_DELAY_MAX_NS); a bad @fd is the creation's -EBADF.
 */
int wsx_poll_check(u64 events, u64 timeout_ns)
{
	if (!events || (events & ~(u64)WSX_POLL_EVENTS))
		return -EINVAL;
	return timeout_ns > WSX_DELAY_MAX_NS ? -E2BIG : 0;
}

/**
 * wsx_poll_create - a POLL on a file of the calling task
 * @fd:		the task's descriptor
 * @events:	checked by wsx_poll_check()
 * @timeout_ns:	0, or the time after which it ends with -ETIME
 * @chans:	the session's, whose POLLs and parked items it joins
 *
 * Context: the submitter's (its file table), process context.
 * Return: the POLL, holding the file, or an ERR_PTR: -EBADF (no such
 * descriptor), -EOPNOTSUPP (a file without poll, or a /dev/wsx file,
 * whose release a POLL holding it would keep from ever running), -EINVAL
 * (no session), -ENOMEM.
 */
struct wsx_poll *wsx_poll_create(u64 fd, u64 events, u64 timeout_ns,
				 struct wsx_uchans *chans)
{
	struct wsx_poll *poll;
	struct file *file;

	if (!chans)
		return ERR_PTR(-EINVAL);
	if (fd > INT_MAX)
		return ERR_PTR(-EBADF);
	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	if (!file_can_poll(file) || wsx_file_is_session(file)) {
		fput(file);
		return ERR_PTR(-EOPNOTSUPP);
	}
	poll = kzalloc(sizeof(*poll), GFP_KERNEL_ACCOUNT);
	if (!poll) {
		fput(file);
		return ERR_PTR(-ENOMEM);
	}
	poll->file = file;
	poll->chans = chans;
	poll->events = (__force __poll_t)events | EPOLLERR | EPOLLHUP;
	poll->timeout_ns = timeout_ns;
	init_waitqueue_func_entry(&poll->wait, wsx_poll_wake);
	hrtimer_init(&poll->timeout, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	poll->timeout.function = wsx_poll_timeout;
	return poll;
}

/**
 * wsx_poll_run - a run of a POLL's item: arm, or the readied continuation
 * @poll:	the POLL
 * @item:	its item
 * @revents:	set to the events the file reported, when it returns 0
 *
 * Return: -EINPROGRESS when the item is parked (or readied itself): it is
 * no longer the caller's, and runs again; else it has ended: 0, -ETIME,
 * -ECANCELED, -EAGAIN or -EOPNOTSUPP, and the caller frees @poll.
 */
int wsx_poll_run(struct wsx_poll *poll, struct wsx_item *item, u64 *revents)
{
	int ret;

	if (!poll->armed) {
		if (wsx_cancelled(item))
			return -ECANCELED;
		ret = wsx_poll_arm(poll, item);
	} else {
		__poll_t mask = poll->woken;

		if (!(mask & poll->events))
			mask = wsx_poll_look(poll);
		ret = wsx_poll_own(poll, mask);
	}
	if (ret == -EINPROGRESS)
		return ret;
	if (poll->armed)
		wsx_poll_end(poll);
	*revents = poll->revents;
	return ret;
}

/* Free a POLL that has ended, or never ran. */
void wsx_poll_free(struct wsx_poll *poll)
{
	fput(poll->file);
	kfree(poll);
}
