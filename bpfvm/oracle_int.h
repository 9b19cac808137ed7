/* Oracle internals shared by oracle.c (tags, regions, instructions) and
 * oracle_helper.c (helper calls). The interpreter sees oracle.h only. */
#ifndef SKOPS_BPFVM_ORACLE_INT_H
#define SKOPS_BPFVM_ORACLE_INT_H

#include "oracle.h"

static inline struct oracle_tag oracle_tag_of(uint8_t kind, uint16_t idx)
{
	return (struct oracle_tag){.kind = kind, .idx = idx};
}

static inline bool oracle_is_ptr(struct oracle_tag t)
{
	return t.kind != OK_SCALAR;
}

/* the spilled tag of the 8-byte stack slot holding addr */
static inline struct oracle_tag *oracle_slot_of(struct oracle *o, uint64_t addr)
{
	return &o->slot[(addr - o->stack) / 8];
}

/* Records the first violation (at ip, NULL: before any insn); false. */
bool oracle_fail(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* What t points to, for messages. */
const char *oracle_tag_name(const struct oracle *o, struct oracle_tag t);
/* A region for [base, base+size); an equal live one is reused. -1 when the
 * table is full. */
int oracle_region_add(struct oracle *o, uint8_t kind, uint64_t base, uint64_t size,
		      const struct bpfvm_map *map, bool ro);
/* The program may not write m's values. */
bool oracle_map_ro(const struct bpfvm_map *m);
/* May [addr, addr+size) be read (write=false) or written through a pointer
 * tagged t? false: a violation, recorded naming what. */
bool oracle_access_ok(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		      struct oracle_tag t, uint64_t addr, uint64_t size, bool write, uint32_t depth,
		      const char *what);

#endif
