/* CO-RE relocations as libbpf applies them (tools/lib/bpf/relo_core.c:
 * bpf_core_parse_spec, bpf_core_spec_match, bpf_core_calc_relo,
 * bpf_core_patch_insn): .BTF.ext's core_relo records are read and checked
 * against the object's .BTF at open; at load each one is resolved against
 * the BTF the program type publishes and patched into its insn, or the insn
 * is poisoned. docs/bpfvm-loader.md "CO-RE" says what is supported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_int.h"

#define EXT_MAGIC     0xeb9f
#define RELO_MIN_SIZE 16 /* struct bpf_core_relo */
#define MAX_DEPTH     32

enum {
	CORE_FIELD_BYTE_OFFSET = 0,
	CORE_FIELD_BYTE_SIZE,
	CORE_FIELD_EXISTS,
	CORE_FIELD_SIGNED,
	CORE_FIELD_LSHIFT_U64,
	CORE_FIELD_RSHIFT_U64,
	CORE_TYPE_ID_LOCAL,
	CORE_TYPE_ID_TARGET,
	CORE_TYPE_EXISTS,
	CORE_TYPE_SIZE,
	CORE_ENUMVAL_EXISTS,
	CORE_ENUMVAL_VALUE,
	CORE_TYPE_MATCHES,
	CORE_NKINDS
};

static const char *const kind_names[CORE_NKINDS] = {
    "field_byte_offset", "field_byte_size", "field_exists",   "field_signed", "field_lshift_u64",
    "field_rshift_u64",	 "type_id_local",   "type_id_target", "type_exists",  "type_size",
    "enumval_exists",	 "enumval_value",   "type_matches"};

#define rd32 bpfvm_btf_rd32

static bool is_field(uint32_t k)
{
	return k <= CORE_FIELD_RSHIFT_U64;
}

static bool is_type(uint32_t k)
{
	return k >= CORE_TYPE_ID_LOCAL && k <= CORE_TYPE_SIZE;
}

static bool is_enumval(uint32_t k)
{
	return k == CORE_ENUMVAL_EXISTS || k == CORE_ENUMVAL_VALUE;
}

static bool is_composite(const uint8_t *t)
{
	uint32_t k = bpfvm_btf_kind(t);
	return k == BPFVM_BTF_K_STRUCT || k == BPFVM_BTF_K_UNION;
}

static bool is_any_enum(uint32_t k)
{
	return k == BPFVM_BTF_K_ENUM || k == BPFVM_BTF_K_ENUM64;
}

static const char *kind_word(const uint8_t *t)
{
	switch (bpfvm_btf_kind(t)) {
	case BPFVM_BTF_K_STRUCT:
		return "struct ";
	case BPFVM_BTF_K_UNION:
		return "union ";
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64:
		return "enum ";
	default:
		return "";
	}
}

/* libbpf's bpf_core_essential_name_len: "tcp_sock___v2" matches "tcp_sock"
 * (the last X___Y separator, X and Y not underscores, starts the flavor). */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);
	for (long i = (long)n - 5; i >= 0; i--) {
		const char *s = name + i;
		if (s[0] != '_' && s[1] == '_' && s[2] == '_' && s[3] == '_' && s[4] != '_')
			return (size_t)i + 1;
	}
	return n;
}

static bool same_essential(const char *a, const char *b)
{
	size_t la = essential_len(a), lb = essential_len(b);
	return la == lb && strncmp(a, b, la) == 0;
}

/* Where an access spec lands: bit offset from the root pointer, the field's
 * type, its bitfield width (0: a whole field) and a C-like path for messages. */
struct core_field {
	uint32_t root;
	uint64_t bit_off;
	uint32_t type;
	uint32_t bitfield;
	char path[128];
};

static void path_add(struct core_field *f, const char *fmt, const char *s, uint32_t v)
{
	size_t l = strlen(f->path);
	if (l + 1 < sizeof(f->path)) {
		if (s)
			snprintf(f->path + l, sizeof(f->path) - l, fmt, s);
		else
			snprintf(f->path + l, sizeof(f->path) - l, fmt, v);
	}
}

/* bit_off += idx * size bytes, bounded so every offset fits an s32 in bytes */
static bool add_elems(uint64_t *bit_off, uint32_t idx, uint64_t size)
{
	if (size && idx > INT32_MAX / size)
		return false;
	*bit_off += (uint64_t)idx * size * 8;
	return *bit_off / 8 <= INT32_MAX;
}

static void root_path(const struct bpfvm_btf *btf, uint32_t id, struct core_field *f)
{
	const uint8_t *t = bpfvm_btf_type(btf, id);
	snprintf(f->path, sizeof(f->path), "%s%s", kind_word(t), bpfvm_btf_name(btf, t));
}

