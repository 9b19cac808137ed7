/* ELF object loader (docs/bpfvm-loader.md): EM_BPF little-endian ELF64 relocatable
 * objects as clang -target bpf emits them. This file checks the ELF header and
 * section table against the file size before libelf walks them, classifies
 * sections and holds the public bpfvm_obj_* API; maps and relocation live in
 * loader_maps.c, loader_btf.c, loader_reloc.c and loader_core*.c (CO-RE). Hostile input is rejected
 * with a logged reason, never trusted. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader_int.h"

#define LD_MAX_FILE	(64U << 20) /* far above any BPF object; bounds the copy */
#define LD_MAX_SECTIONS 65280U	    /* below SHN_LORESERVE: no extended numbering */

void ld_err(struct ld_ctx *c, const char *sec, long insn, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (sec && insn >= 0)
		bpfvm_log_printf(c->log, "loader: %s: section '%s': insn %ld: %s\n", c->file, sec,
				 insn, why);
	else if (sec)
		bpfvm_log_printf(c->log, "loader: %s: section '%s': %s\n", c->file, sec, why);
	else
		bpfvm_log_printf(c->log, "loader: %s: %s\n", c->file, why);
}

bool ld_sym(struct ld_ctx *c, size_t i, GElf_Sym *sym, const char **name)
{
	if (!c->symdata || i >= c->nsyms || !gelf_getsym(c->symdata, (int)i, sym))
		return false;
	const char *n = elf_strptr(c->elf, c->strtab, sym->st_name);
	*name = n ? n : "";
	return true;
}

static bool range_ok(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

/* The header checks libelf does not make for us: only what we load passes. */
static int check_ehdr(struct ld_ctx *c)
{
	Elf64_Ehdr eh;
	if (c->len < sizeof(eh)) {
		ld_err(c, NULL, -1, "truncated ELF header (%zu bytes)", c->len);
		return -ENOEXEC;
	}
	memcpy(&eh, c->img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		ld_err(c, NULL, -1, "not an ELF file");
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		ld_err(c, NULL, -1, "not a 64-bit ELF (class %u)", eh.e_ident[EI_CLASS]);
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		ld_err(c, NULL, -1, "not a little-endian ELF (data %u)", eh.e_ident[EI_DATA]);
		return -ENOEXEC;
	}
	if (eh.e_machine != EM_BPF) {
		ld_err(c, NULL, -1, "e_machine %u is not EM_BPF", eh.e_machine);
		return -ENOEXEC;
	}
	if (eh.e_type != ET_REL) {
		ld_err(c, NULL, -1, "e_type %u is not a relocatable object", eh.e_type);
		return -ENOEXEC;
	}
	if (eh.e_shnum == 0 || eh.e_shnum >= LD_MAX_SECTIONS) {
		ld_err(c, NULL, -1, "unsupported section count %u", eh.e_shnum);
		return -ENOEXEC;
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr)) {
		ld_err(c, NULL, -1, "section header size %u", eh.e_shentsize);
		return -ENOEXEC;
	}
	if (!range_ok(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), c->len)) {
		ld_err(c, NULL, -1, "section headers at %llu past the end of the file",
		       (unsigned long long)eh.e_shoff);
		return -ENOEXEC;
	}
	if (eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum) {
		ld_err(c, NULL, -1, "section name table index %u out of range", eh.e_shstrndx);
		return -ENOEXEC;
	}
	/* every section's bytes must lie inside the file before libelf sees them */
	for (size_t i = 1; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, c->img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_NOBITS && !range_ok(sh.sh_offset, sh.sh_size, c->len)) {
			ld_err(c, NULL, -1,
			       "section %zu: offset %llu size %llu past the end of the file", i,
			       (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size);
			return -ENOEXEC;
		}
		if (sh.sh_link >= eh.e_shnum) {
			ld_err(c, NULL, -1, "section %zu: sh_link %u out of range", i, sh.sh_link);
			return -ENOEXEC;
		}
	}
	Elf64_Shdr shs;
	memcpy(&shs, c->img + eh.e_shoff + eh.e_shstrndx * sizeof(shs), sizeof(shs));
	if (shs.sh_type != SHT_STRTAB) {
		ld_err(c, NULL, -1, "section name table %u is not a string table", eh.e_shstrndx);
		return -ENOEXEC;
	}
	return 0;
}

static bool is_data_name(const char *n)
{
	static const char *const names[] = {".data", ".rodata", ".bss"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t l = strlen(names[i]);
		if (strncmp(n, names[i], l) == 0 && (n[l] == 0 || n[l] == '.'))
			return true;
	}
	return false;
}

