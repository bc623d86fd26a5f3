/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libwsx - a thin C library over the /dev/wsx ioctl ABI of <linux/wsx.h>.
 *
 * Conventions, for every function below:
 *
 *  - A function that can fail returns 0 (or a count) on success and a
 *    negative errno value on failure.  The errno variable is never the way an
 *    error is reported, though it may be clobbered by the system calls made.
 *  - A struct wsx is a session on the device.  Once wsx_open() has returned
 *    it, the library never changes it until wsx_close(), so any number of
 *    threads may call wsx_submit(), wsx_wait(), wsx_version() and wsx_fd()
 *    on one session at once; the module serialises what needs it.  Only
 *    wsx_close() must not race with any other use of the session.
 *  - Functions that take no session keep no state between calls and are
 *    thread-safe, except where noted.
 *
 * Environment (read with secure_getenv(), so ignored by set-id programs):
 *   WSX_DEVICE	  path opened instead of WSX_DEVICE_PATH ("/dev/wsx")
 *   WSX_DEBUGFS  directory read instead of WSX_DEBUGFS_PATH
 *		  ("/sys/kernel/debug/wsx")
 */
#ifndef LIBWSX_H
#define LIBWSX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/wsx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An open session on /dev/wsx; opaque. */
struct wsx;

/*
 * wsx_open - open a session on the wsx device
 * @out:	where the new session is stored (NULL on failure)
 * @flags:	must be 0; reserved for later use
 *
 * Opens $WSX_DEVICE, or WSX_DEVICE_PATH when that is unset or empty,
 * read-write and close-on-exec, asks the module for its version
 * (WSX_IOC_VERSION) and keeps the answer: wsx_submit() and wsx_wait() size
 * their calls by it.
 *
 * Returns 0, or:
 *   -EINVAL	@out is NULL or @flags is not 0
 *   -ENOMEM	out of memory
 *   -EPROTO	the module's ABI major differs from WSX_ABI_MAJOR, or it
 *		reports a submit_max or wait_max of 0
 *   -ENOTTY	the path is not a wsx device (the version ioctl is unknown)
 *   any error of open(2) (-ENOENT when the module is not loaded, -EACCES,
 *   ...) or of ioctl(2).
 * On failure no file descriptor is left open.
 *
 * Thread-safety: safe.
 */
int wsx_open(struct wsx **out, int flags);

/*
 * wsx_close - end a session
 * @w:		a session from wsx_open(), or NULL (then nothing happens)
 *
 * Closes the file descriptor and frees @w.  The module cancels the items the
 * session still has queued (their records are lost) and waits for the ones
 * that are running.
 *
 * Thread-safety: no other call may use @w at the same time or afterwards.
 */
void wsx_close(struct wsx *w);

/*
 * wsx_fd - the session's file descriptor
 * @w:		a session
 *
 * Returns the descriptor, for poll(2) (POLLIN while completion records are
 * ready) or for ioctls the library does not wrap, or -EINVAL if @w is NULL.
 * It stays owned by @w: do not close it.
 *
 * Thread-safety: safe.
 */
int wsx_fd(const struct wsx *w);

/*
 * wsx_version - ask the module for its version
 * @w:		a session
 * @v:		filled with the module's answer
 *
 * Issues WSX_IOC_VERSION again (nprocs may change with CPU hotplug); the
 * copy kept by wsx_open() for sizing calls is not changed.
 *
 * Returns 0, or -EINVAL (@w or @v NULL), or the -errno of the ioctl.
 *
 * Thread-safety: safe.
 */
int wsx_version(struct wsx *w, struct wsx_version *v);

/*
 * wsx_submit - queue items on the executor
 * @w:		a session
 * @items:	the items, filled with the wsx_item_*() helpers
 * @count:	how many, 1 .. INT_MAX
 * @item_error:	if not NULL: set to 0 when all items were queued, else to
 *		the -errno of the first item that was refused
 *
 * Queues @items in order, in WSX_IOC_SUBMIT calls of at most the module's
 * submit_max items, and stops at the first item the module refuses; no item
 * after it is queued.  A call interrupted by a signal (EINTR) is retried.
 *
 * Returns the number of items queued (items[0 .. ret-1]) when at least one
 * was, else the negative errno of the first item, as listed in <linux/wsx.h>:
 *   -EAGAIN	in-flight limit reached: reap completions with wsx_wait(),
 *		then submit the rest again
 *   -EINVAL	@w or @items NULL, @count 0 (no system call is made), or an
 *		item is malformed
 *   -E2BIG	@count over INT_MAX (no system call), or an argument over its
 *		limit
 *   -ENOENT	a SEND or RECV item names a channel the session has not
 *   -EBADF	a POLL item names a descriptor the caller has not
 *   -EOPNOTSUPP  a POLL item names a file other than a unix, IPv4,
 *		IPv6, netlink or packet socket, a pipe or FIFO, or an eventfd
 *   -ENXIO, -ENOMEM, -EFAULT  see <linux/wsx.h>
 *   -EPROTO	the module's answer broke the ABI (more items queued than
 *		given, or a short count without an error)
 *
 * Thread-safety: safe; items of concurrent calls may interleave.
 */
