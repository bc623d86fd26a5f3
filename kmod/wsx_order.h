/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx_order: the scheduler's small pure formulas, kept apart so that the
 * KUnit tests (wsx_kunit.c) check exactly what the scheduler runs.
 *
 *   wsx_coprimes_fill()  the strides of the random victim order: every c in
 *                        1..n with gcd(c, n) == 1 (Go's randomOrder), so
 *                        that pos, pos + c, pos + 2c ... (mod n) visits each
 *                        of the n Ps exactly once
 *   wsx_order_next()     one step of that walk
 *   wsx_gq_batch()       how many items a P takes from the global queue:
 *                        min(len, len / online + 1, WSX_RUNQ_SIZE / 2, max)
 */
#ifndef _WSX_ORDER_H
#define _WSX_ORDER_H

#include <linux/gcd.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "wsx_runq.h"

/* Fill @out (room for @n) with the strides coprime with @n; their number. */
static inline unsigned int wsx_coprimes_fill(unsigned int *out, unsigned int n)
{
	unsigned int c, k = 0;

	for (c = 1; c <= n; c++)
		if (gcd(c, n) == 1)
			out[k++] = c;
	return k;
}

static inline unsigned int wsx_order_next(unsigned int pos,
					  unsigned int stride, unsigned int n)
{
	return (pos + stride) % n;
}

/* @max 0: no limit beyond the formula's. */
static inline unsigned int wsx_gq_batch(unsigned int len,
					unsigned int online,
					unsigned int max)
{
	unsigned int n = min(len, len / max(online, 1U) + 1);

	n = min_t(unsigned int, n, WSX_RUNQ_SIZE / 2);
	return max ? min(n, max) : n;
}

#endif /* _WSX_ORDER_H */