/* The spec walked through the object's own BTF (bpf_core_parse_spec). */
static int local_walk(const struct bpfvm_btf *btf, const struct ld_core_relo *r,
		      struct core_field *f, char *why, size_t n)
{
	uint64_t sz;
	memset(f, 0, sizeof(*f));
	f->root = r->type_id;
	root_path(btf, r->type_id, f);
	if (bpfvm_btf_size(btf, r->type_id, &sz)) {
		snprintf(why, n, "%.96s has no size", f->path);
		return -EINVAL;
	}
	if (!add_elems(&f->bit_off, r->spec[0], sz))
		goto range;
	if (r->spec[0])
		path_add(f, "[%u]", NULL, r->spec[0]);
	uint32_t cur = r->type_id;
	for (uint32_t i = 1; i < r->nspec; i++) {
		uint32_t idx = r->spec[i];
		const uint8_t *t = bpfvm_btf_skip_mods(btf, cur, NULL);
		if (!t)
			goto range;
		if (is_composite(t)) {
			if (idx >= bpfvm_btf_vlen(t))
				goto range;
			const uint8_t *m = t + 12 + 12 * idx;
			uint32_t bits = rd32(m + 8);
			bool kf = bpfvm_btf_kflag(t);
			f->bit_off += kf ? (bits & 0xffffff) : bits;
			f->bitfield = kf ? bits >> 24 : 0;
			const char *mn = bpfvm_btf_str(btf, rd32(m));
			if (mn && mn[0])
				path_add(f, ".%s", mn, 0);
			cur = rd32(m + 4);
		} else if (bpfvm_btf_kind(t) == BPFVM_BTF_K_ARRAY) {
			uint32_t nel = rd32(t + 20), et = rd32(t + 12);
			/* a flexible array (0 elements) takes any index */
			if ((nel && idx >= nel) || bpfvm_btf_size(btf, et, &sz) ||
			    !add_elems(&f->bit_off, idx, sz))
				goto range;
			path_add(f, "[%u]", NULL, idx);
			f->bitfield = 0;
			cur = et;
		} else {
			goto range;
		}
	}
	f->type = cur;
	return 0;
range:
	snprintf(why, n, "access string %.64s out of range for %.96s", r->access, f->path);
	return -EINVAL;
}

/* ---- open: .BTF.ext ------------------------------------------------------ */

static int parse_access(const char *s, struct ld_core_relo *r)
{
	r->nspec = 0;
	for (;;) {
		uint64_t v = 0;
		const char *d = s;
		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (v > UINT32_MAX)
				return -EINVAL;
		}
		if (s == d || r->nspec == LD_CORE_MAX_SPEC)
			return -EINVAL;
		r->spec[r->nspec++] = (uint32_t)v;
		if (*s == 0)
			return 0;
		if (*s++ != ':')
			return -EINVAL;
	}
}

static size_t exec_section(struct ld_ctx *c, const char *name)
{
	for (size_t i = 1; i < c->shnum; i++)
		if ((c->secs[i].kind == LD_SEC_PROG || c->secs[i].kind == LD_SEC_TEXT) &&
		    strcmp(c->secs[i].name, name) == 0)
			return i;
	return 0;
}

static int read_relo(struct ld_ctx *c, size_t k, size_t shndx, const uint8_t *p,
		     struct ld_core_relo *r)
{
	struct bpfvm_obj *o = c->obj;
	uint32_t insn_off = rd32(p), aoff = rd32(p + 8);
	char why[224];
	r->shndx = shndx;
	r->type_id = rd32(p + 4);
	r->kind = rd32(p + 12);
	if (insn_off % 8 || insn_off >= c->secs[shndx].size) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: insn offset %u outside section '%s'", k,
		       insn_off, c->secs[shndx].name);
		return -EINVAL;
	}
	r->insn = insn_off / 8;
	if (!bpfvm_btf_type(&o->btf, r->type_id)) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: type id %u is not in .BTF", k,
		       r->type_id);
		return -EINVAL;
	}
	r->access = bpfvm_btf_str(&o->btf, aoff);
	if (!r->access) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: access string offset %u out of range", k,
		       aoff);
		return -EINVAL;
	}
	if (parse_access(r->access, r)) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: access string '%.64s' is malformed", k,
		       r->access);
		return -EINVAL;
	}
	if (r->kind >= CORE_NKINDS) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: unknown kind %u", k, r->kind);
		return -EINVAL;
	}
	if (is_type(r->kind) && (r->nspec != 1 || r->spec[0] != 0)) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: %s takes access string 0, not %.64s", k,
		       kind_names[r->kind], r->access);
		return -EINVAL;
	}
	if (is_enumval(r->kind)) {
		const uint8_t *t = bpfvm_btf_type(&o->btf, r->type_id);
		if (!is_any_enum(bpfvm_btf_kind(t)) || r->nspec != 1 ||
		    r->spec[0] >= bpfvm_btf_vlen(t)) {
			ld_err(c, ".BTF.ext", -1,
			       "core_relo %zu: %s needs an enum and the index of one of its "
			       "values, not type %u and %.64s",
			       k, kind_names[r->kind], r->type_id, r->access);
			return -EINVAL;
		}
	}
	struct core_field f;
	if (is_field(r->kind) && local_walk(&o->btf, r, &f, why, sizeof(why))) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: %s", k, why);
		return -EINVAL;
	}
	return 0;
}

