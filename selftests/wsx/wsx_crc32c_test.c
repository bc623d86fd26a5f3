// SPDX-License-Identifier: GPL-2.0
/*
 * WSX_OP_CRC32C against a userspace reference (crc32c_ref.h): the check
 * value; random buffers of sizes from 1 byte to 64 MiB (divided by
 * WSX_SCALE) at unaligned starts, split in random chunk sizes; buffers with
 * pages not faulted in yet (anonymous and shmem); a hole in the buffer; and
 * a buffer unmapped by another thread right at submission, which must give
 * the right checksum or -EFAULT, never a crash or a wrong sum.
 *
 * WSX_SEED=<n> repeats a run's random choices (its seed is printed).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "crc32c_ref.h"
#include "wsx_op_expect.h"
#include "wsx_test.h"

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
#define MIB		(1024 * 1024UL)

static __u64 rng_state;

static __u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __u64 seed_rng(void)
{
	const char *env = getenv("WSX_SEED");
	__u64 seed = env ? strtoull(env, NULL, 0) : wsx_test_now_ns();

	rng_state = seed ? seed : 1;
	return seed;
}

static void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;
	__u64 w;

	while (len >= 8) {
		w = rng();
		memcpy(p, &w, 8);
		p += 8;
		len -= 8;
	}
	w = rng();
	memcpy(p, &w, len);
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static struct wsx_req crc_req(__u64 id, const void *buf, __u64 len,
			      __u64 chunk)
{
	return wsx_test_req(WSX_OP_CRC32C, id, id % 3 == 2 ?
			    WSX_PLACE_GLOBAL : WSX_PLACE_LOCAL, 0,
			    (uintptr_t)buf, len, chunk);
}

/* Submit one CRC32C item and wait for its record; submit's return value. */
static long crc_run(int fd, struct wsx_req req, struct wsx_completion *rec)
{
	long ret = wsx_test_submit(fd, &req, 1, NULL);

	memset(rec, 0, sizeof(*rec));
	if (ret != 1)
		return ret;
	ret = wsx_test_wait(fd, rec, 1, 1, 120 * NSEC_PER_SEC);
	return ret == 1 ? 1 : ret;
}

FIXTURE(crc) {
	int fd;
};

FIXTURE_SETUP(crc)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(crc)
{
	close(self->fd);
}

TEST_F(crc, check_value)
{
	static const char check[] = "123456789";
	static unsigned char buf[3 * 4096];
	struct wsx_completion rec;
	__u64 chunks[] = { 0, 4096, WSX_CRC32C_MAX_LEN };

	/* the reference itself */
	ASSERT_EQ(0xe3069283, crc32c_ref(0, check, 9));
	ASSERT_EQ(0xe3069283, crc32c_ref_bytewise(0, check, 9));
	ASSERT_EQ(0xe3069283, crc32c_ref(crc32c_ref(0, check, 4),
					 check + 4, 5));
	seed_rng();
	fill_random(buf, sizeof(buf));
	for (size_t off = 0; off < 9; off++) {
		EXPECT_EQ(crc32c_ref_bytewise(0, buf + off,
					      sizeof(buf) - 2 * off),
			  crc32c_ref(0, buf + off, sizeof(buf) - 2 * off));
	}

	for (unsigned int i = 0; i < 3; i++) {
		ASSERT_EQ(1, crc_run(self->fd, crc_req(i, check, 9, chunks[i]),
				     &rec));
		EXPECT_EQ(0, rec.status);
		EXPECT_EQ(0xe3069283, rec.result) {
			TH_LOG("chunk %llu: %#llx",
			       (unsigned long long)chunks[i],
			       (unsigned long long)rec.result);
		}
		EXPECT_EQ(1, rec.nodes);
	}
	/* one byte, and zeros */
	ASSERT_EQ(1, crc_run(self->fd, crc_req(0, "a", 1, 0), &rec));
	EXPECT_EQ(crc32c_ref(0, "a", 1), rec.result);
	EXPECT_EQ(0xc1d04330, rec.result);
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(1, crc_run(self->fd, crc_req(0, buf, 32, 0), &rec));
	EXPECT_EQ(0x8a9136aa, rec.result);	/* RFC 3720 B.4: 32 zeros */
}

struct crc_case {
	unsigned char *map;
	size_t map_len;
	unsigned char *buf;
	__u64 len;
	__u64 chunk;
	__u32 want;
};

/*
 * Random buffers, all in flight at once: the listed sizes plus random ones,
 * at random offsets into their first page, in random chunk sizes.
 */
