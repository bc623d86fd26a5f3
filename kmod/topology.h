/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx topology: the Ps' NUMA nodes, and the distance levels a thief uses to
 * order its victims.  See topology.c.
 */
#ifndef _WSX_TOPOLOGY_H
#define _WSX_TOPOLOGY_H

/* Victim order (module parameter steal_topology). */
enum wsx_steal_topology {
	WSX_TOPO_NUMA,		/* SMT siblings, LLC, node, other nodes nearest first */
	WSX_TOPO_CACHE,		/* SMT siblings, LLC, then every other P */
	WSX_TOPO_FLAT,		/* every other P in one random order (Go's) */
};

/* How far a victim is from its thief: the counters' and the log's levels. */
enum wsx_level {
	WSX_LEVEL_SMT,		/* an SMT sibling of the thief's CPU */
	WSX_LEVEL_CACHE,	/* shares the thief's last-level cache */
	WSX_LEVEL_NODE,		/* on the thief's NUMA node */
	WSX_LEVEL_REMOTE,	/* on another node */
	WSX_NR_LEVELS,
};

int wsx_topology_init(void);
void wsx_topology_exit(void);

#endif /* _WSX_TOPOLOGY_H */
