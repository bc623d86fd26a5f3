// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_bench: the in-kernel contenders of `make bench`.
 *
 * The same item functions run on five executors ("contenders"):
 *
 *   wsx           wsx.ko through its exported API: the root is queued with
 *                 wsx_queue(), running items add work with wsx_spawn(), a
 *                 struct wsx_job's done callback ends the run
 *   cmwq-percpu   alloc_workqueue(name, 0, 0); items queue their children
 *                 with queue_work_on() the CPU they run on
 *   cmwq-unbound  alloc_workqueue(name, WQ_UNBOUND, 0) and queue_work()
 *   central       one FIFO list under one spinlock, served by wsx_nr_procs()
 *                 kthreads bound to the first online CPUs (the seeds' "one
 *                 central queue" strawman)
 *   direct        no executor: a LIFO list and a plain loop on the calling
 *                 CPU that pops an item and calls its function (the floor)
 *
 * Workloads (module parameters, writable in /sys/module/wsx_bench/):
 *
 *   spawn      a tree of spawn_items (87381) NOP items: an item that stands
 *              for n items spawns spawn_fanout (4) children standing for the
 *              n - 1 others, split evenly, and does nothing else; the
 *              defaults make the full 4-ary tree of depth 8, the shape of
 *              `wsxctl run spawn 4 8 0`
 *   fib        fork-join Fibonacci of fib_n (25) by continuations, as wsx's
 *              FIB op: a node spawns n-1 and n-2 and returns; the last child
 *              to finish combines both results and completes its parent
 *   imbalance  imb_items (4000) items spinning imb_spin_ns (10 us) each, all
 *              queued from the calling process at once on one place: wsx P0
 *              (WSX_WHERE_P), cmwq-percpu the first online CPU, cmwq-unbound
 *              queue_work(), central its list.  An item runs imb_spin_iters
 *              rounds of a multiply-add; when that is 0 the first imbalance
 *              run calibrates it to imb_spin_ns on its CPU and sets it (the
 *              result line tells it, so that a reload can pass it back)
 *   spawn-pre  the executor's own cost: spawn and fib over nodes allocated
 *   fib-pre    and zeroed before the clock starts, laid out in preorder so
 *              that an item finds its children by an offset from its own
 *              node; no item allocates or frees, so the times are the
 *              executor's and the item function's, without the slab
 *              allocator (and the zeroing of Debian's init_on_alloc)
 *   crc        direct only: CRC32C (__crc32c_le, ~0 seed, inverted) over
 *              crc_mib (256) MiB of vmalloc'ed memory on one CPU, filled with
 *              the xorshift64 pattern that bench/wsx_flood.c uses, so that
 *              the checksum equals the one wsx's CRC32C op computes there
 *
 * In spawn, fib and imbalance every item allocates its children from one
 * kmem_cache and frees itself, for every contender alike.
 *
 * Interface: /sys/kernel/debug/wsx_bench/run.  Write "WORKLOAD CONTENDER
 * [RUNS]" (RUNS defaults to 1, at most 100): the write returns when the runs
 * are over, or with -EINVAL for a bad command and -ENOMEM.  Then read one
 * line per run:
 *
 *   bench workload=W contender=C run=I cpus=N items=N ns=N result=N ok=0|1
 *
 * ns is the wall time (ktime_get_ns) from before the first item is queued
 * to after the last one finished, items how many item functions ran (for
 * crc the bytes), result the checksum or fib value, ok whether the result
 * is right and nothing failed, spin_iters the rounds of an imbalance item
 * (0 for the other workloads).  Reading before any write gives the usage.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "wsx.h"

static unsigned int spawn_items = 87381;
module_param(spawn_items, uint, 0644);
MODULE_PARM_DESC(spawn_items, "Items of the spawn tree (1 .. 2^24)");

static unsigned int spawn_fanout = 4;
module_param(spawn_fanout, uint, 0644);
MODULE_PARM_DESC(spawn_fanout, "Children of a spawn item (2 .. 16)");

static unsigned int fib_n = 25;
module_param(fib_n, uint, 0644);
MODULE_PARM_DESC(fib_n, "n of the fib workload (1 .. 32)");

static unsigned int imb_items = 4000;
module_param(imb_items, uint, 0644);
MODULE_PARM_DESC(imb_items, "Items of the imbalance workload (1 .. 10^6)");

static unsigned long long imb_spin_ns = 10000;
module_param(imb_spin_ns, ullong, 0644);
MODULE_PARM_DESC(imb_spin_ns, "ns each imbalance item spins (at most 10 ms)");

static unsigned long long imb_spin_iters;
module_param(imb_spin_iters, ullong, 0644);
MODULE_PARM_DESC(imb_spin_iters, "Loop rounds of an imbalance item (0: calibrate to imb_spin_ns at the first run)");

static unsigned int crc_mib = 256;
module_param(crc_mib, uint, 0644);
MODULE_PARM_DESC(crc_mib, "MiB of the crc workload (1 .. 1024)");

#define WB_OUT_SIZE	8192
#define WB_RUNS_MAX	100

enum wb_workload { WB_SPAWN, WB_FIB, WB_IMBALANCE, WB_CRC, WB_SPAWN_PRE,
		   WB_FIB_PRE, WB_NR_WORKLOADS };
enum wb_who { WB_WSX, WB_CMWQ_PERCPU, WB_CMWQ_UNBOUND, WB_CENTRAL, WB_DIRECT,
	      WB_NR_WHO };

static const char * const wb_workload_names[] = {
	[WB_SPAWN] = "spawn",
	[WB_FIB] = "fib",
	[WB_IMBALANCE] = "imbalance",
	[WB_CRC] = "crc",
	[WB_SPAWN_PRE] = "spawn-pre",
	[WB_FIB_PRE] = "fib-pre",
};

static const char * const wb_who_names[] = {
	[WB_WSX] = "wsx",
	[WB_CMWQ_PERCPU] = "cmwq-percpu",
	[WB_CMWQ_UNBOUND] = "cmwq-unbound",
	[WB_CENTRAL] = "central",
	[WB_DIRECT] = "direct",
};

struct wb_run;

/* One item, whatever runs it. */
struct wb_node {
	union {
		struct wsx_item wi;		/* wsx */
		struct work_struct work;	/* cmwq-* */
		struct list_head link;		/* central, direct */
	};
	struct wb_run *run;
	struct wb_node *parent;		/* fib: NULL for the root */
	u32 n;				/* spawn: items of the subtree; fib: n */
	u32 side;			/* fib: which child of the parent */
	atomic_t pending;		/* fib: children not yet completed */
	u64 part[2];			/* fib: their results */
};

/* One run of one workload on one contender (one at a time: wb_lock). */
struct wb_run {
	enum wb_who who;
	enum wb_workload what;		/* WB_SPAWN or WB_FIB for the -pre ones */
	struct wb_node *pool;		/* -pre: every node, in preorder */
	u32 fanout;			/* spawn: spawn_fanout at the start */
	u32 fib_nodes[33];		/* fib-pre: nodes of the tree of fib(n) */
	struct wsx_job job;		/* wsx */
	atomic_long_t pending;		/* the others: queued, not finished */
	struct completion done;
	struct list_head stack;		/* direct */
	u64 spin_iters;
	u64 result;
	bool failed;
};

/* The central queue and its kthreads. */
static struct {
	spinlock_t lock;		/* protects list and len */
	struct list_head list;
	unsigned long len;
	wait_queue_head_t wq;
	struct task_struct **threads;
	unsigned int nthreads;
} wb_cq;

static DEFINE_MUTEX(wb_lock);
static struct wb_run wb_run;
static struct kmem_cache *wb_node_cache;
static struct workqueue_struct *wb_wq_percpu, *wb_wq_unbound;
static struct dentry *wb_dir;
static char *wb_out;
static size_t wb_out_len;

/* ---- queueing, per contender ------------------------------------------ */

static void wb_work_fn(struct work_struct *work);
static void wb_wsx_fn(struct wsx_item *item);

static struct wb_node *wb_node_alloc(struct wb_run *run)
{
	struct wb_node *node = kmem_cache_alloc(wb_node_cache, GFP_KERNEL);

	if (!node) {
		WRITE_ONCE(run->failed, true);
		return NULL;
	}
	node->run = run;
	node->parent = NULL;
	return node;
}

static void wb_node_free(struct wb_node *node)
{
	if (!node->run->pool)
		kmem_cache_free(wb_node_cache, node);
}

/*
 * The child of @node at @off in the preorder of the tree, from the pool;
 * allocated when there is no pool (@node may then be freed already).
 */
static struct wb_node *wb_child(struct wb_run *run, struct wb_node *node,
				u32 off)
{
	struct wb_node *child;

	if (!run->pool)
		return wb_node_alloc(run);
	child = node + off;
	child->run = run;
	child->parent = NULL;
	return child;
}

static void wb_central_push(struct wb_node *node)
{
	spin_lock(&wb_cq.lock);
	list_add_tail(&node->link, &wb_cq.list);
	WRITE_ONCE(wb_cq.len, wb_cq.len + 1);
	spin_unlock(&wb_cq.lock);
	/* wq_has_sleeper() has the barrier that pairs with the waiter's */
	if (wq_has_sleeper(&wb_cq.wq))
		wake_up(&wb_cq.wq);
}

/*
 * Queue @node from a running item (@root false) or from the process that
 * starts the run (@root true, wsx only: an item may use wsx_spawn()).
 */
static void wb_push(struct wb_run *run, struct wb_node *node, bool root)
{
	switch (run->who) {
	case WB_WSX:
		wsx_item_init(&node->wi, wb_wsx_fn, &run->job);
		if (root)
			wsx_queue(&node->wi, WSX_WHERE_LOCAL, 0);
		else
			wsx_spawn(&node->wi);
		return;
	case WB_CMWQ_PERCPU:
		atomic_long_inc(&run->pending);
		INIT_WORK(&node->work, wb_work_fn);
		queue_work_on(raw_smp_processor_id(), wb_wq_percpu, &node->work);
		return;
	case WB_CMWQ_UNBOUND:
		atomic_long_inc(&run->pending);
		INIT_WORK(&node->work, wb_work_fn);
		queue_work(wb_wq_unbound, &node->work);
		return;
	case WB_CENTRAL:
		atomic_long_inc(&run->pending);
		wb_central_push(node);
		return;
	case WB_DIRECT:
	case WB_NR_WHO:
		list_add(&node->link, &run->stack);
		return;
	}
}

/* An item of a non-wsx contender finished; the last one ends the run. */
static void wb_put(struct wb_run *run)
{
	if (atomic_long_dec_and_test(&run->pending))
		complete(&run->done);
}

/* ---- the item functions ------------------------------------------------ */

static void wb_spawn_child(struct wb_run *run, struct wb_node *node, u32 off,
			   u32 n)
{
	struct wb_node *child = wb_child(run, node, off);

	if (!child)
		return;
	child->n = n;
	wb_push(run, child, false);
}

static void wb_spawn_fn(struct wb_node *node)
{
	struct wb_run *run = node->run;
	u32 rest = node->n - 1, fanout = run->fanout, off = 1, i, n;

	/*
	 * Child i stands for (rest + fanout - 1 - i) / fanout items, the first
	 * ones for one more when rest does not divide evenly.  A subtree of n
	 * items takes n slots in the pool: each child's follow the previous.
	 */
	wb_node_free(node);
	for (i = 0; i < fanout; i++) {
		n = (rest + fanout - 1 - i) / fanout;
		if (!n)
			break;
		wb_spawn_child(run, node, off, n);
		off += n;
	}
}

/* A fib node finished with @value: complete parents up to the root. */
static void wb_fib_join(struct wb_node *node, u64 value)
{
	struct wb_node *parent;

	for (;;) {
		parent = node->parent;
		if (!parent) {
			node->run->result = value;
			wb_node_free(node);
			return;
		}
		parent->part[node->side] = value;
		wb_node_free(node);
		/* fully ordered: the last child sees both parts */
		if (!atomic_dec_and_test(&parent->pending))
			return;
		node = parent;
		value = node->part[0] + node->part[1];
	}
}

static void wb_fib_fn(struct wb_node *node)
{
	struct wb_run *run = node->run;
	struct wb_node *child[2];
	unsigned int side;

	if (node->n < 2) {
		wb_fib_join(node, node->n);
		return;
	}
	/* preorder: fib(n - 1)'s tree follows the node, fib(n - 2)'s that */
	child[0] = wb_child(run, node, 1);
	child[1] = wb_child(run, node, 1 + run->fib_nodes[node->n - 1]);
	if (!child[0] || !child[1]) {
		if (child[0])
			wb_node_free(child[0]);
		if (child[1])
			wb_node_free(child[1]);
		wb_fib_join(node, 0);
		return;
	}
	atomic_set(&node->pending, 2);
	for (side = 0; side < 2; side++) {
		child[side]->parent = node;
		child[side]->side = side;
		child[side]->n = node->n - 1 - side;
	}
	/* side 1 first: side 0 runs next, as wsx's FIB op does */
	wb_push(run, child[1], false);
	wb_push(run, child[0], false);
}

/*
 * Burn the CPU for @iters rounds of a multiply-add, without reading any
 * clock: under QEMU's TCG the guest clocksource is the HPET, whose reads
 * are serialised by QEMU's big lock, so a loop polling ktime_get_ns() would
 * not run in parallel on several vCPUs.
 */
static void wb_burn(u64 iters)
{
	u64 x = 1;

	while (iters--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		OPTIMIZER_HIDE_VAR(x);
	}
}

/* Rounds of wb_burn() that take @ns on this CPU: the best of 3 timings. */
static u64 wb_calibrate(u64 ns)
{
	u64 iters = 1 << 12, t, best = U64_MAX;
	int i;

	for (;;) {
		t = ktime_get_ns();
		wb_burn(iters);
		t = ktime_get_ns() - t;
		if (t >= 10 * NSEC_PER_MSEC)
			break;
		iters *= 2;
	}
	for (i = 0; i < 3; i++) {
		t = ktime_get_ns();
		wb_burn(iters);
		best = min(best, ktime_get_ns() - t);
		cond_resched();
	}
	return max_t(u64, div64_u64(iters * ns, best), 1);
}

static void wb_spin_fn(struct wb_node *node)
{
	u64 iters = node->run->spin_iters;

	wb_node_free(node);
	wb_burn(iters);
}

/* Run one item's function; it frees @node. */
static void wb_node_run(struct wb_node *node)
{
	struct wb_run *run = node->run;

	switch (run->what) {
	case WB_SPAWN:
	case WB_SPAWN_PRE:
		wb_spawn_fn(node);
		return;
	case WB_FIB:
	case WB_FIB_PRE:
		wb_fib_fn(node);
		return;
	case WB_IMBALANCE:
	case WB_CRC:
	case WB_NR_WORKLOADS:
		wb_spin_fn(node);
		return;
	}
}

static void wb_wsx_fn(struct wsx_item *item)
{
	wb_node_run(container_of(item, struct wb_node, wi));
}

static void wb_wsx_done(struct wsx_job *job)
{
	complete(&container_of(job, struct wb_run, job)->done);
}

static void wb_work_fn(struct work_struct *work)
{
	struct wb_node *node = container_of(work, struct wb_node, work);
	struct wb_run *run = node->run;

	wb_node_run(node);
	wb_put(run);
}

/* ---- the central queue's kthreads -------------------------------------- */

static int wb_central_main(void *unused)
{
	struct wb_node *node;
	struct wb_run *run;

	while (!kthread_should_stop()) {
		spin_lock(&wb_cq.lock);
		node = list_first_entry_or_null(&wb_cq.list, struct wb_node,
						link);
		if (node) {
			list_del(&node->link);
			WRITE_ONCE(wb_cq.len, wb_cq.len - 1);
		}
		spin_unlock(&wb_cq.lock);
		if (!node) {
			wait_event_idle_exclusive(wb_cq.wq,
						  READ_ONCE(wb_cq.len) ||
						  kthread_should_stop());
			continue;
		}
		run = node->run;
		wb_node_run(node);
		wb_put(run);
		cond_resched();
	}
	return 0;
}

static void wb_central_exit(void)
{
	unsigned int i;

	for (i = 0; i < wb_cq.nthreads; i++)
		kthread_stop(wb_cq.threads[i]);
	kfree(wb_cq.threads);
	wb_cq.threads = NULL;
	wb_cq.nthreads = 0;
}

static int wb_central_init(void)
{
	unsigned int n = wsx_nr_procs(), cpu;
	struct task_struct *t;

	spin_lock_init(&wb_cq.lock);
	INIT_LIST_HEAD(&wb_cq.list);
	init_waitqueue_head(&wb_cq.wq);
	wb_cq.threads = kcalloc(n, sizeof(*wb_cq.threads), GFP_KERNEL);
	if (!wb_cq.threads)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		if (wb_cq.nthreads == n)
			break;
		t = kthread_create_on_cpu(wb_central_main, NULL, cpu,
					  "wsx_bench_cq/%u");
		if (IS_ERR(t)) {
			wb_central_exit();
			return PTR_ERR(t);
		}
		wb_cq.threads[wb_cq.nthreads++] = t;
		wake_up_process(t);
	}
	return 0;
}

/* ---- runs -------------------------------------------------------------- */

static u64 wb_fib(unsigned int n)
{
	u64 a = 0, b = 1, t;

	while (n--) {
		t = a + b;
		a = b;
		b = t;
	}
	return a;
}

/* The same xorshift64 fill as bench/wsx_flood.c. */
static void wb_fill(u64 *buf, size_t words)
{
	u64 x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
		if (!(i & 0xfffff))
			cond_resched();
	}
}

