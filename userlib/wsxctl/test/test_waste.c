/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The wasted-cores measure (wsxwaste.c) on made-up traces whose answers
 * are known exactly: no waste, one P idle while an item waits 5 ms, items
 * waiting while every P is busy, the threshold's edges, the minimum of
 * idle Ps and waiting items, and two separate intervals; and, with
 * sched_switch events, the idle P time split by what the P's CPU ran.
 * Each trace is tracefs text, parsed by wt_parse() as `wsxctl trace`
 * parses it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../wsxtrace.h"
#include "../wsxwaste.h"
#include "ktap.h"

#define MS	1000000ULL
#define US	1000ULL

static char text[32768];
static size_t len;

/* One event line at @us microseconds after 1 s, on CPU @cpu. */
__attribute__((format(printf, 3, 4)))
static void line(unsigned long us, int cpu, const char *fmt, ...)
{
	va_list ap;

	len += snprintf(text + len, sizeof(text) - len,
			"  wsx/%d-9 [%03d] ..... 1.%06lu: ", cpu, cpu, us);
	va_start(ap, fmt);
	len += vsnprintf(text + len, sizeof(text) - len, fmt, ap);
	va_end(ap);
	len += snprintf(text + len, sizeof(text) - len, "\n");
}

/* Item @item queued on @p (-1: the global queue). */
static void q(unsigned long us, int item, int p)
{
	line(us, p < 0 ? 0 : p, "wsx_item_queue: item=%016x p=%d", item, p);
}

/* Item @item starts on P @p (CPU @p), queued on @from. */
static void start(unsigned long us, int item, int p, int from)
{
	line(us, p, "wsx_item_start: item=%016x p=%d m=%d from=%d stolen=%d",
	     item, p, p, from, from >= 0 && from != p);
}

static void end(unsigned long us, int item, int p)
{
	line(us, p, "wsx_item_end: item=%016x status=0", item);
}

/* Item @item starts on P @p on CPU @cpu (a P whose M moved). */
static void start_on(unsigned long us, int item, int p, int cpu)
{
	line(us, cpu, "wsx_item_start: item=%016x p=%d m=%d from=%d "
	     "stolen=0", item, p, p, p);
}

static void end_on(unsigned long us, int item, int cpu)
{
	line(us, cpu, "wsx_item_end: item=%016x status=0", item);
}

/* CPU @cpu switches to the task @comm. */
static void sw(unsigned long us, int cpu, const char *comm)
{
	line(us, cpu, "sched_switch: prev_comm=x prev_pid=1 prev_prio=120 "
	     "prev_state=S ==> next_comm=%s next_pid=2 next_prio=120", comm);
}

static void reset(void)
{
	len = 0;
	text[0] = '\0';
}

/* Measures the text with threshold @t_ns into @w; @t stays parsed. */
static bool measure(struct wt_trace *t, uint64_t t_ns, struct wt_waste *w,
		    const char *name)
{
	return ktap_check(len < sizeof(text) - 1 && !wt_parse(text, t) &&
			  !t->skipped && !wt_waste(t, t_ns, w),
			  "%s: parses and measures (T = %llu ns)", name,
			  (unsigned long long)t_ns);
}

/* The waste of the text at threshold @t_ns, and its number of spans. */
static uint64_t waste(uint64_t t_ns, size_t *nspans)
{
	struct wt_trace t;
	struct wt_waste w;
	uint64_t ns = ~0ULL;

	if (!wt_parse(text, &t)) {
		if (!wt_waste(&t, t_ns, &w)) {
			ns = w.wasted_ns;
			*nspans = w.nspans;
			wt_waste_free(&w);
		}
		wt_free(&t);
	}
	return ns;
}

#define WASTE_EQ(t_ns, want_ns, want_spans, name) do {			\
	size_t n_ = ~(size_t)0;						\
									\
	KTAP_EQ(waste(t_ns, &n_), want_ns, "%s: %llu ns wasted at T = "	\
		"%llu ns", name, (unsigned long long)(want_ns),		\
		(unsigned long long)(t_ns));				\
	KTAP_EQ(n_, want_spans, "%s: %d intervals at T = %llu ns",	\
		name, want_spans, (unsigned long long)(t_ns));		\
} while (0)

/*
 * Two Ps: A and B start at once on P0 and P1; C, queued on P0 at 5 ms,
 * waits 5 ms while both run and starts as A ends; P1 then idles 10 ms with
 * nothing waiting.
 */
