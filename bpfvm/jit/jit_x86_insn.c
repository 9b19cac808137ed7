/* Per-instruction translation BPF → x86-64, prologues, epilogues and the
 * callback thunk. Semantics are RFC 9669's (the interpreter is the reference):
 * 32-bit ops zero-extend, shift counts are masked, division by zero yields 0
 * and modulo by zero leaves dst, signed INT_MIN / -1 does not trap. Register
 * map as the Linux x86-64 JIT; r9..r11 are scratch, r12 the frame slots. */
#include <errno.h>
#include <stdio.h>

#include "jit_int.h"

/* BPF R0..R10 → x86 registers. R1..R5 are the C argument registers, R6..R9
 * callee-saved, so helper calls need no shuffling. */
static const uint8_t reg_map[12] = {
    JIT_RAX, JIT_RDI, JIT_RSI, JIT_RDX, JIT_RCX, JIT_R8,
    JIT_RBX, JIT_R13, JIT_R14, JIT_R15, JIT_RBP, JIT_R10, /* [11]: blinding scratch */
};

/* Register numbers are checked at load (insn_check.c); this stays a total
 * map (r11 past the table) so no insn can make it read past. */
static int xreg(uint8_t r)
{
	return r < sizeof reg_map ? reg_map[r] : JIT_R11;
}

/* Full-frame push order; the callback thunk uses the same layout, so the
 * main epilogue also unwinds a callback (abort, tail call). */
static const uint8_t full_saves[6] = {JIT_RBP, JIT_RBX, JIT_R12, JIT_R13, JIT_R14, JIT_R15};

static int fail(struct jit_state *st, uint32_t pc, const char *why)
{
	if (!st->why[0]) {
		snprintf(st->why, sizeof st->why, "%s", why);
		st->why_pc = pc;
	}
	return 0;
}

void jit_label(struct jit_state *st, size_t lbl)
{
	st->cur[lbl] = (uint32_t)st->b.len;
	st->anchor_cur = (uint32_t)st->b.len;
	st->anchor_prev = st->have_prev ? st->prev[lbl] : 0;
}

static int64_t here(const struct jit_state *st)
{
	return (int64_t)st->anchor_prev + (int64_t)(st->b.len - st->anchor_cur);
}

void jit_jump_lbl(struct jit_state *st, int cc, size_t lbl)
{
	jit_jump(&st->b, cc, here(st), st->have_prev ? st->prev[lbl] : 0, !st->have_prev);
}

void jit_call_lbl(struct jit_state *st, size_t lbl)
{
	jit_call_rel(&st->b, here(st), st->have_prev ? st->prev[lbl] : 0, !st->have_prev);
}

static void prologue_body(struct jit_state *st, size_t f);

/* Unverified programs may read registers nothing wrote; the interpreter
 * starts them at 0, so the JIT does too (verified programs cannot read them). */
static void zero_unwritten(struct jit_state *st)
{
	static const uint8_t regs[] = {JIT_RAX, JIT_RDX, JIT_RCX, JIT_R8,
				       JIT_RBX, JIT_R13, JIT_R14, JIT_R15};
	for (size_t i = 0; i < sizeof regs; i++)
		if (i < 4 || st->budget || (st->funcs[0].saves & (1u << regs[i])))
			jit_alu_rr(&st->b, false, JIT_OP_XOR, regs[i], regs[i]);
}

void jit_prologue(struct jit_state *st, size_t f)
{
	prologue_body(st, f);
	if (f == 0 && st->prog->no_verify)
		zero_unwritten(st);
}

/* The entry frame of a budgeted program (and of the callback thunk): all
 * six callee-saved registers, then the previous run->jit_sp, whose slot
 * run->jit_sp then names. The abort stub unwinds any depth of BPF frames
 * with it (entry_unwind), so a budget stop needs no per-frame code. */
static void entry_frame(struct jit_buf *b, int run_reg)
{
	for (int i = 0; i < 6; i++)
		jit_push(b, full_saves[i]);
	jit_mov_rr(b, true, JIT_R12, run_reg);
	jit_load(b, 8, false, JIT_R11, JIT_R12, JIT_RUN_SP);
	jit_push(b, JIT_R11);
	jit_store_r(b, 8, JIT_R12, JIT_RUN_SP, JIT_RSP);
}

