// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen batches: a wide SPAWN tree queued on P0 gives thieves full rings
 * to steal from; every steal in /sys/kernel/debug/wsx/steal_log must have
 * taken what the module's steal_policy says of the victim's ring length at
 * the thief's snapshot.  wsx_policies.sh runs it under each policy.
 */
#include "../kselftest_harness.h"
#include "wsx_test.h"

FIXTURE(steal) {
	int fd;
	int nprocs;
};

FIXTURE_SETUP(steal)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	self->nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, self->nprocs);
}

FIXTURE_TEARDOWN(steal)
{
	close(self->fd);
}

/*
 * Every logged steal took what the steal policy says of the victim's ring
 * as the thief saw it: n - n/2 for "half".  Steals of a runnext item (seen
 * ring length 0) take exactly one.
 */
TEST_F(steal, stolen_batches_follow_the_policy)
{
	static char log[1 << 16];
	struct wsx_req req = wsx_test_req(WSX_OP_SPAWN, 0, WSX_PLACE_P, 0,
					  64, 2, 20000);
	struct wsx_completion rec = { 0 };
	char policy[16];
	unsigned int p, victim, seen, taken, checked = 0;
	char *line;

	if (self->nprocs < 2)
		SKIP(return, "needs 2 Ps or more, the module has %d",
		     self->nprocs);
	ASSERT_EQ(0, wsx_test_param("steal_policy", policy, sizeof(policy)));
	if (!strcmp(policy, "none"))
		SKIP(return, "steal_policy=none steals nothing");
	/* a wide tree on one P gives thieves full rings to steal from */
	ASSERT_EQ(0, wsx_test_collect(self->fd, &req, 1, &rec));
	EXPECT_EQ(1 + 64 + 64 * 64, rec.result);
	ASSERT_LT(0, wsx_test_read_debugfs("steal_log", log, sizeof(log)));

	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned int want;

		ASSERT_EQ(4, sscanf(line, "P%u victim=%u seen=%u taken=%u",
				    &p, &victim, &seen, &taken));
		if (!seen)
			want = 1;
		else if (!strcmp(policy, "half"))
			want = seen - seen / 2;
		else if (!strcmp(policy, "one"))
			want = 1;
		else
			want = seen;
		EXPECT_EQ(want, taken) {
			TH_LOG("policy %s: %s", policy, line);
		}
		EXPECT_NE(p, victim);
		checked++;
	}
	TH_LOG("%u steals checked against steal_policy=%s", checked, policy);
	EXPECT_LT(0, checked);
}

TEST_HARNESS_MAIN
