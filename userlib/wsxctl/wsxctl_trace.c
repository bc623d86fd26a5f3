/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl trace: record the wsx tracepoints through tracefs while a command
 * runs (or for some seconds) and write the timeline as Chrome/Perfetto
 * trace-event JSON and/or SVG.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracefs.h"
#include "wsxctl.h"
#include "wsxtrace.h"
#include "wsxwaste.h"

#define DEFAULT_BUFFER_KB	16384
#define DEFAULT_THRESHOLD_US	2000

const char trace_help[] =
	"Usage: wsxctl trace [-o FILE.json] [--svg FILE.svg] [--seconds N]\n"
	"                    [--threshold-us US] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Record the wsx tracepoints (tracefs system \"wsx\": wsx_item_queue,\n"
	"wsx_item_start, wsx_item_end, wsx_steal, wsx_spill, wsx_park,\n"
	"wsx_unpark, wsx_handoff, wsx_item_park, wsx_item_ready) while\n"
	"COMMAND runs, or for N seconds without one, then write the\n"
	"timeline.  The tracing directory is $WSX_TRACEFS,\n"
	"/sys/kernel/tracing or /sys/kernel/debug/tracing (root only).  For the\n"
	"recording the per-CPU buffer is enlarged (--buffer-kb), the trace\n"
	"clock set to \"mono\" (one clock for all CPUs) and the buffer cleared;\n"
	"the previous buffer size, clock and tracing_on are restored after.\n"
	"The kernel's sched:sched_switch event is recorded too, if it can be\n"
	"enabled (else one line says so), and left as it was after.\n"
	"\n"
	"The JSON (Chrome trace-event format; open it in ui.perfetto.dev or\n"
	"chrome://tracing) has one track per CPU, \"CPU <n> (P<p>)\", with a\n"
	"slice per item run (cat \"item\", from its start to its end event) and\n"
	"the M's parked periods; one track per P, \"P<p> queue\", with a mark\n"
	"per queue event; a flow arrow (cat \"steal\") from the queue mark to the\n"
	"slice of each item that ran on another P than it was queued on\n"
	"(stolen=1); steal and spill instants on the thief's CPU, handoff\n"
	"instants (cat \"handoff\": an M handed its P to another M, which\n"
	"then shares the CPU with it) on the CPU of the M; park instants\n"
	"(cat \"park\": an item's continuation parked, wsx_item_park) on\n"
	"the parker's CPU; a mark (cat \"ready\") per wsx_item_ready on\n"
	"the readier's CPU track, with a flow arrow (cat \"ready\") from it\n"
	"to the slice of the continuation's next run (its first start after\n"
	"the ready), as Go's execution tracer draws an unblock; a ready\n"
	"without a later start in the trace has no arrow; counters\n"
	"\"depth P<p>\" and \"depth global\", items by the queue they were\n"
	"queued on: +1 at a queue event, -1 at a start from that queue (from=),\n"
	"-count at a spill (moved to global); and \"runq P<p>\", \"runq global\",\n"
	"items by the run queue holding them now: as depth, but steals move\n"
	"count items from victim to thief and a start takes 1 from the P that\n"
	"runs it.  Counters never go below 0 (items queued before the trace).\n"
	"Timestamps are microseconds from the first event.\n"
	"\n"
	"The SVG shows the same timeline: one lane per CPU, items as boxes\n"
	"coloured by the P they were queued on, steal arrows, ready arrows\n"
	"(green, from the ready on the readier's lane to the start),\n"
	"handoffs as black marks, the runq depths and a time axis.\n"
	"\n"
	"The summary counts the events, the continuations parked and readied,\n"
	"how many readied ones started in the trace and how many of those on\n"
	"the readier's CPU (Go's runnext: the readier's P runs the readied item\n"
	"next).  It measures the wasted cores: \"idle P x ms while items\n"
	"waited\", the integral over the trace of min(I, W), I the Ps that have\n"
	"been idle (no item they started running) more than the threshold T, W\n"
	"the items that have waited (from their queue event to their start)\n"
	"more than T; as a share of the P-time (the Ps seen times the trace's\n"
	"span), the number of intervals in which it was above 0 and the\n"
	"longest, with the P idle longest and the item waiting longest as it\n"
	"ended.  The SVG marks those intervals in red.\n"
	"\n"
	"With sched_switch events in the trace (recorded, or in --input) a\n"
	"line splits the idle P time by what the P's CPU ran: \"nothing\n"
	"(idle)\" (swapper/N), \"Ms between items\" (wsx/N), \"other tasks\"\n"
	"(with the three longest), and \"unknown\" (before the CPU's first\n"
	"sched_switch) if any.  The time split is each P's idle periods longer\n"
	"than T, from T into the period to its end, while some item had\n"
	"waited more than T: the integral of I over the times W > 0, which\n"
	"exceeds the measure when fewer items waited than Ps idled.  A P's CPU\n"
	"is that of its latest wsx_item_start (its first, before any); a P\n"
	"that started no item is left out.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the JSON file ('-': standard output)\n"
	"  -s, --svg FILE      the SVG file ('-': standard output)\n"
	"  -t, --seconds N     without COMMAND: record N seconds (default 1)\n"
	"  -b, --buffer-kb N   per-CPU trace buffer in KiB (default 16384)\n"
	"      --raw FILE      also save the tracefs text as read\n"
	"  -i, --input FILE    record nothing: convert FILE, the text of a\n"
	"                      tracefs \"trace\" file saved before (no root;\n"
	"                      not with COMMAND, --seconds, --buffer-kb or\n"
	"                      --raw)\n"
	"      --title TEXT    the SVG's title\n"
	"  -T, --threshold-us US\n"
	"                      T, in microseconds (default 2000)\n"
	"  -h, --help          print this help\n"
	"\n"
	"A summary goes to standard error.  The exit status is 1 if COMMAND\n"
	"failed (the files are written all the same) or events were lost.\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

