/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxtrace: parse the wsx tracepoints out of tracefs's "trace" text and
 * write the timeline as trace-event JSON or SVG.  See wsxtrace.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wsxtrace.h"
#include "wsxwaste.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const type_names[WT_NR_TYPES] = {
	[WT_QUEUE] = "wsx_item_queue",
	[WT_START] = "wsx_item_start",
	[WT_END] = "wsx_item_end",
	[WT_STEAL] = "wsx_steal",
	[WT_SPILL] = "wsx_spill",
	[WT_PARK] = "wsx_park",
	[WT_UNPARK] = "wsx_unpark",
	[WT_HANDOFF] = "wsx_handoff",
	[WT_ITEM_PARK] = "wsx_item_park",
	[WT_ITEM_READY] = "wsx_item_ready",
};

/* ---- parsing ------------------------------------------------------- */

/* "12.345678" (seconds) or "12345" (a counter clock) into ns. */
static bool parse_ts(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (s == end)
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		sec = sec * 10 + (*s - '0');
	if (s == end) {
		*ns = sec;
		return true;
	}
	if (*s++ != '.')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (digits < 9) {
			frac = frac * 10 + (*s - '0');
			digits++;
		}
	}
	if (s != end || !digits)
		return false;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return true;
}

/* The value of "key=" among the fields [s, end); NULL if absent. */
static const char *field(const char *s, const char *end, const char *key)
{
	size_t klen = strlen(key);
	const char *p = s;

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) > klen && !memcmp(p, key, klen) &&
		    p[klen] == '=')
			return p + klen + 1;
		while (p < end && *p != ' ')
			p++;
	}
	return NULL;
}

static bool field_int(const char *s, const char *end, const char *key,
		      int *val)
{
	const char *v = field(s, end, key);
	char *e;
	long x;

	if (!v)
		return false;
	errno = 0;
	x = strtol(v, &e, 10);
	if (errno || e == v || (e < end && *e != ' ' && *e != '\n'))
		return false;
	*val = (int)x;
	return true;
}

static bool field_hex(const char *s, const char *end, const char *key,
		      uint64_t *val)
{
	const char *v = field(s, end, key);
	char *e;

	if (!v)
		return false;
	errno = 0;
	*val = strtoull(v, &e, 16);
	return !errno && e != v && (e >= end || *e == ' ' || *e == '\n');
}

/* Parses the fields of event @type into @ev; false if one is missing. */
static bool parse_fields(struct wt_event *ev, const char *s, const char *end)
{
	int count = 0;

	switch (ev->type) {
	case WT_QUEUE:
		return field_hex(s, end, "item", &ev->item) &&
		       field_int(s, end, "p", &ev->p);
	case WT_START:
		return field_hex(s, end, "item", &ev->item) &&
		       field_int(s, end, "p", &ev->p) &&
		       field_int(s, end, "m", &ev->m) &&
		       field_int(s, end, "from", &ev->from) &&
		       field_int(s, end, "stolen", &ev->stolen);
	case WT_END:
		return field_hex(s, end, "item", &ev->item) &&
		       field_int(s, end, "status", &ev->status);
	case WT_STEAL:
		if (!field_int(s, end, "thief", &ev->thief) ||
		    !field_int(s, end, "victim", &ev->victim) ||
		    !field_int(s, end, "count", &count))
			return false;
		ev->count = count;
		return true;
	case WT_SPILL:
		if (!field_int(s, end, "p", &ev->p) ||
		    !field_int(s, end, "count", &count))
			return false;
		ev->count = count;
		return true;
	case WT_PARK:
	case WT_UNPARK:
		return field_int(s, end, "m", &ev->m);
	case WT_HANDOFF:
		return field_int(s, end, "m", &ev->m) &&
		       field_int(s, end, "p", &ev->p) &&
		       field_int(s, end, "to", &ev->to);
	case WT_ITEM_PARK:
		return field_hex(s, end, "item", &ev->item);
	case WT_ITEM_READY:
		return field_hex(s, end, "item", &ev->item) &&
		       field_int(s, end, "cpu", &ev->readier) &&
		       ev->readier >= 0;
	default:
		return false;
	}
}

/*
 * The timestamp and CPU of a line "TASK-PID [CPU] FLAGS TIMESTAMP: EVENT:
 * ..." [@s, ...), whose EVENT begins at @name; false if they do not parse.
 */
static bool parse_head(const char *s, const char *name, uint64_t *ns,
		       int *cpu)
{
	const char *ts, *p, *lb;

	/* the timestamp ends at the ':' before the name */
	ts = name - 2;
	while (ts > s && ts[-1] != ' ' && ts[-1] != ']')
		ts--;
	if (!parse_ts(ts, name - 2, ns))
		return false;
	/* the CPU: the last "[digits]" before the timestamp */
	for (p = ts; p > s && p[-1] != ']'; p--)
		;
	if (p == s)
		return false;
	for (lb = p - 1; lb > s && lb[-1] != '['; lb--)
		;
	if (lb == s || lb == p - 1)
		return false;
	*cpu = atoi(lb);
	return true;
}

/* The last @needle in [@s, @end), or NULL. */
static const char *find_last(const char *s, const char *end,
			     const char *needle)
{
	size_t n = strlen(needle), i;

	if ((size_t)(end - s) < n)
		return NULL;
	for (i = end - s - n + 1; i--; )
		if (!memcmp(s + i, needle, n))
			return s + i;
	return NULL;
}

/* Highest CPU number a sched_switch line may have (no huge lane arrays). */
#define WT_MAX_CPU	65535

/*
 * The fields [@s, @end) of a sched_switch: its next_comm into
 * [*@comm, *@comm + *@len); false if they do not parse.
 */
static bool parse_switch(const char *s, const char *end, const char **comm,
			 size_t *len)
{
	static const char key[] = "==> next_comm=";
	const char *a = memmem(s, end - s, key, sizeof(key) - 1);
	const char *b = find_last(s, end, " next_pid=");
	int pid;

	if (!a || !b || a + sizeof(key) - 1 > b ||
	    !field_int(b, end, "next_pid", &pid))
		return false;
	*comm = a + sizeof(key) - 1;
	*len = b - *comm;
	return true;
}

enum { LINE_BAD = -1, LINE_OTHER, LINE_WSX, LINE_SWITCH };

/*
 * One line "TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS".  Returns
 * LINE_WSX for a wsx event stored in @ev, LINE_SWITCH for a sched_switch
 * (its timestamp and CPU in @ev, its next_comm in @comm, @len), LINE_OTHER
 * for another line (a sched_switch that does not parse among them),
 * LINE_BAD for a wsx event that does not parse.
 */
