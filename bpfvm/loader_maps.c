/* Maps an object defines: the legacy "maps" section (struct bpf_map_def
 * entries located by symbols, as samples/bpf of Linux 4.13 wrote them), BTF
 * ".maps" (libbpf's __uint/__type convention, parsed in loader_btf.c) and global
 * data (.data/.rodata/.bss and their .* variants) as single-entry arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader_int.h"
#include "map_int.h"

/* type, key_size, value_size, max_entries are required; map_flags optional;
 * after them 4.13's samples had inner_map_idx and numa_node. */
#define LD_MAPDEF_MIN	16
#define LD_MAPDEF_KNOWN 28

static void copy_name(char dst[BPFVM_OBJ_NAME_LEN], const char *src)
{
	size_t i;
	for (i = 0; i < BPFVM_OBJ_NAME_LEN - 1 && src[i]; i++) {
		char ch = src[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
		dst[i] = ok ? ch : '_';
	}
	dst[i] = 0;
}

static const char *errname(int err)
{
	switch (err) {
	case -EINVAL:
		return "invalid definition (EINVAL)";
	case -E2BIG:
		return "too large (E2BIG)";
	case -ENOMEM:
		return "out of memory (ENOMEM)";
	default:
		return "cannot create";
	}
}

/* libbpf sizes a PERF_EVENT_ARRAY declared with max_entries 0 to the possible
 * CPUs (map_set_def_max_entries); the kernel refuses 0. */
static uint32_t possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1)
		return 1;
	return n > BPFVM_MAX_CPUS ? BPFVM_MAX_CPUS : (uint32_t)n;
}

