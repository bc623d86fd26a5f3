// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's protocols, one scenario per run: wsx_protocol.sh loads
 * the module with the parameters each one needs.  Each scenario failed
 * before the fix named beside it (issue 11's findings).  Each run prints
 * one KTAP result line named after its scenario; a skip says why, and is a
 * failure in a WSX_DEBUG build (scenario_end()).
 *
 *   inbox_steal   (finding 7) 20 SPIN(200 ms) queued on P0 of 4 idle Ps,
 *                 10 times (WSX_SCALE divides), in one SUBMIT or as one
 *                 then 19 once P0 runs the first: every P starts one of
 *                 them before P0's first one ends.  Items queued on a busy
 *                 P's inbox used to wait for its M.  (Long items, so that
 *                 a host that stalls the VM for tens of ms does not fail
 *                 it: the figure that matters is printed.)
 *   waiter_bound  (finding 3) nprocs=1 max_threads=2: SLEEP(1 ms), then
 *                 SPIN(1 ms) items kept 64 deep for 3 s.  The sleeper's M
 *                 must get the P back within global_tick schedule ticks,
 *                 not when the load ends.
 *   stale_handoff (finding 8) nprocs=1: a CRC32C item that runs long but
 *                 never calls wsx_cond_handoff() gets flagged by the
 *                 monitor; SPIN(3 ms) items that follow on the same M must
 *                 not be handed off for it: every handoff is one the
 *                 monitor asked for another item (handoffs < long_items;
 *                 none but the CRC32C is flagged unless the host stalls
 *                 the guest's vCPU, which the guest counts as CPU time).
 *   hotplug_ack   (finding 1) CPU 1 offline; its M starved by a SCHED_FIFO
 *                 hog on CPU 2; CPU 1 online; an item queued on P1; CPU 1
 *                 offline again; the hog stops.  The item must run: the
 *                 offline callback used to return on the stale
 *                 acknowledgment of the first offline, stranding it.
 *   widened_wake  (finding 2; WSX_DEBUG builds only: make check-debug)
 *                 nprocs=2 idle_thread_ms=0: the fault points
 *                 wake_after_release and park_before_recheck (fault.h)
 *                 widen the window between a waker's store of woken and
 *                 its wake_up(), and a parking M's path to its sleep, while
 *                 sleepers hand Ps to spare Ms that the reaper frees at
 *                 once: every item completes exactly once, both points
 *                 are passed, and KASAN (the debug kernel) sees no
 *                 use-after-free of an M.
 *   memlock       (finding 6) a process without CAP_IPC_LOCK and with
 *                 RLIMIT_MEMLOCK at 1 MiB: CRC32C over 8 MiB, whose pages
 *                 stay pinned while the item runs, is refused with ENOMEM;
 *                 over 256 KiB it works, and the charge is given back.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "wsx_test.h"

#define MS	1000000ULL

static const char *scenario;	/* named in the one KTAP result line */

/*
 * scenario_end - print the scenario's KTAP result line and exit with @rc.
 * A skip in a WSX_DEBUG build (fault points present: make check-debug,
 * where every scenario can run) is a failure; a skip says why.
 */
static void __attribute__((noreturn, format(printf, 2, 3)))
scenario_end(int rc, const char *fmt, ...)
{
	char why[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		why[strcspn(why, "\n")] = '\0';
	}
	if (rc == KSFT_SKIP && wsx_test_have_faults()) {
		ksft_print_msg("a skip in a WSX_DEBUG build, where every scenario runs: %s\n",
			       why);
		rc = KSFT_FAIL;
	}
	if (rc == KSFT_SKIP)
		printf("ok 1 %s # SKIP %s\n", scenario, why);
	else if (rc == KSFT_PASS)
		printf("ok 1 %s\n", scenario);
	else
		printf("not ok 1 %s%s%s\n", scenario, *why ? " # " : "", why);
	fflush(stdout);
	exit(rc);
}

#define scenario_skip(...)	scenario_end(KSFT_SKIP, __VA_ARGS__)
#define scenario_fail(...)	scenario_end(KSFT_FAIL, __VA_ARGS__)

static struct wsx_completion recs[256];
static struct wsx_req reqs[256];
static char stats[1 << 16];

static long long global_stat(const char *key)
{
	if (wsx_test_read_debugfs("stats", stats, sizeof(stats)) <= 0)
		return -1;
	return wsx_test_stat(stats, -1, key);
}

/* ---- inbox_steal ------------------------------------------------------ */

static int scenario_inbox_steal(int fd)
{
	int nprocs = wsx_test_nprocs(fd), rounds = wsx_test_scaled(10, 4);
	__u64 worst = 0;

	if (nprocs < 4)
		scenario_skip("needs 4 Ps, the module has %d\n", nprocs);
	for (int r = 0; r < rounds; r++) {
		__u64 first[4] = { ~0ULL, ~0ULL, ~0ULL, ~0ULL }, p0_end = ~0ULL;
		__u64 returned, last_first = 0;
		long got;

		for (int i = 0; i < 20; i++)
			reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, 0,
					       200 * MS, 0, 0);
		if (r % 2) {
			/* P0 busy with the first when the others come: it
			 * took it (P0's depth 0), not a sleep's guess */
			if (wsx_test_submit(fd, reqs, 1, NULL) != 1)
				scenario_fail("SUBMIT failed\n");
			for (int i = 0; i < 10000 &&
			     wsx_test_read_debugfs("stats", stats, sizeof(stats)) > 0 &&
			     wsx_test_stat(stats, 0, "depth"); i++)
				usleep(100);
			if (wsx_test_submit(fd, reqs + 1, 19, NULL) != 19)
				scenario_fail("SUBMIT failed\n");
		} else if (wsx_test_submit(fd, reqs, 20, NULL) != 20) {
			scenario_fail("SUBMIT of 20 items failed\n");
		}
		returned = wsx_test_now_ns();
		got = wsx_test_wait(fd, recs, 20, 20, 10000 * MS);
		if (got != 20)
			scenario_fail("WAIT: %ld\n", got);
		for (int i = 0; i < 20; i++) {
			unsigned int cpu = recs[i].cpu;

			if (cpu < 4 && recs[i].started_ns < first[cpu])
				first[cpu] = recs[i].started_ns;
			if (cpu == 0 && recs[i].finished_ns < p0_end)
				p0_end = recs[i].finished_ns;
		}
		for (int c = 0; c < 4; c++) {
			if (first[c] == ~0ULL) {
				ksft_print_msg("round %d: CPU %d ran none of the 20 items\n",
					       r, c);
				return KSFT_FAIL;
			}
			if (first[c] > last_first)
				last_first = first[c];
		}
		if (last_first >= p0_end) {
			ksft_print_msg("round %d: a P started its first item %llu ms after the SUBMIT returned, after P0's first item ended\n",
				       r, (last_first - returned) / MS);
			return KSFT_FAIL;
		}
		if (last_first > returned && last_first - returned > worst)
			worst = last_first - returned;
	}
	ksft_print_msg("%d rounds: every P started an item before P0's first one ended; the latest first start, from the SUBMIT's return: %llu us\n",
		       rounds, worst / 1000);
	return KSFT_PASS;
}

