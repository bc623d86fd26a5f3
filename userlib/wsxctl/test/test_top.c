/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The frame of `wsxctl top`: fits 80 columns (and 24 rows), one row per P
 * with the right rates, counters without a previous sample, escapes only
 * in ANSI mode.
 */
#include <stdlib.h>
#include <string.h>

#include "../top_frame.h"
#include "ktap.h"

static char *frame(const struct top_sample *a, const struct top_sample *b,
		   const struct top_opts *o, unsigned int *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*lines = top_render(f, a, b, o);
	fclose(f);
	return buf;
}

/* The widest line, escapes not counted; number of lines in *n. */
static size_t widest(const char *s, unsigned int *n)
{
	size_t w = 0, cur = 0;

	*n = 0;
	for (; *s; s++) {
		if (*s == '\033') {
			while (*s && !(*s >= 'A' && *s <= 'Z') &&
			       !(*s >= 'a' && *s <= 'z'))
				s++;
			continue;
		}
		if (*s == '\n') {
			(*n)++;
			cur = 0;
			continue;
		}
		if (++cur > w)
			w = cur;
	}
	return w;
}

static const char *line_of(const char *s, const char *start)
{
	for (; s; s = strchr(s, '\n')) {
		if (*s == '\n')
			s++;
		if (!strncmp(s, start, strlen(start)))
			return s;
	}
	return NULL;
}

static void make(struct top_sample *s, unsigned int n, uint64_t t_ns,
		 uint64_t scale)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->nprocs = n;
	s->t_ns = t_ns;
	s->p = calloc(n, sizeof(*s->p));
	for (i = 0; i < n; i++) {
		s->p[i].executed = 1000 * i * scale;
		s->p[i].steals = 10 * i * scale;
		s->p[i].stolen_from = 3 * i * scale;
		s->p[i].depth = i == 0 ? 20 : 0;
		s->p[i].online = i != 3;
		s->p[i].have_cpu = true;
		s->p[i].cpu_idle = 25 * i * scale;
		s->p[i].cpu_total = 100 * scale;
	}
	s->gdepth = 3;
	s->gputs = 50 * scale;
	s->ggets = 40 * scale;
}

/* Ps 0 .. n/2-1 on node 0, the rest on node 1, per-node queues of @d0, @d1. */
static void make_nodes(struct top_sample *s, uint64_t scale, uint64_t d0,
		       uint64_t d1)
{
	unsigned int i;

	s->nnodes = 2;
	s->nnodeqs = 2;
	s->nodeq_depth = calloc(2, sizeof(*s->nodeq_depth));
	s->nodeq_depth[0] = d0;
	s->nodeq_depth[1] = d1;
	for (i = 0; i < s->nprocs; i++) {
		s->p[i].node = i >= s->nprocs / 2;
		s->p[i].steals_at[TOP_SMT] = i * scale;
		s->p[i].steals_at[TOP_REMOTE] = 5 * i * scale;
	}
}

/* Two nodes: a row each with the totals of its Ps, cut to fit too. */
static void check_nodes(void)
{
	struct top_opts plain = { .width = 80 };
	struct top_opts ansi = { .width = 80, .height = 24, .ansi = true };
	struct top_sample a, b, big_a, big_b;
	unsigned int lines, n;
	const char *row;
	char *out;

	make(&a, 4, 1000000000ULL, 1);
	make(&b, 4, 3000000000ULL, 3);
	make_nodes(&a, 1, 0, 0);
	make_nodes(&b, 3, 7, 2);
	out = frame(&a, &b, &plain, &lines);
	fputs(out, stdout);
	KTAP_EQ(lines, 10, "two nodes: a column line and a row per node more");
	ktap_check(widest(out, &n) <= 79, "two nodes: fits 80 columns");
	KTAP_EQ(n, lines, "two nodes: as many lines as reported");
	ktap_check(line_of(out, "node ") && strstr(line_of(out, "node "),
						   "remote/s"),
		   "the node columns name the remote steals");
	/* node 1 = P2, P3: executed 5000 -> 15000 in 2 s: 5000/s; smt steals
	 * 5 -> 15: 5.0/s; remote 25 -> 75: 25.0/s; its queue 2 deep */
	row = line_of(out, "n1 ");
	ktap_check(row && !strcmp(strchr(row, ' '), "        2     5000      "
				  "5.0      0.0      0.0     25.0      2\n"),
		   "node 1: its Ps, items/s, steals/s by level, queue depth");
	/* node 0 = P0, P1: 0 + 1000 -> 3000: 1000/s; smt 1 -> 3: 1.0/s;
	 * remote 5 -> 15: 5.0/s */
	row = line_of(out, "n0 ");
	ktap_check(row && strstr(row, "     1000      1.0      0.0      0.0"
				 "      5.0      7\n"), "node 0's totals");
	free(out);

	b.nnodeqs = 0;
	out = frame(NULL, &b, &plain, &lines);
	row = line_of(out, "n1 ");
	ktap_check(row && strstr(row, "    15000       15        0        0"
				 "       75      -\n"),
		   "counters without a previous sample; '-' without node "
		   "queues");
	free(out);

	make(&big_a, 64, 1000000000ULL, 1);
	make(&big_b, 64, 2000000000ULL, 2);
	make_nodes(&big_a, 1, 0, 0);
	make_nodes(&big_b, 2, 0, 0);
	out = frame(&big_a, &big_b, &ansi, &lines);
	ktap_check(lines <= 24 && line_of(out, "n1 ") &&
		   strstr(out, "more Ps"),
		   "64 Ps on two nodes: 24 lines, the node rows kept (%u)",
		   lines);
	free(out);

	/* one node: no node rows */
	a.nnodes = b.nnodes = 1;
	out = frame(&a, &b, &plain, &lines);
	ktap_check(lines == 7 && !line_of(out, "node "),
		   "one node: no node rows");
	free(out);
	free(a.p);
	free(b.p);
	free(big_a.p);
	free(big_b.p);
	free(a.nodeq_depth);
	free(b.nodeq_depth);
	free(big_a.nodeq_depth);
	free(big_b.nodeq_depth);
}

