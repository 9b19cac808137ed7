/* vdiff's generator: emitting insns, and the rough model of what each
 * register holds that keeps most generated programs plausible (scalars
 * from ctx or prandom, bounds, pointer uses at the edges of what is legal).
 * The block shapes built from these are vdiff_gen_blocks.c's. */
#include <linux/bpf.h>
#include <string.h>

#include "vdiff_gen.h"

void vd_emit(struct vd_g *g, uint8_t code, int dst, int src, int off, int32_t imm)
{
	struct vd_prog *p = g->p;
	if (p->n >= VD_MAX_INSNS)
		return; /* the caller's budget check keeps this unreachable */
	p->insns[p->n++] = (struct bpfvm_insn){.code = code,
					       .dst = (uint8_t)dst,
					       .src = (uint8_t)src,
					       .off = (int16_t)off,
					       .imm = imm};
}

size_t vd_jmp_fwd(struct vd_g *g, uint8_t code, int dst, int src, int32_t imm)
{
	size_t at = g->p->n;
	vd_emit(g, code, dst, src, 0, imm);
	return at;
}

void vd_patch(struct vd_g *g, size_t at)
{
	g->p->insns[at].off = (int16_t)(g->p->n - at - 1);
}

void vd_ld_imm64(struct vd_g *g, int dst, int src, int32_t imm, int32_t imm2)
{
	vd_emit(g, BPF_LD | BPF_IMM | BPF_DW, dst, src, 0, imm);
	vd_emit(g, 0, 0, 0, 0, imm2);
}

const uint8_t vd_sz[4] = {BPF_B, BPF_H, BPF_W, BPF_DW};

int vd_pick_size(struct vd_g *g, int likely)
{
	return vd_chance(g->r, 70) ? likely : (int)vd_below(g->r, 4);
}

void vd_load(struct vd_g *g, int dst, int base, int off, int szi)
{
	vd_emit(g, BPF_LDX | BPF_MEM | vd_sz[szi], dst, base, off, 0);
	g->reg[dst] = (struct vd_reg){.kind = K_SCALAR};
}

void vd_store(struct vd_g *g, int base, int off, int szi, int src)
{
	if (src < 0)
		vd_emit(g, BPF_ST | BPF_MEM | vd_sz[szi], base, 0, off,
			vd_chance(g->r, 50) ? 0 : (int32_t)vd_rand(g->r));
	else
		vd_emit(g, BPF_STX | BPF_MEM | vd_sz[szi], base, src, off, 0);
}

/* After a call r1-r5 are gone and r0 holds a scalar. */
void vd_clobber(struct vd_g *g)
{
	for (int i = 0; i <= 5; i++)
		g->reg[i] = (struct vd_reg){.kind = K_NONE};
	g->reg[0].kind = K_SCALAR;
}

void vd_call_helper(struct vd_g *g, int32_t id)
{
	vd_emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, id);
	vd_clobber(g);
}

/* A register to write: callee-saved most of the time so values survive calls. */
int vd_pick_dst(struct vd_g *g)
{
	if (g->ctx_ok)
		return vd_chance(g->r, 70) ? 7 + (int)vd_below(g->r, 3) : (int)vd_below(g->r, 6);
	return vd_chance(g->r, 70) ? 6 + (int)vd_below(g->r, 4) : (int)vd_below(g->r, 6);
}

int vd_pick_tmp(struct vd_g *g)
{
	return 1 + (int)vd_below(g->r, 5);
}

int vd_find_kind(struct vd_g *g, uint8_t kind)
{
	int start = (int)vd_below(g->r, 10);
	for (int i = 0; i < 10; i++) {
		int r = (start + i) % 10;
		if (g->reg[r].kind == kind)
			return r;
	}
	return -1;
}

