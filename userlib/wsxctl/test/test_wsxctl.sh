#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# wsxctl end to end: usage errors exit 2, runtime errors exit 1 and name
# the errno, and runs against the fake device (fakewsx.so preloaded, with
# /dev/null as the device) give the right output.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fake_so=$PWD/test/fakewsx.so
. ../testlib/ktap.sh
. test/help.sh

# expect STATUS DESC ARGS...: runs wsxctl ARGS into $tmp/out and $tmp/err.
expect() {
	want=$1
	desc=$2
	shift 2
	./wsxctl "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "# wsxctl $*: exit $got, expected $want"
		sed 's/^/# /' "$tmp/err"
	fi
	[ "$got" = "$want" ]
	ok $? "$desc"
}

# has FILE TEXT DESC: the last run's out or err contains TEXT.
has() {
	grep -qF -- "$2" "$tmp/$1" || sed 's/^/# /' "$tmp/$1"
	grep -qF -- "$2" "$tmp/$1"
	ok $? "$3"
}

# fake STATUS DESC ARGS...: expect, against the fake device.
fake() {
	WSX_DEVICE=/dev/null LD_PRELOAD=$fake_so expect "$@"
}

check_usage() {
	expect 2 "no command"
	has err "Try 'wsxctl --help'." "... hints at --help"
	expect 2 "unknown command" frob
	expect 2 "unknown top-level option" --frob
	expect 2 "help for an unknown command" help frob
	expect 2 "version takes no argument" version extra
	expect 2 "run without OP" run
	has err "Try 'wsxctl run --help'." "... hints at run --help"
	expect 2 "run with unknown OP" run frob
	expect 2 "run spin without NS" run spin
	expect 2 "run nop with an extra argument" run nop 5
	expect 2 "run spin with a bad NS" run spin 12x
	expect 2 "run fib with a negative N" run fib -1
	expect 2 "run --count 0" run nop --count 0
	expect 2 "run --count not a number" run nop --count many
	expect 2 "run --count without value" run nop --count
	has err "option '--count' needs a value" "... says so"
	expect 2 "run --place unknown" run nop --place nowhere
	expect 2 "run --place cpu: without N" run nop --place cpu:
	expect 2 "run --batch 0" run nop --batch 0
	expect 2 "run --batch too big" run nop --batch 65537
	expect 2 "run unknown option" run nop --frob
	expect 2 "crc32c without FILE" crc32c
	expect 2 "crc32c bad --chunk" crc32c --chunk 4k /dev/null
	expect 2 "crc32c --chunk under the module's 4096" crc32c --chunk 1000 \
		/dev/null
	has err "bad --chunk '1000': bytes 4096..1073741824 (2^30)" \
		"... names the range"
	expect 2 "run --ioctl --pickup" run nop --ioctl --pickup
	has err "--pickup is a mode of the rings" "... says they exclude each other"
	expect 2 "run --count twice" run nop --count 5 -n 6
	has err "wsxctl run: --count given twice" "... says which"
	expect 2 "run --place twice" run nop --place global --place cpu:1
	has err "wsxctl run: --place given twice" "... says which"
	expect 2 "run --pickup twice" run nop --pickup --pickup
	expect 2 "run nop --chan" run nop --chan 4
	has err "wsxctl run: --chan is for send and recv" "... says so"
	expect 2 "run send 0" run send 0
	expect 2 "run recv --chan not a number" run recv 5 --chan many
	expect 2 "run recv, --count x N over 2^32 - 1 values" run recv \
		4294967295 --count 2
	has err "--count x N is over 4294967295 values" "... names the bound"
	expect 2 "run poll 0" run poll 0
	has err "bad poll argument '0': eventfds 1..4294967295" \
		"... names the range"
	expect 2 "run poll, --count under N" run poll 5 --count 3
	has err "poll 5: --count 3 leaves eventfds no item waits for" \
		"... says so"
	expect 2 "run poll --chan" run poll 2 --chan 1
	expect 2 "run pingpong 0" run pingpong 0
	has err "bad pingpong argument '0': round trips 1..4294967295" \
		"... names the range"
	expect 2 "run pingpong without N" run pingpong
	expect 2 "run pipeline without VALUES" run pipeline 8
	has err "usage: pipeline STAGES VALUES" "... says how it is used"
	expect 2 "run pipeline 0 stages" run pipeline 0 10
	has err "bad pipeline STAGES '0': stages 1..64" "... names the range"
	expect 2 "run pipeline 0 values" run pipeline 8 0
	has err "bad pipeline VALUES '0': values 1..4294967295" \
		"... names the range"
	expect 2 "run pipeline --chan" run pipeline 2 2 --chan 1
	expect 2 "run --delay over 10 s" run nop --delay 10000000001
	has err "bad --delay '10000000001': ns 0..10000000000 (10 s)" \
		"... names the range"
	expect 2 "top --once --frames" top --once --frames 3
	has err "--frames counts the live frames, --once prints one" \
		"... says they exclude each other"
	expect 2 "stats with an argument" stats extra
	expect 2 "stats unknown option" stats -x
	expect 2 "schedtrace with an argument" schedtrace extra
}

