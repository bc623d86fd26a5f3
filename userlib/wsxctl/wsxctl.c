/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl: command line front end of libwsx.  main(), the small commands
 * and the helpers the commands share.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errname.h"
#include "stats_hist.h"
#include "wsxctl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char exit_status_help[] =
	"\nExit status: 0 success, 1 runtime failure, 2 usage error.\n";

int report(const char *what, int err)
{
	char buf[ERRNO_NAME_MAX];

	fprintf(stderr, "wsxctl: %s: %s (%s)\n", what, strerror(abs(err)),
		errno_name(err, buf));
	return EXIT_FAILURE;
}

/* The kernel's lockdown mode, the one in brackets of its securityfs file. */
static const char *lockdown_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");
	char *open, *close = NULL;

	if (f) {
		if (fgets(buf, len, f)) {
			open = strchr(buf, '[');
			close = open ? strchr(open, ']') : NULL;
			if (close) {
				*close = '\0';
				memmove(buf, open + 1, close - open);
			}
		}
		fclose(f);
	}
	return close ? buf : "unknown";
}

int report_debugfs(const char *what, int err)
{
	char mode[128];

	report(what, err);
	switch (err) {
	case -ENOMEDIUM:
		fputs("wsxctl: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug\n",
		      stderr);
		break;
	case -EPERM:
		fprintf(stderr, "wsxctl: the kernel's lockdown mode '%s' forbids reading debugfs\n",
			lockdown_mode(mode, sizeof(mode)));
		break;
	case -EACCES:
		fputs("wsxctl: debugfs is readable by root only\n", stderr);
		break;
	case -ENOENT:
		fputs("wsxctl: is the wsx module loaded? (modprobe wsx)\n",
		      stderr);
		break;
	case -EPROTO:
		fprintf(stderr, "wsxctl: the %s file's format version (its first line) is not %d, the one this libwsx reads: install the libwsx of the module\n",
			what, WSX_STATS_VERSION);
		break;
	}
	return EXIT_FAILURE;
}

int usage_error(const struct cmd *cmd, const char *fmt, ...)
{
	const char *name = cmd ? cmd->name : NULL;
	va_list ap;

	fprintf(stderr, "wsxctl%s%s: ", name ? " " : "", name ? name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'wsxctl%s%s --help'.\n", name ? " " : "",
		name ? name : "");
	return EXIT_USAGE;
}

static int print_help(const char *help)
{
	fputs(help, stdout);
	fputs(exit_status_help, stdout);
	return EXIT_SUCCESS;
}

