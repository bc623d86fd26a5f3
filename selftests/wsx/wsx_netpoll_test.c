// SPDX-License-Identifier: GPL-2.0
/*
 * WSX_OP_POLL (ABI 1.3), the netpoller: an item that waits for a file
 * descriptor to become ready, parked on the file's wait queue.  Every
 * refusal at submission (a closed, O_PATH or over INT_MAX descriptor
 * -EBADF; every file but a unix, IPv4, IPv6, netlink or packet socket, a
 * pipe or FIFO, or an eventfd, such as a regular file, a /dev/wsx file, a
 * timerfd, /dev/null, an epoll file or an AF_XDP socket, -EOPNOTSUPP; bad
 * events, args[3] -EINVAL, a timeout over
 * WSX_DELAY_MAX_NS -E2BIG) and every status of the record (-ETIME at the
 * timeout, -EOPNOTSUPP for a file that waits on two queues, -EAGAIN
 * beyond max_parked, -ECANCELED at close); a ready file completes at
 * once, with max_parked full too (a POLL counts from its first wait), and
 * sockets of the families a POLL takes are; 10,000 POLLs on as many eventfds wait holding
 * no kernel thread (the schedtrace line's waiting and threads) and each
 * ends exactly once, after its own write, in a random order; close() of
 * a session with 10,000 parked POLLs within 1 s, nothing left behind (the
 * files held let go, the waiting count back); a POLL holds its file (the
 * descriptor closed meanwhile ends nothing); one write readies every POLL
 * of the file; a pipe's hang-up; both doors (a POLL in the SQ, consumed
 * by WSX_IOC_ENTER only, never picked up by an M).
 *
 * Sizes are divided by WSX_SCALE (wsx_test_scaled()).  The schedtrace
 * cases skip, saying why, without a readable debugfs, and the 10,000
 * cases when RLIMIT_NOFILE cannot be raised for their descriptors;
 * before they count the Ms they let earlier tests' spare Ms exit
 * (m_bound()).  Every parameter a case changes is restored by the
 * fixture's teardown, also after a failed ASSERT.
 */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>

#include "../kselftest_harness.h"
#include "wsx_parked.h"
#include "wsx_rings.h"

/* The events WSX_OP_POLL takes (uapi/linux/wsx.h); any other bit -EINVAL. */
#define POLL_EVENTS	((__u64)(__u32)(EPOLLIN | EPOLLPRI | EPOLLOUT | \
					EPOLLRDNORM | EPOLLRDBAND | \
					EPOLLWRNORM | EPOLLWRBAND | \
					EPOLLMSG | EPOLLRDHUP | EPOLLERR | \
					EPOLLHUP))

/* ---- helpers ------------------------------------------------------------ */

static struct wsx_req poll_req(__u64 ud, __u64 fd, __u64 events,
			       __u64 timeout_ns)
{
	return wsx_test_req(WSX_OP_POLL, ud, WSX_PLACE_LOCAL, 0, fd, events,
			    timeout_ns);
}

/* One record, waiting at most @timeout_ns: 1, or -errno of the WAIT. */
static long wait_one(int fd, struct wsx_completion *rec, __s64 timeout_ns)
{
	return wsx_test_wait(fd, rec, 1, 1, timeout_ns);
}

/*
 * One record of @fd within @timeout_ns (ASSERTed), the POLL @ud's, with
 * @status; status 0 with one of @events in its result, another status
 * with result 0.  The record, for what the case checks besides.
 */
static struct wsx_completion ended(struct __test_metadata *_metadata, int fd,
				   __u64 ud, int status, __u64 events,
				   __s64 timeout_ns)
{
	struct wsx_completion rec;

	ASSERT_EQ(1, wait_one(fd, &rec, timeout_ns));
	EXPECT_EQ(ud, rec.user_data);
	EXPECT_EQ(status, rec.status);
	if (status) {
		EXPECT_EQ(0U, rec.result);
	} else {
		EXPECT_TRUE(rec.result & events)
			TH_LOG("record %llu: result %#llx, %#llx expected",
			       (unsigned long long)ud,
			       (unsigned long long)rec.result,
			       (unsigned long long)events);
	}
	return rec;
}

/* A new eventfd, its count 0: fd or -errno. */
static int new_efd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

