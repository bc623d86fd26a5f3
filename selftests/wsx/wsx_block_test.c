// SPDX-License-Identifier: GPL-2.0
/*
 * Blocking handoff and the long-item monitor, one scenario per run
 * (wsx_block.sh loads the module with the parameters each one needs):
 *
 *   handoff    2 SLEEP(200 ms, times WSX_SCALE, up to 1 s) then 1000 SPIN(10 us)
 *              items (WSX_SCALE divides) on P0: the
 *              sleepers hand P0 to other Ms, so every SPIN finishes before
 *              the first sleep ends, and no more than max_threads Ms ever
 *              exist.
 *   wait       the same with nprocs=1 and max_threads=1: no spare M and no
 *              other P, so the sleeper keeps the only P and every SPIN item
 *              waits for the sleep to end.  (With 2 Ps, whether the other P
 *              ends up behind the second sleeper depends on the schedule.)
 *   monitor    (nprocs=1) SPIN(300 ms) then 100 SPIN(100 us) on P0: the
 *              monitor flags the long item and hands P0 to another M
 *              (long_items and rescued grow), and short items start while
 *              the long one still runs.  Counts and order only: how many
 *              short items finish in the long one's time depends on how
 *              the kernel shares the CPU between the two Ms, and is
 *              printed.
 *   nomonitor  the same with long_item_ms=0: nothing flagged or rescued,
 *              and every short item starts after the long one finished
 *              (one M, one P: the order is the queue's).
 *   recheck    (nprocs=1; fault points, so WSX_DEBUG builds only) a P
 *              taken back by its parking M's recheck still has the
 *              monitor: a NOP wakes P0's M (which arms the monitor); as
 *              the M then parks, park_before_idle holds it 50 ms before
 *              it makes P0 idle, and meanwhile SPIN(100 ms) is queued on
 *              the global queue (P0 is not idle: nobody is woken); then
 *              park_before_recheck holds it 30 ms with P0 idle, for the
 *              monitor to find the executor idle and go to sleep; the
 *              recheck finds the SPIN and takes P0 back, with no unpark.
 *              The monitor must flag the SPIN (long_items grows) in each
 *              of 3 rounds: wsx_m_park() kicks it.
 *
 * Every read of the debugfs stats and of a module parameter is checked: a
 * failed one ends the run as a failure.
 */
#include "../kselftest.h"
#include "wsx_test.h"

#define MS	1000000ULL

static struct wsx_completion recs[1101];
static struct wsx_req reqs[1101];
static char stats[1 << 16];

/* Read the debugfs stats into stats[]; a failed read fails the run. */
static void read_stats(void)
{
	int ret = wsx_test_read_debugfs("stats", stats, sizeof(stats));

	if (ret <= 0)
		ksft_exit_fail_msg("reading debugfs stats: %d\n", ret);
}

/* @key of P @p (-1: global) in stats[]; a missing one fails the run. */
static long long stat_of(int p, const char *key)
{
	long long v = wsx_test_stat(stats, p, key);

	if (v < 0)
		ksft_exit_fail_msg("no %s on the %s line of the stats\n", key,
				   p < 0 ? "global" : "P");
	return v;
}

/*
 * How many of recs[nfirst..n) finished before the earliest finish among
 * recs[0..nfirst); prints when, from the first queueing, that earliest one
 * and the last of the others finished.
 */
static int before_first(size_t nfirst, size_t n, __u64 *first_end)
{
	__u64 end = ~0ULL, start = ~0ULL, last = 0;
	int count = 0;

	for (size_t i = 0; i < n; i++)
		if (recs[i].queued_ns < start)
			start = recs[i].queued_ns;
	for (size_t i = 0; i < nfirst; i++)
		if (recs[i].finished_ns < end)
			end = recs[i].finished_ns;
	for (size_t i = nfirst; i < n; i++) {
		count += recs[i].finished_ns < end;
		if (recs[i].finished_ns > last)
			last = recs[i].finished_ns;
	}
	ksft_print_msg("from the first queueing: the first long item ended at %llu ms, the last short one at %llu ms\n",
		       (unsigned long long)(end - start) / MS,
		       (unsigned long long)(last - start) / MS);
	*first_end = end;
	return count;
}

