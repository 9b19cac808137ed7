/* vdiff: the structured-random program generator. A program is a prologue
 * (r6 = ctx, maybe a zeroed stack, three scalars in r7-r9), a few blocks of
 * the shapes that break verifiers, and an exit; callbacks and subprograms
 * follow the main body. The generator keeps a rough model of what each
 * register holds so most blocks are plausible programs, then bends them
 * at the edges (off-by-one bounds, JMP32 instead of JMP, a missing NULL
 * check, a narrow spill) where verifiers disagree. */
#include <linux/bpf.h>
#include <string.h>

#include "vdiff_gen.h"

static const char *const vd_shape_names[] = {
    "ctx",	  "alu",  "branch",  "spill", "ptr",	 "map",
    "helper_mem", "loop", "narrow0", "bloop", "subprog", "ringbuf",
};

const char *vd_shape_name(unsigned bit)
{
	return bit < sizeof vd_shape_names / sizeof vd_shape_names[0] ? vd_shape_names[bit] : "?";
}

uint64_t vd_rand(struct vd_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void prologue(struct vd_g *g, bool zero_stack)
{
	g->stack_init = zero_stack;
	if (zero_stack)
		for (int o = -8; o >= -128; o -= 8)
			vd_emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, o, 0);
	g->reg[10] = (struct vd_reg){.kind = K_FP};
}

static void epilogue(struct vd_g *g, int32_t lo, int32_t hi)
{
	struct vd_rng *r = g->r;
	if (vd_chance(r, 94)) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0,
			lo + (int32_t)vd_below(r, (uint32_t)(hi - lo + 1)));
	} else {
		int s = vd_get_scalar(g);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 0, s, 0, 0);
		if (vd_chance(r, 60))
			vd_emit(g, BPF_ALU64 | BPF_AND | BPF_K, 0, 0, 0, 1);
	}
	vd_emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* The body of a callee, placed at the end and linked from its call site. */
static void callee_body(struct vd_g *g, const struct vd_callee *ce)
{
	struct vd_prog *p = g->p;
	size_t start = p->n;
	/* call imm and ld_imm64 BPF_PSEUDO_FUNC imm: relative to the next insn */
	p->insns[ce->at].imm = (int32_t)(start - ce->at - 1);
	memset(g->reg, 0, sizeof g->reg);
	g->in_callee = true;
	g->ctx_ok = false;
	prologue(g, vd_chance(g->r, 50));
	struct vd_rng *r = g->r;
	int ctxreg = -1;
	if (ce->type == CE_SUBPROG) {
		g->reg[2].kind = K_SCALAR;
		if (ce->map) { /* ctx passed */
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
			g->reg[6].kind = K_CTX;
			g->ctx_ok = true;
		} else {
			g->reg[1] = (struct vd_reg){.kind = K_FP, .fpoff = ce->cbctx};
			ctxreg = 1;
		}
	} else if (ce->type == CE_LOOP) {
		g->reg[1].kind = K_SCALAR; /* index */
		if (ce->cbctx)
			g->reg[2] = (struct vd_reg){.kind = K_FP, .fpoff = ce->cbctx}, ctxreg = 2;
	} else {
		g->reg[1].kind = K_NONE; /* the map */
		g->reg[2].kind = K_FP;	 /* the key (helper memory) */
		g->reg[3] = (struct vd_reg){.kind = K_MAPVAL, .map = ce->map};
		if (ce->cbctx)
			g->reg[4] = (struct vd_reg){.kind = K_FP, .fpoff = ce->cbctx}, ctxreg = 4;
	}
	/* work on the caller's stack through the ctx pointer: 16 bytes from it */
	if (ctxreg >= 0) {
		int keep = 6 + (int)vd_below(r, 4);
		if (g->ctx_ok && keep == 6)
			keep = 7;
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, keep, ctxreg, 0, 0);
		g->reg[keep] = g->reg[ctxreg];
		int n = 1 + (int)vd_below(r, 3);
		for (int i = 0; i < n; i++) {
			int szi = vd_pick_size(g, 3);
			int off =
			    (int)vd_below(r, 16 + (vd_chance(r, 10) ? 40 : 0)) & ~((1 << szi) - 1);
			if (vd_chance(r, 40)) {
				int v = vd_get_scalar(g);
				size_t b = vd_bound(g, v, 16 - (1 << szi));
				int t = vd_pick_tmp(g);
				if (t == v)
					t = t % 5 + 1;
				vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, t, keep, 0, 0);
				vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, t, v, 0, 0);
				g->reg[t] = g->reg[keep];
				vd_access(g, t, 0, szi, false);
				vd_bound_end(g, b);
			} else {
				vd_access(g, keep, off, szi, false);
			}
		}
	}
	if (ce->type == CE_EACH && vd_chance(r, 80))
		vd_use_mapval(g, 3, vd_chance(r, 40) ? vd_get_scalar(g) : -1);
	int nb = (int)vd_below(r, 3);
	for (int i = 0; i < nb; i++)
		vd_block(g, 2);
	if (ce->type == CE_SUBPROG)
		epilogue(g, -2, 8);
	else
		epilogue(g, 0, vd_chance(r, 97) ? 1 : 2);
}

void vd_generate(struct vd_rng *r, uint32_t shapes, struct vd_prog *out)
{
	struct vd_g g;
	memset(&g, 0, sizeof g);
	g.p = out;
	g.r = r;
	g.shapes = shapes;
	out->n = 0;
	out->shapes = 0;
	vd_emit(&g, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	g.reg[6].kind = K_CTX;
	g.ctx_ok = true;
	prologue(&g, vd_chance(r, 55));
	for (int i = 7; i <= 9; i++) {
		uint32_t c = vd_below(r, 100);
		if (c < 50) {
			vd_load(&g, i, 6, 4 * (int)vd_below(r, 42), 2);
		} else if (c < 65) {
			vd_call_helper(&g, BPF_FUNC_get_prandom_u32);
			vd_emit(&g, BPF_ALU64 | BPF_MOV | BPF_X, i, 0, 0, 0);
		} else if (c < 85) {
			vd_emit(&g, BPF_ALU64 | BPF_MOV | BPF_K, i, 0, 0, (int32_t)vd_below(r, 40));
		} else {
			continue;
		}
		g.reg[i].kind = K_SCALAR;
	}
	int nb = 1 + (int)vd_below(r, 6);
	for (int i = 0; i < nb; i++)
		vd_block(&g, 0);
	epilogue(&g, 0, 1);
	/* callees may add callees of their own only if room remains; they do not */
	int n = g.ncallee;
	struct vd_callee ce[VD_MAX_CALLEES];
	memcpy(ce, g.callee, sizeof ce);
	for (int i = 0; i < n; i++)
		callee_body(&g, &ce[i]);
}
