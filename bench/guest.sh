#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh: the part of `make bench` that runs inside the VM (busybox sh),
# started by scripts/bench through scripts/vm-run.  It prints raw results
# only; scripts/bench-report turns them into the table, JSON and SVG.
#
#   sh guest.sh throughput   (2 vCPUs) spawn and fib on every contender,
#                            the Go runtime included, and on every wsx
#                            config (stats on against off, latency_sample=1,
#                            the steal policies), the executor-only
#                            spawn-pre and fib-pre, CRC32C, and the NOP
#                            flood from userspace through /dev/wsx's ioctls
#                            and rings and through io_uring, at batch 1, 16,
#                            256 and as a round trip (rtt: submit one, wait
#                            for it)
#   sh guest.sh balance      (4 vCPUs) the imbalance workload
#   sh guest.sh executor     (1 vCPU, so nprocs=1) the executor-only
#                            workloads, and spawn and fib on wsx and direct
#   sh guest.sh topology     (2 NUMA nodes) the imbalance workload and the
#                            spawn tree under steal_topology=flat, cache and
#                            numa: the figure is the count of items that
#                            crossed nodes and caches (the stats' stolen_*
#                            by level), not the time, which TCG cannot tell
#   sh guest.sh chan         (2 vCPUs) the channels (ABI 1.2) against Go's:
#                            pingpong (PP_N round trips over two unbuffered
#                            channels: ns per handoff), pipeline (8 stages,
#                            PIPE_VALUES values: ns per value) and wakestorm
#                            (STORM_ITEMS receivers parked on one channel,
#                            then one sender: ns per wake), each on wsx
#                            (/extra/wsx_chanbench) and on goroutines
#                            (/extra/wsx_go); and the same pingpong and
#                            pipeline as one request of the ops PINGPONG
#                            and PIPELINE (ABI 1.4: pingpong-op,
#                            pipeline-op, on wsx only; Go's rows are the
#                            goroutines' above)
#   sh guest.sh poll         (2 vCPUs) the netpoller (ABI 1.3): POLL_N
#                            eventfds armed, written in a random order and
#                            reaped (ns per completion, with the arm, write
#                            and reap parts), on wsx through the rings and
#                            the ioctls and on io_uring's POLL_ADD, plain
#                            and with DEFER_TASKRUN (/extra/wsx_pollbench)
#
# Environment: RUNS (default 2), FLOOD_ITEMS (default 200000), RTT_ITEMS
# (default 2000), CRC_MIB (default 256), PP_N (default 100000),
# PIPE_VALUES (default 100000), STORM_ITEMS (default 10000), POLL_N
# (default 10000, at most wsx.ko's ring_max_entries).  Needs
# /wsx/kmod/wsx.ko, /wsx/kmod/wsx_bench.ko, for the flood and the CRC32C on
# wsx /extra/wsx_flood, for the Go runtime /extra/wsx_go (each skipped when
# absent), for the chan phase /extra/wsx_chanbench, for the poll phase
# /extra/wsx_pollbench.
#
# Output, one record per measured run:
#   @begin config=C workload=W contender=X
#   pre P<n> ...       /sys/kernel/debug/wsx/stats before (wsx runs only)
#   prelog P<n> ...    /sys/kernel/debug/wsx/steal_log before (wsx runs)
#   bench ... | flood ... | crc ...   the result line
#   post ..., postlog ...             the same after
#   @end
# (the chan phase's wsx records carry no pre/post: wsx_chanbench reads the
# stats itself around the timed part and prints the deltas, per P on
# "chanstat P<n> ..." lines and summed on its bench line; so do the poll
# phase's, wsx_pollbench's "pollstat P<n> ..." lines, with its
# "pollstat parked: ..." the schedtrace line while the N POLLs waited).
# and lines starting with "# " that tell the progress.
RUNS=${RUNS:-2}
FLOOD_ITEMS=${FLOOD_ITEMS:-200000}
RTT_ITEMS=${RTT_ITEMS:-2000}
CRC_MIB=${CRC_MIB:-256}
R=/sys/kernel/debug/wsx_bench/run
S=/sys/kernel/debug/wsx/stats
L=/sys/kernel/debug/wsx/steal_log
PP_N=${PP_N:-100000}
PIPE_VALUES=${PIPE_VALUES:-100000}
STORM_ITEMS=${STORM_ITEMS:-10000}
POLL_N=${POLL_N:-10000}
FLOOD=/extra/wsx_flood
GO=/extra/wsx_go
CHAN=/extra/wsx_chanbench
POLL=/extra/wsx_pollbench
config=
ITERS=

