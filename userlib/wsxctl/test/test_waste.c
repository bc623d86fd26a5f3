/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The wasted-cores measure (wsxwaste.c) on made-up traces whose answers
 * are known exactly: no waste, one P idle while an item waits 5 ms, items
 * waiting while every P is busy, the threshold's edges, the minimum of
 * idle Ps and waiting items, and two separate intervals.  Each trace is
 * tracefs text, parsed by wt_parse() as `wsxctl trace` parses it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../wsxtrace.h"
#include "../wsxwaste.h"
#include "ktap.h"

#define MS	1000000ULL
#define US	1000ULL

static char text[16384];
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

int main(void)
{
	test_no_waste();
	test_one_idle();
	test_busy();
	test_edges();
	test_min();
	test_two();
	return ktap_done();
}
