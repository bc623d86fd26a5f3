#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the shell selftests of wsx.  Source it.
#
# WSX_KO: the module file to insmod; when it does not exist, modprobe wsx.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
WSX_KO=${WSX_KO:-/wsx/kmod/wsx.ko}
WSX_DEBUGFS=/sys/kernel/debug/wsx

wsx_loaded() { [ -d /sys/module/wsx ]; }

# wsx_load [PARAMS...]: load the module with PARAMS
wsx_load() {
	if [ -f "$WSX_KO" ]; then
		insmod "$WSX_KO" "$@"
	else
		modprobe wsx "$@"
	fi
}

wsx_unload() { rmmod wsx; }

# wsx_reload [PARAMS...]: unload when loaded, then load with PARAMS
wsx_reload() {
	if wsx_loaded; then
		wsx_unload || return
	fi
	wsx_load "$@"
}

# wsx_stat_sum KEY: KEY= summed over the P lines of the stats file
wsx_stat_sum() {
	awk -v key="$1=" '/^P[0-9]+ / {
		for (i = 2; i <= NF; i++)
			if (index($i, key) == 1) sum += substr($i, length(key) + 1)
	} END { print sum + 0 }' "$WSX_DEBUGFS/stats"
}

# wsx_first_p_of_node N: the number of the first P whose node= is N
wsx_first_p_of_node() {
	awk -v want="node=$1" '/^P[0-9]+ / {
		for (i = 2; i <= NF; i++)
			if ($i == want) { print substr($1, 2); exit }
	}' "$WSX_DEBUGFS/stats"
}

# wsx_ps_of_node N: how many P lines say node=N
wsx_ps_of_node() {
	grep -c "^P[0-9]* node=$1 " "$WSX_DEBUGFS/stats"
}

# wsx_need_numa: exit with a skip on fewer than 2 NUMA nodes
wsx_need_numa() {
	if [ "$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null |
		wc -l)" -lt 2 ]; then
		echo "# SKIP fewer than 2 NUMA nodes"
		exit $KSFT_SKIP
	fi
}

# wsx_need_wsxctl: set WSXCTL (default wsxctl), or exit with a skip
wsx_need_wsxctl() {
	WSXCTL=${WSXCTL:-wsxctl}
	if ! command -v "$WSXCTL" >/dev/null; then
		echo "# SKIP wsxctl not found (set WSXCTL)"
		exit $KSFT_SKIP
	fi
}

# wsx_log_mark TEXT: write TEXT into the kernel log, a line that
# wsx_log_after TEXT finds again: it prints the log after it
wsx_log_mark() { echo "$1" >/dev/kmsg; }
wsx_log_after() { dmesg | sed -n "\\|$1|,\$p" | tail -n +2; }

# wsx_case STATUS DESCRIPTION [REASON]: the next KTAP result line of a
# shell test, one per case, counted as its subtests: STATUS 0 ok,
# $KSFT_SKIP ok with "# SKIP REASON", any other not ok (and rc=KSFT_FAIL)
wsx_case_n=0
wsx_case() {
	wsx_case_n=$((wsx_case_n + 1))
	case $1 in
	0) echo "ok $wsx_case_n $2" ;;
	"$KSFT_SKIP") echo "ok $wsx_case_n $2 # SKIP ${3:?a skip says why}" ;;
	*) echo "not ok $wsx_case_n $2"; rc=$KSFT_FAIL ;;
	esac
}

# wsx_scenario PROGRAM DESCRIPTION PARAMS... -- SCENARIO [SETUP]: reload
# the module with PARAMS, run the shell command SETUP if given, then
# PROGRAM SCENARIO, which prints its own KTAP result lines; a failure (a
# skip is not one) sets rc to KSFT_FAIL
wsx_scenario() {
	prog=$1
	echo "# $2"
	shift 2
	params=
	while [ "$1" != -- ]; do params="$params $1"; shift; done
	shift
	# shellcheck disable=SC2086
	if ! wsx_reload $params; then
		wsx_case 1 "$1: load with$params"
		return
	fi
	[ -n "${2:-}" ] && sh -c "$2"
	"$prog" "$1"
	case $? in
	0|"$KSFT_SKIP") ;;
	*) echo "# FAIL: $1"; rc=$KSFT_FAIL ;;
	esac
}

