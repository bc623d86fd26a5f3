// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: statistics under /sys/kernel/debug/wsx/.
 *
 *   stats       one line per P, "P<id> key=value ...", then
 *               "global depth=<n> puts=<n> gets=<n> cancelled=<n>"
 *   schedtrace  one line in the format of Go's GODEBUG=schedtrace:
 *               "WSX <ms>ms: nprocs=<n> idleprocs=<n> threads=<n>
 *               spinningthreads=<n> idlethreads=<n> runqueue=<n> [<P0> ...]"
 *               with the global queue's depth and each P's queued items
 *   steal_log   the last WSX_STEAL_LOG steals of each P, one per line:
 *               "P<thief> victim=<id> seen=<n> taken=<n>", seen being the
 *               victim's ring length at the thief's snapshot
 *
 * The counters are written by each P's owner without atomics and read here
 * racily with READ_ONCE: a line is not a consistent snapshot of all Ps.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>

#include "sched.h"
#include "wsx_internal.h"

static struct dentry *wsx_debugfs_dir;

#define WSX_STAT(name) { #name, offsetof(struct wsx_pstats, name) }

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
};

static int wsx_stats_show(struct seq_file *sf, void *unused)
{
	unsigned int id, i;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_p *p = wsx_sched.ps[id];
		const void *st = &p->stats;

		seq_printf(sf, "P%u", id);
		for (i = 0; i < ARRAY_SIZE(wsx_pstat_fields); i++)
			seq_printf(sf, " %s=%llu", wsx_pstat_fields[i].name,
				   READ_ONCE(*(const u64 *)(st +
					     wsx_pstat_fields[i].offset)));
		seq_printf(sf, " stolen_from=%lld depth=%u online=%d\n",
			   (s64)atomic64_read(&p->stats.stolen_from),
			   wsx_p_depth(p), READ_ONCE(p->want_online));
	}
	seq_printf(sf, "global depth=%u puts=%llu gets=%llu cancelled=%lld\n",
		   READ_ONCE(wsx_sched.glen), READ_ONCE(wsx_sched.gputs),
		   READ_ONCE(wsx_sched.ggets),
		   (s64)atomic64_read(&wsx_cancelled_jobs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_stats);

static int wsx_schedtrace_show(struct seq_file *sf, void *unused)
{
	unsigned int id, idle = 0, spinning = 0;

	for (id = 0; id < wsx_sched.nprocs; id++) {
		struct wsx_m *m = wsx_sched.ms[id];

		idle += READ_ONCE(m->parked);
		spinning += READ_ONCE(m->spinning);
	}
	seq_printf(sf, "WSX %llums: nprocs=%u idleprocs=%d threads=%u spinningthreads=%u idlethreads=%u runqueue=%u [",
		   (ktime_get_ns() - wsx_sched.start_ns) / NSEC_PER_MSEC,
		   wsx_sched.nprocs, atomic_read(&wsx_sched.npidle),
		   wsx_sched.nprocs, spinning, idle,
		   READ_ONCE(wsx_sched.glen));
	for (id = 0; id < wsx_sched.nprocs; id++)
		seq_printf(sf, "%s%u", id ? " " : "",
			   wsx_p_depth(wsx_sched.ps[id]));
	seq_puts(sf, "]\n");
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

			seq_printf(sf, "P%u victim=%u seen=%u taken=%u\n", id,
				   READ_ONCE(rec->victim), READ_ONCE(rec->seen),
				   READ_ONCE(rec->taken));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wsx_steal_log);

void wsx_debugfs_init(void)
{
	wsx_debugfs_dir = debugfs_create_dir("wsx", NULL);
	debugfs_create_file("stats", 0400, wsx_debugfs_dir, NULL,
			    &wsx_stats_fops);
	debugfs_create_file("schedtrace", 0400, wsx_debugfs_dir, NULL,
			    &wsx_schedtrace_fops);
	debugfs_create_file("steal_log", 0400, wsx_debugfs_dir, NULL,
			    &wsx_steal_log_fops);
}

void wsx_debugfs_exit(void)
{
	debugfs_remove_recursive(wsx_debugfs_dir);
	wsx_debugfs_dir = NULL;
}