/* The core_relo subsection: record size, then per section {name, count,
 * records}. Walked twice: count, then read. */
static int read_core_relo(struct ld_ctx *c, const uint8_t *p, size_t left)
{
	struct bpfvm_obj *o = c->obj;
	if (left < 4) {
		ld_err(c, ".BTF.ext", -1, "core_relo subsection too short");
		return -EINVAL;
	}
	uint32_t rec = rd32(p);
	if (rec < RELO_MIN_SIZE || rec % 4 || rec > 1024) {
		ld_err(c, ".BTF.ext", -1, "core_relo record size %u", rec);
		return -EINVAL;
	}
	p += 4;
	left -= 4;
	size_t total = 0;
	for (size_t at = 0; at < left;) {
		if (left - at < 8) {
			ld_err(c, ".BTF.ext", -1, "core_relo: truncated section header at %zu", at);
			return -EINVAL;
		}
		uint32_t name = rd32(p + at), num = rd32(p + at + 4);
		const char *sn = bpfvm_btf_str(&o->btf, name);
		if (!sn) {
			ld_err(c, ".BTF.ext", -1, "core_relo: section name offset %u out of range",
			       name);
			return -EINVAL;
		}
		if (num == 0 || (uint64_t)num * rec > left - at - 8) {
			ld_err(c, ".BTF.ext", -1,
			       "core_relo: section '%.64s': %u records do not fit the subsection",
			       sn, num);
			return -EINVAL;
		}
		total += num;
		at += 8 + (size_t)num * rec;
	}
	o->relos = calloc(total ? total : 1, sizeof(*o->relos));
	if (!o->relos)
		return -ENOMEM;
	for (size_t at = 0; at < left;) {
		uint32_t num = rd32(p + at + 4);
		const char *sn = bpfvm_btf_str(&o->btf, rd32(p + at));
		size_t shndx = exec_section(c, sn);
		if (!shndx) {
			ld_err(c, ".BTF.ext", -1,
			       "core_relo %zu: section '%.64s' is not a program section", o->nrelos,
			       sn);
			return -EINVAL;
		}
		at += 8;
		for (uint32_t i = 0; i < num; i++, at += rec) {
			int err = read_relo(c, o->nrelos, shndx, p + at, &o->relos[o->nrelos]);
			if (err)
				return err;
			o->nrelos++;
		}
	}
	return 0;
}

int ld_core_parse(struct ld_ctx *c)
{
	if (!c->btf_ext_sec)
		return 0;
	struct ld_sec *e = &c->secs[c->btf_ext_sec];
	const uint8_t *d = e->data;
	size_t size = e->size;
	if (!d || size < 8) {
		ld_err(c, ".BTF.ext", -1, "truncated header");
		return -EINVAL;
	}
	uint16_t magic;
	memcpy(&magic, d, 2);
	uint32_t hdr_len = rd32(d + 4);
	if (magic != EXT_MAGIC || d[2] != 1) {
		ld_err(c, ".BTF.ext", -1, "bad magic 0x%x or version %u", magic, d[2]);
		return -EINVAL;
	}
	if (hdr_len < 8 || hdr_len > size) {
		ld_err(c, ".BTF.ext", -1, "header length %u outside the %zu-byte section", hdr_len,
		       size);
		return -EINVAL;
	}
	if (hdr_len < 32)
		return 0; /* func_info and line_info only: no CO-RE */
	uint32_t off = rd32(d + 24), len = rd32(d + 28);
	if (len == 0)
		return 0;
	if ((uint64_t)off + len > size - hdr_len || off % 4) {
		ld_err(c, ".BTF.ext", -1,
		       "core_relo subsection (off %u, len %u) outside the section", off, len);
		return -EINVAL;
	}
	if (!c->btf_sec) {
		ld_err(c, ".BTF.ext", -1, "core_relo records without a .BTF section");
		return -EINVAL;
	}
	/* the records name .BTF types and strings: the object keeps its own copy */
	struct ld_sec *b = &c->secs[c->btf_sec];
	c->obj->btf_data = malloc(b->size ? b->size : 1);
	if (!c->obj->btf_data)
		return -ENOMEM;
	if (b->size)
		memcpy(c->obj->btf_data, b->data, b->size);
	int err = ld_btf_parse(c, c->obj->btf_data, b->size, &c->obj->btf);
	return err ? err : read_core_relo(c, d + hdr_len + off, len);
}

int ld_core_link(struct ld_ctx *c, struct ld_prog *prog, size_t shndx, size_t start, size_t len,
		 size_t base)
{
	const struct bpfvm_obj *o = c->obj;
	for (size_t i = 0; i < o->nrelos; i++) {
		const struct ld_core_relo *r = &o->relos[i];
		if (r->shndx != shndx || r->insn < start || r->insn >= start + len)
			continue;
		struct ld_core_at *a = realloc(prog->core, (prog->ncore + 1) * sizeof(*a));
		if (!a)
			return -ENOMEM;
		prog->core = a;
		a[prog->ncore++] = (struct ld_core_at){.pc = base + r->insn - start, .relo = i};
	}
	return 0;
}

