/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl top: a live view of the Ps, refreshed every second.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "top_frame.h"
#include "wsxctl.h"

const char top_help[] =
	"Usage: wsxctl top [--once] [--interval MS] [--frames N]\n"
	"\n"
	"Show the Ps of the executor, refreshed every --interval (default\n"
	"1000 ms), like top(1): one row per P with a bar of its queue depth\n"
	"(items in its inbox, runnext and ring), its depth, then per second:\n"
	"items/s (items it ran), steals/s (steals it made, as thief),\n"
	"stolen/s (items other Ps stole from it), and idle%; a row for the\n"
	"global queue (depth, puts/s, gets/s).  The bar's scale doubles\n"
	"until the deepest queue fits; the header gives it.  With Ps on more\n"
	"than one NUMA node, a row per node: its Ps, items/s, steals/s by the\n"
	"victim's distance (smt, cache, node, remote: cross-node) and its\n"
	"global queue's depth (\"-\" without per-node queues).\n"
	"\n"
	"idle% is the share of the interval during which the P's CPU was\n"
	"idle (idle + iowait of /proc/stat; P n is taken to run on CPU n, as\n"
	"when CPUs 0..nprocs-1 were online at load): the P's M parked and no\n"
	"other task ran there.  A spinning M counts as busy, and so does any\n"
	"other task on that CPU.  /proc/stat counts in clock ticks (often\n"
	"10 ms): short intervals give coarse values.  \"off\": the P's CPU is\n"
	"offline.  \"-\": unknown.\n"
	"\n"
	"Counters come from $WSX_DEBUGFS/stats (default " WSX_DEBUGFS_PATH
	"/stats,\n"
	"root only).  Press q to quit (or Ctrl-C).  Needs a terminal of at\n"
	"least 60 columns; plain ANSI escapes, no curses.\n"
	"\n"
	"Options:\n"
	"  -1, --once         print one frame without escape sequences and\n"
	"                     exit; no terminal needed.  Rates are taken over\n"
	"                     --interval, 200 ms by default; --interval 0\n"
	"                     prints the counters since load (or reset)\n"
	"                     instead of rates\n"
	"  -i, --interval MS  time between frames, 0..3600000 (live default\n"
	"                     1000, --once default 200; live needs >= 100)\n"
	"  -n, --frames N     live: quit after N frames (not with --once)\n"
	"  -h, --help         print this help\n";

static volatile sig_atomic_t quit_signal, winch;
static struct termios saved_tio;
static bool tio_saved;

static void on_quit(int sig)
{
	quit_signal = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * idle + iowait and all time of CPU n for P n, from /proc/stat (Ps are
 * made for the online CPUs in order at load time: P n is CPU n when CPUs
 * 0 .. nprocs-1 were online then).
 */
static void read_cpu_times(struct top_sample *s)
{
	unsigned long long v[10];
	char line[512];
	unsigned int cpu;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int n, i;
		uint64_t total = 0;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		memset(v, 0, sizeof(v));
		n = sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu "
			   "%llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
		if (n < 5 || cpu >= s->nprocs)
			continue;
		/* guest and guest_nice (v[8], v[9]) are in user and nice */
		for (i = 0; i < 8; i++)
			total += v[i];
		s->p[cpu].cpu_idle = v[3] + v[4];
		s->p[cpu].cpu_total = total;
		s->p[cpu].have_cpu = true;
	}
	fclose(f);
}

static void free_sample(struct top_sample *s)
{
	free(s->p);
	free(s->nodeq_depth);
	memset(s, 0, sizeof(*s));
}

/*
 * Each P's depth= and online= keys, which struct wsx_pstats does not hold;
 * a module without them leaves depth 0 and the P online.
 */
static void read_extra(const struct wsx_stats_kv *kv, struct top_sample *s)
{
	char tag[16];
	unsigned int i;
	__u64 v;

	for (i = 0; i < s->nprocs; i++) {
		snprintf(tag, sizeof(tag), "P%u", i);
		if (!wsx_stats_get(kv, tag, "depth", &v))
			s->p[i].depth = v;
		if (!wsx_stats_get(kv, tag, "online", &v))
			s->p[i].online = v != 0;
	}
}

static int take_sample(struct top_sample *s)
{
	struct wsx_stats st;
	struct wsx_stats_kv *kv;
	struct wsx_topo topo;
	unsigned int i;
	int ret;

	free_sample(s);
	/*
	 * libwsx reads the file, so that top explains a failure as stats
	 * does; the second read gives the keys the structs lack (depth=
	 * and online=, values of the moment rather than counters)
	 */
	ret = wsx_stats_read_topo(&st, &topo);
	if (ret)
		return ret;
	ret = wsx_stats_kv_read(&kv);
	if (ret) {
		wsx_stats_free(&st);
		wsx_topo_free(&topo);
		return ret;
	}
	s->p = calloc(st.nprocs ? st.nprocs : 1, sizeof(*s->p));
	s->nodeq_depth = calloc(topo.nnodeqs ? topo.nnodeqs : 1,
				sizeof(*s->nodeq_depth));
	if (!s->p || !s->nodeq_depth) {
		wsx_stats_kv_free(kv);
		free_sample(s);
		wsx_stats_free(&st);
		wsx_topo_free(&topo);
		return -ENOMEM;
	}
	s->nprocs = st.nprocs;
	s->nnodes = topo.nnodes;
	s->nnodeqs = topo.nnodeqs;
	for (i = 0; i < topo.nnodeqs; i++)
		s->nodeq_depth[i] = topo.nodeq[i].depth;
	for (i = 0; i < st.nprocs; i++) {
		struct top_p *p = &s->p[i];
		const struct wsx_pstats *q = &st.p[i];
		const struct wsx_ptopo *t = &topo.p[i];

		p->node = t->node;
		p->steals_at[TOP_SMT] = t->steals_smt;
		p->steals_at[TOP_CACHE] = t->steals_cache;
		p->steals_at[TOP_NODE] = t->steals_node;
		p->steals_at[TOP_REMOTE] = t->steals_remote;

		p->executed = q->executed;
		p->steals = q->steals;
		p->stolen_from = q->stolen_from;
		p->parks = q->parks;
		p->wakeups = q->wakeups;
		p->online = true;
	}
	s->gdepth = st.global.depth;
	s->gputs = st.global.puts;
	s->ggets = st.global.gets;
	wsx_stats_free(&st);
	wsx_topo_free(&topo);
	read_extra(kv, s);
	wsx_stats_kv_free(kv);
	read_cpu_times(s);
	s->t_ns = now_ns();
	return 0;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !quit_signal)
		;
}

