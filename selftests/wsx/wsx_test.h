/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the C selftests of wsx: raw ioctls on /dev/wsx
 * (the tests exercise the ABI itself, not libwsx) and reads of the debugfs
 * statistics.
 */
#ifndef _WSX_TEST_H
#define _WSX_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/wsx.h>

/*
 * The harness runs each case in a child that leaves with _exit(), which
 * drops what stdio still holds: a case's ksft_print_msg() lines reach a
 * log that is a pipe or a file only if stdout goes out at each line
 * (scripts/test-case-output checks it).
 */
__attribute__((constructor)) static void wsx_test_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Open /dev/wsx read-write; -errno on failure. */
static inline int wsx_test_open(void)
{
	int fd = open(WSX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ioctl() that returns -errno instead of -1. */
static inline long wsx_test_ioctl(int fd, unsigned long cmd, void *arg)
{
	long ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* Read a whole debugfs file of wsx into buf (NUL-terminated); -errno. */
static inline int wsx_test_read_debugfs(const char *name, char *buf,
					size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", WSX_DEBUGFS_PATH, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

/* A request for @op with @args (zero-filled), placed as asked. */
static inline struct wsx_req wsx_test_req(__u32 op, __u64 user_data,
					  __u16 place, __u32 target,
					  __u64 a0, __u64 a1, __u64 a2)
{
	struct wsx_req req;

	memset(&req, 0, sizeof(req));
	req.op = op;
	req.user_data = user_data;
	req.place = place;
	req.target = target;
	req.args[0] = a0;
	req.args[1] = a1;
	req.args[2] = a2;
	return req;
}

/* One WSX_IOC_SUBMIT call; returns what the ioctl returns (or -errno). */
static inline long wsx_test_submit(int fd, struct wsx_req *reqs, __u32 n,
				   struct wsx_submit *out)
{
	struct wsx_submit sub;

	memset(&sub, 0, sizeof(sub));
	sub.items = (uintptr_t)reqs;
	sub.count = n;
	long ret = wsx_test_ioctl(fd, WSX_IOC_SUBMIT, &sub);

	if (out)
		*out = sub;
	return ret;
}

/* One WSX_IOC_WAIT call; returns records copied or -errno. */
static inline long wsx_test_wait(int fd, struct wsx_completion *recs,
				 __u32 max, __u32 min, __s64 timeout_ns)
{
	struct wsx_wait w;

	memset(&w, 0, sizeof(w));
	w.records = (uintptr_t)recs;
	w.max = max;
	w.min = min;
	w.timeout_ns = timeout_ns;
	return wsx_test_ioctl(fd, WSX_IOC_WAIT, &w);
}

/*
 * Per-record callback of wsx_test_run(); return false to fail the run.
 */
typedef bool (*wsx_test_rec_fn)(const struct wsx_completion *rec, void *ctx);

/*
 * Submit all @n requests (in batches, draining completions whenever the
 * in-flight limit answers EAGAIN) and wait for all @n completions, calling
 * @fn on each.  Returns 0, or -errno of the first failure (-ETIMEDOUT when
 * no completion arrived for @stall_ns).
 */
static inline int wsx_test_run(int fd, struct wsx_req *reqs, size_t n,
			       wsx_test_rec_fn fn, void *ctx, __s64 stall_ns)
{
	static struct wsx_completion recs[WSX_WAIT_MAX];
	size_t sent = 0, done = 0;
	long ret;

	while (done < n) {
		while (sent < n) {
			__u32 batch = n - sent > 256 ? 256 : n - sent;

			ret = wsx_test_submit(fd, reqs + sent, batch, NULL);
			if (ret == -EAGAIN)
				break;
			if (ret < 0)
				return ret;
			sent += ret;
		}
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1, stall_ns);
		if (ret < 0)
			return ret;
		for (long i = 0; i < ret; i++)
			if (fn && !fn(&recs[i], ctx))
				return -EBADMSG;
		done += ret;
	}
	return 0;
}

struct wsx_test_collect_ctx {
	struct wsx_completion *recs;
	size_t n;
};

static inline bool wsx_test_collect_one(const struct wsx_completion *rec,
					void *arg)
{
	struct wsx_test_collect_ctx *ctx = arg;

	if (rec->user_data >= ctx->n)
		return false;
	ctx->recs[rec->user_data] = *rec;
	return true;
}

/*
 * Run @n requests whose user_data are 0 .. n-1 and store each completion
 * at recs[user_data].  Returns 0 or -errno.  The 100 s bound only catches
 * a hang (callers' tests allow 120 s): fib(25)'s 242,785 items took over 30 s
 * on the KASAN kernel with four VMs on the two-core host.
 */
static inline int wsx_test_collect(int fd, struct wsx_req *reqs, size_t n,
				   struct wsx_completion *recs)
{
	struct wsx_test_collect_ctx ctx = { recs, n };

	memset(recs, 0, n * sizeof(*recs));
	return wsx_test_run(fd, reqs, n, wsx_test_collect_one, &ctx,
			    100LL * 1000000000);
}

/* Open the module parameter file of @name with @flags; fd or -errno. */
static inline int wsx_test_param_open(const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/module/wsx/parameters/%s", name);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The module parameter @name as text in @buf; -errno. */
static inline int wsx_test_param(const char *name, char *buf, size_t len)
{
	int fd = wsx_test_param_open(name, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

/*
 * The value of @key on the line of P @p (-1: the "global" line) of the
 * debugfs stats text @text; -1 when absent.
 */
static inline long long wsx_test_stat(const char *text, int p,
				      const char *key)
{
	char head[32], pat[64];
	const char *line = text, *end, *hit;

	if (p < 0)
		snprintf(head, sizeof(head), "global ");
	else
		snprintf(head, sizeof(head), "P%d ", p);
	snprintf(pat, sizeof(pat), " %s=", key);
	while (line && *line) {
		end = strchr(line, '\n');
		if (!strncmp(line, head, strlen(head))) {
			hit = strstr(line, pat);
			if (hit && (!end || hit < end))
				return strtoll(hit + strlen(pat), NULL, 10);
			return -1;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

/* Sum of @key over all @nprocs P lines. */
static inline long long wsx_test_stat_sum(const char *text, int nprocs,
					  const char *key)
{
	long long sum = 0;

	for (int p = 0; p < nprocs; p++)
		sum += wsx_test_stat(text, p, key);
	return sum;
}

/* Number of Ps of the loaded module (WSX_IOC_VERSION), or -errno. */
static inline int wsx_test_nprocs(int fd)
{
	struct wsx_version v;
	long ret = wsx_test_ioctl(fd, WSX_IOC_VERSION, &v);

	return ret < 0 ? (int)ret : (int)v.nprocs;
}

/* WSX_SCALE: how much slower this kernel is (the debug kernels: 8), >= 1 */
static inline long wsx_test_scale(void)
{
	const char *env = getenv("WSX_SCALE");
	long div = env ? strtol(env, NULL, 10) : 1;

	return div > 1 ? div : 1;
}

/*
 * Scale a test's size down on slow kernels: WSX_SCALE (wsx_test_scale())
 * divides @n, keeping at least @min.
 */
static inline size_t wsx_test_scaled(size_t n, size_t min)
{
	n /= wsx_test_scale();
	return n < min ? min : n;
}

/* ---- added for the ABI, fuzz, poll, session and CRC32C tests ---- */

#include <time.h>

/* CLOCK_MONOTONIC in ns, the clock of the completion records. */
static inline __u64 wsx_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Write @val to the file @path (sysfs, procfs, debugfs); 0 or -errno. */
static inline int wsx_test_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * The fault points of a WSX_DEBUG build (kmod/fault.h): does the module
 * have them, set one's delay in microseconds (0 or -errno), read how often
 * it was passed with a delay (-1 when it cannot).
 */
#define WSX_TEST_FAULT_DIR	"/sys/kernel/debug/wsx/fault"

static inline bool wsx_test_have_faults(void)
{
	return !access(WSX_TEST_FAULT_DIR, F_OK);
}

static inline int wsx_test_fault_set(const char *name, const char *us)
{
	char path[128];

	snprintf(path, sizeof(path), WSX_TEST_FAULT_DIR "/%s", name);
	return wsx_test_write_file(path, us);
}

/*
 * A number from the WSX_DEBUG build's /sys/kernel/debug/wsx/DIR/NAME (fault,
 * watermark, count: kmod/fault.h); -1 when it cannot be read.
 */
static inline long wsx_test_debug_number(const char *dir, const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/wsx/%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 10);
}

static inline long wsx_test_fault_hits(const char *name)
{
	char hits[96];

	snprintf(hits, sizeof(hits), "%s_hits", name);
	return wsx_test_debug_number("fault", hits);
}

/* A whole file into a malloc'ed, NUL-terminated buffer; NULL on error. */
static inline char *wsx_test_read_all(const char *path, size_t *len_out)
{
	size_t len = 0, size = 1 << 16;
	char *buf = malloc(size), *p;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (size - len < 4096) {
			p = realloc(buf, size * 2);
			if (!p)
				break;
			buf = p;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

/*
 * tracefs: where it is mounted with @rel (e.g. "events/wsx/enable")
 * writable under it, or NULL; write @val to, or read all of, @file under
 * @dir (the root or an instance's folder).
 */
static inline const char *wsx_test_tracefs(const char *rel)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char path[256];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", roots[i], rel);
		if (!access(path, W_OK))
			return roots[i];
	}
	return NULL;
}

static inline int wsx_test_tracefs_set(const char *dir, const char *file,
				       const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return wsx_test_write_file(path, val);
}

static inline char *wsx_test_tracefs_get(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return wsx_test_read_all(path, NULL);
}

/*
 * The header of a trace's text: *@written events were written, *@in_buffer
 * of them are still there (fewer: the buffer overflowed); -1 without it.
 */
static inline int wsx_test_trace_entries(const char *text,
					 unsigned long long *in_buffer,
					 unsigned long long *written)
{
	static const char key[] = "entries-in-buffer/entries-written:";
	const char *e = strstr(text, key);

	if (!e || sscanf(e + strlen(key), " %llu/%llu", in_buffer,
			 written) != 2)
		return -1;
	return 0;
}

/* Write @val to the module parameter @name; 0 or -errno. */
static inline int wsx_test_param_set(const char *name, const char *val)
{
	int fd = wsx_test_param_open(name, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* The "global" line's @key of the debugfs stats (e.g. "cancelled"); -1. */
static inline long long wsx_test_global_stat(const char *key)
{
	static char text[1 << 16];

	if (wsx_test_read_debugfs("stats", text, sizeof(text)) <= 0)
		return -1;
	return wsx_test_stat(text, -1, key);
}

/*
 * Reap completions until @n arrived or none came for @stall_ns, calling
 * @fn (may be NULL) on each.  Returns how many arrived, or -errno of a
 * failed WAIT other than the final -ETIMEDOUT.
 */
static inline long wsx_test_reap(int fd, size_t n, wsx_test_rec_fn fn,
				 void *ctx, __s64 stall_ns)
{
	static struct wsx_completion recs[WSX_WAIT_MAX];
	size_t done = 0;
	long ret;

	while (done < n) {
		ret = wsx_test_wait(fd, recs, WSX_WAIT_MAX, 1, stall_ns);
		if (ret == -ETIMEDOUT)
			break;
		if (ret < 0)
			return ret;
		for (long i = 0; i < ret; i++)
			if (fn)
				fn(&recs[i], ctx);
		done += ret;
	}
	return (long)done;
}

/*
 * Runs as a non-root member of the group wsx, the packages' way of giving
 * /dev/wsx to users (root:wsx 0660, udev's 60-wsx.rules).  A guest without
 * udev has the node the module makes, root's 0600: as root,
 * wsx_test_group_device() gives it to the group (wsx of /etc/group when
 * there is one, as check-deb's guest has, else the gid WSX_TEST_GID), mode
 * 0660, and keeps what it was for wsx_test_restore_device().  A child then
 * calls wsx_test_become_member(): the uid WSX_TEST_UID, its own primary
 * group, the group of the node as its one supplementary group (as
 * `adduser USER wsx` leaves a user), no way back to root.
 */
#define WSX_TEST_UID	4242
#define WSX_TEST_GID	4243

struct wsx_test_node {
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

/* 0, the node's old owner in *@saved and the group in *@gid; or -errno. */
static inline int wsx_test_group_device(struct wsx_test_node *saved,
					gid_t *gid)
{
	const struct group *gr = getgrnam("wsx");
	struct stat sb;

	if (geteuid())
		return -EPERM;
	if (stat(WSX_DEVICE_PATH, &sb))
		return -errno;
	*saved = (struct wsx_test_node){ sb.st_uid, sb.st_gid,
					 sb.st_mode & 07777 };
	*gid = gr ? gr->gr_gid : WSX_TEST_GID;
	if (chown(WSX_DEVICE_PATH, 0, *gid) || chmod(WSX_DEVICE_PATH, 0660))
		return -errno;
	return 0;
}

static inline int wsx_test_restore_device(const struct wsx_test_node *saved)
{
	if (chown(WSX_DEVICE_PATH, saved->uid, saved->gid) ||
	    chmod(WSX_DEVICE_PATH, saved->mode))
		return -errno;
	return 0;
}

/*
 * Drops to WSX_TEST_UID, a member of @gid; 0, or -errno after saying on
 * stderr which step failed (also when root could be had back).
 */
static inline int wsx_test_become_member(gid_t gid)
{
	gid_t groups[1] = { gid };
	const char *step = NULL;

	if (setgroups(1, groups))
		step = "setgroups";
	else if (setgid(WSX_TEST_UID))
		step = "setgid";
	else if (setuid(WSX_TEST_UID))
		step = "setuid";
	else if (!setuid(0) || !geteuid())
		step = "root could be had back";
	if (!step)
		return 0;
	fprintf(stderr, "# becoming uid %d in group %u: %s: %s\n",
		WSX_TEST_UID, (unsigned int)gid, step, strerror(errno));
	return errno ? -errno : -EPERM;
}

#endif /* _WSX_TEST_H */
