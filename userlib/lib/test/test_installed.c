/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The installed libwsx against the running module: built by
 * scripts/check-deb with the libwsx-dev package's header and pkg-config
 * file, linked to libwsx1's shared library, run in the VM with the module
 * that DKMS built.  scripts/check also builds it against the build's
 * libwsx.so.1 (libwsx-uninstalled.pc) and runs it in its VM boot.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <wsx/libwsx.h>
#include "ktap.h"

enum { NOP, FIB, SPAWN, CRC, NITEMS };

static const char crc_text[] = "123456789";

/*
 * Reaps the @n records of @what into @recs, @timeout_ns at most for each
 * WAIT: how many came.  One case however many WAITs it took: how the
 * records come in (together or apart) must not change the case list.
 */
static int wait_all(struct wsx *w, struct wsx_completion *recs, int n,
		    int64_t timeout_ns, const char *what)
{
	int got = 0, waits = 0, ret = 0;

	while (got < n) {
		ret = wsx_wait(w, recs + got, n - got, 1, timeout_ns);
		if (ret <= 0)
			break;
		got += ret;
		waits++;
	}
	printf("# %s: %d of %d records in %d waits, the last returned %d\n",
	       what, got, n, waits, ret);
	ktap_check(got == n, "%s: all %d records reaped", what, n);
	return got;
}

/* Submits one item of each kind and checks each record's result. */
static void check_items(struct wsx *w)
{
	struct wsx_completion recs[NITEMS];
	struct wsx_req items[NITEMS];
	bool seen[NITEMS] = { false };
	int i;

	wsx_item_nop(&items[NOP], NOP);
	wsx_item_fib(&items[FIB], 20, FIB);
	wsx_item_place(&items[FIB], WSX_PLACE_GLOBAL, 0);
	wsx_item_spawn(&items[SPAWN], 2, 3, 1000, SPAWN);
	wsx_item_crc32c(&items[CRC], crc_text, strlen(crc_text), 0, CRC);
	KTAP_EQ(wsx_submit(w, items, NITEMS, NULL), NITEMS, "all items queued");
	if (wait_all(w, recs, NITEMS, 10000000000LL, "four items") != NITEMS)
		return;
	for (i = 0; i < NITEMS; i++) {
		KTAP_EQ(recs[i].status, 0, "record %d: status 0", i);
		if (recs[i].user_data < NITEMS)
			seen[recs[i].user_data] = true;
		switch (recs[i].user_data) {
		case FIB:
			KTAP_EQ(recs[i].result, 6765, "fib(20) = 6765");
			break;
		case SPAWN:
			KTAP_EQ(recs[i].result, 15, "spawn(2, 3): 15 nodes ran");
			break;
		case CRC:
			KTAP_EQ(recs[i].result, 0xe3069283,
				"crc32c(\"123456789\") = e3069283");
			break;
		}
	}
	ktap_check(seen[NOP] && seen[FIB] && seen[SPAWN] && seen[CRC],
		   "one record per item");
}

/*
 * A one-stage pipeline through two channels (ABI 1.2): SEND of 1000
 * values into a, RECV from a forwarding to b, RECV from b; both RECVs
 * sum 1 + ... + 1000.
 */
static void check_chans(struct wsx *w)
{
	struct wsx_completion recs[3];
	struct wsx_req items[3];
	unsigned int a = 0, b = 0;
	int i;

	KTAP_EQ(wsx_chan_create(w, 0, &a), 0, "wsx_chan_create unbuffered");
	KTAP_EQ(wsx_chan_create(w, 16, &b), 0, "wsx_chan_create cap 16");
	ktap_check(a && b && a != b, "two channel ids (%u, %u)", a, b);
	wsx_item_recv(&items[0], b, 1000, 0, 0, 0);
	wsx_item_recv(&items[1], a, 1000, b, 0, 1);
	wsx_item_send(&items[2], a, 1, 1000, 2);
	KTAP_EQ(wsx_submit(w, items, 3, NULL), 3, "a pipeline queued");
	if (wait_all(w, recs, 3, 10000000000LL, "the pipeline") != 3)
		return;
	for (i = 0; i < 3; i++) {
		KTAP_EQ(recs[i].status, 0, "pipeline record %d: status 0", i);
		KTAP_EQ(recs[i].result, recs[i].user_data == 2 ? 1000 : 500500,
			"pipeline item %llu: its result",
			(unsigned long long)recs[i].user_data);
	}
	KTAP_EQ(wsx_chan_close(w, a), 0, "wsx_chan_close");
	KTAP_EQ(wsx_chan_close(w, a), -EALREADY, "... again: -EALREADY");
}

/*
 * POLL (ABI 1.3): an eventfd written after the item was queued ends it
 * with POLLIN; another item times out after 1 ms with -ETIME; a regular
 * file and a timerfd (pollable, but not a socket, a pipe or an eventfd)
 * are refused with -EOPNOTSUPP; a unix socket pair's end is taken,
 * writable at once.
 */
