/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tracefs: file helpers for `wsxctl trace`.  See tracefs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

static int path_of(char *path, const char *dir, const char *file)
{
	if ((size_t)snprintf(path, PATH_MAX, "%s/%s", dir, file) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int tracefs_find(char *dir, size_t len)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	const char *env = secure_getenv("WSX_TRACEFS");
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *d = i ? dirs[i - 1] : env;

		if (!d || !*d)
			continue;
		if (path_of(path, d, "trace") || access(path, F_OK))
			continue;
		if (strlen(d) >= len)
			return -ENAMETOOLONG;
		strcpy(dir, d);
		return 0;
	}
	return -ENOENT;
}

int tracefs_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = path_of(path, dir, file);

	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = len ? write(fd, val, len) : 0;
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

long tracefs_read(const char *dir, const char *file, char **text)
{
	char path[PATH_MAX], *buf = NULL, *p;
	size_t size = 0, len = 0;
	ssize_t n;
	int fd, ret = path_of(path, dir, file);

	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (size - len < 65536) {
			size = size ? 2 * size : 1 << 20;
			p = realloc(buf, size);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (ret || len > LONG_MAX) {
		free(buf);
		return ret ? ret : -EFBIG;
	}
	buf[len] = '\0';
	*text = buf;
	return (long)len;
}

int tracefs_read_line(const char *dir, const char *file, char *buf,
		      size_t len)
{
	char *text;
	long n = tracefs_read(dir, file, &text);
	size_t l;

	if (n < 0)
		return (int)n;
	l = strcspn(text, "\n");
	if (l >= len) {
		free(text);
		return -ERANGE;
	}
	memcpy(buf, text, l);
	buf[l] = '\0';
	free(text);
	return 0;
}

int tracefs_selected(const char *dir, const char *file, char *buf,
		     size_t len)
{
	char line[512], *a, *b;
	int ret = tracefs_read_line(dir, file, line, sizeof(line));

	if (ret)
		return ret;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b)
		return -EINVAL;
	*b = '\0';
	if (strlen(a + 1) >= len)
		return -ERANGE;
	strcpy(buf, a + 1);
	return 0;
}
