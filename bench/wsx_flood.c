// SPDX-License-Identifier: GPL-2.0
/*
 * wsx_flood: the userspace side of `make bench`, straight on the /dev/wsx
 * ABI (uapi/linux/wsx.h), without libwsx.
 *
 *   wsx_flood nop TOTAL BATCH [INFLIGHT [MODE]]
 *	submit TOTAL NOP items in calls of BATCH items each, keeping at most
 *	INFLIGHT (default 8192) unreaped.  MODE ioctl (the default):
 *	WSX_IOC_SUBMIT and WSX_IOC_WAIT, printing
 *	"flood batch=B items=N ns=WALL p50_ns=L p99_ns=L max_ns=L" where the
 *	latencies are started_ns - queued_ns of the completion records;
 *	MODE rings, uring-async or uring-inline: through shared rings (see
 *	flood_rings.c), printing "flood batch=B items=N ns=WALL mode=MODE"
 *   wsx_flood crc MIB
 *	checksum MIB MiB, filled with the xorshift64 pattern that
 *	bench/wsx_bench.c uses, with one CRC32C item (64 KiB chunks) and print
 *	"crc bytes=N ns=WALL result=N nodes=N", WALL from before the submit
 *	(which pins the pages) to the completion record
 *   wsx_flood delayed TOTAL DELAY_MS close|due
 *	delay TOTAL (at most 65536) NOP items on P0 by DELAY_MS (1 us
 *	apart), the longest
 *	walks of a P's timers a user can ask for: then close the session at
 *	once (its close fires all TOTAL: close) or wait for every record
 *	(TOTAL fall due together: due), printing
 *	"delayed mode=M items=N ns=WALL", WALL from the submit's end
 *	(bench/latency.sh runs it under the irqsoff and preemptoff tracers)
 *   wsx_flood idle SESSIONS RTT_ITEMS
 *	what SESSIONS idle pick-up sessions cost the others (issue 20): time
 *	RTT_ITEMS round trips of one NOP through a pick-up ring session (the
 *	flood "nop RTT_ITEMS 1 1 pickup") with no idle session; raise
 *	RLIMIT_NOFILE (soft and hard, as root) to SESSIONS + 64 and fork a
 *	child that sets up SESSIONS pick-up sessions (SQ 1, CQ 1), each
 *	running one NOP, then tells the parent and waits; 2 s later (the
 *	module takes rings idle for a second off its list) time the round
 *	trips again (each measure after IDLE_WARM untimed round trips: the
 *	first walk after the sleep takes the idle rings off the list); then
 *	let the child exit without closing anything and time its exit until
 *	waitpid() returns.  Prints
 *	"idle sessions=N setup_ms=T rtt_none_ns=L rtt_idle_ns=L ratio=R
 *	exit_ms=T", after a line "idle stats at=WHEN rings_listed=N
 *	rings_visited=N rings_retired=N" per step when debugfs has the stats
 *
 * Exit status: 0, 1 on a failure, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/wsx.h>

#include "bench_util.h"
#include "wsx_flood.h"

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Reap at least @min records; returns how many, or -1. */
static long reap(int fd, struct wsx_completion *recs, unsigned int min,
		 __u64 *lat, unsigned long *nlat)
{
	struct wsx_wait w;
	int ret, i;

	memset(&w, 0, sizeof(w));
	w.records = (uintptr_t)recs;
	w.max = WSX_WAIT_MAX;
	w.min = min;
	w.timeout_ns = 60LL * 1000000000LL;
	do
		ret = ioctl(fd, WSX_IOC_WAIT, &w);
	while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		perror("WSX_IOC_WAIT");
		return -1;
	}
	for (i = 0; i < ret; i++) {
		if (recs[i].status) {
			fprintf(stderr, "item %llu: status %d\n",
				(unsigned long long)recs[i].user_data,
				recs[i].status);
			return -1;
		}
		if (lat)
			lat[(*nlat)++] = recs[i].started_ns -
					 recs[i].queued_ns;
	}
	return ret;
}