TEST_F_TIMEOUT(crc, random_buffers_match_reference, 300)
{
	static const __u64 chunk_set[] = { 0, 4096, 65536, MIB };
	__u64 sizes[32];
	struct crc_case c[32];
	static struct wsx_completion recs[32];
	size_t big = wsx_test_scaled(64 * MIB, 4 * MIB);
	int n = 0, got = 0;
	__u64 seed = seed_rng(), t0, t1;
	long ret;

	sizes[n++] = 1;
	sizes[n++] = 4095;
	sizes[n++] = 4096;
	sizes[n++] = 4097;
	sizes[n++] = MIB + 13;
	sizes[n++] = big;
	sizes[n++] = big;		/* twice: in chunk 0 and 1 MiB */
	for (int i = 0; i < 12; i++)
		sizes[n++] = 1 + rng() % (i < 6 ? 70000 : 8 * MIB);
	TH_LOG("seed %llu, largest buffer %zu MiB", (unsigned long long)seed,
	       big / MIB);

	t0 = wsx_test_now_ns();
	for (int i = 0; i < n; i++) {
		size_t off = i < 5 ? (i * 1237) % 4096 : rng() % 4096;

		if (i == 5)
			off = 0;	/* one page-aligned big one */
		c[i].len = sizes[i];
		c[i].chunk = i == 5 ? 0 : i == 6 ? MIB : rng() % 5 == 4 ?
			     4096 + rng() % 200000 : chunk_set[rng() % 4];
		c[i].map_len = (off + c[i].len + page_size() - 1) &
			       ~(page_size() - 1);
		c[i].map = map_anon(c[i].map_len);
		ASSERT_NE(NULL, c[i].map);
		c[i].buf = c[i].map + off;
		fill_random(c[i].buf, c[i].len);
		c[i].want = crc32c_ref(0, c[i].buf, c[i].len);
	}
	t1 = wsx_test_now_ns();
	for (int i = 0; i < n; i++) {
		struct wsx_req req = crc_req(i, c[i].buf, c[i].len,
					     c[i].chunk);

		ASSERT_EQ(1, wsx_test_submit(self->fd, &req, 1, NULL));
	}
	while (got < n) {
		ret = wsx_test_wait(self->fd, recs, 32, 1, 120 * NSEC_PER_SEC);
		ASSERT_LT(0, ret);
		for (long k = 0; k < ret; k++) {
			const struct wsx_completion *rec = &recs[k];
			const struct crc_case *cc;
			__u64 chunk;

			ASSERT_GT(n, rec->user_data);
			cc = &c[rec->user_data];
			chunk = wsx_expect_crc32c_chunk(cc->chunk);
			EXPECT_EQ(0, rec->status);
			EXPECT_EQ(cc->want, rec->result) {
				TH_LOG("len %llu at +%lu chunk %llu: %#llx, want %#x",
				       (unsigned long long)cc->len,
				       (unsigned long)(cc->buf - cc->map),
				       (unsigned long long)cc->chunk,
				       (unsigned long long)rec->result,
				       cc->want);
			}
			EXPECT_EQ(wsx_expect_crc32c_nodes(cc->len, chunk),
				  rec->nodes) {
				TH_LOG("len %llu chunk %llu",
				       (unsigned long long)cc->len,
				       (unsigned long long)chunk);
			}
			if (cc->len >= MIB)
				TH_LOG("%6llu KiB in chunks of %7llu: %4u nodes, %llu ms in the kernel",
				       (unsigned long long)cc->len / 1024,
				       (unsigned long long)chunk, rec->nodes,
				       (unsigned long long)(rec->finished_ns -
					rec->started_ns) / NSEC_PER_MSEC);
		}
		got += ret;
	}
	TH_LOG("%d buffers: reference sums in %llu ms, kernel ones in %llu ms",
	       n, (unsigned long long)(t1 - t0) / NSEC_PER_MSEC,
	       (unsigned long long)(wsx_test_now_ns() - t1) / NSEC_PER_MSEC);
	for (int i = 0; i < n; i++)
		munmap(c[i].map, c[i].map_len);
}

/*
 * Pages not faulted in yet: an anonymous mapping with only every third page
 * written (the others are read as zeros), one never touched at all, and a
 * shmem (memfd) file with holes.  The expected sum is computed after the
 * kernel's, so that the kernel is the first to touch those pages.
 */
TEST_F(crc, pages_not_faulted_in)
{
	size_t len = wsx_test_scaled(8 * MIB, MIB), ps = page_size();
	unsigned char *anon = map_anon(len), *untouched = map_anon(len);
	unsigned char *shm;
	struct wsx_completion rec;
	int mfd;

	seed_rng();
	ASSERT_NE(NULL, anon);
	ASSERT_NE(NULL, untouched);
	for (size_t pg = 0; pg < len / ps; pg += 3)
		fill_random(anon + pg * ps, ps);
	ASSERT_EQ(1, crc_run(self->fd, crc_req(1, anon + 100, len - 200, 0),
			     &rec));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(crc32c_ref(0, anon + 100, len - 200), rec.result);

	ASSERT_EQ(1, crc_run(self->fd, crc_req(2, untouched + 7, len - 7,
					       4096), &rec));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(crc32c_ref(0, untouched + 7, len - 7), rec.result);

	mfd = memfd_create("wsx-crc", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, len));
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, shm);
	for (size_t pg = 1; pg < len / ps; pg += 4)
		fill_random(shm + pg * ps, ps);
	ASSERT_EQ(1, crc_run(self->fd, crc_req(3, shm + 1, len - 1, 65536),
			     &rec));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(crc32c_ref(0, shm + 1, len - 1), rec.result);
	/* read-only mapping of the same file */
	munmap(shm, len);
	shm = mmap(NULL, len, PROT_READ, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, shm);
	ASSERT_EQ(1, crc_run(self->fd, crc_req(4, shm, len, 0), &rec));
	EXPECT_EQ(0, rec.status);
	EXPECT_EQ(crc32c_ref(0, shm, len), rec.result);
	munmap(shm, len);
	close(mfd);
	munmap(anon, len);
	munmap(untouched, len);
}

