/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The debugfs stats parser and writer, and the debugfs readers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsx/libwsx.h>
#include "ktap.h"

static const char good[] =
	"P0 executed=123 runnext_hits=4 ring_puts=5 spills=0 global_gets=1 "
	"steal_attempts=7 steals=2 stolen=9 stolen_from=3 steal_cas_fails=0 "
	"spins=10 parks=11 wakeups=12\n"
	"P1 executed=18446744073709551615 runnext_hits=0 ring_puts=0 spills=6 "
	"global_gets=0 steal_attempts=0 steals=0 stolen=0 stolen_from=0 "
	"steal_cas_fails=8 spins=0 parks=0 wakeups=0\n"
	"global depth=0 puts=5 gets=5\n";

static void check_good(void)
{
	struct wsx_stats st;

	if (!KTAP_EQ(wsx_stats_parse(good, &st), 0, "good text parses"))
		return;
	KTAP_EQ(st.nprocs, 2, "two Ps");
	ktap_check(st.p[0].executed == 123 && st.p[0].runnext_hits == 4 &&
		   st.p[0].ring_puts == 5 && st.p[0].global_gets == 1 &&
		   st.p[0].steal_attempts == 7 && st.p[0].steals == 2 &&
		   st.p[0].stolen == 9 && st.p[0].stolen_from == 3 &&
		   st.p[0].spins == 10 && st.p[0].parks == 11 &&
		   st.p[0].wakeups == 12, "P0 counters");
	ktap_check(st.p[1].executed == UINT64_MAX && st.p[1].spills == 6 &&
		   st.p[1].steal_cas_fails == 8, "P1 counters, u64 max");
	ktap_check(st.global.depth == 0 && st.global.puts == 5 &&
		   st.global.gets == 5, "global counters");
	wsx_stats_free(&st);
	ktap_check(!st.p && !st.nprocs, "free zeroes the struct");
}

static void check_lenient(void)
{
	struct wsx_stats st;

	KTAP_EQ(wsx_stats_parse("P0 new_key=1 executed=3 other=77\n"
				"\tglobal  future=9   gets=2 \n", &st), 0,
		"unknown keys and extra blanks are accepted");
	ktap_check(st.p[0].executed == 3 && st.global.gets == 2 &&
		   st.p[0].spins == 0, "known keys kept, missing keys 0");
	wsx_stats_free(&st);
	KTAP_EQ(wsx_stats_parse("P0\n\nglobal", &st), 0,
		"empty lines, no counters, no final newline");
	wsx_stats_free(&st);
	/* lines a newer module may add: a version line first, another kind */
	KTAP_EQ(wsx_stats_parse("version=1\nP0 executed=4\ntimers n=1\n"
				"global depth=0 puts=6\n", &st), 0,
		"lines of unknown kinds are skipped");
	ktap_check(st.nprocs == 1 && st.p[0].executed == 4 &&
		   st.global.puts == 6, "... the others parsed");
	wsx_stats_free(&st);
}

/* The module's text since the version line: "wsx_stats version=1" first. */
static const char versioned[] =
	"wsx_stats version=1\n"
	"P0 executed=5 long_items=0 depth=0 online=1\n"
	"global depth=0 puts=2 gets=2 cancelled=0\n"
	"user uid=0 items=3 cpu_ns=1500000\n"
	"user uid=1000 items=2 cpu_ns=900\n";

static void check_version(void)
{
	struct wsx_stats st;
	char *v2;

	if (KTAP_EQ(wsx_stats_parse(versioned, &st), 0,
		    "the version line and the user lines accepted")) {
		ktap_check(st.nprocs == 1 && st.p[0].executed == 5 &&
			   st.global.puts == 2 && st.global.gets == 2,
			   "... the P and global lines parsed, the user lines "
			   "ignored");
		wsx_stats_free(&st);
	}
	KTAP_EQ(wsx_stats_parse(good, &st), 0,
		"no version line (an older module): accepted");
	wsx_stats_free(&st);
	v2 = strdup(versioned);
	v2[strlen("wsx_stats version=")] = '2';
	KTAP_EQ(wsx_stats_parse(v2, &st), -EPROTO, "version 2: EPROTO");
	ktap_check(!st.p && !st.nprocs, "... stats zeroed");
	free(v2);
	KTAP_EQ(wsx_stats_parse("\nwsx_stats version=10\nP0\nglobal\n", &st),
		-EPROTO, "version 10 after an empty line: EPROTO");
	KTAP_EQ(wsx_stats_parse("wsx_stats format=1\nP0\nglobal\n", &st),
		-EINVAL, "a version line without version=: EINVAL");
	KTAP_EQ(wsx_stats_parse("wsx_stats version=x\nP0\nglobal\n", &st),
		-EINVAL, "a version that is no number: EINVAL");
}

