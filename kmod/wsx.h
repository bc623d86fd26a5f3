/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx: the in-kernel API of the work-stealing executor.
 *
 * A kernel caller embeds a struct wsx_item in its own object, sets its
 * function with wsx_item_init() and queues it with wsx_queue(); an item that
 * is running may add more work with wsx_spawn(), which puts the new item in
 * its own P's runnext slot so it runs next on the same CPU while its data is
 * hot.  Items belong to a struct wsx_job, a completion group: the job's done
 * callback runs once every item added to it has returned.
 *
 * The executor owns an item from wsx_queue()/wsx_spawn() until its function
 * is called; from then on the function owns it (it may free or requeue it).
 * An item that must wait parks a continuation (wsx_park(): an item, maybe
 * itself, queued nowhere) where its waker finds it, and returns; the waker
 * hands it back with wsx_ready(), and the executor owns it again until its
 * function is called once more.  Channels (struct wsx_chan) are wait lists
 * with Go's semantics: a send or a receive that cannot go on parks the
 * caller's continuation on the channel, and the other side readies it.
 */
#ifndef _WSX_H
#define _WSX_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/timerqueue.h>
#include <linux/types.h>

struct wsx_account;
struct wsx_item;
struct wsx_job;

typedef void (*wsx_fn_t)(struct wsx_item *item);

/* Bits of wsx_item.flags */
#define WSX_ITEM_ROOT	0x1	/* the first item of its job: stamps start */

/**
 * struct wsx_item - a unit of work
 * @fn:		called once, in an M (kthread) holding a P
 * @job:	the completion group the item belongs to
 * @node:	link in the global queue
 * @lnode:	link in a P's inbox
 * @tnode:	its place among a P's delayed items
 * @queued_ns:	when it was queued (local_clock()) if sampled for the latency
 *		histograms (module parameter latency_sample), else 0
 * @queued_p:	the P it was queued on, WSX_NO_P for the global queue
 * @origin:	how it was queued, for the latency histograms (WSX_ORIGIN_*)
 * @flags:	WSX_ITEM_*
 *
 * While queued the fields belong to the executor; callers set them only
 * through wsx_item_init().
 */
struct wsx_item {
	wsx_fn_t fn;
	struct wsx_job *job;
	union {
		struct list_head node;
		struct llist_node lnode;
		struct timerqueue_node tnode;
	};
	u64 queued_ns;
	u16 queued_p;
	u8 origin;
	u8 flags;
};

#define WSX_NO_P	0xffff

/**
 * struct wsx_job - a completion group of items
 * @refs:	low 32 bits: items added and not yet finished, plus one held
 *		by the creator until wsx_job_start(), plus the counts Ms hold
 *		as credit; high 32 bits: items ever added, modulo 2^32, those
 *		of a credit once it is given back (read via wsx_job_nodes()
 *		from @done, where the count is whole)
 * @done:	called once every item has finished and wsx_job_start() was
 *		called, in task context: in wsx_job_start(), or in an M that
 *		ran one of the job's items - not always the last to finish,
 *		and perhaps a little later, between its items (job.c, "An M's
 *		credit"); it must not wait for CPU hotplug (cpus_read_lock()):
 *		that M's CPU may be going offline, its callback waiting for
 *		the M; nor enter a blocking section (wsx_block_begin(),
 *		wsx_cond_handoff()): run between items, it is no item's
 * @cancel:	if not NULL, points to a flag that, once true, asks the job's
 *		items not yet started to skip their work (see wsx_cancelled())
 * @result:	free for the job's items and done callback
 * @status:	0 or -errno, free for the job's items and done callback
 * @started_ns:	when the job's root item started (ktime_get_ns)
 * @cpu:	the CPU that ran the root item
 * @acct:	who the items are counted for (the /dev/wsx session's user),
 *		or NULL: wsx_job_init() sets NULL, in-kernel users leave it
 */
struct wsx_job {
	atomic64_t refs;
	void (*done)(struct wsx_job *job);
	const bool *cancel;
	u64 result;
	int status;
	unsigned int cpu;
	u64 started_ns;
	struct wsx_account *acct;
};

