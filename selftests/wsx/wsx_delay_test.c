// SPDX-License-Identifier: GPL-2.0
/*
 * Delayed items: 4 processes each submit 2,500 NOP items (WSX_SCALE
 * divides) with random delays of 0 .. 100 ms and random placements.  Every
 * item runs exactly once (one record for each user_data of each submitter) and none starts before its due time; the lateness
 * (start - due) percentiles are printed.  wsx_delay.sh runs it again while
 * CPUs go offline and online.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "wsx_test.h"

#define PROCS		4
#define MAX_DELAY_NS	100000000ULL

struct shared {
	long long lateness[PROCS][2500];
	unsigned char seen[PROCS][2500];	/* records of each identity */
	int early[PROCS];
	int bad[PROCS];
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void child(struct shared *sh, int c, size_t n)
{
	static struct wsx_completion recs[2500];
	static struct wsx_req reqs[2500];
	int fd = wsx_test_open(), nprocs;

	if (fd < 0)
		_exit(2);
	nprocs = wsx_test_nprocs(fd);
	srand(getpid());
	for (size_t i = 0; i < n; i++) {
		__u16 place = rand() % 3;

		reqs[i] = wsx_test_req(WSX_OP_NOP, i, place,
				       place == WSX_PLACE_P ? rand() % nprocs : 0,
				       0, 0, 0);
		reqs[i].delay_ns = ((unsigned long long)rand() << 16 ^ rand()) %
				   MAX_DELAY_NS;
	}
	for (size_t i = 0; i < n; i++) {
		/* a P whose CPU is offline refuses: use the global queue */
		if (wsx_test_submit(fd, &reqs[i], 1, NULL) == -ENXIO) {
			reqs[i].place = WSX_PLACE_GLOBAL;
			reqs[i].target = 0;
			if (wsx_test_submit(fd, &reqs[i], 1, NULL) != 1)
				_exit(3);
		}
	}
	for (size_t got = 0; got < n;) {
		long r = wsx_test_wait(fd, recs, 2500, 1, 30LL * 1000000000);

		if (r < 0)
			_exit(4);
		for (long i = 0; i < r; i++) {
			const struct wsx_completion *rec = &recs[i];
			__u64 id = rec->user_data;
			long long late;

			if (id >= n || rec->status || sh->seen[c][id]++) {
				sh->bad[c]++;
				continue;
			}
			late = (long long)(rec->started_ns - rec->queued_ns) -
			       (long long)reqs[id].delay_ns;
			sh->early[c] += late < 0;
			sh->lateness[c][id] = late;
		}
		got += r;
	}
	close(fd);
	_exit(0);
}

int main(void)
{
	size_t n = wsx_test_scaled(2500, 250), total = 0, once = 0;
	struct shared *sh;
	long long *all;
	int early = 0, bad = 0, failed = 0;

	ksft_print_header();
	ksft_set_plan(3);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap\n");
	memset(sh, 0, sizeof(*sh));
	for (int c = 0; c < PROCS; c++)
		if (!fork())
			child(sh, c, n);
	for (int c = 0; c < PROCS; c++) {
		int st;

		wait(&st);
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	all = calloc(PROCS * n, sizeof(*all));
	for (int c = 0; c < PROCS; c++) {
		early += sh->early[c];
		bad += sh->bad[c];
		for (size_t id = 0; id < n; id++) {
			if (sh->seen[c][id] != 1)
				continue;
			once++;
			all[total++] = sh->lateness[c][id];
		}
	}
	qsort(all, total, sizeof(*all), cmp_ll);
	if (total)
		ksft_print_msg("%zu delayed items: lateness p50 %lld us, p99 %lld us, max %lld us\n",
			       total, all[total / 2] / 1000,
			       all[total * 99 / 100] / 1000,
			       all[total - 1] / 1000);
	ksft_print_msg("%zu of %zu identities (user_data per submitter) seen exactly once, %d records unknown, failed or repeated\n",
		       once, PROCS * n, bad);
	ksft_test_result(!failed && !bad && once == PROCS * n,
			 "every delayed item ran exactly once\n");
	ksft_test_result(!early, "none started before its due time\n");
	ksft_test_result(!failed, "all %d submitters finished\n", PROCS);
	free(all);
	ksft_finished();
}
