/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The trace parser and its JSON and SVG writers, on a tracefs text captured
 * in the wsx VM (test/data/seeds-trace.txt: the seeds' scenario, 20 SPIN
 * items on P0 of 4 Ps) and on small made-up texts for the corner cases
 * and the sched_switch lines.
 */
#include <stdlib.h>
#include <string.h>

#include "../wsxtrace.h"
#include "../wsxwaste.h"
#include "ktap.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	if (buf && fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/*
 * Output of a writer into a malloc'ed string; the SVG's with the measure
 * at T = 2 ms, whose number of intervals goes to *@nspans.
 */
static char *render(const struct wt_trace *t, bool svg, size_t *nspans)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct wt_waste w;

	if (!svg) {
		wt_write_json(f, t);
	} else if (!wt_waste(t, 2000000, &w)) {
		wt_write_svg(f, t, &w, "test <&>");
		*nspans = w.nspans;
		wt_waste_free(&w);
	}
	fclose(f);
	return buf;
}

/* Brackets and braces balance outside strings, strings close. */
static bool json_balanced(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		if (str) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				str = false;
			continue;
		}
		if (*s == '"')
			str = true;
		else if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			depth--;
		if (depth < 0)
			return false;
	}
	return !depth && !str;
}

static void test_seeds(void)
{
	char *text = slurp("test/data/seeds-trace.txt"), *json, *svg;
	struct wt_trace t;
	size_t i, stolen = 0, nspans = 0;

	if (!ktap_check(text != NULL, "seeds: sample readable"))
		return;
	KTAP_EQ(wt_parse(text, &t), 0, "seeds: parses");
	KTAP_EQ(t.nev, 76, "seeds: 76 events");
	KTAP_EQ(t.count[WT_QUEUE], 20, "seeds: 20 queue events");
	KTAP_EQ(t.count[WT_START], 20, "seeds: 20 start events");
	KTAP_EQ(t.count[WT_END], 20, "seeds: 20 end events");
	KTAP_EQ(t.count[WT_STEAL], 8, "seeds: 8 steals");
	KTAP_EQ(t.count[WT_PARK], 4, "seeds: 4 parks");
	KTAP_EQ(t.stolen_starts, 12, "seeds: 12 stolen starts");
	KTAP_EQ(t.nitems, 20, "seeds: 20 items");
	KTAP_EQ(t.ncpus, 4, "seeds: 4 CPUs");
	KTAP_EQ(t.nprocs, 4, "seeds: 4 Ps");
	KTAP_EQ(t.skipped + t.lost + t.orphan_ends, 0, "seeds: nothing lost");
	for (i = 0; i < t.nitems; i++) {
		stolen += t.items[i].stolen;
		if (!t.items[i].queued || !t.items[i].started ||
		    !t.items[i].ended || t.items[i].q_p != 0 ||
		    t.items[i].e_ts < t.items[i].s_ts ||
		    t.items[i].s_ts < t.items[i].q_ts)
			break;
	}
	KTAP_EQ(i, 20, "seeds: every item queued on P0, started, ended, "
		"in order");
	KTAP_EQ(stolen, 12, "seeds: 12 items stolen");
	KTAP_EQ(t.t1 - t.t0, 58670000, "seeds: span 58.670 ms");

	json = render(&t, false, NULL);
	ktap_check(json_balanced(json), "json: balanced");
	KTAP_EQ(count(json, "\"ph\":\"X\",\"cat\":\"item\""), 20,
		"json: 20 item slices");
	KTAP_EQ(count(json, "\"ph\":\"X\",\"cat\":\"queue\""), 20,
		"json: 20 queue marks");
	KTAP_EQ(count(json, "\"ph\":\"s\""), 12, "json: 12 flow starts");
	KTAP_EQ(count(json, "\"ph\":\"f\",\"bp\":\"e\""), 12,
		"json: 12 flow ends, bound to the enclosing slice");
	KTAP_EQ(count(json, "\"name\":\"thread_name\""), 8,
		"json: 4 CPU tracks and 4 queue tracks named");
	ktap_check(strstr(json, "\"args\":{\"name\":\"CPU 1 (P1)\"}") != NULL,
		   "json: CPU 1 runs P1");
	KTAP_EQ(count(json, "\"ph\":\"i\""), 8, "json: 8 steal instants");
	KTAP_EQ(count(json, "\"cat\":\"parked\""), 4 + 4,
		"json: parked slices (4 unparks, 4 parked at the end)");
	ktap_check(count(json, "\"name\":\"depth P0\"") > 20 &&
		   strstr(json, "\"name\":\"depth global\"") &&
		   strstr(json, "\"name\":\"runq P3\""),
		   "json: depth and runq counters");
	/* P0 reaches 20 queued, then 0 again */
	ktap_check(strstr(json, "\"name\":\"depth P0\",\"pid\":1,\"ts\":613.000,"
			  "\"args\":{\"depth\":20}}") != NULL,
		   "json: depth P0 is 20 at the 20th queue event");
	ktap_check(strstr(json, "\"ts\":0.000,\"dur\":0.000,\"name\":"
			  "\"queue #1\"") != NULL,
		   "json: timestamps in us from the first event");
	free(json);

	svg = render(&t, true, &nspans);
	ktap_check(!strncmp(svg, "<?xml", 5) && strstr(svg, "</svg>\n"),
		   "svg: a whole document");
	KTAP_EQ(count(svg, "class=\"item\""), 20, "svg: 20 item boxes");
	KTAP_EQ(count(svg, "marker-end=\"url(#arrow)\""), 12 + 1,
		"svg: 12 steal arrows (and the legend's)");
	KTAP_EQ(count(svg, "url(#ready)"), 0,
		"svg: no ready, no ready arrow nor its legend");
	KTAP_EQ(count(svg, "class=\"queued\""), 20 + 1,
		"svg: 20 queue marks (and the legend's)");
	KTAP_EQ(count(svg, "<polyline"), 5, "svg: 4 P and 1 global depth");
	ktap_check(strstr(svg, "test &lt;&amp;&gt;") != NULL,
		   "svg: title escaped");
	ktap_check(strstr(svg, ">CPU 3</text>") != NULL, "svg: 4 lanes");
	KTAP_EQ(count(svg, "class=\"waste\""), nspans + 1,
		"svg: a red band per interval of the measure (and the "
		"legend's)");
	free(svg);
	wt_free(&t);
	free(text);
}