int wsx_submit(struct wsx *w, const struct wsx_req *items,
	       unsigned int count, int *item_error);

/*
 * wsx_wait - reap completion records
 * @w:		a session
 * @recs:	array of at least @max records
 * @max:	most records to return, at least 1; more than the module's
 *		wait_max is cut down to wait_max
 * @min:	wait until at least this many are ready (0 = do not wait)
 * @timeout_ns:	how long to wait for @min records; negative = forever
 *
 * Wraps WSX_IOC_WAIT.  Records come in the order the items finished.
 *
 * Returns the number of records stored in @recs, at least @min unless
 * @recs faults part way, or:
 *   -EINVAL	@w or @recs NULL, @max 0 or @min over @max (no system call)
 *   -E2BIG	@min over the module's wait_max (no system call)
 *   -ETIMEDOUT	fewer than @min records were left for the call at its
 *		timeout (records another thread's call took do not count)
 *   -EINTR	a signal arrived first; call again (no record is lost)
 *   -EFAULT	see <linux/wsx.h>
 * On any error no record is consumed.
 *
 * Thread-safety: safe; each record goes to exactly one caller.
 */
int wsx_wait(struct wsx *w, struct wsx_completion *recs, unsigned int max,
	     unsigned int min, int64_t timeout_ns);

/*
 * The rings (ABI 1.1).  A session may share a submission queue (SQ) of
 * requests and a completion queue (CQ) of records with the module: fill
 * requests in place (wsx_ring_get_req()), hand them over and wait with one
 * system call (wsx_ring_submit()), read the records in place and mark them
 * seen (wsx_ring_peek(), wsx_ring_seen()) with no system call at all.  A
 * struct wsx_ring is for one thread at a time, as liburing's rings are:
 * threads that share one serialise their calls themselves.
 */
struct wsx_ring;

/*
 * wsx_ring_setup - give the session its rings and map them
 * @w:		a session
 * @sq_entries:	SQ entries, a power of two, at most the module parameter
 *		ring_max_entries (default 16384)
 * @cq_entries:	CQ entries, a power of two from @sq_entries up to the same
 *		bound, or 0 for 2 x @sq_entries within the bound: the most items in flight
 *		plus records unread
 * @flags:	0, or WSX_RING_SQ_PICKUP: the executor's threads take new
 *		requests from the SQ themselves whenever they run out of
 *		work, so that wsx_ring_submit() makes a system call only
 *		when the module asks for one (WSX_SQ_NEED_ENTER) or to wait
 * @out:	the rings (NULL on failure)
 *
 * Once per session.  The rings stay the session's until wsx_close(); the
 * items of a freed struct wsx_ring run on, their records unread.  The
 * mapping holds the device file open: the session ends (its queued items
 * cancelled) at whichever of wsx_close() and wsx_ring_free() comes last.
 *
 * Returns 0, or:
 *   -EINVAL	@w or @out NULL, or sizes as <linux/wsx.h> refuses them
 *   -ENOTTY	the module predates ABI 1.1 (no rings): use wsx_submit()
 *   -EBUSY	the session has its rings already
 *   -E2BIG, -EAGAIN, -ENOMEM  see WSX_IOC_RING_SETUP in <linux/wsx.h>
 *   any error of mmap(2).
 *
 * Thread-safety: safe.
 */
int wsx_ring_setup(struct wsx *w, unsigned int sq_entries,
		   unsigned int cq_entries, unsigned int flags,
		   struct wsx_ring **out);

/*
 * wsx_ring_free - unmap the rings and free @r
 * @r:		rings from wsx_ring_setup(), or NULL (then nothing happens)
 *
 * Thread-safety: no other call may use @r at the same time or afterwards.
 */
void wsx_ring_free(struct wsx_ring *r);

/*
 * wsx_ring_get_req - the next free SQ entry, to fill
 * @r:		rings
 *
 * Returns the entry, or NULL (also for @r NULL) when every SQ entry holds a
 * request the module has not consumed yet.  Fill it with a wsx_item_*()
 * helper (which zeroes it first); WSX_REQ_TIMESTAMPS in its flags asks for
 * the times of its record.  It goes to the module at the next
 * wsx_ring_submit().
 *
 * Thread-safety: one thread at a time per @r.
 */
struct wsx_req *wsx_ring_get_req(struct wsx_ring *r);

