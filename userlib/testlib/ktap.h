/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * KTAP-style output for the host tests: "ok N - desc" or "not ok N - desc"
 * per check, the plan "1..N" at the end, exit status 1 if any failed.
 */
#ifndef WSX_TEST_KTAP_H
#define WSX_TEST_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static unsigned int ktap_run, ktap_failed;

__attribute__((format(printf, 2, 3)))
static inline bool ktap_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", ok ? "" : "not ", ++ktap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	ktap_failed += !ok;
	return ok;
}

/* Checks that an int expression equals an expected value. */
#define KTAP_EQ(got, want, ...) ({					\
	long long got_ = (got), want_ = (want);				\
	if (got_ != want_)						\
		printf("# %s = %lld, expected %lld\n", #got, got_, want_); \
	ktap_check(got_ == want_, __VA_ARGS__);				\
})

static inline int ktap_done(void)
{
	printf("1..%u\n", ktap_run);
	if (ktap_failed)
		printf("# %u of %u failed\n", ktap_failed, ktap_run);
	return ktap_failed ? 1 : 0;
}

#endif /* WSX_TEST_KTAP_H */
