/* json: writer and reader (RFC 8259), enough for iperf3's messages. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void put(struct sp_jw *w, const char *s, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 1024;
		while (cap < w->len + n + 1)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b) {
			w->oom = true;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

static void puts_(struct sp_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void newline(struct sp_jw *w)
{
	if (!w->pretty)
		return;
	puts_(w, "\n");
	for (int i = 0; i < w->depth; i++)
		puts_(w, "\t");
}

static void quoted(struct sp_jw *w, const char *s)
{
	puts_(w, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[8];
		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			put(w, e, 2);
		} else if (c < 0x20) {
			snprintf(e, sizeof(e), "\\u%04x", c);
			puts_(w, e);
		} else {
			put(w, (const char *)s, 1);
		}
	}
	puts_(w, "\"");
}

/* The comma, line break and "key": before each value. */
static void member(struct sp_jw *w, const char *key)
{
	/* top-level values after the first are a list to splice into an array */
	if (w->depth == 0 && w->len)
		puts_(w, ",");
	if (w->depth > 0) {
		if (w->nonempty[w->depth - 1])
			puts_(w, ",");
		w->nonempty[w->depth - 1] = true;
		newline(w);
	}
	if (key) {
		quoted(w, key);
		puts_(w, w->pretty ? ":\t" : ":");
	}
}

static void open_(struct sp_jw *w, const char *key, const char *c)
{
	member(w, key);
	puts_(w, c);
	if (w->depth < SP_JW_DEPTH)
		w->nonempty[w->depth] = false;
	w->depth++;
}

static void close_(struct sp_jw *w, const char *c)
{
	w->depth--;
	if (w->depth < SP_JW_DEPTH && w->nonempty[w->depth])
		newline(w);
	puts_(w, c);
}

void sp_jw_obj(struct sp_jw *w, const char *key)
{
	open_(w, key, "{");
}

void sp_jw_arr(struct sp_jw *w, const char *key)
{
	open_(w, key, "[");
}

void sp_jw_end_obj(struct sp_jw *w)
{
	close_(w, "}");
}

void sp_jw_end_arr(struct sp_jw *w)
{
	close_(w, "]");
}

void sp_jw_num(struct sp_jw *w, const char *key, double v)
{
	char b[64];
	member(w, key);
	if (!isfinite(v))
		v = 0;
	if (v == (double)(int64_t)v && fabs(v) < 9e15)
		snprintf(b, sizeof(b), "%lld", (long long)v);
	else
		snprintf(b, sizeof(b), "%.6f", v);
	puts_(w, b);
}

void sp_jw_int(struct sp_jw *w, const char *key, int64_t v)
{
	char b[32];
	member(w, key);
	snprintf(b, sizeof(b), "%lld", (long long)v);
	puts_(w, b);
}

void sp_jw_u64(struct sp_jw *w, const char *key, uint64_t v)
{
	char b[32];
	member(w, key);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	puts_(w, b);
}

void sp_jw_str(struct sp_jw *w, const char *key, const char *s)
{
	member(w, key);
	quoted(w, s ? s : "");
}

void sp_jw_bool(struct sp_jw *w, const char *key, bool v)
{
	member(w, key);
	puts_(w, v ? "true" : "false");
}

void sp_jw_raw(struct sp_jw *w, const char *key, const char *json, size_t len)
{
	member(w, key);
	put(w, json, len);
}

void sp_jw_free(struct sp_jw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* ---- reader ------------------------------------------------------------ */

struct rd {
	const char *s;
	size_t len, pos;
	int depth;
	char *err;
	size_t elen;
};

static int fail(struct rd *r, const char *what)
{
	snprintf(r->err, r->elen, "json: offset %zu: %s", r->pos, what);
	return -EINVAL;
}

static void ws(struct rd *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]))
		r->pos++;
}

static bool lit(struct rd *r, const char *w)
{
	size_t n = strlen(w);
	if (r->len - r->pos < n || memcmp(r->s + r->pos, w, n))
		return false;
	r->pos += n;
	return true;
}

static void utf8(char *o, size_t *k, unsigned cp)
{
	if (cp < 0x80) {
		o[(*k)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*k)++] = (char)(0xc0 | cp >> 6);
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*k)++] = (char)(0xe0 | cp >> 12);
		o[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int string(struct rd *r, char **out)
{
	r->pos++; /* the opening quote */
	size_t start = r->pos;
	while (r->pos < r->len && r->s[r->pos] != '"')
		r->pos += r->s[r->pos] == '\\' ? 2 : 1;
	if (r->pos >= r->len)
		return fail(r, "unterminated string");
	char *o = malloc(r->pos - start + 1);
	if (!o)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = start; i < r->pos; i++) {
		char c = r->s[i];
		if (c != '\\') {
			o[k++] = c;
			continue;
		}
		c = r->s[++i];
		const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", c);
		if (c == 'u' && i + 4 < r->pos) {
			char hex[5] = {0};
			memcpy(hex, r->s + i + 1, 4);
			utf8(o, &k, (unsigned)strtoul(hex, NULL, 16));
			i += 4;
		} else if (map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0) {
			o[k++] = map[1];
		} else {
			free(o);
			return fail(r, "bad escape");
		}
	}
	o[k] = 0;
	r->pos++;
	*out = o;
	return 0;
}

