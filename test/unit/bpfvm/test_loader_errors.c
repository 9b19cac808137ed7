/* ELF loader, refusals: every rejection path of a hostile or malformed
 * object (header, sections, maps, relocations, externs, BTF map definitions)
 * with its return code and log line, and a byte sweep of the ELF header and
 * section table. The "errors" case of test_loader. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "ld_elf_edit.h"
#include "ld_fixture.h"
#include "loader_int.h"

#define CALL (BPF_JMP | BPF_CALL)

static struct ld_img img_of(const char *name)
{
	struct ld_img img;
	ck_assert_int_eq(ld_img_read(obj_path(name), &img), 0);
	return img;
}

/* The buffer must be refused with rc and a log line holding want. */
static void reject(struct ld_img *img, int rc, const char *want)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = (void *)1;
	log_reset();
	int got = bpfvm_obj_open(reg, NULL, img->b, img->n, &lg, &o);
	ck_assert_msg(got == rc, "rc %d, want %d (%s)", got, rc, logbuf);
	ck_assert_ptr_null(o);
	ck_assert_msg(strstr(logbuf, want) != NULL, "log '%s' lacks '%s'", logbuf, want);
	ck_assert_msg(strncmp(logbuf, "loader: <memory>: ", 18) == 0, "log '%s'", logbuf);
	/* nothing stays registered after a failed open */
	uint32_t next;
	ck_assert_int_eq(bpfvm_map_get_next_id(reg, 0, &next), -ENOENT);
	bpfvm_registry_destroy(reg);
	free(img->b);
}

START_TEST(btf_map_bad_defs)
{
	struct ld_img img = img_of("btf_bad_field");
	reject(&img, -EINVAL, "section '.maps': map 'odd': unsupported field 'colour'");
	img = img_of("btf_bad_size");
	reject(&img, -EINVAL,
	       "section '.maps': map 'clash': key/value size disagrees with its type");
}
END_TEST

START_TEST(extern_rejected)
{
	struct ld_img img = img_of("extern");
	reject(&img, -EINVAL,
	       "section 'sockops': insn 0: relocation 0: unknown symbol "
	       "'missing_config'");
}
END_TEST

