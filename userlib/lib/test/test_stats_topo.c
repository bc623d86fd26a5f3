/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The stats file's topology keys: each P's node and steal counters by
 * level, the per-node global queues; text of a module without them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsx/libwsx.h>
#include "ktap.h"

/* Two nodes of two Ps, per-node global queues (numa). */
static const char numa[] =
	"P0 executed=10 steals=3 stolen=5 node=0 steals_smt=1 steals_cache=0 "
	"steals_node=2 steals_remote=0 stolen_smt=1 stolen_cache=0 "
	"stolen_node=4 stolen_remote=0\n"
	"P1 executed=11 node=0 steals_smt=0 steals_cache=0 steals_node=0 "
	"steals_remote=0 stolen_smt=0 stolen_cache=0 stolen_node=0 "
	"stolen_remote=0\n"
	"P2 executed=12 steals=4 stolen=9 node=1 steals_smt=0 steals_cache=1 "
	"steals_node=0 steals_remote=3 stolen_smt=0 stolen_cache=2 "
	"stolen_node=0 stolen_remote=7\n"
	"P3 executed=13 node=1 steals_smt=0 steals_cache=0 steals_node=0 "
	"steals_remote=0 stolen_smt=0 stolen_cache=0 stolen_node=0 "
	"stolen_remote=0\n"
	"node0 nid=0 depth=5 puts=20 gets=15\n"
	"node1 nid=2 depth=1 puts=8 gets=7\n"
	"global depth=6 puts=28 gets=22\n";

/* A module before steal_topology. */
static const char old[] =
	"P0 executed=1 steals=0\n"
	"P1 executed=2 steals=1 stolen=1\n"
	"global depth=0 puts=0 gets=0\n";

static void check_numa(void)
{
	struct wsx_stats st;
	struct wsx_topo t;

	if (!KTAP_EQ(wsx_stats_parse_topo(numa, &st, &t), 0,
		     "text with node keys and node lines parses"))
		return;
	ktap_check(t.have_nodes && t.nprocs == 4 && t.nnodes == 2 &&
		   t.nnodeqs == 2, "four Ps on two nodes, two node queues");
	ktap_check(t.p[0].node == 0 && t.p[1].node == 0 && t.p[2].node == 1 &&
		   t.p[3].node == 1, "each P's node");
	ktap_check(t.p[0].steals_smt == 1 && t.p[0].steals_node == 2 &&
		   t.p[0].stolen_smt == 1 && t.p[0].stolen_node == 4,
		   "P0 level counters");
	ktap_check(t.p[2].steals_cache == 1 && t.p[2].steals_remote == 3 &&
		   t.p[2].stolen_cache == 2 && t.p[2].stolen_remote == 7,
		   "P2 level counters, remote among them");
	ktap_check(t.nodeq[1].nid == 2 && t.nodeq[1].depth == 1 &&
		   t.nodeq[1].puts == 8 && t.nodeq[1].gets == 7 &&
		   t.nodeq[0].depth == 5, "node queue lines");
	ktap_check(st.nprocs == 4 && st.p[2].executed == 12 &&
		   st.p[2].steals == 4 && st.global.depth == 6,
		   "the P and global counters beside them");
	wsx_topo_free(&t);
	ktap_check(!t.p && !t.nodeq && !t.nprocs, "free zeroes the topology");
	wsx_stats_free(&st);
	KTAP_EQ(wsx_stats_parse(numa, &st), 0,
		"wsx_stats_parse() skips the node lines");
	KTAP_EQ(st.nprocs, 4, "... and keeps the Ps");
	wsx_stats_free(&st);
}

static void check_old(void)
{
	struct wsx_stats st;
	struct wsx_topo t;

	if (!KTAP_EQ(wsx_stats_parse_topo(old, &st, &t), 0,
		     "text of an older module parses"))
		return;
	ktap_check(!t.have_nodes && t.nprocs == 2 && t.nnodes == 1 &&
		   !t.nnodeqs, "no node keys: one node, no node queues");
	ktap_check(t.p[1].node == 0 && !t.p[1].steals_remote &&
		   !t.p[1].stolen_smt, "... every P on node 0, levels 0");
	wsx_topo_free(&t);
	wsx_stats_free(&st);
}

