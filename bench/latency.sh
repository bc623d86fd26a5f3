#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# latency.sh: the longest interrupts-off and preemption-off stretches of
# the kernel while a user asks wsx for its longest walks of a P's timers
# (wsx_flood delayed: ITEMS NOPs delayed on P0, then the session closed at
# once, or all of them due together), under the irqsoff and preemptoff
# tracers of a kernel that has them (the KASAN debug kernel).  Runs in the
# VM, started by `make bench-latency`; each MODULE given is loaded in turn
# (an older build beside the current one: both in the same boot), and for
# each tracer and mode it prints
#   latency ko=NAME tracer=T mode=M items=N max_us=U from=FUNC to=FUNC
#           stack=F1<F2<...
# FROM and TO are where the longest stretch began and ended, which may be
# outside wsx; STACK is the call stack where it ended (up to 8 functions,
# innermost first), which says whose stretch it was.  A figure, not a
# test: under TCG and KASAN the times are the emulator's; compare modules
# in one boot.
#
#   sh latency.sh WSX_FLOOD ITEMS MODULE...
flood=$1
items=$2
shift 2
t=/sys/kernel/tracing
if ! grep -qw irqsoff $t/available_tracers 2>/dev/null; then
	echo "latency: this kernel has no irqsoff tracer"
	exit 1
fi
rc=0
for ko in "$@"; do
	insmod "$ko" || { rc=1; continue; }
	for tracer in irqsoff preemptoff; do
		for mode in close due; do
			echo "$tracer" >$t/current_tracer
			echo 0 >$t/tracing_max_latency
			"$flood" delayed "$items" 1000 "$mode" >/dev/null || rc=1
			max=$(cat $t/tracing_max_latency)
			from=$(sed -n 's/.*=> started at: *\([^ ]*\).*/\1/p' $t/trace | sed -n 1p)
			to=$(sed -n 's/.*=> ended at: *\([^ ]*\).*/\1/p' $t/trace | sed -n 1p)
			# the stack where it ended, innermost first: whose it was
			stack=$(sed -n '/<stack trace>/,$s/^ *=> *\([^ ]*\).*/\1/p' \
				$t/trace | sed -n 1,8p | tr '\n' '<')
			echo nop >$t/current_tracer
			echo "latency ko=$(basename "$ko") tracer=$tracer mode=$mode items=$items max_us=$max from=$from to=$to stack=${stack%<}"
		done
	done
	rmmod wsx || rc=1
done
exit $rc
