/* CO-RE at open: .BTF.ext's core_relo records read, each checked against
 * the object's own .BTF (kind, access string, the field it reaches), and
 * noted against the program insns they patch when sections are linked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_core_int.h"

#define rd32 bpfvm_btf_rd32

#define EXT_MAGIC     0xeb9f
#define RELO_MIN_SIZE 16 /* struct bpf_core_relo */

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
	if (r->kind >= LD_CORE_NKINDS) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: unknown kind %u", k, r->kind);
		return -EINVAL;
	}
	if (ld_core_is_type(r->kind) && (r->nspec != 1 || r->spec[0] != 0)) {
		ld_err(c, ".BTF.ext", -1, "core_relo %zu: %s takes access string 0, not %.64s", k,
		       ld_core_kind_names[r->kind], r->access);
		return -EINVAL;
	}
	if (ld_core_is_enumval(r->kind)) {
		const uint8_t *t = bpfvm_btf_type(&o->btf, r->type_id);
		if (!ld_core_is_any_enum(bpfvm_btf_kind(t)) || r->nspec != 1 ||
		    r->spec[0] >= bpfvm_btf_vlen(t)) {
			ld_err(c, ".BTF.ext", -1,
			       "core_relo %zu: %s needs an enum and the index of one of its "
			       "values, not type %u and %.64s",
			       k, ld_core_kind_names[r->kind], r->type_id, r->access);
			return -EINVAL;
		}
	}
	struct ld_core_field f;
	if (ld_core_is_field(r->kind) && ld_core_local_walk(&o->btf, r, &f, why, sizeof(why))) {
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
