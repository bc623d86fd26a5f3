/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * A fake /dev/wsx for host tests: it replaces ioctl(2) for the WSX_IOC_*
 * commands (any descriptor, e.g. /dev/null opened through WSX_DEVICE) and
 * passes the others to the kernel.  It checks each item as <linux/wsx.h>
 * says the module does, runs it at once in the calling thread and queues
 * its completion record.  The rings (ABI 1.1) too: WSX_IOC_RING_SETUP
 * allocates them, mmap(2) of that descriptor at offset 0 returns them (other
 * mmap and munmap calls go to the kernel), WSX_IOC_ENTER runs what the SQ
 * holds into the CQ.  The channels (ABI 1.2): WSX_IOC_CHAN_CREATE and
 * WSX_IOC_CHAN_CLOSE, and SEND and RECV items on them, with one
 * simplification: a channel's buffer is unbounded, so a SEND never waits;
 * a RECV that finds too few values waits, its record held back until
 * SENDs or the channel's close end it.  POLL (ABI 1.3) with poll(2): an
 * item that must wait keeps its record back until a WAIT or ENTER (one
 * that waits for records waits in poll(2)) sees its file ready or its
 * timeout pass; its descriptor is looked up as wsx_op_expect.h's
 * wsx_expect_poll_fd() predicts the module's lookup: over INT_MAX, not
 * open or O_PATH -EBADF, anything but a unix, IPv4, IPv6, netlink or
 * packet socket, a pipe or FIFO, or an eventfd -EOPNOTSUPP (a regular
 * file, a directory, a timerfd, /dev/null and the fake's device among
 * them); a FIFO open for reading and writing
 * (two queues) ends it -EOPNOTSUPP, a ready file with its events at once,
 * and one that would wait while max_parked items (its RECVs and POLLs)
 * wait -EAGAIN; on a module before ABI 1.3 (FAKEWSX_ABI_MINOR) POLL is an
 * unknown op, -EINVAL.  PINGPONG and PIPELINE (ABI 1.4) with the module's
 * checks, run at once to their result (the round trips, the sink's sum);
 * one submitted while max_parked items wait ends -EAGAIN, result 0 (its
 * first wait would meet the limit: its own items' waits are not
 * modelled); before ABI 1.4 an unknown op, -EINVAL.  Not thread-safe.
 *
 * Linked into a test program, the test sets the knobs of `fakewsx`.  Built
 * as fakewsx.so and preloaded, it takes them from the environment:
 *   FAKEWSX_ABI_MAJOR, FAKEWSX_ABI_MINOR (0: no rings), FAKEWSX_NPROCS,
 *   FAKEWSX_SUBMIT_MAX, FAKEWSX_WAIT_MAX, FAKEWSX_INFLIGHT_MAX,
 *   FAKEWSX_MAX_ITEM_NS, FAKEWSX_MAX_CHANS,
 *   FAKEWSX_MAX_CHAN_CAP, FAKEWSX_MAX_PARKED	the knobs below
 *   FAKEWSX_CORRUPT=1				add 1 to every result
 */
#ifndef WSX_TEST_FAKEWSX_H
#define WSX_TEST_FAKEWSX_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/wsx.h>

struct fakewsx {
	struct wsx_version version;	/* WSX_IOC_VERSION's answer */
	uint64_t inflight_max;		/* unreaped records and waiting items
					   before -EAGAIN */
	unsigned int submit_eintr;	/* SUBMIT calls to fail with EINTR */
	uint64_t refuse_at;		/* index (in fakewsx.queued) of an */
	int refuse_err;			/* item to refuse with this -errno */
	bool corrupt;			/* add 1 to every result */
	uint64_t max_item_ns;		/* the module parameter (10 ms) */
	uint32_t max_chans;		/* the module parameter (1024) */
	uint32_t max_chan_cap;		/* the module parameter (65536) */
	uint32_t max_parked;		/* the module parameter (65536) */
	unsigned int calls[7];		/* ioctl calls, by command number */
	uint64_t queued;		/* items queued so far */
};

extern struct fakewsx fakewsx;

/* Drops the queued records and sets the knobs from the environment. */
void fakewsx_reset(void);

/* The SQ flags word of the rings, NULL before WSX_IOC_RING_SETUP. */
__u32 *fakewsx_sq_flags(void);

#endif /* WSX_TEST_FAKEWSX_H */
