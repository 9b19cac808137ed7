/* JIT ISA cases: every opcode class with edge values, run on the interpreter
 * and on the JIT image of the same program; r0 must equal the expected value
 * in both and the input memory must end up identical. Also register aliasing
 * with R0/R3/R4 (the registers div, cmpxchg and shifts borrow). */
#include "check_main.h"
#include "isa_cases.h"
#include "isa_insn.h"
#include "jit_engines.h"

struct jcase {
	const char *name;
	struct bpfvm_insn insns[24];
	size_t n;
	uint64_t expect;
};

#define C(nm, exp, ...)                                                                            \
	{                                                                                          \
		.name = nm, .insns = {__VA_ARGS__},                                                \
		.n = NINSNS(((struct bpfvm_insn[]){__VA_ARGS__})), .expect = (exp)                 \
	}

#define R0     0
#define R1     1
#define R2     2
#define R3     3
#define R4     4
#define R5     5
#define R6     6
#define R7     7
#define R8     8
#define R9     9
#define R10    10
#define IMIN64 0x8000000000000000ull

static const struct jcase cases[] = {
    C("mov_imm_neg", 0xffffffffffffffffull, MOV64_K(R0, -1), EXIT()),
    C("mov32_imm_neg", 0xffffffffull, MOV32_K(R0, -1), EXIT()),
    C("lddw", 0x123456789abcdef0ull, LDDW(R0, 0x123456789abcdef0ull), EXIT()),
    C("lddw_small", 7, LDDW(R0, 7), EXIT()),
    C("lddw_neg", 0xfffffffffffffff0ull, LDDW(R0, 0xfffffffffffffff0ull), EXIT()),
    C("add32_wrap", 0, MOV32_K(R0, -1), ALU32_K(BPF_ADD, R0, 1), EXIT()),
    C("add64_big_imm", 0x100000000ull + 0x12345677, LDDW(R0, 0x100000000ull),
      ALU64_K(BPF_ADD, R0, 0x12345677), EXIT()),
    C("sub_reg", 0xfffffffffffffffeull, MOV64_K(R0, 1), MOV64_K(R3, 3), ALU64_X(BPF_SUB, R0, R3),
      EXIT()),
    C("alu32_zext", 0x1, LDDW(R0, 0xffffffff00000000ull), ALU32_K(BPF_ADD, R0, 1), EXIT()),
    C("and_neg_imm", 0xfffffffffffff000ull, MOV64_K(R0, -1), ALU64_K(BPF_AND, R0, -4096), EXIT()),
    C("or_xor", 0xf0f0 ^ 0xff, MOV64_K(R0, 0xf000), ALU64_K(BPF_OR, R0, 0xf0),
      ALU64_K(BPF_XOR, R0, 0xff), EXIT()),
    C("mul64", 0xfffffffffffffffaull, MOV64_K(R0, 3), ALU64_K(BPF_MUL, R0, -2), EXIT()),
    C("mul32", 0xfffffffaull, MOV64_K(R0, 3), ALU32_K(BPF_MUL, R0, -2), EXIT()),
    C("mul_reg_big", 0x2468acf133357ce0ull, LDDW(R4, 0x1234567899abcdefull), MOV64_K(R0, 2),
      ALU64_X(BPF_MUL, R0, R4), ALU64_K(BPF_SUB, R0, 0x221efe), EXIT()),
    C("neg64", 0xfffffffffffffffbull, MOV64_K(R0, 5), NEG64(R0), EXIT()),
    C("neg32", 0xfffffffbull, MOV64_K(R0, 5), NEG32(R0), EXIT()),
    C("lsh_mask64", 2, MOV64_K(R0, 1), ALU64_K(BPF_LSH, R0, 65), EXIT()),
    C("lsh_mask32", 2, MOV64_K(R0, 1), ALU32_K(BPF_LSH, R0, 33), EXIT()),
    C("rsh_reg_r4", 0x0fffffffffffffffull, MOV64_K(R0, -1), MOV64_K(R4, 4),
      ALU64_X(BPF_RSH, R0, R4), EXIT()),
    C("arsh_reg", 0xffffffffffffffffull, MOV64_K(R0, -16), MOV64_K(R2, 68),
      ALU64_X(BPF_ARSH, R0, R2), EXIT()),
    C("arsh32", 0xfffffff8ull, MOV32_K(R0, -16), ALU32_K(BPF_ARSH, R0, 1), EXIT()),
    C("shift_dst_r4", 0x50, MOV64_K(R4, 5), MOV64_K(R1, 4), ALU64_X(BPF_LSH, R4, R1),
      MOV64_X(R0, R4), EXIT()),
    C("shift_r4_by_r4", 0x60, MOV64_K(R4, 3), ALU64_X(BPF_LSH, R4, R4), ALU64_K(BPF_ADD, R4, 0x48),
      MOV64_X(R0, R4), EXIT()),
    C("shift0_32_zext", 0x5, LDDW(R0, 0xaaaaaaaa00000005ull), ALU32_K(BPF_LSH, R0, 32), EXIT()),
    C("div64", 3, MOV64_K(R0, 10), MOV64_K(R2, 3), ALU64_X(BPF_DIV, R0, R2), EXIT()),
    C("div64_by0", 0, MOV64_K(R0, 10), MOV64_K(R2, 0), ALU64_X(BPF_DIV, R0, R2), EXIT()),
    C("mod64_by0", 10, MOV64_K(R0, 10), MOV64_K(R2, 0), ALU64_X(BPF_MOD, R0, R2), EXIT()),
    C("mod32_by0_zext", 0x10, LDDW(R0, 0x1200000010ull), MOV64_K(R2, 0), ALU32_X(BPF_MOD, R0, R2),
      EXIT()),
    C("div32_by0_imm", 0, MOV64_K(R0, 10), ALU32_K(BPF_DIV, R0, 0), EXIT()),
    C("mod64_by0_imm", 10, MOV64_K(R0, 10), ALU64_K(BPF_MOD, R0, 0), EXIT()),
    C("div_unsigned_big", 1, MOV64_K(R0, -1), MOV64_K(R3, -2), ALU64_X(BPF_DIV, R0, R3), EXIT()),
    C("div32_trunc", 0x7fffffff, MOV64_K(R0, -1), MOV32_K(R3, 2), ALU32_X(BPF_DIV, R0, R3), EXIT()),
    C("div_imm_pow2", 0x1fffffffffffffffull, MOV64_K(R0, -1), ALU64_K(BPF_DIV, R0, 8), EXIT()),
    C("mod_imm_pow2", 7, MOV64_K(R0, -1), ALU64_K(BPF_MOD, R0, 8), EXIT()),
    C("div32_imm_min", 1, MOV64_K(R0, -1), ALU32_K(BPF_DIV, R0, INT32_MIN), EXIT()),
    C("div_imm_odd", 33, MOV64_K(R0, 100), ALU64_K(BPF_DIV, R0, 3), EXIT()),
    C("mod_imm_odd", 1, MOV64_K(R0, 100), ALU64_K(BPF_MOD, R0, 3), EXIT()),
    C("div_dst_r3", 5, MOV64_K(R3, 50), MOV64_K(R0, 10), ALU64_X(BPF_DIV, R3, R0), MOV64_X(R0, R3),
      EXIT()),
    C("mod_dst_r3_keeps_r0", 10 + 0, MOV64_K(R3, 53), MOV64_K(R0, 10), ALU64_X(BPF_MOD, R3, R0),
      ALU64_K(BPF_SUB, R3, 3), ALU64_X(BPF_ADD, R0, R3), EXIT()),
    C("div_src_r0", 0, MOV64_K(R5, 31), MOV64_K(R0, 10), ALU64_X(BPF_DIV, R5, R0),
      ALU64_X(BPF_SUB, R5, R0), NEG64(R5), ALU64_K(BPF_SUB, R5, 7), MOV64_X(R0, R5), EXIT()),
    C("div_keeps_r3", 77, MOV64_K(R3, 77), MOV64_K(R5, 10), MOV64_K(R6, 2),
      ALU64_X(BPF_DIV, R5, R6), MOV64_X(R0, R3), EXIT()),
    C("sdiv64", 0xfffffffffffffffdull, MOV64_K(R0, -10), MOV64_K(R2, 3), SALU64_X(BPF_DIV, R0, R2),
      EXIT()),
    C("smod64", 0xffffffffffffffffull, MOV64_K(R0, -10), MOV64_K(R2, 3), SALU64_X(BPF_MOD, R0, R2),
      EXIT()),
    C("sdiv64_overflow", IMIN64, LDDW(R0, IMIN64), MOV64_K(R2, -1), SALU64_X(BPF_DIV, R0, R2),
      EXIT()),
    C("smod64_overflow", 0, LDDW(R0, IMIN64), MOV64_K(R2, -1), SALU64_X(BPF_MOD, R0, R2), EXIT()),
    C("sdiv32_overflow", 0x80000000ull, MOV32_K(R0, INT32_MIN), SALU32_K(BPF_DIV, R0, -1), EXIT()),
    C("smod32_neg", 0xffffffffull, MOV32_K(R0, -7), SALU32_K(BPF_MOD, R0, 3), EXIT()),
    C("sdiv_by0", 0, MOV64_K(R0, -7), MOV64_K(R1, 0), SALU64_X(BPF_DIV, R0, R1), EXIT()),
    C("smod_by0", 0xfffffff9ull, MOV64_K(R0, -7), MOV64_K(R1, 0), SALU32_X(BPF_MOD, R0, R1),
      EXIT()),
    C("sdiv_imm", 0xfffffffffffffff9ull, MOV64_K(R0, 50), SALU64_K(BPF_DIV, R0, -7), EXIT()),
    C("movsx8", 0xffffffffffffff80ull, MOV64_K(R1, 0x180), MOVSX64(R0, R1, 8), EXIT()),
    C("movsx16", 0xffffffffffff8001ull, MOV64_K(R1, 0x18001), MOVSX64(R0, R1, 16), EXIT()),
    C("movsx32", 0xffffffff80000000ull, LDDW(R1, 0x180000000ull), MOVSX64(R0, R1, 32), EXIT()),
    C("movsx32_8", 0xffffff80ull, MOV64_K(R1, 0x80), MOVSX32(R0, R1, 8), EXIT()),
    C("movsx_sil", 0xffffffffffffffffull, MOV64_K(R2, 0xff), MOVSX64(R0, R2, 8), EXIT()),
    C("mov32_zext", 0x89abcdef, LDDW(R1, 0x0123456789abcdefull), MOV32_X(R0, R1), EXIT()),
    C("le16", 0xcdef, LDDW(R0, 0x0123456789abcdefull), LE(R0, 16), EXIT()),
    C("le32", 0x89abcdef, LDDW(R0, 0x0123456789abcdefull), LE(R0, 32), EXIT()),
    C("le64", 0x0123456789abcdefull, LDDW(R0, 0x0123456789abcdefull), LE(R0, 64), EXIT()),
    C("be16", 0xefcd, LDDW(R0, 0x0123456789abcdefull), BE(R0, 16), EXIT()),
    C("be32", 0xefcdab89, LDDW(R0, 0x0123456789abcdefull), BE(R0, 32), EXIT()),
    C("be64", 0xefcdab8967452301ull, LDDW(R0, 0x0123456789abcdefull), BE(R0, 64), EXIT()),
    C("bswap16_r9", 0xefcd, LDDW(R9, 0x0123456789abcdefull), BSWAP(R9, 16), MOV64_X(R0, R9),
      EXIT()),
    C("bswap64", 0xefcdab8967452301ull, LDDW(R0, 0x0123456789abcdefull), BSWAP(R0, 64), EXIT()),
    C("ldx_sizes", 0x0807060504030201ull + 0x0403 + 0x05 + 0x0c0b0a09, LDX(BPF_DW, R0, R1, 0),
      LDX(BPF_H, R2, R1, 2), ALU64_X(BPF_ADD, R0, R2), LDX(BPF_B, R3, R1, 4),
      ALU64_X(BPF_ADD, R0, R3), LDX(BPF_W, R4, R1, 8), ALU64_X(BPF_ADD, R0, R4), EXIT()),
    C("ldxsx", 0xffffffff84830483ull, LDXSX(BPF_B, R0, R1, 16), LDXSX(BPF_H, R2, R1, 16),
      ALU64_X(BPF_ADD, R0, R2), LDXSX(BPF_W, R3, R1, 16), ALU64_X(BPF_ADD, R0, R3), EXIT()),
    C("st_imm_sizes", 0, ST(BPF_B, R1, 0, 0x1ff), ST(BPF_H, R1, 2, -2), ST(BPF_W, R1, 4, -3),
      ST(BPF_DW, R1, 8, -4), MOV64_K(R0, 0), EXIT()),
    C("stx_byte_regs", 0, MOV64_K(R2, 0x1234), STX(BPF_B, R1, R2, 20), MOV64_X(R6, R1),
      MOV64_K(R7, 0x5678), STX(BPF_B, R6, R7, 21), STX(BPF_H, R6, R7, 22), MOV64_K(R1, 0x1ab),
      STX(BPF_B, R6, R1, 24), MOV64_K(R0, 0), EXIT()),
    C("stack_roundtrip", 0xdeadbeefcafe, LDDW(R2, 0xdeadbeefcafeull), STX(BPF_DW, R10, R2, -8),
      STX(BPF_DW, R10, R2, -512), LDX(BPF_DW, R0, R10, -512), EXIT()),
    C("stack_far", 0x42, ST(BPF_W, R10, -300, 0x42), LDX(BPF_W, R0, R10, -300), EXIT()),
    C("atomic_add", 0x0807060504030201ull + 5, MOV64_K(R2, 5), ATOMIC(BPF_DW, BPF_ADD, R1, R2, 0),
      LDX(BPF_DW, R0, R1, 0), EXIT()),
    C("atomic_fetch_add32", 0x04030201, MOV64_K(R2, 5),
      ATOMIC(BPF_W, BPF_ADD | BPF_FETCH, R1, R2, 0), MOV64_X(R0, R2), EXIT()),
    C("atomic_or_and_xor", 0, MOV64_K(R2, 0xf0), ATOMIC(BPF_DW, BPF_OR, R1, R2, 8),
      ATOMIC(BPF_W, BPF_AND, R1, R2, 16), ATOMIC(BPF_DW, BPF_XOR, R1, R2, 24), MOV64_K(R0, 0),
      EXIT()),
    C("atomic_fetch_or", 0x0807060504030201ull, MOV64_K(R2, 0x70),
      ATOMIC(BPF_DW, BPF_OR | BPF_FETCH, R1, R2, 0), MOV64_X(R0, R2), EXIT()),
    C("atomic_fetch_and32_keeps_r0", 0x77, MOV64_K(R0, 0x77), MOV64_K(R2, 0x0f),
      ATOMIC(BPF_W, BPF_AND | BPF_FETCH, R1, R2, 4), EXIT()),
    C("atomic_fetch_xor_src_r0", 0x0c0b0a09, MOV64_K(R0, 0xff),
      ATOMIC(BPF_W, BPF_XOR | BPF_FETCH, R1, R0, 8), EXIT()),
    C("atomic_fetch_xor_dst_r0", 0x100f0e0d, MOV64_X(R0, R1), MOV64_K(R3, 0x3),
      ATOMIC(BPF_W, BPF_XOR | BPF_FETCH, R0, R3, 12), MOV64_X(R0, R3), EXIT()),
    C("atomic_xchg", 0x0807060504030201ull, LDDW(R2, 0x1111111111111111ull),
      ATOMIC(BPF_DW, BPF_XCHG, R1, R2, 0), MOV64_X(R0, R2), EXIT()),
    C("atomic_xchg32", 0x0c0b0a09, MOV64_K(R2, -1), ATOMIC(BPF_W, BPF_XCHG, R1, R2, 8),
      MOV64_X(R0, R2), EXIT()),
    C("cmpxchg_hit", 0x0807060504030201ull, LDDW(R0, 0x0807060504030201ull), MOV64_K(R2, 9),
      ATOMIC(BPF_DW, BPF_CMPXCHG, R1, R2, 0), EXIT()),
    C("cmpxchg_miss", 0x0807060504030201ull, MOV64_K(R0, 1), MOV64_K(R2, 9),
      ATOMIC(BPF_DW, BPF_CMPXCHG, R1, R2, 0), EXIT()),
    C("cmpxchg32_zext", 0x04030201, LDDW(R0, 0xffffffff04030201ull), MOV64_K(R2, 9),
      ATOMIC(BPF_W, BPF_CMPXCHG, R1, R2, 0), EXIT()),
    C("jeq_k", 1, MOV64_K(R0, 0), MOV64_K(R2, 5), JMP_K(BPF_JEQ, R2, 5, 1), EXIT(), MOV64_K(R0, 1),
      EXIT()),
    C("jne_zero", 1, MOV64_K(R0, 0), MOV64_K(R2, 5), JMP_K(BPF_JNE, R2, 0, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jgt_unsigned", 1, MOV64_K(R0, 0), MOV64_K(R2, -1), JMP_K(BPF_JGT, R2, 5, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jsgt_signed", 0, MOV64_K(R0, 0), MOV64_K(R2, -1), JMP_K(BPF_JSGT, R2, 5, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jslt_zero", 1, MOV64_K(R0, 0), MOV64_K(R2, -1), JMP_K(BPF_JSLT, R2, 0, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jle_x", 1, MOV64_K(R0, 0), MOV64_K(R2, 5), MOV64_K(R3, 5), JMP_X(BPF_JLE, R2, R3, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jsge_x", 0, MOV64_K(R0, 0), MOV64_K(R2, -5), MOV64_K(R3, 5), JMP_X(BPF_JSGE, R2, R3, 1),
      EXIT(), MOV64_K(R0, 1), EXIT()),
    C("jset_k_byte", 1, MOV64_K(R0, 0), MOV64_K(R2, 0x180), JMP_K(BPF_JSET, R2, 0x80, 1), EXIT(),
      MOV64_K(R0, 1), EXIT()),
    C("jset_k_neg", 1, MOV64_K(R0, 0), LDDW(R2, 0x8000000000000000ull), JMP_K(BPF_JSET, R2, -1, 1),
      EXIT(), MOV64_K(R0, 1), EXIT()),
    C("jset32_k_high", 0, MOV64_K(R0, 0), LDDW(R2, 0x8000000000000000ull),
      JMP32_K(BPF_JSET, R2, -1, 1), EXIT(), MOV64_K(R0, 1), EXIT()),
    C("jmp32_ignores_high", 1, MOV64_K(R0, 0), LDDW(R2, 0x100000005ull), JMP32_K(BPF_JEQ, R2, 5, 1),
      EXIT(), MOV64_K(R0, 1), EXIT()),
    C("jmp32_slt", 1, MOV64_K(R0, 0), LDDW(R2, 0x00000000ffffffffull), JMP32_K(BPF_JSLT, R2, 0, 1),
      EXIT(), MOV64_K(R0, 1), EXIT()),
    C("jmp32_x_ge", 1, MOV64_K(R0, 0), MOV64_K(R2, 7), LDDW(R3, 0x700000007ull),
      JMP32_X(BPF_JGE, R2, R3, 1), EXIT(), MOV64_K(R0, 1), EXIT()),
    C("ja32_gotol", 2, MOV64_K(R0, 1), JA32(1), EXIT(), MOV64_K(R0, 2), EXIT()),
    C("loop_sum", 5050, MOV64_K(R0, 0), MOV64_K(R6, 100), ALU64_X(BPF_ADD, R0, R6),
      ALU64_K(BPF_SUB, R6, 1), JMP_K(BPF_JNE, R6, 0, -3), EXIT()),
    C("callee_saved_all", 6 + 7 + 8 + 9 + 64, MOV64_K(R6, 6), MOV64_K(R7, 7), MOV64_K(R8, 8),
      MOV64_K(R9, 9), MOV64_X(R0, R6), ALU64_X(BPF_ADD, R0, R7), ALU64_X(BPF_ADD, R0, R8),
      ALU64_X(BPF_ADD, R0, R9), ALU64_K(BPF_ADD, R0, 64), EXIT()),
    C("r2_is_len", 32, MOV64_X(R0, R2), EXIT()),
    /* mov + add fused into lea; not when a jump lands on the add */
    C("lea_fused", 0x55, ST(BPF_DW, R10, -16, 0x55), MOV64_X(R3, R10), ALU64_K(BPF_ADD, R3, -16),
      LDX(BPF_DW, R0, R3, 0), EXIT()),
    C("lea_not_across_target", 3, MOV64_K(R0, 5), MOV64_K(R3, 1), JMP_K(BPF_JEQ, R3, 1, 1),
      MOV64_X(R3, R0), ALU64_K(BPF_ADD, R3, 2), MOV64_X(R0, R3), EXIT()),
    /* unverified: registers nothing wrote start at 0, as in the interpreter */
    C("unwritten_regs_zero", 0, ALU64_X(BPF_ADD, R0, R3), ALU64_X(BPF_ADD, R0, R4),
      ALU64_X(BPF_ADD, R0, R5), ALU64_X(BPF_ADD, R0, R6), ALU64_X(BPF_ADD, R0, R7),
      ALU64_X(BPF_ADD, R0, R8), ALU64_X(BPF_ADD, R0, R9), EXIT()),
    C("bpf2bpf_call", 42 + 6, MOV64_K(R6, 6), MOV64_K(R1, 40), CALL_REL(3),
      ALU64_X(BPF_ADD, R0, R6), EXIT(), EXIT(), MOV64_X(R0, R1), MOV64_K(R6, 99),
      ALU64_K(BPF_ADD, R0, 2), EXIT()),
    C("bpf2bpf_stack", 0x55 + 0x66, ST(BPF_DW, R10, -8, 0x55), MOV64_X(R1, R10), CALL_REL(3),
      LDX(BPF_DW, R2, R10, -8), ALU64_X(BPF_ADD, R0, R2), EXIT(), ST(BPF_DW, R10, -8, 0x66),
      LDX(BPF_DW, R0, R10, -8), LDX(BPF_DW, R3, R1, -8), ALU64_X(BPF_SUB, R0, R3),
      ALU64_K(BPF_ADD, R0, 0x55), EXIT()),
};

static const uint8_t pattern[32] = {
    1,	  2,	3,    4,    5,	  6,	7,    8,    9,	  10,	11,   12,   13,	  14,	15,   16,
    0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98,
};

START_TEST(isa_case)
{
	const struct jcase *c = &cases[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	char log[512];
	struct bpfvm_prog *p = jt_load(reg, c->insns, c->n, NULL, 0, true, log, sizeof log);
	ck_assert_msg(p, "%s: load failed: %s", c->name, log);
	struct jit_pair r = jt_run_both(p, pattern, sizeof pattern);
	ck_assert_msg(r.jited, "%s: not jited: %s", c->name, log);
	ck_assert_msg(r.r0_interp == c->expect, "%s: interp r0 %#llx want %#llx", c->name,
		      (unsigned long long)r.r0_interp, (unsigned long long)c->expect);
	ck_assert_msg(r.r0_jit == c->expect, "%s: jit r0 %#llx want %#llx", c->name,
		      (unsigned long long)r.r0_jit, (unsigned long long)c->expect);
	ck_assert_msg(r.mem_equal, "%s: memory differs", c->name);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* core's engine-neutral table: same r0 as expected on the JIT, and the same
 * memory effects as the interpreter */
START_TEST(shared_isa_case)
{
	const struct isa_case *c = &isa_cases[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	char log[512];
	struct bpfvm_prog *p = jt_load(reg, c->insns, c->n, NULL, 0, true, log, sizeof log);
	ck_assert_msg(p, "%s: load failed: %s", c->name, log);
	struct jit_pair r = jt_run_both(p, c->mem, c->memlen);
	ck_assert_msg(r.jited, "%s: not jited: %s", c->name, log);
	ck_assert_msg(r.r0_jit == c->expect && r.r0_interp == c->expect,
		      "%s: r0 jit %#llx interp %#llx want %#llx", c->name,
		      (unsigned long long)r.r0_jit, (unsigned long long)r.r0_interp,
		      (unsigned long long)c->expect);
	ck_assert_msg(r.mem_equal, "%s: memory differs", c->name);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *jit_isa_suite(void)
{
	Suite *s = suite_create("bpfvm_jit_isa");
	TCase *tc = tcase_create("isa");
	tcase_add_loop_test(tc, isa_case, 0, (int)NINSNS(cases));
	tcase_add_loop_test(tc, shared_isa_case, 0, (int)ISA_NCASES);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(jit_isa_suite)
