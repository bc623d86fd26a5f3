// SPDX-License-Identifier: GPL-2.0
/*
 * wsx topology: the NUMA nodes of the Ps, numbered compactly.
 *
 * Each P gets p->node, the index of its CPU's node among the nodes that
 * have a P (0 .. nnodes - 1, in the kernel's node order), and each node
 * index its neighbours nearest first (node_distance(), ties by index, the
 * node itself first): node_near[n * nnodes + k] is the k-th nearest node to
 * n.  Computed once at load, when every P's CPU is online; a CPU keeps its
 * node across hotplug, so nothing is recomputed later.
 */
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/topology.h>

#include "sched.h"
#include "topology.h"

/* Node index of kernel node @nid among the Ps' nodes. */
static unsigned int wsx_node_index(int nid)
{
	unsigned int i;

	for (i = 0; i < wsx_sched.nnodes; i++)
		if (wsx_sched.node_ids[i] == nid)
			return i;
	return 0;	/* not reached: every P's node was numbered */
}

/* The nodes nearest to node index @from, for sorting its row of node_near. */
static unsigned int wsx_sort_from;

static int wsx_node_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	int from = wsx_sched.node_ids[wsx_sort_from];
	int dx = x == wsx_sort_from ? -1 :
		 node_distance(from, wsx_sched.node_ids[x]);
	int dy = y == wsx_sort_from ? -1 :
		 node_distance(from, wsx_sched.node_ids[y]);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

int wsx_topology_init(void)
{
	unsigned int id, n, k, nnodes = 0;
	nodemask_t seen = NODE_MASK_NONE;

	for (id = 0; id < wsx_sched.nprocs; id++)
		node_set(cpu_to_node(wsx_sched.ps[id]->cpu), seen);
	wsx_sched.node_ids = kcalloc(nodes_weight(seen),
				     sizeof(*wsx_sched.node_ids), GFP_KERNEL);
	if (!wsx_sched.node_ids)
		return -ENOMEM;
	for_each_node_mask(n, seen)
		wsx_sched.node_ids[nnodes++] = n;
	wsx_sched.nnodes = nnodes;
	wsx_sched.node_near = kcalloc(nnodes * nnodes,
				      sizeof(*wsx_sched.node_near), GFP_KERNEL);
	if (!wsx_sched.node_near)
		return -ENOMEM;
	/* sort() runs here only, at load: wsx_sort_from needs no lock */
	for (n = 0; n < nnodes; n++) {
		unsigned int *row = &wsx_sched.node_near[n * nnodes];

		for (k = 0; k < nnodes; k++)
			row[k] = k;
		wsx_sort_from = n;
		sort(row, nnodes, sizeof(*row), wsx_node_cmp, NULL);
	}
	for (id = 0; id < wsx_sched.nprocs; id++)
		wsx_sched.ps[id]->node =
			wsx_node_index(cpu_to_node(wsx_sched.ps[id]->cpu));
	return 0;
}

void wsx_topology_exit(void)
{
	kfree(wsx_sched.node_near);
	kfree(wsx_sched.node_ids);
	wsx_sched.node_near = NULL;
	wsx_sched.node_ids = NULL;
}
