// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/wsx ABI, ioctl by ioctl: every good path and every bad input,
 * each giving the errno uapi/linux/wsx.h documents for it, partial batches,
 * the in-flight limits, and at the end an exactly-once run on the session
 * that saw all the bad inputs (a leaked in-flight count would make it fail).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/time.h>

#include "../kselftest_harness.h"
#include "wsx_op_expect.h"
#include "wsx_test.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
#define KERNEL_ADDR	0xffff888000000000ULL	/* never user-accessible */
#define MAX_BAD		96

static const char crc_check_str[] = "123456789";

struct bad_case {
	char what[64];
	struct wsx_req req;
	long err;
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* @n fresh anonymous pages mapped with @prot, or NULL. */
static void *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * page_size(), prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* An address with nothing mapped at it (just unmapped: use at once). */
static void *unmapped_addr(void)
{
	void *p = map_pages(1, PROT_READ | PROT_WRITE);

	if (p)
		munmap(p, page_size());
	return p;
}

/* One page RW followed by one PROT_NONE page; returns the RW page. */
static char *guarded_page(void)
{
	char *p = map_pages(2, PROT_READ | PROT_WRITE);

	if (p && mprotect(p + page_size(), page_size(), PROT_NONE)) {
		munmap(p, 2 * page_size());
		return NULL;
	}
	return p;
}

static long submit_one(int fd, struct wsx_req req, struct wsx_submit *out)
{
	return wsx_test_submit(fd, &req, 1, out);
}

static __u64 param_u64(const char *name)
{
	char buf[64];

	if (wsx_test_param(name, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 10);
}

static void add_bad(struct bad_case *c, int *n, const char *what,
		    struct wsx_req req, long err)
{
	if (*n >= MAX_BAD)
		return;
	snprintf(c[*n].what, sizeof(c[*n].what), "%s", what);
	c[*n].req = req;
	c[*n].req.user_data = 1000 + *n;
	c[*n].err = err;
	(*n)++;
}

/*
 * Every bad request the ABI documents, one fault each.  @nprocs decides
 * which P does not exist, @max_ns is max_item_ns.
 */
static int bad_cases(struct bad_case *c, int nprocs, __u64 max_ns)
{
	const __u64 crc = (uintptr_t)crc_check_str;
	char *guard = guarded_page();
	void *none = map_pages(1, PROT_NONE);
	struct wsx_req r;
	int n = 0;

#define BAD(what, expr, err) do {					\
		r = wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_LOCAL, 0, 0, 0, 0); \
		expr;							\
		add_bad(c, &n, what, r, err);				\
	} while (0)
	/* the request itself */
	BAD("unknown op WSX_OP_LAST", r.op = WSX_OP_LAST, -EINVAL);
	BAD("unknown op 0xffffffff", r.op = 0xffffffff, -EINVAL);
	BAD("flags 1", r.flags = 1, -EINVAL);
	BAD("flags 0x8000", r.flags = 0x8000, -EINVAL);
	BAD("reserved 1", r.reserved = 1, -EINVAL);
	BAD("reserved 0x80000000", r.reserved = 0x80000000, -EINVAL);
	BAD("place 3", r.place = 3, -EINVAL);
	BAD("place 0xffff", r.place = 0xffff, -EINVAL);
	BAD("LOCAL with target 1", r.target = 1, -EINVAL);
	BAD("GLOBAL with target 1",
	    (r.place = WSX_PLACE_GLOBAL, r.target = 1), -EINVAL);
	BAD("P nprocs", (r.place = WSX_PLACE_P, r.target = nprocs), -ENXIO);
	BAD("P 0xffffffff", (r.place = WSX_PLACE_P, r.target = 0xffffffff),
	    -ENXIO);
	BAD("delay_ns 10 s + 1", r.delay_ns = WSX_DELAY_MAX_NS + 1, -E2BIG);
	BAD("delay_ns ~0 on SPIN",
	    (r.op = WSX_OP_SPIN, r.delay_ns = ~0ULL), -E2BIG);
	/* NOP: every argument unused */
	BAD("NOP args[0]", r.args[0] = 1, -EINVAL);
	BAD("NOP args[1]", r.args[1] = 1, -EINVAL);
	BAD("NOP args[2]", r.args[2] = 1, -EINVAL);
	BAD("NOP args[3]", r.args[3] = 1, -EINVAL);
	/* SPIN */
	BAD("SPIN max_item_ns + 1",
	    (r.op = WSX_OP_SPIN, r.args[0] = max_ns + 1), -E2BIG);
	BAD("SPIN ~0", (r.op = WSX_OP_SPIN, r.args[0] = ~0ULL), -E2BIG);
	BAD("SPIN args[1]", (r.op = WSX_OP_SPIN, r.args[1] = 1), -EINVAL);
	BAD("SPIN args[3]", (r.op = WSX_OP_SPIN, r.args[3] = 1), -EINVAL);
	/* SLEEP */
	BAD("SLEEP 1 s + 1 us",
	    (r.op = WSX_OP_SLEEP, r.args[0] = WSX_SLEEP_MAX_US + 1), -E2BIG);
	BAD("SLEEP ~0", (r.op = WSX_OP_SLEEP, r.args[0] = ~0ULL), -E2BIG);
	BAD("SLEEP args[2]", (r.op = WSX_OP_SLEEP, r.args[2] = 1), -EINVAL);
	/* SPAWN */
	BAD("SPAWN fanout 0",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 0, r.args[1] = 1), -EINVAL);
	BAD("SPAWN fanout 65",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 65, r.args[1] = 1), -EINVAL);
	BAD("SPAWN fanout ~0", (r.op = WSX_OP_SPAWN, r.args[0] = ~0ULL),
	    -EINVAL);
	/* a level deeper than the deepest trees taken (the limit cases) */
	BAD("SPAWN 2^23-1 nodes (2, 22)",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 2,
	     r.args[1] = wsx_expect_spawn_max_depth(2) + 1), -E2BIG);
	BAD("SPAWN 2^22+1 nodes (1, 2^22)",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 1,
	     r.args[1] = wsx_expect_spawn_max_depth(1) + 1), -E2BIG);
	BAD("SPAWN (64, 4)",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 64,
	     r.args[1] = wsx_expect_spawn_max_depth(64) + 1), -E2BIG);
	BAD("SPAWN depth ~0",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 1, r.args[1] = ~0ULL), -E2BIG);
	BAD("SPAWN depth 2^32",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 1, r.args[1] = 1ULL << 32),
	    -E2BIG);
	BAD("SPAWN leaf_ns max_item_ns + 1",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 1, r.args[2] = max_ns + 1),
	    -E2BIG);
	BAD("SPAWN args[3]",
	    (r.op = WSX_OP_SPAWN, r.args[0] = 1, r.args[3] = 1), -EINVAL);
	/* FIB */
	BAD("FIB 31", (r.op = WSX_OP_FIB, r.args[0] = 31), -E2BIG);
	BAD("FIB ~0", (r.op = WSX_OP_FIB, r.args[0] = ~0ULL), -E2BIG);
	BAD("FIB args[1]", (r.op = WSX_OP_FIB, r.args[1] = 1), -EINVAL);
	BAD("FIB args[3]", (r.op = WSX_OP_FIB, r.args[3] = 1), -EINVAL);
	/* CRC32C */
	BAD("CRC32C len 0",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = 0), -EINVAL);
	BAD("CRC32C addr 0",
	    (r.op = WSX_OP_CRC32C, r.args[0] = 0, r.args[1] = 9), -EINVAL);
	BAD("CRC32C chunk 4095",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = 9,
	     r.args[2] = 4095), -EINVAL);
	BAD("CRC32C chunk 1",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = 9,
	     r.args[2] = 1), -EINVAL);
	BAD("CRC32C len 1 GiB + 1",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc,
	     r.args[1] = WSX_CRC32C_MAX_LEN + 1), -E2BIG);
	BAD("CRC32C len ~0",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = ~0ULL),
	    -E2BIG);
	BAD("CRC32C chunk 1 GiB + 1",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = 9,
	     r.args[2] = WSX_CRC32C_MAX_LEN + 1), -E2BIG);
	BAD("CRC32C args[3]",
	    (r.op = WSX_OP_CRC32C, r.args[0] = crc, r.args[1] = 9,
	     r.args[3] = 1), -EINVAL);
	BAD("CRC32C kernel address",
	    (r.op = WSX_OP_CRC32C, r.args[0] = KERNEL_ADDR, r.args[1] = 9),
	    -EFAULT);
	BAD("CRC32C address 1 (page 0)",
	    (r.op = WSX_OP_CRC32C, r.args[0] = 1, r.args[1] = 9), -EFAULT);
	BAD("CRC32C end of the address space",
	    (r.op = WSX_OP_CRC32C, r.args[0] = ~0ULL - 4095,
	     r.args[1] = 1 << 20), -EFAULT);
	if (none)
		BAD("CRC32C PROT_NONE buffer",
		    (r.op = WSX_OP_CRC32C, r.args[0] = (uintptr_t)none,
		     r.args[1] = 100), -EFAULT);
	if (guard)
		BAD("CRC32C buffer running into PROT_NONE",
		    (r.op = WSX_OP_CRC32C,
		     r.args[0] = (uintptr_t)guard + page_size() - 10,
		     r.args[1] = 11), -EFAULT);
	/* last: the hole may be reused by the mappings above */
	BAD("CRC32C unmapped buffer",
	    (r.op = WSX_OP_CRC32C, r.args[0] = (uintptr_t)unmapped_addr(),
	     r.args[1] = 4096), -EFAULT);
	BAD("CRC32C 1 GiB unmapped (len at the limit: -EFAULT)",
	    (r.op = WSX_OP_CRC32C, r.args[0] = (uintptr_t)unmapped_addr(),
	     r.args[1] = WSX_CRC32C_MAX_LEN), -EFAULT);
