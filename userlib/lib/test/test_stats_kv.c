/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Every key of the stats file, by name: wsx_stats_kv_parse() keeps the
 * keys and lines it does not know, and wsx_stats_kv_write() prints them in
 * both formats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wsx/libwsx.h>
#include "ktap.h"

/* What a module gives, and a key (frobs) and a line (rcu) no module has. */
static const char text[] =
	"P0 node=0 executed=12 long_items=1 rescued=0 depth=0 online=1 frobs=7\n"
	"P1 node=1 executed=30 long_items=0 rescued=2 depth=3 online=1\n"
	"node0 nid=0 depth=3 puts=7 gets=4\n"
	"\n"
	"node1 nid=1 depth=0 puts=2 gets=2\n"
	"global depth=3 puts=9 gets=6 cancelled=350 threads=12 handoffs=8 "
	"blocked=0 frobs=18446744073709551615\n"
	"rcu mode=lazy lag=-4\n";

static char *write_kv(const struct wsx_stats_kv *kv, unsigned int flags)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	KTAP_EQ(wsx_stats_kv_write(f, kv, flags), 0, "written (flags %u)",
		flags);
	fclose(f);
	return out;
}

static void check_get(const struct wsx_stats_kv *kv)
{
	__u64 v = 0;

	KTAP_EQ(wsx_stats_get(kv, "global", "cancelled", &v), 0,
		"global cancelled found");
	KTAP_EQ(v, 350, "... 350");
	ktap_check(!wsx_stats_get(kv, "global", "frobs", &v) &&
		   v == UINT64_MAX, "an unknown key, at 2^64-1");
	ktap_check(!wsx_stats_get(kv, "P1", "rescued", &v) && v == 2,
		   "a P's key");
	ktap_check(!wsx_stats_get(kv, "node1", "puts", &v) && v == 2,
		   "a node queue's key");
	KTAP_EQ(wsx_stats_get(kv, "P1", "frobs", &v), -ENOENT,
		"a key the line lacks: ENOENT");
	KTAP_EQ(wsx_stats_get(kv, "P2", "executed", &v), -ENOENT,
		"a line not there: ENOENT");
	KTAP_EQ(wsx_stats_get(kv, "rcu", "mode", &v), -ERANGE,
		"a value that is no number: ERANGE");
	KTAP_EQ(wsx_stats_get(kv, "rcu", "lag", &v), -ERANGE,
		"a negative value: ERANGE");
	KTAP_EQ(wsx_stats_get(NULL, "global", "puts", &v), -EINVAL,
		"NULL kv: EINVAL");
}

static void check_lines(const struct wsx_stats_kv *kv)
{
	const struct wsx_stats_line *l;
	unsigned int i, fields = 0;

	for (i = 0; (l = wsx_stats_kv_line(kv, i)); i++)
		fields += l->nfields;
	KTAP_EQ(i, 6, "six lines, the empty one not counted");
	KTAP_EQ(fields, 31, "every key=value visited");
	l = wsx_stats_kv_line(kv, 5);
	ktap_check(l && !strcmp(l->tag, "rcu") && l->nfields == 2 &&
		   !strcmp(l->fields[0].key, "mode") &&
		   !strcmp(l->fields[0].value, "lazy"),
		   "the unknown line, its fields in order");
	ktap_check(!wsx_stats_kv_line(NULL, 0), "NULL kv: no line");
}

static void check_write(const struct wsx_stats_kv *kv)
{
	char *out = write_kv(kv, 0);
	char *want = malloc(sizeof(text));
	char *blank;

	/* the text printed is the file's, without its empty line */
	strcpy(want, text);
	blank = strstr(want, "\n\n");
	memmove(blank, blank + 1, strlen(blank));
	ktap_check(!strcmp(out, want), "text: every line and key as read");
	if (strcmp(out, want))
		printf("# got:\n%s", out);
	free(want);
	free(out);

	out = write_kv(kv, WSX_STATS_JSON);
	ktap_check(strstr(out, "\"nprocs\": 2,") != NULL, "json: nprocs");
	ktap_check(strstr(out, "{\"node\": 0, \"executed\": 12, \"long_items\": 1, "
			  "\"rescued\": 0, \"depth\": 0, \"online\": 1, "
			  "\"frobs\": 7}") != NULL,
		   "json: a P's every key, the unknown one too");
	ktap_check(strstr(out, "\"nodes\": [\n    {\"nid\": 0,") != NULL,
		   "json: the node queues");
	ktap_check(strstr(out, "\"cancelled\": 350, \"threads\": 12, "
			  "\"handoffs\": 8, \"blocked\": 0, "
			  "\"frobs\": 18446744073709551615}") != NULL,
		   "json: the global line's every key");
	ktap_check(strstr(out, "\"rcu\": {\"mode\": \"lazy\", \"lag\": -4}")
		   != NULL, "json: an unknown line, a text value as a string");
	printf("# %s", out);
	free(out);
	KTAP_EQ(wsx_stats_kv_write(stdout, kv, 2), -EINVAL,
		"an unknown flag: EINVAL");
}

