/* Test helpers: read a BPF object into memory and locate ELF structures in it,
 * so tests and the hostile-corpus generator can corrupt one field at a time.
 * Only for objects we built; they assume a well-formed input. */
#ifndef SKOPS_TEST_LD_ELF_EDIT_H
#define SKOPS_TEST_LD_ELF_EDIT_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

struct ld_img {
	uint8_t *b;
	size_t n;
};

/* 0 or -errno; the caller frees img->b. */
int ld_img_read(const char *path, struct ld_img *img);
int ld_img_copy(const struct ld_img *src, struct ld_img *dst);
Elf64_Ehdr *ld_img_ehdr(struct ld_img *img);
Elf64_Shdr *ld_img_shdr(struct ld_img *img, size_t i);
/* Section index by name, or -1. */
int ld_img_sec(struct ld_img *img, const char *name);
uint8_t *ld_img_data(struct ld_img *img, size_t i);
/* The k-th relocation patching section `target`, or NULL. */
Elf64_Rel *ld_img_rel(struct ld_img *img, const char *target, size_t k);
/* Symbol by name, or NULL; *idx gets its index. */
Elf64_Sym *ld_img_sym(struct ld_img *img, const char *name, size_t *idx);

#endif