#define SCHED_SWITCH	"events/sched/sched_switch/enable"

struct saved {
	char clock[64];
	char buffer_kb[64];
	char tracing_on[16];
	char sched_switch[16];
	bool have_clock, have_kb, have_on, have_switch;
};

static void save_state(const char *dir, struct saved *s)
{
	s->have_clock = !tracefs_selected(dir, "trace_clock", s->clock,
					  sizeof(s->clock));
	s->have_kb = !tracefs_read_line(dir, "buffer_size_kb", s->buffer_kb,
					sizeof(s->buffer_kb));
	/* "7 (expanded: 1408)": not resized yet; leave it so */
	if (s->have_kb && strchr(s->buffer_kb, ' '))
		s->have_kb = false;
	s->have_on = !tracefs_read_line(dir, "tracing_on", s->tracing_on,
					sizeof(s->tracing_on));
	s->have_switch = !tracefs_read_line(dir, SCHED_SWITCH,
					    s->sched_switch,
					    sizeof(s->sched_switch)) &&
			 (!strcmp(s->sched_switch, "0") ||
			  !strcmp(s->sched_switch, "1"));
}

static void restore_state(const char *dir, const struct saved *s)
{
	if (s->have_kb)
		tracefs_write(dir, "buffer_size_kb", s->buffer_kb);
	if (s->have_clock)
		tracefs_write(dir, "trace_clock", s->clock);
	if (s->have_on)
		tracefs_write(dir, "tracing_on", s->tracing_on);
	if (s->have_switch)
		tracefs_write(dir, SCHED_SWITCH, s->sched_switch);
}

/*
 * sched:sched_switch too, for the split of the idle P time by what the
 * CPUs ran; without it, one line says so and the recording goes on.
 */
static void enable_sched_switch(const char *dir)
{
	int ret = tracefs_write(dir, SCHED_SWITCH, "1");

	if (ret)
		fprintf(stderr, "wsxctl trace: cannot enable sched:sched_switch "
			"(%s): no split of the idle P time by what the CPUs "
			"ran\n", strerror(-ret));
}