/*
 * wsx_ring_submit - hand the requests got so far to the module, and wait
 * @r:		rings
 * @wait_nr:	then wait until at least this many records are ready (0: do
 *		not wait), at most the CQ's entries
 * @timeout_ns:	how long to wait; negative = forever
 *
 * One WSX_IOC_ENTER, or none when there is nothing to submit and @wait_nr
 * records are ready already, or, in WSX_RING_SQ_PICKUP mode, when no wait
 * is needed and the module does not ask for ENTER.  A request the module
 * finds malformed is consumed and answered by a record with status -errno.
 * In pick-up mode, call it again after marking records seen while requests
 * are pending: the executor leaves requests it cannot take (a full CQ, a
 * CRC32C or POLL request) to ENTER.
 *
 * Returns the number of requests the module consumed (0 .. pending; in
 * pick-up mode without a system call: the number handed over), or:
 *   -EINVAL	@r NULL, or ring indices out of range (corrupted memory)
 *   -E2BIG	@wait_nr over the CQ's entries (no system call)
 *   -EBUSY	requests were pending but the CQ had no entry left for any
 *		record: read records, then submit again
 *   -ETIMEDOUT, -EINTR  the wait failed; requests may have been consumed
 *		before it (wsx_ring_sq_pending() tells how many are left)
 *
 * Thread-safety: one thread at a time per @r.
 */
int wsx_ring_submit(struct wsx_ring *r, unsigned int wait_nr,
		    int64_t timeout_ns);

/*
 * wsx_ring_sq_pending - requests got and not yet consumed by the module
 * @r:		rings (NULL: 0)
 *
 * Thread-safety: one thread at a time per @r.
 */
unsigned int wsx_ring_sq_pending(const struct wsx_ring *r);

/*
 * wsx_ring_cq_entries - the CQ's size, as the module set it up
 * @r:		rings (NULL: 0)
 *
 * Thread-safety: safe.
 */
unsigned int wsx_ring_cq_entries(const struct wsx_ring *r);

/*
 * wsx_ring_ready - records ready to read in the CQ
 * @r:		rings (NULL: 0)
 *
 * Thread-safety: one thread at a time per @r.
 */
unsigned int wsx_ring_ready(const struct wsx_ring *r);

/*
 * wsx_ring_peek - point at ready records, oldest first, without copying
 * @r:		rings
 * @recs:	gets up to @max pointers into the CQ
 * @max:	room in @recs
 *
 * No system call.  The records stay valid until wsx_ring_seen() frees
 * their entries.  Returns how many pointers were stored (0 for @r or @recs
 * NULL).
 *
 * Thread-safety: one thread at a time per @r.
 */
unsigned int wsx_ring_peek(struct wsx_ring *r,
			   const struct wsx_completion **recs,
			   unsigned int max);

/*
 * wsx_ring_seen - mark the @n oldest ready records read, freeing their
 * entries for new records (at most what wsx_ring_ready() says)
 * @r:		rings (NULL: nothing happens)
 * @n:		how many
 *
 * Thread-safety: one thread at a time per @r.
 */
void wsx_ring_seen(struct wsx_ring *r, unsigned int n);

/*
 * wsx_item_nop, wsx_item_spin, wsx_item_sleep, wsx_item_spawn,
 * wsx_item_fib, wsx_item_crc32c - fill an item (a struct wsx_req)
 * @item:	the item to fill; all its bytes are zeroed first
 * @user_data:	returned in the item's completion record
 *
 * Each sets the op and its arguments (see enum wsx_op in <linux/wsx.h>):
 *   nop	nothing
 *   spin	busy on the CPU for @ns nanoseconds of elapsed (wall-clock)
 *		time, not CPU time: preempted or handed off, it still
 *		ends @ns after it started (see wsx(4))
 *   sleep	sleep @us microseconds
 *   spawn	a tree of @fanout children per node, @depth levels deep,
 *		whose leaves spin @leaf_ns
 *   fib	fork-join Fibonacci of @n
 *   crc32c	CRC32C of @len bytes at @buf, in items of @chunk bytes
 *		(0 = the module's default); @buf must stay mapped and
 *		unchanged until the item's completion has been reaped
 * The item is placed WSX_PLACE_LOCAL without delay; see wsx_item_place()
 * and wsx_item_delay().  Ranges are checked by the module at submission.
 *
 * Thread-safety: safe.
 */
void wsx_item_nop(struct wsx_req *item, __u64 user_data);
void wsx_item_spin(struct wsx_req *item, __u64 ns, __u64 user_data);
void wsx_item_sleep(struct wsx_req *item, __u64 us, __u64 user_data);
void wsx_item_spawn(struct wsx_req *item, unsigned int fanout,
		    unsigned int depth, __u64 leaf_ns, __u64 user_data);
void wsx_item_fib(struct wsx_req *item, unsigned int n, __u64 user_data);
void wsx_item_crc32c(struct wsx_req *item, const void *buf, size_t len,
		     size_t chunk, __u64 user_data);

