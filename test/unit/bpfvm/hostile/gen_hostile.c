/* gen_hostile OUTDIR OBJ...: write a deterministic corpus of hostile ELF files,
 * each a valid BPF object with one structural fault the loader must refuse:
 * truncations at every header and section boundary, wrong class/data/type/
 * machine, section table and section ranges past the end, huge or zero counts,
 * bad indices (sh_link, shstrndx, sh_info), odd-sized program sections,
 * relocations outside their section, misaligned, on the wrong insn or with bad
 * symbols, BTF garbage and .BTF.ext core_relo faults. Every file is refused by construction (the
 * fault is one the loader checks on every path), so test_loader_hostile can insist. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../ld_elf_edit.h"

#define LD64 0x18
#define CALL 0x85

struct gen {
	const char *dir, *base;
	unsigned n;
	int err;
};

static void emit(struct gen *g, const char *what, const struct ld_img *img, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s-%03u-%s.o", g->dir, g->base, g->n++, what);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(img->b, 1, len, f) != len) {
		fprintf(stderr, "gen_hostile: %s: %s\n", path, strerror(errno));
		g->err = 1;
	}
	if (f)
		fclose(f);
}

/* Copy base, let edit change it, write it. */
#define MUTATE(g, base, what, ...)                                                                 \
	do {                                                                                       \
		struct ld_img m_;                                                                  \
		if (ld_img_copy(base, &m_) == 0) {                                                 \
			struct ld_img *m = &m_;                                                    \
			__VA_ARGS__;                                                               \
			emit(g, what, m, m->n);                                                    \
			free(m_.b);                                                                \
		}                                                                                  \
	} while (0)

static void truncations(struct gen *g, struct ld_img *b)
{
	Elf64_Ehdr *eh = ld_img_ehdr(b);
	/* clang writes the section table last: any cut below its end loses part of
	 * it, so every cut here is refused */
	size_t end = eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (end != b->n)
		return;
	size_t cuts[] = {0, 1, 4, 16, 52, 63, 64};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
		emit(g, "trunc-ehdr", b, cuts[i]);
	for (size_t i = 0; i < eh->e_shnum; i++) {
		emit(g, "trunc-shdr", b, eh->e_shoff + i * sizeof(Elf64_Shdr));
		emit(g, "trunc-shdr-mid", b, eh->e_shoff + i * sizeof(Elf64_Shdr) + 20);
		Elf64_Shdr *sh = ld_img_shdr(b, i);
		if (i && sh->sh_type != SHT_NOBITS && sh->sh_offset < eh->e_shoff) {
			emit(g, "trunc-sec-start", b, sh->sh_offset);
			if (sh->sh_size > 1)
				emit(g, "trunc-sec-mid", b, sh->sh_offset + sh->sh_size / 2);
		}
	}
	emit(g, "trunc-last-byte", b, b->n - 1);
}

static void header_faults(struct gen *g, struct ld_img *b)
{
	static const uint8_t classes[] = {ELFCLASSNONE, ELFCLASS32, 3};
	static const uint8_t datas[] = {ELFDATANONE, ELFDATA2MSB, 7};
	static const uint16_t machines[] = {0, EM_386, EM_X86_64, EM_AARCH64, 0xffff};
	static const uint16_t types[] = {ET_NONE, ET_EXEC, ET_DYN, ET_CORE, 0xffff};
	for (size_t i = 0; i < sizeof classes; i++)
		MUTATE(g, b, "class", m->b[EI_CLASS] = classes[i]);
	for (size_t i = 0; i < sizeof datas; i++)
		MUTATE(g, b, "data", m->b[EI_DATA] = datas[i]);
	for (size_t i = 0; i < 4; i++)
		MUTATE(g, b, "magic", m->b[i] ^= 0x20);
	for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
		MUTATE(g, b, "machine", ld_img_ehdr(m)->e_machine = machines[i]);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		MUTATE(g, b, "type", ld_img_ehdr(m)->e_type = types[i]);
	Elf64_Ehdr *eh = ld_img_ehdr(b);
	uint64_t shoffs[] = {b->n, b->n - 1, 1ULL << 63, ~0ULL, b->n - 64};
	for (size_t i = 0; i < sizeof shoffs / sizeof shoffs[0]; i++)
		MUTATE(g, b, "shoff", ld_img_ehdr(m)->e_shoff = shoffs[i]);
	uint16_t shnums[] = {0, 0xffff, 0xff00, (uint16_t)(eh->e_shnum + 1),
			     (uint16_t)(eh->e_shnum + 1000)};
	for (size_t i = 0; i < sizeof shnums / sizeof shnums[0]; i++)
		MUTATE(g, b, "shnum", ld_img_ehdr(m)->e_shnum = shnums[i]);
	uint16_t ents[] = {0, 1, 40, 63, 65, 128};
	for (size_t i = 0; i < sizeof ents / sizeof ents[0]; i++)
		MUTATE(g, b, "shentsize", ld_img_ehdr(m)->e_shentsize = ents[i]);
	int prog = ld_img_sec(b, "sockops");
	uint16_t strs[] = {0, eh->e_shnum, 0xffff, (uint16_t)prog};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		MUTATE(g, b, "shstrndx", ld_img_ehdr(m)->e_shstrndx = strs[i]);
}