static int do_flood(int fd, unsigned long total, unsigned int batch,
		    unsigned long inflight_max)
{
	struct wsx_completion *recs = calloc(WSX_WAIT_MAX, sizeof(*recs));
	struct wsx_req *reqs = calloc(batch, sizeof(*reqs));
	__u64 *lat = calloc(total, sizeof(*lat));
	unsigned long sent = 0, done = 0, nlat = 0, i;
	struct wsx_submit sub;
	__u64 start, wall;
	long got;
	int ret;

	if (!recs || !reqs || !lat) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (i = 0; i < batch; i++)
		reqs[i].op = WSX_OP_NOP;	/* place LOCAL, no args */
	start = bench_now_ns();
	while (sent < total) {
		unsigned int n = total - sent < batch ? total - sent : batch;

		while (sent - done + n > inflight_max) {
			got = reap(fd, recs, 1, lat, &nlat);
			if (got < 0)
				return 1;
			done += got;
		}
		for (i = 0; i < n; i++)
			reqs[i].user_data = sent + i;
		memset(&sub, 0, sizeof(sub));
		sub.items = (uintptr_t)reqs;
		sub.count = n;
		ret = ioctl(fd, WSX_IOC_SUBMIT, &sub);
		if (ret < 0 && errno == EAGAIN) {
			got = reap(fd, recs, 1, lat, &nlat);
			if (got < 0)
				return 1;
			done += got;
			continue;
		}
		if (ret < 0) {
			perror("WSX_IOC_SUBMIT");
			return 1;
		}
		sent += sub.queued;
	}
	while (done < total) {
		unsigned long left = total - done;

		got = reap(fd, recs, left < WSX_WAIT_MAX ? left : WSX_WAIT_MAX,
			   lat, &nlat);
		if (got < 0)
			return 1;
		done += got;
	}
	wall = bench_now_ns() - start;
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
	printf("flood batch=%u items=%lu ns=%llu p50_ns=%llu p99_ns=%llu max_ns=%llu\n",
	       batch, total, (unsigned long long)wall,
	       (unsigned long long)lat[nlat / 2],
	       (unsigned long long)lat[nlat * 99 / 100],
	       (unsigned long long)lat[nlat - 1]);
	free(lat);
	free(reqs);
	free(recs);
	return 0;
}

static int do_crc(int fd, unsigned long mib)
{
	size_t len = mib << 20, words = len / sizeof(__u64), i;
	struct wsx_completion rec;
	struct wsx_submit sub;
	struct wsx_wait w;
	struct wsx_req req;
	__u64 x = 0x9e3779b97f4a7c15ULL, start, wall;
	__u64 *buf;
	int ret;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
	memset(&req, 0, sizeof(req));
	req.op = WSX_OP_CRC32C;
	req.args[0] = (uintptr_t)buf;
	req.args[1] = len;
	memset(&sub, 0, sizeof(sub));
	sub.items = (uintptr_t)&req;
	sub.count = 1;
	memset(&w, 0, sizeof(w));
	w.records = (uintptr_t)&rec;
	w.max = 1;
	w.min = 1;
	w.timeout_ns = -1;
	start = bench_now_ns();
	ret = ioctl(fd, WSX_IOC_SUBMIT, &sub);
	if (ret != 1) {
		perror("WSX_IOC_SUBMIT");
		return 1;
	}
	do
		ret = ioctl(fd, WSX_IOC_WAIT, &w);
	while (ret < 0 && errno == EINTR);
	wall = bench_now_ns() - start;
	if (ret != 1 || rec.status) {
		fprintf(stderr, "crc: wait %d status %d\n", ret, rec.status);
		return 1;
	}
	printf("crc bytes=%zu ns=%llu result=%llu nodes=%u\n", len,
	       (unsigned long long)wall, (unsigned long long)rec.result,
	       rec.nodes);
	munmap(buf, len);
	return 0;
}