/* ---- load: resolve against the target BTF ------------------------------- */

static bool fields_compat(const struct bpfvm_btf *lb, uint32_t lid, const struct bpfvm_btf *tb,
			  uint32_t tid, int depth)
{
	const uint8_t *lt = bpfvm_btf_skip_mods(lb, lid, NULL);
	const uint8_t *tt = bpfvm_btf_skip_mods(tb, tid, NULL);
	if (!lt || !tt || depth > MAX_DEPTH)
		return false;
	if (is_composite(lt) && is_composite(tt))
		return true;
	uint32_t lk = bpfvm_btf_kind(lt), tk = bpfvm_btf_kind(tt);
	if (lk != tk)
		return is_any_enum(lk) && is_any_enum(tk);
	switch (lk) {
	case BPFVM_BTF_K_PTR:
	case BPFVM_BTF_K_FLOAT:
		return true;
	case BPFVM_BTF_K_FWD:
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64: {
		const char *ln = bpfvm_btf_name(lb, lt), *tn = bpfvm_btf_name(tb, tt);
		return !ln[0] || !tn[0] || same_essential(ln, tn);
	}
	case BPFVM_BTF_K_INT:
		/* integers of any size match; old-style bit offsets do not */
		return ((rd32(lt + 12) >> 16) & 0xff) == 0 && ((rd32(tt + 12) >> 16) & 0xff) == 0;
	case BPFVM_BTF_K_ARRAY:
		return fields_compat(lb, rd32(lt + 12), tb, rd32(tt + 12), depth + 1);
	default:
		return false;
	}
}

/* A member named name of composite id, looking inside anonymous members
 * (bpf_core_match_member). */
static bool find_member(const struct bpfvm_btf *btf, uint32_t id, const char *name, int depth,
			uint64_t *bit_off, uint32_t *type, uint32_t *bitfield)
{
	const uint8_t *t = bpfvm_btf_skip_mods(btf, id, NULL);
	if (!t || !is_composite(t) || depth > MAX_DEPTH)
		return false;
	bool kf = bpfvm_btf_kflag(t);
	for (uint32_t i = 0; i < bpfvm_btf_vlen(t); i++) {
		const uint8_t *m = t + 12 + 12 * i;
		uint32_t bits = rd32(m + 8);
		uint64_t off = kf ? (bits & 0xffffff) : bits;
		const char *mn = bpfvm_btf_str(btf, rd32(m));
		if (!mn)
			continue;
		if (mn[0] && strcmp(mn, name) == 0) {
			*bit_off = off;
			*type = rd32(m + 4);
			*bitfield = kf ? bits >> 24 : 0;
			return true;
		}
		if (!mn[0] &&
		    find_member(btf, rd32(m + 4), name, depth + 1, bit_off, type, bitfield)) {
			*bit_off += off;
			return true;
		}
	}
	return false;
}

/* The local spec matched in candidate cand of the target (bpf_core_spec_match):
 * 0, or -ENOENT with why saying where it stops matching. */
static int target_walk(const struct bpfvm_btf *lb, const struct ld_core_relo *r,
		       const struct bpfvm_btf *tb, uint32_t cand, struct core_field *f, char *why,
		       size_t n)
{
	uint64_t sz;
	memset(f, 0, sizeof(*f));
	f->root = cand;
	root_path(tb, cand, f);
	if (bpfvm_btf_size(tb, cand, &sz) || !add_elems(&f->bit_off, r->spec[0], sz)) {
		snprintf(why, n, "%.96s has no usable size", f->path);
		return -ENOENT;
	}
	uint32_t lcur = r->type_id, tcur = cand;
	for (uint32_t i = 1; i < r->nspec; i++) {
		uint32_t idx = r->spec[i];
		const uint8_t *lt = bpfvm_btf_skip_mods(lb, lcur, NULL);
		const uint8_t *tt = bpfvm_btf_skip_mods(tb, tcur, NULL);
		if (!lt || !tt)
			return -ENOENT;
		if (is_composite(lt)) {
			const uint8_t *m = lt + 12 + 12 * idx; /* idx checked at open */
			const char *mn = bpfvm_btf_name(lb, m);
			uint64_t moff;
			uint32_t mt, bf;
			if (!mn[0]) {
				lcur = rd32(m + 4); /* anonymous: its members are searched below */
				continue;
			}
			if (!find_member(tb, tcur, mn, 0, &moff, &mt, &bf)) {
				snprintf(why, n, "no field '%.48s' in %.96s", mn, f->path);
				return -ENOENT;
			}
			path_add(f, ".%s", mn, 0);
			if (!fields_compat(lb, rd32(m + 4), tb, mt, 0)) {
				snprintf(why, n, "%.96s has an incompatible type", f->path);
				return -ENOENT;
			}
			f->bit_off += moff;
			f->bitfield = bf;
			lcur = rd32(m + 4);
			tcur = mt;
			continue;
		}
		/* an array (local_walk allowed nothing else) */
		if (bpfvm_btf_kind(tt) != BPFVM_BTF_K_ARRAY) {
			snprintf(why, n, "%.96s is not an array", f->path);
			return -ENOENT;
		}
		uint32_t nel = rd32(tt + 20), et = rd32(tt + 12);
		if (nel && idx >= nel) {
			snprintf(why, n, "index %u past the %u elements of %.96s", idx, nel,
				 f->path);
			return -ENOENT;
		}
		if (!fields_compat(lb, rd32(lt + 12), tb, et, 0) || bpfvm_btf_size(tb, et, &sz) ||
		    !add_elems(&f->bit_off, idx, sz)) {
			snprintf(why, n, "%.96s has an incompatible element type", f->path);
			return -ENOENT;
		}
		path_add(f, "[%u]", NULL, idx);
		f->bitfield = 0;
		lcur = rd32(lt + 12);
		tcur = et;
	}
	f->type = tcur;
	return 0;
}

