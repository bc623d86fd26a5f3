/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsx_open(), wsx_submit() and wsx_wait() against the fake device: version
 * checks, argument checks made without a system call, splitting, EINTR
 * retries, partial submissions and waits; the rings (wsx_ring_*): setup,
 * a full SQ, results read in place, a full CQ (-EBUSY), calls that need no
 * system call, refused items as records, a module without rings; the
 * channels (wsx_chan_*, SEND and RECV): their errors, values through
 * them, close, both doors, a module without channels; POLL
 * (wsx_item_poll()): its refusals (every file but a unix, IPv4, IPv6,
 * netlink or packet socket, a pipe or FIFO, or an eventfd), a unix socket
 * pair, a UDP socket and a pipe taken, a FIFO open for
 * reading and writing (two queues), an eventfd written after the item
 * waits, a closed descriptor, timeouts, max_parked (a ready file ends
 * whatever it says), both doors, a module without it; PINGPONG and
 * PIPELINE (wsx_item_pingpong(), wsx_item_pipeline()): every refusal,
 * their results at the limits, no session channel needed (and none
 * used: the next channel's id is 1), max_parked, both doors, a module
 * without them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <wsx/libwsx.h>
#include "fakewsx.h"
#include "ktap.h"

#define NR_VERSION	_IOC_NR(WSX_IOC_VERSION)
#define NR_SUBMIT	_IOC_NR(WSX_IOC_SUBMIT)
#define NR_WAIT		_IOC_NR(WSX_IOC_WAIT)
#define NR_ENTER	_IOC_NR(WSX_IOC_ENTER)
#define NR_CHAN_CREATE	_IOC_NR(WSX_IOC_CHAN_CREATE)
#define NR_CHAN_CLOSE	_IOC_NR(WSX_IOC_CHAN_CLOSE)

static struct wsx_req items[16];
static struct wsx_completion recs[64];

/* Opens a session on a fake with these limits. */
static struct wsx *open_fake(unsigned int submit_max, unsigned int wait_max)
{
	struct wsx *w;

	fakewsx_reset();
	fakewsx.version.submit_max = submit_max;
	fakewsx.version.wait_max = wait_max;
	return wsx_open(&w, 0) ? NULL : w;
}

static void check_version(void)
{
	struct wsx_version v;
	struct wsx *w;

	fakewsx_reset();
	fakewsx.version.abi_major = WSX_ABI_MAJOR + 1;
	KTAP_EQ(wsx_open(&w, 0), -EPROTO, "other ABI major gives -EPROTO");
	fakewsx_reset();
	fakewsx.version.submit_max = 0;
	KTAP_EQ(wsx_open(&w, 0), -EPROTO, "submit_max 0 gives -EPROTO");

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	if (!ktap_check(w, "open the fake device"))
		exit(ktap_done());
	fakewsx.version.abi_minor = WSX_ABI_MINOR + 1;
	KTAP_EQ(wsx_version(w, &v), 0, "wsx_version");
	ktap_check(!memcmp(&v, &fakewsx.version, sizeof(v)),
		   "... returns the module's answer");
	ktap_check(wsx_fd(w) >= 0, "wsx_fd");
	KTAP_EQ(wsx_fd(NULL), -EINVAL, "wsx_fd(NULL)");
	wsx_close(w);
}

static void check_args(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, 8);
	int err = 1;

	KTAP_EQ(wsx_submit(NULL, items, 1, &err), -EINVAL, "submit NULL wsx");
	KTAP_EQ(wsx_submit(w, NULL, 1, &err), -EINVAL, "submit NULL items");
	KTAP_EQ(wsx_submit(w, items, 0, &err), -EINVAL, "submit count 0");
	KTAP_EQ(wsx_submit(w, items, (unsigned int)INT_MAX + 1, &err), -E2BIG,
		"submit count over INT_MAX");
	KTAP_EQ(err, 1, "... item_error untouched");
	KTAP_EQ(wsx_wait(NULL, recs, 1, 0, 0), -EINVAL, "wait NULL wsx");
	KTAP_EQ(wsx_wait(w, NULL, 1, 0, 0), -EINVAL, "wait NULL records");
	KTAP_EQ(wsx_wait(w, recs, 0, 0, 0), -EINVAL, "wait max 0");
	KTAP_EQ(wsx_wait(w, recs, 2, 3, 0), -EINVAL, "wait min over max");
	KTAP_EQ(wsx_wait(w, recs, 64, 9, 0), -E2BIG,
		"wait min over the module's wait_max");
	KTAP_EQ(wsx_version(w, NULL), -EINVAL, "version NULL answer");
	ktap_check(!fakewsx.calls[NR_SUBMIT] && !fakewsx.calls[NR_WAIT] &&
		   fakewsx.calls[NR_VERSION] == 1,
		   "argument errors make no system call");
	wsx_close(w);
}

static void fill_nops(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		wsx_item_nop(&items[i], 100 + i);
}

