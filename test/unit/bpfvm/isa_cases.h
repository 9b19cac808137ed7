/* The ISA case table (RFC 9669, cpu v1-v4): one program per case, its input
 * memory (passed as r1/r2) and the expected r0. Engine-neutral: test_interp_isa.c
 * runs every case on every entry of its engine table (interpreter, checked
 * interpreter, and the JIT once it lands); isa_gen writes the same cases as
 * bpf_conformance .data files for the plugin runner. All programs are loaded
 * with no_verify on the generic type. */
#ifndef SKOPS_TEST_BPFVM_ISA_CASES_H
#define SKOPS_TEST_BPFVM_ISA_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "isa_insn.h"

struct isa_case {
	const char *name;
	const struct bpfvm_insn *insns;
	size_t n;
	const uint8_t *mem;
	size_t memlen;
	uint64_t expect;
};

#define ISA_PROG(...)                                                                              \
	.insns = (const struct bpfvm_insn[]){__VA_ARGS__},                                         \
	.n = sizeof((const struct bpfvm_insn[]){__VA_ARGS__}) / sizeof(struct bpfvm_insn)
#define CASE(nm, exp, ...)                                                                         \
	{                                                                                          \
		.name = nm, .expect = (uint64_t)(exp), ISA_PROG(__VA_ARGS__)                       \
	}
#define MEM(...) ((const uint8_t[]){__VA_ARGS__})
#define CASE_MEM(nm, exp, memv, ...)                                                               \
	{                                                                                          \
		.name = nm, .expect = (uint64_t)(exp), .mem = memv, .memlen = sizeof(memv),        \
		ISA_PROG(__VA_ARGS__)                                                              \
	}
/* r0 = 1 when the jump under test is taken, 0 when it falls through */
#define JCASE(nm, exp, a, b, jmp)                                                                  \
	CASE(nm, exp, MOV64_K(0, 0), a, b, jmp, EXIT(), MOV64_K(0, 1), EXIT())
/* 8 bytes at r10-8 start as init; op runs with r1 = src; r0 = mem or r1 */
#define ATOMIC_CASE(nm, exp, sz, op, init, src, result_reg)                                        \
	CASE(nm, exp, LDDW(2, init), STX(BPF_DW, 10, 2, -8), LDDW(1, src), LDDW(0, 0x5),           \
	     ATOMIC(sz, op, 10, 1, -8), LDX(BPF_DW, 3, 10, -8), MOV64_X(0, result_reg), EXIT())