static int parse_line(const char *s, const char *end, struct wt_event *ev,
		      const char **comm, size_t *len)
{
	static const char sw[] = ": sched_switch: ";
	const char *name, *colon, *p;
	size_t i;

	name = NULL;
	for (p = s; p + 6 <= end; p++) {
		if (!memcmp(p, ": wsx_", 6)) {
			name = p + 2;
			break;
		}
		if ((size_t)(end - p) >= sizeof(sw) - 1 &&
		    !memcmp(p, sw, sizeof(sw) - 1)) {
			memset(ev, 0, sizeof(*ev));
			return parse_head(s, p + 2, &ev->ts, &ev->cpu) &&
			       ev->cpu >= 0 && ev->cpu <= WT_MAX_CPU &&
			       parse_switch(p + sizeof(sw) - 1, end, comm,
					    len) ? LINE_SWITCH : LINE_OTHER;
		}
	}
	if (!name)
		return LINE_OTHER;
	colon = memchr(name, ':', end - name);
	if (!colon)
		return LINE_OTHER;
	memset(ev, 0, sizeof(*ev));
	for (i = 0; i < WT_NR_TYPES; i++)
		if (strlen(type_names[i]) == (size_t)(colon - name) &&
		    !memcmp(name, type_names[i], colon - name))
			break;
	if (i == WT_NR_TYPES)
		return LINE_OTHER;	/* a wsx_ event of a later module */
	ev->type = i;
	if (!parse_head(s, name, &ev->ts, &ev->cpu) ||
	    !parse_fields(ev, colon + 1, end))
		return LINE_BAD;
	return LINE_WSX;
}

/*
 * Task name -> index in t->comms, open addressing on a string hash; grown
 * to keep it at most half full.
 */
struct comm_map {
	size_t *vals;	/* index + 1; 0: empty */
	size_t mask;
	size_t cap;	/* of t->comms */
};

static size_t comm_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (size_t)h;
}

static size_t *comm_slot(const struct comm_map *m, char **comms,
			 const char *s, size_t len)
{
	size_t i = comm_hash(s, len);

	for (;; i++) {
		i &= m->mask;
		if (!m->vals[i] || (!strncmp(comms[m->vals[i] - 1], s, len) &&
				    !comms[m->vals[i] - 1][len]))
			return &m->vals[i];
	}
}

/* Room in @m and t->comms for one more name; 0 or -ENOMEM. */
static int comm_grow(struct wt_trace *t, struct comm_map *m)
{
	size_t i, ncap = m->cap ? 2 * m->cap : 32;
	struct comm_map n = { NULL, 2 * ncap - 1, ncap };
	char **c;

	if (t->ncomms < m->cap)
		return 0;
	c = realloc(t->comms, ncap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->comms = c;
	n.vals = calloc(2 * ncap, sizeof(*n.vals));
	if (!n.vals)
		return -ENOMEM;
	for (i = 0; i < t->ncomms; i++)
		*comm_slot(&n, t->comms, t->comms[i],
			   strlen(t->comms[i])) = i + 1;
	free(m->vals);
	*m = n;
	return 0;
}

/* Appends the sched_switch at @ev's time on its CPU to @comm. */
static int add_switch(struct wt_trace *t, struct comm_map *m, size_t *cap,
		      const struct wt_event *ev, const char *comm, size_t len)
{
	size_t *slot;

	if (comm_grow(t, m))
		return -ENOMEM;
	slot = comm_slot(m, t->comms, comm, len);
	if (!*slot) {
		t->comms[t->ncomms] = strndup(comm, len);
		if (!t->comms[t->ncomms])
			return -ENOMEM;
		*slot = ++t->ncomms;
	}
	if (t->nsw == *cap) {
		struct wt_switch *n;

		*cap = *cap ? 2 * *cap : 1024;
		n = realloc(t->sw, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->sw = n;
	}
	t->sw[t->nsw++] = (struct wt_switch){ ev->ts, ev->cpu, *slot - 1 };
	return 0;
}

/* item pointer -> index of its latest run in t->items; open addressing */
struct item_map {
	uint64_t *keys;
	size_t *vals;	/* index + 1; 0: empty */
	size_t mask;
};

static size_t *map_slot(struct item_map *m, uint64_t key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ULL) >> 20;

	for (;; i++) {
		i &= m->mask;
		if (!m->vals[i] || m->keys[i] == key) {
			m->keys[i] = key;
			return &m->vals[i];
		}
	}
}

static int map_init(struct item_map *m, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	m->mask = cap - 1;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = calloc(cap, sizeof(*m->vals));
	return m->keys && m->vals ? 0 : -ENOMEM;
}

static void map_free(struct item_map *m)
{
	free(m->keys);
	free(m->vals);
}

static struct wt_item *new_item(struct wt_trace *t, struct item_map *m,
				uint64_t ptr)
{
	struct wt_item *it = &t->items[t->nitems++];

	memset(it, 0, sizeof(*it));
	it->item = ptr;
	it->seq = t->nitems;
	it->q_p = -1;
	*map_slot(m, ptr) = t->nitems;
	return it;
}

static struct wt_item *find_item(struct wt_trace *t, struct item_map *m,
				 uint64_t ptr)
{
	size_t idx = *map_slot(m, ptr);

	return idx ? &t->items[idx - 1] : NULL;
}

/* A ready's slot in the ready map once a start took it (not 0: empty). */
#define READY_TAKEN	((size_t)-1)

/*
 * The first start of a pointer after a ready is the run that ready queued:
 * the ready's event index + 1 waits in @r until that start takes it.
 */
static void take_ready(struct wt_trace *t, struct item_map *r,
		       struct wt_item *it)
{
	size_t *slot = map_slot(r, it->item);
	const struct wt_event *rd;

	if (!*slot || *slot == READY_TAKEN)
		return;
	rd = &t->ev[*slot - 1];
	*slot = READY_TAKEN;
	it->readied = true;
	it->r_ts = rd->ts;
	it->r_cpu = rd->readier;
	t->readied_starts++;
	t->readied_here += it->cpu == it->r_cpu;
}

/*
 * Pair the queue, start and end events of each item, and each ready with
 * the start it led to.
 */
static int build_items(struct wt_trace *t)
{
	struct item_map m, r;
	struct wt_item *it;
	size_t i;
	int ret;

	ret = map_init(&m, t->nev);
	ret |= map_init(&r, t->nev);
	t->items = calloc(t->nev ? t->nev : 1, sizeof(*t->items));
	if (ret || !t->items) {
		map_free(&m);
		map_free(&r);
		return -ENOMEM;
	}
	for (i = 0; i < t->nev; i++) {
		const struct wt_event *ev = &t->ev[i];

		switch (ev->type) {
		case WT_QUEUE:
			it = new_item(t, &m, ev->item);
			it->queued = true;
			it->q_ts = ev->ts;
			it->q_p = ev->p;
			break;
		case WT_START:
			it = find_item(t, &m, ev->item);
			if (!it || it->started)
				it = new_item(t, &m, ev->item);
			it->started = true;
			it->s_ts = ev->ts;
			it->cpu = ev->cpu;
			it->p = ev->p;
			it->m = ev->m;
			it->from = ev->from;
			it->stolen = ev->stolen;
			if (!it->queued)
				it->q_p = ev->from;
			take_ready(t, &r, it);
			break;
		case WT_ITEM_READY:
			*map_slot(&r, ev->item) = i + 1;
			break;
		case WT_END:
			it = find_item(t, &m, ev->item);
			if (!it || !it->started || it->ended) {
				t->orphan_ends++;
				break;
			}
			it->ended = true;
			it->e_ts = ev->ts;
			it->status = ev->status;
			break;
		default:
			break;
		}
	}
	map_free(&m);
	map_free(&r);
	return 0;
}

static void note_lost(struct wt_trace *t, const char *s, const char *end)
{
	static const char tag[] = "entries-in-buffer/entries-written:";
	const char *p;
	unsigned long long in, written;

	for (p = s; p + sizeof(tag) - 1 <= end; p++) {
		if (!memcmp(p, tag, sizeof(tag) - 1)) {
			if (sscanf(p + sizeof(tag) - 1, " %llu/%llu", &in,
				   &written) == 2 && written > in)
				t->lost += written - in;
			return;
		}
	}
}

int wt_parse(const char *text, struct wt_trace *t)
{
	struct comm_map cm = { NULL, 0, 0 };
	const char *line, *end, *comm = NULL;
	struct wt_event ev;
	size_t cap = 0, swcap = 0, clen = 0;
	int ret;

	if (!text || !t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#') {
			note_lost(t, line, end);
			continue;
		}
		ret = parse_line(line, end > line && end[-1] == '\r' ?
				 end - 1 : end, &ev, &comm, &clen);
		if (ret == LINE_BAD)
			t->skipped++;
		if (ret == LINE_SWITCH &&
		    add_switch(t, &cm, &swcap, &ev, comm, clen)) {
			free(cm.vals);
			wt_free(t);
			return -ENOMEM;
		}
		if (ret != LINE_WSX)
			continue;
		if (t->nev == cap) {
			struct wt_event *n;

			cap = cap ? 2 * cap : 1024;
			n = realloc(t->ev, cap * sizeof(*n));
			if (!n) {
				free(cm.vals);
				wt_free(t);
				return -ENOMEM;
			}
			t->ev = n;
		}
		t->ev[t->nev++] = ev;
		t->count[ev.type]++;
		if (ev.type == WT_START && ev.stolen)
			t->stolen_starts++;
		if (t->nev == 1 || ev.ts < t->t0)
			t->t0 = ev.ts;
		if (ev.ts > t->t1)
			t->t1 = ev.ts;
		if (ev.cpu + 1 > t->ncpus)
			t->ncpus = ev.cpu + 1;
		if (ev.type == WT_ITEM_READY && ev.readier + 1 > t->ncpus)
			t->ncpus = ev.readier + 1;
		if ((ev.type == WT_QUEUE || ev.type == WT_START ||
		     ev.type == WT_SPILL || ev.type == WT_HANDOFF) &&
		    ev.p + 1 > t->nprocs)
			t->nprocs = ev.p + 1;
		if (ev.type == WT_START && ev.from + 1 > t->nprocs)
			t->nprocs = ev.from + 1;
		if (ev.type == WT_STEAL) {
			if (ev.thief + 1 > t->nprocs)
				t->nprocs = ev.thief + 1;
			if (ev.victim + 1 > t->nprocs)
				t->nprocs = ev.victim + 1;
		}
	}
	free(cm.vals);
	ret = build_items(t);
	if (ret)
		wt_free(t);
	return ret;
}