check_help() {
	expect 0 "--help" --help
	has out "Exit status: 0 success, 1 runtime failure, 2 usage error." \
		"... documents the exit status"
	expect 0 "help" help
	expect 0 "help --help" help --help
	has out "Usage: wsxctl [--help] COMMAND" "... is the main help"
	cmds=$(help_commands)
	[ "$(echo "$cmds" | wc -w)" -ge 7 ]
	ok $? "--help lists the commands"
	for cmd in $cmds; do
		expect 0 "$cmd --help" "$cmd" --help
		has out "Usage: wsxctl $cmd" "... prints its usage on stdout"
		has out "Exit status: 0 success" "... documents the exit status"
		cp "$tmp/out" "$tmp/help"
		expect 0 "help $cmd" help "$cmd"
		cmp -s "$tmp/out" "$tmp/help"
		ok $? "... prints the same"
	done
	expect 0 "help run" help run
	has out "Usage: wsxctl run OP" "... is run's help"
}

check_errors() {
	WSX_DEVICE=$tmp/none expect 1 "missing device" run nop
	has err "wsxctl: open device: No such file or directory (ENOENT)" \
		"... names ENOENT"
	: >"$tmp/file"
	WSX_DEVICE=$tmp/file expect 1 "a regular file as device" version
	has err "(ENOTTY)" "... names ENOTTY"
	WSX_DEBUGFS=$tmp/none expect 1 "stats without debugfs" stats
	has err "wsxctl: stats: No such file or directory (ENOENT)" \
		"... names ENOENT"
	has err "wsxctl: is the wsx module loaded? (modprobe wsx)" \
		"... and asks whether the module is loaded"
	WSX_DEBUGFS=$tmp/none expect 1 "schedtrace without debugfs" schedtrace
	WSX_DEBUGFS=$tmp/none expect 1 "top without debugfs" top --once
	has err "wsxctl: is the wsx module loaded? (modprobe wsx)" \
		"... and asks whether the module is loaded"
	# The default path (WSX_DEBUGFS empty) with no debugfs mounted on
	# /sys/kernel/debug: each reader gives libwsx's ENOMEDIUM and the
	# mount command, not ENOENT.
	if [ "$(stat -f -c %T /sys/kernel/debug 2>/dev/null)" = debugfs ]; then
		n=$((n + 1))
		echo "ok $n - readers without debugfs mounted # SKIP debugfs is mounted on /sys/kernel/debug"
		return
	fi
	for cmd in stats "top --once" schedtrace; do
		# shellcheck disable=SC2086 # "top --once" is two words
		WSX_DEBUGFS= expect 1 "$cmd, debugfs not mounted" $cmd
		has err "(ENOMEDIUM)" "... names ENOMEDIUM"
		has err "wsxctl: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug" \
			"... and says how to mount it"
	done
}

