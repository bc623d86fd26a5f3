// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: module parameters, init and exit, CPU hotplug.
 *
 * Load order: the ops' caches, the scheduler (Ps and their Ms, stopped),
 * the hotplug state (whose online callback starts the P of every online
 * CPU), debugfs, then the device, the last because it lets users in.  Exit
 * undoes it in reverse; the device's module reference keeps the module
 * loaded while /dev/wsx is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "account.h"
#include "dev.h"
#include "monitor.h"
#include "ops.h"
#include "queue.h"
#include "rings.h"
#include "sched.h"
#include "source.h"
#include "stats.h"
#include "submit.h"
#include "uchan.h"

static unsigned int nprocs;
module_param(nprocs, uint, 0444);
MODULE_PARM_DESC(nprocs, "Number of Ps, 1 .. online CPUs (0 = one per online CPU; reads the number in force)");

static char *steal_policy = "half";
module_param(steal_policy, charp, 0444);
MODULE_PARM_DESC(steal_policy, "How much a thief takes: half (n - n/2), one, all, none");

static char *steal_topology = "numa";
module_param(steal_topology, charp, 0444);
MODULE_PARM_DESC(steal_topology, "Victim order: numa (SMT, cache, node, other nodes nearest first; a global queue per node), cache (SMT, cache, the rest), flat (one random order)");

static unsigned int global_tick = 61;
module_param(global_tick, uint, 0444);
MODULE_PARM_DESC(global_tick, "Every this many schedule ticks a P looks at the global queue first");

static unsigned int steal_tries = 4;
module_param(steal_tries, uint, 0444);
MODULE_PARM_DESC(steal_tries, "Rounds over the other Ps when stealing, 1 .. 16");

module_param_named(max_item_ns, wsx_max_item_ns, ullong, 0644);
MODULE_PARM_DESC(max_item_ns, "Longest SPIN item (and SPAWN leaf, and RECV's work per value), ns");

module_param_named(max_inflight_fd, wsx_max_inflight_fd, uint, 0644);
MODULE_PARM_DESC(max_inflight_fd, "Jobs in flight per open file");

module_param_named(max_inflight, wsx_max_inflight, uint, 0644);
MODULE_PARM_DESC(max_inflight, "Jobs in flight in all");

module_param_named(ring_max_entries, wsx_ring_max_entries, uint, 0644);
MODULE_PARM_DESC(ring_max_entries, "Most entries of a session's submission or completion ring (at most 65536)");

module_param_named(max_chans, wsx_max_chans, uint, 0644);
MODULE_PARM_DESC(max_chans, "Most channels per open file");

module_param_named(max_chan_cap, wsx_max_chan_cap, uint, 0644);
MODULE_PARM_DESC(max_chan_cap, "Largest buffer of a channel, in values (at most 67108864)");

module_param_named(max_parked, wsx_max_parked, uint, 0644);
MODULE_PARM_DESC(max_parked, "Most SEND, RECV and POLL items of one open file waiting (a SEND or RECV until it runs again, a POLL until it ends)");

static unsigned int max_threads;
module_param(max_threads, uint, 0444);
MODULE_PARM_DESC(max_threads, "Most Ms, counting those in blocking sections (0: 4 x nprocs)");

static bool stats = true;
module_param(stats, bool, 0444);
MODULE_PARM_DESC(stats, "Keep the per-P counters (0: off, to measure their cost)");

module_param_named(latency_sample, wsx_latency_sample, uint, 0644);
MODULE_PARM_DESC(latency_sample, "Time the queueing latency of one item in this many per CPU (1: every item, 0: none)");

static const char * const wsx_policy_names[] = {
	[WSX_STEAL_HALF] = "half",
	[WSX_STEAL_ONE] = "one",
	[WSX_STEAL_ALL] = "all",
	[WSX_STEAL_NONE] = "none",
};

static const char * const wsx_topology_names[] = {
	[WSX_TOPO_NUMA] = "numa",
	[WSX_TOPO_CACHE] = "cache",
	[WSX_TOPO_FLAT] = "flat",
};

static enum cpuhp_state wsx_hp_state;

/* The hotplug teardown stops every P, the last online one too. */
static void wsx_hotplug_remove(void)
{
	wsx_sched_unload();
	cpuhp_remove_state(wsx_hp_state);
	wsx_sched_stop_orphans();
}

static int wsx_params(struct wsx_sched_params *params)
{
	unsigned int online = num_online_cpus();
	int policy = match_string(wsx_policy_names,
				  ARRAY_SIZE(wsx_policy_names), steal_policy);
	int topology = match_string(wsx_topology_names,
				    ARRAY_SIZE(wsx_topology_names),
				    steal_topology);

	if (nprocs > online) {
		pr_err("nprocs=%u: only %u CPUs are online\n", nprocs, online);
		return -EINVAL;
	}
	if (policy < 0) {
		pr_err("steal_policy=%s: want half, one, all or none\n",
		       steal_policy);
		return -EINVAL;
	}
	if (topology < 0) {
		pr_err("steal_topology=%s: want numa, cache or flat\n",
		       steal_topology);
		return -EINVAL;
	}
	if (!global_tick || steal_tries < 1 || steal_tries > 16) {
		pr_err("global_tick must be >= 1, steal_tries 1 .. 16\n");
		return -EINVAL;
	}
	params->nprocs = nprocs ?: online;
	params->steal_policy = policy;
	params->steal_topology = topology;
	params->global_tick = global_tick;
	params->steal_tries = steal_tries;
	params->max_threads = max_threads ?: 4 * params->nprocs;
	if (params->max_threads < params->nprocs) {
		pr_err("max_threads=%u: fewer than nprocs=%u\n", max_threads,
		       params->nprocs);
		return -EINVAL;
	}
	/* the parameters show what is in force */
	nprocs = params->nprocs;
	max_threads = params->max_threads;
	return 0;
}

static int __init wsx_init(void)
{
	struct wsx_sched_params params;
	int ret;

	ret = wsx_params(&params);
	if (ret)
		return ret;
	if (!stats)
		static_branch_disable(&wsx_stats_on);
	ret = wsx_sources_check();
	if (ret)
		return ret;
	ret = wsx_ops_init();
	if (ret)
		return ret;
	ret = wsx_sched_init(&params);
	if (ret)
		goto fail_sched;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "wsx:online",
				wsx_sched_cpu_online, wsx_sched_cpu_offline);
	if (ret < 0)
		goto fail_hp;
	wsx_hp_state = ret;
	wsx_debugfs_init();
	ret = wsx_dev_init();
	if (ret)
		goto fail_dev;
	return 0;

fail_dev:
	wsx_debugfs_exit();
	wsx_hotplug_remove();
fail_hp:
	wsx_monitor_stop();	/* the online callbacks and the Ms kicked it */
	wsx_sched_exit();
fail_sched:
	wsx_ops_exit();
	return ret;
}

static void __exit wsx_exit(void)
{
	/* an in-kernel user that parked and never readied: its leak */
	WARN_ON_ONCE(wsx_parked_left());
	wsx_dev_exit();
	wsx_debugfs_exit();
	wsx_hotplug_remove();
	wsx_monitor_stop();
	wsx_sched_exit();
	wsx_ops_exit();
	wsx_accounts_exit();	/* no session, no M left */
}

module_init(wsx_init);
module_exit(wsx_exit);
MODULE_DESCRIPTION("Work-stealing executor after the Go runtime scheduler");
MODULE_LICENSE("GPL");
MODULE_VERSION(WSX_VERSION);
