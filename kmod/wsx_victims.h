/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx_victims: a thief's victim order by distance, as a pure function of a
 * topology description, so that the KUnit tests (wsx_kunit.c) check exactly
 * what topology.c builds at load.
 *
 * Each P is described by the ids of its SMT core, its last-level cache and
 * its node index (struct wsx_topo_p); node distances come as a matrix.
 * wsx_victims_build() lists every other P once, in groups nearest first:
 *   numa:  SMT siblings, then the same LLC, then the same node, then one
 *          group per distinct distance to the other nodes, nearest first;
 *   cache: SMT siblings, then the same LLC, then every other P;
 *   flat:  every other P in one group.
 * Inside a group Ps are listed by id; the steal loop walks each group in a
 * random order of its own (random start, stride coprime with its size).
 * @level gets every P's distance level from the thief, whatever the policy:
 * the counters tell how far each steal moved items.
 */
#ifndef _WSX_VICTIMS_H
#define _WSX_VICTIMS_H

#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "topology.h"

struct wsx_topo_p {
	u16 core;	/* id of its SMT core (e.g. its core's first CPU) */
	u16 llc;	/* id of its last-level cache */
	u16 node;	/* its node index */
};

static inline enum wsx_level wsx_level_of(const struct wsx_topo_p *a,
					  const struct wsx_topo_p *b)
{
	if (a->node != b->node)
		return WSX_LEVEL_REMOTE;
	if (a->core == b->core)
		return WSX_LEVEL_SMT;
	if (a->llc == b->llc)
		return WSX_LEVEL_CACHE;
	return WSX_LEVEL_NODE;
}

/*
 * The group key of @b seen from @a under @topo: groups are walked in key
 * order.  A remote P's key is 3 + the nodes' distance, so nearer nodes come
 * first.
 */
static inline unsigned int wsx_victim_key(enum wsx_steal_topology topo,
					  const struct wsx_topo_p *a,
					  const struct wsx_topo_p *b,
					  const u8 *dist, unsigned int nnodes)
{
	enum wsx_level lv = wsx_level_of(a, b);

	if (topo == WSX_TOPO_FLAT)
		return 0;
	if (topo == WSX_TOPO_CACHE)
		return min_t(unsigned int, lv, WSX_LEVEL_NODE);
	if (lv != WSX_LEVEL_REMOTE)
		return lv;
	return WSX_LEVEL_REMOTE + dist[a->node * nnodes + b->node];
}

/*
 * wsx_victims_build - the victim order of P @self among @n Ps @ps
 * @order:	gets the n - 1 other Ps, group by group
 * @group_end:	gets each group's end in @order (exclusive); room for
 *		WSX_LEVEL_REMOTE + nnodes groups
 * @level:	gets the level of every P from @self (@self's own: SMT)
 * @dist:	nnodes x nnodes node distances
 *
 * Return: the number of groups.  O(n x groups): at load only.
 */
static inline unsigned int wsx_victims_build(enum wsx_steal_topology topo,
					     const struct wsx_topo_p *ps,
					     unsigned int n, unsigned int self,
					     const u8 *dist,
					     unsigned int nnodes, u16 *order,
					     u16 *group_end, u8 *level)
{
	unsigned int last = 0, k = 0, ngroups = 0, id, key, next;
	bool first = true;

	for (id = 0; id < n; id++)
		level[id] = wsx_level_of(&ps[self], &ps[id]);
	for (;;) {
		/* the smallest key above the last group's */
		next = UINT_MAX;
		for (id = 0; id < n; id++) {
			if (id == self)
				continue;
			key = wsx_victim_key(topo, &ps[self], &ps[id], dist,
					     nnodes);
			if ((first || key > last) && key < next)
				next = key;
		}
		if (next == UINT_MAX)
			return ngroups;
		for (id = 0; id < n; id++)
			if (id != self &&
			    wsx_victim_key(topo, &ps[self], &ps[id], dist,
					   nnodes) == next)
				order[k++] = id;
		group_end[ngroups++] = k;
		last = next;
		first = false;
	}
}

#endif /* _WSX_VICTIMS_H */