static void check_malformed(void)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "P0 node=0\nnode1 depth=0\nglobal depth=0\n",
		  "node lines not from node0" },
		{ "P0 node=0\nnode0 depth=0\nnode0 depth=0\nglobal depth=0\n",
		  "node line repeated" },
		{ "node0 depth=0\nP0 node=0\nglobal depth=0\n",
		  "node line before the Ps" },
		{ "P0 node=0\nnode0 depth=0\nP1 node=0\nglobal depth=0\n",
		  "P line after a node line" },
		{ "P0 node=0\nglobal depth=0\nnode0 depth=0\n",
		  "node line after the global line" },
		{ "P0 node=x\nglobal depth=0\n", "bad node value" },
		{ "P0 node=0\nnode0 depth=-1\nglobal depth=0\n",
		  "bad node queue value" },
	};
	struct wsx_stats st;
	struct wsx_topo t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0xa5, sizeof(t));
		KTAP_EQ(wsx_stats_parse_topo(bad[i].text, &st, &t), -EINVAL,
			"malformed: %s", bad[i].why);
		ktap_check(!t.p && !t.nodeq && !t.nprocs && !st.p,
			   "malformed: %s leaves both zeroed", bad[i].why);
	}
	KTAP_EQ(wsx_stats_parse_topo(numa, &st, NULL), -EINVAL,
		"NULL topology");
}

/* wsx_stats_write_topo() of @text, or NULL. */
static char *rewrite(const char *text, unsigned int flags)
{
	struct wsx_stats st;
	struct wsx_topo t;
	char *out = NULL;
	size_t len;
	FILE *f;

	if (wsx_stats_parse_topo(text, &st, &t))
		return NULL;
	f = open_memstream(&out, &len);
	if (f && wsx_stats_write_topo(f, &st, &t, flags)) {
		free(out);
		out = NULL;
	}
	if (f)
		fclose(f);
	wsx_topo_free(&t);
	wsx_stats_free(&st);
	return out;
}

static void check_write(void)
{
	struct wsx_stats st, st2;
	struct wsx_topo t, t2;
	char *text = rewrite(numa, 0), *json;

	ktap_check(text && !wsx_stats_parse_topo(text, &st, &t) &&
		   !wsx_stats_parse_topo(numa, &st2, &t2) &&
		   t.nnodeqs == 2 && t.have_nodes &&
		   !memcmp(t.p, t2.p, 4 * sizeof(*t.p)) &&
		   !memcmp(t.nodeq, t2.nodeq, 2 * sizeof(*t.nodeq)) &&
		   !memcmp(st.p, st2.p, 4 * sizeof(*st.p)),
		   "text output parses back to the same values");
	free(text);
	wsx_topo_free(&t);
	wsx_topo_free(&t2);
	wsx_stats_free(&st);
	wsx_stats_free(&st2);
	json = rewrite(numa, WSX_STATS_JSON);
	ktap_check(json && strstr(json, "\"node\": 1, \"steals_smt\": 0, "
				  "\"steals_cache\": 1") &&
		   strstr(json, "\"nodes\": [\n    {\"nid\": 0, \"depth\": 5, "
			  "\"puts\": 20, \"gets\": 15},\n    {\"nid\": 2,"),
		   "json has the P levels and the node queues");
	free(json);
	text = rewrite(old, 0);
	ktap_check(text && !strstr(text, "node") && strstr(text, "P1 "),
		   "an older module's stats print without node keys");
	free(text);
	json = rewrite(old, WSX_STATS_JSON);
	ktap_check(json && !strstr(json, "node"),
		   "... and its json without them");
	free(json);
}

static void check_write_mismatch(void)
{
	struct wsx_stats st;
	struct wsx_topo t;
	FILE *f = fopen("/dev/null", "w");

	if (!ktap_check(f && !wsx_stats_parse_topo(numa, &st, &t),
			"fixture"))
		return;
	KTAP_EQ(wsx_stats_write_topo(f, &st, NULL, 0), -EINVAL,
		"NULL topology is refused");
	t.nprocs = 3;
	KTAP_EQ(wsx_stats_write_topo(f, &st, &t, 0), -EINVAL,
		"a topology of other stats is refused");
	t.nprocs = 4;
	fclose(f);
	wsx_topo_free(&t);
	wsx_stats_free(&st);
}

static void check_read(void)
{
	char dir[] = "/tmp/wsx-test-XXXXXX", path[64];
	struct wsx_stats st;
	struct wsx_topo t;
	FILE *f;

	if (!ktap_check(mkdtemp(dir) && !setenv("WSX_DEBUGFS", dir, 1),
			"debugfs fixture"))
		return;
	snprintf(path, sizeof(path), "%s/stats", dir);
	f = fopen(path, "w");
	if (!ktap_check(f && fputs(numa, f) >= 0 && !fclose(f), "stats file"))
		return;
	KTAP_EQ(wsx_stats_read_topo(&st, &t), 0, "read with its topology");
	ktap_check(t.nnodes == 2 && st.nprocs == 4, "... the Ps' nodes");
	wsx_topo_free(&t);
	wsx_stats_free(&st);
	unlink(path);
	rmdir(dir);
	KTAP_EQ(wsx_stats_read_topo(&st, &t), -ENOENT, "missing stats file");
}

int main(void)
{
	check_numa();
	check_old();
	check_malformed();
	check_write();
	check_write_mismatch();
	check_read();
	return ktap_done();
}
