#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every CPU the module loaded on goes offline while others run the machine
# (the last online P: sched.c's "CPU hotplug").  With nprocs=2 on 4 CPUs the
# Ps are on CPUs 0 and 1, and CPUs 2 and 3 run none.  CPU 1 goes offline
# (P1 stops), then CPU 0, whose P is the last online one: P0 runs on
# without its CPU, so items still run, on the global queue and placed on
# P0, and their sessions close.  With CPU 0 back, P0's M binds itself to
# CPU 0 again (handoff.c, "Affinity").  Then, with CPU 1 back, CPU 0 goes
# offline as any other (P0 stops), and CPU 1 is the last; the module
# unloads while P1 runs without its CPU (its exit stops it) and loads
# again.  Needs a CPU 0 that can go offline (x86: an Intel CPU model and
# cpu0_hotplug, vm-run --cpu0-hotplug); skips elsewhere.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

cpu=/sys/devices/system/cpu
if [ ! -w $cpu/cpu0/online ]; then
	echo "# SKIP CPU 0 cannot go offline here (vm-run --cpu0-hotplug)"
	exit $KSFT_SKIP
fi
for c in 1 2 3; do
	if [ "$(cat $cpu/cpu$c/online 2>/dev/null)" != 1 ]; then
		echo "# SKIP needs CPUs 0-3 online"
		exit $KSFT_SKIP
	fi
done
rc=$KSFT_PASS
offline() { echo 0 >$cpu/cpu"$1"/online; }
online() { echo 1 >$cpu/cpu"$1"/online; }
# items OPTIONS...: wsxctl run's items complete within 60 s
items() {
	out=$(timeout 60 wsxctl run "$@" 2>&1)
	ret=$?
	printf '%s\n' "$out" | sed -n 's/^/# /; /items:\|failures:\|  P[0-9]/p'
	return $ret
}
if ! wsx_reload nprocs=2; then
	wsx_case 1 "load with nprocs=2"
	exit $KSFT_FAIL
fi
offline 1
wsx_case $? "CPU 1 goes offline (P1 stops)"
mark="wsx_last_p.sh: CPU 0 goes"
wsx_log_mark "$mark"
offline 0
wsx_case $? "CPU 0 goes offline: its P is the last online one"
wsx_log_after "$mark" | grep -q "P0 runs on without its CPU 0"
wsx_case $? "the kernel log says P0 runs on without its CPU"
items fib 18 -n 8
wsx_case $? "items run while no CPU of the module's is online"
items nop -n 256 -p cpu:0
wsx_case $? "items placed on P0 run while its CPU is offline"
online 0
items spin 100000 -n 64 -p cpu:0 && wsx_m_bound_to 0 0 && wsx_m_masks
wsx_case $? "CPU 0 back: P0's M runs its items bound to CPU 0 again"
online 1
mark="wsx_last_p.sh: CPU 0 goes again"
wsx_log_mark "$mark"
offline 0 && ! wsx_log_after "$mark" | grep -q "runs on without"
wsx_case $? "CPU 0 goes offline with P1 online: P0 stops"
mark="wsx_last_p.sh: CPU 1 goes again"
wsx_log_mark "$mark"
offline 1 && wsx_log_after "$mark" | grep -q "P1 runs on without its CPU 1"
wsx_case $? "CPU 1 goes offline: P1 runs on without its CPU"
items fib 18 -n 8
wsx_case $? "items run on P1 without its CPU"
wsx_unload
wsx_case $? "wsx unloads while P1 runs without its CPU"
online 0
online 1
wsx_load
wsx_case $? "wsx loads again with every CPU online"
exit $rc
