/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl run: submit many items of one op and summarise how they ran.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"
#include "wsxctl.h"

#define DEFAULT_BATCH	256
#define MAX_BATCH	65536
#define MAX_COUNT	UINT32_MAX

const char run_help[] =
	"Usage: wsxctl run OP [ARGS] [OPTIONS]\n"
	"\n"
	"Submit --count items of one built-in op, wait for all of them and\n"
	"print a summary: items, wall time, items/s, the result (which must\n"
	"be the same for all items), status failures, and the items each P\n"
	"ran meanwhile, from the debugfs stats (including others' work).\n"
	"The items go through the rings the session shares with the module\n"
	"(one system call per batch), or with --ioctl through WSX_IOC_SUBMIT\n"
	"and WSX_IOC_WAIT.\n"
	"\n"
	"Ops:\n"
	"  nop                         do nothing\n"
	"  spin NS                     stay busy NS nanoseconds of elapsed\n"
	"                              time (at most the module's\n"
	"                              max_item_ns)\n"
	"  sleep US                    sleep US microseconds\n"
	"  spawn FANOUT DEPTH LEAF_NS  a tree of FANOUT children per node,\n"
	"                              DEPTH levels deep, leaves spinning\n"
	"                              LEAF_NS\n"
	"  fib N                       fork-join Fibonacci; the result is\n"
	"                              checked against fib(N)\n"
	"  send N                      each item sends N values on a channel\n"
	"                              (--chan) that one more RECV item of\n"
	"                              all values receives; its sum is checked\n"
	"  recv N                      each item receives N values from a\n"
	"                              channel (--chan) that one more SEND\n"
	"                              item fills; the results' sum is checked\n"
	"  poll N                      N eventfds and a POLL item waiting for\n"
	"                              each (--count more: item i waits for\n"
	"                              eventfd i mod N); once the items wait\n"
	"                              (schedtrace's waiting=), each eventfd\n"
	"                              is written once, in random order; the\n"
	"                              time from a write to its items' records\n"
	"                              is printed\n"
	"  pingpong N                  each item is Go's ping-pong inside the\n"
	"                              module: two items hand one value back\n"
	"                              and forth N round trips (2N handoffs)\n"
	"                              over channels of its own; the result\n"
	"                              is checked against N, and the ns per\n"
	"                              handoff printed\n"
	"  pipeline STAGES VALUES      each item is a pipeline inside the\n"
	"                              module: 1 .. VALUES sent through STAGES\n"
	"                              stage items to a sink; the result is\n"
	"                              checked against VALUES(VALUES + 1)/2,\n"
	"                              and the ns per value printed\n"
	"\n"
	"Options:\n"
	"  -n, --count N      items to submit (default 1; poll: N)\n"
	"  -p, --place WHERE  local: the P of the submitting CPU (default),\n"
	"                     global: the global queue,\n"
	"                     cpu:N: the P numbered N\n"
	"  -b, --batch N      items per submission, 1..65536 (default 256)\n"
	"  -d, --delay NS     queue each item NS nanoseconds after submission,\n"
	"                     0..10000000000 (10 s)\n"
	"      --ioctl        submit and wait with WSX_IOC_SUBMIT and\n"
	"                     WSX_IOC_WAIT instead of the shared rings\n"
	"      --pickup       rings in pick-up mode: the executor's threads\n"
	"                     take the items from the rings themselves (not\n"
	"                     with --ioctl; an error on a module without\n"
	"                     rings)\n"
	"  -c, --chan CAP     send and recv: the channel's buffer, in values\n"
	"                     (default 0: unbuffered; at most the module's\n"
	"                     max_chan_cap); --count x N values in all, at\n"
	"                     most 4294967295\n"
	"  -h, --help         print this help\n"
	"\n"
	"Each option may be given once.\n";

struct op_desc {
	const char *name;
	unsigned int nargs;
	const char *args;
	uint64_t arg_max[3];
};

static const struct op_desc ops[] = {
	[WSX_OP_NOP]	= { "nop", 0, "", { 0 } },
	[WSX_OP_SPIN]	= { "spin", 1, "NS", { UINT64_MAX } },
	[WSX_OP_SLEEP]	= { "sleep", 1, "US", { UINT64_MAX } },
	[WSX_OP_SPAWN]	= { "spawn", 3, "FANOUT DEPTH LEAF_NS",
			    { UINT_MAX, UINT_MAX, UINT64_MAX } },
	[WSX_OP_FIB]	= { "fib", 1, "N", { UINT_MAX } },
	[WSX_OP_SEND]	= { "send", 1, "N", { WSX_CHAN_COUNT_MAX } },
	[WSX_OP_RECV]	= { "recv", 1, "N", { WSX_CHAN_COUNT_MAX } },
	[WSX_OP_POLL]	= { "poll", 1, "N", { MAX_COUNT } },
	[WSX_OP_PINGPONG] = { "pingpong", 1, "N", { UINT64_MAX } },
	[WSX_OP_PIPELINE] = { "pipeline", 2, "STAGES VALUES",
			      { UINT_MAX, UINT64_MAX } },
};

