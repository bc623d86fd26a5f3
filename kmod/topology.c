// SPDX-License-Identifier: GPL-2.0
/*
 * wsx topology: the NUMA nodes of the Ps, numbered compactly, and each
 * P's victim order by distance.
 *
 * Each P gets p->node, the index of its CPU's node among the nodes that
 * have a P (0 .. nnodes - 1, in the kernel's node order), and each node
 * index its neighbours nearest first (node_distance(), ties by index, the
 * node itself first): node_near[n * nnodes + k] is the k-th nearest node to
 * n.
 *
 * Each P gets its victims (struct wsx_victims, built by wsx_victims_build()
 * in wsx_victims.h): every other P once, grouped nearest first - SMT
 * siblings (topology_sibling_cpumask()), the same last-level cache, the
 * same node, the other nodes by node_distance() - and each P's distance
 * level.  A module cannot read the kernel's LLC mask (cpu_llc_shared_map
 * is not exported), so the die stands for the LLC (topology_die_cpumask()):
 * right where an L3 spans a die (most Intel parts, QEMU), too wide where a
 * die holds several L3s (AMD's CCXs), and absent on architectures without
 * dies (each CPU its own, so no cache level).  With sub-NUMA clustering a
 * die spans nodes: the node check comes first, so SNC nodes are nodes.
 *
 * Everything here is computed once at load, when every P's CPU is online; a
 * CPU keeps its siblings, die and node across hotplug, and an offline P is
 * an empty victim (its M moved its queues away), so nothing is recomputed
 * later and the steal loop neither allocates nor looks topology up.  Memory
 * per P: nprocs x 3 bytes (order and levels), bounded by nr_cpu_ids, beside
 * the nprocs x 8 of its steals_from histogram; the stride tables
 * (wsx_sched.coprimes) hold at most nprocs entries per distinct group size.
 */
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/topology.h>

#include "sched.h"
#include "topology.h"
#include "wsx_bounds.h"
#include "wsx_order.h"
#include "wsx_victims.h"

/* @p's CPU's node; a CPU of no node counts in the first online node */
static int wsx_p_node(const struct wsx_p *p)
{
	return wsx_known_node(cpu_to_node(p->cpu), first_online_node);
}

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

/* The strides of the random order of a group of @len Ps, once per size. */
static int wsx_coprimes_need(unsigned int len)
{
	if (wsx_sched.coprimes[len])
		return 0;
	wsx_sched.coprimes[len] = kcalloc(len, sizeof(unsigned int),
					  GFP_KERNEL);
	if (!wsx_sched.coprimes[len])
		return -ENOMEM;
	wsx_sched.ncoprimes[len] = wsx_coprimes_fill(wsx_sched.coprimes[len],
						     len);
	return 0;
}

static int wsx_victims_alloc(struct wsx_p *p, unsigned int n)
{
	int node = wsx_p_node(p);

	p->victims.order = kcalloc_node(max(n - 1, 1U), sizeof(u16),
					GFP_KERNEL, node);
	p->victims.group_end = kcalloc_node(WSX_LEVEL_REMOTE +
					    wsx_sched.nnodes, sizeof(u16),
					    GFP_KERNEL, node);
	p->victims.level = kcalloc_node(n, sizeof(u8), GFP_KERNEL, node);
	if (!p->victims.order || !p->victims.group_end || !p->victims.level)
		return -ENOMEM;
	return 0;
}

static void wsx_topo_describe(struct wsx_topo_p *tp, u8 *dist)
{
	unsigned int id, a, b, nn = wsx_sched.nnodes;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];

		tp[id].core = cpumask_first(topology_sibling_cpumask(p->cpu));
		tp[id].llc = cpumask_first(topology_die_cpumask(p->cpu));
		tp[id].node = p->node;
	}
	for (a = 0; a < nn; a++)
		for (b = 0; b < nn; b++)
			dist[a * nn + b] = min(node_distance(wsx_sched.node_ids[a],
							     wsx_sched.node_ids[b]),
					       U8_MAX);
}

static int wsx_victims_init(void)
{
	unsigned int n = wsx_sched.nprocs, nn = wsx_sched.nnodes, id, g;
	struct wsx_topo_p *tp;
	int ret = -ENOMEM;
	u8 *dist;

	BUILD_BUG_ON(WSX_NO_P != U16_MAX);
	if (!wsx_p_ids_fit(nr_cpu_ids, n)) {
		pr_err("wsx: %u CPU ids or %u Ps do not fit the victim tables\n",
		       nr_cpu_ids, n);
		return -E2BIG;
	}
	wsx_sched.coprimes = kcalloc(n, sizeof(*wsx_sched.coprimes),
				     GFP_KERNEL);
	wsx_sched.ncoprimes = kcalloc(n, sizeof(*wsx_sched.ncoprimes),
				      GFP_KERNEL);
	tp = kcalloc(n, sizeof(*tp), GFP_KERNEL);
	dist = kcalloc(nn * nn, sizeof(*dist), GFP_KERNEL);
	if (!wsx_sched.coprimes || !wsx_sched.ncoprimes || !tp || !dist)
		goto out;
	wsx_topo_describe(tp, dist);
	for (id = 0; id < n; id++) {
		struct wsx_victims *v = &wsx_sched.ps[id]->victims;

		if (wsx_victims_alloc(wsx_sched.ps[id], n))
			goto out;
		v->ngroups = wsx_victims_build(wsx_sched.steal_topology, tp,
					       n, id, dist, nn, v->order,
					       v->group_end, v->level);
		for (g = 0; g < v->ngroups; g++)
			if (wsx_coprimes_need(v->group_end[g] -
					      (g ? v->group_end[g - 1] : 0)))
				goto out;
	}
	ret = 0;
out:
	kfree(dist);
	kfree(tp);
	return ret;
}

int wsx_topology_init(void)
{
	unsigned int id, n, k, nnodes = 0;
	nodemask_t seen = NODE_MASK_NONE;

	for (id = 0; id < wsx_sched.nprocs; id++)
		node_set(wsx_p_node(wsx_sched.ps[id]), seen);
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
			wsx_node_index(wsx_p_node(wsx_sched.ps[id]));
	return wsx_victims_init();
}

/* Before the Ps are freed; also after a failed wsx_topology_init(). */
void wsx_topology_exit(void)
{
	unsigned int id;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps ? wsx_sched.ps[id] : NULL;

		if (!p)
			continue;
		kfree(p->victims.order);
		kfree(p->victims.group_end);
		kfree(p->victims.level);
	}
	for (id = 0; wsx_sched.coprimes && id < wsx_sched.nprocs; id++)
		kfree(wsx_sched.coprimes[id]);
	kfree(wsx_sched.coprimes);
	kfree(wsx_sched.ncoprimes);
	wsx_sched.coprimes = NULL;
	wsx_sched.ncoprimes = NULL;
	kfree(wsx_sched.node_near);
	kfree(wsx_sched.node_ids);
	wsx_sched.node_near = NULL;
	wsx_sched.node_ids = NULL;
}
