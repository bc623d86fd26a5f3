// SPDX-License-Identifier: GPL-2.0
/*
 * Per-node global queues (steal_topology=numa; wsx_numa.sh loads the
 * module so): items submitted to the global queue (WSX_PLACE_GLOBAL) from
 * the CPUs of each NUMA node in turn, a batch at a time, must each complete
 * exactly once; debugfs stats must show one "node<i> nid=<n>" line per node
 * with CPUs, whose queue took exactly the items the test submitted from
 * that node's CPUs (an item queued to the global queue goes to the queue of
 * the submitting CPU's node; NOP items spawn and spill nothing, so nothing
 * else is put there), and the queues gave out, all told, every item the
 * test submitted.  Skips on a machine with fewer than 2 nodes with CPUs.
 */
#include <sched.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

#define MAX_NODES	64
#define BATCH		256

struct node_cpus {
	int nid;
	cpu_set_t cpus;
	size_t submitted;
};

/* The nodes with CPUs, from /sys/devices/system/node/node<nid>/cpulist. */
static int numa_nodes(struct node_cpus *nodes)
{
	char path[64], list[1024], *tok, *save;
	int nid, n = 0;

	for (nid = 0; nid < MAX_NODES; nid++) {
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", nid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		fclose(f);
		CPU_ZERO(&nodes[n].cpus);
		for (tok = strtok_r(list, ",\n", &save); tok;
		     tok = strtok_r(NULL, ",\n", &save)) {
			int lo, hi;

			if (sscanf(tok, "%d-%d", &lo, &hi) != 2)
				lo = atoi(tok), hi = lo;
			for (; lo <= hi; lo++)
				CPU_SET(lo, &nodes[n].cpus);
		}
		if (!CPU_COUNT(&nodes[n].cpus))
			continue;
		nodes[n].nid = nid;
		nodes[n].submitted = 0;
		n++;
	}
	return n;
}

/* puts of the stats line of kernel node @nid; -1 when there is none. */
static long long node_puts(const char *stats, int nid, int *lines)
{
	const char *line = stats;
	long long puts = -1, p;
	unsigned int i, depth;
	int id;

	*lines = 0;
	while (line && *line) {
		if (sscanf(line, "node%u nid=%d depth=%u puts=%lld", &i, &id,
			   &depth, &p) == 4) {
			(*lines)++;
			if (id == nid)
				puts = p;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return puts;
}

struct once_ctx {
	unsigned char *seen;
	size_t n, dups, bad;
};

static void once_check(struct once_ctx *ctx, const struct wsx_completion *rec)
{
	if (rec->user_data >= ctx->n || rec->status) {
		ctx->bad++;
		return;
	}
	if (ctx->seen[rec->user_data]++)
		ctx->dups++;
}

FIXTURE(numa) {
	int unused;
};

FIXTURE_SETUP(numa)
{
}

FIXTURE_TEARDOWN(numa)
{
}

TEST_F_TIMEOUT(numa, global_items_go_to_their_nodes_queue, 600)
{
	static char before[1 << 16], after[1 << 16];
	static struct wsx_completion recs[WSX_WAIT_MAX];
	static struct node_cpus nodes[MAX_NODES];
	size_t n = wsx_test_scaled(40000, 2000), sent = 0, done = 0;
	long long puts, gets_before, gets_after;
	struct once_ctx ctx = { .n = n };
	int nnodes, fd, lines, batch = 0;
	size_t missing = 0;
	cpu_set_t all;
	long ret;

	nnodes = numa_nodes(nodes);
	if (nnodes < 2)
		SKIP(return, "fewer than 2 NUMA nodes");
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	ctx.seen = calloc(n, 1);
	ASSERT_NE(NULL, ctx.seen);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ASSERT_LT(0, wsx_test_read_debugfs("stats", before, sizeof(before)));
	gets_before = wsx_test_stat(before, -1, "gets");

	while (done < n) {
		while (sent < n) {
			struct node_cpus *node = &nodes[batch % nnodes];
			struct wsx_req reqs[BATCH];
			__u32 k = n - sent > BATCH ? BATCH : n - sent;

			for (__u32 i = 0; i < k; i++)
				reqs[i] = wsx_test_req(WSX_OP_NOP, sent + i,
						       WSX_PLACE_GLOBAL, 0,
						       0, 0, 0);
			/* submitted from this node's CPUs */
			ASSERT_EQ(0, sched_setaffinity(0, sizeof(node->cpus),
						       &node->cpus));
			ret = wsx_test_submit(fd, reqs, k, NULL);
			if (ret == -EAGAIN)
				break;
			ASSERT_LT(0, ret);
			node->submitted += ret;
			sent += ret;
			batch++;
		}
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1,
				    30LL * 1000000000);
		ASSERT_LT(0, ret);
		for (long i = 0; i < ret; i++)
			once_check(&ctx, &recs[i]);
		done += ret;
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	ASSERT_LT(0, wsx_test_read_debugfs("stats", after, sizeof(after)));

	for (size_t id = 0; id < n; id++)
		missing += !ctx.seen[id];
	EXPECT_EQ(0, ctx.dups);
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, ctx.bad);

	for (int i = 0; i < nnodes; i++) {
		long long was = node_puts(before, nodes[i].nid, &lines);

		EXPECT_EQ(nnodes, lines);
		puts = node_puts(after, nodes[i].nid, &lines);
		EXPECT_EQ(nnodes, lines);
		ASSERT_LE(0, was);
		ASSERT_LE(0, puts);
		EXPECT_LT(0, nodes[i].submitted);
		EXPECT_EQ((long long)nodes[i].submitted, puts - was);
		TH_LOG("node %d: %zu items submitted from its CPUs, %lld put on its queue",
		       nodes[i].nid, nodes[i].submitted, puts - was);
	}
	gets_after = wsx_test_stat(after, -1, "gets");
	EXPECT_LE(0, gets_before);
	EXPECT_EQ((long long)n, gets_after - gets_before);
	EXPECT_EQ(0, wsx_test_stat(after, -1, "depth"));
	free(ctx.seen);
	close(fd);
}

TEST_HARNESS_MAIN