/*
 * Channels (ABI 1.2).  A session owns channels, Go's chan of 64-bit
 * values, unbuffered or buffered; its SEND and RECV items hand values to
 * each other through them without a system call, and an item that must
 * wait for the other side holds no kernel thread meanwhile.  Closing the
 * session (wsx_close()) closes its channels.
 */

/*
 * wsx_chan_create - a new channel of the session
 * @w:		a session
 * @cap:	values it buffers: 0 for an unbuffered channel (a send waits
 *		for its receiver), at most the module parameter max_chan_cap
 *		(default 65536)
 * @id:		gets the channel's id, for wsx_item_send(), wsx_item_recv()
 *		and wsx_chan_close(): from 1, never reused in the session
 *
 * Wraps WSX_IOC_CHAN_CREATE.  The channel lives as long as the session
 * and counts against the module parameter max_chans (default 1024)
 * until then, closed or not.
 *
 * Returns 0, or:
 *   -EINVAL	@w or @id NULL (no system call)
 *   -E2BIG	@cap over max_chan_cap
 *   -EMFILE	the session has max_chans channels already
 *   -ENOTTY	the module predates ABI 1.2 (no channels)
 *   -EBADF, -ENOMEM, -EFAULT  see <linux/wsx.h>
 *
 * Thread-safe.
 */
int wsx_chan_create(struct wsx *w, unsigned int cap, unsigned int *id);

/*
 * wsx_chan_close - close a channel, as Go's close()
 * @w:		a session
 * @id:		the channel's id
 *
 * Wraps WSX_IOC_CHAN_CLOSE.  The channel's waiting receivers end with
 * status -ENODATA once its buffer is empty, its waiting senders with
 * -EPIPE, and so do the SEND and RECV items that come to it later.
 *
 * Returns 0, or:
 *   -EINVAL	@w NULL (no system call)
 *   -ENOENT	the session has no channel @id
 *   -EALREADY	the channel is closed already
 *   -ENOTTY	the module predates ABI 1.2
 *   -EBADF, -EFAULT  see <linux/wsx.h>
 *
 * Thread-safe.
 */
int wsx_chan_close(struct wsx *w, unsigned int id);

/*
 * wsx_item_send, wsx_item_recv - fill a SEND or RECV item (ABI 1.2)
 * @item:	the item to fill; all its bytes are zeroed first
 * @chan:	a channel of the session that submits the item
 * @user_data:	returned in the item's completion record
 *
 *   send	sends @count values (1 .. WSX_CHAN_COUNT_MAX) on @chan:
 *		@first, @first + 1, ...; the result is the number sent,
 *		status -EPIPE when the channel was closed first
 *   recv	receives @count values from @chan; with @forward (a channel
 *		id, 0 for none) it sends each on that channel after
 *		spinning @ns nanoseconds (at most max_item_ns): a pipeline
 *		stage.  The result is the sum of the values received
 *		(modulo 2^64); status -ENODATA when @chan was closed and
 *		empty first, -EPIPE when @forward was closed
 * Either ends with status -EAGAIN when it had to wait while the session
 * had max_parked items waiting already.  An id the session has not is
 * refused at submission with -ENOENT.  Placed WSX_PLACE_LOCAL without
 * delay, as the other helpers.
 *
 * Thread-safe.
 */
void wsx_item_send(struct wsx_req *item, unsigned int chan, __u64 first,
		   __u64 count, __u64 user_data);
void wsx_item_recv(struct wsx_req *item, unsigned int chan, __u64 count,
		   unsigned int forward, __u64 ns, __u64 user_data);

/*
 * wsx_item_poll - fill a POLL item (ABI 1.3): wait for a file descriptor
 * @item:	the item to fill; all its bytes are zeroed first
 * @fd:		a descriptor of the process that submits the item (a
 *		negative one is stored as it converts, over INT_MAX, for the
 *		module to refuse with -EBADF)
 * @events:	what to wait for, as poll(2)'s events: EPOLLIN, EPOLLPRI,
 *		EPOLLOUT, EPOLLRDNORM, EPOLLRDBAND, EPOLLWRNORM, EPOLLWRBAND,
 *		EPOLLMSG, EPOLLRDHUP, EPOLLERR, EPOLLHUP (at least one)
 * @timeout_ns:	end with status -ETIME after this many ns (0: no timeout;
 *		at most WSX_DELAY_MAX_NS)
 * @user_data:	returned in the item's completion record
 *
 * The item waits, once, until the file reports one of @events (EPOLLERR
 * and EPOLLHUP too, as poll(2) reports them), holding no kernel thread
 * meanwhile; the record's result is the events the file reported
 * (revents).  The descriptor is looked up at submission, and the item holds
 * the file until it ends: closing @fd meanwhile does not end it.  Refused
 * at submission: -EBADF (no such descriptor), -EOPNOTSUPP (any file but
 * a unix, IPv4, IPv6, netlink or packet socket, a pipe or FIFO, or an
 * eventfd: their poll never sleeps on the kernel thread every session
 * shares).  The record's status: -ETIME (the
 * timeout, counted from the item's start, passed first), -EAGAIN (it had
 * to wait while the session had max_parked items waiting already; a
 * ready file's item ends with its events whatever max_parked),
 * -EOPNOTSUPP (the file waits on two queues, as a FIFO opened O_RDWR
 * does, which the module does not support).  Closing the
 * session ends a waiting POLL.  In the rings, a POLL request is consumed
 * by wsx_ring_submit()'s system call only, never by the executor's
 * threads in WSX_RING_SQ_PICKUP mode.  Placed WSX_PLACE_LOCAL without
 * delay, as the other helpers.
 *
 * Thread-safe.
 */
