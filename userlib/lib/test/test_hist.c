/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The histogram parser and `wsxctl stats --json`'s histogram keys.
 */
#include <stdlib.h>
#include <string.h>

#include "../stats_hist.h"
#include "ktap.h"

static char latency[4096];

static void make_latency(void)
{
	static const char *const kinds[] = { "local", "remote", "global",
					     "stolen" };
	size_t len = 0;
	int k, b;

	for (k = 0; k < 4; k++) {
		len += sprintf(latency + len, "%s count=%d", kinds[k], 3 * k);
		for (b = 0; b < 64; b++)
			len += sprintf(latency + len, " %d",
				       b == 10 + k ? 3 * k : 0);
		latency[len++] = '\n';
	}
	latency[len] = '\0';
}

static const char steals[] =
	"sizes 2 3 2 1 0 0 0 0 0 0\n"
	"P0 0 1 1 0\n"
	"P1 1 0 0 0\n"
	"P2 1 1 0 0\n"
	"P3 1 0 2 0\n";

int main(void)
{
	struct wsx_hist h;
	struct wsx_stats_kv *kv;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	make_latency();
	KTAP_EQ(wsx_hist_parse(latency, steals, &h), 0, "parses");
	KTAP_EQ(h.nkinds, 4, "4 kinds");
	ktap_check(!strcmp(h.lat[3].name, "stolen") && h.lat[3].count == 9 &&
		   h.lat[3].nbuckets == 64 && h.lat[3].buckets[13] == 9,
		   "stolen: count 9 in bucket 13");
	KTAP_EQ(h.nsizes, 10, "10 steal-size buckets");
	KTAP_EQ(h.nprocs, 4, "4x4 matrix");
	KTAP_EQ(h.steals_from[3 * 4 + 2], 2, "P3 stole twice from P2");

	KTAP_EQ(wsx_stats_kv_parse("P0 executed=5\nP1 executed=7\nglobal "
				   "depth=0 puts=1 gets=1\n", &kv), 0,
		"stats parse");
	f = open_memstream(&out, &len);
	KTAP_EQ(wsx_stats_kv_write_json_hist(f, kv, &h), 0, "json written");
	fclose(f);
	fputs(out, stdout);
	ktap_check(strstr(out, "\"stolen\": {\"count\": 9, \"buckets\": [0, ")
		   != NULL, "json: latency per kind with count and buckets");
	ktap_check(strstr(out, "\"steal_sizes\": {\"count\": 8, \"buckets\": "
			  "[2, 3, 2, 1, 0, 0, 0, 0, 0, 0]}") != NULL,
		   "json: steal sizes with their total");
	ktap_check(strstr(out, "\"steals_from\": [\n    [0, 1, 1, 0],\n    "
			  "[1, 0, 0, 0],") != NULL, "json: the matrix");
	ktap_check(strstr(out, "\"global\": {\"depth\": 0, \"puts\": 1, "
			  "\"gets\": 1},\n  \"latency\"") != NULL,
		   "json: histograms after global");
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	KTAP_EQ(wsx_stats_kv_write_json_hist(f, kv, NULL), 0, "json without");
	fclose(f);
	ktap_check(!strstr(out, "latency") && !strcmp(out + strlen(out) - 4,
						      "}\n}\n"),
		   "json without histograms: as wsx_stats_kv_write()");
	free(out);
	wsx_stats_kv_free(kv);
	wsx_hist_free(&h);

	KTAP_EQ(wsx_hist_parse("local 1 2\n", steals, &h), -22,
		"latency line without count= refused");
	KTAP_EQ(wsx_hist_parse(latency, "P0 0\n", &h), -22,
		"steals without sizes refused");
	KTAP_EQ(wsx_hist_parse(latency, "sizes 1\nP0 0 1\nP1 0\n", &h), -22,
		"ragged matrix refused");
	KTAP_EQ(wsx_hist_parse(latency, "sizes 1\nP0 0 1\n", &h), -22,
		"matrix not square refused");
	KTAP_EQ(wsx_hist_parse(latency, "sizes 1\nP1 0\n", &h), -22,
		"rows out of order refused");
	return ktap_done();
}
