/* CO-RE internals shared by loader_core.c (resolving and patching a
 * relocation), loader_core_ext.c (reading .BTF.ext's records at open) and
 * loader_core_spec.c (walking an access string through the local BTF and
 * matching it in a candidate type of the target BTF). */
#ifndef SKOPS_BPFVM_LOADER_CORE_INT_H
#define SKOPS_BPFVM_LOADER_CORE_INT_H

#include "loader_int.h"

/* enum bpf_core_relo_kind, in libbpf's numbering (the .BTF.ext records') */
enum {
	LD_CORE_FIELD_BYTE_OFFSET = 0,
	LD_CORE_FIELD_BYTE_SIZE,
	LD_CORE_FIELD_EXISTS,
	LD_CORE_FIELD_SIGNED,
	LD_CORE_FIELD_LSHIFT_U64,
	LD_CORE_FIELD_RSHIFT_U64,
	LD_CORE_TYPE_ID_LOCAL,
	LD_CORE_TYPE_ID_TARGET,
	LD_CORE_TYPE_EXISTS,
	LD_CORE_TYPE_SIZE,
	LD_CORE_ENUMVAL_EXISTS,
	LD_CORE_ENUMVAL_VALUE,
	LD_CORE_TYPE_MATCHES,
	LD_CORE_NKINDS
};

extern const char *const ld_core_kind_names[LD_CORE_NKINDS];

static inline bool ld_core_is_field(uint32_t k)
{
	return k <= LD_CORE_FIELD_RSHIFT_U64;
}

static inline bool ld_core_is_type(uint32_t k)
{
	return k >= LD_CORE_TYPE_ID_LOCAL && k <= LD_CORE_TYPE_SIZE;
}

static inline bool ld_core_is_enumval(uint32_t k)
{
	return k == LD_CORE_ENUMVAL_EXISTS || k == LD_CORE_ENUMVAL_VALUE;
}

static inline bool ld_core_is_composite(const uint8_t *t)
{
	uint32_t k = bpfvm_btf_kind(t);
	return k == BPFVM_BTF_K_STRUCT || k == BPFVM_BTF_K_UNION;
}

static inline bool ld_core_is_any_enum(uint32_t k)
{
	return k == BPFVM_BTF_K_ENUM || k == BPFVM_BTF_K_ENUM64;
}

/* Where an access spec lands: bit offset from the root pointer, the field's
 * type, its bitfield width (0: a whole field) and a C-like path for messages. */
struct ld_core_field {
	uint32_t root;
	uint64_t bit_off;
	uint32_t type;
	uint32_t bitfield;
	char path[128];
};

/* "tcp_sock___v2" and "tcp_sock" name the same type (flavors). */
bool ld_core_same_essential(const char *a, const char *b);
/* f->path = the C name of type id, as messages start it */
void ld_core_root_path(const struct bpfvm_btf *btf, uint32_t id, struct ld_core_field *f);
/* The spec walked through the object's own BTF (bpf_core_parse_spec). */
int ld_core_local_walk(const struct bpfvm_btf *btf, const struct ld_core_relo *r,
		       struct ld_core_field *f, char *why, size_t n);
/* The local spec matched in candidate cand of the target (bpf_core_spec_match):
 * 0, or -ENOENT with why saying where it stops matching. */
int ld_core_target_walk(const struct bpfvm_btf *lb, const struct ld_core_relo *r,
			const struct bpfvm_btf *tb, uint32_t cand, struct ld_core_field *f,
			char *why, size_t n);

#endif
