/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module does with a request, as uapi/linux/wsx.h documents it,
 * written once for every userspace test that predicts it: whether the
 * request is refused and with which errno (the limits), and the nodes and
 * result of its completion record.  Used by the kselftests here (the
 * fuzzer's model, the ABI, CRC32C and 32-bit tests) and by the fake device
 * of the host tests, userlib/testlib/fakewsx.c.
 *
 * It lives here because the kselftests must build from this folder alone
 * (a kernel tree's tools/testing/selftests/wsx, or the copy that
 * scripts/stage-selftests makes); the fake device is built only inside the
 * repository and includes it from here by a relative path.
 *
 * Pure static inline functions of the request and of what the running
 * module decides (its number of Ps, its max_item_ns), with no loop that a
 * request can lengthen: a SPAWN tree is counted level by level only while
 * it has at most WSX_SPAWN_MAX_NODES (a fanout of 1 in closed form, a
 * wider one at least doubles the count at each level: 22 levels at most),
 * FIB takes at most WSX_FIB_MAX steps, CRC32C's count is a division.
 *
 * SEND and RECV (ABI 1.2) name channels of the session: what this header
 * predicts of them is only their arguments' checks; whether the ids exist
 * (-ENOENT), and their results, depend on the session and on the other
 * items, which the caller models.
 *
 * POLL (ABI 1.3) names a file descriptor of the submitter: this header
 * predicts its events' and timeout's checks and, from the caller's own
 * descriptor table (so not a pure function of the request), the
 * descriptor's lookup made after them (wsx_expect_poll_fd(): -EBADF, or
 * -EOPNOTSUPP for a file other than a unix, IPv4, IPv6, netlink or packet
 * socket, a pipe or FIFO, or an eventfd) and the status of a file that
 * waits on two queues
 * (wsx_expect_poll_two_queues()); the result (the events the file
 * reports) is the caller's to model.
 *
 * PINGPONG and PIPELINE (ABI 1.4) run over channels of their own, not
 * the session's: this header predicts their checks and their result
 * (the round trips, the sink's sum) when their status is 0; a status
 * other than 0 (-EAGAIN at max_parked, -ENOMEM, -ECANCELED at close())
 * depends on the moment, which the caller models.
 *
 * The module's own code for the same: wsx_req_check() (the order of the
 * checks), the check functions of the op table (kmod/ops.c),
 * wsx_spawn_nodes() and wsx_crc_left() (how a CRC32C range splits);
 * wsx_send_check() and wsx_recv_check() for SEND and RECV,
 * wsx_poll_check() and wsx_poll_create() (kmod/poll.c) for POLL.
 */
#ifndef WSX_OP_EXPECT_H
#define WSX_OP_EXPECT_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/wsx.h>

/* A new op fails the build here until what it does is written below. */
_Static_assert(WSX_OP_LAST == WSX_OP_PIPELINE + 1,
	       "an op this header does not know");

/* CRC32C's chunk (args[2]): at least 4 KiB; 0 asks for 64 KiB. */
#define WSX_EXPECT_CRC32C_CHUNK_MIN	4096ULL
#define WSX_EXPECT_CRC32C_CHUNK_DEFAULT	65536ULL

/* No such value: a tree over its limit, or an argument the module refuses. */
#define WSX_EXPECT_NONE			(~0ULL)

/* What is wrong with a request: one bit for each errno that applies. */
#define WSX_EXPECT_EINVAL	0x1U	/* a bad field, flag, place, op or argument */
#define WSX_EXPECT_E2BIG	0x2U	/* an argument or the delay over its limit */
#define WSX_EXPECT_ENXIO	0x4U	/* WSX_PLACE_P on a P that does not exist */

/*
 * wsx_expect_spawn_nodes - the nodes of a SPAWN tree of @fanout children
 * per node and @depth levels below the root, or WSX_EXPECT_NONE when
 * @fanout is not 1 .. WSX_SPAWN_MAX_FANOUT or the tree has more than
 * WSX_SPAWN_MAX_NODES nodes.
 */