static int scenario_sleep(int fd, bool expect_handoff)
{
	/* slow debug kernels scale the work down (WSX_SCALE) */
	int nspin = wsx_test_scaled(1000, 100);
	/* longer on a slow kernel, up to the longest SLEEP there is */
	long sleep_us = 200000 * wsx_test_scale();
	char param[32];
	long long threads_max, handoffs0, handoffs1;
	__u64 end;
	int early, max_threads;

	if (sleep_us > WSX_SLEEP_MAX_US)
		sleep_us = WSX_SLEEP_MAX_US;
	for (int i = 0; i < 2; i++)
		reqs[i] = wsx_test_req(WSX_OP_SLEEP, i, WSX_PLACE_P, 0,
				       sleep_us, 0, 0);
	for (int i = 2; i < 2 + nspin; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, 0,
				       10000, 0, 0);
	read_stats();
	handoffs0 = stat_of(-1, "handoffs");
	if (wsx_test_collect(fd, reqs, 2 + nspin, recs))
		ksft_exit_fail_msg("the run failed\n");
	read_stats();
	handoffs1 = stat_of(-1, "handoffs");
	threads_max = stat_of(-1, "threads_max");
	if (wsx_test_param("max_threads", param, sizeof(param)))
		ksft_exit_fail_msg("reading the parameter max_threads\n");
	max_threads = atoi(param);
	early = before_first(2, 2 + nspin, &end);
	ksft_print_msg("%d of %d SPIN items finished before the first sleep ended; %lld handoffs, at most %lld threads (max_threads %d)\n",
		       early, nspin, handoffs1 - handoffs0, threads_max,
		       max_threads);
	ksft_test_result(threads_max <= max_threads,
			 "threads never exceed max_threads\n");
	if (expect_handoff) {
		ksft_test_result(handoffs1 - handoffs0 >= 2,
				 "both sleepers handed their P off\n");
		ksft_test_result(early == nspin,
				 "every SPIN item finished before the sleeps\n");
	} else {
		ksft_test_result(handoffs1 == handoffs0,
				 "no handoff without a spare M\n");
		ksft_test_result(early == 0,
				 "the queue waited for the sleep to end\n");
	}
	return 3;
}

static int scenario_long(int fd, bool monitor)
{
	long long rescued0, rescued1, flagged0, flagged1;
	__u64 end;
	int early, started = 0;

	reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0, 300 * MS, 0, 0);
	for (int i = 1; i < 101; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, 0,
				       100000, 0, 0);
	read_stats();
	rescued0 = stat_of(0, "rescued");
	flagged0 = stat_of(0, "long_items");
	if (wsx_test_collect(fd, reqs, 101, recs))
		ksft_exit_fail_msg("the run failed\n");
	read_stats();
	rescued1 = stat_of(0, "rescued");
	flagged1 = stat_of(0, "long_items");
	early = before_first(1, 101, &end);
	for (int i = 1; i < 101; i++)
		started += recs[i].started_ns < end;
	ksft_print_msg("%d of 100 short items started, %d finished, before the 300 ms one ended; %lld flagged, %lld rescues\n",
		       started, early, flagged1 - flagged0, rescued1 - rescued0);
	if (monitor) {
		ksft_test_result(flagged1 > flagged0 && rescued1 > rescued0,
				 "the monitor flagged the long item and handed P0 to another M\n");
		ksft_test_result(started >= 1,
				 "short items started while the long one ran\n");
	} else {
		ksft_test_result(flagged1 == flagged0 && rescued1 == rescued0,
				 "nothing flagged or rescued with long_item_ms=0\n");
		ksft_test_result(started == 0,
				 "the short items started after the long one\n");
	}
	return 2;
}