/* ---- waiter_bound ------------------------------------------------------ */

static int scenario_waiter_bound(int fd)
{
	__u64 start = wsx_test_now_ns(), end = start + 3000 * MS;
	__u64 sleep_done = 0, load_end;
	long inflight = 65, ud = 1, got;

	reqs[0] = wsx_test_req(WSX_OP_SLEEP, 0, WSX_PLACE_P, 0, 1000, 0, 0);
	for (int i = 1; i < 65; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, ud++, WSX_PLACE_P, 0,
				       1 * MS, 0, 0);
	if (wsx_test_submit(fd, reqs, 65, NULL) != 65)
		scenario_fail("SUBMIT failed\n");
	/* keep 64 SPINs queued for 3 s */
	while (wsx_test_now_ns() < end) {
		got = wsx_test_wait(fd, recs, 64, 1, 2000 * MS);
		if (got < 0)
			scenario_fail("WAIT: %ld\n", got);
		for (long i = 0; i < got; i++) {
			if (recs[i].user_data == 0)
				sleep_done = recs[i].finished_ns;
			reqs[i] = wsx_test_req(WSX_OP_SPIN, ud++, WSX_PLACE_P,
					       0, 1 * MS, 0, 0);
		}
		inflight -= got;
		if (got && wsx_test_submit(fd, reqs, got, NULL) != got)
			scenario_fail("SUBMIT failed\n");
		inflight += got;
	}
	load_end = wsx_test_now_ns();
	while (inflight > 0) {
		got = wsx_test_wait(fd, recs, 64, 1, 10000 * MS);
		if (got <= 0)
			scenario_fail("WAIT: %ld\n", got);
		for (long i = 0; i < got; i++)
			if (recs[i].user_data == 0)
				sleep_done = recs[i].finished_ns;
		inflight -= got;
	}
	ksft_print_msg("%ld SPIN(1 ms) items in 3 s; the SLEEP(1 ms) finished %llu ms after the start, the load ended at %llu ms\n",
		       ud - 1, (sleep_done - start) / MS,
		       (load_end - start) / MS);
	/* the bound is 61 ticks of 1 ms items; the load lasted 3000 ms */
	if (sleep_done - start > 1000 * MS) {
		ksft_print_msg("the sleeper's M waited for a P as long as the load lasted\n");
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/* ---- stale_handoff ------------------------------------------------------ */

static int scenario_stale_handoff(int fd)
{
	size_t len = 64 << 20;
	char *buf = malloc(len);
	long long long_items, handoffs;
	__u64 crc_ms = 0;
	long got;

	if (!buf)
		scenario_fail("malloc\n");
	memset(buf, 0x5a, len);
	/* one node over 64 MiB: long, and no wsx_cond_handoff() in it */
	reqs[0] = wsx_test_req(WSX_OP_CRC32C, 0, WSX_PLACE_P, 0,
			       (uintptr_t)buf, len, len);
	for (int i = 1; i < 21; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, WSX_PLACE_P, 0,
				       3 * MS, 0, 0);
	if (wsx_test_submit(fd, reqs, 21, NULL) != 21)
		scenario_fail("SUBMIT failed\n");
	got = wsx_test_wait(fd, recs, 21, 21, 60000 * MS);
	free(buf);
	if (got != 21)
		scenario_fail("WAIT: %ld\n", got);
	if (wsx_test_read_debugfs("stats", stats, sizeof(stats)) <= 0)
		scenario_fail("no debugfs stats\n");
	long_items = wsx_test_stat(stats, 0, "long_items");
	handoffs = global_stat("handoffs");
	for (int i = 0; i < 21; i++)
		if (recs[i].user_data == 0)
			crc_ms = (recs[i].finished_ns - recs[i].started_ns) / MS;
	ksft_print_msg("CRC32C ran %llu ms; long_items=%lld handoffs=%lld\n",
		       crc_ms, long_items, handoffs);
	/* long_item_ms=50 (wsx_protocol.sh): flagged at 50 ms of CPU time */
	if (crc_ms < 100 || long_items < 1)
		scenario_skip("the CRC32C item did not run long here\n");
	return handoffs < long_items ? KSFT_PASS : KSFT_FAIL;
}

/* ---- hotplug_ack ------------------------------------------------------ */

static int cpu_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return wsx_test_write_file(path, on ? "1" : "0");
}

/* pid of the kthread named @name, or -1 */
static pid_t find_kthread(const char *name)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t pid = -1;

	while (d && (e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		if (!strcmp(comm, name)) {
			pid = atoi(e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return pid;
}

static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		scenario_fail("sched_setaffinity(%d): %s\n", pid,
				   strerror(errno));
}

/* A SCHED_FIFO busy loop on @cpu for @ms. */
static pid_t start_hog(int cpu, unsigned int ms)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t pid = fork();

	if (pid)
		return pid;
	pin(0, cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(2);
	for (__u64 end = wsx_test_now_ns() + ms * MS;
	     wsx_test_now_ns() < end;)
		;
	_exit(0);
}

static int scenario_hotplug_ack(int fd)
{
	char rt_old[32] = "950000";
	int rc = KSFT_PASS, st;
	pid_t m, hog;
	long got;
	FILE *f;

	if (wsx_test_nprocs(fd) < 3)
		scenario_skip("needs 3 Ps\n");
	f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	if (!f || !fgets(rt_old, sizeof(rt_old), f))
		scenario_skip("no sched_rt_runtime_us\n");
	fclose(f);
	if (cpu_online(1, 0))
		scenario_skip("CPU 1 cannot go offline here\n");
	/* P1's M since the module was loaded (Ms are numbered as their Ps) */
	m = find_kthread("wsx/1");
	if (m < 0) {
		cpu_online(1, 1);
		scenario_fail("no kthread wsx/1\n");
	}
	if (wsx_test_write_file("/proc/sys/kernel/sched_rt_runtime_us", "-1")) {
		cpu_online(1, 1);
		scenario_skip("cannot turn RT throttling off\n");
	}
	pin(m, 2);
	hog = start_hog(2, 1500);
	usleep(100 * 1000);
	/* the M cannot run on CPU 2 now: it cannot acknowledge the online */
	if (cpu_online(1, 1))
		rc = KSFT_FAIL;
	reqs[0] = wsx_test_req(WSX_OP_NOP, 7, WSX_PLACE_P, 1, 0, 0, 0);
	got = wsx_test_submit(fd, reqs, 1, NULL);
	if (cpu_online(1, 0))
		rc = KSFT_FAIL;
	waitpid(hog, &st, 0);
	wsx_test_write_file("/proc/sys/kernel/sched_rt_runtime_us", rt_old);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		ksft_print_msg("the SCHED_FIFO hog failed: status %d\n", st);
		rc = KSFT_FAIL;
	}
	if (got == 1) {
		got = wsx_test_wait(fd, recs, 1, 1, 3000 * MS);
		ksft_print_msg("the item queued on P1 between its online and offline: %s\n",
			       got == 1 ? "ran" : "stranded (WAIT timed out)");
		if (got != 1)
			rc = KSFT_FAIL;
	} else {
		/* refused because P1 was offline: nothing was stranded */
		ksft_print_msg("SUBMIT to P1 answered %ld\n", got);
	}
	if (cpu_online(1, 1))
		rc = KSFT_FAIL;
	if (rc == KSFT_PASS && got != 1)
		got = wsx_test_wait(fd, recs, 1, 1, 3000 * MS);
	return rc;
}

/* ---- widened_wake -------------------------------------------------------- */

static int scenario_widened_wake(int fd)
{
	static unsigned char seen[4 * 66];
	int rc = KSFT_PASS;

	if (!wsx_test_have_faults())
		scenario_skip("a release build has no fault points (make check-debug builds with WSX_DEBUG=1)\n");
	if (wsx_test_fault_set("wake_after_release", "2000") ||
	    wsx_test_fault_set("park_before_recheck", "500"))
		scenario_fail("cannot set the fault points\n");
	for (int r = 0; r < 4 && rc == KSFT_PASS; r++) {
		long got;

		reqs[0] = wsx_test_req(WSX_OP_SLEEP, r * 66, WSX_PLACE_P, 0,
				       3000, 0, 0);
		reqs[1] = wsx_test_req(WSX_OP_SLEEP, r * 66 + 1, WSX_PLACE_P,
				       1, 3000, 0, 0);
		for (int i = 2; i < 66; i++)
			reqs[i] = wsx_test_req(WSX_OP_SPIN, r * 66 + i,
					       WSX_PLACE_P, i % 2, 200000, 0,
					       0);
		if (wsx_test_submit(fd, reqs, 66, NULL) != 66)
			scenario_fail("SUBMIT failed\n");
		got = wsx_test_wait(fd, recs, 66, 66, 60000 * MS);
		if (got != 66) {
			ksft_print_msg("round %d: WAIT %ld\n", r, got);
			rc = KSFT_FAIL;
			break;
		}
		for (int i = 0; i < 66; i++) {
			__u64 ud = recs[i].user_data;

			if (ud >= sizeof(seen) || seen[ud]++) {
				ksft_print_msg("record %llu unexpected or twice\n",
					       (unsigned long long)ud);
				rc = KSFT_FAIL;
			}
		}
		usleep(20000);	/* the reaper frees the spare Ms */
	}
	ksft_print_msg("fault points passed: wake_after_release %ld, park_before_recheck %ld; threads_exited=%lld\n",
		       wsx_test_fault_hits("wake_after_release"),
		       wsx_test_fault_hits("park_before_recheck"),
		       global_stat("threads_exited"));
	if (wsx_test_fault_hits("wake_after_release") < 1 ||
	    wsx_test_fault_hits("park_before_recheck") < 1)
		rc = KSFT_FAIL;
	wsx_test_fault_set("wake_after_release", "0");
	wsx_test_fault_set("park_before_recheck", "0");
	return rc;
}

/* ---- memlock ------------------------------------------------------------ */

static long crc_submit(int fd, const char *buf, size_t len)
{
	struct wsx_submit out;
	long ret;

	reqs[0] = wsx_test_req(WSX_OP_CRC32C, 1, WSX_PLACE_GLOBAL, 0,
			       (uintptr_t)buf, len, 0);
	ret = wsx_test_submit(fd, reqs, 1, &out);
	if (ret == 1 && wsx_test_wait(fd, recs, 1, 1, 60000 * MS) != 1)
		return -ETIMEDOUT;
	return ret;
}

/* In a child: drop CAP_IPC_LOCK, lower RLIMIT_MEMLOCK, pin too much. */
static int memlock_child(int fd)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct rlimit lim = { 1 << 20, 1 << 20 };
	size_t big = 8 << 20;
	char *buf = malloc(big);
	long ret;

	if (!buf || syscall(SYS_capget, &hdr, data))
		return 2;
	data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &hdr, data) || setrlimit(RLIMIT_MEMLOCK, &lim))
		return 2;
	memset(buf, 1, big);
	ret = crc_submit(fd, buf, big);
	ksft_print_msg("CRC32C over 8 MiB with RLIMIT_MEMLOCK = 1 MiB: %ld (%s)\n",
		       ret, ret < 0 ? strerror(-ret) : "queued");
	if (ret != -ENOMEM)
		return 1;
	/* within the limit, twice: the first charge was given back */
	for (int i = 0; i < 2; i++) {
		ret = crc_submit(fd, buf, 768 << 10);
		if (ret != 1) {
			ksft_print_msg("CRC32C over 768 KiB: %ld\n", ret);
			return 1;
		}
	}
	return 0;
}

