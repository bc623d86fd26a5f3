#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A wakeup goes to the idle P nearest the work (wsx_pidle_get()): with
# steal_topology=numa, an item spawned on node 1's first P while every
# other P idles must wake node 1's other P, not a P of node 0.  Each of
# WSX_WAKE_ROUNDS (default 50) rounds runs one SPAWN tree of one child
# (fanout 1, depth 1, a 200 us leaf) queued on node 1's first P, and waits
# for it, so the other Ps are idle at each spawn's wakeup.  The stats count
# every wakeup for work by the woken P's distance from the search's start
# (wakes_<level>); the P's own wakeup for the root (wakes_smt) is left out.
# Of the others, at least 80% must stay on the node (wakes_cache and
# wakes_node against wakes_remote), and there must be one per two rounds,
# or the scenario measured nothing.  Not 100%: a round may rightly wake the
# other node, when node 1's other P, woken spinning, steals the child while
# P$p1's vCPU is descheduled and, as the last spinning M, hands the search
# on with node 1 busy; the suites' runs counted none (50 of 50 on the
# node).  The old choice, the lowest-numbered idle P, woke node 0's P0
# every time (0 of 50).  Needs two NUMA nodes with two Ps on node 1
# (scripts/vm-run --topology nodes=2,...).
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module
wsx_need_numa
wsx_need_wsxctl
rounds=${WSX_WAKE_ROUNDS:-50}

wsx_reload steal_topology=numa ||
	{ echo "# FAIL: load with steal_topology=numa"; exit $KSFT_FAIL; }
rc=$KSFT_PASS
p1=$(wsx_first_p_of_node 1)
if [ -z "$p1" ] || [ "$(wsx_ps_of_node 1)" -lt 2 ]; then
	echo "# SKIP fewer than 2 Ps on node 1"
	wsx_reload
	exit $KSFT_SKIP
fi
out=$(mktemp)
echo 1 >"$WSX_DEBUGFS/reset"
i=0
while [ $i -lt "$rounds" ]; do
	if ! "$WSXCTL" run spawn 1 1 200000 --place "cpu:$p1" >"$out" 2>&1; then
		echo "# FAIL: round $i: wsxctl run failed"
		sed 's/^/# /' "$out"
		rc=$KSFT_FAIL
		break
	fi
	i=$((i + 1))
done
rm -f "$out"
near=$(($(wsx_stat_sum wakes_cache) + $(wsx_stat_sum wakes_node)))
remote=$(wsx_stat_sum wakes_remote)
echo "# $rounds rounds on P$p1: wakeups on its node $near, on the other" \
	"node $remote, of its own $(wsx_stat_sum wakes_smt)"
if [ $rc = $KSFT_PASS ]; then
	if [ $((2 * (near + remote))) -lt "$rounds" ]; then
		echo "# FAIL: $((near + remote)) wakeups of another P in $rounds rounds:" \
			"the scenario measured nothing"
		rc=$KSFT_FAIL
	elif [ $((near * 100)) -lt $(((near + remote) * 80)) ]; then
		echo "# FAIL: $near of $((near + remote)) wakeups on the work's node, under 80%"
		rc=$KSFT_FAIL
	fi
fi
wsx_reload || rc=$KSFT_FAIL
exit $rc
