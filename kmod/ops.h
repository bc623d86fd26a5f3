/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx built-in ops (ops.c), as the device (dev.c) uses them.
 */
#ifndef _WSX_OPS_H
#define _WSX_OPS_H

#include <linux/types.h>

#include "wsx.h"

struct wsx_req;

/* Longest SPIN (and SPAWN leaf) in ns: module parameter max_item_ns. */
extern u64 wsx_max_item_ns;

int wsx_op_check(const struct wsx_req *req);
struct wsx_item *wsx_op_create(const struct wsx_req *req, struct wsx_job *job);
u64 wsx_op_result(unsigned int op, const struct wsx_job *job);
int wsx_ops_init(void);
void wsx_ops_exit(void);

#endif /* _WSX_OPS_H */
