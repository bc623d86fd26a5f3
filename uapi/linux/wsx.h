/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * wsx: a work-stealing executor for kernel work items, after the Go runtime
 * scheduler.  This is the ABI of /dev/wsx.
 *
 * A process opens /dev/wsx and gets a session.  It submits batches of items
 * (WSX_IOC_SUBMIT); each item names a built-in op, its arguments, where it is
 * queued (the submitting CPU's P, a chosen P, or the global queue) and a
 * 64-bit user value.  When an item and everything it spawned has finished,
 * the session gets one completion record carrying the user value back;
 * WSX_IOC_WAIT copies completion records out, and poll() reports POLLIN while
 * any are ready.  Closing the file cancels what is still queued and waits for
 * what is running (with the rings mapped, only at the last munmap: see the
 * rings below).
 *
 * Since ABI 1.1 a session may instead share two rings with the module
 * (WSX_IOC_RING_SETUP, then mmap): userspace writes requests into the
 * submission queue (SQ) and the module writes completion records into the
 * completion queue (CQ); one WSX_IOC_ENTER call consumes new SQ entries and
 * waits for records, and records already in the CQ are read with no system
 * call at all.  The two ways may be used together on one session, each
 * with its own records: those of WSX_IOC_SUBMIT's items come only through
 * WSX_IOC_WAIT, those of SQ entries only in the CQ (poll() reports both).
 *
 * Since ABI 1.2 a session owns channels (WSX_IOC_CHAN_CREATE), Go's chan of
 * 64-bit values, unbuffered or buffered: the items of WSX_OP_SEND and
 * WSX_OP_RECV hand values to each other through them with no system call
 * between, and an item that waits on a channel holds no kernel thread.
 *
 * Since ABI 1.3 an item may wait for a file descriptor to become ready
 * (WSX_OP_POLL), as poll() does, parked on the file's wait queue: no kernel
 * thread is held while it waits.
 *
 * Since ABI 1.4 two ops run Go's two channel shapes inside one request,
 * over channels of their own: WSX_OP_PINGPONG and WSX_OP_PIPELINE.
 *
 * Every struct has a fixed size, explicit padding and reserved fields that
 * must be zero on input (-EINVAL otherwise) and are zero on output, so that
 * later minor versions can give them a meaning.  The layouts are identical
 * for 32-bit and 64-bit processes: pointers travel as __u64.
 */
#ifndef _UAPI_LINUX_WSX_H
#define _UAPI_LINUX_WSX_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define WSX_ABI_MAJOR		1	/* incompatible changes bump this */
#define WSX_ABI_MINOR		4	/* compatible additions bump this */

#define WSX_DEVICE_PATH		"/dev/wsx"
#define WSX_DEBUGFS_PATH	"/sys/kernel/debug/wsx"

/* Most items one WSX_IOC_SUBMIT call takes. */
#define WSX_SUBMIT_MAX		4096
/* Most completion records one WSX_IOC_WAIT call returns. */
#define WSX_WAIT_MAX		4096

/**
 * struct wsx_version - answer of WSX_IOC_VERSION
 * @abi_major:	WSX_ABI_MAJOR of the running module
 * @abi_minor:	WSX_ABI_MINOR of the running module
 * @nprocs:	number of Ps (logical processors) the executor runs
 * @submit_max:	WSX_SUBMIT_MAX of the running module
 * @wait_max:	WSX_WAIT_MAX of the running module
 * @reserved:	zero
 */
struct wsx_version {
	__u32 abi_major;
	__u32 abi_minor;
	__u32 nprocs;
	__u32 submit_max;
	__u32 wait_max;
	__u32 reserved[3];
};

/*
 * Built-in ops.  Arguments unused by an op must be zero.
 *
 * WSX_OP_NOP		nothing; result 0
 * WSX_OP_SPIN		args[0] = ns of elapsed (wall-clock) time to stay busy
 *			on the CPU, not CPU time: a preempted or handed-off
 *			item still ends args[0] ns after it started (at most
 *			the module parameter max_item_ns); result 0
 * WSX_OP_SLEEP		args[0] = us to sleep (at most 1 s); result 0
 * WSX_OP_SPAWN		args[0] = fanout (1..64), args[1] = depth,
 *			args[2] = leaf_ns: a tree of depth + 1 levels in which
 *			every node above the last level spawns fanout children
 *			on its own P and every leaf spins leaf_ns, so
 *			sum(fanout^i, i = 0..depth) nodes (depth 0: one leaf),
 *			at most WSX_SPAWN_MAX_NODES; result = nodes that ran
 * WSX_OP_FIB		args[0] = n (at most WSX_FIB_MAX): fork-join Fibonacci
 *			in which every node with n >= 2 spawns two children;
 *			result fib(n), fib(0) = 0, fib(1) = 1
 * WSX_OP_CRC32C	args[0] = user address, args[1] = length (1 byte ..
 *			1 GiB), args[2] = chunk (4 KiB .. 1 GiB; 0 = 64 KiB):
 *			CRC32C (Castagnoli, ~0 seed, inverted result as the
 *			usual crc32c tools print it) of the buffer, split in
 *			chunk items; result the checksum.  The buffer's pages
 *			are pinned by WSX_IOC_SUBMIT (-EFAULT if any is not
 *			mapped readable) and released when the item completes:
 *			the checksum is of the data they hold while it runs
 * WSX_OP_SEND		args[0] = a channel id of the session, args[1] = the
 *			first value, args[2] = count (1 .. WSX_CHAN_COUNT_MAX):
 *			sends args[1], args[1] + 1, ... (modulo 2^64), count
 *			values in all, in order; result the values sent.
 *			Status -EPIPE when the channel is closed before all
 *			were sent
 * WSX_OP_RECV		args[0] = a channel id of the session, args[1] = count
 *			(1 .. WSX_CHAN_COUNT_MAX), args[2] = a channel id to
 *			send each value on once received (0: none), args[3] =
 *			ns of work per value before that send (at most
 *			max_item_ns): receives count values, one pipeline stage
 *			when args[2] is set; result their sum (modulo 2^64).
 *			Status -ENODATA when the channel is closed and empty
 *			before count values came, -EPIPE when the channel of
 *			args[2] is closed
 * WSX_OP_POLL		args[0] = a file descriptor of the submitter (a
 *			unix, IPv4, IPv6, netlink or packet socket, a pipe
 *			or FIFO, or an eventfd), args[1] =
 *			events (EPOLLIN, EPOLLPRI, EPOLLOUT, EPOLLRDNORM,
 *			EPOLLRDBAND, EPOLLWRNORM, EPOLLWRBAND, EPOLLMSG,
 *			EPOLLRDHUP, EPOLLERR and EPOLLHUP of
 *			<linux/eventpoll.h>; at least one), args[2] = timeout
 *			in ns (0: none; at most WSX_DELAY_MAX_NS): waits, once,
 *			until the file reports one of the events (EPOLLERR and
 *			EPOLLHUP too, as poll() reports them); result the
 *			events the file reported (revents).  Status -ETIME
 *			when the timeout (counted from the item's start)
 *			passed first, -EOPNOTSUPP when the file waits on two
 *			queues (a FIFO opened for reading and writing).  The
 *			descriptor is looked up when the request is
 *			submitted, and the item holds the file until it
 *			ends: closing the descriptor meanwhile does not end
 *			it.  A POLL in the SQ is
 *			consumed by WSX_IOC_ENTER only, never by a kernel
 *			thread's pick-up (it needs the submitter's files)
 * WSX_OP_PINGPONG	args[0] = rounds (1 .. WSX_CHAN_COUNT_MAX): two items
 *			hand one value back and forth over two unbuffered
 *			channels of the op's own, args[0] round trips (two
 *			handoffs each), Go's ping-pong; result the round
 *			trips made
 * WSX_OP_PIPELINE	args[0] = stages (1 .. WSX_PIPELINE_MAX_STAGES),
 *			args[1] = values (1 .. WSX_CHAN_COUNT_MAX): a source
 *			item sends 1, 2, ... args[1] through args[0] stage
 *			items, each receiving from the one before and sending
 *			on, to a sink item, over args[0] + 1 unbuffered
 *			channels of the op's own; result the sink's sum of
 *			the values
 *
 * SEND, RECV, POLL and the items of PINGPONG and PIPELINE wait without
 * holding a kernel thread (the item parks; the other side, or the file's
 * wakeup, readies it).  An
 * unknown channel id refuses the request with -ENOENT.  Closing the session
 * ends a waiting POLL with -ECANCELED.  Status -EAGAIN: the item had to wait
 * while max_parked of the session's items waited (a SEND or RECV counts
 * from its wait until it runs again, as each item of a PINGPONG or a
 * PIPELINE does, and a POLL from its wait until it ends).  The channels of a
 * PINGPONG or a PIPELINE are not the session's and have no id; when one of
 * its items ends early (-ECANCELED at close(), -EAGAIN, -ENOMEM), it closes
 * them, the others end too, and the record's status is that item's.  An
 * op's items count at once as they wait and are readied: a PINGPONG needs
 * max_parked of 2 at least, a PIPELINE up to its stages + 2.
 * The result counts what was done before a non-zero status.
 *
 * An argument over its limit gives -E2BIG, any other bad argument -EINVAL.
 *
 * WSX_OP_LAST is not an op: one past the last op this header knows.  It
 * grows with each new op, so it says nothing of the running module, which
 * refuses an op it does not know with -EINVAL.
 */
enum wsx_op {
	WSX_OP_NOP	= 0,
	WSX_OP_SPIN	= 1,
	WSX_OP_SLEEP	= 2,
	WSX_OP_SPAWN	= 3,
	WSX_OP_FIB	= 4,
	WSX_OP_CRC32C	= 5,
	WSX_OP_SEND	= 6,	/* ABI 1.2 */
	WSX_OP_RECV	= 7,	/* ABI 1.2 */
	WSX_OP_POLL	= 8,	/* ABI 1.3 */
	WSX_OP_PINGPONG	= 9,	/* ABI 1.4 */
	WSX_OP_PIPELINE	= 10,	/* ABI 1.4 */

	WSX_OP_LAST,	/* not an op: see above */
};

#define WSX_FIB_MAX		30
#define WSX_SPAWN_MAX_NODES	0x400000U	/* 2^22 */
#define WSX_SPAWN_MAX_FANOUT	64
#define WSX_SLEEP_MAX_US	1000000
#define WSX_CRC32C_MAX_LEN	0x40000000ULL	/* 1 GiB */
#define WSX_DELAY_MAX_NS	10000000000ULL	/* 10 s */
#define WSX_CHAN_COUNT_MAX	0xffffffffULL	/* values of an op, rounds */
#define WSX_PIPELINE_MAX_STAGES	64

/*
 * Where a submitted item is queued.  P n is the executor's n-th logical
 * processor, bound to the n-th CPU that was online when the module loaded
 * (so P n runs on CPU n on a machine whose CPUs are all online).
 */
enum wsx_place {
	WSX_PLACE_LOCAL		= 0,	/* the submitting CPU's P, or global */
	WSX_PLACE_P		= 1,	/* the P numbered wsx_req.target */
	WSX_PLACE_GLOBAL	= 2,	/* the global queue */
};

/**
 * struct wsx_req - one item to run, in a WSX_IOC_SUBMIT batch (64 bytes)
 * @user_data:	echoed in the item's completion record
 * @op:		enum wsx_op
 * @place:	enum wsx_place
 * @flags:	zero in WSX_IOC_SUBMIT (-EINVAL otherwise: its records
 *		always carry the CPU and the times); in the SQ, WSX_REQ_*
 *		bits
 * @target:	P number for WSX_PLACE_P, else zero
 * @reserved:	zero
 * @delay_ns:	queue the item this many ns from now (0: at once), at most
 *		WSX_DELAY_MAX_NS
 * @args:	op arguments, see enum wsx_op
 */
struct wsx_req {
	__u64 user_data;
	__u32 op;
	__u16 place;
	__u16 flags;
	__u32 target;
	__u32 reserved;
	__u64 delay_ns;
	__u64 args[4];
};

/*
 * Flags of a request in the SQ.  Without WSX_REQ_TIMESTAMPS its completion
 * record has queued_ns, started_ns, finished_ns and cpu all 0, and the
 * module reads no clock for it.  (WSX_IOC_SUBMIT always fills them.)
 */
#define WSX_REQ_TIMESTAMPS	0x0001

/**
 * struct wsx_submit - argument of WSX_IOC_SUBMIT (32 bytes)
 * @items:	user pointer to an array of @count struct wsx_req
 * @count:	1 .. WSX_SUBMIT_MAX
 * @queued:	out: how many items, from the first, were queued
 * @error:	out: 0 when all were queued, else -errno for items[@queued],
 *		the first item that was refused; none after it was queued
 * @reserved:	zero
 *
 * The ioctl returns @queued when at least one item was queued, else the
 * -errno of the first item (or of the struct itself).  @queued and @error
 * are ignored on input.
 */
struct wsx_submit {
	__u64 items;
	__u32 count;
	__u32 queued;
	__s32 error;
	__u32 reserved[3];
};

/**
 * struct wsx_completion - the record of one finished item (64 bytes)
 * @user_data:	the item's user_data
 * @result:	the op's result (see enum wsx_op)
 * @status:	0, or -ENOMEM when the item could not spawn all its nodes;
 *		SEND, RECV, POLL, PINGPONG and PIPELINE have their own (see
 *		enum wsx_op); -ECANCELED reaches no record (a closed
 *		session's are dropped), only the wsx_item_end tracepoint
 * @cpu:	CPU that ran the item itself (not its spawned children)
 * @queued_ns:	CLOCK_MONOTONIC ns when the item was queued
 * @started_ns:	... when it started to run
 * @finished_ns: ... when it and everything it spawned had finished
 * @nodes:	items that ran for it: 1, or every node of a SPAWN, FIB or
 *		CRC32C tree (2 x chunks - 1 for CRC32C), modulo 2^32; for
 *		SEND and RECV, its runs: 1, plus one after each wait and
 *		after each yield (every 64 values that went on at once);
 *		for PINGPONG and PIPELINE, the runs of all its items
 * @reserved:	zero
 *
 * @cpu and the three times are always filled in records of WSX_IOC_WAIT;
 * in the CQ only for a request with WSX_REQ_TIMESTAMPS, else all 0.
 */
struct wsx_completion {
	__u64 user_data;
	__u64 result;
	__s32 status;
	__u32 cpu;
	__u64 queued_ns;
	__u64 started_ns;
	__u64 finished_ns;
	__u32 nodes;
	__u32 reserved[3];
};

/**
 * struct wsx_wait - argument of WSX_IOC_WAIT (40 bytes)
 * @records:	user pointer to an array of @max struct wsx_completion
 * @max:	1 .. WSX_WAIT_MAX records to copy out at most
 * @min:	0 .. @max: wait until at least this many are ready
 * @timeout_ns:	how long to wait for @min records; negative = forever
 * @count:	out: records copied (ignored on input)
 * @reserved:	zero
 *
 * Returns the number of records copied (also in @count), at least @min:
 * when several threads WAIT on one session, one that finds the records it
 * woke for taken by another waits on, to the same deadline.  When fewer
 * than @min are ready at the timeout it returns -ETIMEDOUT and copies
 * nothing; a signal gives -EINTR, also copying nothing: the records stay
 * queued.  If @records faults part way, the records copied so far are
 * returned (maybe fewer than @min) and the rest stay queued.
 */
struct wsx_wait {
	__u64 records;
	__u32 max;
	__u32 min;
	__s64 timeout_ns;
	__u32 count;
	__u32 reserved[3];
};

/*
 * The shared rings (ABI 1.1).  One mapping, at offset WSX_RING_MMAP_OFF of
 * the file, holds four u32 indices and the two arrays, at the byte offsets
 * WSX_IOC_RING_SETUP reports:
 *
 *   SQ: struct wsx_req sqes[sq_entries]; userspace writes sqes[tail &
 *	 (sq_entries - 1)], then stores tail + 1 with release semantics
 *	 (__atomic_store_n(..., __ATOMIC_RELEASE)).  The module copies each
 *	 entry out once, in WSX_IOC_ENTER, and then advances head (a release
 *	 store) before the entry's item is queued: entries below head may be
 *	 reused, and a record never shows (CQ tail, acquire) before head
 *	 (acquire) covers its entry.  head is the module's, tail userspace's.
 *   CQ: struct wsx_completion cqes[cq_entries]; the module writes
 *	 cqes[tail & (cq_entries - 1)] and stores tail + 1 (release);
 *	 userspace reads with an acquire load of tail, reads the records
 *	 below it and stores head (release) to free their entries.  tail is
 *	 the module's, head userspace's.
 *
 * All four are free-running u32 counters.  The module never keeps more
 * items in flight than the CQ has free entries for (accepted, not yet read
 * by userspace: WSX_IOC_ENTER stops short with -EBUSY), so no record is
 * ever dropped or overwritten; a CQ that userspace stops reading holds its
 * records until it does.  A malformed SQ entry is consumed and answered by
 * a record with status -errno (the errors of WSX_IOC_SUBMIT).  The module
 * trusts nothing userspace writes there: a tail or head out of range gives
 * -EINVAL and is otherwise ignored, each entry is read once.  One thread at
 * a time may write the SQ (the module serialises its own side: concurrent
 * ENTER calls are safe, concurrent writers of the same SQ entries are the
 * program's bug).  The mapping stays valid until munmap, also after close;
 * a fork()ed child shares it, as MAP_SHARED memory.  mmap may be called
 * more than once, and may map less than mmap_size (the start of the area).
 *
 * What WSX_IOC_ENTER checks, and when: flags and reserved (-EINVAL) and
 * min_complete (-E2BIG) always; the SQ tail and the CQ head only when
 * to_submit > 0, before it consumes; the CQ head again when min_complete >
 * 0, before it waits.  So ENTER(to_submit 0, min_complete 0) looks at no
 * index and returns 0 whatever they hold.  @submitted and @error of struct
 * wsx_enter are ignored on input.  A wait cut short by a signal returns
 * -EINTR and is not restarted, even for a handler installed with
 * SA_RESTART (a restart would start its relative timeout over): call
 * again, the records stay.  A refused WSX_IOC_RING_SETUP leaves the
 * session without rings, free to try again: only one that succeeds is the
 * session's one.
 *
 * Closing with the rings mapped: each mapping holds a reference to the
 * open file, so close() with the rings still mapped returns at once and
 * ends nothing.  The session (its items, its rings, its in-flight count,
 * and the module's reference count: rmmod is refused) lives until the last
 * munmap or the process's exit; only then are its items not yet started
 * cancelled and those running waited for, as at close() without rings.
 *
 * With WSX_RING_SQ_PICKUP the executor's threads (Ms) themselves consume
 * the session's SQ entries when they run out of work, before they sleep,
 * as one more queue to steal from.  The module then keeps WSX_SQ_NEED_ENTER
 * set in the SQ flags word while no M will look at the SQ again without
 * being woken: after storing the SQ tail, userspace issues a full barrier
 * (__atomic_thread_fence(__ATOMIC_SEQ_CST)) and loads the flags; only if
 * WSX_SQ_NEED_ENTER is set must it call WSX_IOC_ENTER for the new entries.
 * An ENTER that queued work and finds every thread of the executor busy
 * clears the flag (each will look before it sleeps): the entries pushed
 * after it need no ENTER until the flag is set again.
 * Entries an M cannot take are left for the next ENTER, with the flag set
 * until then: CRC32C entries (they pin the caller's pages), entries that
 * meet a full CQ, and all of them when the indices are out of range.  So a
 * program that waits for their records must look at the flag again, or
 * wait with an ENTER whose to_submit covers them: an ENTER with to_submit
 * 0 consumes nothing and would wait for records that do not come.
 */
#define WSX_RING_MMAP_OFF	0ULL

/**
 * struct wsx_ring_setup - argument of WSX_IOC_RING_SETUP (64 bytes)
 * @sq_entries:	in: SQ entries, a power of two, 1 .. module parameter
 *		ring_max_entries (default 16384)
 * @cq_entries:	in: CQ entries (= most items in flight), a power of two,
 *		@sq_entries .. ring_max_entries; 0 = 2 x @sq_entries,
 *		at most ring_max_entries (out: the value used)
 * @flags:	in: WSX_RING_* flags
 * @reserved0:	zero
 * @mmap_size:	out: the length to mmap at WSX_RING_MMAP_OFF
 * @sq_head:	out: byte offset of the SQ head (u32) in the mapping
 * @sq_tail:	out: ... of the SQ tail
 * @cq_head:	out: ... of the CQ head
 * @cq_tail:	out: ... of the CQ tail
 * @sqes:	out: ... of the SQ's struct wsx_req array
 * @cqes:	out: ... of the CQ's struct wsx_completion array
 * @sq_flags:	out: ... of the SQ flags word (u32, WSX_SQ_*, the module's)
 * @reserved:	zero
 *
 * Once per session.  The CQ's entries count against the module parameter
 * max_inflight for as long as the session is open.
 */
struct wsx_ring_setup {
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 flags;
	__u32 reserved0;
	__u64 mmap_size;
	__u32 sq_head;
	__u32 sq_tail;
	__u32 cq_head;
	__u32 cq_tail;
	__u32 sqes;
	__u32 cqes;
	__u32 sq_flags;
	__u32 reserved[3];
};

/* wsx_ring_setup.flags */
#define WSX_RING_SQ_PICKUP	0x0001	/* the Ms consume the SQ themselves */

/* Bits of the SQ flags word */
#define WSX_SQ_NEED_ENTER	0x0001	/* call ENTER for new SQ entries */

/**
 * struct wsx_enter - argument of WSX_IOC_ENTER (32 bytes)
 * @to_submit:	consume at most this many new SQ entries (0: none)
 * @min_complete: then wait until at least this many records are ready to
 *		read in the CQ (0: do not wait), at most cq_entries.  Without
 *		a wait the caller goes on running on its CPU: an entry placed
 *		on that CPU's idle P is then run, when another P is idle, by
 *		that P, which steals it, rather than by a thread that would
 *		wait for the caller's CPU
 * @timeout_ns:	how long to wait for them; negative = forever
 * @flags:	zero (none defined yet)
 * @submitted:	out: SQ entries consumed (each gets a record); ignored on
 *		input
 * @error:	out: 0, or -EBUSY when fewer than @to_submit were consumed
 *		although the SQ held them because the CQ has no entry left
 *		for another record (read records, then call again); ignored
 *		on input
 * @reserved:	zero
 *
 * Returns 0 when the wait (if any) succeeded, whatever was submitted;
 * -ETIMEDOUT or -EINTR when it did not (@submitted still tells what was
 * consumed); -EINVAL, -E2BIG, -EFAULT, -ENXIO for the struct itself.
 */
struct wsx_enter {
	__u32 to_submit;
	__u32 min_complete;
	__s64 timeout_ns;
	__u32 flags;
	__u32 submitted;
	__s32 error;
	__u32 reserved;
};

/**
 * struct wsx_chan_create - argument of WSX_IOC_CHAN_CREATE (16 bytes)
 * @cap:	values the channel buffers: 0 (unbuffered: a send waits for
 *		its receiver) up to the module parameter max_chan_cap
 * @flags:	0
 * @id:		out: the channel's id in the session, from 1, never reused
 *		while the session lives
 * @reserved:	0
 *
 * A channel lives as long as its session, and counts against the module
 * parameter max_chans until then.  WSX_IOC_CHAN_CLOSE closes one, as
 * Go's close(): its waiting receivers end with -ENODATA once the buffer is
 * empty, its waiting senders with -EPIPE.  Closing the session closes all
 * its channels.
 */
struct wsx_chan_create {
	__u32 cap;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

#define WSX_IOC_MAGIC	0xE9

/*
 * WSX_IOC_SUBMIT, WSX_IOC_RING_SETUP, WSX_IOC_ENTER, WSX_IOC_CHAN_CREATE and
 * WSX_IOC_CHAN_CLOSE need the file open for writing (O_WRONLY or O_RDWR):
 * -EBADF otherwise, before any other check.
 *
 * WSX_IOC_VERSION	-EFAULT	bad pointer
 * WSX_IOC_SUBMIT	-EFAULT	bad pointer (struct or items)
 *			-EINVAL	count 0, reserved or flags not zero, unknown
 *				op or place, unused argument not zero,
 *				argument out of range
 *			-E2BIG	count over WSX_SUBMIT_MAX, or an argument over
 *				its limit (max_item_ns, tree size, buffer size,
 *				WSX_DELAY_MAX_NS, WSX_CHAN_COUNT_MAX,
 *				WSX_PIPELINE_MAX_STAGES)
 *			-ENXIO	WSX_PLACE_P on a P that does not exist or
 *				whose CPU is offline
 *			-ENOENT	SEND or RECV on a channel id the session
 *				does not have
 *			-EBADF	POLL on a descriptor the submitter has not
 *			-EOPNOTSUPP POLL on a file other than a unix, IPv4,
 *				IPv6, netlink or packet socket, a pipe or
 *				FIFO, or an eventfd (another file's poll may
 *				sleep, on a kernel thread every session
 *				shares)
 *			-EAGAIN	the per-session or total in-flight limit is
 *				reached: wait for completions and retry
 *			-ENOMEM	out of memory
 *			-EINTR	the caller is being killed
 * WSX_IOC_WAIT		-EFAULT	bad pointer
 *			-EINVAL	max 0, min over max, reserved not zero
 *			-E2BIG	max over WSX_WAIT_MAX
 *			-ETIMEDOUT fewer than min records by the timeout
 *			-EINTR	interrupted by a signal (not restarted under
 *				SA_RESTART)
 * WSX_IOC_RING_SETUP -EFAULT bad pointer
 *			-EINVAL	entries 0 or not a power of two, cq_entries
 *				under sq_entries, unknown flags, reserved
 *				not zero
 *			-E2BIG	entries over ring_max_entries
 *			-EBUSY	the session has its rings already
 *			-EAGAIN	cq_entries more in flight would pass
 *				max_inflight
 *			-ENOMEM	out of memory, or the rings would pass the
 *				caller's memory cgroup's limit
 * WSX_IOC_ENTER	-EFAULT	bad pointer
 *			-ENXIO	no rings set up on this session
 *			-EINVAL	flags or reserved not zero; with to_submit >
 *				0, the SQ tail or CQ head out of range (tail -
 *				head over the entries, or the CQ head past
 *				the tail): nothing consumed; with
 *				min_complete > 0, the CQ head out of range:
 *				no wait
 *			-E2BIG	min_complete over cq_entries
 *			-ETIMEDOUT fewer than min_complete records by the
 *				timeout
 *			-EINTR	interrupted by a signal while waiting (not
 *				restarted under SA_RESTART), or a fatal
 *				signal before consuming
 * WSX_IOC_CHAN_CREATE -EFAULT bad pointer
 *			-EINVAL	flags or reserved not zero
 *			-E2BIG	cap over max_chan_cap
 *			-EMFILE	the session has max_chans channels
 *			-ENOMEM	out of memory
 * WSX_IOC_CHAN_CLOSE	-EFAULT	bad pointer
 *			-ENOENT	no such channel in the session
 *			-EALREADY the channel is closed already
 * mmap		-ENXIO	no rings set up; -EINVAL not MAP_SHARED,
 *			offset not WSX_RING_MMAP_OFF or length over mmap_size
 * any other command	-ENOTTY
 */
#define WSX_IOC_VERSION	_IOR(WSX_IOC_MAGIC, 0x00, struct wsx_version)
#define WSX_IOC_SUBMIT	_IOWR(WSX_IOC_MAGIC, 0x01, struct wsx_submit)
#define WSX_IOC_WAIT	_IOWR(WSX_IOC_MAGIC, 0x02, struct wsx_wait)
#define WSX_IOC_RING_SETUP _IOWR(WSX_IOC_MAGIC, 0x03, struct wsx_ring_setup)
#define WSX_IOC_ENTER	_IOWR(WSX_IOC_MAGIC, 0x04, struct wsx_enter)
#define WSX_IOC_CHAN_CREATE _IOWR(WSX_IOC_MAGIC, 0x05, struct wsx_chan_create)
/* the argument points to the channel's __u32 id */
#define WSX_IOC_CHAN_CLOSE _IOW(WSX_IOC_MAGIC, 0x06, __u32)

#endif /* _UAPI_LINUX_WSX_H */
