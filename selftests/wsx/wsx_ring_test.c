// SPDX-License-Identifier: GPL-2.0
/*
 * The rings /dev/wsx shares with userspace (ABI 1.1): setup and mmap with
 * every bad size, offset and flag; results and timestamps through the
 * rings; malformed SQ entries answered by error records; SQ tails and CQ
 * heads out of range refused, and ignored by ENTER(0, 0); a refused setup
 * not the session's one; a second and a shorter mapping; backpressure with
 * a CQ smaller than the items in flight (nothing lost); exactly once over
 * WSX_RING_ITEMS
 * (default 1,000,000, divided by WSX_SCALE) items from 3 processes at
 * mixed placements, through ENTER and in the mode where the executor's Ms
 * pick the entries up (WSX_RING_SQ_PICKUP); that mode's NEED_ENTER flag
 * and its CRC32C entries left to ENTER; two threads sharing one ring; a
 * scribbler writing garbage over the shared words while items run, as root
 * and as a non-root member of the group wsx; munmap
 * and fork while items run; close with items in flight; wait timeouts and
 * poll; where an ENTER's item runs when its caller runs on, and when it
 * waits.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "crc32c_ref.h"
#include "wsx_rings.h"

#define SEC		1000000000LL

/* For the tests that need a longer timeout than the harness's default. */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

static struct wsx_req nop(__u64 id)
{
	return wsx_test_req(WSX_OP_NOP, id, WSX_PLACE_LOCAL, 0, 0, 0, 0);
}

/* ---- setup and mmap ------------------------------------------------- */

static long setup_with(int fd, struct wsx_ring_setup *p)
{
	return wsx_test_ioctl(fd, WSX_IOC_RING_SETUP, p);
}

TEST(setup_bad_arguments)
{
	struct wsx_ring_setup p;
	int fd = wsx_test_open();
	char max[32];

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_test_param("ring_max_entries", max, sizeof(max)));
#define BAD(what, set, err) do {					\
		memset(&p, 0, sizeof(p));				\
		p.sq_entries = 16;					\
		set;							\
		EXPECT_EQ(err, setup_with(fd, &p)) TH_LOG("%s", what);	\
	} while (0)
	BAD("sq 0", p.sq_entries = 0, -EINVAL);
	BAD("sq 3", p.sq_entries = 3, -EINVAL);
	BAD("cq 24", p.cq_entries = 24, -EINVAL);
	BAD("cq under sq", p.cq_entries = 8, -EINVAL);
	BAD("flags", p.flags = 2, -EINVAL);
	BAD("reserved0", p.reserved0 = 1, -EINVAL);
	BAD("reserved[2]", p.reserved[2] = 1, -EINVAL);
	BAD("sq 2^31", p.sq_entries = 1U << 31, -E2BIG);
	BAD("sq over the limit", p.sq_entries = 2 * strtoul(max, NULL, 10),
	    -E2BIG);
	BAD("cq over the limit", p.cq_entries = 2 * strtoul(max, NULL, 10),
	    -E2BIG);
#undef BAD
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(fd, WSX_IOC_RING_SETUP, (void *)8));
	/* nothing was set up by the failures: ENTER and mmap say so */
	EXPECT_EQ(-ENXIO, wsx_tring_enter(&(struct wsx_tring){ .fd = fd },
					  0, 0, 0, NULL));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0));
	EXPECT_EQ(ENXIO, errno);
	close(fd);
}

/*
 * An SQ at the limit with the default CQ: the CQ as large; at the default
 * ring_max_entries, and at one that is no power of two (written, then
 * restored), where the limit for both is the power of two below it.
 */
TEST(setup_sq_at_the_limit_default_cq)
{
	static const unsigned long limits[] = { 0, 20000 };
	struct wsx_tring t;
	int fd = wsx_test_open();
	char max[32], set[32];

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_test_param("ring_max_entries", max, sizeof(max)));
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		unsigned long n = limits[i] ?: strtoul(max, NULL, 10);
		unsigned long pow2 = 1;

		if (limits[i]) {
			snprintf(set, sizeof(set), "%lu", limits[i]);
			ASSERT_EQ(0, wsx_test_param_set("ring_max_entries", set));
		}
		while (pow2 * 2 <= n && pow2 < 65536)
			pow2 *= 2;
		EXPECT_EQ(0, wsx_tring_setup(&t, fd, pow2, 0)) {
			TH_LOG("ring_max_entries %lu, sq %lu", n, pow2);
		}
		EXPECT_EQ(pow2, t.p.cq_entries);
		wsx_tring_unmap(&t);
		close(fd);
		fd = wsx_test_open();
		ASSERT_LE(0, fd);
	}
	ASSERT_EQ(0, wsx_test_param_set("ring_max_entries", max));
	close(fd);
}

TEST(setup_reports_layout_and_mmap_bounds)
{
	struct wsx_tring t;
	int fd = wsx_test_open();
	void *m;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 0));
	EXPECT_EQ(16, t.p.cq_entries);		/* 0: twice the SQ */
	EXPECT_LE(t.p.cqes + 16 * sizeof(struct wsx_completion),
		  t.p.mmap_size);
	EXPECT_LE(t.p.sqes + 8 * sizeof(struct wsx_req), t.p.cqes);
	EXPECT_EQ(0, *t.sq_head);
	EXPECT_EQ(0, *t.cq_tail);
	/* a second setup on the same session */
	EXPECT_EQ(-EBUSY, setup_with(fd, &t.p));
	/* past the end, at another offset, private */
	m = mmap(NULL, t.p.mmap_size + 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	wsx_tring_unmap(&t);
	close(fd);
}

/*
 * What the header promises beside its errors: a refused setup is not the
 * session's one (a correct one afterwards succeeds); a second mapping and
 * one shorter than mmap_size both work and see the same words.
 */