static void entry_unwind(struct jit_buf *b)
{
	jit_load(b, 8, false, JIT_RSP, JIT_R12, JIT_RUN_SP);
	jit_pop(b, JIT_R11);
	jit_store_r(b, 8, JIT_R12, JIT_RUN_SP, JIT_R11);
	for (int i = 5; i >= 0; i--)
		jit_pop(b, full_saves[i]);
	jit_ret(b);
}

static void prologue_body(struct jit_state *st, size_t f)
{
	struct jit_buf *b = &st->b;
	const struct jit_func *fn = &st->funcs[f];
	if (f == 0 && st->budget) {
		/* 6 pushes + the saved jit_sp keep rsp 16-byte aligned */
		entry_frame(b, JIT_RDX);
		if (st->prog->no_verify)
			jit_store_i(b, 8, JIT_R12, JIT_RUN_DEPTH, 0);
		if (st->has_cb) {
			/* helpers reach callbacks through run->call */
			jit_mov_ri64(b, JIT_R11, (uint64_t)(uintptr_t)jit_run_call);
			jit_store_r(b, 8, JIT_R12, (int32_t)offsetof(struct bpfvm_run, call),
				    JIT_R11);
		}
		if (fn->stack) {
			jit_mov_rr(b, true, JIT_RBP, JIT_RSP);
			jit_alu_ri(b, true, JIT_X_SUB, JIT_RSP, BPFVM_STACK_SIZE);
		}
		return;
	}
	if (f != 0 && st->budget && st->prog->no_verify) {
		/* unverified recursion: bound the depth like the interpreter */
		jit_mem_incdec(b, JIT_X_INC, JIT_R12, JIT_RUN_DEPTH);
		jit_mem_cmp_i8(b, JIT_R12, JIT_RUN_DEPTH, BPFVM_MAX_CALL_DEPTH - 1);
		jit_jump_lbl(st, JIT_CC_A, jit_lbl_abort(st));
	}
	for (int i = 0; i < 6; i++)
		if (fn->saves & (1u << full_saves[i]))
			jit_push(b, full_saves[i]);
	if (f == 0 && st->full) {
		/* main that calls out: r12 is the run state itself, frame as a
		 * subprogram's (analyse put r12 in the saves) */
		jit_mov_rr(b, true, JIT_R12, JIT_RDX);
	} else if (f == 0) {
		/* leaf main: nothing calls out, alignment is irrelevant */
		if (fn->stack) {
			jit_mov_rr(b, true, JIT_RBP, JIT_RSP);
			jit_alu_ri(b, true, JIT_X_SUB, JIT_RSP, BPFVM_STACK_SIZE);
		}
		return;
	}
	if (fn->frame)
		jit_alu_ri(b, true, JIT_X_SUB, JIT_RSP, (int32_t)fn->frame);
	if (fn->stack)
		jit_lea(b, JIT_RBP, JIT_RSP, BPFVM_STACK_SIZE);
}

static void leaf_epilogue(struct jit_state *st, const struct jit_func *fn)
{
	struct jit_buf *b = &st->b;
	if (fn->stack)
		jit_mov_rr(b, true, JIT_RSP, JIT_RBP);
	for (int i = 5; i >= 0; i--)
		if (fn->saves & (1u << full_saves[i]))
			jit_pop(b, full_saves[i]);
	jit_ret(b);
}

void jit_epilogue(struct jit_state *st, size_t f)
{
	struct jit_buf *b = &st->b;
	const struct jit_func *fn = &st->funcs[f];
	if (f == 0 && st->budget) {
		entry_unwind(b);
		return;
	}
	if (f == 0 && !st->full) {
		leaf_epilogue(st, fn);
		return;
	}
	if (fn->frame)
		jit_alu_ri(b, true, JIT_X_ADD, JIT_RSP, (int32_t)fn->frame);
	for (int i = 5; i >= 0; i--)
		if (fn->saves & (1u << full_saves[i]))
			jit_pop(b, full_saves[i]);
	if (f != 0 && st->budget && st->prog->no_verify)
		jit_mem_incdec(b, JIT_X_DEC, JIT_R12, JIT_RUN_DEPTH);
	jit_ret(b);
}

/* The budget ran out (or an unverified program went too deep): mark the run
 * stopped, result 0, and unwind to the innermost entry frame, the program's
 * or the callback thunk's (whose helper then sees the stop). */