/*
 * Corner cases: an item started before the trace (no queue event), a
 * pointer reused after its end, an item still running at the end, a spill,
 * CRLF line ends, an unknown wsx event, a malformed one, lost events.
 */
static const char corner[] =
	"# entries-in-buffer/entries-written: 9/12   #P:2\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"  wsx/1-9 [001] ..... 1.000000: wsx_item_start: item=00000000000000aa"
	" p=1 m=1 from=0 stolen=1\r\n"
	"  wsx/1-9 [001] ..... 1.000010: wsx_item_end: item=00000000000000aa "
	"status=0\n"
	"  a b-7   [000] ..... 1.000020: wsx_item_queue: item=00000000000000aa"
	" p=-1\n"
	"  wsx/0-8 [000] d.... 1.000030: wsx_spill: p=0 count=129\n"
	"  wsx/0-8 [000] ..... 1.000040: wsx_item_start: item=00000000000000aa"
	" p=0 m=0 from=-1 stolen=0\n"
	"  wsx/0-8 [000] ..... 1.000050: wsx_handoff: m=0 p=0 to=2\n"
	"  wsx/0-8 [000] ..... 1.000060: wsx_steal: thief=0 count=1\n"
	"  wsx/1-9 [001] ..... 1.000070: wsx_item_end: item=00000000000000bb "
	"status=0\n"
	"  sh-1    [001] ..... 1.000080: sched_switch: prev=x\n";

