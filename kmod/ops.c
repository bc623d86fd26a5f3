// SPDX-License-Identifier: GPL-2.0
/*
 * wsx built-in ops: what an item submitted through /dev/wsx does.
 *
 * Every op is a tree of nodes (struct wsx_node, one kmem_cache for all),
 * each embedding the struct wsx_item that the scheduler runs.  The root node
 * is created at submission; the others are spawned by running nodes with
 * wsx_spawn(), so they start in the spawning P's runnext slot.
 *
 *   NOP, SPIN, SLEEP  one node.
 *   SPAWN             every node above the leaves spawns fanout children;
 *                     the job completes when all have run (the job's count
 *                     of unfinished items reaches zero).
 *   FIB, CRC32C       fork-join by continuations: a node spawns two
 *                     children and returns; the last child to finish (its
 *                     parent's pending count drops to zero) combines the two
 *                     results and completes the parent, and so on up to the
 *                     root.  Nothing waits, so no M ever blocks on a join.
 *   SEND, RECV        one node, on the session's channels (uchan.c): a
 *                     node that must wait for the other side parks itself
 *                     as its continuation and returns; readied, it goes on.
 *   PINGPONG,         two nodes, or a source, the stages and a sink, each
 *   PIPELINE          a SEND or RECV node on channels of the op's own
 *                     (struct wsx_chgroup), spawned by the root's first run.
 *
 * A node checks wsx_cancelled() before doing its work: once its session is
 * closing it skips the work and spawns nothing, so cancelled trees drain
 * quickly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>

#include <linux/wsx.h>

#include "ops.h"
#include "poll.h"
#include "uchan.h"
#include "wsx_bounds.h"

/* Shared by the chunks of one CRC32C job: the pinned user buffer. */
struct wsx_crc_buf {
	struct page **pages;
	unsigned long npages;
	struct user_struct *user; /* charged npages of RLIMIT_MEMLOCK, or NULL */
	unsigned int offset;	/* of the buffer in pages[0] */
	u64 len;
	u64 chunk;
};

/*
 * An op, as the op table below describes it: everything the rest of the
 * module knows of one is here, and asks through ops.h (no other file names
 * an op).  Every entry is complete (wsx_ops_init() checks, at load).
 */
struct wsx_op_type {
	const char *name;	/* lower case, for messages */
	unsigned int flags;	/* WSX_OPF_* */
	/* validate the request's arguments: 0, -EINVAL or -E2BIG */
	int (*check)(const struct wsx_req *req);
	/*
	 * set up the root node, with the session's channels (NULL for a
	 * caller without any); may fail (-EFAULT, -ENOMEM, -ENOENT)
	 */
	int (*start)(struct wsx_node *root, const struct wsx_req *req,
		     struct wsx_uchans *chans);
	wsx_fn_t fn;
};

/*
 * Its start runs in the submitter's context: it pins the submitter's
 * memory, as long as the submitter's page faults take (CRC32C), or looks
 * up the submitter's file descriptors (POLL), so an M (which may not wait
 * on a user, and has no user's files) never starts it (rings.c, pick-up).
 */
#define WSX_OPF_SUBMITTER	BIT(0)
/* Its record's result is the number of nodes the job ran, not a value. */
#define WSX_OPF_RESULT_NODES	BIT(1)
/* Its start may wait for a page fault of the submitter's (a user's). */
#define WSX_OPF_FAULTS		BIT(2)

static struct kmem_cache *wsx_node_cache;

u64 wsx_max_item_ns = 10 * NSEC_PER_MSEC;

static void wsx_node_setup(struct wsx_node *node,
			   const struct wsx_op_type *type, struct wsx_job *job)
{
	node->type = type;
	wsx_item_init(&node->item, type->fn, job);
}

/*
 * Charged to the memory cgroup of the task that allocates: a request's
 * root to its submitter's; a child an M spawns to none (an M is a kernel
 * thread of no cgroup).
 */
static struct wsx_node *wsx_node_alloc(const struct wsx_op_type *type,
				       struct wsx_job *job)
{
	struct wsx_node *node = kmem_cache_zalloc(wsx_node_cache,
						  GFP_KERNEL_ACCOUNT);

	if (node)
		wsx_node_setup(node, type, job);
	return node;
}

/* A node is done with: back to the cache, unless its owner provided it. */
static void wsx_node_free(struct wsx_node *node)
{
	if (!node->provided)
		kmem_cache_free(wsx_node_cache, node);
}

static struct wsx_node *wsx_node_of(struct wsx_item *item)
{
	return container_of(item, struct wsx_node, item);
}

static bool wsx_args_zero(const struct wsx_req *req, unsigned int from)
{
	unsigned int i;

	for (i = from; i < ARRAY_SIZE(req->args); i++)
		if (req->args[i])
			return false;
	return true;
}

/*
 * Burn the CPU for @ns, letting the kernel schedule at least every ms.  No
 * clock read for 0: SPAWN's leaves are 0 ns by default, three in four nodes
 * of a 4-ary tree, and a clock read costs more than the rest of the node
 * where the clocksource is slow (the HPET, which a VM may fall back on).
 */
static void wsx_spin_ns(u64 ns)
{
	u64 now, end, next;

	if (!ns)
		return;
	now = ktime_get_ns();
	end = now + ns;
	next = now + NSEC_PER_MSEC;
	while (now < end) {
		cpu_relax();
		now = ktime_get_ns();
		if (now >= next) {
			cond_resched();
			wsx_cond_handoff();
			next = now + NSEC_PER_MSEC;
		}
	}
}

