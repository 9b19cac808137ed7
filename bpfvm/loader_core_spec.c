/* CO-RE access specs (libbpf's relo_core.c: bpf_core_parse_spec,
 * bpf_core_spec_match): an access string walked through the object's own BTF
 * to the field it names, and the same walk matched by name and compatible
 * type in a candidate of the target BTF. Resolving the value and patching the
 * insn are loader_core.c's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loader_core_int.h"

#define rd32 bpfvm_btf_rd32

#define MAX_DEPTH 32

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

bool ld_core_same_essential(const char *a, const char *b)
{
	size_t la = essential_len(a), lb = essential_len(b);
	return la == lb && strncmp(a, b, la) == 0;
}

static void path_add(struct ld_core_field *f, const char *fmt, const char *s, uint32_t v)
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

void ld_core_root_path(const struct bpfvm_btf *btf, uint32_t id, struct ld_core_field *f)
{
	const uint8_t *t = bpfvm_btf_type(btf, id);
	snprintf(f->path, sizeof(f->path), "%s%s", kind_word(t), bpfvm_btf_name(btf, t));
}

/* The spec walked through the object's own BTF (bpf_core_parse_spec). */
int ld_core_local_walk(const struct bpfvm_btf *btf, const struct ld_core_relo *r,
		       struct ld_core_field *f, char *why, size_t n)
{
	uint64_t sz;
	memset(f, 0, sizeof(*f));
	f->root = r->type_id;
	ld_core_root_path(btf, r->type_id, f);
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
		if (ld_core_is_composite(t)) {
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

static bool fields_compat(const struct bpfvm_btf *lb, uint32_t lid, const struct bpfvm_btf *tb,
			  uint32_t tid, int depth)
{
	const uint8_t *lt = bpfvm_btf_skip_mods(lb, lid, NULL);
	const uint8_t *tt = bpfvm_btf_skip_mods(tb, tid, NULL);
	if (!lt || !tt || depth > MAX_DEPTH)
		return false;
	if (ld_core_is_composite(lt) && ld_core_is_composite(tt))
		return true;
	uint32_t lk = bpfvm_btf_kind(lt), tk = bpfvm_btf_kind(tt);
	if (lk != tk)
		return ld_core_is_any_enum(lk) && ld_core_is_any_enum(tk);
	switch (lk) {
	case BPFVM_BTF_K_PTR:
	case BPFVM_BTF_K_FLOAT:
		return true;
	case BPFVM_BTF_K_FWD:
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64: {
		const char *ln = bpfvm_btf_name(lb, lt), *tn = bpfvm_btf_name(tb, tt);
		return !ln[0] || !tn[0] || ld_core_same_essential(ln, tn);
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
	if (!t || !ld_core_is_composite(t) || depth > MAX_DEPTH)
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
int ld_core_target_walk(const struct bpfvm_btf *lb, const struct ld_core_relo *r,
			const struct bpfvm_btf *tb, uint32_t cand, struct ld_core_field *f,
			char *why, size_t n)
{
	uint64_t sz;
	memset(f, 0, sizeof(*f));
	f->root = cand;
	ld_core_root_path(tb, cand, f);
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
		if (ld_core_is_composite(lt)) {
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
		/* an array (ld_core_local_walk allowed nothing else) */
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
