/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxwaste: the wasted-cores measure of a trace.  See wsxwaste.h.
 *
 * Three passes: the periods (each P's idle periods, each item's wait), the
 * sweep over the times at which I(t) and W(t) change (a period [a, b)
 * longer than T adds 1 on [a + T, b)), and, for the longest span, the
 * periods still counted as it ended.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wsxwaste.h"

/* An idle period of P @p (@it NULL) or the wait of item @it. */
struct period {
	uint64_t a, b;
	int p;
	const struct wt_item *it;
};

/* A change of I (@di) and W (@dw) at @ts. */
struct change {
	uint64_t ts;
	int di, dw;
};

/* A start (+1) or end (-1) of an item run on P @p. */
struct run_edge {
	uint64_t ts;
	int p, delta;
};

static int by_ts_starts_first(const void *x, const void *y)
{
	const struct run_edge *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	/* back to back on one P: the start first, no idle period between */
	return b->delta - a->delta;
}

static int by_ts(const void *x, const void *y)
{
	const struct change *a = x, *b = y;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static uint64_t run_end(const struct wt_trace *t, const struct wt_item *it)
{
	uint64_t e = it->ended ? it->e_ts : t->t1;

	return e < it->s_ts ? it->s_ts : e;
}

/*
 * The idle periods of every P and the wait of every queued item into
 * @per; returns how many, or -ENOMEM.
 */
static long collect_periods(const struct wt_trace *t, struct period *per)
{
	struct run_edge *e = calloc(2 * t->nitems + 1, sizeof(*e));
	long *running = calloc(t->nprocs + 1, sizeof(*running));
	uint64_t *since = calloc(t->nprocs + 1, sizeof(*since));
	size_t i, ne = 0;
	long n = -ENOMEM;
	int p;

	if (!e || !running || !since)
		goto out;
	n = 0;
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];
		uint64_t end = it->started ? it->s_ts : t->t1;

		if (it->queued && end > it->q_ts)
			per[n++] = (struct period){ it->q_ts, end, -1, it };
		if (!it->started || it->p < 0 || it->p >= t->nprocs)
			continue;
		e[ne++] = (struct run_edge){ it->s_ts, it->p, 1 };
		e[ne++] = (struct run_edge){ run_end(t, it), it->p, -1 };
	}
	qsort(e, ne, sizeof(*e), by_ts_starts_first);
	for (p = 0; p < t->nprocs; p++)
		since[p] = t->t0;
	for (i = 0; i < ne; i++) {
		p = e[i].p;
		if (e[i].delta > 0 && !running[p]++ && e[i].ts > since[p])
			per[n++] = (struct period){ since[p], e[i].ts, p, NULL };
		else if (e[i].delta < 0 && !--running[p])
			since[p] = e[i].ts;
	}
	for (p = 0; p < t->nprocs; p++)
		if (!running[p] && t->t1 > since[p])
			per[n++] = (struct period){ since[p], t->t1, p, NULL };
out:
	free(e);
	free(running);
	free(since);
	return n;
}

static unsigned int min_iw(long i, long w)
{
	return (unsigned int)(i < w ? i : w);
}

/* Integrates min(I, W) over @ch (sorted) into @w, with its spans. */
static int sweep(struct change *ch, size_t nch, struct wt_waste *w)
{
	size_t i = 0, cap = 0;
	long in = 0, wn = 0;
	unsigned int cur = 0;
	uint64_t prev = 0;

	while (i < nch) {
		uint64_t ts = ch[i].ts;
		unsigned int next;

		w->wasted_ns += (uint64_t)cur * (ts - prev);
		for (; i < nch && ch[i].ts == ts; i++) {
			in += ch[i].di;
			wn += ch[i].dw;
		}
		next = min_iw(in, wn);
		if (!cur && next) {
			if (w->nspans == cap) {
				struct wt_waste_span *s;

				cap = cap ? 2 * cap : 64;
				s = realloc(w->spans, cap * sizeof(*s));
				if (!s)
					return -ENOMEM;
				w->spans = s;
			}
			w->spans[w->nspans++] =
				(struct wt_waste_span){ ts, ts, next };
		} else if (next && next > w->spans[w->nspans - 1].most) {
			w->spans[w->nspans - 1].most = next;
		}
		if (cur && !next)
			w->spans[w->nspans - 1].end = ts;
		cur = next;
		prev = ts;
	}
	return 0;
}

/* The longest span, and the P and item counted longest as it ended. */
static void describe_longest(const struct period *per, long n,
			     struct wt_waste *w)
{
	uint64_t end, len = 0;
	size_t i;
	long k;

	for (i = 0; i < w->nspans; i++) {
		if (w->spans[i].end - w->spans[i].start > len) {
			len = w->spans[i].end - w->spans[i].start;
			w->longest = i;
		}
	}
	if (!w->nspans)
		return;
	end = w->spans[w->longest].end;
	for (k = 0; k < n; k++) {
		const struct period *q = &per[k];

		/* counted just before @end: a + T < end <= b */
		if (q->a + w->threshold_ns >= end || q->b < end)
			continue;
		if (q->it && end - q->a > w->wait_ns) {
			w->wait_ns = end - q->a;
			w->waiter = q->it;
		} else if (!q->it && end - q->a > w->idle_ns) {
			w->idle_ns = end - q->a;
			w->idle_p = q->p;
		}
	}
}

int wt_waste(const struct wt_trace *t, uint64_t threshold_ns,
	     struct wt_waste *w)
{
	/* a wait per item, an idle period per start and one more per P */
	struct period *per = calloc(2 * t->nitems + t->nprocs + 1,
				    sizeof(*per));
	struct change *ch = NULL;
	size_t nch = 0;
	long n = -ENOMEM, k;
	int ret = -ENOMEM;

	memset(w, 0, sizeof(*w));
	w->threshold_ns = threshold_ns;
	w->idle_p = -1;
	w->p_time_ns = (uint64_t)t->nprocs * (t->t1 - t->t0);
	if (per)
		n = collect_periods(t, per);
	if (n >= 0)
		ch = calloc(2 * n + 1, sizeof(*ch));
	if (!ch)
		goto out;
	for (k = 0; k < n; k++) {
		const struct period *q = &per[k];
		int di = q->it ? 0 : 1;

		/* more than T: counted from a + T, if that is before b */
		if (q->b - q->a <= threshold_ns)
			continue;
		ch[nch++] = (struct change){ q->a + threshold_ns, di, 1 - di };
		ch[nch++] = (struct change){ q->b, -di, di - 1 };
	}
	qsort(ch, nch, sizeof(*ch), by_ts);
	ret = sweep(ch, nch, w);
	if (!ret)
		describe_longest(per, n, w);
out:
	free(per);
	free(ch);
	if (ret)
		wt_waste_free(w);
	return ret;
}

void wt_waste_free(struct wt_waste *w)
{
	free(w->spans);
	memset(w, 0, sizeof(*w));
	w->idle_p = -1;
}