static void check_poll(struct wsx *w)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), sv[2];
	struct wsx_completion recs[2];
	int efd = eventfd(0, EFD_CLOEXEC), got, i;
	struct wsx_req items[2];
	FILE *file = tmpfile();
	uint64_t one = 1;

	if (!ktap_check(efd >= 0 && file && tfd >= 0 &&
			!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			"an eventfd, a regular file, a timerfd, a socket pair"))
		return;
	wsx_item_poll(&items[0], fileno(file), POLLIN, 0, 0);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -EOPNOTSUPP,
		"a POLL of a regular file: -EOPNOTSUPP");
	wsx_item_poll(&items[0], tfd, POLLIN, 0, 0);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -EOPNOTSUPP,
		"a POLL of a timerfd: -EOPNOTSUPP");
	wsx_item_poll(&items[0], sv[0], POLLOUT, 0, 0);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), 1, "a POLL of a socket");
	KTAP_EQ(wsx_wait(w, recs, 1, 1, 10000000000LL), 1, "... ends");
	KTAP_EQ(recs[0].status, 0, "... status 0");
	KTAP_EQ(recs[0].result & POLLOUT, POLLOUT, "... revents POLLOUT");
	close(tfd);
	close(sv[0]);
	close(sv[1]);
	wsx_item_poll(&items[0], efd, POLLIN, 0, 0);
	wsx_item_poll(&items[1], efd, POLLPRI, 1000000, 1);
	KTAP_EQ(wsx_submit(w, items, 2, NULL), 2, "two POLLs of an eventfd");
	KTAP_EQ(write(efd, &one, sizeof(one)), sizeof(one), "... written");
	got = wait_all(w, recs, 2, 10000000000LL, "two POLLs");
	for (i = 0; i < got; i++) {
		if (recs[i].user_data == 0) {
			KTAP_EQ(recs[i].status, 0, "POLLIN: status 0");
			KTAP_EQ(recs[i].result, POLLIN, "... revents POLLIN");
		} else {
			KTAP_EQ(recs[i].status, -ETIME, "POLLPRI: -ETIME");
		}
	}
	fclose(file);
	close(efd);
}

/*
 * PINGPONG and PIPELINE (ABI 1.4), over channels of their own: 1,000
 * round trips and 1,000 values through 8 stages end with their results;
 * 65 stages are refused with -E2BIG.
 */
static void check_chanops(struct wsx *w)
{
	struct wsx_completion recs[2];
	struct wsx_req items[2];
	int got;

	wsx_item_pipeline(&items[0], WSX_PIPELINE_MAX_STAGES + 1, 1, 0);
	KTAP_EQ(wsx_submit(w, items, 1, NULL), -E2BIG,
		"a PIPELINE of 65 stages: -E2BIG");
	wsx_item_pingpong(&items[0], 1000, 0);
	wsx_item_pipeline(&items[1], 8, 1000, 1);
	KTAP_EQ(wsx_submit(w, items, 2, NULL), 2, "a PINGPONG and a PIPELINE");
	got = wait_all(w, recs, 2, 60000000000LL, "PINGPONG and PIPELINE");
	for (int i = 0; i < got; i++) {
		KTAP_EQ(recs[i].status, 0, "item %llu: status 0",
			(unsigned long long)recs[i].user_data);
		KTAP_EQ(recs[i].result, recs[i].user_data ? 500500 : 1000,
			"... its result (1,000 round trips; 1 + ... + 1000)");
	}
}

int main(void)
{
	struct wsx_version v;
	struct wsx_stats st;
	char line[4096] = "";
	struct wsx *w;

	if (!KTAP_EQ(wsx_open(&w, 0), 0, "wsx_open"))
		return ktap_done();
	KTAP_EQ(wsx_version(w, &v), 0, "wsx_version");
	KTAP_EQ(v.abi_major, WSX_ABI_MAJOR, "the module's ABI major");
	ktap_check(v.nprocs >= 1, "nprocs %u", v.nprocs);
	check_items(w);
	if (v.abi_minor >= 2)
		check_chans(w);
	else
		printf("# ABI %u.%u: no channels to check\n", v.abi_major,
		       v.abi_minor);
	if (v.abi_minor >= 3)
		check_poll(w);
	else
		printf("# ABI %u.%u: no POLL to check\n", v.abi_major,
		       v.abi_minor);
	if (v.abi_minor >= 4)
		check_chanops(w);
	else
		printf("# ABI %u.%u: no PINGPONG or PIPELINE to check\n",
		       v.abi_major, v.abi_minor);
	KTAP_EQ(wsx_stats_read(&st), 0, "wsx_stats_read");
	KTAP_EQ(st.nprocs, v.nprocs, "stats have a line per P");
	wsx_stats_free(&st);
	ktap_check(wsx_schedtrace_read(line, sizeof(line)) > 0 &&
		   !strncmp(line, "WSX ", 4), "schedtrace: %s", line);
	wsx_close(w);
	return ktap_done();
}
