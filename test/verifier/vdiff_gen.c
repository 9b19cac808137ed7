/* vdiff: the structured-random program generator. A program is a prologue
 * (r6 = ctx, maybe a zeroed stack, three scalars in r7-r9), a few blocks of
 * the shapes that break verifiers, and an exit; callbacks and subprograms
 * follow the main body. The generator keeps a rough model of what each
 * register holds so most blocks are plausible programs, then bends them
 * at the edges (off-by-one bounds, JMP32 instead of JMP, a missing NULL
 * check, a narrow spill) where verifiers disagree. */
#include <linux/bpf.h>
#include <string.h>

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

/* ---- emission ----------------------------------------------------------- */

static void emit(struct vd_g *g, uint8_t code, int dst, int src, int off, int32_t imm)
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

static size_t jmp_fwd(struct vd_g *g, uint8_t code, int dst, int src, int32_t imm)
{
	size_t at = g->p->n;
	emit(g, code, dst, src, 0, imm);
	return at;
}

static void patch(struct vd_g *g, size_t at)
{
	g->p->insns[at].off = (int16_t)(g->p->n - at - 1);
}

static void ld_imm64(struct vd_g *g, int dst, int src, int32_t imm, int32_t imm2)
{
	emit(g, BPF_LD | BPF_IMM | BPF_DW, dst, src, 0, imm);
	emit(g, 0, 0, 0, 0, imm2);
}

static const uint8_t vd_sz[4] = {BPF_B, BPF_H, BPF_W, BPF_DW};

static int pick_size(struct vd_g *g, int likely)
{
	return vd_chance(g->r, 70) ? likely : (int)vd_below(g->r, 4);
}

static void load(struct vd_g *g, int dst, int base, int off, int szi)
{
	emit(g, BPF_LDX | BPF_MEM | vd_sz[szi], dst, base, off, 0);
	g->reg[dst] = (struct vd_reg){.kind = K_SCALAR};
}

static void store(struct vd_g *g, int base, int off, int szi, int src)
{
	if (src < 0)
		emit(g, BPF_ST | BPF_MEM | vd_sz[szi], base, 0, off,
		     vd_chance(g->r, 50) ? 0 : (int32_t)vd_rand(g->r));
	else
		emit(g, BPF_STX | BPF_MEM | vd_sz[szi], base, src, off, 0);
}

/* After a call r1-r5 are gone and r0 holds a scalar. */
static void clobber(struct vd_g *g)
{
	for (int i = 0; i <= 5; i++)
		g->reg[i] = (struct vd_reg){.kind = K_NONE};
	g->reg[0].kind = K_SCALAR;
}

static void call_helper(struct vd_g *g, int32_t id)
{
	emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, id);
	clobber(g);
}

/* A register to write: callee-saved most of the time so values survive calls. */
static int pick_dst(struct vd_g *g)
{
	if (g->ctx_ok)
		return vd_chance(g->r, 70) ? 7 + (int)vd_below(g->r, 3) : (int)vd_below(g->r, 6);
	return vd_chance(g->r, 70) ? 6 + (int)vd_below(g->r, 4) : (int)vd_below(g->r, 6);
}

static int pick_tmp(struct vd_g *g)
{
	return 1 + (int)vd_below(g->r, 5);
}

static int find_kind(struct vd_g *g, uint8_t kind)
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
static void ctx_field(struct vd_g *g, int *off, int *szi)
{
	static const int u64_offs[] = {168, 176};
	uint32_t c = vd_below(g->r, 100);
	if (c < 70) {
		*off = 4 * (int)vd_below(g->r, 42); /* op .. sk_txhash */
		*szi = pick_size(g, 2);
	} else if (c < 85) {
		*off = u64_offs[vd_below(g->r, 2)];
		*szi = pick_size(g, 3);
	} else if (c < 92) {
		*off = 208 + (int)vd_below(g->r, 8); /* skb_len, skb_tcp_flags: narrow */
		*szi = (int)vd_below(g->r, 3);
	} else {
		*off = (int)vd_below(g->r, 224); /* anything, also past the end */
		*szi = (int)vd_below(g->r, 4);
	}
}

/* A scalar in some register, making one from ctx, prandom or an immediate. */
static int get_scalar(struct vd_g *g)
{
	int r = find_kind(g, K_SCALAR);
	if (r >= 0 && r != 0 && vd_chance(g->r, 70))
		return r;
	r = pick_dst(g);
	if (vd_chance(g->r, 50) && g->ctx_ok) {
		int off, szi;
		ctx_field(g, &off, &szi);
		if (off % (1 << szi))
			off &= ~((1 << szi) - 1);
		load(g, r, 6, off, szi);
	} else {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, r, 0, 0, (int32_t)vd_below(g->r, 64) - 8);
	}
	g->reg[r] = (struct vd_reg){.kind = K_SCALAR};
	return r;
}

/* Jump ops for bounds: the forms a compiler emits and the odd ones. */
static const uint8_t vd_jops[] = {BPF_JGT,  BPF_JGE,  BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE,
				  BPF_JSLT, BPF_JSLE, BPF_JEQ, BPF_JNE, BPF_JSET};

