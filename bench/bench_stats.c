// SPDX-License-Identifier: GPL-2.0
/*
 * The stats reader of wsx_chanbench and wsx_pollbench: see bench_stats.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stats.h"

static const char *const pkeys[BENCH_STATS_NKEYS] = {
	"ready_runnext", "runnext_hits", "stolen", "item_parks", "executed",
	"spins", "parks", "wakeups",
};

long long bench_stats_field(const char *line, const char *key)
{
	size_t len = strlen(key);
	const char *s = line;

	while ((s = strstr(s, key))) {
		if ((s == line || s[-1] == ' ') && s[len] == '=')
			return strtoll(s + len + 1, NULL, 10);
		s += len;
	}
	return -1;
}

int bench_stats_read(struct bench_stats *st)
{
	char line[4096];
	FILE *f = fopen(STATS_PATH, "r");

	memset(st, 0, sizeof(*st));
	if (!f) {
		perror(STATS_PATH);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int id, k;

		if (sscanf(line, "P%u ", &id) == 1 && id < BENCH_STATS_MAX_PS) {
			for (k = 0; k < BENCH_STATS_NKEYS; k++)
				st->p[id][k] = bench_stats_field(line, pkeys[k]);
			if (id + 1 > st->nps)
				st->nps = id + 1;
		} else if (!strncmp(line, "global ", 7)) {
			st->ready_global = bench_stats_field(line, "ready_global");
			st->ready_inbox = bench_stats_field(line, "ready_inbox");
			st->waiting = bench_stats_field(line, "waiting");
		}
	}
	fclose(f);
	return 0;
}

int bench_schedtrace_read(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n <= 0) {
		perror(SCHEDTRACE_PATH);
		return -1;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

void bench_stats_print_ps(const char *tag, const struct bench_stats *a,
			  const struct bench_stats *b)
{
	unsigned int p, k;

	for (p = 0; p < b->nps; p++) {
		printf("%s P%u", tag, p);
		for (k = 0; k < BENCH_STATS_NKEYS; k++)
			printf(" %s=%lld", pkeys[k], b->p[p][k] - a->p[p][k]);
		printf("\n");
	}
}

void bench_stats_print_sums(const struct bench_stats *a,
			    const struct bench_stats *b)
{
	unsigned int p, k;

	for (k = 0; k < BENCH_STATS_NKEYS; k++) {
		long long sum = 0;

		for (p = 0; p < b->nps; p++)
			sum += b->p[p][k] - a->p[p][k];
		printf(" %s=%lld", pkeys[k], sum);
	}
	printf(" ready_global=%lld ready_inbox=%lld",
	       b->ready_global - a->ready_global,
	       b->ready_inbox - a->ready_inbox);
}
