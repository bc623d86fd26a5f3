/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx bounds: pure functions that turn what the system and a user hand the
 * module into values it can hold, with no loop a user can lengthen.  They
 * have no state and take no lock, so that the KUnit tests (wsx_kunit.c)
 * check them with the values no test machine has: 65536 CPUs, a CPU of
 * no NUMA node, a pointer above 4 GiB on a 32-bit kernel.
 */
#ifndef _WSX_BOUNDS_H
#define _WSX_BOUNDS_H

#include <linux/kernel.h>
#include <linux/numa.h>
#include <linux/types.h>

/*
 * wsx_p_ids_fit - can @nprocs Ps be numbered, on a system of @nr_cpu_ids
 * CPU ids?  P ids and the CPU ids naming cores and dies are kept in u16,
 * and an item's queued_p of U16_MAX (WSX_NO_P) means "no P": the last P
 * id is U16_MAX - 1.
 */
static inline bool wsx_p_ids_fit(unsigned int nr_cpu_ids,
				 unsigned int nprocs)
{
	return nr_cpu_ids <= U16_MAX + 1 && nprocs <= U16_MAX;
}

/*
 * wsx_known_node - the node to count a CPU in, given its cpu_to_node():
 * a CPU the firmware gave no node (NUMA_NO_NODE) counts in @fallback
 * (the first online node), so that every P has a node and a global queue.
 */
static inline int wsx_known_node(int node, int fallback)
{
	return node == NUMA_NO_NODE ? fallback : node;
}

/*
 * wsx_user_addr - set *@ptr to the user pointer a u64 of the ABI holds;
 * false (for -EFAULT) when it does not fit an unsigned long: a 32-bit
 * kernel would otherwise use its low 32 bits, another address of the
 * caller's (a checksum of other memory, records written elsewhere).
 */
static inline bool wsx_user_addr(u64 addr, void __user **ptr)
{
	if (addr != (unsigned long)addr)
		return false;
	*ptr = u64_to_user_ptr(addr);
	return true;
}

/*
 * wsx_spawn_nodes - the nodes of a SPAWN tree of @fanout children per node
 * (1 .. 64) and @depth levels below the root, or U64_MAX when more than
 * @max.  A fanout of 1 is a chain (depth + 1 nodes, in closed form);
 * otherwise each level at least doubles the count, so the loop ends within
 * log2(@max) + 1 levels whatever @depth a user asks for.
 */
static inline u64 wsx_spawn_nodes(u64 fanout, u64 depth, u64 max)
{
	u64 level = 1, total = 1, d;

	if (fanout == 1)
		return depth < max ? depth + 1 : U64_MAX;
	for (d = 0; d < depth; d++) {
		level *= fanout;
		total += level;
		if (total > max)
			return U64_MAX;
	}
	return total;
}

#endif /* _WSX_BOUNDS_H */
