#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh: a quick run of every benchmark path, for `make check`.  Runs in
# the VM (busybox sh), loading wsx.ko if it is not; asserts that every run
# completes with a well-formed, correct result line and asserts no timing.
# Prints KTAP, exits 0 when every case passed, else 1.
#
#   sh smoke.sh [WSX_FLOOD [WSX_GO]]
#
# WSX_FLOOD (default /extra/wsx_flood) and WSX_GO, the Go contender
# (default /extra/wsx_go), are skipped when absent.
FLOOD=${1:-/extra/wsx_flood}
GO=${2:-/extra/wsx_go}
KO=/wsx/kmod/wsx_bench.ko
R=/sys/kernel/debug/wsx_bench/run
n=0
failed=0

# result ok|fail NAME [DIRECTIVE]: one KTAP line.  A NAME that starts
# "no wsx: " is a run that never enters wsx (a contender alone, the bench
# module's unload), counted apart from the runs through wsx
# (scripts/ktap-count).
result() {
	n=$((n + 1))
	case $2 in
	"no wsx: "*) desc="bench smoke, $2" ;;
	*) desc="bench smoke: $2" ;;
	esac
	if [ "$1" = ok ]; then
		echo "ok $n $desc${3:+ # $3}"
	else
		echo "not ok $n $desc"
		failed=1
	fi
}

# check WORKLOAD CONTENDER OUTPUT: the line must be complete and ok=1.
check() {
	name="$1 $2"
	[ "$2" = wsx ] || name="no wsx: $name"
	echo "$3" | sed 's/^/# /'
	if echo "$3" | grep -Eq "^bench workload=$1 contender=$2 run=0 cpus=[0-9]+ items=[1-9][0-9]* ns=[1-9][0-9]* result=[0-9]+ ok=1 spin_iters=[0-9]+$"; then
		result ok "$name"
	else
		result fail "$name"
	fi
}

# flood_name MODE: the name of wsx_flood's run in MODE; io_uring's are
# contenders alone
flood_name() {
	case $1 in
	uring-*) echo "no wsx: wsx_flood nop $1" ;;
	*) echo "wsx_flood nop $1" ;;
	esac
}

# bench WORKLOAD CONTENDER: one run of the bench module.
bench() {
	check "$1" "$2" "$( (echo "$1 $2 1" >$R) 2>&1 && cat $R)"
}

echo "TAP version 13"
echo "1..37"
# the selftests before may have unloaded wsx: load it with its defaults
if [ ! -d /sys/module/wsx ] && ! insmod /wsx/kmod/wsx.ko; then
	echo "Bail out! wsx.ko is not loaded and insmod failed"
	exit 1
fi
rmmod wsx_bench 2>/dev/null
if ! insmod $KO spawn_items=4096 fib_n=12 imb_items=64 crc_mib=1; then
	echo "Bail out! insmod $KO failed"
	exit 1
fi
for w in spawn fib imbalance spawn-pre fib-pre; do
	for c in wsx cmwq-percpu cmwq-unbound central direct; do
		bench $w $c
	done
done
bench crc direct
direct_crc=$(sed -n 's/.* result=\([0-9]*\) .*/\1/p' $R)
rmmod wsx_bench
result "$([ $? = 0 ] && echo ok || echo fail)" "no wsx: rmmod wsx_bench"

if [ -x "$FLOOD" ]; then
	out=$("$FLOOD" nop 2000 16 2>&1)
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -Eq '^flood batch=16 items=2000 ns=[0-9]+ p50_ns=[0-9]+ p99_ns=[0-9]+ max_ns=[0-9]+$' &&
		result ok "wsx_flood nop" || result fail "wsx_flood nop"
	# the other doors: the rings and both io_uring contenders
	for m in rings pickup uring-async uring-inline; do
		name=$(flood_name $m)
		out=$("$FLOOD" nop 2000 16 64 $m 2>&1)
		echo "$out" | sed 's/^/# /'
		echo "$out" | grep -Eq "^flood batch=16 items=2000 ns=[0-9]+ mode=$m enters=[0-9]+$" &&
			result ok "$name" || result fail "$name"
	done
	# idle pick-up sessions: what they cost another's round trip, exit
	out=$("$FLOOD" idle 64 50 2>&1)
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -Eq '^idle sessions=64 setup_ms=[0-9]+ rtt_none_ns=[0-9]+ rtt_idle_ns=[0-9]+ ratio=[0-9.]+ exit_ms=[0-9]+$' &&
		result ok "wsx_flood idle" || result fail "wsx_flood idle"
	out=$("$FLOOD" crc 1 2>&1)
	echo "$out" | sed 's/^/# /'
	# the same bytes through wsx's CRC32C op and __crc32c_le on one CPU
	echo "$out" | grep -Eq "^crc bytes=1048576 ns=[0-9]+ result=$direct_crc nodes=[0-9]+$" &&
		result ok "wsx_flood crc matches direct" ||
		result fail "wsx_flood crc matches direct"
else
	result ok "wsx_flood nop" "SKIP $FLOOD not staged"
	for m in rings pickup uring-async uring-inline; do
		result ok "$(flood_name $m)" "SKIP $FLOOD not staged"
	done
	result ok "wsx_flood idle" "SKIP $FLOOD not staged"
	result ok "wsx_flood crc matches direct" "SKIP $FLOOD not staged"
fi

# the Go contender: the same shapes, the same result line
for w in "spawn 4096 4" "fib 12" "imbalance 64 1000"; do
	if [ -x "$GO" ]; then
		check "${w%% *}" go "$("$GO" $w 1 2>&1)"
	else
		result ok "no wsx: ${w%% *} go" "SKIP $GO not staged"
	fi
done
exit $failed