static inline __u64 wsx_expect_spawn_nodes(__u64 fanout, __u64 depth)
{
	__u64 level = 1, total = 1;

	if (!fanout || fanout > WSX_SPAWN_MAX_FANOUT)
		return WSX_EXPECT_NONE;
	if (fanout == 1)
		return depth < WSX_SPAWN_MAX_NODES ? depth + 1 : WSX_EXPECT_NONE;
	while (depth--) {
		level *= fanout;
		total += level;
		if (total > WSX_SPAWN_MAX_NODES)
			return WSX_EXPECT_NONE;
	}
	return total;
}

/*
 * wsx_expect_spawn_max_depth - the deepest SPAWN tree of @fanout children
 * per node the module takes: one level more is over WSX_SPAWN_MAX_NODES.
 * 0 for a fanout it refuses.
 */
static inline __u64 wsx_expect_spawn_max_depth(__u64 fanout)
{
	__u64 depth = 0;

	if (fanout == 1)
		return WSX_SPAWN_MAX_NODES - 1;
	while (wsx_expect_spawn_nodes(fanout, depth + 1) != WSX_EXPECT_NONE)
		depth++;
	return depth;
}

/* fib(@n) and fib(@n + 1) for @n up to WSX_FIB_MAX; false beyond. */
static inline bool wsx_expect_fib_pair(__u64 n, __u64 *fib, __u64 *next)
{
	__u64 a = 0, b = 1, t;

	if (n > WSX_FIB_MAX)
		return false;
	while (n--) {
		t = a + b;
		a = b;
		b = t;
	}
	*fib = a;
	*next = b;
	return true;
}

/*
 * wsx_expect_fib - FIB(@n)'s result, fib(@n) with fib(0) = 0 and
 * fib(1) = 1; WSX_EXPECT_NONE over WSX_FIB_MAX.
 */
static inline __u64 wsx_expect_fib(__u64 n)
{
	__u64 fib, next;

	return wsx_expect_fib_pair(n, &fib, &next) ? fib : WSX_EXPECT_NONE;
}

/*
 * wsx_expect_fib_nodes - the nodes of FIB(@n)'s tree, in which every node
 * of n >= 2 has the two children n - 1 and n - 2: 1 + nodes(n - 1) +
 * nodes(n - 2), which is 2 x fib(@n + 1) - 1; WSX_EXPECT_NONE over
 * WSX_FIB_MAX.
 */
static inline __u64 wsx_expect_fib_nodes(__u64 n)
{
	__u64 fib, next;

	return wsx_expect_fib_pair(n, &fib, &next) ? 2 * next - 1 :
						     WSX_EXPECT_NONE;
}

/* wsx_expect_crc32c_chunk - the chunk a CRC32C's args[2] asks for. */
static inline __u64 wsx_expect_crc32c_chunk(__u64 chunk)
{
	return chunk ? chunk : WSX_EXPECT_CRC32C_CHUNK_DEFAULT;
}

/*
 * wsx_expect_crc32c_nodes - the nodes of a CRC32C over @len bytes in
 * @chunk pieces (0: the default).  A node over a chunk splits its range in
 * two at a chunk boundary at or past its middle, so the leaves are the
 * chunks, the last one maybe short: 2 x chunks - 1 nodes (0 for @len 0).
 */
static inline __u64 wsx_expect_crc32c_nodes(__u64 len, __u64 chunk)
{
	__u64 chunks;

	chunk = wsx_expect_crc32c_chunk(chunk);
	chunks = len / chunk + (len % chunk != 0);
	return chunks ? 2 * chunks - 1 : 0;
}

/*
 * The count of a SEND (args[2]) or a RECV (args[1]): 0 is EINVAL, over
 * WSX_CHAN_COUNT_MAX E2BIG.
 */