/* ---- NOP, SPIN, SLEEP ------------------------------------------------- */

static int wsx_nop_check(const struct wsx_req *req)
{
	return wsx_args_zero(req, 0) ? 0 : -EINVAL;
}

static int wsx_spin_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 1))
		return -EINVAL;
	return req->args[0] > READ_ONCE(wsx_max_item_ns) ? -E2BIG : 0;
}

static int wsx_sleep_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 1))
		return -EINVAL;
	return req->args[0] > WSX_SLEEP_MAX_US ? -E2BIG : 0;
}

static int wsx_single_start(struct wsx_node *root, const struct wsx_req *req,
			    struct wsx_uchans *chans)
{
	root->ns = req->args[0];
	return 0;
}

static void wsx_nop_fn(struct wsx_item *item)
{
	wsx_node_free(wsx_node_of(item));
}

static void wsx_spin_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item);

	if (!wsx_cancelled(item))
		wsx_spin_ns(node->ns);
	wsx_node_free(node);
}

static void wsx_sleep_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item);

	if (!wsx_cancelled(item) && node->ns) {
		wsx_block_begin();
		usleep_range(node->ns, node->ns + node->ns / 16 + 1);
		wsx_block_end();
	}
	wsx_node_free(node);
}

/* ---- SPAWN ------------------------------------------------------------ */

/* Nodes of a full tree, or U64_MAX when over WSX_SPAWN_MAX_NODES. */
static int wsx_spawn_check(const struct wsx_req *req)
{
	u64 fanout = req->args[0], depth = req->args[1];

	if (!wsx_args_zero(req, 3) || fanout < 1 ||
	    fanout > WSX_SPAWN_MAX_FANOUT)
		return -EINVAL;
	if (wsx_spawn_nodes(fanout, depth, WSX_SPAWN_MAX_NODES) == U64_MAX ||
	    req->args[2] > READ_ONCE(wsx_max_item_ns))
		return -E2BIG;
	return 0;
}

static int wsx_spawn_start(struct wsx_node *root, const struct wsx_req *req,
			   struct wsx_uchans *chans)
{
	root->spawn.fanout = req->args[0];
	root->spawn.depth = req->args[1];
	root->spawn.leaf_ns = req->args[2];
	return 0;
}

static void wsx_spawn_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item), *child;
	u32 i;

	if (wsx_cancelled(item))
		goto out;
	if (!node->spawn.depth) {
		wsx_spin_ns(node->spawn.leaf_ns);
		goto out;
	}
	for (i = 0; i < node->spawn.fanout; i++) {
		child = wsx_node_alloc(node->type, item->job);
		if (!child) {
			WRITE_ONCE(item->job->status, -ENOMEM);
			break;
		}
		child->spawn = node->spawn;
		child->spawn.depth--;
		wsx_spawn(&child->item);
	}
out:
	wsx_node_free(node);
}

/* ---- fork-join: FIB and CRC32C ------------------------------------------ */

/*
 * A node of a fork-join op finished with @value: hand it to the parent; the
 * last of two children combines both halves and completes the parent, up to
 * the root, whose value becomes the job's result.
 */
static void wsx_join_complete(struct wsx_node *node, u64 value,
			      u64 (*combine)(struct wsx_node *node),
			      void (*finish)(struct wsx_node *root, u64 value))
{
	struct wsx_join *join = &node->fj.join;
	struct wsx_node *parent;

	for (;;) {
		parent = join->parent;
		if (!parent) {
			finish(node, value);
			return;
		}
		parent->fj.join.part[join->side] = value;
		wsx_node_free(node);
		/* fully ordered: the last one sees both parts */
		if (!atomic_dec_and_test(&parent->fj.join.pending))
			return;
		node = parent;
		join = &node->fj.join;
		value = combine(node);
	}
}

/* Spawn the two children of fork-join @node; false if out of memory. */
static bool wsx_join_fork(struct wsx_node *node, struct wsx_node *child[2])
{
	unsigned int side;

	child[0] = wsx_node_alloc(node->type, node->item.job);
	child[1] = wsx_node_alloc(node->type, node->item.job);
	if (!child[0] || !child[1]) {
		if (child[0])
			wsx_node_free(child[0]);
		if (child[1])
			wsx_node_free(child[1]);
		WRITE_ONCE(node->item.job->status, -ENOMEM);
		return false;
	}
	atomic_set(&node->fj.join.pending, 2);
	for (side = 0; side < 2; side++) {
		child[side]->fj.join.parent = node;
		child[side]->fj.join.side = side;
	}
	return true;
}

/*
 * Queue both children: side 1 first, so side 0 ends up in runnext.  Once
 * both are queued they may complete the parent at any moment: the caller
 * must not touch its node afterwards.
 */
static void wsx_join_spawn(struct wsx_node *child[2])
{
	wsx_spawn(&child[1]->item);
	wsx_spawn(&child[0]->item);
}

static int wsx_fib_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 1))
		return -EINVAL;
	return req->args[0] > WSX_FIB_MAX ? -E2BIG : 0;
}

static int wsx_fib_start(struct wsx_node *root, const struct wsx_req *req,
			 struct wsx_uchans *chans)
{
	root->fj.n = req->args[0];
	return 0;
}