check_run() {
	fake 0 "version" version
	has out "module ABI:  1.4" "... prints the module's ABI"
	FAKEWSX_ABI_MAJOR=2 fake 1 "other ABI major" version
	has err "(EPROTO)" "... names EPROTO"
	fake 0 "run fib" run fib 20 --count 1000 --batch 64
	has out "items:       1000" "... counts the items"
	has out "result:      6765 (all equal)" "... prints the result"
	has out "nodes:       21891000 (" "... and the nodes"
	fake 0 "run spawn on the global queue" run spawn 2 3 0 --count 10 \
		--place global --delay 1000
	has out "result:      15 (all equal)" "... prints the tree size"
	FAKEWSX_INFLIGHT_MAX=100 fake 0 "run over the in-flight limit" \
		run nop --count 1000 --batch 256 --place cpu:3
	has out "items:       1000" "... gets all items through"
	FAKEWSX_INFLIGHT_MAX=0 fake 1 "run --ioctl when nothing fits" \
		run nop --ioctl
	has err "wsxctl: submit: Resource temporarily unavailable (EAGAIN)" \
		"... names EAGAIN"
	fake 1 "run --ioctl on a P that does not exist" run nop --place cpu:9 \
		--ioctl
	has err "(ENXIO)" "... names ENXIO"
	fake 1 "run --ioctl fib over its limit" run fib 31 --ioctl
	has err "(E2BIG)" "... names E2BIG"
	has err "wsxctl run: fib's n is at most 30" "... and the limit"
	# through the rings a refused item comes back as a failed record
	fake 1 "run on a P that does not exist" run nop --place cpu:9 \
		--count 3
	has out "failures:    3, the first: No such device or address (ENXIO)" \
		"... counts the failed records, naming ENXIO"
	fake 1 "run fib over its limit" run fib 31
	has out "(E2BIG)" "... names E2BIG"
	has err "wsxctl run: fib's n is at most 30" "... and the limit"
	check_run_limits
	fake 0 "run through the rings, more than the CQ holds" \
		run nop --count 5000 --batch 16
	has out "items:       5000" "... gets all items through"
	FAKEWSX_CORRUPT=1 fake 1 "run fib with wrong results" run fib 10
	has out "WRONG: fib(10) = 55" "... says the result is wrong"
	check_run_chan
	check_run_poll
	check_run_shapes
}

# pingpong and pipeline: one request each, its result checked, the ns per
# handoff or value printed; the module's refusals named with their limits.
check_run_shapes() {
	fake 0 "run pingpong" run pingpong 1000 --count 5
	has out "result:      1000 (all equal)" "... each made its round trips"
	has out "handoffs:    2000 per item (2 per round trip), 10000 in all: " \
		"... counts the handoffs"
	has out "ns per handoff over the wall time" "... the time per handoff"
	has out "ns per handoff, an item's start to finish (mean of 5; the fastest " \
		"... and in the module, from each record's times"
	fake 0 "run pipeline --ioctl" run pipeline 8 1000 --ioctl
	has out "result:      500500 (all equal)" "... the sink's sum"
	has out "values:      1000 per item through 8 stages (9 handoffs each), 1000 in all: " \
		"... counts the values"
	has out "ns per value, an item's start to finish (mean of 1;" \
		"... the time per value in the module"
	fake 0 "run pipeline through the rings, more than the SQ" \
		run pipeline 64 100 --count 600 --batch 16 --place global
	has out "result:      5050 (all equal)" "... every item's sum"
	has out "(mean of 600;" "... every record timed"
	FAKEWSX_CORRUPT=1 fake 1 "run pingpong with wrong results" \
		run pingpong 7
	has out "WRONG: 7 round trips expected" "... says so"
	FAKEWSX_CORRUPT=1 fake 1 "run pipeline with wrong results" \
		run pipeline 2 4
	has out "WRONG: 1 + 2 + ... + 4 = 10" "... says so"
	fake 1 "run pipeline of 65 stages" run pipeline 65 10
	has out "failures:    1, the first: Argument list too long (E2BIG)" \
		"... the record says E2BIG"
	has err "wsxctl run: a pipeline has at most 64 STAGES and 4294967295 VALUES" \
		"... and the limits"
	fake 1 "run pingpong --ioctl over WSX_CHAN_COUNT_MAX" \
		run pingpong 4294967296 --ioctl
	has err "wsxctl: submit: Argument list too long (E2BIG)" \
		"... names E2BIG"
	has err "wsxctl run: pingpong's N is at most 4294967295 round trips" \
		"... and the limit"
	WSX_PARAMETERS=$tmp/params FAKEWSX_MAX_PARKED=0 fake 1 \
		"run pingpong at max_parked 0" run pingpong 10 --count 3
	has out "failures:    3, the first: Resource temporarily unavailable (EAGAIN)" \
		"... every item ends with EAGAIN"
	! grep -q "^handoffs:" "$tmp/out"
	ok $? "... and no time per handoff is printed"
	has err "wsxctl run: pingpong: items ended with EAGAIN: one of the 2 items each runs had to wait while the session had as many waiting as the module parameter max_parked ($tmp/params/max_parked unreadable)" \
		"... names max_parked"
	FAKEWSX_ABI_MINOR=3 fake 1 "run pingpong on a module before ABI 1.4" \
		run pingpong 2
	has err "wsxctl: pingpong needs the op PINGPONG, which the module (ABI 1.3, before 1.4) has not" \
		"... says so"
	FAKEWSX_ABI_MINOR=3 fake 1 "run pipeline on a module before ABI 1.4" \
		run pipeline 2 2
	has err "wsxctl: pipeline needs the op PIPELINE, which the module (ABI 1.3, before 1.4) has not" \
		"... says so"
}

