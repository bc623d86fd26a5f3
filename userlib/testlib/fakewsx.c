/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The fake /dev/wsx of fakewsx.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../selftests/wsx/wsx_op_expect.h"
#include "../wsxctl/crc32c.h"
#include "fakewsx.h"

struct fakewsx fakewsx;

static struct wsx_completion *recs;
static size_t recs_head, recs_tail, recs_size;

/* The rings, laid out as the module lays them out (rings.c). */
#define RING_SQES	256
static struct {
	int fd;
	char *mem;
	struct wsx_ring_setup p;
	__u32 sq_head_k, cq_tail_k, sub_total;
} ring;

/*
 * Channels (ABI 1.2), simpler than the module's: a channel's buffer has
 * no bound, so a SEND never waits (it queues all its values, or ends
 * -EPIPE on a closed channel); a RECV takes what the buffer holds and,
 * when that is not all, waits with its record held back until SENDs or a
 * close end it.  @cap is kept only to check it.
 */
struct fchan {
	uint32_t cap;
	bool closed;
	uint64_t *vals;
	size_t head, tail, size;
};

/* A RECV waiting for values: its record, where it goes, what is left. */
struct fpend {
	struct wsx_completion rec;
	uint32_t chan, forward;
	uint64_t left;
	bool ring;		/* its record goes to the CQ */
	struct fpend *next;
};

static struct fchan *chans;
static uint32_t nchans;
static struct fpend *pend_head, **pend_tail = &pend_head;

/*
 * POLL (ABI 1.3), with poll(2): an item looks at its file once when it is
 * submitted; one that must wait keeps its record back, holding a dup of
 * the descriptor (the module holds the file: closing the caller's
 * descriptor does not end the item; the caller's own when no descriptor is
 * left for a dup), until a WAIT or ENTER sees its file report an event or
 * its timeout pass.  Those calls look at the waiting POLLs (poll(2))
 * without waiting, and those that wait for records wait in poll(2), up to
 * their own timeout, the first POLL's or for as long as POLLs wait.
 */
struct fpoll {
	struct wsx_completion rec;
	int fd;
	bool own;		/* @fd is the fake's dup, to close */
	short events;
	uint64_t deadline;	/* CLOCK_MONOTONIC ns of the timeout, 0: none */
	bool ring;		/* its record goes to the CQ */
	struct fpoll *next;
};

/* poll(2)'s names for <linux/eventpoll.h>'s events, which a POLL takes */
_Static_assert(WSX_EXPECT_POLL_EVENTS ==
	       (POLLIN | POLLPRI | POLLOUT | POLLERR | POLLHUP | POLLRDNORM |
		POLLRDBAND | POLLWRNORM | POLLWRBAND | POLLMSG | POLLRDHUP),
	       "poll(2)'s event bits are the module's");

static struct fpoll *polls, **polls_tail = &polls;

