/* See ld_elf_edit.h. */
#include "ld_elf_edit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ld_img_read(const char *path, struct ld_img *img)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	img->b = NULL;
	img->n = 0;
	size_t cap = 0;
	for (;;) {
		if (img->n == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(img->b, cap);
			if (!nb) {
				fclose(f);
				return -ENOMEM;
			}
			img->b = nb;
		}
		size_t r = fread(img->b + img->n, 1, cap - img->n, f);
		if (r == 0)
			break;
		img->n += r;
	}
	fclose(f);
	return 0;
}

int ld_img_copy(const struct ld_img *src, struct ld_img *dst)
{
	dst->b = malloc(src->n ? src->n : 1);
	if (!dst->b)
		return -ENOMEM;
	memcpy(dst->b, src->b, src->n);
	dst->n = src->n;
	return 0;
}

Elf64_Ehdr *ld_img_ehdr(struct ld_img *img)
{
	return (Elf64_Ehdr *)img->b;
}

Elf64_Shdr *ld_img_shdr(struct ld_img *img, size_t i)
{
	return (Elf64_Shdr *)(img->b + ld_img_ehdr(img)->e_shoff) + i;
}

uint8_t *ld_img_data(struct ld_img *img, size_t i)
{
	return img->b + ld_img_shdr(img, i)->sh_offset;
}

int ld_img_sec(struct ld_img *img, const char *name)
{
	Elf64_Ehdr *eh = ld_img_ehdr(img);
	const char *strs = (const char *)ld_img_data(img, eh->e_shstrndx);
	for (size_t i = 1; i < eh->e_shnum; i++)
		if (strcmp(strs + ld_img_shdr(img, i)->sh_name, name) == 0)
			return (int)i;
	return -1;
}

Elf64_Rel *ld_img_rel(struct ld_img *img, const char *target, size_t k)
{
	int t = ld_img_sec(img, target);
	Elf64_Ehdr *eh = ld_img_ehdr(img);
	for (size_t i = 1; t > 0 && i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = ld_img_shdr(img, i);
		if (sh->sh_type == SHT_REL && sh->sh_info == (unsigned)t) {
			if (k >= sh->sh_size / sizeof(Elf64_Rel))
				return NULL;
			return (Elf64_Rel *)ld_img_data(img, i) + k;
		}
	}
	return NULL;
}

Elf64_Sym *ld_img_sym(struct ld_img *img, const char *name, size_t *idx)
{
	Elf64_Ehdr *eh = ld_img_ehdr(img);
	for (size_t i = 1; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = ld_img_shdr(img, i);
		if (sh->sh_type != SHT_SYMTAB)
			continue;
		const char *strs = (const char *)ld_img_data(img, sh->sh_link);
		Elf64_Sym *syms = (Elf64_Sym *)ld_img_data(img, i);
		for (size_t k = 0; k < sh->sh_size / sizeof(*syms); k++)
			if (strcmp(strs + syms[k].st_name, name) == 0) {
				if (idx)
					*idx = k;
				return &syms[k];
			}
	}
	return NULL;
}
