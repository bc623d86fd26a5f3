#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make demo`: the seeds' scenario as a user runs it.
# Twenty 50 ms SPIN items are queued on P0 in one SUBMIT while P1..P3 are
# idle; schedtrace lines, taken every 20 ms or so, show the queue depths
# going from [20 0 0 0] towards balance as the idle Ps steal half of P0's
# queue (its ring, or the inbox its busy M has not emptied yet), then half
# of each other's.  (SPIN is limited to max_item_ns,
# 10 ms by default: the demo raises it for its run, to be seen under TCG,
# and turns the long-item monitor off, which would otherwise hand the Ps of
# such long items to more Ms.)  Last, wsxctl top --once samples the Ps
# while 2,000 SPIN(2 ms) items queued on P0 are being stolen, as the
# README's top example does: after the scenario the executor is idle and a
# sample then is all zeros.
D=/sys/kernel/debug/wsx
MAX=/sys/module/wsx/parameters/max_item_ns
LONG=/sys/module/wsx/parameters/long_item_ms

echo "== wsx is loaded: $(grep '^wsx ' /proc/modules)"
wsxctl version
echo
echo "== the seeds' scenario: 20 SPIN(50 ms) items on P0, P1..P3 idle"
read -r line <$D/schedtrace
echo "$line"
old_max=$(cat $MAX)
old_long=$(cat $LONG)
echo 100000000 >$MAX
echo 0 >$LONG
wsxctl run spin 50000000 --count 20 --batch 20 --place cpu:0 >/tmp/run.out &
run=$!
last=
while kill -0 $run 2>/dev/null; do
	read -r line <$D/schedtrace
	depths=${line#*runqueue=}
	[ "$depths" != "$last" ] && echo "$line"
	last=$depths
	usleep 20000
done
wait $run
echo "$old_max" >$MAX
echo "$old_long" >$LONG
read -r line <$D/schedtrace
echo "$line"
echo
echo "== what wsxctl saw"
cat /tmp/run.out
echo
echo "== per-P counters (/sys/kernel/debug/wsx/stats)"
cat $D/stats
echo
echo "== the steals (victim's ring length seen, items taken: n - n/2)"
cat $D/steal_log
echo
echo "== wsxctl top --once, during 2000 SPIN(2 ms) items queued on P0"
wsxctl run spin 2000000 --count 2000 --place cpu:0 >/dev/null &
run=$!
# sample once items are queued: the schedtrace's depths not all 0
while kill -0 $run 2>/dev/null; do
	read -r line <$D/schedtrace
	case ${line#*runqueue=} in
	*[1-9]*) break ;;
	esac
	usleep 10000
done
wsxctl top --once
wait $run