void wt_free(struct wt_trace *t)
{
	size_t i;

	if (!t)
		return;
	free(t->ev);
	free(t->items);
	free(t->sw);
	for (i = 0; i < t->ncomms; i++)
		free(t->comms[i]);
	free(t->comms);
	memset(t, 0, sizeof(*t));
}

int wt_cpu_p(const struct wt_trace *t, int cpu)
{
	size_t i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == WT_START && t->ev[i].cpu == cpu)
			return t->ev[i].p;
	return -1;
}

int wt_p_cpu(const struct wt_trace *t, int p)
{
	size_t i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == WT_START && t->ev[i].p == p)
			return t->ev[i].cpu;
	return p;
}

/* ---- queue depths ------------------------------------------------------ */

/*
 * Calls @fn(ctx, ts, track, depth) for each change of a queue depth;
 * track p for P p, nprocs for the global queue.  Depths never go below 0
 * (items queued before the trace began).
 *
 * !@runq: items by the queue they were queued on: +1 at a queue event,
 * -1 at a start from it (its from= field), -count at a spill (+count on
 * global).  @runq: items by the run queue that holds them now, as the
 * schedtrace depths: steals move count items from victim to thief and a
 * start takes -1 from the P that runs the item (from global if from=-1).
 */
static int walk_depths(const struct wt_trace *t, bool runq,
		       void (*fn)(void *ctx, uint64_t ts, int track,
				  long depth), void *ctx)
{
	long *d = calloc(t->nprocs + 1, sizeof(*d));
	size_t i;
	int g = t->nprocs, k;

	if (!d)
		return -ENOMEM;
	for (k = 0; k <= g; k++)
		fn(ctx, t->t0, k, 0);
	for (i = 0; i < t->nev; i++) {
		const struct wt_event *ev = &t->ev[i];
		int a = -1, b = -1;
		long delta = 1;

		switch (ev->type) {
		case WT_QUEUE:
			a = ev->p < 0 ? g : ev->p;
			break;
		case WT_START:
			a = ev->from < 0 ? g : runq ? ev->p : ev->from;
			delta = -1;
			break;
		case WT_STEAL:
			if (!runq)
				continue;
			a = ev->victim;
			b = ev->thief;
			delta = -(long)ev->count;
			break;
		case WT_SPILL:
			a = ev->p;
			b = g;
			delta = -(long)ev->count;
			break;
		default:
			continue;
		}
		if (a < 0 || a > g)
			continue;
		d[a] += delta;
		if (d[a] < 0)
			d[a] = 0;
		fn(ctx, ev->ts, a, d[a]);
		if (b >= 0 && b <= g) {
			d[b] -= delta;
			fn(ctx, ev->ts, b, d[b]);
		}
	}
	free(d);
	return 0;
}

