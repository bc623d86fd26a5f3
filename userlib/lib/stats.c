/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libwsx: the module's debugfs files, "stats" and "schedtrace".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <wsx/libwsx.h>

#include "stats_hist.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DEBUGFS_MAX	(16U << 20)
#define DEBUGFS_ROOT	"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720
#define LOCKDOWN_PATH	"/sys/kernel/security/lockdown"

struct stat_key {
	const char *name;
	size_t offset;
};

struct key_table {
	const struct stat_key *keys;
	size_t n;
};

#define PKEY(f)	{ #f, offsetof(struct wsx_pstats, f) }
static const struct stat_key pstats_keys[] = {
	PKEY(executed), PKEY(runnext_hits), PKEY(ring_puts), PKEY(spills),
	PKEY(global_gets), PKEY(steal_attempts), PKEY(steals), PKEY(stolen),
	PKEY(stolen_from), PKEY(steal_cas_fails), PKEY(spins), PKEY(parks),
	PKEY(wakeups),
};

#define GKEY(f)	{ #f, offsetof(struct wsx_gstats, f) }
static const struct stat_key gstats_keys[] = {
	GKEY(depth), GKEY(puts), GKEY(gets),
};

#define TKEY(f)	{ #f, offsetof(struct wsx_ptopo, f) }
static const struct stat_key ptopo_keys[] = {
	TKEY(node), TKEY(steals_smt), TKEY(steals_cache), TKEY(steals_node),
	TKEY(steals_remote), TKEY(stolen_smt), TKEY(stolen_cache),
	TKEY(stolen_node), TKEY(stolen_remote),
};

#define NKEY(f)	{ #f, offsetof(struct wsx_nodeq, f) }
static const struct stat_key nodeq_keys[] = {
	NKEY(nid), NKEY(depth), NKEY(puts), NKEY(gets),
};

static const struct key_table pstats_table = {
	pstats_keys, ARRAY_SIZE(pstats_keys)
};
static const struct key_table gstats_table = {
	gstats_keys, ARRAY_SIZE(gstats_keys)
};
static const struct key_table ptopo_table = {
	ptopo_keys, ARRAY_SIZE(ptopo_keys)
};
static const struct key_table nodeq_table = {
	nodeq_keys, ARRAY_SIZE(nodeq_keys)
};

static __u64 *stat_field(void *base, const struct stat_key *key)
{
	return (__u64 *)((char *)base + key->offset);
}

static unsigned long long stat_value(const void *base,
				     const struct stat_key *key)
{
	return *(const __u64 *)((const char *)base + key->offset);
}

/* A run of non-blank characters, not NUL-terminated. */
struct token {
	const char *s;
	size_t len;
};

/* Takes the next token of [*pos, end); false when there is none. */
static bool next_token(const char **pos, const char *end, struct token *tok)
{
	const char *p = *pos;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	tok->s = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	tok->len = p - tok->s;
	*pos = p;
	return tok->len != 0;
}

static bool token_is(const struct token *tok, const char *word)
{
	return strlen(word) == tok->len && !memcmp(tok->s, word, tok->len);
}