static void test_no_waste(void)
{
	reset();
	q(0, 0xa, 0);
	q(0, 0xb, 1);
	start(0, 0xa, 0, 0);
	start(0, 0xb, 1, 1);
	q(5000, 0xc, 0);
	end(10000, 0xa, 0);
	start(10000, 0xc, 0, 0);
	end(10000, 0xb, 1);
	end(20000, 0xc, 0);
	WASTE_EQ(2 * MS, 0, 0, "no waste");
	WASTE_EQ(0, 0, 0, "no waste");
}

/* test_one_idle's trace, as the comment below tells. */
static void one_idle_trace(void)
{
	reset();
	q(0, 0xa, 0);
	start(0, 0xa, 0, 0);
	q(5000, 0xb, 0);
	end(10000, 0xa, 0);
	start(10000, 0xb, 0, 0);
	end(20000, 0xb, 0);
	q(20000, 0xd, 1);
	start(20000, 0xd, 1, 1);
	end(20000, 0xd, 1);
}

/*
 * Two Ps: P0 runs A from 0 to 10 ms, then B, queued on P0 at 5 ms; P1
 * idles from 0 to 20 ms.  B waits 5 ms while P1 idles: 5 ms wasted at
 * T = 0; at T = 2 ms, from 7 ms (B waited 2 ms) to 10 ms: 3 ms.
 */
static void test_one_idle(void)
{
	struct wt_trace t;
	struct wt_waste w;
	char *svg = NULL;
	size_t n = 0;
	FILE *f;

	one_idle_trace();
	WASTE_EQ(0, 5 * MS, 1, "one idle P");
	WASTE_EQ(2 * MS, 3 * MS, 1, "one idle P");
	if (!measure(&t, 2 * MS, &w, "one idle P"))
		return;
	KTAP_EQ(w.p_time_ns, 40 * MS, "one idle P: P-time 2 Ps x 20 ms");
	ktap_check(w.spans[0].start == t.t0 + 7 * MS &&
		   w.spans[0].end == t.t0 + 10 * MS && w.spans[0].most == 1,
		   "one idle P: the interval is 7-10 ms, 1 P");
	ktap_check(w.idle_p == 1 && w.idle_ns == 10 * MS,
		   "one idle P: as it ended P1 had idled 10 ms");
	ktap_check(w.waiter && w.waiter->item == 0xb && w.waiter->q_p == 0 &&
		   w.wait_ns == 5 * MS,
		   "one idle P: ... while B, queued on P0, had waited 5 ms");
	f = open_memstream(&svg, &n);
	KTAP_EQ(wt_write_svg(f, &t, &w, "one idle P"), 0, "one idle P: svg");
	fclose(f);
	ktap_check(svg && strstr(svg, "class=\"waste\"><title>a P idle more "
				 "than 2 ms while an item waited more than 2 "
				 "ms: 7.000-10.000 ms, up to 1 P</title>") &&
		   strstr(svg, "3.000 ms of P-time in 1 intervals"),
		   "one idle P: the svg marks 7-10 ms and says 3 ms in 1");
	free(svg);
	wt_waste_free(&w);
	wt_free(&t);
}

/*
 * Two Ps busy with A and B until 30 ms while C (on P0), D (global) and E
 * (on P1), queued at 1 ms, wait; C and D start as A and B end, E as C
 * ends at 40 ms, the moment P1 (done with D) goes idle.
 */
static void test_busy(void)
{
	reset();
	start(0, 0xa, 0, 0);
	start(0, 0xb, 1, 1);
	q(1000, 0xc, 0);
	q(1000, 0xd, -1);
	q(1000, 0xe, 1);
	end(30000, 0xa, 0);
	start(30000, 0xc, 0, 0);
	end(30000, 0xb, 1);
	start(30000, 0xd, 1, -1);
	end(40000, 0xc, 0);
	end(40000, 0xd, 1);
	start(40000, 0xe, 0, 1);
	end(50000, 0xe, 0);
	WASTE_EQ(2 * MS, 0, 0, "busy, no idle P");
	WASTE_EQ(0, 0, 0, "busy, no idle P");
}

/*
 * The threshold's edges.  Wait: P1 idles 5 ms, then runs B, which waited
 * exactly 2 ms.  Idle: P1 idles exactly 2 ms (6-8 ms), then runs W, queued
 * on the global queue at 0.  Neither counts at T = 2 ms; just under it
 * they count from a + T on.
 */
