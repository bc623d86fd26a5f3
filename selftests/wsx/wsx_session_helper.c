// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of wsx_session.sh: sessions that end badly or all at once.
 *
 *   close-queued N NS   queue N SPIN(NS) items, reap what has finished,
 *                       then close(): it must return (under 60 s, a hang
 *                       guard) and the global "cancelled" counter must have
 *                       grown by the items still in flight, give or take
 *                       the few that finished in between
 *   busy READYFILE      keep SPIN, SLEEP, FIB, SPAWN and CRC32C items in
 *                       flight and WAIT for them, forever; READYFILE is
 *                       created once work is queued (for a SIGKILL)
 *   busy-rings READYFILE  the same through the shared rings (ABI 1.1),
 *                       which stay mapped
 *   hold READYFILE      open /dev/wsx, queue one 1 s SLEEP, create
 *                       READYFILE and sleep until killed
 *   multi P N           P processes each open their own session and
 *                       submit N items at once with user_data =
 *                       pid << 32 | i: each must receive exactly its own N
 *   polls N READYFILE   park N POLLs (ABI 1.3) on eventfds nothing writes
 *                       (one each, or shared when RLIMIT_NOFILE cannot be
 *                       raised), every third with a 10 s timeout, a
 *                       quarter through the shared rings (mapped); once
 *                       none has ended after 200 ms, create READYFILE and
 *                       sleep until killed
 *
 * Exit status 0 when all is as it should be; lines starting "# " say what
 * was seen.
 */
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "wsx_rings.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

static struct wsx_completion recs[WSX_WAIT_MAX];

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int close_queued(long n, __u64 ns)
{
	static struct wsx_req reqs[WSX_SUBMIT_MAX];
	long long before, after, grew;
	long sent = 0, reaped = 0, ret, inflight;
	__u64 t0, t1;
	int fd = wsx_test_open(), bad = 0;

	if (fd < 0) {
		printf("# open: %s\n", strerror(-fd));
		return 1;
	}
	before = wsx_test_global_stat("cancelled");
	if (before < 0) {
		printf("# no cancelled= on the global line of the stats\n");
		return 1;
	}
	t0 = wsx_test_now_ns();
	while (sent < n) {
		__u32 batch = n - sent > WSX_SUBMIT_MAX ? WSX_SUBMIT_MAX :
			      n - sent;

		for (__u32 i = 0; i < batch; i++)
			reqs[i] = wsx_test_req(WSX_OP_SPIN, sent + i,
					       i % 2 ? WSX_PLACE_GLOBAL :
					       WSX_PLACE_LOCAL, 0, ns, 0, 0);
		ret = wsx_test_submit(fd, reqs, batch, NULL);
		if (ret != batch) {
			printf("# SUBMIT after %ld queued: %ld (%s)\n", sent,
			       ret, ret < 0 ? strerror(-ret) : "short");
			return 1;
		}
		sent += ret;
	}
	t1 = wsx_test_now_ns();
	/* what has finished already is not cancelled */
	while ((ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 0, 0)) > 0)
		reaped += ret;
	if (ret < 0) {
		printf("# WAIT: %ld\n", ret);
		return 1;
	}
	inflight = n - reaped;
	t0 = (t1 - t0) / NSEC_PER_MSEC;
	t1 = wsx_test_now_ns();
	close(fd);
	t1 = wsx_test_now_ns() - t1;
	after = wsx_test_global_stat("cancelled");
	grew = after - before;
	printf("# %ld SPIN(%llu ns) queued in %llu ms; %ld finished before close(), which took %llu ms with %ld in flight; cancelled grew by %lld\n",
	       n, (unsigned long long)ns, (unsigned long long)t0, reaped,
	       (unsigned long long)t1 / NSEC_PER_MSEC, inflight, grew);
	if (t1 >= 60 * NSEC_PER_SEC) {
		printf("# close() took over 60 s\n");
		bad = 1;
	}
	/* at most what was in flight; at least that minus what can finish
	 * in the instant between the last WAIT and close()
	 */
	if (grew > inflight || grew < inflight - 1000 || grew <= 0) {
		printf("# cancelled grew by %lld, want %ld (-1000 .. 0)\n", grew,
		       inflight);
		bad = 1;
	}
	return bad;
}

/* The mix of busy(): request @i of the batch starting at @id. */
static struct wsx_req busy_req(__u64 id, int i, const unsigned char *buf,
			       size_t len)
{
	__u64 u = id + i;

	switch (i % 6) {
	case 0:
		return wsx_test_req(WSX_OP_SPIN, u, 0, 0, 10 * NSEC_PER_MSEC,
				    0, 0);
	case 1:
		return wsx_test_req(WSX_OP_SLEEP, u, 2, 0, 100000, 0, 0);
	case 2:
		return wsx_test_req(WSX_OP_FIB, u, 0, 0, 22, 0, 0);
	case 3:
		return wsx_test_req(WSX_OP_SPAWN, u, 2, 0, 4, 6, 100000);
	case 4:
		return wsx_test_req(WSX_OP_CRC32C, u, 0, 0,
				    (uintptr_t)buf + i, len - 64, 4096);
	default:
		return wsx_test_req(WSX_OP_NOP, u, 0, 0, 0, 0, 0);
	}
}