/* One round of "recheck": true if the monitor flagged the SPIN. */
static bool recheck_round(int fd, int round)
{
	long long flagged0, flagged1, idle0, recheck0;
	struct wsx_completion rec;
	struct wsx_req req;

	read_stats();
	flagged0 = stat_of(0, "long_items");
	idle0 = wsx_test_fault_hits("park_before_idle");
	recheck0 = wsx_test_fault_hits("park_before_recheck");
	if (wsx_test_fault_set("park_before_idle", "50000") ||
	    wsx_test_fault_set("park_before_recheck", "30000"))
		ksft_exit_fail_msg("cannot set the fault points\n");
	req = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_P, 0, 0, 0, 0);
	if (wsx_test_submit(fd, &req, 1, NULL) != 1 ||
	    wsx_test_wait(fd, &rec, 1, 1, 30LL * 1000000000) != 1)
		ksft_exit_fail_msg("the NOP failed\n");
	/* P0's M is parking now: inside park_before_idle's 50 ms */
	usleep(10000);
	req = wsx_test_req(WSX_OP_SPIN, 1, WSX_PLACE_GLOBAL, 0, 100 * MS, 0, 0);
	if (wsx_test_submit(fd, &req, 1, NULL) != 1 ||
	    wsx_test_wait(fd, &rec, 1, 1, 30LL * 1000000000) != 1 ||
	    rec.status)
		ksft_exit_fail_msg("the SPIN failed\n");
	if (wsx_test_fault_set("park_before_idle", "0") ||
	    wsx_test_fault_set("park_before_recheck", "0"))
		ksft_exit_fail_msg("cannot clear the fault points\n");
	read_stats();
	flagged1 = stat_of(0, "long_items");
	ksft_print_msg("round %d: %lld flagged; fault points passed: park_before_idle %ld, park_before_recheck %ld\n",
		       round, flagged1 - flagged0,
		       wsx_test_fault_hits("park_before_idle") - idle0,
		       wsx_test_fault_hits("park_before_recheck") - recheck0);
	return flagged1 > flagged0 &&
	       wsx_test_fault_hits("park_before_idle") > idle0 &&
	       wsx_test_fault_hits("park_before_recheck") > recheck0;
}

static void scenario_recheck(int fd)
{
	int flagged = 0;

	if (!wsx_test_have_faults()) {
		/* named, as ksft_exit_skip() would not name it */
		ksft_cnt.ksft_xskip++;
		printf("ok 1 recheck # SKIP a release build has no fault points (make check-debug builds with WSX_DEBUG=1)\n");
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	for (int round = 1; round <= 3; round++)
		flagged += recheck_round(fd, round);
	ksft_test_result(flagged == 3,
			 "the monitor flagged the SPIN a park's recheck took P0 back for, in %d of 3 rounds\n",
			 flagged);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int fd;

	ksft_print_header();
	fd = wsx_test_open();
	if (fd < 0)
		ksft_exit_skip("/dev/wsx missing: load wsx.ko first\n");
	if (!strcmp(mode, "handoff") || !strcmp(mode, "wait")) {
		ksft_set_plan(3);
		scenario_sleep(fd, !strcmp(mode, "handoff"));
	} else if (!strcmp(mode, "monitor") || !strcmp(mode, "nomonitor")) {
		ksft_set_plan(2);
		scenario_long(fd, !strcmp(mode, "monitor"));
	} else if (!strcmp(mode, "recheck")) {
		ksft_set_plan(1);
		scenario_recheck(fd);
	} else {
		ksft_exit_fail_msg("usage: %s handoff|wait|monitor|nomonitor|recheck\n",
				   argv[0]);
	}
	close(fd);
	ksft_finished();
}