/* Add 1 to the count of eventfd @efd: 0 or -errno. */
static int efd_write(int efd)
{
	__u64 one = 1;

	return write(efd, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

/*
 * A descriptor number that was open and is closed now, high enough (512
 * or above) that the case's later opens, which take the lowest free
 * number, do not reuse it: fd or -errno.
 */
static int closed_fd(void)
{
	int efd = new_efd(), fd;

	if (efd < 0)
		return efd;
	fd = fcntl(efd, F_DUPFD_CLOEXEC, 512);
	if (fd < 0)
		fd = -errno;
	else
		close(fd);
	close(efd);
	return fd;
}

/* @n new eventfds into @efds: 0 or -errno (those opened stay open). */
static int open_efds(int *efds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		efds[i] = new_efd();
		if (efds[i] < 0)
			return efds[i];
	}
	return 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* RLIMIT_NOFILE to at least @need (the hard limit too, as root): -errno. */
static int raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}

/*
 * Write one byte into the write end @wr of a pipe until the write fails
 * with EPIPE (no reader is left), for up to @timeout_ns: the file of the
 * read end is let go (its last reference dropped: an fput() from a kernel
 * thread is deferred).  0, or the errno of another failure, or
 * -ETIMEDOUT.  Bytes written meanwhile fill the pipe (O_NONBLOCK: EAGAIN,
 * tried again).
 */
static int reader_gone(int wr, __s64 timeout_ns)
{
	__u64 end = wsx_test_now_ns() + timeout_ns;

	for (;;) {
		if (write(wr, "x", 1) < 0 && errno != EAGAIN)
			return errno == EPIPE ? 0 : -errno;
		if (wsx_test_now_ns() > end)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

/* WSX_IOC_CHAN_CREATE of an unbuffered channel; 0 or -errno. */
static long chan_create(int fd, __u32 *id)
{
	struct wsx_chan_create cc = { .cap = 0 };
	long ret = wsx_test_ioctl(fd, WSX_IOC_CHAN_CREATE, &cc);

	if (!ret)
		*id = cc.id;
	return ret;
}

static long chan_close(int fd, __u32 id)
{
	return wsx_test_ioctl(fd, WSX_IOC_CHAN_CLOSE, &id);
}

/* ---- the fixture -------------------------------------------------------- */

static const char *const params[] = { "max_parked", "max_inflight",
				      "idle_thread_ms" };
#define NPARAMS	ARRAY_SIZE(params)

#define INSTANCE	"instances/wsx_netpoll"
#define END_ENABLE	"events/wsx/wsx_item_end/enable"

FIXTURE(netpoll) {
	int fd;
	int nprocs;
	struct parked_params saved;
	char dir[64];		/* scratch: a regular file, a FIFO */
	char inst[128];		/* a tracefs instance, "" until made */
};

FIXTURE_SETUP(netpoll)
{
	self->inst[0] = '\0';
	snprintf(self->dir, sizeof(self->dir), "/tmp/wsx_netpoll.XXXXXX");
	/* a write to a pipe whose reader is gone: EPIPE, not death */
	signal(SIGPIPE, SIG_IGN);
	if (parked_setup(_metadata, &self->fd, &self->nprocs, &self->saved,
			 params, NPARAMS))
		SKIP(return, "/dev/wsx missing: load wsx.ko first");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

/* Every parameter back as it was, also after a failed ASSERT. */
FIXTURE_TEARDOWN(netpoll)
{
	char path[96];

	parked_teardown(self->fd, &self->saved);
	if (self->inst[0])
		rmdir(self->inst);
	if (wsx_test_have_faults())
		wsx_test_fault_set("poll_before_giveback", "0");
	snprintf(path, sizeof(path), "%s/file", self->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo", self->dir);
	unlink(path);
	rmdir(self->dir);
}

/*
 * A socket of a family a POLL does not take (wsx_poll_socket_ok()), the
 * first the kernel makes: AF_XDP (built into the test kernels, as root),
 * vsock, AF_ALG, TIPC (modules).  Its fd, or -1.
 */
static int refused_family_socket(void)
{
	static const int kinds[][2] = {
		{ AF_XDP, SOCK_RAW }, { AF_VSOCK, SOCK_STREAM },
		{ AF_ALG, SOCK_SEQPACKET }, { AF_TIPC, SOCK_RDM },
	};
	int fd = -1;

	for (size_t i = 0; fd < 0 && i < ARRAY_SIZE(kinds); i++)
		fd = socket(kinds[i][0], kinds[i][1] | SOCK_CLOEXEC, 0);
	return fd;
}

/* A regular file of the scratch folder, opened read-write: fd or -errno. */
static int regular_file(const char *dir)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, "data\n", 5) != 5) {
		close(fd);
		return -EIO;
	}
	return fd;
}

/* ---- refused at submission ---------------------------------------------- */

/*
 * The files a POLL cannot wait on, each refused by WSX_IOC_SUBMIT with no
 * record: a descriptor the submitter has not (closed, never opened, or
 * over INT_MAX, also one whose low 32 bits are an open descriptor, and an
 * O_PATH one, which fget() does not take) -EBADF; every file but a unix,
 * IPv4, IPv6, netlink or packet socket, a pipe or FIFO, or an eventfd
 * (wsx_poll_file_ok()) -EOPNOTSUPP: a regular file (no poll), a /dev/wsx
 * file (the session's own, a read-only one, another session's), files
 * that poll but are not on the list, a timerfd, /dev/null and an epoll
 * file, and a socket of another family (AF_XDP, built into the test
 * kernels, or the first of vsock, AF_ALG, TIPC the kernel makes; logged
 * when none).  Sockets of the families taken, a unix socket pair's end, a
 * UDP one, a netlink one and (as root) a packet one, are taken: writable,
 * each ends at once with EPOLLOUT.  A batch stops at the first refused
 * one.
 */
TEST_F(netpoll, bad_files_refused)
{
	struct wsx_completion rec;
	struct wsx_submit out;
	struct wsx_req three[3];
	int efd, closed, reg, fd2, ro, path, sv[2], other;
	int others[3], nothers = 0, taken[4], ntaken = 0;

	efd = new_efd();
	ASSERT_LE(0, efd);
	closed = closed_fd();
	ASSERT_LE(0, closed);
	EXPECT_EQ(-EBADF, submit_one(self->fd,
				     poll_req(1, closed, EPOLLIN, 0)));
	EXPECT_EQ(-EBADF, submit_one(self->fd,
				     poll_req(1, 0x7fffffffULL, EPOLLIN, 0)));
	EXPECT_EQ(-EBADF, submit_one(self->fd,
				     poll_req(1, 0x80000000ULL, EPOLLIN, 0)));
	EXPECT_EQ(-EBADF, submit_one(self->fd,
				     poll_req(1, 1ULL << 32 | efd, EPOLLOUT,
					      0)));
	EXPECT_EQ(-EBADF, submit_one(self->fd, poll_req(1, ~0ULL, EPOLLIN, 0)));
	EXPECT_EQ(-EBADF, submit_one(self->fd,
				     poll_req(1, 0xffffffffULL, EPOLLIN, 0)));
	path = open(self->dir, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, path);
	EXPECT_EQ(-EBADF, submit_one(self->fd, poll_req(1, path, EPOLLIN, 0)));
	close(path);

	reg = regular_file(self->dir);
	ASSERT_LE(0, reg);
	EXPECT_EQ(-EOPNOTSUPP, submit_one(self->fd,
					  poll_req(1, reg, EPOLLIN, 0)));
	EXPECT_EQ(-EOPNOTSUPP, submit_one(self->fd,
					  poll_req(1, reg, EPOLLOUT, 0)));
	/* the session's own /dev/wsx, which it would keep from release */
	EXPECT_EQ(-EOPNOTSUPP, submit_one(self->fd,
					  poll_req(1, self->fd, EPOLLIN, 0)));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EOPNOTSUPP, submit_one(self->fd,
					  poll_req(1, fd2, EPOLLIN, 0)));
	EXPECT_EQ(-EOPNOTSUPP, submit_one(fd2,
					  poll_req(1, self->fd, EPOLLIN, 0)));
	ro = open(WSX_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EOPNOTSUPP, submit_one(self->fd,
					  poll_req(1, ro, EPOLLIN, 0)));
	close(ro);
	close(fd2);
	/* they poll, but their poll may sleep or look at the caller's M */
	others[nothers++] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	others[nothers++] = open("/dev/null", O_RDWR | O_CLOEXEC);
	others[nothers++] = epoll_create1(EPOLL_CLOEXEC);
	for (int i = 0; i < nothers; i++) {
		ASSERT_LE(0, others[i]) TH_LOG("file %d: %s", i,
					       strerror(errno));
		EXPECT_EQ(-EOPNOTSUPP,
			  submit_one(self->fd, poll_req(1, others[i],
							EPOLLIN | EPOLLOUT,
							0)))
			TH_LOG("file %d (timerfd, /dev/null, epoll)", i);
		close(others[i]);
	}

	/* a socket of another family: its poll may sleep (vsock's) */
	other = refused_family_socket();
	if (other >= 0) {
		EXPECT_EQ(-EOPNOTSUPP,
			  submit_one(self->fd, poll_req(1, other, EPOLLIN, 0)));
		close(other);
	} else {
		TH_LOG("no socket of a family a POLL refuses could be made");
	}

	/*
	 * sockets of the families taken, writable at once; none in a kernel
	 * without networking (the debug kernels' config)
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		TH_LOG("no sockets (%s): the families taken are not tried",
		       strerror(errno));
		sv[1] = -1;
		goto batch;
	}
	taken[ntaken++] = sv[0];
	taken[ntaken++] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	taken[ntaken++] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				 NETLINK_ROUTE);
	if (!geteuid())
		taken[ntaken++] = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC,
					 0);
	for (int i = 0; i < ntaken; i++) {
		ASSERT_LE(0, taken[i]) TH_LOG("socket %d: %s", i,
					      strerror(errno));
		ASSERT_EQ(0, submit_one(self->fd,
					poll_req(2 + i, taken[i], EPOLLOUT, 0)));
		ended(_metadata, self->fd, 2 + i, 0, EPOLLOUT,
		      10 * NSEC_PER_SEC);
		close(taken[i]);
	}
	close(sv[1]);

batch:
	/* a batch: the first queued, the closed descriptor refuses the rest */
	three[0] = poll_req(7, efd, EPOLLOUT, 0);
	three[1] = poll_req(8, closed, EPOLLOUT, 0);
	three[2] = poll_req(9, efd, EPOLLOUT, 0);
	EXPECT_EQ(1, wsx_test_submit(self->fd, three, 3, &out));
	EXPECT_EQ(1U, out.queued);
	EXPECT_EQ(-EBADF, out.error);
	ended(_metadata, self->fd, 7, 0, EPOLLOUT, 10 * NSEC_PER_SEC);
	/* and nothing else came: the refused ones have no record */
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	close(reg);
	close(efd);
}

/*
 * Bad arguments: events 0, or with any bit outside the eleven the module
 * takes (EPOLLET, EPOLLONESHOT, EPOLLWAKEUP, EPOLLEXCLUSIVE, POLLNVAL, a
 * bit over 32), args[3] not zero -EINVAL; a timeout over WSX_DELAY_MAX_NS
 * -E2BIG.  Each of the eleven is taken (with EPOLLOUT, ready at once on
 * an eventfd, so that each ends), and WSX_DELAY_MAX_NS too.
 */
TEST_F(netpoll, bad_arguments_refused)
{
	struct wsx_completion recs[64];
	int efd = new_efd(), good = 0, done = 0, wrong = 0;
	struct wsx_req r;
	long ret;

	ASSERT_LE(0, efd);
	EXPECT_EQ(-EINVAL, submit_one(self->fd, poll_req(1, efd, 0, 0)));
	EXPECT_EQ(-EINVAL, submit_one(self->fd, poll_req(1, efd, 0, 1000)));
	for (int b = 0; b < 64; b++) {
		__u64 bit = 1ULL << b;
		long alone, with;

		if (bit & POLL_EVENTS)
			continue;
		alone = submit_one(self->fd, poll_req(1, efd, bit, 0));
		with = submit_one(self->fd, poll_req(1, efd, bit | EPOLLOUT,
						     0));
		if ((alone != -EINVAL || with != -EINVAL) && wrong++ < 4)
			TH_LOG("events bit %d: %ld alone, %ld with EPOLLOUT",
			       b, alone, with);
	}
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(-EINVAL, submit_one(self->fd,
				      poll_req(1, efd, EPOLLIN | POLLNVAL, 0)));
	EXPECT_EQ(-EINVAL, submit_one(self->fd,
				      poll_req(1, efd,
					       (__u32)(EPOLLIN | EPOLLET), 0)));
	r = poll_req(1, efd, EPOLLOUT, 0);
	r.args[3] = 1;
	EXPECT_EQ(-EINVAL, submit_one(self->fd, r));
	r.args[3] = 1ULL << 63;
	EXPECT_EQ(-EINVAL, submit_one(self->fd, r));
	EXPECT_EQ(-E2BIG, submit_one(self->fd,
				     poll_req(1, efd, EPOLLOUT,
					      WSX_DELAY_MAX_NS + 1)));
	EXPECT_EQ(-E2BIG, submit_one(self->fd,
				     poll_req(1, efd, EPOLLOUT, ~0ULL)));

	/* what is taken: every event with EPOLLOUT, the longest timeout */
	wrong = 0;
	for (int b = 0; b < 64; b++) {
		__u64 bit = 1ULL << b;

		if (!(bit & POLL_EVENTS))
			continue;
		ret = submit_one(self->fd, poll_req(100 + b, efd,
						    bit | EPOLLOUT,
						    WSX_DELAY_MAX_NS));
		if (!ret)
			good++;
		else if (wrong++ < 4)
			TH_LOG("events bit %d refused: %ld", b, ret);
	}
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(11, good);
	ret = submit_one(self->fd, poll_req(200, efd, POLL_EVENTS, 0));
	EXPECT_EQ(0, ret);
	good += !ret;
	while (done < good) {
		ret = wsx_test_wait(self->fd, recs, 64, good - done,
				    10 * NSEC_PER_SEC);
		ASSERT_LT(0, ret) TH_LOG("%d of %d records", done, good);
		for (long i = 0; i < ret; i++) {
			EXPECT_LE(100U, recs[i].user_data);
			EXPECT_EQ(0, recs[i].status);
			EXPECT_TRUE(recs[i].result & EPOLLOUT)
				TH_LOG("record %llu: result %#llx",
				       (unsigned long long)recs[i].user_data,
				       (unsigned long long)recs[i].result);
		}
		done += ret;
	}
	EXPECT_EQ(good, done);
	/* the refused ones have no record */
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, recs, 100 * NSEC_PER_MSEC));
	close(efd);
}