static void test_corners(void)
{
	struct wt_trace t;
	char *json, *svg;
	size_t nspans = 0;

	KTAP_EQ(wt_parse(corner, &t), 0, "corners: parse");
	KTAP_EQ(t.nev, 7, "corners: 7 wsx events known and well-formed");
	KTAP_EQ(t.count[WT_HANDOFF], 1, "corners: the handoff");
	ktap_check(t.ev[5].type == WT_HANDOFF && t.ev[5].cpu == 0 &&
		   t.ev[5].m == 0 && t.ev[5].p == 0 && t.ev[5].to == 2,
		   "corners: ... its CPU, m, p and to");
	KTAP_EQ(t.skipped, 1, "corners: the malformed steal is counted");
	KTAP_EQ(t.lost, 3, "corners: 3 lost events from the header");
	KTAP_EQ(t.nitems, 2, "corners: the reused pointer makes 2 items");
	KTAP_EQ(t.orphan_ends, 1, "corners: an end without a start");
	ktap_check(!t.items[0].queued && t.items[0].started &&
		   t.items[0].ended && t.items[0].stolen &&
		   t.items[0].q_p == 0, "corners: item 1 started before the "
		   "trace, stolen from P0");
	ktap_check(t.items[1].queued && t.items[1].q_p == -1 &&
		   t.items[1].started && !t.items[1].ended,
		   "corners: item 2 queued on global, still running");
	KTAP_EQ(t.t0, 1000000000, "corners: t0");
	KTAP_EQ(t.t1, 1000070000, "corners: t1");
	json = render(&t, false, NULL);
	ktap_check(json_balanced(json), "corners: json balanced");
	KTAP_EQ(count(json, "\"cat\":\"item\""), 2, "corners: 2 slices");
	KTAP_EQ(count(json, "\"ph\":\"s\""), 1,
		"corners: the stolen item's arrow starts at the trace start");
	ktap_check(strstr(json, "\"name\":\"queued before #1\"") != NULL,
		   "corners: ... from a mark on P0's queue track");
	ktap_check(strstr(json, "\"name\":\"item #2\",\"args\":{\"item\":"
			  "\"00000000000000aa\",\"seq\":2,\"p\":0,\"m\":0,"
			  "\"from\":-1,\"stolen\":0,\"queued\":1,\"ended\":0")
		   != NULL, "corners: item 2 args");
	ktap_check(strstr(json, "\"name\":\"spill 129\"") != NULL,
		   "corners: the spill instant");
	ktap_check(strstr(json, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"handoff\","
			  "\"pid\":1,\"tid\":1,\"ts\":50.000,\"name\":"
			  "\"handoff of P0: M0 to M2\",\"args\":{\"m\":0,"
			  "\"p\":0,\"to\":2}}") != NULL,
		   "corners: the handoff instant on CPU 0's track");
	free(json);
	svg = render(&t, true, &nspans);
	KTAP_EQ(count(svg, "class=\"item\""), 2, "corners: 2 svg boxes");
	KTAP_EQ(count(svg, "<title>handoff at 0.050 ms: M0 handed P0 to M2"),
		1, "corners: the handoff's mark");
	ktap_check(strstr(svg, "1 handoffs;") != NULL &&
		   strstr(svg, ">handoff</text>") != NULL,
		   "corners: ... counted in the subtitle, in the legend");
	ktap_check(strstr(svg, ">global</text>") != NULL,
		   "corners: legend has the global queue");
	free(svg);
	wt_free(&t);

	KTAP_EQ(wt_parse("", &t), 0, "empty text parses");
	json = render(&t, false, NULL);
	ktap_check(json_balanced(json) && count(json, "\"ph\"") == 3,
		   "empty: json with the process name and global counters");
	free(json);
	svg = render(&t, true, &nspans);
	ktap_check(strstr(svg, "</svg>") != NULL, "empty: svg");
	free(svg);
	wt_free(&t);
	KTAP_EQ(wt_parse(NULL, &t), -22, "NULL text is -EINVAL");
}

/*
 * Parked and readied continuations on 2 CPUs: A (a0) runs on CPU 0 and
 * parks itself, B (b0) and C (c0) are parked continuations; D (d0),
 * running on CPU 1, readies A, B and C there.  B starts next on CPU 1 (the
 * readier's runnext), A on CPU 0 (stolen), C not at all; B is queued and
 * runs once more, not readied.  Then a ready without its cpu= field.
 */