/*
 * Keep the mix in flight forever, through WSX_IOC_SUBMIT and WAIT, or with
 * @rings through the shared rings.
 */
static int busy(const char *ready, bool rings)
{
	size_t len = 8 << 20;
	unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wsx_req reqs[64];
	struct wsx_tring t;
	bool told = false;
	int fd = wsx_test_open();
	long ret;

	if (fd < 0 || buf == MAP_FAILED ||
	    (rings && wsx_tring_setup(&t, fd, 64, 256)))
		return 1;
	memset(buf, 0x5a, len);
	for (__u64 id = 0;; id += 64) {
		bool queued;

		for (int i = 0; i < 64; i++)
			reqs[i] = busy_req(id, i, buf, len);
		if (rings) {
			for (int i = 0; i < 64 && wsx_tring_push(&t, &reqs[i]);
			     i++)
				;
			ret = wsx_tring_enter(&t, 64, 1, 100 * NSEC_PER_MSEC,
					      NULL);
			queued = ret == 0 || ret == -ETIMEDOUT;
			wsx_tring_reap(&t, 0, NULL, NULL);
		} else {
			ret = wsx_test_submit(fd, reqs, 64, NULL);
			if (ret < 0 && ret != -EAGAIN)
				return 1;
			queued = ret > 0;
			ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1,
					    100 * NSEC_PER_MSEC);
		}
		if (ret < 0 && ret != -ETIMEDOUT)
			return 1;
		if (queued && !told) {
			if (touch(ready))
				return 1;
			told = true;
		}
	}
}

static int hold(const char *ready)
{
	struct wsx_req req = wsx_test_req(WSX_OP_SLEEP, 1, 0, 0,
					  WSX_SLEEP_MAX_US, 0, 0);
	int fd = wsx_test_open();

	if (fd < 0 || wsx_test_submit(fd, &req, 1, NULL) != 1 || touch(ready))
		return 1;
	for (;;)
		pause();
}

/* One of the multi processes: its own session, its own N items. */
static int multi_child(int go, long n)
{
	__u64 me = getpid();
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	unsigned char *seen = calloc(n, 1);
	long sent = 0, got = 0, foreign = 0, dups = 0, bad = 0, missing = 0;
	int fd, nprocs;
	char c;
	long ret;

	if (!reqs || !seen || read(go, &c, 1) != 1)
		return 2;
	fd = wsx_test_open();
	nprocs = fd < 0 ? fd : wsx_test_nprocs(fd);
	if (nprocs <= 0)
		return 2;
	for (long i = 0; i < n; i++) {
		__u64 u = me << 32 | i;
		__u16 place = i % 3;
		__u32 target = place == WSX_PLACE_P ? (i + me) % nprocs : 0;

		switch (i % 8) {
		case 0:
			reqs[i] = wsx_test_req(WSX_OP_SPIN, u, place, target,
					       20000, 0, 0);
			break;
		case 1:
			reqs[i] = wsx_test_req(WSX_OP_FIB, u, place, target,
					       8, 0, 0);
			break;
		case 2:
			reqs[i] = wsx_test_req(WSX_OP_SPAWN, u, place, target,
					       2, 2, 0);
			break;
		default:
			reqs[i] = wsx_test_req(WSX_OP_NOP, u, place, target,
					       0, 0, 0);
		}
	}
	while (got < n) {
		while (sent < n) {
			long batch = n - sent > 512 ? 512 : n - sent;

			ret = wsx_test_submit(fd, reqs + sent, batch, NULL);
			if (ret == -EAGAIN)
				break;
			if (ret < 0)
				return 2;
			sent += ret;
		}
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1,
				    60 * NSEC_PER_SEC);
		if (ret < 0) {
			printf("# pid %llu: WAIT %ld after %ld of %ld\n",
			       (unsigned long long)me, ret, got, n);
			return 1;
		}
		for (long k = 0; k < ret; k++) {
			__u64 u = recs[k].user_data, i = u & 0xffffffff;

			if (u >> 32 != me || i >= (__u64)n)
				foreign++;
			else if (seen[i]++)
				dups++;
			else if (recs[k].status ||
				 recs[k].result != (i % 8 == 1 ? 21 :
						    i % 8 == 2 ? 7 : 0))
				bad++;
		}
		got += ret;
	}
	ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 0, 0);
	if (ret)
		foreign += ret;
	for (long i = 0; i < n; i++)
		missing += !seen[i];
	close(fd);
	if (foreign || dups || bad || missing) {
		printf("# pid %llu: %ld foreign, %ld twice, %ld wrong, %ld missing of %ld\n",
		       (unsigned long long)me, foreign, dups, bad, missing, n);
		return 1;
	}
	return 0;
}

