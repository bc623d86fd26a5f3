/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxwaste: the wasted-cores measure of a trace.  See wsxwaste.h.
 *
 * Three passes: the periods (each P's idle periods, each item's wait), the
 * sweep over the times at which I(t) and W(t) change (a period [a, b)
 * longer than T adds 1 on [a + T, b)), and, for the longest span, the
 * periods still counted as it ended.  With sched_switch events, a fourth
 * splits each counted idle period, cut to the times W(t) > 0, by what its
 * P's CPU ran.
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

/* ---- the idle P time by what its CPU ran ------------------------------ */

/* [a, b) */
struct span {
	uint64_t a, b;
};

static int by_a(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/*
 * The times W(t) > 0, the union of the counted waits [a + T, b), as
 * disjoint spans in time order into *@out; how many, or -ENOMEM.
 */
static long waiting_spans(const struct period *per, long n, uint64_t th,
			  struct span **out)
{
	struct span *s = calloc(n + 1, sizeof(*s));
	long k, m = 0, j = 0;

	if (!s)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (per[k].it && per[k].b - per[k].a > th)
			s[m++] = (struct span){ per[k].a + th, per[k].b };
	qsort(s, m, sizeof(*s), by_a);
	for (k = 1; k < m; k++) {
		if (s[k].a <= s[j].b) {
			if (s[k].b > s[j].b)
				s[j].b = s[k].b;
		} else {
			s[++j] = s[k];
		}
	}
	*out = s;
	return m ? j + 1 : 0;
}

/*
 * A P's start on a CPU (@key the P, @val the CPU) or a CPU's switch to a
 * task (@key the CPU, @val the task's index in comms); @ord its order in
 * the trace, which breaks ties of @ts.
 */
struct mark {
	uint64_t ts;
	size_t val, ord;
	int key;
};

static int by_key_ts(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

/*
 * Sorts the @n marks by key and time and sets @off[k] .. @off[k + 1] to
 * key k's (@off has @nkeys + 1 entries; keys out of range dropped before).
 */
static void group(struct mark *m, size_t n, size_t *off, int nkeys)
{
	size_t i = 0;
	int k;

	qsort(m, n, sizeof(*m), by_key_ts);
	for (k = 0; k <= nkeys; k++) {
		while (i < n && m[i].key < k)
			i++;
		off[k] = i;
	}
}

/* How many of the @n marks (sorted by time) are at or before @ts. */
static size_t upto(const struct mark *m, size_t n, uint64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct split {
	struct mark *starts, *sw;
	size_t *p_off, *cpu_off;
	int ncpus;
	uint64_t *comm_ns;	/* [ncomms]: the unknown time at the end */
};

/* Adds to s->comm_ns what CPU @cpu ran over [@x, @y). */
static void split_cpu(struct split *s, size_t unknown, int cpu, uint64_t x,
		      uint64_t y)
{
	const struct mark *m;
	size_t n, i, cur;

	if (cpu < 0 || cpu >= s->ncpus) {
		s->comm_ns[unknown] += y - x;
		return;
	}
	m = s->sw + s->cpu_off[cpu];
	n = s->cpu_off[cpu + 1] - s->cpu_off[cpu];
	i = upto(m, n, x);
	cur = i ? m[i - 1].val : unknown;
	for (; i < n && m[i].ts < y; i++) {
		s->comm_ns[cur] += m[i].ts - x;
		x = m[i].ts;
		cur = m[i].val;
	}
	s->comm_ns[cur] += y - x;
}

/*
 * Splits P @p's counted idle time [@a, @b) at the times W(t) > 0 (@ws,
 * @nws) by what its CPU ran.
 */
static void split_period(struct split *s, size_t unknown, int p, uint64_t a,
			 uint64_t b, const struct span *ws, size_t nws)
{
	const struct mark *st = s->starts + s->p_off[p];
	size_t nst = s->p_off[p + 1] - s->p_off[p], i, j;
	int cpu;

	if (!nst)
		return;		/* never seen starting: no CPU */
	i = upto(st, nst, a);
	cpu = (int)st[i ? i - 1 : 0].val;
	/* the first span that ends after a */
	for (i = 0, j = nws; i < j; ) {
		size_t mid = i + (j - i) / 2;

		if (ws[mid].b <= a)
			i = mid + 1;
		else
			j = mid;
	}
	for (; i < nws && ws[i].a < b; i++)
		split_cpu(s, unknown, cpu, ws[i].a > a ? ws[i].a : a,
			  ws[i].b < b ? ws[i].b : b);
}

static enum wt_ran comm_class(const char *comm)
{
	if (!strcmp(comm, "swapper") || !strncmp(comm, "swapper/", 8))
		return WT_RAN_IDLE;
	if (!strncmp(comm, "wsx/", 4))
		return WT_RAN_M;
	return WT_RAN_OTHER;
}

/* The per-task times into @w's categories and its longest other tasks. */
static void split_sum(const struct wt_trace *t, const uint64_t *comm_ns,
		      struct wt_waste *w)
{
	size_t c, k;

	w->ran_ns[WT_RAN_UNKNOWN] = comm_ns[t->ncomms];
	for (c = 0; c < t->ncomms; c++) {
		enum wt_ran r = comm_class(t->comms[c]);

		w->ran_ns[r] += comm_ns[c];
		if (r != WT_RAN_OTHER || !comm_ns[c])
			continue;
		for (k = w->ntop; k > 0 && comm_ns[c] > w->top[k - 1].ns; k--)
			if (k < WT_TOP_COMMS)
				w->top[k] = w->top[k - 1];
		if (k >= WT_TOP_COMMS)
			continue;
		w->top[k] = (struct wt_waste_comm){ t->comms[c], comm_ns[c] };
		if (w->ntop < WT_TOP_COMMS)
			w->ntop++;
	}
}

/* The split of the idle P time (wsxwaste.h) of the periods @per. */
static int split(const struct wt_trace *t, const struct period *per,
		 long n, struct wt_waste *w)
{
	struct split s = { NULL, NULL, NULL, NULL, 0, NULL };
	struct span *ws = NULL;
	size_t i, nst = 0;
	long nws, k;
	int ret = -ENOMEM;

	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].cpu + 1 > s.ncpus)
			s.ncpus = t->sw[i].cpu + 1;
	s.starts = calloc(t->nitems + 1, sizeof(*s.starts));
	s.sw = calloc(t->nsw + 1, sizeof(*s.sw));
	s.p_off = calloc(t->nprocs + 1, sizeof(*s.p_off));
	s.cpu_off = calloc(s.ncpus + 1, sizeof(*s.cpu_off));
	s.comm_ns = calloc(t->ncomms + 1, sizeof(*s.comm_ns));
	nws = waiting_spans(per, n, w->threshold_ns, &ws);
	if (!s.starts || !s.sw || !s.p_off || !s.cpu_off || !s.comm_ns ||
	    nws < 0)
		goto out;
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];

		if (it->started && it->p >= 0 && it->p < t->nprocs)
			s.starts[nst++] = (struct mark){ it->s_ts, it->cpu, i,
							 it->p };
	}
	for (i = 0; i < t->nsw; i++)
		s.sw[i] = (struct mark){ t->sw[i].ts, t->sw[i].comm, i,
					 t->sw[i].cpu };
	group(s.starts, nst, s.p_off, t->nprocs);
	group(s.sw, t->nsw, s.cpu_off, s.ncpus);
	for (k = 0; k < n; k++) {
		const struct period *q = &per[k];

		if (!q->it && q->b - q->a > w->threshold_ns)
			split_period(&s, t->ncomms, q->p,
				     q->a + w->threshold_ns, q->b, ws, nws);
	}
	split_sum(t, s.comm_ns, w);
	w->split = true;
	ret = 0;
out:
	free(s.starts);
	free(s.sw);
	free(s.p_off);
	free(s.cpu_off);
	free(s.comm_ns);
	free(ws);
	return ret;
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
	if (!ret && t->nsw)
		ret = split(t, per, n, w);
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