# poll: eventfds written once the items wait; each record once, its
# revents POLLIN, and the time from the write.
check_run_poll() {
	mkdir "$tmp/poll"
	echo "WSX 1234ms: nprocs=2 idleprocs=2 threads=3 spinningthreads=0" \
		"idlethreads=2 waiting=5 runqueue=0 [0 0]" >"$tmp/poll/schedtrace"
	WSX_DEBUGFS=$tmp/poll fake 0 "run poll" run poll 5
	has out "items:       5" "... one item per eventfd"
	has out "result:      1 (all equal)" "... each saw POLLIN"
	has out "eventfds:    5, each written once in random order, after the items waited" \
		"... says how the eventfds were written"
	has out "waiting:     all of the 5 items parked after " \
		"... after schedtrace counted the items waiting"
	has out "(schedtrace waiting=5 threads=3)" "... and the threads"
	has out "us; 5 records)" "... the time from a write to each record"
	WSX_DEBUGFS=$tmp/none fake 0 "run poll --count, --ioctl, no schedtrace" \
		run poll 3 --count 10 --ioctl
	has out "items:       10" "... ten items on three eventfds"
	has out "waiting:     unknown, schedtrace unreadable: No such file or directory (ENOENT); written at once" \
		"... writes at once when schedtrace is unreadable"
	has out "us; 10 records)" "... a time for each"
	WSX_DEBUGFS=$tmp/none fake 0 "run poll through the rings, more than the SQ" \
		run poll 7 --count 600 --batch 16 --place global
	has out "us; 600 records)" "... every item once"
	WSX_DEBUGFS=$tmp/none FAKEWSX_CORRUPT=1 fake 1 \
		"run poll with wrong results" run poll 2
	has out "WRONG: revents POLLIN (1) expected" "... says so"
	WSX_DEBUGFS=$tmp/none WSX_PARAMETERS=$tmp/params FAKEWSX_MAX_PARKED=3 \
		fake 1 "run poll past max_parked" run poll 5
	has out "failures:    2, the first: Resource temporarily unavailable (EAGAIN)" \
		"... two items end with EAGAIN"
	has err "wsxctl run: poll: items ended with EAGAIN, which waited while the session had as many waiting as the module parameter max_parked ($tmp/params/max_parked unreadable)" \
		"... names max_parked"
	WSX_DEBUGFS=$tmp/none WSX_PARAMETERS=$tmp/params FAKEWSX_INFLIGHT_MAX=4 \
		fake 1 "run poll --ioctl past the in-flight limit" run poll 5 --ioctl
	has err "wsxctl: submit: Resource temporarily unavailable (EAGAIN)" \
		"... names EAGAIN"
	has err "wsxctl run: poll: 5 items wait at once, more than the module lets a session have in flight: the module parameter max_inflight_fd" \
		"... and max_inflight_fd, not a wait that never ends"
	WSX_DEBUGFS=$tmp/none WSX_PARAMETERS=$tmp/params fake 1 \
		"run poll, more items than a CQ holds" run poll 1 --count 20000
	has err "wsxctl run: poll: 20000 items wait at once, with a CQ entry each (or use --ioctl), 32768 entries: over the module parameter ring_max_entries" \
		"... names ring_max_entries"
	FAKEWSX_ABI_MINOR=2 fake 1 "run poll on a module before ABI 1.3" \
		run poll 2
	has err "wsxctl: poll needs the op POLL, which the module (ABI 1.2, before 1.3) has not" \
		"... says so"
}

# send and recv: a channel, the items, and one more item on its other
# side that accounts for every value.
check_run_chan() {
	fake 0 "run send" run send 10 --count 5
	has out "result:      10 (all equal)" "... each item sent its values"
	has out "other side:  one RECV of 50 values, result 1225, status 0" \
		"... and one RECV got them all, 0 + ... + 49"
	fake 0 "run recv --chan 4 --ioctl" run recv 10 --count 5 --chan 4 \
		--ioctl
	has out "sum:         1225 over the items' results" \
		"... the RECVs' results sum to 0 + ... + 49"
	has out "other side:  one SEND of 50 values, result 50, status 0" \
		"... the SEND sent them all"
	fake 0 "run recv through the rings, more than the CQ holds" \
		run recv 3 --count 3000 --batch 16 --place global
	has out "sum:         40495500 over" "... every value once"
	FAKEWSX_CORRUPT=1 fake 1 "run recv with wrong results" run recv 10 \
		--count 5
	has out "WRONG: 0 + 1 + ... + 49 = 1225" "... says the sum is wrong"
	FAKEWSX_CORRUPT=1 fake 1 "run send with wrong results" run send 4
	has out "WRONG: each sends 4" "... says the count is wrong"
	FAKEWSX_MAX_CHAN_CAP=2 fake 1 "run recv, --chan over max_chan_cap" \
		run recv 4 --chan 3
	has err "wsxctl: channel: Argument list too long (E2BIG)" \
		"... names E2BIG"
	has err "wsxctl run: --chan 3 is over the module parameter max_chan_cap" \
		"... and the limit"
	FAKEWSX_ABI_MINOR=1 fake 1 "run send on a module without channels" \
		run send 4
	has err "send and recv need channels, which the module (ABI before 1.2) has not" \
		"... says so"
}

