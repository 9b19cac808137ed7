/* vdiff's generator: the block shapes that break verifiers (ctx reads, ALU,
 * branches, spills, pointer and map use, helpers on memory, loops and
 * callbacks, narrow stores, subprograms, ringbuf records), each bent at the
 * edges where verifiers disagree. vd_block picks one the caller allows. */
#include <linux/bpf.h>
#include <string.h>

#include "vdiff_gen.h"

void vd_block(struct vd_g *g, int depth);

static void b_ctx(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	if (!g->ctx_ok)
		return;
	uint32_t c = vd_below(r, 100);
	if (c < 50) {
		int off, szi;
		vd_ctx_field(g, &off, &szi);
		vd_load(g, vd_pick_dst(g), 6, off, szi);
	} else if (c < 80) {
		static const int offs[] = {4, 4, 4, 8, 12, 16, 164, 164, 0, 20, 88, 184};
		int off = offs[vd_below(r, sizeof offs / sizeof offs[0])];
		vd_store(g, 6, off, vd_pick_size(g, 2), vd_chance(r, 50) ? -1 : vd_get_scalar(g));
	} else {
		/* ctx->sk: socket-or-NULL, read through after a NULL check */
		int s = vd_pick_dst(g);
		vd_load(g, s, 6, 184, 3);
		g->reg[s].kind = K_NONE;
		size_t j = SIZE_MAX;
		if (vd_chance(r, 90))
			j = vd_jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, s, 0, 0);
		int off = 4 * (int)vd_below(r, 20), szi = vd_pick_size(g, 2);
		if (vd_chance(r, 20))
			off += (int)vd_below(r, 4);
		vd_load(g, vd_pick_dst(g), s, off, szi);
		if (j != SIZE_MAX)
			vd_patch(g, j);
	}
	g->p->shapes |= VD_SH_CTX;
}

static void b_alu(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int dst = vd_get_scalar(g);
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
				vd_emit(g, BPF_ALU64 | BPF_END, dst, 0, 0, w[vd_below(r, 3)]);
			else
				vd_emit(g, BPF_ALU | BPF_END | src, dst, 0, 0, w[vd_below(r, 3)]);
			if (vd_chance(r, 30))
				break; /* the swap's width decides the use below */
		} else if (c < 20) {
			/* movsx */
			static const int offs[] = {8, 16, 32};
			int o = offs[vd_below(r, is32 ? 2 : 3)];
			vd_emit(g, cls | BPF_MOV | BPF_X, dst, vd_get_scalar(g), o, 0);
		} else if (c < 27) {
			/* sdiv/smod (off 1), by a constant or a register */
			uint8_t op = vd_chance(r, 50) ? BPF_DIV : BPF_MOD;
			if (vd_chance(r, 50))
				vd_emit(g, cls | op | BPF_K, dst, 0, 1,
					vd_chance(r, 20) ? -1 : 1 + (int32_t)vd_below(r, 5));
			else
				vd_emit(g, cls | op | BPF_X, dst, vd_get_scalar(g), 1, 0);
		} else if (c < 35) {
			vd_emit(g, cls | BPF_NEG, dst, 0, 0, 0);
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
				vd_emit(g, cls | op | BPF_K, dst, 0, 0, imm);
			} else {
				int src = vd_get_scalar(g);
				vd_emit(g, cls | op | BPF_X, dst, src, 0, 0);
			}
		}
		g->reg[dst].kind = K_SCALAR;
	}
	if (vd_chance(r, 70))
		vd_use_offset(g, dst);
	g->p->shapes |= VD_SH_ALU;
}

/* if/else on a scalar, blocks inside: paths pruning may merge. Sometimes
 * each side leaves a different constant or pointer in one register used
 * after the join. */