static u64 wsx_fib_combine(struct wsx_node *node)
{
	return node->fj.join.part[0] + node->fj.join.part[1];
}

static void wsx_fib_finish(struct wsx_node *root, u64 value)
{
	root->item.job->result = value;
	wsx_node_free(root);
}

static void wsx_fib_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item), *child[2];

	if (node->fj.n < 2 || wsx_cancelled(item) ||
	    !wsx_join_fork(node, child)) {
		wsx_join_complete(node, node->fj.n < 2 ? node->fj.n : 0,
				  wsx_fib_combine, wsx_fib_finish);
		return;
	}
	child[0]->fj.n = node->fj.n - 1;
	child[1]->fj.n = node->fj.n - 2;
	wsx_join_spawn(child);
}

/* CRC32C with seed 0 and no inversion, over [off, off + len) of @buf. */
static u32 wsx_crc_range(const struct wsx_crc_buf *buf, u64 off, u64 len)
{
	u32 crc = 0;

	off += buf->offset;
	while (len) {
		unsigned long idx = off >> PAGE_SHIFT;
		unsigned int in = offset_in_page(off);
		unsigned int n = min_t(u64, len, PAGE_SIZE - in);
		void *va = kmap_local_page(buf->pages[idx]);

		crc = __crc32c_le(crc, va + in, n);
		kunmap_local(va);
		off += n;
		len -= n;
		cond_resched();
	}
	return crc;
}

static int wsx_crc_check(const struct wsx_req *req)
{
	u64 len = req->args[1], chunk = req->args[2];

	if (!wsx_args_zero(req, 3) || !len || !req->args[0] ||
	    (chunk && chunk < 4096))
		return -EINVAL;
	if (len > WSX_CRC32C_MAX_LEN || chunk > WSX_CRC32C_MAX_LEN)
		return -E2BIG;
	return 0;
}

/*
 * Charge @buf's pages to the submitting user's RLIMIT_MEMLOCK, as io_uring
 * charges its registered buffers: lock-free, on the user, not under the
 * process's mmap lock, which an M must not wait for when it gives the
 * charge back.  A process with CAP_IPC_LOCK is not limited.
 */
static int wsx_crc_buf_charge(struct wsx_crc_buf *buf)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	unsigned long cur;

	if (capable(CAP_IPC_LOCK))
		return 0;
	user = current_user();
	cur = atomic_long_read(&user->locked_vm);
	do {
		if (buf->npages > limit || cur > limit - buf->npages)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur,
					  cur + buf->npages));
	buf->user = get_uid(user);
	return 0;
}

/* Free @buf, its pages unpinned, and give its charge back. */
static void wsx_crc_buf_free(struct wsx_crc_buf *buf)
{
	if (buf->user) {
		atomic_long_sub(buf->npages, &buf->user->locked_vm);
		free_uid(buf->user);
	}
	kvfree(buf->pages);
	kfree(buf);
}

static int wsx_crc_start(struct wsx_node *root, const struct wsx_req *req,
			 struct wsx_uchans *chans)
{
	unsigned long addr = req->args[0], first = addr & PAGE_MASK;
	struct wsx_crc_buf *buf;
	void __user *uaddr;
	long pinned;
	int ret;

	/*
	 * A 32-bit kernel would checksum the address's low half (the check
	 * comes before any use of @addr); kernels differ on ranges that wrap
	 * or leave userspace: EFAULT for all of them
	 */
	if (!wsx_user_addr(req->args[0], &uaddr) ||
	    !access_ok(uaddr, req->args[1]))
		return -EFAULT;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	buf->len = req->args[1];
	buf->chunk = req->args[2] ?: 64 * 1024;
	buf->offset = offset_in_page(addr);
	buf->npages = DIV_ROUND_UP(buf->offset + buf->len, PAGE_SIZE);
	buf->pages = kvmalloc_array(buf->npages, sizeof(*buf->pages),
				    GFP_KERNEL_ACCOUNT);
	if (!buf->pages) {
		kfree(buf);
		return -ENOMEM;
	}
	/*
	 * The pages stay pinned for as long as the user's item runs: long
	 * term, so charged to RLIMIT_MEMLOCK and pinned with FOLL_LONGTERM
	 * (not in CMA or movable zones, where they would block migration).
	 */
	ret = wsx_crc_buf_charge(buf);
	if (ret) {
		kvfree(buf->pages);
		kfree(buf);
		return ret;
	}
	pinned = pin_user_pages_fast(first, buf->npages, FOLL_LONGTERM,
				     buf->pages);
	if (pinned != buf->npages) {
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		wsx_crc_buf_free(buf);
		return pinned < 0 && pinned != -EFAULT ? (int)pinned : -EFAULT;
	}
	root->fj.crc.buf = buf;
	root->fj.crc.off = 0;
	root->fj.crc.len = buf->len;
	return 0;
}

/* Where a CRC32C node's range splits: half, rounded up to a chunk. */
static u64 wsx_crc_left(const struct wsx_node *node)
{
	u64 chunk = node->fj.crc.buf->chunk;

	/* div64_u64, not roundup(): no u64 division on 32-bit kernels */
	return div64_u64(node->fj.crc.len / 2 + chunk - 1, chunk) * chunk;
}

static u64 wsx_crc_combine(struct wsx_node *node)
{
	u64 left = wsx_crc_left(node);

	return __crc32c_le_shift(node->fj.join.part[0],
				 node->fj.crc.len - left) ^
	       node->fj.join.part[1];
}