/* ---- what ends a POLL --------------------------------------------------- */

/*
 * A POLL on an eventfd nothing writes, with a 100 ms timeout: status
 * -ETIME, result 0, at least 100 ms after it was submitted (the record's
 * finished_ns, and the clock when it came); a write after it readies
 * nothing (no second record).  A POLL written to before its timeout ends
 * with status 0 and EPOLLIN, and its timeout then ends nothing.
 */
TEST_F_TIMEOUT(netpoll, timeout_gives_etime, 60)
{
	const __s64 timeout = 100 * NSEC_PER_MSEC;
	struct wsx_completion rec;
	int efd = new_efd(), efd2 = new_efd();
	__u64 t0, now;

	ASSERT_LE(0, efd);
	ASSERT_LE(0, efd2);
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, efd, EPOLLIN, timeout)));
	ASSERT_EQ(1, wait_one(self->fd, &rec, 10 * NSEC_PER_SEC));
	now = wsx_test_now_ns();
	EXPECT_EQ(1U, rec.user_data);
	EXPECT_EQ(-ETIME, rec.status);
	EXPECT_EQ(0U, rec.result);
	EXPECT_LE(t0 + timeout, rec.finished_ns)
		TH_LOG("ended %lld ns after its submission",
		       (long long)(rec.finished_ns - t0));
	EXPECT_LE(t0 + timeout, now);
	TH_LOG("a %lld ms timeout ended the POLL after %llu us", timeout /
	       NSEC_PER_MSEC, (unsigned long long)(rec.finished_ns - t0) / 1000);
	ASSERT_EQ(0, efd_write(efd));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC));

	/* ready before its (longest) timeout */
	ASSERT_EQ(0, submit_one(self->fd, poll_req(2, efd2, EPOLLIN,
						   WSX_DELAY_MAX_NS)));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, efd_write(efd2));
	ended(_metadata, self->fd, 2, 0, EPOLLIN, 5 * NSEC_PER_SEC);
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC));
	close(efd);
	close(efd2);
}

