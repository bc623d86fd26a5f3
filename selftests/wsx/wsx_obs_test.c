// SPDX-License-Identifier: GPL-2.0
/*
 * Observability: the schedtrace_ms log (and scheddetail), the tracepoints
 * against the stats counters, `wsxctl trace`'s JSON, the latency and steal
 * histograms, and `wsxctl top --once`.  Run with the module's defaults.
 * The tests that run wsxctl find it on PATH (/wsx/bin in the wsx VM) and
 * SKIP without it.  No timing is asserted.
 */
#include <ctype.h>
#include <limits.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define BIG	(1 << 22)

FIXTURE(obs) {
	int fd;
	int nprocs;
};

FIXTURE_SETUP(obs)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	self->nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, self->nprocs);
}

FIXTURE_TEARDOWN(obs)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The stats file; the counters read with wsx_test_stat*(). */
static char *stats_text(void)
{
	static char bufs[4][1 << 16];
	static int next;
	char *buf = bufs[next++ % 4];

	if (wsx_test_read_debugfs("stats", buf, sizeof(bufs[0])) <= 0)
		buf[0] = '\0';
	return buf;
}

/* Waits until the stats stop changing (the Ms parked); the last text. */
static char *settled_stats(void)
{
	char *prev = stats_text(), *cur;

	for (int i = 0; i < 100; i++) {
		sleep_ms(50);
		cur = stats_text();
		if (!strcmp(prev, cur))
			return cur;
		prev = cur;
	}
	return prev;
}

/* Was the module loaded with stats=0 (no counters, no histograms)? */
static bool stats_off(void)
{
	char v[16];

	return !wsx_test_param("stats", v, sizeof(v)) &&
	       (!strcmp(v, "0") || !strcmp(v, "N"));
}

/*
 * A load with steals, spills and parks: a 64-wide tree on P0 (its ring
 * overflows), 40 short SPIN items on P0 (thieves steal them) and a SPAWN
 * tree on the global queue.  Returns the items it ran, or -errno; the
 * SPIN items queued on P0 that ran on another CPU go to *@moved.
 */
static long run_load_moved(int fd, long *moved)
{
	struct wsx_completion recs[42];
	struct wsx_req reqs[42];
	long items = 0;
	int ret;

	reqs[0] = wsx_test_req(WSX_OP_SPAWN, 0, WSX_PLACE_P, 0, 64, 2, 0);
	reqs[1] = wsx_test_req(WSX_OP_SPAWN, 1, WSX_PLACE_GLOBAL, 0, 4, 4,
			       20000);
	for (int i = 2; i < 42; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, 0, 500000,
				       0, 0);
	ret = wsx_test_collect(fd, reqs, 42, recs);
	if (ret)
		return ret;
	*moved = 0;
	for (int i = 0; i < 42; i++) {
		if (recs[i].status)
			return -EBADMSG;
		items += i < 2 ? (long)recs[i].nodes : 1;
		*moved += i >= 2 && recs[i].cpu != 0;
	}
	return items;
}

static long run_load(int fd)
{
	long moved;

	return run_load_moved(fd, &moved);
}

/* ---- (a) schedtrace_ms and scheddetail -------------------------------- */

struct kmsg_lines {
	char **line;
	size_t n, cap;
};

/*
 * The text of the wsx module's /dev/kmsg records readable now (after
 * "prefix;", starting with its pr_fmt "wsx: "): the lines of others, a
 * KCSAN report on a debug kernel say, may come between them.
 */
static void kmsg_drain(int fd, struct kmsg_lines *out)
{
	char rec[8192];
	ssize_t n;

	for (;;) {
		char *text;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			return;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || strncmp(text + 1, "wsx: ", 5))
			continue;
		text[strcspn(text, "\n")] = '\0';
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 256;
			out->line = realloc(out->line,
					    out->cap * sizeof(*out->line));
			if (!out->line)
				return;
		}
		out->line[out->n++] = strdup(text + 1);
	}
}

static void kmsg_free(struct kmsg_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->line[i]);
	free(l->line);
	memset(l, 0, sizeof(*l));
}

/* The documented schedtrace line's head, without the "wsx: " prefix. */
struct schedline {
	unsigned long long ms;
	int nprocs, idleprocs, threads, spinning, idlethreads;
	long waiting, runqueue, depth_sum;
	int ndepths;
};

/* 1: a well-formed WSX line parsed; 0: not a WSX line; -1: malformed. */
static int parse_schedline(const char *s, struct schedline *sl)
{
	const char *p = strstr(s, "WSX ");
	char *end;
	int n = 0;

	if (!p)
		return 0;
	memset(sl, 0, sizeof(*sl));
	if (sscanf(p, "WSX %llums: nprocs=%d idleprocs=%d threads=%d "
		   "spinningthreads=%d idlethreads=%d waiting=%ld runqueue=%ld [%n",
		   &sl->ms, &sl->nprocs, &sl->idleprocs, &sl->threads,
		   &sl->spinning, &sl->idlethreads, &sl->waiting, &sl->runqueue,
		   &n) != 8 ||
	    !n)
		return -1;
	p += n;
	for (;;) {
		long d;

		if (*p == ']')
			return p[1] == '\0' ? 1 : -1;
		if (sl->ndepths && *p++ != ' ')
			return -1;
		if (!isdigit((unsigned char)*p))
			return -1;
		d = strtol(p, &end, 10);
		p = end;
		sl->depth_sum += d;
		sl->ndepths++;
	}
}

static int open_kmsg_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