static void check_submit(void)
{
	struct wsx *w = open_fake(4, WSX_WAIT_MAX);
	int err = 1;

	fill_nops(10);
	KTAP_EQ(wsx_submit(w, items, 10, &err), 10, "submit 10 items");
	KTAP_EQ(fakewsx.calls[NR_SUBMIT], 3, "... in 3 calls of at most 4");
	KTAP_EQ(err, 0, "... item_error 0");

	fakewsx.submit_eintr = 2;
	KTAP_EQ(wsx_submit(w, items, 3, NULL), 3, "EINTR is retried");
	KTAP_EQ(fakewsx.calls[NR_SUBMIT], 6, "... by calling again");

	fakewsx.refuse_at = fakewsx.queued + 5;
	fakewsx.refuse_err = -ENXIO;
	KTAP_EQ(wsx_submit(w, items, 10, &err), 5,
		"refused 6th item: 5 queued");
	KTAP_EQ(err, -ENXIO, "... item_error is its -errno");
	KTAP_EQ(fakewsx.calls[NR_SUBMIT], 8, "... no call after the refusal");

	fakewsx.refuse_at = fakewsx.queued;
	KTAP_EQ(wsx_submit(w, items, 10, &err), -ENXIO,
		"refused first item: its -errno");
	KTAP_EQ(err, -ENXIO, "... also in item_error");
	fakewsx.refuse_err = 0;

	items[2].reserved = 1;
	KTAP_EQ(wsx_submit(w, items, 4, &err), 2, "malformed 3rd item");
	KTAP_EQ(err, -EINVAL, "... is refused with -EINVAL");
	wsx_close(w);
}

static void check_eagain(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	int err;

	fakewsx.inflight_max = 3;
	fill_nops(5);
	KTAP_EQ(wsx_submit(w, items, 5, &err), 3, "in-flight limit: 3 queued");
	KTAP_EQ(err, -EAGAIN, "... then -EAGAIN");
	KTAP_EQ(wsx_submit(w, items + 3, 2, &err), -EAGAIN,
		"full: -EAGAIN");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, -1), 3, "reap the 3");
	KTAP_EQ(wsx_submit(w, items + 3, 2, &err), 2, "then the rest fit");
	wsx_close(w);
}

static void check_wait(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, 4);
	unsigned int i;
	bool in_order = true;

	KTAP_EQ(wsx_wait(w, recs, 1, 1, 0), -ETIMEDOUT,
		"nothing ready by the timeout: -ETIMEDOUT");
	KTAP_EQ(wsx_wait(w, recs, 1, 0, 0), 0, "min 0 returns at once");
	fill_nops(10);
	wsx_submit(w, items, 10, NULL);
	KTAP_EQ(wsx_wait(w, recs, 64, 1, -1), 4,
		"max over wait_max is cut to wait_max");
	KTAP_EQ(wsx_wait(w, recs + 4, 64, 0, 0), 4, "... and again");
	KTAP_EQ(wsx_wait(w, recs + 8, 64, 3, 0), -ETIMEDOUT,
		"2 ready, min 3: -ETIMEDOUT");
	KTAP_EQ(wsx_wait(w, recs + 8, 2, 2, 0), 2, "... min 2 gets them");
	for (i = 0; i < 10; i++)
		in_order &= recs[i].user_data == 100 + i && !recs[i].status;
	ktap_check(in_order, "records carry user_data back, in order");
	wsx_close(w);
}

static void check_ops(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);

	wsx_item_fib(&items[0], 20, 0);
	wsx_item_crc32c(&items[1], "123456789", 9, 0, 1);
	wsx_item_spawn(&items[2], 2, 3, 0, 2);
	wsx_item_place(&items[2], WSX_PLACE_P, 3);
	wsx_item_nop(&items[3], 3);
	wsx_item_place(&items[3], WSX_PLACE_P, 4);
	KTAP_EQ(wsx_submit(w, items, 4, NULL), 3, "helper-made items pass");
	wsx_wait(w, recs, 64, 3, 0);
	KTAP_EQ(recs[0].result, 6765, "fib(20)");
	KTAP_EQ(recs[1].result, 0xe3069283, "crc32c(\"123456789\")");
	KTAP_EQ(recs[2].result, 15, "spawn 2 3: 15 nodes");
	wsx_close(w);
}