/* Bound reg into [0, max] (mostly): AND with a mask, or a branch around the
 * code emitted by the caller (returns the insn to patch, or SIZE_MAX). The
 * bound is sometimes off by one, JMP32-only, or signed one-sided. */
static size_t bound(struct vd_g *g, int reg, int max)
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
		emit(g, (vd_chance(r, 25) ? BPF_ALU : BPF_ALU64) | BPF_AND | BPF_K, reg, 0, 0,
		     mask);
		return SIZE_MAX;
	}
	uint8_t cls = vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP;
	if (c < 75)
		return jmp_fwd(g, cls | BPF_JGT | BPF_K, reg, 0, max);
	if (c < 85) {
		/* signed: "if r > max || r < 0" needs both; one side sometimes */
		size_t neg = SIZE_MAX;
		if (vd_chance(r, 80))
			neg = jmp_fwd(g, cls | BPF_JSLT | BPF_K, reg, 0, 0);
		size_t big = jmp_fwd(g, cls | BPF_JSGT | BPF_K, reg, 0, max);
		if (neg != SIZE_MAX) {
			/* both skip the same code: chain them to one target */
			emit(g, BPF_JMP | BPF_JA, 0, 0, 1, 0);
			patch(g, neg);
			emit(g, BPF_JMP | BPF_JA, 0, 0, 0, 0); /* retargeted below */
			g->p->insns[big].off = (int16_t)(g->p->n - 1 - big - 1);
			return g->p->n - 1;
		}
		return big;
	}
	/* a bound by another register holding the limit */
	int lim = pick_tmp(g);
	if (lim == reg)
		lim = lim % 5 + 1;
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, lim, 0, 0, max);
	g->reg[lim] = (struct vd_reg){.kind = K_SCALAR};
	return jmp_fwd(g, cls | BPF_JGT | BPF_X, reg, lim, 0);
}

static void bound_end(struct vd_g *g, size_t at)
{
	if (at != SIZE_MAX)
		patch(g, at);
}

/* ---- pointer use -------------------------------------------------------- */

/* Access through ptr at off: a load into a fresh register, a store, or an atomic add. */
static void access(struct vd_g *g, int ptr, int off, int szi, bool ctx)
{
	struct vd_rng *r = g->r;
	uint32_t c = vd_below(r, 100);
	if (c < 55 || (ctx && c < 85)) {
		int dst = pick_dst(g);
		load(g, dst, ptr, off, szi);
	} else if (c < 90 || ctx) {
		int src = vd_chance(r, 40) ? -1 : get_scalar(g);
		/* now and then a pointer (ctx, the frame): a leak only a
		 * privileged loader may make, and only into map values */
		if (vd_chance(r, 10))
			src = g->ctx_ok && vd_chance(r, 50) ? 6 : 10;
		store(g, ptr, off, szi, src);
	} else {
		int src = get_scalar(g);
		int sz = vd_chance(r, 50) ? BPF_DW : BPF_W;
		static const int32_t ops[] = {
		    BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG};
		int32_t op = ops[vd_below(r, sizeof ops / sizeof ops[0])];
		if (op == BPF_CMPXCHG)
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
		emit(g, BPF_STX | BPF_ATOMIC | sz, ptr, src, off, op);
		if (op & BPF_FETCH)
			g->reg[op == BPF_CMPXCHG ? 0 : src].kind = K_SCALAR;
	}
}

/* The stack region a pointer use lands in: fp-64..fp-1 (zeroed or not). */
static void use_stack(struct vd_g *g, int var)
{
	int p = pick_tmp(g);
	if (p == var)
		p = p % 5 + 1;
	/* byte accesses half the time: a variable offset is rarely aligned */
	int szi = var >= 0 && vd_chance(g->r, 50) ? 0 : pick_size(g, 3);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 10, 0, 0);
	emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, -64);
	g->reg[p] = (struct vd_reg){.kind = K_FP, .fpoff = -64};
	size_t b = SIZE_MAX;
	if (var >= 0) {
		b = bound(g, var, 64 - (1 << szi));
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	}
	access(g, p, var >= 0 ? 0 : (int)vd_below(g->r, 64), szi, false);
	bound_end(g, b);
}

static void use_mapval(struct vd_g *g, int ptr, int var)
{
	uint32_t vs = vd_map_defs[g->reg[ptr].map].value_size;
	int szi = pick_size(g, vs >= 8 ? 3 : 2);
	int size = 1 << szi;
	if (var < 0) {
		int off = (int)vd_below(g->r, vs) & ~(size - 1);
		if (vd_chance(g->r, 10))
			off = (int)vs - size +
			      (int)vd_below(g->r, 2) * (vd_chance(g->r, 50) ? 1 : size);
		access(g, ptr, off, szi, false);
		return;
	}
	int p = pick_tmp(g);
	if (p == var || p == ptr)
		p = (p + (p == var ? 1 : 2)) % 5 + 1;
	if (p == var || p == ptr)
		p = 0;
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, ptr, 0, 0);
	g->reg[p] = g->reg[ptr];
	size_t b = bound(g, var, (int)vs - size);
	emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	access(g, p, 0, szi, false);
	bound_end(g, b);
}

