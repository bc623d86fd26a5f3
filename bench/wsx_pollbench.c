// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_pollbench: the netpoller of /dev/wsx (ABI 1.3: WSX_OP_POLL) against
 * io_uring's IORING_OP_POLL_ADD, straight on both ABIs (uapi/linux/wsx.h,
 * <linux/io_uring.h>: raw system calls, without libwsx or liburing).
 *
 *   wsx_pollbench MODE N RUNS
 *
 * N eventfds (1 .. 65536; RLIMIT_NOFILE raised to N + 64, as root the hard
 * limit too) are made once and used by every round of the process.  A
 * round is one cycle:
 *
 *   arm	one POLL(fd, EPOLLIN, no timeout) per eventfd, in fd order,
 *		each with its own user value; wsx: until all N are parked
 *		(the arming runs on the executor's threads after the
 *		submission returns: the schedtrace file's waiting= is read
 *		until it is N over its value before, every 1/64 of the time
 *		waited so far, 10 us .. 1 ms), io_uring: the submitting
 *		io_uring_enter() (POLL_ADD arms inside the system call);
 *		then, for wsx, an untimed read of the stats (the arm's
 *		counters)
 *   write	one 8-byte write of 1 to each eventfd, in a random order
 *		(xorshift64, seeded by the round: the same orders for every
 *		MODE), which readies the waiting POLL through its wake
 *		function
 *   reap	every one of the N records read: each must say EPOLLIN
 *		(wsx: status 0, result EPOLLIN; io_uring: res POLLIN), once
 *		per user value
 *
 * then (untimed) one read of each eventfd to reset it.  MODE is the door:
 *
 *   rings	wsx's shared rings (SQ and CQ of pow2(N) entries: at most
 *		the module parameter ring_max_entries): one WSX_IOC_ENTER
 *		submits the N entries, one ENTER(min_complete = the rest)
 *		waits and the records are read from the CQ
 *   ioctl	WSX_IOC_SUBMIT in calls of WSX_SUBMIT_MAX, WSX_IOC_WAIT
 *		(min = max = the rest, at most WSX_WAIT_MAX a call)
 *   uring	io_uring (SQ and CQ of pow2(N) entries, no setup flags): one
 *		io_uring_enter() submits the N POLL_ADDs, one with
 *		IORING_ENTER_GETEVENTS and min_complete the rest waits
 *   uring-defer  the same with IORING_SETUP_SINGLE_ISSUER |
 *		IORING_SETUP_DEFER_TASKRUN (Linux 6.1): the completions are
 *		run in the reaping io_uring_enter(), not at each write's
 *		return to userspace
 *
 * One untimed round first (the warm-up), then RUNS rounds, each printing,
 * for wsx with the deltas of /sys/kernel/debug/wsx/stats over the cycle
 * (and over the arm alone) and the schedtrace line read once all N were
 * parked:
 *
 *	pollstat P<n> ready_runnext=N runnext_hits=N stolen=N item_parks=N
 *	      executed=N spins=N parks=N wakeups=N
 *	pollstat arm: ready_runnext=N ... wakeups=N ready_global=N
 *	      ready_inbox=N
 *	pollstat parked: WSX <ms>ms: nprocs=N ... threads=N ... waiting=N ...
 *	bench workload=poll contender=C run=I cpus=N items=N ns=N result=N
 *	      ok=0|1 submit_ns=N arm_ns=N write_ns=N reap_ns=N [threads=N
 *	      waiting=N ready_runnext=N runnext_hits=N stolen=N item_parks=N
 *	      executed=N spins=N parks=N wakeups=N ready_global=N
 *	      ready_inbox=N]
 *
 * (each on one line; the bracketed keys for wsx only) where C is wsx-rings,
 * wsx (the ioctls), uring or uring-defer, items N, ns the whole cycle (so
 * that ns / items is the figure: ns per completion), arm_ns + write_ns +
 * reap_ns = ns, submit_ns the part of arm_ns in the submitting system
 * calls, result the records that were right, threads and waiting the
 * schedtrace's while the N were parked (the Ms; waiting counts every
 * user's parked items).  The counters are the sums over the Ps but
 * ready_global and ready_inbox (where the readies made outside an M went:
 * the wake functions run in the writer's write()); spins, parks and
 * wakeups are the Ms'.  Exit status: 0, 1 on a failure or a wrong record,
 * 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>
#include <linux/wsx.h>

#include "bench_rings.h"
#include "bench_stats.h"
#include "bench_util.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_N		65536
#define WAIT_TIMEOUT_NS	(120LL * 1000000000LL)
/* the arm's wait for the N parked (wsx_wait_parked()) */
#define PARK_POLL_MIN_NS	10000L
#define PARK_POLL_MAX_NS	1000000L
#define PARK_WAIT_MAX_NS	(30ULL * 1000000000ULL)

/* ---- the doors --------------------------------------------------------- */

struct door {
	const char *mode, *contender;
	bool wsx, rings, defer;
	unsigned long n;
	struct bench_rings r;	/* r.fd the session or the io_uring */
	/* wsx */
	struct wsx_req *reqs;
	struct wsx_completion *recs;
	int st_fd;		/* schedtrace, kept open */
};

static int wsx_setup(struct door *d)
{
	__u32 size = bench_pow2_at_least(d->n);

	if (d->rings) {
		if (bench_rings_wsx(&d->r, size, size, 0))
			return -1;
	} else {
		d->r.fd = open(WSX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (d->r.fd < 0) {
			perror(WSX_DEVICE_PATH);
			return -1;
		}
		d->reqs = calloc(d->n, sizeof(*d->reqs));
		d->recs = calloc(WSX_WAIT_MAX, sizeof(*d->recs));
		if (!d->reqs || !d->recs)
			return -1;
	}
	d->st_fd = open(SCHEDTRACE_PATH, O_RDONLY | O_CLOEXEC);
	if (d->st_fd < 0) {
		perror(SCHEDTRACE_PATH);
		return -1;
	}
	return 0;
}

static void wsx_poll_req(struct wsx_req *r, __u64 ud, int efd)
{
	memset(r, 0, sizeof(*r));
	r->user_data = ud;
	r->op = WSX_OP_POLL;
	r->place = WSX_PLACE_LOCAL;
	r->args[0] = (__u64)efd;
	r->args[1] = POLLIN;
}

/* Submit the N POLLs, through the SQ and one ENTER or SUBMIT calls. */
static int wsx_submit(struct door *d, const int *efd)
{
	unsigned long i;

	if (d->rings) {
		struct wsx_enter e;
		int ret;

		for (i = 0; i < d->n; i++)
			wsx_poll_req(&d->r.sqes[d->r.tail++ & d->r.sq_mask], i,
				     efd[i]);
		/* release: the entries before the tail */
		__atomic_store_n(d->r.sq_tail, d->r.tail, __ATOMIC_RELEASE);
		memset(&e, 0, sizeof(e));
		e.to_submit = d->n;
		ret = ioctl(d->r.fd, WSX_IOC_ENTER, &e);
		if (ret < 0 || e.submitted != d->n || e.error) {
			fprintf(stderr, "WSX_IOC_ENTER: %s, submitted %u of %lu, error %d\n",
				ret < 0 ? strerror(errno) : "ok", e.submitted,
				d->n, e.error);
			return -1;
		}
		return 0;
	}
	for (i = 0; i < d->n; i++)
		wsx_poll_req(&d->reqs[i], i, efd[i]);
	return bench_submit(d->r.fd, d->reqs, d->n);
}

/*
 * Wait until schedtrace's waiting= is @want or more, the line left in
 * @line: a look every 1/64 of the time waited so far (10 us .. 1 ms), so
 * that the looks cost the Ms little and end the wait at most 1/64 late.
 */
static int wsx_wait_parked(struct door *d, long long want, __u64 since,
			   char *line, size_t len)
{
	long long w;

	for (;;) {
		struct timespec ts = { 0, PARK_POLL_MIN_NS };
		__u64 waited;

		if (bench_schedtrace_read(d->st_fd, line, len))
			return -1;
		w = bench_stats_field(line, "waiting");
		if (w >= want)
			return 0;
		waited = bench_now_ns() - since;
		if (waited > PARK_WAIT_MAX_NS) {
			fprintf(stderr, "%s: waiting=%lld, want %lld, after 30 s\n",
				__func__, w, want);
			return -1;
		}
		if (waited / 64 > PARK_POLL_MAX_NS)
			ts.tv_nsec = PARK_POLL_MAX_NS;
		else if (waited / 64 > PARK_POLL_MIN_NS)
			ts.tv_nsec = waited / 64;
		nanosleep(&ts, NULL);
	}
}

/* Is this record right? Mark its user value seen in @seen. */
static bool record_ok(__u64 ud, long long status, __u64 result,
		      unsigned long n, unsigned char *seen)
{
	if (ud >= n || seen[ud] || status || result != POLLIN) {
		fprintf(stderr, "record %llu: status %lld result %#llx%s\n",
			(unsigned long long)ud, status,
			(unsigned long long)result,
			ud < n && seen[ud] ? ", seen twice" : "");
		return false;
	}
	seen[ud] = 1;
	return true;
}

/* Wait for @k records in wsx's CQ. */
static int wsx_wait_rings(struct door *d, unsigned long k)
{
	struct wsx_enter e;

	memset(&e, 0, sizeof(e));
	e.min_complete = k;
	e.timeout_ns = WAIT_TIMEOUT_NS;
	if (ioctl(d->r.fd, WSX_IOC_ENTER, &e) < 0 && errno != EINTR) {
		perror("WSX_IOC_ENTER (wait)");
		return -1;
	}
	return 0;
}

/* Reap the N records with WSX_IOC_WAIT; the right ones in *@good. */
static int wsx_reap_ioctl(struct door *d, unsigned char *seen,
			  unsigned long *good)
{
	unsigned long got = 0;

	while (got < d->n) {
		unsigned long k = d->n - got, i;
		struct wsx_wait w;
		int ret;

		if (k > WSX_WAIT_MAX)
			k = WSX_WAIT_MAX;
		memset(&w, 0, sizeof(w));
		w.records = (uintptr_t)d->recs;
		w.max = k;
		w.min = k;
		w.timeout_ns = WAIT_TIMEOUT_NS;
		ret = ioctl(d->r.fd, WSX_IOC_WAIT, &w);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			perror("WSX_IOC_WAIT");
			return -1;
		}
		for (i = 0; i < (unsigned long)ret; i++)
			*good += record_ok(d->recs[i].user_data,
					   d->recs[i].status, d->recs[i].result,
					   d->n, seen);
		got += ret;
	}
	return 0;
}

static int uring_setup(struct door *d)
{
	__u32 size = bench_pow2_at_least(d->n);

	return bench_rings_uring(&d->r, size, size, d->defer ?
				 IORING_SETUP_SINGLE_ISSUER |
				 IORING_SETUP_DEFER_TASKRUN : 0);
}

/* Submit the N POLL_ADDs in one io_uring_enter(): armed when it returns. */
static int uring_submit(struct door *d, const int *efd)
{
	unsigned long i;
	long ret;

	for (i = 0; i < d->n; i++) {
		__u32 idx = d->r.tail++ & d->r.sq_mask;
		struct io_uring_sqe *s = &d->r.usqes[idx];

		memset(s, 0, sizeof(*s));
		s->opcode = IORING_OP_POLL_ADD;
		s->fd = efd[i];
		s->poll32_events = POLLIN;	/* little-endian */
		s->user_data = i;
		d->r.sq_array[idx] = idx;
	}
	/* release: the entries before the tail */
	__atomic_store_n(d->r.sq_tail, d->r.tail, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, d->r.fd, d->n, 0, 0, NULL, 0);
	if (ret != (long)d->n) {
		fprintf(stderr, "io_uring_enter: %ld of %lu: %s\n", ret, d->n,
			ret < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

/* Wait for @k CQEs, or with DEFER_TASKRUN run the completions. */
static int uring_wait(struct door *d, unsigned long k)
{
	long ret = syscall(__NR_io_uring_enter, d->r.fd, 0, k,
			   IORING_ENTER_GETEVENTS, NULL, 0);

	if (ret < 0 && errno != EINTR) {
		perror("io_uring_enter (wait)");
		return -1;
	}
	return 0;
}

/* Is the record at @idx of the CQ, wsx's or io_uring's, right? */
static bool cqe_ok(const struct door *d, __u32 idx, unsigned char *seen)
{
	const struct wsx_completion *c = &d->r.cqes[idx];
	const struct io_uring_cqe *u = &d->r.ucqes[idx];

	if (d->wsx)
		return record_ok(c->user_data, c->status, c->result, d->n,
				 seen);
	return record_ok(u->user_data, u->res < 0 ? u->res : 0,
			 u->res < 0 ? 0 : u->res, d->n, seen);
}

/* Reap the N records from the CQ; the right ones counted in *@good. */
static int reap_rings(struct door *d, unsigned char *seen,
		      unsigned long *good)
{
	unsigned long got = 0;

	while (got < d->n) {
		__u32 head = *d->r.cq_head;
		__u32 tail = __atomic_load_n(d->r.cq_tail, __ATOMIC_ACQUIRE);
		unsigned long k = d->n - got;

		/* DEFER_TASKRUN: the enter runs the completions */
		if (tail - head < k || d->defer) {
			if (d->wsx ? wsx_wait_rings(d, k) : uring_wait(d, k))
				return -1;
			tail = __atomic_load_n(d->r.cq_tail, __ATOMIC_ACQUIRE);
		}
		for (; head != tail; head++, got++)
			*good += cqe_ok(d, head & d->r.cq_mask, seen);
		/* release: our reads before the kernel reuses the entries */
		__atomic_store_n(d->r.cq_head, tail, __ATOMIC_RELEASE);
	}
	return 0;
}

/* ---- the cycle --------------------------------------------------------- */

struct result {
	__u64 ns, submit_ns, arm_ns, write_ns, reap_ns;
	unsigned long good;
	long long threads, waiting;
	char sched[1024];
	struct bench_stats pre, mid, post;
};

static int cpus;

static void print(const struct door *d, unsigned int run,
		  const struct result *r)
{
	if (d->wsx) {
		bench_stats_print_ps("pollstat", &r->pre, &r->post);
		printf("pollstat arm:");
		bench_stats_print_sums(&r->pre, &r->mid);
		printf("\n");
		printf("pollstat parked: %s\n", r->sched);
	}
	printf("bench workload=poll contender=%s run=%u cpus=%d items=%lu",
	       d->contender, run, cpus, d->n);
	printf(" ns=%llu result=%lu ok=%d submit_ns=%llu arm_ns=%llu",
	       (unsigned long long)r->ns, r->good, r->good == d->n,
	       (unsigned long long)r->submit_ns,
	       (unsigned long long)r->arm_ns);
	printf(" write_ns=%llu reap_ns=%llu", (unsigned long long)r->write_ns,
	       (unsigned long long)r->reap_ns);
	if (d->wsx) {
		printf(" threads=%lld waiting=%lld", r->threads, r->waiting);
		bench_stats_print_sums(&r->pre, &r->post);
	}
	printf("\n");
	fflush(stdout);
}

static __u64 xorshift64(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The write order of round @round: a permutation of 0 .. n - 1. */
static void shuffle(unsigned int *order, unsigned long n, unsigned int round)
{
	__u64 s = 0x9e3779b97f4a7c15ULL * (round + 1);
	unsigned long i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned long j = xorshift64(&s) % (i + 1);
		unsigned int t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

static int cycle(struct door *d, const int *efd, const unsigned int *order,
		 unsigned char *seen, struct result *r)
{
	__u64 t0, t_sub, t1, t1b, t2, t3, v;
	const __u64 one = 1;
	long long base = 0;
	unsigned long i;
	int ret;

	memset(seen, 0, d->n);
	if (d->wsx) {
		if (bench_schedtrace_read(d->st_fd, r->sched, sizeof(r->sched)))
			return -1;
		base = bench_stats_field(r->sched, "waiting");
		if (bench_stats_read(&r->pre))
			return -1;
	}
	t0 = bench_now_ns();
	ret = d->wsx ? wsx_submit(d, efd) : uring_submit(d, efd);
	if (ret)
		return -1;
	t_sub = bench_now_ns();
	if (d->wsx && wsx_wait_parked(d, base + d->n, t0, r->sched,
				      sizeof(r->sched)))
		return -1;
	t1 = bench_now_ns();
	/* untimed: the counters of the arm alone */
	if (d->wsx && bench_stats_read(&r->mid))
		return -1;
	t1b = bench_now_ns();
	for (i = 0; i < d->n; i++) {
		if (write(efd[order[i]], &one, sizeof(one)) != sizeof(one)) {
			perror("eventfd write");
			return -1;
		}
	}
	t2 = bench_now_ns();
	if (d->wsx && !d->rings)
		ret = wsx_reap_ioctl(d, seen, &r->good);
	else
		ret = reap_rings(d, seen, &r->good);
	if (ret)
		return -1;
	t3 = bench_now_ns();
	if (d->wsx) {
		r->threads = bench_stats_field(r->sched, "threads");
		r->waiting = bench_stats_field(r->sched, "waiting");
		if (bench_stats_read(&r->post))
			return -1;
	}
	r->submit_ns = t_sub - t0;
	r->arm_ns = t1 - t0;
	r->write_ns = t2 - t1b;
	r->reap_ns = t3 - t2;
	r->ns = r->arm_ns + r->write_ns + r->reap_ns;
	/* reset the eventfds for the next round */
	for (i = 0; i < d->n; i++) {
		if (read(efd[i], &v, sizeof(v)) != sizeof(v) || v != 1) {
			fprintf(stderr, "eventfd %lu: read %s, count %llu\n", i,
				strerror(errno), (unsigned long long)v);
			return -1;
		}
	}
	return 0;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: wsx_pollbench rings|ioctl|uring|uring-defer N RUNS\n"
		"       (N 1 .. %d eventfds, RUNS 1 .. 100)\n", MAX_N);
	exit(2);
}

static const struct {
	const char *mode, *contender;
	bool wsx, rings, defer;
} modes[] = {
	{ "rings", "wsx-rings", true, true, false },
	{ "ioctl", "wsx", true, false, false },
	{ "uring", "uring", false, false, false },
	{ "uring-defer", "uring-defer", false, false, true },
};

int main(int argc, char **argv)
{
	struct door d = { .r.fd = -1, .st_fd = -1 };
	unsigned long runs, i;
	unsigned char *seen;
	unsigned int *order;
	struct result *r;
	int failed = 0, *efd;

	if (argc != 4)
		bad_args();
	for (i = 0; i < ARRAY_SIZE(modes) && strcmp(argv[1], modes[i].mode); i++)
		;
	if (i == ARRAY_SIZE(modes))
		bad_args();
	d.mode = modes[i].mode;
	d.contender = modes[i].contender;
	d.wsx = modes[i].wsx;
	d.rings = modes[i].rings;
	d.defer = modes[i].defer;
	d.n = bench_number(argv[2], 1, MAX_N, bad_args);
	runs = bench_number(argv[3], 1, 100, bad_args);
	cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (bench_raise_nofile(d.n + 64))
		return 1;
	efd = calloc(d.n, sizeof(*efd));
	order = calloc(d.n, sizeof(*order));
	seen = calloc(d.n, 1);
	r = calloc(1, sizeof(*r));
	if (!efd || !order || !seen || !r) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < d.n; i++) {
		efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd[i] < 0) {
			perror("eventfd");
			return 1;
		}
	}
	if (d.wsx ? wsx_setup(&d) : uring_setup(&d))
		return 1;
	for (i = 0; i <= runs; i++) {
		memset(r, 0, sizeof(*r));
		shuffle(order, d.n, i);
		if (cycle(&d, efd, order, seen, r)) {
			fprintf(stderr, "wsx_pollbench: %s round %lu failed\n",
				d.mode, i);
			return 1;
		}
		if (r->good != d.n)
			failed = 1;
		if (i)	/* round 0 warms up */
			print(&d, i - 1, r);
		else if (r->good != d.n)
			fprintf(stderr, "wsx_pollbench: the warm-up's records are wrong\n");
	}
	return failed;
}