void wsx_item_poll(struct wsx_req *item, int fd, unsigned int events,
		   __u64 timeout_ns, __u64 user_data);

/*
 * wsx_item_pingpong, wsx_item_pipeline - fill a PINGPONG or PIPELINE item
 * (ABI 1.4): Go's two channel shapes inside one request
 * @item:	the item to fill; all its bytes are zeroed first
 * @user_data:	returned in the item's completion record
 *
 *   pingpong	two items hand one value back and forth over two
 *		unbuffered channels of the op's own, @rounds round trips
 *		(1 .. WSX_CHAN_COUNT_MAX; two handoffs each, the pinger
 *		sends first); the result is the round trips made
 *   pipeline	a source item sends 1, 2, ... @values (1 ..
 *		WSX_CHAN_COUNT_MAX) through @stages stage items (1 ..
 *		WSX_PIPELINE_MAX_STAGES), each receiving from the one before
 *		and sending on, to a sink item, over @stages + 1 unbuffered
 *		channels of the op's own; the result is the sink's sum,
 *		@values (@values + 1) / 2 modulo 2^64
 *
 * The op's channels are not the session's: no wsx_chan_create() first,
 * and they count against no channel limit.  Each item of the op parks,
 * holding no kernel thread, while it waits for the other side, and a
 * readied item runs next on its readier's P.  Refused at submission: 0
 * rounds, stages or values (-EINVAL), more than WSX_CHAN_COUNT_MAX rounds
 * or values or WSX_PIPELINE_MAX_STAGES stages (-E2BIG).  The record's
 * status: -EAGAIN (one of its items had to wait while the session had
 * max_parked items waiting; each item of the op counts while it waits),
 * -ENOMEM; closing the session ends the op (its record dropped).  The
 * result counts what was done before a status other than 0.  Both
 * doors take them, and the executor's threads may pick them up from the
 * rings in WSX_RING_SQ_PICKUP mode.  Placed WSX_PLACE_LOCAL without
 * delay, as the other helpers.
 *
 * Thread-safe.
 */
void wsx_item_pingpong(struct wsx_req *item, __u64 rounds, __u64 user_data);
void wsx_item_pipeline(struct wsx_req *item, unsigned int stages,
		       __u64 values, __u64 user_data);

/*
 * wsx_item_place - choose where a filled item is queued
 * @item:	an item filled by one of the helpers above
 * @place:	WSX_PLACE_LOCAL, WSX_PLACE_P or WSX_PLACE_GLOBAL
 * @target:	the P number for WSX_PLACE_P; ignored (stored as 0) otherwise
 *
 * Changes only @item->place and @item->target.  An unknown @place is stored
 * as it is, for the module to refuse with -EINVAL.
 *
 * Thread-safety: safe.
 */
void wsx_item_place(struct wsx_req *item, enum wsx_place place,
		    unsigned int target);

/*
 * wsx_item_delay - delay a filled item
 * @item:	an item filled by one of the helpers above
 * @ns:		queue it this many nanoseconds after submission (0 = at once)
 *
 * Changes only @item->delay_ns.
 *
 * Thread-safety: safe.
 */
void wsx_item_delay(struct wsx_req *item, __u64 ns);

/*
 * The stats file's first line, "wsx_stats version=1", names its format's
 * version (wsx(4)): within a version, keys and line tags are only added;
 * another version is an incompatible change, which the parsers below refuse
 * with -EPROTO.  A module older than the line writes none.
 */
#define WSX_STATS_TAG		"wsx_stats"
#define WSX_STATS_VERSION	1