static int wb_crc(u64 *ns, u64 *result, u64 *bytes)
{
	size_t len = (size_t)crc_mib << 20, off, n;
	u64 start;
	u8 *buf;
	u32 crc = ~0U;

	buf = vmalloc(len);
	if (!buf)
		return -ENOMEM;
	wb_fill((u64 *)buf, len / sizeof(u64));
	start = ktime_get_ns();
	for (off = 0; off < len; off += n) {
		n = min_t(size_t, len - off, 64 * 1024);
		crc = __crc32c_le(crc, buf + off, n);
		cond_resched();
	}
	*ns = ktime_get_ns() - start;
	vfree(buf);
	*result = ~crc;
	*bytes = len;
	return 0;
}

/* Queue the first items of @run; returns how many. */
static unsigned long wb_start(struct wb_run *run)
{
	unsigned int cpu0 = cpumask_first(cpu_online_mask);
	struct wb_node *node;
	unsigned long i;

	if (run->what != WB_IMBALANCE) {
		node = run->pool ? wb_child(run, run->pool, 0) :
				   wb_node_alloc(run);
		if (!node)
			return 0;
		node->n = run->what == WB_SPAWN ? spawn_items : fib_n;
		wb_push(run, node, true);
		return 1;
	}
	for (i = 0; i < imb_items; i++) {
		node = wb_node_alloc(run);
		if (!node)
			return i;
		switch (run->who) {
		case WB_WSX:
			wsx_item_init(&node->wi, wb_wsx_fn, &run->job);
			if (wsx_queue(&node->wi, WSX_WHERE_P, 0)) {
				WRITE_ONCE(run->failed, true);
				wb_node_free(node);
				return i;
			}
			break;
		case WB_CMWQ_PERCPU:
			atomic_long_inc(&run->pending);
			INIT_WORK(&node->work, wb_work_fn);
			queue_work_on(cpu0, wb_wq_percpu, &node->work);
			break;
		default:
			wb_push(run, node, true);
			break;
		}
	}
	return i;
}