static const char readies[] =
	"  w-9 [000] ..... 1.000000: wsx_item_queue: item=a0 p=0\n"
	"  w-9 [000] ..... 1.000010: wsx_item_start: item=a0 p=0 m=0 from=0 "
	"stolen=0\n"
	"  w-9 [000] ..... 1.000020: wsx_item_park: item=a0\n"
	"  w-9 [000] ..... 1.000030: wsx_item_end: item=a0 status=0\n"
	"  w-9 [000] ..... 1.000040: wsx_item_park: item=b0\n"
	"  w-9 [000] ..... 1.000050: wsx_item_park: item=c0\n"
	"  w-8 [001] ..... 1.000060: wsx_item_queue: item=d0 p=1\n"
	"  w-8 [001] ..... 1.000070: wsx_item_start: item=d0 p=1 m=1 from=1 "
	"stolen=0\n"
	"  w-8 [001] ..... 1.000100: wsx_item_ready: item=a0 cpu=1\n"
	"  w-8 [001] ..... 1.000101: wsx_item_queue: item=a0 p=1\n"
	"  w-8 [001] ..... 1.000110: wsx_item_ready: item=b0 cpu=1\n"
	"  w-8 [001] ..... 1.000111: wsx_item_queue: item=b0 p=1\n"
	"  w-8 [001] ..... 1.000120: wsx_item_ready: item=c0 cpu=1\n"
	"  w-8 [001] ..... 1.000121: wsx_item_queue: item=c0 p=1\n"
	"  w-8 [001] ..... 1.000130: wsx_item_end: item=d0 status=0\n"
	"  w-8 [001] ..... 1.000140: wsx_item_start: item=b0 p=1 m=1 from=1 "
	"stolen=0\n"
	"  w-9 [000] ..... 1.000150: wsx_item_start: item=a0 p=0 m=0 from=1 "
	"stolen=1\n"
	"  w-8 [001] ..... 1.000160: wsx_item_end: item=b0 status=0\n"
	"  w-9 [000] ..... 1.000170: wsx_item_end: item=a0 status=0\n"
	"  w-8 [001] ..... 1.000171: wsx_item_queue: item=b0 p=1\n"
	"  w-8 [001] ..... 1.000172: wsx_item_start: item=b0 p=1 m=1 from=1 "
	"stolen=0\n"
	"  w-8 [001] ..... 1.000173: wsx_item_end: item=b0 status=0\n"
	"  w-9 [000] ..... 1.000180: wsx_item_ready: item=e0\n";