/* Unsigned decimal, digits only, no overflow. */
static int parse_u64(const char *s, size_t len, __u64 *val)
{
	__u64 v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d = s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

/* Stores one "key=value" token in @base if the key is in @t. */
static int parse_pair(const struct token *tok, const struct key_table *t,
		      void *base)
{
	const char *eq = memchr(tok->s, '=', tok->len);
	struct token key, val;
	__u64 v;
	size_t i;

	if (!eq || eq == tok->s)
		return -EINVAL;
	key = (struct token){ tok->s, eq - tok->s };
	val = (struct token){ eq + 1, tok->len - key.len - 1 };
	if (parse_u64(val.s, val.len, &v))
		return -EINVAL;
	for (i = 0; i < t->n; i++) {
		if (token_is(&key, t->keys[i].name)) {
			*stat_field(base, &t->keys[i]) = v;
			break;
		}
	}
	return 0;
}

static int parse_pairs(const char *pos, const char *end,
		       const struct key_table *t, void *base)
{
	struct token tok;
	int ret;

	while (next_token(&pos, end, &tok)) {
		ret = parse_pair(&tok, t, base);
		if (ret)
			return ret;
	}
	return 0;
}

/* A P's node= before its line is parsed: tells whether the key was there. */
#define NODE_UNSET	UINT64_MAX

struct parse_state {
	struct wsx_stats st;
	struct wsx_topo topo;
	bool have_global;
};

/* @arr of @n entries of @size bytes grown by one zeroed entry, or NULL. */
static void *append_zeroed(void *arr, unsigned int n, size_t size)
{
	char *a = realloc(arr, (n + 1) * size);

	if (a)
		memset(a + n * size, 0, size);
	return a;
}

/* "<prefix><n>" with n the next number @next; false otherwise. */
static bool tag_numbered(const struct token *tag, const char *prefix,
			 unsigned int next)
{
	size_t plen = strlen(prefix);
	__u64 id;

	return tag->len > plen && !memcmp(tag->s, prefix, plen) &&
	       !parse_u64(tag->s + plen, tag->len - plen, &id) && id == next;
}

/* Appends the P numbered by tag "P<n>", which must be the next one. */
static int parse_proc(struct parse_state *ps, const struct token *tag,
		      const char *pos, const char *end)
{
	struct wsx_ptopo *t;
	struct wsx_pstats *p;
	int ret;

	if (!tag_numbered(tag, "P", ps->st.nprocs) || ps->have_global ||
	    ps->topo.nnodeqs)
		return -EINVAL;
	p = append_zeroed(ps->st.p, ps->st.nprocs, sizeof(*p));
	if (!p)
		return -ENOMEM;
	ps->st.p = p;
	p += ps->st.nprocs++;
	t = append_zeroed(ps->topo.p, ps->topo.nprocs, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ps->topo.p = t;
	t += ps->topo.nprocs++;
	t->node = NODE_UNSET;
	ret = parse_pairs(pos, end, &pstats_table, p);
	if (!ret)
		ret = parse_pairs(pos, end, &ptopo_table, t);
	if (t->node == NODE_UNSET) {
		t->node = 0;
	} else {
		ps->topo.have_nodes = 1;
		if (t->node >= ps->topo.nnodes)
			ps->topo.nnodes = t->node + 1;
	}
	return ret;
}

/* Appends the node queue of tag "node<i>", after the Ps, before global. */
static int parse_nodeq(struct parse_state *ps, const char *pos,
		       const char *end)
{
	struct wsx_nodeq *q;

	if (!ps->st.nprocs || ps->have_global)
		return -EINVAL;
	q = append_zeroed(ps->topo.nodeq, ps->topo.nnodeqs, sizeof(*q));
	if (!q)
		return -ENOMEM;
	ps->topo.nodeq = q;
	q += ps->topo.nnodeqs++;
	return parse_pairs(pos, end, &nodeq_table, q);
}

static int parse_line(struct parse_state *ps, const char *pos, const char *end)
{
	struct token tag;

	if (!next_token(&pos, end, &tag))
		return 0;
	if (token_is(&tag, "global")) {
		if (ps->have_global || !ps->st.nprocs)
			return -EINVAL;
		ps->have_global = true;
		return parse_pairs(pos, end, &gstats_table, &ps->st.global);
	}
	if (tag_numbered(&tag, "node", ps->topo.nnodeqs))
		return parse_nodeq(ps, pos, end);
	/* the version line, a user's line, or a kind a newer module adds */
	if (tag.s[0] != 'P' && (tag.len < 4 || memcmp(tag.s, "node", 4)))
		return 0;
	return parse_proc(ps, &tag, pos, end);
}

/*
 * The format's version from the first non-empty line of @text when it is
 * the version line "wsx_stats version=<n>": 0 for version 1 and for a text
 * without the line (a module older than the line), -EPROTO for another
 * version, -EINVAL for a version line without a decimal version=.
 */
static int check_version(const char *text)
{
	const char *end, *pos;
	struct token tok;
	bool have = false;
	__u64 v;

	for (; *text; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		pos = text;
		if (next_token(&pos, end, &tok))
			break;
	}
	if (!*text || !token_is(&tok, WSX_STATS_TAG))
		return 0;
	while (next_token(&pos, end, &tok)) {
		if (tok.len <= 8 || memcmp(tok.s, "version=", 8))
			continue;
		if (parse_u64(tok.s + 8, tok.len - 8, &v))
			return -EINVAL;
		have = true;
	}
	if (!have)
		return -EINVAL;
	return v == WSX_STATS_VERSION ? 0 : -EPROTO;
}

int wsx_stats_parse_topo(const char *text, struct wsx_stats *st,
			 struct wsx_topo *topo)
{
	struct parse_state ps = { .have_global = false };
	const char *end;
	int ret;

	if (!text || !st || !topo)
		return -EINVAL;
	ps.topo.nnodes = 1;
	ret = check_version(text);
	for (; *text && !ret; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		ret = parse_line(&ps, text, end);
	}
	if (!ret && !ps.have_global)
		ret = -EINVAL;
	if (ret) {
		wsx_stats_free(&ps.st);
		wsx_topo_free(&ps.topo);
	}
	*st = ps.st;
	*topo = ps.topo;
	return ret;
}

int wsx_stats_parse(const char *text, struct wsx_stats *st)
{
	struct wsx_topo topo;
	int ret;

	if (!text || !st)
		return -EINVAL;
	ret = wsx_stats_parse_topo(text, st, &topo);
	wsx_topo_free(&topo);
	return ret;
}

void wsx_topo_free(struct wsx_topo *topo)
{
	if (!topo)
		return;
	free(topo->p);
	free(topo->nodeq);
	memset(topo, 0, sizeof(*topo));
}

void wsx_stats_free(struct wsx_stats *st)
{
	if (!st)
		return;
	free(st->p);
	memset(st, 0, sizeof(*st));
}

/* Appends what is left of @fd to @buf, which has room for @size bytes. */
static ssize_t read_all(int fd, char **buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	char *p;

	for (;;) {
		if (size - len < 2) {
			if (size >= DEBUGFS_MAX)
				return -EFBIG;
			size *= 2;
			p = realloc(*buf, size);
			if (!p)
				return -ENOMEM;
			*buf = p;
		}
		n = read(fd, *buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
	}
	(*buf)[len] = '\0';
	return len;
}

/* Whether the kernel's lockdown is on ("none" not the selected mode). */
static bool locked_down(void)
{
	char mode[128];
	ssize_t n;
	int fd;

	fd = open(LOCKDOWN_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, mode, sizeof(mode) - 1);
	close(fd);
	if (n <= 0)
		return false;
	mode[n] = '\0';
	return !strstr(mode, "[none]");
}

/*
 * open()'s error @err for a file of the debugfs directory @dir, made
 * distinct where the cause is not the module's: -ENOMEDIUM when @dir is
 * the default one and no debugfs is mounted on DEBUGFS_ROOT, -EPERM when
 * refused under the kernel's lockdown.
 */
static int debugfs_open_error(const char *dir, int err)
{
	struct statfs sfs;

	if (err == -ENOENT && !strcmp(dir, WSX_DEBUGFS_PATH) &&
	    (statfs(DEBUGFS_ROOT, &sfs) || sfs.f_type != DEBUGFS_MAGIC))
		return -ENOMEDIUM;
	if ((err == -EPERM || err == -EACCES) && locked_down())
		return -EPERM;
	return err;
}

/* Reads the debugfs file @name into *text (malloc'ed, NUL-terminated). */
static int read_debugfs(const char *name, char **text)
{
	const char *dir = secure_getenv("WSX_DEBUGFS");
	char path[PATH_MAX];
	ssize_t ret;
	int fd;

	if (!dir || !*dir)
		dir = WSX_DEBUGFS_PATH;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return debugfs_open_error(dir, -errno);
	*text = malloc(4096);
	ret = *text ? read_all(fd, text, 4096) : -ENOMEM;
	close(fd);
	if (ret < 0) {
		free(*text);
		return ret;
	}
	return 0;
}

int wsx_stats_read_topo(struct wsx_stats *st, struct wsx_topo *topo)
{
	char *text;
	int ret;

	if (!st || !topo)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	memset(topo, 0, sizeof(*topo));
	ret = read_debugfs("stats", &text);
	if (ret)
		return ret;
	ret = wsx_stats_parse_topo(text, st, topo);
	free(text);
	return ret;
}

int wsx_stats_read(struct wsx_stats *st)
{
	struct wsx_topo topo;
	int ret;

	if (!st)
		return -EINVAL;
	ret = wsx_stats_read_topo(st, &topo);
	wsx_topo_free(&topo);
	return ret;
}

int wsx_schedtrace_read(char *buf, size_t len)
{
	size_t line;
	char *text;
	int ret;

	if (!buf || !len)
		return -EINVAL;
	ret = read_debugfs("schedtrace", &text);
	if (ret)
		return ret;
	line = strcspn(text, "\n");
	if (line >= len || line > INT_MAX) {
		ret = -ERANGE;
	} else {
		memcpy(buf, text, line);
		buf[line] = '\0';
		ret = line;
	}
	free(text);
	return ret;
}

static void write_pairs(FILE *f, const struct key_table *t, const void *base,
			bool json)
{
	const char *fmt = json ? "%s\"%s\": %llu" : "%s%s=%llu";
	const char *sep = json ? "" : " ";
	size_t i;

	for (i = 0; i < t->n; i++) {
		fprintf(f, fmt, sep, t->keys[i].name,
			stat_value(base, &t->keys[i]));
		sep = json ? ", " : " ";
	}
}

/* @topo NULL: the P keys only. */
static void write_text(FILE *f, const struct wsx_stats *st,
		       const struct wsx_topo *topo)
{
	bool nodes = topo && topo->have_nodes;
	unsigned int i;

	for (i = 0; i < st->nprocs; i++) {
		fprintf(f, "P%u", i);
		write_pairs(f, &pstats_table, &st->p[i], false);
		if (nodes)
			write_pairs(f, &ptopo_table, &topo->p[i], false);
		fputc('\n', f);
	}
	for (i = 0; topo && i < topo->nnodeqs; i++) {
		fprintf(f, "node%u", i);
		write_pairs(f, &nodeq_table, &topo->nodeq[i], false);
		fputc('\n', f);
	}
	fputs("global", f);
	write_pairs(f, &gstats_table, &st->global, false);
	fputc('\n', f);
}

static void write_u64_array(FILE *f, const __u64 *v, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	fputc(']', f);
}

static void write_json_hist(FILE *f, const struct wsx_hist *h)
{
	unsigned int k, i;
	__u64 total = 0;

	fputs(",\n  \"latency\": {", f);
	for (k = 0; k < h->nkinds; k++) {
		fprintf(f, "%s\n    \"%s\": {\"count\": %llu, \"buckets\": ",
			k ? "," : "", h->lat[k].name,
			(unsigned long long)h->lat[k].count);
		write_u64_array(f, h->lat[k].buckets, h->lat[k].nbuckets);
		fputc('}', f);
	}
	for (i = 0; i < h->nsizes; i++)
		total += h->sizes[i];
	fprintf(f, "\n  },\n  \"steal_sizes\": {\"count\": %llu, "
		"\"buckets\": ", (unsigned long long)total);
	write_u64_array(f, h->sizes, h->nsizes);
	fputs("},\n  \"steals_from\": [", f);
	for (i = 0; i < h->nprocs; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		write_u64_array(f, h->steals_from + (size_t)i * h->nprocs,
				h->nprocs);
	}
	fputs(h->nprocs ? "\n  ]" : "]", f);
}

/* @topo may be NULL. */
static void write_json(FILE *f, const struct wsx_stats *st,
		       const struct wsx_topo *topo)
{
	bool nodes = topo && topo->have_nodes;
	unsigned int i;

	fprintf(f, "{\n  \"nprocs\": %u,\n  \"p\": [", st->nprocs);
	for (i = 0; i < st->nprocs; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		write_pairs(f, &pstats_table, &st->p[i], true);
		if (nodes) {
			fputs(", ", f);
			write_pairs(f, &ptopo_table, &topo->p[i], true);
		}
		fputc('}', f);
	}
	if (topo && topo->nnodeqs) {
		fputs("\n  ],\n  \"nodes\": [", f);
		for (i = 0; i < topo->nnodeqs; i++) {
			fputs(i ? ",\n    {" : "\n    {", f);
			write_pairs(f, &nodeq_table, &topo->nodeq[i], true);
			fputc('}', f);
		}
	}
	fputs("\n  ],\n  \"global\": {", f);
	write_pairs(f, &gstats_table, &st->global, true);
	fputs("}\n}\n", f);
}

int wsx_stats_write(FILE *f, const struct wsx_stats *st, unsigned int flags)
{
	if (!f || !st || (st->nprocs && !st->p) || (flags & ~WSX_STATS_JSON))
		return -EINVAL;
	if (flags & WSX_STATS_JSON)
		write_json(f, st, NULL);
	else
		write_text(f, st, NULL);
	return ferror(f) ? -EIO : 0;
}

static bool topo_fits(const struct wsx_stats *st, const struct wsx_topo *topo)
{
	return topo->nprocs == st->nprocs && (!st->nprocs || topo->p) &&
	       (!topo->nnodeqs || topo->nodeq);
}

int wsx_stats_write_topo(FILE *f, const struct wsx_stats *st,
			 const struct wsx_topo *topo, unsigned int flags)
{
	if (!f || !st || !topo || (st->nprocs && !st->p) ||
	    !topo_fits(st, topo) || (flags & ~WSX_STATS_JSON))
		return -EINVAL;
	if (flags & WSX_STATS_JSON)
		write_json(f, st, topo);
	else
		write_text(f, st, topo);
	return ferror(f) ? -EIO : 0;
}

/* ---- every key: wsx_stats_kv ---- */

struct wsx_stats_kv {
	char *buf;			/* the text, tokens NUL-terminated */
	unsigned int nlines;
	struct wsx_stats_line *lines;
	struct wsx_stats_field *fields;	/* the lines' fields, in order */
};

/* Counts the lines and key=value tokens of @text; -EINVAL if malformed. */
static int kv_count(const char *text, unsigned int *nlines, size_t *nfields)
{
	const char *end, *pos;
	struct token tok;
	bool tagged;

	*nlines = 0;
	*nfields = 0;
	for (; *text; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		pos = text;
		if (!next_token(&pos, end, &tok))
			continue;
		if (*nlines == UINT_MAX)
			return -EINVAL;
		++*nlines;
		tagged = !memchr(tok.s, '=', tok.len);
		if (tagged && !next_token(&pos, end, &tok))
			continue;
		do {
			const char *eq = memchr(tok.s, '=', tok.len);

			if (!eq || eq == tok.s)
				return -EINVAL;
			++*nfields;
		} while (next_token(&pos, end, &tok));
	}
	return 0;
}

/* Splits kv->buf, already counted by kv_count(), into lines and fields. */
static void kv_split(struct wsx_stats_kv *kv)
{
	struct wsx_stats_field *fld = kv->fields;
	struct wsx_stats_line *line = kv->lines;
	char *text, *end, *pos;
	struct token tok;

	for (text = kv->buf; *text; text = end + 1) {
		bool last;

		end = strchrnul(text, '\n');
		last = !*end;
		pos = text;
		if (next_token((const char **)&pos, end, &tok)) {
			line->fields = fld;
			line->tag = "";
			if (!memchr(tok.s, '=', tok.len)) {
				line->tag = tok.s;
				*pos = '\0';
				if (pos < end)
					pos++;
			} else {
				pos = (char *)tok.s;
			}
			while (next_token((const char **)&pos, end, &tok)) {
				char *eq = memchr(tok.s, '=', tok.len);

				*eq = '\0';
				fld->key = tok.s;
				fld->value = eq + 1;
				fld++;
				line->nfields++;
				*pos = '\0';
				if (pos < end)
					pos++;
			}
			line++;
		}
		if (last)
			break;
	}
}

int wsx_stats_kv_parse(const char *text, struct wsx_stats_kv **kvp)
{
	struct wsx_stats_kv *kv;
	unsigned int nlines;
	size_t nfields;
	int ret;

	if (!kvp)
		return -EINVAL;
	*kvp = NULL;
	if (!text)
		return -EINVAL;
	ret = kv_count(text, &nlines, &nfields);
	if (!ret)
		ret = check_version(text);
	if (ret)
		return ret;
	kv = calloc(1, sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	kv->nlines = nlines;
	kv->buf = strdup(text);
	kv->lines = calloc(nlines + 1, sizeof(*kv->lines));
	kv->fields = calloc(nfields + 1, sizeof(*kv->fields));
	if (!kv->buf || !kv->lines || !kv->fields) {
		wsx_stats_kv_free(kv);
		return -ENOMEM;
	}
	kv_split(kv);
	*kvp = kv;
	return 0;
}

int wsx_stats_kv_read(struct wsx_stats_kv **kv)
{
	char *text;
	int ret;

	if (!kv)
		return -EINVAL;
	*kv = NULL;
	ret = read_debugfs("stats", &text);
	if (ret)
		return ret;
	ret = wsx_stats_kv_parse(text, kv);
	free(text);
	return ret;
}

void wsx_stats_kv_free(struct wsx_stats_kv *kv)
{
	if (!kv)
		return;
	free(kv->buf);
	free(kv->lines);
	free(kv->fields);
	free(kv);
}

const struct wsx_stats_line *wsx_stats_kv_line(const struct wsx_stats_kv *kv,
						unsigned int i)
{
	return kv && i < kv->nlines ? &kv->lines[i] : NULL;
}

int wsx_stats_get(const struct wsx_stats_kv *kv, const char *tag,
		  const char *key, __u64 *val)
{
	unsigned int i, j;

	if (!kv || !tag || !key || !val)
		return -EINVAL;
	for (i = 0; i < kv->nlines; i++) {
		const struct wsx_stats_line *l = &kv->lines[i];

		if (strcmp(l->tag, tag))
			continue;
		for (j = 0; j < l->nfields; j++)
			if (!strcmp(l->fields[j].key, key))
				return parse_u64(l->fields[j].value,
						 strlen(l->fields[j].value),
						 val) ? -ERANGE : 0;
	}
	return -ENOENT;
}

/* "<prefix><digits>" */
static bool tag_is_numbered(const char *tag, const char *prefix)
{
	size_t plen = strlen(prefix);
	__u64 id;

	return !strncmp(tag, prefix, plen) &&
	       !parse_u64(tag + plen, strlen(tag + plen), &id);
}

/* A decimal integer, optionally negative: printed bare in JSON. */
static bool json_number(const char *s)
{
	__u64 v;

	if (*s == '-')
		s++;
	return !parse_u64(s, strlen(s), &v);
}

static void write_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void write_kv_object(FILE *f, const struct wsx_stats_line *l)
{
	unsigned int j;

	fputc('{', f);
	for (j = 0; j < l->nfields; j++) {
		fputs(j ? ", " : "", f);
		write_json_string(f, l->fields[j].key);
		fputs(": ", f);
		if (json_number(l->fields[j].value))
			fputs(l->fields[j].value, f);
		else
			write_json_string(f, l->fields[j].value);
	}
	fputc('}', f);
}

/* A line of an array: "P<n>", "node<i>", or "user" (one per uid). */
static bool tag_in_array(const char *tag, const char *prefix)
{
	return strcmp(prefix, "user") ? tag_is_numbered(tag, prefix) :
					!strcmp(tag, prefix);
}

/* The lines of @prefix (see tag_in_array()), as the JSON array @name. */
static void write_kv_array(FILE *f, const struct wsx_stats_kv *kv,
			   const char *name, const char *prefix)
{
	unsigned int i, n = 0;

	fprintf(f, ",\n  \"%s\": [", name);
	for (i = 0; i < kv->nlines; i++) {
		if (!tag_in_array(kv->lines[i].tag, prefix))
			continue;
		fputs(n++ ? ",\n    " : "\n    ", f);
		write_kv_object(f, &kv->lines[i]);
	}
	fputs(n ? "\n  ]" : "]", f);
}

static void write_kv_json(FILE *f, const struct wsx_stats_kv *kv,
			  const struct wsx_hist *h)
{
	unsigned int i, nprocs = 0, nnodes = 0, nusers = 0;

	for (i = 0; i < kv->nlines; i++) {
		nprocs += tag_in_array(kv->lines[i].tag, "P");
		nnodes += tag_in_array(kv->lines[i].tag, "node");
		nusers += tag_in_array(kv->lines[i].tag, "user");
	}
	fprintf(f, "{\n  \"nprocs\": %u", nprocs);
	write_kv_array(f, kv, "p", "P");
	if (nnodes)
		write_kv_array(f, kv, "nodes", "node");
	if (nusers)
		write_kv_array(f, kv, "users", "user");
	for (i = 0; i < kv->nlines; i++) {
		const struct wsx_stats_line *l = &kv->lines[i];

		if (tag_in_array(l->tag, "P") || tag_in_array(l->tag, "node") ||
		    tag_in_array(l->tag, "user"))
			continue;
		fputs(",\n  ", f);
		write_json_string(f, l->tag);
		fputs(": ", f);
		write_kv_object(f, l);
	}
	if (h)
		write_json_hist(f, h);
	fputs("\n}\n", f);
}

static void write_kv_text(FILE *f, const struct wsx_stats_kv *kv)
{
	unsigned int i, j;

	for (i = 0; i < kv->nlines; i++) {
		const struct wsx_stats_line *l = &kv->lines[i];

		fputs(l->tag, f);
		for (j = 0; j < l->nfields; j++)
			fprintf(f, "%s%s=%s", j || *l->tag ? " " : "",
				l->fields[j].key, l->fields[j].value);
		fputc('\n', f);
	}
}

int wsx_stats_kv_write(FILE *f, const struct wsx_stats_kv *kv,
		       unsigned int flags)
{
	if (!f || !kv || (flags & ~WSX_STATS_JSON))
		return -EINVAL;
	if (flags & WSX_STATS_JSON)
		write_kv_json(f, kv, NULL);
	else
		write_kv_text(f, kv);
	return ferror(f) ? -EIO : 0;
}

int wsx_stats_kv_write_json_hist(FILE *f, const struct wsx_stats_kv *kv,
				 const struct wsx_hist *h)
{
	if (!f || !kv)
		return -EINVAL;
	write_kv_json(f, kv, h);
	return ferror(f) ? -EIO : 0;
}

/* ---- histograms: "latency" and "steals" ---- */

static int parse_latency_line(struct wsx_hist *h, const char *pos,
			      const char *end)
{
	struct token tok;
	__u64 v;
	unsigned int k = h->nkinds;

	if (!next_token(&pos, end, &tok))
		return 0;
	if (k == WSX_HIST_KINDS || tok.len >= sizeof(h->lat[k].name))
		return -EINVAL;
	memcpy(h->lat[k].name, tok.s, tok.len);
	h->lat[k].name[tok.len] = '\0';
	if (!next_token(&pos, end, &tok) || tok.len < 7 ||
	    memcmp(tok.s, "count=", 6) ||
	    parse_u64(tok.s + 6, tok.len - 6, &h->lat[k].count))
		return -EINVAL;
	while (next_token(&pos, end, &tok)) {
		if (h->lat[k].nbuckets == WSX_HIST_LAT_BUCKETS ||
		    parse_u64(tok.s, tok.len, &v))
			return -EINVAL;
		h->lat[k].buckets[h->lat[k].nbuckets++] = v;
	}
	h->nkinds++;
	return 0;
}

/* "sizes ..." first, then "P<n> ..." rows of @width numbers each. */
static int parse_steals_line(struct wsx_hist *h, const char *pos,
			     const char *end, bool *have_sizes,
			     unsigned int *width)
{
	struct token tok;
	__u64 v, id, *m;
	unsigned int n = 0;
	const char *p;

	if (!next_token(&pos, end, &tok))
		return 0;
	if (token_is(&tok, "sizes")) {
		if (*have_sizes)
			return -EINVAL;
		*have_sizes = true;
		while (next_token(&pos, end, &tok)) {
			if (h->nsizes == WSX_HIST_SIZE_BUCKETS ||
			    parse_u64(tok.s, tok.len, &v))
				return -EINVAL;
			h->sizes[h->nsizes++] = v;
		}
		return 0;
	}
	if (!*have_sizes || tok.len < 2 || tok.s[0] != 'P' ||
	    parse_u64(tok.s + 1, tok.len - 1, &id) || id != h->nprocs)
		return -EINVAL;
	for (p = pos; next_token(&p, end, &tok); )
		n++;
	if (!h->nprocs) {
		if (!n || n > 65536)
			return -EINVAL;
		*width = n;
		h->steals_from = calloc((size_t)n * n, sizeof(*m));
		if (!h->steals_from)
			return -ENOMEM;
	}
	if (n != *width || id >= *width)
		return -EINVAL;
	m = h->steals_from + (size_t)id * n;
	while (next_token(&pos, end, &tok))
		if (parse_u64(tok.s, tok.len, m++))
			return -EINVAL;
	h->nprocs++;
	return 0;
}

int wsx_hist_parse(const char *latency, const char *steals,
		   struct wsx_hist *h)
{
	const char *text, *end;
	unsigned int width = 0;
	bool have_sizes = false;
	int ret = 0;

	if (!latency || !steals || !h)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	for (text = latency; *text && !ret; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		ret = parse_latency_line(h, text, end);
	}
	for (text = steals; *text && !ret; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		ret = parse_steals_line(h, text, end, &have_sizes, &width);
	}
	if (!ret && (!have_sizes || h->nprocs != width))
		ret = -EINVAL;
	if (ret)
		wsx_hist_free(h);
	return ret;
}

int wsx_hist_read(struct wsx_hist *h)
{
	char *lat, *steals;
	int ret;

	if (!h)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	ret = read_debugfs("latency", &lat);
	if (ret)
		return ret;
	ret = read_debugfs("steals", &steals);
	if (!ret) {
		ret = wsx_hist_parse(lat, steals, h);
		free(steals);
	}
	free(lat);
	return ret;
}

void wsx_hist_free(struct wsx_hist *h)
{
	if (!h)
		return;
	free(h->steals_from);
	memset(h, 0, sizeof(*h));
}