static void wsx_crc_finish(struct wsx_node *root, u64 value)
{
	struct wsx_crc_buf *buf = root->fj.crc.buf;

	/* seed ~0 and final inversion, as crc32c tools compute it */
	value ^= __crc32c_le_shift(~0U, buf->len);
	root->item.job->result = (u32)~value;
	unpin_user_pages(buf->pages, buf->npages);
	wsx_crc_buf_free(buf);
	wsx_node_free(root);
}

static void wsx_crc_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item), *child[2];
	u64 left;

	if (wsx_cancelled(item)) {
		wsx_join_complete(node, 0, wsx_crc_combine, wsx_crc_finish);
		return;
	}
	if (node->fj.crc.len <= node->fj.crc.buf->chunk ||
	    !wsx_join_fork(node, child)) {
		wsx_join_complete(node, wsx_crc_range(node->fj.crc.buf,
						      node->fj.crc.off,
						      node->fj.crc.len),
				  wsx_crc_combine, wsx_crc_finish);
		return;
	}
	left = wsx_crc_left(node);
	child[0]->fj.crc.buf = node->fj.crc.buf;
	child[0]->fj.crc.off = node->fj.crc.off;
	child[0]->fj.crc.len = left;
	child[1]->fj.crc.buf = node->fj.crc.buf;
	child[1]->fj.crc.off = node->fj.crc.off + left;
	child[1]->fj.crc.len = node->fj.crc.len - left;
	wsx_join_spawn(child);
}

/* ---- SEND and RECV ------------------------------------------------------ */

/*
 * A SEND or RECV item loops over its values.  A send or receive that can
 * go on at once (wsx_chan_trysend(), wsx_chan_tryrecv()) costs no park;
 * one that cannot parks the item itself as its continuation
 * (wsx_chop_park()) and the item returns.  The other side readies it with
 * the value in its waiter, and wsx_chop_fn() runs again from the top.
 * The node is its item's alone at every moment: its parker's until the
 * waiter is on a channel's queue, the readier's in wsx_chan_send() or
 * wsx_chan_recv() (the waiter's value and status), the continuation's
 * after wsx_ready() (chan.c's comment says why each side sees the other's
 * writes), so none of struct wsx_chop's fields needs a lock.
 *
 * A user sets the count, up to 2^32 - 1 values that may all go on at
 * once through a buffer, each with up to max_item_ns of work: after
 * WSX_CHOP_BATCH values, or max_item_ns of work, in one run the item
 * yields, queued again on the global queue behind what waits there (Go's
 * Gosched()), so that one run holds its CPU and P no longer than about
 * twice a SPIN's limit.  Not
 * wsx_cond_handoff(): an item that runs on after its M handed its P off
 * readies its peers to the global queue, not to its P's runnext.
 */
#define WSX_CHOP_BATCH	64

static int wsx_chop_id_check(u64 id)
{
	return id > U32_MAX ? -EINVAL : 0;
}

static int wsx_chop_count_check(u64 count)
{
	if (!count)
		return -EINVAL;
	return count > WSX_CHAN_COUNT_MAX ? -E2BIG : 0;
}

static int wsx_send_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 3) || wsx_chop_id_check(req->args[0]))
		return -EINVAL;
	return wsx_chop_count_check(req->args[2]);
}

static int wsx_recv_check(const struct wsx_req *req)
{
	int ret;

	if (wsx_chop_id_check(req->args[0]) ||
	    wsx_chop_id_check(req->args[2]))
		return -EINVAL;
	ret = wsx_chop_count_check(req->args[1]);
	if (ret)
		return ret;
	return req->args[3] > READ_ONCE(wsx_max_item_ns) ? -E2BIG : 0;
}

static int wsx_send_start(struct wsx_node *root, const struct wsx_req *req,
			  struct wsx_uchans *chans)
{
	struct wsx_chop *ch = &root->chop;

	ch->to = chans ? wsx_uchan_find(chans, req->args[0]) : NULL;
	if (!ch->to)
		return -ENOENT;
	ch->chans = chans;
	ch->val = req->args[1];
	ch->left = req->args[2];
	ch->reports = true;
	return 0;
}

static int wsx_recv_start(struct wsx_node *root, const struct wsx_req *req,
			  struct wsx_uchans *chans)
{
	struct wsx_chop *ch = &root->chop;

	ch->from = chans ? wsx_uchan_find(chans, req->args[0]) : NULL;
	if (!ch->from)
		return -ENOENT;
	if (req->args[2]) {
		ch->to = wsx_uchan_find(chans, req->args[2]);
		if (!ch->to)
			return -ENOENT;
		ch->passes = req->args[1];
	}
	ch->chans = chans;
	ch->left = req->args[1];
	ch->ns = req->args[3];
	ch->reports = true;
	return 0;
}

static void wsx_chop_fn(struct wsx_item *item);

/* Does @ch send next (a SEND, or a RECV holding a value to pass on)? */
static bool wsx_chop_sends(const struct wsx_chop *ch)
{
	return !ch->from || ch->holding;
}

/*
 * One send or receive of @node that could not go on at once: park the
 * item as its own continuation on the channel.  Return: -EINPROGRESS when
 * parked (the node is no longer the caller's), else as the channel call
 * (it went on meanwhile, or the channel was closed), or -EAGAIN at
 * max_parked.
 */