static int do_delayed(int fd, unsigned long total, unsigned long delay_ms,
		      const char *mode)
{
	struct wsx_completion *recs;
	struct wsx_req *reqs;
	struct wsx_submit sub;
	unsigned long i, got = 0;
	__u64 start;
	long ret;

	if (total > 65536 || (strcmp(mode, "close") && strcmp(mode, "due")))
		return 2;
	reqs = calloc(total, sizeof(*reqs));
	recs = calloc(WSX_WAIT_MAX, sizeof(*recs));
	if (!reqs || !recs) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < total; i++) {
		reqs[i].op = WSX_OP_NOP;
		reqs[i].user_data = i;
		reqs[i].place = WSX_PLACE_P;
		reqs[i].delay_ns = delay_ms * 1000000ULL + i * 1000;
	}
	for (i = 0; i < total; i += sub.count) {
		memset(&sub, 0, sizeof(sub));
		sub.items = (uintptr_t)&reqs[i];
		sub.count = total - i < WSX_SUBMIT_MAX ? total - i :
			    WSX_SUBMIT_MAX;
		if (ioctl(fd, WSX_IOC_SUBMIT, &sub) != (int)sub.count) {
			perror("WSX_IOC_SUBMIT");
			return 1;
		}
	}
	start = bench_now_ns();
	if (!strcmp(mode, "close")) {
		close(fd);
	} else {
		while (got < total) {
			ret = reap(fd, recs, 1, NULL, NULL);
			if (ret < 0)
				return 1;
			got += ret;
		}
		close(fd);
	}
	printf("delayed mode=%s items=%lu ns=%llu\n", mode, total,
	       (unsigned long long)(bench_now_ns() - start));
	free(reqs);
	free(recs);
	return 0;
}

/* ---- idle sessions ---------------------------------------------------- */

#define WSX_STATS_PATH	"/sys/kernel/debug/wsx/stats"
#define IDLE_WARM	100	/* untimed round trips before each measure */