/* Where wsx_queue() puts an item. */
enum wsx_where {
	WSX_WHERE_LOCAL,	/* the P of the calling CPU, else global */
	WSX_WHERE_P,		/* the P given by number */
	WSX_WHERE_GLOBAL,	/* the global queue */
};

void wsx_job_init(struct wsx_job *job, void (*done)(struct wsx_job *job));
void wsx_job_start(struct wsx_job *job);
u32 wsx_job_nodes(const struct wsx_job *job);

/**
 * wsx_item_init - prepare @item to run @fn as part of @job
 * @item:	the item, embedded in the caller's object
 * @fn:		the function the executor calls with @item
 * @job:	the completion group @item is added to when queued
 */
static inline void wsx_item_init(struct wsx_item *item, wsx_fn_t fn,
				 struct wsx_job *job)
{
	item->fn = fn;
	item->job = job;
	item->flags = 0;
}

/**
 * wsx_cancelled - should @item skip its work because its job was cancelled?
 * @item:	the running item
 *
 * Return: true once the flag that the job's @cancel points to is set.
 */
static inline bool wsx_cancelled(const struct wsx_item *item)
{
	const bool *cancel = item->job->cancel;

	return cancel && READ_ONCE(*cancel);
}

int wsx_queue(struct wsx_item *item, enum wsx_where where, unsigned int p);

/* Items a batch lists in one step at most: a flush's walk is bounded. */
#define WSX_QUEUE_BATCH_MAX	32

/**
 * struct wsx_queue_batch - items queued from outside together: a run of
 * them for one place is listed in one step, with one wakeup decision
 * (wsx_queue_batch_add(), wsx_queue_batch_flush()); on the caller's stack,
 * set up with WSX_QUEUE_BATCH_INIT
 * @first:	the newest item's link: the chain is in llist order
 * @last:	the oldest item's link
 * @n:		items in the chain, at most @max
 * @max:	the size of the chain that is flushed when full: 1 at first,
 *		so that the first item waits for no other, then twice as many
 *		after each flush, up to WSX_QUEUE_BATCH_MAX
 * @where:	their place, as for wsx_queue()
 * @p:		the P number for WSX_WHERE_P, else 0
 * @caller_runs: set by the caller that goes on running on its CPU after a
 *		flush rather than wait for the items (the rings' ENTER without
 *		min_complete): a flush to its own CPU's P, when that P is idle,
 *		wakes another idle P's M first, which steals the items, as the
 *		P's own M would wait for the caller's CPU; false (the default)
 *		wakes the P's own M, the nearest, whose CPU a caller that waits
 *		frees
 */
struct wsx_queue_batch {
	struct llist_node *first;
	struct llist_node *last;
	unsigned int n;
	unsigned int max;
	enum wsx_where where;
	unsigned int p;
	bool caller_runs;
};

#define WSX_QUEUE_BATCH_INIT	{ .max = 1 }

void wsx_queue_batch_add(struct wsx_queue_batch *batch, struct wsx_item *item,
			 enum wsx_where where, unsigned int p);
void wsx_queue_batch_flush(struct wsx_queue_batch *batch);
int wsx_queue_after(struct wsx_item *item, enum wsx_where where,
		    unsigned int p, u64 delay_ns);
void wsx_spawn(struct wsx_item *item);
void wsx_park(struct wsx_item *cont);
void wsx_ready(struct wsx_item *cont);

/* Channels (chan.c): Go's chan of u64 values for items. */
struct wsx_chan;
struct wsx_select;

/* The largest buffer a channel may have: 64 Mi values, 512 MiB. */
#define WSX_CHAN_CAP_MAX	(64U * 1024 * 1024)

/**
 * struct wsx_chan_waiter - a send or a receive parked on a channel (Go's
 * sudog), embedded in the parker's object: parking allocates nothing
 * @node:	on the channel's sendq or recvq
 * @cont:	the continuation the readier hands to wsx_ready()
 * @val:	a sender's value; a receiver's, written by the sender
 * @sel:	the select it is a case of, NULL for a send or a receive
 * @status:	written by the readier: 0, -EPIPE (a send on a channel
 *		closed meanwhile) or -ENODATA (a receive from one)
 * @idx:	its case in @sel
 *
 * The parker sets @cont (wsx_chan_waiter_init()); wsx_chan_send() and
 * wsx_chan_recv() set the rest.  The continuation reads @val and @status.
 * wsx_chan_select() sets its own waiters' fields, @sel and @idx included.
 */
