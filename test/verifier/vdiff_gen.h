/* vdiff's generator internals, shared by vdiff_gen.c (the program: prologue,
 * blocks, epilogue, callee bodies), vdiff_gen_emit.c (emitting insns and the
 * model of what each register holds) and vdiff_gen_blocks.c (the block
 * shapes that break verifiers). */
#ifndef SKOPS_TEST_VDIFF_GEN_H
#define SKOPS_TEST_VDIFF_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vdiff.h"

#define VD_BODY_LIMIT  320 /* stop adding blocks past this many insns */
#define VD_MAX_CALLEES 4

enum vd_kind { K_NONE, K_SCALAR, K_CTX, K_FP, K_MAPVAL };

struct vd_reg {
	uint8_t kind;
	uint8_t map;   /* K_MAPVAL */
	int16_t fpoff; /* K_FP: offset from r10 */
};

enum vd_callee_type { CE_LOOP, CE_EACH, CE_SUBPROG };

struct vd_callee {
	size_t at; /* ld_imm64 (callbacks) or call insn (subprograms) to patch */
	uint8_t type;
	uint8_t map;	 /* CE_EACH: the map iterated; CE_SUBPROG: 1 if r1 is ctx */
	int16_t cbctx;	 /* offset from the caller's r10 of the ctx it passed, 0 = NULL */
	bool stack_init; /* the caller's stack was zeroed in its prologue */
};

struct vd_g {
	struct vd_prog *p;
	struct vd_rng *r;
	uint32_t shapes;
	struct vd_reg reg[11];
	bool ctx_ok;	 /* r6 holds ctx in this function */
	bool stack_init; /* fp-128..fp-1 zeroed at entry */
	bool in_callee;
	struct vd_callee callee[VD_MAX_CALLEES];
	int ncallee;
};

/* BPF_B..BPF_DW by size index; the jump ops bounds use */
extern const uint8_t vd_sz[4];
extern const uint8_t vd_jops[11];

/* vdiff_gen_emit.c */
void vd_emit(struct vd_g *g, uint8_t code, int dst, int src, int off, int32_t imm);
size_t vd_jmp_fwd(struct vd_g *g, uint8_t code, int dst, int src, int32_t imm);
void vd_patch(struct vd_g *g, size_t at);
void vd_ld_imm64(struct vd_g *g, int dst, int src, int32_t imm, int32_t imm2);
int vd_pick_size(struct vd_g *g, int likely);
void vd_load(struct vd_g *g, int dst, int base, int off, int szi);
void vd_store(struct vd_g *g, int base, int off, int szi, int src);
void vd_clobber(struct vd_g *g);
void vd_call_helper(struct vd_g *g, int32_t id);
int vd_pick_dst(struct vd_g *g);
int vd_pick_tmp(struct vd_g *g);
int vd_find_kind(struct vd_g *g, uint8_t kind);
void vd_ctx_field(struct vd_g *g, int *off, int *szi);
int vd_get_scalar(struct vd_g *g);
size_t vd_bound(struct vd_g *g, int reg, int max);
void vd_bound_end(struct vd_g *g, size_t at);
void vd_access(struct vd_g *g, int ptr, int off, int szi, bool ctx);
void vd_use_stack(struct vd_g *g, int var);
void vd_use_mapval(struct vd_g *g, int ptr, int var);
void vd_use_offset(struct vd_g *g, int var);

/* vdiff_gen_blocks.c: one block of a shape the program's shapes allow */
void vd_block(struct vd_g *g, int depth);

#endif