static int wsx_chop_park(struct wsx_node *node)
{
	struct wsx_chop *ch = &node->chop;
	bool send = wsx_chop_sends(ch);
	int ret;

	ret = ch->chans ? wsx_uchans_park_get(ch->chans) : 0;
	if (ret)
		return ret;
	/* runs again as itself, not flagged WSX_ITEM_ROOT: its job started */
	wsx_item_init(&node->item, wsx_chop_fn, node->item.job);
	wsx_chan_waiter_init(&ch->w, &node->item);
	ch->parked = true;
	ret = send ? wsx_chan_send(ch->to, ch->val, &ch->w) :
		     wsx_chan_recv(ch->from, &ch->val, &ch->w);
	if (ret == -EINPROGRESS)
		return ret;
	ch->parked = false;
	if (ch->chans)
		wsx_uchans_park_put(ch->chans);
	return ret;
}

/* One send or receive of @node: 0 when it went on, else as above. */
static int wsx_chop_step(struct wsx_node *node)
{
	struct wsx_chop *ch = &node->chop;
	int ret;

	ret = wsx_chop_sends(ch) ? wsx_chan_trysend(ch->to, ch->val) :
				   wsx_chan_tryrecv(ch->from, &ch->val);
	return ret == -EAGAIN ? wsx_chop_park(node) : ret;
}

/*
 * The send or receive of @item's node went on: account for it, and do a
 * received value's work (RECV's args[3] ns), adding that to @spent,
 * unless the job is cancelled.
 */
static void wsx_chop_advance(struct wsx_item *item, u64 *spent)
{
	struct wsx_chop *ch = &wsx_node_of(item)->chop;

	if (!ch->from) {		/* SEND */
		ch->val++;
		ch->result++;
		ch->left--;
	} else if (ch->holding) {	/* RECV: passed on */
		ch->holding = false;
		ch->passes--;
	} else {			/* RECV: received */
		ch->result += ch->val;
		ch->left--;
		if (ch->ns && !wsx_cancelled(item)) {
			wsx_spin_ns(ch->ns);
			*spent += ch->ns;
		}
		ch->holding = ch->passes > 0;
	}
}

static void wsx_chgroup_end(struct wsx_chgroup *g, bool early);

static void wsx_chop_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item);
	struct wsx_chop *ch = &node->chop;
	unsigned int n = 0;
	u64 spent = 0;
	int ret = 0;

	if (ch->parked) {		/* readied: the waiter says how */
		ch->parked = false;
		if (ch->chans)
			wsx_uchans_park_put(ch->chans);
		ret = ch->w.status;
		if (!ret) {
			if (!wsx_chop_sends(ch))
				ch->val = ch->w.val;
			wsx_chop_advance(item, &spent);
		}
	}
	while (!ret && (ch->left || ch->holding)) {
		if (wsx_cancelled(item)) {
			ret = -ECANCELED;
			break;
		}
		if (++n > WSX_CHOP_BATCH ||
		    spent >= READ_ONCE(wsx_max_item_ns)) {
			/* counted in its job again, as a new item would be */
			wsx_item_init(item, wsx_chop_fn, item->job);
			wsx_queue(item, WSX_WHERE_GLOBAL, 0);
			return;		/* queued: the node is not ours */
		}
		ret = wsx_chop_step(node);
		if (ret == -EINPROGRESS)
			return;		/* parked: the node is not ours */
		if (!ret)
			wsx_chop_advance(item, &spent);
	}
	/* the first to end early says why: the others end of its close */
	if (ret)
		cmpxchg(&item->job->status, 0, ret);
	if (ch->reports)
		item->job->result = ch->result;
	if (ch->group)
		wsx_chgroup_end(ch->group, ret != 0);
	wsx_node_free(node);
}

/* ---- PINGPONG and PIPELINE ---------------------------------------------- */

/*
 * Go's two channel shapes in one request, each item a SEND or RECV node
 * (above) on unbuffered channels of the op's own:
 *
 *   PINGPONG(n)  the pinger, which holds the ball (the value 1) first,
 *                sends it on chan[0], receives it back on chan[1], n
 *                times; the ponger receives on chan[0] and sends back on
 *                chan[1], n times.  The pinger reports the sum it
 *                received: n.
 *   PIPELINE(s, v)  a source sends 1 .. v on chan[0]; stage i receives
 *                on chan[i] and sends on chan[i + 1]; the sink receives
 *                on chan[s] and reports the sum.
 *
 * The root's first run (wsx_pingpong_fn(), wsx_pipeline_fn()) spawns the
 * other nodes (none when its job is cancelled already), then runs as its
 * own node.  struct wsx_chgroup holds the channels: each node a
 * reference, the last one destroying them, by when no node waits on one
 * (each has ended).
 *
 * Why every node ends, close() included (the session's close closes its
 * own channels, not these): a node parks only on a channel of the group,
 * and never are all the nodes parked at once before they are done, since
 * each channel has one sender and one receiver and two nodes waiting on
 * one channel in opposite directions would have met; the nodes do as
 * many operations on each channel, so they end together.  Until one ends
 * early, one node at least runs or is queued, and sees a cancelled job at
 * its loop's next turn.  A node that ends early (cancelled at close(),
 * -EAGAIN at max_parked, -ENOMEM) sets its job's status first, then
 * closes every channel (wsx_chgroup_end()): the others, parked or to
 * come, find a closed channel, end, and leave the first status
 * (cmpxchg; litmus/chgroup-status-first).  Every node's fields are its
 * own (the "SEND and RECV" comment above).
 *
 * Memory: the group and its channels are charged to the submitter's
 * memory cgroup when the submitter starts the op, to none when an M's
 * pick-up does, as a SPAWN's children are; one request's work is bounded
 * by its counts (up to 65 items of 2^32 - 1 values), as a SEND's is, and
 * ends at close().
 *
 * Fields: I = set at init, read-only afterwards; A = atomic or lock-free
 * (llist, bitops, atomic64).  Init is the op's start, before the nodes
 * are spawned: the spawn publishes the group to them.
 */