void jit_abort_stub(struct jit_state *st)
{
	struct jit_buf *b = &st->b;
	jit_store_i(b, 8, JIT_R12, JIT_RUN_BUDGET, 0);
	jit_alu_rr(b, false, JIT_OP_XOR, JIT_RAX, JIT_RAX);
	entry_unwind(b);
}

/* uint64_t thunk(r1, r2, r3, r4, run, fn): a C-callable entry into one BPF
 * function of this image, with the entry frame of the main program (only
 * budgeted programs have callbacks). */
void jit_cb_thunk(struct jit_state *st)
{
	struct jit_buf *b = &st->b;
	entry_frame(b, JIT_R8);
	jit_call_r(b, JIT_R9);
	entry_unwind(b);
}

static void shift_imm(struct jit_buf *b, bool w, int ext, int dst, int32_t imm)
{
	uint8_t count = (uint8_t)(imm & (w ? 63 : 31));
	if (count)
		jit_shift_ri(b, w, ext, dst, count);
	else if (!w)
		jit_mov_rr(b, false, dst, dst); /* still zero-extends */
}

static void shift_reg(struct jit_buf *b, bool w, int ext, int dst, int src)
{
	if (src == JIT_RCX) {
		jit_shift_cl(b, w, ext, dst);
		return;
	}
	/* the count must be in cl, which is R4: park R4 in r11 */
	jit_mov_rr(b, true, JIT_R11, JIT_RCX);
	jit_mov_rr(b, true, JIT_RCX, src);
	if (dst == JIT_RCX) {
		jit_shift_cl(b, w, ext, JIT_R11);
		jit_mov_rr(b, true, JIT_RCX, JIT_R11);
	} else {
		jit_shift_cl(b, w, ext, dst);
		jit_mov_rr(b, true, JIT_RCX, JIT_R11);
	}
}

/* dst = dst / r11 or dst % r11 with r11 != 0 (and != -1 when signed);
 * div needs rdx:rax, which are R3 and R0: they are parked in r9/r10. */
static void divide(struct jit_buf *b, bool w, bool sgn, bool mod, int dst)
{
	if (dst != JIT_RAX)
		jit_mov_rr(b, true, JIT_R10, JIT_RAX);
	if (dst != JIT_RDX)
		jit_mov_rr(b, true, JIT_R9, JIT_RDX);
	if (dst != JIT_RAX)
		jit_mov_rr(b, true, JIT_RAX, dst);
	if (sgn)
		jit_cqo(b, w);
	else
		jit_alu_rr(b, false, JIT_OP_XOR, JIT_RDX, JIT_RDX);
	jit_grp3(b, w, sgn ? JIT_X_IDIV : JIT_X_DIV, JIT_R11);
	int res = mod ? JIT_RDX : JIT_RAX;
	if (dst != res)
		jit_mov_rr(b, true, dst, res);
	if (dst != JIT_RDX)
		jit_mov_rr(b, true, JIT_RDX, JIT_R9);
	if (dst != JIT_RAX)
		jit_mov_rr(b, true, JIT_RAX, JIT_R10);
}

/* The results of the special divisors: 0 (div → 0, mod → dst) and, signed,
 * -1 (div → -dst, which keeps INT_MIN; mod → 0). RFC 9669 §4.1. */
static void div_by_zero(struct jit_buf *b, bool w, bool mod, int dst)
{
	if (!mod)
		jit_alu_rr(b, false, JIT_OP_XOR, dst, dst);
	else if (!w)
		jit_mov_rr(b, false, dst, dst);
}

static void div_by_minus1(struct jit_buf *b, bool w, bool mod, int dst)
{
	if (mod)
		jit_alu_rr(b, false, JIT_OP_XOR, dst, dst);
	else
		jit_grp3(b, w, JIT_X_NEG, dst);
}

static int log2_exact(uint64_t v)
{
	if (v == 0 || (v & (v - 1)))
		return -1;
	return __builtin_ctzll(v);
}

static void div_imm(struct jit_buf *b, bool w, bool sgn, bool mod, int dst, int32_t imm)
{
	if (imm == 0) {
		div_by_zero(b, w, mod, dst);
		return;
	}
	if (sgn && imm == -1) {
		div_by_minus1(b, w, mod, dst);
		return;
	}
	uint64_t uimm = w ? (uint64_t)(int64_t)imm : (uint64_t)(uint32_t)imm;
	int sh = sgn ? -1 : log2_exact(uimm);
	if (sh >= 0) {
		if (mod)
			jit_alu_ri(b, w, JIT_X_AND, dst, (int32_t)(uimm - 1));
		else
			shift_imm(b, w, JIT_X_SHR, dst, sh);
		return;
	}
	jit_mov_ri(b, w, JIT_R11, imm);
	divide(b, w, sgn, mod, dst);
}

