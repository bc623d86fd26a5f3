#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sessions that end badly, and many at once (see wsx_session_helper.c):
#  1. close() with 100,000 queued SPIN(10 ms) items returns (a 60 s hang
#     guard, not a benchmark), the global "cancelled" counter grows by the
#     items in flight, and rmmod then works;
#  2. a submitter killed with SIGKILL in the middle of its work, then rmmod
#     works (through the ioctls, and through the shared rings, mapped);
#  3. rmmod is refused while a process (a shell's fd, then a process with a
#     1 s SLEEP queued) holds /dev/wsx open, and works once it is closed;
#  4. 16 processes submitting at once each receive exactly their own
#     completions;
#  5. a process with 1,000 parked POLLs (ABI 1.3: eventfds nothing writes,
#     a third with a 10 s timeout armed, a quarter through the mapped
#     rings) killed with SIGKILL: rmmod then works at once (nothing waits
#     on a file or a timer any more) and the kernel log since has no
#     splat.
# The module is loaded again at the end.  WSX_SCALE divides the sizes.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

HELPER=$DIR/wsx_session_helper
PARAMS=/sys/module/wsx/parameters
SCALE=${WSX_SCALE:-1}
[ "$SCALE" -ge 1 ] 2>/dev/null || SCALE=1
rc=$KSFT_PASS
ready=$(mktemp -u /tmp/wsx-session.XXXXXX)

fail() {
	echo "# FAIL: $*"
	rc=$KSFT_FAIL
}

# wait_for FILE: until FILE exists, at most 60 s
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# unload_ok WHAT: rmmod must work now; load the module again after
unload_ok() {
	if rmmod wsx; then
		[ -e /sys/module/wsx ] && fail "$1: /sys/module/wsx still there"
		echo "# $1: rmmod ok"
	else
		fail "$1: rmmod failed"
	fi
	wsx_loaded || wsx_load || { fail "$1: cannot load wsx again"; exit $rc; }
}

wsx_loaded || wsx_load || { echo "# FAIL: cannot load wsx"; exit $KSFT_FAIL; }

# 1. close() with N queued
n=$((100000 / SCALE))
[ $n -lt 5000 ] && n=5000
old=$(cat $PARAMS/max_inflight_fd)
[ "$old" -lt $n ] && echo $n >$PARAMS/max_inflight_fd
"$HELPER" close-queued $n 10000000 || fail "close() with $n SPIN(10 ms) queued"
echo "$old" >$PARAMS/max_inflight_fd
unload_ok "after close() with $n queued"

# 2. SIGKILL in the middle of the work, through the ioctls and the rings
for mode in busy busy-rings; do
	rm -f "$ready"
	"$HELPER" $mode "$ready" &
	pid=$!
	if wait_for "$ready"; then
		sleep 1
		kill -9 $pid
		wait $pid
		st=$?
		[ $st = 137 ] || fail "$mode: the submitter ended with $st, not by SIGKILL"
		unload_ok "after SIGKILL of a $mode submitter"
	else
		kill -9 $pid 2>/dev/null
		wait $pid
		fail "$mode: the submitter never got going"
		wsx_loaded || wsx_load
	fi
done
rm -f "$ready"

# 3. rmmod refused while /dev/wsx is open
exec 3<>/dev/wsx
if rmmod wsx 2>/dev/null; then
	fail "rmmod succeeded while this shell holds /dev/wsx open"
	wsx_load
else
	echo "# rmmod refused while a shell holds /dev/wsx open"
fi
exec 3>&-
unload_ok "after the shell closed /dev/wsx"

"$HELPER" hold "$ready" &
pid=$!
if wait_for "$ready"; then
	if rmmod wsx 2>/dev/null; then
		fail "rmmod succeeded while a process with work queued holds /dev/wsx"
		wsx_load
	else
		echo "# rmmod refused while a process with work queued holds /dev/wsx"
	fi
else
	fail "the holder never got going"
fi
kill -9 $pid 2>/dev/null
wait $pid
rm -f "$ready"
unload_ok "after the holder was killed"

# 4. 16 processes at once
per=$((4000 / SCALE))
[ $per -lt 500 ] && per=500
"$HELPER" multi 16 $per || fail "16 processes submitting at once"

# 5. SIGKILL of a process with parked POLLs, then rmmod
n=1000
splat='BUG:|WARNING:|Oops|general protection|KASAN|refcount_t:|list_add corruption|list_del corruption|UBSAN|possible circular locking'
mark="wsx_session.sh: parked POLLs, $$"
wsx_log_mark "$mark"
rm -f "$ready"
"$HELPER" polls $n "$ready" &
pid=$!
if wait_for "$ready"; then
	# all of them parked: the schedtrace line's waiting counts them
	waiting=$(sed -n 's/.* waiting=\([0-9]*\).*/\1/p' \
		"$WSX_DEBUGFS/schedtrace" 2>/dev/null)
	if [ -z "$waiting" ]; then
		echo "# no schedtrace in debugfs: waiting not counted"
	elif [ "$waiting" -lt $n ]; then
		fail "polls: waiting=$waiting with $n POLLs parked"
	fi
	kill -9 $pid
	wait $pid
	st=$?
	[ $st = 137 ] || fail "polls: the process ended with $st, not by SIGKILL"
	unload_ok "after SIGKILL of a process with $n parked POLLs"
	# KCSAN's reports are vm-run's to count (those with a wsx access):
	# the KCSAN kernel reports its own timers' races meanwhile too
	log=$(wsx_log_after "$mark" | grep -v 'BUG: KCSAN: ')
	found=$(printf '%s\n' "$log" | grep -cE "$splat")
	if [ "$found" != 0 ]; then
		printf '%s\n' "$log" | grep -E "$splat" | sed 's/^/# /'
		fail "polls: $found splat lines in the kernel log"
	else
		echo "# polls: no splat in the kernel log"
	fi
else
	kill -9 $pid 2>/dev/null
	wait $pid
	fail "polls: the POLLs were never all parked"
	wsx_loaded || wsx_load
fi
rm -f "$ready"

# leave the module loaded for later tests
wsx_reload || fail "final reload"
[ $rc = $KSFT_PASS ] && echo "# all session checks passed"
exit $rc
