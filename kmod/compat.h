/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernel APIs wsx builds against: Debian's 6.1,
 * 6.12 and 6.12-rt (scripts/check-matrix builds and tests all three).
 * Each difference is one LINUX_VERSION_CODE check here, under a wsx_ name
 * the code uses on every kernel; no #if about kernel versions elsewhere.
 */
#ifndef _WSX_COMPAT_H
#define _WSX_COMPAT_H

#include <linux/fs.h>
#include <linux/version.h>

/*
 * 6.12 removed no_llseek: a NULL .llseek now leaves FMODE_LSEEK clear, so
 * lseek() on the file fails with -ESPIPE, as no_llseek did before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define wsx_no_llseek	NULL
#else
#define wsx_no_llseek	no_llseek
#endif

#endif /* _WSX_COMPAT_H */