/* Print the pick-up rings' counters of the stats, if readable, at @when. */
static void idle_stats(const char *when)
{
	static const char *const keys[] = {
		"rings_listed=", "rings_visited=", "rings_retired=", NULL
	};
	static char text[1 << 18];
	size_t len = 0;
	ssize_t got;
	const char *const *key;
	const char *at;
	int fd;

	fd = open(WSX_STATS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (len < sizeof(text) - 1 &&
	       (got = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += got;
	close(fd);
	text[len] = '\0';
	printf("idle stats at=%s", when);
	for (key = keys; *key; key++) {
		at = strstr(text, *key);
		printf(" %s%llu", *key,
		       at ? strtoull(at + strlen(*key), NULL, 10) : 0ULL);
	}
	printf("\n");
	fflush(stdout);
}

/*
 * The child: set up @n idle sessions, report how many to @up, wait for a
 * byte or EOF on @go, then exit with every session open.
 */
static void idle_child(unsigned long n, int up, int go)
{
	unsigned long i;
	char c;

	for (i = 0; i < n; i++) {
		if (flood_idle_session()) {
			fprintf(stderr, "idle: session %lu of %lu failed\n",
				i + 1, n);
			break;
		}
	}
	if (write(up, &i, sizeof(i)) != sizeof(i))
		_exit(1);
	if (i == n)
		while (read(go, &c, 1) < 0 && errno == EINTR)
			;
	_exit(i == n ? 0 : 1);	/* the kernel closes the sessions */
}

static int do_idle(unsigned long sessions, unsigned long rtt_items)
{
	__u64 start, setup, none, idle, exit_ns;
	unsigned long made = 0;
	int up[2], go[2], status = 0;
	ssize_t got;
	pid_t pid;

	idle_stats("start");
	/* untimed round trips first, as before the second measure */
	if (flood_rings("pickup", IDLE_WARM, 1, 1, NULL) ||
	    flood_rings("pickup", rtt_items, 1, 1, &none))
		return 1;
	idle_stats("rtt_none");
	if (bench_raise_nofile(sessions + 64))
		return 1;
	if (pipe2(up, O_CLOEXEC) || pipe2(go, O_CLOEXEC)) {
		perror("pipe2");
		return 1;
	}
	fflush(stdout);
	start = bench_now_ns();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		close(up[0]);
		close(go[1]);
		idle_child(sessions, up[1], go[0]);
	}
	close(up[1]);
	close(go[0]);
	do
		got = read(up[0], &made, sizeof(made));
	while (got < 0 && errno == EINTR);
	setup = bench_now_ns() - start;
	if (got != sizeof(made) || made != sessions) {
		waitpid(pid, &status, 0);
		fprintf(stderr, "idle: the child set up %lu of %lu sessions",
			got == sizeof(made) ? made : 0, sessions);
		fprintf(stderr, " in %llu ms (%s %d)\n",
			(unsigned long long)(setup / 1000000),
			WIFSIGNALED(status) ? "signal" : "exit status",
			WIFSIGNALED(status) ? WTERMSIG(status) :
					      WEXITSTATUS(status));
		return 1;
	}
	idle_stats("setup");
	sleep(2);	/* past WSX_PICKUP_IDLE: the sessions are idle */
	idle_stats("slept");
	/* untimed: the first walk takes the idle rings off the list */
	if (flood_rings("pickup", IDLE_WARM, 1, 1, NULL) ||
	    flood_rings("pickup", rtt_items, 1, 1, &idle)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return 1;
	}
	idle_stats("rtt_idle");
	start = bench_now_ns();
	close(go[1]);	/* EOF: the child exits */
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	exit_ns = bench_now_ns() - start;
	idle_stats("exit");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "idle: the child ended with status %#x\n",
			status);
		return 1;
	}
	printf("idle sessions=%lu setup_ms=%llu", sessions,
	       (unsigned long long)(setup / 1000000));
	printf(" rtt_none_ns=%llu rtt_idle_ns=%llu ratio=%.2f exit_ms=%llu\n",
	       (unsigned long long)(none / rtt_items),
	       (unsigned long long)(idle / rtt_items),
	       (double)idle / (double)none,
	       (unsigned long long)(exit_ns / 1000000));
	close(up[0]);
	return 0;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: wsx_flood nop TOTAL BATCH [INFLIGHT [MODE]]\n"
		"       MODE: ioctl, rings, pickup, uring-async, uring-inline\n"
		"       wsx_flood crc MIB\n"
		"       wsx_flood delayed TOTAL DELAY_MS close|due\n"
		"       wsx_flood idle SESSIONS RTT_ITEMS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long a, b, c = 8192;
	int fd, ret;

	if (argc < 3)
		bad_args();
	a = strtoul(argv[2], NULL, 0);
	fd = open(WSX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(WSX_DEVICE_PATH);
		return 1;
	}
	if (!strcmp(argv[1], "nop") && argc >= 4 && argc <= 6) {
		b = strtoul(argv[3], NULL, 0);
		if (argc >= 5)
			c = strtoul(argv[4], NULL, 0);
		if (!a || !b || b > WSX_SUBMIT_MAX || c < b)
			bad_args();
		if (argc == 6 && strcmp(argv[5], "ioctl"))
			ret = flood_rings(argv[5], a, b, c, NULL);
		else
			ret = do_flood(fd, a, b, c);
		if (ret == 2)
			bad_args();
	} else if (!strcmp(argv[1], "crc") && argc == 3) {
		if (!a || a > 1024)
			bad_args();
		ret = do_crc(fd, a);
	} else if (!strcmp(argv[1], "delayed") && argc == 5) {
		ret = do_delayed(fd, a, strtoul(argv[3], NULL, 0), argv[4]);
		if (ret == 2)
			bad_args();
		fd = -1;	/* do_delayed() closed the session */
	} else if (!strcmp(argv[1], "idle") && argc == 4) {
		b = strtoul(argv[3], NULL, 0);
		if (!a || a > 1000000 || !b)
			bad_args();
		ret = do_idle(a, b);
	} else {
		bad_args();
	}
	if (fd >= 0)
		close(fd);
	return ret;
}