#undef BAD
	return n;
}

/* Nothing may complete within @ms: -ETIMEDOUT from WAIT(min 1). */
static long wait_none(int fd, int ms)
{
	struct wsx_completion rec;

	memset(&rec, 0, sizeof(rec));
	return wsx_test_wait(fd, &rec, 1, 1, ms * NSEC_PER_MSEC);
}

FIXTURE(abi) {
	int fd;
	int nprocs;
	__u64 max_ns;
	char saved_fd_limit[32];
	char saved_total_limit[32];
	bool cpu1_offlined;
};

/*
 * Disarm the fault points of the WAIT tests (WSX_DEBUG builds): 0, or the
 * first error.
 */
static int abi_disarm_wait_faults(void)
{
	static const char *const points[] = {
		"records_out", "wait_before_take", "wait_take_lost",
	};
	int ret = 0;

	if (!wsx_test_have_faults())
		return 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(points); i++) {
		int r = wsx_test_fault_set(points[i], "0");

		if (r && !ret)
			ret = r;
	}
	return ret;
}

FIXTURE_SETUP(abi)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	self->nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, self->nprocs);
	self->max_ns = param_u64("max_item_ns");
	ASSERT_LT(0, self->max_ns);
	ASSERT_EQ(0, wsx_test_param("max_inflight_fd", self->saved_fd_limit,
				    sizeof(self->saved_fd_limit)));
	ASSERT_EQ(0, wsx_test_param("max_inflight", self->saved_total_limit,
				    sizeof(self->saved_total_limit)));
	self->cpu1_offlined = false;
	/* a run killed by the harness's timeout skipped its teardown */
	ASSERT_EQ(0, abi_disarm_wait_faults());
}

FIXTURE_TEARDOWN(abi)
{
	char cur[32];

	/* a test that failed with a fault point armed leaves it set */
	abi_disarm_wait_faults();

	if (!wsx_test_param("max_inflight_fd", cur, sizeof(cur)) &&
	    strcmp(cur, self->saved_fd_limit))
		wsx_test_param_set("max_inflight_fd", self->saved_fd_limit);
	if (!wsx_test_param("max_inflight", cur, sizeof(cur)) &&
	    strcmp(cur, self->saved_total_limit))
		wsx_test_param_set("max_inflight", self->saved_total_limit);
	if (self->cpu1_offlined) {
		int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "1", 1) != 1)
				perror("online cpu1");
			close(fd);
		}
	}
	close(self->fd);
}

/* ---- WSX_IOC_VERSION -------------------------------------------------- */

TEST_F(abi, version)
{
	struct wsx_version v;
	void *ro = map_pages(1, PROT_READ);

	memset(&v, 0xff, sizeof(v));
	ASSERT_EQ(0, wsx_test_ioctl(self->fd, WSX_IOC_VERSION, &v));
	EXPECT_EQ(WSX_ABI_MAJOR, v.abi_major);
	EXPECT_EQ(WSX_ABI_MINOR, v.abi_minor);
	EXPECT_LT(0, v.nprocs);
	EXPECT_GE(sysconf(_SC_NPROCESSORS_CONF), v.nprocs);
	EXPECT_EQ(WSX_SUBMIT_MAX, v.submit_max);
	EXPECT_EQ(WSX_WAIT_MAX, v.wait_max);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(0, v.reserved[i]) {
			TH_LOG("reserved[%d] = %#x", i, v.reserved[i]);
		}
	}
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION,
					  (void *)KERNEL_ADDR));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION,
					  unmapped_addr()));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION, ro));
}

/* ---- good paths ------------------------------------------------------- */

struct expect {
	__u64 result;
	__u32 nodes;
};

/*
 * Adds @req, as request @n, to @reqs and its record to @exp: the nodes
 * and result wsx_op_expect.h predicts; a CRC32C's result is the check
 * value, as the CRC32C requests here all sum crc_check_str.
 */
static void add_good(struct wsx_req *reqs, struct expect *exp, int *n,
		     struct wsx_req req)
{
	struct wsx_expect_rec e = wsx_expect_record(&req);

	req.user_data = *n;
	reqs[*n] = req;
	exp[*n] = (struct expect){ e.result_known ? e.result : 0xe3069283,
				   e.nodes };
	(*n)++;
}

/*
 * Every op on every placement, each record checked field by field (the
 * records buffer is filled with 0xff first so that unset fields show).
 */
TEST_F(abi, every_op_on_every_place)
{
	static struct wsx_completion recs[WSX_WAIT_MAX];
	struct wsx_req reqs[7 * 66];
	struct expect exp[7 * 66];
	unsigned char seen[7 * 66] = { 0 };
	const __u64 crc = (uintptr_t)crc_check_str;
	/* each op on each place, the last one delayed */
	const struct wsx_req each[7] = {
		wsx_test_req(WSX_OP_NOP, 0, 0, 0, 0, 0, 0),
		wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 100000, 0, 0),
		wsx_test_req(WSX_OP_SLEEP, 0, 0, 0, 1000, 0, 0),
		wsx_test_req(WSX_OP_SPAWN, 0, 0, 0, 3, 2, 1000),
		wsx_test_req(WSX_OP_FIB, 0, 0, 0, 10, 0, 0),
		wsx_test_req(WSX_OP_CRC32C, 0, 0, 0, crc, 9, 0),
		wsx_test_req(WSX_OP_FIB, 0, 0, 0, 7, 0, 0),
	};
	__u64 t0 = wsx_test_now_ns();
	struct wsx_submit sub;
	struct wsx_wait w;
	int n = 0, places = self->nprocs + 2, got = 0;
	long ret;

	if (places > 66)
		places = 66;
	for (int pl = 0; pl < places; pl++) {
		for (int k = 0; k < 7; k++) {
			struct wsx_req req = each[k];

			req.place = pl == 0 ? WSX_PLACE_LOCAL :
				    pl == 1 ? WSX_PLACE_GLOBAL : WSX_PLACE_P;
			req.target = pl < 2 ? 0 : pl - 2;
			if (k == 6)
				req.delay_ns = 20 * NSEC_PER_MSEC + pl * 1000;
			add_good(reqs, exp, &n, req);
		}
	}
	memset(&sub, 0xff, sizeof(sub));	/* queued, error: ignored */
	memset(sub.reserved, 0, sizeof(sub.reserved));
	sub.items = (uintptr_t)reqs;
	sub.count = n;
	ret = wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT, &sub);
	ASSERT_EQ(n, ret);
	EXPECT_EQ(n, sub.queued);
	EXPECT_EQ(0, sub.error);

	while (got < n) {
		memset(recs, 0xff, sizeof(recs));
		memset(&w, 0, sizeof(w));
		w.records = (uintptr_t)recs;
		w.max = WSX_WAIT_MAX;
		w.min = 1;
		w.timeout_ns = 30 * NSEC_PER_SEC;
		w.count = 0xdead;
		ret = wsx_test_ioctl(self->fd, WSX_IOC_WAIT, &w);
		ASSERT_LT(0, ret);
		EXPECT_EQ(ret, w.count);
		for (long i = 0; i < ret; i++) {
			const struct wsx_completion *rec = &recs[i];
			__u64 id = rec->user_data;

			ASSERT_GT(n, id);
			EXPECT_EQ(0, seen[id]++) {
				TH_LOG("id %llu twice", (unsigned long long)id);
			}
			EXPECT_EQ(0, rec->status);
			EXPECT_EQ(exp[id].result, rec->result) {
				TH_LOG("id %llu op %u place %u",
				       (unsigned long long)id, reqs[id].op,
				       reqs[id].place);
			}
			EXPECT_EQ(exp[id].nodes, rec->nodes) {
				TH_LOG("id %llu op %u", (unsigned long long)id,
				       reqs[id].op);
			}
			EXPECT_GT(sysconf(_SC_NPROCESSORS_CONF), rec->cpu);
			EXPECT_LE(t0, rec->queued_ns);
			EXPECT_LE(rec->queued_ns, rec->started_ns);
			/* a delayed item does not start before its delay */
			EXPECT_LE(rec->queued_ns + reqs[id].delay_ns,
				  rec->started_ns) {
				TH_LOG("id %llu delay %llu ns started after %llu ns",
				       (unsigned long long)id,
				       (unsigned long long)reqs[id].delay_ns,
				       (unsigned long long)(rec->started_ns -
							    rec->queued_ns));
			}
			EXPECT_LE(rec->started_ns, rec->finished_ns);
			EXPECT_GE(wsx_test_now_ns(), rec->finished_ns);
			for (int k = 0; k < 3; k++) {
				EXPECT_EQ(0, rec->reserved[k]) {
					TH_LOG("id %llu reserved[%d] %#x",
					       (unsigned long long)id, k,
					       rec->reserved[k]);
				}
			}
		}
		got += ret;
	}
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
	TH_LOG("%d requests: 6 ops and a delayed one on %d places", n, places);
}