static const struct isa_case isa_cases[] = {
    /* ---- ALU64 / ALU ---- */
    CASE("add64_k", 3, MOV64_K(0, 1), ALU64_K(BPF_ADD, 0, 2), EXIT()),
    CASE("add64_k_signext", 0xffffffffffffffffULL, MOV64_K(0, 0), ALU64_K(BPF_ADD, 0, -1), EXIT()),
    CASE("add64_x", 0x100000000ULL, LDDW(0, 0xffffffff), MOV64_K(1, 1), ALU64_X(BPF_ADD, 0, 1),
	 EXIT()),
    CASE("add32_wrap", 0, MOV32_K(0, -1), ALU32_K(BPF_ADD, 0, 1), EXIT()),
    CASE("add32_zext", 2, LDDW(0, 0xffffffff00000001ULL), ALU32_K(BPF_ADD, 0, 1), EXIT()),
    CASE("add32_x", 0x7, LDDW(0, 0x1100000003ULL), LDDW(1, 0x2200000004ULL), ALU32_X(BPF_ADD, 0, 1),
	 EXIT()),
    CASE("sub64_k", 0xffffffffffffffffULL, MOV64_K(0, 0), ALU64_K(BPF_SUB, 0, 1), EXIT()),
    CASE("sub64_x", 0xfffffffffffffffeULL, MOV64_K(0, 1), MOV64_K(1, 3), ALU64_X(BPF_SUB, 0, 1),
	 EXIT()),
    CASE("sub32_k", 0xffffffff, LDDW(0, 0x100000000ULL), ALU32_K(BPF_SUB, 0, 1), EXIT()),
    CASE("sub32_x", 0xfffffffe, MOV64_K(0, 1), MOV64_K(1, 3), ALU32_X(BPF_SUB, 0, 1), EXIT()),
    CASE("mul64_k", 0x300000003ULL, LDDW(0, 0x100000001ULL), ALU64_K(BPF_MUL, 0, 3), EXIT()),
    CASE("mul64_k_neg", (uint64_t)-10, MOV64_K(0, 5), ALU64_K(BPF_MUL, 0, -2), EXIT()),
    CASE("mul64_x", 0x2000000000ULL, MOV64_K(0, 0x100000), MOV64_K(1, 0x20000),
	 ALU64_X(BPF_MUL, 0, 1), EXIT()),
    CASE("mul32_k", 0, MOV64_K(0, 0x10000), ALU32_K(BPF_MUL, 0, 0x10000), EXIT()),
    CASE("mul32_x", 0xfffffffe, MOV64_K(0, -1), MOV64_K(1, 2), ALU32_X(BPF_MUL, 0, 1), EXIT()),
    CASE("div64_k", 0x7fffffffffffffffULL, MOV64_K(0, -1), ALU64_K(BPF_DIV, 0, 2), EXIT()),
    CASE("div64_k_negimm", 0, MOV64_K(0, 10), ALU64_K(BPF_DIV, 0, -1), EXIT()),
    CASE("div64_x", 3, MOV64_K(0, 10), MOV64_K(1, 3), ALU64_X(BPF_DIV, 0, 1), EXIT()),
    CASE("div64_by_zero_x", 0, MOV64_K(0, 5), MOV64_K(1, 0), ALU64_X(BPF_DIV, 0, 1), EXIT()),
    CASE("div64_by_zero_k", 0, MOV64_K(0, 5), ALU64_K(BPF_DIV, 0, 0), EXIT()),
    CASE("div32_k", 0x7fffffff, MOV32_K(0, -1), ALU32_K(BPF_DIV, 0, 2), EXIT()),
    CASE("div32_highbits", 8, LDDW(0, 0x100000010ULL), ALU32_K(BPF_DIV, 0, 2), EXIT()),
    CASE("div32_x", 0x55555555, MOV32_K(0, -1), MOV64_K(1, 3), ALU32_X(BPF_DIV, 0, 1), EXIT()),
    CASE("div32_by_zero_x", 0, LDDW(0, 0x1ffffffffULL), LDDW(1, 0x100000000ULL),
	 ALU32_X(BPF_DIV, 0, 1), EXIT()),
    CASE("mod64_k", 1, MOV64_K(0, 10), ALU64_K(BPF_MOD, 0, 3), EXIT()),
    CASE("mod64_x", 2, MOV64_K(0, 11), MOV64_K(1, 3), ALU64_X(BPF_MOD, 0, 1), EXIT()),
    CASE("mod64_by_zero_x", 0x100000005ULL, LDDW(0, 0x100000005ULL), MOV64_K(1, 0),
	 ALU64_X(BPF_MOD, 0, 1), EXIT()),
    CASE("mod64_by_zero_k", 0x100000005ULL, LDDW(0, 0x100000005ULL), ALU64_K(BPF_MOD, 0, 0),
	 EXIT()),
    CASE("mod32_k", 1, LDDW(0, 0x10000000aULL), ALU32_K(BPF_MOD, 0, 3), EXIT()),
    CASE("mod32_by_zero_x", 5, LDDW(0, 0x100000005ULL), MOV64_K(1, 0), ALU32_X(BPF_MOD, 0, 1),
	 EXIT()),
    CASE("mod32_by_zero_k", 5, LDDW(0, 0x100000005ULL), ALU32_K(BPF_MOD, 0, 0), EXIT()),
    CASE("sdiv64_k", (uint64_t)-3, MOV64_K(0, -10), SALU64_K(BPF_DIV, 0, 3), EXIT()),
    CASE("sdiv64_x_negneg", 3, MOV64_K(0, -10), MOV64_K(1, -3), SALU64_X(BPF_DIV, 0, 1), EXIT()),
    CASE("sdiv64_by_zero", 0, MOV64_K(0, -10), MOV64_K(1, 0), SALU64_X(BPF_DIV, 0, 1), EXIT()),
    CASE("sdiv64_overflow", 0x8000000000000000ULL, LDDW(0, 0x8000000000000000ULL),
	 SALU64_K(BPF_DIV, 0, -1), EXIT()),
    CASE("sdiv32_k", 0xfffffffd, MOV32_K(0, -10), SALU32_K(BPF_DIV, 0, 3), EXIT()),
    CASE("sdiv32_x_highbits", 0xfffffffd, LDDW(0, 0x12345678fffffff6ULL), LDDW(1, 0x3ULL),
	 SALU32_X(BPF_DIV, 0, 1), EXIT()),
    CASE("sdiv32_by_zero", 0, MOV32_K(0, -10), MOV64_K(1, 0), SALU32_X(BPF_DIV, 0, 1), EXIT()),
    CASE("sdiv32_overflow", 0x80000000, MOV32_K(0, (int32_t)0x80000000), SALU32_K(BPF_DIV, 0, -1),
	 EXIT()),
    CASE("smod64_k", (uint64_t)-1, MOV64_K(0, -10), SALU64_K(BPF_MOD, 0, 3), EXIT()),
    CASE("smod64_x_negdiv", 1, MOV64_K(0, 10), MOV64_K(1, -3), SALU64_X(BPF_MOD, 0, 1), EXIT()),
    CASE("smod64_by_zero", (uint64_t)-10, MOV64_K(0, -10), MOV64_K(1, 0), SALU64_X(BPF_MOD, 0, 1),
	 EXIT()),
    CASE("smod64_overflow", 0, LDDW(0, 0x8000000000000000ULL), SALU64_K(BPF_MOD, 0, -1), EXIT()),
    CASE("smod32_k", 0xffffffff, MOV32_K(0, -10), SALU32_K(BPF_MOD, 0, 3), EXIT()),
    CASE("smod32_by_zero", 0xfffffff6, LDDW(0, 0xdeadbeeffffffff6ULL), MOV64_K(1, 0),
	 SALU32_X(BPF_MOD, 0, 1), EXIT()),
    CASE("smod32_overflow", 0, MOV32_K(0, (int32_t)0x80000000), SALU32_K(BPF_MOD, 0, -1), EXIT()),
    CASE("or64_k", 0xffffffffffffff0fULL, MOV64_K(0, 0xf), ALU64_K(BPF_OR, 0, -256), EXIT()),
    CASE("or64_x", 0x1100000011ULL, LDDW(0, 0x1000000010ULL), LDDW(1, 0x100000001ULL),
	 ALU64_X(BPF_OR, 0, 1), EXIT()),
    CASE("or32_k", 0xffffff0f, LDDW(0, 0x550000000fULL), ALU32_K(BPF_OR, 0, -256), EXIT()),
    CASE("or32_x", 0x11, LDDW(0, 0x1000000010ULL), LDDW(1, 0x100000001ULL), ALU32_X(BPF_OR, 0, 1),
	 EXIT()),
    CASE("and64_k", 0xf0, LDDW(0, 0xfffffffffffffff0ULL), ALU64_K(BPF_AND, 0, 0xff), EXIT()),
    CASE("and64_k_signext", 0xfffffffffffffff0ULL, MOV64_K(0, -1), ALU64_K(BPF_AND, 0, -16),
	 EXIT()),
    CASE("and64_x", 0x1000000000ULL, LDDW(0, 0x1000000010ULL), LDDW(1, 0xff00000000ULL),
	 ALU64_X(BPF_AND, 0, 1), EXIT()),
    CASE("and32_k", 0xfffffff0, MOV64_K(0, -1), ALU32_K(BPF_AND, 0, -16), EXIT()),
    CASE("and32_x", 0x10, LDDW(0, 0x1000000010ULL), MOV64_K(1, -1), ALU32_X(BPF_AND, 0, 1), EXIT()),
    CASE("xor64_k", 0xfffffffffffffffeULL, MOV64_K(0, 1), ALU64_K(BPF_XOR, 0, -1), EXIT()),
    CASE("xor64_x", 0, LDDW(0, 0x123456789abcdefULL), LDDW(1, 0x123456789abcdefULL),
	 ALU64_X(BPF_XOR, 0, 1), EXIT()),
    CASE("xor32_k", 0xfffffffe, MOV64_K(0, 1), ALU32_K(BPF_XOR, 0, -1), EXIT()),
    CASE("xor32_x", 0x3, LDDW(0, 0x7700000001ULL), LDDW(1, 0x8800000002ULL), ALU32_X(BPF_XOR, 0, 1),
	 EXIT()),
    CASE("lsh64_k", 0x8000000000000000ULL, MOV64_K(0, 1), ALU64_K(BPF_LSH, 0, 63), EXIT()),
    CASE("lsh64_x_masked", 2, MOV64_K(0, 1), MOV64_K(1, 65), ALU64_X(BPF_LSH, 0, 1), EXIT()),
    CASE("lsh32_k", 0x80000000, MOV64_K(0, 1), ALU32_K(BPF_LSH, 0, 31), EXIT()),
    CASE("lsh32_x_masked", 0x2, LDDW(0, 0x100000001ULL), MOV64_K(1, 33), ALU32_X(BPF_LSH, 0, 1),
	 EXIT()),
    CASE("lsh32_drops_high", 0, MOV64_K(0, 0x10000), ALU32_K(BPF_LSH, 0, 16), EXIT()),
    CASE("rsh64_k", 0xf, MOV64_K(0, -1), ALU64_K(BPF_RSH, 0, 60), EXIT()),
    CASE("rsh64_x", 0x1, LDDW(0, 0x8000000000000000ULL), MOV64_K(1, 63), ALU64_X(BPF_RSH, 0, 1),
	 EXIT()),
    CASE("rsh32_k", 0x0fffffff, MOV64_K(0, -1), ALU32_K(BPF_RSH, 0, 4), EXIT()),
    CASE("rsh32_x_masked", 0x7fffffff, MOV64_K(0, -1), MOV64_K(1, 33), ALU32_X(BPF_RSH, 0, 1),
	 EXIT()),
    CASE("arsh64_k", 0xffffffffffffffffULL, LDDW(0, 0x8000000000000000ULL),
	 ALU64_K(BPF_ARSH, 0, 63), EXIT()),
    CASE("arsh64_x", 0xfffffffffffffff8ULL, MOV64_K(0, -64), MOV64_K(1, 3), ALU64_X(BPF_ARSH, 0, 1),
	 EXIT()),
    CASE("arsh32_k", 0xffffffff, MOV32_K(0, (int32_t)0x80000000), ALU32_K(BPF_ARSH, 0, 31), EXIT()),
    CASE("arsh32_x_highbits", 0xfffffff8, LDDW(0, 0x7fffffffffffffc0ULL), MOV64_K(1, 3),
	 ALU32_X(BPF_ARSH, 0, 1), EXIT()),
    CASE("arsh32_positive", 0x1, LDDW(0, 0xffffffff40000000ULL), ALU32_K(BPF_ARSH, 0, 30), EXIT()),
    CASE("neg64", 0xffffffffffffffffULL, MOV64_K(0, 1), NEG64(0), EXIT()),
    CASE("neg64_min", 0x8000000000000000ULL, LDDW(0, 0x8000000000000000ULL), NEG64(0), EXIT()),
    CASE("neg32", 0xffffffff, MOV64_K(0, 1), NEG32(0), EXIT()),
    CASE("neg32_highbits", 0, LDDW(0, 0x500000000ULL), NEG32(0), EXIT()),
    CASE("mov64_k_signext", 0xffffffffffffffffULL, MOV64_K(0, -1), EXIT()),
    CASE("mov32_k", 0xffffffff, MOV32_K(0, -1), EXIT()),
    CASE("mov64_x", 0x123456789ULL, LDDW(1, 0x123456789ULL), MOV64_X(0, 1), EXIT()),
    CASE("mov32_x_zext", 0xffffffff, MOV64_K(1, -1), MOV32_X(0, 1), EXIT()),
    CASE("movsx64_8", 0xffffffffffffff80ULL, MOV64_K(1, 0x180), MOVSX64(0, 1, 8), EXIT()),
    CASE("movsx64_8_pos", 0x7f, MOV64_K(1, 0xff7f), MOVSX64(0, 1, 8), EXIT()),
    CASE("movsx64_16", 0xffffffffffff8000ULL, MOV64_K(1, 0x18000), MOVSX64(0, 1, 16), EXIT()),
    CASE("movsx64_32", 0xffffffff80000000ULL, LDDW(1, 0x180000000ULL), MOVSX64(0, 1, 32), EXIT()),
    CASE("movsx64_32_pos", 0x7fffffff, LDDW(1, 0xf7fffffffULL), MOVSX64(0, 1, 32), EXIT()),
    CASE("movsx32_8", 0xffffff80, MOV64_K(1, 0x80), MOVSX32(0, 1, 8), EXIT()),
    CASE("movsx32_16", 0xffff8000, LDDW(1, 0xffffffff00008000ULL), MOVSX32(0, 1, 16), EXIT()),
    CASE("movsx32_16_pos", 0x7fff, MOV64_K(1, -32769), MOVSX32(0, 1, 16), EXIT()),
    CASE("le16", 0x7788, LDDW(0, 0x1122334455667788ULL), LE(0, 16), EXIT()),
    CASE("le32", 0x55667788, LDDW(0, 0x1122334455667788ULL), LE(0, 32), EXIT()),
    CASE("le64", 0x1122334455667788ULL, LDDW(0, 0x1122334455667788ULL), LE(0, 64), EXIT()),
    CASE("be16", 0x8877, LDDW(0, 0x1122334455667788ULL), BE(0, 16), EXIT()),
    CASE("be32", 0x88776655, LDDW(0, 0x1122334455667788ULL), BE(0, 32), EXIT()),
    CASE("be64", 0x8877665544332211ULL, LDDW(0, 0x1122334455667788ULL), BE(0, 64), EXIT()),
    CASE("bswap16", 0x8877, LDDW(0, 0x1122334455667788ULL), BSWAP(0, 16), EXIT()),
    CASE("bswap32", 0x88776655, LDDW(0, 0x1122334455667788ULL), BSWAP(0, 32), EXIT()),
    CASE("bswap64", 0x8877665544332211ULL, LDDW(0, 0x1122334455667788ULL), BSWAP(0, 64), EXIT()),

    /* ---- JMP / JMP32 ---- */
    JCASE("jeq_k_taken", 1, MOV64_K(1, -1), MOV64_K(2, 0), JMP_K(BPF_JEQ, 1, -1, 1)),
    JCASE("jeq_k_not", 0, MOV64_K(1, 5), MOV64_K(2, 0), JMP_K(BPF_JEQ, 1, 4, 1)),
    JCASE("jeq_x_taken", 1, MOV64_K(1, 7), MOV64_K(2, 7), JMP_X(BPF_JEQ, 1, 2, 1)),
    JCASE("jeq_x_64bit", 0, LDDW(1, 0x100000007ULL), MOV64_K(2, 7), JMP_X(BPF_JEQ, 1, 2, 1)),
    JCASE("jne_k_taken", 1, MOV64_K(1, 5), MOV64_K(2, 0), JMP_K(BPF_JNE, 1, 4, 1)),
    JCASE("jne_x_not", 0, MOV64_K(1, 7), MOV64_K(2, 7), JMP_X(BPF_JNE, 1, 2, 1)),
    JCASE("jgt_k_unsigned", 1, MOV64_K(1, -1), MOV64_K(2, 0), JMP_K(BPF_JGT, 1, 1, 1)),
    JCASE("jgt_x_equal", 0, MOV64_K(1, 3), MOV64_K(2, 3), JMP_X(BPF_JGT, 1, 2, 1)),
    JCASE("jge_k_equal", 1, MOV64_K(1, 3), MOV64_K(2, 0), JMP_K(BPF_JGE, 1, 3, 1)),
    JCASE("jge_x_less", 0, MOV64_K(1, 2), MOV64_K(2, 3), JMP_X(BPF_JGE, 1, 2, 1)),
    JCASE("jlt_k_taken", 1, MOV64_K(1, 2), MOV64_K(2, 0), JMP_K(BPF_JLT, 1, 3, 1)),
    JCASE("jlt_x_unsigned", 0, MOV64_K(1, -1), MOV64_K(2, 1), JMP_X(BPF_JLT, 1, 2, 1)),
    JCASE("jle_k_equal", 1, MOV64_K(1, 3), MOV64_K(2, 0), JMP_K(BPF_JLE, 1, 3, 1)),
    JCASE("jle_x_greater", 0, MOV64_K(1, 4), MOV64_K(2, 3), JMP_X(BPF_JLE, 1, 2, 1)),
    JCASE("jsgt_k_signed", 0, MOV64_K(1, -1), MOV64_K(2, 0), JMP_K(BPF_JSGT, 1, 1, 1)),
    JCASE("jsgt_x_taken", 1, MOV64_K(1, 1), MOV64_K(2, -1), JMP_X(BPF_JSGT, 1, 2, 1)),
    JCASE("jsge_k_equal", 1, MOV64_K(1, -3), MOV64_K(2, 0), JMP_K(BPF_JSGE, 1, -3, 1)),
    JCASE("jsge_x_less", 0, MOV64_K(1, -4), MOV64_K(2, -3), JMP_X(BPF_JSGE, 1, 2, 1)),
    JCASE("jslt_k_taken", 1, MOV64_K(1, -1), MOV64_K(2, 0), JMP_K(BPF_JSLT, 1, 1, 1)),
    JCASE("jslt_x_not", 0, MOV64_K(1, 1), MOV64_K(2, -1), JMP_X(BPF_JSLT, 1, 2, 1)),
    JCASE("jsle_k_equal", 1, MOV64_K(1, -3), MOV64_K(2, 0), JMP_K(BPF_JSLE, 1, -3, 1)),
    JCASE("jsle_x_greater", 0, LDDW(1, 0x7fffffffffffffffULL), MOV64_K(2, -1),
	  JMP_X(BPF_JSLE, 1, 2, 1)),
    JCASE("jset_k_taken", 1, MOV64_K(1, 6), MOV64_K(2, 0), JMP_K(BPF_JSET, 1, 2, 1)),
    JCASE("jset_k_not", 0, MOV64_K(1, 6), MOV64_K(2, 0), JMP_K(BPF_JSET, 1, 1, 1)),
    JCASE("jset_x_high", 1, LDDW(1, 0x100000000ULL), LDDW(2, 0x300000000ULL),
	  JMP_X(BPF_JSET, 1, 2, 1)),
    JCASE("jeq32_k_ignores_high", 1, LDDW(1, 0x100000000ULL), MOV64_K(2, 0),
	  JMP32_K(BPF_JEQ, 1, 0, 1)),
    JCASE("jeq32_x", 1, LDDW(1, 0x500000007ULL), LDDW(2, 0x900000007ULL),
	  JMP32_X(BPF_JEQ, 1, 2, 1)),
    JCASE("jne32_k", 0, LDDW(1, 0x100000000ULL), MOV64_K(2, 0), JMP32_K(BPF_JNE, 1, 0, 1)),
    JCASE("jne32_x", 1, MOV64_K(1, 1), MOV64_K(2, 2), JMP32_X(BPF_JNE, 1, 2, 1)),
    JCASE("jgt32_k", 1, MOV32_K(1, -1), MOV64_K(2, 0), JMP32_K(BPF_JGT, 1, 0, 1)),
    JCASE("jgt32_x_high", 0, LDDW(1, 0x100000001ULL), MOV64_K(2, 2), JMP32_X(BPF_JGT, 1, 2, 1)),
    JCASE("jge32_k", 1, MOV64_K(1, 5), MOV64_K(2, 0), JMP32_K(BPF_JGE, 1, 5, 1)),
    JCASE("jge32_x", 0, MOV64_K(1, 4), MOV64_K(2, 5), JMP32_X(BPF_JGE, 1, 2, 1)),
    JCASE("jlt32_k", 1, LDDW(1, 0xff00000001ULL), MOV64_K(2, 0), JMP32_K(BPF_JLT, 1, 2, 1)),
    JCASE("jlt32_x", 0, MOV64_K(1, 2), MOV64_K(2, 2), JMP32_X(BPF_JLT, 1, 2, 1)),
    JCASE("jle32_k", 1, MOV64_K(1, 2), MOV64_K(2, 0), JMP32_K(BPF_JLE, 1, 2, 1)),
    JCASE("jle32_x", 0, MOV64_K(1, 3), MOV64_K(2, 2), JMP32_X(BPF_JLE, 1, 2, 1)),
    JCASE("jsgt32_k_signed", 0, MOV32_K(1, -1), MOV64_K(2, 0), JMP32_K(BPF_JSGT, 1, 0, 1)),
    JCASE("jsgt32_x", 1, MOV64_K(1, 1), MOV32_K(2, -1), JMP32_X(BPF_JSGT, 1, 2, 1)),
    JCASE("jsge32_k", 1, MOV32_K(1, -2), MOV64_K(2, 0), JMP32_K(BPF_JSGE, 1, -2, 1)),
    JCASE("jsge32_x", 0, MOV32_K(1, -3), MOV32_K(2, -2), JMP32_X(BPF_JSGE, 1, 2, 1)),
    JCASE("jslt32_k", 1, LDDW(1, 0x00000000ffffffffULL), MOV64_K(2, 0), JMP32_K(BPF_JSLT, 1, 0, 1)),
    JCASE("jslt32_x", 0, MOV64_K(1, 0), MOV32_K(2, -1), JMP32_X(BPF_JSLT, 1, 2, 1)),
    JCASE("jsle32_k", 1, MOV32_K(1, -5), MOV64_K(2, 0), JMP32_K(BPF_JSLE, 1, -5, 1)),
    JCASE("jsle32_x", 0, MOV64_K(1, 1), MOV64_K(2, 0), JMP32_X(BPF_JSLE, 1, 2, 1)),
    JCASE("jset32_k", 0, LDDW(1, 0x100000000ULL), MOV64_K(2, 0), JMP32_K(BPF_JSET, 1, -1, 1)),
    JCASE("jset32_x", 1, MOV64_K(1, 0x10), MOV64_K(2, 0x30), JMP32_X(BPF_JSET, 1, 2, 1)),
    CASE("ja_forward", 2, MOV64_K(0, 1), JA(1), MOV64_K(0, 9), ALU64_K(BPF_ADD, 0, 1), EXIT()),
    CASE("ja32_gotol", 2, MOV64_K(0, 1), JA32(1), MOV64_K(0, 9), ALU64_K(BPF_ADD, 0, 1), EXIT()),
    CASE("ja32_backward", 3, MOV64_K(0, 0), JA(2), ALU64_K(BPF_ADD, 0, 3), EXIT(), JA32(-3)),
    CASE("loop_sum", 5050, MOV64_K(0, 0), MOV64_K(1, 100), ALU64_X(BPF_ADD, 0, 1),
	 ALU64_K(BPF_SUB, 1, 1), JMP_K(BPF_JNE, 1, 0, -3), EXIT()),
    CASE("loop_jmp32", 10, MOV64_K(0, 0), MOV32_K(1, -10), ALU64_K(BPF_ADD, 0, 1),
	 ALU32_K(BPF_ADD, 1, 1), JMP32_K(BPF_JSLT, 1, 0, -3), EXIT()),

    /* ---- loads and stores ---- */
    CASE_MEM("ldxdw", 0x8877665544332211ULL, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
	     LDX(BPF_DW, 0, 1, 0), EXIT()),
    CASE_MEM("ldxw", 0x88776655, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
	     LDX(BPF_W, 0, 1, 4), EXIT()),
    CASE_MEM("ldxh", 0x4433, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
	     LDX(BPF_H, 0, 1, 2), EXIT()),
    CASE_MEM("ldxb", 0x88, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88), LDX(BPF_B, 0, 1, 7),
	     EXIT()),
    CASE_MEM("ldxb_negoff", 0x77, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
	     MOV64_X(2, 1), ALU64_K(BPF_ADD, 2, 8), LDX(BPF_B, 0, 2, -2), EXIT()),
    CASE_MEM("ldxw_unaligned", 0x55443322, MEM(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
	     LDX(BPF_W, 0, 1, 1), EXIT()),
    CASE_MEM("ldxsxb", 0xffffffffffffff80ULL, MEM(0x80, 0x7f), LDXSX(BPF_B, 0, 1, 0), EXIT()),
    CASE_MEM("ldxsxb_pos", 0x7f, MEM(0x80, 0x7f), LDXSX(BPF_B, 0, 1, 1), EXIT()),
    CASE_MEM("ldxsxh", 0xffffffffffff8001ULL, MEM(0x01, 0x80), LDXSX(BPF_H, 0, 1, 0), EXIT()),
    CASE_MEM("ldxsxw", 0xffffffff80000001ULL, MEM(0x01, 0x00, 0x00, 0x80), LDXSX(BPF_W, 0, 1, 0),
	     EXIT()),
    CASE_MEM("ldxsxw_pos", 0x7fffffff, MEM(0xff, 0xff, 0xff, 0x7f), LDXSX(BPF_W, 0, 1, 0), EXIT()),
    CASE("st_dw_signext", 0xffffffffffffffffULL, ST(BPF_DW, 10, -8, -1), LDX(BPF_DW, 0, 10, -8),
	 EXIT()),
    CASE("st_w", 0x12345678, ST(BPF_DW, 10, -8, 0), ST(BPF_W, 10, -8, 0x12345678),
	 LDX(BPF_DW, 0, 10, -8), EXIT()),
    CASE("st_h", 0xbeef, ST(BPF_DW, 10, -8, 0), ST(BPF_H, 10, -8, 0xdeadbeef),
	 LDX(BPF_DW, 0, 10, -8), EXIT()),
    CASE("st_b", 0xef00, ST(BPF_DW, 10, -8, 0), ST(BPF_B, 10, -7, 0xdeadbeef),
	 LDX(BPF_DW, 0, 10, -8), EXIT()),
    CASE("stack_bottom", 0x42, ST(BPF_DW, 10, -512, 0x42), LDX(BPF_DW, 0, 10, -512), EXIT()),
    CASE_MEM("stx_sizes", 0x44332211, MEM(0, 0, 0, 0, 0, 0, 0, 0), LDDW(2, 0xffffff11ULL),
	     STX(BPF_B, 1, 2, 0), LDDW(2, 0xffff2222ULL), STX(BPF_B, 1, 2, 1), LDDW(2, 0x4433ULL),
	     STX(BPF_H, 1, 2, 2), LDX(BPF_DW, 0, 1, 0), EXIT()),
    CASE_MEM("stx_w_dw", 0x8877665544332211ULL, MEM(0, 0, 0, 0, 0, 0, 0, 0),
	     LDDW(2, 0xaaaaaaaa44332211ULL), STX(BPF_W, 1, 2, 0), LDDW(2, 0x0000000088776655ULL),
	     STX(BPF_W, 1, 2, 4), LDX(BPF_DW, 0, 1, 0), EXIT()),
    CASE_MEM("stx_dw_mem", 0x0123456789abcdefULL, MEM(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	     LDDW(2, 0x0123456789abcdefULL), STX(BPF_DW, 1, 2, 4), LDX(BPF_DW, 0, 1, 4), EXIT()),
    CASE_MEM("mem_len_in_r2", 12, MEM(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), MOV64_X(0, 2), EXIT()),
    CASE("lddw_full", 0xfedcba9876543210ULL, LDDW(0, 0xfedcba9876543210ULL), EXIT()),
    CASE("lddw_high_zero", 0x80000000ULL, LDDW(0, 0x80000000ULL), EXIT()),

    /* ---- atomics: init 8 bytes at r10-8, r1 = src, r0 = 5 ---- */
    ATOMIC_CASE("atomic_add64", 15, BPF_DW, BPF_ADD, 10, 5, 3),
    ATOMIC_CASE("atomic_add64_nofetch_src", 5, BPF_DW, BPF_ADD, 10, 5, 1),
    ATOMIC_CASE("atomic_fetch_add64_old", 10, BPF_DW, BPF_ADD | BPF_FETCH, 10, 5, 1),
    ATOMIC_CASE("atomic_fetch_add64_mem", 15, BPF_DW, BPF_ADD | BPF_FETCH, 10, 5, 3),
    ATOMIC_CASE("atomic_or64", 0xff000000000000ffULL, BPF_DW, BPF_OR, 0xffULL,
		0xff00000000000000ULL, 3),
    ATOMIC_CASE("atomic_fetch_or64", 0xff, BPF_DW, BPF_OR | BPF_FETCH, 0xffULL, 0x100ULL, 1),
    ATOMIC_CASE("atomic_and64", 0x0f, BPF_DW, BPF_AND, 0xffULL, 0x10000000fULL, 3),
    ATOMIC_CASE("atomic_fetch_and64", 0xff, BPF_DW, BPF_AND | BPF_FETCH, 0xffULL, 0x0fULL, 1),
    ATOMIC_CASE("atomic_xor64", 0xf0, BPF_DW, BPF_XOR, 0xffULL, 0x0fULL, 3),
    ATOMIC_CASE("atomic_fetch_xor64", 0xff, BPF_DW, BPF_XOR | BPF_FETCH, 0xffULL, 0x0fULL, 1),
    ATOMIC_CASE("atomic_xchg64_old", 0x1111111111111111ULL, BPF_DW, BPF_XCHG, 0x1111111111111111ULL,
		0x2222222222222222ULL, 1),
    ATOMIC_CASE("atomic_xchg64_mem", 0x2222222222222222ULL, BPF_DW, BPF_XCHG, 0x1111111111111111ULL,
		0x2222222222222222ULL, 3),
    ATOMIC_CASE("atomic_cmpxchg64_hit_r0", 5, BPF_DW, BPF_CMPXCHG, 5, 9, 0),
    ATOMIC_CASE("atomic_cmpxchg64_hit_mem", 9, BPF_DW, BPF_CMPXCHG, 5, 9, 3),
    ATOMIC_CASE("atomic_cmpxchg64_miss_r0", 6, BPF_DW, BPF_CMPXCHG, 6, 9, 0),
    ATOMIC_CASE("atomic_cmpxchg64_miss_mem", 6, BPF_DW, BPF_CMPXCHG, 6, 9, 3),
    /* 32-bit: the low word (r10-8) changes, the high word stays */
    ATOMIC_CASE("atomic_add32_mem", 0xaaaaaaaa00000000ULL, BPF_W, BPF_ADD, 0xaaaaaaaaffffffffULL,
		0x1ULL, 3),
    ATOMIC_CASE("atomic_fetch_add32_zext", 0xffffffffULL, BPF_W, BPF_ADD | BPF_FETCH,
		0xaaaaaaaaffffffffULL, 0xbbbbbbbb00000001ULL, 1),
    ATOMIC_CASE("atomic_or32", 0x11111111000000ffULL, BPF_W, BPF_OR, 0x111111110000000fULL, 0xf0ULL,
		3),
    ATOMIC_CASE("atomic_fetch_or32", 0x0f, BPF_W, BPF_OR | BPF_FETCH, 0x111111110000000fULL,
		0xf0ULL, 1),
    ATOMIC_CASE("atomic_and32", 0x1111111100000003ULL, BPF_W, BPF_AND, 0x1111111100000007ULL,
		0xffffffff00000003ULL, 3),
    ATOMIC_CASE("atomic_fetch_and32", 0x7, BPF_W, BPF_AND | BPF_FETCH, 0x1111111100000007ULL,
		0x3ULL, 1),
    ATOMIC_CASE("atomic_xor32", 0x1111111100000004ULL, BPF_W, BPF_XOR, 0x1111111100000007ULL,
		0x3ULL, 3),
    ATOMIC_CASE("atomic_fetch_xor32", 0x7, BPF_W, BPF_XOR | BPF_FETCH, 0x1111111100000007ULL,
		0x3ULL, 1),
    ATOMIC_CASE("atomic_xchg32_old", 0x80000000ULL, BPF_W, BPF_XCHG, 0x1111111180000000ULL,
		0x2222222200000001ULL, 1),
    ATOMIC_CASE("atomic_xchg32_mem", 0x1111111100000001ULL, BPF_W, BPF_XCHG, 0x1111111180000000ULL,
		0x2222222200000001ULL, 3),
    ATOMIC_CASE("atomic_cmpxchg32_hit_mem", 0x1111111100000009ULL, BPF_W, BPF_CMPXCHG,
		0x1111111100000005ULL, 0x9ULL, 3),
    ATOMIC_CASE("atomic_cmpxchg32_miss_r0", 0x80000006ULL, BPF_W, BPF_CMPXCHG,
		0x1111111180000006ULL, 0x9ULL, 0),
    /* r0 carries junk in its high half: only the low 32 bits compare, and the
     * old value comes back zero-extended */
    CASE("atomic_cmpxchg32_r0_high", 0x500b, ST(BPF_DW, 10, -8, 5), LDDW(0, 0xffffffff00000005ULL),
	 MOV64_K(1, 11), ATOMIC(BPF_W, BPF_CMPXCHG, 10, 1, -8), LDX(BPF_DW, 2, 10, -8),
	 ALU64_K(BPF_MUL, 0, 0x1000), ALU64_X(BPF_ADD, 0, 2), EXIT()),
    CASE_MEM("atomic_on_mem", 0x0000000100000002ULL, MEM(1, 0, 0, 0, 1, 0, 0, 0), MOV64_K(2, 1),
	     ATOMIC(BPF_W, BPF_ADD, 1, 2, 0), LDX(BPF_DW, 0, 1, 0), EXIT()),

    /* ---- bpf-to-bpf calls ---- */
    /* r6 is callee-saved: the callee's r6 = 100 must not leak back */
    CASE("call_callee_saved", 13, MOV64_K(6, 7), MOV64_K(1, 3), CALL_REL(2), ALU64_X(BPF_ADD, 0, 6),
	 EXIT(), MOV64_K(6, 100), MOV64_X(0, 1), ALU64_K(BPF_MUL, 0, 2), EXIT()),
    CASE("call_saves_r6_r9", 0x6789, MOV64_K(6, 6), MOV64_K(7, 7), MOV64_K(8, 8), MOV64_K(9, 9),
	 CALL_REL(11), MOV64_X(0, 6), ALU64_K(BPF_LSH, 0, 4), ALU64_X(BPF_OR, 0, 7),
	 ALU64_K(BPF_LSH, 0, 4), ALU64_X(BPF_OR, 0, 8), ALU64_K(BPF_LSH, 0, 4),
	 ALU64_X(BPF_OR, 0, 9), ALU64_K(BPF_ADD, 0, 0x6000), ALU64_K(BPF_SUB, 0, 0x6000), EXIT(),
	 EXIT(), MOV64_K(6, 0), MOV64_K(7, 0), MOV64_K(8, 0), MOV64_K(9, 0), MOV64_K(0, 0), EXIT()),
    /* each frame has its own stack: the callee's r10-8 is not the caller's */
    CASE("call_own_frame", 0x11, ST(BPF_DW, 10, -8, 0x11), CALL_REL(2), LDX(BPF_DW, 0, 10, -8),
	 EXIT(), ST(BPF_DW, 10, -8, 0x22), MOV64_K(0, 0), EXIT()),
    /* ... but the caller's stack stays reachable through a pointer */
    CASE("call_caller_stack_ptr", 0x33, ST(BPF_DW, 10, -8, 0x11), MOV64_X(1, 10),
	 ALU64_K(BPF_ADD, 1, -8), CALL_REL(2), LDX(BPF_DW, 0, 10, -8), EXIT(),
	 ST(BPF_DW, 1, 0, 0x33), MOV64_K(0, 0), EXIT()),
    CASE("call_args_r1_r5", 15, MOV64_K(1, 1), MOV64_K(2, 2), MOV64_K(3, 3), MOV64_K(4, 4),
	 MOV64_K(5, 5), CALL_REL(1), EXIT(), MOV64_X(0, 1), ALU64_X(BPF_ADD, 0, 2),
	 ALU64_X(BPF_ADD, 0, 3), ALU64_X(BPF_ADD, 0, 4), ALU64_X(BPF_ADD, 0, 5), EXIT()),
    /* recursion through 8 frames (main + 7): f(n) returns n */
    CASE("call_depth_8", 6, MOV64_K(1, 6), CALL_REL(1), EXIT(), MOV64_K(0, 0),
	 JMP_K(BPF_JEQ, 1, 0, 4), MOV64_X(6, 1), ALU64_K(BPF_SUB, 1, 1), CALL_REL(-5),
	 ALU64_K(BPF_ADD, 0, 1), EXIT()),
};

#define ISA_NCASES (sizeof(isa_cases) / sizeof(isa_cases[0]))

/* An engine runs a loaded program on memory; *stopped reports a fault or a
 * budget stop where the engine can tell. load_jit asks bpfvm_prog_load for the
 * JIT (an engine that needs the image fails the case if none was built). */
struct isa_engine {
	const char *name;
	bool load_jit;
	bool need_jit_image;
	uint64_t (*run)(const struct bpfvm_prog *prog, void *mem, size_t len, bool *stopped);
};

#endif