/* A hole or a PROT_NONE page inside the buffer: -EFAULT, nothing queued. */
TEST_F(crc, hole_in_buffer_is_efault)
{
	size_t len = MIB, ps = page_size();
	unsigned char *buf = map_anon(len);
	struct wsx_completion rec;
	struct wsx_req req;
	struct wsx_submit sub;

	ASSERT_NE(NULL, buf);
	memset(buf, 1, len);
	memset(&rec, 0, sizeof(rec));
	ASSERT_EQ(0, mprotect(buf + len / 4, ps, PROT_NONE));
	req = crc_req(1, buf + 5, len - 10, 0);
	memset(&sub, 0, sizeof(sub));
	EXPECT_EQ(-EFAULT, wsx_test_submit(self->fd, &req, 1, &sub));
	EXPECT_EQ(-EFAULT, sub.error);
	ASSERT_EQ(0, munmap(buf + len / 2, ps));
	req = crc_req(2, buf + len / 4 + ps, len / 2, 0);
	EXPECT_EQ(-EFAULT, wsx_test_submit(self->fd, &req, 1, NULL));
	/* the part after the hole is fine */
	ASSERT_EQ(1, crc_run(self->fd, crc_req(3, buf + len / 2 + ps,
					       len / 2 - ps, 4096), &rec));
	EXPECT_EQ(crc32c_ref(0, buf + len / 2 + ps, len / 2 - ps), rec.result);
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
	munmap(buf, len);
}

struct unmapper {
	atomic_int go;
	void *buf;
	size_t len;
	int ret;
};

static void *unmap_thread(void *arg)
{
	struct unmapper *u = arg;

	while (!atomic_load(&u->go))
		;
	u->ret = munmap(u->buf, u->len);
	return NULL;
}

/*
 * Another thread unmaps the buffer while WSX_IOC_SUBMIT pins it: the submit
 * fails with -EFAULT, or it succeeds and the item sums the data the pinned
 * pages hold, which is the original data.  Then the same with the munmap
 * strictly after a successful submit: always the right sum.
 */
TEST_F_TIMEOUT(crc, munmap_right_after_submit, 240)
{
	int rounds = wsx_test_scaled(20, 4);
	size_t len = wsx_test_scaled(16 * MIB, 2 * MIB);
	int efault = 0, summed = 0;
	struct wsx_completion rec;

	seed_rng();
	for (int r = 0; r < 2 * rounds; r++) {
		bool racing = r < rounds;
		struct unmapper u = { .len = len };
		struct wsx_req req;
		pthread_t th;
		__u32 want;
		long ret;

		u.buf = map_anon(len);
		ASSERT_NE(NULL, u.buf);
		fill_random(u.buf, len);
		want = crc32c_ref(0, u.buf, len);
		req = crc_req(r, u.buf, len, r % 2 ? 0 : MIB);
		ASSERT_EQ(0, pthread_create(&th, NULL, unmap_thread, &u));
		if (racing)
			atomic_store(&u.go, 1);
		ret = wsx_test_submit(self->fd, &req, 1, NULL);
		if (!racing) {
			ASSERT_EQ(1, ret);
			atomic_store(&u.go, 1);
		}
		ASSERT_EQ(0, pthread_join(th, NULL));
		ASSERT_EQ(0, u.ret);
		ASSERT_TRUE(ret == 1 || ret == -EFAULT) {
			TH_LOG("round %d: submit gave %ld", r, ret);
		}
		if (ret == -EFAULT) {
			efault++;
			continue;
		}
		summed++;
		memset(&rec, 0, sizeof(rec));
		ASSERT_EQ(1, wsx_test_wait(self->fd, &rec, 1, 1,
					   120 * NSEC_PER_SEC));
		EXPECT_EQ(r, rec.user_data);
		EXPECT_TRUE(rec.status == 0 || rec.status == -EFAULT);
		if (!rec.status) {
			EXPECT_EQ(want, rec.result) {
				TH_LOG("round %d: %#llx, want %#x", r,
				       (unsigned long long)rec.result, want);
			}
		}
	}
	TH_LOG("%d racing rounds and %d after submit of %zu MiB: %d summed, %d -EFAULT",
	       rounds, rounds, len / MIB, summed, efault);
	EXPECT_EQ(-ETIMEDOUT, wsx_test_wait(self->fd, &rec, 1, 1,
					    100 * NSEC_PER_MSEC));
}

TEST_HARNESS_MAIN
