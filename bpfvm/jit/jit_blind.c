/* Constant blinding (opt-in: the load option jit_blind, for programs
 * from untrusted sources): immediates an attacker picks would
 * otherwise appear verbatim in executable memory (JIT spraying). Each one is
 * emitted as imm ^ key followed by xor key into r10, with a per-image random
 * key, and the insn is translated in its register form. As the Linux
 * bpf_jit_blind_constants, but done at encoding time. */
#include "jit_int.h"

static bool has_blindable_imm(const struct bpfvm_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		/* END's imm is a width, NEG has none */
		return BPF_SRC(in->code) == BPF_K && op != BPF_END && op != BPF_NEG;
	case BPF_JMP:
	case BPF_JMP32:
		return BPF_SRC(in->code) == BPF_K && op != BPF_JA && op != BPF_CALL &&
		       op != BPF_EXIT;
	case BPF_ST:
		return BPF_MODE(in->code) == BPF_MEM;
	}
	return false;
}

bool jit_blind(struct jit_state *st, const struct bpfvm_insn *in, struct bpfvm_insn *out,
	       bool *done)
{
	struct jit_buf *b = &st->b;
	uint32_t key = (uint32_t)st->blind_key;
	if (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->dst <= 10) {
		static const uint8_t regs[11] = {JIT_RAX, JIT_RDI, JIT_RSI, JIT_RDX,
						 JIT_RCX, JIT_R8,  JIT_RBX, JIT_R13,
						 JIT_R14, JIT_R15, JIT_RBP};
		uint64_t v = (uint64_t)(uint32_t)in->imm | (uint64_t)(uint32_t)in[1].imm << 32;
		uint64_t k64 = st->blind_key | 1ull << 63; /* never a short encoding */
		int dst = regs[in->dst];
		jit_mov_ri64(b, dst, v ^ k64);
		jit_mov_ri64(b, JIT_R10, k64);
		jit_alu_rr(b, true, JIT_OP_XOR, dst, JIT_R10);
		*done = true;
		return true;
	}
	if (!has_blindable_imm(in))
		return false;
	/* 64-bit forms sign-extend imm; xor commutes with sign extension */
	bool w = BPF_CLASS(in->code) == BPF_ALU64 || BPF_CLASS(in->code) == BPF_JMP ||
		 BPF_CLASS(in->code) == BPF_ST;
	jit_mov_ri(b, w, JIT_R10, (int32_t)((uint32_t)in->imm ^ key));
	jit_alu_ri(b, w, JIT_X_XOR, JIT_R10, (int32_t)key);
	*out = *in;
	out->imm = 0;
	out->src = JIT_BREG_SCRATCH;
	if (BPF_CLASS(in->code) == BPF_ST)
		out->code = (uint8_t)(BPF_STX | BPF_MODE(in->code) | BPF_SIZE(in->code));
	else
		out->code |= BPF_X;
	return true;
}