TEST_F_TIMEOUT(obs, schedtrace_ms_logs_the_documented_line, 120)
{
	struct kmsg_lines log = { 0 };
	char old_ms[32], old_detail[32];
	long items;
	int kfd, lines = 0, detailed = 0;
	unsigned long long last_ms = 0;

	ASSERT_EQ(0, wsx_test_param("schedtrace_ms", old_ms, sizeof(old_ms)));
	ASSERT_EQ(0, wsx_test_param("scheddetail", old_detail,
				    sizeof(old_detail)));
	kfd = open_kmsg_at_end();
	if (kfd < 0)
		SKIP(return, "/dev/kmsg: %s", strerror(errno));

	/* the line alone */
	ASSERT_EQ(0, wsx_test_param_set("scheddetail", "0"));
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", "10"));
	items = run_load(self->fd);
	sleep_ms(30);
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", "0"));
	ASSERT_LT(0, items);
	sleep_ms(50);
	kmsg_drain(kfd, &log);
	for (size_t i = 0; i < log.n; i++) {
		struct schedline sl;
		int r = parse_schedline(log.line[i], &sl);

		if (!r)
			continue;
		ASSERT_EQ(1, r) {
			TH_LOG("malformed: %s", log.line[i]);
		}
		EXPECT_EQ(self->nprocs, sl.nprocs);
		EXPECT_EQ(sl.nprocs, sl.ndepths) {
			TH_LOG("%s", log.line[i]);
		}
		/* threads: the Ms, one per P or more (spare Ms) */
		EXPECT_LE(1, sl.threads);
		EXPECT_LE(0, sl.idleprocs);
		EXPECT_GE(sl.nprocs, sl.idleprocs);
		EXPECT_GE(sl.threads, sl.spinning);
		EXPECT_GE(sl.threads, sl.idlethreads);
		/* no op of this test parks an item, nor did a test before
		 * (a KUnit park test that timed out leaves its own)
		 */
		EXPECT_EQ(0, sl.waiting);
		EXPECT_GE(items, sl.depth_sum + sl.runqueue) {
			TH_LOG("more queued than submitted: %s", log.line[i]);
		}
		EXPECT_LE(last_ms, sl.ms);
		last_ms = sl.ms;
		lines++;
	}
	TH_LOG("%d schedtrace lines during a load of %ld items", lines,
	       items);
	EXPECT_LT(0, lines);
	kmsg_free(&log);

	/*
	 * with scheddetail=1: a line per node, whose Ps add up to nprocs,
	 * then nprocs P lines, then a line per M
	 */
	ASSERT_EQ(0, wsx_test_param_set("scheddetail", "1"));
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", "10"));
	items = run_load(self->fd);
	sleep_ms(30);
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", "0"));
	ASSERT_EQ(0, wsx_test_param_set("scheddetail", old_detail));
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", old_ms));
	ASSERT_LT(0, items);
	sleep_ms(50);
	kmsg_drain(kfd, &log);
	close(kfd);
	for (size_t i = 0; i < log.n; i++) {
		struct schedline sl;
		size_t j;
		int k;

		unsigned int node_ps = 0;

		if (parse_schedline(log.line[i], &sl) != 1)
			continue;
		for (j = i + 1; j < log.n && strstr(log.line[j], " node"); j++) {
			unsigned int node, ps, run, idle, off;
			int nid;

			ASSERT_EQ(6, sscanf(strstr(log.line[j], "node"),
					    "node%u: nid=%d ps=%u running=%u idle=%u offline=%u",
					    &node, &nid, &ps, &run, &idle, &off)) {
				TH_LOG("%s", log.line[j]);
			}
			EXPECT_EQ(ps, run + idle + off);
			node_ps += ps;
		}
		if (j + self->nprocs >= log.n)
			break;	/* the last one may be cut by the stop */
		ASSERT_EQ(self->nprocs, (int)node_ps) {
			TH_LOG("the node lines count %u Ps", node_ps);
		}
		for (k = 0; k < self->nprocs; k++, j++) {
			char want[32], status[16];
			unsigned int id, tick, m, rq;
			int next, timers;
			const char *p = strstr(log.line[j], "P");

			snprintf(want, sizeof(want), "P%d: ", k);
			ASSERT_NE(NULL, strstr(log.line[j], want)) {
				TH_LOG("line %zu after the WSX line: %s",
				       j - i, log.line[j]);
			}
			ASSERT_EQ(7, sscanf(p, "P%u: status=%15s schedtick=%u "
					    "m=%u runqsize=%u runnext=%d "
					    "timers=%d", &id, status, &tick,
					    &m, &rq, &next, &timers)) {
				TH_LOG("%s", log.line[j]);
			}
			EXPECT_TRUE(!strcmp(status, "idle") ||
				    !strcmp(status, "running") ||
				    !strcmp(status, "offline"));
			EXPECT_GE(items, rq);
		}
		/* then one line per M: "M<id>: p=<P or -1> spinning=<0|1>" */
		for (k = 0; j < log.n; k++, j++) {
			unsigned int id;
			int p, spinning;
			const char *s = strstr(log.line[j], "M");

			if (!s || s[1] < '0' || s[1] > '9' ||
			    !strstr(log.line[j], ": p="))
				break;
			ASSERT_EQ(3, sscanf(s, "M%u: p=%d spinning=%d", &id, &p,
					    &spinning)) {
				TH_LOG("%s", log.line[j]);
			}
			EXPECT_TRUE(p >= -1 && p < self->nprocs);
			EXPECT_TRUE(spinning == 0 || spinning == 1);
		}
		EXPECT_LE(1, k) {
			TH_LOG("no M line after the P lines");
		}
		if (k)
			detailed++;
	}
	TH_LOG("%d schedtrace lines with their P and M lines", detailed);
	EXPECT_LT(0, detailed);
	kmsg_free(&log);
}

/*
 * The last "parked:" line of scheddetail in @log: its counts, or false.
 */
