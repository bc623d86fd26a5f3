#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module parameters at load: each bad value is refused (insmod fails, no
# module is left loaded) with a kernel log line that names the parameter;
# stats=0 loads and unloads; schedtrace_ms given at load prints the
# schedtrace line, and a write of it that is not a number is refused; then
# the module loads with its defaults.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

rc=$KSFT_PASS
cpus=$(grep -c "^processor" /proc/cpuinfo)	# the online ones

# refused PARAM LOG: loading with PARAM fails, leaves no module, and the
# kernel log since the attempt has LOG
refused() {
	if wsx_loaded && ! wsx_unload; then
		echo "# $1: wsx could not be unloaded first"
		return 1
	fi
	mark="wsx_params.sh: load with $1"
	wsx_log_mark "$mark"
	if wsx_load "$1" 2>/dev/null; then
		echo "# $1: loaded"
		wsx_unload
		return 1
	fi
	if wsx_loaded; then
		echo "# $1: the module is loaded"
		return 1
	fi
	if ! wsx_log_after "$mark" | grep -qF -- "$2"; then
		echo "# $1: the kernel log has no \"$2\""
		return 1
	fi
	echo "# $1: refused, \"$2\""
}

refused "nprocs=$((cpus + 1))" "nprocs=$((cpus + 1)): only $cpus CPUs are online"
wsx_case $? "nprocs beyond the online CPUs"
refused steal_policy=most "steal_policy=most: want half, one, all or none"
wsx_case $? "an unknown steal_policy"
refused steal_topology=ring "steal_topology=ring: want numa, cache or flat"
wsx_case $? "an unknown steal_topology"
refused global_tick=0 "global_tick must be >= 1, steal_tries 1 .. 16"
wsx_case $? "global_tick=0"
refused steal_tries=0 "global_tick must be >= 1, steal_tries 1 .. 16"
wsx_case $? "steal_tries=0"
refused steal_tries=17 "global_tick must be >= 1, steal_tries 1 .. 16"
wsx_case $? "steal_tries=17"
if [ "$cpus" -ge 2 ]; then
	refused "nprocs=2 max_threads=1" "max_threads=1: fewer than nprocs=2"
	wsx_case $? "max_threads below nprocs"
else
	wsx_case $KSFT_SKIP "max_threads below nprocs" "one CPU online: nprocs=2 is refused first"
fi

wsx_reload stats=0 && [ "$(cat /sys/module/wsx/parameters/stats)" = N ] &&
	wsx_unload
wsx_case $? "stats=0 loads and unloads"

# schedtrace_ms=100 at load: its set runs before wsx_init(), when there is
# no debugfs directory yet (wsx_schedtrace_ms_set()), and
# wsx_debugfs_init() starts the trace: a schedtrace line within 10 s, with
# no write of the parameter after the load.  Then "abc" is refused with
# EINVAL (param_set_uint()) and the value stays 100.
schedtrace_at_load() {
	mark="wsx_params.sh: load with schedtrace_ms=100"
	param=/sys/module/wsx/parameters/schedtrace_ms
	wsx_log_mark "$mark"
	wsx_reload schedtrace_ms=100 || return
	tries=100
	until wsx_log_after "$mark" | grep -q "wsx: WSX [0-9]*ms: nprocs="; do
		tries=$((tries - 1))
		if [ "$tries" -eq 0 ]; then
			echo "# schedtrace_ms=100: no schedtrace line in the kernel log within 10 s"
			return 1
		fi
		sleep 0.1
	done
	if err=$( (echo abc >"$param") 2>&1); then
		echo "# schedtrace_ms=abc: the write succeeded"
		return 1
	fi
	case $err in
	*"Invalid argument"*) ;;
	*) echo "# schedtrace_ms=abc: refused, but not with EINVAL: $err"; return 1 ;;
	esac
	value=$(cat "$param")
	echo 0 >"$param"
	if [ "$value" != 100 ]; then
		echo "# schedtrace_ms=abc: refused, but the value is now $value"
		return 1
	fi
	echo "# schedtrace_ms=100: a schedtrace line after $((100 - tries)) polls; abc refused ($err), the value still $value"
}

schedtrace_at_load
wsx_case $? "schedtrace_ms at load logs the schedtrace line, a non-number write is refused"

wsx_reload
wsx_case $? "the defaults load again"
exit $rc
