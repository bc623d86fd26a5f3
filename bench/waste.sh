#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# waste.sh: the wasted-cores measure of `wsxctl trace` ("idle P x ms while
# items waited", see wsxctl(1)) over a mix of items.  Runs in the VM
# (busybox sh) with wsx loaded, started by `make bench-waste` (CPUS=N).
# Records the wsx tracepoints while WSX_WASTE_SECONDS (default 10) of this
# mix (selftests/wsx/wsx_mix.sh's wsx_mix(), without its pick-up rings and
# hotplug) run from five processes at once, each a loop of `wsxctl run`:
#   local    SPIN of 10 us, 100 us, 500 us and 2 ms queued on P0
#   global   the same SPINs on the global queue
#   spawn    spawn trees (fanout 3, depth 5, leaves of 20 us)
#   sleep    SLEEP(1 ms) items, 8 at a time (blocking sections)
#   delayed  SPIN(200 us) items queued 3 ms after their submission
# then prints `wsxctl trace`'s summary at the threshold WSX_WASTE_T_US
# (default 2000) and at 0, and the monitor's own count over the mix (the
# stats' wasted_checks and wasted_ms, at the module's waste_ms: the check
# of docs/wasted.md), each line prefixed "waste: ".  A figure, not a
# test: the exit status says only whether every run and the trace worked
# (no events lost).  Under TCG the times are the emulator's too.
#
#   sh waste.sh            record and report
#   sh waste.sh --mix      the mix alone (what the trace runs)
secs=${WSX_WASTE_SECONDS:-10}
t_us=${WSX_WASTE_T_US:-2000}
raw=/tmp/waste-trace.txt

# the mix, beside this script in the guest (the Makefile's --add) or in the
# tree
mix=$(dirname "$0")/wsx_mix.sh
[ -r "$mix" ] || mix=$(dirname "$0")/../selftests/wsx/wsx_mix.sh
# shellcheck source=../selftests/wsx/wsx_mix.sh
. "$mix"

if [ "${1:-}" = --mix ]; then
	wsx_mix "$secs" waste
	exit
fi

if [ ! -r /sys/kernel/debug/wsx/schedtrace ]; then
	echo "waste: wsx is not loaded" >&2
	exit 1
fi
echo "waste: $(grep -c ^processor /proc/cpuinfo) CPUs, $(cat /sys/kernel/debug/wsx/schedtrace)"
echo "waste: a ${secs} s mix from 5 processes, T = $t_us us"
rc=0
checks0=$(wsx_mix_stat wasted_checks) ms0=$(wsx_mix_stat wasted_ms)
wsxctl trace --raw "$raw" --threshold-us "$t_us" -- sh "$0" --mix \
	2>/tmp/waste-summary.txt || rc=1
checks=$(($(wsx_mix_stat wasted_checks) - checks0)) ms=$(($(wsx_mix_stat wasted_ms) - ms0))
sed 's/^/waste: /' /tmp/waste-summary.txt
echo "waste: the monitor's check (waste_ms=$(cat /sys/module/wsx/parameters/waste_ms)): $checks looks found a P idle while an item waited, covering $ms ms"
# the raw wait and idle, with no threshold
wsxctl trace --input "$raw" --raw /dev/null --threshold-us 0 2>&1 |
	sed -n 's/^wsxctl trace: idle P/waste: at T = 0: idle P/p'
exit $rc