static int start_tracing(const char *dir, uint64_t buffer_kb)
{
	char kb[32];
	int ret;

	tracefs_write(dir, "events/wsx/enable", "0");
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)buffer_kb);
	ret = tracefs_write(dir, "buffer_size_kb", kb);
	if (ret)
		return report("trace: buffer_size_kb", ret);
	if (tracefs_write(dir, "trace_clock", "mono") &&
	    tracefs_write(dir, "trace_clock", "global"))
		fputs("wsxctl trace: cannot set trace_clock; CPU clocks may "
		      "disagree\n", stderr);
	ret = tracefs_write(dir, "trace", "");
	if (!ret)
		ret = tracefs_write(dir, "tracing_on", "1");
	if (ret)
		return report("trace: clear the buffer", ret);
	ret = tracefs_write(dir, "events/wsx/enable", "1");
	if (ret)
		return report("trace: enable events/wsx", ret);
	enable_sched_switch(dir);
	return 0;
}

/* Runs @argv to its end; its exit status (128 + signal), or -1. */
static int run_command(char **argv)
{
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		report("trace: fork", -errno);
		return -1;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "wsxctl trace: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	do {
		w = waitpid(pid, &status, 0);
	} while (w < 0 && errno == EINTR);
	if (w < 0) {
		report("trace: waitpid", -errno);
		return -1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void wait_seconds(uint64_t seconds)
{
	struct timespec ts = { (time_t)seconds, 0 };

	while (!interrupted && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static FILE *open_out(const char *path)
{
	return strcmp(path, "-") ? fopen(path, "w") : stdout;
}

static int close_out(FILE *f, const char *path, int ret)
{
	if (f != stdout) {
		if (fclose(f) && !ret)
			ret = -errno;
	} else if (fflush(f) && !ret) {
		ret = -errno;
	}
	if (ret) {
		fprintf(stderr, "wsxctl trace: writing %s: %s\n", path,
			strerror(-ret));
		return EXIT_FAILURE;
	}
	return 0;
}

static int write_outputs(const struct wt_trace *t, const struct wt_waste *w,
			 const char *json, const char *svg, const char *title)
{
	int rc = 0;
	FILE *f;

	if (json) {
		f = open_out(json);
		if (!f) {
			fprintf(stderr, "wsxctl trace: %s: %s\n", json,
				strerror(errno));
			return EXIT_FAILURE;
		}
		rc |= close_out(f, json, wt_write_json(f, t));
	}
	if (svg) {
		f = open_out(svg);
		if (!f) {
			fprintf(stderr, "wsxctl trace: %s: %s\n", svg,
				strerror(errno));
			return EXIT_FAILURE;
		}
		rc |= close_out(f, svg, wt_write_svg(f, t, w, title));
	}
	return rc;
}

/*
 * "idle P x ms while items waited (T = ...)", its share of the P-time, the
 * intervals and the longest, with the P and the item counted longest.
 */
static void print_waste(const struct wt_trace *t, const struct wt_waste *w)
{
	const struct wt_waste_span *sp;
	char where[32];

	fprintf(stderr, "wsxctl trace: idle P %.3f ms while items waited "
		"(T = %g ms): %.2f%% of the P-time (%d Ps x %.3f s), in %zu "
		"intervals", w->wasted_ns / 1e6, w->threshold_ns / 1e6,
		w->p_time_ns ? 100.0 * w->wasted_ns / w->p_time_ns : 0.0,
		t->nprocs, (t->t1 - t->t0) / 1e9, w->nspans);
	if (!w->nspans) {
		fputc('\n', stderr);
		return;
	}
	sp = &w->spans[w->longest];
	if (w->waiter->q_p < 0)
		snprintf(where, sizeof(where), "the global queue");
	else
		snprintf(where, sizeof(where), "P%d", w->waiter->q_p);
	fprintf(stderr, "; the longest %.3f ms, at %.3f s: P%d idle %.3f ms "
		"while item #%u, queued on %s, waited %.3f ms\n",
		(sp->end - sp->start) / 1e6, (sp->start - t->t0) / 1e9,
		w->idle_p, w->idle_ns / 1e6, w->waiter->seq, where,
		w->wait_ns / 1e6);
}

/*
 * With sched_switch events: the idle P time of the measure by what its
 * CPU ran, the other tasks that ran longest named.
 */
static void print_split(const struct wt_waste *w)
{
	size_t i;

	if (!w->split)
		return;
	fprintf(stderr, "wsxctl trace: the idle P time by what its CPU ran: "
		"nothing (idle) %.3f ms, Ms between items %.3f ms, other "
		"tasks %.3f ms", w->ran_ns[WT_RAN_IDLE] / 1e6,
		w->ran_ns[WT_RAN_M] / 1e6, w->ran_ns[WT_RAN_OTHER] / 1e6);
	for (i = 0; i < w->ntop; i++)
		fprintf(stderr, "%s%s %.3f ms", i ? ", " : " (",
			w->top[i].comm, w->top[i].ns / 1e6);
	if (w->ntop)
		fputc(')', stderr);
	if (w->ran_ns[WT_RAN_UNKNOWN])
		fprintf(stderr, ", unknown %.3f ms",
			w->ran_ns[WT_RAN_UNKNOWN] / 1e6);
	fputc('\n', stderr);
}

static int save_raw(const char *path, const char *text, size_t len)
{
	FILE *f = open_out(path);
	int ret = 0;

	if (!f) {
		fprintf(stderr, "wsxctl trace: %s: %s\n", path,
			strerror(errno));
		return EXIT_FAILURE;
	}
	if (fwrite(text, 1, len, f) != len)
		ret = -EIO;
	return close_out(f, path, ret);
}

/* The whole of @path ('-': standard input) into *@text; length or -1. */
static long read_input(const char *path, char **text)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, size = 1 << 16, n;
	char *p;

	if (!f) {
		fprintf(stderr, "wsxctl trace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	*text = malloc(size);
	while (*text) {
		if (size - len < 2) {
			p = realloc(*text, size * 2);
			if (!p) {
				free(*text);
				*text = NULL;
				break;
			}
			*text = p;
			size *= 2;
		}
		n = fread(*text + len, 1, size - len - 1, f);
		len += n;
		if (!n)
			break;
	}
	if (f != stdin)
		fclose(f);
	if (!*text) {
		report("trace: read the input", -ENOMEM);
		return -1;
	}
	(*text)[len] = '\0';
	return (long)len;
}

int cmd_trace(const struct cmd *cmd, int argc, char **argv)
{
	enum { OPT_RAW = 256, OPT_TITLE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ "input", required_argument, NULL, 'i' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "threshold-us", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *json = NULL, *svg = NULL, *raw = NULL, *title = NULL;
	const char *input = NULL;
	uint64_t seconds = 1, buffer_kb = DEFAULT_BUFFER_KB;
	uint64_t threshold_us = DEFAULT_THRESHOLD_US;
	bool have_seconds = false, have_buffer_kb = false;
	struct sigaction sa, old_int, old_term;
	char dir[512], *text = NULL;
	struct saved saved;
	struct wt_trace t;
	struct wt_waste w;
	int c, ret, status = 0, rc = EXIT_SUCCESS;
	long len;

	while ((c = getopt_long(argc, argv, "+:o:s:t:b:i:T:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			json = optarg;
			break;
		case 's':
			svg = optarg;
			break;
		case 't':
			if (parse_number(optarg, 86400, &seconds))
				return usage_error(cmd, "bad --seconds '%s'",
						   optarg);
			have_seconds = true;
			break;
		case 'b':
			if (parse_number(optarg, 1U << 22, &buffer_kb) ||
			    !buffer_kb)
				return usage_error(cmd, "bad --buffer-kb '%s'",
						   optarg);
			have_buffer_kb = true;
			break;
		case OPT_RAW:
			raw = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case OPT_TITLE:
			title = optarg;
			break;
		case 'T':
			if (parse_number(optarg, 3600000000ULL, &threshold_us))
				return usage_error(cmd, "bad --threshold-us '%s'",
						   optarg);
			break;
		default:
			return common_option(cmd, c, argv);
		}
	}
	if (!json && !svg && !raw)
		return usage_error(cmd, "give -o FILE.json and/or --svg FILE");
	if (optind < argc && have_seconds)
		return usage_error(cmd, "--seconds and a command exclude each "
				   "other");
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return usage_error(cmd, "put the command after '--'");

	if (input) {
		if (optind < argc || have_seconds || have_buffer_kb || raw)
			return usage_error(cmd, "--input records nothing: no "
					   "command, --seconds, --buffer-kb or --raw");
		len = read_input(input, &text);
		if (len < 0)
			return EXIT_FAILURE;
		goto convert;
	}
	ret = tracefs_find(dir, sizeof(dir));
	if (ret) {
		report("trace: no tracefs (mount -t tracefs tracefs "
		       "/sys/kernel/tracing)", ret);
		return EXIT_FAILURE;
	}
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/events/wsx/enable", dir);
		if (access(path, W_OK)) {
			ret = -errno;
			report("trace: events/wsx", ret);
			if (ret == -ENOENT)
				fputs("wsxctl: is the wsx module loaded?\n",
				      stderr);
			return EXIT_FAILURE;
		}
	}
	save_state(dir, &saved);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (start_tracing(dir, buffer_kb)) {
		tracefs_write(dir, "events/wsx/enable", "0");
		restore_state(dir, &saved);
		return EXIT_FAILURE;
	}
	if (optind < argc)
		status = run_command(argv + optind);
	else
		wait_seconds(seconds);
	tracefs_write(dir, "events/wsx/enable", "0");
	tracefs_write(dir, SCHED_SWITCH, "0");
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	len = tracefs_read(dir, "trace", &text);
	restore_state(dir, &saved);
	if (len < 0)
		return report("trace: read the trace", (int)len);
convert:
	if (raw)
		rc |= save_raw(raw, text, len);
	ret = wt_parse(text, &t);
	free(text);
	if (ret)
		return report("trace: parse", ret);
	ret = wt_waste(&t, threshold_us * 1000, &w);
	if (ret) {
		wt_free(&t);
		return report("trace: measure", ret);
	}
	rc |= write_outputs(&t, &w, json, svg, title);
	fprintf(stderr, "wsxctl trace: %zu events: %zu queued, %zu started "
		"(%zu stolen), %zu ended, %zu steals, %zu spills, %zu parks, "
		"%zu handoffs on %d CPUs\n", t.nev, t.count[WT_QUEUE],
		t.count[WT_START], t.stolen_starts, t.count[WT_END],
		t.count[WT_STEAL], t.count[WT_SPILL], t.count[WT_PARK],
		t.count[WT_HANDOFF], t.ncpus);
	if (t.count[WT_ITEM_PARK] || t.count[WT_ITEM_READY])
		fprintf(stderr, "wsxctl trace: %zu items parked, %zu readied, "
			"%zu of them started, %zu on the readier's CPU\n",
			t.count[WT_ITEM_PARK], t.count[WT_ITEM_READY],
			t.readied_starts, t.readied_here);
	print_waste(&t, &w);
	print_split(&w);
	wt_waste_free(&w);
	if (t.lost) {
		fprintf(stderr, "wsxctl trace: %llu events lost: the buffer "
			"was too small (--buffer-kb)\n",
			(unsigned long long)t.lost);
		rc = EXIT_FAILURE;
	}
	if (t.skipped)
		fprintf(stderr, "wsxctl trace: %zu wsx lines did not parse\n",
			t.skipped);
	wt_free(&t);
	if (status < 0)
		return EXIT_FAILURE;
	if (status) {
		fprintf(stderr, "wsxctl trace: %s exited with status %d\n",
			argv[optind], status);
		rc = EXIT_FAILURE;
	}
	return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