static void section_faults(struct gen *g, struct ld_img *b)
{
	Elf64_Ehdr *eh = ld_img_ehdr(b);
	for (size_t i = 1; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = ld_img_shdr(b, i);
		MUTATE(g, b, "sh-link", ld_img_shdr(m, i)->sh_link = eh->e_shnum);
		MUTATE(g, b, "sh-link-huge", ld_img_shdr(m, i)->sh_link = 0xffffffffu);
		if (sh->sh_type == SHT_NOBITS)
			continue;
		MUTATE(g, b, "sh-offset", ld_img_shdr(m, i)->sh_offset = m->n + 1);
		MUTATE(g, b, "sh-offset-huge", ld_img_shdr(m, i)->sh_offset = ~0ULL - 8);
		MUTATE(g, b, "sh-size", ld_img_shdr(m, i)->sh_size = m->n + 1);
		MUTATE(g, b, "sh-size-huge", ld_img_shdr(m, i)->sh_size = ~0ULL);
		if (sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) && sh->sh_size)
			for (uint64_t d = 1; d < 8; d++)
				MUTATE(g, b, "odd-prog", ld_img_shdr(m, i)->sh_size -= d);
		/* only relocations of code are ours; others (debug info) are skipped */
		if (sh->sh_type == SHT_REL && sh->sh_info < eh->e_shnum &&
		    (ld_img_shdr(b, sh->sh_info)->sh_flags & SHF_EXECINSTR)) {
			MUTATE(g, b, "rel-info", ld_img_shdr(m, i)->sh_info = 0);
			MUTATE(g, b, "rel-entsize", ld_img_shdr(m, i)->sh_entsize = 8);
			MUTATE(g, b, "rel-link", ld_img_shdr(m, i)->sh_link = 1);
		}
		if (sh->sh_type == SHT_SYMTAB) {
			MUTATE(g, b, "sym-entsize", ld_img_shdr(m, i)->sh_entsize = 16);
			MUTATE(g, b, "sym-size", ld_img_shdr(m, i)->sh_size -= 5);
		}
	}
	int lic = ld_img_sec(b, "license");
	if (lic > 0)
		MUTATE(
		    g, b, "license",
		    memset(ld_img_data(m, (size_t)lic), 'A', ld_img_shdr(m, (size_t)lic)->sh_size));
	int maps = ld_img_sec(b, "maps");
	if (maps > 0)
		MUTATE(g, b, "maps-size", ld_img_shdr(m, (size_t)maps)->sh_size = 12);
}

/* An insn of section s that is neither ld_imm64 (either half) nor a call. */
static long plain_insn(struct ld_img *b, int s)
{
	Elf64_Shdr *sh = ld_img_shdr(b, (size_t)s);
	const uint8_t *d = ld_img_data(b, (size_t)s);
	for (size_t i = 0; i < sh->sh_size / 8; i++) {
		if (d[i * 8] == LD64) {
			i++;
			continue;
		}
		if (d[i * 8] != CALL)
			return (long)i;
	}
	return -1;
}