static uint64_t env_knob(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static void chans_free(void)
{
	struct fpend *p;

	for (uint32_t i = 0; i < nchans; i++)
		free(chans[i].vals);
	free(chans);
	chans = NULL;
	nchans = 0;
	while ((p = pend_head)) {
		pend_head = p->next;
		free(p);
	}
	pend_tail = &pend_head;
}

static void polls_free(void)
{
	struct fpoll *p;

	while ((p = polls)) {
		polls = p->next;
		if (p->own)
			close(p->fd);
		free(p);
	}
	polls_tail = &polls;
}

void fakewsx_reset(void)
{
	chans_free();
	polls_free();
	free(ring.mem);
	memset(&ring, 0, sizeof(ring));
	free(recs);
	recs = NULL;
	recs_head = recs_tail = recs_size = 0;
	memset(&fakewsx, 0, sizeof(fakewsx));
	fakewsx.version = (struct wsx_version){
		.abi_major = env_knob("FAKEWSX_ABI_MAJOR", WSX_ABI_MAJOR),
		.abi_minor = env_knob("FAKEWSX_ABI_MINOR", WSX_ABI_MINOR),
		.nprocs = env_knob("FAKEWSX_NPROCS", 4),
		.submit_max = env_knob("FAKEWSX_SUBMIT_MAX", WSX_SUBMIT_MAX),
		.wait_max = env_knob("FAKEWSX_WAIT_MAX", WSX_WAIT_MAX),
	};
	fakewsx.inflight_max = env_knob("FAKEWSX_INFLIGHT_MAX", UINT64_MAX);
	fakewsx.corrupt = env_knob("FAKEWSX_CORRUPT", 0);
	fakewsx.max_item_ns = env_knob("FAKEWSX_MAX_ITEM_NS", 10000000);
	fakewsx.max_chans = env_knob("FAKEWSX_MAX_CHANS", 1024);
	fakewsx.max_chan_cap = env_knob("FAKEWSX_MAX_CHAN_CAP", 65536);
	fakewsx.max_parked = env_knob("FAKEWSX_MAX_PARKED", 65536);
}

__attribute__((constructor))
static void fakewsx_init(void)
{
	fakewsx_reset();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Runs accepted item @it as the module would: its record's nodes and
 * result as selftests/wsx/wsx_op_expect.h predicts them, a CRC32C's result
 * computed over its buffer.
 */
static void run_op(const struct wsx_req *it, struct wsx_completion *c)
{
	struct wsx_expect_rec e = wsx_expect_record(it);

	c->nodes = e.nodes;
	c->result = e.result_known ? e.result :
		    crc32c(0, (const void *)(uintptr_t)it->args[0], it->args[1]);
}

static struct fchan *chan_of(uint64_t id)
{
	return id && id <= nchans ? &chans[id - 1] : NULL;
}

static int chan_put(struct fchan *ch, uint64_t v)
{
	uint64_t *p;

	if (ch->closed)
		return -EPIPE;
	if (ch->tail == ch->size) {
		ch->size = ch->size ? ch->size * 2 : 64;
		p = realloc(ch->vals, ch->size * sizeof(*p));
		if (!p)
			abort();
		ch->vals = p;
	}
	ch->vals[ch->tail++] = v;
	return 0;
}

/*
 * Takes values from @p's channel while it has some: 0 when @p is done
 * (its record's status set), 1 while it waits.
 */
static int recv_step(struct fpend *p)
{
	struct fchan *ch = chan_of(p->chan), *fwd = chan_of(p->forward);
	uint64_t v;

	while (p->left) {
		if (ch->head == ch->tail) {
			if (!ch->closed)
				return 1;
			p->rec.status = -ENODATA;
			return 0;
		}
		v = ch->vals[ch->head++];
		p->rec.result += v;
		p->left--;
		if (fwd && chan_put(fwd, v)) {
			p->rec.status = -EPIPE;
			return 0;
		}
	}
	return 0;
}

static void emit_record(const struct wsx_completion *c, bool to_ring);

/* Ends the waiting RECVs that can end now, oldest first, until none can. */
static void serve_pending(void)
{
	struct fpend **pp, *p;
	bool again = true;

	while (again) {
		again = false;
		for (pp = &pend_head; (p = *pp);) {
			if (recv_step(p)) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			if (!*pp)
				pend_tail = pp;
			p->rec.finished_ns = now_ns();
			emit_record(&p->rec, p->ring);
			free(p);
			again = true;	/* a forward may feed another */
		}
	}
}

/*
 * SEND and RECV of accepted @it into @c: 0 when done, 1 when the RECV
 * waits (the fake then owns its record).
 */
static int run_chan_op(const struct wsx_req *it, struct wsx_completion *c,
		       bool to_ring)
{
	struct fpend *p;
	uint64_t i;

	if (it->op == WSX_OP_SEND) {
		for (i = 0; i < it->args[2]; i++)
			if (chan_put(chan_of(it->args[0]), it->args[1] + i)) {
				c->status = -EPIPE;
				break;
			}
		c->result = i;
		serve_pending();
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->rec = *c;
	p->chan = it->args[0];
	p->forward = it->args[2];
	p->left = it->args[1];
	p->ring = to_ring;
	if (pend_head || recv_step(p)) {	/* behind the others: in order */
		*pend_tail = p;
		pend_tail = &p->next;
		serve_pending();
		return 1;
	}
	*c = p->rec;
	free(p);
	serve_pending();
	return 0;
}

/* Items waiting: RECVs for values and POLLs for their files. */
static size_t parked(void)
{
	const struct fpend *r;
	const struct fpoll *p;
	size_t n = 0;

	for (r = pend_head; r; r = r->next)
		n++;
	for (p = polls; p; p = p->next)
		n++;
	return n;
}

/*
 * POLL of accepted @it into @c: 0 when done, 1 when it waits (the fake
 * then owns its record).  As the module's first look (wsx_poll_own()): a
 * file on two queues ends it -EOPNOTSUPP, a ready file with its events
 * (max_parked or not), and only one that must wait counts in the parked
 * items, -EAGAIN when max_parked of them wait already.
 */
static int run_poll(const struct wsx_req *it, struct wsx_completion *c,
		    bool to_ring)
{
	struct pollfd pfd = { .fd = it->args[0], .events = it->args[1] };
	struct fpoll *p;

	if (wsx_expect_poll_two_queues(pfd.fd)) {
		c->status = -EOPNOTSUPP;
		return 0;
	}
	if (poll(&pfd, 1, 0) > 0) {
		c->result = pfd.revents;
		return 0;
	}
	if (parked() >= fakewsx.max_parked) {
		c->status = -EAGAIN;
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->rec = *c;
	p->rec.nodes = 2;	/* it runs again once readied */
	p->fd = fcntl(pfd.fd, F_DUPFD_CLOEXEC, 0);
	p->own = p->fd >= 0;
	if (!p->own)
		p->fd = pfd.fd;
	p->events = pfd.events;
	if (it->args[2])
		p->deadline = c->queued_ns + it->args[2];
	p->ring = to_ring;
	*polls_tail = p;
	polls_tail = &p->next;
	return 1;
}

/*
 * PINGPONG and PIPELINE (ABI 1.4) of accepted @it into @c, run at once to
 * their end, their result as wsx_op_expect.h predicts it.  Their own
 * items' waits are not modelled but the first: an item of the op must
 * wait before any value moves (its channels are unbuffered), so when the
 * session's waiting items (RECVs, POLLs) number max_parked already, it
 * ends -EAGAIN having made nothing, result 0.
 */
static void run_chan_shape(const struct wsx_req *it, struct wsx_completion *c)
{
	if (parked() >= fakewsx.max_parked) {
		c->status = -EAGAIN;
		c->nodes = wsx_expect_op_items(it);	/* all were spawned */
		return;
	}
	run_op(it, c);
}

/*
 * Ends the waiting POLLs whose file reports an event or whose timeout has
 * passed, after waiting up to @wait_ns (negative: no bound) for the first
 * of them.  0, or -EINTR when a signal cut the wait short.
 */
static int serve_polls(int64_t wait_ns)
{
	uint64_t now = now_ns(), first = UINT64_MAX;
	struct fpoll **pp, *p;
	struct pollfd *pfd;
	struct timespec ts;
	size_t n = 0, i;
	int ret;

	for (p = polls; p; p = p->next, n++)
		if (p->deadline && p->deadline < first)
			first = p->deadline;
	if (!n)
		return 0;
	if (first != UINT64_MAX &&
	    (wait_ns < 0 || first < now + (uint64_t)wait_ns))
		wait_ns = first > now ? (int64_t)(first - now) : 0;
	ts.tv_sec = wait_ns / 1000000000;
	ts.tv_nsec = wait_ns % 1000000000;
	pfd = calloc(n, sizeof(*pfd));
	if (!pfd)
		abort();
	for (i = 0, p = polls; p; p = p->next, i++)
		pfd[i] = (struct pollfd){ .fd = p->fd, .events = p->events };
	ret = ppoll(pfd, n, wait_ns < 0 ? NULL : &ts, NULL);
	if (ret < 0) {
		free(pfd);
		return errno == EINTR ? -EINTR : 0;
	}
	now = now_ns();
	for (i = 0, pp = &polls; (p = *pp); i++) {
		if (pfd[i].revents) {
			p->rec.result = pfd[i].revents + fakewsx.corrupt;
		} else if (p->deadline && p->deadline <= now) {
			p->rec.status = -ETIME;
		} else {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->rec.started_ns = p->rec.finished_ns = now;
		emit_record(&p->rec, p->ring);
		if (p->own)
			close(p->fd);
		free(p);
	}
	polls_tail = pp;
	free(pfd);
	return 0;
}

/*
 * Serves the waiting POLLs until @ready() counts @min records, none
 * waits, or @timeout_ns has passed (negative: no bound); it looks once
 * without waiting first, so that the records of the POLLs whose file is
 * ready come whatever @min.  0 or -EINTR.
 */
static int serve_polls_until(size_t (*ready)(void), size_t min,
			     int64_t timeout_ns)
{
	uint64_t end = now_ns() + (timeout_ns > 0 ? timeout_ns : 0), now;
	int64_t left = 0;
	int ret;

	for (;;) {
		ret = serve_polls(left);
		if (ret || !polls || ready() >= min)
			return ret;
		now = now_ns();
		if (timeout_ns >= 0 && now >= end)
			return 0;
		left = timeout_ns < 0 ? -1 : (int64_t)(end - now);
	}
}

static struct wsx_completion *new_record(void)
{
	struct wsx_completion *p;

	if (recs_tail == recs_size) {
		recs_size = recs_size ? recs_size * 2 : 64;
		p = realloc(recs, recs_size * sizeof(*recs));
		if (!p)
			abort();
		recs = p;
	}
	return memset(&recs[recs_tail], 0, sizeof(*recs));
}

/*
 * Checks and runs @it into @c, allowing @flags_ok; 0 or -errno.  *@waits
 * is set when the item waits on a channel: its record comes later.
 */
static int run_item(const struct wsx_req *it, __u16 flags_ok,
		    struct wsx_completion *c, bool to_ring, bool *waits)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->user_data = it->user_data;
	if (wsx_expect_field_faults(it, flags_ok))
		return -EINVAL;
	if (fakewsx.refuse_err && fakewsx.queued == fakewsx.refuse_at)
		return fakewsx.refuse_err;
	ret = wsx_expect_req_check(it, flags_ok, fakewsx.version.nprocs,
				   fakewsx.max_item_ns);
	if (ret)
		return ret;
	if ((it->op == WSX_OP_SEND || it->op == WSX_OP_RECV) &&
	    (!chan_of(it->args[0]) ||
	     (it->op == WSX_OP_RECV && it->args[2] && !chan_of(it->args[2]))))
		return -ENOENT;
	if (it->op == WSX_OP_POLL) {
		if (fakewsx.version.abi_minor < 3)
			return -EINVAL;	/* an op the module does not know */
		ret = wsx_expect_poll_fd(it->args[0]);
		if (ret)
			return ret;
	}
	/* an op the module does not know */
	if ((it->op == WSX_OP_PINGPONG || it->op == WSX_OP_PIPELINE) &&
	    fakewsx.version.abi_minor < 4)
		return -EINVAL;
	*waits = false;
	c->cpu = fakewsx.queued % fakewsx.version.nprocs;
	c->queued_ns = c->started_ns = now_ns();
	fakewsx.queued++;
	if (it->op == WSX_OP_SEND || it->op == WSX_OP_RECV) {
		c->nodes = 1;
		*waits = run_chan_op(it, c, to_ring);
	} else if (it->op == WSX_OP_POLL) {
		c->nodes = 1;
		*waits = run_poll(it, c, to_ring);
	} else if (it->op == WSX_OP_PINGPONG || it->op == WSX_OP_PIPELINE) {
		run_chan_shape(it, c);
	} else {
		run_op(it, c);
	}
	c->result += fakewsx.corrupt;
	c->finished_ns = now_ns();
	return 0;
}

static int queue_item(const struct wsx_req *it)
{
	struct wsx_completion c;
	bool waits;
	int ret;

	/* in flight: the records not reaped and the items that wait */
	if (recs_tail - recs_head + parked() >= fakewsx.inflight_max)
		return -EAGAIN;
	ret = run_item(it, 0, &c, false, &waits);
	if (ret)
		return ret;
	if (!waits) {
		*new_record() = c;
		recs_tail++;
	}
	return 0;
}

static int fake_submit(struct wsx_submit *s)
{
	const struct wsx_req *items = (const void *)(uintptr_t)s->items;
	unsigned int i;
	int err = 0;

	if (fakewsx.submit_eintr) {
		fakewsx.submit_eintr--;
		return -EINTR;
	}
	if (s->reserved[0] || s->reserved[1] || s->reserved[2] || !s->count)
		return -EINVAL;
	if (s->count > fakewsx.version.submit_max)
		return -E2BIG;
	for (i = 0; i < s->count && !err; i++)
		err = queue_item(&items[i]);
	s->queued = err ? i - 1 : i;
	s->error = err;
	return s->queued ? (int)s->queued : err;
}

static size_t wait_ready(void)
{
	return recs_tail - recs_head;
}

static int fake_wait(struct wsx_wait *w)
{
	struct wsx_completion *out = (void *)(uintptr_t)w->records;
	size_t ready;
	int ret;

	if (w->reserved[0] || w->reserved[1] || w->reserved[2] || !w->max ||
	    w->min > w->max)
		return -EINVAL;
	if (w->max > fakewsx.version.wait_max)
		return -E2BIG;
	ret = serve_polls_until(wait_ready, w->min, w->timeout_ns);
	if (ret)
		return ret;
	ready = wait_ready();
	if (ready < w->min)	/* nothing else will ever finish */
		return w->timeout_ns < 0 ? -EDEADLK : -ETIMEDOUT;
	w->count = ready < w->max ? ready : w->max;
	if (w->count)
		memcpy(out, &recs[recs_head], w->count * sizeof(*out));
	recs_head += w->count;
	return w->count;
}

static bool pow2(__u32 n)
{
	return n && !(n & (n - 1));
}

static __u32 *ring_word(__u32 off)
{
	return (__u32 *)(ring.mem + off);
}

__u32 *fakewsx_sq_flags(void)
{
	return ring.mem ? ring_word(ring.p.sq_flags) : NULL;
}

static int fake_ring_setup(int fd, struct wsx_ring_setup *p)
{
	size_t cqes;

	if (fakewsx.version.abi_minor < 1)
		return -ENOTTY;
	if (ring.mem)
		return -EBUSY;
	if ((p->flags & ~WSX_RING_SQ_PICKUP) || p->reserved0 ||
	    p->reserved[0] || p->reserved[1] || p->reserved[2])
		return -EINVAL;
	/* as the module's wsx_rings_check(), at ring_max_entries 16384 */
	if (!pow2(p->sq_entries))
		return -EINVAL;
	if (p->sq_entries > 16384)
		return -E2BIG;
	if (!p->cq_entries)
		p->cq_entries = p->sq_entries < 8192 ? 2 * p->sq_entries : 16384;
	if (!pow2(p->cq_entries) || p->cq_entries < p->sq_entries)
		return -EINVAL;
	if (p->cq_entries > 16384)
		return -E2BIG;
	cqes = RING_SQES + p->sq_entries * sizeof(struct wsx_req);
	p->mmap_size = (cqes + p->cq_entries * sizeof(struct wsx_completion) +
			4095) & ~4095UL;
	p->sq_head = 0;
	p->sq_tail = 64;
	p->cq_head = 128;
	p->cq_tail = 192;
	p->sq_flags = 240;
	p->sqes = RING_SQES;
	p->cqes = cqes;
	ring.mem = aligned_alloc(4096, p->mmap_size);
	if (!ring.mem)
		return -ENOMEM;
	memset(ring.mem, 0, p->mmap_size);
	ring.p = *p;
	ring.fd = fd;
	/* no executor thread takes requests here: always ask for ENTER */
	*ring_word(p->sq_flags) = WSX_SQ_NEED_ENTER;
	return 0;
}

/* A record of an item that waited: to the WAIT queue or to the CQ. */
static void emit_record(const struct wsx_completion *c, bool to_ring)
{
	struct wsx_completion *cqes;

	if (!to_ring) {
		*new_record() = *c;
		recs_tail++;
		return;
	}
	cqes = (void *)(ring.mem + ring.p.cqes);
	cqes[ring.cq_tail_k++ & (ring.p.cq_entries - 1)] = *c;
	__atomic_store_n(ring_word(ring.p.cq_tail), ring.cq_tail_k,
			 __ATOMIC_RELEASE);
}

static int fake_chan_create(struct wsx_chan_create *cc)
{
	struct fchan *p;

	if (fakewsx.version.abi_minor < 2)
		return -ENOTTY;
	if (cc->flags || cc->reserved)
		return -EINVAL;
	if (cc->cap > fakewsx.max_chan_cap)
		return -E2BIG;
	if (nchans >= fakewsx.max_chans)
		return -EMFILE;
	p = realloc(chans, (nchans + 1) * sizeof(*chans));
	if (!p)
		return -ENOMEM;
	chans = p;
	chans[nchans] = (struct fchan){ .cap = cc->cap };
	cc->id = ++nchans;
	return 0;
}

static int fake_chan_close(const __u32 *id)
{
	struct fchan *ch;

	if (fakewsx.version.abi_minor < 2)
		return -ENOTTY;
	ch = chan_of(*id);
	if (!ch)
		return -ENOENT;
	if (ch->closed)
		return -EALREADY;
	ch->closed = true;
	serve_pending();
	return 0;
}

static size_t cq_ready(void)
{
	return ring.cq_tail_k - *ring_word(ring.p.cq_head);
}

/* ENTER: run what the SQ holds, as far as the CQ has room. */
static int fake_enter(struct wsx_enter *e)
{
	struct wsx_completion *cqes = (void *)(ring.mem + ring.p.cqes);
	const struct wsx_req *sqes = (const void *)(ring.mem + ring.p.sqes);
	__u32 n, head, i;
	struct wsx_completion rec;
	struct wsx_req it;
	bool waits;
	int err;

	if (!ring.mem)
		return -ENXIO;
	if (e->flags || e->reserved)
		return -EINVAL;
	if (e->min_complete > ring.p.cq_entries)
		return -E2BIG;
	e->submitted = 0;
	e->error = 0;
	n = *ring_word(ring.p.sq_tail) - ring.sq_head_k;
	head = *ring_word(ring.p.cq_head);
	if (n > ring.p.sq_entries || ring.cq_tail_k - head > ring.p.cq_entries)
		return -EINVAL;
	if (n > e->to_submit)
		n = e->to_submit;
	for (i = 0; i < n; i++) {
		if (ring.sub_total - head >= ring.p.cq_entries) {
			e->error = -EBUSY;
			break;
		}
		it = sqes[ring.sq_head_k++ & (ring.p.sq_entries - 1)];
		ring.sub_total++;
		waits = false;
		/* a SEND may emit waiting RECVs' records first: its own after */
		err = run_item(&it, WSX_REQ_TIMESTAMPS, &rec, true, &waits);
		if (err)
			rec.status = err;
		if (!waits)
			cqes[ring.cq_tail_k++ & (ring.p.cq_entries - 1)] = rec;
	}
	e->submitted = i;
	*ring_word(ring.p.sq_head) = ring.sq_head_k;
	*ring_word(ring.p.cq_tail) = ring.cq_tail_k;
	err = serve_polls_until(cq_ready, e->min_complete, e->timeout_ns);
	if (err)
		return err;
	if (ring.cq_tail_k - head < e->min_complete)	/* nothing else runs */
		return e->timeout_ns < 0 ? -EDEADLK : -ETIMEDOUT;
	return 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (ring.mem && fd == ring.fd && off == WSX_RING_MMAP_OFF &&
	    len <= ring.p.mmap_size && (flags & MAP_SHARED))
		return ring.mem;
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	if (ring.mem && addr == ring.mem)
		return 0;
	return syscall(SYS_munmap, addr, len);
}

static int fake_ioctl(int fd, unsigned long cmd, void *arg)
{
	fakewsx.calls[_IOC_NR(cmd)]++;
	switch (cmd) {
	case WSX_IOC_VERSION:
		memcpy(arg, &fakewsx.version, sizeof(fakewsx.version));
		return 0;
	case WSX_IOC_SUBMIT:
		return fake_submit(arg);
	case WSX_IOC_RING_SETUP:
		return fake_ring_setup(fd, arg);
	case WSX_IOC_ENTER:
		return fake_enter(arg);
	case WSX_IOC_CHAN_CREATE:
		return fake_chan_create(arg);
	case WSX_IOC_CHAN_CLOSE:
		return fake_chan_close(arg);
	default:
		return fake_wait(arg);
	}
}

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (cmd != WSX_IOC_VERSION && cmd != WSX_IOC_SUBMIT &&
	    cmd != WSX_IOC_WAIT && cmd != WSX_IOC_RING_SETUP &&
	    cmd != WSX_IOC_ENTER && cmd != WSX_IOC_CHAN_CREATE &&
	    cmd != WSX_IOC_CHAN_CLOSE)
		return syscall(SYS_ioctl, fd, cmd, arg);
	ret = fake_ioctl(fd, cmd, arg);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