/* ctx with a constant or variable offset: skops allows the former, no one
 * the latter. */
static void use_ctx(struct vd_g *g, int var)
{
	if (!g->ctx_ok)
		return;
	int p = pick_tmp(g);
	if (p == var)
		p = p % 5 + 1;
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 6, 0, 0);
	g->reg[p] = (struct vd_reg){.kind = K_CTX};
	size_t b = SIZE_MAX;
	if (var >= 0) {
		b = bound(g, var, 16);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, var, 0, 0);
	} else {
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, 4 * (int)vd_below(g->r, 8));
	}
	access(g, p, 0, 2, true);
	bound_end(g, b);
}

/* Use a scalar as an offset into whatever pointer is at hand. */
static void use_offset(struct vd_g *g, int var)
{
	int mv = find_kind(g, K_MAPVAL);
	uint32_t c = vd_below(g->r, 100);
	if (mv >= 0 && c < 45)
		use_mapval(g, mv, var);
	else if (c < 85 || !g->ctx_ok)
		use_stack(g, var);
	else
		use_ctx(g, var);
}

/* ---- blocks ------------------------------------------------------------- */

static void block(struct vd_g *g, int depth);

static void b_ctx(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	if (!g->ctx_ok)
		return;
	uint32_t c = vd_below(r, 100);
	if (c < 50) {
		int off, szi;
		ctx_field(g, &off, &szi);
		load(g, pick_dst(g), 6, off, szi);
	} else if (c < 80) {
		static const int offs[] = {4, 4, 4, 8, 12, 16, 164, 164, 0, 20, 88, 184};
		int off = offs[vd_below(r, sizeof offs / sizeof offs[0])];
		store(g, 6, off, pick_size(g, 2), vd_chance(r, 50) ? -1 : get_scalar(g));
	} else {
		/* ctx->sk: socket-or-NULL, read through after a NULL check */
		int s = pick_dst(g);
		load(g, s, 6, 184, 3);
		g->reg[s].kind = K_NONE;
		size_t j = SIZE_MAX;
		if (vd_chance(r, 90))
			j = jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, s, 0, 0);
		int off = 4 * (int)vd_below(r, 20), szi = pick_size(g, 2);
		if (vd_chance(r, 20))
			off += (int)vd_below(r, 4);
		load(g, pick_dst(g), s, off, szi);
		if (j != SIZE_MAX)
			patch(g, j);
	}
	g->p->shapes |= VD_SH_CTX;
}

static void b_alu(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int dst = get_scalar(g);
	int n = 1 + (int)vd_below(r, 4);
	for (int i = 0; i < n; i++) {
		bool is32 = vd_chance(r, 35);
		uint8_t cls = is32 ? BPF_ALU : BPF_ALU64;
		uint32_t c = vd_below(r, 100);
		if (c < 12) {
			/* byte swaps: ALU-class END at every width, ALU64 bswap */
			static const int32_t w[] = {16, 32, 64};
			uint8_t src = vd_chance(r, 50) ? BPF_TO_BE : BPF_TO_LE;
			if (vd_chance(r, 30))
				emit(g, BPF_ALU64 | BPF_END, dst, 0, 0, w[vd_below(r, 3)]);
			else
				emit(g, BPF_ALU | BPF_END | src, dst, 0, 0, w[vd_below(r, 3)]);
			if (vd_chance(r, 30))
				break; /* the swap's width decides the use below */
		} else if (c < 20) {
			/* movsx */
			static const int offs[] = {8, 16, 32};
			int o = offs[vd_below(r, is32 ? 2 : 3)];
			emit(g, cls | BPF_MOV | BPF_X, dst, get_scalar(g), o, 0);
		} else if (c < 27) {
			/* sdiv/smod (off 1), by a constant or a register */
			uint8_t op = vd_chance(r, 50) ? BPF_DIV : BPF_MOD;
			if (vd_chance(r, 50))
				emit(g, cls | op | BPF_K, dst, 0, 1,
				     vd_chance(r, 20) ? -1 : 1 + (int32_t)vd_below(r, 5));
			else
				emit(g, cls | op | BPF_X, dst, get_scalar(g), 1, 0);
		} else if (c < 35) {
			emit(g, cls | BPF_NEG, dst, 0, 0, 0);
		} else {
			static const uint8_t ops[] = {BPF_ADD, BPF_SUB, BPF_MUL,  BPF_DIV,
						      BPF_MOD, BPF_OR,	BPF_AND,  BPF_XOR,
						      BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MOV};
			uint8_t op = ops[vd_below(r, sizeof ops / sizeof ops[0])];
			bool shift = op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH;
			if (vd_chance(r, 65)) {
				int32_t imm = (int32_t)vd_rand(r);
				if (shift)
					imm = (int32_t)vd_below(r, is32 ? 33 : 65);
				else if (vd_chance(r, 70))
					imm = (int32_t)vd_below(r, 256) - 16;
				if ((op == BPF_DIV || op == BPF_MOD) && imm == 0)
					imm = 7;
				emit(g, cls | op | BPF_K, dst, 0, 0, imm);
			} else {
				int src = get_scalar(g);
				emit(g, cls | op | BPF_X, dst, src, 0, 0);
			}
		}
		g->reg[dst].kind = K_SCALAR;
	}
	if (vd_chance(r, 70))
		use_offset(g, dst);
	g->p->shapes |= VD_SH_ALU;
}

