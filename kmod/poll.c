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
 *    the item is published), is on its session's @armed list, and looks
 *    as every owner does.
 *  - The owner's look (wsx_poll_own()), one per run of the item: read
 *    @refs (acquire: before the look), a flag set: end cancelled; look at
 *    the file, adding the entry first when it is off its queue (vfs_poll()
 *    adds it under the queue's lock, then reads the file's state, and a
 *    waker changes the state, then takes that lock to wake: either the
 *    look sees the event or the wake finds the entry; BUG_CHECK_FIRST
 *    looks first); the event there: end with it; else count itself in
 *    its job again (wsx_park()) and give back the counts it read, those
 *    from before the look, with a fully ordered atomic_sub_return(): 0
 *    left means nobody came since the read, and whoever comes next takes
 *    the count from 0 and owns; more than 0 means somebody counted since,
 *    maybe after the look, and the owner readies itself to look again in
 *    its next run (after the give-back, which read their count: both
 *    atomics are fully ordered, so the look sees what they saw).  Giving
 *    back counts not read before the look, or by a store of 0, drops a
 *    count and the event with it (BUG_ARM_LOST).
 *  - The wake function (wsx_poll_wake(), under the queue's lock) counts
 *    (not past WSX_POLL_CAP: the owner then looks again anyway); from 0
 *    it owns: it takes the entry off (it holds the lock), records the
 *    mask, clears @head with a store-release and readies the item as its
 *    last touch of it.
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
 *  - POLLFREE (a queue freed under its entries: signalfd's, which a POLL
 *    never uses, wsx_poll_file_ok(), but the rule costs nothing): the
 *    wake function cancels, takes the entry off and clears @head last,
 *    as io_uring's io_pollfree_wake() does.
 *
 * The files: a file's poll runs on an M that every session shares, so a
 * POLL takes only files whose poll never sleeps (wsx_poll_file_ok()).
 *
 * Fields: @file, @events, @chans, @timeout_ns are set at creation and
 * @item at arming, read-only after; @revents, @error, @armed, @counted,
 * @node's membership and the entry are the owner's (@node under
 * wsx_polls.lock); @woken the owning wake function's, then the owner's;
 * @head is written by the owner when it adds the entry and cleared by an
 * owning wake function or a POLLFREE wake (under the queue's lock,
 * store-release), read by the owner (load-acquire); @refs is atomic.
 */
#include <linux/atomic.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <linux/wsx.h>

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

/* POLLs counted in max_parked now, every session's (A: atomic) */
static atomic_long_t wsx_polls_counted = ATOMIC_LONG_INIT(0);

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
	bool armed;			/* on the session's list */
	bool counted;			/* in the session's parked items */
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
 * The count a wake stops adding to.  It is not 0, so an owner holds the
 * item, and the owner gives back at most WSX_POLL_CAP - 1 counts of a
 * look (wsx_poll_own()), so that it looks again after a wake it did not
 * count.  Far below WSX_POLL_TIMEDOUT: the wakes are serialized by the
 * queue's lock, and only the cancellers (the timeout, close(), POLLFREE)
 * count past the cap.
 */
#define WSX_POLL_CAP	BIT(24)

/*
 * The entry's wake function, under the queue's lock: count the wake
 * unless its mask says it is not for us; from 0, own the item: take the
 * entry off and ready the item, the last touch of it.  POLLFREE (the
 * queue is being freed): cancel, off the queue, whoever owns.
 */
static int wsx_poll_wake(struct wait_queue_entry *wait, unsigned int mode,
			 int sync, void *key)
{
	struct wsx_poll *poll = container_of(wait, struct wsx_poll, wait);
	__poll_t mask = key_to_poll(key);

	if (unlikely(mask & POLLFREE)) {
		/*
		 * io_uring's order: cancel first (the item may be readied and
		 * end, but its end takes this queue's lock, which we hold,
		 * while @head is set), then off the queue, then @head cleared
		 * as the last touch: after it the ending owner takes no lock
		 * and may free the item.
		 */
		wsx_poll_cancel(poll, 0);
		list_del_init(&wait->entry);
		/* pairs with wsx_poll_queued(): the last touch */
		smp_store_release(&poll->head, NULL);
		return 1;
	}
	if (mask && !(mask & poll->events))
		return 0;
	if ((atomic_read(&poll->refs) & WSX_POLL_COUNT) >= WSX_POLL_CAP) {
		/*
		 * The file's new state before the read that drops this wake
		 * (store buffering against the owner's give-back and next
		 * look: litmus/poll-cap-drop-sb)
		 */
		smp_mb();
		if ((atomic_read(&poll->refs) & WSX_POLL_COUNT) >=
		    WSX_POLL_CAP)
			return 1;	/* owned: the owner looks again */
	}
	if (atomic_fetch_inc(&poll->refs) & WSX_POLL_COUNT)
		return 1;		/* owned: the owner looks again */
	list_del_init(&wait->entry);
	poll->woken = mask;
	/*
	 * The owner-to-be reads @woken after the queueing in wsx_ready(), as
	 * a channel's continuation reads its waiter (chan.c); @head's
	 * release pairs with wsx_poll_queued()'s acquire.
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

	/* a POLLFREE wake of the first queue may clear it meanwhile */
	if (READ_ONCE(poll->head)) {	/* a second queue: not supported */
		poll->error = -EOPNOTSUPP;
		return;
	}
	WRITE_ONCE(poll->head, head);
	add_wait_queue(head, &poll->wait);
}

/*
 * The queue the entry is on, or NULL, as the owner sees it: the acquire
 * pairs with the store-release of a wake function that took the entry off
 * (an owning one, or POLLFREE's), so that what it did before (the mask,
 * the cancel flag) comes before the owner's next touch of the item.
 */
static struct wait_queue_head *wsx_poll_queued(struct wsx_poll *poll)
{
	/* pairs with wsx_poll_wake()'s store-release */
	return smp_load_acquire(&poll->head);
}

/*
 * Look at the file for the events asked (the table's key: no busy
 * polling of a socket, POLL_BUSY_LOOP), adding the entry when it is off
 * its queue.
 */
static __poll_t wsx_poll_look(struct wsx_poll *poll)
{
	struct wsx_poll_table t = { .poll = poll };

	init_poll_funcptr(&t.pt, wsx_poll_queued(poll) ? NULL :
			  wsx_poll_queue);
	t.pt._key = poll->events;
	return vfs_poll(poll->file, &t.pt) & poll->events;
}

static int wsx_poll_cancelled(unsigned int v)
{
	return v & WSX_POLL_TIMEDOUT ? -ETIME : -ECANCELED;
}

/*
 * The owner's look, with @hint the mask of the wake that readied it (0:
 * none).  Return: 0 (the event: @poll->revents), -ETIME, -ECANCELED,
 * -EAGAIN (it would wait beyond max_parked) or -EOPNOTSUPP, owned for
 * good; -EINPROGRESS, parked or readied by itself (the item is no longer
 * the caller's).
 */
static int wsx_poll_own(struct wsx_poll *poll, __poll_t hint)
{
	struct wsx_item *item = poll->item;
	unsigned int v, give;
	__poll_t mask;

	/*
	 * The counts it gives back are the ones it read before it looks
	 * (acquire: the look is not ordered before the read): a count that
	 * comes after the read is not given back, so the give-back sees it.
	 */
	v = atomic_read_acquire(&poll->refs);
	if (v & WSX_POLL_CANCEL)
		return wsx_poll_cancelled(v);
	mask = hint & poll->events;
	if (!mask)
		mask = wsx_poll_look(poll);
	if (poll->error)
		return poll->error;
	if (mask) {
		poll->revents = mask;
		return 0;
	}
	if (!wsx_poll_queued(poll)) {
		v = atomic_read(&poll->refs);	/* POLLFREE's cancel? */
		/* else the file's poll adds no entry: nothing would wake it */
		return v & WSX_POLL_CANCEL ? wsx_poll_cancelled(v) :
					     -EOPNOTSUPP;
	}
	if (!poll->counted) {		/* its first wait */
		if (wsx_uchans_park_get(poll->chans))
			return -EAGAIN;
		poll->counted = true;
		atomic_long_inc(&wsx_polls_counted);
	}
	/* runs again as itself, not flagged WSX_ITEM_ROOT: its job started */
	wsx_item_init(item, item->fn, item->job);
	poll->woken = 0;
	/* counted in its job before the give-back publishes it */
	wsx_park(item);
	/* BUG_ARM_LOST's window: a wake now counts while it looks */
	wsx_fault(WSX_FAULT_POLL_BEFORE_GIVEBACK);
	give = v & WSX_POLL_COUNT;
	if (give >= WSX_POLL_CAP)
		give--;		/* a wake may have gone uncounted: look again */
	if (!(atomic_sub_return(give, &poll->refs) & WSX_POLL_COUNT))
		return -EINPROGRESS;
	/*
	 * Somebody counted after it read: it is still the owner, and
	 * readies itself to look again in its next run (one look per run,
	 * whatever a user's wakes do).
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
 * Arm @poll for @item, its first run: own itself, listed, the timeout
 * started, then the owner's look, which adds the entry.  Return as
 * wsx_poll_own(), or -ECANCELED (the session closes) without arming.
 */
static int wsx_poll_arm(struct wsx_poll *poll, struct wsx_item *item)
{
	struct wsx_polls *ps = &poll->chans->polls;

	atomic_set(&poll->refs, 1);
	spin_lock(&ps->lock);
	if (ps->closing) {
		spin_unlock(&ps->lock);
		return -ECANCELED;
	}
	poll->item = item;
	list_add_tail(&poll->node, &ps->armed);
	spin_unlock(&ps->lock);
	poll->armed = true;
	if (poll->timeout_ns)
		hrtimer_start(&poll->timeout, ns_to_ktime(poll->timeout_ns),
			      HRTIMER_MODE_REL_SOFT);
	return wsx_poll_own(poll, 0);
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
	if (poll->counted) {
		wsx_uchans_park_put(poll->chans);
		atomic_long_dec(&wsx_polls_counted);
	}
	poll->counted = false;
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
	if (!events || (events & ~(__force u64)WSX_POLL_EVENTS))
		return -EINVAL;
	return timeout_ns > WSX_DELAY_MAX_NS ? -E2BIG : 0;
}

/*
 * A socket of a family whose poll never sleeps: not vsock's, whose poll
 * takes the socket's lock, which a setsockopt() holds while it copies from
 * a user's memory (a fault a user may serve as slowly as it likes), nor
 * one that adds a second queue only now and then (rds's).
 */
static bool wsx_poll_socket_ok(struct file *file)
{
#if IS_ENABLED(CONFIG_NET)
	struct socket *sock = sock_from_file(file);

	if (!sock)
		return false;
	/* IPV6_ADDRFORM and the ULPs swap ops, within these families */
	switch (READ_ONCE(sock->ops)->family) {
	case AF_UNIX:
	case AF_INET:
	case AF_INET6:
	case AF_NETLINK:
	case AF_PACKET:
		return true;
	}
#endif
	return false;
}

/*
 * May an M call @file's poll?  Sockets (of the families above), pipes and
 * FIFOs, and eventfds: their poll never sleeps.  Another file's may wait
 * for as long as a user wants (FUSE's asks its daemon), holding an M that
 * other sessions share;
 * signalfd's looks at the caller's signals (an M's); and a file that may
 * hold a POLL's own session (a /dev/wsx file, an io_uring's) would keep
 * the session from ever being released.
 */
static bool wsx_poll_file_ok(struct file *file)
{
	struct eventfd_ctx *ctx;

	if (!file_can_poll(file))
		return false;
	/* a FIFO's file is a pipe's (init_special_inode()) */
	if (S_ISFIFO(file_inode(file)->i_mode))
		return true;
	if (wsx_poll_socket_ok(file))
		return true;
	ctx = eventfd_ctx_fileget(file);
	if (IS_ERR(ctx))
		return false;
	eventfd_ctx_put(ctx);
	return true;
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
 * descriptor), -EOPNOTSUPP (not a socket of a family whose poll never
 * sleeps, a pipe or FIFO, or an eventfd: wsx_poll_file_ok()), -EINVAL
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
	if (!wsx_poll_file_ok(file)) {
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
		ret = wsx_poll_own(poll, poll->woken);
	}
	if (ret == -EINPROGRESS)
		return ret;
	if (poll->armed)
		wsx_poll_end(poll);
	*revents = (__force u64)poll->revents;
	return ret;
}

/* POLLs waiting for their files: from their first wait until they end. */
long wsx_polls_waiting(void)
{
	return atomic_long_read(&wsx_polls_counted);
}

/* Free a POLL that has ended, or never ran. */
void wsx_poll_free(struct wsx_poll *poll)
{
	fput(poll->file);
	kfree(poll);
}
