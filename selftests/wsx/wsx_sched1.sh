#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run wsx_sched1_test with the module reloaded with nprocs=1, then restore
# the module's defaults.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

wsx_reload nprocs=1 || { echo "# FAIL: load with nprocs=1"; exit $KSFT_FAIL; }
"$DIR/wsx_sched1_test"
rc=$?
wsx_reload || rc=$KSFT_FAIL
exit $rc