/*
 * The pool of a -pre run: every node of the tree, zeroed (so its pages are
 * there) before the clock starts.  NULL if out of memory.
 */
static struct wb_node *wb_pool_alloc(struct wb_run *run)
{
	unsigned int n;
	u64 nodes;

	for (n = 0; n < ARRAY_SIZE(run->fib_nodes); n++)
		run->fib_nodes[n] = 2 * wb_fib(n + 1) - 1;
	nodes = run->what == WB_SPAWN ? spawn_items : run->fib_nodes[fib_n];
	return vzalloc(array_size(nodes, sizeof(struct wb_node)));
}

static int wb_run_once(enum wb_workload what, enum wb_who who, u64 *ns,
		       u64 *result, u64 *items)
{
	struct wb_run *run = &wb_run;
	struct wb_node *node;
	int ret = 0;
	u64 start;

	if (what == WB_CRC)
		return wb_crc(ns, result, items);

	memset(run, 0, sizeof(*run));
	run->who = who;
	run->fanout = spawn_fanout;
	run->what = what == WB_SPAWN_PRE ? WB_SPAWN :
		    what == WB_FIB_PRE ? WB_FIB : what;
	if (run->what != what) {
		run->pool = wb_pool_alloc(run);
		if (!run->pool)
			return -ENOMEM;
	}
	run->spin_iters = imb_spin_iters;
	init_completion(&run->done);
	INIT_LIST_HEAD(&run->stack);
	atomic_long_set(&run->pending, 1);	/* ours, until all are queued */
	wsx_job_init(&run->job, wb_wsx_done);

	start = ktime_get_ns();
	wb_start(run);
	if (who == WB_DIRECT) {
		while (!list_empty(&run->stack)) {
			node = list_first_entry(&run->stack, struct wb_node,
						link);
			list_del(&node->link);
			wb_node_run(node);
			cond_resched();
		}
	} else {
		if (who == WB_WSX)
			wsx_job_start(&run->job);
		else
			wb_put(run);
		wait_for_completion(&run->done);
	}
	*ns = ktime_get_ns() - start;
	*result = run->result;
	vfree(run->pool);
	switch (run->what) {
	case WB_SPAWN:
		*items = spawn_items;
		if (who == WB_WSX && wsx_job_nodes(&run->job) != spawn_items)
			ret = -EIO;
		break;
	case WB_FIB:
		*items = 2 * wb_fib(fib_n + 1) - 1;
		if (*result != wb_fib(fib_n))
			ret = -EIO;
		break;
	default:
		*items = imb_items;
		break;
	}
	return ret ?: READ_ONCE(run->failed) ? -ENOMEM : 0;
}