static void b_branch(struct vd_g *g, int depth)
{
	struct vd_rng *r = g->r;
	int s = vd_get_scalar(g);
	uint8_t cls = vd_chance(r, 35) ? BPF_JMP32 : BPF_JMP;
	uint8_t op = vd_jops[vd_below(r, sizeof vd_jops)];
	size_t j;
	if (vd_chance(r, 30))
		j = vd_jmp_fwd(g, cls | op | BPF_X, s, vd_get_scalar(g), 0);
	else
		j = vd_jmp_fwd(g, cls | op | BPF_K, s, 0, (int32_t)vd_below(r, 64) - 4);
	struct vd_reg saved[11];
	memcpy(saved, g->reg, sizeof saved);
	bool merge_val = vd_chance(r, 40);
	int m = 7 + (int)vd_below(r, 3);
	int kinds = (int)vd_below(r, 4);
	/* then */
	if (merge_val) {
		if (kinds == 0 || !g->ctx_ok)
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, m, 0, 0, (int32_t)vd_below(r, 24));
		else if (kinds == 1)
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, 6, 0, 0);
		else
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, s, 0, 0);
	} else {
		vd_block(g, depth + 1);
	}
	struct vd_reg then_regs[11];
	memcpy(then_regs, g->reg, sizeof then_regs);
	size_t skip = SIZE_MAX;
	if (vd_chance(r, 70)) {
		skip = vd_jmp_fwd(g, BPF_JMP | BPF_JA, 0, 0, 0);
		vd_patch(g, j);
		memcpy(g->reg, saved, sizeof saved);
		if (merge_val) {
			if (vd_chance(r, 50))
				vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, m, 0, 0,
					(int32_t)vd_below(r, 24));
			else {
				vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, m, 10, 0, 0);
				vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, m, 0, 0, -64);
			}
		} else {
			vd_block(g, depth + 1);
		}
		vd_patch(g, skip);
	} else {
		vd_patch(g, j);
	}
	/* join: what both sides agree on survives */
	for (int i = 0; i < 11; i++)
		if (then_regs[i].kind != g->reg[i].kind ||
		    (skip == SIZE_MAX && saved[i].kind != then_regs[i].kind))
			g->reg[i].kind = K_NONE;
	if (merge_val) {
		uint32_t c = vd_below(r, 3);
		if (c == 0)
			vd_use_offset(g, m);
		else if (c == 1)
			vd_access(g, m, 0, 2, false); /* deref whatever the join left */
		else
			g->reg[m].kind = K_SCALAR, vd_use_stack(g, m);
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
	else if (c == 1 && (x = vd_find_kind(g, K_MAPVAL)) >= 0)
		;
	else if (c == 2) {
		x = vd_pick_tmp(g);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, x, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, x, 0, 0, -8 * (int)vd_below(r, 8));
		g->reg[x] = (struct vd_reg){.kind = K_FP};
	} else
		x = vd_get_scalar(g);
	struct vd_reg xk = g->reg[x];
	int szi = vd_chance(r, 65) ? 3 : (int)vd_below(r, 3);
	int off = -8 * (1 + (int)vd_below(r, 12));
	if (szi < 3)
		off += (1 << szi) * (int)vd_below(r, 8 >> szi);
	vd_store(g, 10, off, szi, x);
	if (vd_chance(r, 15))
		vd_store(g, 10, off + (int)vd_below(r, 8), (int)vd_below(r, 3),
			 vd_chance(r, 50) ? -1 : vd_get_scalar(g));
	if (vd_chance(r, 20))
		vd_call_helper(g, BPF_FUNC_get_prandom_u32);
	int fszi = vd_chance(r, 70) ? szi : (int)vd_below(r, 4);
	int foff = vd_chance(r, 80) ? off : off + (int)vd_below(r, 8) - 4;
	int y = vd_pick_dst(g);
	vd_load(g, y, 10, foff, fszi);
	if (fszi == 3 && szi == 3 && foff == off && xk.kind != K_SCALAR)
		g->reg[y] = xk;
	uint32_t u = vd_below(r, 3);
	if (g->reg[y].kind == K_MAPVAL)
		vd_use_mapval(g, y, vd_chance(r, 50) ? vd_get_scalar(g) : -1);
	else if (g->reg[y].kind == K_CTX || g->reg[y].kind == K_FP || u == 0)
		vd_access(g, y, 0, 2, g->reg[y].kind == K_CTX);
	else if (u == 1)
		vd_use_offset(g, y);
	g->p->shapes |= VD_SH_SPILL;
}

