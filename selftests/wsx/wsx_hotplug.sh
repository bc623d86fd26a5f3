#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug under load: while wsx_hotplug_load keeps SPAWN trees flowing,
# take CPUs 1-3 offline and online again, 20 times (WSX_HOTPLUG_ROUNDS).
# Nothing may be lost or run twice, and every P must be back afterwards: a
# NOP queued on each P runs on the same CPU as before the rounds (the load
# generator checks both).  Its SLEEP items hand their Ps to other Ms
# (blocking sections), and each M taking a P binds itself to the P's CPU
# while CPUs go down and come back.  In a WSX_DEBUG build every such bind
# first sleeps 2 ms at the bind_before_lock fault point, between its look
# at the CPU and the hotplug lock, and no bind may leave its M off the CPU
# it bound to (the bind_missed count: an M bound to a CPU going down runs
# outside its mask, handoff.c's "Affinity").  Afterwards every M must be
# on a CPU its mask allows.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

ROUNDS=${WSX_HOTPLUG_ROUNDS:-20}
wsx_hotplug_cpus

stop=$(mktemp -u /tmp/wsx-hotplug-stop.XXXXXX)
"$DIR/wsx_hotplug_load" "$stop" &
load=$!
fault=$WSX_DEBUGFS/fault/bind_before_lock
missed=$WSX_DEBUGFS/count/bind_missed
if [ -w "$fault" ]; then
	hits0=$(cat "${fault}_hits")
	echo 0 >"$missed"
	trap 'echo 0 >"$fault"' EXIT
	echo 2000 >"$fault"
fi
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
if [ -w "$fault" ]; then
	echo 0 >"$fault"
	hits=$(($(cat "${fault}_hits") - hits0))
	echo "# binds: $hits passed bind_before_lock, $(cat "$missed") left the M off the CPU it bound to"
	[ "$hits" -gt 0 ] && [ "$(cat "$missed")" = 0 ] || rc=$KSFT_FAIL
fi
# every CPU online again: each M binds at its next pass, if it has a P
wsxctl run nop -n 256 >/dev/null || rc=$KSFT_FAIL
wsx_m_masks || rc=$KSFT_FAIL
exit $rc
