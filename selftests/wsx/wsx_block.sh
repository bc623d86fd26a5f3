#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Blocking handoff, spare Ms exiting when idle, and the long-item monitor,
# also after a park's recheck took the P back
# (see wsx_block_test.c for each scenario).  Restores the module's defaults.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

rc=0
# run DESCRIPTION PARAMS... -- SCENARIO [SETUP]
run() { wsx_scenario "$DIR/wsx_block_test" "$@"; }

run "sleepers hand P0 to spare Ms" nprocs=2 idle_thread_ms=200 -- handoff
# the spare Ms started above exit once idle, down to one per P
sleep 2
stats=$(cat $WSX_DEBUGFS/stats) || stats=
threads=$(echo "$stats" | sed -n 's/.* threads=\([0-9]*\) .*/\1/p')
exited=$(echo "$stats" | sed -n 's/.* threads_exited=\([0-9]*\) .*/\1/p')
echo "# after 2 s idle: threads=$threads threads_exited=$exited"
# both read (a missing one fails), two Ms left, at least one exited
case "$threads.$exited" in
2.[1-9]*) wsx_case 0 "idle spare Ms exit, down to one per P" ;;
*) wsx_case 1 "idle spare Ms exit, down to one per P" ;;
esac
run "one P, max_threads = 1: the queue waits" nprocs=1 max_threads=1 -- wait
run "the monitor rescues the queue behind a long item" \
	nprocs=1 max_item_ns=400000000 -- monitor
run "long_item_ms=0: the queue waits behind it" \
	nprocs=1 max_item_ns=400000000 long_item_ms=0 -- nomonitor
run "the monitor watches a P a park's recheck took back" \
	nprocs=1 max_item_ns=400000000 -- recheck
wsx_reload || rc=$KSFT_FAIL
exit $rc