/* A full batch of WSX_SUBMIT_MAX items is one call. */
TEST_F(abi, submit_max_batch)
{
	static struct wsx_req reqs[WSX_SUBMIT_MAX];
	static struct wsx_completion recs[WSX_SUBMIT_MAX];
	struct wsx_submit sub;

	for (int i = 0; i < WSX_SUBMIT_MAX; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, i % 3 == 1 ?
				       WSX_PLACE_GLOBAL : WSX_PLACE_LOCAL,
				       0, 0, 0, 0);
	memset(&sub, 0, sizeof(sub));
	ASSERT_EQ(WSX_SUBMIT_MAX, wsx_test_submit(self->fd, reqs,
						  WSX_SUBMIT_MAX, &sub));
	EXPECT_EQ(WSX_SUBMIT_MAX, sub.queued);
	EXPECT_EQ(0, sub.error);
	/* all 4096 in one WAIT of max WSX_WAIT_MAX, min = max */
	ASSERT_EQ(WSX_WAIT_MAX, wsx_test_wait(self->fd, recs, WSX_WAIT_MAX,
					      WSX_WAIT_MAX, 30 * NSEC_PER_SEC));
}

/* ---- WSX_IOC_SUBMIT: bad struct --------------------------------------- */

TEST_F(abi, submit_bad_struct)
{
	struct wsx_req req = wsx_test_req(WSX_OP_NOP, 7, 0, 0, 0, 0, 0);
	void *none = map_pages(1, PROT_NONE);
	void *bad_items[] = { NULL, (void *)KERNEL_ADDR, none, NULL };
	struct wsx_submit sub;

	ASSERT_NE(NULL, none);
	for (int k = 0; k < 3; k++) {
		memset(&sub, 0, sizeof(sub));
		sub.items = (uintptr_t)&req;
		sub.count = 1;
		sub.reserved[k] = 1;
		EXPECT_EQ(-EINVAL, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT,
						  &sub)) {
			TH_LOG("reserved[%d]", k);
		}
	}
	EXPECT_EQ(-EINVAL, wsx_test_submit(self->fd, &req, 0, NULL));
	EXPECT_EQ(-EINVAL, wsx_test_submit(self->fd, NULL, 0, NULL));
	EXPECT_EQ(-E2BIG, wsx_test_submit(self->fd, &req, WSX_SUBMIT_MAX + 1,
					  NULL));
	EXPECT_EQ(-E2BIG, wsx_test_submit(self->fd, &req, 0xffffffff, NULL));

	/* the struct pointer */
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT,
					  (void *)KERNEL_ADDR));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT, none));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT,
					  unmapped_addr()));

	/* the items pointer: queued 0, error -EFAULT written back */
	bad_items[3] = unmapped_addr();
	for (int k = 0; k < 4; k++) {
		memset(&sub, 0, sizeof(sub));
		sub.queued = 77;
		EXPECT_EQ(-EFAULT, wsx_test_submit(self->fd, bad_items[k], 1,
						   &sub)) {
			TH_LOG("items pointer %d", k);
		}
		EXPECT_EQ(0, sub.queued);
		EXPECT_EQ(-EFAULT, sub.error);
	}
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
}

/* ---- WSX_IOC_SUBMIT: every bad request -------------------------------- */

TEST_F(abi, submit_bad_requests)
{
	static struct bad_case cases[MAX_BAD];
	int n = bad_cases(cases, self->nprocs, self->max_ns);
	struct wsx_submit sub;
	long ret;

	ASSERT_LT(50, n);
	for (int i = 0; i < n; i++) {
		memset(&sub, 0, sizeof(sub));
		ret = submit_one(self->fd, cases[i].req, &sub);
		EXPECT_EQ(cases[i].err, ret) {
			TH_LOG("%s: got %ld (%s), want %ld", cases[i].what, ret,
			       strerror(-ret), cases[i].err);
		}
		EXPECT_EQ(0, sub.queued) {
			TH_LOG("%s", cases[i].what);
		}
		EXPECT_EQ(cases[i].err, sub.error) {
			TH_LOG("%s", cases[i].what);
		}
	}
	/* none of them was queued */
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 200));
	TH_LOG("%d bad requests", n);
}

/*
 * The limits themselves are accepted.  Submitted on a second session that
 * is closed at once, so that the big trees are cancelled, not run.
 */
TEST_F_TIMEOUT(abi, submit_limits_are_accepted, 120)
{
	const __u64 crc = (uintptr_t)crc_check_str;
	struct wsx_req ok[] = {
		wsx_test_req(WSX_OP_SPIN, 1, 0, 0, self->max_ns, 0, 0),
		wsx_test_req(WSX_OP_SLEEP, 2, 0, 0, WSX_SLEEP_MAX_US, 0, 0),
		/* the deepest trees taken: (2, 21), (1, 2^22 - 1), (64, 3) */
		wsx_test_req(WSX_OP_SPAWN, 3, 0, 0, 2,
			     wsx_expect_spawn_max_depth(2), 0),
		wsx_test_req(WSX_OP_SPAWN, 4, 0, 0, 1,
			     wsx_expect_spawn_max_depth(1), 0),
		wsx_test_req(WSX_OP_SPAWN, 5, 0, 0, 64,
			     wsx_expect_spawn_max_depth(64), 0),
		wsx_test_req(WSX_OP_SPAWN, 6, 0, 0, 64, 0, self->max_ns),
		wsx_test_req(WSX_OP_FIB, 7, 0, 0, WSX_FIB_MAX, 0, 0),
		wsx_test_req(WSX_OP_CRC32C, 8, 0, 0, crc, 9, 4096),
		wsx_test_req(WSX_OP_CRC32C, 9, 0, 0, crc, 9,
			     WSX_CRC32C_MAX_LEN),
		wsx_test_req(WSX_OP_CRC32C, 10, 0, 0, crc, 1, 0),
		wsx_test_req(WSX_OP_NOP, 11, WSX_PLACE_P, self->nprocs - 1,
			     0, 0, 0),
		wsx_test_req(WSX_OP_NOP, 12, 0, 0, 0, 0, 0),
	};
	int n = sizeof(ok) / sizeof(ok[0]);
	struct wsx_submit sub;
	__u64 t;
	int fd2;

	ok[n - 1].delay_ns = WSX_DELAY_MAX_NS;
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	for (int i = 0; i < n; i++) {
		memset(&sub, 0, sizeof(sub));
		EXPECT_EQ(1, submit_one(fd2, ok[i], &sub)) {
			TH_LOG("limit case %d refused: error %d", i, sub.error);
		}
	}
	t = wsx_test_now_ns();
	close(fd2);
	TH_LOG("closing with the limit cases in flight took %llu ms",
	       (unsigned long long)(wsx_test_now_ns() - t) / NSEC_PER_MSEC);
}

/* ---- partial batches -------------------------------------------------- */

struct seen_ctx {
	unsigned char seen[64];
	int dups, bad;
	int status_bad;
};

static bool note_seen(const struct wsx_completion *rec, void *arg)
{
	struct seen_ctx *ctx = arg;

	if (rec->user_data >= 64) {
		ctx->bad++;
		return true;
	}
	if (ctx->seen[rec->user_data]++)
		ctx->dups++;
	if (rec->status)
		ctx->status_bad++;
	return true;
}

/*
 * A bad item in the middle: the ioctl returns the number queued, queued
 * and error say which item and why, the items before it complete and none
 * after it.
 */
