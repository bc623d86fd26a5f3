#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wsx_mix.sh: the stress mix of issue 25's wasted-cores check, shared by
# bench/waste.sh (`make bench-waste`) and wsx_waste_mix.sh.  Source it,
# then call `wsx_mix SECONDS TAG` in a shell where wsxctl works on a
# loaded wsx: SECONDS of items from five processes at once, each a loop of
# `wsxctl run` (the rings in ENTER mode, wsxctl's default):
#   local    SPIN of 10 us, 100 us, 500 us and 2 ms queued on P0
#   global   the same SPINs on the global queue
#   spawn    spawn trees (fanout 3, depth 5, leaves of 20 us)
#   sleep    SLEEP(1 ms) items, 8 at a time (blocking sections)
#   delayed  SPIN(200 us) items queued 3 ms after their submission
# and, when set:
#   WSX_MIX_PICKUP=1        a sixth process: SPIN(100 us) items and spawn
#                           trees through rings in pick-up mode
#                           (`wsxctl run --pickup`)
#   WSX_MIX_HOTPLUG="C..."  a seventh: CPUs C... offline, then online
#                           again, 0.5 s each, until the deadline (every
#                           CPU back online when it returns)
# A failed run is reported on stderr as "TAG: NAME: ..." and ends its
# loop; wsx_mix then returns 1 once every process is done.

# wsx_mix_stat KEY: the stats' counter KEY, the first KEY= of the stats
# file (for a key of the global line alone, such as wasted_checks)
wsx_mix_stat() {
	tr ' ' '\n' </sys/kernel/debug/wsx/stats | sed -n "s/^$1=//p" |
		sed -n 1p
}

# wsx_mix_loop NAME ARGS...: `wsxctl run ARGS` again and again until the
# deadline; a failed run is reported and ends the loop (the mix then fails).
wsx_mix_loop() {
	name=$1
	shift
	while [ "$(date +%s)" -lt "$deadline" ]; do
		if ! "${WSXCTL:-wsxctl}" run "$@" >/dev/null; then
			echo "$wsx_mix_tag: $name: wsxctl run $* failed" >&2
			return 1
		fi
	done
}

# wsx_mix_spins WHERE: SPIN of 10 us to 2 ms on WHERE, about 90 ms of work
# a round.
wsx_mix_spins() {
	while [ "$(date +%s)" -lt "$deadline" ]; do
		for sc in 10000:500 100000:200 500000:50 2000000:20; do
			wsx_mix_loop "spin $1" spin "${sc%:*}" --count "${sc#*:}" \
				--place "$1" || return 1
		done
	done
}

# wsx_mix_pickup: the rings in pick-up mode, SPINs and spawn trees by turns
wsx_mix_pickup() {
	while [ "$(date +%s)" -lt "$deadline" ]; do
		wsx_mix_loop pickup spin 100000 --count 64 --batch 8 --pickup &&
			wsx_mix_loop pickup spawn 2 6 10000 --pickup || return 1
	done
}

# wsx_mix_online STATE CPUS...: write STATE to each CPU's online file
wsx_mix_online() {
	state=$1
	shift
	for c in "$@"; do
		if ! echo "$state" >"/sys/devices/system/cpu/cpu$c/online"; then
			echo "$wsx_mix_tag: hotplug: CPU $c online=$state failed" >&2
			return 1
		fi
	done
}

# wsx_mix_hotplug CPUS...: offline and online again until the deadline;
# says how many rounds
wsx_mix_hotplug() {
	hp_rc=0 hp_rounds=0
	while [ $hp_rc = 0 ] && [ "$(date +%s)" -lt "$deadline" ]; do
		wsx_mix_online 0 "$@" || hp_rc=1
		sleep 0.5
		wsx_mix_online 1 "$@" || hp_rc=1
		sleep 0.5
		hp_rounds=$((hp_rounds + 1))
	done
	echo "$wsx_mix_tag: hotplug: $hp_rounds rounds over CPUs $*" >&2
	return $hp_rc
}

# wsx_mix SECONDS TAG: the mix for SECONDS; status 0 when every run worked
wsx_mix() {
	deadline=$(($(date +%s) + $1))
	wsx_mix_tag=$2
	pids=
	wsx_mix_spins cpu:0 &
	pids="$pids $!"
	wsx_mix_spins global &
	pids="$pids $!"
	wsx_mix_loop spawn spawn 3 5 20000 &
	pids="$pids $!"
	wsx_mix_loop sleep sleep 1000 --count 8 --batch 1 &
	pids="$pids $!"
	wsx_mix_loop delayed spin 200000 --count 10 --delay 3000000 &
	pids="$pids $!"
	if [ "${WSX_MIX_PICKUP:-0}" = 1 ]; then
		wsx_mix_pickup &
		pids="$pids $!"
	fi
	if [ -n "${WSX_MIX_HOTPLUG:-}" ]; then
		# shellcheck disable=SC2086 # a list of CPUs
		wsx_mix_hotplug $WSX_MIX_HOTPLUG &
		pids="$pids $!"
	fi
	mix_rc=0
	for p in $pids; do
		wait "$p" || mix_rc=1
	done
	return $mix_rc
}