/* Counters of one P, as the module's debugfs "stats" file gives them. */
struct wsx_pstats {
	__u64 executed;		/* items that ended on this P (wsx(4)) */
	__u64 runnext_hits;	/* ... taken from the runnext slot */
	__u64 ring_puts;	/* items put in the P's run queue */
	__u64 spills;		/* run queue overflows moved to the global queue */
	__u64 global_gets;	/* items taken from the global queue */
	__u64 steal_attempts;	/* tries to steal from another P */
	__u64 steals;		/* ... that got something */
	__u64 stolen;		/* items this P stole */
	__u64 stolen_from;	/* items other Ps stole from this one */
	__u64 steal_cas_fails;	/* lost races on a victim's run queue head */
	__u64 spins;		/* times the P spun looking for work */
	__u64 parks;		/* times its thread parked */
	__u64 wakeups;		/* times its thread was woken */
};

/* Counters of the global run queue. */
struct wsx_gstats {
	__u64 depth;		/* items queued now */
	__u64 puts;
	__u64 gets;
};

/* The whole stats file: wsx_stats_parse() allocates @p. */
struct wsx_stats {
	unsigned int nprocs;
	struct wsx_pstats *p;	/* nprocs entries, index = P number */
	struct wsx_gstats global;
};

/*
 * wsx_stats_parse - parse the text of the debugfs "stats" file
 * @text:	NUL-terminated text
 * @st:		filled on success; zeroed on failure
 *
 * The text is the version line "wsx_stats version=1" (WSX_STATS_TAG,
 * WSX_STATS_VERSION; a text without it, from an older module, is accepted
 * too), one line "P<n> key=value ..." per P, n = 0, 1, ... in order, then
 * one line "global key=value ...", then one line "user uid= items= cpu_ns="
 * per submitting user.  Values are unsigned decimal 64-bit numbers.  Keys
 * the library knows (the fields of struct wsx_pstats and struct wsx_gstats)
 * are stored, others are skipped, fields whose key is missing stay 0.
 * Empty lines are skipped, and so are the version line, the user lines
 * (wsx_stats_kv_parse() keeps them), the lines "node<i> ..." of the
 * per-node global queues (see wsx_stats_parse_topo()) and lines of other
 * kinds (a tag starting neither with P nor node), which a newer module may
 * add.
 *
 * Returns 0, or:
 *   -EPROTO	the version line names a version other than 1: a format
 *		this library does not know
 *   -EINVAL	@text or @st NULL, or malformed text: a version line without
 *		a decimal version=, a token without '=' or
 *		with an empty key, a value that is not a decimal number or
 *		overflows, P lines not numbered 0..n-1 in order, a P line
 *		after a node or the global line, no P
 *		line, no or two global lines
 *   -ENOMEM	out of memory
 *
 * Free a parsed @st with wsx_stats_free().
 *
 * Thread-safety: safe.
 */
int wsx_stats_parse(const char *text, struct wsx_stats *st);

/*
 * wsx_stats_read - read and parse the module's statistics
 * @st:		as for wsx_stats_parse()
 *
 * Reads $WSX_DEBUGFS/stats (default WSX_DEBUGFS_PATH "/stats") and parses
 * it with wsx_stats_parse().  debugfs is usually readable by root only.
 *
 * Returns 0, or the errors of wsx_stats_parse(), or:
 *   -ENAMETOOLONG  the path is too long
 *   -EFBIG	the file is over 16 MiB
 *   -ENOMEDIUM	no debugfs mounted on /sys/kernel/debug (with the default
 *		path): mount -t debugfs none /sys/kernel/debug
 *   -EPERM	refused under the kernel's lockdown
 *		(/sys/kernel/security/lockdown)
 *   any other error of open(2) or read(2): -ENOENT when the module is not
 *   loaded, -EACCES when not root, ...
 *
 * Thread-safety: safe.
 */
int wsx_stats_read(struct wsx_stats *st);

/*
 * wsx_stats_free - free what wsx_stats_parse() allocated
 * @st:		parsed or zeroed stats, or NULL
 *
 * Frees @st->p and zeroes @st; @st itself is the caller's.
 *
 * Thread-safety: no other call may use @st at the same time.
 */
void wsx_stats_free(struct wsx_stats *st);

/* Flags of wsx_stats_write(). */
#define WSX_STATS_JSON		(1U << 0)

/*
 * wsx_stats_write - print parsed stats
 * @f:		output stream
 * @st:		parsed stats
 * @flags:	0 for the text format of the stats file (known keys only),
 *		WSX_STATS_JSON for one JSON object:
 *		{"nprocs": N, "p": [{"executed": ..., ...}, ...],
 *		 "global": {"depth": ..., "puts": ..., "gets": ...}}
 *
 * The text format parses back with wsx_stats_parse() to the same values.
 *
 * Returns 0, or -EINVAL (@f or @st NULL, @st->p NULL with nprocs not 0, an
 * unknown flag), or -EIO if the stream reports an error.
 *
 * Thread-safety: as stdio: safe, @f is locked per call of fprintf().
 */
int wsx_stats_write(FILE *f, const struct wsx_stats *st, unsigned int flags);