/* A ctx field offset and size a sock_ops program might read. */
void vd_ctx_field(struct vd_g *g, int *off, int *szi)
{
	static const int u64_offs[] = {168, 176};
	uint32_t c = vd_below(g->r, 100);
	if (c < 70) {
		*off = 4 * (int)vd_below(g->r, 42); /* op .. sk_txhash */
		*szi = vd_pick_size(g, 2);
	} else if (c < 85) {
		*off = u64_offs[vd_below(g->r, 2)];
		*szi = vd_pick_size(g, 3);
	} else if (c < 92) {
		*off = 208 + (int)vd_below(g->r, 8); /* skb_len, skb_tcp_flags: narrow */
		*szi = (int)vd_below(g->r, 3);
	} else {
		*off = (int)vd_below(g->r, 224); /* anything, also past the end */
		*szi = (int)vd_below(g->r, 4);
	}
}

/* A scalar in some register, making one from ctx, prandom or an immediate. */
int vd_get_scalar(struct vd_g *g)
{
	int r = vd_find_kind(g, K_SCALAR);
	if (r >= 0 && r != 0 && vd_chance(g->r, 70))
		return r;
	r = vd_pick_dst(g);
	if (vd_chance(g->r, 50) && g->ctx_ok) {
		int off, szi;
		vd_ctx_field(g, &off, &szi);
		if (off % (1 << szi))
			off &= ~((1 << szi) - 1);
		vd_load(g, r, 6, off, szi);
	} else {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, r, 0, 0, (int32_t)vd_below(g->r, 64) - 8);
	}
	g->reg[r] = (struct vd_reg){.kind = K_SCALAR};
	return r;
}

/* Jump ops for bounds: the forms a compiler emits and the odd ones. */
const uint8_t vd_jops[] = {BPF_JGT,  BPF_JGE,  BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE,
			   BPF_JSLT, BPF_JSLE, BPF_JEQ, BPF_JNE, BPF_JSET};

/* Bound reg into [0, max] (mostly): AND with a mask, or a branch around the
 * code emitted by the caller (returns the insn to patch, or SIZE_MAX). The
 * bound is sometimes off by one, JMP32-only, or signed one-sided. */
size_t vd_bound(struct vd_g *g, int reg, int max)
{
	struct vd_rng *r = g->r;
	if (vd_chance(r, 10))
		max++;
	uint32_t c = vd_below(r, 100);
	if (c < 35) {
		int mask = 1;
		while (mask * 2 - 1 <= max)
			mask *= 2;
		mask--;
		vd_emit(g, (vd_chance(r, 25) ? BPF_ALU : BPF_ALU64) | BPF_AND | BPF_K, reg, 0, 0,
			mask);
		return SIZE_MAX;
	}
	uint8_t cls = vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP;
	if (c < 75)
		return vd_jmp_fwd(g, cls | BPF_JGT | BPF_K, reg, 0, max);
	if (c < 85) {
		/* signed: "if r > max || r < 0" needs both; one side sometimes */
		size_t neg = SIZE_MAX;
		if (vd_chance(r, 80))
			neg = vd_jmp_fwd(g, cls | BPF_JSLT | BPF_K, reg, 0, 0);
		size_t big = vd_jmp_fwd(g, cls | BPF_JSGT | BPF_K, reg, 0, max);
		if (neg != SIZE_MAX) {
			/* both skip the same code: chain them to one target */
			vd_emit(g, BPF_JMP | BPF_JA, 0, 0, 1, 0);
			vd_patch(g, neg);
			vd_emit(g, BPF_JMP | BPF_JA, 0, 0, 0, 0); /* retargeted below */
			g->p->insns[big].off = (int16_t)(g->p->n - 1 - big - 1);
			return g->p->n - 1;
		}
		return big;
	}
	/* a bound by another register holding the limit */
	int lim = vd_pick_tmp(g);
	if (lim == reg)
		lim = lim % 5 + 1;
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, lim, 0, 0, max);
	g->reg[lim] = (struct vd_reg){.kind = K_SCALAR};
	return vd_jmp_fwd(g, cls | BPF_JGT | BPF_X, reg, lim, 0);
}

void vd_bound_end(struct vd_g *g, size_t at)
{
	if (at != SIZE_MAX)
		vd_patch(g, at);
}

/* ---- pointer use -------------------------------------------------------- */