static bool parked_line(const struct kmsg_lines *log, long *waiting,
			long *io_wait, long *chans)
{
	bool found = false;

	for (size_t i = 0; i < log->n; i++) {
		const char *p = strstr(log->line[i], "parked: ");

		if (p && sscanf(p, "parked: waiting=%ld io_wait=%ld chans=%ld",
				waiting, io_wait, chans) == 3)
			found = true;
	}
	return found;
}

/* Poll the stats' global @key until it is @want, for up to 5 s. */
static long long global_stat_becomes(const char *key, long long want)
{
	long long v = -1;

	for (int i = 0; i < 100; i++) {
		v = wsx_test_global_stat(key);
		if (v == want)
			break;
		sleep_ms(50);
	}
	return v;
}

#define OBS_CHANS	5
#define OBS_POLLS	3

/*
 * Go's waiting goroutines by reason: the stats' io_wait= counts the POLLs
 * waiting for their files and chans= the channels that exist, and
 * scheddetail's "parked:" line shows them with waiting=; a session with
 * 5 channels and 3 POLLs waiting on eventfds moves each by as much, and
 * its close() brings both back.
 */
TEST_F_TIMEOUT(obs, scheddetail_counts_parked_items_by_reason, 60)
{
	long long chans0, io0;
	long waiting = -1, io_wait = -1, chans = -1;
	struct kmsg_lines log = { 0 };
	char old_ms[32], old_detail[32];
	struct wsx_req reqs[OBS_POLLS];
	int efd[OBS_POLLS], fd, kfd;

	chans0 = wsx_test_global_stat("chans");
	io0 = wsx_test_global_stat("io_wait");
	if (chans0 < 0 || io0 < 0)
		SKIP(return, "no io_wait= or chans= in the stats' global line");
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	for (int i = 0; i < OBS_CHANS; i++) {
		struct wsx_chan_create cc = { .cap = i };

		ASSERT_EQ(0, wsx_test_ioctl(fd, WSX_IOC_CHAN_CREATE, &cc));
	}
	EXPECT_EQ(chans0 + OBS_CHANS, wsx_test_global_stat("chans"));
	for (int i = 0; i < OBS_POLLS; i++) {
		efd[i] = eventfd(0, EFD_CLOEXEC);
		ASSERT_LE(0, efd[i]);
		reqs[i] = wsx_test_req(WSX_OP_POLL, i, WSX_PLACE_LOCAL, 0,
				       efd[i], EPOLLIN, 0);
	}
	ASSERT_EQ(OBS_POLLS, wsx_test_submit(fd, reqs, OBS_POLLS, NULL));
	EXPECT_EQ(io0 + OBS_POLLS, global_stat_becomes("io_wait",
							io0 + OBS_POLLS));

	ASSERT_EQ(0, wsx_test_param("schedtrace_ms", old_ms, sizeof(old_ms)));
	ASSERT_EQ(0, wsx_test_param("scheddetail", old_detail,
				    sizeof(old_detail)));
	kfd = open_kmsg_at_end();
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, wsx_test_param_set("scheddetail", "1"));
	ASSERT_EQ(0, wsx_test_param_set("schedtrace_ms", "10"));
	/* until a parked line came, for up to 5 s (a loaded debug kernel) */
	for (int i = 0; i < 100 * wsx_test_scale() &&
			!parked_line(&log, &waiting, &io_wait, &chans); i++) {
		sleep_ms(50);
		kmsg_drain(kfd, &log);
	}
	wsx_test_param_set("schedtrace_ms", "0");
	wsx_test_param_set("scheddetail", old_detail);
	wsx_test_param_set("schedtrace_ms", old_ms);
	close(kfd);
	EXPECT_TRUE(parked_line(&log, &waiting, &io_wait, &chans));
	TH_LOG("parked: waiting=%ld io_wait=%ld chans=%ld", waiting, io_wait,
	       chans);
	EXPECT_LE(OBS_POLLS, waiting);
	EXPECT_EQ(io0 + OBS_POLLS, io_wait);
	EXPECT_EQ(chans0 + OBS_CHANS, chans);
	kmsg_free(&log);

	close(fd);	/* cancels the POLLs, frees the channels */
	EXPECT_EQ(io0, global_stat_becomes("io_wait", io0));
	EXPECT_EQ(chans0, global_stat_becomes("chans", chans0));
	for (int i = 0; i < OBS_POLLS; i++)
		close(efd[i]);
}

/* ---- (b) tracepoints against the counters ---------------------------- */

/* tracefs with wsx's events, or NULL */
static const char *tracefs_dir(void)
{
	return wsx_test_tracefs("events/wsx/enable");
}

/* The integer after " key=" on @line, or LLONG_MIN. */
static long long ev_field(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : LLONG_MIN;
}

/*
 * Where each item was last queued, by the value its events print for it
 * (item=%p, the same for one item within a boot), so that a start can be
 * matched with its item's queue event: open addressing, found or added.
 */
#define EV_ITEMS 16384

struct ev_item {
	unsigned long long key;
	int p;
	bool used;
};

static struct ev_item *ev_item_slot(struct ev_item *tab, const char *e)
{
	const char *at = strstr(e, " item=");
	unsigned long long key;
	size_t i;

	if (!at)
		return NULL;
	key = strtoull(at + 6, NULL, 16);
	for (i = (key * 0x9e3779b97f4a7c15ULL) >> 50; ; i = (i + 1) % EV_ITEMS) {
		if (!tab[i].used || tab[i].key == key) {
			tab[i].used = true;
			tab[i].key = key;
			return &tab[i];
		}
	}
}

/* The CPU a trace line was written on (its "[001]"), or -1. */
static int ev_cpu(const char *line, const char *event)
{
	const char *at;

	for (at = line; (at = strchr(at, '[')) && at < event; at++) {
		char *end;
		long cpu = strtol(at + 1, &end, 10);

		if (end > at + 1 && *end == ']')
			return (int)cpu;
	}
	return -1;
}

