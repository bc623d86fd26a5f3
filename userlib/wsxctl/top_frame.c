/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The frame of `wsxctl top`.  See top_frame.h.
 */
#include <inttypes.h>
#include <string.h>

#include "top_frame.h"

#define LABEL_W		7	/* "global " */
#define NUMS_W		41	/* the columns after the bar, and a spare one */
#define MIN_WIDTH	60
#define MAX_BAR		200

/* A rate or count in at most @w characters. */
static void fmt_num(char *buf, size_t len, double v, bool rate)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e5)
		snprintf(buf, len, "%.0fk", v / 1e3);
	else if (rate && v < 100)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
}

static void line_end(FILE *f, const struct top_opts *o)
{
	fputs(o->ansi ? "\033[K\n" : "\n", f);
}

static void bar(FILE *f, uint64_t depth, uint64_t scale, unsigned int cells)
{
	uint64_t n = (depth + scale - 1) / scale;
	unsigned int i;

	if (n > cells)
		n = cells;
	fputc('[', f);
	for (i = 0; i < cells; i++)
		fputc(i < n ? '#' : ' ', f);
	fputc(']', f);
}

static double delta(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : 0;
}

/* The rows of the nodes: totals of their Ps. */
static unsigned int render_nodes(FILE *f, const struct top_sample *prev,
				 const struct top_sample *cur, double dt,
				 const struct top_opts *o)
{
	static const char *const level_names[TOP_LEVELS] = {
		"smt/s", "cache/s", "node/s", "remote/s"
	};
	static const char *const level_counts[TOP_LEVELS] = {
		"smt", "cache", "node", "remote"
	};
	bool rates = dt > 0;
	double div = rates ? dt : 1;
	unsigned int n, i, l, nps;
	char num[16];

	fprintf(f, "%-*s%4s %8s", LABEL_W, "node", "Ps",
		rates ? "items/s" : "items");
	for (l = 0; l < TOP_LEVELS; l++)
		fprintf(f, " %8s", rates ? level_names[l] : level_counts[l]);
	fprintf(f, " %6s", "depth");
	line_end(f, o);
	for (n = 0; n < cur->nnodes; n++) {
		double executed = 0, steals[TOP_LEVELS] = { 0 };

		nps = 0;
		for (i = 0; i < cur->nprocs; i++) {
			const struct top_p *p = &cur->p[i];
			const struct top_p *q = rates ? &prev->p[i] : NULL;

			if (p->node != n)
				continue;
			nps++;
			executed += delta(q ? q->executed : 0, p->executed);
			for (l = 0; l < TOP_LEVELS; l++)
				steals[l] += delta(q ? q->steals_at[l] : 0,
						   p->steals_at[l]);
		}
		fprintf(f, "n%-*u%4u", LABEL_W - 1, n, nps);
		fmt_num(num, sizeof(num), executed / div, rates);
		fprintf(f, " %8s", num);
		for (l = 0; l < TOP_LEVELS; l++) {
			fmt_num(num, sizeof(num), steals[l] / div, rates);
			fprintf(f, " %8s", num);
		}
		if (n < cur->nnodeqs)
			fprintf(f, " %6" PRIu64, cur->nodeq_depth[n] > 999999 ?
				999999 : cur->nodeq_depth[n]);
		else
			fprintf(f, " %6s", "-");
		line_end(f, o);
	}
	return cur->nnodes + 1;
}

