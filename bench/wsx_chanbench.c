// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_chanbench: the channels of /dev/wsx (ABI 1.2: WSX_IOC_CHAN_CREATE,
 * WSX_OP_SEND, WSX_OP_RECV; ABI 1.4: the same shapes as one request,
 * WSX_OP_PINGPONG and WSX_OP_PIPELINE) against the Go runtime's (bench/go:
 * the same shapes on goroutines), straight on the ABI (uapi/linux/wsx.h),
 * without libwsx.  Each run opens its own session (so its channels go
 * with it).
 *
 *   wsx_chanbench pingpong N RUNS
 *	two items hand one value back and forth over two unbuffered channels
 *	c1, c2: the ball SEND(c1, 1, 1), B = RECV(c1, N, fwd c2) and
 *	A = RECV(c2, N - 1, fwd c1), in one WSX_IOC_SUBMIT.  B's last value
 *	goes to a sink RECV(c2, 1) that is submitted only once A's record
 *	is in: a sink parked on c2 from the start would queue behind or
 *	ahead of A in c2's receivers and take a value meant for A (the
 *	receivers are served in order, as Go's recvq), which stops the ring.
 *	Timed: from before the SUBMIT to A's finished_ns, 2N - 1 handoffs
 *	(N receives by B, N - 1 by A); prints ns per handoff
 *   wsx_chanbench pipeline STAGES VALUES RUNS
 *	SEND(c0, 1, VALUES), stages RECV(c_i, VALUES, fwd c_i+1, 0) for
 *	i = 0 .. STAGES - 1, sink RECV(c_STAGES, VALUES), all unbuffered, in
 *	one SUBMIT; timed from before the SUBMIT to the last finished_ns;
 *	every stage's and the sink's result must be VALUES(VALUES + 1)/2
 *   wsx_chanbench pingpong-op N RUNS
 *	the same shape as ONE request, WSX_OP_PINGPONG(N) (ABI 1.4): its two
 *	items over two unbuffered channels of the op's own, N round trips,
 *	2N handoffs (the pinger sends first); timed from before the SUBMIT
 *	to the record's finished_ns; the result must be N
 *   wsx_chanbench pipeline-op STAGES VALUES RUNS
 *	ONE request WSX_OP_PIPELINE(STAGES, VALUES) (ABI 1.4): a source, STAGES
 *	stages and a sink over STAGES + 1 unbuffered channels of the op's
 *	own, Go's pipeline shape (wsx_go's pipeline: STAGES goroutines between
 *	a source and a sink); timed from before the SUBMIT to the record's
 *	finished_ns; the result must be VALUES(VALUES + 1)/2
 *   wsx_chanbench wakestorm ITEMS RUNS
 *	ITEMS RECV(c, 1) on one unbuffered channel, submitted and left to
 *	park (the stats' waiting= is polled until all are parked), then one
 *	SEND(c, 1, ITEMS); timed from before that SEND's SUBMIT to the last
 *	record's finished_ns; the receivers' results must sum to
 *	ITEMS(ITEMS + 1)/2
 *
 * One untimed run first (as wsx_go's warm-up), then RUNS runs, each
 * printing, with the deltas of /sys/kernel/debug/wsx/stats over the run
 * (for the wake storm, over the SEND only):
 *
 *	chanstat P<n> ready_runnext=N runnext_hits=N stolen=N item_parks=N
 *	      executed=N spins=N parks=N wakeups=N
 *	bench workload=W contender=wsx run=I cpus=N items=N ns=N result=N ok=0|1
 *	      wall_ns=N ready_runnext=N runnext_hits=N stolen=N item_parks=N
 *	      executed=N spins=N parks=N wakeups=N ready_global=N ready_inbox=N
 *
 * (each on one line; spins, parks and wakeups are the Ms': an idle P's M
 * woken to look for work, as a ready's wakep() does)
 *
 * items being the handoffs (pingpong: 2N - 1, pingpong-op: 2N), the
 * values (pipeline, pipeline-op) or the wakes (wakestorm) in ns, so that
 * ns / items is the figure; the counters of the bench line are the sums
 * over the Ps.  wall_ns runs to the last WAIT's return.  Exit status: 0,
 * 1 on a failure or a wrong result, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/wsx.h>

#include "bench_stats.h"
#include "bench_util.h"

#define WAIT_TIMEOUT_NS	(120LL * 1000000000LL)

static int chan_create(int fd, __u32 *id)
{
	struct wsx_chan_create c;

	memset(&c, 0, sizeof(c));
	if (ioctl(fd, WSX_IOC_CHAN_CREATE, &c) < 0) {
		perror("WSX_IOC_CHAN_CREATE");
		return -1;
	}
	*id = c.id;
	return 0;
}

static void req(struct wsx_req *r, __u64 ud, __u32 op, __u64 a0, __u64 a1,
		__u64 a2, __u64 a3)
{
	memset(r, 0, sizeof(*r));
	r->user_data = ud;
	r->op = op;
	r->place = WSX_PLACE_LOCAL;
	r->args[0] = a0;
	r->args[1] = a1;
	r->args[2] = a2;
	r->args[3] = a3;
}

/* Reap exactly @n records into @recs (which has room for them). */
static int reap(int fd, struct wsx_completion *recs, unsigned long n)
{
	unsigned long got = 0;

	while (got < n) {
		struct wsx_wait w;
		unsigned long k = n - got;
		int ret;

		if (k > WSX_WAIT_MAX)
			k = WSX_WAIT_MAX;
		memset(&w, 0, sizeof(w));
		w.records = (uintptr_t)(recs + got);
		w.max = k;
		w.min = 1;
		w.timeout_ns = WAIT_TIMEOUT_NS;
		do
			ret = ioctl(fd, WSX_IOC_WAIT, &w);
		while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			perror("WSX_IOC_WAIT");
			return -1;
		}
		got += ret;
	}
	return 0;
}

struct result {
	__u64 items, ns, wall_ns, result;
	int ok;
	struct bench_stats pre, post;
};

static int cpus;

static void print(const char *what, unsigned int run, struct result *r)
{
	bench_stats_print_ps("chanstat", &r->pre, &r->post);
	printf("bench workload=%s contender=wsx run=%u cpus=%d items=%llu",
	       what, run, cpus, (unsigned long long)r->items);
	printf(" ns=%llu result=%llu ok=%d wall_ns=%llu",
	       (unsigned long long)r->ns, (unsigned long long)r->result, r->ok,
	       (unsigned long long)r->wall_ns);
	bench_stats_print_sums(&r->pre, &r->post);
	printf("\n");
	fflush(stdout);
}

/* A record's check: status 0 and the expected result, else say so. */
static int check(const struct wsx_completion *c, __u64 want)
{
	if (c->status == 0 && c->result == want)
		return 1;
	fprintf(stderr, "item %llu: status %d result %llu, want 0 and %llu\n",
		(unsigned long long)c->user_data, c->status,
		(unsigned long long)c->result, (unsigned long long)want);
	return 0;
}

static int open_session(void)
{
	int fd = open(WSX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		perror(WSX_DEVICE_PATH);
	return fd;
}

enum { PP_BALL, PP_A, PP_B, PP_SINK };

static int pingpong(unsigned long n, struct result *r)
{
	struct wsx_completion recs[4];
	struct wsx_req reqs[4];
	__u64 t0, a_end = 0;
	__u32 c1, c2;
	unsigned long got = 0, i;
	int fd, ret = -1, have_a = 0, sink = 0;

	fd = open_session();
	if (fd < 0)
		return -1;
	if (chan_create(fd, &c1) || chan_create(fd, &c2))
		goto out;
	req(&reqs[0], PP_BALL, WSX_OP_SEND, c1, 1, 1, 0);
	req(&reqs[1], PP_A, WSX_OP_RECV, c2, n - 1, c1, 0);
	req(&reqs[2], PP_B, WSX_OP_RECV, c1, n, c2, 0);
	req(&reqs[3], PP_SINK, WSX_OP_RECV, c2, 1, 0, 0);
	if (bench_stats_read(&r->pre))
		goto out;
	t0 = bench_now_ns();
	if (bench_submit(fd, reqs, 3))
		goto out;
	/* the ball's and A's records, then the sink */
	while (!have_a) {
		if (reap(fd, recs + got, 1))
			goto out;
		if (recs[got].user_data == PP_A) {
			have_a = 1;
			a_end = recs[got].finished_ns;
		}
		got++;
	}
	if (bench_stats_read(&r->post) || bench_submit(fd, &reqs[3], 1) ||
	    reap(fd, recs + got, 4 - got))
		goto out;
	r->wall_ns = bench_now_ns() - t0;
	r->items = 2 * n - 1;
	r->ns = a_end - t0;
	r->ok = 1;
	for (i = 0; i < 4; i++) {
		__u64 want = recs[i].user_data == PP_A ? n - 1 :
			     recs[i].user_data == PP_B ? n : 1;

		r->ok &= check(&recs[i], want);
		sink |= recs[i].user_data == PP_SINK;
		if (recs[i].user_data == PP_B)
			r->result = recs[i].result;
	}
	r->ok &= sink;
	ret = 0;
out:
	close(fd);
	return ret;
}

/*
 * 1 + 2 + ... + @n, exact for @n up to WSX_CHAN_COUNT_MAX (2^32 - 1: the
 * product stays under 2^64).
 */
static __u64 pipeline_sum(__u64 n)
{
	return n * (n + 1) / 2;
}

static int pipeline(unsigned int stages, unsigned long values,
		    struct result *r)
{
	unsigned int nreq = stages + 2, i;
	struct wsx_completion *recs = calloc(nreq, sizeof(*recs));
	struct wsx_req *reqs = calloc(nreq, sizeof(*reqs));
	__u32 *ch = calloc(stages + 1, sizeof(*ch));
	__u64 t0, end = 0, want = pipeline_sum(values);
	int fd, ret = -1;

	fd = open_session();
	if (fd < 0 || !recs || !reqs || !ch)
		goto out;
	for (i = 0; i <= stages; i++)
		if (chan_create(fd, &ch[i]))
			goto out;
	req(&reqs[0], 0, WSX_OP_SEND, ch[0], 1, values, 0);
	for (i = 0; i < stages; i++)
		req(&reqs[i + 1], i + 1, WSX_OP_RECV, ch[i], values, ch[i + 1],
		    0);
	req(&reqs[stages + 1], stages + 1, WSX_OP_RECV, ch[stages], values, 0,
	    0);
	if (bench_stats_read(&r->pre))
		goto out;
	t0 = bench_now_ns();
	if (bench_submit(fd, reqs, nreq) || reap(fd, recs, nreq))
		goto out;
	r->wall_ns = bench_now_ns() - t0;
	if (bench_stats_read(&r->post))
		goto out;
	r->ok = 1;
	for (i = 0; i < nreq; i++) {
		r->ok &= check(&recs[i], recs[i].user_data ? want : values);
		if (recs[i].finished_ns > end)
			end = recs[i].finished_ns;
		if (recs[i].user_data == stages + 1)
			r->result = recs[i].result;
	}
	r->items = values;
	r->ns = end - t0;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(recs);
	free(reqs);
	free(ch);
	return ret;
}

/*
 * pingpong-op, pipeline-op: ONE request @op(@a, @b), its record's result
 * against @want; items @items.  Timed from before the SUBMIT to the
 * record's finished_ns.
 */
static int one_op(__u32 op, __u64 a, __u64 b, __u64 want, __u64 items,
		  struct result *r)
{
	struct wsx_completion rec;
	struct wsx_req one;
	__u64 t0;
	int fd, ret = -1;

	fd = open_session();
	if (fd < 0)
		return -1;
	req(&one, 1, op, a, b, 0, 0);
	if (bench_stats_read(&r->pre))
		goto out;
	t0 = bench_now_ns();
	if (bench_submit(fd, &one, 1) || reap(fd, &rec, 1))
		goto out;
	r->wall_ns = bench_now_ns() - t0;
	if (bench_stats_read(&r->post))
		goto out;
	r->ok = check(&rec, want);
	r->result = rec.result;
	r->items = items;
	r->ns = rec.finished_ns - t0;
	ret = 0;
out:
	close(fd);
	return ret;
}

static int wakestorm(unsigned long items, struct result *r)
{
	struct wsx_completion *recs = calloc(items + 1, sizeof(*recs));
	struct wsx_req *reqs = calloc(items + 1, sizeof(*reqs));
	__u64 t0, end = 0, sum = 0, want = (__u64)items * (items + 1) / 2;
	struct bench_stats st;
	long long base;
	unsigned long i;
	int fd, ret = -1, spins = 0, send_ok = 0;
	__u32 c;

	fd = open_session();
	if (fd < 0 || !recs || !reqs)
		goto out;
	if (chan_create(fd, &c) || bench_stats_read(&st))
		goto out;
	base = st.waiting;
	for (i = 0; i < items; i++)
		req(&reqs[i], i + 1, WSX_OP_RECV, c, 1, 0, 0);
	req(&reqs[items], 0, WSX_OP_SEND, c, 1, items, 0);
	if (bench_submit(fd, reqs, items))
		goto out;
	/* all parked: 10 s at most */
	for (;;) {
		if (bench_stats_read(&st))
			goto out;
		if (st.waiting - base >= (long long)items)
			break;
		if (++spins > 10000) {
			fprintf(stderr, "%s: %lld of %lu parked after 10 s\n",
				__func__, st.waiting - base, items);
			goto out;
		}
		usleep(1000);
	}
	r->pre = st;
	t0 = bench_now_ns();
	if (bench_submit(fd, &reqs[items], 1) || reap(fd, recs, items + 1))
		goto out;
	r->wall_ns = bench_now_ns() - t0;
	if (bench_stats_read(&r->post))
		goto out;
	r->ok = 1;
	for (i = 0; i <= items; i++) {
		if (!recs[i].user_data) {
			send_ok = check(&recs[i], items);
			continue;
		}
		if (recs[i].status) {
			check(&recs[i], 0);
			r->ok = 0;
		}
		sum += recs[i].result;
		if (recs[i].finished_ns > end)
			end = recs[i].finished_ns;
	}
	if (sum != want)
		fprintf(stderr, "%s: the receivers' sum %llu, want %llu\n",
			__func__, (unsigned long long)sum, (unsigned long long)want);
	r->ok &= send_ok && sum == want;
	r->result = sum;
	r->items = items;
	r->ns = end - t0;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(recs);
	free(reqs);
	return ret;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: wsx_chanbench pingpong N RUNS\n"
		"       wsx_chanbench pipeline STAGES VALUES RUNS\n"
		"       wsx_chanbench pingpong-op N RUNS\n"
		"       wsx_chanbench pipeline-op STAGES VALUES RUNS\n"
		"       wsx_chanbench wakestorm ITEMS RUNS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long a = 0, b = 0, runs, i;
	int failed = 0;

	if (argc < 4)
		bad_args();
	if (!strcmp(argv[1], "pingpong") && argc == 4) {
		a = bench_number(argv[2], 2, WSX_CHAN_COUNT_MAX, bad_args);
	} else if (!strcmp(argv[1], "pipeline") && argc == 5) {
		a = bench_number(argv[2], 1, 1000, bad_args);
		b = bench_number(argv[3], 1, WSX_CHAN_COUNT_MAX, bad_args);
	} else if (!strcmp(argv[1], "pingpong-op") && argc == 4) {
		a = bench_number(argv[2], 1, WSX_CHAN_COUNT_MAX, bad_args);
	} else if (!strcmp(argv[1], "pipeline-op") && argc == 5) {
		a = bench_number(argv[2], 1, WSX_PIPELINE_MAX_STAGES, bad_args);
		b = bench_number(argv[3], 1, WSX_CHAN_COUNT_MAX, bad_args);
	} else if (!strcmp(argv[1], "wakestorm") && argc == 4) {
		a = bench_number(argv[2], 1, 60000, bad_args);
	} else {
		bad_args();
	}
	runs = bench_number(argv[argc - 1], 1, 100, bad_args);
	cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i <= runs; i++) {
		struct result r;
		int ret;

		memset(&r, 0, sizeof(r));
		if (!strcmp(argv[1], "pingpong"))
			ret = pingpong(a, &r);
		else if (!strcmp(argv[1], "pingpong-op"))
			ret = one_op(WSX_OP_PINGPONG, a, 0, a, 2 * (__u64)a, &r);
		else if (!strcmp(argv[1], "pipeline-op"))
			ret = one_op(WSX_OP_PIPELINE, a, b, pipeline_sum(b), b,
				     &r);
		else if (!strcmp(argv[1], "wakestorm"))
			ret = wakestorm(a, &r);
		else
			ret = pipeline(a, b, &r);
		if (ret) {
			fprintf(stderr, "wsx_chanbench: %s run %lu failed\n",
				argv[1], i);
			return 1;
		}
		if (!r.ok)
			failed = 1;
		if (i)	/* run 0 warms up */
			print(argv[1], i - 1, &r);
		else if (!r.ok)
			fprintf(stderr, "wsx_chanbench: the warm-up's result is wrong\n");
	}
	return failed;
}