/* Events of the trace, counted and checked per type. */
struct ev_counts {
	long queue, start, end, steal, stolen_items, spill, spilled, park;
	long unpark, stolen_starts, global_starts, other;
	/* items queued on P0 that started on another P: stolen, or spilled */
	long p0_stolen, p0_spilled;
	long off_cpu;	/* starts written on another CPU than their P's */
	unsigned long long in_buffer, written;
};

/*
 * @cpu_is_p: P i is CPU i (every CPU online, as at the module's load: it
 * numbers its Ps after the online CPUs), so each start is written on the CPU
 * of its P, whose M is bound there.
 */
static void count_events(struct __test_metadata *_metadata, char *text,
			 int nprocs, bool cpu_is_p, struct ev_counts *c)
{
	struct ev_item *items = calloc(EV_ITEMS, sizeof(*items)), *it;
	char *line, *save;

	memset(c, 0, sizeof(*c));
	ASSERT_NE(NULL, items);
	wsx_test_trace_entries(text, &c->in_buffer, &c->written);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *e;
		long long p, m, from, stolen, v, thief, victim, count;

		if (line[0] == '#')
			continue;
		if ((e = strstr(line, ": wsx_item_queue: "))) {
			p = ev_field(e, "p");
			it = ev_item_slot(items, e);
			EXPECT_TRUE(it && p >= -1 && p < nprocs) {
				TH_LOG("%s", line);
			}
			if (it)
				it->p = p;
			c->queue++;
		} else if ((e = strstr(line, ": wsx_item_start: "))) {
			p = ev_field(e, "p");
			m = ev_field(e, "m");
			from = ev_field(e, "from");
			stolen = ev_field(e, "stolen");
			EXPECT_TRUE(strstr(e, " item=") && p >= 0 &&
				    p < nprocs && m >= 0 &&
				    from >= -1 && from < nprocs &&
				    (stolen == 0 || stolen == 1)) {
				TH_LOG("%s", line);
			}
			/* stolen: queued on a P, and another than this one */
			EXPECT_EQ(stolen == 1, from >= 0 && from != p) {
				TH_LOG("%s", line);
			}
			/* from: where its last queue event put it, or -1
			 * when it was moved to the global queue since
			 */
			it = ev_item_slot(items, e);
			EXPECT_TRUE(it && (from == it->p || from == -1)) {
				TH_LOG("queued on %d: %s", it ? it->p : -2,
				       line);
			}
			if (it && it->p == 0 && p != 0) {
				c->p0_stolen += stolen == 1;
				c->p0_spilled += from == -1;
			}
			if (cpu_is_p && ev_cpu(line, e) != p) {
				if (!c->off_cpu++)
					TH_LOG("on another CPU than its P's: %s",
					       line);
			}
			c->start++;
			c->stolen_starts += stolen == 1;
			c->global_starts += from == -1;
		} else if ((e = strstr(line, ": wsx_item_end: "))) {
			v = ev_field(e, "status");
			EXPECT_TRUE(strstr(e, " item=") && v == 0) {
				TH_LOG("%s", line);
			}
			c->end++;
		} else if ((e = strstr(line, ": wsx_steal: "))) {
			thief = ev_field(e, "thief");
			victim = ev_field(e, "victim");
			count = ev_field(e, "count");
			EXPECT_TRUE(thief >= 0 && thief < nprocs &&
				    victim >= 0 && victim < nprocs &&
				    thief != victim && count >= 1 &&
				    count <= 256) {
				TH_LOG("%s", line);
			}
			c->steal++;
			c->stolen_items += count;
		} else if ((e = strstr(line, ": wsx_spill: "))) {
			p = ev_field(e, "p");
			count = ev_field(e, "count");
			EXPECT_TRUE(p >= 0 && p < nprocs && count >= 2) {
				TH_LOG("%s", line);
			}
			c->spill++;
			c->spilled += count;
		} else if ((e = strstr(line, ": wsx_park: ")) ||
			   (e = strstr(line, ": wsx_unpark: "))) {
			m = ev_field(e, "m");
			EXPECT_TRUE(m >= 0) {
				TH_LOG("%s", line);
			}
			if (strstr(line, ": wsx_park: "))
				c->park++;
			else
				c->unpark++;
		} else if (strstr(line, ": wsx_")) {
			c->other++;	/* a newer event (wsx_handoff, ...) */
		}
	}
}

TEST_F_TIMEOUT(obs, tracepoints_agree_with_the_counters, 120)
{
	const char *dir = tracefs_dir();
	char *before, *after, *text, *old_kb;
	struct ev_counts c;
	long items, moved;
	int n = self->nprocs;
	bool cpu_is_p;

	if (!dir)
		SKIP(return, "no tracefs with events/wsx (mount tracefs)");
	if (stats_off())
		SKIP(return, "module loaded with stats=0: no counters");
	old_kb = wsx_test_tracefs_get(dir, "buffer_size_kb");
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "events/wsx/enable", "0"));
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "buffer_size_kb", "16384"));
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "trace", ""));
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "tracing_on", "1"));
	before = strdup(settled_stats());
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "events/wsx/enable", "1"));
	items = run_load_moved(self->fd, &moved);
	after = strdup(settled_stats());
	ASSERT_EQ(0, wsx_test_tracefs_set(dir, "events/wsx/enable", "0"));
	ASSERT_LT(0, items);
	text = wsx_test_tracefs_get(dir, "trace");
	ASSERT_NE(NULL, text);
	if (old_kb && isdigit((unsigned char)old_kb[0]) &&
	    !strchr(old_kb, '('))
		wsx_test_tracefs_set(dir, "buffer_size_kb", old_kb);
	free(old_kb);

	cpu_is_p = sysconf(_SC_NPROCESSORS_CONF) == n &&
		   sysconf(_SC_NPROCESSORS_ONLN) == n;
	if (!cpu_is_p)
		TH_LOG("not every CPU online: a start's CPU is not checked");
	count_events(_metadata, text, n, cpu_is_p, &c);
	free(text);
	TH_LOG("%ld items: %ld queue, %ld start (%ld stolen), %ld end, "
	       "%ld steal (%ld items), %ld spill (%ld items), %ld park, "
	       "%ld unpark, %ld other events", items, c.queue, c.start,
	       c.stolen_starts, c.end, c.steal, c.stolen_items, c.spill,
	       c.spilled, c.park, c.unpark, c.other);
	ASSERT_EQ(c.written, c.in_buffer) {
		TH_LOG("the trace buffer overflowed");
	}