TEST(refused_setup_then_two_mappings)
{
	struct wsx_ring_setup p;
	struct wsx_tring t;
	int fd = wsx_test_open();
	long page = sysconf(_SC_PAGESIZE);
	__u32 *tail;
	char *m;

	ASSERT_LE(0, fd);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 3;
	ASSERT_EQ(-EINVAL, setup_with(fd, &p));
	/* 64 SQ and 128 CQ entries of 64 bytes: more than one page */
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 64, 0));
	ASSERT_LT((__u64)page, t.p.mmap_size);
	ASSERT_LT(t.p.sq_tail + sizeof(__u32), (__u64)page);
	m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSX_RING_MMAP_OFF);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("a mapping of one page: %m");
	tail = (__u32 *)(m + t.p.sq_tail);
	*t.sq_tail = 5;
	EXPECT_EQ(5, *tail);
	*tail = 0;
	EXPECT_EQ(0, *t.sq_tail);
	munmap(m, page);
	m = mmap(NULL, t.p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSX_RING_MMAP_OFF);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("a second full mapping: %m");
	EXPECT_EQ(0, memcmp(m, t.mem, t.p.mmap_size));
	munmap(m, t.p.mmap_size);
	wsx_tring_unmap(&t);
	close(fd);
}

/* The VmFlags line of the mapping at @addr in /proc/self/smaps, in @buf. */
static int smaps_flags(void *addr, char *buf, size_t len)
{
	char line[512], want[32];
	FILE *f = fopen("/proc/self/smaps", "re");
	bool in = false;
	int ret = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' '))
			in = !strncmp(line, want, strlen(want));
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			line[strcspn(line, "\n")] = '\0';
			ret = snprintf(buf, len, "%s", line + 8) < (int)len ?
			      0 : -1;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The rings' mapping has a fixed length and stays out of core dumps:
 * mremap() cannot grow it (EFAULT, as for any VM_DONTEXPAND mapping), and
 * smaps shows its "de" and "dd" flags.
 */
TEST(mapping_cannot_grow)
{
	struct wsx_tring t;
	int fd = wsx_test_open();
	long page = sysconf(_SC_PAGESIZE);
	char flags[256];
	void *m;
	int err;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 0));
	m = mremap(t.mem, t.p.mmap_size, t.p.mmap_size + page,
		   MREMAP_MAYMOVE);
	err = errno;
	EXPECT_EQ(MAP_FAILED, m);
	if (m == MAP_FAILED) {
		EXPECT_EQ(EFAULT, err);
	} else {
		t.mem = m;
		t.p.mmap_size += page;
	}
	ASSERT_EQ(0, smaps_flags(t.mem, flags, sizeof(flags)));
	TH_LOG("VmFlags:%s", flags);
	EXPECT_NE(NULL, strstr(flags, " de"));
	EXPECT_NE(NULL, strstr(flags, " dd"));
	wsx_tring_unmap(&t);
	close(fd);
}

/*
 * ENTER(to_submit 0, min_complete 0) looks at no index: it returns 0 with
 * a corrupt SQ tail or CQ head (which ENTER(1, 0) refuses).
 */
TEST(enter_zero_zero_ignores_indices)
{
	struct wsx_tring t;
	struct wsx_enter e;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 8));
	*t.sq_tail = 1000;
	EXPECT_EQ(0, wsx_tring_enter(&t, 0, 0, 0, &e));
	EXPECT_EQ(0, e.submitted);
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 1, 0, 0, &e));
	*t.sq_tail = 0;
	*t.cq_head = 1000;
	EXPECT_EQ(0, wsx_tring_enter(&t, 0, 0, 0, &e));
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 0, 1, 0, &e));
	*t.cq_head = 0;
	EXPECT_EQ(0, *t.sq_head);
	EXPECT_EQ(0, *t.cq_tail);
	wsx_tring_unmap(&t);
	close(fd);
}

TEST(enter_bad_arguments)
{
	struct wsx_tring t;
	struct wsx_enter e;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 16));
	memset(&e, 0, sizeof(e));
	e.flags = 1;
	EXPECT_EQ(-EINVAL, wsx_test_ioctl(fd, WSX_IOC_ENTER, &e));
	memset(&e, 0, sizeof(e));
	e.reserved = 1;
	EXPECT_EQ(-EINVAL, wsx_test_ioctl(fd, WSX_IOC_ENTER, &e));
	EXPECT_EQ(-E2BIG, wsx_tring_enter(&t, 0, 17, 0, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(fd, WSX_IOC_ENTER, (void *)8));
	/* nothing in flight: a wait times out */
	EXPECT_EQ(-ETIMEDOUT, wsx_tring_enter(&t, 0, 1, 1000000, NULL));
	wsx_tring_unmap(&t);
	close(fd);
}

/* ---- results, errors, indices ---------------------------------------- */

struct collect {
	struct wsx_completion recs[64];
	int count[64];
	int bad;
};

static bool collect_one(const struct wsx_completion *rec, void *arg)
{
	struct collect *c = arg;

	if (rec->user_data >= 64) {
		c->bad++;
		return false;
	}
	c->recs[rec->user_data] = *rec;
	c->count[rec->user_data]++;
	return true;
}

TEST(results_and_timestamps)
{
	struct collect c = { 0 };
	struct wsx_req reqs[4];
	struct wsx_tring t;
	int fd = wsx_test_open();
	__u64 t0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 8));
	reqs[0] = nop(0);
	reqs[1] = wsx_test_req(WSX_OP_FIB, 1, WSX_PLACE_GLOBAL, 0, 20, 0, 0);
	reqs[2] = wsx_test_req(WSX_OP_SPAWN, 2, WSX_PLACE_P, 0, 2, 3, 0);
	reqs[3] = nop(3);
	reqs[3].flags = WSX_REQ_TIMESTAMPS;
	t0 = wsx_test_now_ns();
	ASSERT_EQ(0, wsx_tring_run(&t, reqs, 4, collect_one, &c, 30 * SEC));
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(1, c.count[i]);
		EXPECT_EQ(0, c.recs[i].status);
	}
	EXPECT_EQ(6765, c.recs[1].result);
	EXPECT_EQ(15, c.recs[2].result);
	EXPECT_EQ(15, c.recs[2].nodes);
	/* untimed: no clock read, all zero */
	EXPECT_EQ(0, c.recs[0].queued_ns);
	EXPECT_EQ(0, c.recs[0].started_ns);
	EXPECT_EQ(0, c.recs[0].finished_ns);
	/* timed: ordered, after t0 */
	EXPECT_LE(t0, c.recs[3].queued_ns);
	EXPECT_LE(c.recs[3].queued_ns, c.recs[3].started_ns);
	EXPECT_LE(c.recs[3].started_ns, c.recs[3].finished_ns);
	EXPECT_LE(c.recs[3].finished_ns, wsx_test_now_ns());
	wsx_tring_unmap(&t);
	close(fd);
}