static inline unsigned int wsx_expect_chan_count_faults(__u64 count)
{
	if (!count)
		return WSX_EXPECT_EINVAL;
	return count > WSX_CHAN_COUNT_MAX ? WSX_EXPECT_E2BIG : 0;
}

/* A channel id that does not fit the ABI's __u32: EINVAL. */
static inline unsigned int wsx_expect_chan_id_faults(__u64 id)
{
	return id > 0xffffffffULL ? WSX_EXPECT_EINVAL : 0;
}

/*
 * The events a POLL may ask for (args[1]): EPOLLIN 0x1, EPOLLPRI 0x2,
 * EPOLLOUT 0x4, EPOLLERR 0x8, EPOLLHUP 0x10, EPOLLRDNORM 0x40, EPOLLRDBAND
 * 0x80, EPOLLWRNORM 0x100, EPOLLWRBAND 0x200, EPOLLMSG 0x400 and
 * EPOLLRDHUP 0x2000 of <linux/eventpoll.h> (poll(2)'s POLL* have the same
 * values), written out: that header and <sys/epoll.h> do not mix.
 */
#define WSX_EXPECT_POLL_EVENTS	0x27dfULL

/*
 * A POLL's events (args[1]): none, or a bit outside
 * WSX_EXPECT_POLL_EVENTS, is EINVAL.
 */
static inline unsigned int wsx_expect_poll_events_faults(__u64 events)
{
	return !events || (events & ~WSX_EXPECT_POLL_EVENTS) ?
	       WSX_EXPECT_EINVAL : 0;
}

/*
 * Whether descriptor @fd of the calling process is an eventfd: its link
 * in /proc/self/fd names the anonymous inode "[eventfd]" (false when
 * /proc cannot say).
 */
static inline bool wsx_expect_is_eventfd(int fd)
{
	static const char want[] = "anon_inode:[eventfd]";
	char path[32], link[sizeof(want)];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link));
	return n == (ssize_t)sizeof(want) - 1 && !memcmp(link, want, n);
}

/*
 * Whether socket @fd of the calling process is of a family a POLL takes
 * (wsx_poll_socket_ok(): unix, IPv4, IPv6, netlink, packet), by its
 * SO_DOMAIN.
 */
static inline bool wsx_expect_poll_family_ok(int fd)
{
	socklen_t len = sizeof(int);
	int family;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &len))
		return false;
	return family == AF_UNIX || family == AF_INET ||
	       family == AF_INET6 || family == AF_NETLINK ||
	       family == AF_PACKET;
}

/*
 * The lookup of a POLL's descriptor (args[0]) in the calling process, as
 * wsx_poll_create() and wsx_poll_file_ok() make it: -EBADF for a number
 * over INT_MAX or no descriptor (an O_PATH one included: fget() takes
 * none); 0 for a socket of a family above, a pipe or FIFO and an eventfd,
 * the files whose poll never sleeps; -EOPNOTSUPP for any other (a socket
 * of another family, a regular file, a directory, a tty, /dev/null, a
 * /dev/wsx file, a timerfd, a signalfd, an epoll or io_uring file...).
 */
static inline int wsx_expect_poll_fd(__u64 fd)
{
	struct stat st;
	int fl;

	if (fd > INT_MAX)
		return -EBADF;
	fl = fcntl((int)fd, F_GETFL);
	if (fl < 0 || (fl & O_PATH) || fstat((int)fd, &st))
		return -EBADF;
	if (S_ISSOCK(st.st_mode))
		return wsx_expect_poll_family_ok((int)fd) ? 0 : -EOPNOTSUPP;
	if (S_ISFIFO(st.st_mode) || wsx_expect_is_eventfd((int)fd))
		return 0;
	return -EOPNOTSUPP;
}