struct core_res {
	uint64_t orig, val;
	uint32_t orig_sz, new_sz;
	bool poison, adjust_ok;
	/* the insn must hold orig: not for a bitfield's offset, size and left
	 * shift, which the compiler may compute for another load width
	 * (libbpf's validate) */
	bool novalidate;
	char why[224];
};

/* Value of a field relocation at f (bpf_core_calc_field_relo). A bitfield is
 * read through the smallest aligned integer of at least its type's size that
 * holds all its bits (BYTE_OFFSET, BYTE_SIZE; *size 0: loads of it are never
 * resized), then shifted left by LSHIFT_U64 and right by RSHIFT_U64 (little
 * endian) as BPF_CORE_READ_BITFIELD does; a whole field is the same with all
 * its bits. */
static int field_value(const struct bpfvm_btf *btf, uint32_t kind, const struct core_field *f,
		       uint64_t *val, uint32_t *size, char *why, size_t n)
{
	uint64_t sz;
	if (kind == CORE_FIELD_EXISTS) {
		*val = 1;
		return 0;
	}
	if (!f->bitfield && f->bit_off % 8) {
		snprintf(why, n, "%.96s starts inside a byte without being a bitfield", f->path);
		return -EOPNOTSUPP;
	}
	if (bpfvm_btf_size(btf, f->type, &sz) || sz > UINT32_MAX) {
		snprintf(why, n, "%.96s has no size", f->path);
		return -EOPNOTSUPP;
	}
	const uint8_t *t = bpfvm_btf_skip_mods(btf, f->type, NULL);
	uint64_t bit_sz = f->bitfield ? f->bitfield : sz * 8;
	uint64_t byte_sz = sz, byte_off = f->bit_off / 8;
	if (f->bitfield) {
		if (sz == 0 || (sz & (sz - 1)) || sz > 8) {
			snprintf(why, n, "%.96s is a bitfield of a %llu-byte type", f->path,
				 (unsigned long long)sz);
			return -EOPNOTSUPP;
		}
		byte_off = f->bit_off / 8 / byte_sz * byte_sz;
		while (f->bit_off + bit_sz - byte_off * 8 > byte_sz * 8) {
			if (byte_sz >= 8) {
				snprintf(why, n, "%.96s: no 8-byte load holds the bitfield",
					 f->path);
				return -EOPNOTSUPP;
			}
			byte_sz *= 2;
			byte_off = f->bit_off / 8 / byte_sz * byte_sz;
		}
	}
	*size = f->bitfield ? 0 : (uint32_t)sz;
	switch (kind) {
	case CORE_FIELD_BYTE_OFFSET:
		*val = byte_off;
		return 0;
	case CORE_FIELD_BYTE_SIZE:
		*val = byte_sz;
		return 0;
	case CORE_FIELD_SIGNED:
		*val = (t && is_any_enum(bpfvm_btf_kind(t)) && bpfvm_btf_kflag(t)) ||
		       (t && bpfvm_btf_kind(t) == BPFVM_BTF_K_INT && (rd32(t + 12) >> 24) & 1);
		return 0;
	default:
		if (byte_sz == 0 || byte_sz > 8) {
			snprintf(why, n, "%.96s is not an integer of at most 8 bytes", f->path);
			return -EOPNOTSUPP;
		}
		if (kind == CORE_FIELD_LSHIFT_U64)
			*val = 64 - (f->bit_off + bit_sz - byte_off * 8);
		else
			*val = 64 - bit_sz;
		return 0;
	}
}

/* Enumerator idx of enum t: its name and value (a 32-bit enum's is the s32
 * of struct btf_enum, sign-extended, as libbpf reads it). */