/*
 * What the stats file tells of the machine's topology (modules with the
 * steal_topology parameter).  The steal levels are the distance of the
 * victim from the thief: smt (a sibling thread of the same core), cache
 * (a CPU sharing the last-level cache), node (the same NUMA node), remote
 * (another node).
 */
struct wsx_ptopo {
	__u64 node;		/* index of the P's NUMA node (node= key) */
	__u64 steals_smt;	/* steals that got something, by level */
	__u64 steals_cache;
	__u64 steals_node;
	__u64 steals_remote;
	__u64 stolen_smt;	/* items this P stole, by level */
	__u64 stolen_cache;
	__u64 stolen_node;
	__u64 stolen_remote;
};

/* A per-node global queue ("node<i>" line). */
struct wsx_nodeq {
	__u64 nid;		/* the kernel's node number */
	__u64 depth;		/* items queued now */
	__u64 puts;
	__u64 gets;
};

/* wsx_stats_parse_topo() allocates @p and @nodeq. */
struct wsx_topo {
	int have_nodes;		/* the P lines carry node=; else all 0 */
	unsigned int nprocs;	/* as in struct wsx_stats */
	struct wsx_ptopo *p;	/* nprocs entries, index = P number */
	unsigned int nnodes;	/* 1 + the highest node index of a P */
	unsigned int nnodeqs;	/* "node<i>" lines; 0 with one global queue */
	struct wsx_nodeq *nodeq;/* nnodeqs entries, index = i */
};

/*
 * wsx_stats_parse_topo - parse the stats file, its topology keys too
 * @text:	as for wsx_stats_parse()
 * @st:		as for wsx_stats_parse()
 * @topo:	filled on success; zeroed on failure
 *
 * As wsx_stats_parse(), and also stores each P's node= and steals_<level>=,
 * stolen_<level>= keys in @topo->p, and the lines "node<i> nid= depth=
 * puts= gets=" (numbered 0.. in order, after the P lines, before the global
 * line) in @topo->nodeq.  Text from a module without them parses with
 * @topo->have_nodes 0, every P on node 0 and no node queues.
 *
 * Returns 0, or the errors of wsx_stats_parse(); also -EINVAL for node
 * lines out of order or not between the P lines and the global line.
 *
 * Free with wsx_stats_free() and wsx_topo_free().
 *
 * Thread-safety: safe.
 */
int wsx_stats_parse_topo(const char *text, struct wsx_stats *st,
			 struct wsx_topo *topo);

/*
 * wsx_stats_read_topo - read the stats file once, parse it with its topology
 * @st, @topo:	as for wsx_stats_parse_topo()
 *
 * Returns as wsx_stats_read().
 *
 * Thread-safety: safe.
 */
int wsx_stats_read_topo(struct wsx_stats *st, struct wsx_topo *topo);

/*
 * wsx_topo_free - free what wsx_stats_parse_topo() allocated in @topo
 * @topo:	parsed or zeroed, or NULL; zeroed
 *
 * Thread-safety: no other call may use @topo at the same time.
 */
void wsx_topo_free(struct wsx_topo *topo);

/*
 * wsx_stats_write_topo - print parsed stats with their topology keys
 * @f, @st, @flags:	as for wsx_stats_write()
 * @topo:	parsed with @st
 *
 * As wsx_stats_write(); with @topo->have_nodes each P line (JSON object)
 * also has node and the eight level counters, and the node queues follow
 * the P lines ("nodes": [{"nid": ..., "depth": ..., "puts": ...,
 * "gets": ...}, ...] in JSON).  The text parses back with
 * wsx_stats_parse_topo() to the same values.
 *
 * Returns as wsx_stats_write(); -EINVAL also when @topo is NULL or its
 * nprocs is not @st's.
 *
 * Thread-safety: as wsx_stats_write().
 */
int wsx_stats_write_topo(FILE *f, const struct wsx_stats *st,
			 const struct wsx_topo *topo, unsigned int flags);

/*
 * Every counter of the stats file, by name.  The file is lines of a tag
 * ("wsx_stats", "P<n>", "node<i>", "global", "user", ...) and key=value
 * tokens; a module may add keys and lines, which these calls keep, where the
 * structs above hold only the fields they know.  A line whose first token
 * holds '=' has the tag "".
 */
struct wsx_stats_field {
	const char *key;
	const char *value;	/* the text after '=', usually a decimal number */
};

struct wsx_stats_line {
	const char *tag;
	unsigned int nfields;
	const struct wsx_stats_field *fields;	/* in the file's order */
};

/* Opaque: wsx_stats_kv_parse() allocates it. */
struct wsx_stats_kv;

