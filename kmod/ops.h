/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx built-in ops (ops.c), as the doors use them (dev.c, rings.c, submit.c).
 */
#ifndef _WSX_OPS_H
#define _WSX_OPS_H

#include <linux/types.h>

#include "wsx.h"

struct wsx_req;
struct wsx_op_type;
struct wsx_crc_buf;
struct wsx_uchans;
struct wsx_poll;
struct wsx_chgroup;

/*
 * State of a SEND or RECV item, or of one item of a PINGPONG or a
 * PIPELINE: its own continuation, which it parks on a channel when it
 * must wait (ops.c, "SEND and RECV").
 */
struct wsx_chop {
	struct wsx_chan *from;		/* RECV: the channel received from */
	struct wsx_chan *to;		/* SEND's channel; RECV's, or NULL */
	struct wsx_uchans *chans;	/* the session's (parks), or NULL */
	struct wsx_chgroup *group;	/* PINGPONG's, PIPELINE's, or NULL */
	u64 val;			/* the value to send, or received */
	u64 ns;				/* RECV: work per value */
	u64 result;			/* SEND: values sent; RECV: their sum */
	u32 left;			/* values still to send or receive */
	u32 passes;			/* RECV: values still to send on */
	bool holding;			/* RECV: @val is still to be sent on */
	bool parked;			/* its continuation waits in @w */
	bool reports;			/* its @result is the job's */
	struct wsx_chan_waiter w;
};

/* Continuation state of a fork-join node. */
struct wsx_join {
	struct wsx_node *parent;	/* NULL for the root */
	unsigned int side;		/* which half of the parent this is */
	atomic_t pending;		/* children not yet completed */
	u64 part[2];			/* their results */
};

/*
 * One node of an op's tree: the item the scheduler runs and the op's
 * state.  Nodes come from ops.c's cache, except a root the caller provides
 * (wsx_op_init()), which ops.c never frees.
 */
struct wsx_node {
	struct wsx_item item;
	const struct wsx_op_type *type;
	bool provided;
	union {
		u64 ns;				/* SPIN, SLEEP (us) */
		struct {
			u32 depth;		/* levels below this node */
			u32 fanout;
			u64 leaf_ns;
		} spawn;
		struct {			/* fork-join ops */
			struct wsx_join join;
			union {
				u32 n;			/* FIB */
				struct {		/* CRC32C */
					struct wsx_crc_buf *buf;
					u64 off;
					u64 len;
				} crc;
			};
		} fj;
		struct wsx_chop chop;	/* SEND, RECV, PINGPONG, PIPELINE */
		struct wsx_poll *poll;		/* POLL */
	};
};

/* Longest SPIN (and SPAWN leaf) in ns: module parameter max_item_ns. */
extern u64 wsx_max_item_ns;

int wsx_op_check(const struct wsx_req *req);
bool wsx_op_needs_submitter(unsigned int op);
bool wsx_op_may_fault(unsigned int op);
struct wsx_item *wsx_op_create(const struct wsx_req *req, struct wsx_job *job,
			       struct wsx_uchans *chans);
int wsx_op_init(struct wsx_node *root, const struct wsx_req *req,
		struct wsx_job *job, struct wsx_uchans *chans);
u64 wsx_op_result(unsigned int op, const struct wsx_job *job);
int wsx_ops_init(void);
void wsx_ops_exit(void);

#endif /* _WSX_OPS_H */