TEST(malformed_entries_get_error_records)
{
	struct collect c = { 0 };
	struct wsx_req reqs[8];
	struct wsx_tring t;
	int fd = wsx_test_open(), nprocs;
	static const int want[8] = {
		0, -EINVAL, -EINVAL, -E2BIG, -ENXIO, -EINVAL, -EINVAL, 0
	};

	ASSERT_LE(0, fd);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 8, 8));
	for (int i = 0; i < 8; i++)
		reqs[i] = nop(i);
	reqs[1].flags = 2;				/* unknown flag */
	reqs[2].op = 99;				/* unknown op */
	reqs[3] = wsx_test_req(WSX_OP_FIB, 3, 0, 0, 31, 0, 0);
	reqs[4] = wsx_test_req(WSX_OP_NOP, 4, WSX_PLACE_P, nprocs, 0, 0, 0);
	reqs[5].reserved = 1;
	reqs[6].args[3] = 1;				/* unused argument */
	ASSERT_EQ(0, wsx_tring_run(&t, reqs, 8, collect_one, &c, 30 * SEC));
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(1, c.count[i]);
		EXPECT_EQ(want[i], c.recs[i].status) TH_LOG("entry %d", i);
	}
	wsx_tring_unmap(&t);
	close(fd);
}

TEST(indices_out_of_range)
{
	struct collect c = { 0 };
	struct wsx_req r = nop(5);
	struct wsx_tring t;
	struct wsx_enter e;
	int fd = wsx_test_open();
	__u32 keep;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 8));
	ASSERT_TRUE(wsx_tring_push(&t, &r));
	/* an SQ tail more than sq_entries ahead, and one behind the head */
	keep = *t.sq_tail;
	*t.sq_tail = keep + 4;
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 8, 0, 0, &e));
	EXPECT_EQ(0, e.submitted);
	*t.sq_tail = keep - 2;
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 8, 0, 0, &e));
	*t.sq_tail = keep;
	/* a CQ head past the tail, and one too far behind it */
	*t.cq_head = 1;
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 8, 0, 0, &e));
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 0, 1, 0, &e));
	*t.cq_head = -9;
	EXPECT_EQ(-EINVAL, wsx_tring_enter(&t, 8, 0, 0, &e));
	*t.cq_head = 0;
	/* the shared SQ head and CQ tail are the module's: writes ignored */
	*t.sq_head = 77;
	*t.cq_tail = 1000;
	EXPECT_EQ(0, *t.cq_head);
	EXPECT_EQ(0, wsx_tring_enter(&t, 8, 1, 30 * SEC, &e));
	EXPECT_EQ(1, e.submitted);
	EXPECT_EQ(1, *t.sq_head);
	EXPECT_EQ(1, *t.cq_tail);
	EXPECT_EQ(1, wsx_tring_reap(&t, 0, collect_one, &c));
	EXPECT_EQ(1, c.count[5]);
	wsx_tring_unmap(&t);
	close(fd);
}

/* ---- backpressure ------------------------------------------------------ */

struct once {
	unsigned char *seen;
	size_t n;
	size_t dups, bad;
};

static bool once_one(const struct wsx_completion *rec, void *arg)
{
	struct once *o = arg;

	if (rec->user_data >= o->n || rec->status) {
		o->bad++;
		return false;
	}
	if (o->seen[rec->user_data]++)
		o->dups++;
	return true;
}

static size_t once_missing(const struct once *o)
{
	size_t missing = 0;

	for (size_t i = 0; i < o->n; i++)
		missing += !o->seen[i];
	return missing;
}

TEST(backpressure_holds_everything)
{
	struct wsx_req reqs[64];
	struct once o = { .n = 64 };
	struct wsx_tring t;
	struct wsx_enter e;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	o.seen = calloc(o.n, 1);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 16, 16));
	for (int i = 0; i < 64; i++)
		reqs[i] = nop(i);
	for (int i = 0; i < 16; i++)
		ASSERT_TRUE(wsx_tring_push(&t, &reqs[i]));
	ASSERT_EQ(0, wsx_tring_enter(&t, 16, 16, 30 * SEC, &e));
	EXPECT_EQ(16, e.submitted);
	EXPECT_EQ(0, e.error);
	/* the CQ is full and unread: nothing more goes in */
	for (int i = 16; i < 32; i++)
		ASSERT_TRUE(wsx_tring_push(&t, &reqs[i]));
	EXPECT_EQ(0, wsx_tring_enter(&t, 16, 0, 0, &e));
	EXPECT_EQ(0, e.submitted);
	EXPECT_EQ(-EBUSY, e.error);
	EXPECT_EQ(16, wsx_tring_unsubmitted(&t));
	/* the records wait until read; reading 5 lets exactly 5 in */
	usleep(100000);
	EXPECT_EQ(16, wsx_tring_ready(&t));
	EXPECT_EQ(5, wsx_tring_reap(&t, 5, once_one, &o));
	EXPECT_EQ(0, wsx_tring_enter(&t, 16, 0, 0, &e));
	EXPECT_EQ(5, e.submitted);
	EXPECT_EQ(-EBUSY, e.error);
	/*
	 * then the rest of the first 32, in a CQ far smaller than the total,
	 * until all 32 are read: an ENTER that does not wait may return
	 * before its items ran, so neither an empty CQ nor an empty SQ says
	 * they are done (wsx_tring_run() below counts 32 records, and a late
	 * one of these would stand for one of its own)
	 */
	for (long got = 5, n; got < 32; got += n) {
		n = wsx_tring_reap(&t, 0, once_one, &o);
		ASSERT_LE(0, n);
		ASSERT_EQ(0, wsx_tring_enter(&t, 16, n ? 0 : 1, 30 * SEC,
					     NULL));
		usleep(1000);
	}
	ASSERT_EQ(0, wsx_tring_run(&t, reqs + 32, 32, once_one, &o,
				   30 * SEC));
	EXPECT_EQ(0, o.dups);
	EXPECT_EQ(0, o.bad);
	EXPECT_EQ(0, once_missing(&o));
	free(o.seen);
	wsx_tring_unmap(&t);
	close(fd);
}

