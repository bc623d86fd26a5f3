// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen batches against what the test itself queued: P0 runs a SPIN item
 * while N NOPs wait on it, and the other Ps steal them.  The steal log
 * (/sys/kernel/debug/wsx/steal_log, zeroed first) must account for exactly
 * those N: the steals from P0 took N in all, the first saw all N and took
 * what the policy says of N, and every P ran as many as were queued on it
 * (N on P0), plus what it took, minus what was taken from it (the records
 * say which CPU ran each NOP; P n runs on CPU n).  wsx_policies.sh runs it under each policy.
 */
#include "../kselftest_harness.h"
#include "wsx_test.h"

FIXTURE(steal) {
	int fd;
	int nprocs;
	char max_item_ns[32];	/* the module's, restored at the end */
};

FIXTURE_SETUP(steal)
{
	self->fd = wsx_test_open();
	ASSERT_LE(0, self->fd);
	self->nprocs = wsx_test_nprocs(self->fd);
	ASSERT_LT(0, self->nprocs);
	ASSERT_EQ(0, wsx_test_param("max_item_ns", self->max_item_ns,
				    sizeof(self->max_item_ns)));
}

FIXTURE_TEARDOWN(steal)
{
	/* a round may have raised it for a longer SPIN */
	wsx_test_param_set("max_item_ns", self->max_item_ns);
	close(self->fd);
}

#define N	12	/* under WSX_STEAL_LOG: no thief's log wraps */
#define MAX_PS	64

static unsigned int policy_take(const char *policy, unsigned int seen)
{
	if (!seen)
		return 1;	/* a runnext item */
	if (!strcmp(policy, "half"))
		return seen - seen / 2;
	if (!strcmp(policy, "one"))
		return 1;
	return seen;
}

struct round {
	int ran[MAX_PS];	/* NOPs run per CPU, from the records */
	int in[MAX_PS], out[MAX_PS];	/* taken by, taken from, per P */
	unsigned int from_p0, seen_max, taken_at_max, logged;
};

/* P0 has taken its SPIN to run: nothing queued on it (inbox included). */
static void wait_p0_took_spin(void)
{
	static char text[1 << 16];

	for (int i = 0; i < 1000; i++) {
		if (wsx_test_read_debugfs("stats", text, sizeof(text)) > 0 &&
		    !wsx_test_stat(text, 0, "depth"))
			return;
		usleep(100);
	}
}

/*
 * One round: SPIN on P0, then, once P0 runs it, N NOPs on P0.  False when
 * the SPIN ran elsewhere or P0 ran one of the NOPs itself (its SPIN ended
 * before thieves took them all): the round did not set up what it checks.
 */
static bool steal_round(struct __test_metadata *_metadata, int fd,
			int nprocs, __u64 spin_ns, const char *policy,
			struct round *r)
{
	static char log[1 << 16];
	struct wsx_completion recs[N + 1];
	struct wsx_req reqs[N + 1];
	unsigned int p, victim, seen, taken;
	bool spin_moved = false;
	char *line;
	int len;

	memset(r, 0, sizeof(*r));
	reqs[0] = wsx_test_req(WSX_OP_SPIN, 0, WSX_PLACE_P, 0, spin_ns, 0, 0);
	for (int i = 1; i <= N; i++)
		reqs[i] = wsx_test_req(WSX_OP_NOP, i, WSX_PLACE_P, 0, 0, 0, 0);
	ASSERT_EQ(0, wsx_test_write_file(WSX_DEBUGFS_PATH "/reset", "1"));
	ASSERT_EQ(1, wsx_test_submit(fd, reqs, 1, NULL));
	wait_p0_took_spin();
	ASSERT_EQ(N, wsx_test_submit(fd, reqs + 1, N, NULL));
	ASSERT_EQ(N + 1, wsx_test_wait(fd, recs, N + 1, N + 1,
				       100LL * 1000000000));
	/* empty when P0 ran them all itself: a round redone below */
	len = wsx_test_read_debugfs("steal_log", log, sizeof(log));
	ASSERT_LE(0, len);
	for (int i = 0; i <= N; i++) {
		ASSERT_EQ(0, recs[i].status);
		ASSERT_GT(nprocs, (int)recs[i].cpu);
		if (recs[i].user_data)
			r->ran[recs[i].cpu]++;
		else if (recs[i].cpu)
			spin_moved = true;
	}
	if (spin_moved || r->ran[0])
		return false;
	/* every NOP ran off P0: stolen, so logged */
	ASSERT_LT(0, len);
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		ASSERT_EQ(4, sscanf(line, "P%u victim=%u seen=%u taken=%u",
				    &p, &victim, &seen, &taken));
		ASSERT_GT(nprocs, (int)p);
		ASSERT_GT(nprocs, (int)victim);
		EXPECT_NE(p, victim);
		EXPECT_EQ(policy_take(policy, seen), taken) {
			TH_LOG("policy %s: %s", policy, line);
		}
		r->in[p] += taken;
		r->out[victim] += taken;
		if (victim == 0) {
			r->from_p0 += taken;
			if (seen > r->seen_max) {
				r->seen_max = seen;
				r->taken_at_max = taken;
			}
		}
		r->logged++;
	}
	return true;
}