/*
 * Whether a POLL of @fd, which wsx_expect_poll_fd() accepts, ends with
 * status -EOPNOTSUPP at its first look, ready or not: its file waits on
 * two queues, as a FIFO (or a pipe reopened through /proc) open for
 * reading and writing does (pipe_poll() waits on the readers' queue and
 * the writers').
 */
static inline bool wsx_expect_poll_two_queues(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == O_RDWR && !fstat(fd, &st) &&
	       S_ISFIFO(st.st_mode);
}

/*
 * wsx_expect_pipeline_sum - a PIPELINE's result: 1 + 2 + ... + @values,
 * @values (@values + 1) / 2 modulo 2^64 (the halving done before the
 * product, so exact for any @values).
 */
static inline __u64 wsx_expect_pipeline_sum(__u64 values)
{
	__u64 a = values, b = values + 1;

	if (a % 2 == 0)
		a /= 2;
	else
		b /= 2;
	return a * b;
}

/*
 * wsx_expect_op_items - the items a PINGPONG (2) or a PIPELINE (its
 * stages, a source and a sink) of good arguments runs, each of which may
 * park; 1 for the other ops.
 */
static inline __u64 wsx_expect_op_items(const struct wsx_req *req)
{
	switch (req->op) {
	case WSX_OP_PINGPONG:
		return 2;
	case WSX_OP_PIPELINE:
		return req->args[0] + 2;
	default:
		return 1;
	}
}

/* Whether args[@from] .. args[3] of @req are all zero. */
static inline bool wsx_expect_args_zero(const struct wsx_req *req,
					unsigned int from)
{
	for (unsigned int i = from; i < 4; i++)
		if (req->args[i])
			return false;
	return true;
}

/* The limit of args[0] of SPIN, SLEEP and FIB. */
static inline __u64 wsx_expect_arg0_max(__u32 op, __u64 max_item_ns)
{
	switch (op) {
	case WSX_OP_SPIN:
		return max_item_ns;
	case WSX_OP_SLEEP:
		return WSX_SLEEP_MAX_US;
	default:
		return WSX_FIB_MAX;
	}
}

/*
 * wsx_expect_op_faults - what is wrong with @req's op and arguments, as
 * WSX_EXPECT_* bits (0: nothing), with the module parameter max_item_ns
 * at @max_item_ns.  An unknown op, an unused argument not zero or an
 * argument out of range is EINVAL, an argument over its limit E2BIG;
 * both may apply.  A SPAWN tree is counted only when its fanout and its
 * unused argument are right.
 */
