#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trickle.sh: what a trickle of lone items costs the executor.  Runs in the
# VM (busybox sh) with wsx loaded: WSX_TRICKLE_ITEMS (default 300) SPIN
# items of WSX_TRICKLE_SPIN_NS (default 200 us), each submitted alone by
# its own `wsxctl run`, while the schedtrace line is sampled every
# WSX_TRICKLE_SAMPLE_US (default 5000).  Reports:
#   steal_attempts/item  steal_attempts per executed item (the Ps' stats,
#                        after minus before)
#   spinning_max         the most spinningthreads of any sample, and the
#                        busy Ps (nprocs - idleprocs) of that sample
#   over_half            samples whose spinning Ms exceed half the busy Ps
#                        rounded up (2 * spinning > busy + 1: the first
#                        spinner, woken by a queuer, may come with one
#                        busy P)
#   ticks                CPU ticks (utime + stime) of the wsx/ threads
#                        alive at both ends of the run
#
#   sh trickle.sh [--check]
#
# --check: exit 1 when a sample is over half, or no sample saw a busy P
# (the run measured nothing); counts only, no timing is asserted.
D=/sys/kernel/debug/wsx
items=${WSX_TRICKLE_ITEMS:-300}
spin_ns=${WSX_TRICKLE_SPIN_NS:-200000}
sample_us=${WSX_TRICKLE_SAMPLE_US:-5000}
check=0
[ "${1:-}" = --check ] && check=1

if [ ! -r "$D/stats" ]; then
	echo "trickle: $D/stats unreadable (wsx not loaded?)" >&2
	exit 1
fi

# stat_sum KEY: KEY= summed over the P lines of the stats file
stat_sum() {
	awk -v key="$1=" '/^P[0-9]+ / {
		for (i = 2; i <= NF; i++)
			if (index($i, key) == 1) sum += substr($i, length(key) + 1)
	} END { printf "%d\n", sum }' "$D/stats"
}

# thread_ticks: "pid ticks" (utime + stime) of each wsx/ thread; a thread
# may exit between two reads (an idle M retires), so the two are joined by
# pid and only the threads in both count
thread_ticks() {
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		case $line in *"(wsx/"*) echo "${line%% *} ${line##*) }" ;; esac
	done | awk '{ print $1, $13 + $14 }'
}

samples=$(mktemp /tmp/trickle.XXXXXX)
stop=$samples.stop
(
	while [ ! -e "$stop" ]; do
		cat "$D/schedtrace" >>"$samples"
		usleep "$sample_us"
	done
) &
sampler=$!

attempts0=$(stat_sum steal_attempts)
executed0=$(stat_sum executed)
thread_ticks >"$samples.ticks0"
rc=0
i=0
while [ $i -lt "$items" ]; do
	wsxctl run spin "$spin_ns" >/dev/null || rc=1
	i=$((i + 1))
done
attempts1=$(stat_sum steal_attempts)
executed1=$(stat_sum executed)
thread_ticks >"$samples.ticks1"
touch "$stop"
wait $sampler
[ $rc = 0 ] || echo "trickle: a wsxctl run failed" >&2
ticks=$(awk 'NR == FNR { t0[$1] = $2; next }
	($1 in t0) { sum += $2 - t0[$1] } END { printf "%d\n", sum }' \
	"$samples.ticks0" "$samples.ticks1")

awk -v attempts=$((attempts1 - attempts0)) \
    -v executed=$((executed1 - executed0)) -v ticks="$ticks" \
    -v items="$items" -v spin_ns="$spin_ns" '
	{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "nprocs") nprocs = kv[2]
			if (kv[1] == "idleprocs") idle = kv[2]
			if (kv[1] == "spinningthreads") spin = kv[2]
		}
		busy = nprocs - idle
		n++
		if (busy > 0) busy_samples++
		if (spin > max_spin || (spin == max_spin && busy < max_busy)) {
			max_spin = spin
			max_busy = busy
		}
		if (2 * spin > busy + 1) over++
	}
	END {
		printf "trickle: %d items of SPIN(%d ns), one per wsxctl run\n",
		       items, spin_ns
		printf "trickle: executed %d, steal_attempts %d, " \
		       "steal_attempts/item %.2f\n", executed, attempts,
		       executed ? attempts / executed : 0
		printf "trickle: samples %d (%d with a busy P), spinning_max %d " \
		       "(busy Ps %d), over_half %d\n", n, busy_samples,
		       max_spin, max_busy, over
		printf "trickle: wsx thread ticks %d (threads alive throughout)\n", ticks
		print over + 0, busy_samples + 0 > "/dev/stderr"
	}' "$samples" 2>"$samples.verdict"
read -r over busy_samples <"$samples.verdict"
rm -f "$samples" "$samples.verdict" "$samples.ticks0" "$samples.ticks1" "$stop"
if [ $check = 1 ]; then
	if [ "$busy_samples" = 0 ]; then
		echo "trickle: FAIL: no sample saw a busy P: nothing measured"
		rc=1
	elif [ "$over" != 0 ]; then
		echo "trickle: FAIL: $over samples with more spinning Ms than half the busy Ps"
		rc=1
	fi
fi
exit $rc