/* if/else on a scalar, blocks inside: paths pruning may merge. Sometimes
 * each side leaves a different constant or pointer in one register used
 * after the join. */
static void b_branch(struct vd_g *g, int depth)
{
	struct vd_rng *r = g->r;
	int s = get_scalar(g);
	uint8_t cls = vd_chance(r, 35) ? BPF_JMP32 : BPF_JMP;
	uint8_t op = vd_jops[vd_below(r, sizeof vd_jops)];
	size_t j;
	if (vd_chance(r, 30))
		j = jmp_fwd(g, cls | op | BPF_X, s, get_scalar(g), 0);
	else
		j = jmp_fwd(g, cls | op | BPF_K, s, 0, (int32_t)vd_below(r, 64) - 4);
	struct vd_reg saved[11];
	memcpy(saved, g->reg, sizeof saved);
	bool merge_val = vd_chance(r, 40);
	int m = 7 + (int)vd_below(r, 3);
	int kinds = (int)vd_below(r, 4);
	/* then */
	if (merge_val) {
		if (kinds == 0 || !g->ctx_ok)
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, m, 0, 0, (int32_t)vd_below(r, 24));
		else if (kinds == 1)
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, 6, 0, 0);
		else
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, s, 0, 0);
	} else {
		block(g, depth + 1);
	}
	struct vd_reg then_regs[11];
	memcpy(then_regs, g->reg, sizeof then_regs);
	size_t skip = SIZE_MAX;
	if (vd_chance(r, 70)) {
		skip = jmp_fwd(g, BPF_JMP | BPF_JA, 0, 0, 0);
		patch(g, j);
		memcpy(g->reg, saved, sizeof saved);
		if (merge_val) {
			if (vd_chance(r, 50))
				emit(g, BPF_ALU64 | BPF_MOV | BPF_K, m, 0, 0,
				     (int32_t)vd_below(r, 24));
			else {
				emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, 10, 0, 0);
				emit(g, BPF_ALU64 | BPF_ADD | BPF_K, m, 0, 0, -64);
			}
		} else {
			block(g, depth + 1);
		}
		patch(g, skip);
	} else {
		patch(g, j);
	}
	/* join: what both sides agree on survives */
	for (int i = 0; i < 11; i++)
		if (then_regs[i].kind != g->reg[i].kind ||
		    (skip == SIZE_MAX && saved[i].kind != then_regs[i].kind))
			g->reg[i].kind = K_NONE;
	if (merge_val) {
		uint32_t c = vd_below(r, 3);
		if (c == 0)
			use_offset(g, m);
		else if (c == 1)
			access(g, m, 0, 2, false); /* deref whatever the join left */
		else
			g->reg[m].kind = K_SCALAR, use_stack(g, m);
		g->reg[m].kind = K_NONE;
	}
	g->p->shapes |= VD_SH_BRANCH;
}

/* Spill a pointer or scalar at some size, maybe clobber part of the slot or
 * call a helper in between, fill at the same or another size and offset. */
static void b_spill(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int x;
	uint32_t c = vd_below(r, 4);
	if (c == 0 && g->ctx_ok)
		x = 6;
	else if (c == 1 && (x = find_kind(g, K_MAPVAL)) >= 0)
		;
	else if (c == 2) {
		x = pick_tmp(g);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, x, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, x, 0, 0, -8 * (int)vd_below(r, 8));
		g->reg[x] = (struct vd_reg){.kind = K_FP};
	} else
		x = get_scalar(g);
	struct vd_reg xk = g->reg[x];
	int szi = vd_chance(r, 65) ? 3 : (int)vd_below(r, 3);
	int off = -8 * (1 + (int)vd_below(r, 12));
	if (szi < 3)
		off += (1 << szi) * (int)vd_below(r, 8 >> szi);
	store(g, 10, off, szi, x);
	if (vd_chance(r, 15))
		store(g, 10, off + (int)vd_below(r, 8), (int)vd_below(r, 3),
		      vd_chance(r, 50) ? -1 : get_scalar(g));
	if (vd_chance(r, 20))
		call_helper(g, BPF_FUNC_get_prandom_u32);
	int fszi = vd_chance(r, 70) ? szi : (int)vd_below(r, 4);
	int foff = vd_chance(r, 80) ? off : off + (int)vd_below(r, 8) - 4;
	int y = pick_dst(g);
	load(g, y, 10, foff, fszi);
	if (fszi == 3 && szi == 3 && foff == off && xk.kind != K_SCALAR)
		g->reg[y] = xk;
	uint32_t u = vd_below(r, 3);
	if (g->reg[y].kind == K_MAPVAL)
		use_mapval(g, y, vd_chance(r, 50) ? get_scalar(g) : -1);
	else if (g->reg[y].kind == K_CTX || g->reg[y].kind == K_FP || u == 0)
		access(g, y, 0, 2, g->reg[y].kind == K_CTX);
	else if (u == 1)
		use_offset(g, y);
	g->p->shapes |= VD_SH_SPILL;
}