/* ---- JSON ------------------------------------------------------------ */

#define PID		1
#define CPU_TID(c)	(1 + (c))
#define QUEUE_TID(p)	(1001 + (p))

/* Microseconds since t0, with ns digits. */
static void put_ts(FILE *f, const struct wt_trace *t, uint64_t ts)
{
	uint64_t d = ts > t->t0 ? ts - t->t0 : 0;

	fprintf(f, "%" PRIu64 ".%03u", d / 1000, (unsigned int)(d % 1000));
}

static void json_sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

struct json_ctx {
	const char *prefix;
	FILE *f;
	const struct wt_trace *t;
	bool *first;
};

static void json_counter(void *arg, uint64_t ts, int track, long depth)
{
	struct json_ctx *c = arg;

	json_sep(c->f, c->first);
	if (track == c->t->nprocs)
		fprintf(c->f, "{\"ph\":\"C\",\"name\":\"%s global\"",
			c->prefix);
	else
		fprintf(c->f, "{\"ph\":\"C\",\"name\":\"%s P%d\"",
			c->prefix, track);
	fprintf(c->f, ",\"pid\":%d,\"ts\":", PID);
	put_ts(c->f, c->t, ts);
	fprintf(c->f, ",\"args\":{\"depth\":%ld}}", depth);
}

static void json_slice(FILE *f, const struct wt_trace *t, bool *first,
		       const char *cat, int tid, uint64_t from, uint64_t to)
{
	json_sep(f, first);
	fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,"
		"\"ts\":", cat, PID, tid);
	put_ts(f, t, from);
	fputs(",\"dur\":", f);
	fprintf(f, "%" PRIu64 ".%03u", (to - from) / 1000,
		(unsigned int)((to - from) % 1000));
}

static void json_meta(FILE *f, bool *first, int tid, const char *what,
		      const char *key, const char *sval, int ival)
{
	json_sep(f, first);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,", PID);
	if (tid >= 0)
		fprintf(f, "\"tid\":%d,", tid);
	fprintf(f, "\"name\":\"%s\",\"args\":{\"%s\":", what, key);
	if (sval)
		fprintf(f, "\"%s\"}}", sval);
	else
		fprintf(f, "%d}}", ival);
}

static void json_parked(FILE *f, const struct wt_trace *t, bool *first)
{
	uint64_t *since = calloc(t->ncpus ? t->ncpus : 1, sizeof(*since));
	bool *parked = calloc(t->ncpus ? t->ncpus : 1, sizeof(*parked));
	size_t i;
	int c;

	if (!since || !parked)
		goto out;
	for (i = 0; i < t->nev; i++) {
		const struct wt_event *ev = &t->ev[i];

		if (ev->type == WT_PARK) {
			parked[ev->cpu] = true;
			since[ev->cpu] = ev->ts;
		} else if (ev->type == WT_UNPARK) {
			json_slice(f, t, first, "parked", CPU_TID(ev->cpu),
				   parked[ev->cpu] ? since[ev->cpu] : t->t0,
				   ev->ts);
			fprintf(f, ",\"name\":\"parked\",\"args\":{\"m\":%d}}",
				ev->m);
			parked[ev->cpu] = false;
		}
	}
	for (c = 0; c < t->ncpus; c++) {
		if (!parked[c])
			continue;
		json_slice(f, t, first, "parked", CPU_TID(c), since[c], t->t1);
		fputs(",\"name\":\"parked\"}", f);
	}
out:
	free(since);
	free(parked);
}

/*
 * A flow arrow (ph s, then ph f bound to the enclosing slice, bp e) of
 * category @cat, named @cat too but for the steals' ("stolen"), from the
 * slice at @from on track @from_tid to the slice that begins at @to on
 * track @to_tid.  Perfetto pairs the two by id, category and name.
 */
static void json_flow(FILE *f, const struct wt_trace *t, bool *first,
		      const char *cat, unsigned int id, int from_tid,
		      uint64_t from, int to_tid, uint64_t to)
{
	const char *name = strcmp(cat, "steal") ? cat : "stolen";

	json_sep(f, first);
	fprintf(f, "{\"ph\":\"s\",\"cat\":\"%s\",\"name\":\"%s\","
		"\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":", cat, name, id, PID,
		from_tid);
	put_ts(f, t, from);
	fputs("}", f);
	json_sep(f, first);
	fprintf(f, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"%s\","
		"\"name\":\"%s\",\"id\":%u,\"pid\":%d,\"tid\":%d,"
		"\"ts\":", cat, name, id, PID, to_tid);
	put_ts(f, t, to);
	fputs("}", f);
}

/*
 * Each ready: a zero-length slice on the readier's CPU track; each run it
 * led to: a flow from that slice to the run's, as Go's trace draws an
 * unblock.
 */
static void json_readies(FILE *f, const struct wt_trace *t, bool *first)
{
	size_t i;

	for (i = 0; i < t->nev; i++) {
		const struct wt_event *ev = &t->ev[i];

		if (ev->type != WT_ITEM_READY)
			continue;
		json_slice(f, t, first, "ready", CPU_TID(ev->readier), ev->ts,
			   ev->ts);
		fprintf(f, ",\"name\":\"ready\",\"args\":{\"item\":\"%016"
			PRIx64 "\",\"cpu\":%d}}", ev->item, ev->readier);
	}
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];

		if (!it->readied)
			continue;
		json_flow(f, t, first, "ready", it->seq, CPU_TID(it->r_cpu),
			  it->r_ts, CPU_TID(it->cpu), it->s_ts);
	}
}

