/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsx_open(), wsx_submit() and wsx_wait() against the fake device: version
 * checks, argument checks made without a system call, splitting, EINTR
 * retries, partial submissions and waits; the rings (wsx_ring_*): setup,
 * a full SQ, results read in place, a full CQ (-EBUSY), calls that need no
 * system call, refused items as records, a module without rings; the
 * channels (wsx_chan_*, SEND and RECV): their errors, values through
 * them, close, both doors, a module without channels.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
	return ktap_done();
}