static void test_edges(void)
{
	reset();
	q(0, 0xa, 0);
	start(0, 0xa, 0, 0);
	q(3000, 0xb, 0);
	start(5000, 0xb, 1, 0);
	end(6000, 0xb, 1);
	end(20000, 0xa, 0);
	WASTE_EQ(2 * MS, 0, 0, "a wait of exactly T");
	WASTE_EQ(2 * MS - US, US, 1, "a wait of exactly T");
	WASTE_EQ(0, 2 * MS, 1, "a wait of exactly T");

	reset();
	q(0, 0xa, 0);
	q(0, 0xf, -1);
	start(0, 0xa, 0, 0);
	start(0, 0xc, 1, 1);
	end(6000, 0xc, 1);
	start(8000, 0xf, 1, -1);
	end(9000, 0xf, 1);
	end(20000, 0xa, 0);
	WASTE_EQ(2 * MS, 0, 0, "an idle period of exactly T");
	WASTE_EQ(1500 * US, 500 * US, 1, "an idle period of exactly T");
	WASTE_EQ(0, 2 * MS, 1, "an idle period of exactly T");
}

/*
 * Four Ps, P0 and P3 busy, P1 and P2 idle for 20 ms while three items
 * wait: two Ps wasted, not one, not three.  At T = 2 ms both counts start
 * at 2 ms (the Ps idle since the trace began, the items queued at 0).
 */
static void test_min(void)
{
	reset();
	q(0, 0xa, 0);
	q(0, 0xd, 3);
	start(0, 0xa, 0, 0);
	start(0, 0xd, 3, 3);
	q(0, 0x1, 0);
	q(0, 0x2, 0);
	q(0, 0x3, 0);
	end(20000, 0xa, 0);
	end(20000, 0xd, 3);
	start(20000, 0x1, 0, 0);
	start(20000, 0x2, 1, 0);
	start(20000, 0x3, 2, 0);
	end(21000, 0x1, 0);
	end(21000, 0x2, 1);
	end(21000, 0x3, 2);
	WASTE_EQ(0, 40 * MS, 1, "min(2 idle Ps, 3 items)");
	WASTE_EQ(2 * MS, 36 * MS, 1, "min(2 idle Ps, 3 items)");
}

/*
 * P0 runs A (0-10 ms), Q1 (10-20 ms) and Q2 (20-30 ms); P1 idles to 30 ms.
 * Q1 waits from 2 ms, Q2 from 15 ms: two intervals, the first the longer.
 */
static void test_two(void)
{
	struct wt_trace t;
	struct wt_waste w;

	reset();
	q(0, 0xa, 0);
	start(0, 0xa, 0, 0);
	q(2000, 0x1, 0);
	end(10000, 0xa, 0);
	start(10000, 0x1, 0, 0);
	q(15000, 0x2, 0);
	end(20000, 0x1, 0);
	start(20000, 0x2, 0, 0);
	end(30000, 0x2, 0);
	start(30000, 0xd, 1, 1);
	end(30000, 0xd, 1);
	WASTE_EQ(0, 13 * MS, 2, "two intervals");
	WASTE_EQ(2 * MS, 9 * MS, 2, "two intervals");
	if (!measure(&t, 2 * MS, &w, "two intervals"))
		return;
	ktap_check(w.longest == 0 && w.spans[0].start == t.t0 + 4 * MS &&
		   w.spans[0].end == t.t0 + 10 * MS &&
		   w.spans[1].start == t.t0 + 17 * MS &&
		   w.spans[1].end == t.t0 + 20 * MS,
		   "two intervals: 4-10 ms (the longest) and 17-20 ms");
	ktap_check(w.idle_p == 1 && w.idle_ns == 10 * MS && w.waiter &&
		   w.waiter->item == 0x1 && w.wait_ns == 8 * MS,
		   "two intervals: P1 idle 10 ms and Q1 waited 8 ms as the "
		   "longest ended");
	wt_waste_free(&w);
	wt_free(&t);
}

/* The split of @w in us: idle, M, other, unknown, as "i/m/o/u". */
static bool ran_us(const struct wt_waste *w, unsigned long i,
		   unsigned long m, unsigned long o, unsigned long u)
{
	const uint64_t *r = w->ran_ns;

	if (r[WT_RAN_IDLE] == i * US && r[WT_RAN_M] == m * US &&
	    r[WT_RAN_OTHER] == o * US && r[WT_RAN_UNKNOWN] == u * US)
		return true;
	printf("# ran idle %llu, M %llu, other %llu, unknown %llu ns\n",
	       (unsigned long long)r[WT_RAN_IDLE],
	       (unsigned long long)r[WT_RAN_M],
	       (unsigned long long)r[WT_RAN_OTHER],
	       (unsigned long long)r[WT_RAN_UNKNOWN]);
	return false;
}