TEST(small_cq_many_items)
{
	size_t n = wsx_test_scaled(20000, 2000);
	struct once o = { .n = n };
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	struct wsx_tring t;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	o.seen = calloc(n, 1);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 4));
	for (size_t i = 0; i < n; i++)
		reqs[i] = wsx_test_req(i % 7 ? WSX_OP_NOP : WSX_OP_SPIN, i,
				       i % 3, 0, i % 7 ? 0 : 20000, 0, 0);
	ASSERT_EQ(0, wsx_tring_run(&t, reqs, n, once_one, &o, 30 * SEC));
	EXPECT_EQ(0, o.dups);
	EXPECT_EQ(0, o.bad);
	EXPECT_EQ(0, once_missing(&o));
	free(reqs);
	free(o.seen);
	wsx_tring_unmap(&t);
	close(fd);
}

/* ---- exactly once from 3 processes ------------------------------------- */

#define SPAWN_EVERY	1000
#define SPAWN_NODES	63	/* fanout 2, depth 5 */

static bool once_spawn(const struct wsx_completion *rec, void *arg)
{
	bool spawn = rec->user_data % SPAWN_EVERY == SPAWN_EVERY - 1;

	if (!once_one(rec, arg))
		return false;
	if (rec->nodes != (spawn ? SPAWN_NODES : 1))
		((struct once *)arg)->bad++;
	return true;
}

/*
 * One process's share: @n items, ids 0 .. n-1, through rings set up with
 * @flags; exit status 0 if right.
 */
static int once_child(size_t n, int nprocs, int which, __u32 flags)
{
	struct once o = { .n = n };
	struct wsx_req *reqs = calloc(n, sizeof(*reqs));
	struct wsx_tring t;
	int fd = wsx_test_open(), ret;
	size_t enters = 0;

	o.seen = calloc(n, 1);
	if (fd < 0 || !reqs || !o.seen ||
	    wsx_tring_setup_flags(&t, fd, 256 << which, 1024 << which, flags))
		return 2;
	for (size_t id = 0; id < n; id++) {
		__u16 place = (id + which) % 3;
		__u32 target = place == WSX_PLACE_P ? (id / 3) % nprocs : 0;

		if (id % SPAWN_EVERY == SPAWN_EVERY - 1)
			reqs[id] = wsx_test_req(WSX_OP_SPAWN, id, place, target,
						2, 5, 0);
		else
			reqs[id] = wsx_test_req(WSX_OP_NOP, id, place, target,
						0, 0, 0);
	}
	ret = wsx_tring_run_counted(&t, reqs, n, once_spawn, &o, 60 * SEC,
				    &enters);
	printf("# process %d: %zu items, %zu ENTER calls\n", which, n, enters);
	if (ret || o.dups || o.bad || once_missing(&o)) {
		fprintf(stderr, "# child %d: run %d dups %zu bad %zu missing %zu\n",
			which, ret, o.dups, o.bad, once_missing(&o));
		return 1;
	}
	return 0;
}

/* Exactly once over the items of 3 processes through rings of @flags. */
static void three_processes(struct __test_metadata *_metadata, __u32 flags)
{
	const char *env = getenv("WSX_RING_ITEMS");
	size_t n = env ? strtoul(env, NULL, 10) :
		   wsx_test_scaled(1000000, 30000);
	static char before[1 << 16], after[1 << 16];
	size_t share = n / 3, spawns = 0;
	long long executed;
	int fd = wsx_test_open(), nprocs, status;
	pid_t pid[3];

	ASSERT_LE(0, fd);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_LT(0, wsx_test_read_debugfs("stats", before, sizeof(before)));
	for (int i = 0; i < 3; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(once_child(share, nprocs, i, flags));
	}
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("process %d: status %#x", i, status);
	}
	ASSERT_LT(0, wsx_test_read_debugfs("stats", after, sizeof(after)));
	spawns = share / SPAWN_EVERY;
	executed = wsx_test_stat_sum(after, nprocs, "executed") -
		   wsx_test_stat_sum(before, nprocs, "executed");
	EXPECT_EQ((long long)3 * (share - spawns + spawns * SPAWN_NODES),
		  executed);
	TH_LOG("3 x %zu items through the rings: %lld executed", share,
	       executed);
	close(fd);
}

TEST_F_TIMEOUT(slow, exactly_once_three_processes, 900)
{
	three_processes(_metadata, 0);
}

TEST_F_TIMEOUT(slow, exactly_once_three_processes_pickup, 900)
{
	three_processes(_metadata, WSX_RING_SQ_PICKUP);
}

TEST(pickup_flag_and_crc32c)
{
	static unsigned char buf[3 * 4096 + 100];
	struct collect c = { 0 };
	struct wsx_req reqs[8];
	struct wsx_tring t;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd, 8, 16, WSX_RING_SQ_PICKUP));
	/* no M has looked: ENTER is needed */
	EXPECT_EQ(WSX_SQ_NEED_ENTER, *t.sq_flags);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i * 13 + 1;
	for (int i = 0; i < 8; i++)
		reqs[i] = nop(i);
	/* a CRC32C entry amid NOPs: the Ms leave it to ENTER */
	reqs[3] = wsx_test_req(WSX_OP_CRC32C, 3, 0, 0, (uintptr_t)buf,
			       sizeof(buf), 4096);
	ASSERT_EQ(0, wsx_tring_run(&t, reqs, 8, collect_one, &c, 30 * SEC));
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(1, c.count[i]);
		EXPECT_EQ(0, c.recs[i].status);
	}
	EXPECT_EQ(crc32c_ref(0, buf, sizeof(buf)), c.recs[3].result);
	/* once every M sleeps, each has announced it: ENTER needed again */
	usleep(300000);
	EXPECT_EQ(WSX_SQ_NEED_ENTER, *t.sq_flags);
	wsx_tring_unmap(&t);
	close(fd);
}