static void check_ring(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	const struct wsx_completion *got[8];
	struct wsx_ring *r, *r2;
	struct wsx_req *req;
	unsigned int n = 0, calls;

	KTAP_EQ(wsx_ring_setup(w, 3, 0, 0, &r), -EINVAL, "ring: SQ of 3");
	KTAP_EQ(wsx_ring_setup(NULL, 4, 4, 0, &r), -EINVAL, "ring: no session");
	KTAP_EQ(wsx_ring_setup(w, 4, 4, 0, &r), 0, "ring: SQ 4, CQ 4");
	if (!ktap_check(r != NULL, "... gives the rings"))
		return;
	KTAP_EQ(wsx_ring_setup(w, 4, 4, 0, &r2), -EBUSY, "ring: a second setup");
	KTAP_EQ(wsx_ring_cq_entries(r), 4, "ring: CQ entries");
	while ((req = wsx_ring_get_req(r))) {
		wsx_item_fib(req, 10 + n, n);
		n++;
	}
	KTAP_EQ(n, 4, "ring: 4 free SQ entries, then NULL");
	KTAP_EQ(wsx_ring_sq_pending(r), 4, "... 4 pending");
	KTAP_EQ(wsx_ring_ready(r), 0, "... no record before submit");
	KTAP_EQ(wsx_ring_submit(r, 4, 0), 4, "ring: submit 4, wait for 4");
	KTAP_EQ(wsx_ring_peek(r, got, 8), 4, "... 4 records to peek at");
	KTAP_EQ(got[0]->result, 55, "... fib(10) in place");
	KTAP_EQ(got[3]->result, 233, "... fib(13) in place");
	/* the CQ is full: another request waits in the SQ */
	wsx_item_nop(wsx_ring_get_req(r), 9);
	KTAP_EQ(wsx_ring_submit(r, 0, 0), -EBUSY, "ring: full CQ gives -EBUSY");
	KTAP_EQ(wsx_ring_sq_pending(r), 1, "... the request stays pending");
	wsx_ring_seen(r, 1);
	KTAP_EQ(wsx_ring_ready(r), 3, "ring: seen 1 of 4");
	KTAP_EQ(wsx_ring_submit(r, 0, 0), 1, "... then it goes in");
	wsx_ring_seen(r, 100);
	KTAP_EQ(wsx_ring_ready(r), 0, "ring: seen more than ready: all");
	calls = fakewsx.calls[NR_ENTER];
	KTAP_EQ(wsx_ring_submit(r, 0, -1), 0, "ring: nothing to do");
	KTAP_EQ(fakewsx.calls[NR_ENTER], calls, "... makes no system call");
	KTAP_EQ(wsx_ring_submit(r, 5, -1), -E2BIG, "ring: wait over the CQ");
	KTAP_EQ(wsx_ring_submit(r, 1, 1000), -ETIMEDOUT,
		"ring: wait for what never comes");
	wsx_ring_free(r);
	wsx_close(w);

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	wsx_ring_setup(w, 2, 2, 0, &r);
	req = wsx_ring_get_req(r);
	wsx_item_nop(req, 1);
	wsx_item_place(req, WSX_PLACE_P, 99);
	KTAP_EQ(wsx_ring_submit(r, 1, 0), 1, "ring: a refused request");
	KTAP_EQ(wsx_ring_peek(r, got, 8), 1, "... is consumed");
	KTAP_EQ(got[0]->status, -ENXIO, "... its record says ENXIO");
	wsx_ring_free(r);
	wsx_close(w);

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	KTAP_EQ(wsx_ring_setup(w, 2, 2, WSX_RING_SQ_PICKUP, &r), 0,
		"ring: pick-up mode");
	wsx_item_nop(wsx_ring_get_req(r), 1);
	calls = fakewsx.calls[NR_ENTER];
	KTAP_EQ(wsx_ring_submit(r, 0, 0), 1, "... NEED_ENTER set: submitted");
	KTAP_EQ(fakewsx.calls[NR_ENTER], calls + 1, "... with a system call");
	wsx_ring_seen(r, 1);
	*fakewsx_sq_flags() = 0;
	wsx_item_nop(wsx_ring_get_req(r), 2);
	KTAP_EQ(wsx_ring_submit(r, 0, 0), 1, "... flag clear: handed over");
	KTAP_EQ(fakewsx.calls[NR_ENTER], calls + 1, "... with no system call");
	KTAP_EQ(wsx_ring_sq_pending(r), 1, "... left for the executor");
	KTAP_EQ(wsx_ring_submit(r, 1, 0), 1, "... waiting enters anyway");
	wsx_ring_free(r);
	wsx_close(w);

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	fakewsx.version.abi_minor = 0;
	KTAP_EQ(wsx_ring_setup(w, 2, 2, 0, &r), -ENOTTY,
		"ring: a module without rings gives -ENOTTY");
	wsx_close(w);
}