int wt_write_json(FILE *f, const struct wt_trace *t)
{
	struct json_ctx ctx;
	bool first = true;
	char name[64];
	size_t i;
	int c;

	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":"
	      "\"wsxctl trace\"},\"traceEvents\":[", f);
	json_meta(f, &first, -1, "process_name", "name", "wsx", 0);
	for (c = 0; c < t->ncpus; c++) {
		int p = wt_cpu_p(t, c);

		if (p >= 0)
			snprintf(name, sizeof(name), "CPU %d (P%d)", c, p);
		else
			snprintf(name, sizeof(name), "CPU %d", c);
		json_meta(f, &first, CPU_TID(c), "thread_name", "name", name,
			  0);
		json_meta(f, &first, CPU_TID(c), "thread_sort_index",
			  "sort_index", NULL, c);
	}
	for (c = 0; c < t->nprocs; c++) {
		snprintf(name, sizeof(name), "P%d queue", c);
		json_meta(f, &first, QUEUE_TID(c), "thread_name", "name", name,
			  0);
		json_meta(f, &first, QUEUE_TID(c), "thread_sort_index",
			  "sort_index", NULL, 1000 + c);
	}
	/* the items: a slice per run, a queue mark per queue event */
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];

		if (it->queued && it->q_p >= 0) {
			json_slice(f, t, &first, "queue", QUEUE_TID(it->q_p),
				   it->q_ts, it->q_ts);
			fprintf(f, ",\"name\":\"queue #%u\",\"args\":{\"item\":"
				"\"%016" PRIx64 "\",\"p\":%d}}", it->seq,
				it->item, it->q_p);
		}
		if (!it->started)
			continue;
		json_slice(f, t, &first, "item", CPU_TID(it->cpu), it->s_ts,
			   it->ended ? it->e_ts : t->t1);
		fprintf(f, ",\"name\":\"item #%u\",\"args\":{\"item\":\"%016"
			PRIx64 "\",\"seq\":%u,\"p\":%d,\"m\":%d,\"from\":%d,"
			"\"stolen\":%d,\"queued\":%d,\"ended\":%d,"
			"\"status\":%d}}", it->seq, it->item, it->seq, it->p,
			it->m, it->from, it->stolen, it->queued, it->ended,
			it->status);
	}
	/* flows: a stolen item's queue mark (or the trace's start) to it */
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];
		int src = it->queued ? it->q_p : it->from;

		if (!it->started || !it->stolen)
			continue;
		if (!it->queued) {	/* queued before the trace: a mark */
			json_slice(f, t, &first, "queue", QUEUE_TID(src),
				   t->t0, t->t0);
			fprintf(f, ",\"name\":\"queued before #%u\"}", it->seq);
		}
		json_flow(f, t, &first, "steal", it->seq, QUEUE_TID(src),
			  it->queued ? it->q_ts : t->t0, CPU_TID(it->cpu),
			  it->s_ts);
	}
	json_readies(f, t, &first);
	/* steals, spills, handoffs, parks: instants on the CPU making them */
	for (i = 0; i < t->nev; i++) {
		const struct wt_event *ev = &t->ev[i];
		static const char *const cat[WT_NR_TYPES] = {
			[WT_STEAL] = "steal", [WT_SPILL] = "spill",
			[WT_HANDOFF] = "handoff", [WT_ITEM_PARK] = "park",
		};

		if (!cat[ev->type])
			continue;
		json_sep(f, &first);
		fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"pid\":%d,"
			"\"tid\":%d,\"ts\":", cat[ev->type], PID,
			CPU_TID(ev->cpu));
		put_ts(f, t, ev->ts);
		if (ev->type == WT_STEAL)
			fprintf(f, ",\"name\":\"steal %u from P%d\",\"args\":"
				"{\"thief\":%d,\"victim\":%d,\"count\":%u}}",
				ev->count, ev->victim, ev->thief, ev->victim,
				ev->count);
		else if (ev->type == WT_SPILL)
			fprintf(f, ",\"name\":\"spill %u\",\"args\":{\"p\":%d,"
				"\"count\":%u}}", ev->count, ev->p, ev->count);
		else if (ev->type == WT_ITEM_PARK)
			fprintf(f, ",\"name\":\"park\",\"args\":{\"item\":"
				"\"%016" PRIx64 "\"}}", ev->item);
		else
			fprintf(f, ",\"name\":\"handoff of P%d: M%d to M%d\","
				"\"args\":{\"m\":%d,\"p\":%d,\"to\":%d}}",
				ev->p, ev->m, ev->to, ev->m, ev->p, ev->to);
	}
	json_parked(f, t, &first);
	ctx = (struct json_ctx){ "depth", f, t, &first };
	if (walk_depths(t, false, json_counter, &ctx))
		return -ENOMEM;
	ctx.prefix = "runq";
	if (walk_depths(t, true, json_counter, &ctx))
		return -ENOMEM;
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- SVG ----------------------------------------------------------- */

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d",
};

static const char *p_colour(int p)
{
	return p < 0 ? "#9a9a9a" : palette[p % ARRAY_SIZE(palette)];
}

#define SVG_W		960
#define SVG_LEFT	78
#define SVG_RIGHT	24
#define SVG_TOP		58
#define LANE_H		34
#define LANE_GAP	6
#define DEPTH_H		84

struct svg {
	FILE *f;
	const struct wt_trace *t;
	uint64_t span;		/* ns shown */
	double pw;		/* plot width in px */
	int *lane_of_cpu;
	int nlanes;
	int depth_y;		/* top of the depth chart */
	long depth_max;
	/* the depth polyline being drawn */
	int cur_track;
	double last_x, last_y;
};

static double svg_x(const struct svg *s, uint64_t ts)
{
	uint64_t d = ts > s->t->t0 ? ts - s->t->t0 : 0;

	return SVG_LEFT + s->pw * (double)d / (double)s->span;
}

