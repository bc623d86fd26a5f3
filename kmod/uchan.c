// SPDX-License-Identifier: GPL-2.0
/*
 * The channels of a /dev/wsx session (docs/park.md, section 2): the
 * table WSX_IOC_CHAN_CREATE adds to and WSX_OP_SEND and WSX_OP_RECV look
 * their channels up in, its limits, and its part in closing the session.
 *
 * Lifetime: a channel lives as long as its session.  Its id is never
 * erased from @xa and never reused before wsx_uchans_destroy(), which
 * runs once every job of the session has ended (wsx_release()), so an op
 * holds the channel it looked up at its start without a reference count.
 * The table's lookups are xa_load()'s, under the RCU read lock xa_load()
 * takes itself; the stores are xa_alloc()'s, under the xarray's own lock.
 *
 * Closing the session: wsx_uchans_close_all() closes every channel, which
 * readies every waiter (wsx_chan_close()); a send or a receive made after
 * it ends at once, since the test of a channel's closed flag and the park
 * are one critical section of its lock (models/chan.pml,
 * BUG_CLOSE_MISSES).  So after it no item of the session parks on a
 * channel of the session's, and the session's wait for its running jobs
 * ends.  The items of a PINGPONG or a PIPELINE park on channels of their
 * op's own, which this does not close; they end of their cancelled job
 * (ops.c, "PINGPONG and PIPELINE", says why).
 *
 * Fields of struct wsx_uchans: @xa is the xarray's; @parked is atomic;
 * @polls is poll.c's (its lock's).
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "uchan.h"
#include "wsx.h"

/* Module parameters (main.c), read when they are needed. */
unsigned int wsx_max_chans = 1024;
unsigned int wsx_max_chan_cap = 65536;
unsigned int wsx_max_parked = 65536;

void wsx_uchans_init(struct wsx_uchans *u)
{
	xa_init_flags(&u->xa, XA_FLAGS_ALLOC1);
	atomic_set(&u->parked, 0);
	wsx_polls_init(&u->polls);
}

/**
 * wsx_uchan_create - WSX_IOC_CHAN_CREATE: a new channel in @u
 * @u:		the session's channels
 * @cap:	its buffer, 0 for an unbuffered channel
 * @id:		out: its id
 *
 * Context: process context; may sleep.
 * Return: 0, -E2BIG (@cap over max_chan_cap), -EMFILE (max_chans
 * channels already) or -ENOMEM.
 */
int wsx_uchan_create(struct wsx_uchans *u, u32 cap, u32 *id)
{
	u32 max = READ_ONCE(wsx_max_chans);
	struct wsx_chan *c;
	int ret;

	if (cap > min_t(u32, READ_ONCE(wsx_max_chan_cap), WSX_CHAN_CAP_MAX))
		return -E2BIG;
	if (!max)
		return -EMFILE;
	c = wsx_chan_create(cap, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(c))
		return PTR_ERR(c);
	/* ids are never freed: the highest one is the number of channels */
	ret = xa_alloc(&u->xa, id, c, XA_LIMIT(1, max), GFP_KERNEL_ACCOUNT);
	if (ret) {
		wsx_chan_destroy(c);
		return ret == -EBUSY ? -EMFILE : ret;
	}
	return 0;
}

/**
 * wsx_uchan_find - the channel of id @id in @u
 * @u:		the session's channels
 * @id:		the id, as a user gave it
 *
 * Context: any; the channel stays valid while the caller's session lives.
 * Return: the channel, or NULL when @u has none of that id.
 */
struct wsx_chan *wsx_uchan_find(struct wsx_uchans *u, u64 id)
{
	if (!id || id > U32_MAX)
		return NULL;
	return xa_load(&u->xa, id);
}

/**
 * wsx_uchan_close - WSX_IOC_CHAN_CLOSE: close channel @id of @u
 * @u:		the session's channels
 * @id:		the channel's id
 *
 * Return: 0, -ENOENT (no such channel) or -EALREADY (closed already).
 */
int wsx_uchan_close(struct wsx_uchans *u, u32 id)
{
	struct wsx_chan *c = wsx_uchan_find(u, id);

	return c ? wsx_chan_close(c) : -ENOENT;
}

/**
 * wsx_uchans_park_get - count one more of the session's items parked
 * @u:		the session's channels
 *
 * Called before an item parks on a channel; the item gives the count
 * back with wsx_uchans_park_put() when it did not park after all, or
 * when its continuation runs: a readied continuation counts until then
 * (chan.c, generic, does not know the count).
 *
 * Return: 0, or -EAGAIN (nothing counted) at max_parked.
 */
int wsx_uchans_park_get(struct wsx_uchans *u)
{
	if ((unsigned int)atomic_inc_return(&u->parked) >
	    READ_ONCE(wsx_max_parked)) {
		atomic_dec(&u->parked);
		return -EAGAIN;
	}
	return 0;
}

void wsx_uchans_park_put(struct wsx_uchans *u)
{
	atomic_dec(&u->parked);
}

/*
 * Closing the session: close every channel, which readies every item
 * parked on one.  Those items and the ones still running see their job
 * cancelled, or a closed channel, and end.
 */
void wsx_uchans_close_all(struct wsx_uchans *u)
{
	struct wsx_chan *c;
	unsigned long id;

	xa_for_each(&u->xa, id, c) {
		wsx_chan_close(c);	/* -EALREADY for one the user closed */
		cond_resched();
	}
}

/* Free the channels: every job of the session has ended. */
void wsx_uchans_destroy(struct wsx_uchans *u)
{
	struct wsx_chan *c;
	unsigned long id;

	WARN_ON_ONCE(atomic_read(&u->parked));
	WARN_ON_ONCE(!list_empty(&u->polls.armed) ||
		     !list_empty(&u->polls.cancelled));
	xa_for_each(&u->xa, id, c) {
		wsx_chan_destroy(c);
		cond_resched();
	}
	xa_destroy(&u->xa);
}
