#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load wsx, run a few items, unload it, 50 times in a row (10 + 40 /
# WSX_SCALE on a slow kernel: a leak of an object a round still shows over
# the rounds after the tenth, where the counts start): every load
# registers /dev/wsx and /sys/kernel/debug/wsx, every unload removes them,
# and afterwards nothing is left: no module, no device, no debugfs entry,
# no object in wsx's slab caches, and the unreclaimable slab memory has not
# grown by more than a page per cycle.  One KTAP line per check.
#
# wsx's caches (wsx_node, wsx_ujob) are mergeable: SLUB folds them into a
# cache of the same size, /sys/kernel/slab/NAME is a link to it (left
# behind after the unload), and /proc/slabinfo does not show them under
# their own name.  The objects in use in the caches the links lead to,
# after a shrink (which frees the per-CPU slabs' spare objects), must not
# grow by one per cycle.

DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

ROUNDS=$((10 + 40 / ${WSX_SCALE:-1}))
rc=0

# check DESCRIPTION COMMAND...: a KTAP line, ok when COMMAND succeeds
check() {
	desc=$1
	shift
	if "$@"; then wsx_case 0 "$desc"; else wsx_case 1 "$desc"; fi
}

sunreclaim_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

# the caches wsx's caches are (found while it is loaded): their folders
slab_dirs() {
	for link in /sys/kernel/slab/wsx_*; do
		[ -e "$link" ] && readlink -f "$link"
	done | sort -u
}

# objects in use in the folders $caches, after a shrink of each.  A cache
# that no other user shares goes with the module: its folder is gone, and
# kmem_cache_destroy() reports a leak there itself (a splat that fails
# vm-run); a shared one stays, and only this count sees the leak
cache_objects() {
	sum=0
	for c in $caches; do
		[ -d "$c" ] || continue
		echo 1 >"$c/shrink"
		read -r objects _ <"$c/objects"
		sum=$((sum + objects))
	done
	echo $sum
}

# a little work: jobs and tree nodes from each cache
work() {
	wsxctl run spawn 2 3 0 -n 8 --ioctl >/dev/null &&
		wsxctl run fib 12 -n 4 >/dev/null
}

was_loaded=0
wsx_loaded && was_loaded=1
if [ $was_loaded = 1 ]; then
	wsx_unload || { echo "# FAIL: rmmod of the loaded module"; exit $KSFT_FAIL; }
fi

i=0
caches=
while [ $i -lt $ROUNDS ]; do
	wsx_load || { echo "# FAIL: load $i"; exit $KSFT_FAIL; }
	work || { echo "# FAIL: work of round $i"; exit $KSFT_FAIL; }
	if [ $i = 0 ]; then
		check "/dev/wsx is a char device" test -c /dev/wsx
		check "debugfs dir exists" test -d $WSX_DEBUGFS
		caches=$(slab_dirs)
		echo "# wsx's slab caches are:" $caches
		check "wsx's slab caches are in /sys/kernel/slab" test -n "$caches"
	fi
	wsx_unload || { echo "# FAIL: unload $i"; exit $KSFT_FAIL; }
	if [ $i = 0 ]; then
		check "/dev/wsx removed" test ! -e /dev/wsx
		check "debugfs dir removed" test ! -e $WSX_DEBUGFS
	fi
	# the first rounds warm up caches the module's code touches
	# let RCU-deferred frees (kthreads, files) finish before measuring
	if [ $i = 9 ]; then
		sleep 1
		base=$(sunreclaim_kb)
		objects0=$(cache_objects)
	fi
	i=$((i + 1))
done
sleep 1
after=$(sunreclaim_kb)
objects=$(cache_objects)

check "no /sys/module/wsx" test ! -e /sys/module/wsx
check "no /dev/wsx" test ! -e /dev/wsx
check "no debugfs entry" test ! -e $WSX_DEBUGFS
echo "# objects in wsx's slab caches after round 10: $objects0, after round $ROUNDS: $objects"
check "wsx's slab caches did not keep an object a round ($objects0 then $objects over $((ROUNDS - 10)) rounds)" \
	test $((objects - objects0)) -lt $((ROUNDS - 10))
grew=$((after - base))
echo "# SUnreclaim after round 10: ${base} kB, after round $ROUNDS: ${after} kB"
# 4 kB a round per NUMA node: each node has its own partial slabs, which
# settle later (on a 2-node guest the module of before the topology work
# grew 148 kB over 40 rounds; a leak of a P's worth each round is more)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -gt 1 ] || nodes=1
limit=$(( (ROUNDS - 10) * 4 * nodes ))
desc="unreclaimable slab grew ${grew} kB over $((ROUNDS - 10)) rounds (limit ${limit} kB)"
if dmesg | grep -q 'KernelAddressSanitizer initialized' ||
   [ -e /proc/lockdep ]; then
	# the objects of wsx's caches above are still checked there
	wsx_case $KSFT_SKIP "$desc" \
		"debug kernel: KASAN's quarantine and debug objects' pool keep freed memory as slab"
else
	check "$desc" test "$grew" -le "$limit"
fi

[ $was_loaded = 1 ] && wsx_load
exit $rc
