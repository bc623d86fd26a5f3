// SPDX-License-Identifier: GPL-2.0
/*
 * The rings' memory is charged to the memory cgroup of the task that sets
 * them up (kmod/rings.c, "Memory"), as io_uring charges its rings, so a
 * cgroup's memory.max bounds what its users can make.  Each test runs in
 * a cgroup v2 of its own, with the memory controller (cgroup2 is mounted
 * for the test when /sys/fs/cgroup is not one), on one CPU, so that the
 * charges' per-CPU batch (64 pages) is the only noise, with
 * ring_max_entries at its most (65536) for the test, so that what is
 * measured is far above that noise.
 *
 * Two setups with the same CQ, S1 with a small SQ and S2 with a large one,
 * differ only by their shared pages (the job slots go with the CQ): the
 * charge of each is what memory.current grew by while its session was
 * open.
 *
 * charged_and_returned: S2's charge exceeds S1's by at least half of what
 * S2's area exceeds S1's (so the shared pages are charged, not only the
 * slots); after close() memory.current falls back to within two batches,
 * and /proc/vmallocinfo has as many areas of wsx as before (and more
 * while S2 is set up: the count can see them).
 *
 * beyond_the_limit: with memory.max at what the cgroup holds plus S1's
 * charge plus half the areas' difference, S2 fails with ENOMEM, holds
 * nothing after (within two batches), and the cgroup's OOM killer was not
 * even considered (no oom event); S1 still
 * works under that limit, and S2 once memory.max is lifted.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "wsx_rings.h"

#define CQ_ENTRIES	65536
#define S1_SQ		1024
#define S2_SQ		65536		/* 4 MiB more of SQ entries than S1 */
#define MAX_ENTRIES	"65536"
/* two per-CPU batches of charges (64 pages each) */
#define SLACK		(2LL * 64 * sysconf(_SC_PAGESIZE))
#define CG_MOUNT	"/tmp/wsx_memcg"

/* The value of @key in the cgroup file @dir/@name ("" for a lone value). */
static long long cg_read(const char *dir, const char *name, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!klen) {
			v = strtoll(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int cg_write(const char *dir, const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return wsx_test_write_file(path, val);
}

/* Areas of wsx in /proc/vmallocinfo (each names its caller's module). */
static int wsx_vmalloc_areas(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/vmallocinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, "[wsx]");
	fclose(f);
	return n;
}

/* Does @dir/cgroup.controllers list "memory"? */
static bool cg_has_memory(const char *dir)
{
	char path[256], buf[512];
	FILE *f;
	bool yes = false;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		yes = !!strstr(buf, "memory");
	fclose(f);
	return yes;
}

FIXTURE(memcg) {
	char root[128];
	char cg[192];
	char home[256];		/* the cgroup the test came from */
	char max_entries[32];	/* ring_max_entries before the test */
	bool mounted;
	const char *skip;
};

/* The cgroup v2 path of this process, under @root, in @buf. */
static int cg_own(const char *root, char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			ret = snprintf(buf, len, "%s%s", root, line + 3) <
			      (int)len ? 0 : -1;
		}
	fclose(f);
	return ret;
}

/*
 * Set up rings of @sq, @cq entries on a new session: what memory.current
 * grew by in *@charge, the area's size in *@area; the session is closed
 * unless @fd is not NULL.  0 or -errno.
 */
static int setup_charge(const char *cg, __u32 sq, __u32 cq,
			long long *charge, __u32 *area, int *fd)
{
	struct wsx_ring_setup p = { .sq_entries = sq, .cq_entries = cq };
	int f = wsx_test_open();
	long long before;
	long ret;

	if (f < 0)
		return f;
	before = cg_read(cg, "memory.current", "");
	ret = wsx_test_ioctl(f, WSX_IOC_RING_SETUP, &p);
	if (charge)
		*charge = cg_read(cg, "memory.current", "") - before;
	if (area)
		*area = p.mmap_size;
	if (fd && !ret)
		*fd = f;
	else
		close(f);
	return (int)ret;
}

FIXTURE_SETUP(memcg)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	self->cg[0] = '\0';
	self->max_entries[0] = '\0';
	self->skip = NULL;
	self->mounted = false;
	ASSERT_LE(0, cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	snprintf(self->root, sizeof(self->root), "/sys/fs/cgroup");
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		mkdir(CG_MOUNT, 0755);
		if (mount("none", CG_MOUNT, "cgroup2", 0, NULL)) {
			self->skip = "cgroup2 cannot be mounted";
			return;
		}
		self->mounted = true;
		snprintf(self->root, sizeof(self->root), CG_MOUNT);
	}
	if (!cg_has_memory(self->root)) {
		self->skip = "no memory controller in cgroup2";
		goto unmount;
	}
	if (cg_write(self->root, "cgroup.subtree_control", "+memory")) {
		self->skip = "the memory controller cannot be enabled here";
		goto unmount;
	}
	if (cg_own(self->root, self->home, sizeof(self->home))) {
		self->skip = "no cgroup v2 line in /proc/self/cgroup";
		goto unmount;
	}
	snprintf(self->cg, sizeof(self->cg), "%s/wsx_memcg_test.%d",
		 self->root, getpid());
	if (mkdir(self->cg, 0755) || cg_write(self->cg, "cgroup.procs", "0")) {
		TH_LOG("%s: %m", self->cg);
		rmdir(self->cg);
		self->cg[0] = '\0';
		goto unmount;
	}
	ASSERT_EQ(0, wsx_test_param("ring_max_entries", self->max_entries,
				    sizeof(self->max_entries)));
	ASSERT_EQ(0, wsx_test_param_set("ring_max_entries", MAX_ENTRIES));
	return;
