// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI from a 32-bit process (built with -m32 where the compiler can,
 * see the Makefile): the structs have the same layout, pointers travel as
 * __u64 and the module's compat_ioctl passes them through.  VERSION, a
 * SUBMIT of NOP, FIB(20) and CRC32C over a buffer of this process, and a
 * WAIT, must all work and give the right results; a bad command is ENOTTY.
 * The rings (ABI 1.1) too: setup, mmap, NOP and FIB(20) through the SQ and
 * CQ with one ENTER.
 */
#include "../kselftest.h"
#include "crc32c_ref.h"
#include "wsx_op_expect.h"
#include "wsx_rings.h"

_Static_assert(sizeof(struct wsx_req) == 64, "wsx_req");
_Static_assert(sizeof(struct wsx_submit) == 32, "wsx_submit");
_Static_assert(sizeof(struct wsx_completion) == 64, "wsx_completion");
_Static_assert(sizeof(struct wsx_wait) == 40, "wsx_wait");
_Static_assert(sizeof(struct wsx_ring_setup) == 64, "wsx_ring_setup");
_Static_assert(sizeof(struct wsx_enter) == 32, "wsx_enter");

/* NOP and FIB(20) through the rings; true if both came back right. */
static bool rings_work(int fd)
{
	struct wsx_req reqs[2];
	struct wsx_tring t;
	__u64 res[2] = { 1, 1 };
	bool ok;

	reqs[0] = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_LOCAL, 0, 0, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_FIB, 1, WSX_PLACE_GLOBAL, 0, 20, 0, 0);
	if (wsx_tring_setup(&t, fd, 2, 2))
		return false;
	ok = wsx_tring_push(&t, &reqs[0]) && wsx_tring_push(&t, &reqs[1]) &&
	     !wsx_tring_enter(&t, 2, 2, 30000000000LL, NULL) &&
	     wsx_tring_ready(&t) == 2;
	for (int i = 0; ok && i < 2; i++) {
		const struct wsx_completion *rec = &t.cqes[i];

		ok = rec->user_data < 2 && !rec->status;
		if (ok)
			res[rec->user_data] = rec->result;
	}
	wsx_tring_unmap(&t);
	return ok && res[0] == 0 && res[1] == wsx_expect_fib(20);
}

int main(void)
{
	static unsigned char buf[100000];
	struct wsx_completion recs[3];
	struct wsx_req reqs[3];
	struct wsx_version v;
	int fd, got[3] = { 0 };
	long n;

	ksft_print_header();
	ksft_set_plan(5);
	ksft_print_msg("pointer size %zu bytes\n", sizeof(void *));
	fd = wsx_test_open();
	if (fd < 0)
		ksft_exit_skip("/dev/wsx missing: load wsx.ko first\n");
	ksft_test_result(!wsx_test_ioctl(fd, WSX_IOC_VERSION, &v) &&
			 v.abi_major == WSX_ABI_MAJOR,
			 "VERSION from a %zu-bit process\n", sizeof(void *) * 8);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7 + 3;
	reqs[0] = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_GLOBAL, 0, 0, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_FIB, 1, WSX_PLACE_LOCAL, 0, 20, 0, 0);
	reqs[2] = wsx_test_req(WSX_OP_CRC32C, 2, WSX_PLACE_LOCAL, 0,
			       (uintptr_t)(buf + 1), sizeof(buf) - 1, 4096);
	ksft_test_result(wsx_test_collect(fd, reqs, 3, recs) == 0,
			 "SUBMIT and WAIT\n");
	for (int i = 0; i < 3; i++)
		got[i] = !recs[i].status;
	ksft_test_result(got[0] && got[1] && got[2] &&
			 recs[1].result == wsx_expect_fib(20) &&
			 recs[2].result == crc32c_ref(0, buf + 1, sizeof(buf) - 1),
			 "results: fib(20) %llu, CRC32C %08llx\n",
			 (unsigned long long)recs[1].result,
			 (unsigned long long)recs[2].result);
	ksft_test_result(rings_work(fd), "rings: NOP and FIB(20)\n");
	n = wsx_test_ioctl(fd, _IO(WSX_IOC_MAGIC, 0x7f), NULL);
	ksft_test_result(n == -ENOTTY, "unknown command is ENOTTY\n");
	close(fd);
	ksft_finished();
}