/* ---- two threads on one ring ------------------------------------------- */

struct shared_ring {
	struct wsx_tring t;
	pthread_mutex_t sq;		/* the SQ's writers: one at a time */
	struct once o;
	pthread_mutex_t cq;		/* the CQ's readers */
	size_t per_thread;
	int errors;
};

static void *ring_thread(void *arg)
{
	static int which;
	struct shared_ring *s = arg;
	size_t base = s->per_thread * __atomic_fetch_add(&which, 1,
							 __ATOMIC_RELAXED);
	size_t sent = 0;

	while (sent < s->per_thread) {
		struct wsx_req r = nop(base + sent);
		bool pushed;

		pthread_mutex_lock(&s->sq);
		pushed = wsx_tring_push(&s->t, &r);
		pthread_mutex_unlock(&s->sq);
		sent += pushed;
		/* both threads enter at once: the module serialises itself */
		if (wsx_tring_enter(&s->t, 64, 0, 0, NULL) < 0)
			s->errors++;
		pthread_mutex_lock(&s->cq);
		wsx_tring_reap(&s->t, 0, once_one, &s->o);
		pthread_mutex_unlock(&s->cq);
	}
	return NULL;
}

TEST(two_threads_one_ring)
{
	static struct shared_ring s;
	pthread_t th[2];
	int fd = wsx_test_open(), spins = 0;

	ASSERT_LE(0, fd);
	s.per_thread = wsx_test_scaled(20000, 1000);
	s.o.n = 2 * s.per_thread;
	s.o.seen = calloc(s.o.n, 1);
	pthread_mutex_init(&s.sq, NULL);
	pthread_mutex_init(&s.cq, NULL);
	ASSERT_EQ(0, wsx_tring_setup(&s.t, fd, 64, 128));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ring_thread, &s));
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	while (once_missing(&s.o) && spins++ < 3000) {
		wsx_tring_enter(&s.t, 64, 1, SEC, NULL);
		wsx_tring_reap(&s.t, 0, once_one, &s.o);
	}
	EXPECT_EQ(0, s.errors);
	EXPECT_EQ(0, s.o.dups);
	EXPECT_EQ(0, s.o.bad);
	EXPECT_EQ(0, once_missing(&s.o));
	wsx_tring_unmap(&s.t);
	close(fd);
}

/* ---- hostile userspace ------------------------------------------------- */

struct scribble {
	struct wsx_tring *t;
	volatile bool stop;
	unsigned int seed;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	__u32 *words = s->t->mem;
	size_t nwords = s->t->p.mmap_size / 4;

	while (!s->stop) {
		unsigned int r = rand_r(&s->seed);

		switch (r % 4) {
		case 0:
			*s->t->sq_tail += r % 64 - 16;
			break;
		case 1:
			*s->t->cq_head += r % 64 - 16;
			break;
		case 2:
			__atomic_store_n(s->t->sq_tail, r, __ATOMIC_RELEASE);
			break;
		default:	/* anything, the requests above all */
			words[(r >> 8) % nwords] = rand_r(&s->seed);
			break;
		}
	}
	return NULL;
}

/* The scribbler over a session's rings, then a new session runs items. */
static void scribble(struct __test_metadata *_metadata)
{
	static const long ok[] = { 0, -EINVAL, -ETIMEDOUT };
	struct scribble s = { .seed = 12345 };
	int fd = wsx_test_open(), calls = 0, odd = 0;
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 20000, 0, 0);
	struct collect c = { 0 };
	struct wsx_req reqs[4];
	struct wsx_tring t;
	pthread_t th;
	__u64 end;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 64, 128));
	s.t = &t;
	ASSERT_EQ(0, pthread_create(&th, NULL, scribbler, &s));
	end = wsx_test_now_ns() + 5 * SEC;
	while (wsx_test_now_ns() < end) {
		long ret;
		bool known = false;

		for (int i = 0; i < 8; i++)
			wsx_tring_push(&t, &r);
		ret = wsx_tring_enter(&t, rand() % 128, rand() % 3, 1000000,
				      NULL);
		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			known |= ret == ok[i];
		if (!known && odd++ < 5)
			TH_LOG("ENTER returned %ld", ret);
		calls++;
	}
	s.stop = true;
	pthread_join(th, NULL);
	EXPECT_EQ(0, odd);
	TH_LOG("%d ENTER calls under the scribbler", calls);
	wsx_tring_unmap(&t);
	close(fd);	/* waits for what runs */
	/* the module is fine: a new session runs items */
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 4));
	for (int i = 0; i < 4; i++)
		reqs[i] = nop(i);
	EXPECT_EQ(0, wsx_tring_run(&t, reqs, 4, collect_one, &c, 30 * SEC));
	wsx_tring_unmap(&t);
	close(fd);
}

TEST_F_TIMEOUT(slow, scribbler_while_items_run, 300)
{
	scribble(_metadata);
}

/*
 * The same as a non-root member of the group wsx (the packages' access,
 * wsx_test_group_device()), in a child: its failed ASSERT aborts it, a
 * failed EXPECT makes it exit 1.
 */
TEST_F_TIMEOUT(slow, scribbler_as_group_member, 300)
{
	struct wsx_test_node node = { 0 };
	int status = -1;
	gid_t gid = 0;
	pid_t pid;

	if (geteuid())
		SKIP(return, "not root: %s cannot be given to a group",
		     WSX_DEVICE_PATH);
	ASSERT_EQ(0, wsx_test_group_device(&node, &gid));
	TH_LOG("as uid %d in group %u", WSX_TEST_UID, (unsigned int)gid);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (wsx_test_become_member(gid))
			_exit(2);
		scribble(_metadata);
		_exit(_metadata->passed ? 0 : 1);
	}
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, wsx_test_restore_device(&node));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the member's child: wait status %#x", status);
	}
}

/* ---- munmap, fork, close, poll ----------------------------------------- */

/* Push @n requests like @r, user_data @from on, and ENTER them; true if so. */
static bool push_enter(struct wsx_tring *t, struct wsx_req r, int from, int n)
{
	for (int i = 0; i < n; i++) {
		r.user_data = from + i;
		if (!wsx_tring_push(t, &r))
			return false;
	}
	return !wsx_tring_enter(t, n, 0, 0, NULL);
}