unmount:
	if (self->mounted) {
		umount(CG_MOUNT);
		rmdir(CG_MOUNT);
		self->mounted = false;
	}
	ASSERT_NE(NULL, self->skip);
}

FIXTURE_TEARDOWN(memcg)
{
	if (self->max_entries[0] &&
	    wsx_test_param_set("ring_max_entries", self->max_entries))
		TH_LOG("ring_max_entries not set back to %s", self->max_entries);
	if (self->cg[0] && (cg_write(self->home, "cgroup.procs", "0") ||
			    rmdir(self->cg)))
		TH_LOG("leaving %s for %s: %m", self->cg, self->home);
	if (self->mounted) {
		umount(CG_MOUNT);
		rmdir(CG_MOUNT);
	}
}

TEST_F(memcg, charged_and_returned)
{
	long long before, after, c1, c2;
	int areas_before, areas_during, fd;
	__u32 a1, a2;

	if (self->skip)
		SKIP(return, "wsx_memcg_test: %s", self->skip);
	areas_before = wsx_vmalloc_areas();
	ASSERT_LE(0, areas_before);
	before = cg_read(self->cg, "memory.current", "");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, setup_charge(self->cg, S1_SQ, CQ_ENTRIES, &c1, &a1, NULL));
	ASSERT_EQ(0, setup_charge(self->cg, S2_SQ, CQ_ENTRIES, &c2, &a2, &fd));
	areas_during = wsx_vmalloc_areas();
	close(fd);
	after = cg_read(self->cg, "memory.current", "");
	TH_LOG("S1 area %u charged %lld, S2 area %u charged %lld", a1, c1, a2,
	       c2);
	TH_LOG("after close %lld (before %lld); wsx areas %d, %d, %d", after,
	       before, areas_before, areas_during, wsx_vmalloc_areas());
	EXPECT_LE((long long)(a2 - a1) / 2, c2 - c1);
	EXPECT_GT(before + SLACK, after);
	EXPECT_LT(areas_before, areas_during);
	EXPECT_EQ(areas_before, wsx_vmalloc_areas());
}

TEST_F(memcg, beyond_the_limit)
{
	long long base, after, c1;
	__u32 a1, a2;
	char max[32];

	if (self->skip)
		SKIP(return, "wsx_memcg_test: %s", self->skip);
	ASSERT_EQ(0, setup_charge(self->cg, S1_SQ, CQ_ENTRIES, &c1, &a1, NULL));
	ASSERT_EQ(0, setup_charge(self->cg, S2_SQ, CQ_ENTRIES, NULL, &a2, NULL));
	base = cg_read(self->cg, "memory.current", "");
	ASSERT_LE(0, base);
	snprintf(max, sizeof(max), "%lld", base + c1 + (a2 - a1) / 2);
	ASSERT_EQ(0, cg_write(self->cg, "memory.max", max));
	EXPECT_EQ(-ENOMEM, setup_charge(self->cg, S2_SQ, CQ_ENTRIES, NULL,
					NULL, NULL));
	after = cg_read(self->cg, "memory.current", "");
	TH_LOG("memory.max %s (S1 charged %lld): memory.current %lld -> %lld, oom_kill %lld",
	       max, c1, base, after,
	       cg_read(self->cg, "memory.events", "oom_kill"));
	EXPECT_GT(base + SLACK, after);
	/* not even considered: no oom event, let alone a kill */
	EXPECT_EQ(0, cg_read(self->cg, "memory.events", "oom"));
	EXPECT_EQ(0, cg_read(self->cg, "memory.events", "oom_kill"));
	/* the refusal was the limit's: S1 fits under it, S2 without it */
	EXPECT_EQ(0, setup_charge(self->cg, S1_SQ, CQ_ENTRIES, NULL, NULL,
				  NULL));
	ASSERT_EQ(0, cg_write(self->cg, "memory.max", "max"));
	EXPECT_EQ(0, setup_charge(self->cg, S2_SQ, CQ_ENTRIES, NULL, NULL,
				  NULL));
}

TEST_HARNESS_MAIN