unsigned int top_render(FILE *f, const struct top_sample *prev,
			const struct top_sample *cur,
			const struct top_opts *o)
{
	unsigned int width = o->width < MIN_WIDTH ? MIN_WIDTH : o->width;
	unsigned int cells = width - LABEL_W - NUMS_W - 2, shown, i, lines = 0;
	unsigned int node_lines;
	double dt = 0;
	uint64_t maxd = cur->gdepth, scale = 1;
	char a[16], b[16], c[16], d[16];
	bool rates;

	if (cells > MAX_BAR)
		cells = MAX_BAR;
	if (prev && prev->nprocs == cur->nprocs && cur->t_ns > prev->t_ns)
		dt = (cur->t_ns - prev->t_ns) / 1e9;
	rates = dt > 0;
	for (i = 0; i < cur->nprocs; i++)
		if (cur->p[i].depth > maxd)
			maxd = cur->p[i].depth;
	while (maxd > scale * cells)
		scale *= 2;

	node_lines = cur->nnodes > 1 ? cur->nnodes + 1 : 0;
	shown = cur->nprocs;
	if (o->height && shown + 4 + node_lines > o->height)
		shown = o->height > 5 + node_lines ?
			o->height - 5 - node_lines : 0;

	{
		char head[160];
		int n;

		if (rates)
			n = snprintf(head, sizeof(head), "wsx: %u Ps, rates "
				     "over %.2f s, queue bar: # = %" PRIu64
				     " item%s", cur->nprocs, dt, scale,
				     scale > 1 ? "s" : "");
		else
			n = snprintf(head, sizeof(head), "wsx: %u Ps, totals "
				     "since load or reset, queue bar: # = %"
				     PRIu64 " item%s", cur->nprocs, scale,
				     scale > 1 ? "s" : "");
		fputs(head, f);
		/* right-aligned, short of the last column */
		if (o->hint && n > 0 &&
		    (size_t)n + 3 + strlen(o->hint) <= width)
			fprintf(f, "%*s", (int)(width - 1 - n), o->hint);
	}
	line_end(f, o);
	lines++;
	fprintf(f, "%-*s%-*s %5s %8s %8s %8s %6s", LABEL_W, "P",
		cells + 2, "queue", "depth", rates ? "items/s" : "items",
		rates ? "steals/s" : "steals", rates ? "stolen/s" : "stolen",
		"idle%");
	line_end(f, o);
	lines++;
	for (i = 0; i < shown; i++) {
		const struct top_p *p = &cur->p[i];
		const struct top_p *q = rates ? &prev->p[i] : NULL;
		double div = rates ? dt : 1;

		fprintf(f, "P%-*u", LABEL_W - 1, i);
		bar(f, p->depth, scale, cells);
		fmt_num(a, sizeof(a), delta(q ? q->executed : 0,
					    p->executed) / div, rates);
		fmt_num(b, sizeof(b), delta(q ? q->steals : 0, p->steals) /
			div, rates);
		fmt_num(c, sizeof(c), delta(q ? q->stolen_from : 0,
					    p->stolen_from) / div, rates);
		if (!p->online) {
			snprintf(d, sizeof(d), "off");
		} else if (rates && p->have_cpu && q->have_cpu &&
			   p->cpu_total > q->cpu_total) {
			double idle = 100.0 * delta(q->cpu_idle, p->cpu_idle) /
				      delta(q->cpu_total, p->cpu_total);

			snprintf(d, sizeof(d), "%.1f", idle > 100 ? 100 : idle);
		} else {
			snprintf(d, sizeof(d), "-");
		}
		fprintf(f, " %5" PRIu64 " %8s %8s %8s %6s",
			p->depth > 99999 ? 99999 : p->depth, a, b, c, d);
		line_end(f, o);
		lines++;
	}
	if (shown < cur->nprocs) {
		fprintf(f, "... %u more Ps (a taller terminal shows them)",
			cur->nprocs - shown);
		line_end(f, o);
		lines++;
	}
	fprintf(f, "%-*s", LABEL_W, "global");
	bar(f, cur->gdepth, scale, cells);
	fmt_num(a, sizeof(a), delta(rates ? prev->gputs : 0, cur->gputs) /
		(rates ? dt : 1), rates);
	fmt_num(b, sizeof(b), delta(rates ? prev->ggets : 0, cur->ggets) /
		(rates ? dt : 1), rates);
	fprintf(f, " %5" PRIu64 " %8s %8s", cur->gdepth > 99999 ? 99999 :
		cur->gdepth, a, b);
	fputs(rates ? "  puts,gets/s" : "  puts,gets", f);
	line_end(f, o);
	lines++;
	if (node_lines)
		lines += render_nodes(f, prev, cur, dt, o);
	return lines;
}