static void div_reg(struct jit_buf *b, bool w, bool sgn, bool mod, int dst, int src)
{
	jit_mov_rr(b, w, JIT_R11, src);
	jit_alu_rr(b, w, JIT_OP_TEST, JIT_R11, JIT_R11);
	size_t nz = jit_jcc8_fwd(b, JIT_CC_NE);
	div_by_zero(b, w, mod, dst);
	size_t done1 = jit_jcc8_fwd(b, JIT_CC_ALWAYS);
	jit_patch_rel8(b, nz);
	size_t done2 = 0;
	if (sgn) {
		jit_alu_ri(b, w, JIT_X_CMP, JIT_R11, -1);
		size_t gen = jit_jcc8_fwd(b, JIT_CC_NE);
		div_by_minus1(b, w, mod, dst);
		done2 = jit_jcc8_fwd(b, JIT_CC_ALWAYS);
		jit_patch_rel8(b, gen);
	}
	divide(b, w, sgn, mod, dst);
	jit_patch_rel8(b, done1);
	if (sgn)
		jit_patch_rel8(b, done2);
}

static int alu_op(uint8_t op, uint8_t *x86op, int *ext)
{
	switch (op) {
	case BPF_ADD:
		*x86op = JIT_OP_ADD, *ext = JIT_X_ADD;
		return 0;
	case BPF_SUB:
		*x86op = JIT_OP_SUB, *ext = JIT_X_SUB;
		return 0;
	case BPF_OR:
		*x86op = JIT_OP_OR, *ext = JIT_X_OR;
		return 0;
	case BPF_AND:
		*x86op = JIT_OP_AND, *ext = JIT_X_AND;
		return 0;
	case BPF_XOR:
		*x86op = JIT_OP_XOR, *ext = JIT_X_XOR;
		return 0;
	}
	return -1;
}

/* Peephole: "rD = rS; rD += K" (how clang forms stack and ctx pointers for
 * helper arguments) becomes one lea, unless a jump lands between the two or
 * blinding hides K. */
static bool fuse_lea(struct jit_state *st, uint32_t pc, const struct bpfvm_insn *in)
{
	const struct bpfvm_insn *nx = &st->prog->insns[pc + 1];
	if (st->blind || pc + 1 >= st->n)
		return false;
	/* the second insn must be no jump target and in the same function */
	const struct bpfvm_insn_aux *nxa = &st->prog->aux[pc + 1];
	if (nxa->jump_target || nxa->sub_start)
		return false;
	if (nx->code != (BPF_ALU64 | BPF_K | BPF_ADD) || nx->dst != in->dst)
		return false;
	jit_lea(&st->b, xreg(in->dst), xreg(in->src), nx->imm);
	return true;
}