#define DELTA(key) (wsx_test_stat_sum(after, n, key) - \
		    wsx_test_stat_sum(before, n, key))
	EXPECT_EQ(DELTA("executed"), c.start);
	EXPECT_EQ(DELTA("executed"), c.end);
	EXPECT_EQ(items, c.start);
	EXPECT_EQ(items, c.queue);
	EXPECT_EQ(DELTA("steals"), c.steal);
	EXPECT_EQ(DELTA("stolen"), c.stolen_items);
	EXPECT_EQ(DELTA("stolen_from"), c.stolen_items);
	EXPECT_EQ(DELTA("spills"), c.spill);
	EXPECT_EQ(DELTA("spilled"), c.spilled);
	EXPECT_EQ(DELTA("parks"), c.park);
#undef DELTA
	/*
	 * Against what the test itself saw and queued, not only the counters
	 * bumped beside the events: each of its SPIN items on P0 that its
	 * record says ran on another CPU started on another P, stolen from P0
	 * or spilled from it to the global queue (the global SPAWN tree's
	 * children, run on P0, fill its ring), and no start is stolen without
	 * a steal event that moved it; the starts of items queued on no P are
	 * its one root on the global queue and the items spilled there, each
	 * counted once (at least a spill's 129, at most the items the spills
	 * moved, some of them twice).
	 */
	TH_LOG("%ld of the 40 SPIN items on P0 ran elsewhere; %ld items queued on P0 started on another P (%ld stolen, %ld spilled); %ld starts from the global queue",
	       moved, c.p0_stolen + c.p0_spilled, c.p0_stolen, c.p0_spilled,
	       c.global_starts);
	EXPECT_LE(moved, c.p0_stolen + c.p0_spilled);
	/* so each record's CPU is the P that ran it */
	EXPECT_EQ(0, c.off_cpu);
	EXPECT_LE(c.stolen_starts, c.stolen_items);
	if (c.spill) {
		EXPECT_LE(1 + 129, c.global_starts);
		EXPECT_GE(1 + c.spilled, c.global_starts);
	}
	/* the load was built to make each kind happen */
	EXPECT_LT(0, c.spill);
	EXPECT_LT(0, c.park);
	if (n > 1)
		EXPECT_LT(0, c.steal);
	free(before);
	free(after);
}

/* ---- wsxctl on PATH --------------------------------------------------- */

static bool have_wsxctl(void)
{
	const char *path = getenv("PATH");
	char dir[4096], file[4200];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
		snprintf(file, sizeof(file), "%s/wsxctl", dir);
		if (len && !access(file, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* ---- (c) wsxctl trace: a tiny JSON parser ----------------------------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	char *str;		/* J_STR */
	struct jval *items;	/* J_ARR, J_OBJ (values) */
	char **keys;		/* J_OBJ */
	size_t n;
};

struct jparser {
	const char *s;
	int depth;
	bool err;
};

static void jskip(struct jparser *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' ||
	       *p->s == '\t')
		p->s++;
}

static bool jstring(struct jparser *p, char **out)
{
	size_t cap = 16, n = 0;
	char *buf;

	if (*p->s != '"')
		return false;
	p->s++;
	buf = malloc(cap);
	while (buf && *p->s != '"') {
		char ch = *p->s++;

		if ((unsigned char)ch < 0x20) {
			free(buf);
			return false;
		}
		if (ch == '\\') {
			ch = *p->s++;
			if (ch == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)*p->s++)) {
						free(buf);
						return false;
					}
				ch = '?';
			} else if (!strchr("\"\\/bfnrt", ch) || !ch) {
				free(buf);
				return false;
			}
		}
		if (n + 2 > cap)
			buf = realloc(buf, cap *= 2);
		if (buf)
			buf[n++] = ch;
	}
	if (!buf)
		return false;
	p->s++;
	buf[n] = '\0';
	*out = buf;
	return true;
}

static bool jvalue(struct jparser *p, struct jval *v);