static int top_once(uint64_t interval_ms)
{
	struct top_sample a = { 0 }, b = { 0 };
	struct top_opts o = { .width = 80 };
	int ret = take_sample(&a);

	if (ret)
		return report_debugfs("top: stats", ret);
	if (interval_ms) {
		sleep_ms(interval_ms);
		ret = take_sample(&b);
		if (ret) {
			free_sample(&a);
			return report_debugfs("top: stats", ret);
		}
		top_render(stdout, &a, &b, &o);
	} else {
		top_render(stdout, NULL, &a, &o);
	}
	free_sample(&a);
	free_sample(&b);
	return fflush(stdout) ? report("top: stdout", -errno) : EXIT_SUCCESS;
}

static void term_restore(void)
{
	if (!tio_saved)
		return;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	tio_saved = false;
	/* cursor back, leave the alternate screen */
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
}

static int term_raw(void)
{
	struct termios tio;

	if (tcgetattr(STDIN_FILENO, &saved_tio))
		return -errno;
	tio = saved_tio;
	/* keys one by one, no echo; ISIG stays: Ctrl-C is SIGINT */
	tio.c_lflag &= ~(ICANON | ECHO);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &tio))
		return -errno;
	tio_saved = true;
	atexit(term_restore);
	/* alternate screen, cursor hidden */
	fputs("\033[?1049h\033[?25l", stdout);
	return 0;
}

static void term_size(struct top_opts *o)
{
	struct winsize ws;

	o->width = 80;
	o->height = 24;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col &&
	    ws.ws_row) {
		o->width = ws.ws_col;
		o->height = ws.ws_row;
	}
}

/* Reads the pending keys; true if one asks to quit. */
static bool read_keys(void)
{
	char buf[64];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 'q' || buf[i] == 'Q')
			return true;
	return false;
}

static int top_live(uint64_t interval_ms, uint64_t frames)
{
	struct top_sample prev = { 0 }, cur = { 0 };
	struct top_opts o = { .ansi = true, .hint = "q: quit" };
	struct sigaction sa;
	uint64_t shown = 0, next;
	int ret, rc = EXIT_SUCCESS;
	bool quit = false;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fputs("wsxctl top: not a terminal; use --once\n", stderr);
		return EXIT_FAILURE;
	}
	ret = take_sample(&prev);
	if (ret)
		return report_debugfs("top: stats", ret);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	ret = term_raw();
	if (ret) {
		free_sample(&prev);
		return report("top: terminal", ret);
	}
	/* a first frame at once, with counters; then rates */
	term_size(&o);
	fputs("\033[H", stdout);
	top_render(stdout, NULL, &prev, &o);
	fputs("\033[J", stdout);
	fflush(stdout);
	next = now_ns() + interval_ms * 1000000ULL;
	while (!quit && !quit_signal && (!frames || shown < frames)) {
		uint64_t now = now_ns();
		struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
		int timeout = now >= next ? 0 : (int)((next - now) / 1000000);

		if (poll(&pfd, 1, timeout) > 0 && (pfd.revents & POLLIN))
			quit = read_keys();
		if (quit || quit_signal)
			break;
		if (now_ns() < next && !winch)
			continue;
		winch = 0;
		ret = take_sample(&cur);
		if (ret) {
			rc = report("top: stats", ret);
			break;
		}
		term_size(&o);
		fputs("\033[H", stdout);
		top_render(stdout, &prev, &cur, &o);
		fputs("\033[J", stdout);
		fflush(stdout);
		shown++;
		free_sample(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		next = now_ns() + interval_ms * 1000000ULL;
	}
	term_restore();
	free_sample(&prev);
	free_sample(&cur);
	if (quit_signal == SIGTERM || quit_signal == SIGHUP) {
		signal(quit_signal, SIG_DFL);
		raise(quit_signal);
	}
	return rc;
}

int cmd_top(const struct cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "interval", required_argument, NULL, 'i' },
		{ "frames", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t interval = 0, frames = 0;
	bool once = false, have_interval = false, have_frames = false;
	int c;

	while ((c = getopt_long(argc, argv, ":1i:n:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case '1':
			once = true;
			break;
		case 'i':
			if (parse_number(optarg, 3600000, &interval))
				return usage_error(cmd, "bad --interval '%s'",
						   optarg);
			have_interval = true;
			break;
		case 'n':
			if (parse_number(optarg, UINT32_MAX, &frames))
				return usage_error(cmd, "bad --frames '%s'",
						   optarg);
			have_frames = true;
			break;
		default:
			return common_option(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	if (once && have_frames)
		return usage_error(cmd, "--frames counts the live frames, "
				   "--once prints one: not both");
	if (once)
		return top_once(have_interval ? interval : 200);
	if (!have_interval)
		interval = 1000;
	if (interval < 100)
		return usage_error(cmd, "a live --interval must be >= 100 ms");
	return top_live(interval, frames);
}
