#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug under load: while wsx_hotplug_load keeps SPAWN trees flowing,
# take CPUs 1-3 offline and online again, 20 times (WSX_HOTPLUG_ROUNDS).
# Nothing may be lost or run twice (the load generator checks), and every P
# must be back online afterwards.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

ROUNDS=${WSX_HOTPLUG_ROUNDS:-20}
wsx_hotplug_cpus

stop=$(mktemp -u /tmp/wsx-hotplug-stop.XXXXXX)
"$DIR/wsx_hotplug_load" "$stop" &
load=$!
rc=0
i=0
while [ $i -lt "$ROUNDS" ]; do
	for c in $cpus; do
		echo 0 >/sys/devices/system/cpu/cpu$c/online || rc=$KSFT_FAIL
	done
	for c in $cpus; do
		echo 1 >/sys/devices/system/cpu/cpu$c/online || rc=$KSFT_FAIL
	done
	i=$((i + 1))
done
touch "$stop"
wait $load || rc=$KSFT_FAIL
rm -f "$stop"
offline=$(grep -c 'online=0' $WSX_DEBUGFS/stats)
echo "# $ROUNDS rounds over CPUs$cpus; Ps offline afterwards: $offline"
[ "$offline" = 0 ] || rc=$KSFT_FAIL
exit $rc