TEST(munmap_while_items_run)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 1000000, 0, 0);
	struct once o = { .n = 64 };
	struct wsx_tring t;
	int fd = wsx_test_open();

	ASSERT_LE(0, fd);
	o.seen = calloc(o.n, 1);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 64, 64));
	ASSERT_TRUE(push_enter(&t, r, 0, 64));
	wsx_tring_unmap(&t);	/* the items run on */
	ASSERT_EQ(0, wsx_tring_enter(&t, 0, 64, 60 * SEC, NULL));
	/* mapped again: the records are all there */
	ASSERT_EQ(0, wsx_tring_map(&t));
	EXPECT_EQ(64, wsx_tring_reap(&t, 0, once_one, &o));
	EXPECT_EQ(0, once_missing(&o));
	wsx_tring_unmap(&t);
	/* and unmapped with items in flight, then closed */
	ASSERT_EQ(0, wsx_tring_map(&t));
	ASSERT_TRUE(push_enter(&t, r, 0, 64));
	wsx_tring_unmap(&t);
	close(fd);
	free(o.seen);
}

TEST(fork_shares_the_rings)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 200000, 0, 0);
	struct once o = { .n = 32 };
	struct wsx_tring t;
	int fd = wsx_test_open(), status;
	pid_t pid;

	ASSERT_LE(0, fd);
	o.seen = calloc(o.n, 1);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 32, 32));
	ASSERT_TRUE(push_enter(&t, r, 0, 16));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* the child reaps the parent's 16 and submits 16 of its own */
		int got = 0;

		while (got < 16) {
			if (wsx_tring_enter(&t, 0, 1, 30 * SEC, NULL))
				_exit(1);
			got += wsx_tring_reap(&t, 0, once_one, &o);
		}
		_exit(push_enter(&t, r, 16, 16) ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* the parent sees the child's head and reaps the child's items */
	EXPECT_EQ(16, *t.cq_head);
	while (once_missing(&o) > 16) {
		ASSERT_EQ(0, wsx_tring_enter(&t, 0, 1, 30 * SEC, NULL));
		wsx_tring_reap(&t, 0, once_one, &o);
	}
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(0, o.seen[i]);	/* the child read those */
	for (int i = 16; i < 32; i++)
		EXPECT_EQ(1, o.seen[i]);
	wsx_tring_unmap(&t);
	close(fd);
	free(o.seen);
}

/* The module's reference count (open sessions among them); -1. */
static long module_refcnt(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/module/wsx/refcnt", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* Items run since the module was loaded, over all Ps; -1. */
static long long executed_sum(void)
{
	static char text[1 << 16];
	long long sum = 0, v;

	if (wsx_test_read_debugfs("stats", text, sizeof(text)) <= 0)
		return -1;
	for (int p = 0; (v = wsx_test_stat(text, p, "executed")) >= 0; p++)
		sum += v;
	return sum;
}

/* Queued items, the global queues' and every P's; -1. */
static long long queued_sum(void)
{
	static char text[1 << 16];
	long long sum, v;

	if (wsx_test_read_debugfs("stats", text, sizeof(text)) <= 0)
		return -1;
	sum = wsx_test_stat(text, -1, "depth");
	for (int p = 0; (v = wsx_test_stat(text, p, "depth")) >= 0; p++)
		sum += v;
	return sum;
}

/*
 * A session whose 1024 items were in flight went away (@how: closed and
 * unmapped, or its process killed) when @ran of them had run since the
 * executed count was @exec0: its release ran (the module's reference
 * count back to @refcnt0), each of its items passed through an M exactly
 * once (executed grows by 1024, then not at all), those unfinished then
 * were cancelled - at least one, none that had run - and nothing stays
 * queued.  Counts, not times: the polls' bounds catch a hang only.
 */
static void expect_released(struct __test_metadata *_metadata,
			    const char *how, long refcnt0, long long exec0,
			    long long cancelled0, long long ran)
{
	long long exec_end, cancelled;
	long refcnt = -1;

	ASSERT_GT(1024, ran) {
		TH_LOG("all 1024 items had run before the session was %s: none to cancel",
		       how);
	}
	for (int i = 0; i < 300 && (refcnt = module_refcnt()) != refcnt0; i++)
		usleep(100000);
	EXPECT_EQ(refcnt0, refcnt);
	for (int i = 0; i < 300 && executed_sum() - exec0 < 1024; i++)
		usleep(100000);
	exec_end = executed_sum() - exec0;
	cancelled = wsx_test_global_stat("cancelled") - cancelled0;
	EXPECT_EQ(1024, exec_end);
	EXPECT_EQ(0, queued_sum());
	EXPECT_LE(1, cancelled);
	EXPECT_GE(1024 - ran, cancelled);
	usleep(200000);
	EXPECT_EQ(exec_end, executed_sum() - exec0);	/* nothing ran after */
	TH_LOG("%s with %lld of its 1024 items run; %lld cancelled", how, ran,
	       cancelled);
}

/*
 * A process killed while it waits in ENTER for the 1024 SPIN(5 ms) items it
 * submitted through its ring: its session goes away with it
 * (expect_released()).  The kill comes right after the child reports its
 * 1024 items queued, 5 s of work for the Ps, so some are still queued then
 * (checked: fewer than 1024 ran).
 */
static void kill_with_items_in_flight(struct __test_metadata *_metadata)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 5000000, 0, 0);
	long long exec0, exec_at_kill, cancelled0;
	long refcnt0 = module_refcnt();
	struct wsx_tring t;
	int pipefd[2], status, queued = 0;
	pid_t pid;

	ASSERT_LE(0, refcnt0);
	exec0 = executed_sum();
	cancelled0 = wsx_test_global_stat("cancelled");
	ASSERT_LE(0, exec0);
	ASSERT_LE(0, cancelled0);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = wsx_test_open();

		close(pipefd[0]);
		if (fd < 0 || wsx_tring_setup(&t, fd, 1024, 1024) ||
		    !push_enter(&t, r, 0, 1024))
			_exit(1);
		queued = 1024 - wsx_tring_unsubmitted(&t);
		if (write(pipefd[1], &queued, sizeof(queued)) != sizeof(queued))
			_exit(1);
		wsx_tring_enter(&t, 0, 1024, -1, NULL);
		_exit(1);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(queued), read(pipefd[0], &queued, sizeof(queued)));
	close(pipefd[0]);
	exec_at_kill = executed_sum() - exec0;
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_EQ(1024, queued);
	expect_released(_metadata, "killed", refcnt0, exec0, cancelled0,
			exec_at_kill);
}