TEST_F(abi, partial_batch_bad_item_in_middle)
{
	struct {
		const char *what;
		struct wsx_req bad;
		long err;
	} v[] = {
		{ "FIB 31", wsx_test_req(WSX_OP_FIB, 0, 0, 0, 31, 0, 0), -E2BIG },
		{ "op 77", wsx_test_req(77, 0, 0, 0, 0, 0, 0), -EINVAL },
		{ "P 9999", wsx_test_req(WSX_OP_NOP, 0, WSX_PLACE_P, 9999,
					 0, 0, 0), -ENXIO },
		{ "delay 10 s + 1", wsx_test_req(WSX_OP_NOP, 0, 0, 0, 0, 0, 0),
		  -E2BIG },
		{ "CRC32C unmapped", wsx_test_req(WSX_OP_CRC32C, 0, 0, 0,
						  KERNEL_ADDR, 64, 0), -EFAULT },
	};
	struct wsx_req reqs[6];
	struct wsx_submit sub;

	v[3].bad.delay_ns = WSX_DELAY_MAX_NS + 1;
	for (unsigned int k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		struct seen_ctx ctx;
		long ret;

		memset(&ctx, 0, sizeof(ctx));
		reqs[0] = wsx_test_req(WSX_OP_NOP, 0, 0, 0, 0, 0, 0);
		reqs[1] = wsx_test_req(WSX_OP_SPIN, 1, WSX_PLACE_GLOBAL, 0,
				       100000, 0, 0);
		reqs[2] = wsx_test_req(WSX_OP_FIB, 2, 0, 0, 5, 0, 0);
		reqs[3] = v[k].bad;
		reqs[3].user_data = 3;
		reqs[4] = wsx_test_req(WSX_OP_NOP, 4, 0, 0, 0, 0, 0);
		reqs[5] = wsx_test_req(WSX_OP_SPIN, 5, 0, 0, 1000, 0, 0);
		memset(&sub, 0, sizeof(sub));
		ret = wsx_test_submit(self->fd, reqs, 6, &sub);
		EXPECT_EQ(3, ret) {
			TH_LOG("%s", v[k].what);
		}
		EXPECT_EQ(3, sub.queued);
		EXPECT_EQ(v[k].err, sub.error) {
			TH_LOG("%s: error %d", v[k].what, sub.error);
		}
		EXPECT_EQ(3, wsx_test_reap(self->fd, 3, note_seen, &ctx,
					   10 * NSEC_PER_SEC));
		/* and nothing else arrives */
		EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 200));
		for (int i = 0; i < 6; i++) {
			EXPECT_EQ(i < 3, ctx.seen[i]) {
				TH_LOG("%s: item %d completed %d times",
				       v[k].what, i, ctx.seen[i]);
			}
		}
		EXPECT_EQ(0, ctx.bad + ctx.dups + ctx.status_bad);
	}

	/* a bad first item: nothing queued, its errno returned and stored */
	reqs[0] = wsx_test_req(WSX_OP_FIB, 0, 0, 0, 99, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_NOP, 1, 0, 0, 0, 0, 0);
	memset(&sub, 0, sizeof(sub));
	EXPECT_EQ(-E2BIG, wsx_test_submit(self->fd, reqs, 2, &sub));
	EXPECT_EQ(0, sub.queued);
	EXPECT_EQ(-E2BIG, sub.error);
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
}

/* The items array runs into a PROT_NONE page after two items. */
TEST_F(abi, partial_batch_items_run_into_unmapped)
{
	char *page = guarded_page();
	struct wsx_req *reqs;
	struct wsx_submit sub;
	struct seen_ctx ctx;

	ASSERT_NE(NULL, page);
	reqs = (struct wsx_req *)(page + page_size()) - 2;
	reqs[0] = wsx_test_req(WSX_OP_NOP, 10, 0, 0, 0, 0, 0);
	reqs[1] = wsx_test_req(WSX_OP_NOP, 11, 0, 0, 0, 0, 0);
	memset(&sub, 0, sizeof(sub));
	memset(&ctx, 0, sizeof(ctx));
	EXPECT_EQ(2, wsx_test_submit(self->fd, reqs, 4, &sub));
	EXPECT_EQ(2, sub.queued);
	EXPECT_EQ(-EFAULT, sub.error);
	EXPECT_EQ(2, wsx_test_reap(self->fd, 2, note_seen, &ctx,
				   10 * NSEC_PER_SEC));
	EXPECT_EQ(1, ctx.seen[10]);
	EXPECT_EQ(1, ctx.seen[11]);
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
}

/*
 * A struct wsx_submit the kernel can read but not write back: the items
 * are queued all the same ("the queued items stand") and the ioctl says
 * how many.
 */
TEST_F(abi, submit_readonly_struct_still_queues)
{
	struct wsx_req reqs[2] = {
		wsx_test_req(WSX_OP_NOP, 20, 0, 0, 0, 0, 0),
		wsx_test_req(WSX_OP_NOP, 21, 0, 0, 0, 0, 0),
	};
	struct wsx_submit *sub = map_pages(1, PROT_READ | PROT_WRITE);
	struct seen_ctx ctx;

	ASSERT_NE(NULL, sub);
	memset(&ctx, 0, sizeof(ctx));
	sub->items = (uintptr_t)reqs;
	sub->count = 2;
	ASSERT_EQ(0, mprotect(sub, page_size(), PROT_READ));
	EXPECT_EQ(2, wsx_test_ioctl(self->fd, WSX_IOC_SUBMIT, sub));
	EXPECT_EQ(2, wsx_test_reap(self->fd, 2, note_seen, &ctx,
				   10 * NSEC_PER_SEC));
	EXPECT_EQ(1, ctx.seen[20]);
	EXPECT_EQ(1, ctx.seen[21]);
}

/* ---- WSX_IOC_WAIT ----------------------------------------------------- */

TEST_F(abi, wait_bad_struct)
{
	struct wsx_completion recs[4];
	void *none = map_pages(1, PROT_NONE);
	struct wsx_wait w;

	ASSERT_NE(NULL, none);
	memset(recs, 0, sizeof(recs));
	EXPECT_EQ(-EINVAL, wsx_test_wait(self->fd, recs, 0, 0, 0));
	EXPECT_EQ(-EINVAL, wsx_test_wait(self->fd, recs, 0, 1, -1));
	EXPECT_EQ(-EINVAL, wsx_test_wait(self->fd, recs, 2, 3, 0));
	EXPECT_EQ(-EINVAL, wsx_test_wait(self->fd, recs, 1, 0xffffffff, -1));
	EXPECT_EQ(-E2BIG, wsx_test_wait(self->fd, recs, WSX_WAIT_MAX + 1,
					0, 0));
	EXPECT_EQ(-E2BIG, wsx_test_wait(self->fd, recs, 0xffffffff, 0, 0));
	for (int k = 0; k < 3; k++) {
		memset(&w, 0, sizeof(w));
		w.records = (uintptr_t)recs;
		w.max = 4;
		w.reserved[k] = 1;
		EXPECT_EQ(-EINVAL, wsx_test_ioctl(self->fd, WSX_IOC_WAIT, &w)) {
			TH_LOG("reserved[%d]", k);
		}
	}
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_WAIT, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_WAIT, none));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_WAIT,
					  (void *)KERNEL_ADDR));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_WAIT,
					  unmapped_addr()));
}

/* Nothing queued: min 0 returns 0 at once, min >= 1 times out. */
TEST_F(abi, wait_timeouts_on_an_idle_session)
{
	struct wsx_completion rec;
	__u64 t;

	memset(&rec, 0, sizeof(rec));
	EXPECT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, 0));
	EXPECT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, -1));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1, 0));
	t = wsx_test_now_ns();
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    50 * NSEC_PER_MSEC));
	t = wsx_test_now_ns() - t;
	/* a lower bound only: the wait must not end early */
	EXPECT_LE(50 * NSEC_PER_MSEC, t);
	TH_LOG("WAIT(min 1, 50 ms) on an idle session took %llu us",
	       (unsigned long long)t / 1000);
}

/* @count is written even when no record was ready ("also in @count"). */
TEST_F(abi, wait_writes_count_when_nothing_is_ready)
{
	struct wsx_completion rec;
	struct wsx_wait w;

	memset(&rec, 0, sizeof(rec));
	memset(&w, 0, sizeof(w));
	w.records = (uintptr_t)&rec;
	w.max = 1;
	w.count = 12345;	/* ignored on input */
	EXPECT_EQ(0, wsx_test_ioctl(self->fd, WSX_IOC_WAIT, &w));
	EXPECT_EQ(0, w.count);
}

/* Submit @n NOPs with user_data base .. base + n - 1. */
static long submit_nops(int fd, int n, __u64 base)
{
	struct wsx_req reqs[16];

	for (int i = 0; i < n && i < 16; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, base + i, 0, 0, 0, 0, 0);
	return wsx_test_submit(fd, reqs, n, NULL);
}

/*
 * A record that comes before the deadline but leaves WAIT short of @min
 * wakes the waiter, which sleeps on until the deadline, not less (how
 * much past it is logged, not checked); the record stays for the next
 * WAIT.  A round counts only if the short record did end before the
 * deadline; one a slow guest delayed past it is redone.
 */
