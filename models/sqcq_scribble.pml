/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqcq_scribble.pml: sqcq.pml with a hostile user thread writing garbage
 * over the SQ tail, the CQ head and an SQ slot while items run.  The
 * kernel must still never take a job slot in use nor index outside the
 * rings.  Run as any model: spin -a, gcc, ./pan (about 1 GiB of states).
 */
#define SCRIBBLE 1
#include "sqcq.pml"