int ld_map_add(struct ld_ctx *c, const char *sec, const struct bpfvm_map_def *def_in, size_t *idx)
{
	struct bpfvm_obj *o = c->obj;
	struct bpfvm_map_def def = *def_in;
	struct bpfvm_map **maps = realloc(o->maps, (o->nmaps + 1) * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	o->maps = maps;
	struct bpfvm_map_def *defs = realloc(o->defs, (o->nmaps + 1) * sizeof(*defs));
	if (!defs)
		return -ENOMEM;
	o->defs = defs;
	if (def.type == BPFVM_MAP_PERF_EVENT_ARRAY && def.max_entries == 0)
		def.max_entries = possible_cpus();
	struct bpfvm_map *m = NULL;
	/* A type skops lacks fails only the programs that use the map (at their
	 * load, with the reason), not the object's other programs. */
	int err = bpfvm_map_type_known(def.type) ? bpfvm_map_create(o->reg, &def, &m) : 0;
	if (err) {
		ld_err(c, sec, -1,
		       "map '%s': type %u key %u value %u max_entries %u flags 0x%x: %s", def.name,
		       def.type, def.key_size, def.value_size, def.max_entries, def.map_flags,
		       errname(err));
		return err == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	o->maps[o->nmaps] = m;
	o->defs[o->nmaps] = def;
	*idx = o->nmaps++;
	return 0;
}

static int add_loc(struct ld_ctx *c, size_t shndx, uint64_t off, size_t map)
{
	struct ld_maploc *l = realloc(c->locs, (c->nlocs + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	c->locs = l;
	l[c->nlocs++] = (struct ld_maploc){.shndx = shndx, .off = off, .map = map};
	return 0;
}

static bool map_sym(const GElf_Sym *sym, size_t shndx)
{
	return sym->st_shndx == shndx && GELF_ST_TYPE(sym->st_info) != STT_SECTION &&
	       GELF_ST_TYPE(sym->st_info) != STT_FILE;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* libbpf's rule for legacy maps: the section is an array of equal-sized
 * definitions, one per symbol, so the size is section size / symbol count. */
static int legacy_maps(struct ld_ctx *c, size_t shndx)
{
	struct ld_sec *s = &c->secs[shndx];
	size_t nr = 0;
	GElf_Sym sym;
	const char *name;
	for (size_t i = 0; i < c->nsyms; i++)
		if (ld_sym(c, i, &sym, &name) && map_sym(&sym, shndx))
			nr++;
	if (nr == 0) {
		ld_err(c, s->name, -1, "no map symbols");
		return -EINVAL;
	}
	if (s->size % nr || s->size / nr < LD_MAPDEF_MIN) {
		ld_err(c, s->name, -1, "cannot split %zu bytes into %zu map definitions", s->size,
		       nr);
		return -EINVAL;
	}
	size_t sz = s->size / nr;
	for (size_t i = 0; i < c->nsyms; i++) {
		if (!ld_sym(c, i, &sym, &name) || !map_sym(&sym, shndx))
			continue;
		if (sym.st_value % sz || sym.st_value >= s->size) {
			ld_err(c, s->name, -1, "map '%s': offset %llu is not a definition boundary",
			       name, (unsigned long long)sym.st_value);
			return -EINVAL;
		}
		const uint8_t *p = s->data + sym.st_value;
		struct bpfvm_map_def def = {
		    .type = rd32(p),
		    .key_size = rd32(p + 4),
		    .value_size = rd32(p + 8),
		    .max_entries = rd32(p + 12),
		    .map_flags = sz >= 20 ? rd32(p + 16) : 0,
		};
		if (sz >= 24 && rd32(p + 20)) {
			ld_err(c, s->name, -1,
			       "map '%s': map-in-map (inner_map_idx) is not supported", name);
			return -EINVAL;
		}
		for (size_t k = LD_MAPDEF_KNOWN; k < sz; k++)
			if (p[k]) {
				ld_err(c, s->name, -1,
				       "map '%s': unknown non-zero field at byte %zu", name, k);
				return -EINVAL;
			}
		copy_name(def.name, name);
		size_t idx;
		int err = ld_map_add(c, s->name, &def, &idx);
		if (!err)
			err = add_loc(c, shndx, sym.st_value, idx);
		if (err)
			return err;
	}
	return 0;
}

static int btf_maps(struct ld_ctx *c, size_t shndx, const struct bpfvm_btf *btf)
{
	struct ld_sec *s = &c->secs[shndx];
	uint32_t ds;
	if (ld_btf_find_datasec(btf, ".maps", &ds)) {
		ld_err(c, s->name, -1, "no BTF DATASEC '.maps'");
		return -EINVAL;
	}
	const uint8_t *t = bpfvm_btf_type(btf, ds);
	uint32_t vlen = rd32(t + 4) & 0xffff;
	for (uint32_t v = 0; v < vlen; v++) {
		uint32_t var = rd32(t + 12 + 12 * v);
		struct bpfvm_map_def def = {0};
		const char *name;
		int err = ld_btf_map_def(c, btf, var, &def, &name);
		if (err)
			return err;
		/* clang leaves DATASEC offsets to the linker; the symbol has it */
		GElf_Sym sym;
		const char *sn;
		bool found = false;
		for (size_t i = 0; i < c->nsyms && !found; i++)
			if (ld_sym(c, i, &sym, &sn) && map_sym(&sym, shndx) &&
			    strcmp(sn, name) == 0)
				found = true;
		if (!found || sym.st_value >= s->size) {
			ld_err(c, s->name, -1, "map '%s': no symbol inside the section", name);
			return -EINVAL;
		}
		copy_name(def.name, name);
		size_t idx;
		err = ld_map_add(c, s->name, &def, &idx);
		if (!err)
			err = add_loc(c, shndx, sym.st_value, idx);
		if (err)
			return err;
	}
	return 0;
}

static int data_map(struct ld_ctx *c, size_t shndx)
{
	struct ld_sec *s = &c->secs[shndx];
	if (s->size > BPFVM_MAP_MAX_VALUE) {
		ld_err(c, s->name, -1, "%zu bytes of global data is too large", s->size);
		return -EINVAL;
	}
	struct bpfvm_map_def def = {
	    .type = BPFVM_MAP_ARRAY,
	    .key_size = 4,
	    .value_size = (uint32_t)s->size,
	    .max_entries = 1,
	    /* constants: programs may read but not write them, as libbpf marks */
	    .map_flags = strncmp(s->name, ".rodata", 7) == 0 ? BPFVM_F_RDONLY_PROG : 0,
	};
	copy_name(def.name, s->name);
	size_t idx;
	int err = ld_map_add(c, s->name, &def, &idx);
	if (err)
		return err;
	s->data_map = idx;
	if (s->data) {
		uint32_t key = 0;
		err = bpfvm_map_update(c->obj->maps[idx], &key, s->data, BPFVM_ANY);
		if (err) {
			ld_err(c, s->name, -1, "cannot set initial bytes (%d)", err);
			return -EINVAL;
		}
	}
	/* constants stay what the object says: bpf_snprintf's format is
	 * checked on these bytes at load time */
	if (def.map_flags & BPFVM_F_RDONLY_PROG)
		bpfvm_map_freeze(c->obj->maps[idx]);
	return 0;
}

int ld_maps_create(struct ld_ctx *c)
{
	struct bpfvm_btf btf = {0};
	bool have_btf = false;
	int err = 0;
	for (size_t i = 1; i < c->shnum && !err; i++) {
		switch (c->secs[i].kind) {
		case LD_SEC_MAPS:
			if (!c->symtab) {
				ld_err(c, c->secs[i].name, -1, "maps without a symbol table");
				err = -EINVAL;
				break;
			}
			err = legacy_maps(c, i);
			break;
		case LD_SEC_BTF_MAPS:
			if (!c->btf_sec || !c->symtab) {
				ld_err(c, c->secs[i].name, -1, "needs .BTF and a symbol table");
				err = -EINVAL;
				break;
			}
			if (!have_btf) {
				struct ld_sec *b = &c->secs[c->btf_sec];
				err = ld_btf_parse(c, b->data, b->size, &btf);
				if (err)
					break;
				have_btf = true;
			}
			err = btf_maps(c, i, &btf);
			break;
		case LD_SEC_DATA:
			err = data_map(c, i);
			break;
		default:
			break;
		}
	}
	bpfvm_btf_fini(&btf);
	return err;
}