/*
 * The same with a session closed, then unmapped, by the process itself:
 * the release comes at the munmap (expect_released()).
 */
TEST(close_and_kill_with_items_in_flight)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 5000000, 0, 0);
	long long exec0 = executed_sum(), exec_at_close;
	long long cancelled0 = wsx_test_global_stat("cancelled");
	long refcnt0 = module_refcnt();
	struct wsx_tring t;
	int fd;

	ASSERT_LE(0, refcnt0);
	ASSERT_LE(0, exec0);
	ASSERT_LE(0, cancelled0);
	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 1024, 1024));
	ASSERT_TRUE(push_enter(&t, r, 0, 1024));
	close(fd);		/* mapped still: release waits for munmap */
	exec_at_close = executed_sum() - exec0;
	wsx_tring_unmap(&t);
	expect_released(_metadata, "closed", refcnt0, exec0, cancelled0,
			exec_at_close);
	kill_with_items_in_flight(_metadata);
}

TEST(poll_sees_records)
{
	struct wsx_req r = wsx_test_req(WSX_OP_SPIN, 0, 0, 0, 20000000, 0, 0);
	struct wsx_tring t;
	int fd = wsx_test_open();
	struct pollfd pfd;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 4));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_TRUE(wsx_tring_push(&t, &r));
	ASSERT_EQ(0, wsx_tring_enter(&t, 1, 0, 0, NULL));
	/* the record comes 20 ms later: poll sleeps, then wakes */
	EXPECT_EQ(1, poll(&pfd, 1, 30000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	wsx_tring_unmap(&t);
	close(fd);
}

/* ---- idle pick-up sessions cost a park nothing (issue 20, finding 3) --- */

#define IDLE_SESSIONS	2000
#define IDLE_ROUNDS	200

/* The stats' global line's @key, or every P's @key summed (@sum); -1. */
static long long stat_now(const char *key, bool sum)
{
	static char text[1 << 16];
	long long total = 0, v;

	if (wsx_test_read_debugfs("stats", text, sizeof(text)) <= 0)
		return -1;
	if (!sum)
		return wsx_test_stat(text, -1, key);
	for (int p = 0; (v = wsx_test_stat(text, p, key)) >= 0; p++)
		total += v;
	return total;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Many pick-up sessions that each ran one NOP and went idle: a walk takes
 * them off the Ms' list, so that the parks of another session's round
 * trips visit a few rings each, not every idle one (before, each park read
 * every session's SQ tail).  Counts, not times: the times of the close go
 * in the log only.
 */
TEST_F_TIMEOUT(slow, idle_pickup_sessions_cost_a_park_nothing, 600)
{
	long long listed0, listed, visits0, parks0, visits, parks;
	struct wsx_req r = nop(1);
	struct wsx_tring *ts, t;
	struct timespec t0;
	struct rlimit rl;
	int n = IDLE_SESSIONS, fd;

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = rl.rlim_max;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_cur < (rlim_t)n + 64)
		n = rl.rlim_cur > 320 ? (int)rl.rlim_cur - 64 : 0;
	if (!n)
		SKIP(return, "RLIMIT_NOFILE's hard limit %llu is under 320",
		     (unsigned long long)rl.rlim_max);
	listed0 = stat_now("rings_listed", false);
	ASSERT_LE(0, listed0) TH_LOG("no rings_listed in the stats");
	ts = calloc(n, sizeof(*ts));
	ASSERT_NE(NULL, ts);
	for (int i = 0; i < n; i++) {
		fd = wsx_test_open();
		ASSERT_LE(0, fd) TH_LOG("session %d", i);
		ASSERT_EQ(0, wsx_tring_setup_flags(&ts[i], fd, 1, 1,
						   WSX_RING_SQ_PICKUP));
		ASSERT_TRUE(push_enter(&ts[i], r, 0, 1));
		while (!wsx_tring_ready(&ts[i]))
			ASSERT_LE(0, wsx_tring_enter(&ts[i], 0, 1, 10 * SEC,
						     NULL));
		ASSERT_EQ(1, wsx_tring_reap(&ts[i], 0, NULL, NULL));
	}
	/*
	 * once the sessions were idle for WSX_PICKUP_IDLE (a second), a walk
	 * takes them off: one more NOP of the last (which stays listed) wakes
	 * an M after it, then every M parks, each after a walk
	 */
	sleep(2);
	ASSERT_TRUE(push_enter(&ts[n - 1], r, 1, 1));
	while (!wsx_tring_ready(&ts[n - 1]))
		ASSERT_LE(0, wsx_tring_enter(&ts[n - 1], 0, 1, 10 * SEC, NULL));
	ASSERT_EQ(1, wsx_tring_reap(&ts[n - 1], 0, NULL, NULL));
	usleep(300000);
	listed = stat_now("rings_listed", false);
	EXPECT_GE(listed0 + 4, listed)
		TH_LOG("%lld of %d idle sessions still listed", listed - listed0,
		       n);

	fd = wsx_test_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wsx_tring_setup_flags(&t, fd, 1, 1, WSX_RING_SQ_PICKUP));
	visits0 = stat_now("rings_visited", false);
	parks0 = stat_now("parks", true);
	for (int i = 0; i < IDLE_ROUNDS; i++) {
		ASSERT_TRUE(push_enter(&t, r, i, 1));
		while (!wsx_tring_ready(&t))
			ASSERT_LE(0, wsx_tring_enter(&t, 0, 1, 10 * SEC, NULL));
		ASSERT_EQ(1, wsx_tring_reap(&t, 0, NULL, NULL));
	}
	visits = stat_now("rings_visited", false) - visits0;
	parks = stat_now("parks", true) - parks0;
	ksft_print_msg("%d idle sessions: %lld listed; %d round trips: %lld rings visited, %lld parks\n",
		       n, listed - listed0, IDLE_ROUNDS, visits, parks);
	/*
	 * each walk passes the listed rings twice (entries?, then the
	 * announce): the two busy ones and a few others, at most
	 */
	EXPECT_GE(8 * parks + 16, visits);
	EXPECT_LT(0, parks);
	wsx_tring_unmap(&t);
	close(fd);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) {
		wsx_tring_unmap(&ts[i]);
		close(ts[i].fd);
	}
	ksft_print_msg("closing %d idle sessions took %ld ms\n", n,
		       ms_since(&t0));
	free(ts);
	EXPECT_GE(listed0, stat_now("rings_listed", false));
}