/* @w's @k-th other task is @comm, @us long. */
static bool top_is(const struct wt_waste *w, size_t k, const char *comm,
		   unsigned long us)
{
	if (k < w->ntop && !strcmp(w->top[k].comm, comm) &&
	    w->top[k].ns == us * US)
		return true;
	if (k < w->ntop)
		printf("# top[%zu] = %s, %llu ns\n", k, w->top[k].comm,
		       (unsigned long long)w->top[k].ns);
	return false;
}

/*
 * test_one_idle's trace (P1 idle 0-20 ms on CPU 1, B waiting 5-10 ms) with
 * CPU 1 switching to "sh" at 1 ms, "swapper/1" at 8 ms and its M at 12
 * ms, CPU 0 to its M at 0.  At T = 0 the 5 ms of P1 counted, 5-10 ms, are
 * 3 ms of sh and 2 ms of nothing.  At T = 1 ms P1 counts from 1 ms (idle
 * more than 1 ms) and B from 6 ms (waited more than 1 ms): 6-10 ms, 2 ms
 * of sh, 2 of nothing; the measure is 4 ms too (one P, one item).
 */
static void test_split(void)
{
	struct wt_trace t;
	struct wt_waste w;

	/* after the wsx events, not in time order: each CPU's are sorted */
	one_idle_trace();
	sw(0, 0, "wsx/0");
	sw(1000, 1, "sh");
	sw(8000, 1, "swapper/1");
	sw(12000, 1, "wsx/1");
	WASTE_EQ(0, 5 * MS, 1, "split");
	if (measure(&t, 0, &w, "split, T = 0")) {
		KTAP_EQ(t.nsw, 4, "split: 4 sched_switch events");
		ktap_check(w.split, "split, T = 0: split");
		ktap_check(ran_us(&w, 2000, 0, 3000, 0),
			   "split, T = 0: nothing 2 ms, Ms 0, other tasks "
			   "3 ms, unknown 0");
		KTAP_EQ(w.ntop, 1, "split, T = 0: one other task");
		ktap_check(top_is(&w, 0, "sh", 3000),
			   "split, T = 0: sh 3 ms");
		wt_waste_free(&w);
		wt_free(&t);
	}
	if (measure(&t, MS, &w, "split, T = 1 ms")) {
		KTAP_EQ(w.wasted_ns, 4 * MS, "split, T = 1 ms: 4 ms wasted");
		ktap_check(w.split && ran_us(&w, 2000, 0, 2000, 0),
			   "split, T = 1 ms: nothing 2 ms, Ms 0, other tasks "
			   "2 ms, unknown 0");
		ktap_check(w.ntop == 1 && top_is(&w, 0, "sh", 2000),
			   "split, T = 1 ms: sh 2 ms");
		wt_waste_free(&w);
		wt_free(&t);
	}
}

/* The same trace without sched_switch: no split, the same measure. */
static void test_no_split(void)
{
	struct wt_trace t;
	struct wt_waste w;

	one_idle_trace();
	if (!measure(&t, MS, &w, "no split"))
		return;
	ktap_check(!w.split && !w.ntop &&
		   !(w.ran_ns[WT_RAN_IDLE] | w.ran_ns[WT_RAN_M] |
		     w.ran_ns[WT_RAN_OTHER] | w.ran_ns[WT_RAN_UNKNOWN]),
		   "no split: not split, nothing in it");
	ktap_check(w.wasted_ns == 4 * MS && w.nspans == 1 &&
		   w.spans[0].start == t.t0 + 6 * MS &&
		   w.spans[0].end == t.t0 + 10 * MS && w.idle_p == 1,
		   "no split: the measure as with the events, 4 ms at 6-10 ms");
	wt_waste_free(&w);
	wt_free(&t);
}