static int value(struct rd *r, struct sp_jv **out);

/* Members of an object or elements of an array, up to the closing c. */
static int items(struct rd *r, struct sp_jv *v, char c)
{
	struct sp_jv **tail = &v->child;
	r->pos++;
	ws(r);
	if (r->pos < r->len && r->s[r->pos] == c) {
		r->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		int rc;
		ws(r);
		if (c == '}') {
			if (r->pos >= r->len || r->s[r->pos] != '"')
				return fail(r, "expected a member name");
			if ((rc = string(r, &key)))
				return rc;
			ws(r);
			if (r->pos >= r->len || r->s[r->pos] != ':') {
				free(key);
				return fail(r, "expected ':'");
			}
			r->pos++;
		}
		struct sp_jv *e;
		if ((rc = value(r, &e))) {
			free(key);
			return rc;
		}
		e->key = key;
		*tail = e;
		tail = &e->next;
		ws(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == c) {
			r->pos++;
			return 0;
		}
		return fail(r, c == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

/* On failure *out is NULL and nothing stays allocated. */
static int value(struct rd *r, struct sp_jv **out)
{
	*out = NULL;
	ws(r);
	if (r->pos >= r->len)
		return fail(r, "unexpected end");
	if (r->depth >= 64)
		return fail(r, "nested too deep");
	struct sp_jv *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->depth++;
	int rc = 0;
	char c = r->s[r->pos];
	if (c == '{') {
		v->type = SP_JV_OBJ;
		rc = items(r, v, '}');
	} else if (c == '[') {
		v->type = SP_JV_ARR;
		rc = items(r, v, ']');
	} else if (c == '"') {
		v->type = SP_JV_STR;
		rc = string(r, &v->str);
	} else if (lit(r, "true")) {
		v->type = SP_JV_BOOL;
		v->num = 1;
	} else if (lit(r, "false")) {
		v->type = SP_JV_BOOL;
	} else if (lit(r, "null")) {
		v->type = SP_JV_NULL;
	} else {
		char buf[64];
		size_t n = 0;
		while (r->pos + n < r->len && n < sizeof(buf) - 1 &&
		       strchr("0123456789+-.eE", r->s[r->pos + n]))
			n++;
		memcpy(buf, r->s + r->pos, n);
		buf[n] = 0;
		char *end;
		v->num = strtod(buf, &end);
		if (!n || *end)
			rc = fail(r, "bad value");
		v->type = SP_JV_NUM;
		r->pos += n;
	}
	r->depth--;
	if (rc) {
		sp_jv_free(v); /* with the members items() linked so far */
		return rc;
	}
	*out = v;
	return 0;
}

int sp_jv_parse(const char *text, size_t len, struct sp_jv **out, char *err, size_t elen)
{
	struct rd r = {.s = text, .len = len, .err = err, .elen = elen};
	struct sp_jv *v = NULL;
	int rc = value(&r, &v);
	if (!rc) {
		ws(&r);
		if (r.pos != r.len)
			rc = fail(&r, "trailing characters");
	}
	if (rc) {
		sp_jv_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

void sp_jv_free(struct sp_jv *v)
{
	while (v) {
		struct sp_jv *n = v->next;
		sp_jv_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = n;
	}
}

const struct sp_jv *sp_jv_get(const struct sp_jv *o, const char *key)
{
	if (!o || o->type != SP_JV_OBJ)
		return NULL;
	for (const struct sp_jv *c = o->child; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

double sp_jv_num(const struct sp_jv *o, const char *key, double dflt)
{
	const struct sp_jv *v = sp_jv_get(o, key);
	return v && (v->type == SP_JV_NUM || v->type == SP_JV_BOOL) ? v->num : dflt;
}

bool sp_jv_true(const struct sp_jv *o, const char *key)
{
	const struct sp_jv *v = sp_jv_get(o, key);
	return v && v->type == SP_JV_BOOL && v->num != 0;
}

const char *sp_jv_str(const struct sp_jv *o, const char *key)
{
	const struct sp_jv *v = sp_jv_get(o, key);
	return v && v->type == SP_JV_STR ? v->str : NULL;
}