TEST_F(abi, wait_woken_short_of_min_sleeps_to_its_deadline)
{
	for (int round = 0; round < 5; round++) {
		struct wsx_req reqs[2] = {
			wsx_test_req(WSX_OP_SLEEP, 1, 0, 0, 20000, 0, 0),
			wsx_test_req(WSX_OP_SLEEP, 2, 0, 0, WSX_SLEEP_MAX_US,
				     0, 0),
		};
		struct wsx_completion recs[2], *short_rec;
		__u64 t0, t;

		memset(recs, 0, sizeof(recs));
		ASSERT_EQ(2, wsx_test_submit(self->fd, reqs, 2, NULL));
		t0 = wsx_test_now_ns();
		EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, recs, 2, 2,
						    150 * NSEC_PER_MSEC));
		t = wsx_test_now_ns() - t0;
		EXPECT_LE(150 * NSEC_PER_MSEC, t);
		ASSERT_EQ(2, wsx_test_wait(self->fd, recs, 2, 2,
					   30 * NSEC_PER_SEC));
		ASSERT_EQ(3, recs[0].user_data + recs[1].user_data);
		short_rec = recs[0].user_data == 1 ? &recs[0] : &recs[1];
		if (short_rec->finished_ns < t0 + 150 * NSEC_PER_MSEC) {
			TH_LOG("WAIT(min 2, 150 ms), one record %llu us in, took %llu us",
			       (unsigned long long)(short_rec->finished_ns > t0 ?
				       short_rec->finished_ns - t0 : 0) / 1000,
			       (unsigned long long)t / 1000);
			return;
		}
		TH_LOG("round %d: the 20 ms record ended after the deadline: redone",
		       round);
	}
	ASSERT_TRUE(false) {
		TH_LOG("in 5 rounds the 20 ms record never ended within 150 ms");
	}
}

/*
 * Deadlines that fall when the record comes: the waiter is woken by the
 * record, by its timer, or by both at once (where KCSAN saw the kernel's
 * wait_event_interruptible_hrtimeout(), inlined in WAIT, race with the
 * timer).  Either way WAIT gives the record or -ETIMEDOUT, and a
 * timed-out record comes with the next WAIT: none lost, none twice.
 */
TEST_F(abi, wait_deadline_meets_its_record)
{
	size_t rounds = wsx_test_scaled(400, 50);
	size_t got = 0, timed_out = 0;

	for (size_t i = 0; i < rounds; i++) {
		__u64 us = 100 + (i * 37) % 900;
		struct wsx_req req = wsx_test_req(WSX_OP_SLEEP, i, 0, 0, us,
						  0, 0);
		struct wsx_completion rec;
		long ret;

		memset(&rec, 0, sizeof(rec));
		ASSERT_EQ(1, wsx_test_submit(self->fd, &req, 1, NULL));
		ret = wsx_test_wait(self->fd, &rec, 1, 1, us * 1000);
		if (ret == -ETIMEDOUT) {
			timed_out++;
			ret = wsx_test_wait(self->fd, &rec, 1, 1,
					    30 * NSEC_PER_SEC);
		} else {
			got++;
		}
		ASSERT_EQ(1, ret);
		ASSERT_EQ(i, rec.user_data);
		ASSERT_EQ(0, wsx_test_wait(self->fd, &rec, 1, 0, 0));
	}
	TH_LOG("%zu rounds: the record woke WAIT in %zu, the deadline in %zu",
	       rounds, got, timed_out);
}

/*
 * min 0 takes what is there, up to max; min over what is ready times out
 * and copies nothing.
 */
TEST_F(abi, wait_min_and_max)
{
	struct wsx_completion recs[4];
	struct seen_ctx ctx;

	memset(recs, 0, sizeof(recs));
	memset(&ctx, 0, sizeof(ctx));
	ASSERT_EQ(3, submit_nops(self->fd, 3, 0));
	/* wait for all three, copying none: min 3 on a NULL records array */
	ASSERT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 3, 3,
					 30 * NSEC_PER_SEC));
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, recs, 4, 4,
					    20 * NSEC_PER_MSEC));
	EXPECT_EQ(2, wsx_test_wait(self->fd, recs, 2, 0, 0));
	note_seen(&recs[0], &ctx);
	note_seen(&recs[1], &ctx);
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 4, 0, 0));
	note_seen(&recs[0], &ctx);
	EXPECT_EQ(0, wsx_test_wait(self->fd, recs, 4, 0, 0));
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(1, ctx.seen[i]);
	}
	EXPECT_EQ(0, ctx.dups + ctx.bad);
}

/* A bad records pointer gives -EFAULT and loses nothing. */
TEST_F(abi, wait_bad_records_keeps_them)
{
	static struct wsx_completion recs[8];
	char *guard = guarded_page();
	void *ro = map_pages(1, PROT_READ);
	struct wsx_completion *edge;
	struct seen_ctx ctx;
	void *bad[] = { NULL, (void *)KERNEL_ADDR, ro, NULL };
	long ret;

	ASSERT_NE(NULL, guard);
	ASSERT_NE(NULL, ro);
	memset(&ctx, 0, sizeof(ctx));
	ASSERT_EQ(3, submit_nops(self->fd, 3, 0));
	bad[3] = unmapped_addr();
	for (int k = 0; k < 4; k++) {
		EXPECT_EQ(-EFAULT, wsx_test_wait(self->fd, bad[k], 8, 3,
						 30 * NSEC_PER_SEC)) {
			TH_LOG("records pointer %d", k);
		}
	}
	ret = wsx_test_wait(self->fd, recs, 8, 3, 0);
	ASSERT_EQ(3, ret);
	for (int i = 0; i < 3; i++)
		note_seen(&recs[i], &ctx);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(1, ctx.seen[i]);
	}

	/* room for one record before the PROT_NONE page: one is copied */
	memset(&ctx, 0, sizeof(ctx));
	ASSERT_EQ(2, submit_nops(self->fd, 2, 5));
	edge = (struct wsx_completion *)(guard + page_size()) - 1;
	EXPECT_EQ(1, wsx_test_wait(self->fd, edge, 2, 2, 30 * NSEC_PER_SEC));
	note_seen(edge, &ctx);
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 8, 1, 0));
	note_seen(&recs[0], &ctx);
	EXPECT_EQ(1, ctx.seen[5]);
	EXPECT_EQ(1, ctx.seen[6]);
	EXPECT_EQ(0, ctx.dups + ctx.bad);
}

/* One thread's wait on a session: a WAIT(min 1) or a poll(POLLIN). */
struct record_waiter {
	int fd;
	bool by_poll;
	struct wsx_completion *recs;	/* WAIT's array; may fault */
	__s64 timeout_ns;
	__u64 start_ns, end_ns;
	long ret;
	atomic_bool done;
};

static void *record_waiter_fn(void *arg)
{
	struct record_waiter *w = arg;

	w->start_ns = wsx_test_now_ns();
	if (w->by_poll) {
		struct pollfd pfd = { .fd = w->fd, .events = POLLIN };

		w->ret = poll(&pfd, 1, w->timeout_ns / NSEC_PER_MSEC);
		if (w->ret < 0)
			w->ret = -errno;
		else if (w->ret == 1 && !(pfd.revents & POLLIN))
			w->ret = -EBADMSG;
	} else {
		w->ret = wsx_test_wait(w->fd, w->recs, 1, 1, w->timeout_ns);
	}
	w->end_ns = wsx_test_now_ns();
	atomic_store(&w->done, true);
	return NULL;
}

/*
 * A WAIT that takes a record and then fails to copy it puts it back; a
 * second waiter that went to sleep while the record was out (the
 * records_out fault point holds it out for 400 ms) is woken by its
 * return, long before its own 4 s deadline, and takes it.  Both kinds of
 * waiter: another WAIT, and a poll().  A round counts only if the second
 * waiter began at least 200 ms before the first returned (so that it
 * slept while the record was out); up to 5 rounds each.
 */