/*
 * Three Ps: P0 runs A 0-20 ms while B waits on P0 (0-20 ms) and C (1-20
 * ms, then stolen by P1); P1 (CPU 1) and P2 (CPU 2) idle 0-20 ms.  The
 * measure is 39 ms (one item waiting 0-1 ms, two 1-20 ms), the split 40
 * (two idle Ps, W > 0 all along, overlapping waits counted once).  CPU 1 runs kworker/1:1 0-4 ms, "my prog" 4-10 ms and an
 * M 10-20 ms; CPU 2 nothing known to 2 ms, then a 1 ms, kworker/1:1 2 ms,
 * b 0.5 ms and swapper/2 to 20 ms.  The three other tasks longest:
 * kworker/1:1 6 ms and my prog 6 ms (first seen first), a 1 ms; not b.
 */
static void test_split_many(void)
{
	struct wt_trace t;
	struct wt_waste w;

	reset();
	sw(0, 1, "kworker/1:1");
	q(0, 0xa, 0);
	start(0, 0xa, 0, 0);
	q(0, 0xb, 0);
	q(1000, 0xc, 0);
	sw(2000, 2, "a");
	sw(3000, 2, "kworker/1:1");
	sw(4000, 1, "my prog");
	sw(5000, 2, "b");
	sw(5500, 2, "swapper/2");
	sw(10000, 1, "wsx/7");
	end(20000, 0xa, 0);
	start(20000, 0xb, 0, 0);
	start(20000, 0xc, 1, 0);
	start(20000, 0xd, 2, 2);
	end(21000, 0xb, 0);
	end(21000, 0xc, 1);
	end(21000, 0xd, 2);
	if (!measure(&t, 0, &w, "split many"))
		return;
	KTAP_EQ(w.wasted_ns, 39 * MS, "split many: 39 ms wasted");
	ktap_check(w.split && ran_us(&w, 14500, 10000, 13500, 2000),
		   "split many: nothing 14.5 ms, Ms 10, other tasks 13.5, "
		   "unknown 2: 40 ms, two Ps' worth");
	ktap_check(w.ntop == 3 && top_is(&w, 0, "kworker/1:1", 6000) &&
		   top_is(&w, 1, "my prog", 6000) && top_is(&w, 2, "a", 1000),
		   "split many: kworker/1:1 6 ms, my prog 6 ms, a 1 ms");
	wt_waste_free(&w);
	wt_free(&t);
}

/*
 * A P's CPU is that of its latest start: P1 runs W on CPU 1 (0-0.5 ms)
 * and X on CPU 3 (0.5-6 ms), idles to 20 ms, then runs Y on CPU 1.  B
 * waits 5-10 ms.  At T = 0, 6-10 ms counts: CPU 3 ran the M 6-8 ms and sh
 * 8-10 ms (CPU 1, idle all along, is not P1's then).  At T = 1 ms, P1
 * counts from 7 ms (B from 6 ms): the M 1 ms, sh 2 ms.
 */
static void test_split_moved(void)
{
	struct wt_trace t;
	struct wt_waste w;

	reset();
	sw(0, 1, "swapper/1");
	sw(0, 3, "wsx/1");
	q(0, 0xa, 0);
	start(0, 0xa, 0, 0);
	start_on(0, 0xe, 1, 1);
	end_on(500, 0xe, 1);
	start_on(500, 0xc, 1, 3);
	q(5000, 0xb, 0);
	end_on(6000, 0xc, 3);
	sw(8000, 3, "sh");
	end(10000, 0xa, 0);
	start(10000, 0xb, 0, 0);
	end(20000, 0xb, 0);
	start_on(20000, 0xf, 1, 1);
	end_on(20000, 0xf, 1);
	if (measure(&t, 0, &w, "split, a P moved")) {
		ktap_check(w.wasted_ns == 4 * MS && w.split &&
			   ran_us(&w, 0, 2000, 2000, 0),
			   "split, a P moved: its latest start's CPU 3, M 2 "
			   "ms, other tasks 2 ms");
		wt_waste_free(&w);
		wt_free(&t);
	}
	if (measure(&t, MS, &w, "split, a P moved")) {
		ktap_check(w.wasted_ns == 3 * MS && w.split &&
			   ran_us(&w, 0, 1000, 2000, 0),
			   "split, a P moved, T = 1 ms: from 7 ms, P1 idle "
			   "more than T: M 1 ms, other tasks 2 ms");
		wt_waste_free(&w);
		wt_free(&t);
	}
}

int main(void)
{
	test_no_waste();
	test_one_idle();
	test_busy();
	test_edges();
	test_min();
	test_two();
	test_split();
	test_no_split();
	test_split_many();
	test_split_moved();
	return ktap_done();
}