struct wsx_chgroup {
	refcount_t ref;			/* A: one per node not yet ended */
	unsigned int n;			/* I: channels */
	struct wsx_chan *chan[];	/* I */
};

static void wsx_chgroup_free(struct wsx_chgroup *g)
{
	unsigned int i;

	for (i = 0; i < g->n; i++)
		wsx_chan_destroy(g->chan[i]);
	kfree(g);
}

/* @n unbuffered channels, for the nodes to come; the root's reference. */
static struct wsx_chgroup *wsx_chgroup_create(unsigned int n)
{
	struct wsx_chgroup *g;

	g = kzalloc(struct_size(g, chan, n), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	refcount_set(&g->ref, 1);
	for (g->n = 0; g->n < n; g->n++) {
		g->chan[g->n] = wsx_chan_create(0, GFP_KERNEL_ACCOUNT);
		if (IS_ERR(g->chan[g->n])) {
			wsx_chgroup_free(g);
			return NULL;
		}
	}
	return g;
}

/* A node of @g ended, @early (with an error) or not. */
static void wsx_chgroup_end(struct wsx_chgroup *g, bool early)
{
	unsigned int i;

	if (early) {
		for (i = 0; i < g->n; i++)
			wsx_chan_close(g->chan[i]);	/* -EALREADY: fine */
	}
	if (refcount_dec_and_test(&g->ref))
		wsx_chgroup_free(g);
}

/*
 * Set up @node as a node of @g, receiving from @from (NULL: a source) and
 * sending on @to (NULL: a sink), @count values; the first value to send
 * is @val.
 */
static void wsx_chgroup_node(struct wsx_node *node, struct wsx_chgroup *g,
			     struct wsx_chan *from, struct wsx_chan *to,
			     u32 count, u64 val)
{
	struct wsx_chop *ch = &node->chop;
	struct wsx_uchans *chans = ch->chans;

	memset(ch, 0, sizeof(*ch));
	ch->chans = chans;
	ch->group = g;
	ch->from = from;
	ch->to = to;
	ch->left = count;
	ch->passes = from && to ? count : 0;
	ch->val = val;
}

/*
 * The root's first run spawns a node of @g like @root, set up by @setup,
 * for each of @nr nodes; a node that cannot be allocated makes the root
 * end early (its close ends the nodes already spawned).  Return: true
 * when all were spawned.
 */
static bool wsx_chgroup_spawn(struct wsx_node *root, unsigned int nr,
			      void (*setup)(struct wsx_node *node,
					    struct wsx_node *root,
					    unsigned int i))
{
	struct wsx_chgroup *g = root->chop.group;
	struct wsx_node *node;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		node = wsx_node_alloc(root->type, root->item.job);
		if (!node)
			return false;
		node->chop.chans = root->chop.chans;
		setup(node, root, i);
		refcount_inc(&g->ref);
		wsx_item_init(&node->item, wsx_chop_fn, root->item.job);
		wsx_spawn(&node->item);
	}
	return true;
}

/*
 * Run @item, a root whose nodes are spawned now (or not: a cancelled job
 * spawns none, and its root's node ends at once), as its own node.
 */
static void wsx_chgroup_root_run(struct wsx_item *item, bool spawned)
{
	struct wsx_node *root = wsx_node_of(item);

	if (!spawned) {
		cmpxchg(&item->job->status, 0, -ENOMEM);
		wsx_chgroup_end(root->chop.group, true);
		wsx_node_free(root);
		return;
	}
	wsx_item_init(item, wsx_chop_fn, item->job);
	wsx_chop_fn(item);
}

static int wsx_pingpong_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 1))
		return -EINVAL;
	return wsx_chop_count_check(req->args[0]);
}

static int wsx_pipeline_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 2) || !req->args[0])
		return -EINVAL;
	if (req->args[0] > WSX_PIPELINE_MAX_STAGES)
		return -E2BIG;
	return wsx_chop_count_check(req->args[1]);
}

/* The root: the pinger, holding the ball, reporting the round trips. */
static int wsx_pingpong_start(struct wsx_node *root, const struct wsx_req *req,
			      struct wsx_uchans *chans)
{
	struct wsx_chgroup *g = wsx_chgroup_create(2);

	if (!g)
		return -ENOMEM;
	root->chop.chans = chans;
	wsx_chgroup_node(root, g, g->chan[1], g->chan[0], req->args[0], 1);
	root->chop.holding = true;
	root->chop.reports = true;
	return 0;
}

/* The ponger: receives on chan[0], sends back on chan[1]. */
static void wsx_ponger_setup(struct wsx_node *node, struct wsx_node *root,
			     unsigned int i)
{
	struct wsx_chgroup *g = root->chop.group;

	wsx_chgroup_node(node, g, g->chan[0], g->chan[1], root->chop.left, 0);
}

