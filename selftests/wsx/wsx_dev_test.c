// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/wsx device itself: it exists with the documented mode, answers
 * WSX_IOC_VERSION, rejects every other command with ENOTTY, and the debugfs
 * directory is there while the module is loaded.
 */
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "wsx_test.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = wsx_test_open();
	if (self->fd == -ENOENT)
		SKIP(return, "/dev/wsx missing: load wsx.ko first");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dev, mode_is_root_only_char_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(WSX_DEVICE_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
}

TEST_F(dev, version_reports_abi_and_nprocs)
{
	struct wsx_version v;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	char param[32];

	memset(&v, 0xa5, sizeof(v));
	ASSERT_EQ(0, wsx_test_ioctl(self->fd, WSX_IOC_VERSION, &v));
	EXPECT_EQ(WSX_ABI_MAJOR, v.abi_major);
	EXPECT_EQ(WSX_ABI_MINOR, v.abi_minor);
	EXPECT_LE(1U, v.nprocs);
	EXPECT_GE(online, (long)v.nprocs);
	/* the parameter shows the number in force, 0 (one per CPU) resolved */
	ASSERT_EQ(0, wsx_test_param("nprocs", param, sizeof(param)));
	EXPECT_EQ(v.nprocs, strtoul(param, NULL, 10));
	EXPECT_EQ(WSX_SUBMIT_MAX, v.submit_max);
	EXPECT_EQ(WSX_WAIT_MAX, v.wait_max);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0U, v.reserved[i]);
}

TEST_F(dev, version_bad_pointer_is_efault)
{
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION, NULL));
	EXPECT_EQ(-EFAULT, wsx_test_ioctl(self->fd, WSX_IOC_VERSION,
					  (void *)16));
}

TEST_F(dev, unknown_commands_are_enotty)
{
	char buf[256] = { 0 };
	const unsigned long cmds[] = {
		_IO(WSX_IOC_MAGIC, 0x7f),
		_IOR(WSX_IOC_MAGIC, 0x00, __u64),	/* VERSION, wrong size */
		_IOW(WSX_IOC_MAGIC, 0x00, struct wsx_version), /* wrong dir */
		_IOWR(WSX_IOC_MAGIC, 0x40, struct wsx_submit),
		_IOR('T', 0x01, int),			/* another magic */
		0,
		~0UL,
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(-ENOTTY, wsx_test_ioctl(self->fd, cmds[i], buf)) {
			TH_LOG("command %#lx", cmds[i]);
		}
	}
}

TEST_F(dev, debugfs_dir_exists)
{
	struct stat st;

	ASSERT_EQ(0, stat(WSX_DEBUGFS_PATH, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
}

TEST_HARNESS_MAIN