/*
 * A file ready when the POLL is submitted: it ends at once (no timeout:
 * a POLL that waited would never end) with the events in its result:
 * EPOLLIN of an eventfd whose count is not 0 (which the POLL leaves as
 * it was: it reads nothing), EPOLLOUT of any eventfd and of a pipe's
 * write end; neither EPOLLERR nor EPOLLHUP.  And a ready file with the
 * longest timeout: status 0, well before it.
 */
TEST_F(netpoll, ready_file_completes_at_once)
{
	struct wsx_completion rec;
	int efd = new_efd(), efd2 = new_efd(), p[2];
	__u64 count = 0;

	ASSERT_LE(0, efd);
	ASSERT_LE(0, efd2);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK));
	ASSERT_EQ(0, efd_write(efd));
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, efd, EPOLLIN, 0)));
	rec = ended(_metadata, self->fd, 1, 0, EPOLLIN, 10 * NSEC_PER_SEC);
	EXPECT_FALSE(rec.result & (EPOLLERR | EPOLLHUP));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_EQ(1U, count);

	ASSERT_EQ(0, submit_one(self->fd, poll_req(2, efd2, EPOLLOUT, 0)));
	rec = ended(_metadata, self->fd, 2, 0, EPOLLOUT, 10 * NSEC_PER_SEC);
	EXPECT_FALSE(rec.result & (EPOLLERR | EPOLLHUP));

	ASSERT_EQ(0, submit_one(self->fd, poll_req(3, p[1], EPOLLOUT, 0)));
	ended(_metadata, self->fd, 3, 0, EPOLLOUT, 10 * NSEC_PER_SEC);

	ASSERT_EQ(0, submit_one(self->fd, poll_req(4, efd2, EPOLLOUT,
						   WSX_DELAY_MAX_NS)));
	ended(_metadata, self->fd, 4, 0, EPOLLOUT, 5 * NSEC_PER_SEC);
	close(p[0]);
	close(p[1]);
	close(efd);
	close(efd2);
}

/*
 * A FIFO opened read-write waits on two queues (pipe_poll() waits on
 * the readers' and the writers'): a POLL that has to wait on it ends
 * with status -EOPNOTSUPP, result 0.
 */
TEST_F(netpoll, two_queues_give_eopnotsupp)
{
	char path[96];
	int ff;

	snprintf(path, sizeof(path), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(path, 0600));
	ff = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, ff);
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, ff, EPOLLIN, 0)));
	ended(_metadata, self->fd, 1, -EOPNOTSUPP, 0, 10 * NSEC_PER_SEC);
	close(ff);
}

/*
 * A pipe's read end (one queue) polled for EPOLLIN | EPOLLRDHUP: it waits
 * while the pipe is empty, and closing the write end ends it with
 * EPOLLHUP in the result.
 */
TEST_F(netpoll, pipe_hangup_gives_epollhup)
{
	struct wsx_completion rec;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK));
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, p[0],
						   EPOLLIN | EPOLLRDHUP, 0)));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	close(p[1]);
	ended(_metadata, self->fd, 1, 0, EPOLLHUP, 10 * NSEC_PER_SEC);
	close(p[0]);
}

/*
 * The POLL holds its file: closing the descriptor while it waits ends
 * nothing.  An eventfd's descriptor closed (and its number perhaps taken
 * by a new eventfd, whose write is not the polled file's): a write
 * through a dup()ed descriptor ends it.  A pipe's read end closed: the
 * pipe still has a reader (a write succeeds), which ends the POLL; once
 * it has ended, the file is let go (a write then fails with EPIPE).
 */
TEST_F(netpoll, closing_the_fd_ends_nothing)
{
	struct wsx_completion rec;
	int efd = new_efd(), dup_efd, other, p[2];

	ASSERT_LE(0, efd);
	dup_efd = dup(efd);
	ASSERT_LE(0, dup_efd);
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, efd, EPOLLIN, 0)));
	ASSERT_EQ(0, close(efd));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC));
	other = new_efd();	/* the lowest free number: efd's, likely */
	ASSERT_LE(0, other);
	ASSERT_EQ(0, efd_write(other));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC))
		TH_LOG("a write to a new eventfd (fd %d, the polled one was %d) ended the POLL",
		       other, efd);
	ASSERT_EQ(0, efd_write(dup_efd));
	ended(_metadata, self->fd, 1, 0, EPOLLIN, 10 * NSEC_PER_SEC);

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK));
	ASSERT_EQ(0, submit_one(self->fd, poll_req(2, p[0], EPOLLIN, 0)));
	ASSERT_EQ(0, close(p[0]));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC));
	/* the POLL's file is a reader: no EPIPE */
	ASSERT_EQ(1, write(p[1], "x", 1)) TH_LOG("write: %s", strerror(errno));
	ended(_metadata, self->fd, 2, 0, EPOLLIN, 10 * NSEC_PER_SEC);
	/* ended, it lets the read end go */
	EXPECT_EQ(0, reader_gone(p[1], 5 * NSEC_PER_SEC));
	close(p[1]);
	close(dup_efd);
	close(other);
}

/*
 * Two POLLs of one session and one of another on the same eventfd, each
 * placed elsewhere: one write ends all three, each with EPOLLIN.
 */
TEST_F(netpoll, one_write_readies_every_poll_of_the_file)
{
	struct wsx_completion recs[2];
	struct wsx_req r;
	int efd = new_efd(), fd2;

	ASSERT_LE(0, efd);
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	r = poll_req(1, efd, EPOLLIN, 0);
	ASSERT_EQ(0, submit_one(self->fd, r));
	r = poll_req(2, efd, EPOLLIN, 0);
	r.place = WSX_PLACE_GLOBAL;
	ASSERT_EQ(0, submit_one(self->fd, r));
	r = poll_req(3, efd, EPOLLIN | EPOLLRDNORM, 0);
	r.place = WSX_PLACE_P;
	r.target = self->nprocs - 1;
	ASSERT_EQ(0, submit_one(fd2, r));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, recs, 100 * NSEC_PER_MSEC));
	EXPECT_EQ(-ETIMEDOUT, wait_one(fd2, recs, 100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, efd_write(efd));
	ASSERT_EQ(2, wsx_test_wait(self->fd, recs, 2, 2, 10 * NSEC_PER_SEC));
	EXPECT_EQ(3U, recs[0].user_data + recs[1].user_data);
	EXPECT_NE(recs[0].user_data, recs[1].user_data);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(0, recs[i].status);
		EXPECT_TRUE(recs[i].result & EPOLLIN);
	}
	ended(_metadata, fd2, 3, 0, EPOLLIN, 10 * NSEC_PER_SEC);
	EXPECT_EQ(0, wsx_test_wait(self->fd, recs, 2, 0, 0));
	close(fd2);
	close(efd);
}