START_TEST(open_errors)
{
	struct bpfvm_obj *o = (void *)1;
	log_reset();
	ck_assert_int_eq(bpfvm_obj_open(NULL, "/nonexistent/x.o", NULL, 0, &lg, &o), -ENOENT);
	ck_assert_str_eq(logbuf,
			 "loader: /nonexistent/x.o: cannot open: No such file or directory\n");
	ck_assert_int_eq(bpfvm_obj_open(NULL, NULL, NULL, 0, &lg, &o), -EINVAL);
	log_reset();
	ck_assert_int_eq(bpfvm_obj_open(NULL, "/", NULL, 0, &lg, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(logbuf, "not a regular file"));
}
END_TEST

START_TEST(header_errors)
{
	struct ld_img base = img_of("legacy_maps"), m;
	ld_img_copy(&base, &m);
	m.n = 10;
	reject(&m, -ENOEXEC, "truncated ELF header (10 bytes)");
	ld_img_copy(&base, &m);
	m.b[1] = 'X';
	reject(&m, -ENOEXEC, "not an ELF file");
	ld_img_copy(&base, &m);
	m.b[EI_CLASS] = ELFCLASS32;
	reject(&m, -ENOEXEC, "not a 64-bit ELF (class 1)");
	ld_img_copy(&base, &m);
	m.b[EI_DATA] = ELFDATA2MSB;
	reject(&m, -ENOEXEC, "not a little-endian ELF (data 2)");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_machine = EM_X86_64;
	reject(&m, -ENOEXEC, "e_machine 62 is not EM_BPF");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_type = ET_EXEC;
	reject(&m, -ENOEXEC, "e_type 2 is not a relocatable object");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shoff = m.n;
	reject(&m, -ENOEXEC, "past the end of the file");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shnum = 0xffff;
	reject(&m, -ENOEXEC, "unsupported section count 65535");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shnum = 0;
	reject(&m, -ENOEXEC, "unsupported section count 0");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shnum += 200; /* table runs past the end */
	reject(&m, -ENOEXEC, "past the end of the file");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shentsize = 32;
	reject(&m, -ENOEXEC, "section header size 32");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shstrndx = 999;
	reject(&m, -ENOEXEC, "section name table index 999 out of range");
	ld_img_copy(&base, &m);
	ld_img_ehdr(&m)->e_shstrndx = (uint16_t)ld_img_sec(&m, "sockops");
	reject(&m, -ENOEXEC, "is not a string table");
	free(base.b);
}
END_TEST

START_TEST(section_errors)
{
	struct ld_img base = img_of("legacy_maps"), m;
	int prog = ld_img_sec(&base, "sockops");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_offset = m.n - 4;
	reject(&m, -ENOEXEC, "past the end of the file");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_size = 1ULL << 62;
	reject(&m, -ENOEXEC, "past the end of the file");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_link = 5000;
	reject(&m, -ENOEXEC, "sh_link 5000 out of range");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_size -= 4;
	reject(&m, -EINVAL, "section 'sockops': size");
	ck_assert_ptr_nonnull(strstr(logbuf, "is not a multiple of 8"));
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_name = 0xfffffff;
	reject(&m, -EINVAL, "name offset 268435455 out of range");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)prog)->sh_flags &= ~(uint64_t)SHF_EXECINSTR;
	reject(&m, -EINVAL, "no program sections");
	ld_img_copy(&base, &m);
	int lic = ld_img_sec(&m, "license");
	memcpy(ld_img_data(&m, (size_t)lic), "GPLX", 4);
	reject(&m, -EINVAL, "section 'license': license is not a NUL-terminated string");
	ld_img_copy(&base, &m);
	int st = ld_img_sec(&m, ".symtab");
	ld_img_shdr(&m, (size_t)st)->sh_entsize = 20;
	reject(&m, -EINVAL, "section '.symtab': bad symbol entry size 20");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)st)->sh_link = (uint32_t)prog;
	reject(&m, -EINVAL, "is not a string table");
	free(base.b);
}
END_TEST

START_TEST(map_errors)
{
	struct ld_img base = img_of("legacy_maps"), m;
	int ms = ld_img_sec(&base, "maps");
	Elf64_Sym *s = ld_img_sym(&base, "op_hash", NULL);
	ck_assert_ptr_nonnull(s);
	size_t off = s->st_value;
	ld_img_copy(&base, &m);
	memset(ld_img_data(&m, (size_t)ms) + off + 12, 0, 4); /* max_entries 0 */
	reject(&m, -EINVAL,
	       "section 'maps': map 'op_hash': type 1 key 4 value 8 max_entries 0 "
	       "flags 0x0: invalid definition (EINVAL)");
	ld_img_copy(&base, &m);
	uint32_t big = 0x7fffffff;
	memcpy(ld_img_data(&m, (size_t)ms) + off + 8, &big, 4);
	reject(&m, -EINVAL, "too large (E2BIG)");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)ms)->sh_size = 12;
	reject(&m, -EINVAL, "cannot split 12 bytes into 2 map definitions");
	ld_img_copy(&base, &m);
	ld_img_sym(&m, "op_hash", NULL)->st_value = 4;
	reject(&m, -EINVAL, "map 'op_hash': offset 4 is not a definition boundary");
	free(base.b);

	base = img_of("btf_maps");
	int btf = ld_img_sec(&base, ".BTF");
	ld_img_copy(&base, &m);
	ld_img_data(&m, (size_t)btf)[0] = 0;
	reject(&m, -EINVAL, "section '.BTF': bad magic");
	ld_img_copy(&base, &m);
	uint32_t huge = 0xfffffff0;
	memcpy(ld_img_data(&m, (size_t)btf) + 12, &huge, 4); /* type_len */
	reject(&m, -EINVAL, "type or string section outside the data");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)btf)->sh_size = 10;
	reject(&m, -EINVAL, "section '.BTF': truncated header");
	ld_img_copy(&base, &m);
	memcpy(ld_img_shdr(&m, (size_t)btf), ld_img_shdr(&m, 0), sizeof(Elf64_Shdr));
	reject(&m, -EINVAL, "section '.maps': needs .BTF and a symbol table");
	/* a type record whose kind is unknown */
	ld_img_copy(&base, &m);
	uint8_t *bd = ld_img_data(&m, (size_t)btf);
	uint32_t hl, to;
	memcpy(&hl, bd + 4, 4);
	memcpy(&to, bd + 8, 4);
	bd[hl + to + 7] = 0x1f; /* kind bits of type 1 */
	reject(&m, -EINVAL, "section '.BTF': type 1: unknown kind 31");
	free(base.b);
}
END_TEST

