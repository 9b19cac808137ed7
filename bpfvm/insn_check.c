/* The one instruction-encoding check (RFC 9669 §3-§5; reserved fields zero as
 * the kernel's check_subprogs/do_check require): opcodes, register numbers,
 * the ld_imm64 pair, and that every jump and call lands on an instruction
 * start inside the program and that control cannot run off its end. The
 * loader runs it on every program, verified or not, so the interpreter, the
 * verifier and the JIT all start from well-formed instructions. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bpfvm_int.h"

static int why(struct bpfvm_insn_err *e, size_t pc, const char *fmt, ...)
{
	va_list ap;
	e->pc = pc;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof e->why, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int check_alu(const struct bpfvm_insn *in, size_t pc, struct bpfvm_insn_err *e)
{
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;

	if (op == BPF_END) {
		if (is64 && x)
			return why(e, pc, "invalid bswap: source bit set");
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return why(e, pc, "invalid byte swap width %d", in->imm);
		if (in->src || in->off)
			return why(e, pc, "invalid byte swap: reserved fields set");
		return 0;
	}
	if (op == BPF_NEG) {
		if (x || in->src || in->off || in->imm)
			return why(e, pc, "BPF_NEG uses reserved fields");
		return 0;
	}
	if (op > BPF_END)
		return why(e, pc, "invalid BPF_ALU opcode 0x%02x", in->code);
	if (x ? in->imm != 0 : in->src != 0)
		return why(e, pc, "BPF_ALU uses reserved fields");
	if (in->off == 0)
		return 0;
	/* RFC 9669 §4.1: off 1 selects signed div/mod; MOVSX (off 8/16/32) is
	 * register-source only and has no 32-bit-from-32 form */
	if (op == BPF_DIV || op == BPF_MOD)
		return in->off == 1 ? 0 : why(e, pc, "div/mod off must be 0 or 1");
	if (op == BPF_MOV) {
		if (x && (in->off == 8 || in->off == 16 || (is64 && in->off == 32)))
			return 0;
		return why(e, pc, "invalid movsx width %d", in->off);
	}
	return why(e, pc, "BPF_ALU uses reserved fields");
}

static int check_jmp(const struct bpfvm_insn *in, size_t pc, struct bpfvm_insn_err *e)
{
	uint8_t op = BPF_OP(in->code);
	bool j32 = BPF_CLASS(in->code) == BPF_JMP32;

	switch (op) {
	case BPF_JA: /* RFC 9669 §4.3: JMP32 JA (gotol) takes its offset from imm */
		if (BPF_SRC(in->code) || in->src || in->dst || (j32 ? in->off : in->imm))
			return why(e, pc, "BPF_JA uses reserved fields");
		return 0;
	case BPF_CALL:
		if (j32 || BPF_SRC(in->code) || in->off || in->dst)
			return why(e, pc, "BPF_CALL uses reserved fields");
		if (in->src != 0 && in->src != BPF_PSEUDO_CALL && in->src != BPF_PSEUDO_KFUNC_CALL)
			return why(e, pc, "unsupported call kind %u", in->src);
		return 0;
	case BPF_EXIT:
		if (j32 || BPF_SRC(in->code) || in->src || in->dst || in->off || in->imm)
			return why(e, pc, "BPF_EXIT uses reserved fields");
		return 0;
	case 0xe0:
	case 0xf0:
		return why(e, pc, "unknown opcode 0x%02x", in->code);
	default:
		if (BPF_SRC(in->code) == BPF_X ? in->imm != 0 : in->src != 0)
			return why(e, pc, "BPF_JMP uses reserved fields");
		return 0;
	}
}

static int check_ldimm64(const struct bpfvm_insn *insns, size_t n, size_t pc,
			 struct bpfvm_insn_err *e)
{
	const struct bpfvm_insn *in = &insns[pc];
	if (in->off)
		return why(e, pc, "invalid ld_imm64: reserved fields set");
	if (pc + 1 >= n)
		return why(e, pc, "invalid ld_imm64: missing second half");
	const struct bpfvm_insn *hi = &in[1];
	if (hi->code || hi->dst || hi->src || hi->off)
		return why(e, pc, "invalid ld_imm64: bad second half");
	if (in->src != 0 && in->src != BPF_PSEUDO_MAP_FD && in->src != BPF_PSEUDO_MAP_VALUE &&
	    in->src != BPF_PSEUDO_FUNC)
		return why(e, pc, "unsupported ld_imm64 source %u", in->src);
	return 0;
}