static const char *enum_value(const struct bpfvm_btf *btf, const uint8_t *t, uint32_t idx,
			      uint64_t *val)
{
	if (bpfvm_btf_kind(t) == BPFVM_BTF_K_ENUM) {
		const uint8_t *e = t + 12 + 8 * idx;
		uint32_t v = rd32(e + 4);
		*val = (uint64_t)(int64_t)(int32_t)v;
		return bpfvm_btf_str(btf, rd32(e));
	}
	const uint8_t *e = t + 12 + 12 * idx;
	*val = (uint64_t)rd32(e + 4) | (uint64_t)rd32(e + 8) << 32;
	return bpfvm_btf_str(btf, rd32(e));
}

/* ENUMVAL_EXISTS / ENUMVAL_VALUE (bpf_core_calc_enumval_relo): the local
 * enumerator looked up by essential name in each target enum (or enum64) of
 * the same essential name; absent, EXISTS is 0 and VALUE poisons. */
static int resolve_enumval(struct ld_ctx *c, size_t k, const struct bpfvm_btf *lb,
			   const struct ld_core_relo *r, const struct bpfvm_btf *tb, bool have_tb,
			   const char *tname, struct core_res *res)
{
	const uint8_t *lt = bpfvm_btf_type(lb, r->type_id);
	const char *lname = bpfvm_btf_name(lb, lt);
	uint64_t lv;
	const char *vname = enum_value(lb, lt, r->spec[0], &lv);
	res->orig = r->kind == CORE_ENUMVAL_EXISTS ? 1 : lv;
	bool found = false;
	for (uint32_t id = 1; have_tb && lname[0] && vname && id <= tb->ntypes; id++) {
		const uint8_t *t = bpfvm_btf_type(tb, id);
		if (!is_any_enum(bpfvm_btf_kind(t)) ||
		    !same_essential(bpfvm_btf_name(tb, t), lname))
			continue;
		for (uint32_t i = 0; i < bpfvm_btf_vlen(t); i++) {
			uint64_t v;
			const char *n = enum_value(tb, t, i, &v);
			if (!n || !same_essential(n, vname))
				continue;
			v = r->kind == CORE_ENUMVAL_EXISTS ? 1 : v;
			if (found && v != res->val) {
				ld_err(c, NULL, -1,
				       "core_relo %zu: enum %.64s::%.64s: candidates in the %s "
				       "BTF disagree (%llu, %llu)",
				       k, lname, vname, tname, (unsigned long long)res->val,
				       (unsigned long long)v);
				return -EINVAL;
			}
			found = true;
			res->val = v;
			break;
		}
	}
	if (found || r->kind == CORE_ENUMVAL_EXISTS)
		return 0;
	res->poison = true;
	snprintf(res->why, sizeof(res->why), "no enum %.64s::%.64s in the %.32s BTF", lname,
		 vname ? vname : "?", tname);
	return 0;
}

/* Loads and stores may change size with the field only for unsigned integers
 * and pointers, which zero-extension keeps intact (bpf_core_calc_relo). */
static bool size_adjustable(const struct bpfvm_btf *lb, uint32_t lid, const struct bpfvm_btf *tb,
			    uint32_t tid)
{
	const uint8_t *l = bpfvm_btf_skip_mods(lb, lid, NULL),
		      *t = bpfvm_btf_skip_mods(tb, tid, NULL);
	if (!l || !t)
		return false;
	if (bpfvm_btf_kind(l) == BPFVM_BTF_K_PTR && bpfvm_btf_kind(t) == BPFVM_BTF_K_PTR)
		return true;
	return bpfvm_btf_kind(l) == BPFVM_BTF_K_INT && bpfvm_btf_kind(t) == BPFVM_BTF_K_INT &&
	       !((rd32(l + 12) >> 24) & 1) && !((rd32(t + 12) >> 24) & 1);
}

/* Resolve relocation r: res->val, or res->poison with a reason. -EINVAL only
 * for what libbpf also fails the load on (candidates that disagree). */