START_TEST(reloc_errors)
{
	struct ld_img base = img_of("legacy_maps"), m;
	ld_img_copy(&base, &m);
	ld_img_rel(&m, "sockops", 0)->r_offset = 1u << 20;
	reject(&m, -EINVAL,
	       "section 'sockops': relocation 0: offset 1048576 outside the section or "
	       "misaligned");
	ld_img_copy(&base, &m);
	ld_img_rel(&m, "sockops", 0)->r_offset += 3;
	reject(&m, -EINVAL, "outside the section or misaligned");
	ld_img_copy(&base, &m);
	Elf64_Rel *r = ld_img_rel(&m, "sockops", 0);
	r->r_info = ELF64_R_INFO(100000, ELF64_R_TYPE(r->r_info));
	reject(&m, -EINVAL, "relocation 0: symbol index 100000 out of range");
	ld_img_copy(&base, &m);
	ld_img_rel(&m, "sockops", 0)->r_offset = 0; /* insn 0 is r1 = *(u32 *)(r1 + 0) */
	reject(&m, -EINVAL,
	       "section 'sockops': insn 0: relocation 0: insn 0x61 is neither "
	       "ld_imm64 nor call");
	ld_img_copy(&base, &m);
	r = ld_img_rel(&m, "sockops", 0);
	r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), R_BPF_64_32);
	reject(&m, -EINVAL, "relocation 0: type 10 on ld_imm64");
	ld_img_copy(&base, &m);
	r = ld_img_rel(&m, "sockops", 0);
	ld_img_rel(&m, "sockops", 1)->r_offset = r->r_offset;
	reject(&m, -EINVAL, "relocation 1: second relocation of this insn");
	/* the relocation names a symbol outside maps, data and code */
	ld_img_copy(&base, &m);
	size_t lic_sym;
	ck_assert_ptr_nonnull(ld_img_sym(&m, "_license", &lic_sym));
	r = ld_img_rel(&m, "sockops", 0);
	r->r_info = ELF64_R_INFO(lic_sym, R_BPF_64_64);
	reject(&m, -EINVAL, "symbol '_license' in section 'license' is not a map, data or code");
	/* a reloc section whose symbol table link is wrong */
	ld_img_copy(&base, &m);
	int rs = ld_img_sec(&m, ".relsockops");
	ld_img_shdr(&m, (size_t)rs)->sh_link = 1;
	reject(&m, -EINVAL, "section '.relsockops': sh_link 1 is not the symbol table");
	ld_img_copy(&base, &m);
	ld_img_shdr(&m, (size_t)rs)->sh_info = 0;
	reject(&m, -EINVAL, "section '.relsockops': sh_info 0 is not a section");
	/* relocations dropped: a map ld_imm64 with src set cannot be trusted */
	ld_img_copy(&base, &m);
	size_t at = ld_img_rel(&m, "sockops", 0)->r_offset;
	ld_img_shdr(&m, (size_t)rs)->sh_info = (uint32_t)ld_img_sec(&m, "license");
	struct bpfvm_insn *in = (void *)(ld_img_data(&m, (size_t)ld_img_sec(&m, "sockops")) + at);
	in->src = BPF_PSEUDO_MAP_FD;
	char want[64];
	snprintf(want, sizeof want, "insn %zu: ld_imm64 with src 1 but no relocation", at / 8);
	reject(&m, -EINVAL, want);
	free(base.b);

	base = img_of("subprog");
	int text = ld_img_sec(&base, ".text");
	ld_img_copy(&base, &m);
	/* mid's pc-relative call to leaf (insn 6 of .text) now jumps far away */
	in = (void *)(ld_img_data(&m, (size_t)text) + 6 * 8);
	ck_assert_uint_eq(in->code, CALL);
	in->imm = 100;
	reject(&m, -EINVAL, "section '.text': insn 6: call target 107 outside section '.text'");
	ld_img_copy(&base, &m);
	in = (void *)(ld_img_data(&m, (size_t)ld_img_sec(&m, "sockops")) + 8);
	in->src = 0; /* R_BPF_64_32 on a helper call */
	reject(&m, -EINVAL, "insn 1: relocation 0: call with relocation type 10 src 0");
	ld_img_copy(&base, &m);
	ld_img_sym(&m, "unused_func", NULL)->st_size = 0;
	ld_img_sym(&m, "mid", NULL)->st_info = ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE);
	reject(&m, -EINVAL, "is inside no function");
	free(base.b);
}
END_TEST