/*
 * wsx_stats_kv_parse - parse the stats file's text, keeping every key
 * @text:	NUL-terminated text
 * @kv:		on success *@kv is the parsed text; NULL on failure
 *
 * Each non-empty line is a tag and key=value tokens separated by blanks.
 * Nothing is checked beyond that form and the version line, so a line or
 * key of a newer module of the same version is kept as it is.  The first
 * line, "wsx_stats version=1", is kept as a line too; a text without it
 * (an older module) is accepted.
 *
 * Returns 0, or -EPROTO (the version line names a version other than 1),
 * -EINVAL (@text or @kv NULL, a token after the tag without '=' or with an
 * empty key, a version line without a decimal version=) or -ENOMEM.  Free
 * *@kv with wsx_stats_kv_free().
 *
 * Thread-safety: safe.
 */
int wsx_stats_kv_parse(const char *text, struct wsx_stats_kv **kv);

/*
 * wsx_stats_kv_read - read the module's stats file, keeping every key
 * @kv:		as for wsx_stats_kv_parse()
 *
 * Reads $WSX_DEBUGFS/stats (default WSX_DEBUGFS_PATH "/stats") and parses
 * it with wsx_stats_kv_parse().
 *
 * Returns 0, or the errors of wsx_stats_kv_parse() and of wsx_stats_read()
 * other than parse errors, among them -ENOMEDIUM: no debugfs is mounted on
 * /sys/kernel/debug (mount -t debugfs none /sys/kernel/debug), and -EPERM:
 * the kernel's lockdown (/sys/kernel/security/lockdown) forbids it.
 *
 * Thread-safety: safe.
 */
int wsx_stats_kv_read(struct wsx_stats_kv **kv);

/*
 * wsx_stats_kv_free - free what wsx_stats_kv_parse() allocated
 * @kv:		parsed stats, or NULL
 *
 * Thread-safety: no other call may use @kv at the same time.
 */
void wsx_stats_kv_free(struct wsx_stats_kv *kv);

/*
 * wsx_stats_kv_line - one line of parsed stats
 * @kv:		parsed stats
 * @i:		the line's index, from 0 in the file's order (empty lines
 *		not counted)
 *
 * Returns the line, valid until wsx_stats_kv_free(), or NULL when @kv is
 * NULL or has no line @i: loop from 0 until NULL to visit every counter.
 *
 * Thread-safety: safe.
 */
const struct wsx_stats_line *wsx_stats_kv_line(const struct wsx_stats_kv *kv,
						unsigned int i);

/*
 * wsx_stats_get - one counter of parsed stats, by line tag and key
 * @kv:		parsed stats
 * @tag:	the line's tag, e.g. "global" or "P3"
 * @key:	the key, e.g. "cancelled"
 * @val:	where the value is stored
 *
 * The first line tagged @tag that has @key gives the value.
 *
 * Returns 0, or -EINVAL (an argument NULL), -ENOENT (no such line or key)
 * or -ERANGE (the value is not an unsigned decimal 64-bit number: read
 * its text with wsx_stats_kv_line()).
 *
 * Thread-safety: safe.
 */
int wsx_stats_get(const struct wsx_stats_kv *kv, const char *tag,
		  const char *key, __u64 *val);

/*
 * wsx_stats_kv_write - print every counter of parsed stats
 * @f:		output stream
 * @kv:		parsed stats
 * @flags:	0 for the text of the stats file (each line, its tokens
 *		separated by one blank), WSX_STATS_JSON for one JSON object:
 *		{"nprocs": N, "p": [{...}, ...] (the P<n> lines),
 *		"nodes": [{...}, ...] (the node<i> lines, when any),
 *		"users": [{...}, ...] (the user lines, when any),
 *		"global": {...}, and "<tag>": {...} for each other line
 *		("wsx_stats": {"version": 1}, ...)}, each
 *		line's keys in its object, decimal values as JSON numbers,
 *		others as strings
 *
 * Returns 0, or -EINVAL (@f or @kv NULL, an unknown flag), or -EIO if the
 * stream reports an error.
 *
 * Thread-safety: as stdio.
 */
int wsx_stats_kv_write(FILE *f, const struct wsx_stats_kv *kv,
		       unsigned int flags);

/*
 * wsx_schedtrace_read - read the one-line scheduler trace
 * @buf:	where the line is stored, NUL-terminated, without its '\n'
 * @len:	size of @buf in bytes
 *
 * Reads $WSX_DEBUGFS/schedtrace, a line in the style of the Go runtime's
 * schedtrace, e.g. "WSX 1234ms: nprocs=4 idleprocs=2 threads=4
 * spinningthreads=1 idlethreads=2 waiting=0 runqueue=0 [20 0 0 0]"
 * (waiting: items parked, not holding a thread).
 *
 * Returns the length of the line, or -EINVAL (@buf NULL or @len 0),
 * -ERANGE (the line does not fit in @buf), or the errors of
 * wsx_stats_read() other than parse errors.
 *
 * Thread-safety: safe.
 */
int wsx_schedtrace_read(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBWSX_H */
