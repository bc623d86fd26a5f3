#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug under load: while wsx_hotplug_load keeps SPAWN trees flowing,
# take CPUs 1-3 offline and online again, 20 times (WSX_HOTPLUG_ROUNDS).
# Nothing may be lost or run twice, and every P must be back afterwards: a
# NOP queued on each P runs on the same CPU as before the rounds (the load
# generator checks both).
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

ROUNDS=${WSX_HOTPLUG_ROUNDS:-20}
wsx_hotplug_cpus

stop=$(mktemp -u /tmp/wsx-hotplug-stop.XXXXXX)
"$DIR/wsx_hotplug_load" "$stop" &
load=$!
rc=0
# its NOP on each P first, with every CPU online
while [ ! -e "$stop.ready" ] && kill -0 $load 2>/dev/null; do
	sleep 0.1
done
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
rm -f "$stop" "$stop.ready"
echo "# $ROUNDS rounds over CPUs$cpus"
exit $rc