static int alu(struct jit_state *st, uint32_t pc, const struct bpfvm_insn *in)
{
	struct jit_buf *b = &st->b;
	bool w = BPF_CLASS(in->code) == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X;
	int dst = xreg(in->dst), src = xreg(in->src);
	uint8_t op = BPF_OP(in->code), x86op;
	int ext;
	if (alu_op(op, &x86op, &ext) == 0) {
		if (x)
			jit_alu_rr(b, w, x86op, dst, src);
		else
			jit_alu_ri(b, w, ext, dst, in->imm);
		return 1;
	}
	switch (op) {
	case BPF_MOV:
		if (w && x && in->off == 0 && fuse_lea(st, pc, in))
			return 2;
		if (!x) {
			jit_mov_ri(b, w, dst, in->imm);
		} else if (in->off == 0) {
			if (!w || dst != src)
				jit_mov_rr(b, w, dst, src);
		} else if (in->off == 8 || in->off == 16 || (w && in->off == 32)) {
			jit_movsx_rr(b, w, dst, src, in->off / 8);
		} else {
			return fail(st, pc, "bad movsx width");
		}
		return 1;
	case BPF_MUL:
		if (x)
			jit_imul_rr(b, w, dst, src);
		else
			jit_imul_ri(b, w, dst, in->imm);
		return 1;
	case BPF_NEG:
		jit_grp3(b, w, JIT_X_NEG, dst);
		return 1;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		ext = op == BPF_LSH ? JIT_X_SHL : op == BPF_RSH ? JIT_X_SHR : JIT_X_SAR;
		if (x)
			shift_reg(b, w, ext, dst, src);
		else
			shift_imm(b, w, ext, dst, in->imm);
		return 1;
	case BPF_DIV:
	case BPF_MOD:
		if (in->off != 0 && in->off != 1)
			return fail(st, pc, "bad div/mod offset");
		if (x)
			div_reg(b, w, in->off == 1, op == BPF_MOD, dst, src);
		else
			div_imm(b, w, in->off == 1, op == BPF_MOD, dst, in->imm);
		return 1;
	case BPF_END:
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return fail(st, pc, "bad byte swap width");
		if (!w && !x) { /* to little endian: the host order, truncate */
			if (in->imm == 16)
				jit_movzx_rr(b, dst, dst, 2);
			else if (in->imm == 32)
				jit_mov_rr(b, false, dst, dst);
			return 1;
		}
		if (w && x)
			return fail(st, pc, "bad bswap source");
		if (in->imm == 16) {
			jit_rol16_8(b, dst);
			jit_movzx_rr(b, dst, dst, 2);
		} else {
			jit_bswap(b, in->imm == 64, dst);
		}
		return 1;
	}
	return fail(st, pc, "unknown ALU op");
}

static int atomic(struct jit_state *st, uint32_t pc, const struct bpfvm_insn *in)
{
	struct jit_buf *b = &st->b;
	int size = bpfvm_insn_size(in->code), dst = xreg(in->dst), src = xreg(in->src);
	bool w = size == 8;
	if (size != 4 && size != 8)
		return fail(st, pc, "atomic of unsupported size");
	uint8_t x86op;
	int ext;
	switch (in->imm) {
	case BPF_ADD:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
		alu_op((uint8_t)in->imm, &x86op, &ext);
		jit_atomic(b, size, x86op, src, dst, in->off);
		return 1;
	case BPF_ADD | BPF_FETCH:
		jit_atomic(b, size, 0xc1, src, dst, in->off);
		return 1;
	case BPF_XCHG:
		jit_atomic(b, size, 0x87, src, dst, in->off);
		return 1;
	case BPF_CMPXCHG:
		jit_atomic(b, size, 0xb1, src, dst, in->off);
		if (!w)
			jit_mov_rr(b, false, JIT_RAX, JIT_RAX);
		return 1;
	case BPF_OR | BPF_FETCH:
	case BPF_AND | BPF_FETCH:
	case BPF_XOR | BPF_FETCH:
		break;
	default:
		return fail(st, pc, "unknown atomic op");
	}
	/* no x86 fetch-or/and/xor: a cmpxchg loop, which needs rax (R0) */
	alu_op((uint8_t)(in->imm & ~BPF_FETCH), &x86op, &ext);
	int base = dst == JIT_RAX ? JIT_R10 : dst, opnd = src == JIT_RAX ? JIT_R10 : src;
	jit_mov_rr(b, true, JIT_R10, JIT_RAX);
	jit_load(b, size, false, JIT_RAX, base, in->off);
	size_t loop = b->len;
	jit_mov_rr(b, true, JIT_R11, JIT_RAX);
	jit_alu_rr(b, w, x86op, JIT_R11, opnd);
	jit_atomic(b, size, 0xb1, JIT_R11, base, in->off);
	jit_jump(b, JIT_CC_NE, (int64_t)b->len, (int64_t)loop, false);
	if (src == JIT_RAX) {
		if (!w)
			jit_mov_rr(b, false, JIT_RAX, JIT_RAX);
	} else {
		jit_mov_rr(b, w, src, JIT_RAX);
		jit_mov_rr(b, true, JIT_RAX, JIT_R10);
	}
	return 1;
}