static void b_ptr(struct vd_g *g)
{
	int v = vd_chance(g->r, 80) ? vd_get_scalar(g) : -1;
	if (vd_chance(g->r, 30)) {
		/* a direct map value: ld_imm64 src 2 */
		/* Linux allows direct values only in single-entry arrays */
		int m = vd_chance(g->r, 20) ? VD_MAP_ARRAY : VD_MAP_SMALL;
		int p = 7 + (int)vd_below(g->r, 3);
		if (p == v)
			p = 7 + (p - 6) % 3;
		vd_ld_imm64(g, p, BPF_PSEUDO_MAP_VALUE, m,
			    (int32_t)vd_below(g->r, vd_map_defs[m].value_size + 2) & ~3);
		g->reg[p] = (struct vd_reg){.kind = K_MAPVAL, .map = (uint8_t)m};
		/* the value offset makes the pointer's room smaller; a near miss is fine */
		vd_use_mapval(g, p, v);
	} else {
		vd_use_offset(g, v);
	}
	g->p->shapes |= VD_SH_PTR;
}

/* Key at fp-8 (4 or 8 bytes): an immediate, a scalar, or nothing (uninit). */
static void map_key(struct vd_g *g, int m)
{
	int ks = (int)vd_map_defs[m].key_size;
	uint32_t c = vd_below(g->r, 100);
	if (c < 60 || (c < 95 && g->stack_init))
		vd_emit(g, BPF_ST | BPF_MEM | (ks == 8 ? BPF_DW : BPF_W), 10, 0, -8,
			(int32_t)vd_below(g->r, 6));
	else if (c < 95)
		vd_store(g, 10, -8, ks == 8 ? 3 : 2, vd_get_scalar(g));
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, vd_chance(g->r, 95) ? -8 : -4);
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
					vd_store(g, 10, at + o, 3,
						 vd_chance(r, 50) ? -1 : vd_get_scalar(g));
		map_key(g, m);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, at);
		vd_ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, (int32_t)vd_below(r, 3));
		vd_call_helper(g, BPF_FUNC_map_update_elem);
	} else if (c < 32) {
		map_key(g, m);
		vd_ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		vd_call_helper(g, BPF_FUNC_map_delete_elem);
	} else {
		map_key(g, m);
		vd_ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
		vd_call_helper(g, BPF_FUNC_map_lookup_elem);
		int v = vd_chance(r, 85) ? 7 + (int)vd_below(r, 3) : 0;
		if (v)
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, v, 0, 0, 0);
		size_t j = SIZE_MAX;
		uint32_t nc = vd_below(r, 100);
		if (nc < 80)
			j = vd_jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 0);
		else if (nc < 88)
			j = vd_jmp_fwd(g, BPF_JMP32 | BPF_JEQ | BPF_K, v, 0, 0);
		else if (nc < 95) {
			/* "if (p != NULL)" form */
			vd_emit(g, BPF_JMP | BPF_JNE | BPF_K, v, 0, 1, 0);
			j = vd_jmp_fwd(g, BPF_JMP | BPF_JA, 0, 0, 0);
		}
		g->reg[v] = (struct vd_reg){.kind = K_MAPVAL, .map = (uint8_t)m};
		int n = 1 + (int)vd_below(r, 3);
		for (int i = 0; i < n && g->reg[v].kind == K_MAPVAL; i++) {
			if (v == 0 || vd_chance(r, 60))
				vd_use_mapval(g, v, vd_chance(r, 50) ? vd_get_scalar(g) : -1);
			else
				vd_block(g, depth + 1);
			if (v == 0)
				break;
		}
		if (j != SIZE_MAX)
			vd_patch(g, j);
		g->reg[v].kind = K_NONE;
		if (vd_chance(r, 4))
			vd_access(g, v, 0, 2, false); /* after the join: maybe NULL */
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
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, reg, 0, 0, v > max ? max : v);
		return 0;
	}
	int s = vd_get_scalar(g);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, reg, s, 0, 0);
	int mask = max >= 16 ? 15 : 7;
	vd_emit(g, (vd_chance(r, 30) ? BPF_ALU : BPF_ALU64) | BPF_AND | BPF_K, reg, 0, 0, mask);
	int umin = (int)vd_below(r, 3);
	if (umin)
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, reg, 0, 0, umin);
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
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, vd_chance(r, 50) ? 6 : 1);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, (int32_t)vd_below(r, 14));
		umin = mem_size(g, 5, -buf);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, buf);
		vd_call_helper(g, BPF_FUNC_getsockopt);
	} else if (c < 65 && g->ctx_ok) {
		if (!g->stack_init || vd_chance(r, 20))
			for (int o = buf; o < buf + 16 && o < 0; o += 8)
				if (vd_chance(r, 85))
					vd_store(g, 10, o & ~7, 3, -1);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, vd_chance(r, 50) ? 6 : 1);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, (int32_t)vd_below(r, 14));
		umin = mem_size(g, 5, -buf);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, buf);
		vd_call_helper(g, BPF_FUNC_setsockopt);
	} else if (c < 85) {
		/* probe_read_kernel(dst, size, unsafe): a variable-size stack write */
		umin = mem_size(g, 2, -buf);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, buf);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
		vd_call_helper(g, BPF_FUNC_probe_read_kernel);
	} else {
		/* trace_printk("%d\n"), format from the stack */
		vd_emit(g, BPF_ST | BPF_MEM | BPF_W, 10, 0, buf, 0x0a6425);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, buf);
		umin = mem_size(g, 2, 4);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 7);
		/* skops' prototype takes five arguments where Linux checks two; the
		 * checked interpreter stops on an undefined one, so define them */
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, 0);
		vd_call_helper(g, BPF_FUNC_trace_printk);
	}
	/* read back: inside what the call surely wrote, or past it */
	int at = buf + (vd_chance(r, 60) ? 0 : (int)vd_below(r, 16));
	int szi = (int)vd_below(r, 4);
	at &= ~((1 << szi) - 1);
	if (at + (1 << szi) <= 0) {
		int d = vd_pick_dst(g);
		vd_load(g, d, 10, at, szi);
		if (vd_chance(r, 50))
			vd_use_offset(g, d);
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
		vd_ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, m, 0);
	} else if (vd_chance(r, 60)) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, (int32_t)vd_below(r, 6));
	} else {
		int s = vd_get_scalar(g);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, s, 0, 0);
		if (vd_chance(r, 80))
			vd_emit(g, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 7);
	}
	size_t at = g->p->n;
	vd_ld_imm64(g, 2, BPF_PSEUDO_FUNC, 0, 0);
	if (cbctx) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, cbctx);
	} else {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	}
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, vd_chance(r, 95) ? 0 : 1);
	add_callee(g, each ? CE_EACH : CE_LOOP, m, cbctx, at);
	vd_call_helper(g, each ? BPF_FUNC_for_each_map_elem : BPF_FUNC_loop);
	if (cbctx && vd_chance(r, 70)) {
		int d = vd_pick_dst(g);
		vd_load(g, d, 10, cbctx + 8 * (int)vd_below(r, 2), 3);
		if (vd_chance(r, 60))
			vd_use_offset(g, d);
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
		vd_emit(g, BPF_ST | BPF_MEM | vd_sz[szi], 10, 0, off, 0);
	} else {
		int s = vd_get_scalar(g);
		size_t j = vd_jmp_fwd(g,
				      (vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP) |
					  (vd_chance(r, 70) ? BPF_JNE : BPF_JGT) | BPF_K,
				      s, 0, c == 1 ? 0 : (int32_t)vd_below(r, 8));
		if (vd_chance(r, 50))
			vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, s, 0, 0, 0);
		else
			vd_block(g, 3);
		vd_patch(g, j);
		g->reg[s].kind = K_SCALAR;
		vd_emit(g, BPF_STX | BPF_MEM | vd_sz[szi], 10, s, off, 0);
	}
	int lszi = vd_chance(r, 75) ? szi : (int)vd_below(r, 4);
	int loff = off & ~((1 << lszi) - 1);
	int y = vd_pick_dst(g);
	vd_load(g, y, 10, loff, lszi);
	/* used directly (no bound of its own): the verifier must know the value */
	int p = vd_pick_tmp(g);
	uint32_t t = vd_below(r, 3);
	if (t == 0 && g->ctx_ok) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 6, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p].kind = K_CTX;
		vd_access(g, p, 4 * (int)vd_below(r, 5), 2, true);
	} else if (t == 1 && vd_find_kind(g, K_MAPVAL) >= 0) {
		int mv = vd_find_kind(g, K_MAPVAL);
		if (p == mv || p == y)
			p = 0;
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, mv, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p] = g->reg[mv];
		vd_access(g, p, 0, 2, false);
	} else {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, p, 0, 0, -128);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, y, 0, 0);
		g->reg[p].kind = K_FP;
		vd_access(g, p, 0, 3, false);
	}
	g->p->shapes |= VD_SH_NARROW0;
}