int common_option(const struct cmd *cmd, int c, char **argv)
{
	if (c == 'h')
		return print_help(cmd->help);
	if (c == ':')
		return usage_error(cmd, "option '%s' needs a value",
				   argv[optind - 1]);
	if (optopt)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int parse_number(const char *s, uint64_t max, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

int open_device(struct wsx **w)
{
	int ret = wsx_open(w, 0);

	if (!ret)
		return 0;
	report("open device", ret);
	if (ret == -ENOENT)
		fputs("wsxctl: is the wsx module loaded?\n", stderr);
	else if (ret == -EPROTO)
		fprintf(stderr, "wsxctl: the module's ABI major is not %d\n",
			WSX_ABI_MAJOR);
	return EXIT_FAILURE;
}

/* getopt_long() loop of the commands that only take --help. */
static int parse_help_only(const struct cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c = getopt_long(argc, argv, ":h", longopts, NULL);

	if (c != -1)
		return common_option(cmd, c, argv);
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	return -1;
}

static const char version_help[] =
	"Usage: wsxctl version\n"
	"\n"
	"Print the versions of wsxctl and of the ABI it was built for, then\n"
	"the ABI version and limits the running module reports.\n";

static int cmd_version(const struct cmd *cmd, int argc, char **argv)
{
	struct wsx_version v;
	struct wsx *w;
	int ret = parse_help_only(cmd, argc, argv);

	if (ret >= 0)
		return ret;
	printf("wsxctl:      %s\n", WSXCTL_VERSION);
	printf("header ABI:  %d.%d\n", WSX_ABI_MAJOR, WSX_ABI_MINOR);
	if (open_device(&w))
		return EXIT_FAILURE;
	ret = wsx_version(w, &v);
	wsx_close(w);
	if (ret)
		return report("version", ret);
	printf("module ABI:  %u.%u\n", v.abi_major, v.abi_minor);
	printf("nprocs:      %u\n", v.nprocs);
	printf("submit_max:  %u\n", v.submit_max);
	printf("wait_max:    %u\n", v.wait_max);
	return EXIT_SUCCESS;
}

static const char stats_help[] =
	"Usage: wsxctl stats [--json]\n"
	"\n"
	"Print every counter of the module's scheduler statistics from\n"
	"debugfs ($WSX_DEBUGFS/stats, default " WSX_DEBUGFS_PATH "/stats;\n"
	"usually root only): each line of the file, the version line, one\n"
	"per P, one per node queue, the global line and one per submitting\n"
	"user, with all their keys, or with --json one JSON object\n"
	"{\"nprocs\", \"p\": [...], \"nodes\": [...] (when per-node queues),\n"
	"\"users\": [...], \"global\": {...}, \"wsx_stats\": {\"version\"},\n"
	"\"<tag>\": {...} for any other line},\n"
	"with the histograms of $WSX_DEBUGFS/latency and steals when\n"
	"readable:\n"
	"\"latency\": {\"<kind>\": {\"count\", \"buckets\": [64]}} (bucket b:\n"
	"2^(b-1) <= ns < 2^b, b0: 0 ns), \"steal_sizes\": {\"count\",\n"
	"\"buckets\": [10]} (bucket b: 2^b <= items taken < 2^(b+1)) and\n"
	"\"steals_from\": [[...]] (steals by thief P, then victim P).\n"
	"\n"
	"Options:\n"
	"  -j, --json  print JSON\n"
	"  -h, --help  print this help\n";

static int cmd_stats(const struct cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct wsx_stats_kv *kv;
	bool json = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		if (c != 'j')
			return common_option(cmd, c, argv);
		json = true;
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	ret = wsx_stats_kv_read(&kv);
	if (ret)
		return report_debugfs("stats", ret);
	if (json) {
		struct wsx_hist h;
		bool have_hist = !wsx_hist_read(&h);

		ret = wsx_stats_kv_write_json_hist(stdout, kv,
						   have_hist ? &h : NULL);
		if (have_hist)
			wsx_hist_free(&h);
	} else {
		ret = wsx_stats_kv_write(stdout, kv, 0);
	}
	wsx_stats_kv_free(kv);
	return ret ? report("stats", ret) : EXIT_SUCCESS;
}

static const char schedtrace_help[] =
	"Usage: wsxctl schedtrace\n"
	"\n"
	"Print the module's one-line scheduler trace from debugfs\n"
	"($WSX_DEBUGFS/schedtrace, default " WSX_DEBUGFS_PATH "/schedtrace),\n"
	"in the style of the Go runtime's GODEBUG=schedtrace.\n";

static int cmd_schedtrace(const struct cmd *cmd, int argc, char **argv)
{
	static char line[65536];
	int ret = parse_help_only(cmd, argc, argv);

	if (ret >= 0)
		return ret;
	ret = wsx_schedtrace_read(line, sizeof(line));
	if (ret < 0)
		return report_debugfs("schedtrace", ret);
	puts(line);
	return EXIT_SUCCESS;
}

static const struct cmd cmds[] = {
	{ "version", cmd_version, "print wsxctl, header and module versions",
	  version_help },
	{ "run", cmd_run, "submit built-in items, report throughput",
	  run_help },
	{ "crc32c", cmd_crc32c, "checksum files on the executor",
	  crc32c_help },
	{ "stats", cmd_stats, "print the per-P scheduler statistics",
	  stats_help },
	{ "schedtrace", cmd_schedtrace, "print the one-line scheduler trace",
	  schedtrace_help },
	{ "top", cmd_top, "live view of the Ps (queues, rates, idle)",
	  top_help },
	{ "trace", cmd_trace, "record the tracepoints as JSON / SVG timeline",
	  trace_help },
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static int print_main_help(void)
{
	size_t i;

	puts("Usage: wsxctl [--help] COMMAND [ARGS]\n"
	     "       wsxctl help [COMMAND]\n"
	     "\n"
	     "Drive the wsx work-stealing executor through "
	     WSX_DEVICE_PATH ".\n"
	     "\n"
	     "Commands:");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		printf("  %-11s %s\n", cmds[i].name, cmds[i].summary);
	puts("\n"
	     "Run 'wsxctl COMMAND --help' for the arguments of a command.\n"
	     "\n"
	     "Environment:\n"
	     "  WSX_DEVICE   the device to open instead of "
	     WSX_DEVICE_PATH "\n"
	     "  WSX_DEBUGFS  the debugfs directory instead of "
	     WSX_DEBUGFS_PATH "\n"
	     "  WSX_PARAMETERS  the module parameters' directory instead of\n"
	     "               /sys/module/wsx/parameters");
	fputs(exit_status_help, stdout);
	return EXIT_SUCCESS;
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd *cmd;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return print_main_help();
	if (argc > 2)
		return usage_error(NULL, "help: unexpected argument '%s'",
				   argv[2]);
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return usage_error(NULL, "help: unknown command '%s'", argv[1]);
	return print_help(cmd->help);
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;

	opterr = 0;
	if (argc < 2)
		return usage_error(NULL, "no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return print_main_help();
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return usage_error(NULL, "unknown option '%s'", argv[1]);
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	return cmd->fn(cmd, argc - 1, argv + 1);
}
