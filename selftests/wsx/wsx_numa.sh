#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run wsx_numa_test with the module reloaded with steal_topology=numa (one
# global queue per NUMA node), then restore the module's defaults.  Skips
# (exit 4; the harness itself exits 0 when its one test skipped) with fewer
# than 2 nodes with CPUs.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

nodes=0
for f in /sys/devices/system/node/node*/cpulist; do
	[ -n "$(tr -d '\n' <"$f" 2>/dev/null)" ] && nodes=$((nodes + 1))
done
if [ $nodes -lt 2 ]; then
	echo "# SKIP fewer than 2 NUMA nodes"
	exit $KSFT_SKIP
fi
wsx_reload steal_topology=numa ||
	{ echo "# FAIL: load with steal_topology=numa"; exit $KSFT_FAIL; }
"$DIR/wsx_numa_test"
rc=$?
wsx_reload || rc=$KSFT_FAIL
exit $rc