static int multi(int procs, long n)
{
	int go[2], failed = 0;
	pid_t *pids = calloc(procs, sizeof(*pids));
	__u64 t0;

	if (!pids || pipe(go))
		return 1;
	fflush(NULL);
	for (int p = 0; p < procs; p++) {
		pids[p] = fork();
		if (pids[p] < 0)
			return 1;
		if (!pids[p]) {
			close(go[1]);
			_exit(multi_child(go[0], n));
		}
	}
	close(go[0]);
	t0 = wsx_test_now_ns();
	/* all start at once */
	for (int p = 0; p < procs; p++) {
		if (write(go[1], "g", 1) != 1)
			return 1;
	}
	close(go[1]);
	for (int p = 0; p < procs; p++) {
		int status = 0;

		if (waitpid(pids[p], &status, 0) != pids[p] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# process %d (pid %d): status %#x\n", p, pids[p],
			       status);
			failed++;
		}
	}
	printf("# %d processes x %ld items, each got exactly its own: %s (%llu ms)\n",
	       procs, n, failed ? "no" : "yes",
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC);
	return failed ? 1 : 0;
}

/* N parked POLLs, then wait for a SIGKILL. */
static int polls(long n, const char *ready)
{
	long nfds = n, rings = n / 4 > 1024 ? 1024 : n / 4, sent = 0, ret;
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	int *efds = calloc(n, sizeof(*efds));
	struct wsx_tring t;
	struct wsx_enter e;
	struct rlimit rl;
	int fd;

	if (!reqs || !efds || n < 4 || getrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	if (rl.rlim_cur < (rlim_t)n + 64) {
		struct rlimit want = { n + 64, rl.rlim_max };

		if (want.rlim_max < want.rlim_cur)
			want.rlim_max = want.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &want)) {
			nfds = rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64;
			printf("# RLIMIT_NOFILE stays %llu: %ld eventfds, shared\n",
			       (unsigned long long)rl.rlim_cur, nfds);
		}
	}
	for (long i = 0; i < nfds; i++) {
		efds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efds[i] < 0) {
			printf("# eventfd %ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	fd = wsx_test_open();
	if (fd < 0) {
		printf("# open: %s\n", strerror(-fd));
		return 1;
	}
	for (long i = 0; i < n; i++)
		reqs[i] = wsx_test_req(WSX_OP_POLL, i, i % 3, 0,
				       efds[i % nfds], EPOLLIN,
				       i % 3 == 1 ? WSX_DELAY_MAX_NS : 0);
	/* WSX_PLACE_P (1) on P 0, which every module has */
	ret = wsx_tring_setup(&t, fd, 1024, 2048);
	if (ret) {
		printf("# RING_SETUP: %s\n", strerror(-ret));
		return 1;
	}
	for (long i = 0; i < rings; i++)
		if (!wsx_tring_push(&t, &reqs[i]))
			return 1;
	ret = wsx_tring_enter(&t, rings, 0, 0, &e);
	if (ret || e.submitted != rings) {
		printf("# ENTER of %ld POLLs: %ld, %u consumed, error %d\n",
		       rings, ret, e.submitted, e.error);
		return 1;
	}
	for (sent = rings; sent < n;) {
		long batch = n - sent > WSX_SUBMIT_MAX ? WSX_SUBMIT_MAX :
			     n - sent;

		ret = wsx_test_submit(fd, reqs + sent, batch, NULL);
		if (ret <= 0) {
			printf("# SUBMIT after %ld POLLs: %s\n", sent,
			       ret ? strerror(-ret) : "none queued");
			return 1;
		}
		sent += ret;
	}
	/* none may end: a refused one would say so in a record */
	ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1, 200 * NSEC_PER_MSEC);
	if (ret != -ETIMEDOUT || wsx_tring_ready(&t)) {
		printf("# %ld POLLs ended before any write (WAIT %ld, first status %d), %u records in the CQ\n",
		       ret > 0 ? ret : 0, ret, ret > 0 ? recs[0].status : 0,
		       wsx_tring_ready(&t));
		return 1;
	}
	printf("# %ld POLLs parked on %ld eventfds, %ld through the rings\n",
	       n, nfds, rings);
	fflush(stdout);
	if (touch(ready))
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "close-queued"))
		return close_queued(strtol(argv[2], NULL, 0),
				    strtoull(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "busy"))
		return busy(argv[2], false);
	if (argc == 3 && !strcmp(argv[1], "busy-rings"))
		return busy(argv[2], true);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "multi"))
		return multi(atoi(argv[2]), strtol(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "polls"))
		return polls(strtol(argv[2], NULL, 0), argv[3]);
	fprintf(stderr, "usage: %s close-queued N NS | busy READYFILE | busy-rings READYFILE | hold READYFILE | multi P N | polls N READYFILE\n",
		argv[0]);
	return 2;
}