/* ---- 10,000 parked ------------------------------------------------------- */

/*
 * 10,000 (scaled) POLLs on as many eventfds, over every place, all wait
 * (the schedtrace line's waiting counts them) while the Ms stay at one
 * per P and two spare.  Then the eventfds are written in a random order,
 * one at a time or a few (up to 8) together, and each group's records
 * awaited before the next: every POLL ends exactly once, after its own
 * write (no record of a file not written yet), status 0 and EPOLLIN;
 * waiting is back where it was.
 */
TEST_F_TIMEOUT(netpoll, ten_thousand_polls_one_write_each, 280)
{
	size_t k = wsx_test_scaled(10000, 1000), written = 0, done = 0;
	size_t early = 0, dups = 0, bad = 0, missing = 0, groups = 0;
	long threads, waiting0, waiting, max_threads = 0, bound, samples = 0;
	struct wsx_completion *got = calloc(WSX_WAIT_MAX, sizeof(*got));
	struct wsx_req *reqs = calloc(k, sizeof(*reqs));
	int *efds = calloc(k, sizeof(*efds));
	size_t *order = calloc(k, sizeof(*order));
	unsigned char *is_written = calloc(k, 1), *seen = calloc(k, 1);
	unsigned int seed = (unsigned int)wsx_test_now_ns();
	struct wsx_completion rec;
	__u64 t0;
	long n;
	int ret;

	ASSERT_TRUE(got && reqs && efds && order && is_written && seen);
	if (sched_sample(&threads, &waiting0))
		SKIP(return, "no schedtrace in debugfs: waiting and threads unreadable");
	ret = raise_nofile(k + 64);
	if (ret)
		SKIP(return, "RLIMIT_NOFILE not raised to %zu: %s", k + 64,
		     strerror(-ret));
	ASSERT_EQ(0, open_efds(efds, k));
	bound = m_bound(_metadata, self->nprocs);
	for (size_t i = 0; i < k; i++) {
		reqs[i] = poll_req(i, efds[i], EPOLLIN, 0);
		place_by(&reqs[i], i, self->nprocs);
	}
	t0 = wsx_test_now_ns();
	/* none ends without a write */
	park_all(_metadata, self->fd, reqs, k, waiting0, bound, &max_threads,
		 &waiting);
	TH_LOG("%zu POLLs parked in %llu ms: waiting=%ld, at most %ld Ms (bound %ld)",
	       k, (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC,
	       waiting, max_threads, bound);

	/* a random order (Fisher-Yates), its seed told */
	TH_LOG("write order: seed %u", seed);
	for (size_t i = 0; i < k; i++)
		order[i] = i;
	for (size_t i = k - 1; i > 0; i--) {
		size_t j = rand_r(&seed) % (i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	t0 = wsx_test_now_ns();
	while (written < k) {
		size_t g = 1 + rand_r(&seed) % 8;

		if (g > k - written)
			g = k - written;
		for (size_t j = 0; j < g; j++) {
			size_t i = order[written++];

			is_written[i] = 1;
			ASSERT_EQ(0, efd_write(efds[i]));
		}
		groups++;
		/* the group's records, and none of a file not written */
		while (done < written) {
			n = wsx_test_wait(self->fd, got, WSX_WAIT_MAX,
					  written - done, 10 * NSEC_PER_SEC);
			ASSERT_LT(0, n) TH_LOG("%zu of %zu written POLLs ended: WAIT %ld",
					       done, written, n);
			for (long r = 0; r < n; r++) {
				__u64 ud = got[r].user_data;

				if (ud >= k) {
					bad++;
					continue;
				}
				if (!is_written[ud])
					early++;
				if (seen[ud]++)
					dups++;
				if (got[r].status || !(got[r].result & EPOLLIN))
					bad++;
			}
			done += n;
		}
		if (groups % 64 == 0 && !sched_sample(&threads, &waiting)) {
			samples++;
			if (threads > max_threads)
				max_threads = threads;
		}
	}
	TH_LOG("%zu writes in %zu groups, each's records awaited: %llu ms; at most %ld Ms in %ld samples",
	       k, groups,
	       (unsigned long long)(wsx_test_now_ns() - t0) / NSEC_PER_MSEC,
	       max_threads, samples);
	for (size_t i = 0; i < k; i++)
		missing += !seen[i];
	EXPECT_EQ(0, early);
	EXPECT_EQ(0, dups);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, missing);
	EXPECT_EQ(k, done);
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	EXPECT_GE(bound, max_threads);
	EXPECT_EQ(0, wait_for_waiting_below(waiting0, 5 * NSEC_PER_SEC,
					    &waiting))
		TH_LOG("waiting=%ld, was %ld", waiting, waiting0);
	close_fds(efds, k);
	free(got);
	free(reqs);
	free(efds);
	free(order);
	free(is_written);
	free(seen);
}

#define PROBES	16

/*
 * close() of a session with 10,000 (scaled) POLLs waiting (a quarter of
 * them with the longest timeout, their timers armed) returns within 1 s;
 * then nothing is left of them: waiting back where it was, the stats'
 * cancelled grown by exactly their number (each ended, -ECANCELED, not
 * at its timeout), the files they held let go (16 of them pipes' read
 * ends whose descriptors were closed: a write then fails with EPIPE), no
 * in-flight count (with max_inflight at exactly that many, a new session
 * queues as many items at once).
 */
TEST_F_TIMEOUT(netpoll, close_with_parked_polls, 200)
{
	size_t k = wsx_test_scaled(10000, 1000), n;
	long threads, waiting0, waiting;
	long long cancelled0, cancelled = -1;
	struct wsx_req *reqs;
	int *efds, wr[PROBES];
	int fd2, ret;
	__u64 end;

	n = k + PROBES;
	reqs = calloc(n, sizeof(*reqs));
	efds = calloc(k, sizeof(*efds));
	ASSERT_TRUE(reqs && efds);
	if (sched_sample(&threads, &waiting0))
		SKIP(return, "no schedtrace in debugfs: waiting unreadable");
	ret = raise_nofile(k + 2 * PROBES + 64);
	if (ret)
		SKIP(return, "RLIMIT_NOFILE not raised to %zu: %s",
		     k + 2 * PROBES + 64, strerror(-ret));
	cancelled0 = wsx_test_global_stat("cancelled");
	ASSERT_EQ(0, open_efds(efds, k));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	for (size_t i = 0; i < k; i++) {
		reqs[i] = poll_req(i, efds[i], EPOLLIN,
				   i % 4 ? 0 : WSX_DELAY_MAX_NS);
		place_by(&reqs[i], i, self->nprocs);
	}
	for (int p = 0; p < PROBES; p++) {
		int pp[2];

		ASSERT_EQ(0, pipe2(pp, O_CLOEXEC | O_NONBLOCK));
		reqs[k + p] = poll_req(k + p, pp[0], EPOLLIN, 0);
		wr[p] = pp[1];
		ASSERT_EQ(0, submit_one(fd2, reqs[k + p]));
		close(pp[0]);	/* the POLL holds the read end */
	}
	close_parked(_metadata, fd2, reqs, n, PROBES, waiting0);
	EXPECT_EQ(0, wait_for_waiting_below(waiting0, 5 * NSEC_PER_SEC,
					    &waiting))
		TH_LOG("waiting=%ld, was %ld", waiting, waiting0);
	if (cancelled0 >= 0) {
		end = wsx_test_now_ns() + 5 * NSEC_PER_SEC;
		do {
			cancelled = wsx_test_global_stat("cancelled");
			if (cancelled - cancelled0 >= (long long)n)
				break;
			usleep(10000);
		} while (wsx_test_now_ns() < end);
		EXPECT_EQ((long long)n, cancelled - cancelled0);
	} else {
		TH_LOG("no cancelled= in the stats: not counted");
	}
	for (int p = 0; p < PROBES; p++) {
		EXPECT_EQ(0, reader_gone(wr[p], 5 * NSEC_PER_SEC))
			TH_LOG("the read end of probe %d still held", p);
		close(wr[p]);
	}

	no_inflight_left(_metadata, reqs, n);
	close_fds(efds, k);
	free(reqs);
	free(efds);
}

/*
 * The status a close() gives: the event wsx:wsx_item_end, traced in a
 * tracefs instance of the case's own while a session with 16 POLLs
 * waiting (half with a timeout) is closed, says status=-ECANCELED for
 * each of them.
 */
TEST_F_TIMEOUT(netpoll, close_ends_polls_with_ecanceled, 60)
{
	const char *root = wsx_test_tracefs(END_ENABLE);
	struct wsx_req reqs[16];
	struct wsx_completion rec;
	int efds[16], fd2, hits = 0;
	unsigned long long in_buffer, written;
	char pat[32], *text;
	const char *at;
	__u64 end;

	if (!root)
		SKIP(return, "no tracefs with the event wsx/wsx_item_end");
	snprintf(self->inst, sizeof(self->inst), "%s/" INSTANCE, root);
	rmdir(self->inst);	/* left by a run cut short */
	ASSERT_EQ(0, mkdir(self->inst, 0700)) {
		TH_LOG("mkdir %s: %s", self->inst, strerror(errno));
		self->inst[0] = '\0';
	}
	ASSERT_EQ(0, open_efds(efds, 16));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	for (int i = 0; i < 16; i++) {
		reqs[i] = poll_req(i, efds[i], EPOLLIN,
				   i % 2 ? WSX_DELAY_MAX_NS : 0);
		place_by(&reqs[i], i, self->nprocs);
	}
	ASSERT_EQ(0, submit_all(fd2, reqs, 16));
	/* parked: none ends, and their runs that parked them are over */
	EXPECT_EQ(-ETIMEDOUT, wait_one(fd2, &rec, 300 * NSEC_PER_MSEC));
	ASSERT_EQ(0, wsx_test_tracefs_set(self->inst, END_ENABLE, "1"));
	ASSERT_EQ(0, close(fd2));
	snprintf(pat, sizeof(pat), "status=%d", -ECANCELED);
	end = wsx_test_now_ns() + 5 * NSEC_PER_SEC;
	do {
		text = wsx_test_tracefs_get(self->inst, "trace");
		ASSERT_NE(NULL, text);
		hits = 0;
		for (at = strstr(text, pat); at; at = strstr(at + 1, pat))
			hits++;
		if (hits >= 16 || wsx_test_now_ns() > end)
			break;
		free(text);
		usleep(50000);
	} while (true);
	ASSERT_EQ(0, wsx_test_tracefs_set(self->inst, END_ENABLE, "0"));
	ASSERT_EQ(0, wsx_test_trace_entries(text, &in_buffer, &written));
	EXPECT_EQ(written, in_buffer) TH_LOG("the trace buffer overflowed");
	TH_LOG("%d of 16 items ended with %s in %llu traced events", hits, pat,
	       written);
	EXPECT_EQ(16, hits);
	free(text);
	close_fds(efds, 16);
}

/* ---- max_parked ---------------------------------------------------------- */

/* The POLLs max_parked refused, and those ended (by user_data, below 20). */
struct polls_ended {
	unsigned char refused[20], ended[20];
};

/*
 * records_ok()'s test of a record of a POLL that waited: not refused,
 * ended once, status 0 with EPOLLIN.
 */
static bool waited_and_ended_once(const struct wsx_completion *rec,
				  void *arg)
{
	struct polls_ended *pe = arg;
	__u64 ud = rec->user_data;

	return ud < 20 && !pe->refused[ud] && !pe->ended[ud]++ &&
	       !rec->status && (rec->result & EPOLLIN);
}

/*
 * max_parked lowered to 10 at run time: of 20 POLLs on 20 eventfds
 * nothing has written, 10 wait and exactly the 10 others end at once
 * with -EAGAIN, result 0.  With the 10 waiting, a POLL of a ready file
 * still ends with its events: it counts only from its first wait.  The
 * count is the session's: another session parks its own 10.  Writing all
 * 20 ends the 10 that waited, each once, EPOLLIN, none of those refused.
 */
TEST_F_TIMEOUT(netpoll, max_parked_gives_eagain, 60)
{
	struct polls_ended pe = { 0 };
	struct wsx_completion recs[20], rec;
	struct wsx_req reqs[20];
	int efds[20], fd2;

	ASSERT_EQ(0, wsx_test_param_set("max_parked", "10"));
	ASSERT_EQ(0, open_efds(efds, 20));
	for (int i = 0; i < 20; i++)
		reqs[i] = poll_req(i, efds[i], EPOLLIN, 0);
	half_refused(_metadata, self->fd, self->nprocs, reqs, pe.refused);
	/* max_parked is full, yet a writable eventfd's POLL ends */
	ASSERT_EQ(0, submit_one(self->fd, poll_req(50, efds[0], EPOLLOUT, 0)));
	ended(_metadata, self->fd, 50, 0, EPOLLOUT, 10 * NSEC_PER_SEC);

	/* another session: its own 10 */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	for (int i = 0; i < 10; i++)
		reqs[i] = poll_req(100 + i, efds[i], EPOLLIN, 0);
	ASSERT_EQ(10, wsx_test_submit(fd2, reqs, 10, NULL));
	EXPECT_EQ(-ETIMEDOUT, wait_one(fd2, &rec, 200 * NSEC_PER_MSEC));
	close(fd2);

	for (int i = 0; i < 20; i++)
		ASSERT_EQ(0, efd_write(efds[i]));
	ASSERT_EQ(10, wsx_test_wait(self->fd, recs, 20, 10,
				    10 * NSEC_PER_SEC));
	EXPECT_EQ(10, records_ok(_metadata, recs, 10, waited_and_ended_once,
				 &pe));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	close_fds(efds, 20);
}

/*
 * POLLs and the parked SEND and RECV of a session count together against
 * max_parked: with 6 RECVs waiting on an empty channel and max_parked at
 * 10, of 10 POLLs exactly 6 end with -EAGAIN and 4 wait (they end at
 * their writes); the RECVs end -ENODATA when the channel is closed.
 */
TEST_F_TIMEOUT(netpoll, max_parked_counts_recvs_too, 60)
{
	struct wsx_completion recs[16], rec;
	struct wsx_req reqs[10];
	long threads, waiting, base, most = 0, ret;
	int efds[10], eagain = 0, ok = 0, enodata = 0;
	__u32 c;

	ASSERT_EQ(0, wsx_test_param_set("max_parked", "10"));
	ASSERT_EQ(0, chan_create(self->fd, &c));
	for (int i = 0; i < 6; i++) {
		reqs[i] = wsx_test_req(WSX_OP_RECV, 50 + i, WSX_PLACE_LOCAL, 0,
				       c, 1, 0);
		place_by(&reqs[i], i, self->nprocs);
	}
	if (!sched_sample(&threads, &base)) {
		ASSERT_EQ(0, submit_all(self->fd, reqs, 6));
		ASSERT_EQ(0, wait_for_waiting(base + 6, 30 * NSEC_PER_SEC,
					      &threads, &waiting, &most));
	} else {
		ASSERT_EQ(0, submit_all(self->fd, reqs, 6));
		EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec,
					       500 * NSEC_PER_MSEC));
	}
	ASSERT_EQ(0, open_efds(efds, 10));
	for (int i = 0; i < 10; i++) {
		reqs[i] = poll_req(i, efds[i], EPOLLIN, 0);
		place_by(&reqs[i], i, self->nprocs);
	}
	ASSERT_EQ(10, wsx_test_submit(self->fd, reqs, 10, NULL));
	ret = wsx_test_wait(self->fd, recs, 16, 6, 30 * NSEC_PER_SEC);
	ASSERT_EQ(6, ret);
	for (int i = 0; i < 6; i++)
		eagain += recs[i].user_data < 10 && recs[i].status == -EAGAIN &&
			  !recs[i].result;
	EXPECT_EQ(6, eagain);
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 200 * NSEC_PER_MSEC));
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(0, efd_write(efds[i]));
	ASSERT_EQ(4, wsx_test_wait(self->fd, recs, 16, 4, 10 * NSEC_PER_SEC));
	for (int i = 0; i < 4; i++)
		ok += recs[i].user_data < 10 && !recs[i].status &&
		      (recs[i].result & EPOLLIN);
	EXPECT_EQ(4, ok);
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	ASSERT_EQ(0, chan_close(self->fd, c));
	ASSERT_EQ(6, wsx_test_wait(self->fd, recs, 16, 6, 10 * NSEC_PER_SEC));
	for (int i = 0; i < 6; i++)
		enodata += recs[i].user_data >= 50 &&
			   recs[i].status == -ENODATA;
	EXPECT_EQ(6, enodata);
	close_fds(efds, 10);
}

