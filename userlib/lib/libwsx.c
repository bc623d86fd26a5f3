/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libwsx: sessions on /dev/wsx and the ioctls that drive them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <wsx/libwsx.h>

_Static_assert(sizeof(struct wsx_version) == 32, "wsx_version ABI size");
_Static_assert(sizeof(struct wsx_req) == 64, "wsx_req ABI size");
_Static_assert(sizeof(struct wsx_submit) == 32, "wsx_submit ABI size");
_Static_assert(sizeof(struct wsx_completion) == 64, "wsx_completion ABI size");
_Static_assert(sizeof(struct wsx_wait) == 40, "wsx_wait ABI size");
_Static_assert(sizeof(struct wsx_chan_create) == 16,
	       "wsx_chan_create ABI size");

struct wsx {
	int fd;
	struct wsx_version version;	/* as of wsx_open(); never changes */
};

/* ioctl(2) returning its result or -errno. */
static int wsx_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

static const char *device_path(void)
{
	const char *path = secure_getenv("WSX_DEVICE");

	return path && *path ? path : WSX_DEVICE_PATH;
}

static int check_version(const struct wsx_version *v)
{
	if (v->abi_major != WSX_ABI_MAJOR || !v->submit_max || !v->wait_max)
		return -EPROTO;
	return 0;
}

int wsx_open(struct wsx **out, int flags)
{
	struct wsx *w;
	int ret;

	if (!out || flags)
		return -EINVAL;
	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = open(device_path(), O_RDWR | O_CLOEXEC);
	if (w->fd < 0) {
		ret = -errno;
		goto err_free;
	}
	ret = wsx_ioctl(w->fd, WSX_IOC_VERSION, &w->version);
	if (ret >= 0)
		ret = check_version(&w->version);
	if (ret < 0)
		goto err_close;
	*out = w;
	return 0;

err_close:
	close(w->fd);
err_free:
	free(w);
	return ret;
}

void wsx_close(struct wsx *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w);
}

int wsx_fd(const struct wsx *w)
{
	return w ? w->fd : -EINVAL;
}

int wsx_version(struct wsx *w, struct wsx_version *v)
{
	int ret;

	if (!w || !v)
		return -EINVAL;
	ret = wsx_ioctl(w->fd, WSX_IOC_VERSION, v);
	return ret < 0 ? ret : 0;
}

/*
 * One WSX_IOC_SUBMIT call, retried on EINTR.  Returns the number queued
 * (then *error is 0 or the -errno of the first refused item) or -errno.
 */
static int submit_chunk(struct wsx *w, const struct wsx_req *items,
			unsigned int count, int *error)
{
	struct wsx_submit s;
	int ret;

	do {
		s = (struct wsx_submit){
			.items = (__u64)(uintptr_t)items,
			.count = count,
		};
		ret = wsx_ioctl(w->fd, WSX_IOC_SUBMIT, &s);
	} while (ret == -EINTR);
	if (ret < 0)
		return ret;
	if ((unsigned int)ret > count)
		return -EPROTO;
	if ((unsigned int)ret == count)
		*error = 0;
	else	/* a short count must come with the refused item's -errno */
		*error = s.error < 0 ? s.error : -EPROTO;
	return ret;
}

int wsx_submit(struct wsx *w, const struct wsx_req *items,
	       unsigned int count, int *item_error)
{
	unsigned int done = 0, n;
	int ret, error = 0;

	if (!w || !items || !count)
		return -EINVAL;
	if (count > INT_MAX)
		return -E2BIG;
	while (done < count && !error) {
		n = count - done;
		if (n > w->version.submit_max)
			n = w->version.submit_max;
		ret = submit_chunk(w, items + done, n, &error);
		if (ret < 0) {
			error = ret;
			break;
		}
		done += ret;
	}
	if (item_error)
		*item_error = error;
	return done ? (int)done : error;
}

int wsx_wait(struct wsx *w, struct wsx_completion *recs, unsigned int max,
	     unsigned int min, int64_t timeout_ns)
{
	struct wsx_wait wt;

	if (!w || !recs || !max || min > max)
		return -EINVAL;
	if (min > w->version.wait_max)
		return -E2BIG;
	if (max > w->version.wait_max)
		max = w->version.wait_max;
	wt = (struct wsx_wait){
		.records = (__u64)(uintptr_t)recs,
		.max = max,
		.min = min,
		.timeout_ns = timeout_ns,
	};
	return wsx_ioctl(w->fd, WSX_IOC_WAIT, &wt);
}

int wsx_chan_create(struct wsx *w, unsigned int cap, unsigned int *id)
{
	struct wsx_chan_create cc = { .cap = cap };
	int ret;

	if (!w || !id)
		return -EINVAL;
	ret = wsx_ioctl(w->fd, WSX_IOC_CHAN_CREATE, &cc);
	if (ret < 0)
		return ret;
	*id = cc.id;
	return 0;
}

int wsx_chan_close(struct wsx *w, unsigned int id)
{
	__u32 arg = id;
	int ret;

	if (!w)
		return -EINVAL;
	ret = wsx_ioctl(w->fd, WSX_IOC_CHAN_CLOSE, &arg);
	return ret < 0 ? ret : 0;
}