# Items over the module's limits: E2BIG, and the message says which limit,
# its value and how to raise it.
check_run_limits() {
	mkdir "$tmp/params"
	echo 10000000 >"$tmp/params/max_item_ns"
	raise="raise it as root: echo 50000000 > $tmp/params/max_item_ns"
	WSX_PARAMETERS=$tmp/params fake 1 "run spin over max_item_ns" \
		run spin 50000000
	has out "(E2BIG)" "... names E2BIG"
	has err "wsxctl run: spin 50000000 ns is over the module parameter max_item_ns (10000000 ns); $raise" \
		"... and max_item_ns, its value and how to raise it"
	WSX_PARAMETERS=$tmp/params fake 1 "run --ioctl spin over max_item_ns" \
		run spin 50000000 --ioctl
	has err "(E2BIG)" "... names E2BIG"
	has err "spin 50000000 ns is over the module parameter max_item_ns (10000000 ns); $raise" \
		"... and max_item_ns"
	WSX_PARAMETERS=$tmp/none fake 1 "run spin over max_item_ns, unreadable" \
		run spin 50000000
	has err "max_item_ns ($tmp/none/max_item_ns unreadable); raise it" \
		"... says the value is unreadable"
	WSX_PARAMETERS=$tmp/params fake 1 "run spawn, LEAF_NS over max_item_ns" \
		run spawn 2 1 50000000
	has err "LEAF_NS is at most the module parameter max_item_ns (10000000 ns); $raise" \
		"... names max_item_ns"
	fake 0 "run spin at max_item_ns" run spin 10000000
	fake 0 "run --delay 10 s" run nop --delay 10000000000
	FAKEWSX_ABI_MINOR=0 fake 0 "run on a module without rings" run nop \
		--count 300
	has out "items:       300" "... goes through the ioctls"
	FAKEWSX_ABI_MINOR=0 fake 1 "run --pickup on a module without rings" \
		run nop --pickup
	has err "wsxctl: --pickup needs the rings, which the module (ABI 1.0) has not" \
		"... is refused, not run without pick-up"
}

write_debugfs() {
	mkdir "$tmp/debugfs"
	cat >"$tmp/debugfs/stats" <<-END
	wsx_stats version=1
	P0 executed=10 runnext_hits=0 ring_puts=0 spills=0 global_gets=0 steal_attempts=0 steals=0 stolen=0 stolen_from=0 steal_cas_fails=0 spins=0 parks=0 wakeups=0
	P1 executed=20 runnext_hits=0 ring_puts=0 spills=0 global_gets=0 steal_attempts=0 steals=0 stolen=0 stolen_from=0 steal_cas_fails=0 spins=0 parks=0 wakeups=3
	global depth=0 puts=5 gets=5 cancelled=3 frobs=9
	user uid=0 items=25 cpu_ns=41000
	user uid=1000 items=5 cpu_ns=800
	END
	echo "WSX 1234ms: nprocs=2 idleprocs=2 threads=2 spinningthreads=0" \
		"idlethreads=2 waiting=0 runqueue=0 [0 0]" >"$tmp/debugfs/schedtrace"
}

