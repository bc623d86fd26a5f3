// SPDX-License-Identifier: GPL-2.0
/*
 * The small helpers of the userspace benches, straight on the /dev/wsx ABI
 * (uapi/linux/wsx.h): see bench_util.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "bench_util.h"

unsigned long bench_number(const char *s, unsigned long lo, unsigned long hi,
			   void (*usage)(void))
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		usage();
	return v;
}

int bench_raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		perror("getrlimit");
		return -1;
	}
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "setrlimit(RLIMIT_NOFILE, %llu): %s\n",
			(unsigned long long)need, strerror(errno));
		return -1;
	}
	return 0;
}

int bench_submit(int fd, struct wsx_req *reqs, unsigned long n)
{
	unsigned long done, k;
	struct wsx_submit s;
	int ret;

	for (done = 0; done < n; done += k) {
		k = n - done < WSX_SUBMIT_MAX ? n - done : WSX_SUBMIT_MAX;
		memset(&s, 0, sizeof(s));
		s.items = (uintptr_t)(reqs + done);
		s.count = k;
		ret = ioctl(fd, WSX_IOC_SUBMIT, &s);
		if (ret < 0 || s.queued != k) {
			fprintf(stderr, "WSX_IOC_SUBMIT: %d queued of %lu, error %d (%s)\n",
				ret, k, s.error,
				strerror(ret < 0 ? errno : -s.error));
			return -1;
		}
	}
	return 0;
}