static int classify(struct ld_ctx *c, size_t i, struct ld_sec *s)
{
	const GElf_Shdr *sh = &s->sh;
	if (sh->sh_type == SHT_SYMTAB) {
		if (c->symtab) {
			ld_err(c, s->name, -1, "second symbol table");
			return -EINVAL;
		}
		if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size % sizeof(Elf64_Sym)) {
			ld_err(c, s->name, -1, "bad symbol entry size %llu",
			       (unsigned long long)sh->sh_entsize);
			return -EINVAL;
		}
		if (c->secs[sh->sh_link].sh.sh_type != SHT_STRTAB) {
			ld_err(c, s->name, -1, "sh_link %u is not a string table", sh->sh_link);
			return -EINVAL;
		}
		c->symtab = i;
		c->strtab = sh->sh_link;
		c->nsyms = sh->sh_size / sizeof(Elf64_Sym);
		return 0;
	}
	if (sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR)) {
		if (sh->sh_size % sizeof(struct bpfvm_insn)) {
			ld_err(c, s->name, -1, "size %llu is not a multiple of 8",
			       (unsigned long long)sh->sh_size);
			return -EINVAL;
		}
		if (sh->sh_size == 0)
			return 0;
		s->kind = strcmp(s->name, ".text") == 0 ? LD_SEC_TEXT : LD_SEC_PROG;
		return 0;
	}
	if (strcmp(s->name, "license") == 0 && sh->sh_type == SHT_PROGBITS) {
		if (!s->size || memchr(s->data, 0, s->size) == NULL) {
			ld_err(c, s->name, -1, "license is not a NUL-terminated string");
			return -EINVAL;
		}
		free(c->obj->license);
		c->obj->license = strdup((const char *)s->data);
		return c->obj->license ? 0 : -ENOMEM;
	}
	if (strcmp(s->name, "maps") == 0 && sh->sh_type == SHT_PROGBITS)
		s->kind = LD_SEC_MAPS;
	else if (strcmp(s->name, ".maps") == 0 && sh->sh_type == SHT_PROGBITS)
		s->kind = LD_SEC_BTF_MAPS;
	else if (strcmp(s->name, ".BTF") == 0 && sh->sh_type == SHT_PROGBITS)
		c->btf_sec = i;
	else if (strcmp(s->name, ".BTF.ext") == 0 && sh->sh_type == SHT_PROGBITS)
		c->btf_ext_sec = i;
	else if ((sh->sh_type == SHT_PROGBITS || sh->sh_type == SHT_NOBITS) &&
		 (sh->sh_flags & SHF_ALLOC) && is_data_name(s->name) && sh->sh_size > 0)
		s->kind = LD_SEC_DATA;
	return 0;
}