check_debugfs() {
	write_debugfs
	WSX_DEBUGFS=$tmp/debugfs expect 0 "stats" stats
	cmp -s "$tmp/out" "$tmp/debugfs/stats"
	ok $? "... prints the stats lines"
	WSX_DEBUGFS=$tmp/debugfs expect 0 "stats --json" stats --json
	has out '"nprocs": 2,' "... prints JSON"
	# frobs: a key no module has, as a module's next counter would be
	has out '"global": {"depth": 0, "puts": 5, "gets": 5, "cancelled": 3, "frobs": 9}' \
		"... with every key of the global line, an unknown one too"
	has out '"users": [' "... the array users"
	has out '{"uid": 1000, "items": 5, "cpu_ns": 800}' \
		"... with each user line's keys"
	has out '"wsx_stats": {"version": 1}' "... and the format's version"
	mkdir "$tmp/v2"
	sed 's/^wsx_stats version=1$/wsx_stats version=2/' \
		"$tmp/debugfs/stats" >"$tmp/v2/stats"
	WSX_DEBUGFS=$tmp/v2 expect 1 "stats of a format version 2" stats
	has err "wsxctl: stats: Protocol error (EPROTO)" "... names EPROTO"
	has err "format version (its first line) is not 1" \
		"... and says the version is not the one it reads"
	WSX_DEBUGFS=$tmp/debugfs expect 0 "schedtrace" schedtrace
	cmp -s "$tmp/out" "$tmp/debugfs/schedtrace"
	ok $? "... prints the line"
	WSX_DEBUGFS=$tmp/debugfs fake 0 "run with stats" run nop --count 5
	has out "P1    0" "... prints the items that ended on each P"
	WSX_DEBUGFS=$tmp/none fake 0 "run without stats" run nop
	has err "items that ended on each P: skipped, stats unreadable" \
		"... says so"
}

# A module with steal_topology=numa on two nodes: node and level keys on
# the P lines, the per-node global queues.
check_debugfs_topology() {
	keys="runnext_hits=0 ring_puts=0 spills=0 global_gets=0 steal_attempts=0 steals=0 stolen=0 stolen_from=0 steal_cas_fails=0 spins=0 parks=0 wakeups=0"
	mkdir "$tmp/numa"
	cat >"$tmp/numa/stats" <<-END
	P0 executed=10 $keys node=0 steals_smt=1 steals_cache=2 steals_node=3 steals_remote=0 stolen_smt=1 stolen_cache=2 stolen_node=5 stolen_remote=0
	P1 executed=20 $keys node=1 steals_smt=0 steals_cache=0 steals_node=0 steals_remote=4 stolen_smt=0 stolen_cache=0 stolen_node=0 stolen_remote=9
	node0 nid=0 depth=3 puts=7 gets=4
	node1 nid=1 depth=0 puts=2 gets=2
	global depth=3 puts=9 gets=6
	END
	WSX_DEBUGFS=$tmp/numa expect 0 "stats with nodes" stats
	cmp -s "$tmp/out" "$tmp/numa/stats"
	ok $? "... prints the node and level keys and the node lines"
	WSX_DEBUGFS=$tmp/numa expect 0 "stats --json with nodes" stats --json
	has out '"node": 1, "steals_smt": 0, "steals_cache": 0, "steals_node": 0, "steals_remote": 4' \
		"... JSON has each P's levels"
	has out '{"nid": 1, "depth": 0, "puts": 2, "gets": 2}' \
		"... and the node queues"
	WSX_DEBUGFS=$tmp/numa expect 0 "top --once with nodes" top --once \
		--interval 0
	has out "n1        1       20        0        0        0        4      0" \
		"... a row per node: Ps, items, steals by level, queue depth"
	WSX_DEBUGFS=$tmp/debugfs expect 0 "top --once, an older module" top \
		--once --interval 0
	! grep -q '^node ' "$tmp/out"
	ok $? "... no node rows"
}

check_crc32c() {
	printf 123456789 >"$tmp/digits"
	: >"$tmp/empty"
	head -c 300000 /dev/urandom >"$tmp/random"
	fake 0 "crc32c" crc32c "$tmp/digits" "$tmp/empty"
	has out "e3069283  $tmp/digits" "... sums a file"
	has out "00000000  $tmp/empty" "... and an empty file"
	fake 0 "crc32c --verify with chunks" crc32c --verify --chunk 4096 \
		"$tmp/random" "$tmp/digits"
	fake 1 "crc32c of a missing file" crc32c "$tmp/none" "$tmp/digits"
	has err "wsxctl: $tmp/none: No such file or directory (ENOENT)" \
		"... names ENOENT"
	has out "e3069283  $tmp/digits" "... and sums the other files"
	fake 1 "crc32c of a directory" crc32c "$tmp"
	has err "(EISDIR)" "... names EISDIR"
	printf 123456789 | fake 0 "crc32c of a pipe" crc32c /dev/stdin
	has out "e3069283  /dev/stdin" "... sums it"
	FAKEWSX_CORRUPT=1 fake 1 "crc32c --verify, wrong result" crc32c \
		--verify "$tmp/digits"
	has err "module says e3069284, userspace e3069283" "... says so"
}

