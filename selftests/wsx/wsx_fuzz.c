// SPDX-License-Identifier: GPL-2.0
/*
 * A model-checked ioctl fuzzer for /dev/wsx.
 *
 * Four processes make 100,000 ioctl calls between them (divided by
 * WSX_SCALE): random command numbers with wsx's magic and without it, and
 * the real commands with structs that are valid, mutated or random
 * bytes, with small, huge and random counts, pointing at good memory, at
 * the edge of a PROT_NONE page, at read-only, unmapped or kernel addresses.
 * A SIGALRM every few ms interrupts blocked WAITs.  Sessions are closed and
 * reopened with work in flight.
 *
 * Every answer is checked against the ABI as uapi/linux/wsx.h documents
 * it (for a request, as wsx_op_expect.h writes it down): an unknown
 * command gives -ENOTTY; a SUBMIT that the model can predict queues
 * exactly the items it should and stops at the first bad one with one of
 * the errnos that apply to it; a WAIT returns no more than it may;
 * and every item a session queued comes back exactly once as a record
 * (counted per session).  Anything a worker cannot predict (a random
 * pointer) is only checked against the command's list of errnos.
 *
 * The channels (ABI 1.2): each worker creates and closes channels on its
 * sessions (WSX_IOC_CHAN_CREATE, WSX_IOC_CHAN_CLOSE, valid, mutated and
 * through bad pointers) and submits SEND and RECV items naming ids the
 * session has and ids it has not.  A worker knows how many channels a
 * session has (ids come from 1, never reused; a create whose struct could
 * not be written back leaves it unsure by one) and which it closed, so
 * it predicts -ENOENT for an item, and -ENOENT, -EALREADY and -EMFILE for
 * the ioctls.  Items that wait on a channel end when it is closed; a
 * session is drained after all its channels are closed.  While fuzzing,
 * max_chan_cap is 64, so that the buffers stay small.
 *
 * POLL (ABI 1.3): items wait for descriptors of the worker (eventfds, a
 * pipe, a socket pair, the pipe reopened read-write), for a regular file,
 * a timerfd, /dev/null, the sessions' own files, closed, huge and
 * negative numbers, with events valid and not.  The worker predicts the
 * lookup exactly from the descriptor as it stands (wsx_op_expect.h's
 * wsx_expect_poll_fd()): queued for a unix, IPv4, IPv6, netlink or
 * packet socket, a pipe or FIFO and an eventfd, -EOPNOTSUPP for any other
 * file (those it did not open itself, stdin..., too), -EBADF for a number
 * it has not.  The pipe reopened
 * read-write waits on two queues: its records end -EOPNOTSUPP.  No POLL
 * waits for long: one without a timeout is kept only where it surely
 * ends, POLLOUT of an eventfd or a socket, POLLIN of an eventfd that is
 * readable, or of the "quiet" eventfd, which the worker now and then
 * writes and reads back (waking those waiting) and writes for good before
 * the drain; any other gets a timeout of at most 2 ms (-ETIME).  A
 * session closed with POLLs waiting ends them (their records dropped).
 *
 * PINGPONG and PIPELINE (ABI 1.4), over channels of their own: valid,
 * mutated and random, refused as wsx_op_expect.h predicts; those queued
 * kept small (at most 256 round trips; at most 64 values, through at
 * most 64 stages), so that they end soon.  A clean one carries the result
 * its record must have in its user_data (SHAPE_TAG; no other item's
 * user_data has the tag): status 0 with exactly that result, or -EAGAIN
 * or -ENOMEM with no more.
 *
 * Workers 1 and 3 run as a non-root member of the group wsx, as the
 * packages let users in (/dev/wsx root:wsx 0660; without udev the test
 * gives the node to the group itself, see wsx_test_group_device()),
 * workers 0 and 2 as root.
 *
 * Workers must exit 0, not die of a signal.  Then a normal workload runs,
 * with both in-flight limits at exactly its size (a count leaked by the
 * fuzzing would make it fail), and the module is unloaded and loaded again
 * (as root, when rmmod is there): nothing holds a reference.
 *
 * While fuzzing, max_item_ns is 200 us, and accepted SLEEP, SPAWN, FIB and
 * CRC32C items and delays are kept small, so that nothing queued runs or
 * waits for long.
 * WSX_SEED=<n> repeats a run.
 */
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wsx_op_expect.h"
#include "wsx_test.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
#define WORKERS		4
#define FUZZ_MAX_NS	200000ULL
#define KERNEL_ADDR	0xffff888000000000ULL

/* errno sets, one bit each */
#define M_OK		0x01	/* success is allowed */
#define M_EINVAL	0x02
#define M_E2BIG		0x04
#define M_ENXIO		0x08
#define M_EFAULT	0x20
#define M_EAGAIN	0x40
#define M_ENOMEM	0x80
#define M_ETIMEDOUT	0x100
#define M_EINTR		0x200
#define M_ENOENT	0x400
#define M_EALREADY	0x800
#define M_EMFILE	0x1000
#define M_EBADF		0x2000
#define M_EOPNOTSUPP	0x4000
#define M_ERRORS	(~M_OK)

static int errno_bit(long err)
{
	switch (err) {
	case -EINVAL:		return M_EINVAL;
	case -E2BIG:		return M_E2BIG;
	case -ENXIO:		return M_ENXIO;
	case -EFAULT:		return M_EFAULT;
	case -EAGAIN:		return M_EAGAIN;
	case -ENOMEM:		return M_ENOMEM;
	case -ETIMEDOUT:	return M_ETIMEDOUT;
	case -EINTR:		return M_EINTR;
	case -ENOENT:		return M_ENOENT;
	case -EALREADY:		return M_EALREADY;
	case -EMFILE:		return M_EMFILE;
	case -EBADF:		return M_EBADF;
	case -EOPNOTSUPP:	return M_EOPNOTSUPP;
	default:		return 0x8000;	/* in no set */
	}
}

/* ---- per-worker state ------------------------------------------------- */

#define AREA_PAGES	64

static __u64 rng_state;
static size_t pgsz;
static int nprocs;
static __u64 max_ns;

/* [items][G][data][G][records][G][ro][none] */
static unsigned char *items_area, *data_area, *rec_area, *ro_page, *none_page;
static size_t area_len;

struct sess {
	int fd;
	long long queued;	/* items accepted */
	long long reaped;	/* records received */
	/* channels: surely created (ids 1 .. lo), maybe (lo + 1 .. hi) */
	__u32 chans_lo, chans_hi;
	unsigned char *closed;	/* [id]: closed by this worker */
	bool closed_unsure;	/* some close went through a bad pointer */
};

#define FUZZ_CHAN_CAP	64
static __u32 max_chans;
/* the session whose items gen_items() is writing */
static const struct sess *cur_sess;

/*
 * POLL's descriptors: an eventfd with a count (readable and writable), a
 * quiet one (writable; readable only between a kick's write and read, and
 * after the write before the drain), a pipe, a socket pair, the pipe
 * reopened for reading and writing (two queues: status -EOPNOTSUPP; -1
 * without /proc), and three files a POLL does not take: a regular file,
 * a timerfd (never armed) and /dev/null.
 */
enum { PFD_READY, PFD_QUIET, PFD_PIPE_R, PFD_PIPE_W, PFD_SOCK_A, PFD_SOCK_B,
       PFD_PIPE_RW, PFD_FILE, PFD_TIMER, PFD_NULL, NR_PFDS };