static int scenario_memlock(int fd)
{
	pid_t pid = fork();
	int st;

	if (!pid)
		_exit(memlock_child(fd));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return KSFT_FAIL;
	if (WEXITSTATUS(st) == 2)
		scenario_skip("cannot drop CAP_IPC_LOCK here\n");
	return WEXITSTATUS(st) ? KSFT_FAIL : KSFT_PASS;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int fd);
	} scenarios[] = {
		{ "inbox_steal", scenario_inbox_steal },
		{ "waiter_bound", scenario_waiter_bound },
		{ "stale_handoff", scenario_stale_handoff },
		{ "hotplug_ack", scenario_hotplug_ack },
		{ "widened_wake", scenario_widened_wake },
		{ "memlock", scenario_memlock },
	};
	int fd;

	if (argc != 2)
		ksft_exit_fail_msg("usage: %s SCENARIO\n", argv[0]);
	ksft_print_header();
	ksft_set_plan(1);
	scenario = argv[1];
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(argv[1], scenarios[i].name))
			continue;
		fd = wsx_test_open();
		if (fd < 0)
			scenario_skip("cannot open /dev/wsx: %s\n", strerror(-fd));
		scenario_end(scenarios[i].fn(fd), NULL);
	}
	scenario_fail("unknown scenario\n");
}