static void reloc_faults(struct gen *g, struct ld_img *b)
{
	Elf64_Ehdr *eh = ld_img_ehdr(b);
	size_t nsyms = 0;
	for (size_t i = 1; i < eh->e_shnum; i++)
		if (ld_img_shdr(b, i)->sh_type == SHT_SYMTAB)
			nsyms = ld_img_shdr(b, i)->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 1; i < eh->e_shnum; i++) {
		Elf64_Shdr *rs = ld_img_shdr(b, i);
		if (rs->sh_type != SHT_REL)
			continue;
		Elf64_Shdr *ts = ld_img_shdr(b, rs->sh_info);
		if (!(ts->sh_flags & SHF_EXECINSTR))
			continue;
		long plain = plain_insn(b, (int)rs->sh_info);
		size_t n = rs->sh_size / sizeof(Elf64_Rel);
		for (size_t k = 0; k < n && k < 16; k++) {
#define REL(m) ((Elf64_Rel *)ld_img_data(m, i) + k)
			MUTATE(g, b, "rel-off-end", REL(m)->r_offset = ts->sh_size);
			MUTATE(g, b, "rel-off-huge", REL(m)->r_offset = ~0ULL);
			MUTATE(g, b, "rel-off-odd", REL(m)->r_offset += 4);
			if (plain >= 0)
				MUTATE(g, b, "rel-off-insn",
				       REL(m)->r_offset = (uint64_t)plain * 8);
			MUTATE(g, b, "rel-sym-range",
			       REL(m)->r_info = ELF64_R_INFO(nsyms, ELF64_R_TYPE(REL(m)->r_info)));
			MUTATE(g, b, "rel-sym-huge",
			       REL(m)->r_info =
				   ELF64_R_INFO(0xffffffu, ELF64_R_TYPE(REL(m)->r_info)));
			MUTATE(g, b, "rel-sym-null",
			       REL(m)->r_info = ELF64_R_INFO(0, ELF64_R_TYPE(REL(m)->r_info)));
			MUTATE(g, b, "rel-type",
			       REL(m)->r_info = ELF64_R_INFO(ELF64_R_SYM(REL(m)->r_info), 2));
			/* the relocated symbol points at no section or a bogus one */
			Elf64_Shdr *st = NULL;
			for (size_t s = 1; s < eh->e_shnum; s++)
				if (ld_img_shdr(b, s)->sh_type == SHT_SYMTAB)
					st = ld_img_shdr(b, s);
			size_t si = ELF64_R_SYM(REL(b)->r_info);
			if (st && si < nsyms) {
				size_t so = st->sh_offset + si * sizeof(Elf64_Sym);
				MUTATE(g, b, "sym-undef", ((Elf64_Sym *)(m->b + so))->st_shndx = 0);
				MUTATE(g, b, "sym-shndx",
				       ((Elf64_Sym *)(m->b + so))->st_shndx = SHN_LOPROC);
			}
			if (k + 1 < n)
				MUTATE(g, b, "rel-dup", REL(m)->r_offset = (REL(m) + 1)->r_offset);
#undef REL
		}
	}
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* .BTF.ext holds core_relo records (not only func and line info). */
static bool has_core(struct ld_img *b)
{
	int es = ld_img_sec(b, ".BTF.ext");
	if (es < 0)
		return false;
	const uint8_t *d = ld_img_data(b, (size_t)es);
	return rd32(d + 4) >= 32 && rd32(d + 28) != 0;
}

static void btf_faults(struct gen *g, struct ld_img *b)
{
	int bs = ld_img_sec(b, ".BTF");
	if (bs < 0 || (ld_img_sec(b, ".maps") < 0 && !has_core(b)))
		return; /* .BTF is read only for .maps and CO-RE */
	size_t off = ld_img_shdr(b, (size_t)bs)->sh_offset;
#define BTF(m) (m->b + off)
	MUTATE(g, b, "btf-magic", BTF(m)[0] ^= 0xff);
	MUTATE(g, b, "btf-version", BTF(m)[2] = 2);
	MUTATE(g, b, "btf-size", ld_img_shdr(m, (size_t)bs)->sh_size = 20);
	static const size_t fields[] = {4, 8, 12, 16, 20};
	for (size_t i = 0; i < 5; i++)
		MUTATE(g, b, "btf-hdr", memset(BTF(m) + fields[i], 0xf0, 4));
	/* string section not NUL-terminated */
	MUTATE(g, b, "btf-strs", {
		uint32_t hl = rd32(BTF(m) + 4), so = rd32(BTF(m) + 16), sl = rd32(BTF(m) + 20);
		BTF(m)[hl + so + sl - 1] = 'x';
	});
	/* every type record in turn gets an unknown kind or a huge vlen */
	uint32_t hl = rd32(BTF(b) + 4), to = rd32(BTF(b) + 8), tl = rd32(BTF(b) + 12);
	uint8_t *t = BTF(b) + hl + to;
	size_t pos = 0;
	for (unsigned id = 1; pos + 12 <= tl && id <= 64; id++) {
		uint32_t info = rd32(t + pos + 4), kind = (info >> 24) & 0x1f, vlen = info & 0xffff;
		size_t at = off + hl + to + pos + 4;
		MUTATE(g, b, "btf-kind", m->b[at + 3] = (uint8_t)((m->b[at + 3] & 0xe0) | 0x1f));
		if (kind == 4 || kind == 5 || kind == 15) /* struct, union, datasec */
			MUTATE(g, b, "btf-vlen", memset(m->b + at, 0xff, 2));
		MUTATE(g, b, "btf-name", memset(m->b + at - 4, 0xff, 4));
		size_t extra = kind == 1 || kind == 14 || kind == 17		    ? 4
			       : kind == 3					    ? 12
			       : kind == 4 || kind == 5 || kind == 15 || kind == 19 ? 12 * vlen
			       : kind == 6 || kind == 13			    ? 8 * vlen
										    : 0;
		pos += 12 + extra;
	}
#undef BTF
}