TEST_F(abi, faulting_wait_wakes_who_slept_while_its_records_were_out)
{
	char *guard = guarded_page();
	struct wsx_completion *prot_none, rec;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a release build");
	ASSERT_NE(NULL, guard);
	prot_none = (struct wsx_completion *)(guard + page_size());
	for (int kind = 0; kind < 2; kind++) {
		bool counted = false;

		for (int round = 0; round < 5 && !counted; round++) {
			struct record_waiter first = {
				.fd = self->fd, .recs = prot_none,
				.timeout_ns = 30 * NSEC_PER_SEC,
			};
			struct record_waiter second = {
				.fd = self->fd, .by_poll = kind,
				.recs = &rec, .timeout_ns = 4 * NSEC_PER_SEC,
			};
			struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
			long hits = wsx_test_fault_hits("records_out");
			__u64 until = wsx_test_now_ns() + 5 * NSEC_PER_SEC;
			pthread_t t1, t2;

			memset(&rec, 0, sizeof(rec));
			ASSERT_LE(0, hits);
			ASSERT_EQ(1, submit_nops(self->fd, 1, round));
			ASSERT_EQ(1, poll(&pfd, 1, 30000));
			ASSERT_EQ(0, wsx_test_fault_set("records_out", "400000"));
			ASSERT_EQ(0, pthread_create(&t1, NULL, record_waiter_fn,
						    &first));
			while (wsx_test_fault_hits("records_out") == hits &&
			       !atomic_load(&first.done) &&
			       wsx_test_now_ns() < until)
				usleep(1000);
			/* the first WAIT sleeps its 400 ms; no later one will */
			EXPECT_EQ(0, wsx_test_fault_set("records_out", "0"));
			ASSERT_NE(hits, wsx_test_fault_hits("records_out"));
			ASSERT_EQ(0, pthread_create(&t2, NULL, record_waiter_fn,
						    &second));
			ASSERT_EQ(0, pthread_join(t1, NULL));
			ASSERT_EQ(0, pthread_join(t2, NULL));
			EXPECT_EQ(-EFAULT, first.ret);
			ASSERT_EQ(1, second.ret) {
				TH_LOG("%s: %ld", kind ? "poll" : "WAIT",
				       second.ret);
			}
			/* woken by the record's return, not by the deadline */
			EXPECT_GT(second.start_ns + second.timeout_ns,
				  second.end_ns) {
				TH_LOG("%s slept to its deadline",
				       kind ? "poll" : "WAIT");
			}
			if (kind)
				ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1,
							   1, 0));
			EXPECT_EQ(round, rec.user_data);
			counted = second.start_ns + 200 * NSEC_PER_MSEC <
				  first.end_ns;
			TH_LOG("%s round %d: began %lld us before the record came back, returned %lld us after%s",
			       kind ? "poll" : "WAIT", round,
			       (long long)(first.end_ns - second.start_ns) /
			       1000,
			       (long long)(second.end_ns - first.end_ns) /
			       1000,
			       counted ? "" : ": redone");
		}
		EXPECT_TRUE(counted);
	}
}

/*
 * Two WAITs(min 1) asleep on an empty session, one record: both wake and
 * see it ready, and the wait_before_take fault point holds both for
 * 200 ms before they take.  One gets the record; the other must not
 * return short (0 records): it waits on, to its 3 s deadline, not less,
 * and gives -ETIMEDOUT.  A round counts only if both passed the fault
 * point; one where the record came after both deadlines is drained and
 * redone; up to 5 rounds.
 */
TEST_F(abi, concurrent_waits_never_return_short_of_min)
{
	bool counted = false;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a release build");
	for (int round = 0; round < 5 && !counted; round++) {
		struct wsx_completion recs[2];
		struct record_waiter w[2];
		long hits = wsx_test_fault_hits("wait_before_take"), passed;
		pthread_t t[2];
		int got = 0, timed_out = 0;

		memset(recs, 0, sizeof(recs));
		ASSERT_LE(0, hits);
		for (int i = 0; i < 2; i++) {
			w[i] = (struct record_waiter){
				.fd = self->fd, .recs = &recs[i],
				.timeout_ns = 3 * NSEC_PER_SEC,
			};
		}
		ASSERT_EQ(0, wsx_test_fault_set("wait_before_take", "200000"));
		for (int i = 0; i < 2; i++)
			ASSERT_EQ(0, pthread_create(&t[i], NULL,
						    record_waiter_fn, &w[i]));
		usleep(100000);		/* both asleep, most likely */
		ASSERT_EQ(1, submit_nops(self->fd, 1, round));
		for (int i = 0; i < 2; i++)
			ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, abi_disarm_wait_faults());
		passed = wsx_test_fault_hits("wait_before_take") - hits;
		if (w[0].ret == -ETIMEDOUT && w[1].ret == -ETIMEDOUT) {
			TH_LOG("round %d: the record came after both deadlines: redone",
			       round);
			ASSERT_EQ(1, wsx_test_wait(self->fd, recs, 1, 1,
						   30 * NSEC_PER_SEC));
			continue;
		}
		for (int i = 0; i < 2; i++) {
			if (w[i].ret == 1) {
				got++;
				EXPECT_EQ(round, recs[i].user_data);
				continue;
			}
			EXPECT_EQ(-ETIMEDOUT, w[i].ret) {
				TH_LOG("round %d: a WAIT(min 1) gave %ld",
				       round, w[i].ret);
			}
			/* to the deadline, not less */
			EXPECT_LE(w[i].timeout_ns, w[i].end_ns - w[i].start_ns);
			timed_out++;
		}
		EXPECT_EQ(1, got);
		EXPECT_EQ(1, timed_out);
		counted = passed >= 2;
		TH_LOG("round %d: %ld passes of the fault point, %d record, %d timed out%s",
		       round, passed, got, timed_out,
		       counted ? "" : ": redone");
	}
	EXPECT_TRUE(counted);
}

/*
 * A struct wsx_wait the kernel can read but not write: -EFAULT is fine,
 * but then no record may be consumed (or the ioctl must return the count
 * it copied).  Records that were copied out while the ioctl reports
 * -EFAULT are lost to the caller.
 */
TEST_F(abi, wait_readonly_struct_loses_no_records)
{
	static struct wsx_completion recs[8];
	struct wsx_wait *w = map_pages(1, PROT_READ | PROT_WRITE);
	struct seen_ctx ctx;
	long ret, ret2;

	ASSERT_NE(NULL, w);
	memset(&ctx, 0, sizeof(ctx));
	memset(recs, 0, sizeof(recs));
	ASSERT_EQ(2, submit_nops(self->fd, 2, 30));
	/* both ready, none taken */
	ASSERT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 2, 2,
					 30 * NSEC_PER_SEC));
	w->records = (uintptr_t)recs;
	w->max = 8;
	w->min = 0;
	ASSERT_EQ(0, mprotect(w, page_size(), PROT_READ));
	ret = wsx_test_ioctl(self->fd, WSX_IOC_WAIT, w);
	if (ret > 0) {
		for (long i = 0; i < ret; i++)
			note_seen(&recs[i], &ctx);
	}
	ret2 = wsx_test_wait(self->fd, recs, 8, 0, 0);
	for (long i = 0; i < ret2; i++)
		note_seen(&recs[i], &ctx);
	TH_LOG("read-only wsx_wait: ioctl %ld, a later WAIT got %ld", ret,
	       ret2);
	EXPECT_TRUE(ret == 2 || ret == -EFAULT);
	EXPECT_EQ(1, ctx.seen[30]);
	EXPECT_EQ(1, ctx.seen[31]);
}

static void on_alarm(int sig)
{
}

/* A signal ends a blocked WAIT with -EINTR, and the records stay. */
TEST_F(abi, wait_eintr_keeps_records)
{
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct sigaction sa;
	struct wsx_completion recs[4];
	struct seen_ctx ctx;

	memset(&sa, 0, sizeof(sa));
	memset(&ctx, 0, sizeof(ctx));
	memset(recs, 0, sizeof(recs));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(1, submit_nops(self->fd, 1, 40));
	ASSERT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 1, 1,
					 30 * NSEC_PER_SEC));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	/* min 2 of 1 ready, forever: only the signal ends it */
	EXPECT_EQ(-EINTR, wsx_test_wait(self->fd, recs, 4, 2, -1));
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 4, 0, 0));
	note_seen(&recs[0], &ctx);
	EXPECT_EQ(1, ctx.seen[40]);
}

/*
 * A WAIT(min 1) that keeps losing its take while the record stays ready
 * (the wait_take_lost drop refuses up to 3000 takes, wait_before_take
 * sleeps 1 ms at least before each: losing them all takes 3 s) ends at
 * its 200 ms deadline with -ETIMEDOUT, or at a signal 200 ms in with
 * -EINTR, with takes still to lose, and copies nothing: wsx_wait_ready()
 * looks at neither while the record is ready, so only the checks after a
 * lost take can end it.
 */
TEST_F(abi, wait_losing_every_take_ends_at_its_deadline_or_a_signal)
{
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct wsx_completion rec;
	struct sigaction sa;

	if (!wsx_test_have_faults())
		SKIP(return, "no fault points: a release build");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	for (int by_signal = 0; by_signal < 2; by_signal++) {
		long ret, left;
		__u64 t;

		ASSERT_EQ(1, submit_nops(self->fd, 1, 60 + by_signal));
		/* ready, none taken */
		ASSERT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 1, 1,
						 30 * NSEC_PER_SEC));
		ASSERT_EQ(0, wsx_test_fault_set("wait_before_take", "1000"));
		ASSERT_EQ(0, wsx_test_fault_set("wait_take_lost", "3000"));
		if (by_signal)
			ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
		t = wsx_test_now_ns();
		ret = wsx_test_wait(self->fd, &rec, 1, 1,
				    by_signal ? -1 : 200 * NSEC_PER_MSEC);
		t = wsx_test_now_ns() - t;
		left = wsx_test_debug_number("fault", "wait_take_lost");
		ASSERT_EQ(0, abi_disarm_wait_faults());
		EXPECT_EQ(by_signal ? -EINTR : -ETIMEDOUT, ret) {
			TH_LOG("a WAIT losing every take gave %ld after %llu ms, %ld left to lose",
			       ret, (unsigned long long)t / NSEC_PER_MSEC,
			       left);
		}
		EXPECT_LT(0, left);		/* ended while losing */
		EXPECT_GT(3000, left);		/* lost one at least */
		if (!by_signal)
			EXPECT_LE(200 * NSEC_PER_MSEC, t);
		/* nothing copied: the record is still there */
		EXPECT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 0, 0));
		EXPECT_EQ(60 + by_signal, rec.user_data);
		TH_LOG("%s: %llu ms, %ld takes lost",
		       by_signal ? "signal" : "deadline",
		       (unsigned long long)t / NSEC_PER_MSEC, 3000 - left);
	}
}