static void wsx_pingpong_fn(struct wsx_item *item)
{
	wsx_chgroup_root_run(item, wsx_cancelled(item) ||
			     wsx_chgroup_spawn(wsx_node_of(item), 1,
					       wsx_ponger_setup));
}

/* The root: the sink, on the last channel, reporting the sum. */
static int wsx_pipeline_start(struct wsx_node *root, const struct wsx_req *req,
			      struct wsx_uchans *chans)
{
	struct wsx_chgroup *g = wsx_chgroup_create(req->args[0] + 1);

	if (!g)
		return -ENOMEM;
	root->chop.chans = chans;
	wsx_chgroup_node(root, g, g->chan[g->n - 1], NULL, req->args[1], 0);
	root->chop.reports = true;
	return 0;
}

/* Node @i: the source (0), then the stages, each on its two channels. */
static void wsx_stage_setup(struct wsx_node *node, struct wsx_node *root,
			    unsigned int i)
{
	struct wsx_chgroup *g = root->chop.group;

	wsx_chgroup_node(node, g, i ? g->chan[i - 1] : NULL, g->chan[i],
			 root->chop.left, 1);
}

static void wsx_pipeline_fn(struct wsx_item *item)
{
	struct wsx_node *root = wsx_node_of(item);

	wsx_chgroup_root_run(item, wsx_cancelled(item) ||
			     wsx_chgroup_spawn(root, root->chop.group->n,
					       wsx_stage_setup));
}

/* ---- POLL ------------------------------------------------------------- */

/*
 * The netpoller's item (poll.c): it waits for a file without an M.  Its
 * start looks the descriptor up, so it runs in the submitter's context.
 */
static int wsx_poll_req_check(const struct wsx_req *req)
{
	if (!wsx_args_zero(req, 3))
		return -EINVAL;
	return wsx_poll_check(req->args[1], req->args[2]);
}

static int wsx_poll_start(struct wsx_node *root, const struct wsx_req *req,
			  struct wsx_uchans *chans)
{
	struct wsx_poll *poll = wsx_poll_create(req->args[0], req->args[1],
						req->args[2], chans);

	if (IS_ERR(poll))
		return PTR_ERR(poll);
	root->poll = poll;
	return 0;
}

static void wsx_poll_fn(struct wsx_item *item)
{
	struct wsx_node *node = wsx_node_of(item);
	u64 revents = 0;
	int ret;

	ret = wsx_poll_run(node->poll, item, &revents);
	if (ret == -EINPROGRESS)
		return;		/* parked: the node is not ours */
	if (ret)
		WRITE_ONCE(item->job->status, ret);
	item->job->result = revents;
	wsx_poll_free(node->poll);
	wsx_node_free(node);
}

/* ---- the table -------------------------------------------------------- */

static const struct wsx_op_type wsx_op_types[WSX_OP_LAST] = {
	[WSX_OP_NOP] = {
		.name	= "nop",
		.check	= wsx_nop_check,
		.start	= wsx_single_start,
		.fn	= wsx_nop_fn,
	},
	[WSX_OP_SPIN] = {
		.name	= "spin",
		.check	= wsx_spin_check,
		.start	= wsx_single_start,
		.fn	= wsx_spin_fn,
	},
	[WSX_OP_SLEEP] = {
		.name	= "sleep",
		.check	= wsx_sleep_check,
		.start	= wsx_single_start,
		.fn	= wsx_sleep_fn,
	},
	[WSX_OP_SPAWN] = {
		.name	= "spawn",
		.flags	= WSX_OPF_RESULT_NODES,
		.check	= wsx_spawn_check,
		.start	= wsx_spawn_start,
		.fn	= wsx_spawn_fn,
	},
	[WSX_OP_FIB] = {
		.name	= "fib",
		.check	= wsx_fib_check,
		.start	= wsx_fib_start,
		.fn	= wsx_fib_fn,
	},
	[WSX_OP_CRC32C] = {
		.name	= "crc32c",
		.flags	= WSX_OPF_SUBMITTER | WSX_OPF_FAULTS,
		.check	= wsx_crc_check,
		.start	= wsx_crc_start,
		.fn	= wsx_crc_fn,
	},
	[WSX_OP_SEND] = {
		.name	= "send",
		.check	= wsx_send_check,
		.start	= wsx_send_start,
		.fn	= wsx_chop_fn,
	},
	[WSX_OP_RECV] = {
		.name	= "recv",
		.check	= wsx_recv_check,
		.start	= wsx_recv_start,
		.fn	= wsx_chop_fn,
	},
	[WSX_OP_POLL] = {
		.name	= "poll",
		.flags	= WSX_OPF_SUBMITTER,
		.check	= wsx_poll_req_check,
		.start	= wsx_poll_start,
		.fn	= wsx_poll_fn,
	},
	[WSX_OP_PINGPONG] = {
		.name	= "pingpong",
		.check	= wsx_pingpong_check,
		.start	= wsx_pingpong_start,
		.fn	= wsx_pingpong_fn,
	},
	[WSX_OP_PIPELINE] = {
		.name	= "pipeline",
		.check	= wsx_pipeline_check,
		.start	= wsx_pipeline_start,
		.fn	= wsx_pipeline_fn,
	},
};

/*
 * The entry of @op, which may be any value a user passed, or NULL; the
 * only index into the table, clamped under speculation too.
 */