/* A bounded backward loop over the stack (and sometimes an endless one). */
static void b_bloop(struct vd_g *g)
{
	struct vd_rng *r = g->r;
	int i = 7 + (int)vd_below(r, 3), acc = vd_get_scalar(g);
	if (acc == i)
		acc = 7 + (i - 6) % 3;
	int n = 1 + (int)vd_below(r, 8);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, i, 0, 0, 0);
	size_t head = g->p->n;
	if (vd_chance(r, 50)) {
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, acc, i, 0, 0);
	} else {
		int p = vd_pick_tmp(g);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, p, i, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_LSH | BPF_K, p, 0, 0, 3);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_X, p, 10, 0, 0);
		vd_emit(g, BPF_STX | BPF_MEM | BPF_DW, p, acc, -72, 0);
	}
	vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, i, 0, 0, vd_chance(r, 90) ? 1 : 2);
	uint8_t cls = vd_chance(r, 30) ? BPF_JMP32 : BPF_JMP;
	uint8_t op = vd_chance(r, 85) ? BPF_JLT : BPF_JNE;
	vd_emit(g, cls | op | BPF_K, i, 0, (int)head - (int)g->p->n - 1, n);
	g->reg[i].kind = K_SCALAR;
	g->reg[acc].kind = K_SCALAR;
	if (vd_chance(r, 40))
		vd_use_offset(g, i);
	g->p->shapes |= VD_SH_BLOOP;
}