/* SEND and RECV run with one more item, the other side, as item 0. */
static bool chan_op(enum wsx_op op)
{
	return op == WSX_OP_SEND || op == WSX_OP_RECV;
}

/* PINGPONG and PIPELINE: one request runs many items over its channels. */
static bool shape_op(enum wsx_op op)
{
	return op == WSX_OP_PINGPONG || op == WSX_OP_PIPELINE;
}

/* poll: the eventfds, and what the run saw of them. */
struct run_poll {
	int *efds;		/* N of them, item i waits for efds[i % N] */
	uint64_t *written_ns;	/* when each was written */
	uint64_t *wake_ns;	/* per record of status 0: write to finish */
	uint64_t wakes;
	uint64_t write_errors;
	int trace_err;		/* reading schedtrace failed: -errno */
	bool trace_counted;	/* the line had waiting= */
	unsigned long long waiting, threads;	/* its last values */
	uint64_t waited_ns;	/* from all in to the writes */
};

struct run {
	/* what to submit */
	enum wsx_op op;
	uint64_t args[3];
	enum wsx_place place;
	unsigned int target;
	uint64_t delay_ns;
	uint64_t count;
	bool count_given;
	unsigned int batch;
	bool ioctl;
	bool pickup;
	bool chan_given;
	unsigned int cap;	/* send, recv: the channel's buffer */
	unsigned int chan;	/* ... its id */
	/* what came back */
	unsigned char *seen;	/* bitmap of reaped user_data */
	uint64_t bogus;		/* records with unknown or repeated user_data */
	uint64_t failures;
	int first_status;
	bool have_result;
	uint64_t result;	/* of the first successful item */
	uint64_t differ;	/* successful items with another result */
	uint64_t nodes;
	uint64_t sum;		/* send, recv: of the successful items */
	bool other_seen;	/* the other side's record (item 0) */
	struct wsx_completion other;
	struct run_poll poll;
	/* pingpong, pipeline: their records' start to finish, status 0 */
	uint64_t timed, timed_ns, timed_min_ns;
};

/* 0 + 1 + ... + (n - 1), modulo 2^64: the values the channel carries. */
static uint64_t values_sum(uint64_t n)
{
	uint64_t a = n, b = n ? n - 1 : 0;

	if (a % 2 == 0)
		a /= 2;
	else
		b /= 2;
	return a * b;
}

/*
 * SEND and RECV: item 0 is the other side, submitted first (in the rings
 * a CQ's worth of items in flight must not wait for one not submitted
 * yet), items 1 .. count the ones asked for; the values are 0 ..
 * count x N - 1, item i sending or receiving N of them.
 */