/* ---- other commands --------------------------------------------------- */

TEST_F(abi, other_commands_are_enotty)
{
	char buf[256];
	unsigned long cmds[] = {
		_IO(WSX_IOC_MAGIC, 0),
		_IO(WSX_IOC_MAGIC, 3),
		_IOR(WSX_IOC_MAGIC, 3, struct wsx_version),
		_IOWR(WSX_IOC_MAGIC, 0xff, struct wsx_submit),
		_IOW(WSX_IOC_MAGIC, 0x00, struct wsx_version),	/* wrong dir */
		_IOR(WSX_IOC_MAGIC, 0x01, struct wsx_submit),	/* wrong dir */
		_IOWR(WSX_IOC_MAGIC, 0x01, struct wsx_wait),	/* wrong size */
		_IOWR(WSX_IOC_MAGIC, 0x02, struct wsx_submit),	/* wrong size */
		_IOR(WSX_IOC_MAGIC, 0x00, __u64),		/* wrong size */
		_IOWR(WSX_IOC_MAGIC - 1, 0x01, struct wsx_submit),
		_IOWR(WSX_IOC_MAGIC + 1, 0x02, struct wsx_wait),
		_IOR('W', 0x00, struct wsx_version),
		0,
		0xffffffff,
	};

	memset(buf, 0, sizeof(buf));
	for (unsigned int i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(-ENOTTY, wsx_test_ioctl(self->fd, cmds[i], buf)) {
			TH_LOG("command %#lx", cmds[i]);
		}
	}
}

/* ---- in-flight limits ------------------------------------------------- */

TEST_F(abi, inflight_limit_per_session)
{
	struct wsx_completion recs[16];
	struct wsx_req reqs[9];
	struct wsx_submit sub;
	int fd2;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 9; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, 0, 0, 1000000, 0, 0);
	ASSERT_EQ(0, wsx_test_param_set("max_inflight_fd", "8"));
	memset(&sub, 0, sizeof(sub));
	EXPECT_EQ(8, wsx_test_submit(self->fd, reqs, 9, &sub));
	EXPECT_EQ(8, sub.queued);
	EXPECT_EQ(-EAGAIN, sub.error);
	memset(&sub, 0, sizeof(sub));
	EXPECT_EQ(-EAGAIN, wsx_test_submit(self->fd, reqs, 1, &sub));
	EXPECT_EQ(0, sub.queued);
	EXPECT_EQ(-EAGAIN, sub.error);

	/* another session has its own limit */
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(1, submit_nops(fd2, 1, 100));
	EXPECT_EQ(1, wsx_test_wait(fd2, recs, 16, 1, 30 * NSEC_PER_SEC));
	close(fd2);

	/* finished but not reaped still counts: wait for all 8, take none */
	EXPECT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 8, 8,
					 30 * NSEC_PER_SEC));
	EXPECT_EQ(-EAGAIN, submit_nops(self->fd, 1, 50));
	EXPECT_EQ(8, wsx_test_wait(self->fd, recs, 16, 8, 0));
	EXPECT_EQ(1, submit_nops(self->fd, 1, 51));
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 16, 1, 30 * NSEC_PER_SEC));
	EXPECT_EQ(0, wsx_test_param_set("max_inflight_fd",
					self->saved_fd_limit));
}

TEST_F(abi, inflight_limit_total)
{
	struct wsx_completion recs[16];
	struct wsx_req reqs[4];
	struct wsx_submit sub;
	int fd2;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 4; i++)
		reqs[i] = wsx_test_req(WSX_OP_SPIN, i, 0, 0, 1000000, 0, 0);
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	/* nothing else runs during the selftests: the total is ours */
	ASSERT_EQ(0, wsx_test_param_set("max_inflight", "4"));
	EXPECT_EQ(3, wsx_test_submit(self->fd, reqs, 3, NULL));
	memset(&sub, 0, sizeof(sub));
	EXPECT_EQ(1, wsx_test_submit(fd2, reqs, 2, &sub));
	EXPECT_EQ(1, sub.queued);
	EXPECT_EQ(-EAGAIN, sub.error);
	EXPECT_EQ(-EAGAIN, wsx_test_submit(fd2, reqs, 1, NULL));
	EXPECT_EQ(3, wsx_test_wait(self->fd, recs, 16, 3, 30 * NSEC_PER_SEC));
	EXPECT_EQ(3, wsx_test_submit(fd2, reqs, 3, NULL));
	EXPECT_EQ(4, wsx_test_wait(fd2, recs, 16, 4, 30 * NSEC_PER_SEC));
	close(fd2);
	EXPECT_EQ(0, wsx_test_param_set("max_inflight",
					self->saved_total_limit));
}

/* ---- -ENXIO for a P whose CPU is offline ------------------------------- */

TEST_F(abi, offline_p_gives_enxio)
{
	const char *path = "/sys/devices/system/cpu/cpu1/online";
	struct wsx_completion recs[4];
	struct wsx_req req = wsx_test_req(WSX_OP_NOP, 1, WSX_PLACE_P, 1,
					  0, 0, 0);
	int fd;

	memset(recs, 0, sizeof(recs));
	if (self->nprocs < 2 || access(path, W_OK))
		SKIP(return, "needs P1 and a hotpluggable CPU 1");
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "0", 1));
	self->cpu1_offlined = true;
	EXPECT_EQ(-ENXIO, submit_one(self->fd, req, NULL));
	/* the other places still work */
	req.target = 0;
	EXPECT_EQ(1, submit_one(self->fd, req, NULL));
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 4, 1, 30 * NSEC_PER_SEC));
	ASSERT_EQ(1, write(fd, "1", 1));
	self->cpu1_offlined = false;
	close(fd);
	req.target = 1;
	EXPECT_EQ(1, submit_one(self->fd, req, NULL));
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 4, 1, 30 * NSEC_PER_SEC));
}

/* ---- delayed items ---------------------------------------------------- */

/*
 * Closing a session with delayed items pending does not wait out their
 * delays (they are queued, not running: close cancels them): all of them
 * are counted cancelled, and close() returns well before the 10 s delay.
 */
TEST_F_TIMEOUT(abi, close_cancels_delayed_items, 90)
{
	static struct wsx_req reqs[250];
	long long before, after;
	__u64 t;
	int fd2;

	for (int i = 0; i < 250; i++) {
		reqs[i] = wsx_test_req(i < 200 ? WSX_OP_NOP : WSX_OP_SPIN, i,
				       i % 3, i % 3 == 1 ? i % self->nprocs : 0,
				       i < 200 ? 0 : self->max_ns, 0, 0);
		reqs[i].delay_ns = WSX_DELAY_MAX_NS - i;
	}
	fd2 = wsx_test_open();
	ASSERT_LE(0, fd2);
	before = wsx_test_global_stat("cancelled");
	ASSERT_LE(0, before);
	ASSERT_EQ(250, wsx_test_submit(fd2, reqs, 250, NULL));
	t = wsx_test_now_ns();
	close(fd2);
	t = wsx_test_now_ns() - t;
	after = wsx_test_global_stat("cancelled");
	TH_LOG("close() with 250 items delayed by 10 s took %llu ms; cancelled grew by %lld",
	       (unsigned long long)t / NSEC_PER_MSEC, after - before);
	EXPECT_EQ(250, after - before);
	/* a bound on liveness, not a benchmark: close must not wait 10 s */
	EXPECT_GT(WSX_DELAY_MAX_NS, t);
}

/*
 * Delayed items aimed at P1, whose CPU goes offline before they are due,
 * still run, once each.
 */