static void b_ptr(struct vd_g *g)
{
	int v = vd_chance(g->r, 80) ? get_scalar(g) : -1;
	if (vd_chance(g->r, 30)) {
		/* a direct map value: ld_imm64 src 2 */
		/* Linux allows direct values only in single-entry arrays */
		int m = vd_chance(g->r, 20) ? VD_MAP_ARRAY : VD_MAP_SMALL;
		int p = 7 + (int)vd_below(g->r, 3);
		if (p == v)
			p = 7 + (p - 6) % 3;
		ld_imm64(g, p, BPF_PSEUDO_MAP_VALUE, m,
			 (int32_t)vd_below(g->r, vd_map_defs[m].value_size + 2) & ~3);
		g->reg[p] = (struct vd_reg){.kind = K_MAPVAL, .map = (uint8_t)m};
		/* the value offset makes the pointer's room smaller; a near miss is fine */
		use_mapval(g, p, v);
	} else {
		use_offset(g, v);
	}
	g->p->shapes |= VD_SH_PTR;
}

/* Key at fp-8 (4 or 8 bytes): an immediate, a scalar, or nothing (uninit). */
static void map_key(struct vd_g *g, int m)
{
	int ks = (int)vd_map_defs[m].key_size;
	uint32_t c = vd_below(g->r, 100);
	if (c < 60 || (c < 95 && g->stack_init))
		emit(g, BPF_ST | BPF_MEM | (ks == 8 ? BPF_DW : BPF_W), 10, 0, -8,
		     (int32_t)vd_below(g->r, 6));
	else if (c < 95)
		store(g, 10, -8, ks == 8 ? 3 : 2, get_scalar(g));
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, vd_chance(g->r, 95) ? -8 : -4);
}

static void b_map(struct vd_g *g, int depth)
{
	struct vd_rng *r = g->r;
	int m = (int)vd_below(r, 3);
	uint32_t c = vd_below(r, 100);
	if (c < 25) {
		/* update: value at fp-64.. (48, 16 or 8 bytes), initialised or not */
		int vs = (int)vd_map_defs[m].value_size;
		int at = vd_chance(r, 90) ? -64 : -40;
		if (!g->stack_init || vd_chance(r, 30))
			for (int o = 0; o < vs; o += 8)
				if (vd_chance(r, 95))
					store(g, 10, at + o, 3,
					      vd_chance(r, 50) ? -1 : get_scalar(g));
		map_key(g, m);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, at);
		ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, (int32_t)vd_below(r, 3));
		call_helper(g, BPF_FUNC_map_update_elem);
	} else if (c < 32) {
		map_key(g, m);
		ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		call_helper(g, BPF_FUNC_map_delete_elem);
	} else {
		map_key(g, m);
		ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		call_helper(g, BPF_FUNC_map_lookup_elem);
		int v = vd_chance(r, 85) ? 7 + (int)vd_below(r, 3) : 0;
		if (v)
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, v, 0, 0, 0);
		size_t j = SIZE_MAX;
		uint32_t nc = vd_below(r, 100);
		if (nc < 80)
			j = jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 0);
		else if (nc < 88)
			j = jmp_fwd(g, BPF_JMP32 | BPF_JEQ | BPF_K, v, 0, 0);
		else if (nc < 95) {
			/* "if (p != NULL)" form */
			emit(g, BPF_JMP | BPF_JNE | BPF_K, v, 0, 1, 0);
			j = jmp_fwd(g, BPF_JMP | BPF_JA, 0, 0, 0);
		}
		g->reg[v] = (struct vd_reg){.kind = K_MAPVAL, .map = (uint8_t)m};
		int n = 1 + (int)vd_below(r, 3);
		for (int i = 0; i < n && g->reg[v].kind == K_MAPVAL; i++) {
			if (v == 0 || vd_chance(r, 60))
				use_mapval(g, v, vd_chance(r, 50) ? get_scalar(g) : -1);
			else
				block(g, depth + 1);
			if (v == 0)
				break;
		}
		if (j != SIZE_MAX)
			patch(g, j);
		g->reg[v].kind = K_NONE;
		if (vd_chance(r, 4))
			access(g, v, 0, 2, false); /* after the join: maybe NULL */
	}
	g->p->shapes |= VD_SH_MAP;
}

/* A size argument for mem helpers: a constant, or a variable with umin 1
 * or 0 (then only the first umin bytes may count as written). */