/* .BTF.ext's core_relo subsection (objects with CO-RE relocations): the
 * header, the record size, the section headers and every field of every
 * record out of range in turn. */
static void core_faults(struct gen *g, struct ld_img *b)
{
	int es = ld_img_sec(b, ".BTF.ext");
	if (es < 0)
		return;
	size_t ext = ld_img_shdr(b, (size_t)es)->sh_offset,
	       size = ld_img_shdr(b, (size_t)es)->sh_size;
	uint32_t hl = rd32(b->b + ext + 4);
	if (hl < 32 || rd32(b->b + ext + 28) == 0)
		return;
	size_t sub = ext + hl + rd32(b->b + ext + 24), end = sub + rd32(b->b + ext + 28);
	uint32_t rec = rd32(b->b + sub);
	if (end > ext + size || rec < 16)
		return;
	MUTATE(g, b, "ext-magic", m->b[ext] ^= 0xff);
	MUTATE(g, b, "ext-version", m->b[ext + 2] = 9);
	static const size_t hdr[] = {4, 24, 28};
	for (size_t i = 0; i < 3; i++)
		MUTATE(g, b, "ext-hdr", memset(m->b + ext + hdr[i], 0xf0, 4));
	MUTATE(g, b, "ext-recsize", memset(m->b + sub, 0, 4));
	MUTATE(g, b, "ext-recsize", m->b[sub] = 18);
	for (size_t at = sub + 4; at + 8 <= end;) {
		uint32_t num = rd32(b->b + at + 4);
		MUTATE(g, b, "ext-secname", memset(m->b + at, 0xff, 4));
		MUTATE(g, b, "ext-num", memset(m->b + at + 4, 0, 4));
		MUTATE(g, b, "ext-num", memset(m->b + at + 4, 0xff, 4));
		at += 8;
		for (uint32_t k = 0; k < num && at + rec <= end; k++, at += rec) {
			MUTATE(g, b, "ext-insn", m->b[at] |= 7);
			MUTATE(g, b, "ext-insn", memset(m->b + at, 0xf8, 4));
			MUTATE(g, b, "ext-type", memset(m->b + at + 4, 0xff, 4));
			MUTATE(g, b, "ext-access", memset(m->b + at + 8, 0xff, 4));
			MUTATE(g, b, "ext-kind", m->b[at + 12] = 0x40);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_hostile OUTDIR OBJ...\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		fprintf(stderr, "gen_hostile: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int err = 0;
	for (int a = 2; a < argc; a++) {
		struct ld_img b;
		if (ld_img_read(argv[a], &b)) {
			fprintf(stderr, "gen_hostile: cannot read %s\n", argv[a]);
			return 1;
		}
		const char *slash = strrchr(argv[a], '/');
		char base[256];
		snprintf(base, sizeof base, "%s", slash ? slash + 1 : argv[a]);
		char *dot = strchr(base, '.');
		if (dot)
			*dot = 0;
		struct gen g = {.dir = argv[1], .base = base};
		truncations(&g, &b);
		header_faults(&g, &b);
		section_faults(&g, &b);
		reloc_faults(&g, &b);
		btf_faults(&g, &b);
		core_faults(&g, &b);
		err |= g.err;
		printf("gen_hostile: %s: %u files\n", base, g.n);
		free(b.b);
	}
	return err;
}