die() {
	echo "@fatal $*"
	exit 1
}

# load CONFIG [WSX_PARAMS...]: (re)load wsx.ko with the params, then the
# bench module.
load() {
	config=$1
	shift
	rmmod wsx_bench 2>/dev/null
	rmmod wsx 2>/dev/null
	insmod /wsx/kmod/wsx.ko "$@" || die "insmod wsx.ko $*"
	insmod /wsx/kmod/wsx_bench.ko crc_mib="$CRC_MIB" \
		${ITERS:+imb_spin_iters=$ITERS} ||
		die "insmod wsx_bench.ko"
}

snap() {
	sed "s/^/$1 /" $S
	sed "s/^/$1log /" $L
}

# one WORKLOAD CONTENDER: one run of the bench module.
one() {
	echo "@begin config=$config workload=$1 contender=$2"
	[ "$2" = wsx ] && snap pre
	if echo "$1 $2 1" >$R; then
		cat $R
	else
		echo "@error $1 $2: write failed"
	fi
	[ "$2" = wsx ] && snap post
	echo "@end"
}

# go WORKLOAD ARGS...: one timed run of the Go runtime (after its warm-up).
go() {
	[ -x "$GO" ] || return 0
	echo "@begin config=$config workload=$1 contender=go"
	"$GO" "$@" 1 || echo "@error $1 go: wsx_go $* failed"
	echo "@end"
}

# user WORKLOAD CONTENDER COMMAND...: one run of wsx_flood.
user() {
	w=$1 c=$2
	shift 2
	echo "@begin config=$config workload=$w contender=$c"
	snap pre
	"$FLOOD" "$@" || echo "@error $w $c: wsx_flood $* failed"
	snap post
	echo "@end"
}

# flood_all WORKLOAD ITEMS BATCH INFLIGHT: one run of each door, the
# contenders interleaved within the round
flood_all() {
	user "$1" wsx nop "$2" "$3" "$4" ioctl
	user "$1" wsx-rings nop "$2" "$3" "$4" rings
	user "$1" wsx-pickup nop "$2" "$3" "$4" pickup
	user "$1" uring-async nop "$2" "$3" "$4" uring-async
	user "$1" uring-inline nop "$2" "$3" "$4" uring-inline
}

throughput() {
	i=1
	while [ $i -le "$RUNS" ]; do
		echo "# throughput round $i/$RUNS: spawn, fib on all contenders"
		load half
		for w in spawn fib; do
			for c in wsx cmwq-percpu cmwq-unbound central direct; do
				one $w $c
			done
		done
		for w in spawn-pre fib-pre; do
			for c in wsx cmwq-percpu central direct; do
				one $w $c
			done
		done
		go spawn "$(cat /sys/module/wsx_bench/parameters/spawn_items)" \
			"$(cat /sys/module/wsx_bench/parameters/spawn_fanout)"
		go fib "$(cat /sys/module/wsx_bench/parameters/fib_n)"
		load stats0 stats=0
		one spawn wsx
		one fib wsx
		one spawn-pre wsx
		load ls1 latency_sample=1
		one spawn wsx
		one fib wsx
		one spawn-pre wsx
		for pol in none one all; do
			load "$pol" steal_policy="$pol"
			one spawn wsx
			one fib wsx
		done
		i=$((i + 1))
	done
	echo "# crc32c over $CRC_MIB MiB"
	load half
	i=1
	while [ $i -le "$RUNS" ]; do
		one crc direct
		[ -x "$FLOOD" ] && user crc wsx crc "$CRC_MIB"
		i=$((i + 1))
	done
	[ -x "$FLOOD" ] || return 0
	for b in 1 16 256; do
		echo "# flood: $FLOOD_ITEMS NOP items, batch $b: ioctl, rings, io_uring"
		i=1
		while [ $i -le "$RUNS" ]; do
			flood_all "flood-$b" "$FLOOD_ITEMS" "$b" 8192
			i=$((i + 1))
		done
	done
	echo "# rtt: $RTT_ITEMS round trips of one NOP: ioctl, rings, io_uring"
	i=1
	while [ $i -le "$RUNS" ]; do
		flood_all rtt "$RTT_ITEMS" 1 1
		i=$((i + 1))
	done
}

