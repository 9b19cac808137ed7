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

struct ld_prog {
	char *section;
	char *name;		  /* the function at offset 0, for opts->name */
	struct bpfvm_insn *insns; /* linked; map refs carry object map indices */
	size_t ninsns;
};

struct bpfvm_obj {
	struct bpfvm_registry *reg;
	char *file;
	char *license;
	struct ld_prog *progs;
	size_t nprogs;
	struct bpfvm_map **maps; /* one reference each */
	size_t nmaps;
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

struct ld_btf {
	const uint8_t *types;
	size_t types_len;
	const char *strs;
	size_t strs_len;
	uint32_t ntypes; /* ids 1..ntypes valid */
	uint32_t *offs;	 /* offs[id] = byte offset of type id in types */
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
	size_t btf_sec; /* 0 none */
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

int ld_btf_parse(struct ld_ctx *c, const uint8_t *data, size_t size, struct ld_btf *btf);
void ld_btf_fini(struct ld_btf *btf);
const char *ld_btf_str(const struct ld_btf *btf, uint32_t off);
/* Type record of id (12-byte header, kind data after), NULL if id is bad. */
const uint8_t *ld_btf_type(const struct ld_btf *btf, uint32_t id);
int ld_btf_find_datasec(const struct ld_btf *btf, const char *name, uint32_t *id);
/* Map definition from the VAR type id of a .maps variable. */
int ld_btf_map_def(struct ld_ctx *c, const struct ld_btf *btf, uint32_t var_id,
		   struct bpfvm_map_def *def, const char **name);

#endif