struct wsx_chan_waiter {
	struct list_head node;
	struct wsx_item *cont;
	struct wsx_select *sel;
	u64 val;
	int status;
	u8 idx;
};

/**
 * wsx_chan_waiter_init - name the continuation @w's readier queues
 * @w:		the waiter, embedded in the parker's object
 * @cont:	the continuation, initialised with wsx_item_init()
 */
static inline void wsx_chan_waiter_init(struct wsx_chan_waiter *w,
					struct wsx_item *cont)
{
	w->cont = cont;
}

struct wsx_chan *wsx_chan_create(u32 cap, gfp_t gfp);
void wsx_chan_destroy(struct wsx_chan *c);
int wsx_chan_send(struct wsx_chan *c, u64 val, struct wsx_chan_waiter *w);
int wsx_chan_recv(struct wsx_chan *c, u64 *val, struct wsx_chan_waiter *w);
int wsx_chan_close(struct wsx_chan *c);

/**
 * wsx_chan_trysend - send @val on @c if that needs no wait
 * @c:		the channel
 * @val:	the value
 *
 * Return: as wsx_chan_send(), with -EAGAIN where it would park.
 */
static inline int wsx_chan_trysend(struct wsx_chan *c, u64 val)
{
	return wsx_chan_send(c, val, NULL);
}

/**
 * wsx_chan_tryrecv - receive a value from @c if that needs no wait
 * @c:		the channel
 * @val:	where the value goes
 *
 * Return: as wsx_chan_recv(), with -EAGAIN where it would park.
 */
static inline int wsx_chan_tryrecv(struct wsx_chan *c, u64 *val)
{
	return wsx_chan_recv(c, val, NULL);
}

/* The most cases a select may have (Go's select has no limit). */
#define WSX_SELECT_MAX	8

/**
 * struct wsx_select_case - one case of a select
 * @chan:	the channel
 * @val:	a send's value; a receive's, when its case won with @status 0
 * @status:	when its case won: 0, -EPIPE (a send on a closed channel) or
 *		-ENODATA (a receive from a closed, drained channel)
 * @send:	true for a send of @val, false for a receive into @val
 */
struct wsx_select_case {
	struct wsx_chan *chan;
	u64 val;
	int status;
	bool send;
};

/**
 * struct wsx_select - a select over up to WSX_SELECT_MAX cases (Go's
 * select statement), embedded in the selecting item's object: parking
 * allocates nothing
 * @cases:	the cases, set by the caller; a channel may appear in several
 * @n:		how many, 1 .. WSX_SELECT_MAX, set by the caller
 * @done:	the claim of a parked select: the readier that moves it from 0
 *		to 1 (under its channel's lock) owns the select
 * @won:	the case that won, written by that readier
 * @lockorder:	the cases by their channel's address: the order in which
 *		their locks are taken, each channel's once
 * @waiters:	one per case, on its channel's queue while parked
 *
 * The fields after @n are wsx_chan_select()'s own (kmod/chan.c's comment
 * says who writes each).
 */
struct wsx_select {
	struct wsx_select_case cases[WSX_SELECT_MAX];
	unsigned int n;
	atomic_t done;
	u8 won;
	u8 lockorder[WSX_SELECT_MAX];
	struct wsx_chan_waiter waiters[WSX_SELECT_MAX];
};

int wsx_chan_select(struct wsx_select *sel, struct wsx_item *cont);
int wsx_chan_select_resume(struct wsx_select *sel);

/**
 * wsx_chan_tryselect - a select that never parks (Go's select with a
 * default case)
 * @sel:	the select, its cases set
 *
 * Return: as wsx_chan_select(), with -EAGAIN where it would park.
 */
static inline int wsx_chan_tryselect(struct wsx_select *sel)
{
	return wsx_chan_select(sel, NULL);
}

unsigned int wsx_nr_procs(void);
void wsx_block_begin(void);
void wsx_block_end(void);
void wsx_cond_handoff(void);

#endif /* _WSX_H */
