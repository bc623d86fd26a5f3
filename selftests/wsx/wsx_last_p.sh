#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The last online P keeps its CPU.  With nprocs=2 on 4 CPUs the Ps are on
# CPUs 0 and 1, and CPUs 2 and 3 run no P.  CPU 1 may go offline (CPU 0's
# P is left); then CPU 0 may not (EBUSY): with no P online, queued items
# would wait forever and close() with them.  With CPU 1 back, CPU 0 may
# go, and then CPU 1 may not; the module still unloads (its exit stops
# the last P too).  Needs a kernel whose CPU 0 can go offline
# (the debug kernels: CONFIG_BOOTPARAM_HOTPLUG_CPU0); skips elsewhere.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

cpu=/sys/devices/system/cpu
if [ ! -w $cpu/cpu0/online ]; then
	echo "# SKIP CPU 0 cannot go offline on this kernel"
	exit $KSFT_SKIP
fi
for c in 1 2 3; do
	if [ "$(cat $cpu/cpu$c/online 2>/dev/null)" != 1 ]; then
		echo "# SKIP needs CPUs 0-3 online"
		exit $KSFT_SKIP
	fi
done
rc=0
# offline C: 0 when CPU C went offline
offline() { echo 0 2>/dev/null >$cpu/cpu"$1"/online; }
online() { echo 1 >$cpu/cpu"$1"/online; }
if ! wsx_reload nprocs=2; then
	wsx_case 1 "load with nprocs=2"
	exit $KSFT_FAIL
fi
offline 1
wsx_case $? "CPU 1 (P1) goes offline while P0 is online"
if offline 0; then
	wsx_case 1 "CPU 0 (the last online P) stays online"
	online 0
else
	wsx_case 0 "CPU 0 (the last online P) stays online"
fi
online 1
offline 0
wsx_case $? "CPU 0 (P0) goes offline once P1 is back"
if offline 1; then
	wsx_case 1 "CPU 1 (now the last online P) stays online"
	online 1
else
	wsx_case 0 "CPU 1 (now the last online P) stays online"
fi
# CPU 0 still offline: the exit stops the last online P too
wsx_unload
wsx_case $? "wsx unloads while one P is online"
online 0
wsx_load || rc=$KSFT_FAIL
exit $rc
