/* CO-RE internals shared by loader_core.c (resolving and patching a
 * relocation), loader_core_ext.c (reading .BTF.ext's records at open) and
 * loader_core_spec.c (walking an access string through the local BTF and
 * matching it in a candidate type of the target BTF). */
#ifndef SKOPS_BPFVM_LOADER_CORE_INT_H
#define SKOPS_BPFVM_LOADER_CORE_INT_H

#include "loader_int.h"

enum {
	CORE_FIELD_BYTE_OFFSET = 0,
	CORE_FIELD_BYTE_SIZE,
	CORE_FIELD_EXISTS,
	CORE_FIELD_SIGNED,
	CORE_FIELD_LSHIFT_U64,
	CORE_FIELD_RSHIFT_U64,
	CORE_TYPE_ID_LOCAL,
	CORE_TYPE_ID_TARGET,
	CORE_TYPE_EXISTS,
	CORE_TYPE_SIZE,
	CORE_ENUMVAL_EXISTS,
	CORE_ENUMVAL_VALUE,
	CORE_TYPE_MATCHES,
	CORE_NKINDS
};

extern const char *const ld_core_kind_names[CORE_NKINDS];

#define rd32 bpfvm_btf_rd32

static inline bool is_field(uint32_t k)
{
	return k <= CORE_FIELD_RSHIFT_U64;
}

static inline bool is_type(uint32_t k)
{
	return k >= CORE_TYPE_ID_LOCAL && k <= CORE_TYPE_SIZE;
}

static inline bool is_enumval(uint32_t k)
{
	return k == CORE_ENUMVAL_EXISTS || k == CORE_ENUMVAL_VALUE;
}

static inline bool is_composite(const uint8_t *t)
{
	uint32_t k = bpfvm_btf_kind(t);
	return k == BPFVM_BTF_K_STRUCT || k == BPFVM_BTF_K_UNION;
}

static inline bool is_any_enum(uint32_t k)
{
	return k == BPFVM_BTF_K_ENUM || k == BPFVM_BTF_K_ENUM64;
}

/* Where an access spec lands: bit offset from the root pointer, the field's
 * type, its bitfield width (0: a whole field) and a C-like path for messages. */
struct core_field {
	uint32_t root;
	uint64_t bit_off;
	uint32_t type;
	uint32_t bitfield;
	char path[128];
};

/* "tcp_sock___v2" and "tcp_sock" name the same type (flavors). */
bool ld_core_same_essential(const char *a, const char *b);
/* f->path = the C name of type id, as messages start it */
void ld_core_root_path(const struct bpfvm_btf *btf, uint32_t id, struct core_field *f);
/* The spec walked through the object's own BTF (bpf_core_parse_spec). */
int ld_core_local_walk(const struct bpfvm_btf *btf, const struct ld_core_relo *r,
		       struct core_field *f, char *why, size_t n);
/* The local spec matched in candidate cand of the target (bpf_core_spec_match):
 * 0, or -ENOENT with why saying where it stops matching. */
int ld_core_target_walk(const struct bpfvm_btf *lb, const struct ld_core_relo *r,
			const struct bpfvm_btf *tb, uint32_t cand, struct core_field *f, char *why,
			size_t n);

#endif