# wsx_hotplug_cpus: those of CPUs $WSX_HOTPLUG_CPUS (default 1-3) that can
# go offline here; skips (exit 4) with the reason when there is none
wsx_hotplug_cpus() {
	cpus=""
	for c in ${WSX_HOTPLUG_CPUS:-1 2 3}; do
		[ -w /sys/devices/system/cpu/cpu$c/online ] && cpus="$cpus $c"
	done
	if [ -z "$cpus" ]; then
		echo "# SKIP no CPU among ${WSX_HOTPLUG_CPUS:-1 2 3} can go offline here"
		exit $KSFT_SKIP
	fi
}

# wsx_cpu_in LIST CPU: CPU is in LIST, a cpulist such as 0-2,5
wsx_cpu_in() {
	for range in $(echo "$1" | tr ',' ' '); do
		[ "$2" -ge "${range%-*}" ] && [ "$2" -le "${range#*-}" ] &&
			return 0
	done
	return 1
}

# wsx_m_mask /proc/PID: when PID is one of wsx's threads (wsx/N, an M),
# print "# wsx/N on CPU C, allowed LIST" (C: the CPU it runs or last ran
# on, /proc's stat field 39); status 1 when C is outside LIST, 2 when PID
# is not an M (or it exited)
wsx_m_mask() {
	case $(cat "$1/comm" 2>/dev/null) in
	wsx/*) ;;
	*) return 2 ;;
	esac
	allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' \
		"$1/status" 2>/dev/null)
	# comm holds no space (wsx/N): field 39 is the processor
	on=$(cut -d' ' -f39 "$1/stat" 2>/dev/null)
	[ -n "$allowed" ] && [ -n "$on" ] || return 2
	echo "# $(cat "$1/comm") on CPU $on, allowed $allowed"
	wsx_cpu_in "$allowed" "$on"
}

# wsx_m_masks: print every M as wsx_m_mask does; fail when one is outside
# its mask, looked at twice 200 ms apart (an M binding itself shows its new
# mask while the kernel is still moving it)
wsx_m_masks() {
	late=
	for t in /proc/[0-9]*; do
		wsx_m_mask "$t"
		[ $? = 1 ] && late="$late $t"
	done
	[ -z "$late" ] && return 0
	sleep 0.2
	outside=0
	for t in $late; do
		wsx_m_mask "$t"
		[ $? = 1 ] || continue
		echo "# $(cat "$t/comm") runs outside its mask"
		outside=1
	done
	[ $outside = 0 ]
}

# wsx_p_holder P: the id of the M holding P, from one scheddetail trace in
# the kernel log (schedtrace_ms and scheddetail set back to off after)
wsx_p_holder() {
	mark="wsx_p_holder: P$1, $$"
	wsx_log_mark "$mark"
	echo 1 >/sys/module/wsx/parameters/scheddetail
	echo 200 >/sys/module/wsx/parameters/schedtrace_ms
	sleep 1
	echo 0 >/sys/module/wsx/parameters/schedtrace_ms
	echo 0 >/sys/module/wsx/parameters/scheddetail
	wsx_log_after "$mark" | sed -n "s/.* P$1: .* m=\([0-9]*\) .*/\1/p" |
		tail -n 1
}

# wsx_m_bound_to P CPU: the M holding P is allowed on CPU alone
wsx_m_bound_to() {
	m=$(wsx_p_holder "$1")
	[ -n "$m" ] || { echo "# no scheddetail line for P$1"; return 1; }
	wsx_m_masks | grep "^# wsx/$m on" | grep -q ", allowed $2\$"
}

# wsx_need_root_and_module: skip (exit 4) with the reason when the test
# cannot run here
wsx_need_root_and_module() {
	if [ "$(id -u)" != 0 ]; then
		echo "# SKIP need root"
		exit $KSFT_SKIP
	fi
	if ! wsx_loaded && [ ! -f "$WSX_KO" ] && ! modinfo wsx >/dev/null 2>&1; then
		echo "# SKIP wsx.ko not found (set WSX_KO)"
		exit $KSFT_SKIP
	fi
}
