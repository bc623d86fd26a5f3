#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Delayed items while CPUs 1-3 go offline and online again: their timers
# still fire and nothing is lost (wsx_delay_test checks).
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

wsx_hotplug_cpus
"$DIR/wsx_delay_test" &
test=$!
for i in 1 2 3 4 5; do
	for c in $cpus; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done
	sleep 0.05
	for c in $cpus; do echo 1 >/sys/devices/system/cpu/cpu$c/online; done
done
wait $test
