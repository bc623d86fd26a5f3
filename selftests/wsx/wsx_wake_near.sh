#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A wakeup goes to the idle P nearest the work (wsx_pidle_get()), under
# steal_topology=numa, with every P idle but the work's.  The stats count
# every wakeup for work by the woken P's distance from the search's start
# (wakes_<level>).  Two cases, each of WSX_WAKE_ROUNDS (default 50) rounds
# that wait for their work, so the other Ps are idle at each wakeup:
#
#  1. spawn: one SPAWN tree of one child (fanout 1, depth 1, a 200 us leaf)
#     queued on node 1's first P, P1 below: the spawn must wake node 1's
#     other P, not a P of node 0.  P1's own wakeup for the root (wakes_smt)
#     is left out; of the others at least 80% must stay on the node
#     (wakes_cache and wakes_node against wakes_remote).  Not 100%: a round
#     may rightly wake the other node, when node 1's other P, woken
#     spinning, steals the child while P1's vCPU is descheduled and, as the
#     last spinning M, hands the search on with node 1 busy.  The suites'
#     runs counted 50 of 50 on the node (51 of 52 on the KCSAN kernel); the
#     old choice, the lowest-numbered idle P, woke node 0's P0 every time.
#  2. global: one SPIN(100 us) queued on the global queue by wsxctl pinned
#     to P1's CPU: the wakeup must go to node 1's other P, the nearest to
#     the node's queue, and not to P1, whose M would wait for the CPU the
#     submitter runs on (wsx_p_busy_here()): P1 may be woken (the M that finds the item hands
#     the search on to its nearest idle P) but never as the submitter's
#     own (wakes_smt of P1 stays under a fifth of the rounds), and 80% of
#     the wakeups stay on the node.  Trying the submitter's P first woke P1
#     in every round.
#
# Each case needs one wakeup of another P per two rounds, or it measured
# nothing.  Needs two NUMA nodes with two Ps on node 1, each P on the CPU of
# its number (the module loaded with every CPU online, as in the suites:
# scripts/vm-run --topology nodes=2,...), and taskset.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module
wsx_need_numa
wsx_need_wsxctl
if ! command -v taskset >/dev/null; then
	echo "# SKIP taskset not found"
	exit $KSFT_SKIP
fi
rounds=${WSX_WAKE_ROUNDS:-50}

wsx_reload steal_topology=numa ||
	{ echo "# FAIL: load with steal_topology=numa"; exit $KSFT_FAIL; }
rc=$KSFT_PASS
p1=$(wsx_first_p_of_node 1)
if [ -z "$p1" ] || [ "$(wsx_ps_of_node 1)" -lt 2 ] ||
	[ ! -e "/sys/devices/system/cpu/cpu$p1/node1" ]; then
	echo "# SKIP fewer than 2 Ps on node 1, or P$p1 not on CPU $p1"
	wsx_reload
	exit $KSFT_SKIP
fi
out=$(mktemp)

# p_stat P KEY: KEY= of P's line in the stats file
p_stat() {
	awk -v p="P$1" -v key="$2=" '$1 == p {
		for (i = 2; i <= NF; i++)
			if (index($i, key) == 1) print substr($i, length(key) + 1)
	}' "$WSX_DEBUGFS/stats"
}

# rounds_of NAME COMMAND...: run COMMAND $rounds times from zeroed stats;
# false when one fails
rounds_of() {
	name=$1
	shift
	echo 1 >"$WSX_DEBUGFS/reset"
	i=0
	while [ $i -lt "$rounds" ]; do
		if ! "$@" >"$out" 2>&1; then
			echo "# $name: round $i: $* failed"
			sed 's/^/# /' "$out"
			return 1
		fi
		i=$((i + 1))
	done
}

# near_enough NAME: at least one wakeup of another P per two rounds, 80%
# of them on the work's node; prints the figures
near_enough() {
	near=$(($(wsx_stat_sum wakes_cache) + $(wsx_stat_sum wakes_node)))
	remote=$(wsx_stat_sum wakes_remote)
	echo "# $1: $rounds rounds: wakeups on P$p1's node $near, on the" \
		"other node $remote, of P$p1 by itself $(p_stat "$p1" wakes_smt)"
	if [ $((2 * (near + remote))) -lt "$rounds" ]; then
		echo "# $1: $((near + remote)) wakeups of another P: measured nothing"
		return 1
	fi
	if [ $((near * 100)) -lt $(((near + remote) * 80)) ]; then
		echo "# $1: $near of $((near + remote)) wakeups on the node, under 80%"
		return 1
	fi
}

rounds_of spawn "$WSXCTL" run spawn 1 1 200000 --place "cpu:$p1" &&
	near_enough spawn
wsx_case $? "a spawn wakes a P of its node"

st=0
rounds_of global taskset -c "$p1" "$WSXCTL" run spin 100000 --place global &&
	near_enough global || st=1
own=$(p_stat "$p1" wakes_smt)
if [ $st = 0 ] && [ $((own * 5)) -ge "$rounds" ]; then
	echo "# global: P$p1 woken by its own submitter $own times in $rounds rounds"
	st=1
fi
wsx_case $st "a global queue's wakeup goes near, not to the submitter's P"

rm -f "$out"
wsx_reload || rc=$KSFT_FAIL
exit $rc