static bool jappend(struct jval *v, struct jval *item, char *key)
{
	if (!(v->n & (v->n + 1)) || !v->n) {
		size_t cap = v->n ? 2 * (v->n + 1) : 4;

		v->items = realloc(v->items, cap * sizeof(*v->items));
		if (v->type == J_OBJ)
			v->keys = realloc(v->keys, cap * sizeof(*v->keys));
		if (!v->items || (v->type == J_OBJ && !v->keys))
			return false;
	}
	v->items[v->n] = *item;
	if (v->type == J_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return true;
}

static bool jcontainer(struct jparser *p, struct jval *v, char close)
{
	struct jval item;
	char *key = NULL;

	p->s++;
	if (++p->depth > 64)
		return false;
	jskip(p);
	if (*p->s == close) {
		p->s++;
		p->depth--;
		return true;
	}
	for (;;) {
		jskip(p);
		if (close == '}') {
			if (!jstring(p, &key))
				return false;
			jskip(p);
			if (*p->s++ != ':')
				return false;
		}
		if (!jvalue(p, &item) || !jappend(v, &item, key))
			return false;
		jskip(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s++ != close)
			return false;
		p->depth--;
		return true;
	}
}

static bool jvalue(struct jparser *p, struct jval *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	jskip(p);
	switch (*p->s) {
	case '{':
		v->type = J_OBJ;
		return jcontainer(p, v, '}');
	case '[':
		v->type = J_ARR;
		return jcontainer(p, v, ']');
	case '"':
		v->type = J_STR;
		return jstring(p, &v->str);
	case 't':
		v->type = J_BOOL;
		v->num = 1;
		return !strncmp(p->s, "true", 4) && (p->s += 4);
	case 'f':
		v->type = J_BOOL;
		return !strncmp(p->s, "false", 5) && (p->s += 5);
	case 'n':
		return !strncmp(p->s, "null", 4) && (p->s += 4);
	default:
		/* JSON numbers: no leading '+', no leading zeros, no hex */
		if (*p->s != '-' && !isdigit((unsigned char)*p->s))
			return false;
		if (p->s[*p->s == '-'] == '0' &&
		    isdigit((unsigned char)p->s[(*p->s == '-') + 1]))
			return false;
		if (!isdigit((unsigned char)p->s[*p->s == '-']))
			return false;
		v->type = J_NUM;
		v->num = strtod(p->s, &end);
		if (end == p->s || strchr("xXnNiI", *(end - 1)))
			return false;
		p->s = end;
		return true;
	}
}

/* Parses a whole document; false on any syntax error or trailing text. */
static bool jparse(const char *text, struct jval *root)
{
	struct jparser p = { text, 0, false };

	if (!jvalue(&p, root))
		return false;
	jskip(&p);
	return *p.s == '\0';
}

static const struct jval *jget(const struct jval *o, const char *key)
{
	if (!o || o->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

static const char *jstr(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	return v && v->type == J_STR ? v->str : NULL;
}

static double jnum(const struct jval *o, const char *key, double dflt)
{
	const struct jval *v = jget(o, key);

	return v && v->type == J_NUM ? v->num : dflt;
}

static void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

TEST_F_TIMEOUT(obs, wsxctl_trace_json_has_every_item_and_steal, 120)
{
	const char *json_path = "/tmp/wsx_obs_trace.json";
	const char *raw_path = "/tmp/wsx_obs_trace.txt";
	const char *svg_path = "/tmp/wsx_obs_trace.svg";
	char cmd[512], *json, *raw, *line, *save;
	long raw_starts = 0, raw_stolen = 0;
	size_t slices = 0, flows_s = 0, flows_f = 0, marks = 0;
	struct jval root;
	const struct jval *evs;
	int status;

	if (!have_wsxctl())
		SKIP(return, "wsxctl is not on PATH");
	if (!tracefs_dir())
		SKIP(return, "no tracefs with events/wsx (mount tracefs)");
	if (self->nprocs < 2)
		SKIP(return, "needs 2 Ps or more to steal");
	snprintf(cmd, sizeof(cmd), "wsxctl trace -o %s --svg %s --raw %s -- "
		 "wsxctl run spin 2000000 --count 20 --batch 20 "
		 "--place cpu:0 >/dev/null", json_path, svg_path, raw_path);
	status = system(cmd);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("%s: status %#x", cmd, status);
	}
	json = wsx_test_read_all(json_path, NULL);
	raw = wsx_test_read_all(raw_path, NULL);
	ASSERT_NE(NULL, json);
	ASSERT_NE(NULL, raw);
	ASSERT_TRUE(jparse(json, &root)) {
		TH_LOG("%s does not parse as JSON", json_path);
	}
	evs = jget(&root, "traceEvents");
	ASSERT_TRUE(evs && evs->type == J_ARR);

	/* the raw text: starts, and those with stolen=1 */
	for (line = strtok_r(raw, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, ": wsx_item_start: "))
			continue;
		raw_starts++;
		raw_stolen += ev_field(strstr(line, ": wsx_item_start"),
				       "stolen") == 1;
	}
	free(raw);

	/* every event has ph and pid; count the kinds */
	int nseq = (int)evs->n + 2;
	int *seen = calloc(nseq, sizeof(int));

	ASSERT_NE(NULL, seen);
	for (size_t i = 0; i < evs->n; i++) {
		const struct jval *e = &evs->items[i];
		const char *ph = jstr(e, "ph");

		ASSERT_TRUE(e->type == J_OBJ && ph && jget(e, "pid"));
		if (streq(ph, "X") && streq(jstr(e, "cat"), "item")) {
			const struct jval *args = jget(e, "args");
			double seq = jnum(args, "seq", -1);

			ASSERT_TRUE(seq >= 1 && seq < nseq);
			EXPECT_EQ(0, seen[(int)seq]++) {
				TH_LOG("item #%d has two slices", (int)seq);
			}
			EXPECT_LE(0, jnum(e, "dur", -1));
			EXPECT_NE(NULL, jstr(args, "item"));
			slices++;
		} else if (streq(ph, "X") && streq(jstr(e, "cat"), "queue")) {
			marks++;
		} else if (streq(ph, "s")) {
			flows_s++;
		} else if (streq(ph, "f")) {
			flows_f++;
		}
	}
	free(seen);
	TH_LOG("%zu item slices, %zu queue marks, %zu arrows; the raw trace "
	       "has %ld starts, %ld stolen", slices, marks, flows_s,
	       raw_starts, raw_stolen);
	EXPECT_EQ(20, slices);
	EXPECT_EQ(raw_starts, slices);
	EXPECT_EQ(20, marks);
	EXPECT_EQ(raw_stolen, flows_s);
	EXPECT_EQ(flows_s, flows_f);
	if (self->nprocs > 1)
		EXPECT_LT(0, flows_s);

	/*
	 * Each arrow: its s on the queue track of P q (tid 1001 + q) at that
	 * item's queue mark, its f at the start of a slice that ran on
	 * another P, was queued on q and is marked stolen.
	 */
	for (size_t i = 0; i < evs->n; i++) {
		const struct jval *s = &evs->items[i], *f = NULL, *slice = NULL;
		const struct jval *mark = NULL;
		double id, q;

		if (!streq(jstr(s, "ph"), "s"))
			continue;
		id = jnum(s, "id", -1);
		q = jnum(s, "tid", -1) - 1001;
		for (size_t j = 0; j < evs->n; j++) {
			const struct jval *e = &evs->items[j];
			const struct jval *args = jget(e, "args");

			if (streq(jstr(e, "ph"), "f") && jnum(e, "id", -2) == id) {
				EXPECT_EQ(NULL, f);
				f = e;
			}
			if (streq(jstr(e, "ph"), "X") &&
			    streq(jstr(e, "cat"), "item") &&
			    jnum(args, "seq", -1) == id)
				slice = e;
			if (streq(jstr(e, "ph"), "X") &&
			    streq(jstr(e, "cat"), "queue") &&
			    jnum(e, "tid", -1) == jnum(s, "tid", -2) &&
			    jnum(e, "ts", -1) == jnum(s, "ts", -2))
				mark = e;
		}
		ASSERT_NE(NULL, f);
		ASSERT_NE(NULL, slice);
		EXPECT_NE(NULL, mark) {
			TH_LOG("arrow %d leaves no queue mark", (int)id);
		}
		EXPECT_TRUE(q >= 0 && q < self->nprocs);
		EXPECT_EQ(jnum(slice, "tid", -1), jnum(f, "tid", -2));
		EXPECT_EQ(jnum(slice, "ts", -1), jnum(f, "ts", -2));
		EXPECT_EQ(q, jnum(jget(slice, "args"), "from", -2));
		EXPECT_NE(q, jnum(jget(slice, "args"), "p", -2));
		EXPECT_EQ(1, jnum(jget(slice, "args"), "stolen", -2));
		EXPECT_LE(jnum(s, "ts", 1e18), jnum(f, "ts", -1));
	}
	jfree(&root);
	free(json);

	json = wsx_test_read_all(svg_path, NULL);
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "<svg "));
	EXPECT_NE(NULL, strstr(json, "</svg>"));
	free(json);
}

