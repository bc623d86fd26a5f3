#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every key of the module's debugfs stats file is shown by wsxctl stats and
# by wsxctl stats --json (both from libwsx's wsx_stats_kv_*): a counter the
# module gains that wsxctl drops fails this test.  Then, with debugfs
# unmounted, wsxctl stats, top --once and schedtrace each fail naming
# ENOMEDIUM and the mount command.
DIR=$(dirname "$0")
. "$DIR/wsx_lib.sh"
wsx_need_root_and_module

STATS=/sys/kernel/debug/wsx/stats
tmp=$(mktemp -d /tmp/wsx-keys.XXXXXX)
rc=$KSFT_PASS
fail() {
	echo "# FAIL: $*"
	rc=$KSFT_FAIL
}

# keys FILE: the key of each key=value token of FILE, sorted (a multiset)
keys() {
	tr ' ' '\n' <"$1" | grep = | cut -d= -f1 | sort
}

wsxctl run fib 15 --count 4 >/dev/null || fail "wsxctl run fib"
cat "$STATS" >"$tmp/raw"
wsxctl stats >"$tmp/text" || fail "wsxctl stats"
wsxctl stats --json >"$tmp/json" || fail "wsxctl stats --json"
keys "$tmp/raw" >"$tmp/k_file"
keys "$tmp/text" >"$tmp/k_text"
# the JSON's keys with a number, before the histograms, but nprocs
sed '/"latency"/,$d' "$tmp/json" | grep -o '"[a-z_0-9]*": [-0-9]' |
	cut -d'"' -f2 | grep -v '^nprocs$' | sort >"$tmp/k_json"
[ -s "$tmp/k_file" ] || fail "no key in $STATS"
echo "# keys: $(wc -l <"$tmp/k_file") in the file," \
	"$(wc -l <"$tmp/k_text") in wsxctl stats, $(wc -l <"$tmp/k_json") in --json"
cmp -s "$tmp/k_file" "$tmp/k_text" ||
	fail "wsxctl stats drops keys: $(diff "$tmp/k_file" "$tmp/k_text" | grep '^-[a-z]' | tr '\n' ' ')"
cmp -s "$tmp/k_file" "$tmp/k_json" ||
	fail "wsxctl stats --json drops keys: $(diff "$tmp/k_file" "$tmp/k_json" | grep '^-[a-z]' | tr '\n' ' ')"

umount /sys/kernel/debug || fail "umount debugfs"
for cmd in stats "top --once" schedtrace; do
	# shellcheck disable=SC2086 # "top --once" is two words
	if wsxctl $cmd >/dev/null 2>"$tmp/err"; then
		fail "wsxctl $cmd without debugfs succeeded"
	fi
	grep -q '(ENOMEDIUM)' "$tmp/err" ||
		fail "wsxctl $cmd: no ENOMEDIUM: $(cat "$tmp/err")"
	grep -q 'mount -t debugfs none /sys/kernel/debug' "$tmp/err" ||
		fail "wsxctl $cmd: no mount command: $(cat "$tmp/err")"
done
mount -t debugfs debugfs /sys/kernel/debug || fail "mount debugfs again"
rm -rf "$tmp"
exit $rc