static int mem(struct jit_state *st, uint32_t pc, const struct bpfvm_insn *in)
{
	struct jit_buf *b = &st->b;
	int size = bpfvm_insn_size(in->code), dst = xreg(in->dst), src = xreg(in->src);
	uint8_t cls = BPF_CLASS(in->code), mode = BPF_MODE(in->code);
	if (cls == BPF_LDX && (mode == BPF_MEM || (mode == BPF_MEMSX && size != 8))) {
		jit_load(b, size, mode == BPF_MEMSX, dst, src, in->off);
		return 1;
	}
	if (cls == BPF_ST && mode == BPF_MEM) {
		jit_store_i(b, size, dst, in->off, in->imm);
		return 1;
	}
	if (cls == BPF_STX && mode == BPF_MEM) {
		jit_store_r(b, size, dst, in->off, src);
		return 1;
	}
	if (cls == BPF_STX && mode == BPF_ATOMIC)
		return atomic(st, pc, in);
	return fail(st, pc, "unsupported load/store mode");
}

static int jcc_of(uint8_t op)
{
	switch (op) {
	case BPF_JEQ:
		return JIT_CC_E;
	case BPF_JNE:
	case BPF_JSET:
		return JIT_CC_NE;
	case BPF_JGT:
		return JIT_CC_A;
	case BPF_JGE:
		return JIT_CC_AE;
	case BPF_JLT:
		return JIT_CC_B;
	case BPF_JLE:
		return JIT_CC_BE;
	case BPF_JSGT:
		return JIT_CC_G;
	case BPF_JSGE:
		return JIT_CC_GE;
	case BPF_JSLT:
		return JIT_CC_L;
	case BPF_JSLE:
		return JIT_CC_LE;
	}
	return -2;
}

static void budget_tick(struct jit_state *st)
{
	/* a back-edge spends one unit; the last one stops the run */
	jit_mem_alu_i8(&st->b, JIT_X_SUB, JIT_R12, JIT_RUN_BUDGET, 1);
	jit_jump_lbl(st, JIT_CC_E, jit_lbl_abort(st));
}

/* After a call that may have run callbacks or another program: a stop in
 * there ends this run too. */
static void budget_check(struct jit_state *st)
{
	jit_mem_cmp_i8(&st->b, JIT_R12, JIT_RUN_BUDGET, 0);
	jit_jump_lbl(st, JIT_CC_E, jit_lbl_abort(st));
}

static void exit_insn(struct jit_state *st, size_t f, uint32_t pc)
{
	const struct jit_func *fn = &st->funcs[f];
	if (f == 0 && !st->full)
		leaf_epilogue(st, fn);
	else if (pc + 1 != fn->end)
		jit_jump_lbl(st, JIT_CC_ALWAYS, jit_lbl_fepi(st, f));
}

static size_t func_at(const struct jit_state *st, uint32_t pc)
{
	for (size_t f = 0; f < st->nfuncs; f++)
		if (st->funcs[f].pc == pc)
			return f;
	return SIZE_MAX;
}

/* Call C code at addr: call rel32 when every byte of the image reaches it
 * (the mapping is placed near this library), else through r11. */
static void call_abs(struct jit_state *st, const void *addr)
{
	int64_t a = (int64_t)(uintptr_t)addr;
	int64_t lo = a - (int64_t)st->base, hi = a - (int64_t)st->base_end;
	if (st->base && lo > INT32_MIN / 2 && lo < INT32_MAX / 2 && hi > INT32_MIN / 2 &&
	    hi < INT32_MAX / 2) {
		jit_call_rel(&st->b, (int64_t)st->base + here(st), a, !st->have_prev);
		return;
	}
	jit_mov_ri64(&st->b, JIT_R11, (uint64_t)a);
	jit_call_r(&st->b, JIT_R11);
}

/* The run state as the sixth C argument. */
static void run_arg(struct jit_state *st)
{
	jit_mov_rr(&st->b, true, JIT_R9, JIT_R12);
}