/* Every single-byte change of the ELF header and section table either loads
 * or is refused with a message; nothing crashes (the ASan build runs this). */
START_TEST(header_byte_sweep)
{
	struct ld_img base = img_of("global_data");
	Elf64_Ehdr *eh = ld_img_ehdr(&base);
	size_t shoff = eh->e_shoff, shlen = (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
	static const uint8_t vals[] = {0x00, 0xff, 0x01, 0x80, 0x7f};
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	size_t tried = 0, refused = 0;
	for (size_t pos = 0; pos < sizeof(Elf64_Ehdr) + shlen; pos++) {
		size_t at = pos < sizeof(Elf64_Ehdr) ? pos : shoff + pos - sizeof(Elf64_Ehdr);
		for (size_t v = 0; v < sizeof vals; v++) {
			if (base.b[at] == vals[v])
				continue;
			uint8_t old = base.b[at];
			base.b[at] = vals[v];
			struct bpfvm_obj *o = NULL;
			log_reset();
			int rc = bpfvm_obj_open(reg, NULL, base.b, base.n, &lg, &o);
			base.b[at] = old;
			tried++;
			if (rc) {
				refused++;
				ck_assert_msg(rc == -EINVAL || rc == -ENOEXEC || rc == -ENOMEM,
					      "rc %d", rc);
				ck_assert_msg(strncmp(logbuf, "loader: ", 8) == 0,
					      "byte %zu = 0x%02x: rc %d without message", at,
					      vals[v], rc);
			}
			bpfvm_obj_close(o);
		}
	}
	ck_assert_uint_gt(refused, tried / 4);
	uint32_t next;
	ck_assert_int_eq(bpfvm_map_get_next_id(reg, 0, &next), -ENOENT);
	bpfvm_registry_destroy(reg);
	free(base.b);
}
END_TEST

TCase *loader_errors_tcase(void)
{
	TCase *te = tcase_create("errors");
	tcase_set_timeout(te, 60);
	tcase_add_test(te, extern_rejected);
	tcase_add_test(te, btf_map_bad_defs);
	tcase_add_test(te, open_errors);
	tcase_add_test(te, header_errors);
	tcase_add_test(te, section_errors);
	tcase_add_test(te, map_errors);
	tcase_add_test(te, reloc_errors);
	tcase_add_test(te, header_byte_sweep);
	return te;
}