static int resolve(struct ld_ctx *c, const struct bpfvm_obj *o, size_t k,
		   const struct ld_core_relo *r, const struct bpfvm_btf *tb, bool have_tb,
		   const char *tname, struct core_res *res)
{
	const struct bpfvm_btf *lb = &o->btf;
	struct core_field lf = {0}, tf;
	char why[160] = "";
	res->adjust_ok = true;
	if (r->kind == CORE_TYPE_ID_LOCAL) {
		res->orig = res->val = r->type_id;
		return 0;
	}
	if (is_enumval(r->kind))
		return resolve_enumval(c, k, lb, r, tb, have_tb, tname, res);
	if (!is_field(r->kind) && !is_type(r->kind)) {
		res->poison = true;
		snprintf(res->why, sizeof(res->why), "%s relocations are not supported",
			 kind_names[r->kind]);
		return 0;
	}
	const uint8_t *lt = bpfvm_btf_type(lb, r->type_id);
	const char *lname = bpfvm_btf_name(lb, lt);
	if (is_field(r->kind)) {
		if (local_walk(lb, r, &lf, why, sizeof(why)))
			return -EINVAL; /* checked at open */
		res->novalidate = lf.bitfield && r->kind != CORE_FIELD_RSHIFT_U64 &&
				  r->kind != CORE_FIELD_SIGNED && r->kind != CORE_FIELD_EXISTS;
		if (field_value(lb, r->kind, &lf, &res->orig, &res->orig_sz, why, sizeof(why))) {
			res->poison = true;
			snprintf(res->why, sizeof(res->why), "%.*s", (int)sizeof(res->why) - 1,
				 why);
			return 0;
		}
	} else {
		root_path(lb, r->type_id, &lf);
		uint64_t sz = 0;
		bpfvm_btf_size(lb, r->type_id, &sz);
		res->orig = r->kind == CORE_TYPE_SIZE	  ? sz
			    : r->kind == CORE_TYPE_EXISTS ? 1
							  : r->type_id;
	}
	snprintf(why, sizeof(why), "no %.96s in the %.32s BTF", lf.path, tname);
	bool found = false;
	for (uint32_t id = 1; have_tb && lname[0] && id <= tb->ntypes; id++) {
		const uint8_t *t = bpfvm_btf_type(tb, id);
		if (bpfvm_btf_kind(t) != bpfvm_btf_kind(lt) ||
		    !same_essential(bpfvm_btf_name(tb, t), lname))
			continue;
		uint64_t v = 0;
		uint32_t vsz = 0;
		bool poison = false, adj = true;
		if (is_type(r->kind)) {
			if (r->kind == CORE_TYPE_SIZE && bpfvm_btf_size(tb, id, &v))
				continue;
			if (r->kind == CORE_TYPE_EXISTS)
				v = 1;
			else if (r->kind == CORE_TYPE_ID_TARGET)
				v = id;
		} else {
			if (target_walk(lb, r, tb, id, &tf, why, sizeof(why)))
				continue;
			if (field_value(tb, r->kind, &tf, &v, &vsz, why, sizeof(why)))
				poison = true;
			adj = res->orig_sz == vsz || size_adjustable(lb, lf.type, tb, tf.type);
		}
		if (found && (poison != res->poison || v != res->val)) {
			ld_err(
			    c, NULL, -1,
			    "core_relo %zu: %.96s: candidates in the %s BTF disagree (%llu, %llu)",
			    k, lf.path, tname, (unsigned long long)res->val, (unsigned long long)v);
			return -EINVAL;
		}
		found = true;
		res->val = v;
		res->new_sz = vsz;
		res->poison = poison;
		res->adjust_ok = adj;
		if (poison)
			snprintf(res->why, sizeof(res->why), "%.*s", (int)sizeof(res->why) - 1,
				 why);
	}
	if (found)
		return 0;
	/* libbpf: a missing target makes *_EXISTS and the type kinds 0 and
	 * poisons the other field kinds */
	res->val = 0;
	if (r->kind != CORE_FIELD_EXISTS && is_field(r->kind)) {
		res->poison = true;
		snprintf(res->why, sizeof(res->why), "%.*s", (int)sizeof(res->why) - 1, why);
	}
	return 0;
}

static void poison_insn(struct bpfvm_insn *in)
{
	*in = (struct bpfvm_insn){.code = BPF_JMP | BPF_CALL, .imm = BPFVM_CORE_POISON};
}

