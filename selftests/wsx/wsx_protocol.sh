#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The scheduler's protocols (see wsx_protocol_test.c for each scenario),
# each with the module parameters it needs.  Restores the module's defaults.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

rc=0
# run DESCRIPTION PARAMS... -- SCENARIO
run() { wsx_scenario "$DIR/wsx_protocol_test" "$@"; }

# SPIN(1 s) on P0; the monitor would hand P0 to another M after
# long_item_ms, which would run P0's NOPs there
run "items queued on a busy P are stolen at once" \
	max_item_ns=1000000000 long_item_ms=0 -- inbox_steal
run "an M back from a blocking section gets a P under sustained load" \
	nprocs=1 max_threads=2 -- waiter_bound
run "no handoff for an item the monitor flagged that has returned" \
	nprocs=1 long_item_ms=50 -- stale_handoff
run "CPU online then offline before its M ran: nothing stranded" \
	-- hotplug_ack
run "wakes and parks widened by fault points, spare Ms reaped at once" \
	nprocs=2 idle_thread_ms=0 -- widened_wake
# a long SPIN must keep its P: no handoff of it to another M
for s in lost_batch lost_parker lost_reclaim lost_reserve; do
	run "no P idle while an item waits: $s" nprocs=2 long_item_ms=0 \
		max_item_ns=1000000000 -- "$s"
done
run "the wasted-cores check fires on a lost wakeup, only then" nprocs=2 \
	long_item_ms=0 waste_ms=2 max_item_ns=1000000000 -- wasted
run "the wasted-cores check sees a deep queue that moves" nprocs=2 \
	long_item_ms=0 waste_ms=2 max_item_ns=1000000000 -- wasted_deep
# its SPINs double, up to 8 s, after a round a slow host spoiled
run "an owner's refill from its backlog wakes a thief" nprocs=2 \
	long_item_ms=0 max_item_ns=8000000000 -- backlog
run "pinned pages are charged to RLIMIT_MEMLOCK" -- memlock
wsx_reload || rc=$KSFT_FAIL
exit $rc