static bool wb_params_ok(void)
{
	return spawn_items >= 1 && spawn_items <= (1U << 24) &&
	       spawn_fanout >= 2 && spawn_fanout <= 16 &&
	       fib_n >= 1 && fib_n <= 32 &&
	       imb_items >= 1 && imb_items <= 1000000 &&
	       imb_spin_ns <= 10 * NSEC_PER_MSEC &&
	       imb_spin_iters <= 1000000000ULL &&
	       crc_mib >= 1 && crc_mib <= 1024;
}

static int wb_command(char *cmd)
{
	char *what_s, *who_s, *runs_s;
	unsigned int runs = 1, i;
	int what, who, ret;
	u64 ns, result, items;

	cmd = strim(cmd);
	what_s = strsep(&cmd, " \t");
	who_s = strsep(&cmd, " \t");
	runs_s = strsep(&cmd, " \t");
	if (!what_s || !who_s || cmd)
		return -EINVAL;
	what = match_string(wb_workload_names, WB_NR_WORKLOADS, what_s);
	who = match_string(wb_who_names, WB_NR_WHO, who_s);
	if (what < 0 || who < 0 || (what == WB_CRC && who != WB_DIRECT))
		return -EINVAL;
	if (runs_s && (kstrtouint(runs_s, 10, &runs) || !runs ||
		       runs > WB_RUNS_MAX))
		return -EINVAL;
	if (!wb_params_ok())
		return -EINVAL;

	if (what == WB_IMBALANCE && !imb_spin_iters)
		imb_spin_iters = wb_calibrate(imb_spin_ns);
	wb_out_len = 0;
	for (i = 0; i < runs; i++) {
		ret = wb_run_once(what, who, &ns, &result, &items);
		/* no time to report: crc's buffer or a -pre pool failed */
		if (ret == -ENOMEM && (what == WB_CRC || what == WB_SPAWN_PRE ||
				       what == WB_FIB_PRE))
			return ret;
		wb_out_len += scnprintf(wb_out + wb_out_len,
					WB_OUT_SIZE - wb_out_len,
					"bench workload=%s contender=%s run=%u cpus=%u items=%llu ns=%llu result=%llu ok=%d spin_iters=%llu\n",
					wb_workload_names[what],
					wb_who_names[who], i, num_online_cpus(),
					items, ns, result, !ret,
					what == WB_IMBALANCE ? imb_spin_iters : 0);
	}
	return 0;
}