static inline unsigned int wsx_expect_op_faults(const struct wsx_req *req,
						__u64 max_item_ns)
{
	const __u64 *a = req->args;
	unsigned int f = 0;

	switch (req->op) {
	case WSX_OP_NOP:
		if (!wsx_expect_args_zero(req, 0))
			f |= WSX_EXPECT_EINVAL;
		break;
	case WSX_OP_SPIN:
	case WSX_OP_SLEEP:
	case WSX_OP_FIB:
		if (!wsx_expect_args_zero(req, 1))
			f |= WSX_EXPECT_EINVAL;
		if (a[0] > wsx_expect_arg0_max(req->op, max_item_ns))
			f |= WSX_EXPECT_E2BIG;
		break;
	case WSX_OP_SPAWN:
		if (a[3] || !a[0] || a[0] > WSX_SPAWN_MAX_FANOUT)
			f |= WSX_EXPECT_EINVAL;
		else if (wsx_expect_spawn_nodes(a[0], a[1]) == WSX_EXPECT_NONE)
			f |= WSX_EXPECT_E2BIG;
		if (a[2] > max_item_ns)
			f |= WSX_EXPECT_E2BIG;
		break;
	case WSX_OP_CRC32C:
		if (a[3] || !a[0] || !a[1] ||
		    (a[2] && a[2] < WSX_EXPECT_CRC32C_CHUNK_MIN))
			f |= WSX_EXPECT_EINVAL;
		if (a[1] > WSX_CRC32C_MAX_LEN || a[2] > WSX_CRC32C_MAX_LEN)
			f |= WSX_EXPECT_E2BIG;
		break;
	case WSX_OP_SEND:
		if (a[3])
			f |= WSX_EXPECT_EINVAL;
		f |= wsx_expect_chan_id_faults(a[0]) |
		     wsx_expect_chan_count_faults(a[2]);
		break;
	case WSX_OP_RECV:
		f |= wsx_expect_chan_id_faults(a[0]) |
		     wsx_expect_chan_id_faults(a[2]) |
		     wsx_expect_chan_count_faults(a[1]);
		if (a[3] > max_item_ns)
			f |= WSX_EXPECT_E2BIG;
		break;
	case WSX_OP_POLL:
		if (a[3])
			f |= WSX_EXPECT_EINVAL;
		f |= wsx_expect_poll_events_faults(a[1]);
		if (a[2] > WSX_DELAY_MAX_NS)
			f |= WSX_EXPECT_E2BIG;
		break;
	case WSX_OP_PINGPONG:	/* rounds */
		if (!wsx_expect_args_zero(req, 1))
			f |= WSX_EXPECT_EINVAL;
		f |= wsx_expect_chan_count_faults(a[0]);
		break;
	case WSX_OP_PIPELINE:	/* stages, values */
		if (!wsx_expect_args_zero(req, 2) || !a[0])
			f |= WSX_EXPECT_EINVAL;
		if (a[0] > WSX_PIPELINE_MAX_STAGES)
			f |= WSX_EXPECT_E2BIG;
		f |= wsx_expect_chan_count_faults(a[1]);
		break;
	default:
		f |= WSX_EXPECT_EINVAL;
	}
	return f;
}

/* Flags other than @flags_ok, or reserved not zero: EINVAL. */
static inline unsigned int wsx_expect_field_faults(const struct wsx_req *req,
						   __u16 flags_ok)
{
	return (req->flags & ~flags_ok) || req->reserved ?
	       WSX_EXPECT_EINVAL : 0;
}

/*
 * An unknown place, or a target without WSX_PLACE_P, is EINVAL; a P
 * beyond @nprocs ENXIO.
 */
static inline unsigned int wsx_expect_place_faults(const struct wsx_req *req,
						   __u32 nprocs)
{
	switch (req->place) {
	case WSX_PLACE_LOCAL:
	case WSX_PLACE_GLOBAL:
		return req->target ? WSX_EXPECT_EINVAL : 0;
	case WSX_PLACE_P:
		return req->target < nprocs ? 0 : WSX_EXPECT_ENXIO;
	default:
		return WSX_EXPECT_EINVAL;
	}
}

/* A delay over WSX_DELAY_MAX_NS: E2BIG. */
static inline unsigned int wsx_expect_delay_faults(const struct wsx_req *req)
{
	return req->delay_ns > WSX_DELAY_MAX_NS ? WSX_EXPECT_E2BIG : 0;
}

/*
 * wsx_expect_req_faults - everything wrong with @req (WSX_EXPECT_* bits,
 * 0: the module queues it), allowing the WSX_REQ_* flags @flags_ok (none
 * in WSX_IOC_SUBMIT), on a module of @nprocs Ps (all online) with
 * max_item_ns @max_item_ns.  Any errno whose bit is set is one the ABI
 * allows for it.
 */
static inline unsigned int wsx_expect_req_faults(const struct wsx_req *req,
						 __u16 flags_ok, __u32 nprocs,
						 __u64 max_item_ns)
{
	return wsx_expect_field_faults(req, flags_ok) |
	       wsx_expect_place_faults(req, nprocs) |
	       wsx_expect_delay_faults(req) |
	       wsx_expect_op_faults(req, max_item_ns);
}