/* ---- the rings ----------------------------------------------------------- */

/*
 * Both doors: POLLs in the SQ, consumed by WSX_IOC_ENTER (the descriptor
 * is the caller's).  Those refused are answered by a CQ record with the
 * errno WSX_IOC_SUBMIT returns (-EBADF, -EOPNOTSUPP, -EINVAL, -E2BIG); one
 * with a 50 ms timeout ends -ETIME; one on an eventfd waits (ENTER times
 * out waiting for it) until a write, which also ends a POLL of the same
 * eventfd submitted by WSX_IOC_SUBMIT, each record in its own door.
 */
TEST_F_TIMEOUT(netpoll, through_the_rings, 60)
{
	static const int want[] = { 0, -EBADF, -EOPNOTSUPP, -EOPNOTSUPP,
				    -EINVAL, -EINVAL, -E2BIG, -EBADF, -ETIME };
	const int nsq = ARRAY_SIZE(want);
	struct ring_recs got;
	struct wsx_completion rec;
	struct wsx_req sq[ARRAY_SIZE(want)];
	struct wsx_enter e;
	struct wsx_tring t;
	int efd = new_efd(), efd2 = new_efd(), closed = closed_fd(), reg;
	long ret, have = 0;
	__u64 end;

	ASSERT_LE(0, efd);
	ASSERT_LE(0, efd2);
	ASSERT_LE(0, closed);
	reg = regular_file(self->dir);
	ASSERT_LE(0, reg);
	ASSERT_EQ(0, wsx_tring_setup(&t, self->fd, 16, 32));
	memset(&got, 0, sizeof(got));
	sq[0] = poll_req(0, efd, EPOLLIN, 0);
	sq[0].flags = WSX_REQ_TIMESTAMPS;
	sq[1] = poll_req(1, closed, EPOLLIN, 0);
	sq[2] = poll_req(2, reg, EPOLLIN, 0);
	sq[3] = poll_req(3, self->fd, EPOLLIN, 0);
	sq[4] = poll_req(4, efd, 0, 0);
	sq[5] = poll_req(5, efd, EPOLLIN, 0);
	sq[5].args[3] = 1;
	sq[6] = poll_req(6, efd, EPOLLIN, WSX_DELAY_MAX_NS + 1);
	sq[7] = poll_req(7, 1ULL << 32 | efd, EPOLLIN, 0);
	sq[8] = poll_req(8, efd2, EPOLLIN, 50 * NSEC_PER_MSEC);
	for (int i = 0; i < nsq; i++)
		ASSERT_TRUE(wsx_tring_push(&t, &sq[i]));
	/* the ioctl door's POLL of the same eventfd */
	ASSERT_EQ(0, submit_one(self->fd, poll_req(100, efd, EPOLLIN, 0)));
	/* all but the first end: refused, or at the timeout */
	ret = wsx_tring_enter(&t, nsq, nsq - 1, 10 * NSEC_PER_SEC, &e);
	ASSERT_EQ(0, ret);
	EXPECT_EQ((__u32)nsq, e.submitted);
	EXPECT_EQ(0, e.error);
	EXPECT_EQ(0U, wsx_tring_unsubmitted(&t));
	ret = wsx_tring_reap(&t, 0, ring_store, &got);
	ASSERT_EQ(nsq - 1, ret);
	EXPECT_EQ(0, got.bad);
	EXPECT_FALSE(got.seen[0]);
	for (int i = 1; i < nsq; i++) {
		EXPECT_TRUE(got.seen[i]);
		EXPECT_EQ(want[i], got.recs[i].status) TH_LOG("SQ entry %d", i);
		EXPECT_EQ(0U, got.recs[i].result);
	}
	/* the first waits, and so does the ioctl's */
	EXPECT_EQ(-ETIMEDOUT, wsx_tring_enter(&t, 0, 1, 100 * NSEC_PER_MSEC,
					      NULL));
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 1));
	ASSERT_EQ(0, efd_write(efd));
	end = wsx_test_now_ns() + 10 * NSEC_PER_SEC;
	while (!have && wsx_test_now_ns() < end) {
		ret = wsx_tring_enter(&t, 0, 1, 10 * NSEC_PER_SEC, NULL);
		ASSERT_EQ(0, ret);
		have = wsx_tring_reap(&t, 0, ring_store, &got);
	}
	ASSERT_EQ(1, have);
	EXPECT_TRUE(got.seen[0]);
	EXPECT_EQ(0, got.recs[0].status);
	EXPECT_TRUE(got.recs[0].result & EPOLLIN);
	EXPECT_NE(0U, got.recs[0].finished_ns);
	EXPECT_EQ(0, got.bad);
	ended(_metadata, self->fd, 100, 0, EPOLLIN, 10 * NSEC_PER_SEC);
	/* nothing else, in either door */
	EXPECT_EQ(-ETIMEDOUT, wait_one(self->fd, &rec, 100 * NSEC_PER_MSEC));
	EXPECT_EQ(0U, wsx_tring_ready(&t));
	wsx_tring_unmap(&t);
	close(reg);
	close(efd);
	close(efd2);
}