/* ---- debugfs ------------------------------------------------------------ */

static ssize_t wb_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char cmd[64];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	mutex_lock(&wb_lock);
	ret = wb_command(cmd);
	mutex_unlock(&wb_lock);
	return ret ? ret : len;
}

static ssize_t wb_run_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	static const char usage[] =
		"write: WORKLOAD CONTENDER [RUNS]\n"
		"workloads: spawn fib imbalance crc spawn-pre fib-pre\n"
		"contenders: wsx cmwq-percpu cmwq-unbound central direct\n";
	ssize_t ret;

	mutex_lock(&wb_lock);
	if (wb_out_len)
		ret = simple_read_from_buffer(ubuf, len, ppos, wb_out,
					      wb_out_len);
	else
		ret = simple_read_from_buffer(ubuf, len, ppos, usage,
					      sizeof(usage) - 1);
	mutex_unlock(&wb_lock);
	return ret;
}

static const struct file_operations wb_run_fops = {
	.owner = THIS_MODULE,
	.read = wb_run_read,
	.write = wb_run_write,
	.llseek = default_llseek,
};

/* ---- init and exit ------------------------------------------------------ */

static int __init wb_init(void)
{
	int ret = -ENOMEM;

	wb_out = kzalloc(WB_OUT_SIZE, GFP_KERNEL);
	wb_node_cache = KMEM_CACHE(wb_node, 0);
	wb_wq_percpu = alloc_workqueue("wsx_bench", 0, 0);
	wb_wq_unbound = alloc_workqueue("wsx_bench_unbound", WQ_UNBOUND, 0);
	if (!wb_out || !wb_node_cache || !wb_wq_percpu || !wb_wq_unbound)
		goto fail;
	ret = wb_central_init();
	if (ret)
		goto fail;
	wb_dir = debugfs_create_dir("wsx_bench", NULL);
	debugfs_create_file("run", 0600, wb_dir, NULL, &wb_run_fops);
	return 0;
fail:
	if (wb_wq_unbound)
		destroy_workqueue(wb_wq_unbound);
	if (wb_wq_percpu)
		destroy_workqueue(wb_wq_percpu);
	kmem_cache_destroy(wb_node_cache);
	kfree(wb_out);
	return ret;
}

static void __exit wb_exit(void)
{
	debugfs_remove_recursive(wb_dir);
	wb_central_exit();
	destroy_workqueue(wb_wq_unbound);
	destroy_workqueue(wb_wq_percpu);
	kmem_cache_destroy(wb_node_cache);
	kfree(wb_out);
}

module_init(wb_init);
module_exit(wb_exit);
MODULE_DESCRIPTION("wsx benchmarks: wsx against cmwq, a central queue and direct calls");
MODULE_LICENSE("GPL");