static void check_chan(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	const struct wsx_completion *got[8];
	unsigned int a = 0, b = 0, c = 0, id = 77;
	struct wsx_ring *r;
	int err = 0;

	KTAP_EQ(wsx_chan_create(NULL, 0, &a), -EINVAL, "chan: create, no session");
	KTAP_EQ(wsx_chan_create(w, 0, NULL), -EINVAL, "chan: create, no id");
	KTAP_EQ(wsx_chan_close(NULL, 1), -EINVAL, "chan: close, no session");
	KTAP_EQ(fakewsx.calls[NR_CHAN_CREATE] + fakewsx.calls[NR_CHAN_CLOSE], 0,
		"... no system call");
	fakewsx.max_chan_cap = 8;
	KTAP_EQ(wsx_chan_create(w, 9, &id), -E2BIG, "chan: cap over max_chan_cap");
	KTAP_EQ(id, 77, "... id untouched");
	KTAP_EQ(wsx_chan_create(w, 0, &a), 0, "chan: create unbuffered");
	KTAP_EQ(a, 1, "... id 1");
	KTAP_EQ(wsx_chan_create(w, 8, &b), 0, "chan: create cap 8");
	KTAP_EQ(b, 2, "... id 2");
	KTAP_EQ(fakewsx.calls[NR_CHAN_CREATE], 3, "... one ioctl each");
	KTAP_EQ(wsx_chan_close(w, 3), -ENOENT, "chan: close unknown id");
	KTAP_EQ(wsx_chan_close(w, 0), -ENOENT, "chan: close id 0");

	/* a RECV waits for the SEND, then gets the values' sum */
	wsx_item_recv(&items[0], a, 3, 0, 0, 10);
	wsx_item_send(&items[1], a, 5, 3, 11);
	wsx_item_send(&items[2], 9, 0, 1, 12);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), 1, "chan: RECV queued");
	KTAP_EQ(wsx_wait(w, recs, 64, 0, 0), 0, "... waits for values");
	KTAP_EQ(wsx_submit(w, items + 1, 2, &err), 1,
		"chan: SEND queued, unknown id refused");
	KTAP_EQ(err, -ENOENT, "... with -ENOENT");
	KTAP_EQ(wsx_wait(w, recs, 64, 2, 0), 2, "... both records come");
	KTAP_EQ(recs[0].user_data + recs[1].user_data, 21, "... of both items");
	for (int i = 0; i < 2; i++) {
		if (recs[i].user_data == 10)
			KTAP_EQ(recs[i].result, 5 + 6 + 7, "... RECV sums 5, 6, 7");
		else
			KTAP_EQ(recs[i].result, 3, "... SEND sent 3");
	}

	/* a pipeline stage through b; close ends the waiting RECV */
	wsx_item_recv(&items[0], b, 2, 0, 0, 20);
	wsx_item_recv(&items[1], a, 2, b, 1000, 21);
	wsx_item_send(&items[2], a, 100, 2, 22);
	wsx_item_recv(&items[3], a, 1, 0, 0, 23);
	KTAP_EQ(wsx_submit(w, items, 4, NULL), 4, "chan: a pipeline stage");
	KTAP_EQ(wsx_wait(w, recs, 64, 3, 0), 3, "... 3 records, one waits");
	for (int i = 0; i < 3; i++)
		if (recs[i].user_data == 20)
			KTAP_EQ(recs[i].result, 201, "... the sink got 100 + 101");
	KTAP_EQ(wsx_chan_close(w, a), 0, "chan: close");
	KTAP_EQ(wsx_chan_close(w, a), -EALREADY, "chan: close again");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... the waiting RECV ends");
	KTAP_EQ(recs[0].status, -ENODATA, "... with -ENODATA");
	wsx_item_send(&items[0], a, 0, 1, 30);
	wsx_submit(w, items, 1, NULL);
	wsx_wait(w, recs, 64, 1, 0);
	KTAP_EQ(recs[0].status, -EPIPE, "chan: SEND on a closed channel: -EPIPE");

	/* through the rings */
	KTAP_EQ(wsx_chan_create(w, 0, &c), 0, "chan: a third channel");
	KTAP_EQ(wsx_ring_setup(w, 4, 8, 0, &r), 0, "chan: rings");
	wsx_item_recv(wsx_ring_get_req(r), c, 2, 0, 0, 40);
	wsx_item_send(wsx_ring_get_req(r), c, 7, 2, 41);
	wsx_item_send(wsx_ring_get_req(r), 99, 0, 1, 42);
	KTAP_EQ(wsx_ring_submit(r, 3, 0), 3, "... RECV, SEND, unknown id");
	KTAP_EQ(wsx_ring_peek(r, got, 8), 3, "... three records");
	for (int i = 0; i < 3; i++) {
		if (got[i]->user_data == 40)
			KTAP_EQ(got[i]->result, 15, "... RECV got 7 + 8");
		else if (got[i]->user_data == 42)
			KTAP_EQ(got[i]->status, -ENOENT, "... unknown id: -ENOENT");
	}
	wsx_ring_free(r);
	wsx_close(w);

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	fakewsx.max_chans = 2;
	wsx_chan_create(w, 0, &a);
	wsx_chan_create(w, 0, &b);
	KTAP_EQ(wsx_chan_create(w, 0, &c), -EMFILE, "chan: over max_chans");
	wsx_close(w);

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	fakewsx.version.abi_minor = 1;
	KTAP_EQ(wsx_chan_create(w, 0, &a), -ENOTTY,
		"chan: a module without channels gives -ENOTTY");
	KTAP_EQ(wsx_chan_close(w, 1), -ENOTTY, "... close too");
	wsx_close(w);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Adds 1 to eventfd @fd's count (it becomes readable); 0 or -errno. */