/* ---- (d) histograms --------------------------------------------------- */

/* The latency histograms' total, each kind's count checked against it. */
static long long latency_total(struct __test_metadata *_metadata, char *lat)
{
	long long total = 0;
	char *line, *save;
	int kinds = 0;

	for (line = strtok_r(lat, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char kind[16], *p;
		long long count, sum = 0;
		int nb = 0, off = 0;

		EXPECT_EQ(2, sscanf(line, "%15s count=%lld%n", kind, &count,
				    &off)) {
			TH_LOG("%s", line);
			return -1;
		}
		for (p = line + off; *p; nb++) {
			char *end;

			sum += strtoll(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		EXPECT_EQ(64, nb) {
			TH_LOG("%s: %d buckets", kind, nb);
		}
		EXPECT_EQ(count, sum) {
			TH_LOG("%s", kind);
		}
		total += sum;
		kinds++;
	}
	EXPECT_EQ(4, kinds);
	return total;
}

/* latency_sample = @every from an idle executor on, the histograms zeroed. */
static void sample_from_zero(struct __test_metadata *_metadata,
			     const char *every)
{
	ASSERT_EQ(0, wsx_test_param_set("latency_sample", every));
	settled_stats();
	ASSERT_EQ(0, wsx_test_write_file(WSX_DEBUGFS_PATH "/reset", "1"));
}

/*
 * One item in latency_sample per CPU is timed: after a reset, a load of
 * @items queued from at most nprocs CPUs has items / every timed, give or
 * take one per CPU (each CPU's countdown starts anywhere).
 */
TEST_F_TIMEOUT(obs, latency_is_sampled_one_in_n, 120)
{
	static char lat[1 << 16];
	char old[32];
	long long timed, lo, hi;
	long items;

	if (stats_off())
		SKIP(return, "module loaded with stats=0: no histograms");
	ASSERT_EQ(0, wsx_test_param("latency_sample", old, sizeof(old)));
	sample_from_zero(_metadata, "16");
	items = run_load(self->fd);
	settled_stats();
	ASSERT_LT(0, wsx_test_read_debugfs("latency", lat, sizeof(lat)));
	timed = latency_total(_metadata, lat);
	/* nothing at all with 0 */
	sample_from_zero(_metadata, "0");
	EXPECT_LT(0, run_load(self->fd));
	settled_stats();
	ASSERT_LT(0, wsx_test_read_debugfs("latency", lat, sizeof(lat)));
	EXPECT_EQ(0, latency_total(_metadata, lat));
	ASSERT_EQ(0, wsx_test_param_set("latency_sample", old));
	ASSERT_LT(0, items);
	lo = items / 16 - self->nprocs - 1;
	hi = items / 16 + self->nprocs + 1;
	TH_LOG("%ld items, %lld timed (one in 16: %lld .. %lld)", items, timed,
	       lo, hi);
	EXPECT_LE(lo, timed);
	EXPECT_GE(hi, timed);
}

TEST_F_TIMEOUT(obs, histograms_add_up, 120)
{
	static char lat[1 << 16], steals[1 << 16];
	char *before, *after, *line, *save, old[32];
	long long executed, nsteals, lat_sum, size_sum = 0, matrix = 0;
	int rows = 0, n = self->nprocs;
	long items;

	if (stats_off())
		SKIP(return, "module loaded with stats=0: no histograms");
	/* every item timed, so that the histograms count every item */
	ASSERT_EQ(0, wsx_test_param("latency_sample", old, sizeof(old)));
	sample_from_zero(_metadata, "1");
	before = strdup(stats_text());
	EXPECT_EQ(0, wsx_test_stat_sum(before, n, "executed"));
	items = run_load(self->fd);
	after = strdup(settled_stats());
	ASSERT_EQ(0, wsx_test_param_set("latency_sample", old));
	ASSERT_LT(0, items);
	ASSERT_LT(0, wsx_test_read_debugfs("latency", lat, sizeof(lat)));
	ASSERT_LT(0, wsx_test_read_debugfs("steals", steals, sizeof(steals)));
	executed = wsx_test_stat_sum(after, n, "executed") -
		   wsx_test_stat_sum(before, n, "executed");
	nsteals = wsx_test_stat_sum(after, n, "steals");
	EXPECT_EQ(items, executed);

	lat_sum = latency_total(_metadata, lat);
	EXPECT_EQ(executed, lat_sum);

	for (line = strtok_r(steals, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p, *end;
		int nb = 0, thief;
		long long row = 0, v;

		if (!strncmp(line, "sizes ", 6)) {
			for (p = line + 6; (v = strtoll(p, &end, 10)), end != p;
			     p = end, nb++)
				size_sum += v;
			EXPECT_EQ(10, nb);
			continue;
		}
		ASSERT_EQ(1, sscanf(line, "P%d", &thief));
		EXPECT_EQ(rows, thief);
		p = strchr(line, ' ');
		ASSERT_NE(NULL, p);
		for (; (v = strtoll(p, &end, 10)), end != p; p = end, nb++) {
			if (nb == thief)
				EXPECT_EQ(0, v);	/* no self-steals */
			row += v;
		}
		EXPECT_EQ(n, nb);
		EXPECT_EQ(wsx_test_stat(after, thief, "steals"), row);
		matrix += row;
		rows++;
	}
	EXPECT_EQ(n, rows);
	TH_LOG("%lld items in the latency buckets, %lld steals", lat_sum,
	       nsteals);
	EXPECT_EQ(nsteals, size_sum);
	EXPECT_EQ(nsteals, matrix);
	free(before);
	free(after);
}

/* ---- (e) wsxctl top --once ------------------------------------------ */

static void check_top(struct __test_metadata *_metadata, const char *cmd,
		      int nprocs)
{
	char line[512];
	int rows = 0, global = 0, status;
	FILE *f = popen(cmd, "r");

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		char want[16];

		EXPECT_GE(80, len) {
			TH_LOG("too wide: %s", line);
		}
		EXPECT_EQ(NULL, strchr(line, '\033'));
		snprintf(want, sizeof(want), "P%d ", rows);
		if (line[0] == 'P' && isdigit((unsigned char)line[1])) {
			EXPECT_EQ(0, strncmp(line, want, strlen(want))) {
				TH_LOG("row %d: %s", rows, line);
			}
			EXPECT_NE(NULL, strchr(line, '['));
			rows++;
		}
		global += !strncmp(line, "global ", 7);
	}
	status = pclose(f);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(nprocs, rows);
	EXPECT_EQ(1, global);
}

/*
 * A spawn tree's items hand their job counts to one another through their
 * Ms' credit (kmod/job.c, "An M's credit"): the atomics on the job's word,
 * job_adds and job_returns, stay far below one per item, where each item
 * cost two before (an add at its spawn, a decrement at its end).  An M
 * that takes items from elsewhere (a steal, the global queue P0 spills
 * to) starts with no credit: an add per level below each item it took
 * that has children, and gives it back at each global tick and inbox
 * drain.  The bound, a quarter of the items and 16 per steal, is 1.6
 * times what a 4-vCPU guest took (2,531 adds, 193 returns, 25 steals); a
 * build whose spawns never spend the credit adds 16,382.
 */
TEST_F_TIMEOUT(obs, spawn_tree_items_seldom_touch_the_job_word, 120)
{
	struct wsx_completion rec;
	struct wsx_req req;
	long long items, adds, returns, steals;
	char *before, *after;

	if (stats_off())
		SKIP(return, "module loaded with stats=0: no counters");
	before = strdup(settled_stats());
	ASSERT_NE(NULL, before);
	ASSERT_LE(0, wsx_test_stat(before, 0, "job_adds")) {
		TH_LOG("no job_adds in the stats");
	}
	/* fanout 2, depth 13: 16,383 items, the root on P0 */
	req = wsx_test_req(WSX_OP_SPAWN, 0, WSX_PLACE_P, 0, 2, 13, 0);
	ASSERT_EQ(0, wsx_test_collect(self->fd, &req, 1, &rec));
	ASSERT_EQ(0, rec.status);
	ASSERT_EQ(16383, rec.nodes);
	after = strdup(settled_stats());
	ASSERT_NE(NULL, after);
#define DELTA(key) (wsx_test_stat_sum(after, self->nprocs, key) - \
		    wsx_test_stat_sum(before, self->nprocs, key))
	items = DELTA("executed");
	adds = DELTA("job_adds");
	returns = DELTA("job_returns");
	steals = DELTA("steals");
	TH_LOG("%lld items: %lld job_adds, %lld job_returns, %lld steals",
	       items, adds, returns, steals);
#undef DELTA
	EXPECT_EQ(16383, items);
	/* some credit was given back on a P: at least the tree's last */
	EXPECT_LE(1, returns);
	EXPECT_LT(adds + returns, items / 4 + 16 * steals);
	free(before);
	free(after);
}

TEST_F(obs, wsxctl_top_once_prints_a_row_per_p)
{
	if (!have_wsxctl())
		SKIP(return, "wsxctl is not on PATH");
	check_top(_metadata, "wsxctl top --once", self->nprocs);
	check_top(_metadata, "wsxctl top --once --interval 0", self->nprocs);
}

TEST_HARNESS_MAIN