# trace --input: the wasted-cores summary of a trace whose answer is known
# (test_waste.c's "one idle P": P1 idles 20 ms, B waits 5 ms on P0).
check_trace() {
	ev="wsx_item"
	cat >"$tmp/trace.txt" <<-EOF
	# entries-in-buffer/entries-written: 9/9   #P:2
	  w-9 [000] ..... 1.000000: ${ev}_queue: item=0a p=0
	  w-9 [000] ..... 1.000000: ${ev}_start: item=0a p=0 m=0 from=0 stolen=0
	  w-9 [000] ..... 1.005000: ${ev}_queue: item=0b p=0
	  w-9 [000] ..... 1.010000: ${ev}_end: item=0a status=0
	  w-9 [000] ..... 1.010000: ${ev}_start: item=0b p=0 m=0 from=0 stolen=0
	  w-9 [000] ..... 1.020000: ${ev}_end: item=0b status=0
	  w-9 [001] ..... 1.020000: ${ev}_queue: item=0d p=1
	  w-9 [001] ..... 1.020000: ${ev}_start: item=0d p=1 m=1 from=1 stolen=0
	  w-9 [001] ..... 1.020000: ${ev}_end: item=0d status=0
	EOF
	expect 2 "trace --threshold-us not a number" trace -i "$tmp/trace.txt" \
		--svg /dev/null --threshold-us 2ms
	expect 0 "trace --input, T = 2 ms by default" trace -i "$tmp/trace.txt" \
		--svg "$tmp/t.svg"
	! grep -q "items parked" "$tmp/err"
	ok $? "... no line of parks and readies without them"
	has err "wsxctl trace: idle P 3.000 ms while items waited (T = 2 ms): \
7.50% of the P-time (2 Ps x 0.020 s), in 1 intervals; the longest 3.000 ms, \
at 0.007 s: P1 idle 10.000 ms while item #2, queued on P0, waited 5.000 ms" \
		"... the measure, its intervals and the longest"
	grep -q 'class="waste"><title>' "$tmp/t.svg"
	ok $? "... the SVG marks the interval"
	expect 2 "trace --input --buffer-kb" trace -i "$tmp/trace.txt" \
		--svg /dev/null --buffer-kb 1024
	has err "--input records nothing: no command, --seconds, --buffer-kb or --raw" \
		"... names what only a recording uses"
	expect 2 "trace --input --raw" trace -i "$tmp/trace.txt" \
		--svg /dev/null --raw "$tmp/raw"
	expect 2 "trace --input --seconds" trace -i "$tmp/trace.txt" \
		--svg /dev/null --seconds 2
	expect 0 "trace --threshold-us 0" trace -i "$tmp/trace.txt" \
		--svg /dev/null -T 0
	has err "idle P 5.000 ms while items waited (T = 0 ms): 12.50%" \
		"... the whole 5 ms wait"
	! grep -q "by what its CPU ran" "$tmp/err"
	ok $? "... no split of the idle P time without sched_switch"
}

# trace --input with sched_switch: check_trace's trace, CPU 1 (P1's)
# running sh from 1 ms and the idle task from 8 ms; B waits 5-10 ms.  The
# lines follow the wsx events, out of time order: each CPU's are sorted.
check_trace_split() {
	ss="sched_switch: prev_comm=x prev_pid=1 prev_prio=120 prev_state=S ==>"
	printf '  w-9 [001] d..2. 1.001000: %s next_comm=sh next_pid=5 next_prio=120\n' \
		"$ss" >>"$tmp/trace.txt"
	printf '  sh-5 [001] d..2. 1.008000: %s next_comm=swapper/1 next_pid=0 next_prio=120\n' \
		"$ss" >>"$tmp/trace.txt"
	expect 0 "trace --input with sched_switch, T = 0" trace \
		-i "$tmp/trace.txt" -o /dev/null -T 0
	has err "wsxctl trace: idle P 5.000 ms while items waited (T = 0 ms): 12.50%" \
		"... the measure unchanged"
	has err "wsxctl trace: the idle P time by what its CPU ran: nothing \
(idle) 2.000 ms, Ms between items 0.000 ms, other tasks 3.000 ms (sh 3.000 ms)" \
		"... split: sh 5-8 ms, the idle task 8-10 ms"
	expect 0 "trace --input with sched_switch, T = 2 ms" trace \
		-i "$tmp/trace.txt" -o /dev/null
	has err "wsxctl trace: the idle P time by what its CPU ran: nothing \
(idle) 2.000 ms, Ms between items 0.000 ms, other tasks 1.000 ms (sh 1.000 ms)" \
		"... split from T on: sh 7-8 ms, the idle task 8-10 ms"
}

