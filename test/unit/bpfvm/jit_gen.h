/* A seeded generator of structurally valid, safe-by-construction BPF
 * programs for the JIT differential test: straight-line ALU (all ops, both
 * widths, K and X, edge immediates), ctx and stack loads/stores, atomics on
 * the stack, forward branches (JMP and JMP32), bounded counted loops and
 * bpf-to-bpf calls into a subprogram that clobbers R6..R9 and its own frame.
 *
 * Register roles: R6 = ctx (256 bytes, never changed), R9 = loop counter,
 * R10 = frame; R0..R5, R7, R8 hold scalars only (pointers are copied into a
 * scalar register for one access and overwritten right after), so the
 * programs are also what a verifier accepts. */
#ifndef SKOPS_TEST_BPFVM_JIT_GEN_H
#define SKOPS_TEST_BPFVM_JIT_GEN_H

#include <stdint.h>
#include <string.h>

#include "isa_insn.h"

#define JG_CTX_SIZE  256
#define JG_MAX_INSNS 1024
#define JG_UNIT_MAX  48
#define JG_SLOTS     8 /* initialised 8-byte stack slots at R10-8 .. R10-64 */

struct jg_rng {
	uint64_t s;
};

static inline uint64_t jg_next(struct jg_rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint32_t jg_below(struct jg_rng *r, uint32_t n)
{
	return (uint32_t)(jg_next(r) % n);
}

struct jg_unit {
	struct bpfvm_insn in[JG_UNIT_MAX];
	int n;
	int branch_to; /* unit index for a forward branch in in[0], else -1 */
	int call_at;   /* index of a CALL_REL to the subprogram, else -1 */
};

#define JG_MAX_BODY 64

struct jg_prog {
	struct bpfvm_insn insns[JG_MAX_INSNS];
	size_t n;
	struct jg_unit units[JG_MAX_BODY + 2]; /* scratch of jg_generate */
};

static const uint8_t jg_pool[] = {0, 1, 2, 3, 4, 5, 7, 8};

static inline uint8_t jg_reg(struct jg_rng *r)
{
	return jg_pool[jg_below(r, sizeof jg_pool)];
}

static inline int32_t jg_imm(struct jg_rng *r)
{
	static const int32_t edge[] = {0,    1,		-1,	   2,	   3,	    7,
				       8,    31,	32,	   63,	   64,	    255,
				       -256, INT32_MIN, INT32_MAX, 0x7fff, -0x8000, 0x10000};
	switch (jg_below(r, 3)) {
	case 0:
		return edge[jg_below(r, sizeof edge / sizeof edge[0])];
	case 1:
		return (int32_t)jg_below(r, 200) - 100;
	default:
		return (int32_t)(uint32_t)jg_next(r);
	}
}

static inline uint64_t jg_imm64(struct jg_rng *r)
{
	static const uint64_t edge[] = {0,
					1,
					~0ull,
					0x8000000000000000ull,
					0x7fffffffffffffffull,
					0xffffffffull,
					0x100000000ull,
					0x80000000ull};
	if (jg_below(r, 3) == 0)
		return edge[jg_below(r, sizeof edge / sizeof edge[0])];
	return jg_next(r);
}

static inline void jg_put(struct jg_unit *u, struct bpfvm_insn in)
{
	if (u->n < JG_UNIT_MAX)
		u->in[u->n++] = in;
}

static inline void jg_lddw(struct jg_unit *u, uint8_t dst, uint64_t v)
{
	struct bpfvm_insn two[2] = {LDDW(dst, v)};
	jg_put(u, two[0]);
	jg_put(u, two[1]);
}

/* One ALU insn on registers of pool (n entries). */
static inline void jg_alu(struct jg_rng *r, struct jg_unit *u, const uint8_t *pool, size_t np)
{
	static const uint8_t ops[] = {BPF_ADD,	BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,  BPF_AND,
				      BPF_LSH,	BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV,
				      BPF_ARSH, BPF_END, BPF_DIV, BPF_MOD};
	uint8_t op = ops[jg_below(r, sizeof ops)];
	bool w = jg_below(r, 2);
	uint8_t cls = w ? BPF_ALU64 : BPF_ALU;
	uint8_t dst = pool[jg_below(r, (uint32_t)np)], src = pool[jg_below(r, (uint32_t)np)];
	bool x = jg_below(r, 2);
	int16_t off = 0;
	int32_t imm = jg_imm(r);
	switch (op) {
	case BPF_NEG:
		x = false, imm = 0;
		break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (!x)
			imm = (int32_t)jg_below(r, w ? 64 : 32);
		break;
	case BPF_DIV:
	case BPF_MOD:
		off = (int16_t)jg_below(r, 2); /* sdiv/smod */
		break;
	case BPF_MOV:
		if (x && jg_below(r, 3) == 0) {
			static const int16_t wide[] = {8, 16, 32};
			off = wide[jg_below(r, w ? 3 : 2)];
		}
		break;
	case BPF_END: {
		static const int32_t widths[] = {16, 32, 64};
		imm = widths[jg_below(r, 3)];
		src = 0;
		/* ALU: to-le (K) / to-be (X); ALU64: unconditional bswap (K only) */
		if (w)
			x = false;
		jg_put(u, (struct bpfvm_insn)INSN((uint8_t)(cls | (x ? BPF_X : BPF_K) | op), dst, 0,
						  0, imm));
		return;
	}
	}
	jg_put(u, (struct bpfvm_insn)INSN((uint8_t)(cls | (x ? BPF_X : BPF_K) | op), dst,
					  x ? src : 0, off, x ? 0 : imm));
}

static inline void jg_ctx_access(struct jg_rng *r, struct jg_unit *u, uint8_t base, uint8_t reg)
{
	static const uint8_t sizes[] = {BPF_B, BPF_H, BPF_W, BPF_DW};
	static const int bytes[] = {1, 2, 4, 8};
	int k = (int)jg_below(r, 4);
	int16_t off = (int16_t)(jg_below(r, JG_CTX_SIZE / bytes[k]) * bytes[k]);
	switch (jg_below(r, 4)) {
	case 0:
		jg_put(u, (struct bpfvm_insn)LDX(sizes[k], reg, base, off));
		break;
	case 1:
		if (k == 3)
			jg_put(u, (struct bpfvm_insn)LDX(sizes[k], reg, base, off));
		else
			jg_put(u, (struct bpfvm_insn)LDXSX(sizes[k], reg, base, off));
		break;
	case 2:
		jg_put(u, (struct bpfvm_insn)STX(sizes[k], base, reg, off));
		break;
	default:
		jg_put(u, (struct bpfvm_insn)ST(sizes[k], base, off, jg_imm(r)));
		break;
	}
}

/* Stack slot access through base (R10 or a copy); cmpxchg compares with R0,
 * so it is left out when base itself is R0. */
static inline void jg_stack_access(struct jg_rng *r, struct jg_unit *u, uint8_t base, uint8_t reg)
{
	int slot = 1 + (int)jg_below(r, JG_SLOTS);
	bool dw = jg_below(r, 2);
	int16_t off = (int16_t)(-8 * slot + (dw ? 0 : 4 * (int)jg_below(r, 2)));
	uint8_t sz = dw ? BPF_DW : BPF_W;
	switch (jg_below(r, 3)) {
	case 0:
		jg_put(u, (struct bpfvm_insn)LDX(sz, reg, base, off));
		break;
	case 1:
		jg_put(u, (struct bpfvm_insn)STX(sz, base, reg, off));
		break;
	default: {
		static const int32_t aops[] = {BPF_ADD,
					       BPF_OR,
					       BPF_AND,
					       BPF_XOR,
					       BPF_ADD | BPF_FETCH,
					       BPF_OR | BPF_FETCH,
					       BPF_AND | BPF_FETCH,
					       BPF_XOR | BPF_FETCH,
					       BPF_XCHG,
					       BPF_CMPXCHG};
		int32_t op = aops[jg_below(r, base == 0 ? 9 : 10)];
		jg_put(u, (struct bpfvm_insn)ATOMIC(sz, op, base, reg, off));
		break;
	}
	}
}

/* A pointer in a scalar register for a few accesses: exercises every base
 * register (R0 included, which the cmpxchg loops borrow). The accessed
 * register is never the pointer itself, so no address leaks into memory or
 * r0 (addresses differ between the engines), and the pointer register is
 * overwritten with a scalar at the end. */
static inline void jg_ptr_unit(struct jg_rng *r, struct jg_unit *u)
{
	uint8_t p = jg_reg(r);
	bool stack = jg_below(r, 2);
	jg_put(u, (struct bpfvm_insn)MOV64_X(p, stack ? 10 : 6));
	/* sometimes p = base + d (mov + add: the JIT's lea fusion); the
	 * accesses then reach the same bytes at off - d */
	int d = jg_below(r, 2) ? 0 : (stack ? -8 : 8) * (int)jg_below(r, 5);
	if (d || jg_below(r, 2))
		jg_put(u, (struct bpfvm_insn)ALU64_K(BPF_ADD, p, d));
	int k = 1 + (int)jg_below(r, 3);
	for (int i = 0; i < k; i++) {
		uint8_t reg = jg_reg(r);
		if (reg == p)
			reg = p == 0 ? 3 : 0;
		if (stack)
			jg_stack_access(r, u, p, reg);
		else
			jg_ctx_access(r, u, p, reg);
		u->in[u->n - 1].off = (int16_t)(u->in[u->n - 1].off - d);
	}
	jg_put(u, (struct bpfvm_insn)MOV64_K(p, jg_imm(r)));
}

static inline void jg_branch(struct jg_rng *r, struct jg_unit *u, int self, int nunits)
{
	static const uint8_t conds[] = {BPF_JEQ,  BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
					BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE};
	uint8_t cls = jg_below(r, 2) ? BPF_JMP : BPF_JMP32;
	bool x = jg_below(r, 2);
	uint8_t op = conds[jg_below(r, sizeof conds)];
	int32_t imm = jg_below(r, 3) == 0 ? 0 : jg_imm(r);
	jg_put(u, (struct bpfvm_insn)INSN((uint8_t)(cls | (x ? BPF_X : BPF_K) | op), jg_reg(r),
					  x ? jg_reg(r) : 0, 0, x ? 0 : imm));
	int span = nunits - self;
	u->branch_to = self + 1 + (int)jg_below(r, (uint32_t)(span < 6 ? span : 6));
}

static inline void jg_loop(struct jg_rng *r, struct jg_unit *u)
{
	jg_put(u, (struct bpfvm_insn)MOV64_K(9, 1 + (int32_t)jg_below(r, 6)));
	int start = u->n, body = 1 + (int)jg_below(r, 6);
	for (int k = 0; k < body; k++) {
		if (jg_below(r, 4) == 0)
			jg_stack_access(r, u, 10, jg_reg(r));
		else
			jg_alu(r, u, jg_pool, sizeof jg_pool);
	}
	jg_put(u, (struct bpfvm_insn)ALU64_K(BPF_SUB, 9, 1));
	jg_put(u, (struct bpfvm_insn)JMP_K(BPF_JNE, 9, 0, (int16_t)(start - u->n - 1)));
}

static inline void jg_call(struct jg_rng *r, struct jg_unit *u)
{
	u->call_at = u->n;
	jg_put(u, (struct bpfvm_insn)CALL_REL(0));
	/* R1..R5 are dead after a call: give them fresh values */
	for (uint8_t k = 1; k <= 5; k++)
		if (jg_below(r, 2))
			jg_put(u, (struct bpfvm_insn)MOV64_X(k, 0));
		else
			jg_put(u, (struct bpfvm_insn)MOV64_K(k, jg_imm(r)));
}

/* Generate one program of about body units into p. */
static inline void jg_generate(struct jg_rng *r, int body, struct jg_prog *p)
{
	struct jg_unit *units = p->units;
	if (body > JG_MAX_BODY)
		body = JG_MAX_BODY;
	int nu = 0;
	struct jg_unit *u = &units[nu++];
	memset(u, 0, sizeof(*u));
	u->branch_to = u->call_at = -1;
	jg_put(u, (struct bpfvm_insn)MOV64_X(6, 1));
	for (size_t k = 0; k < sizeof jg_pool; k++) {
		uint8_t reg = jg_pool[k];
		if (jg_below(r, 3) == 0)
			jg_put(u, (struct bpfvm_insn)LDX(
				      BPF_DW, reg, 6, (int16_t)(8 * jg_below(r, JG_CTX_SIZE / 8))));
		else
			jg_lddw(u, reg, jg_imm64(r));
	}
	for (int s = 1; s <= JG_SLOTS; s++)
		jg_put(u, (struct bpfvm_insn)STX(BPF_DW, 10, jg_reg(r), (int16_t)(-8 * s)));
	bool has_call = false;
	for (int k = 0; k < body; k++) {
		u = &units[nu];
		memset(u, 0, sizeof(*u));
		u->branch_to = u->call_at = -1;
		uint32_t kind = jg_below(r, 100);
		if (kind < 45)
			jg_alu(r, u, jg_pool, sizeof jg_pool);
		else if (kind < 55)
			jg_ctx_access(r, u, 6, jg_reg(r));
		else if (kind < 65)
			jg_stack_access(r, u, 10, jg_reg(r));
		else if (kind < 70)
			jg_ptr_unit(r, u);
		else if (kind < 85)
			jg_branch(r, u, nu, body + 1);
		else if (kind < 93)
			jg_loop(r, u);
		else {
			jg_call(r, u);
			has_call = true;
		}
		nu++;
	}
	/* fold every scalar and slot into r0, order-sensitively */
	u = &units[nu++];
	memset(u, 0, sizeof(*u));
	u->branch_to = u->call_at = -1;
	for (size_t k = 1; k < sizeof jg_pool; k++) {
		jg_put(u, (struct bpfvm_insn)ALU64_K(BPF_MUL, 0, 31));
		jg_put(u, (struct bpfvm_insn)ALU64_X(BPF_ADD, 0, jg_pool[k]));
	}
	for (int s = 1; s <= JG_SLOTS; s++) {
		jg_put(u, (struct bpfvm_insn)LDX(BPF_DW, 1, 10, (int16_t)(-8 * s)));
		jg_put(u, (struct bpfvm_insn)ALU64_K(BPF_MUL, 0, 31));
		jg_put(u, (struct bpfvm_insn)ALU64_X(BPF_ADD, 0, 1));
	}
	jg_put(u, (struct bpfvm_insn)EXIT());

	/* layout, then resolve branches (unit starts) and calls */
	int start[JG_MAX_BODY + 3];
	size_t n = 0;
	for (int k = 0; k < nu; k++) {
		start[k] = (int)n;
		n += (size_t)units[k].n;
	}
	start[nu] = (int)n;
	size_t sub = n;
	p->n = 0;
	for (int k = 0; k < nu; k++) {
		struct jg_unit *v = &units[k];
		if (v->branch_to >= 0)
			v->in[0].off = (int16_t)(start[v->branch_to] - start[k] - 1);
		if (v->call_at >= 0)
			v->in[v->call_at].imm = (int32_t)sub - (start[k] + v->call_at) - 1;
		memcpy(&p->insns[p->n], v->in, (size_t)v->n * sizeof(v->in[0]));
		p->n += (size_t)v->n;
	}
	if (!has_call)
		return;
	/* the subprogram: uses R1..R5, clobbers R6..R9 and its own frame */
	struct jg_unit s = {.branch_to = -1, .call_at = -1};
	static const uint8_t spool[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	jg_put(&s, (struct bpfvm_insn)MOV64_X(0, 1));
	for (uint8_t k = 6; k <= 9; k++)
		jg_put(&s, (struct bpfvm_insn)MOV64_K(k, jg_imm(r)));
	jg_put(&s, (struct bpfvm_insn)STX(BPF_DW, 10, 2, -8));
	for (int k = 0; k < 8; k++)
		jg_alu(r, &s, spool, sizeof spool);
	jg_put(&s, (struct bpfvm_insn)LDX(BPF_DW, 3, 10, -8));
	jg_put(&s, (struct bpfvm_insn)ALU64_X(BPF_XOR, 0, 3));
	jg_put(&s, (struct bpfvm_insn)ALU64_X(BPF_ADD, 0, 7));
	jg_put(&s, (struct bpfvm_insn)EXIT());
	memcpy(&p->insns[p->n], s.in, (size_t)s.n * sizeof(s.in[0]));
	p->n += (size_t)s.n;
}

#endif
