// SPDX-License-Identifier: GPL-2.0
/*
 * The rings' memory is charged to the memory cgroup of the task that sets
 * them up (kmod/rings.c, "Memory"), as io_uring charges its rings, so a
 * cgroup's memory.max bounds what its users can make.  Each test runs in
 * a cgroup v2 of its own, with the memory controller (cgroup2 is mounted
 * for the test when /sys/fs/cgroup is not one).
 *
 * charged_and_returned: a setup of RING_ENTRIES entries each way raises
 * the cgroup's memory.current by at least the area's size; after close()
 * it falls back to within half of that (the charge's per-CPU batch stays),
 * and /proc/vmallocinfo has as many areas of wsx as before the setup (and
 * more while the rings are set up: the count can see them).
 *
 * beyond_the_limit: with memory.max 1 MiB above what the cgroup holds, the
 * same setup fails with ENOMEM, holds nothing after, and the cgroup's OOM
 * killer was not called; a small setup still works, and the large one does
 * once memory.max is lifted.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "wsx_rings.h"

#define RING_ENTRIES	16384		/* 2 MiB of entries each way */
#define SMALL_ENTRIES	256
#define LIMIT_ROOM	(1024LL * 1024)
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
	bool mounted;
	const char *skip;
	int fd;
};

FIXTURE_SETUP(memcg)
{
	self->fd = -1;
	self->cg[0] = '\0';
	self->skip = NULL;
	self->mounted = false;
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
		return;
	}
	ASSERT_EQ(0, cg_write(self->root, "cgroup.subtree_control", "+memory"));
	snprintf(self->cg, sizeof(self->cg), "%s/wsx_memcg_test.%d",
		 self->root, getpid());
	ASSERT_EQ(0, mkdir(self->cg, 0755));
	ASSERT_EQ(0, cg_write(self->cg, "cgroup.procs", "0"));
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(memcg)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->cg[0]) {
		cg_write(self->root, "cgroup.procs", "0");
		rmdir(self->cg);
	}
	if (self->mounted)
		umount(CG_MOUNT);
}

TEST_F(memcg, charged_and_returned)
{
	long long before, during, after;
	int areas_before, areas_during;
	struct wsx_tring t;

	if (self->skip)
		SKIP(return, "wsx_memcg_test: %s", self->skip);
	areas_before = wsx_vmalloc_areas();
	ASSERT_LE(0, areas_before);
	before = cg_read(self->cg, "memory.current", "");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, wsx_tring_setup(&t, self->fd, RING_ENTRIES, RING_ENTRIES));
	during = cg_read(self->cg, "memory.current", "");
	areas_during = wsx_vmalloc_areas();
	TH_LOG("area %llu bytes: memory.current %lld -> %lld, wsx areas %d -> %d",
	       (unsigned long long)t.p.mmap_size, before, during,
	       areas_before, areas_during);
	EXPECT_LE(before + (long long)t.p.mmap_size, during);
	EXPECT_LT(areas_before, areas_during);
	wsx_tring_unmap(&t);
	close(self->fd);
	self->fd = -1;
	after = cg_read(self->cg, "memory.current", "");
	TH_LOG("after close: memory.current %lld, wsx areas %d",
	       after, wsx_vmalloc_areas());
	EXPECT_GT(before + (long long)t.p.mmap_size / 2, after);
	EXPECT_EQ(areas_before, wsx_vmalloc_areas());
}

TEST_F(memcg, beyond_the_limit)
{
	long long before, after;
	struct wsx_tring t, small;
	char max[32];

	if (self->skip)
		SKIP(return, "wsx_memcg_test: %s", self->skip);
	before = cg_read(self->cg, "memory.current", "");
	ASSERT_LE(0, before);
	snprintf(max, sizeof(max), "%lld", before + LIMIT_ROOM);
	ASSERT_EQ(0, cg_write(self->cg, "memory.max", max));
	EXPECT_EQ(-ENOMEM, wsx_tring_setup(&t, self->fd, RING_ENTRIES,
					   RING_ENTRIES));
	after = cg_read(self->cg, "memory.current", "");
	TH_LOG("memory.max %s: memory.current %lld -> %lld, oom_kill %lld",
	       max, before, after,
	       cg_read(self->cg, "memory.events", "oom_kill"));
	EXPECT_GT(before + LIMIT_ROOM / 2, after);
	EXPECT_EQ(0, cg_read(self->cg, "memory.events", "oom_kill"));
	/* the refusal was the limit's: a small setup works, then a large */
	ASSERT_EQ(0, wsx_tring_setup(&small, self->fd, SMALL_ENTRIES,
				     SMALL_ENTRIES));
	wsx_tring_unmap(&small);
	close(self->fd);
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, cg_write(self->cg, "memory.max", "max"));
	ASSERT_EQ(0, wsx_tring_setup(&t, self->fd, RING_ENTRIES, RING_ENTRIES));
	wsx_tring_unmap(&t);
}

TEST_HARNESS_MAIN