static int mem_size(struct vd_g *g, int reg, int max)
{
	struct vd_rng *r = g->r;
	uint32_t c = vd_below(r, 100);
	if (c < 55) {
		static const int32_t s[] = {1, 4, 4, 8, 16, 3, 0, 17};
		int32_t v = s[vd_below(r, sizeof s / sizeof s[0])];
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, reg, 0, 0, v > max ? max : v);
		return 0;
	}
	int s = get_scalar(g);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, reg, s, 0, 0);
	int mask = max >= 16 ? 15 : 7;
	emit(g, (vd_chance(r, 30) ? BPF_ALU : BPF_ALU64) | BPF_AND | BPF_K, reg, 0, 0, mask);
	int umin = (int)vd_below(r, 3);
	if (umin)
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, reg, 0, 0, umin);
	return umin;
}

static void b_helper_mem(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int buf = -32 - 8 * (int)vd_below(r, 3);
	if (vd_chance(r, 10))
		buf += (int)vd_below(r, 8) - 4;
	uint32_t c = vd_below(r, 100);
	int umin;
	if (c < 45 && g->ctx_ok) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, vd_chance(r, 50) ? 6 : 1);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, (int32_t)vd_below(r, 14));
		umin = mem_size(g, 5, -buf);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, buf);
		call_helper(g, BPF_FUNC_getsockopt);
	} else if (c < 65 && g->ctx_ok) {
		if (!g->stack_init || vd_chance(r, 20))
			for (int o = buf; o < buf + 16 && o < 0; o += 8)
				if (vd_chance(r, 85))
					store(g, 10, o & ~7, 3, -1);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, vd_chance(r, 50) ? 6 : 1);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, (int32_t)vd_below(r, 14));
		umin = mem_size(g, 5, -buf);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, buf);
		call_helper(g, BPF_FUNC_setsockopt);
	} else if (c < 85) {
		/* probe_read_kernel(dst, size, unsafe): a variable-size stack write */
		umin = mem_size(g, 2, -buf);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, buf);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
		call_helper(g, BPF_FUNC_probe_read_kernel);
	} else {
		/* trace_printk("%d\n"), format from the stack */
		emit(g, BPF_ST | BPF_MEM | BPF_W, 10, 0, buf, 0x0a6425);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, buf);
		umin = mem_size(g, 2, 4);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 7);
		/* skops' prototype takes five arguments where Linux checks two; the
		 * checked interpreter stops on an undefined one, so define them */
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, 0);
		call_helper(g, BPF_FUNC_trace_printk);
	}
	/* read back: inside what the call surely wrote, or past it */
	int at = buf + (vd_chance(r, 60) ? 0 : (int)vd_below(r, 16));
	int szi = (int)vd_below(r, 4);
	at &= ~((1 << szi) - 1);
	if (at + (1 << szi) <= 0) {
		int d = pick_dst(g);
		load(g, d, 10, at, szi);
		if (vd_chance(r, 50))
			use_offset(g, d);
	}
	(void)umin;
	g->p->shapes |= VD_SH_HELPER_MEM;
}

static int add_callee(struct vd_g *g, uint8_t type, uint8_t map, int16_t cbctx, size_t at)
{
	if (g->ncallee >= VD_MAX_CALLEES)
		return -1;
	g->callee[g->ncallee++] = (struct vd_callee){
	    .at = at, .type = type, .map = map, .cbctx = cbctx, .stack_init = g->stack_init};
	return 0;
}

/* bpf_loop(nr, cb, &stack or NULL, flags), for_each_map_elem(map, cb, ctx, 0);
 * the callback works on the caller's stack through its ctx argument. After
 * the call the caller reads what the callback may (or may not) have written. */
static void b_loop(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	if (g->in_callee || g->ncallee >= VD_MAX_CALLEES)
		return;
	int16_t cbctx = vd_chance(r, 85) ? -32 : 0;
	bool each = vd_chance(r, 30);
	uint8_t m = (uint8_t)vd_below(r, 3);
	if (each) {
		ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
	} else if (vd_chance(r, 60)) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, (int32_t)vd_below(r, 6));
	} else {
		int s = get_scalar(g);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, s, 0, 0);
		if (vd_chance(r, 80))
			emit(g, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 7);
	}
	size_t at = g->p->n;
	ld_imm64(g, 2, BPF_PSEUDO_FUNC, 0, 0);
	if (cbctx) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, cbctx);
	} else {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	}
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, vd_chance(r, 95) ? 0 : 1);
	add_callee(g, each ? CE_EACH : CE_LOOP, m, cbctx, at);
	call_helper(g, each ? BPF_FUNC_for_each_map_elem : BPF_FUNC_loop);
	if (cbctx && vd_chance(r, 70)) {
		int d = pick_dst(g);
		load(g, d, 10, cbctx + 8 * (int)vd_below(r, 2), 3);
		if (vd_chance(r, 60))
			use_offset(g, d);
	}
	g->p->shapes |= VD_SH_LOOP;
}

/* Narrow stores, of zero or of a register zero on one path only, loaded
 * back and used as an offset. */