static int add_poison(struct bpfvm_core_poison **poison, size_t *npoison, size_t pc,
		      const char *why)
{
	struct bpfvm_core_poison *p = realloc(*poison, (*npoison + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*poison = p;
	p[*npoison].pc = pc;
	snprintf(p[*npoison].why, sizeof(p[*npoison].why), "%s", why);
	(*npoison)++;
	return 0;
}

static int size_code(uint32_t bytes)
{
	switch (bytes) {
	case 1:
		return BPF_B;
	case 2:
		return BPF_H;
	case 4:
		return BPF_W;
	case 8:
		return BPF_DW;
	default:
		return -1;
	}
}

/* bpf_core_patch_insn: the insn must hold the local value; it gets the target's. */
static int patch(struct ld_ctx *c, const char *sec, size_t k, struct bpfvm_insn *insns, size_t n,
		 size_t pc, uint32_t kind, struct core_res *res)
{
	struct bpfvm_insn *in = &insns[pc];
	uint8_t cls = BPF_CLASS(in->code);
	long at = (long)pc;
	int64_t have;
	if (bpfvm_insn_is_ldimm64(in) && (in->src != 0 || in->off != 0 || pc + 1 >= n ||
					  in[1].code || in[1].dst || in[1].src || in[1].off)) {
		/* libbpf's "LDIMM64 has unexpected form": only a plain 64-bit
		 * constant takes a value; a map, map value or callback
		 * reference would have its index or address overwritten */
		ld_err(c, sec, at,
		       "core_relo %zu: ld_imm64 with source %u cannot take a CO-RE "
		       "relocation",
		       k, in->src);
		return -EINVAL;
	}
	if (bpfvm_insn_is_ldimm64(in))
		have =
		    (int64_t)((uint64_t)(uint32_t)in[0].imm | (uint64_t)(uint32_t)in[1].imm << 32);
	else if ((cls == BPF_ALU || cls == BPF_ALU64) && BPF_SRC(in->code) == BPF_K)
		have = in->imm;
	else if ((cls == BPF_LDX || cls == BPF_ST || cls == BPF_STX) &&
		 (BPF_MODE(in->code) == BPF_MEM || BPF_MODE(in->code) == BPF_MEMSX))
		have = in->off;
	else {
		ld_err(c, sec, at, "core_relo %zu: insn 0x%02x cannot take a CO-RE relocation", k,
		       in->code);
		return -EINVAL;
	}
	if (!res->novalidate && (uint64_t)have != res->orig &&
	    !(cls == BPF_ALU && (uint32_t)have == (uint32_t)res->orig)) {
		ld_err(c, sec, at, "core_relo %zu: insn holds %lld, the local %s value is %llu", k,
		       (long long)have, kind_names[kind], (unsigned long long)res->orig);
		return -EINVAL;
	}
	if (res->poison)
		return 0;
	if (bpfvm_insn_is_ldimm64(in)) {
		in[0].imm = (int32_t)(uint32_t)res->val;
		in[1].imm = (int32_t)(uint32_t)(res->val >> 32);
		return 0;
	}
	if (cls == BPF_ALU || cls == BPF_ALU64) {
		/* an imm is an s32: a negative enumerator fits */
		if ((int64_t)res->val > INT32_MAX || (int64_t)res->val < INT32_MIN) {
			ld_err(c, sec, at, "core_relo %zu: value %llu does not fit the insn", k,
			       (unsigned long long)res->val);
			return -ERANGE;
		}
		in->imm = (int32_t)res->val;
		return 0;
	}
	if (res->val > INT16_MAX) {
		ld_err(c, sec, at, "core_relo %zu: offset %llu does not fit the insn", k,
		       (unsigned long long)res->val);
		return -ERANGE;
	}
	if (kind == CORE_FIELD_BYTE_OFFSET && res->new_sz != res->orig_sz) {
		if (bpfvm_insn_size(in->code) != (int)res->orig_sz || size_code(res->new_sz) < 0) {
			ld_err(c, sec, at, "core_relo %zu: a %d-byte access to a %u-byte field", k,
			       bpfvm_insn_size(in->code), res->orig_sz);
			return -EINVAL;
		}
		if (!res->adjust_ok) {
			res->poison = true;
			snprintf(res->why, sizeof(res->why),
				 "the field is %u bytes here, %u in the target and not an unsigned "
				 "integer",
				 res->orig_sz, res->new_sz);
			return 0;
		}
		in->code = (uint8_t)(BPF_MODE(in->code) | size_code(res->new_sz) | cls);
	}
	in->off = (int16_t)res->val;
	return 0;
}

int ld_core_apply(struct ld_ctx *c, const struct ld_prog *prog, const struct bpfvm_prog_type *type,
		  struct bpfvm_insn *insns, struct bpfvm_core_poison **poison, size_t *npoison)
{
	const struct bpfvm_obj *o = c->obj;
	struct bpfvm_btf tb = {0};
	bool have_tb = false;
	char why[96];
	int err = 0;
	if (type->btf) {
		err = bpfvm_btf_parse(type->btf, type->btf_len, &tb, why, sizeof(why));
		if (err == -EINVAL)
			ld_err(c, prog->section, -1, "the %s BTF: %s", type->name, why);
		if (err)
			return err;
		have_tb = true;
	}
	for (size_t i = 0; i < prog->ncore && !err; i++) {
		const struct ld_core_at *a = &prog->core[i];
		const struct ld_core_relo *r = &o->relos[a->relo];
		struct core_res res = {0};
		err = resolve(c, o, a->relo, r, &tb, have_tb, type->name, &res);
		if (!err)
			err = patch(c, prog->section, a->relo, insns, prog->ninsns, a->pc, r->kind,
				    &res);
		if (err)
			break;
		struct bpfvm_insn *in = &insns[a->pc];
		if (!res.poison)
			continue;
		char note[sizeof(((struct bpfvm_core_poison *)0)->why)];
		snprintf(note, sizeof(note), "CO-RE relocation %zu (%s) cannot be resolved: %.224s",
			 a->relo, kind_names[r->kind], res.why);
		/* both halves of an ld_imm64, so neither is left a stray half */
		if (bpfvm_insn_is_ldimm64(in)) {
			poison_insn(in + 1);
			err = add_poison(poison, npoison, a->pc + 1, note);
		}
		poison_insn(in);
		if (!err)
			err = add_poison(poison, npoison, a->pc, note);
	}
	if (have_tb)
		bpfvm_btf_fini(&tb);
	return err;
}