/*
 * With WSX_RING_SQ_PICKUP a POLL in the SQ is left to WSX_IOC_ENTER: the
 * Ms, running out of work after 64 NOPs of the ioctl door, do not consume
 * it (the SQ head stays, no record) and WSX_SQ_NEED_ENTER is set; an
 * ENTER then consumes it and it ends (its eventfd was ready: an M that
 * took it would have ended it too).
 */
TEST_F_TIMEOUT(netpoll, pickup_leaves_polls_to_enter, 60)
{
	struct wsx_req nops[64], r;
	struct wsx_completion rec;
	struct ring_recs got;
	struct wsx_enter e;
	struct wsx_tring t;
	int efd = new_efd(), fd2;

	ASSERT_LE(0, efd);
	ASSERT_EQ(0, efd_write(efd));
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd2, 8, 16,
					   WSX_RING_SQ_PICKUP));
	memset(&got, 0, sizeof(got));
	r = poll_req(1, efd, EPOLLIN, 0);
	ASSERT_TRUE(wsx_tring_push(&t, &r));
	for (int i = 0; i < 64; i++) {
		nops[i] = wsx_test_req(WSX_OP_NOP, 1000 + i, WSX_PLACE_LOCAL,
				       0, 0, 0, 0);
		place_by(&nops[i], i, self->nprocs);
	}
	ASSERT_EQ(0, submit_all(fd2, nops, 64));
	EXPECT_EQ(64, wsx_test_reap(fd2, 64, NULL, NULL, 10 * NSEC_PER_SEC));
	usleep(200000);
	EXPECT_EQ(1U, wsx_tring_unsubmitted(&t));
	EXPECT_EQ(0U, wsx_tring_ready(&t));
	EXPECT_FALSE(wsx_tring_picked_up(&t));
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 1, 10 * NSEC_PER_SEC, &e));
	EXPECT_EQ(1U, e.submitted);
	ASSERT_EQ(1, wsx_tring_reap(&t, 0, ring_store, &got));
	EXPECT_TRUE(got.seen[1]);
	EXPECT_EQ(0, got.recs[1].status);
	EXPECT_TRUE(got.recs[1].result & EPOLLIN);
	EXPECT_EQ(0, wsx_test_wait(fd2, &rec, 1, 0, 0));
	wsx_tring_unmap(&t);
	close(fd2);
	close(efd);
}