static const struct wsx_op_type *wsx_op_type(unsigned int op)
{
	if (op >= ARRAY_SIZE(wsx_op_types))
		return NULL;
	return &wsx_op_types[array_index_nospec(op, ARRAY_SIZE(wsx_op_types))];
}

/**
 * wsx_op_check - validate the op and arguments of a request
 * @req:	the request
 *
 * Return: 0, -EINVAL (unknown op, unused argument not zero, argument out of
 * range) or -E2BIG (argument over its limit).
 */
int wsx_op_check(const struct wsx_req *req)
{
	const struct wsx_op_type *type = wsx_op_type(req->op);

	return type ? type->check(req) : -EINVAL;
}

/* Does @op, checked or not, have @flag?  False for an unknown @op. */
static bool wsx_op_flagged(unsigned int op, unsigned int flag)
{
	const struct wsx_op_type *type = wsx_op_type(op);

	return type && (type->flags & flag);
}

/**
 * wsx_op_needs_submitter - does the op's root start only in the submitter?
 * @op:	the request's op, checked or not
 *
 * Its start pins the submitter's memory or looks up its files, so an M
 * never starts it.
 *
 * Return: true for such an op; false otherwise, and for an unknown @op.
 */
bool wsx_op_needs_submitter(unsigned int op)
{
	return wsx_op_flagged(op, WSX_OPF_SUBMITTER);
}

/**
 * wsx_op_may_fault - may the op's start wait for the submitter's faults?
 * @op:	the request's op, checked or not
 *
 * Return: true for an op that pins the submitter's pages; false
 * otherwise, and for an unknown @op.
 */
bool wsx_op_may_fault(unsigned int op)
{
	return wsx_op_flagged(op, WSX_OPF_FAULTS);
}

/**
 * wsx_op_create - create the root item of a request
 * @req:	the request, checked by wsx_op_check()
 * @job:	the job the item belongs to
 * @chans:	the session's channels, or NULL
 *
 * Return: the item (flagged WSX_ITEM_ROOT), or an ERR_PTR: -ENOMEM,
 * -EFAULT when a user buffer cannot be pinned, or -ENOENT for a channel
 * id @chans has not.
 */
struct wsx_item *wsx_op_create(const struct wsx_req *req, struct wsx_job *job,
			       struct wsx_uchans *chans)
{
	const struct wsx_op_type *type = wsx_op_type(req->op);
	struct wsx_node *root;
	int ret;

	if (WARN_ON_ONCE(!type))
		return ERR_PTR(-EINVAL);
	root = wsx_node_alloc(type, job);
	if (!root)
		return ERR_PTR(-ENOMEM);
	ret = type->start(root, req, chans);
	if (ret) {
		wsx_node_free(root);
		return ERR_PTR(ret);
	}
	root->item.flags |= WSX_ITEM_ROOT;
	return &root->item;
}

/**
 * wsx_op_init - set up the root item of a request in a node of the caller
 * @root:	the node, owned by the caller; its item runs the request's op
 *		and is done with when the job's done callback runs
 * @req:	the request, checked by wsx_op_check()
 * @job:	the job the item belongs to
 * @chans:	the session's channels, or NULL
 *
 * Nothing is allocated for NOP, SPIN, SLEEP, SEND and RECV; a POLL holds
 * its file, and a PINGPONG or a PIPELINE its channels, from here until
 * its item has run.  The item is
 * not flagged WSX_ITEM_ROOT: the caller sets it when the job's start is to
 * be timed.
 *
 * Return: 0, -ENOMEM, -EFAULT when a user buffer cannot be pinned, or
 * -ENOENT for a channel id @chans has not.
 */
int wsx_op_init(struct wsx_node *root, const struct wsx_req *req,
		struct wsx_job *job, struct wsx_uchans *chans)
{
	const struct wsx_op_type *type = wsx_op_type(req->op);

	if (WARN_ON_ONCE(!type))
		return -EINVAL;
	memset(root, 0, sizeof(*root));
	root->provided = true;
	wsx_node_setup(root, type, job);
	return root->type->start(root, req, chans);
}

/**
 * wsx_op_result - the result to report for a finished job
 * @op:		its enum wsx_op
 * @job:	the job
 *
 * Return: the number of nodes the job ran for an op whose result that is
 * (SPAWN), else what the op stored.
 */
u64 wsx_op_result(unsigned int op, const struct wsx_job *job)
{
	const struct wsx_op_type *type = wsx_op_type(op);

	return type && (type->flags & WSX_OPF_RESULT_NODES) ?
	       wsx_job_nodes(job) : job->result;
}

/* A new op added to enum wsx_op without an entry fails the load, loudly. */
static int wsx_op_types_check(void)
{
	unsigned int op;

	for (op = 0; op < ARRAY_SIZE(wsx_op_types); op++) {
		const struct wsx_op_type *t = &wsx_op_types[op];

		if (!t->name || !t->check || !t->start || !t->fn) {
			pr_err("op %u (%s) has no complete entry in the op table\n",
			       op, t->name ?: "unnamed");
			return -EINVAL;
		}
	}
	return 0;
}

int wsx_ops_init(void)
{
	int ret = wsx_op_types_check();

	if (ret)
		return ret;
	wsx_node_cache = KMEM_CACHE(wsx_node, 0);
	return wsx_node_cache ? 0 : -ENOMEM;
}

void wsx_ops_exit(void)
{
	kmem_cache_destroy(wsx_node_cache);
}