static void check_malformed(void)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "P0 executed\nglobal depth=0\n", "token without '='" },
		{ "P0 =5\nglobal depth=0\n", "empty key" },
		{ "P0 executed=\nglobal depth=0\n", "empty value" },
		{ "P0 executed=12x\nglobal depth=0\n", "non-numeric value" },
		{ "P0 executed=-1\nglobal depth=0\n", "negative value" },
		{ "P0 executed=0x10\nglobal depth=0\n", "hex value" },
		{ "P0 executed=18446744073709551616\nglobal depth=0\n",
		  "value overflows u64" },
		{ "P0 spins=1\nglobal depth=x\n", "bad global value" },
		{ "P1 executed=1\nglobal depth=0\n", "first P is not P0" },
		{ "P0 executed=1\nP2 executed=1\nglobal depth=0\n",
		  "P ids skip one" },
		{ "P0 executed=1\nP0 executed=1\nglobal depth=0\n",
		  "P id repeated" },
		{ "P executed=1\nglobal depth=0\n", "P without a number" },
		{ "Px executed=1\nglobal depth=0\n", "P with a bad number" },
		{ "P0 executed=1\n", "missing global line" },
		{ "global depth=0\n", "no P line" },
		{ "P0 executed=1\nglobal depth=0\nglobal depth=0\n",
		  "two global lines" },
		{ "P0 executed=1\nglobal depth=0\nP1 executed=1\n",
		  "P line after the global line" },
		{ "", "empty text" },
	};
	struct wsx_stats st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&st, 0xa5, sizeof(st));
		KTAP_EQ(wsx_stats_parse(bad[i].text, &st), -EINVAL,
			"malformed: %s", bad[i].why);
		ktap_check(!st.p && !st.nprocs,
			   "malformed: %s leaves the struct zeroed",
			   bad[i].why);
	}
	KTAP_EQ(wsx_stats_parse(NULL, &st), -EINVAL, "NULL text");
	KTAP_EQ(wsx_stats_parse(good, NULL), -EINVAL, "NULL stats");
}

/* Writes @st with @flags into a string the caller frees. */
static char *write_to_string(const struct wsx_stats *st, unsigned int flags)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (wsx_stats_write(f, st, flags)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

static void check_write(void)
{
	static const char json[] =
		"{\n  \"nprocs\": 1,\n  \"p\": [\n    {\"executed\": 7, "
		"\"runnext_hits\": 0, \"ring_puts\": 0, \"spills\": 0, "
		"\"global_gets\": 0, \"steal_attempts\": 0, \"steals\": 0, "
		"\"stolen\": 0, \"stolen_from\": 0, \"steal_cas_fails\": 0, "
		"\"spins\": 0, \"parks\": 0, \"wakeups\": 1}\n  ],\n"
		"  \"global\": {\"depth\": 2, \"puts\": 0, \"gets\": 3}\n}\n";
	struct wsx_stats st, again;
	char *text;

	wsx_stats_parse(good, &st);
	text = write_to_string(&st, 0);
	ktap_check(text && !strcmp(text, good), "text output equals the input");
	free(text);
	wsx_stats_free(&st);

	wsx_stats_parse("P0 executed=7 wakeups=1\nglobal depth=2 gets=3\n",
			&st);
	text = write_to_string(&st, WSX_STATS_JSON);
	if (text && strcmp(text, json))
		printf("# got:\n%s", text);
	ktap_check(text && !strcmp(text, json), "JSON output");
	free(text);
	text = write_to_string(&st, 0);
	KTAP_EQ(wsx_stats_parse(text, &again), 0, "text output parses back");
	ktap_check(again.nprocs == 1 && !memcmp(again.p, st.p, sizeof(*st.p))
		   && !memcmp(&again.global, &st.global, sizeof(st.global)),
		   "... to the same values");
	free(text);
	wsx_stats_free(&again);
	KTAP_EQ(wsx_stats_write(stdout, &st, 2), -EINVAL, "unknown flag");
	wsx_stats_free(&st);
}

#define SCHEDTRACE "WSX 1234ms: nprocs=4 idleprocs=2 threads=4 " \
	"spinningthreads=1 idlethreads=2 waiting=0 runqueue=0 [20 0 0 0]"
static const char schedtrace[] = SCHEDTRACE;

static bool write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

static void remove_files(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/stats", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/schedtrace", dir);
	unlink(path);
	rmdir(dir);
}

/* The readers, on files in a temporary directory named by $WSX_DEBUGFS. */
static void check_read(void)
{
	char dir[] = "/tmp/wsx-test-XXXXXX", line[256];
	size_t len = strlen(schedtrace);
	struct wsx_stats st;

	if (!ktap_check(mkdtemp(dir) && write_file(dir, "stats", good) &&
			write_file(dir, "schedtrace", SCHEDTRACE "\n") &&
			!setenv("WSX_DEBUGFS", dir, 1), "debugfs fixture"))
		return;
	KTAP_EQ(wsx_stats_read(&st), 0, "stats read from $WSX_DEBUGFS");
	KTAP_EQ(st.nprocs, 2, "... with its Ps");
	wsx_stats_free(&st);
	KTAP_EQ(wsx_schedtrace_read(line, sizeof(line)), len,
		"schedtrace read, its length returned");
	ktap_check(!strcmp(line, schedtrace), "... without its newline");
	KTAP_EQ(wsx_schedtrace_read(line, len), -ERANGE, "short buffer");
	KTAP_EQ(wsx_schedtrace_read(line, 0), -EINVAL, "zero-size buffer");
	remove_files(dir);
	KTAP_EQ(wsx_stats_read(&st), -ENOENT, "missing stats file");
	KTAP_EQ(wsx_schedtrace_read(line, sizeof(line)), -ENOENT,
		"missing schedtrace file");
}

int main(void)
{
	check_good();
	check_lenient();
	check_version();
	check_malformed();
	check_write();
	check_read();
	return ktap_done();
}