static int efd_add(int fd)
{
	uint64_t one = 1;

	return write(fd, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

/* Reads eventfd @fd's count (it becomes unreadable); 0 or -errno. */
static int efd_clear(int fd)
{
	uint64_t count;

	return read(fd, &count, sizeof(count)) == sizeof(count) ? 0 : -errno;
}

/* Submits one POLL of @fd, @events, @timeout_ns: 1, or its -errno. */
static int submit_poll(struct wsx *w, int fd, unsigned int events,
		       __u64 timeout_ns, __u64 user_data)
{
	wsx_item_poll(&items[0], fd, events, timeout_ns, user_data);
	return wsx_submit(w, items, 1, NULL);
}

static void check_poll_refused(struct wsx *w, int efd)
{
	FILE *file = tmpfile();
	int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int path = open(".", O_PATH | O_CLOEXEC);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	int closed = dup(efd);

	close(closed);
	KTAP_EQ(submit_poll(w, efd, 0, 0, 1), -EINVAL, "poll: no event");
	KTAP_EQ(submit_poll(w, efd, POLLIN | 0x8000, 0, 1), -EINVAL,
		"poll: an event the module does not take");
	KTAP_EQ(submit_poll(w, efd, POLLIN, WSX_DELAY_MAX_NS + 1, 1), -E2BIG,
		"poll: a timeout over WSX_DELAY_MAX_NS");
	wsx_item_poll(&items[0], efd, POLLIN, 0, 1);
	items[0].args[3] = 1;
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -EINVAL, "poll: args[3] set");
	KTAP_EQ(submit_poll(w, -1, POLLIN, 0, 1), -EBADF,
		"poll: fd -1, over INT_MAX: -EBADF");
	KTAP_EQ(submit_poll(w, closed, POLLIN, 0, 1), -EBADF,
		"poll: a closed descriptor: -EBADF");
	KTAP_EQ(submit_poll(w, path, POLLIN, 0, 1), -EBADF,
		"poll: an O_PATH descriptor: -EBADF");
	KTAP_EQ(submit_poll(w, fileno(file), POLLIN, 0, 1), -EOPNOTSUPP,
		"poll: a regular file: -EOPNOTSUPP");
	KTAP_EQ(submit_poll(w, dir, POLLIN, 0, 1), -EOPNOTSUPP,
		"poll: a directory: -EOPNOTSUPP");
	KTAP_EQ(submit_poll(w, wsx_fd(w), POLLIN, 0, 1), -EOPNOTSUPP,
		"poll: the session's own file: -EOPNOTSUPP");
	/* pollable, but neither a socket, a pipe nor an eventfd */
	KTAP_EQ(submit_poll(w, null, POLLIN, 0, 1), -EOPNOTSUPP,
		"poll: /dev/null: -EOPNOTSUPP");
	KTAP_EQ(submit_poll(w, tfd, POLLIN, 0, 1), -EOPNOTSUPP,
		"poll: a timerfd: -EOPNOTSUPP");
	KTAP_EQ(wsx_wait(w, recs, 64, 0, 0), 0, "... none queued");
	fclose(file);
	close(dir);
	close(path);
	close(null);
	close(tfd);
}

/*
 * The files a POLL takes besides eventfds: a unix socket pair's end, a
 * UDP socket and a pipe's write end, writable at once; a FIFO open for
 * reading and writing, two queues, ends with -EOPNOTSUPP though it is
 * writable.  A socket of a family a POLL does not take (AF_XDP, where
 * the process may make one) is refused.
 */
static void check_poll_files(struct wsx *w)
{
	int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int xdp = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0), xdp_err = errno;
	char fifo[64] = "/tmp/test_lib_fifo.XXXXXX";
	int sv[2], p[2], rw = -1;

	if (!ktap_check(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv) && !pipe2(p, O_CLOEXEC) && udp >= 0 &&
			mkdtemp(fifo),
			"poll: a socket pair, a UDP socket, a pipe, a folder"))
		return;
	KTAP_EQ(submit_poll(w, sv[0], POLLOUT, 0, 1), 1,
		"poll: a socket pair's end");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... ends at once");
	KTAP_EQ(recs[0].status, 0, "... status 0");
	KTAP_EQ(recs[0].result, POLLOUT, "... revents POLLOUT");
	KTAP_EQ(submit_poll(w, udp, POLLOUT, 0, 1), 1, "poll: a UDP socket");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... ends at once");
	KTAP_EQ(recs[0].result, POLLOUT, "... revents POLLOUT");
	if (xdp >= 0)
		KTAP_EQ(submit_poll(w, xdp, POLLIN, 0, 1), -EOPNOTSUPP,
			"poll: an AF_XDP socket: -EOPNOTSUPP");
	else
		printf("# no AF_XDP socket (%s): a family a POLL does not take, not tried\n",
		       strerror(xdp_err));
	KTAP_EQ(submit_poll(w, p[1], POLLOUT, 0, 2), 1,
		"poll: a pipe's write end");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... ends at once");
	KTAP_EQ(recs[0].result, POLLOUT, "... revents POLLOUT");
	strcat(fifo, "/fifo");
	if (ktap_check(!mkfifo(fifo, 0600), "poll: a FIFO made"))
		rw = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ktap_check(rw >= 0, "... opened for reading and writing")) {
		KTAP_EQ(submit_poll(w, rw, POLLOUT, 0, 3), 1,
			"poll: the FIFO read-write");
		KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... ends at once");
		KTAP_EQ(recs[0].status, -EOPNOTSUPP,
			"... -EOPNOTSUPP: two queues");
		KTAP_EQ(recs[0].result, 0, "... no events");
		close(rw);
	}
	unlink(fifo);
	*strrchr(fifo, '/') = '\0';
	rmdir(fifo);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
	close(udp);
	if (xdp >= 0)
		close(xdp);
}

