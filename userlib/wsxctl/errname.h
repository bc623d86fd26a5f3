/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Symbolic names of the errno values the wsx ABI and libwsx report.
 */
#ifndef WSX_ERRNAME_H
#define WSX_ERRNAME_H

#include <stddef.h>

/* Longest fallback text errno_name() writes, with its NUL. */
#define ERRNO_NAME_MAX	16

/*
 * errno_name - the symbolic name of an errno value
 * @err:	an errno value, positive or negative (-EAGAIN and EAGAIN alike)
 * @buf:	at least ERRNO_NAME_MAX bytes, used for unknown values
 *
 * Returns "EAGAIN" and the like for the values in the table, else @buf
 * holding the decimal number.  Thread-safe.
 */
const char *errno_name(int err, char *buf);

#endif /* WSX_ERRNAME_H */