TEST_F_TIMEOUT(abi, delayed_items_survive_their_p_going_offline, 90)
{
	const char *path = "/sys/devices/system/cpu/cpu1/online";
	struct wsx_completion recs[64];
	struct wsx_req reqs[40];
	struct seen_ctx ctx;
	int fd;

	memset(recs, 0, sizeof(recs));
	memset(&ctx, 0, sizeof(ctx));
	if (self->nprocs < 2 || access(path, W_OK))
		SKIP(return, "needs P1 and a hotpluggable CPU 1");
	for (int i = 0; i < 40; i++) {
		reqs[i] = wsx_test_req(i % 2 ? WSX_OP_FIB : WSX_OP_NOP, i,
				       i < 30 ? WSX_PLACE_P : WSX_PLACE_LOCAL,
				       i < 30 ? 1 : 0, i % 2 ? 10 : 0, 0, 0);
		reqs[i].delay_ns = (200 + 10 * i) * NSEC_PER_MSEC;
	}
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(40, wsx_test_submit(self->fd, reqs, 40, NULL));
	ASSERT_EQ(1, write(fd, "0", 1));
	self->cpu1_offlined = true;
	EXPECT_EQ(40, wsx_test_reap(self->fd, 40, note_seen, &ctx,
				    30 * NSEC_PER_SEC));
	ASSERT_EQ(1, write(fd, "1", 1));
	self->cpu1_offlined = false;
	close(fd);
	for (int i = 0; i < 40; i++) {
		EXPECT_EQ(1, ctx.seen[i]) {
			TH_LOG("delayed item %d completed %d times", i,
			       ctx.seen[i]);
		}
	}
	EXPECT_EQ(0, ctx.dups + ctx.bad + ctx.status_bad);
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
}

/* ---- concurrent WAITs on one session ---------------------------------- */

struct reaper_ctx {
	int fd;
	size_t n;
	atomic_uchar *seen;
	atomic_size_t got;
	atomic_size_t dups, bad, partial;
	__u64 deadline;
};

struct reaper {
	struct reaper_ctx *ctx;
	struct wsx_completion *recs;	/* room for @room records */
	__u32 room;
};

static void *reaper_thread(void *arg)
{
	struct reaper *r = arg;
	struct reaper_ctx *c = r->ctx;

	while (atomic_load(&c->got) < c->n && wsx_test_now_ns() < c->deadline) {
		/* max 8 into room for @room: a faulting copy when room < 8 */
		long ret = wsx_test_wait(c->fd, r->recs, 8, 1,
					 100 * NSEC_PER_MSEC);

		if (ret == -ETIMEDOUT)
			continue;
		if (ret < 0 || ret > (long)r->room) {
			atomic_fetch_add(&c->bad, 1);
			continue;
		}
		if (ret == (long)r->room && r->room < 8)
			atomic_fetch_add(&c->partial, 1);
		for (long i = 0; i < ret; i++) {
			__u64 id = r->recs[i].user_data;

			if (id >= c->n)
				atomic_fetch_add(&c->bad, 1);
			else if (atomic_fetch_add(&c->seen[id], 1))
				atomic_fetch_add(&c->dups, 1);
		}
		atomic_fetch_add(&c->got, ret);
	}
	return NULL;
}

/*
 * Four threads WAIT on one session while it is fed; two of them into
 * record arrays that fault after one or three records, so that WAITs copy
 * part of what they took and put the rest back while others take records.
 * Every record reaches exactly one of them.
 */
TEST_F_TIMEOUT(abi, concurrent_waits_share_records_exactly_once, 120)
{
	static struct wsx_completion full[2][8];
	struct reaper_ctx ctx = { .fd = self->fd };
	struct reaper r[4];
	pthread_t th[4];
	char *edge1 = guarded_page(), *edge3 = guarded_page();
	size_t n = wsx_test_scaled(20000, 2000), missing = 0;
	struct wsx_req reqs[500];

	ASSERT_NE(NULL, edge1);
	ASSERT_NE(NULL, edge3);
	ctx.n = n;
	ctx.seen = calloc(n, sizeof(*ctx.seen));
	ASSERT_NE(NULL, ctx.seen);
	ctx.deadline = wsx_test_now_ns() + 90 * NSEC_PER_SEC;
	r[0] = (struct reaper){ &ctx, full[0], 8 };
	r[1] = (struct reaper){ &ctx, full[1], 8 };
	r[2] = (struct reaper){ &ctx, (struct wsx_completion *)
				(edge1 + page_size()) - 1, 1 };
	r[3] = (struct reaper){ &ctx, (struct wsx_completion *)
				(edge3 + page_size()) - 3, 3 };
	for (int t = 0; t < 4; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, reaper_thread, &r[t]));
	for (size_t sent = 0; sent < n;) {
		size_t batch = n - sent > 500 ? 500 : n - sent;

		for (size_t i = 0; i < batch; i++)
			reqs[i] = wsx_test_req(WSX_OP_NOP, sent + i, i % 3,
					       i % 3 == 1 ?
					       i % self->nprocs : 0, 0, 0, 0);
		ASSERT_EQ(batch, wsx_test_submit(self->fd, reqs, batch, NULL));
		sent += batch;
	}
	for (int t = 0; t < 4; t++)
		ASSERT_EQ(0, pthread_join(th[t], NULL));
	for (size_t i = 0; i < n; i++)
		missing += !ctx.seen[i];
	EXPECT_EQ(n, atomic_load(&ctx.got));
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, atomic_load(&ctx.dups));
	EXPECT_EQ(0, atomic_load(&ctx.bad));
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
	TH_LOG("%zu records over 4 waiters, %zu WAITs cut short by a fault",
	       n, atomic_load(&ctx.partial));
	free(ctx.seen);
}

/* ---- after everything: exactly once ----------------------------------- */

/*
 * On a session that has seen every bad input again, with both in-flight
 * limits set to exactly the run's size (so that one leaked count, on this
 * session or in total, gives -EAGAIN), 10,000 NOPs are all queued without
 * reaping, and each completes exactly once.
 */
TEST_F_TIMEOUT(abi, zz_exactly_once_after_bad_inputs, 120)
{
	static struct bad_case cases[MAX_BAD];
	static struct wsx_req reqs[10000];
	static unsigned char seen[10000];
	static struct wsx_completion recs[WSX_WAIT_MAX];
	const int n = 10000;
	int nbad = bad_cases(cases, self->nprocs, self->max_ns);
	size_t sent = 0, got = 0, dups = 0, bad = 0, missing = 0;
	long ret;

	for (int i = 0; i < nbad; i++) {
		EXPECT_EQ(cases[i].err, submit_one(self->fd, cases[i].req,
						   NULL)) {
			TH_LOG("%s", cases[i].what);
		}
	}
	EXPECT_EQ(-EINVAL, wsx_test_submit(self->fd, reqs, 0, NULL));
	EXPECT_EQ(-E2BIG, wsx_test_submit(self->fd, reqs, 5000, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_submit(self->fd, NULL, 1, NULL));
	EXPECT_EQ(-EINVAL, wsx_test_wait(self->fd, recs, 0, 0, 0));
	EXPECT_EQ(-E2BIG, wsx_test_wait(self->fd, recs, 5000, 0, 0));
	/* a partial batch and a faulting WAIT, then reaped */
	reqs[0] = wsx_test_req(WSX_OP_NOP, 0, 0, 0, 0, 0, 0);
	reqs[1] = cases[0].req;
	EXPECT_EQ(1, wsx_test_submit(self->fd, reqs, 2, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_wait(self->fd, NULL, 1, 1,
					 30 * NSEC_PER_SEC));
	EXPECT_EQ(1, wsx_test_wait(self->fd, recs, 1, 1, 0));

	ASSERT_EQ(0, wsx_test_param_set("max_inflight_fd", "10000"));
	ASSERT_EQ(0, wsx_test_param_set("max_inflight", "10000"));
	for (int i = 0; i < n; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, i % 3, i % 3 == 1 ?
				       i % self->nprocs : 0, 0, 0, 0);
	while (sent < (size_t)n) {
		__u32 batch = n - sent > WSX_SUBMIT_MAX ? WSX_SUBMIT_MAX :
			      n - sent;

		ret = wsx_test_submit(self->fd, reqs + sent, batch, NULL);
		ASSERT_EQ(batch, ret) {
			TH_LOG("after %zu queued: %ld (%s)", sent, ret,
			       strerror(ret < 0 ? -ret : 0));
		}
		sent += ret;
	}
	while (got < (size_t)n) {
		ret = wsx_test_wait(self->fd, recs, WSX_WAIT_MAX, 1,
				    30 * NSEC_PER_SEC);
		ASSERT_LT(0, ret);
		for (long i = 0; i < ret; i++) {
			if (recs[i].user_data >= (__u64)n || recs[i].status ||
			    recs[i].nodes != 1)
				bad++;
			else if (seen[recs[i].user_data]++)
				dups++;
		}
		got += ret;
	}
	EXPECT_EQ(0, dups);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(-ETIMEDOUT, wait_none(self->fd, 100));
	for (int i = 0; i < n; i++)
		missing += !seen[i];
	EXPECT_EQ(0, missing);
	TH_LOG("%d bad inputs, then %d NOPs exactly once", nbad, n);
}

TEST_HARNESS_MAIN
