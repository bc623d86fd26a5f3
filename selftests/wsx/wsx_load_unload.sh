#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload wsx 50 times in a row: every load registers /dev/wsx and
# /sys/kernel/debug/wsx, every unload removes them, and afterwards nothing is
# left: no module, no device, no debugfs entry, no wsx slab cache, and the
# unreclaimable slab memory has not grown by more than a page per cycle.

DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

ROUNDS=50
fail=0

check() {
	# check DESCRIPTION COMMAND...
	desc=$1
	shift
	if ! "$@"; then
		echo "# FAIL: $desc"
		fail=1
	fi
}

sunreclaim_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

was_loaded=0
wsx_loaded && was_loaded=1
if [ $was_loaded = 1 ]; then
	wsx_unload || { echo "# FAIL: rmmod of the loaded module"; exit $KSFT_FAIL; }
fi

i=0
while [ $i -lt $ROUNDS ]; do
	wsx_load || { echo "# FAIL: load $i"; exit $KSFT_FAIL; }
	[ $i = 0 ] && check "/dev/wsx is a char device" test -c /dev/wsx
	[ $i = 0 ] && check "debugfs dir exists" test -d $WSX_DEBUGFS
	wsx_unload || { echo "# FAIL: unload $i"; exit $KSFT_FAIL; }
	[ $i = 0 ] && check "/dev/wsx removed" test ! -e /dev/wsx
	[ $i = 0 ] && check "debugfs dir removed" test ! -e $WSX_DEBUGFS
	# the first rounds warm up caches the module's code touches
	# let RCU-deferred frees (kthreads, files) finish before measuring
	[ $i = 9 ] && sleep 1 && base=$(sunreclaim_kb)
	i=$((i + 1))
done
sleep 1
after=$(sunreclaim_kb)

check "no /sys/module/wsx" test ! -e /sys/module/wsx
check "no /dev/wsx" test ! -e /dev/wsx
check "no debugfs entry" test ! -e $WSX_DEBUGFS
check "no wsx slab cache left" sh -c '! grep -q "^wsx" /proc/slabinfo'
grew=$((after - base))
echo "# SUnreclaim after round 10: ${base} kB, after round $ROUNDS: ${after} kB"
# 4 kB a round per NUMA node: each node has its own partial slabs, which
# settle later (on a 2-node guest the module of before the topology work
# grew 148 kB over 40 rounds; a leak of a P's worth each round is more)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -gt 1 ] || nodes=1
limit=$(( (ROUNDS - 10) * 4 * nodes ))
if dmesg | grep -q 'KernelAddressSanitizer initialized' ||
   [ -e /proc/lockdep ]; then
	# debug kernels keep freed memory as slab for a while (KASAN's
	# quarantine, debug objects' pool); kmem_cache_destroy() of wsx's
	# caches still reports any leak there
	echo "# debug kernel: slab growth not checked"
else
	check "unreclaimable slab grew ${grew} kB over $((ROUNDS - 10)) rounds (limit ${limit} kB)" \
		test "$grew" -le "$limit"
fi

[ $was_loaded = 1 ] && wsx_load
[ $fail = 0 ] && exit $KSFT_PASS
exit $KSFT_FAIL