# chanrun WORKLOAD ARGS...: one run of wsx_chanbench (after its warm-up).
chanrun() {
	echo "@begin config=$config workload=$1 contender=wsx"
	"$CHAN" "$@" 1 || echo "@error $1 wsx: wsx_chanbench $* failed"
	echo "@end"
}

# rounds PHASE WHAT FUNCTION: RUNS rounds of FUNCTION, each announced as
# "# PHASE round i/RUNS: WHAT" and on a fresh load of wsx.ko (config half).
rounds() {
	i=1
	while [ $i -le "$RUNS" ]; do
		echo "# $1 round $i/$RUNS: $2"
		load half
		"$3"
		i=$((i + 1))
	done
}

chan_round() {
	chanrun pingpong "$PP_N"
	chanrun pingpong-op "$PP_N"
	go pingpong "$PP_N"
	chanrun pipeline 8 "$PIPE_VALUES"
	chanrun pipeline-op 8 "$PIPE_VALUES"
	go pipeline 8 "$PIPE_VALUES"
	chanrun wakestorm "$STORM_ITEMS"
	go wakestorm "$STORM_ITEMS"
}

chan() {
	[ -x "$CHAN" ] || die "no $CHAN"
	rounds chan "pingpong $PP_N, pipeline 8 x $PIPE_VALUES (each also as one PINGPONG or PIPELINE op), wakestorm $STORM_ITEMS; wsx and Go" \
		chan_round
}

# pollrun MODE: one run of wsx_pollbench's door MODE (after its warm-up).
pollrun() {
	case $1 in
	rings) c=wsx-rings ;;
	ioctl) c=wsx ;;
	*) c=$1 ;;
	esac
	echo "@begin config=$config workload=poll contender=$c"
	"$POLL" "$1" "$POLL_N" 1 ||
		echo "@error poll $c: wsx_pollbench $1 $POLL_N failed"
	echo "@end"
}

poll_round() {
	for m in rings ioctl uring uring-defer; do
		pollrun $m
	done
}

poll() {
	[ -x "$POLL" ] || die "no $POLL"
	rounds poll "$POLL_N eventfds armed, written, reaped; wsx rings and ioctls, io_uring POLL_ADD" \
		poll_round
}

balance() {
	calibrate
	i=1
	while [ $i -le "$RUNS" ]; do
		echo "# balance round $i/$RUNS"
		for pol in half one all none; do
			load "$pol" steal_policy="$pol"
			one imbalance wsx
		done
		load half
		for c in cmwq-percpu cmwq-unbound central direct; do
			one imbalance $c
		done
		go imbalance "$(cat /sys/module/wsx_bench/parameters/imb_items)" \
			"$ITERS"
		i=$((i + 1))
	done
}

# calibrate the imbalance items once, for every load of this boot
calibrate() {
	load half
	echo "imbalance direct 1" >$R || die "calibration run failed"
	ITERS=$(sed -n 's/.* spin_iters=\([0-9]*\).*/\1/p' $R)
	[ -n "$ITERS" ] || die "no spin_iters"
	echo "@meta2 spin_iters=$ITERS"
}

topology() {
	calibrate
	echo "@meta nodes=$(ls -d /sys/devices/system/node/node* | wc -l)"
	i=1
	while [ $i -le "$RUNS" ]; do
		echo "# topology round $i/$RUNS: flat, cache, numa"
		for t in flat cache numa; do
			load "topo-$t" steal_topology="$t"
			one imbalance wsx
			one spawn wsx
		done
		i=$((i + 1))
	done
}

executor() {
	i=1
	while [ $i -le "$RUNS" ]; do
		echo "# executor round $i/$RUNS: one vCPU, nprocs=1"
		load half
		for w in spawn-pre fib-pre; do
			for c in wsx cmwq-percpu central direct; do
				one $w $c
			done
		done
		for w in spawn fib; do
			one $w wsx
			one $w direct
		done
		load stats0 stats=0
		one spawn-pre wsx
		one fib-pre wsx
		load ls1 latency_sample=1
		one spawn-pre wsx
		one fib-pre wsx
		i=$((i + 1))
	done
}

echo "@meta cpus=$(grep -c ^processor /proc/cpuinfo) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) kernel=$(uname -r)"
case $1 in
throughput) throughput ;;
balance) balance ;;
executor) executor ;;
topology) topology ;;
chan) chan ;;
poll) poll ;;
*) die "usage: guest.sh throughput|balance|executor|topology|chan|poll" ;;
esac
rmmod wsx_bench 2>/dev/null
echo "@done"
