/* CO-RE relocations as libbpf applies them (tools/lib/bpf/relo_core.c:
 * bpf_core_calc_relo, bpf_core_patch_insn): at load each relocation is
 * resolved against the BTF the program type publishes and patched into its
 * insn, or the insn is poisoned. The records were read and checked at open
 * (loader_core_ext.c); access strings are walked and matched in
 * loader_core_spec.c. docs/bpfvm-loader.md "CO-RE" says what is supported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_core_int.h"

#define rd32 bpfvm_btf_rd32

const char *const ld_core_kind_names[LD_CORE_NKINDS] = {
    "field_byte_offset", "field_byte_size", "field_exists",   "field_signed", "field_lshift_u64",
    "field_rshift_u64",	 "type_id_local",   "type_id_target", "type_exists",  "type_size",
    "enumval_exists",	 "enumval_value",   "type_matches"};

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
static int field_value(const struct bpfvm_btf *btf, uint32_t kind, const struct ld_core_field *f,
		       uint64_t *val, uint32_t *size, char *why, size_t n)
{
	uint64_t sz;
	if (kind == LD_CORE_FIELD_EXISTS) {
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
	case LD_CORE_FIELD_BYTE_OFFSET:
		*val = byte_off;
		return 0;
	case LD_CORE_FIELD_BYTE_SIZE:
		*val = byte_sz;
		return 0;
	case LD_CORE_FIELD_SIGNED:
		*val = (t && ld_core_is_any_enum(bpfvm_btf_kind(t)) && bpfvm_btf_kflag(t)) ||
		       (t && bpfvm_btf_kind(t) == BPFVM_BTF_K_INT && (rd32(t + 12) >> 24) & 1);
		return 0;
	default:
		if (byte_sz == 0 || byte_sz > 8) {
			snprintf(why, n, "%.96s is not an integer of at most 8 bytes", f->path);
			return -EOPNOTSUPP;
		}
		if (kind == LD_CORE_FIELD_LSHIFT_U64)
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
	res->orig = r->kind == LD_CORE_ENUMVAL_EXISTS ? 1 : lv;
	bool found = false;
	for (uint32_t id = 1; have_tb && lname[0] && vname && id <= tb->ntypes; id++) {
		const uint8_t *t = bpfvm_btf_type(tb, id);
		if (!ld_core_is_any_enum(bpfvm_btf_kind(t)) ||
		    !ld_core_same_essential(bpfvm_btf_name(tb, t), lname))
			continue;
		for (uint32_t i = 0; i < bpfvm_btf_vlen(t); i++) {
			uint64_t v;
			const char *n = enum_value(tb, t, i, &v);
			if (!n || !ld_core_same_essential(n, vname))
				continue;
			v = r->kind == LD_CORE_ENUMVAL_EXISTS ? 1 : v;
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
	if (found || r->kind == LD_CORE_ENUMVAL_EXISTS)
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
	struct ld_core_field lf = {0}, tf;
	char why[160] = "";
	res->adjust_ok = true;
	if (r->kind == LD_CORE_TYPE_ID_LOCAL) {
		res->orig = res->val = r->type_id;
		return 0;
	}
	if (ld_core_is_enumval(r->kind))
		return resolve_enumval(c, k, lb, r, tb, have_tb, tname, res);
	if (!ld_core_is_field(r->kind) && !ld_core_is_type(r->kind)) {
		res->poison = true;
		snprintf(res->why, sizeof(res->why), "%s relocations are not supported",
			 ld_core_kind_names[r->kind]);
		return 0;
	}
	const uint8_t *lt = bpfvm_btf_type(lb, r->type_id);
	const char *lname = bpfvm_btf_name(lb, lt);
	if (ld_core_is_field(r->kind)) {
		if (ld_core_local_walk(lb, r, &lf, why, sizeof(why)))
			return -EINVAL; /* checked at open */
		res->novalidate = lf.bitfield && r->kind != LD_CORE_FIELD_RSHIFT_U64 &&
				  r->kind != LD_CORE_FIELD_SIGNED &&
				  r->kind != LD_CORE_FIELD_EXISTS;
		if (field_value(lb, r->kind, &lf, &res->orig, &res->orig_sz, why, sizeof(why))) {
			res->poison = true;
			snprintf(res->why, sizeof(res->why), "%.*s", (int)sizeof(res->why) - 1,
				 why);
			return 0;
		}
	} else {
		ld_core_root_path(lb, r->type_id, &lf);
		uint64_t sz = 0;
		bpfvm_btf_size(lb, r->type_id, &sz);
		res->orig = r->kind == LD_CORE_TYPE_SIZE     ? sz
			    : r->kind == LD_CORE_TYPE_EXISTS ? 1
							     : r->type_id;
	}
	snprintf(why, sizeof(why), "no %.96s in the %.32s BTF", lf.path, tname);
	bool found = false;
	for (uint32_t id = 1; have_tb && lname[0] && id <= tb->ntypes; id++) {
		const uint8_t *t = bpfvm_btf_type(tb, id);
		if (bpfvm_btf_kind(t) != bpfvm_btf_kind(lt) ||
		    !ld_core_same_essential(bpfvm_btf_name(tb, t), lname))
			continue;
		uint64_t v = 0;
		uint32_t vsz = 0;
		bool poison = false, adj = true;
		if (ld_core_is_type(r->kind)) {
			if (r->kind == LD_CORE_TYPE_SIZE && bpfvm_btf_size(tb, id, &v))
				continue;
			if (r->kind == LD_CORE_TYPE_EXISTS)
				v = 1;
			else if (r->kind == LD_CORE_TYPE_ID_TARGET)
				v = id;
		} else {
			if (ld_core_target_walk(lb, r, tb, id, &tf, why, sizeof(why)))
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
	if (r->kind != LD_CORE_FIELD_EXISTS && ld_core_is_field(r->kind)) {
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
		       (long long)have, ld_core_kind_names[kind], (unsigned long long)res->orig);
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
	if (kind == LD_CORE_FIELD_BYTE_OFFSET && res->new_sz != res->orig_sz) {
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
			 a->relo, ld_core_kind_names[r->kind], res.why);
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