static int lane_y(const struct svg *s, int cpu)
{
	int lane = cpu >= 0 && cpu < s->t->ncpus ? s->lane_of_cpu[cpu] : 0;

	return SVG_TOP + lane * (LANE_H + LANE_GAP);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* A round tick step: 1, 2 or 5 times a power of ten, about span / 8. */
static uint64_t tick_step(uint64_t span)
{
	uint64_t step = 1, target = span / 8 ? span / 8 : 1;

	for (;;) {
		if (step >= target)
			return step;
		if (2 * step >= target)
			return 2 * step;
		if (5 * step >= target)
			return 5 * step;
		step *= 10;
	}
}

static void put_time(FILE *f, uint64_t ns, uint64_t step)
{
	if (step >= 1000000000ULL)
		fprintf(f, "%g s", ns / 1e9);
	else if (step >= 1000000)
		fprintf(f, "%g ms", ns / 1e6);
	else if (step >= 1000)
		fprintf(f, "%g \xc2\xb5s", ns / 1e3);
	else
		fprintf(f, "%" PRIu64 " ns", ns);
}

static void depth_max_fn(void *arg, uint64_t ts, int track, long depth)
{
	struct svg *s = arg;

	(void)ts;
	(void)track;
	if (depth > s->depth_max)
		s->depth_max = depth;
}

static double depth_yv(const struct svg *s, long depth)
{
	return s->depth_y + DEPTH_H - (double)DEPTH_H * depth / s->depth_max;
}

/* One track's polyline per call pass: points where @track changes. */
static void depth_point(void *arg, uint64_t ts, int track, long depth)
{
	struct svg *s = arg;
	double x, y;

	if (track != s->cur_track)
		return;
	x = svg_x(s, ts);
	y = depth_yv(s, depth);
	fprintf(s->f, " %.1f,%.1f %.1f,%.1f", x, s->last_y, x, y);
	s->last_x = x;
	s->last_y = y;
}

static void svg_depths(struct svg *s)
{
	const struct wt_trace *t = s->t;
	FILE *f = s->f;
	int track;

	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lane\">run queue"
		"</text>\n", SVG_LEFT - 8, s->depth_y + DEPTH_H / 2 - 2);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lane\">depth</text>\n",
		SVG_LEFT - 8, s->depth_y + DEPTH_H / 2 + 11);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		"class=\"bg\"/>\n", SVG_LEFT, s->depth_y, s->pw, DEPTH_H);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\" "
		"text-anchor=\"end\">%ld</text>\n", SVG_LEFT - 3,
		s->depth_y + 9, s->depth_max);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\" "
		"text-anchor=\"end\">0</text>\n", SVG_LEFT - 3,
		s->depth_y + DEPTH_H);
	for (track = 0; track <= t->nprocs; track++) {
		s->cur_track = track;
		s->last_x = svg_x(s, t->t0);
		s->last_y = depth_yv(s, 0);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.6\" stroke-linejoin=\"round\" "
			"points=\"%.1f,%.1f", p_colour(track == t->nprocs ? -1 :
							track),
			s->last_x, s->last_y);
		walk_depths(t, true, depth_point, s);
		fprintf(f, " %.1f,%.1f\"/>\n", svg_x(s, t->t1), s->last_y);
	}
}

static void svg_axis(struct svg *s, int y_top, int y_axis)
{
	uint64_t step = tick_step(s->span), v;
	FILE *f = s->f;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		"class=\"axis\"/>\n", SVG_LEFT, y_axis, SVG_LEFT + s->pw,
		y_axis);
	for (v = 0; v <= s->span; v += step) {
		double x = SVG_LEFT + s->pw * (double)v / (double)s->span;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"grid\"/>\n", x, y_top, x, y_axis);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"axis\"/>\n", x, y_axis, x, y_axis + 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"small\" "
			"text-anchor=\"middle\">", x, y_axis + 16);
		put_time(f, v, step);
		fputs("</text>\n", f);
	}
}

static const struct wt_trace *sort_trace;

static int by_start(const void *a, const void *b)
{
	const struct wt_item *x = &sort_trace->items[*(const size_t *)a];
	const struct wt_item *y = &sort_trace->items[*(const size_t *)b];

	return x->s_ts < y->s_ts ? -1 : x->s_ts > y->s_ts;
}

#define MAX_ROWS	4

/*
 * Items that overlap on one CPU (an M handed its P over while its item
 * ran on) get rows of their own in the lane: row[i] for item i, and
 * nrows[cpu] rows in each lane.
 */
static int assign_rows(const struct wt_trace *t, int *row, int *nrows)
{
	size_t *order = calloc(t->nitems ? t->nitems : 1, sizeof(*order));
	uint64_t *busy = calloc((size_t)(t->ncpus ? t->ncpus : 1) * MAX_ROWS,
				sizeof(*busy));
	size_t i, n = 0;

	if (!order || !busy) {
		free(order);
		free(busy);
		return -ENOMEM;
	}
	for (i = 0; i < t->nitems; i++)
		if (t->items[i].started)
			order[n++] = i;
	sort_trace = t;
	qsort(order, n, sizeof(*order), by_start);
	for (i = 0; i < n; i++) {
		const struct wt_item *it = &t->items[order[i]];
		uint64_t *b = busy + (size_t)it->cpu * MAX_ROWS;
		int r;

		for (r = 0; r < MAX_ROWS - 1 && b[r] > it->s_ts; r++)
			;
		b[r] = it->ended ? it->e_ts : t->t1;
		row[order[i]] = r;
		if (r + 1 > nrows[it->cpu])
			nrows[it->cpu] = r + 1;
	}
	free(order);
	free(busy);
	return 0;
}

static void svg_items(struct svg *s)
{
	const struct wt_trace *t = s->t;
	int *row = calloc(t->nitems ? t->nitems : 1, sizeof(*row));
	int *nrows = calloc(t->ncpus ? t->ncpus : 1, sizeof(*nrows));
	FILE *f = s->f;
	size_t i;

	if (!row || !nrows || assign_rows(t, row, nrows)) {
		free(row);
		free(nrows);
		return;
	}
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];
		uint64_t end = it->ended ? it->e_ts : t->t1;
		char where[32];
		double x, w, h;
		int y;

		if (!it->started)
			continue;
		x = svg_x(s, it->s_ts);
		w = svg_x(s, end) - x;
		if (w < 1.5)
			w = 1.5;
		h = (double)(LANE_H - 6) / (nrows[it->cpu] ? nrows[it->cpu] : 1);
		y = lane_y(s, it->cpu);
		if (it->q_p < 0)
			snprintf(where, sizeof(where), "the global queue");
		else
			snprintf(where, sizeof(where), "P%d", it->q_p);
		fprintf(f, "<g><title>item #%u: queued on %s, ran on P%d "
			"(CPU %d) %.3f-%.3f ms%s</title>", it->seq, where,
			it->p, it->cpu,
			(it->s_ts - t->t0) / 1e6, (end - t->t0) / 1e6,
			it->stolen ? ", stolen" : "");
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" rx=\"2\" fill=\"%s\" class=\"item\"/>",
			x, y + 3 + row[i] * h, w, h, p_colour(it->q_p));
		if (w >= 20 && h >= 10)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"label\">"
				"#%u</text>", x + w / 2, y + 3 + row[i] * h +
				h / 2 + 3.5, it->seq);
		fputs("</g>\n", f);
	}
	free(row);
	free(nrows);
}

/* The measure's spans: red bands across the lanes, behind the items. */
static void svg_waste(struct svg *s, const struct wt_waste *w, int bottom)
{
	size_t i;

	for (i = 0; i < w->nspans; i++) {
		const struct wt_waste_span *sp = &w->spans[i];
		double x = svg_x(s, sp->start), wd = svg_x(s, sp->end) - x;

		fprintf(s->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" class=\"waste\"><title>a P idle more "
			"than %g ms while an item waited more than %g ms: "
			"%.3f-%.3f ms, up to %u P%s</title></rect>\n", x,
			SVG_TOP - 3, wd < 1.5 ? 1.5 : wd, bottom - SVG_TOP + 6,
			w->threshold_ns / 1e6, w->threshold_ns / 1e6,
			(sp->start - s->t->t0) / 1e6,
			(sp->end - s->t->t0) / 1e6, sp->most,
			sp->most == 1 ? "" : "s");
	}
}