static int call(struct jit_state *st, size_t f, uint32_t pc, const struct bpfvm_insn *in)
{
	struct jit_buf *b = &st->b;
	if (in->src == BPF_PSEUDO_CALL) {
		size_t g = func_at(st, pc + (uint32_t)in->imm + 1);
		if (g == SIZE_MAX)
			return fail(st, pc, "call target is not a function");
		jit_call_lbl(st, jit_lbl_fstart(st, g));
		return 1;
	}
	if (in->src == 0 && in->imm == BPF_HELPER_TAIL_CALL) {
		/* jit_tail_call(ctx, map, index, r0, r5, run) */
		jit_mov_rr(b, true, JIT_RCX, JIT_RAX);
		run_arg(st);
		call_abs(st, (const void *)(uintptr_t)jit_tail_call);
		if (st->budget)
			budget_check(st);
		jit_alu_rr(b, true, JIT_OP_TEST, JIT_RDX, JIT_RDX);
		/* a target ran: its r0 is this function's result */
		jit_jump_lbl(st, JIT_CC_NE, jit_lbl_fepi(st, f));
		return 1;
	}
	const struct bpfvm_prog_type *t = st->prog->type;
	const struct bpfvm_helper *h = t ? bpfvm_call_proto(t, in->src, in->imm) : NULL;
	if (!h || !h->fn)
		return fail(st, pc, "helper not available to this program type");
	run_arg(st);
	/* the calling frame's r10 (0 without a stack) for bpfvm_run_readable:
	 * a stale value would name a frame that has returned */
	if (st->funcs[f].stack)
		jit_store_r(b, 8, JIT_R9, (int32_t)offsetof(struct bpfvm_run, fp), JIT_RBP);
	else
		jit_store_i(b, 8, JIT_R9, (int32_t)offsetof(struct bpfvm_run, fp), 0);
	call_abs(st, (const void *)(uintptr_t)h->fn);
	/* a callback's stop, or the helper's own work (bpfvm_run_charge) */
	if (st->has_cb || st->budget)
		budget_check(st);
	return 1;
}

static int jmp(struct jit_state *st, size_t f, uint32_t pc, const struct bpfvm_insn *in)
{
	struct jit_buf *b = &st->b;
	bool w = BPF_CLASS(in->code) == BPF_JMP, x = BPF_SRC(in->code) == BPF_X;
	uint8_t op = BPF_OP(in->code);
	if (op == BPF_CALL && w)
		return call(st, f, pc, in);
	if (op == BPF_EXIT && w) {
		exit_insn(st, f, pc);
		return 1;
	}
	int64_t rel = op == BPF_JA && !w ? in->imm : in->off;
	uint32_t target = (uint32_t)((int64_t)pc + 1 + rel);
	bool tick = st->budget && target <= pc;
	if (op == BPF_JA) {
		if (tick)
			budget_tick(st);
		if (target != pc + 1)
			jit_jump_lbl(st, JIT_CC_ALWAYS, target);
		return 1;
	}
	int cc = jcc_of(op);
	if (cc == -2)
		return fail(st, pc, "unknown jump op");
	int dst = xreg(in->dst), src = xreg(in->src);
	if (x)
		jit_alu_rr(b, w, op == BPF_JSET ? JIT_OP_TEST : JIT_OP_CMP, dst, src);
	else if (op == BPF_JSET)
		jit_test_ri(b, w, dst, in->imm);
	else if (in->imm == 0)
		jit_alu_rr(b, w, JIT_OP_TEST, dst, dst); /* same flags as cmp 0 */
	else
		jit_alu_ri(b, w, JIT_X_CMP, dst, in->imm);
	if (tick) {
		/* only a taken back-edge spends a unit, as in the interpreter:
		 * the inverted condition skips the tick and the jump */
		size_t skip = jit_jcc8_fwd(b, cc ^ 1);
		budget_tick(st);
		jit_jump_lbl(st, JIT_CC_ALWAYS, target);
		jit_patch_rel8(b, skip);
		return 1;
	}
	jit_jump_lbl(st, cc, target);
	return 1;
}

int jit_insn(struct jit_state *st, size_t f, uint32_t pc)
{
	const struct bpfvm_insn *in = &st->prog->insns[pc];
	struct bpfvm_insn blinded;
	bool done = false;
	if (st->blind && jit_blind(st, in, &blinded, &done)) {
		if (done)
			return 2;
		in = &blinded;
	}
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return alu(st, pc, in);
	case BPF_JMP:
	case BPF_JMP32:
		return jmp(st, f, pc, in);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return mem(st, pc, in);
	case BPF_LD:
		if (in->code != (BPF_LD | BPF_IMM | BPF_DW))
			return fail(st, pc, "legacy packet loads are not supported");
		/* map pointers, map values and callback indices were resolved into
		 * the imm pair at load time */
		jit_mov_ri64(&st->b, xreg(in->dst),
			     (uint64_t)(uint32_t)in->imm | (uint64_t)(uint32_t)in[1].imm << 32);
		return 2;
	}
	return fail(st, pc, "unknown instruction class");
}
