/* Loader internals shared by loader.c (ELF sections, object API),
 * loader_maps.c (legacy, BTF and global-data maps), loader_btf.c (.BTF) and
 * loader_reloc.c (relocations, sub-program linking). Prefix ld_. */
#ifndef SKOPS_BPFVM_LOADER_INT_H
#define SKOPS_BPFVM_LOADER_INT_H

#include <gelf.h>
#include <libelf.h>

#include "bpfvm_int.h"

#define LD_LD_IMM64 (BPF_LD | BPF_IMM | BPF_DW)
#define LD_CALL	    (BPF_JMP | BPF_CALL)

/* A CO-RE relocation of the linked program: insn pc, object relocation relo. */
struct ld_core_at {
	size_t pc;
	size_t relo;
};

struct ld_ksym_at {
	size_t pc;
	char *name;
};

struct ld_prog {
	char *section;
	char *name;		  /* the function at offset 0, for opts->name */
	struct bpfvm_insn *insns; /* linked; map refs carry object map indices */
	size_t ninsns;
	struct ld_core_at *core; /* applied at load, against the type's BTF */
	size_t ncore;
	/* calls to extern __ksym functions: resolved at load by the type's
	 * kfunc_id (the name is the ELF symbol's) */
	struct ld_ksym_at *ksym;
	size_t nksym;
};

#define LD_CORE_MAX_SPEC 64 /* access string indices (libbpf's BPF_CORE_SPEC_MAX_LEN) */

/* One .BTF.ext core_relo record (libbpf's struct bpf_core_relo), checked
 * against the object's .BTF at open. */
struct ld_core_relo {
	size_t shndx;	  /* executable section of the insn */
	uint32_t insn;	  /* insn index in that section */
	uint32_t type_id; /* local root type */
	uint32_t kind;	  /* enum bpf_core_relo_kind */
	uint32_t nspec;
	uint32_t spec[LD_CORE_MAX_SPEC]; /* the access string, parsed */
	const char *access;		 /* the access string, in obj->btf */
};

struct bpfvm_obj {
	struct bpfvm_registry *reg;
	char *file;
	char *license;
	struct ld_prog *progs;
	size_t nprogs;
	struct bpfvm_map **maps;    /* one reference each; NULL: a type skops lacks */
	struct bpfvm_map_def *defs; /* nmaps definitions, as the object gave them */
	size_t nmaps;
	/* CO-RE: a copy of .BTF (btf borrows it) and the core_relo records */
	uint8_t *btf_data;
	struct bpfvm_btf btf;
	struct ld_core_relo *relos;
	size_t nrelos;
};

enum ld_sec_kind {
	LD_SEC_OTHER = 0,
	LD_SEC_PROG,	 /* executable, a program of its own */
	LD_SEC_TEXT,	 /* .text: sub-programs */
	LD_SEC_MAPS,	 /* legacy struct bpf_map_def array */
	LD_SEC_BTF_MAPS, /* .maps */
	LD_SEC_DATA,	 /* .data/.rodata/.bss: one single-entry array map */
};

struct ld_sec {
	const char *name;
	GElf_Shdr sh;
	const uint8_t *data; /* NULL for NOBITS */
	size_t size;
	enum ld_sec_kind kind;
	int32_t *rel_at; /* exec sections: relocation index per insn, -1 none */
	size_t rel_sec;	 /* index of the SHT_REL section, 0 none */
	size_t data_map; /* LD_SEC_DATA: object map index */
};

/* Where a map definition lives, so relocations find the map. */
struct ld_maploc {
	size_t shndx;
	uint64_t off;
	size_t map;
};

struct ld_ctx {
	const char *file;
	struct bpfvm_log *log;
	struct bpfvm_obj *obj;
	const uint8_t *img;
	size_t len;
	Elf *elf;
	size_t shnum;
	struct ld_sec *secs;
	size_t symtab; /* section index, 0 none */
	Elf_Data *symdata;
	size_t nsyms;
	size_t strtab;
	size_t btf_sec;	    /* 0 none */
	size_t btf_ext_sec; /* 0 none */
	struct ld_maploc *locs;
	size_t nlocs;
};

/* "loader: FILE: section 'S': insn N: reason" (sec NULL and/or insn < 0 leave
 * those parts out); the line ends with '\n'. */
void ld_err(struct ld_ctx *c, const char *sec, long insn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Symbol i with its name ("" if the name is unreadable); false if i is out of
 * range. */
bool ld_sym(struct ld_ctx *c, size_t i, GElf_Sym *sym, const char **name);

int ld_maps_create(struct ld_ctx *c);
int ld_map_add(struct ld_ctx *c, const char *sec, const struct bpfvm_map_def *def, size_t *idx);
int ld_prog_link(struct ld_ctx *c, size_t shndx, struct ld_prog *prog);

/* loader_core_ext.c: read .BTF.ext's core_relo records into obj (none: 0) */
int ld_core_parse(struct ld_ctx *c);
/* Note the relocations of section shndx insns [start, start+len), linked at
 * base, in prog. */
int ld_core_link(struct ld_ctx *c, struct ld_prog *prog, size_t shndx, size_t start, size_t len,
		 size_t base);
/* loader_core.c: apply prog's relocations to insns (its copy) against type's BTF; an
 * unresolvable one poisons its insn and adds a note to *poison. */
int ld_core_apply(struct ld_ctx *c, const struct ld_prog *prog, const struct bpfvm_prog_type *type,
		  struct bpfvm_insn *insns, struct bpfvm_core_poison **poison, size_t *npoison);

/* bpfvm_btf_parse with the reason logged against .BTF */
int ld_btf_parse(struct ld_ctx *c, const uint8_t *data, size_t size, struct bpfvm_btf *btf);
bool ld_btf_extern_func(struct ld_ctx *c, const char *name);
int ld_btf_find_datasec(const struct bpfvm_btf *btf, const char *name, uint32_t *id);
/* Map definition from the VAR type id of a .maps variable. */
int ld_btf_map_def(struct ld_ctx *c, const struct bpfvm_btf *btf, uint32_t var_id,
		   struct bpfvm_map_def *def, const char **name);

#endif