/* A bpf-to-bpf call with ctx or a stack pointer in r1 and a scalar in r2. */
static void b_subprog(struct vd_g *g)
{
	if (g->in_callee || g->ncallee >= VD_MAX_CALLEES)
		return;
	int s = vd_get_scalar(g);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 2, s, 0, 0);
	bool ctx = g->ctx_ok && vd_chance(g->r, 50);
	if (ctx) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	} else {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -32);
	}
	add_callee(g, CE_SUBPROG, ctx, ctx ? 0 : -32, g->p->n);
	vd_emit(g, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0);
	vd_clobber(g);
	if (vd_chance(g->r, 50))
		vd_use_offset(g, 0);
	g->p->shapes |= VD_SH_SUBPROG;
}

/* ringbuf_reserve → NULL check → writes → submit/discard (or a leak). */
static void b_ringbuf(struct vd_g *g, int depth)
{
	struct vd_rng *r = g->r;
	int size = 8 * (1 + (int)vd_below(r, 6));
	vd_ld_imm64(g, 1, BPF_PSEUDO_MAP_FD, VD_MAP_RINGBUF, 0);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	vd_call_helper(g, BPF_FUNC_ringbuf_reserve);
	int v = 7 + (int)vd_below(r, 3);
	vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, v, 0, 0, 0);
	size_t j = vd_jmp_fwd(g, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 0);
	int n = 1 + (int)vd_below(r, 3);
	for (int i = 0; i < n; i++) {
		int szi = vd_pick_size(g, 3);
		int off = (int)vd_below(r, (uint32_t)size + (vd_chance(r, 10) ? 8 : 0));
		off &= ~((1 << szi) - 1);
		if (vd_chance(r, 20) && depth < 2) {
			g->reg[v].kind = K_NONE; /* not a map value: keep blocks off it */
			vd_block(g, depth + 1);
		}
		vd_store(g, v, off, szi, vd_chance(r, 50) ? -1 : vd_get_scalar(g));
	}
	if (vd_chance(r, 95)) {
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, v, 0, 0);
		vd_emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0);
		vd_call_helper(g, vd_chance(r, 70) ? BPF_FUNC_ringbuf_submit
						   : BPF_FUNC_ringbuf_discard);
	}
	vd_patch(g, j);
	g->reg[v].kind = K_NONE;
	g->p->shapes |= VD_SH_RINGBUF;
}

void vd_block(struct vd_g *g, int depth)
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
