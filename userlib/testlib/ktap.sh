#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# KTAP-ish helpers for the shell tests in test/: source it.
#
#   ok STATUS DESCRIPTION   print "ok N - DESCRIPTION" when STATUS is 0,
#                           else "not ok N - ..." and count a failure
n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