/* Index relocations per instruction of the executable section they patch. */
static int index_rels(struct ld_ctx *c, size_t i)
{
	struct ld_sec *r = &c->secs[i];
	if (r->sh.sh_type == SHT_RELA) {
		size_t t = r->sh.sh_info;
		if (t < c->shnum &&
		    (c->secs[t].kind == LD_SEC_PROG || c->secs[t].kind == LD_SEC_TEXT)) {
			ld_err(c, r->name, -1, "RELA relocations are not used by BPF");
			return -EINVAL;
		}
		return 0;
	}
	if (r->sh.sh_type != SHT_REL)
		return 0;
	size_t t = r->sh.sh_info;
	if (t == 0 || t >= c->shnum) {
		ld_err(c, r->name, -1, "sh_info %zu is not a section", t);
		return -EINVAL;
	}
	struct ld_sec *s = &c->secs[t];
	if (s->kind != LD_SEC_PROG && s->kind != LD_SEC_TEXT)
		return 0; /* .BTF, .BTF.ext, debug info: not ours to apply */
	if (r->sh.sh_link != c->symtab || !c->symtab) {
		ld_err(c, r->name, -1, "sh_link %u is not the symbol table", r->sh.sh_link);
		return -EINVAL;
	}
	if (r->sh.sh_entsize != sizeof(Elf64_Rel) || r->sh.sh_size % sizeof(Elf64_Rel)) {
		ld_err(c, r->name, -1, "bad relocation entry size %llu",
		       (unsigned long long)r->sh.sh_entsize);
		return -EINVAL;
	}
	if (s->rel_sec) {
		ld_err(c, s->name, -1, "more than one relocation section");
		return -EINVAL;
	}
	Elf_Data *d = elf_getdata(elf_getscn(c->elf, i), NULL);
	/* at most one relocation per insn, so n also fits the int32 index */
	size_t n = r->sh.sh_size / sizeof(Elf64_Rel), ninsns = s->size / sizeof(struct bpfvm_insn);
	if (n > ninsns) {
		ld_err(c, r->name, -1, "%zu relocations for %zu insns", n, ninsns);
		return -EINVAL;
	}
	if (!d || d->d_size != r->sh.sh_size || d->d_type != ELF_T_REL) {
		ld_err(c, r->name, -1, "cannot read relocations: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	s->rel_sec = i;
	s->rel_at = malloc(ninsns * sizeof(*s->rel_at));
	if (!s->rel_at)
		return -ENOMEM;
	memset(s->rel_at, 0xff, ninsns * sizeof(*s->rel_at));
	for (size_t k = 0; k < n; k++) {
		GElf_Rel rel;
		if (!gelf_getrel(d, (int)k, &rel)) {
			ld_err(c, r->name, -1, "relocation %zu: unreadable: %s", k, elf_errmsg(-1));
			return -EINVAL;
		}
		if (rel.r_offset >= s->size || rel.r_offset % sizeof(struct bpfvm_insn)) {
			ld_err(c, s->name, -1,
			       "relocation %zu: offset %llu outside the section or misaligned", k,
			       (unsigned long long)rel.r_offset);
			return -EINVAL;
		}
		size_t at = rel.r_offset / sizeof(struct bpfvm_insn);
		if (s->rel_at[at] >= 0) {
			ld_err(c, s->name, (long)at,
			       "relocation %zu: second relocation of this insn", k);
			return -EINVAL;
		}
		if (GELF_R_SYM(rel.r_info) >= c->nsyms) {
			ld_err(c, s->name, (long)at,
			       "relocation %zu: symbol index %llu out of range", k,
			       (unsigned long long)GELF_R_SYM(rel.r_info));
			return -EINVAL;
		}
		s->rel_at[at] = (int32_t)k;
	}
	return 0;
}

static int read_sections(struct ld_ctx *c)
{
	size_t shstrndx;
	if (elf_getshdrnum(c->elf, &c->shnum) || elf_getshdrstrndx(c->elf, &shstrndx)) {
		ld_err(c, NULL, -1, "bad section table: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	c->secs = calloc(c->shnum, sizeof(*c->secs));
	if (!c->secs)
		return -ENOMEM;
	for (size_t i = 1; i < c->shnum; i++) {
		struct ld_sec *s = &c->secs[i];
		Elf_Scn *scn = elf_getscn(c->elf, i);
		if (!scn || !gelf_getshdr(scn, &s->sh)) {
			ld_err(c, NULL, -1, "section %zu: unreadable header", i);
			return -ENOEXEC;
		}
		s->name = elf_strptr(c->elf, shstrndx, s->sh.sh_name);
		if (!s->name) {
			ld_err(c, NULL, -1, "section %zu: name offset %u out of range", i,
			       s->sh.sh_name);
			return -EINVAL;
		}
		s->size = s->sh.sh_size;
		s->data = s->sh.sh_type == SHT_NOBITS ? NULL : c->img + s->sh.sh_offset;
	}
	for (size_t i = 1; i < c->shnum; i++) {
		int err = classify(c, i, &c->secs[i]);
		if (err)
			return err;
	}
	if (c->symtab) {
		c->symdata = elf_getdata(elf_getscn(c->elf, c->symtab), NULL);
		if (!c->symdata || c->symdata->d_size != c->secs[c->symtab].size ||
		    c->symdata->d_type != ELF_T_SYM) {
			ld_err(c, c->secs[c->symtab].name, -1, "cannot read symbols: %s",
			       elf_errmsg(-1));
			return -EINVAL;
		}
	}
	for (size_t i = 1; i < c->shnum; i++) {
		int err = index_rels(c, i);
		if (err)
			return err;
	}
	return 0;
}

static int load_progs(struct ld_ctx *c)
{
	size_t n = 0;
	for (size_t i = 1; i < c->shnum; i++)
		n += c->secs[i].kind == LD_SEC_PROG;
	if (n == 0) {
		ld_err(c, NULL, -1, "no program sections");
		return -EINVAL;
	}
	c->obj->progs = calloc(n, sizeof(*c->obj->progs));
	if (!c->obj->progs)
		return -ENOMEM;
	for (size_t i = 1; i < c->shnum; i++) {
		if (c->secs[i].kind != LD_SEC_PROG)
			continue;
		struct ld_prog *p = &c->obj->progs[c->obj->nprogs];
		p->section = strdup(c->secs[i].name);
		if (!p->section)
			return -ENOMEM;
		c->obj->nprogs++;
		int err = ld_prog_link(c, i, p);
		if (err)
			return err;
	}
	return 0;
}

static int read_file(const char *path, uint8_t **img, size_t *len, struct ld_ctx *c)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		ld_err(c, NULL, -1, "cannot open: %s", strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > LD_MAX_FILE) {
		close(fd);
		ld_err(c, NULL, -1, "not a regular file of at most %u bytes", LD_MAX_FILE);
		return -EINVAL;
	}
	size_t n = (size_t)st.st_size, got = 0;
	uint8_t *b = malloc(n ? n : 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	*img = b;
	*len = got;
	return 0;
}

int bpfvm_obj_open(struct bpfvm_registry *reg, const char *path, const void *buf, size_t len,
		   struct bpfvm_log *log, struct bpfvm_obj **out)
{
	struct ld_ctx c = {.file = path ? path : "<memory>", .log = log};
	uint8_t *img = NULL;
	int err;
	if (!out || (!path && !buf))
		return -EINVAL;
	*out = NULL;
	if (path) {
		err = read_file(path, &img, &c.len, &c);
		if (err)
			return err;
	} else {
		if (len > LD_MAX_FILE) {
			ld_err(&c, NULL, -1, "object of %zu bytes is too large", len);
			return -EINVAL;
		}
		img = malloc(len ? len : 1);
		if (!img)
			return -ENOMEM;
		memcpy(img, buf, len);
		c.len = len;
	}
	c.img = img;
	c.obj = calloc(1, sizeof(*c.obj));
	if (!c.obj || !(c.obj->file = strdup(c.file))) {
		err = -ENOMEM;
		goto out;
	}
	c.obj->reg = reg;
	err = check_ehdr(&c);
	if (err)
		goto out;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ld_err(&c, NULL, -1, "libelf initialisation failed");
		err = -EINVAL;
		goto out;
	}
	c.elf = elf_memory((char *)img, c.len);
	if (!c.elf || elf_kind(c.elf) != ELF_K_ELF) {
		ld_err(&c, NULL, -1, "libelf: %s", elf_errmsg(-1));
		err = -ENOEXEC;
		goto out;
	}
	err = read_sections(&c);
	if (!err)
		err = ld_maps_create(&c);
	if (!err)
		err = ld_core_parse(&c);
	if (!err)
		err = load_progs(&c);
out:
	if (c.elf)
		elf_end(c.elf);
	if (c.secs)
		for (size_t i = 0; i < c.shnum; i++)
			free(c.secs[i].rel_at);
	free(c.secs);
	free(c.locs);
	free(img);
	if (err == -ENOMEM)
		ld_err(&c, NULL, -1, "out of memory");
	if (err) {
		bpfvm_obj_close(c.obj);
		return err;
	}
	*out = c.obj;
	return 0;
}

void bpfvm_obj_close(struct bpfvm_obj *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; i < obj->nprogs; i++) {
		free(obj->progs[i].section);
		free(obj->progs[i].name);
		free(obj->progs[i].insns);
		free(obj->progs[i].core);
		for (size_t k = 0; k < obj->progs[i].nksym; k++)
			free(obj->progs[i].ksym[k].name);
		free(obj->progs[i].ksym);
	}
	free(obj->progs);
	for (size_t i = 0; i < obj->nmaps; i++)
		bpfvm_map_put(obj->maps[i]);
	free(obj->maps);
	free(obj->defs);
	free(obj->relos);
	bpfvm_btf_fini(&obj->btf);
	free(obj->btf_data);
	free(obj->license);
	free(obj->file);
	free(obj);
}

size_t bpfvm_obj_prog_count(const struct bpfvm_obj *obj)
{
	return obj ? obj->nprogs : 0;
}

const char *bpfvm_obj_prog_section(const struct bpfvm_obj *obj, size_t i)
{
	return obj && i < obj->nprogs ? obj->progs[i].section : NULL;
}

const char *bpfvm_obj_license(const struct bpfvm_obj *obj)
{
	return obj && obj->license ? obj->license : "";
}

size_t bpfvm_obj_map_count(const struct bpfvm_obj *obj)
{
	return obj ? obj->nmaps : 0;
}

struct bpfvm_map *bpfvm_obj_map(const struct bpfvm_obj *obj, size_t i)
{
	return obj && i < obj->nmaps ? obj->maps[i] : NULL;
}

struct bpfvm_map *bpfvm_obj_map_by_name(const struct bpfvm_obj *obj, const char *name)
{
	if (!obj || !name)
		return NULL;
	for (size_t i = 0; i < obj->nmaps; i++)
		if (obj->maps[i] && strncmp(obj->maps[i]->def.name, name, BPFVM_OBJ_NAME_LEN) == 0)
			return obj->maps[i];
	return NULL;
}
