// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: statistics under /sys/kernel/debug/wsx/.
 *
 *   stats       the format's version line, "wsx_stats version=<n>"
 *               (WSX_STATS_VERSION; see wsx(4): every other line is a
 *               tag then key=value pairs, and within a version tags and
 *               keys are only added, never renamed or removed; a new
 *               version is an incompatible change), then
 *               one line per P, "P<id> node=<node index> key=value ...",
 *               the keys including steals_<level> and stolen_<level>,
 *               the steals and items taken from victims that far (smt,
 *               cache, node, remote: topology.c), and wakes_<level>,
 *               the times the P was woken by a search for an idle P
 *               that started that far from it (wsx_pidle_get(); smt
 *               counting the P's own inbox), then, with one
 *               global queue per NUMA node (steal_topology=numa, several
 *               nodes), one line per node index i, "node<i> nid=<kernel
 *               node> depth=<n> puts=<n> gets=<n>", then
 *               "global depth=<n> puts=<n> gets=<n> cancelled=<n>
 *               waiting=<n> ready_inbox=<n> ready_global=<n>
 *               io_wait=<n> chans=<n>
 *               threads=<n> threads_max=<n> threads_started=<n>
 *               threads_exited=<n> handoffs=<n> blocked=<n>
 *               wasted_checks=<n> wasted_ms=<n>" and the work
 *               sources' counters (source.h, show()), the global queues'
 *               totals, the Ms', the monitor's wasted-cores check's
 *               (monitor.c) and the sources', then one line per user of
 *               /dev/wsx, "user uid=<n> items=<n> cpu_ns=<n>" (account.c)
 *   schedtrace  one line in the format of Go's GODEBUG=schedtrace:
 *               "WSX <ms>ms: nprocs=<n> idleprocs=<n> threads=<n>
 *               spinningthreads=<n> idlethreads=<n> waiting=<n>
 *               runqueue=<n> [<P0> ...]" with the parked items
 *               (wsx_park() not yet readied), the global queues' depth
 *               (all nodes') and each P's queued items
 *   steal_log   the last WSX_STEAL_LOG steals of each P, one per line:
 *               "P<thief> victim=<id> seen=<n> taken=<n> level=<level>",
 *               seen being the victim's runq length at the thief's
 *               snapshot, level how far the victim is
 *   latency     queued-to-started time of the items sampled (one in
 *               latency_sample per CPU), one line per kind:
 *               "<kind> count=<n> <b0> <b1> ... <b63>", kind one of local,
 *               remote, global, stolen; bucket b counts times t (ns) with
 *               fls64(t) == b, i.e. 2^(b-1) <= t < 2^b (b0: t == 0)
 *   steals      "sizes <b0> ... <b9>": steals by items taken (bucket b:
 *               2^b <= n < 2^(b+1)); then one line per thief,
 *               "P<thief> <steals from P0> <from P1> ...": the thief x
 *               victim matrix
 *   reset       writing anything zeroes the counters and histograms
 *
 * The counters are written by each P's owner without atomics and read here
 * racily with READ_ONCE: a line is not a consistent snapshot of all Ps.
 *
 * Module parameter schedtrace_ms (0 = off, writable at run time) prints the
 * schedtrace line to the kernel log every so many ms, as Go's
 * GODEBUG=schedtrace does; with scheddetail=1 each is followed by one line
 * per node ("node<i>: nid=<n> ps=<n> running=<n> idle=<n> offline=<n>"),
 * one per P and one per M, as Go's scheddetail, then "parked: waiting=<n>
 * io_wait=<n> chans=<n>" (Go's waiting goroutines by reason: IO wait, and
 * the channels).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "account.h"
#include "chan.h"
#include "fault.h"
#include "monitor.h"
#include "poll.h"
#include "queue.h"
#include "sched.h"
#include "source.h"
#include "stats.h"
#include "submit.h"

/* The stats file's format (see the header); bump only for a change that
 * renames or removes a key or a line's tag.
 */
#define WSX_STATS_VERSION	1

/* Longest schedtrace line: the head, then up to 11 bytes per P. */
#define WSX_SCHEDTRACE_MAX	(256 + 11 * wsx_sched.nprocs)

static struct dentry *wsx_debugfs_dir;

#define WSX_STAT(name) { #name, offsetof(struct wsx_pstats, name) }
/* steals_smt .. wakes_remote: level_steals[], level_stolen[], level_wakes[] */
#define WSX_STAT_LEVEL(what, LEVEL, name)				\
	{ #what "_" #name,						\
	  offsetof(struct wsx_pstats, level_##what[WSX_LEVEL_##LEVEL]) }

static const struct {
	const char *name;
	size_t offset;
} wsx_pstat_fields[] = {
	WSX_STAT(executed),
	WSX_STAT(runnext_hits),
	WSX_STAT(ring_puts),
	WSX_STAT(spills),
	WSX_STAT(spilled),
	WSX_STAT(global_gets),
	WSX_STAT(steal_attempts),
	WSX_STAT(steals),
	WSX_STAT(stolen),
	WSX_STAT(steal_cas_fails),
	WSX_STAT(spins),
	WSX_STAT(parks),
	WSX_STAT(wakeups),
	WSX_STAT(item_parks),
	WSX_STAT(ready_runnext),
	WSX_STAT(ready_displaced),
	WSX_STAT(job_adds),
	WSX_STAT(job_returns),
	WSX_STAT_LEVEL(steals, SMT, smt),
	WSX_STAT_LEVEL(steals, CACHE, cache),
	WSX_STAT_LEVEL(steals, NODE, node),
	WSX_STAT_LEVEL(steals, REMOTE, remote),
	WSX_STAT_LEVEL(stolen, SMT, smt),
	WSX_STAT_LEVEL(stolen, CACHE, cache),
	WSX_STAT_LEVEL(stolen, NODE, node),
	WSX_STAT_LEVEL(stolen, REMOTE, remote),
	WSX_STAT_LEVEL(wakes, SMT, smt),
	WSX_STAT_LEVEL(wakes, CACHE, cache),
	WSX_STAT_LEVEL(wakes, NODE, node),
	WSX_STAT_LEVEL(wakes, REMOTE, remote),
};

static const char * const wsx_level_names[WSX_NR_LEVELS] = {
	[WSX_LEVEL_SMT] = "smt",
	[WSX_LEVEL_CACHE] = "cache",
	[WSX_LEVEL_NODE] = "node",
	[WSX_LEVEL_REMOTE] = "remote",
};

/* The per-node queues' lines, if any, and the totals' line's head. */
static void wsx_global_stats_show(struct seq_file *sf)
{
	u64 puts = 0, gets = 0;
	unsigned int q;

	for (q = 0; q < wsx_sched.ngq; q++) {
		const struct wsx_gqueue *gq = &wsx_sched.gq[q];

		puts += READ_ONCE(gq->puts);
		gets += READ_ONCE(gq->gets);
		if (wsx_sched.ngq > 1)
			seq_printf(sf, "node%u nid=%d depth=%u puts=%llu gets=%llu\n",
				   q, wsx_sched.node_ids[q], READ_ONCE(gq->len),
				   READ_ONCE(gq->puts), READ_ONCE(gq->gets));
	}
	seq_printf(sf, "global depth=%u puts=%llu gets=%llu cancelled=%lld",
		   wsx_gq_len_all(), puts, gets,
		   (s64)atomic64_read(&wsx_cancelled_jobs));
	wsx_parked_show(sf);
	seq_printf(sf, " io_wait=%ld chans=%ld", wsx_polls_waiting(),
		   wsx_chans_count());
}

static int wsx_stats_show(struct seq_file *sf, void *unused)
{
	u64 wasted_checks, wasted_ms;
	unsigned int id, i;

	seq_printf(sf, "wsx_stats version=%d\n", WSX_STATS_VERSION);
	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];
		const void *st = &p->stats;

		seq_printf(sf, "P%u node=%u", id, p->node);
		for (i = 0; i < ARRAY_SIZE(wsx_pstat_fields); i++)
			seq_printf(sf, " %s=%llu", wsx_pstat_fields[i].name,
				   READ_ONCE(*(const u64 *)(st +
					     wsx_pstat_fields[i].offset)));
		seq_printf(sf, " stolen_from=%lld long_items=%lld rescued=%lld depth=%u online=%d\n",
			   (s64)atomic64_read(&p->stats.stolen_from),
			   (s64)atomic64_read(&p->stats.long_items),
			   (s64)atomic64_read(&p->stats.rescued),
			   wsx_p_depth(p), READ_ONCE(p->want_online));
	}
	wsx_global_stats_show(sf);
	spin_lock(&wsx_sched.mlock);
	seq_printf(sf, " threads=%u threads_max=%u threads_started=%llu threads_exited=%llu",
		   wsx_sched.nthreads, wsx_sched.nthreads_max,
		   wsx_sched.threads_started, wsx_sched.threads_exited);
	spin_unlock(&wsx_sched.mlock);
	wsx_monitor_wasted(&wasted_checks, &wasted_ms);
	seq_printf(sf, " handoffs=%lld blocked=%d wasted_checks=%llu wasted_ms=%llu",
		   (s64)atomic64_read(&wsx_sched.handoffs),
		   atomic_read(&wsx_sched.nblocked), wasted_checks, wasted_ms);
	wsx_sources_show(sf);
	seq_putc(sf, '\n');
	wsx_accounts_show(sf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_stats);

/* The schedtrace line, without newline, into @buf of @len bytes. */
static void wsx_schedtrace_format(char *buf, size_t len)
{
	unsigned int id, idle = 0, spinning = 0, threads;
	struct wsx_m *m;
	int n;

	spin_lock(&wsx_sched.mlock);
	list_for_each_entry(m, &wsx_sched.mall, all) {
		/* parked with a P, or in the pool without one */
		idle += READ_ONCE(m->parked) || !list_empty(&m->node);
		spinning += READ_ONCE(m->spinning);
	}
	threads = wsx_sched.nthreads;
	spin_unlock(&wsx_sched.mlock);
	n = scnprintf(buf, len, "WSX %llums: nprocs=%u idleprocs=%d threads=%u",
		      div_u64(ktime_get_ns() - wsx_sched.start_ns, NSEC_PER_MSEC),
		      wsx_sched.nprocs, atomic_read(&wsx_sched.npidle),
		      threads);
	n += scnprintf(buf + n, len - n,
		       " spinningthreads=%u idlethreads=%u waiting=%ld runqueue=%u [",
		       spinning, idle, max(wsx_parked_left(), 0L),
		       wsx_gq_len_all());
	for (id = 0; id < wsx_sched.nprocs; id++)
		n += scnprintf(buf + n, len - n, "%s%u", id ? " " : "",
			       wsx_p_depth(wsx_sched.ps[id]));
	scnprintf(buf + n, len - n, "]");
}

static int wsx_schedtrace_show(struct seq_file *sf, void *unused)
{
	char *buf = kmalloc(WSX_SCHEDTRACE_MAX, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	wsx_schedtrace_format(buf, WSX_SCHEDTRACE_MAX);
	seq_printf(sf, "%s\n", buf);
	kfree(buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_schedtrace);

static int wsx_steal_log_show(struct seq_file *sf, void *unused)
{
	unsigned int id, i, pos, n;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];

		pos = READ_ONCE(p->steal_log_pos);
		n = min_t(unsigned int, pos, WSX_STEAL_LOG);
		for (i = pos - n; i != pos; i++) {
			struct wsx_steal_rec *rec =
				&p->steal_log[i % WSX_STEAL_LOG];

			seq_printf(sf, "P%u victim=%u seen=%u taken=%u level=%s\n",
				   id, READ_ONCE(rec->victim),
				   READ_ONCE(rec->seen), READ_ONCE(rec->taken),
				   wsx_level_names[min_t(u32, READ_ONCE(rec->level),
							 WSX_LEVEL_REMOTE)]);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_steal_log);

static const char * const wsx_origin_names[WSX_NR_ORIGINS] = {
	[WSX_ORIGIN_LOCAL] = "local",
	[WSX_ORIGIN_REMOTE] = "remote",
	[WSX_ORIGIN_GLOBAL] = "global",
	[WSX_ORIGIN_STOLEN] = "stolen",
};

static int wsx_latency_show(struct seq_file *sf, void *unused)
{
	u64 sum[WSX_LAT_BUCKETS], count;
	unsigned int kind, id, b;

	for (kind = 0; kind < WSX_NR_ORIGINS; kind++) {
		memset(sum, 0, sizeof(sum));
		count = 0;
		for (id = 0; id < wsx_sched.nprocs; id++)
			for (b = 0; b < WSX_LAT_BUCKETS; b++)
				sum[b] += READ_ONCE(wsx_sched.ps[id]->hist.latency[kind][b]);
		for (b = 0; b < WSX_LAT_BUCKETS; b++)
			count += sum[b];
		seq_printf(sf, "%s count=%llu", wsx_origin_names[kind], count);
		for (b = 0; b < WSX_LAT_BUCKETS; b++)
			seq_printf(sf, " %llu", sum[b]);
		seq_putc(sf, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_latency);

static int wsx_steals_show(struct seq_file *sf, void *unused)
{
	unsigned int id, v, b;
	u64 sum;

	seq_puts(sf, "sizes");
	for (b = 0; b < WSX_STEAL_BUCKETS; b++) {
		sum = 0;
		for (id = 0; id < wsx_sched.nprocs; id++)
			sum += READ_ONCE(wsx_sched.ps[id]->hist.steal_size[b]);
		seq_printf(sf, " %llu", sum);
	}
	seq_putc(sf, '\n');
	for (id = 0; id < wsx_sched.nprocs; id++) {
		seq_printf(sf, "P%u", id);
		for (v = 0; v < wsx_sched.nprocs; v++)
			seq_printf(sf, " %llu",
				   READ_ONCE(wsx_sched.ps[id]->hist.steals_from[v]));
		seq_putc(sf, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_steals);

static ssize_t wsx_reset_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	wsx_sched_reset_stats();
	wsx_monitor_reset_wasted();
	wsx_parked_reset();
	atomic64_set(&wsx_cancelled_jobs, 0);
	wsx_accounts_reset();
	return count;
}

static const struct file_operations wsx_reset_fops = {
	.owner = THIS_MODULE,
	.write = wsx_reset_write,
	.llseek = noop_llseek,
};

/* ---- schedtrace_ms and scheddetail: the log, as GODEBUG=schedtrace ---- */

static unsigned int schedtrace_ms;
static bool scheddetail;
module_param(scheddetail, bool, 0644);
MODULE_PARM_DESC(scheddetail, "With schedtrace_ms: also print one line per P and per M");

static void wsx_schedtrace_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(wsx_schedtrace_work, wsx_schedtrace_fn);

/* One line per node: its Ps by state. */
static void wsx_scheddetail_nodes(void)
{
	unsigned int node, id, state[3];

	for (node = 0; node < wsx_sched.nnodes; node++) {
		memset(state, 0, sizeof(state));
		for (id = 0; id < wsx_sched.nprocs; id++) {
			struct wsx_p *p = wsx_sched.ps[id];

			if (p->node != node)
				continue;
			state[!READ_ONCE(p->want_online) ? 2 :
			      test_bit(id, wsx_sched.pidle)]++;
		}
		pr_info("  node%u: nid=%d ps=%u running=%u idle=%u offline=%u\n",
			node, wsx_sched.node_ids[node],
			state[0] + state[1] + state[2], state[0], state[1],
			state[2]);
	}
}

static void wsx_scheddetail_print(void)
{
	struct wsx_m *m;
	unsigned int id;

	wsx_scheddetail_nodes();
	/* under mlock: a P's holder cannot be reaped meanwhile */
	spin_lock(&wsx_sched.mlock);
	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];

		pr_info("  P%u: status=%s schedtick=%u m=%u runqsize=%u runnext=%d timers=%u\n",
			id, !READ_ONCE(p->want_online) ? "offline" :
			test_bit(id, wsx_sched.pidle) ? "idle" : "running",
			READ_ONCE(p->schedtick), READ_ONCE(p->m)->id,
			wsx_runq_len(&p->runq), !!READ_ONCE(p->runnext),
			READ_ONCE(p->ntimers));
	}
	list_for_each_entry(m, &wsx_sched.mall, all) {
		struct wsx_p *p = READ_ONCE(m->p);

		pr_info("  M%u: p=%d spinning=%d parked=%d blocked=%d curitem=%p\n",
			m->id, p ? (int)p->id : -1, READ_ONCE(m->spinning),
			READ_ONCE(m->parked), READ_ONCE(m->blocked),
			p && READ_ONCE(p->m) == m ? READ_ONCE(p->cur) : NULL);
	}
	spin_unlock(&wsx_sched.mlock);
	/* Go's waiting goroutines by reason: IO wait, and the channels */
	pr_info("  parked: waiting=%ld io_wait=%ld chans=%ld\n",
		max(wsx_parked_left(), 0L), wsx_polls_waiting(),
		wsx_chans_count());
}

static void wsx_schedtrace_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(schedtrace_ms);
	char *buf;

	if (!ms)
		return;
	buf = kmalloc(WSX_SCHEDTRACE_MAX, GFP_KERNEL);
	if (buf) {
		wsx_schedtrace_format(buf, WSX_SCHEDTRACE_MAX);
		pr_info("%s\n", buf);
		kfree(buf);
	}
	if (READ_ONCE(scheddetail))
		wsx_scheddetail_print();
	schedule_delayed_work(&wsx_schedtrace_work, msecs_to_jiffies(ms));
}

static int wsx_schedtrace_ms_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	/* before init, wsx_debugfs_init() starts it */
	if (!ret && wsx_debugfs_dir)
		mod_delayed_work(system_wq, &wsx_schedtrace_work, 0);
	return ret;
}

static const struct kernel_param_ops wsx_schedtrace_ms_ops = {
	.set = wsx_schedtrace_ms_set,
	.get = param_get_uint,
};
module_param_cb(schedtrace_ms, &wsx_schedtrace_ms_ops, &schedtrace_ms, 0644);
MODULE_PARM_DESC(schedtrace_ms, "Print the schedtrace line to the kernel log every this many ms (0: off)");

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} wsx_debugfs_files[] = {
	{ "stats", 0400, &wsx_stats_fops },
	{ "schedtrace", 0400, &wsx_schedtrace_fops },
	{ "steal_log", 0400, &wsx_steal_log_fops },
	{ "latency", 0400, &wsx_latency_fops },
	{ "steals", 0400, &wsx_steals_fops },
	{ "reset", 0200, &wsx_reset_fops },
};

void wsx_debugfs_init(void)
{
	unsigned int i;

	wsx_debugfs_dir = debugfs_create_dir("wsx", NULL);
	for (i = 0; i < ARRAY_SIZE(wsx_debugfs_files); i++)
		debugfs_create_file(wsx_debugfs_files[i].name,
				    wsx_debugfs_files[i].mode, wsx_debugfs_dir,
				    NULL, wsx_debugfs_files[i].fops);
	wsx_fault_debugfs_init(wsx_debugfs_dir);
	if (schedtrace_ms)
		schedule_delayed_work(&wsx_schedtrace_work, 0);
}

void wsx_debugfs_exit(void)
{
	struct dentry *dir = wsx_debugfs_dir;

	/* parameter writes run under this lock: none re-arms the work now */
	kernel_param_lock(THIS_MODULE);
	wsx_debugfs_dir = NULL;
	kernel_param_unlock(THIS_MODULE);
	cancel_delayed_work_sync(&wsx_schedtrace_work);
	debugfs_remove_recursive(dir);
}