static void b_narrow0(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int szi = (int)vd_below(r, 3);
	int off = -8 * (1 + (int)vd_below(r, 6)) + (1 << szi) * (int)vd_below(r, 8 >> szi);
	uint32_t c = vd_below(r, 3);
	if (c == 0) {
		emit(g, BPF_ST | BPF_MEM | vd_sz[szi], 10, 0, off, 0);
	} else {
		int s = get_scalar(g);
		size_t j = jmp_fwd(g,
				   (vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP) |
				       (vd_chance(r, 70) ? BPF_JNE : BPF_JGT) | BPF_K,
				   s, 0, c == 1 ? 0 : (int32_t)vd_below(r, 8));
		if (vd_chance(r, 50))
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, s, 0, 0, 0);
		else
			block(g, 3);
		patch(g, j);
		g->reg[s].kind = K_SCALAR;
		emit(g, BPF_STX | BPF_MEM | vd_sz[szi], 10, s, off, 0);
	}
	int lszi = vd_chance(r, 75) ? szi : (int)vd_below(r, 4);
	int loff = off & ~((1 << lszi) - 1);
	int y = pick_dst(g);
	load(g, y, 10, loff, lszi);
	/* used directly (no bound of its own): the verifier must know the value */
	int p = pick_tmp(g);
	uint32_t t = vd_below(r, 3);
	if (t == 0 && g->ctx_ok) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 6, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p].kind = K_CTX;
		access(g, p, 4 * (int)vd_below(r, 5), 2, true);
	} else if (t == 1 && find_kind(g, K_MAPVAL) >= 0) {
		int mv = find_kind(g, K_MAPVAL);
		if (p == mv || p == y)
			p = 0;
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, mv, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p] = g->reg[mv];
		access(g, p, 0, 2, false);
	} else {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, -128);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p].kind = K_FP;
		access(g, p, 0, 3, false);
	}
	g->p->shapes |= VD_SH_NARROW0;
}

/* A bounded backward loop over the stack (and sometimes an endless one). */
static void b_bloop(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int i = 7 + (int)vd_below(r, 3), acc = get_scalar(g);
	if (acc == i)
		acc = 7 + (i - 6) % 3;
	int n = 1 + (int)vd_below(r, 8);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, i, 0, 0, 0);
	size_t head = g->p->n;
	if (vd_chance(r, 50)) {
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, acc, i, 0, 0);
	} else {
		int p = pick_tmp(g);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, i, 0, 0);
		emit(g, BPF_ALU64 | BPF_LSH | BPF_K, p, 0, 0, 3);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, 10, 0, 0);
		emit(g, BPF_STX | BPF_MEM | BPF_DW, p, acc, -72, 0);
	}
	emit(g, BPF_ALU64 | BPF_ADD | BPF_K, i, 0, 0, vd_chance(r, 90) ? 1 : 2);
	uint8_t cls = vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP;
	uint8_t op = vd_chance(r, 85) ? BPF_JLT : BPF_JNE;
	emit(g, cls | op | BPF_K, i, 0, (int)head - (int)g->p->n - 1, n);
	g->reg[i].kind = K_SCALAR;
	g->reg[acc].kind = K_SCALAR;
	if (vd_chance(r, 40))
		use_offset(g, i);
	g->p->shapes |= VD_SH_BLOOP;
}

/* A bpf-to-bpf call with ctx or a stack pointer in r1 and a scalar in r2. */
static void b_subprog(struct vd_g *g)
{
	if (g->in_callee || g->ncallee >= VD_MAX_CALLEES)
		return;
	int s = get_scalar(g);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 2, s, 0, 0);
	bool ctx = g->ctx_ok && vd_chance(g->r, 50);
	if (ctx) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	} else {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -32);
	}
	add_callee(g, CE_SUBPROG, ctx, ctx ? 0 : -32, g->p->n);
	emit(g, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0);
	clobber(g);
	if (vd_chance(g->r, 50))
		use_offset(g, 0);
	g->p->shapes |= VD_SH_SUBPROG;
}

/* ringbuf_reserve → NULL check → writes → submit/discard (or a leak). */
static void b_ringbuf(struct vd_g *g, int depth)
{
	struct vd_rng *r = g->r;
	int size = 8 * (1 + (int)vd_below(r, 6));
	ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, VD_MAP_RINGBUF, 0);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	call_helper(g, BPF_FUNC_ringbuf_reserve);
	int v = 7 + (int)vd_below(r, 3);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, v, 0, 0, 0);
	size_t j = jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 0);
	int n = 1 + (int)vd_below(r, 3);
	for (int i = 0; i < n; i++) {
		int szi = pick_size(g, 3);
		int off = (int)vd_below(r, (uint32_t)size + (vd_chance(r, 10) ? 8 : 0));
		off &= ~((1 << szi) - 1);
		if (vd_chance(r, 20) && depth < 2) {
			g->reg[v].kind = K_NONE; /* not a map value: keep blocks off it */
			block(g, depth + 1);
		}
		store(g, v, off, szi, vd_chance(r, 50) ? -1 : get_scalar(g));
	}
	if (vd_chance(r, 95)) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, v, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0);
		call_helper(g,
			    vd_chance(r, 70) ? BPF_FUNC_ringbuf_submit : BPF_FUNC_ringbuf_discard);
	}
	patch(g, j);
	g->reg[v].kind = K_NONE;
	g->p->shapes |= VD_SH_RINGBUF;
}