/*
 * A wake that counts while the owner looks (models/netpoll.pml,
 * BUG_ARM_LOST's window): the fault point poll_before_giveback holds the
 * arming item between its look (nothing yet) and the give-back of its
 * ownership for 300 ms, and the eventfd is written meanwhile.  The wake
 * only counts (the item is owned); the give-back must see that count and
 * the owner look again (the count poll_looked_again), else the item stays
 * parked with its event and no record comes.  Only in a WSX_DEBUG build,
 * whose fault points make the window wide enough to hit every time.
 */
TEST_F_TIMEOUT(netpoll, a_wake_while_the_owner_looks, 60)
{
	struct wsx_completion rec;
	long hits0, again0;
	int efd, i;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a WSX_DEBUG build has them");
	efd = new_efd();
	ASSERT_LE(0, efd);
	hits0 = wsx_test_fault_hits("poll_before_giveback");
	again0 = wsx_test_debug_number("count", "poll_looked_again");
	ASSERT_LE(0, hits0);
	ASSERT_LE(0, again0);
	ASSERT_EQ(0, wsx_test_fault_set("poll_before_giveback", "300000"));
	ASSERT_EQ(0, submit_one(self->fd, poll_req(1, efd, EPOLLIN, 0)));
	/* the hit is counted before the delay: the owner is in the window */
	for (i = 0; i < 5000 &&
	     wsx_test_fault_hits("poll_before_giveback") == hits0; i++)
		usleep(1000);
	ASSERT_LT(hits0, wsx_test_fault_hits("poll_before_giveback"));
	ASSERT_EQ(0, efd_write(efd));
	ASSERT_EQ(0, wsx_test_fault_set("poll_before_giveback", "0"));
	ASSERT_EQ(1, wait_one(self->fd, &rec, 10 * NSEC_PER_SEC))
		TH_LOG("the POLL stayed parked with its event: a wake counted while its owner looked was lost");
	EXPECT_EQ(1U, rec.user_data);
	EXPECT_EQ(0, rec.status);
	EXPECT_TRUE(rec.result & EPOLLIN);
	EXPECT_LT(again0, wsx_test_debug_number("count", "poll_looked_again"));
	TH_LOG("owner looked again %ld time(s)",
	       wsx_test_debug_number("count", "poll_looked_again") - again0);
	close(efd);
}

TEST_HARNESS_MAIN