static void svg_parked(struct svg *s)
{
	const struct wt_trace *t = s->t;
	uint64_t *since = calloc(t->ncpus, sizeof(*since));
	bool *parked = calloc(t->ncpus, sizeof(*parked));
	size_t i;
	int c;

	if (!since || !parked)
		goto out;
	for (i = 0; i <= t->nev; i++) {
		const struct wt_event *ev = i < t->nev ? &t->ev[i] : NULL;
		uint64_t from;

		if (ev && ev->type == WT_PARK) {
			parked[ev->cpu] = true;
			since[ev->cpu] = ev->ts;
			continue;
		}
		if (ev && ev->type != WT_UNPARK)
			continue;
		for (c = 0; c < t->ncpus; c++) {
			if (ev && c != ev->cpu)
				continue;
			if (!ev && !parked[c])
				continue;
			from = parked[c] ? since[c] : t->t0;
			fprintf(s->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"%d\" class=\"parked\"/>\n",
				svg_x(s, from), lane_y(s, c) + LANE_H / 2 - 1,
				svg_x(s, ev ? ev->ts : t->t1) - svg_x(s, from),
				2);
			parked[c] = false;
		}
	}
out:
	free(since);
	free(parked);
}

/* Each handoff: a black mark across the top of its CPU's lane. */
static void svg_handoffs(struct svg *s)
{
	size_t i;

	for (i = 0; i < s->t->nev; i++) {
		const struct wt_event *ev = &s->t->ev[i];
		double x = svg_x(s, ev->ts);
		int y = lane_y(s, ev->cpu);

		if (ev->type != WT_HANDOFF)
			continue;
		fprintf(s->f, "<path d=\"M%.1f,%d l-4,-6 h8 z M%.1f,%d v%d\" "
			"class=\"handoff\"><title>handoff at %.3f ms: M%d "
			"handed P%d to M%d, two Ms on CPU %d</title></path>\n",
			x, y + 2, x, y, LANE_H, (ev->ts - s->t->t0) / 1e6,
			ev->m, ev->p, ev->to, ev->cpu);
	}
}

static void svg_arrows(struct svg *s)
{
	const struct wt_trace *t = s->t;
	FILE *f = s->f;
	size_t i;

	/* the queue marks first, under the arrows */
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];

		if (!it->queued || it->q_p < 0)
			continue;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"2.6\" "
			"fill=\"%s\" class=\"queued\"/>\n", svg_x(s, it->q_ts),
			lane_y(s, wt_p_cpu(t, it->q_p)) + LANE_H - 3,
			p_colour(it->q_p));
	}
	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];
		int src = it->queued ? it->q_p : it->from;
		double x1, y1, x2, y2, dx;
		int ys, yd;

		if (!it->started || !it->stolen)
			continue;
		x1 = svg_x(s, it->queued ? it->q_ts : t->t0);
		ys = lane_y(s, wt_p_cpu(t, src));
		yd = lane_y(s, it->cpu);
		y1 = ys + LANE_H - 3;
		x2 = svg_x(s, it->s_ts);
		/* end on the box's near edge */
		y2 = yd > ys ? yd + 3 : yd + LANE_H - 3;
		if (yd == ys)
			y2 = yd + LANE_H / 2;
		dx = (x2 - x1) / 2;
		if (dx > 60)
			dx = 60;
		fprintf(f, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f "
			"%.1f,%.1f\" class=\"steal\" "
			"marker-end=\"url(#arrow)\"><title>item #%u stolen: "
			"queued on P%d, started on P%d</title></path>\n",
			x1, y1, x1 + dx, y1 + (y2 - y1) * 0.6, x2 - dx / 4,
			y2 - (y2 > y1 ? 8 : -8), x2, y2, it->seq, src, it->p);
	}
}

/*
 * Each ready that led to a start: a green arrow from the ready, in the
 * middle of the readier's lane, to the start of the run it queued (an arc
 * over the lane when both are on one CPU), as Go's trace draws an unblock.
 */
static void svg_readies(struct svg *s)
{
	const struct wt_trace *t = s->t;
	size_t i;

	for (i = 0; i < t->nitems; i++) {
		const struct wt_item *it = &t->items[i];
		double x1, y1, x2, y2, dx, bow;

		if (!it->readied)
			continue;
		x1 = svg_x(s, it->r_ts);
		y1 = lane_y(s, it->r_cpu) + LANE_H / 2;
		x2 = svg_x(s, it->s_ts);
		y2 = lane_y(s, it->cpu) + LANE_H / 2;
		dx = (x2 - x1) / 3;
		bow = it->r_cpu == it->cpu ? -LANE_H / 2 : 0;
		fprintf(s->f, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f "
			"%.1f,%.1f\" class=\"ready\" marker-end=\"url(#ready)\">"
			"<title>item #%u readied on CPU %d at %.3f ms, started "
			"on CPU %d at %.3f ms</title></path>\n", x1, y1, x1 + dx,
			y1 + bow, x2 - dx, y2 + bow, x2, y2, it->seq, it->r_cpu,
			(it->r_ts - t->t0) / 1e6, it->cpu,
			(it->s_ts - t->t0) / 1e6);
	}
}