/* The version line and the user lines, kept as lines with their keys. */
static void check_version(void)
{
	static const char v1[] =
		"wsx_stats version=1\n"
		"P0 executed=5\n"
		"global depth=0 puts=2 gets=2\n"
		"user uid=0 items=3 cpu_ns=1500000\n"
		"user uid=1000 items=2 cpu_ns=900\n";
	const struct wsx_stats_line *l;
	struct wsx_stats_kv *kv = NULL;
	char v2[sizeof(v1)];
	__u64 v = 0;
	char *out;

	if (KTAP_EQ(wsx_stats_kv_parse(v1, &kv), 0, "version 1 parses")) {
		ktap_check(!wsx_stats_get(kv, "wsx_stats", "version", &v) &&
			   v == 1, "... the version kept as a key");
		l = wsx_stats_kv_line(kv, 4);
		ktap_check(l && !strcmp(l->tag, "user") && l->nfields == 3 &&
			   !strcmp(l->fields[0].key, "uid") &&
			   !strcmp(l->fields[0].value, "1000") &&
			   !strcmp(l->fields[2].key, "cpu_ns") &&
			   !strcmp(l->fields[2].value, "900"),
			   "... each user line kept, its keys in order");
		out = write_kv(kv, 0);
		ktap_check(!strcmp(out, v1), "text: the version and user lines "
			   "printed as read");
		free(out);
		out = write_kv(kv, WSX_STATS_JSON);
		ktap_check(strstr(out, "\"users\": [\n    {\"uid\": 0, "
				  "\"items\": 3, \"cpu_ns\": 1500000},\n    "
				  "{\"uid\": 1000, \"items\": 2, "
				  "\"cpu_ns\": 900}\n  ]") != NULL,
			   "json: the user lines as the array users");
		ktap_check(strstr(out, "\"wsx_stats\": {\"version\": 1}") !=
			   NULL, "json: the version");
		printf("# %s", out);
		free(out);
		wsx_stats_kv_free(kv);
	}
	memcpy(v2, v1, sizeof(v1));
	v2[strlen("wsx_stats version=")] = '2';
	kv = (struct wsx_stats_kv *)1;
	KTAP_EQ(wsx_stats_kv_parse(v2, &kv), -EPROTO, "version 2: EPROTO");
	ktap_check(kv == NULL, "... *kv NULL");
	KTAP_EQ(wsx_stats_kv_parse("wsx_stats\nglobal puts=1\n", &kv),
		-EINVAL, "a version line without version=: EINVAL");
	/* text: the file of a module older than the version line */
	KTAP_EQ(wsx_stats_kv_parse(text, &kv), 0,
		"no version line (an older module): accepted");
	wsx_stats_kv_free(kv);
}

static void check_malformed(void)
{
	struct wsx_stats_kv *kv = (struct wsx_stats_kv *)1;

	KTAP_EQ(wsx_stats_kv_parse("P0 executed=1 junk\n", &kv), -EINVAL,
		"a token without '=' after the tag: EINVAL");
	ktap_check(kv == NULL, "... *kv NULL");
	KTAP_EQ(wsx_stats_kv_parse("global =5\n", &kv), -EINVAL,
		"an empty key: EINVAL");
	KTAP_EQ(wsx_stats_kv_parse(NULL, &kv), -EINVAL, "NULL text: EINVAL");
	KTAP_EQ(wsx_stats_kv_parse("version=1\nglobal puts=1", &kv), 0,
		"a line without tag, the last without newline");
	ktap_check(kv && !strcmp(wsx_stats_kv_line(kv, 0)->tag, "") &&
		   !strcmp(wsx_stats_kv_line(kv, 1)->fields[0].value, "1"),
		   "... tag \"\", and the last line whole");
	wsx_stats_kv_free(kv);
}

int main(void)
{
	struct wsx_stats_kv *kv;

	if (KTAP_EQ(wsx_stats_kv_parse(text, &kv), 0, "parses")) {
		check_get(kv);
		check_lines(kv);
		check_write(kv);
		wsx_stats_kv_free(kv);
	}
	check_version();
	check_malformed();
	wsx_stats_kv_free(NULL);
	return ktap_done();
}