/* ---- where an ENTER's item runs: the caller runs on, or waits --------- */

#define WHERE_ROUNDS	8

/* The schedtrace line's idleprocs and spinningthreads; false if unread. */
static bool idle_and_spinning(int *idle, int *spinning)
{
	char text[512];
	const char *a, *b;

	if (wsx_test_read_debugfs("schedtrace", text, sizeof(text)) <= 0)
		return false;
	a = strstr(text, "idleprocs=");
	b = strstr(text, "spinningthreads=");
	return a && b && sscanf(a, "idleprocs=%d", idle) == 1 &&
	       sscanf(b, "spinningthreads=%d", spinning) == 1;
}

/* Every P idle and no M spinning, within 2 s (scaled). */
static bool all_ps_idle(int nprocs)
{
	int idle = -1, spinning = -1;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (idle_and_spinning(&idle, &spinning) && idle == nprocs &&
		    !spinning)
			return true;
		usleep(2000);
	} while (ms_since(&t0) < 2000 * wsx_test_scale());
	return false;
}

/*
 * One NOP on this CPU's P (place LOCAL) through ENTER(1, @wait), with every
 * P idle, from CPU @cpu; without @wait the caller spins in userspace until
 * the record shows, as a submitter that runs on does.  The CPU that ran
 * it (a record with WSX_REQ_TIMESTAMPS), or -1 when not every P was idle
 * first (the round does not count), -2 on a failure (reported).
 */
static int ran_on(struct __test_metadata *_metadata, struct wsx_tring *t,
		  int nprocs, int cpu, bool wait)
{
	struct wsx_req r = nop(cpu);
	struct collect c = { 0 };
	struct timespec t0;
	cpu_set_t one;

	r.flags = WSX_REQ_TIMESTAMPS;	/* the record's cpu with it */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		EXPECT_EQ(0, errno);
		return -2;
	}
	if (!all_ps_idle(nprocs))
		return -1;
	EXPECT_TRUE(wsx_tring_push(t, &r));
	EXPECT_EQ(0, wsx_tring_enter(t, 1, wait, 10 * SEC, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!wsx_tring_ready(t) && ms_since(&t0) < 5000 * wsx_test_scale())
		;
	EXPECT_EQ(1, wsx_tring_reap(t, 0, collect_one, &c));
	EXPECT_EQ(1, c.count[cpu]);
	return c.count[cpu] == 1 ? (int)c.recs[cpu].cpu : -2;
}

/*
 * An ENTER that does not wait (min_complete 0) leaves its caller running
 * on its CPU: the item it queues on that CPU's idle P is run by another
 * idle P's M, which steals it, not by the P's own M, which would wait for
 * the caller's CPU (the flood at batch 1 parked and woke an M per item
 * that way).  An ENTER that waits frees its CPU: the P's own M runs it
 * there.  With every P idle before each round, from each of the first
 * nprocs CPUs this task may run on (the Ps are the first nprocs CPUs
 * online at load) in turn, the waiting ENTER first.
 */
TEST(enter_without_wait_runs_elsewhere)
{
	int runs_judged = 0, runs_here = 0, waits_judged = 0, waits_here = 0;
	int fd = wsx_test_open(), nprocs, ncpus = 0, got, idle, spinning;
	int cpus[WHERE_ROUNDS];
	char policy[32];
	struct wsx_tring t;
	cpu_set_t all;

	ASSERT_LE(0, fd);
	nprocs = wsx_test_nprocs(fd);
	ASSERT_LT(0, nprocs);
	if (wsx_test_param("steal_policy", policy, sizeof(policy)) > 0 &&
	    !strncmp(policy, "none", 4))
		SKIP(return, "steal_policy=none: no P steals another's item");
	if (!idle_and_spinning(&idle, &spinning))
		SKIP(return, "no schedtrace in debugfs: idle Ps unreadable");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	for (int c = 0; c < CPU_SETSIZE && ncpus < nprocs &&
	     ncpus < WHERE_ROUNDS; c++)
		if (CPU_ISSET(c, &all))
			cpus[ncpus++] = c;
	if (nprocs < 2 || ncpus < 2)
		SKIP(return, "one P or one CPU: no other P to run the item");
	ASSERT_EQ(0, wsx_tring_setup(&t, fd, 4, 8));
	for (int i = 0; i < WHERE_ROUNDS; i++) {
		int cpu = cpus[i % ncpus];

		got = ran_on(_metadata, &t, nprocs, cpu, true);
		if (got >= 0) {
			waits_judged++;
			waits_here += got == cpu;
		}
		got = ran_on(_metadata, &t, nprocs, cpu, false);
		if (got >= 0) {
			runs_judged++;
			runs_here += got == cpu;
		}
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	wsx_tring_unmap(&t);
	close(fd);
	ksft_print_msg("runs on: %d of %d items on the caller's CPU; waits: %d of %d\n",
		       runs_here, runs_judged, waits_here, waits_judged);
	if (runs_judged < WHERE_ROUNDS / 2 || waits_judged < WHERE_ROUNDS / 2)
		SKIP(return, "all Ps idle in %d + %d of %d rounds: a P offline or busy",
		     runs_judged, waits_judged, 2 * WHERE_ROUNDS);
	EXPECT_EQ(0, runs_here);
	EXPECT_EQ(waits_judged, waits_here);
}

TEST_HARNESS_MAIN