/* The errno of one step's @faults: EINVAL before ENXIO before E2BIG. */
static inline int wsx_expect_errno(unsigned int faults)
{
	if (faults & WSX_EXPECT_EINVAL)
		return -EINVAL;
	if (faults & WSX_EXPECT_ENXIO)
		return -ENXIO;
	return faults & WSX_EXPECT_E2BIG ? -E2BIG : 0;
}

/*
 * wsx_expect_req_check - the one errno the module gives @req (0: it
 * queues it; the arguments as for wsx_expect_req_faults()), checking in
 * its order: the flags and reserved field, the place, the delay, then
 * the op and its arguments.  Not the errors of memory or of the moment
 * (-EFAULT, -EAGAIN, -ENOMEM, -ENXIO for an offline P).
 */
static inline int wsx_expect_req_check(const struct wsx_req *req,
				       __u16 flags_ok, __u32 nprocs,
				       __u64 max_item_ns)
{
	unsigned int f = wsx_expect_field_faults(req, flags_ok);

	if (!f)
		f = wsx_expect_place_faults(req, nprocs);
	if (!f)
		f = wsx_expect_delay_faults(req);
	if (!f)
		f = wsx_expect_op_faults(req, max_item_ns);
	return wsx_expect_errno(f);
}

/* The completion record of a request that ran to its end. */
struct wsx_expect_rec {
	__u64 result;		/* when result_known */
	__u32 nodes;
	bool result_known;	/* false for CRC32C (a checksum of memory), RECV,
				   POLL */
};

/*
 * wsx_expect_record - the nodes and, where the arguments decide it, the
 * result of @req's record (status 0), for a request the module takes.
 * CRC32C's result is the checksum of the caller's buffer, which the
 * caller computes; RECV's the sum of the values the senders sent, and
 * SEND's is its count only when it ran to its end (status 0); POLL's the
 * events the file reported.  PINGPONG's is its round trips, PIPELINE's
 * the sink's sum.  max_item_ns is not looked at (it changes no record);
 * a request of a refused op or argument gives all zero.
 */
static inline struct wsx_expect_rec
wsx_expect_record(const struct wsx_req *req)
{
	struct wsx_expect_rec r = { .result = 0, .nodes = 1,
				    .result_known = true };
	const __u64 *a = req->args;

	if (wsx_expect_op_faults(req, WSX_EXPECT_NONE))
		return (struct wsx_expect_rec){ 0 };
	switch (req->op) {
	case WSX_OP_SPAWN:
		r.result = wsx_expect_spawn_nodes(a[0], a[1]);
		r.nodes = r.result;
		break;
	case WSX_OP_FIB:
		r.result = wsx_expect_fib(a[0]);
		r.nodes = wsx_expect_fib_nodes(a[0]);
		break;
	case WSX_OP_CRC32C:
		r.nodes = wsx_expect_crc32c_nodes(a[1], a[2]);
		r.result_known = false;
		break;
	/*
	 * SEND, RECV and POLL: nodes is 1 here, the least; the module counts
	 * one more run each time the item parked and was readied
	 * (wsx_park()).
	 */
	case WSX_OP_SEND:	/* when all its values were sent */
		r.result = a[2];
		break;
	case WSX_OP_RECV:	/* the values' sum: the senders decide it */
	case WSX_OP_POLL:	/* revents: the file decides it */
		r.result_known = false;
		break;
	/*
	 * PINGPONG and PIPELINE: nodes is their items here, the least; the
	 * module counts one more each time one of them parked and was
	 * readied, or yielded.
	 */
	case WSX_OP_PINGPONG:
		r.result = a[0];
		r.nodes = wsx_expect_op_items(req);
		break;
	case WSX_OP_PIPELINE:
		r.result = wsx_expect_pipeline_sum(a[1]);
		r.nodes = wsx_expect_op_items(req);
		break;
	}
	return r;
}

#endif /* WSX_OP_EXPECT_H */