/* Access through ptr at off: a load into a fresh register, a store, or an atomic add. */
void vd_access(struct vd_g *g, int ptr, int off, int szi, bool ctx)
{
	struct vd_rng *r = g->r;
	uint32_t c = vd_below(r, 100);
	if (c < 55 || (ctx && c < 85)) {
		int dst = vd_pick_dst(g);
		vd_load(g, dst, ptr, off, szi);
	} else if (c < 90 || ctx) {
		int src = vd_chance(r, 40) ? -1 : vd_get_scalar(g);
		/* now and then a pointer (ctx, the frame): a leak only a
		 * privileged loader may make, and only into map values */
		if (vd_chance(r, 10))
			src = g->ctx_ok && vd_chance(r, 50) ? 6 : 10;
		vd_store(g, ptr, off, szi, src);
	} else {
		int src = vd_get_scalar(g);
		int sz = vd_chance(r, 50) ? BPF_DW : BPF_W;
		static const int32_t ops[] = {
		    BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG};
		int32_t op = ops[vd_below(r, sizeof ops / sizeof ops[0])];
		if (op == BPF_CMPXCHG)
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
		vd_emit(g, BPF_STX | BPF_ATOMIC | sz, ptr, src, off, op);
		if (op & BPF_FETCH)
			g->reg[op == BPF_CMPXCHG ? 0 : src].kind = K_SCALAR;
	}
}

/* The stack region a pointer use lands in: fp-64..fp-1 (zeroed or not). */
void vd_use_stack(struct vd_g *g, int var)
{
	int p = vd_pick_tmp(g);
	if (p == var)
		p = p % 5 + 1;
	/* byte accesses half the time: a variable offset is rarely aligned */
	int szi = var >= 0 && vd_chance(g->r, 50) ? 0 : vd_pick_size(g, 3);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 10, 0, 0);
	vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, -64);
	g->reg[p] = (struct vd_reg){.kind = K_FP, .fpoff = -64};
	size_t b = SIZE_MAX;
	if (var >= 0) {
		b = vd_bound(g, var, 64 - (1 << szi));
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	}
	vd_access(g, p, var >= 0 ? 0 : (int)vd_below(g->r, 64), szi, false);
	vd_bound_end(g, b);
}

void vd_use_mapval(struct vd_g *g, int ptr, int var)
{
	uint32_t vs = vd_map_defs[g->reg[ptr].map].value_size;
	int szi = vd_pick_size(g, vs >= 8 ? 3 : 2);
	int size = 1 << szi;
	if (var < 0) {
		int off = (int)vd_below(g->r, vs) & ~(size - 1);
		if (vd_chance(g->r, 10))
			off = (int)vs - size +
			      (int)vd_below(g->r, 2) * (vd_chance(g->r, 50) ? 1 : size);
		vd_access(g, ptr, off, szi, false);
		return;
	}
	int p = vd_pick_tmp(g);
	if (p == var || p == ptr)
		p = (p + (p == var ? 1 : 2)) % 5 + 1;
	if (p == var || p == ptr)
		p = 0;
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, ptr, 0, 0);
	g->reg[p] = g->reg[ptr];
	size_t b = vd_bound(g, var, (int)vs - size);
	vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	vd_access(g, p, 0, szi, false);
	vd_bound_end(g, b);
}

/* ctx with a constant or variable offset: skops allows the former, no one
 * the latter. */
static void vd_use_ctx(struct vd_g *g, int var)
{
	if (!g->ctx_ok)
		return;
	int p = vd_pick_tmp(g);
	if (p == var)
		p = p % 5 + 1;
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 6, 0, 0);
	g->reg[p] = (struct vd_reg){.kind = K_CTX};
	size_t b = SIZE_MAX;
	if (var >= 0) {
		b = vd_bound(g, var, 16);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	} else {
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, 4 * (int)vd_below(g->r, 8));
	}
	vd_access(g, p, 0, 2, true);
	vd_bound_end(g, b);
}

/* Use a scalar as an offset into whatever pointer is at hand. */
void vd_use_offset(struct vd_g *g, int var)
{
	int mv = vd_find_kind(g, K_MAPVAL);
	uint32_t c = vd_below(g->r, 100);
	if (mv >= 0 && c < 45)
		vd_use_mapval(g, mv, var);
	else if (c < 85 || !g->ctx_ok)
		vd_use_stack(g, var);
	else
		vd_use_ctx(g, var);
}