int main(void)
{
	struct top_opts plain = { .width = 80 };
	struct top_opts ansi = { .width = 80, .height = 24, .ansi = true,
				 .hint = "q: quit" };
	struct top_sample a, b, big_a, big_b;
	unsigned int lines, n;
	const char *row;
	char *out;

	make(&a, 4, 1000000000ULL, 1);
	make(&b, 4, 3000000000ULL, 3);	/* 2 s later, counters x3 */

	out = frame(&a, &b, &plain, &lines);
	fputs(out, stdout);
	KTAP_EQ(lines, 7, "4 Ps: header, columns, 4 rows, global");
	ktap_check(widest(out, &n) <= 79, "fits 80 columns (%zu)",
		   widest(out, &n));
	KTAP_EQ(n, lines, "as many lines as reported");
	ktap_check(!strchr(out, '\033'), "no escapes without ansi");
	ktap_check(line_of(out, "P0 ") && line_of(out, "P1 ") &&
		   line_of(out, "P2 ") && line_of(out, "P3 ") &&
		   !line_of(out, "P4 "), "one row per P");
	row = line_of(out, "P0 ");
	ktap_check(row && !strncmp(strchr(row, '['),
				   "[####################          ]", 32),
		   "P0's bar shows its 20 queued items");
	/* P2: executed 2000 -> 6000 in 2 s: 2000/s; steals 20 -> 60: 20/s;
	 * stolen 6 -> 18: 6.0/s; idle 50 of 100 ticks -> 150 of 300: 50% */
	row = line_of(out, "P2 ");
	ktap_check(row && strstr(row, "]     0     2000     20.0      6.0   "
				 "50.0\n"), "P2's rates and idle%%");
	row = line_of(out, "P3 ");
	ktap_check(row && strstr(row, " off\n"), "an offline P says off");
	row = line_of(out, "global ");
	ktap_check(row && strstr(row, "]     3     50.0     40.0  puts,gets/s"),
		   "global: depth 3, 50 puts/s, 40 gets/s");
	ktap_check(strstr(out, "rates over 2.00 s") != NULL,
		   "header gives the interval");
	free(out);

	out = frame(NULL, &b, &plain, &lines);
	row = line_of(out, "P2 ");
	ktap_check(row && strstr(row, "]     0     6000       60       18      "
				 "-\n"), "without a previous sample: counters");
	ktap_check(strstr(out, "totals") != NULL, "... said in the header");
	free(out);

	out = frame(&a, &b, &ansi, &lines);
	ktap_check(!strncmp(out, "wsx: ", 5) && strstr(out, "\033[K\n") &&
		   strstr(out, "q: quit"), "ansi: clears lines, shows the hint");
	ktap_check(widest(out, &n) <= 79, "ansi: fits 80 columns");
	free(out);

	/* 64 Ps in 80x24: cut to fit, said so; a deep queue scales the bar */
	make(&big_a, 64, 1000000000ULL, 1);
	make(&big_b, 64, 2000000000ULL, 2);
	big_b.p[5].depth = 1000;
	out = frame(&big_a, &big_b, &ansi, &lines);
	ktap_check(lines <= 24, "64 Ps: at most 24 lines (%u)", lines);
	ktap_check(strstr(out, "more Ps") != NULL, "64 Ps: the cut is said");
	ktap_check(strstr(out, "# = 64 items") != NULL,
		   "a 1000-deep queue in 30 cells: one # for 64 items");
	row = line_of(out, "P5 ");
	ktap_check(row && strstr(row, "[################ ") &&
		   !strstr(row, "#################"),
		   "the deepest queue: 16 cells of 30");
	ktap_check(widest(out, &n) <= 79, "64 Ps: fits 80 columns");
	free(out);

	/* narrow and wide terminals */
	ansi.width = 40;
	out = frame(&a, &b, &ansi, &lines);
	ktap_check(widest(out, &n) <= 79, "40 columns: drawn for 60");
	free(out);
	ansi.width = 200;
	out = frame(&a, &b, &ansi, &lines);
	ktap_check(widest(out, &n) <= 199, "200 columns: wider bars fit");
	free(out);

	free(a.p);
	free(b.p);
	free(big_a.p);
	free(big_b.p);
	check_nodes();
	return ktap_done();
}
