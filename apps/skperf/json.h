/* json: the small JSON writer and reader skperf needs for iperf3's
 * parameter and result exchange and for -J output. The writer grows a
 * heap buffer; the reader builds a tree the caller frees with sp_jv_free. */
#ifndef SKOPS_APPS_SKPERF_JSON_H
#define SKOPS_APPS_SKPERF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_JW_DEPTH 16

struct sp_jw {
	char *buf;
	size_t len, cap;
	bool pretty; /* iperf3 -J's layout: one member a line, tab indented */
	int depth;
	bool nonempty[SP_JW_DEPTH];
	bool oom;
};

/* key is NULL inside arrays and at the top level. Top-level values after
 * the first are comma separated: a list to splice into an array (sp_jw_raw). */
void sp_jw_obj(struct sp_jw *w, const char *key);
void sp_jw_arr(struct sp_jw *w, const char *key);
void sp_jw_end_obj(struct sp_jw *w);
void sp_jw_end_arr(struct sp_jw *w);
void sp_jw_num(struct sp_jw *w, const char *key, double v);
void sp_jw_int(struct sp_jw *w, const char *key, int64_t v);
void sp_jw_u64(struct sp_jw *w, const char *key, uint64_t v);
void sp_jw_str(struct sp_jw *w, const char *key, const char *s);
void sp_jw_bool(struct sp_jw *w, const char *key, bool v);
/* Inserts already-encoded JSON text as one value. */
void sp_jw_raw(struct sp_jw *w, const char *key, const char *json, size_t len);
void sp_jw_free(struct sp_jw *w);

enum sp_jv_type { SP_JV_NULL, SP_JV_BOOL, SP_JV_NUM, SP_JV_STR, SP_JV_ARR, SP_JV_OBJ };

struct sp_jv {
	enum sp_jv_type type;
	double num; /* also 0/1 for booleans */
	char *str;
	char *key; /* member name inside an object */
	struct sp_jv *child, *next;
};

/* Parses text[0..len); 0 or -EINVAL with "json: offset N: what" in err. */
int sp_jv_parse(const char *text, size_t len, struct sp_jv **out, char *err, size_t elen);
void sp_jv_free(struct sp_jv *v);
/* Member key of object o (NULL when o is not an object or has none). */
const struct sp_jv *sp_jv_get(const struct sp_jv *o, const char *key);
/* Number (or boolean) member, dflt when missing or of another type. */
double sp_jv_num(const struct sp_jv *o, const char *key, double dflt);
bool sp_jv_true(const struct sp_jv *o, const char *key);
const char *sp_jv_str(const struct sp_jv *o, const char *key);

#endif
