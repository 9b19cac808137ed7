/* Program linking: copy a program section, apply its relocations (R_BPF_64_64 on
 * ld_imm64 for maps, global data and callbacks; R_BPF_64_32 on bpf-to-bpf
 * calls), and append every called .text function once, as libbpf does, so the
 * verifier sees one contiguous program (main first, sub-programs after). Each
 * linked piece takes its CO-RE relocations along; they are applied at load
 * (loader_core.c), when the program type and its BTF are known. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader_int.h"

struct ld_unit {
	size_t shndx, start, len, base; /* section insns [start, start+len) at base */
};

struct ld_link {
	struct ld_ctx *c;
	struct ld_prog *prog;
	struct ld_unit *units;
	size_t nunits;
	struct bpfvm_insn *insns;
	size_t n;
};

static const char *sname(struct ld_link *l, size_t shndx)
{
	return l->c->secs[shndx].name;
}

static const struct bpfvm_insn *sec_insns(struct ld_link *l, size_t shndx, size_t *n)
{
	*n = l->c->secs[shndx].size / sizeof(struct bpfvm_insn);
	return (const struct bpfvm_insn *)l->c->secs[shndx].data;
}

static int append(struct ld_link *l, size_t shndx, size_t start, size_t len, size_t *base)
{
	if (len > BPFVM_MAX_INSNS || l->n > BPFVM_MAX_INSNS - len) {
		ld_err(l->c, sname(l, shndx), -1, "linked program exceeds %u insns",
		       BPFVM_MAX_INSNS);
		return -E2BIG;
	}
	struct ld_unit *u = realloc(l->units, (l->nunits + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	l->units = u;
	struct bpfvm_insn *in = realloc(l->insns, (l->n + len) * sizeof(*in));
	if (!in)
		return -ENOMEM;
	l->insns = in;
	size_t n;
	const struct bpfvm_insn *src = sec_insns(l, shndx, &n);
	/* sections need not be 8-byte aligned in the file: copy, never cast */
	memcpy(l->insns + l->n, (const uint8_t *)src + start * sizeof(*src), len * sizeof(*src));
	u[l->nunits++] = (struct ld_unit){.shndx = shndx, .start = start, .len = len, .base = l->n};
	*base = l->n;
	l->n += len;
	return ld_core_link(l->c, l->prog, shndx, start, len, *base);
}

/* Program-relative index of insn idx of section shndx, appending the function
 * holding it if it is not linked yet. */
static int resolve(struct ld_link *l, size_t from_sec, long pc_sec, size_t shndx, int64_t idx,
		   size_t *out)
{
	struct ld_ctx *c = l->c;
	size_t n;
	sec_insns(l, shndx, &n);
	if (idx < 0 || (uint64_t)idx >= n) {
		ld_err(c, sname(l, from_sec), pc_sec, "call target %lld outside section '%s'",
		       (long long)idx, sname(l, shndx));
		return -EINVAL;
	}
	for (size_t i = 0; i < l->nunits; i++) {
		struct ld_unit *u = &l->units[i];
		if (u->shndx == shndx && (size_t)idx >= u->start &&
		    (size_t)idx < u->start + u->len) {
			*out = u->base + (size_t)idx - u->start;
			return 0;
		}
	}
	GElf_Sym sym;
	const char *name;
	for (size_t i = 0; i < c->nsyms; i++) {
		if (!ld_sym(c, i, &sym, &name) || sym.st_shndx != shndx ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		uint64_t s = sym.st_value / 8, e = (sym.st_value + sym.st_size) / 8;
		if (sym.st_value % 8 || sym.st_size % 8 || e > n || s >= e || (uint64_t)idx < s ||
		    (uint64_t)idx >= e)
			continue;
		size_t base;
		int err = append(l, shndx, (size_t)s, (size_t)(e - s), &base);
		if (err)
			return err;
		*out = base + (size_t)idx - (size_t)s;
		return 0;
	}
	ld_err(c, sname(l, from_sec), pc_sec, "call target %lld in '%s' is inside no function",
	       (long long)idx, sname(l, shndx));
	return -EINVAL;
}

static int set_rel_imm(struct ld_link *l, size_t pc, size_t target, const char *sec, long at)
{
	int64_t d = (int64_t)target - (int64_t)pc - 1;
	if (d < INT32_MIN || d > INT32_MAX) {
		ld_err(l->c, sec, at, "call offset does not fit");
		return -EINVAL;
	}
	l->insns[pc].imm = (int32_t)d;
	return 0;
}

static const struct ld_maploc *find_loc(struct ld_ctx *c, size_t shndx, uint64_t off)
{
	for (size_t i = 0; i < c->nlocs; i++)
		if (c->locs[i].shndx == shndx && c->locs[i].off == off)
			return &c->locs[i];
	return NULL;
}

static int reloc_ldimm(struct ld_link *l, const struct ld_unit *u, size_t i, size_t k,
		       const GElf_Rel *rel, const GElf_Sym *sym, const char *symname)
{
	struct ld_ctx *c = l->c;
	const char *sec = sname(l, u->shndx);
	long at = (long)(u->start + i);
	size_t pc = u->base + i;
	struct bpfvm_insn *in = &l->insns[pc];
	if (GELF_R_TYPE(rel->r_info) != R_BPF_64_64) {
		ld_err(c, sec, at, "relocation %zu: type %llu on ld_imm64", k,
		       (unsigned long long)GELF_R_TYPE(rel->r_info));
		return -EINVAL;
	}
	if (i + 1 >= u->len) {
		ld_err(c, sec, at, "relocation %zu: ld_imm64 without its second half", k);
		return -EINVAL;
	}
	size_t t = sym->st_shndx;
	struct ld_sec *ts = &c->secs[t];
	/* section symbols carry the offset in imm; object symbols in st_value */
	int64_t off = (int64_t)sym->st_value + in->imm;
	if (ts->kind == LD_SEC_TEXT || ts->kind == LD_SEC_PROG) {
		if (off % 8) {
			ld_err(c, sec, at, "relocation %zu: callback '%s' offset %lld misaligned",
			       k, symname, (long long)off);
			return -EINVAL;
		}
		size_t target;
		int err = resolve(l, u->shndx, at, t, off / 8, &target);
		if (err)
			return err;
		in = &l->insns[pc]; /* resolve may have moved the array */
		in->src = BPF_PSEUDO_FUNC;
		in[1].imm = 0;
		return set_rel_imm(l, pc, target, sec, at);
	}
	if (ts->kind == LD_SEC_DATA) {
		if (off < 0 || (uint64_t)off >= ts->size) {
			ld_err(c, sec, at, "relocation %zu: offset %lld outside '%s'", k,
			       (long long)off, ts->name);
			return -EINVAL;
		}
		in->src = BPF_PSEUDO_MAP_VALUE;
		in->imm = (int32_t)ts->data_map;
		in[1].imm = (int32_t)off;
		return 0;
	}
	if (ts->kind == LD_SEC_MAPS || ts->kind == LD_SEC_BTF_MAPS) {
		uint64_t moff =
		    GELF_ST_TYPE(sym->st_info) == STT_SECTION ? (uint64_t)off : sym->st_value;
		const struct ld_maploc *loc = find_loc(c, t, moff);
		if (!loc) {
			ld_err(c, sec, at, "relocation %zu: no map at '%s'+%llu", k, ts->name,
			       (unsigned long long)moff);
			return -EINVAL;
		}
		in->src = BPF_PSEUDO_MAP_FD;
		in->imm = (int32_t)loc->map;
		in[1].imm = 0;
		return 0;
	}
	ld_err(c, sec, at, "relocation %zu: symbol '%s' in section '%s' is not a map, data or code",
	       k, symname, ts->name);
	return -EINVAL;
}

/* A call to an extern function (clang: call -1 against an undefined
 * symbol; libbpf's kfunc externs): kept by name until the program type is
 * known (bpfvm_obj_load_prog), as libbpf resolves it against the kernel. */
static int reloc_ksym(struct ld_link *l, size_t pc, const char *name)
{
	struct ld_prog *p = l->prog;
	struct ld_ksym_at *a = realloc(p->ksym, (p->nksym + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	p->ksym = a;
	a[p->nksym].name = strdup(name);
	if (!a[p->nksym].name)
		return -ENOMEM;
	a[p->nksym++].pc = pc;
	l->insns[pc].src = BPF_PSEUDO_KFUNC_CALL;
	l->insns[pc].imm = 0;
	return 0;
}

static int reloc_insn(struct ld_link *l, const struct ld_unit *u, size_t i, int32_t k)
{
	struct ld_ctx *c = l->c;
	const char *sec = sname(l, u->shndx);
	long at = (long)(u->start + i);
	size_t pc = u->base + i;
	GElf_Rel rel;
	GElf_Sym sym;
	const char *symname;
	Elf_Data *d = elf_getdata(elf_getscn(c->elf, c->secs[u->shndx].rel_sec), NULL);
	if (!d || !gelf_getrel(d, k, &rel) || !ld_sym(c, GELF_R_SYM(rel.r_info), &sym, &symname)) {
		ld_err(c, sec, at, "relocation %d: unreadable", k);
		return -EINVAL;
	}
	if (sym.st_shndx == SHN_UNDEF && symname[0] && GELF_ST_BIND(sym.st_info) != STB_LOCAL &&
	    l->insns[pc].code == LD_CALL && GELF_R_TYPE(rel.r_info) == R_BPF_64_32 &&
	    l->insns[pc].src == BPF_PSEUDO_CALL) {
		if (ld_btf_extern_func(c, symname))
			return reloc_ksym(l, pc, symname);
		ld_err(c, sec, at,
		       "relocation %d: call to '%s', undefined and not an extern function of .BTF",
		       k, symname);
		return -EINVAL;
	}
	if (sym.st_shndx == SHN_UNDEF) {
		ld_err(c, sec, at, "relocation %d: unknown symbol '%s'", k, symname);
		return -EINVAL;
	}
	if (sym.st_shndx >= c->shnum) {
		ld_err(c, sec, at, "relocation %d: symbol '%s' has section index %u", k, symname,
		       sym.st_shndx);
		return -EINVAL;
	}
	struct bpfvm_insn *in = &l->insns[pc];
	if (in->code == LD_LD_IMM64)
		return reloc_ldimm(l, u, i, (size_t)k, &rel, &sym, symname);
	if (in->code != LD_CALL) {
		ld_err(c, sec, at, "relocation %d: insn 0x%02x is neither ld_imm64 nor call", k,
		       in->code);
		return -EINVAL;
	}
	if (GELF_R_TYPE(rel.r_info) != R_BPF_64_32 || in->src != BPF_PSEUDO_CALL) {
		ld_err(c, sec, at, "relocation %d: call with relocation type %llu src %u", k,
		       (unsigned long long)GELF_R_TYPE(rel.r_info), in->src);
		return -EINVAL;
	}
	enum ld_sec_kind tk = c->secs[sym.st_shndx].kind;
	if ((tk != LD_SEC_TEXT && tk != LD_SEC_PROG) || sym.st_value % 8) {
		ld_err(c, sec, at, "relocation %d: call to '%s' which is not code", k, symname);
		return -EINVAL;
	}
	size_t target;
	int err = resolve(l, u->shndx, at, sym.st_shndx, (int64_t)(sym.st_value / 8) + in->imm + 1,
			  &target);
	return err ? err : set_rel_imm(l, pc, target, sec, at);
}

/* Walk one linked unit; units appended meanwhile are walked by the caller. */
static int link_unit(struct ld_link *l, size_t ui)
{
	struct ld_ctx *c = l->c;
	struct ld_unit u = l->units[ui];
	struct ld_sec *s = &c->secs[u.shndx];
	const char *sec = s->name;
	for (size_t i = 0; i < u.len; i++) {
		size_t si = u.start + i, pc = u.base + i;
		int32_t k = s->rel_at ? s->rel_at[si] : -1;
		int err = 0;
		struct bpfvm_insn in = l->insns[pc];
		if (k >= 0) {
			err = reloc_insn(l, &u, i, k);
		} else if (in.code == LD_CALL && in.src == BPF_PSEUDO_CALL) {
			size_t target;
			err = resolve(l, u.shndx, (long)si, u.shndx, (int64_t)si + in.imm + 1,
				      &target);
			if (!err)
				err = set_rel_imm(l, pc, target, sec, (long)si);
		} else if (in.code == LD_LD_IMM64 && in.src != 0) {
			ld_err(c, sec, (long)si, "ld_imm64 with src %u but no relocation", in.src);
			err = -EINVAL;
		}
		if (err)
			return err;
		if (in.code == LD_LD_IMM64)
			i++;
	}
	return 0;
}

static char *func_name(struct ld_ctx *c, size_t shndx)
{
	GElf_Sym sym;
	const char *name;
	for (size_t i = 0; i < c->nsyms; i++)
		if (ld_sym(c, i, &sym, &name) && sym.st_shndx == shndx && sym.st_value == 0 &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC && name[0])
			return strndup(name, BPFVM_OBJ_NAME_LEN - 1);
	return strndup(c->secs[shndx].name, BPFVM_OBJ_NAME_LEN - 1);
}

int ld_prog_link(struct ld_ctx *c, size_t shndx, struct ld_prog *prog)
{
	struct ld_link l = {.c = c, .prog = prog};
	size_t base, n;
	sec_insns(&l, shndx, &n);
	int err = append(&l, shndx, 0, n, &base);
	for (size_t ui = 0; !err && ui < l.nunits; ui++)
		err = link_unit(&l, ui);
	free(l.units);
	if (!err) {
		prog->name = func_name(c, shndx);
		if (!prog->name)
			err = -ENOMEM;
	}
	if (err) {
		free(l.insns);
		return err == -E2BIG ? -EINVAL : err;
	}
	prog->insns = l.insns;
	prog->ninsns = l.n;
	return 0;
}

int bpfvm_obj_load_prog(struct bpfvm_obj *obj, const char *section,
			const struct bpfvm_load_opts *opts, struct bpfvm_prog **out)
{
	if (!obj || !out)
		return -EINVAL;
	*out = NULL;
	struct bpfvm_load_opts o = opts ? *opts : (struct bpfvm_load_opts){0};
	struct ld_ctx c = {.file = obj->file, .log = o.log, .obj = obj};
	struct ld_prog *p = NULL;
	for (size_t i = 0; i < obj->nprogs && !p; i++)
		if (!section || strcmp(obj->progs[i].section, section) == 0)
			p = &obj->progs[i];
	if (!p) {
		ld_err(&c, section, -1, "no such program section");
		return -ENOENT;
	}
	/* the program's own map table: only the maps it references, in order of
	 * first use, as the kernel's used_maps (prog info map_ids) */
	struct bpfvm_insn *insns = malloc(p->ninsns * sizeof(*insns));
	struct bpfvm_map **maps = calloc(obj->nmaps ? obj->nmaps : 1, sizeof(*maps));
	size_t *slot = malloc((obj->nmaps ? obj->nmaps : 1) * sizeof(*slot));
	struct bpfvm_core_poison *poison = NULL;
	size_t npoison = 0;
	int err = -ENOMEM;
	if (!insns || !maps || !slot)
		goto out;
	memcpy(insns, p->insns, p->ninsns * sizeof(*insns));
	if (p->ncore) {
		err = ld_core_apply(&c, p, o.type ? o.type : &bpfvm_type_generic, insns, &poison,
				    &npoison);
		if (err)
			goto out;
	}
	const struct bpfvm_prog_type *type = o.type ? o.type : &bpfvm_type_generic;
	for (size_t i = 0; i < p->nksym; i++) {
		uint32_t id = type->kfunc_id ? type->kfunc_id(p->ksym[i].name) : 0;
		if (!id) {
			ld_err(&c, p->section, (long)p->ksym[i].pc,
			       "extern function '%s' is not a kfunc of program type %s",
			       p->ksym[i].name, type->name);
			err = -EINVAL;
			goto out;
		}
		insns[p->ksym[i].pc].imm = (int32_t)id;
	}
	err = -ENOMEM;
	for (size_t i = 0; i < obj->nmaps; i++)
		slot[i] = SIZE_MAX;
	size_t nmaps = 0;
	for (size_t i = 0; i + 1 < p->ninsns; i++) {
		if (insns[i].code != LD_LD_IMM64)
			continue;
		if (insns[i].src == BPF_PSEUDO_MAP_FD || insns[i].src == BPF_PSEUDO_MAP_VALUE) {
			size_t m = (size_t)(uint32_t)insns[i].imm;
			if (m >= obj->nmaps) {
				/* only a relocation sets the source; one written
				 * in the ELF names no map of this object */
				ld_err(&c, p->section, (long)i, "ld_imm64 names map %zu of %zu", m,
				       obj->nmaps);
				err = -EINVAL;
				goto out;
			}
			if (!obj->maps[m]) {
				ld_err(&c, p->section, (long)i,
				       "map '%s': map type %u is not supported by skops",
				       obj->defs[m].name, obj->defs[m].type);
				err = -EOPNOTSUPP;
				goto out;
			}
			if (slot[m] == SIZE_MAX) {
				slot[m] = nmaps;
				maps[nmaps++] = obj->maps[m];
			}
			insns[i].imm = (int32_t)slot[m];
		}
		i++;
	}
	if (!o.name)
		o.name = p->name;
	o.no_verify = false;
	err =
	    bpfvm_prog_load_core(obj->reg, insns, p->ninsns, maps, nmaps, &o, poison, npoison, out);
out:
	free(poison);
	free(insns);
	free(maps);
	free(slot);
	return err;
}