static int pfds[NR_PFDS];
static bool quiet_written;	/* for good, before the drain */

struct wstats {
	long long calls, enotty, submits, accepted, waits, reaped, versions;
	long long eintr, reopen, violations, creates, closes;
	long long enoent, chan_ends;	/* items refused -ENOENT; records
					   of SEND/RECV that met a close */
	long long poll_refused, poll_ends, kicks; /* -EBADF/-EOPNOTSUPP;
						     records -ETIME and
						     -EOPNOTSUPP */
	long long shapes;	/* records of PINGPONG and PIPELINE checked */
};

static struct wstats st;

static __u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __u64 rnd(__u64 n)
{
	return n ? rng() % n : 0;
}

static void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = rng() >> 24;
}

#define VIOLATION(fmt, ...) do {					\
		if (st.violations++ < 10)				\
			fprintf(stderr, "# worker %d: " fmt "\n",	\
				getpid(), ##__VA_ARGS__);		\
	} while (0)

static int setup_areas(void)
{
	size_t pages = 3 * (AREA_PAGES + 1) + 2;
	unsigned char *base;

	area_len = AREA_PAGES * pgsz;
	base = mmap(NULL, pages * pgsz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return -1;
	items_area = base;
	data_area = items_area + area_len + pgsz;
	rec_area = data_area + area_len + pgsz;
	ro_page = rec_area + area_len + pgsz;
	none_page = ro_page + pgsz;
	if (mprotect(items_area + area_len, pgsz, PROT_NONE) ||
	    mprotect(data_area + area_len, pgsz, PROT_NONE) ||
	    mprotect(rec_area + area_len, pgsz, PROT_NONE) ||
	    mprotect(ro_page, pgsz, PROT_READ) ||
	    mprotect(none_page, pgsz, PROT_NONE))
		return -1;
	fill_random(data_area, area_len);
	return 0;
}

/* Readable bytes from @p on (0 = known bad, -1 = unknown). */
static long long readable_from(__u64 p)
{
	const unsigned char *good[] = { items_area, data_area, rec_area,
					ro_page };
	const size_t len[] = { area_len, area_len, area_len, pgsz };

	for (int i = 0; i < 4; i++) {
		__u64 a = (uintptr_t)good[i];

		if (p >= a && p < a + len[i])
			return a + len[i] - p;
		/* the guard (or none page) right after the region */
		if (p >= a + len[i] && p < a + len[i] + pgsz)
			return 0;
	}
	if (!p || p >= 0x0000800000000000ULL)
		return 0;
	return -1;
}

/* Writable bytes from @p on (0 = known not writable, -1 = unknown). */
static long long writable_from(__u64 p)
{
	if (p >= (uintptr_t)ro_page && p < (uintptr_t)ro_page + pgsz)
		return 0;
	return readable_from(p);
}

/* A pointer of some kind, for a struct, an items or records array. */
static __u64 pick_ptr(unsigned char *good, size_t good_len, size_t elem)
{
	switch (rnd(12)) {
	case 0:
		return 0;
	case 1:
		return KERNEL_ADDR + rnd(1 << 20);
	case 2:
		return (uintptr_t)none_page + rnd(pgsz);
	case 3:
		return (uintptr_t)ro_page + rnd(pgsz / 8) * 8;
	case 4:		/* the last few elements before a guard page */
		return (uintptr_t)good + good_len - elem * (1 + rnd(3)) +
		       rnd(2) * rnd(elem);
	case 5:
		return rng();
	case 6:
		return (uintptr_t)data_area + rnd(area_len);
	default:
		return (uintptr_t)good + rnd(good_len / elem / 4) * elem;
	}
}

/* ---- the item model --------------------------------------------------- */

/* Whether channel @id of @s exists: M_OK, M_ENOENT or both (unsure). */
static int chan_exists(const struct sess *s, __u64 id)
{
	if (!id || id > s->chans_hi)
		return M_ENOENT;
	return id <= s->chans_lo ? M_OK : M_OK | M_ENOENT;
}

/*
 * A SEND or RECV with good arguments: queued when its channels are the
 * session's (args[0], and RECV's args[2] unless 0), else -ENOENT.
 */
static int chan_model(const struct wsx_req *r)
{
	int m = chan_exists(cur_sess, r->args[0]), f;

	if (r->op == WSX_OP_RECV && r->args[2]) {
		f = chan_exists(cur_sess, r->args[2]);
		/* ENOENT if either is surely missing; OK only if both are */
		if ((m | f) == M_ENOENT || m == M_ENOENT || f == M_ENOENT)
			return M_ENOENT;
		m |= f;
	}
	return m;
}

/*
 * A POLL with good arguments, by its descriptor as it stands (only the
 * worker changes its descriptors, and not between a SUBMIT and this):
 * exactly one of queued (a socket of a family a POLL takes, a pipe or
 * FIFO, an eventfd), -EBADF
 * (none, O_PATH, or over INT_MAX) and -EOPNOTSUPP (any other file: the
 * regular file, the timerfd, /dev/null, a /dev/wsx file, whatever else
 * the worker inherited), as wsx_expect_poll_fd() predicts the lookup.
 */
static int poll_model(const struct wsx_req *r)
{
	int err = wsx_expect_poll_fd(r->args[0]);

	return err ? errno_bit(err) : M_OK;
}

/* The errnos the ABI allows for @r (M_OK when it may be queued). */
static int item_model(const struct wsx_req *r)
{
	unsigned int f = wsx_expect_req_faults(r, 0, nprocs, max_ns);
	int m = (f & WSX_EXPECT_EINVAL ? M_EINVAL : 0) |
		(f & WSX_EXPECT_E2BIG ? M_E2BIG : 0) |
		(f & WSX_EXPECT_ENXIO ? M_ENXIO : 0);
	long long rd;

	if (!m && (r->op == WSX_OP_SEND || r->op == WSX_OP_RECV))
		return chan_model(r);
	/* the descriptor is looked up after the checks */
	if (!m && r->op == WSX_OP_POLL)
		return poll_model(r);
	if (!m && r->op == WSX_OP_CRC32C) {
		rd = readable_from(r->args[0]);
		if (r->args[0] + r->args[1] < r->args[0])
			rd = 0;		/* wraps around */
		if (rd < 0)
			m |= M_OK | M_EFAULT;
		else if ((__u64)rd < r->args[1])
			m |= M_EFAULT;
	}
	return m ? m : M_OK;
}

/*
 * Whether a POLL without a timeout surely ends: POLLOUT of an eventfd or
 * of the socket pair (never filled), POLLIN of the readable eventfd, or
 * of the quiet one (written for good before the drain).
 */
static bool poll_ends(const struct wsx_req *r)
{
	__u64 fd = r->args[0], ev = r->args[1];

	if (fd == (__u64)pfds[PFD_READY] || fd == (__u64)pfds[PFD_QUIET])
		return ev & (POLLIN | POLLOUT);
	if (fd == (__u64)pfds[PFD_SOCK_A] || fd == (__u64)pfds[PFD_SOCK_B])
		return ev & POLLOUT;
	return false;
}

/* Keep what could be accepted small: nothing queued may run for long. */
static void sanitize(struct wsx_req *r)
{
	if (r->delay_ns <= WSX_DELAY_MAX_NS)
		r->delay_ns %= 2 * NSEC_PER_MSEC;
	switch (r->op) {
	case WSX_OP_SPIN:
		if (r->args[0] <= 10 * NSEC_PER_MSEC)
			r->args[0] %= FUZZ_MAX_NS;
		break;
	case WSX_OP_SLEEP:
		if (r->args[0] <= WSX_SLEEP_MAX_US)
			r->args[0] %= 2000;
		break;
	case WSX_OP_SPAWN:
		if (r->args[2] <= 10 * NSEC_PER_MSEC)
			r->args[2] %= 20000;
		if (r->args[0] == 1 && r->args[1] <= WSX_SPAWN_MAX_NODES)
			r->args[1] %= 256;
		else if (r->args[0] >= 2 && r->args[0] <= 64 &&
			 wsx_expect_spawn_nodes(r->args[0], r->args[1]) !=
			 WSX_EXPECT_NONE)
			while (wsx_expect_spawn_nodes(r->args[0],
						      r->args[1]) > 600)
				r->args[1]--;
		break;
	case WSX_OP_FIB:
		if (r->args[0] <= WSX_FIB_MAX)
			r->args[0] %= 16;
		break;
	case WSX_OP_CRC32C:
		if (r->args[1] > (1 << 20) && r->args[1] <= WSX_CRC32C_MAX_LEN)
			r->args[1] = 1 + r->args[1] % (1 << 20);
		break;
	case WSX_OP_SEND:
		if (r->args[2] && r->args[2] <= WSX_CHAN_COUNT_MAX)
			r->args[2] = 1 + r->args[2] % 16;
		break;
	case WSX_OP_RECV:
		if (r->args[1] && r->args[1] <= WSX_CHAN_COUNT_MAX)
			r->args[1] = 1 + r->args[1] % 16;
		if (r->args[3] <= 10 * NSEC_PER_MSEC)
			r->args[3] %= 20000;
		break;
	case WSX_OP_POLL:
		/* a timeout of at most 2 ms, unless it surely ends */
		if (r->args[2] <= WSX_DELAY_MAX_NS &&
		    (r->args[2] || !poll_ends(r)))
			r->args[2] = 1 + r->args[2] % (2 * NSEC_PER_MSEC);
		break;
	case WSX_OP_PINGPONG:
		if (r->args[0] && r->args[0] <= WSX_CHAN_COUNT_MAX)
			r->args[0] = 1 + r->args[0] % 256;
		break;
	case WSX_OP_PIPELINE:
		if (r->args[1] && r->args[1] <= WSX_CHAN_COUNT_MAX)
			r->args[1] = 1 + r->args[1] % 64;
		break;
	}
}

/*
 * The user_data of a clean PINGPONG or PIPELINE: SHAPE_TAG in its top 16
 * bits, the result its record must carry in its low 32 (at most 256
 * round trips, or 1 + ... + 64).  Other items' user_data never has the
 * tag.
 */
#define SHAPE_TAG	0x5a57ULL
#define SHAPE_TAG_SHIFT	48

static bool shape_tagged(__u64 user_data)
{
	return user_data >> SHAPE_TAG_SHIFT == SHAPE_TAG;
}

static void tag_shape(struct wsx_req *r, bool clean)
{
	if (clean && (r->op == WSX_OP_PINGPONG || r->op == WSX_OP_PIPELINE) &&
	    !wsx_expect_op_faults(r, max_ns))
		r->user_data = SHAPE_TAG << SHAPE_TAG_SHIFT |
			       (r->user_data & 0xffff00000000ULL) |
			       wsx_expect_record(r).result;
	else if (shape_tagged(r->user_data))
		r->user_data ^= 1ULL << SHAPE_TAG_SHIFT;
}

/* A descriptor for a POLL: mostly the worker's own. */
static __u64 pick_poll_fd(void)
{
	switch (rnd(12)) {
	case 0:
		return cur_sess->fd;
	case 1:
		return rnd(64);
	case 2:
		return (__u64)INT_MAX + 1 + rnd(3);
	case 3:
		return rnd(2) ? (__u64)-1 : rng();
	default:
		return pfds[rnd(NR_PFDS)];
	}
}

/* Events for a POLL: mostly valid ones. */
static __u64 pick_poll_events(void)
{
	switch (rnd(10)) {
	case 0:
		return 0;
	case 1:
		return rnd(2) ? (__u64)1 << rnd(64) : rng();
	case 2:
		return rng() & WSX_EXPECT_POLL_EVENTS;
	default:
		return rnd(3) ? POLLIN : rnd(2) ? POLLOUT : POLLIN | POLLPRI;
	}
}

/* A channel id for an item of the session: mostly one it has. */
static __u64 pick_chan_id(void)
{
	__u32 hi = cur_sess->chans_hi;

	switch (rnd(10)) {
	case 0:
		return 0;
	case 1:
		return hi + 1 + rnd(3);
	case 2:
		return rnd(4) ? rnd(hi + 4) : rng();
	default:
		return hi ? 1 + rnd(hi) : 1;
	}
}

static void valid_item(struct wsx_req *r)
{
	static const __u64 chunks[] = { 0, 4096, 8192, 65536 };
	__u64 off;

	memset(r, 0, sizeof(*r));
	r->user_data = rng();
	r->op = rnd(WSX_OP_PIPELINE + 1);
	r->place = rnd(3);
	if (r->place == WSX_PLACE_P)
		r->target = rnd(nprocs);
	if (rnd(4) == 0)
		r->delay_ns = rnd(NSEC_PER_MSEC);
	switch (r->op) {
	case WSX_OP_SPIN:
		r->args[0] = rnd(50000);
		break;
	case WSX_OP_SLEEP:
		r->args[0] = rnd(500);
		break;
	case WSX_OP_SPAWN:
		r->args[0] = 1 + rnd(3);
		r->args[1] = rnd(4);
		r->args[2] = rnd(10000);
		break;
	case WSX_OP_FIB:
		r->args[0] = rnd(12);
		break;
	case WSX_OP_CRC32C:
		off = rnd(area_len);
		r->args[0] = (uintptr_t)data_area + off;
		r->args[1] = 1 + rnd(rnd(8) ? 4096 : area_len - off);
		if (r->args[1] > area_len - off)
			r->args[1] = area_len - off;
		r->args[2] = rnd(5) == 4 ? 4096 + rnd(100000) :
			     chunks[rnd(4)];
		break;
	case WSX_OP_SEND:
		r->args[0] = pick_chan_id();
		r->args[1] = rng();
		r->args[2] = 1 + rnd(16);
		break;
	case WSX_OP_RECV:
		r->args[0] = pick_chan_id();
		r->args[1] = 1 + rnd(16);
		r->args[2] = rnd(3) ? 0 : pick_chan_id();
		r->args[3] = rnd(2) ? 0 : rnd(20000);
		break;
	case WSX_OP_POLL:
		r->args[0] = pick_poll_fd();
		r->args[1] = pick_poll_events();
		r->args[2] = rnd(2) ? 0 : rnd(3 * NSEC_PER_MSEC);
		break;
	case WSX_OP_PINGPONG:
		r->args[0] = 1 + rnd(rnd(4) ? 16 : 256);
		break;
	case WSX_OP_PIPELINE:
		r->args[0] = 1 + rnd(rnd(4) ? 4 : WSX_PIPELINE_MAX_STAGES);
		r->args[1] = 1 + rnd(rnd(4) ? 8 : 64);
		break;
	}
}

static void mutate_item(struct wsx_req *r)
{
	unsigned char *b = (unsigned char *)r;

	switch (rnd(10)) {
	case 0:
		r->op = rnd(3) ? rnd(WSX_OP_LAST + 1) : (__u32)rng();
		break;
	case 1:
		r->flags = 1 << rnd(16);
		break;
	case 2:
		r->reserved = rng();
		break;
	case 3:
		r->place = rnd(3) ? rnd(5) : (__u16)rng();
		break;
	case 4:
		r->target = rnd(3) ? rnd(nprocs + 2) : (__u32)rng();
		break;
	case 5:
		r->delay_ns = rnd(2) ? WSX_DELAY_MAX_NS + rnd(2) : rng();
		break;
	case 6:
		r->args[rnd(4)] = rng() >> rnd(64);
		break;
	case 7:
		b[rnd(sizeof(*r))] ^= 1 << rnd(8);
		break;
	case 8:
		b[8 + rnd(sizeof(*r) - 8)] = rng();
		break;
	default:
		r->args[rnd(4)] = rnd(3) ? rnd(70) : (__u64)1 << rnd(64);
		break;
	}
}

/* Write @n items at @items, which has room for @room of them. */
static void gen_items(struct wsx_req *items, size_t n, size_t room,
		      bool clean)
{
	if (n > room)
		n = room;
	for (size_t i = 0; i < n; i++) {
		unsigned int kind = clean ? 0 : rnd(20);

		if (kind < 11) {
			valid_item(&items[i]);
			sanitize(&items[i]);
			tag_shape(&items[i], true);
			continue;
		} else if (kind < 17) {
			valid_item(&items[i]);
			mutate_item(&items[i]);
			if (rnd(3) == 0)
				mutate_item(&items[i]);
		} else {
			fill_random(&items[i], sizeof(items[i]));
		}
		sanitize(&items[i]);
		tag_shape(&items[i], false);
	}
}

/* ---- SUBMIT ----------------------------------------------------------- */

static __u32 pick_count(void)
{
	switch (rnd(10)) {
	case 0:
		return 0;
	case 1:
		return WSX_SUBMIT_MAX + rnd(3);
	case 2:
		return rng();
	case 3:
		return 1 + rnd(WSX_SUBMIT_MAX);
	case 4:
	case 5:
		return 1 + rnd(64);
	default:
		return 1 + rnd(8);
	}
}

static void check_submit(struct sess *s, const struct wsx_submit *in,
			  const struct wsx_submit *out, long ret, bool local)
{
	const struct wsx_req *items = (const void *)(uintptr_t)in->items;
	long long rd;
	__u32 q;

	if (ret > 0)
		s->queued += ret;
	if (ret >= 0 ? ret > WSX_SUBMIT_MAX || ret == 0 :
	    !(errno_bit(ret) & (M_EINVAL | M_E2BIG | M_ENXIO |
				M_EFAULT | M_EAGAIN | M_ENOMEM |
				M_ENOENT | M_EBADF | M_EOPNOTSUPP))) {
		VIOLATION("SUBMIT returned %ld", ret);
		return;
	}
	if (!local)
		return;
	/* the struct itself */
	if (in->reserved[0] || in->reserved[1] || in->reserved[2] ||
	    !in->count || in->count > WSX_SUBMIT_MAX) {
		int m = 0;

		if (in->reserved[0] || in->reserved[1] || in->reserved[2] ||
		    !in->count)
			m |= M_EINVAL;
		if (in->count > WSX_SUBMIT_MAX)
			m |= M_E2BIG;
		if (!(errno_bit(ret) & m))
			VIOLATION("SUBMIT of a bad struct (count %u) returned %ld",
				  in->count, ret);
		return;
	}
	q = ret > 0 ? ret : 0;
	st.enoent += out->error == -ENOENT;
	st.poll_refused += out->error == -EBADF || out->error == -EOPNOTSUPP;
	if (ret > 0 ? out->queued != q ||
		      (q == in->count) != (out->error == 0) :
	    out->queued != 0 || out->error != ret) {
		VIOLATION("SUBMIT returned %ld but queued %u error %d", ret,
			  out->queued, out->error);
		return;
	}
	if (q > in->count) {
		VIOLATION("SUBMIT queued %u of %u", q, in->count);
		return;
	}
	rd = readable_from(in->items);
	if (rd < 0)
		return;		/* a random items pointer: cannot predict */
	for (__u32 i = 0; i <= q && i < in->count; i++) {
		bool readable = (long long)(i + 1) * 64 <= rd;
		int m = readable ? item_model(&items[i]) : M_EFAULT;

		if (i < q && !(m & M_OK)) {
			VIOLATION("SUBMIT queued item %u of %u, which allows errors %#x only (op %u place %u flags %#x)",
				  i, in->count, m, items[i].op,
				  items[i].place, items[i].flags);
			return;
		}
		if (i == q) {
			m |= M_EAGAIN | M_ENOMEM;
			if (!(errno_bit(out->error) & m))
				VIOLATION("SUBMIT stopped at item %u with %d, model allows %#x (op %u place %u target %u args %#llx %#llx %#llx %#llx)",
					  i, out->error, m, items[i].op,
					  items[i].place, items[i].target,
					  (unsigned long long)items[i].args[0],
					  (unsigned long long)items[i].args[1],
					  (unsigned long long)items[i].args[2],
					  (unsigned long long)items[i].args[3]);
		}
	}
}

static void do_submit(struct sess *s)
{
	struct wsx_submit sub, out;
	bool clean = rnd(50) == 0, local = rnd(8) != 0;
	unsigned char *where;
	long long room;
	long ret;
	__u64 p;

	memset(&sub, 0, sizeof(sub));
	sub.count = clean ? 1 + rnd(64) : pick_count();
	if (rnd(16) == 0)
		sub.reserved[rnd(3)] = rng();
	if (rnd(4) == 0) {
		sub.queued = rng();
		sub.error = rng();
	}
	if (clean || rnd(6)) {
		/* items in the items area, sometimes running into its guard */
		size_t max = area_len / sizeof(struct wsx_req);
		size_t at = rnd(3) ? 0 : max - 1 - rnd(8);

		where = items_area + at * sizeof(struct wsx_req);
		sub.items = (uintptr_t)where;
	} else {
		sub.items = pick_ptr(items_area, area_len,
				     sizeof(struct wsx_req));
	}
	cur_sess = s;
	room = writable_from(sub.items);
	if (room > 0 && sub.items >= (uintptr_t)items_area &&
	    sub.items < (uintptr_t)items_area + area_len &&
	    !((sub.items - (uintptr_t)items_area) % sizeof(struct wsx_req)))
		gen_items((struct wsx_req *)(uintptr_t)sub.items,
			  sub.count > WSX_SUBMIT_MAX ? 16 : sub.count,
			  room / sizeof(struct wsx_req), clean);
	else if (room > 0 && sub.items >= (uintptr_t)items_area &&
		 sub.items < (uintptr_t)items_area + area_len) {
		/* misaligned into generated items: keep them tame */
		for (unsigned char *p = items_area;
		     p + sizeof(struct wsx_req) <= items_area + area_len;
		     p += sizeof(struct wsx_req))
			memset(p, 0, sizeof(struct wsx_req));
	}
	st.submits++;
	if (local) {
		out = sub;
		ret = wsx_test_ioctl(s->fd, WSX_IOC_SUBMIT, &out);
		check_submit(s, &sub, &out, ret, true);
		return;
	}
	/* the struct somewhere else: random bytes, bad pointers, an edge */
	p = pick_ptr(data_area, area_len, sizeof(sub));
	if (writable_from(p) >= (long long)sizeof(sub) && rnd(2))
		memcpy((void *)(uintptr_t)p, &sub, sizeof(sub));
	ret = wsx_test_ioctl(s->fd, WSX_IOC_SUBMIT, (void *)(uintptr_t)p);
	check_submit(s, &sub, NULL, ret, false);
}

/* ---- WAIT ------------------------------------------------------------- */

static void check_records(const struct wsx_completion *recs, long n)
{
	for (long i = 0; i < n; i++) {
		const struct wsx_completion *r = &recs[i];

		/* SEND and RECV end with -EPIPE, -ENODATA or -EAGAIN */
		bool chan_end = r->status == -EPIPE ||
				r->status == -ENODATA || r->status == -EAGAIN;
		/* POLL with -ETIME, -EOPNOTSUPP (two queues), -EAGAIN */
		bool poll_end = r->status == -ETIME ||
				r->status == -EOPNOTSUPP;

		st.chan_ends += chan_end;
		st.poll_ends += poll_end;
		/* a clean PINGPONG or PIPELINE: its result, or less if cut */
		if (shape_tagged(r->user_data)) {
			__u64 want = r->user_data & 0xffffffffULL;

			st.shapes++;
			if (r->status ? (r->status != -EAGAIN &&
					 r->status != -ENOMEM) ||
					r->result > want :
					r->result != want) {
				VIOLATION("PINGPONG/PIPELINE record: status %d result %llu, want %llu",
					  r->status,
					  (unsigned long long)r->result,
					  (unsigned long long)want);
				return;
			}
		}
		if ((r->status && r->status != -ENOMEM && !chan_end &&
		     !poll_end) ||
		    r->reserved[0] ||
		    r->reserved[1] || r->reserved[2] ||
		    r->queued_ns > r->started_ns ||
		    r->started_ns > r->finished_ns || !r->nodes) {
			VIOLATION("bad record: status %d nodes %u times %llu %llu %llu",
				  r->status, r->nodes,
				  (unsigned long long)r->queued_ns,
				  (unsigned long long)r->started_ns,
				  (unsigned long long)r->finished_ns);
			return;
		}
	}
}

static void do_wait(struct sess *s, bool reap)
{
	struct wsx_wait w;
	long long room;
	bool valid, local = reap || rnd(8) != 0;
	long ret;
	int m;

	memset(&w, 0, sizeof(w));
	if (reap) {
		w.records = (uintptr_t)rec_area;
		w.max = WSX_WAIT_MAX;
	} else {
		w.records = rnd(3) ? (uintptr_t)rec_area :
			    pick_ptr(rec_area, area_len,
				     sizeof(struct wsx_completion));
		switch (rnd(8)) {
		case 0:
			w.max = 0;
			break;
		case 1:
			w.max = WSX_WAIT_MAX + rnd(3);
			break;
		case 2:
			w.max = rng();
			break;
		case 3:
			w.max = WSX_WAIT_MAX;
			break;
		default:
			w.max = 1 + rnd(16);
		}
		w.min = rnd(4) == 0 ? (__u32)rng() : rnd(3) ? 0 :
			rnd((__u64)w.max + 1);
		if (rnd(16) == 0)
			w.reserved[rnd(3)] = 1 + rnd(5);
		w.count = rng();
	}
	valid = !w.reserved[0] && !w.reserved[1] && !w.reserved[2] &&
		w.max && w.min <= w.max && w.max <= WSX_WAIT_MAX;
	/* a valid WAIT may block: bounded, or forever until SIGALRM */
	w.timeout_ns = !valid || !w.min ? (__s64)rng() :
		       rnd(8) == 0 ? -1 : (__s64)rnd(2 * NSEC_PER_MSEC);
	st.waits++;
	if (!local) {
		__u64 p = pick_ptr(data_area, area_len, sizeof(w));

		if (writable_from(p) >= (long long)sizeof(w) && rnd(2)) {
			w.timeout_ns = rnd(NSEC_PER_MSEC);
			memcpy((void *)(uintptr_t)p, &w, sizeof(w));
		}
		ret = wsx_test_ioctl(s->fd, WSX_IOC_WAIT, (void *)(uintptr_t)p);
		if (ret > 0)
			s->reaped += ret;
		if (ret < 0 && !(errno_bit(ret) & (M_EINVAL | M_E2BIG |
						   M_EFAULT | M_ETIMEDOUT |
						   M_EINTR)))
			VIOLATION("WAIT (struct elsewhere) returned %ld", ret);
		if (ret == -EINTR)
			st.eintr++;
		return;
	}
	ret = wsx_test_ioctl(s->fd, WSX_IOC_WAIT, &w);
	if (ret > 0)
		s->reaped += ret;
	if (ret == -EINTR)
		st.eintr++;
	if (!valid) {
		m = 0;
		if (w.reserved[0] || w.reserved[1] || w.reserved[2] ||
		    !w.max || w.min > w.max)
			m |= M_EINVAL;
		if (w.max > WSX_WAIT_MAX)
			m |= M_E2BIG;
		if (!(errno_bit(ret) & m))
			VIOLATION("WAIT of a bad struct (max %u min %u) returned %ld",
				  w.max, w.min, ret);
		return;
	}
	room = writable_from(w.records);
	if (ret >= 0) {
		/*
		 * Fewer than min only when the records array faults after
		 * room / 64 records: exactly those are copied, the rest stay.
		 */
		bool short_ok = room >= 0 && room / 64 < w.min &&
				ret == room / 64;

		if (ret > w.max || (w.min && ret < w.min && !short_ok &&
				    room >= 0) ||
		    (room >= 0 && ret * 64 > room) ||
		    (ret > 0 && w.count != ret))
			VIOLATION("WAIT(max %u, min %u, room %lld) returned %ld, count %u",
				  w.max, w.min, room, ret, w.count);
		else if (room > 0)
			check_records((void *)(uintptr_t)w.records, ret);
		return;
	}
	m = M_EFAULT | M_EINTR;
	if (w.min)
		m |= M_ETIMEDOUT;
	if (!(errno_bit(ret) & m))
		VIOLATION("WAIT(max %u, min %u) returned %ld", w.max, w.min,
			  ret);
	if (ret == -EFAULT && room >= 64)
		VIOLATION("WAIT(max %u, min %u) into %lld writable bytes gave -EFAULT",
			  w.max, w.min, room);
}

/* ---- other commands --------------------------------------------------- */

static bool vfs_type(unsigned int type)
{
	/* types of ioctls the VFS answers before the driver sees them */
	return type == 0x00 || type == 'T' || type == 'X' || type == 'f' ||
	       type == 0x94;
}

static void do_other(struct sess *s, bool magic)
{
	unsigned long cmd;
	long ret;
	void *arg = rnd(2) ? (void *)data_area : (void *)(uintptr_t)rng();

	if (magic) {
		unsigned int nr = rnd(2) ? rnd(4) : rnd(256);
		unsigned int size = rnd(2) ? (rnd(2) ? 32 : 40) + rnd(3) * 8 - 8 :
				    rnd(1 << 14);

		cmd = _IOC(rnd(4), WSX_IOC_MAGIC, nr, size);
	} else {
		do {
			cmd = (__u32)rng();
		} while (vfs_type(_IOC_TYPE(cmd)) ||
			 _IOC_TYPE(cmd) == WSX_IOC_MAGIC);
	}
	if (cmd == WSX_IOC_VERSION || cmd == WSX_IOC_SUBMIT ||
	    cmd == WSX_IOC_WAIT || cmd == WSX_IOC_RING_SETUP ||
	    cmd == WSX_IOC_ENTER || cmd == WSX_IOC_CHAN_CREATE ||
	    cmd == WSX_IOC_CHAN_CLOSE)
		return;		/* a real one: done elsewhere */
	ret = wsx_test_ioctl(s->fd, cmd, arg);
	st.enotty++;
	if (ret != -ENOTTY)
		VIOLATION("command %#lx returned %ld, not -ENOTTY", cmd, ret);
}

static void do_version(struct sess *s)
{
	struct wsx_version v;
	__u64 p = rnd(2) ? (uintptr_t)&v : pick_ptr(data_area, area_len,
						   sizeof(v));
	long long room = p == (uintptr_t)&v ? (long long)sizeof(v) :
			 writable_from(p);
	long ret;

	memset(&v, 0xff, sizeof(v));
	ret = wsx_test_ioctl(s->fd, WSX_IOC_VERSION, (void *)(uintptr_t)p);
	st.versions++;
	if (room >= (long long)sizeof(v) ? ret != 0 :
	    room >= 0 ? ret != -EFAULT : ret != 0 && ret != -EFAULT)
		VIOLATION("VERSION into %lld bytes returned %ld", room, ret);
	else if (p == (uintptr_t)&v &&
		 (v.abi_major != WSX_ABI_MAJOR || v.nprocs != (__u32)nprocs ||
		  v.reserved[0] || v.reserved[1] || v.reserved[2]))
		VIOLATION("VERSION: major %u nprocs %u", v.abi_major,
			  v.nprocs);
}

/* ---- WSX_IOC_CHAN_CREATE and WSX_IOC_CHAN_CLOSE ----------------------- */

static void do_chan_create(struct sess *s)
{
	struct wsx_chan_create cc, *p = &cc;
	bool local = rnd(6) != 0;
	long ret;
	int m = 0;

	memset(&cc, 0, sizeof(cc));
	cc.cap = rnd(4) ? rnd(FUZZ_CHAN_CAP + 1) :
		 rnd(2) ? FUZZ_CHAN_CAP + 1 + rnd(4) : (__u32)rng();
	cc.id = rng();
	if (rnd(10) == 0)
		cc.flags = 1U << rnd(32);
	if (rnd(10) == 0)
		cc.reserved = 1 + rnd(100);
	st.creates++;
	if (!local) {
		__u64 at = pick_ptr(data_area, area_len, sizeof(cc));

		if (writable_from(at) >= (long long)sizeof(cc) && rnd(2))
			memcpy((void *)(uintptr_t)at, &cc, sizeof(cc));
		p = (void *)(uintptr_t)at;
	}
	ret = wsx_test_ioctl(s->fd, WSX_IOC_CHAN_CREATE, p);
	if (!local) {
		if (!(errno_bit(ret) & (M_EINVAL | M_E2BIG | M_EMFILE |
					M_EFAULT | M_ENOMEM)) && ret)
			VIOLATION("CHAN_CREATE (struct elsewhere) returned %ld",
				  ret);
		/* created, or maybe: copied in, not written back */
		if (!ret || ret == -EFAULT)
			s->chans_hi++;
		return;
	}
	if (cc.flags || cc.reserved)
		m = M_EINVAL;
	else if (cc.cap > FUZZ_CHAN_CAP)
		m = M_E2BIG;
	else if (s->chans_lo >= max_chans)
		m = M_EMFILE;
	else
		m = M_OK | M_ENOMEM | (s->chans_hi >= max_chans ? M_EMFILE : 0);
	if (!ret) {
		if (!(m & M_OK) || cc.id <= s->chans_lo ||
		    cc.id > s->chans_hi + 1)
			VIOLATION("CHAN_CREATE(cap %u flags %#x) gave id %u with %u..%u channels",
				  cc.cap, cc.flags, cc.id, s->chans_lo,
				  s->chans_hi);
		/* ids come in order: now exactly cc.id channels */
		s->chans_lo = s->chans_hi = cc.id;
	} else if (!(errno_bit(ret) & m)) {
		VIOLATION("CHAN_CREATE(cap %u flags %#x reserved %u) with %u..%u channels returned %ld, allowed %#x",
			  cc.cap, cc.flags, cc.reserved, s->chans_lo,
			  s->chans_hi, ret, m);
	}
}

static void do_chan_close(struct sess *s)
{
	bool local = rnd(6) != 0;
	__u32 id, *p = &id;
	long ret;
	int m;

	id = rnd(8) ? (s->chans_hi ? 1 + rnd(s->chans_hi) : 1) :
	     rnd(2) ? 0 : (__u32)rng();
	st.closes++;
	if (!local) {
		__u64 at = pick_ptr(data_area, area_len, sizeof(id));

		p = (void *)(uintptr_t)at;
		ret = wsx_test_ioctl(s->fd, WSX_IOC_CHAN_CLOSE, p);
		if (ret && !(errno_bit(ret) & (M_ENOENT | M_EALREADY |
					       M_EFAULT)))
			VIOLATION("CHAN_CLOSE (id elsewhere) returned %ld",
				  ret);
		if (!ret)
			s->closed_unsure = true;
		return;
	}
	ret = wsx_test_ioctl(s->fd, WSX_IOC_CHAN_CLOSE, p);
	m = chan_exists(s, id);
	if (m & M_OK) {
		/* it exists, or may: closed before, surely or maybe */
		if (id <= max_chans && s->closed[id])
			m = (m & ~M_OK) | M_EALREADY;
		else if (s->closed_unsure)
			m |= M_EALREADY;
	}
	if (ret ? !(errno_bit(ret) & m) : !(m & M_OK))
		VIOLATION("CHAN_CLOSE(%u) with %u..%u channels returned %ld, allowed %#x",
			  id, s->chans_lo, s->chans_hi, ret, m);
	if ((!ret || ret == -EALREADY) && id <= max_chans)
		s->closed[id] = 1;
}

/* Close every channel @s may have: its waiting items end. */
static void close_all_chans(struct sess *s)
{
	for (__u32 id = 1; id <= s->chans_hi; id++)
		wsx_test_ioctl(s->fd, WSX_IOC_CHAN_CLOSE, &id);
}

static struct sess new_sess(void)
{
	return (struct sess){ .fd = wsx_test_open(),
			      .closed = calloc(max_chans + 2, 1) };
}

/* POLL's descriptors; 0, or -1 on a failure. */
static int setup_pfds(void)
{
	FILE *file = tmpfile();
	char path[32];
	__u64 one = 1;

	pfds[PFD_READY] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pfds[PFD_QUIET] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* the FILE is never closed: the worker exits with its descriptor */
	pfds[PFD_FILE] = file ? fileno(file) : -1;
	pfds[PFD_TIMER] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	pfds[PFD_NULL] = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (pfds[PFD_READY] < 0 || pfds[PFD_QUIET] < 0 || pfds[PFD_FILE] < 0 ||
	    pfds[PFD_TIMER] < 0 || pfds[PFD_NULL] < 0 ||
	    pipe2(&pfds[PFD_PIPE_R], O_CLOEXEC) ||
	    write(pfds[PFD_READY], &one, sizeof(one)) != sizeof(one))
		return -1;
	/* a kernel without networking (the debug kernels') has no sockets:
	 * their slots stay -1, which a POLL refuses as any bad descriptor
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
		       &pfds[PFD_SOCK_A]))
		pfds[PFD_SOCK_A] = pfds[PFD_SOCK_B] = -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfds[PFD_PIPE_R]);
	pfds[PFD_PIPE_RW] = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return 0;
}

/*
 * The quiet eventfd written: the POLLs waiting for its POLLIN end.  Read
 * back at once for a kick, left readable for the drain.
 */
static void poke_quiet(bool for_good)
{
	__u64 v = 1;

	if (quiet_written ||
	    write(pfds[PFD_QUIET], &v, sizeof(v)) != sizeof(v)) {
		VIOLATION("write to the quiet eventfd: %s", strerror(errno));
		return;
	}
	quiet_written = for_good;
	if (!for_good && read(pfds[PFD_QUIET], &v, sizeof(v)) != sizeof(v))
		VIOLATION("read of the quiet eventfd: %s", strerror(errno));
	st.kicks += !for_good;
}

static void on_alarm(int sig)
{
}

#if defined(__x86_64__)
/* Append @v to @p in hex (async-signal-safe); returns the new end. */
static char *put_hex(char *p, const char *label, unsigned long long v)
{
	while (*label)
		*p++ = *label++;
	for (int shift = 60; shift >= 0; shift -= 4)
		*p++ = "0123456789abcdef"[(v >> shift) & 15];
	return p;
}

/*
 * A worker that faults says where, and what its stack held there, before
 * it dies of the signal as before (SA_RESETHAND, then the signal again):
 * a corrupt return address shows its value, which may tell who wrote it.
 * On its own stack, in case that one is the broken thing.
 */
static void on_fault(int sig, siginfo_t *si, void *uc_void)
{
	const ucontext_t *uc = uc_void;
	unsigned long long sp = uc->uc_mcontext.gregs[REG_RSP];
	char line[256], *p = line;

	p = put_hex(p, "# fault: signal ", sig);
	p = put_hex(p, " addr ", (unsigned long long)(uintptr_t)si->si_addr);
	p = put_hex(p, " ip ", uc->uc_mcontext.gregs[REG_RIP]);
	p = put_hex(p, " sp ", sp);
	*p++ = '\n';
	write(2, line, p - line);
	p = line;
	for (int i = 0; i < 4; i++)
		p = put_hex(p, i ? " " : "# fault: stack ",
			    ((const unsigned long long *)(uintptr_t)sp)[i]);
	*p++ = '\n';
	write(2, line, p - line);
	raise(sig);
}

static void report_faults(void)
{
	static char alt[64 * 1024];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
	if (sigaltstack(&ss, NULL))
		return;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}
#else
static void report_faults(void)
{
}
#endif

/* Drain @s: every item it queued must come back exactly once. */
static void drain(struct sess *s)
{
	long ret;

	while (s->reaped < s->queued) {
		ret = wsx_test_wait(s->fd, (void *)rec_area, WSX_WAIT_MAX, 1,
				    30 * NSEC_PER_SEC);
		if (ret == -EINTR)
			continue;
		if (ret <= 0) {
			VIOLATION("drain: WAIT %ld with %lld of %lld reaped",
				  ret, s->reaped, s->queued);
			return;
		}
		s->reaped += ret;
		check_records((void *)rec_area, ret);
	}
	ret = wsx_test_wait(s->fd, (void *)rec_area, WSX_WAIT_MAX, 0, 0);
	if (ret != 0)
		VIOLATION("drain: %ld records more than the %lld queued", ret,
			  s->queued);
}

static int worker(int id, __u64 seed, long calls)
{
	struct itimerval it = {
		.it_interval = { .tv_usec = 3000 },
		.it_value = { .tv_usec = 3000 },
	};
	struct sigaction sa;
	struct sess s[2];
	__u64 t0 = wsx_test_now_ns();

	rng_state = seed * 0x9e3779b97f4a7c15ULL + id + 1;
	if (setup_areas())
		return 2;
	for (int i = 0; i < 2; i++) {
		s[i] = new_sess();
		if (!s[i].closed)
			return 2;
		if (s[i].fd < 0) {
			fprintf(stderr, "# worker %d (uid %u): open %s: %s\n",
				id, (unsigned int)geteuid(), WSX_DEVICE_PATH,
				strerror(-s[i].fd));
			return 2;
		}
	}
	if (setup_pfds()) {
		fprintf(stderr, "# worker %d: POLL's descriptors: %s\n", id,
			strerror(errno));
		return 2;
	}
	report_faults();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	for (long c = 0; c < calls; c++) {
		struct sess *ss = &s[rnd(2)];
		unsigned int pick = rnd(100);

		st.calls++;
		if (pick < 8) {
			do_other(ss, true);
		} else if (pick < 12) {
			do_other(ss, false);
		} else if (pick < 14) {
			do_chan_create(ss);
		} else if (pick < 16) {
			do_chan_close(ss);
		} else if (pick < 17) {
			do_version(ss);
		} else if (pick < 54) {
			do_submit(ss);
			if (rnd(16) == 0)
				poke_quiet(false);
		} else if (pick < 84) {
			do_wait(ss, false);
		} else if (pick < 98) {
			do_wait(ss, true);
		} else if (ss == &s[1]) {
			/* close with work in flight, open again */
			close(ss->fd);
			free(ss->closed);
			*ss = new_sess();
			st.reopen++;
			if (ss->fd < 0 || !ss->closed)
				return 2;
		}
	}
	it = (struct itimerval){ 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	close_all_chans(&s[0]);
	/* the POLLs without a timeout end: their files are ready */
	poke_quiet(true);
	drain(&s[0]);
	close(s[0].fd);
	/* its POLLs that wait end with it */
	close(s[1].fd);
	for (int i = 0; i < NR_PFDS; i++)
		if (i != PFD_FILE && pfds[i] >= 0)
			close(pfds[i]);
	printf("# worker %d (uid %u): %lld calls in %llu ms: %lld SUBMIT (%lld items queued on the drained session), %lld WAIT (%lld -EINTR), %lld VERSION, %lld CHAN_CREATE (%u channels on the drained session), %lld CHAN_CLOSE, %lld SUBMIT stopped at -ENOENT, %lld at -EBADF/-EOPNOTSUPP, %lld records -EPIPE/-ENODATA/-EAGAIN, %lld -ETIME/-EOPNOTSUPP, %lld kicks of the quiet eventfd, %lld PINGPONG/PIPELINE records checked, %lld other commands, %lld reopens, %lld violations\n",
	       id, (unsigned int)geteuid(), st.calls,
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC,
	       st.submits, s[0].queued, st.waits, st.eintr, st.versions,
	       st.creates, s[0].chans_hi, st.closes, st.enoent,
	       st.poll_refused, st.chan_ends, st.poll_ends, st.kicks, st.shapes,
	       st.enotty, st.reopen,
	       st.violations);
	return st.violations ? 1 : 0;
}

/* ---- the test --------------------------------------------------------- */

FIXTURE(fuzz) {
	char saved_max_ns[32];
	char saved_chan_cap[32];
	char saved_fd_limit[32];
	char saved_total_limit[32];
};

FIXTURE_SETUP(fuzz)
{
	ASSERT_EQ(0, wsx_test_param("max_item_ns", self->saved_max_ns,
				    sizeof(self->saved_max_ns)));
	ASSERT_EQ(0, wsx_test_param("max_inflight_fd", self->saved_fd_limit,
				    sizeof(self->saved_fd_limit)));
	ASSERT_EQ(0, wsx_test_param("max_inflight", self->saved_total_limit,
				    sizeof(self->saved_total_limit)));
	ASSERT_EQ(0, wsx_test_param("max_chan_cap", self->saved_chan_cap,
				    sizeof(self->saved_chan_cap)));
}

FIXTURE_TEARDOWN(fuzz)
{
	if (access("/sys/module/wsx", F_OK))
		return;		/* unloaded and not back: nothing to restore */
	wsx_test_param_set("max_item_ns", self->saved_max_ns);
	wsx_test_param_set("max_inflight_fd", self->saved_fd_limit);
	wsx_test_param_set("max_inflight", self->saved_total_limit);
	wsx_test_param_set("max_chan_cap", self->saved_chan_cap);
}

struct once {
	unsigned char *seen;
	size_t n, dups, bad;
};

static bool once_check(const struct wsx_completion *rec, void *arg)
{
	struct once *o = arg;

	if (rec->user_data >= o->n || rec->status)
		o->bad++;
	else if (o->seen[rec->user_data]++)
		o->dups++;
	return true;
}

TEST_F_TIMEOUT(fuzz, random_ioctls_then_normal_work, 600)
{
	const char *env = getenv("WSX_SEED");
	__u64 seed = env ? strtoull(env, NULL, 0) : wsx_test_now_ns();
	long total = wsx_test_scaled(100000, 4000);
	const size_t n = 10000;
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	struct once o = { .seen = calloc(n, 1), .n = n };
	struct wsx_req fib = wsx_test_req(WSX_OP_FIB, 0, 0, 0, 20, 0, 0);
	struct wsx_completion rec;
	struct wsx_test_node node = { 0 };
	char buf[64];
	pid_t pids[WORKERS];
	gid_t gid = 0;
	__u64 t0;
	int fd, failed = 0;
	long ret;

	ASSERT_NE(NULL, reqs);
	ASSERT_NE(NULL, o.seen);
	pgsz = sysconf(_SC_PAGESIZE);
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_LT(0, nprocs);
	close(fd);
	snprintf(buf, sizeof(buf), "%llu", FUZZ_MAX_NS);
	ASSERT_EQ(0, wsx_test_param_set("max_item_ns", buf));
	max_ns = FUZZ_MAX_NS;
	snprintf(buf, sizeof(buf), "%u", FUZZ_CHAN_CAP);
	ASSERT_EQ(0, wsx_test_param_set("max_chan_cap", buf));
	ASSERT_EQ(0, wsx_test_param("max_chans", buf, sizeof(buf)));
	max_chans = strtoul(buf, NULL, 10);
	ASSERT_EQ(0, wsx_test_group_device(&node, &gid));
	TH_LOG("seed %llu: %ld calls from %d processes, %d Ps; workers 1 "
	       "and 3 as uid %d in group %u",
	       (unsigned long long)seed, total, WORKERS, nprocs,
	       WSX_TEST_UID, (unsigned int)gid);

	t0 = wsx_test_now_ns();
	fflush(NULL);
	for (int i = 0; i < WORKERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i])
			continue;
		if (i % 2 && wsx_test_become_member(gid))
			_exit(2);
		_exit(worker(i, seed, total / WORKERS));
	}
	for (int i = 0; i < WORKERS; i++) {
		int status = 0;

		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		if (WIFSIGNALED(status)) {
			TH_LOG("worker %d died of signal %d", i,
			       WTERMSIG(status));
			failed++;
		} else if (WEXITSTATUS(status)) {
			TH_LOG("worker %d exited %d", i, WEXITSTATUS(status));
			failed++;
		}
	}
	TH_LOG("fuzzing took %llu ms",
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, wsx_test_restore_device(&node));
	ASSERT_EQ(0, wsx_test_param_set("max_item_ns", self->saved_max_ns));
	ASSERT_EQ(0, wsx_test_param_set("max_chan_cap",
					self->saved_chan_cap));

	/*
	 * Normal work, with both limits at its size: all 10,000 are queued
	 * before any is reaped, so one leaked in-flight count fails it.
	 */
	ASSERT_EQ(0, wsx_test_param_set("max_inflight_fd", "10000"));
	ASSERT_EQ(0, wsx_test_param_set("max_inflight", "10000"));
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	for (size_t i = 0; i < n; i++)
		reqs[i] = i % 100 == 99 ?
			  wsx_test_req(WSX_OP_FIB, i, i % 3, 0, 0, 0, 0) :
			  wsx_test_req(WSX_OP_NOP, i, i % 3, 0, 0, 0, 0);
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].place == WSX_PLACE_P)
			reqs[i].target = i % nprocs;
		if (reqs[i].op == WSX_OP_FIB)
			reqs[i].args[0] = 12;
	}
	for (size_t sent = 0; sent < n; sent += ret) {
		__u32 batch = n - sent > WSX_SUBMIT_MAX ? WSX_SUBMIT_MAX :
			      n - sent;

		ret = wsx_test_submit(fd, reqs + sent, batch, NULL);
		ASSERT_EQ(batch, ret) {
			TH_LOG("after %zu: %ld", sent, ret);
		}
	}
	ASSERT_EQ((long)n, wsx_test_reap(fd, n, once_check, &o,
					 30 * NSEC_PER_SEC));
	EXPECT_EQ(0, o.dups);
	EXPECT_EQ(0, o.bad);
	ASSERT_EQ(0, wsx_test_collect(fd, &fib, 1, &rec));
	EXPECT_EQ(wsx_expect_fib(20), rec.result);
	EXPECT_EQ(wsx_expect_fib_nodes(20), rec.nodes);
	close(fd);
	ASSERT_EQ(0, wsx_test_param_set("max_inflight_fd",
					self->saved_fd_limit));
	ASSERT_EQ(0, wsx_test_param_set("max_inflight",
					self->saved_total_limit));

	/* nothing holds the module: it unloads and loads again */
	if (geteuid() || system("command -v rmmod >/dev/null 2>&1")) {
		TH_LOG("not root or no rmmod: the reload is not checked");
	} else {
		const char *ko = getenv("WSX_KO");
		char cmd[512];
		struct stat sb;

		if (!ko)
			ko = "/wsx/kmod/wsx.ko";
		EXPECT_EQ(0, system("rmmod wsx"));
		EXPECT_NE(0, access("/sys/module/wsx", F_OK));
		if (!stat(ko, &sb))
			snprintf(cmd, sizeof(cmd), "insmod %s", ko);
		else
			snprintf(cmd, sizeof(cmd), "modprobe wsx");
		ASSERT_EQ(0, system(cmd));
		fd = wsx_test_open();
		ASSERT_LE(0, fd);
		close(fd);
		TH_LOG("rmmod and %s: fine", cmd);
	}
	free(reqs);
	free(o.seen);
}

TEST_HARNESS_MAIN
