/* tagtool --tag OBJ [SECTION]: the tags bpfvm computes for the program of an
 * ELF object, one line per hash ("sha1 <16 hex>", "sha256 <16 hex>"), for
 * test_tag_kernel.sh to compare with the kernel's. */
#include <stdio.h>
#include <string.h>

#include "loader_int.h"

static void print_tag(const char *what, const uint8_t tag[BPFVM_TAG_SIZE])
{
	printf("%s ", what);
	for (int i = 0; i < BPFVM_TAG_SIZE; i++)
		printf("%02x", tag[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4 || strcmp(argv[1], "--tag") != 0) {
		fprintf(stderr, "usage: tagtool --tag OBJ [SECTION]\n");
		return 2;
	}
	char buf[4096] = "";
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof buf};
	struct bpfvm_registry *reg;
	struct bpfvm_obj *obj;
	if (bpfvm_registry_create(&reg) || bpfvm_obj_open(reg, argv[2], NULL, 0, &log, &obj)) {
		fprintf(stderr, "tagtool: %s", buf);
		return 1;
	}
	const struct ld_prog *p = NULL;
	for (size_t i = 0; i < obj->nprogs && !p; i++)
		if (argc == 3 || strcmp(obj->progs[i].section, argv[3]) == 0)
			p = &obj->progs[i];
	if (!p) {
		fprintf(stderr, "tagtool: %s: no program section %s\n", argv[2],
			argc == 4 ? argv[3] : "");
		return 1;
	}
	uint8_t tag[BPFVM_TAG_SIZE];
	bpfvm_prog_tag(p->insns, p->ninsns, tag);
	print_tag("sha1", tag);
	bpfvm_prog_tag_sha256(p->insns, p->ninsns, tag);
	print_tag("sha256", tag);
	bpfvm_obj_close(obj);
	bpfvm_registry_destroy(reg);
	return 0;
}