static void test_readies(void)
{
	struct wt_trace t;
	char *json, *svg;
	size_t nspans = 0;

	KTAP_EQ(wt_parse(readies, &t), 0, "readies: parse");
	KTAP_EQ(t.count[WT_ITEM_PARK], 3, "readies: 3 parks");
	KTAP_EQ(t.count[WT_ITEM_READY], 3, "readies: 3 readies");
	KTAP_EQ(t.skipped, 1, "readies: the ready without cpu= is skipped");
	KTAP_EQ(t.nitems, 6, "readies: A twice, B twice, C, D");
	ktap_check(t.items[2].item == 0xa0 && t.items[2].readied &&
		   t.items[2].r_ts == 1000100000 && t.items[2].r_cpu == 1 &&
		   t.items[2].cpu == 0,
		   "readies: A's second run, readied on CPU 1, ran on CPU 0");
	ktap_check(!t.items[0].readied,
		   "readies: A's run before the ready is not the readied one");
	ktap_check(t.items[3].item == 0xb0 && t.items[3].readied &&
		   t.items[3].r_ts == 1000110000 && t.items[3].r_cpu == 1 &&
		   t.items[3].cpu == 1,
		   "readies: B readied on CPU 1, ran on CPU 1");
	ktap_check(t.items[4].item == 0xc0 && !t.items[4].started &&
		   !t.items[4].readied, "readies: C readied, never started");
	ktap_check(t.items[5].item == 0xb0 && t.items[5].started &&
		   !t.items[5].readied,
		   "readies: B's next run, not readied again, has no ready");
	KTAP_EQ(t.readied_starts, 2, "readies: 2 readied runs started");
	KTAP_EQ(t.readied_here, 1, "readies: 1 on the readier's CPU");

	json = render(&t, false, NULL);
	ktap_check(json_balanced(json), "readies: json balanced");
	KTAP_EQ(count(json, "\"ph\":\"X\",\"cat\":\"ready\""), 3,
		"readies: a ready mark per ready");
	ktap_check(strstr(json, "{\"ph\":\"X\",\"cat\":\"ready\",\"pid\":1,"
			  "\"tid\":2,\"ts\":120.000,\"dur\":0.000,\"name\":"
			  "\"ready\",\"args\":{\"item\":\"00000000000000c0\","
			  "\"cpu\":1}}") != NULL,
		   "readies: C's ready marked on CPU 1's track");
	KTAP_EQ(count(json, "\"ph\":\"s\",\"cat\":\"ready\""), 2,
		"readies: 2 ready arrows leave (none for C)");
	KTAP_EQ(count(json, "\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ready\""),
		2, "readies: 2 ready arrows arrive, bound to the slice");
	ktap_check(strstr(json, "{\"ph\":\"s\",\"cat\":\"ready\",\"name\":"
			  "\"ready\",\"id\":4,\"pid\":1,\"tid\":2,\"ts\":"
			  "110.000}") != NULL &&
		   strstr(json, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ready\","
			  "\"name\":\"ready\",\"id\":4,\"pid\":1,\"tid\":2,"
			  "\"ts\":140.000}") != NULL &&
		   strstr(json, "{\"ph\":\"X\",\"cat\":\"item\",\"pid\":1,"
			  "\"tid\":2,\"ts\":140.000,") != NULL,
		   "readies: B's arrow from its ready on CPU 1 to its slice "
		   "there");
	ktap_check(strstr(json, "{\"ph\":\"s\",\"cat\":\"ready\",\"name\":"
			  "\"ready\",\"id\":3,\"pid\":1,\"tid\":2,\"ts\":"
			  "100.000}") != NULL &&
		   strstr(json, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ready\","
			  "\"name\":\"ready\",\"id\":3,\"pid\":1,\"tid\":1,"
			  "\"ts\":150.000}") != NULL,
		   "readies: A's arrow from its ready on CPU 1 to its second "
		   "run on CPU 0");
	ktap_check(!strstr(json, "\"cat\":\"ready\",\"name\":\"ready\","
			   "\"id\":5,") &&
		   !strstr(json, "\"cat\":\"ready\",\"name\":\"ready\","
			   "\"id\":6,"),
		   "readies: no arrow for C, readied and never started, nor "
		   "for B's run that was not readied");
	KTAP_EQ(count(json, "\"ph\":\"s\",\"cat\":\"steal\""), 1,
		"readies: A's steal keeps its own arrow");
	KTAP_EQ(count(json, "\"cat\":\"park\",\"pid\":1,\"tid\":1,"
		      "\"ts\":"), 3, "readies: 3 park instants on CPU 0");
	free(json);

	svg = render(&t, true, &nspans);
	KTAP_EQ(count(svg, "class=\"ready\" marker-end=\"url(#ready)\""),
		2 + 1, "readies: 2 svg ready arrows (and the legend's)");
	ktap_check(strstr(svg, "<title>item #4 readied on CPU 1 at 0.110 ms, "
			  "started on CPU 1 at 0.140 ms</title>") != NULL &&
		   strstr(svg, "<title>item #3 readied on CPU 1 at 0.100 ms, "
			  "started on CPU 0 at 0.150 ms</title>") != NULL,
		   "readies: ... from each ready to its start");
	/* x = 78 + 858 * us / 173 (the span); the lanes' middles y 75, 115 */
	ktap_check(strstr(svg, "d=\"M574.0,115.0 C656.6,115.0 739.3,75.0 "
			  "821.9,75.0\" class=\"ready\"") != NULL &&
		   strstr(svg, "d=\"M623.5,115.0 C673.1,98.0 722.7,98.0 "
			  "772.3,115.0\" class=\"ready\"") != NULL,
		   "readies: ... from CPU 1's lane at 100 us to CPU 0's at "
		   "150 us, and over CPU 1's from 110 to 140 us");
	ktap_check(strstr(svg, "1 of 2 started on the readier's CPU") != NULL,
		   "readies: the legend counts them");
	free(svg);
	wt_free(&t);
}