TEST_F_TIMEOUT(steal, stolen_batches_follow_the_policy, 120)
{
	char policy[16], ns[32];
	__u64 spin_ns, spin_max;
	struct round r;
	int tries = 0;

	if (self->nprocs < 2 || self->nprocs > MAX_PS)
		SKIP(return, "needs 2 .. %d Ps, the module has %d", MAX_PS,
		     self->nprocs);
	ASSERT_EQ(0, wsx_test_param("steal_policy", policy, sizeof(policy)));
	if (!strcmp(policy, "none"))
		SKIP(return, "steal_policy=none steals nothing");
	/*
	 * the longest SPIN the module takes, up to 200 ms, WSX_SCALE times
	 * that on a slow kernel: a guest whose vCPUs share one host thread
	 * runs the thieves' vCPUs in turns while P0's spins, and the KCSAN
	 * boot beside the KASAN one, in CI, ran 2 to 10 of the NOPs on P0
	 * in each of 10 rounds at 200 ms
	 */
	spin_max = 200000000ULL * wsx_test_scale();
	spin_ns = strtoull(self->max_item_ns, NULL, 10);
	if (spin_ns > spin_max)
		spin_ns = spin_max;
	while (!steal_round(_metadata, self->fd, self->nprocs, spin_ns,
			    policy, &r)) {
		TH_LOG("round %d: P0 did not run the SPIN of %llu us, or ran %d of the NOPs itself: again",
		       tries, (unsigned long long)spin_ns / 1000, r.ran[0]);
		ASSERT_GT(10, ++tries) {
			TH_LOG("thieves never took all %d NOPs during P0's SPIN of %llu us",
			       N, (unsigned long long)spin_ns / 1000);
		}
		/*
		 * a slow guest's thieves (a debug kernel's, two guests on
		 * two host cores) may need longer: the SPIN doubles, up to
		 * spin_max, the module's bound raised to it (the teardown
		 * puts it back)
		 */
		if (spin_ns < spin_max) {
			spin_ns = spin_ns * 2 > spin_max ? spin_max :
				  spin_ns * 2;
			snprintf(ns, sizeof(ns), "%llu",
				 (unsigned long long)spin_ns);
			ASSERT_EQ(0, wsx_test_param_set("max_item_ns", ns));
		}
	}
	TH_LOG("steal_policy=%s: %u steals logged; from P0 %u items, the first seeing %u and taking %u",
	       policy, r.logged, r.from_p0, r.seen_max, r.taken_at_max);
	/*
	 * The thieves are woken as the NOPs are queued, so the first steal may
	 * see fewer than N (1 of 12 at 2 Ps): each steal's take is checked
	 * against the policy above, the total and the balance here.
	 */
	EXPECT_EQ(N, r.from_p0);
	/* the N were queued on P0, and moved only by the steals logged */
	for (int p = 0; p < self->nprocs; p++) {
		int ran = r.ran[p], in = r.in[p], out = r.out[p];

		EXPECT_EQ(ran, (p ? 0 : N) + in - out) {
			TH_LOG("P%d ran %d NOPs, took %d, gave %d", p, ran, in,
			       out);
		}
	}
}

TEST_HARNESS_MAIN
