/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The errno name table.
 */
#include <errno.h>
#include <string.h>

#include "../errname.h"
#include "ktap.h"

static void check_name(int err, const char *want)
{
	char buf[ERRNO_NAME_MAX];
	const char *got = errno_name(err, buf);

	if (strcmp(got, want))
		printf("# got \"%s\"\n", got);
	ktap_check(!strcmp(got, want), "errno_name(%d) is %s", err, want);
}

int main(void)
{
	static const int abi_errnos[] = {
		EFAULT, EINVAL, E2BIG, ENXIO, EAGAIN, ENOMEM, ESHUTDOWN,
		ETIMEDOUT, EINTR, ENOTTY, ECANCELED, EPROTO, ENOENT,
	};
	char buf[ERRNO_NAME_MAX];
	size_t i;

	check_name(EAGAIN, "EAGAIN");
	check_name(-EAGAIN, "EAGAIN");
	check_name(-ESHUTDOWN, "ESHUTDOWN");
	check_name(ETIMEDOUT, "ETIMEDOUT");
	check_name(4095, "4095");
	check_name(-4095, "4095");
	check_name(0, "0");
	check_name(-2147483647 - 1, "2147483648");
	for (i = 0; i < sizeof(abi_errnos) / sizeof(abi_errnos[0]); i++)
		ktap_check(errno_name(abi_errnos[i], buf)[0] == 'E',
			   "errno %d of the ABI has a name", abi_errnos[i]);
	return ktap_done();
}