# trace recording against a fake tracefs: sched_switch is enabled with the
# wsx events while the command runs and left as it was; without it, one
# line says so and the recording goes on.
check_trace_record() {
	d=$tmp/tracefs
	mkdir -p "$d/events/wsx" "$d/events/sched/sched_switch"
	for v in 0 1; do
		: >"$d/trace"
		echo 1 >"$d/tracing_on"
		echo 1408 >"$d/buffer_size_kb"
		echo "[local] global mono" >"$d/trace_clock"
		echo 0 >"$d/events/wsx/enable"
		echo "$v" >"$d/events/sched/sched_switch/enable"
		WSX_TRACEFS=$d expect 0 "trace records sched_switch (was $v)" \
			trace -o "$tmp/t.json" -- \
			cat "$d/events/sched/sched_switch/enable" \
			"$d/events/wsx/enable"
		[ "$(cat "$tmp/out")" = "11" ]
		ok $? "... enabled with the wsx events while the command runs"
		[ "$(cat "$d/events/sched/sched_switch/enable")" = "$v" ] &&
			[ "$(cat "$d/events/wsx/enable")" = 0 ]
		ok $? "... and $v again after, the wsx events off"
		! grep -q "sched_switch" "$tmp/err"
		ok $? "... without a word"
	done
	rm -r "$d/events/sched"
	WSX_TRACEFS=$d expect 0 "trace without sched_switch" \
		trace -o "$tmp/t.json" -- true
	has err "wsxctl trace: cannot enable sched:sched_switch (No such file \
or directory): no split of the idle P time by what the CPUs ran" \
		"... says so"
	[ "$(grep -c sched_switch "$tmp/err")" = 1 ]
	ok $? "... in one line"
}

# trace --input with parks and readies: the summary counts them, and the
# JSON draws an arrow from the ready on CPU 1 to the start it led to (one
# on CPU 1, one on CPU 0), none for a ready without a start.
check_trace_readies() {
	cat >"$tmp/trace.txt" <<-EOF
	  w-9 [000] ..... 1.000000: wsx_item_park: item=0a
	  w-9 [000] ..... 1.000000: wsx_item_park: item=0b
	  w-8 [001] ..... 1.000010: wsx_item_start: item=0c p=1 m=1 from=1 stolen=0
	  w-8 [001] ..... 1.000020: wsx_item_ready: item=0a cpu=1
	  w-8 [001] ..... 1.000021: wsx_item_queue: item=0a p=1
	  w-8 [001] ..... 1.000030: wsx_item_ready: item=0b cpu=1
	  w-8 [001] ..... 1.000031: wsx_item_queue: item=0b p=1
	  w-8 [001] ..... 1.000040: wsx_item_end: item=0c status=0
	  w-8 [001] ..... 1.000050: wsx_item_start: item=0a p=1 m=1 from=1 stolen=0
	  w-9 [000] ..... 1.000060: wsx_item_start: item=0b p=0 m=0 from=1 stolen=1
	EOF
	expect 0 "trace --input with parks and readies" trace -i "$tmp/trace.txt" \
		-o "$tmp/t.json"
	has err "wsxctl trace: 2 items parked, 2 readied, 2 of them started, \
1 on the readier's CPU" "... counts them, and the readied starts"
	grep -qF '{"ph":"s","cat":"ready","name":"ready","id":2,"pid":1,"tid":2,"ts":20.000}' \
		"$tmp/t.json" &&
	grep -qF '{"ph":"f","bp":"e","cat":"ready","name":"ready","id":2,"pid":1,"tid":2,"ts":50.000}' \
		"$tmp/t.json"
	ok $? "... the JSON's arrow from the ready to the start"
	[ "$(grep -c '"ph":"s","cat":"ready"' "$tmp/t.json")" = 2 ]
	ok $? "... and one to the start on CPU 0"
	printf '  w-8 [001] ..... 1.000070: wsx_item_ready: item=0d cpu=1\n' \
		>>"$tmp/trace.txt"
	expect 0 "trace --input, a ready without a start" trace \
		-i "$tmp/trace.txt" -o "$tmp/t.json"
	has err "3 readied, 2 of them started" "... counted, not started"
	[ "$(grep -c '"ph":"s","cat":"ready"' "$tmp/t.json")" = 2 ]
	ok $? "... and no arrow for it"
}

check_usage
check_help
check_errors
check_run
check_debugfs
check_debugfs_topology
check_crc32c
check_trace
check_trace_split
check_trace_record
check_trace_readies
echo "1..$n"
[ "$failed" = 0 ]