static void check_poll(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	int efd = eventfd(0, EFD_CLOEXEC), efd2 = eventfd(0, EFD_CLOEXEC);
	const struct wsx_completion *got[8];
	uint64_t t0;
	struct wsx_ring *r;
	int keep;

	if (!ktap_check(efd >= 0 && efd2 >= 0, "poll: two eventfds"))
		return;
	check_poll_refused(w, efd);
	check_poll_files(w);

	KTAP_EQ(submit_poll(w, efd, POLLOUT | POLLIN, 0, 2), 1,
		"poll: a writable eventfd");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... ends at once");
	KTAP_EQ(recs[0].result, POLLOUT, "... revents POLLOUT");
	KTAP_EQ(recs[0].nodes, 1, "... in one run");

	KTAP_EQ(submit_poll(w, efd, POLLIN, 0, 3), 1, "poll: for POLLIN");
	KTAP_EQ(wsx_wait(w, recs, 64, 0, 0), 0, "... waits");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 1000000), -ETIMEDOUT,
		"... past a WAIT's timeout");
	KTAP_EQ(efd_add(efd), 0, "... written");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... then it ends");
	KTAP_EQ(recs[0].user_data, 3, "... its record");
	KTAP_EQ(recs[0].result, POLLIN, "... revents POLLIN");
	KTAP_EQ(recs[0].nodes, 2, "... a run to wait, one once readied");
	KTAP_EQ(efd_clear(efd), 0, "poll: read again");

	/* the item holds the file: closing the descriptor does not end it */
	keep = dup(efd2);
	KTAP_EQ(submit_poll(w, efd2, POLLIN | POLLRDHUP, 0, 4), 1,
		"poll: then its descriptor closed");
	close(efd2);
	KTAP_EQ(wsx_wait(w, recs, 64, 0, 0), 0, "... it still waits");
	KTAP_EQ(efd_add(keep), 0, "... the file written through a dup");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, -1), 1,
		"... and ends when the file is written");
	KTAP_EQ(recs[0].result, POLLIN, "... with POLLIN");
	KTAP_EQ(efd_clear(keep), 0, "... read again");

	t0 = now_ns();
	KTAP_EQ(submit_poll(w, efd, POLLIN, 2000000, 5), 1,
		"poll: a timeout of 2 ms");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, -1), 1, "... ends");
	KTAP_EQ(recs[0].status, -ETIME, "... with -ETIME");
	KTAP_EQ(recs[0].result, 0, "... no events");
	ktap_check(now_ns() - t0 >= 2000000 &&
		   recs[0].finished_ns - recs[0].queued_ns >= 2000000,
		   "... 2 ms after it was queued (%llu ns)",
		   (unsigned long long)(recs[0].finished_ns -
					recs[0].queued_ns));

	fakewsx.max_parked = 2;
	wsx_item_poll(&items[0], efd, POLLIN, 0, 6);
	wsx_item_poll(&items[1], keep, POLLIN, 0, 7);
	wsx_item_poll(&items[2], efd, POLLIN, 0, 8);
	KTAP_EQ(wsx_submit(w, items, 3, NULL), 3, "poll: 3 items, max_parked 2");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... one ends at once");
	KTAP_EQ(recs[0].user_data, 8, "... the third");
	KTAP_EQ(recs[0].status, -EAGAIN, "... with -EAGAIN");
	KTAP_EQ(efd_add(efd), 0, "... the first's file written");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... one more record");
	KTAP_EQ(recs[0].user_data, 6, "... the first ends");
	KTAP_EQ(efd_clear(efd), 0, "... read again");
	/*
	 * the second still waits; one more waits too, and then max_parked is
	 * full, yet a POLL of a ready file ends: it counts only once it waits
	 */
	wsx_item_poll(&items[0], efd, POLLIN, 0, 9);
	wsx_item_poll(&items[1], efd, POLLOUT, 0, 10);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), 1,
		"poll: max_parked 2, 1 waiting: one more waits");
	KTAP_EQ(wsx_submit(w, items + 1, 1, NULL), 1,
		"... 2 waiting: a POLL of a writable file");
	KTAP_EQ(wsx_submit(w, items + 1, 1, NULL), 1, "... and another");
	KTAP_EQ(wsx_wait(w, recs, 64, 2, 0), 2, "... both end at once");
	KTAP_EQ(recs[0].user_data + recs[1].user_data, 20,
		"... the writable file's two");
	KTAP_EQ(recs[0].status | recs[1].status, 0,
		"... status 0: it did not wait");
	KTAP_EQ(efd_add(efd), 0, "... the first's file written");
	KTAP_EQ(wsx_wait(w, recs, 64, 1, 0), 1, "... its record");
	KTAP_EQ(recs[0].user_data, 9, "... the one that waited");
	KTAP_EQ(efd_clear(efd), 0, "... read again");

	/* through the rings: the waiting one's record comes at an ENTER */
	KTAP_EQ(wsx_ring_setup(w, 4, 8, 0, &r), 0, "poll: rings");
	wsx_item_poll(wsx_ring_get_req(r), efd, POLLIN, 0, 10);
	wsx_item_poll(wsx_ring_get_req(r), -5, POLLIN, 0, 11);
	KTAP_EQ(wsx_ring_submit(r, 1, 0), 2, "... a POLL and a bad fd");
	KTAP_EQ(wsx_ring_peek(r, got, 8), 1, "... one record");
	KTAP_EQ(got[0]->status, -EBADF, "... the bad fd's: -EBADF");
	wsx_ring_seen(r, 1);
	KTAP_EQ(efd_add(efd), 0, "... its file written");
	KTAP_EQ(wsx_ring_submit(r, 1, -1), 0, "... written, an ENTER waits");
	KTAP_EQ(wsx_ring_peek(r, got, 8), 1, "... for its record");
	KTAP_EQ(got[0]->result, POLLIN, "... POLLIN");
	wsx_ring_free(r);
	wsx_close(w);	/* the item on keep still waits: its record dropped */

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	fakewsx.version.abi_minor = 2;
	KTAP_EQ(submit_poll(w, efd, POLLIN, 0, 1), -EINVAL,
		"poll: a module before ABI 1.3 does not know the op");
	wsx_close(w);
	close(efd);
	close(keep);
}