static void fill_chan_item(struct wsx_req *item, uint64_t index,
			   const struct run *r)
{
	uint64_t n = r->args[0], total = r->count * n;

	if (r->op == WSX_OP_SEND) {
		if (index)
			wsx_item_send(item, r->chan, (index - 1) * n, n, index);
		else
			wsx_item_recv(item, r->chan, total, 0, 0, 0);
	} else {
		if (index)
			wsx_item_recv(item, r->chan, n, 0, 0, index);
		else
			wsx_item_send(item, r->chan, 0, total, 0);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * poll: the eventfds (@n of them) and the arrays the run fills; 0 or
 * -errno, what is made so far freed by poll_free().
 */
static int poll_setup(struct run_poll *p, uint64_t n, uint64_t count)
{
	uint64_t i;

	if (count > SIZE_MAX / sizeof(*p->wake_ns))	/* n <= count */
		return -ENOMEM;
	p->efds = calloc(n, sizeof(*p->efds));
	p->written_ns = calloc(n, sizeof(*p->written_ns));
	p->wake_ns = calloc(count, sizeof(*p->wake_ns));
	if (!p->efds || !p->written_ns || !p->wake_ns)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p->efds[i] = -1;
	for (i = 0; i < n; i++) {
		p->efds[i] = eventfd(0, EFD_CLOEXEC);
		if (p->efds[i] < 0)
			return -errno;
	}
	return 0;
}

static void poll_free(struct run_poll *p, uint64_t n)
{
	for (uint64_t i = 0; p->efds && i < n && p->efds[i] >= 0; i++)
		close(p->efds[i]);
	free(p->efds);
	free(p->written_ns);
	free(p->wake_ns);
}

/* A record of status 0 of an item that waited for eventfd @efd. */
static void poll_record(struct run_poll *p, const struct wsx_completion *rec,
			uint64_t efd)
{
	uint64_t w = p->written_ns[efd];

	/* a record without times (0) or before the write: 0 */
	p->wake_ns[p->wakes++] = rec->finished_ns > w && w ?
				 rec->finished_ns - w : 0;
}

/* The value of schedtrace's " KEY=" in @line into @v; false if none. */
static bool schedtrace_value(const char *line, const char *key,
			     unsigned long long *v)
{
	char pat[32];
	const char *s;

	snprintf(pat, sizeof(pat), " %s=", key);
	s = strstr(line, pat);
	return s && sscanf(s + strlen(pat), "%llu", v) == 1;
}

/* How long poll's writes wait for the items to park, after any --delay. */
#define POLL_PARK_NS	1000000000ULL

/*
 * poll, all items in: wait (at most --delay and POLL_PARK_NS) until
 * schedtrace's waiting= counts them all, then write each eventfd once, in
 * random order.  waiting= counts the parked items of every session, so it
 * may count others' too; the writes go ahead when it cannot be read.
 */
static void poll_all_in(void *ctx)
{
	struct run *r = ctx;
	struct run_poll *p = &r->poll;
	const struct timespec ms = { .tv_nsec = 1000000 };
	uint64_t n = r->args[0], start = now_ns(), x = start | 1, one = 1;
	uint64_t *order, i, j, k;
	char line[4096];
	int ret;

	for (;;) {
		ret = wsx_schedtrace_read(line, sizeof(line));
		if (ret < 0) {
			p->trace_err = ret;
			break;
		}
		p->trace_counted = schedtrace_value(line, "waiting",
						    &p->waiting);
		schedtrace_value(line, "threads", &p->threads);
		if ((p->trace_counted && p->waiting >= r->count) ||
		    now_ns() - start >= r->delay_ns + POLL_PARK_NS)
			break;
		nanosleep(&ms, NULL);
	}
	p->waited_ns = now_ns() - start;
	order = calloc(n, sizeof(*order));
	for (i = 0; order && i < n; i++)
		order[i] = i;
	/* a random order: Fisher-Yates over a xorshift (in order if no room) */
	for (i = n - 1; order && i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		k = order[i];
		order[i] = order[j];
		order[j] = k;
	}
	for (i = 0; i < n; i++) {
		k = order ? order[i] : i;
		p->written_ns[k] = now_ns();
		if (write(p->efds[k], &one, sizeof(one)) != sizeof(one))
			p->write_errors++;
	}
	free(order);
}

static void fill_run_item(struct wsx_req *item, uint64_t index, void *ctx)
{
	const struct run *r = ctx;

	if (chan_op(r->op)) {
		fill_chan_item(item, index, r);
		wsx_item_place(item, r->place, r->target);
		wsx_item_delay(item, r->delay_ns);
		return;
	}
	switch (r->op) {
	case WSX_OP_POLL:
		wsx_item_poll(item, r->poll.efds[index % r->args[0]], POLLIN, 0,
			      index);
		/* the times of its record, to time the wake (rings only) */
		if (!r->ioctl)
			item->flags |= WSX_REQ_TIMESTAMPS;
		break;
	case WSX_OP_PINGPONG:
	case WSX_OP_PIPELINE:
		if (r->op == WSX_OP_PINGPONG)
			wsx_item_pingpong(item, r->args[0], index);
		else
			wsx_item_pipeline(item, r->args[0], r->args[1], index);
		/* the times of its record, for the ns per handoff (rings) */
		if (!r->ioctl)
			item->flags |= WSX_REQ_TIMESTAMPS;
		break;
	case WSX_OP_SPIN:
		wsx_item_spin(item, r->args[0], index);
		break;
	case WSX_OP_SLEEP:
		wsx_item_sleep(item, r->args[0], index);
		break;
	case WSX_OP_SPAWN:
		wsx_item_spawn(item, r->args[0], r->args[1], r->args[2],
			       index);
		break;
	case WSX_OP_FIB:
		wsx_item_fib(item, r->args[0], index);
		break;
	default:
		wsx_item_nop(item, index);
		break;
	}
	wsx_item_place(item, r->place, r->target);
	wsx_item_delay(item, r->delay_ns);
}

/* Items of the run, the other side of send and recv included. */
static uint64_t run_total(const struct run *r)
{
	return r->count + chan_op(r->op);
}

/* Marks @user_data reaped; false if it is unknown or was reaped before. */
static bool mark_seen(struct run *r, uint64_t user_data)
{
	unsigned char bit = 1U << (user_data % 8);

	if (user_data >= run_total(r) || r->seen[user_data / 8] & bit)
		return false;
	r->seen[user_data / 8] |= bit;
	return true;
}

/* pingpong, pipeline: a record of status 0 that took @ns in the module. */
static void shape_record(struct run *r, uint64_t ns)
{
	if (!r->timed++ || ns < r->timed_min_ns)
		r->timed_min_ns = ns;
	r->timed_ns += ns;
}

static void complete_run_item(const struct wsx_completion *rec, void *ctx)
{
	struct run *r = ctx;

	if (!mark_seen(r, rec->user_data)) {
		r->bogus++;
		return;
	}
	if (chan_op(r->op) && !rec->user_data) {
		r->other = *rec;
		r->other_seen = true;
		return;
	}
	r->nodes += rec->nodes;
	if (!rec->status)
		r->sum += rec->result;
	if (r->op == WSX_OP_POLL && !rec->status)
		poll_record(&r->poll, rec, rec->user_data % r->args[0]);
	if (shape_op(r->op) && !rec->status &&
	    rec->finished_ns > rec->started_ns && rec->started_ns)
		shape_record(r, rec->finished_ns - rec->started_ns);
	if (rec->status) {
		if (!r->failures++)
			r->first_status = rec->status;
	} else if (!r->have_result) {
		r->have_result = true;
		r->result = rec->result;
	} else if (rec->result != r->result) {
		r->differ++;
	}
}

static int parse_place(struct run *r, const char *s)
{
	uint64_t p;

	if (!strcmp(s, "local")) {
		r->place = WSX_PLACE_LOCAL;
	} else if (!strcmp(s, "global")) {
		r->place = WSX_PLACE_GLOBAL;
	} else if (!strncmp(s, "cpu:", 4) &&
		   !parse_number(s + 4, UINT32_MAX, &p)) {
		r->place = WSX_PLACE_P;
		r->target = p;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int parse_run_options(const struct cmd *cmd, struct run *r, int argc,
			     char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "place", required_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "delay", required_argument, NULL, 'd' },
		{ "ioctl", no_argument, NULL, 'I' },
		{ "pickup", no_argument, NULL, 'P' },
		{ "chan", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int given = 0, i;
	uint64_t batch, cap;
	int c;

	while ((c = getopt_long(argc, argv, ":n:p:b:d:c:h", longopts,
				NULL)) != -1) {
		/* a second value would silently override the first */
		for (i = 0; longopts[i].name && longopts[i].val != c; i++)
			;
		if (longopts[i].name && given & 1U << i)
			return usage_error(cmd, "--%s given twice",
					   longopts[i].name);
		given |= 1U << i;
		switch (c) {
		case 'n':
			if (parse_number(optarg, MAX_COUNT, &r->count) ||
			    !r->count)
				return usage_error(cmd, "bad --count '%s'",
						   optarg);
			r->count_given = true;
			break;
		case 'p':
			if (parse_place(r, optarg))
				return usage_error(cmd, "bad --place '%s'",
						   optarg);
			break;
		case 'b':
			if (parse_number(optarg, MAX_BATCH, &batch) || !batch)
				return usage_error(cmd, "bad --batch '%s'",
						   optarg);
			r->batch = batch;
			break;
		case 'd':
			if (parse_number(optarg, WSX_DELAY_MAX_NS, &r->delay_ns))
				return usage_error(cmd, "bad --delay '%s': ns 0..%llu (10 s)",
						   optarg, WSX_DELAY_MAX_NS);
			break;
		case 'I':
			r->ioctl = true;
			break;
		case 'P':
			r->pickup = true;
			break;
		case 'c':
			if (parse_number(optarg, UINT32_MAX, &cap))
				return usage_error(cmd, "bad --chan '%s': values 0..%u",
						   optarg, UINT32_MAX);
			r->cap = cap;
			r->chan_given = true;
			break;
		default:
			return common_option(cmd, c, argv);
		}
	}
	if (r->ioctl && r->pickup)
		return usage_error(cmd, "--pickup is a mode of the rings, "
				   "--ioctl submits without them: not both");
	return -1;
}

static int parse_op(const struct cmd *cmd, struct run *r, int argc,
		    char **argv)
{
	const struct op_desc *d;
	unsigned int i;

	if (argc < 1)
		return usage_error(cmd, "no OP given");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].name && !strcmp(argv[0], ops[i].name))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return usage_error(cmd, "unknown OP '%s'", argv[0]);
	d = &ops[i];
	r->op = i;
	if ((unsigned int)argc - 1 != d->nargs)
		return usage_error(cmd, "usage: %s %s", d->name, d->args);
	for (i = 0; i < d->nargs; i++)
		if (parse_number(argv[i + 1], d->arg_max[i], &r->args[i]))
			return usage_error(cmd, "bad %s argument '%s'",
					   d->name, argv[i + 1]);
	if (r->chan_given && !chan_op(r->op))
		return usage_error(cmd, "--chan is for send and recv");
	if (chan_op(r->op) && !r->args[0])
		return usage_error(cmd, "bad %s argument '0': values 1..%llu",
				   d->name, WSX_CHAN_COUNT_MAX);
	if (chan_op(r->op) && r->args[0] > WSX_CHAN_COUNT_MAX / r->count)
		return usage_error(cmd, "--count x N is over %llu values, the most one item of the other side takes",
				   WSX_CHAN_COUNT_MAX);
	if (r->op == WSX_OP_POLL && !r->args[0])
		return usage_error(cmd, "bad poll argument '0': eventfds 1..%u",
				   MAX_COUNT);
	if (r->op == WSX_OP_PINGPONG && !r->args[0])
		return usage_error(cmd, "bad pingpong argument '0': round trips 1..%llu",
				   WSX_CHAN_COUNT_MAX);
	if (r->op == WSX_OP_PIPELINE && !r->args[0])
		return usage_error(cmd, "bad pipeline STAGES '0': stages 1..%u",
				   WSX_PIPELINE_MAX_STAGES);
	if (r->op == WSX_OP_PIPELINE && !r->args[1])
		return usage_error(cmd, "bad pipeline VALUES '0': values 1..%llu",
				   WSX_CHAN_COUNT_MAX);
	if (r->op == WSX_OP_POLL && !r->count_given)
		r->count = r->args[0];
	if (r->op == WSX_OP_POLL && r->count < r->args[0])
		return usage_error(cmd, "poll %llu: --count %llu leaves eventfds no item waits for",
				   (unsigned long long)r->args[0],
				   (unsigned long long)r->count);
	return -1;
}

/* fib(n), or false when the module would refuse @n anyway. */
static bool expected_fib(uint64_t n, uint64_t *fib)
{
	uint64_t a = 0, b = 1, t;

	if (n > WSX_FIB_MAX)
		return false;
	while (n--) {
		t = a + b;
		a = b;
		b = t;
	}
	*fib = a;
	return true;
}

/*
 * send and recv: the results' sum (recv) and the other side's record,
 * which must account for every value; false if they do not.
 */
static bool print_chan_result(const struct run *r)
{
	uint64_t total = r->count * r->args[0], want = values_sum(total);
	const struct wsx_completion *o = &r->other;
	bool ok = true;

	if (r->op == WSX_OP_RECV) {
		printf("sum:         %llu over the items' results",
		       (unsigned long long)r->sum);
		if (!r->failures && r->sum != want) {
			printf(", WRONG: 0 + 1 + ... + %llu = %llu",
			       (unsigned long long)total - 1,
			       (unsigned long long)want);
			ok = false;
		}
		putchar('\n');
	}
	if (!r->other_seen) {
		puts("other side:  no record");
		return false;
	}
	printf("other side:  one %s of %llu values, result %llu, status %d",
	       r->op == WSX_OP_SEND ? "RECV" : "SEND",
	       (unsigned long long)total, (unsigned long long)o->result,
	       o->status);
	want = r->op == WSX_OP_SEND ? want : total;
	if (!o->status && o->result != want) {
		printf(", WRONG: %llu expected", (unsigned long long)want);
		ok = false;
	}
	putchar('\n');
	return ok && !o->status;
}

/* 1 + 2 + ... + @n modulo 2^64: a pipeline's result (0 + ... + n). */
static uint64_t pipeline_sum(uint64_t n)
{
	return values_sum(n + 1);
}

/*
 * pingpong and pipeline: what each item moved (the handoffs of a
 * ping-pong, the values of a pipeline) and the ns per one of them, over
 * the wall time (all items) and in the module (each record's start to
 * finish: the mean and the fastest).
 */
static void print_shape_result(const struct run *r, double secs)
{
	bool pp = r->op == WSX_OP_PINGPONG;
	uint64_t per = pp ? 2 * r->args[0] : r->args[1];
	double total = (double)per * r->count;

	if (pp)
		printf("handoffs:    %llu per item (2 per round trip), %.0f in all: %.1f ns per handoff over the wall time\n",
		       (unsigned long long)per, total,
		       total > 0 ? secs * 1e9 / total : 0);
	else
		printf("values:      %llu per item through %llu stages (%llu handoffs each), %.0f in all: %.1f ns per value over the wall time\n",
		       (unsigned long long)per,
		       (unsigned long long)r->args[0],
		       (unsigned long long)r->args[0] + 1, total,
		       total > 0 ? secs * 1e9 / total : 0);
	if (!r->timed) {
		puts("in module:   unknown, no record of status 0 with its times");
		return;
	}
	printf("in module:   %.1f ns per %s, an item's start to finish (mean of %llu; the fastest %.1f ns)\n",
	       (double)r->timed_ns / r->timed / per, pp ? "handoff" : "value",
	       (unsigned long long)r->timed, (double)r->timed_min_ns / per);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * poll: how the items waited and woke: the eventfds, schedtrace's count
 * of parked items before the writes, and the time from each write to the
 * records of the items that waited for it.  False if a write failed.
 */
static bool print_poll_result(struct run *r)
{
	struct run_poll *p = &r->poll;
	char buf[ERRNO_NAME_MAX];
	uint64_t n = p->wakes;

	printf("eventfds:    %llu, each written once in random order, after the items waited",
	       (unsigned long long)r->args[0]);
	if (p->write_errors)
		printf(", %llu writes FAILED",
		       (unsigned long long)p->write_errors);
	putchar('\n');
	if (p->trace_err)
		printf("waiting:     unknown, schedtrace unreadable: %s (%s); written at once\n",
		       strerror(-p->trace_err), errno_name(p->trace_err, buf));
	else if (!p->trace_counted)
		puts("waiting:     unknown, no waiting= in schedtrace");
	else
		printf("waiting:     %s of the %llu items parked after %.3f ms (schedtrace waiting=%llu threads=%llu)\n",
		       p->waiting >= r->count ? "all" : "not all",
		       (unsigned long long)r->count, p->waited_ns / 1e6,
		       p->waiting, p->threads);
	if (!n) {
		puts("wake:        no record of status 0");
		return !p->write_errors;
	}
	qsort(p->wake_ns, n, sizeof(*p->wake_ns), cmp_u64);
	printf("wake:        %.1f us median from a write to a record of its items (min %.1f, p99 %.1f, max %.1f us; %llu records)\n",
	       p->wake_ns[n / 2] / 1e3, p->wake_ns[0] / 1e3,
	       p->wake_ns[n - 1 - n / 100] / 1e3, p->wake_ns[n - 1] / 1e3,
	       (unsigned long long)n);
	return !p->write_errors;
}

/* Prints the result line; false if the results are wrong. */
static bool print_result(const struct run *r)
{
	uint64_t want;

	if (r->op == WSX_OP_RECV)	/* results differ: their sum counts */
		return print_chan_result(r);

	if (!r->have_result) {
		puts("result:      none, no item succeeded");
		return true;
	}
	printf("result:      %llu", (unsigned long long)r->result);
	if (r->differ)
		printf(" in the first item, but %llu items differ",
		       (unsigned long long)r->differ);
	else
		fputs(" (all equal)", stdout);
	if (r->op == WSX_OP_FIB && expected_fib(r->args[0], &want) &&
	    want != r->result) {
		printf(", WRONG: fib(%llu) = %llu\n",
		       (unsigned long long)r->args[0],
		       (unsigned long long)want);
		return false;
	}
	if (r->op == WSX_OP_SEND && r->result != r->args[0]) {
		printf(", WRONG: each sends %llu\n",
		       (unsigned long long)r->args[0]);
		return false;
	}
	if (r->op == WSX_OP_POLL && r->result != POLLIN) {
		printf(", WRONG: revents POLLIN (%d) expected\n", POLLIN);
		return false;
	}
	if (r->op == WSX_OP_PINGPONG && r->result != r->args[0]) {
		printf(", WRONG: %llu round trips expected\n",
		       (unsigned long long)r->args[0]);
		return false;
	}
	if (r->op == WSX_OP_PIPELINE && r->result != pipeline_sum(r->args[1])) {
		printf(", WRONG: 1 + 2 + ... + %llu = %llu\n",
		       (unsigned long long)r->args[1],
		       (unsigned long long)pipeline_sum(r->args[1]));
		return false;
	}
	putchar('\n');
	if (r->op == WSX_OP_SEND)
		return print_chan_result(r) && !r->differ;
	return !r->differ;
}

static void print_executed(const struct wsx_stats *before,
			   const struct wsx_stats *after)
{
	unsigned int i;

	if (before->nprocs != after->nprocs) {
		puts("executed:    skipped, the number of Ps changed");
		return;
	}
	puts("items that ended on each P (delta of debugfs executed=):");
	for (i = 0; i < after->nprocs; i++)
		printf("  P%-4u %llu\n", i, (unsigned long long)
		       (after->p[i].executed - before->p[i].executed));
}

#define PARAMETERS_PATH	"/sys/module/wsx/parameters"

/* A module parameter's number at @path into @v; false when unreadable. */
static bool read_param(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

/*
 * The end of a line naming the module parameter @name: its value (from
 * $WSX_PARAMETERS, default PARAMETERS_PATH), followed by @unit, and how
 * to raise it to @want.
 */
static void explain_param(const char *name, const char *unit, uint64_t want)
{
	const char *dir = secure_getenv("WSX_PARAMETERS");
	char path[PATH_MAX];
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/%s",
		 dir && *dir ? dir : PARAMETERS_PATH, name);
	fprintf(stderr, " the module parameter %s", name);
	if (read_param(path, &v))
		fprintf(stderr, " (%llu%s)", v, unit);
	else
		fprintf(stderr, " (%s unreadable)", path);
	fprintf(stderr, "; raise it as root: echo %llu > %s (or load the module with %s=%llu)\n",
		(unsigned long long)want, path, name, (unsigned long long)want);
}

/* explain_param() of max_item_ns, for @want ns. */
static void explain_max_item_ns(uint64_t want)
{
	explain_param("max_item_ns", " ns", want);
}

/*
 * poll: all its items wait at once.  After a run that failed or ended
 * items with -EAGAIN: which limit they met, and how to raise it.
 */
static void explain_poll(const struct run *r, const struct job *job)
{
	uint64_t n = r->count, cq = 1;

	while (cq < n)		/* the CQ's entries: a power of two */
		cq <<= 1;
	if (job->err == -EAGAIN) {
		fprintf(stderr, "wsxctl run: poll: %llu items wait at once, more than the module lets a session have in flight:",
			(unsigned long long)n);
		explain_param("max_inflight_fd", "", n);
	} else if (job->ring_err == -E2BIG || job->err == -EBUSY) {
		fprintf(stderr, "wsxctl run: poll: %llu items wait at once, with a CQ entry each (or use --ioctl), %llu entries: over",
			(unsigned long long)n, (unsigned long long)cq);
		explain_param("ring_max_entries", "", cq);
	} else if (r->failures && r->first_status == -EAGAIN) {
		fputs("wsxctl run: poll: items ended with EAGAIN, which waited while the session had as many waiting as",
		      stderr);
		explain_param("max_parked", "", n);
	}
}

/* After an item refused with E2BIG: which limit of @r's OP it is over. */
static void explain_e2big(const struct run *r)
{
	switch (r->op) {
	case WSX_OP_SPIN:
		fprintf(stderr, "wsxctl run: spin %llu ns is over",
			(unsigned long long)r->args[0]);
		explain_max_item_ns(r->args[0]);
		break;
	case WSX_OP_SLEEP:
		fprintf(stderr, "wsxctl run: sleep is at most %u us (1 s)\n",
			WSX_SLEEP_MAX_US);
		break;
	case WSX_OP_FIB:
		fprintf(stderr, "wsxctl run: fib's n is at most %u\n",
			WSX_FIB_MAX);
		break;
	case WSX_OP_SPAWN:
		fprintf(stderr, "wsxctl run: a spawn tree has at most %u nodes, and LEAF_NS is at most",
			WSX_SPAWN_MAX_NODES);
		explain_max_item_ns(r->args[2]);
		break;
	case WSX_OP_SEND:
	case WSX_OP_RECV:
		fprintf(stderr, "wsxctl run: --chan %u is over the module parameter max_chan_cap\n",
			r->cap);
		break;
	case WSX_OP_PINGPONG:
		fprintf(stderr, "wsxctl run: pingpong's N is at most %llu round trips\n",
			WSX_CHAN_COUNT_MAX);
		break;
	case WSX_OP_PIPELINE:
		fprintf(stderr, "wsxctl run: a pipeline has at most %u STAGES and %llu VALUES\n",
			WSX_PIPELINE_MAX_STAGES, WSX_CHAN_COUNT_MAX);
		break;
	default:
		break;
	}
}

/*
 * pingpong and pipeline: their items wait for each other.  After items
 * ended with -EAGAIN: the limit they met, and how to raise it.
 */
static void explain_shape(const struct run *r)
{
	uint64_t items = r->op == WSX_OP_PINGPONG ? 2 : r->args[0] + 2;

	if (!r->failures || r->first_status != -EAGAIN)
		return;
	fprintf(stderr, "wsxctl run: %s: items ended with EAGAIN: one of the %llu items each runs had to wait while the session had as many waiting as",
		ops[r->op].name, (unsigned long long)items);
	explain_param("max_parked", "",
		      r->count > UINT64_MAX / items ? UINT64_MAX :
		      r->count * items);
}

/* Prints the summary; false if something went wrong. */
static bool print_summary(struct run *r, const struct job *job)
{
	double secs = job->elapsed_ns / 1e9;
	char buf[ERRNO_NAME_MAX];
	bool ok;

	printf("items:       %llu\n", (unsigned long long)r->count);
	printf("wall time:   %.6f s\n", secs);
	printf("rate:        %.0f items/s\n", secs > 0 ? r->count / secs : 0);
	printf("nodes:       %llu (%.0f/s)\n", (unsigned long long)r->nodes,
	       secs > 0 ? r->nodes / secs : 0);
	ok = print_result(r);
	if (r->op == WSX_OP_POLL)
		ok = print_poll_result(r) && ok;
	/* the ns per handoff or value of a run whose items all ran through */
	if (shape_op(r->op) && !r->failures)
		print_shape_result(r, secs);
	printf("failures:    %llu", (unsigned long long)r->failures);
	if (r->failures)
		printf(", the first: %s (%s)", strerror(-r->first_status),
		       errno_name(r->first_status, buf));
	putchar('\n');
	if (r->failures && r->first_status == -E2BIG)
		explain_e2big(r);
	if (r->op == WSX_OP_POLL)
		explain_poll(r, job);
	if (shape_op(r->op))
		explain_shape(r);
	if (r->bogus)
		printf("bogus:       %llu records with unknown or repeated "
		       "user_data\n", (unsigned long long)r->bogus);
	return ok && !r->failures && !r->bogus;
}

/*
 * The module must know @r's op, @name, which ABI 1.@minor added: 0, or
 * EXIT_FAILURE once reported.
 */
static int need_op(const struct run *r, struct wsx *w, const char *name,
		   unsigned int minor)
{
	struct wsx_version v;
	int ret = wsx_version(w, &v);

	if (ret)
		return report("version", ret);
	if (v.abi_minor >= minor)
		return 0;
	fprintf(stderr, "wsxctl: %s needs the op %s, which the module (ABI %u.%u, before 1.%u) has not\n",
		ops[r->op].name, name, v.abi_major, v.abi_minor, minor);
	return EXIT_FAILURE;
}

/*
 * poll: the module must know POLL (ABI 1.3); then the eventfds.  0, or
 * EXIT_FAILURE once reported.
 */
static int poll_open(struct run *r, struct wsx *w)
{
	int ret = need_op(r, w, "POLL", 3);

	if (ret)
		return ret;
	ret = poll_setup(&r->poll, r->args[0], r->count);
	if (!ret)
		return 0;
	report("eventfd", ret);
	if (ret == -EMFILE)
		fprintf(stderr, "wsxctl run: poll %llu needs as many descriptors: raise the limit of open files (ulimit -n %llu)\n",
			(unsigned long long)r->args[0],
			(unsigned long long)r->args[0] + 64);
	return EXIT_FAILURE;
}

static int run_items(struct run *r)
{
	struct wsx_stats before = { 0 }, after = { 0 };
	struct job job = {
		.count = run_total(r), .batch = r->batch, .ioctl = r->ioctl,
		.pickup = r->pickup, .ctx = r,
		.fill = fill_run_item, .complete = complete_run_item,
	};
	int ret, stats_err;

	if (open_device(&job.w))
		return EXIT_FAILURE;
	if (chan_op(r->op)) {
		ret = wsx_chan_create(job.w, r->cap, &r->chan);
		if (ret) {
			report("channel", ret);
			if (ret == -E2BIG)
				explain_e2big(r);
			else if (ret == -ENOTTY)
				fputs("wsxctl: send and recv need channels, which the module (ABI before 1.2) has not\n",
				      stderr);
			wsx_close(job.w);
			return EXIT_FAILURE;
		}
	}
	if (r->op == WSX_OP_POLL) {
		if (poll_open(r, job.w)) {
			wsx_close(job.w);
			return EXIT_FAILURE;
		}
		job.all_in = poll_all_in;
	}
	if (shape_op(r->op) &&
	    need_op(r, job.w, r->op == WSX_OP_PINGPONG ? "PINGPONG" :
		    "PIPELINE", 4)) {
		wsx_close(job.w);
		return EXIT_FAILURE;
	}
	stats_err = wsx_stats_read(&before);
	ret = run_job(&job);
	wsx_close(job.w);
	if (job.err == -E2BIG)
		explain_e2big(r);
	if (ret && r->op == WSX_OP_POLL)
		explain_poll(r, &job);
	if (ret)
		goto out;
	if (!stats_err)
		stats_err = wsx_stats_read(&after);
	ret = print_summary(r, &job) ? EXIT_SUCCESS : EXIT_FAILURE;
	if (!stats_err)
		print_executed(&before, &after);
	else
		report("items that ended on each P: skipped, stats unreadable",
		       stats_err);
	wsx_stats_free(&after);
out:
	wsx_stats_free(&before);
	return ret;
}

int cmd_run(const struct cmd *cmd, int argc, char **argv)
{
	struct run r = { .count = 1, .batch = DEFAULT_BATCH };
	int ret;

	ret = parse_run_options(cmd, &r, argc, argv);
	if (ret < 0)
		ret = parse_op(cmd, &r, argc - optind, argv + optind);
	if (ret >= 0)
		return ret;
	r.seen = calloc(run_total(&r) / 8 + 1, 1);
	if (!r.seen)
		return report("run", -ENOMEM);
	ret = run_items(&r);
	if (r.op == WSX_OP_POLL)
		poll_free(&r.poll, r.args[0]);
	free(r.seen);
	return ret;
}