static void svg_legend(struct svg *s, const struct wt_waste *w, int y)
{
	const struct wt_trace *t = s->t;
	FILE *f = s->f;
	bool global = false;
	int x = SVG_LEFT, p;
	size_t i;

	for (i = 0; i < t->nitems; i++)
		if (t->items[i].started && t->items[i].q_p < 0)
			global = true;
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">item queued on:"
		"</text>\n", x, y + 10);
	x += 92;
	for (p = global ? -1 : 0; p < t->nprocs; p++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" "
			"rx=\"2\" fill=\"%s\"/>", x, y, p_colour(p));
		if (p < 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">"
				"global</text>\n", x + 18, y + 10);
		else
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">"
				"P%d</text>\n", x + 18, y + 10, p);
		x += p < 0 ? 64 : 46;
	}
	x += 14;
	fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"2.6\" fill=\"#4e79a7\" "
		"class=\"queued\"/><text x=\"%d\" y=\"%d\" class=\"small\">"
		"queued</text>\n", x + 4, y + 6, x + 12, y + 10);
	x += 66;
	fprintf(f, "<path d=\"M%d,%d L%d,%d\" class=\"steal\" "
		"marker-end=\"url(#arrow)\"/><text x=\"%d\" y=\"%d\" "
		"class=\"small\">stolen: queued on one P, ran on another"
		"</text>\n", x, y + 6, x + 26, y + 6, x + 32, y + 10);
	x += 272;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"2\" "
		"class=\"parked\"/><text x=\"%d\" y=\"%d\" class=\"small\">"
		"M parked</text>\n", x, y + 5, x + 27, y + 10);
	if (t->count[WT_HANDOFF])
		fprintf(f, "<path d=\"M%d,%d l-4,-6 h8 z M%d,%d v12\" "
			"class=\"handoff\"/><text x=\"%d\" y=\"%d\" "
			"class=\"small\">handoff</text>\n", x + 84, y + 2,
			x + 84, y, x + 92, y + 10);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">run queue "
		"depth: items each P holds (inbox, runnext, ring), in the P's "
		"colour; grey: the global queue; steals move items between "
		"them</text>\n", SVG_LEFT, y + 28);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"12\" "
		"class=\"waste\"/><text x=\"%d\" y=\"%d\" class=\"small\">"
		"a P idle more than %g ms while an item waited more than %g ms: "
		"%.3f ms of P-time in %zu intervals</text>\n", SVG_LEFT, y + 37,
		SVG_LEFT + 27, y + 46, w->threshold_ns / 1e6,
		w->threshold_ns / 1e6, w->wasted_ns / 1e6, w->nspans);
	if (t->readied_starts)
		fprintf(f, "<path d=\"M%d,%d L%d,%d\" class=\"ready\" "
			"marker-end=\"url(#ready)\"/><text x=\"%d\" y=\"%d\" "
			"class=\"small\">readied: a parked continuation readied "
			"(on the readier's CPU) to its start; %zu of %zu started "
			"on the readier's CPU</text>\n", SVG_LEFT, y + 60,
			SVG_LEFT + 22, y + 60, SVG_LEFT + 27, y + 64,
			t->readied_here, t->readied_starts);
}

int wt_write_svg(FILE *f, const struct wt_trace *t, const struct wt_waste *w,
		 const char *title)
{
	struct svg s = { .f = f, .t = t, .depth_max = 1 };
	int lanes_bottom, axis_y, height, c, lane = 0;
	size_t i, steals = 0;
	char sub[256];

	s.span = t->t1 > t->t0 ? t->t1 - t->t0 : 1;
	s.pw = SVG_W - SVG_LEFT - SVG_RIGHT;
	s.lane_of_cpu = calloc(t->ncpus ? t->ncpus : 1, sizeof(int));
	if (!s.lane_of_cpu)
		return -ENOMEM;
	for (c = 0; c < t->ncpus; c++)
		s.lane_of_cpu[c] = lane++;
	s.nlanes = lane ? lane : 1;
	lanes_bottom = SVG_TOP + s.nlanes * (LANE_H + LANE_GAP) - LANE_GAP;
	s.depth_y = lanes_bottom + 16;
	axis_y = s.depth_y + DEPTH_H + 6;
	height = axis_y + 92 + (t->readied_starts ? 18 : 0);
	if (walk_depths(t, true, depth_max_fn, &s)) {
		free(s.lane_of_cpu);
		return -ENOMEM;
	}
	for (i = 0; i < t->nev; i++)
		steals += t->ev[i].type == WT_STEAL;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans,"
		"Verdana,Arial,sans-serif\">\n", SVG_W, height, SVG_W, height);
	fputs("<style>\n"
	      ".title{font-size:15px;font-weight:bold;fill:#222}\n"
	      ".sub{font-size:11px;fill:#555}\n"
	      ".lane{font-size:11px;fill:#333;text-anchor:end}\n"
	      ".small{font-size:10px;fill:#444}\n"
	      ".label{font-size:9px;fill:#fff;text-anchor:middle;"
	      "font-weight:bold}\n"
	      ".bg{fill:#f6f6f6;stroke:#ddd;stroke-width:0.5}\n"
	      ".item{stroke:#fff;stroke-width:0.8}\n"
	      ".parked{fill:#c8c8c8}\n"
	      ".waste{fill:#e15759;fill-opacity:0.22}\n"
	      ".queued{stroke:#333;stroke-width:0.6}\n"
	      ".steal{fill:none;stroke:#222;stroke-width:1;"
	      "stroke-opacity:0.6}\n"
	      ".handoff{fill:#000;stroke:#000;stroke-width:1.2}\n"
	      ".ready{fill:none;stroke:#2e8b3e;stroke-width:1.2}\n"
	      ".axis{stroke:#666;stroke-width:1}\n"
	      ".grid{stroke:#000;stroke-opacity:0.08;stroke-width:1}\n"
	      "</style>\n"
	      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" "
	      "refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
	      "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
	      "fill=\"#333\"/></marker>"
	      "<marker id=\"ready\" viewBox=\"0 0 10 10\" refX=\"9\" "
	      "refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
	      "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
	      "fill=\"#2e8b3e\"/></marker></defs>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"22\" class=\"title\">", SVG_LEFT);
	xml_text(f, title && *title ? title : "wsx timeline");
	fputs("</text>\n", f);
	snprintf(sub, sizeof(sub), "%zu items run on %d CPUs, %zu of them "
		 "stolen, in %zu steals; %zu handoffs; %.2f ms",
		 t->count[WT_START], t->ncpus, t->stolen_starts, steals,
		 t->count[WT_HANDOFF], s.span / 1e6);
	fprintf(f, "<text x=\"%d\" y=\"40\" class=\"sub\">%s</text>\n",
		SVG_LEFT, sub);

	for (c = 0; c < t->ncpus; c++) {
		int y = lane_y(&s, c), p = wt_cpu_p(t, c);

		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" class=\"bg\"/>\n", SVG_LEFT, y, s.pw,
			LANE_H);
		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lane\">CPU %d"
			"</text>\n", SVG_LEFT - 8, y + LANE_H / 2 - 2, c);
		if (p >= 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lane\" "
				"fill=\"%s\" style=\"fill:%s;font-weight:bold\">"
				"P%d</text>\n", SVG_LEFT - 8,
				y + LANE_H / 2 + 11, p_colour(p), p_colour(p),
				p);
	}
	svg_axis(&s, SVG_TOP, axis_y);
	svg_waste(&s, w, lanes_bottom);
	svg_parked(&s);
	svg_items(&s);
	svg_depths(&s);
	svg_handoffs(&s);
	svg_arrows(&s);
	svg_readies(&s);
	svg_legend(&s, w, axis_y + 30);
	fputs("</svg>\n", f);
	free(s.lane_of_cpu);
	return ferror(f) ? -EIO : 0;
}