/* Submits @item alone and reaps its record into *@rec: 0, or -errno. */
static int run_one(struct wsx *w, struct wsx_req *item,
		   struct wsx_completion *rec)
{
	int ret = wsx_submit(w, item, 1, NULL);

	if (ret != 1)
		return ret < 0 ? ret : -EPROTO;
	ret = wsx_wait(w, rec, 1, 1, 0);
	return ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
}

/* Each refusal of PINGPONG and PIPELINE, as the module's at submission. */
static void check_chanops_refused(struct wsx *w)
{
	static const struct {
		enum wsx_op op;
		__u64 args[4];
		int err;
		const char *what;
	} bad[] = {
		{ WSX_OP_PINGPONG, { 0 }, -EINVAL, "pingpong: 0 rounds" },
		{ WSX_OP_PINGPONG, { WSX_CHAN_COUNT_MAX + 1 }, -E2BIG,
		  "pingpong: rounds over WSX_CHAN_COUNT_MAX" },
		{ WSX_OP_PINGPONG, { UINT64_MAX }, -E2BIG,
		  "pingpong: rounds 2^64 - 1" },
		{ WSX_OP_PINGPONG, { 1, 1 }, -EINVAL, "pingpong: args[1] set" },
		{ WSX_OP_PINGPONG, { 1, 0, 1 }, -EINVAL, "pingpong: args[2] set" },
		{ WSX_OP_PINGPONG, { 1, 0, 0, 1 }, -EINVAL,
		  "pingpong: args[3] set" },
		{ WSX_OP_PIPELINE, { 0, 1 }, -EINVAL, "pipeline: 0 stages" },
		{ WSX_OP_PIPELINE, { 1, 0 }, -EINVAL, "pipeline: 0 values" },
		{ WSX_OP_PIPELINE, { WSX_PIPELINE_MAX_STAGES + 1, 1 }, -E2BIG,
		  "pipeline: 65 stages" },
		{ WSX_OP_PIPELINE, { 1, WSX_CHAN_COUNT_MAX + 1 }, -E2BIG,
		  "pipeline: values over WSX_CHAN_COUNT_MAX" },
		{ WSX_OP_PIPELINE, { 1, 1, 1 }, -EINVAL, "pipeline: args[2] set" },
		{ WSX_OP_PIPELINE, { 1, 1, 0, 1 }, -EINVAL,
		  "pipeline: args[3] set" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wsx_item_nop(&items[0], i);
		items[0].op = bad[i].op;
		memcpy(items[0].args, bad[i].args, sizeof(items[0].args));
		KTAP_EQ(wsx_submit(w, items, 1, NULL), bad[i].err, "%s",
			bad[i].what);
	}
	KTAP_EQ(wsx_wait(w, recs, 64, 0, 0), 0, "... none queued");
}

static void check_chanops(void)
{
	struct wsx *w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	const struct wsx_completion *got[8];
	int efd = eventfd(0, EFD_CLOEXEC), err = 0, n;
	struct wsx_completion rec;
	struct wsx_ring *r;
	unsigned int id = 0;

	if (!ktap_check(w && efd >= 0, "chanops: a session, an eventfd"))
		return;
	check_chanops_refused(w);

	wsx_item_pingpong(&items[0], 1, 1);
	KTAP_EQ(run_one(w, items, &rec), 0, "pingpong(1)");
	KTAP_EQ(rec.status, 0, "... status 0");
	KTAP_EQ(rec.result, 1, "... one round trip");
	wsx_item_pingpong(&items[0], WSX_CHAN_COUNT_MAX, 2);
	KTAP_EQ(run_one(w, items, &rec), 0, "pingpong(WSX_CHAN_COUNT_MAX)");
	KTAP_EQ(rec.result, WSX_CHAN_COUNT_MAX, "... as many round trips");
	wsx_item_pipeline(&items[0], 1, 1, 3);
	KTAP_EQ(run_one(w, items, &rec), 0, "pipeline(1, 1)");
	KTAP_EQ(rec.result, 1, "... the sink got 1");
	wsx_item_pipeline(&items[0], 8, 100000, 4);
	KTAP_EQ(run_one(w, items, &rec), 0, "pipeline(8, 100000)");
	KTAP_EQ(rec.result, 5000050000ULL, "... 1 + ... + 100000");
	wsx_item_pipeline(&items[0], WSX_PIPELINE_MAX_STAGES, 1000, 5);
	KTAP_EQ(run_one(w, items, &rec), 0, "pipeline(64, 1000)");
	KTAP_EQ(rec.status, 0, "... status 0");
	KTAP_EQ(rec.result, 500500, "... 1 + ... + 1000");
	wsx_item_pipeline(&items[0], 2, WSX_CHAN_COUNT_MAX, 6);
	KTAP_EQ(run_one(w, items, &rec), 0, "pipeline(2, WSX_CHAN_COUNT_MAX)");
	KTAP_EQ(rec.result, 9223372034707292160ULL,
		"... (2^32 - 1) 2^32 / 2, no overflow on the way");
	KTAP_EQ(fakewsx.calls[NR_CHAN_CREATE], 0, "... with no channel made");
	KTAP_EQ(wsx_chan_create(w, 0, &id), 0, "chanops: then a channel");
	KTAP_EQ(id, 1, "... the session's first: the ops took no id");

	/* a waiting POLL fills max_parked: the op's first wait meets it */
	fakewsx.max_parked = 1;
	wsx_item_poll(&items[0], efd, POLLIN, 0, 7);
	wsx_item_pingpong(&items[1], 10, 8);
	wsx_item_pipeline(&items[2], 3, 10, 9);
	KTAP_EQ(wsx_submit(w, items, 3, &err), 3,
		"chanops: a POLL waits, max_parked 1; a PINGPONG, a PIPELINE");
	KTAP_EQ(wsx_wait(w, recs, 64, 2, 0), 2, "... both end at once");
	for (int i = 0; i < 2; i++) {
		KTAP_EQ(recs[i].status, -EAGAIN, "... %llu: -EAGAIN",
			(unsigned long long)recs[i].user_data);
		KTAP_EQ(recs[i].result, 0, "... nothing made");
	}
	fakewsx.max_parked = 2;
	KTAP_EQ(wsx_submit(w, items + 1, 2, NULL), 2,
		"chanops: max_parked 2, one waiting");
	KTAP_EQ(wsx_wait(w, recs, 64, 2, 0), 2, "... both end");
	for (int i = 0; i < 2; i++) {
		KTAP_EQ(recs[i].status, 0, "... %llu: status 0",
			(unsigned long long)recs[i].user_data);
		KTAP_EQ(recs[i].result, recs[i].user_data == 8 ? 10 : 55,
			"... its result");
	}

	/* through the rings: results and refusals as records */
	KTAP_EQ(wsx_ring_setup(w, 4, 8, 0, &r), 0, "chanops: rings");
	wsx_item_pingpong(wsx_ring_get_req(r), 1000, 10);
	wsx_item_pipeline(wsx_ring_get_req(r), 64, 1000, 11);
	wsx_item_pipeline(wsx_ring_get_req(r), 65, 1, 12);
	wsx_item_pingpong(wsx_ring_get_req(r), 0, 13);
	KTAP_EQ(wsx_ring_submit(r, 4, 0), 4, "... two ops, two refused");
	n = wsx_ring_peek(r, got, 8);
	KTAP_EQ(n, 4, "... four records");
	for (int i = 0; i < n; i++) {
		static const __u64 want[] = { 1000, 500500, 0, 0 };
		static const int status[] = { 0, 0, -E2BIG, -EINVAL };
		unsigned int k = got[i]->user_data - 10;

		if (!ktap_check(k < 4, "... of a request submitted (%llu)",
				(unsigned long long)got[i]->user_data))
			continue;
		KTAP_EQ(got[i]->status, status[k], "... %u: its status", k);
		KTAP_EQ(got[i]->result, want[k], "... %u: its result", k);
	}
	wsx_ring_seen(r, n);
	wsx_ring_free(r);
	wsx_close(w);	/* the POLL still waits: its record dropped */

	w = open_fake(WSX_SUBMIT_MAX, WSX_WAIT_MAX);
	fakewsx.version.abi_minor = 3;
	wsx_item_pingpong(&items[0], 1, 1);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -EINVAL,
		"pingpong: a module before ABI 1.4 does not know the op");
	wsx_item_pipeline(&items[0], 1, 1, 1);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -EINVAL,
		"pipeline: ... nor this one");
	wsx_close(w);
	close(efd);
}

int main(void)
{
	setenv("WSX_DEVICE", "/dev/null", 1);
	check_version();
	check_args();
	check_submit();
	check_eagain();
	check_wait();
	check_ops();
	check_ring();
	check_chan();
	check_poll();
	check_chanops();
	return ktap_done();
}
