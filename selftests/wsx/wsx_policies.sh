#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The exactly-once test and the stolen-batch check under each steal_policy
# other than the default: none, one and all.  WSX_ITEMS (default 200,000,
# divided by WSX_SCALE) items per policy.  The stolen-batch check runs with
# SPIN items of up to 200 ms and no monitor, so that P0's SPIN holds its M
# while thieves take the NOPs queued behind it.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

items=$((200000 / ${WSX_SCALE:-1}))
rc=0
for policy in none one all; do
	echo "# steal_policy=$policy"
	if ! wsx_reload steal_policy=$policy; then
		echo "# FAIL: load with steal_policy=$policy"
		rc=$KSFT_FAIL
		continue
	fi
	WSX_ITEMS=$items "$DIR/wsx_exactly_once" || rc=$KSFT_FAIL
	[ $policy = none ] && continue
	if ! wsx_reload steal_policy=$policy long_item_ms=0 \
	     max_item_ns=200000000; then
		echo "# FAIL: load with steal_policy=$policy long_item_ms=0"
		rc=$KSFT_FAIL
		continue
	fi
	"$DIR/wsx_steal_test" || rc=$KSFT_FAIL
done
wsx_reload || rc=$KSFT_FAIL
exit $rc