/*
 * sched_switch lines: a next_comm with a space and a slash, one switched
 * to twice (one name), one holding " next_pid=" itself (the name runs to
 * the last), one without next_pid (skipped, not counted), beside a wsx
 * event whose t0, t1 and CPUs they do not change.
 */
static const char switches[] =
	"          sh-1     [001] d..2. 1.000000: sched_switch: prev_comm=sh "
	"prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=my prog/2 "
	"next_pid=77 next_prio=120\n"
	"  wsx/0-8 [000] ..... 1.000010: wsx_item_start: item=aa p=0 m=0 "
	"from=0 stolen=0\n"
	"          <idle>-0 [002] d..2. 1.000020: sched_switch: "
	"prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> "
	"next_comm=wsx/3 next_pid=90 next_prio=120\r\n"
	"  my prog/2-77 [001] d..2. 1.000030: sched_switch: prev_comm=my "
	"prog/2 prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=my "
	"prog/2 next_pid=78 next_prio=120\n"
	"  x-5 [001] d..2. 1.000040: sched_switch: prev_comm=a prev_pid=78 "
	"prev_prio=120 prev_state=S ==> next_comm=odd next_pid= x "
	"next_pid=79 next_prio=120\n"
	"  x-5 [003] d..2. 1.000050: sched_switch: prev_comm=a ==> "
	"next_comm=b\n";

static void test_switches(void)
{
	struct wt_trace t;
	char name[16];
	char *text;
	size_t i, len = 0, ok = 0;
	FILE *f;

	KTAP_EQ(wt_parse(switches, &t), 0, "switches: parse");
	KTAP_EQ(t.nsw, 4, "switches: 4 sched_switch events, one skipped");
	KTAP_EQ(t.ncomms, 3, "switches: 3 names");
	ktap_check(t.nsw == 4 && t.sw[0].cpu == 1 &&
		   t.sw[0].ts == 1000000000 &&
		   !strcmp(t.comms[t.sw[0].comm], "my prog/2"),
		   "switches: CPU 1 at 1 s to \"my prog/2\"");
	ktap_check(t.nsw == 4 && t.sw[1].cpu == 2 &&
		   t.sw[1].ts == 1000020000 &&
		   !strcmp(t.comms[t.sw[1].comm], "wsx/3"),
		   "switches: CPU 2 to wsx/3 (CRLF line)");
	ktap_check(t.nsw == 4 && t.sw[2].comm == t.sw[0].comm,
		   "switches: my prog/2 again, the same name");
	ktap_check(t.nsw == 4 && t.sw[3].ts == 1000040000 &&
		   !strcmp(t.comms[t.sw[3].comm], "odd next_pid= x"),
		   "switches: the name runs to the last \" next_pid=\"");
	ktap_check(t.nev == 1 && t.t0 == 1000010000 && t.t1 == 1000010000 &&
		   t.ncpus == 1 && t.skipped == 0,
		   "switches: t0, t1, CPUs and skipped from the wsx event "
		   "alone");
	wt_free(&t);

	/* 100 names: the name map grows; each switch keeps its own */
	f = open_memstream(&text, &len);
	for (i = 0; i < 200; i++)
		fprintf(f, "  x-1 [%03zu] d..2. 1.%06zu: sched_switch: "
			"prev_comm=a prev_pid=1 prev_prio=120 prev_state=S "
			"==> next_comm=task %zu next_pid=%zu next_prio=120\n",
			i % 7, i, i % 100, i);
	fclose(f);
	KTAP_EQ(wt_parse(text, &t), 0, "switches: 200 lines parse");
	KTAP_EQ(t.ncomms, 100, "switches: 100 names");
	for (i = 0; i < t.nsw; i++) {
		snprintf(name, sizeof(name), "task %zu", i % 100);
		ok += !strcmp(t.comms[t.sw[i].comm], name) &&
		      t.sw[i].cpu == (int)(i % 7);
	}
	KTAP_EQ(ok, 200, "switches: each of the 200 to its own name, CPU");
	wt_free(&t);
	free(text);
}

int main(void)
{
	test_seeds();
	test_corners();
	test_readies();
	test_switches();
	return ktap_done();
}