static int check_one(const struct bpfvm_insn *insns, size_t n, size_t pc, struct bpfvm_insn_err *e)
{
	const struct bpfvm_insn *in = &insns[pc];
	uint8_t mode = BPF_MODE(in->code);

	if (in->dst > BPFVM_REG_FP || (in->src > BPFVM_REG_FP && !bpfvm_insn_is_ldimm64(in)))
		return why(e, pc, "invalid register R%u",
			   in->dst > BPFVM_REG_FP ? in->dst : in->src);
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		if (mode == BPF_ABS || mode == BPF_IND)
			return why(e, pc,
				   "BPF_LD_[ABS|IND] (legacy packet loads) are not supported");
		if (!bpfvm_insn_is_ldimm64(in))
			return why(e, pc, "unknown opcode 0x%02x", in->code);
		return check_ldimm64(insns, n, pc, e);
	case BPF_LDX:
		if (mode == BPF_MEMSX && BPF_SIZE(in->code) == BPF_DW)
			return why(e, pc, "no sign-extending 64-bit load");
		if (mode != BPF_MEM && mode != BPF_MEMSX)
			return why(e, pc, "unknown opcode 0x%02x", in->code);
		if (in->imm)
			return why(e, pc, "BPF_LDX uses reserved fields");
		return 0;
	case BPF_ST:
		if (mode != BPF_MEM)
			return why(e, pc, "unknown opcode 0x%02x", in->code);
		if (in->src)
			return why(e, pc, "BPF_ST uses reserved fields");
		return 0;
	case BPF_STX:
		if (mode == BPF_MEM)
			return in->imm ? why(e, pc, "BPF_STX uses reserved fields") : 0;
		if (mode != BPF_ATOMIC)
			return why(e, pc, "unknown opcode 0x%02x", in->code);
		if (BPF_SIZE(in->code) != BPF_W && BPF_SIZE(in->code) != BPF_DW)
			return why(e, pc, "atomic size must be 32 or 64 bits");
		if (!bpfvm_atomic_op_valid(in->imm))
			return why(e, pc, "unknown atomic operation 0x%02x",
				   (unsigned)in->imm & 0xff);
		return 0;
	case BPF_ALU:
	case BPF_ALU64:
		return check_alu(in, pc, e);
	default:
		return check_jmp(in, pc, e);
	}
}

/* Jumps and bpf-to-bpf calls: pc + delta + 1 must start an instruction. */
static int check_target(const uint8_t *hi, size_t n, size_t pc, int64_t delta, bool call,
			struct bpfvm_insn_err *e)
{
	int64_t t = (int64_t)pc + delta + 1;
	if (t < 0 || t >= (int64_t)n)
		return call ? why(e, pc, "call to invalid destination %lld", (long long)t)
			    : why(e, pc, "jump out of range from insn %zu to %lld", pc,
				  (long long)t);
	if (hi[t])
		return why(e, pc, "jump into the middle of ld_imm64 at insn %lld", (long long)t);
	return 0;
}

int bpfvm_insns_check(const struct bpfvm_insn *insns, size_t n, struct bpfvm_insn_err *e)
{
	if (n == 0)
		return why(e, 0, "program has no instructions");
	uint8_t *hi = calloc(n, 1); /* second slots of ld_imm64 */
	if (!hi)
		return -ENOMEM;
	int err = 0;
	size_t last = 0;
	for (size_t pc = 0; pc < n && !err; pc++) {
		err = check_one(insns, n, pc, e);
		last = pc;
		if (!err && bpfvm_insn_is_ldimm64(&insns[pc]))
			hi[++pc] = 1; /* the second slot is data */
	}
	for (size_t pc = 0; pc < n && !err; pc++) {
		const struct bpfvm_insn *in = &insns[pc];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		if (hi[pc] || (cls != BPF_JMP && cls != BPF_JMP32))
			continue;
		if (op == BPF_CALL && in->src == BPF_PSEUDO_CALL)
			err = check_target(hi, n, pc, in->imm, true, e);
		else if (op != BPF_CALL && op != BPF_EXIT)
			err = check_target(hi, n, pc, bpfvm_insn_jump_off(in), false, e);
	}
	free(hi);
	/* the kernel's check_cfg rule: execution cannot fall off the end */
	if (!err && !bpfvm_insn_ends_flow(&insns[last]))
		err = why(e, last, "falls through off the end of the program");
	return err;
}
