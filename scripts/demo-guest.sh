#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make demo`: the seeds' scenario as a user runs it.
# Twenty 50 ms SPIN items are queued on P0 in one SUBMIT while P1..P3 are
# idle; schedtrace lines show the queue depths going towards balance as the
# idle Ps steal half of P0's queue (its ring, or the inbox its busy M has
# not emptied yet), then half of each other's.  The first line is the first
# sample, read in a loop without pause, in which items are queued; it is
# [20 0 0 0] only when read before any idle P stole, which the idle Ps,
# woken by the SUBMIT, usually do first (one run showed [4 9 2 1]; the
# timeline that `make demo` draws next, from the trace's events, has the
# [20 0 0 0]); then a line every 20 ms or so, when the depths changed.  SPIN is limited to max_item_ns, 10 ms by default: the
# demo raises it for its run (a user copying the command without it gets
# E2BIG), and turns the long-item monitor off (long_item_ms 0), which would
# otherwise hand the P of each item to a second M after 10 ms, and says so.
# Last, wsxctl top --once samples the Ps while 2,000 SPIN(2 ms) items queued
# on P0 are being stolen, as the README's top example does: after the
# scenario the executor is idle and a sample then is all zeros.
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
echo "(for this run max_item_ns $old_max -> 100000000: SPIN(50 ms) is over" \
	"it, E2BIG otherwise; long_item_ms $old_long -> 0: the monitor would" \
	"hand the P of an item running over $old_long ms to a second M, two" \
	"items then sharing a CPU)"
wsxctl run spin 50000000 --count 20 --batch 20 --place cpu:0 >/tmp/run.out &
run=$!
# the first sample with queued items, read without pause
while kill -0 $run 2>/dev/null; do
	read -r line <$D/schedtrace
	case ${line#*runqueue=} in
	*[1-9]*) break ;;
	esac
done
echo "(schedtrace: the first sample with items queued; the idle Ps have" \
	"usually stolen before it: the timeline below shows the [20 0 0 0])"
echo "$line"
last=${line#*runqueue=}
while kill -0 $run 2>/dev/null; do
	usleep 20000
	read -r line <$D/schedtrace
	depths=${line#*runqueue=}
	[ "$depths" != "$last" ] && echo "$line"
	last=$depths
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