static void block(struct vd_g *g, int depth)
{
	if (g->p->n > VD_BODY_LIMIT || depth > 3)
		return;
	struct vd_rng *r = g->r;
	for (int tries = 0; tries < 8; tries++) {
		unsigned bit = vd_below(r, 12);
		if (!(g->shapes & VD_SH_ALL & (1u << bit)))
			continue;
		switch (1u << bit) {
		case VD_SH_CTX:
			b_ctx(g);
			break;
		case VD_SH_ALU:
			b_alu(g);
			break;
		case VD_SH_BRANCH:
			b_branch(g, depth);
			break;
		case VD_SH_SPILL:
			b_spill(g);
			break;
		case VD_SH_PTR:
			b_ptr(g);
			break;
		case VD_SH_MAP:
			b_map(g, depth);
			break;
		case VD_SH_HELPER_MEM:
			b_helper_mem(g);
			break;
		case VD_SH_LOOP:
			b_loop(g);
			break;
		case VD_SH_NARROW0:
			b_narrow0(g);
			break;
		case VD_SH_BLOOP:
			b_bloop(g);
			break;
		case VD_SH_SUBPROG:
			b_subprog(g);
			break;
		case VD_SH_RINGBUF:
			b_ringbuf(g, depth);
			break;
		}
		return;
	}
}

static void prologue(struct vd_g *g, bool zero_stack)
{
	g->stack_init = zero_stack;
	if (zero_stack)
		for (int o = -8; o >= -128; o -= 8)
			emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, o, 0);
	g->reg[10] = (struct vd_reg){.kind = K_FP};
}

static void epilogue(struct vd_g *g, int32_t lo, int32_t hi)
{
	struct vd_rng *r = g->r;
	if (vd_chance(r, 94)) {
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0,
		     lo + (int32_t)vd_below(r, (uint32_t)(hi - lo + 1)));
	} else {
		int s = get_scalar(g);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 0, s, 0, 0);
		if (vd_chance(r, 60))
			emit(g, BPF_ALU64 | BPF_AND | BPF_K, 0, 0, 0, 1);
	}
	emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
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
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
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
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, keep, ctxreg, 0, 0);
		g->reg[keep] = g->reg[ctxreg];
		int n = 1 + (int)vd_below(r, 3);
		for (int i = 0; i < n; i++) {
			int szi = pick_size(g, 3);
			int off =
			    (int)vd_below(r, 16 + (vd_chance(r, 10) ? 40 : 0)) & ~((1 << szi) - 1);
			if (vd_chance(r, 40)) {
				int v = get_scalar(g);
				size_t b = bound(g, v, 16 - (1 << szi));
				int t = pick_tmp(g);
				if (t == v)
					t = t % 5 + 1;
				emit(g, BPF_ALU64 | BPF_MOV | BPF_X, t, keep, 0, 0);
				emit(g, BPF_ALU64 | BPF_ADD | BPF_X, t, v, 0, 0);
				g->reg[t] = g->reg[keep];
				access(g, t, 0, szi, false);
				bound_end(g, b);
			} else {
				access(g, keep, off, szi, false);
			}
		}
	}
	if (ce->type == CE_EACH && vd_chance(r, 80))
		use_mapval(g, 3, vd_chance(r, 40) ? get_scalar(g) : -1);
	int nb = (int)vd_below(r, 3);
	for (int i = 0; i < nb; i++)
		block(g, 2);
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
	emit(&g, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	g.reg[6].kind = K_CTX;
	g.ctx_ok = true;
	prologue(&g, vd_chance(r, 55));
	for (int i = 7; i <= 9; i++) {
		uint32_t c = vd_below(r, 100);
		if (c < 50) {
			load(&g, i, 6, 4 * (int)vd_below(r, 42), 2);
		} else if (c < 65) {
			call_helper(&g, BPF_FUNC_get_prandom_u32);
			emit(&g, BPF_ALU64 | BPF_MOV | BPF_X, i, 0, 0, 0);
		} else if (c < 85) {
			emit(&g, BPF_ALU64 | BPF_MOV | BPF_K, i, 0, 0, (int32_t)vd_below(r, 40));
		} else {
			continue;
		}
		g.reg[i].kind = K_SCALAR;
	}
	int nb = 1 + (int)vd_below(r, 6);
	for (int i = 0; i < nb; i++)
		block(&g, 0);
	epilogue(&g, 0, 1);
	/* callees may add callees of their own only if room remains; they do not */
	int n = g.ncallee;
	struct vd_callee ce[VD_MAX_CALLEES];
	memcpy(ce, g.callee, sizeof ce);
	for (int i = 0; i < n; i++)
		callee_body(&g, &ce[i]);
}
