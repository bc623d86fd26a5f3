/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsx_open() against paths that are not a wsx device, via $WSX_DEVICE.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wsx/libwsx.h>
#include "ktap.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* wsx_open() of @path fails with @err, clears *out and leaks no fd. */
static void check_open_fails(const char *path, int err, const char *what)
{
	struct wsx *w = (struct wsx *)&w;
	int fds = count_fds();

	setenv("WSX_DEVICE", path, 1);
	KTAP_EQ(wsx_open(&w, 0), err, "%s", what);
	ktap_check(!w && count_fds() == fds, "%s: no session, no fd left",
		   what);
}

/*
 * wsx_close(NULL) does nothing: in a child, so that a crash is a failed
 * check, it must neither close an fd nor set errno.
 */
static void check_close_null(void)
{
	int fds = count_fds(), status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		errno = 0;
		wsx_close(NULL);
		_exit(errno || count_fds() != fds ? 1 : 0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	if (status)
		printf("# the child calling wsx_close(NULL): wait status %d\n",
		       status);
	ktap_check(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		   "wsx_close(NULL) does nothing: no crash, no fd closed, errno kept");
}

int main(void)
{
	char file[] = "/tmp/wsx-test-XXXXXX";
	struct wsx *w;
	int fd = mkstemp(file);

	check_open_fails("/nonexistent/wsx", -ENOENT,
			 "missing device gives -ENOENT");
	if (ktap_check(fd >= 0, "temporary file")) {
		close(fd);
		check_open_fails(file, -ENOTTY,
				 "regular file gives -ENOTTY");
		unlink(file);
	}
	check_open_fails("/dev/null", -ENOTTY,
			 "another character device gives -ENOTTY");
	check_open_fails("/tmp", -EISDIR, "directory gives -EISDIR");
	KTAP_EQ(wsx_open(&w, 1), -EINVAL, "unknown flags give -EINVAL");
	KTAP_EQ(wsx_open(NULL, 0), -EINVAL, "NULL out gives -EINVAL");
	check_close_null();
	return ktap_done();
}
