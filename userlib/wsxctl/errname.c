/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The errno names table.
 */
#include <errno.h>
#include <stdio.h>

#include "errname.h"

#define ERRNAME(e)	{ e, #e }

static const struct {
	int err;
	const char *name;
} errnames[] = {
	ERRNAME(EPERM), ERRNAME(ENOENT), ERRNAME(EINTR), ERRNAME(EIO),
	ERRNAME(ENXIO), ERRNAME(E2BIG), ERRNAME(EBADF), ERRNAME(EAGAIN),
	ERRNAME(ENOMEM), ERRNAME(EACCES), ERRNAME(EFAULT), ERRNAME(EBUSY),
	ERRNAME(ENODEV), ERRNAME(EISDIR), ERRNAME(EINVAL), ERRNAME(ENFILE),
	ERRNAME(EMFILE), ERRNAME(ENOTTY), ERRNAME(EFBIG), ERRNAME(ERANGE),
	ERRNAME(ENAMETOOLONG), ERRNAME(EPROTO), ERRNAME(EOPNOTSUPP),
	ERRNAME(ESHUTDOWN), ERRNAME(ETIMEDOUT), ERRNAME(ECANCELED),
	ERRNAME(ENOMEDIUM),
};

const char *errno_name(int err, char *buf)
{
	long e = err < 0 ? -(long)err : err;
	unsigned int i;

	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == e)
			return errnames[i].name;
	snprintf(buf, ERRNO_NAME_MAX, "%ld", e);
	return buf;
}
