/* Arithmetic and jump conditions of the interpreter (RFC 9669 §4): one
 * function per operand width, inlined into interp.c's dispatch loop where
 * the operation is a constant, so each label keeps a single operation.
 * 32-bit results are zero-extended by the caller's assignment. Include only
 * from interp.c. */
#ifndef SKOPS_BPFVM_INTERP_ALU_H
#define SKOPS_BPFVM_INTERP_ALU_H

#include "interp_int.h"

/* RFC 9669 §4.1: division by zero yields 0, modulo by zero leaves dst; signed
 * INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0 (what the kernel's
 * verifier fixups produce). */
static inline uint64_t interp_sdiv64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return 0;
	if ((int64_t)b == -1)
		return 0 - a;
	return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t interp_smod64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return a;
	if ((int64_t)b == -1)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

static inline uint32_t interp_sdiv32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return 0;
	if ((int32_t)b == -1)
		return 0 - a;
	return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint32_t interp_smod32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return a;
	if ((int32_t)b == -1)
		return 0;
	return (uint32_t)((int32_t)a % (int32_t)b);
}

/* op of ALU64 (not MOV, NEG, END); off 1 selects sdiv/smod (cpu v4). Shift
 * counts are masked to the operand width. */
INTERP_INLINE uint64_t interp_alu64(uint8_t op, uint64_t d, uint64_t s, int16_t off)
{
	switch (op) {
	case BPF_ADD:
		return d + s;
	case BPF_SUB:
		return d - s;
	case BPF_MUL:
		return d * s;
	case BPF_DIV:
		return off ? interp_sdiv64(d, s) : (s ? d / s : 0);
	case BPF_OR:
		return d | s;
	case BPF_AND:
		return d & s;
	case BPF_LSH:
		return d << (s & 63);
	case BPF_RSH:
		return d >> (s & 63);
	case BPF_MOD:
		return off ? interp_smod64(d, s) : (s ? d % s : d);
	case BPF_XOR:
		return d ^ s;
	case BPF_ARSH:
		return (uint64_t)((int64_t)d >> (s & 63));
	}
	__builtin_unreachable();
}

/* The same in 32 bits. */
INTERP_INLINE uint32_t interp_alu32(uint8_t op, uint32_t d, uint32_t s, int16_t off)
{
	switch (op) {
	case BPF_ADD:
		return d + s;
	case BPF_SUB:
		return d - s;
	case BPF_MUL:
		return d * s;
	case BPF_DIV:
		return off ? interp_sdiv32(d, s) : (s ? d / s : 0);
	case BPF_OR:
		return d | s;
	case BPF_AND:
		return d & s;
	case BPF_LSH:
		return d << (s & 31);
	case BPF_RSH:
		return d >> (s & 31);
	case BPF_MOD:
		return off ? interp_smod32(d, s) : (s ? d % s : d);
	case BPF_XOR:
		return d ^ s;
	case BPF_ARSH:
		return (uint32_t)((int32_t)d >> (s & 31));
	}
	__builtin_unreachable();
}

/* MOV of a register; with off 8/16/32 it is MOVSX (RFC 9669 §4.1, cpu v4). */
INTERP_INLINE uint64_t interp_movsx64(uint64_t s, int16_t off)
{
	switch (off) {
	case 8:
		return (uint64_t)(int64_t)(int8_t)s;
	case 16:
		return (uint64_t)(int64_t)(int16_t)s;
	case 32:
		return (uint64_t)(int64_t)(int32_t)s;
	default:
		return s;
	}
}

INTERP_INLINE uint32_t interp_movsx32(uint64_t s, int16_t off)
{
	switch (off) {
	case 8:
		return (uint32_t)(int32_t)(int8_t)s;
	case 16:
		return (uint32_t)(int32_t)(int16_t)s;
	default:
		return (uint32_t)s;
	}
}

/* RFC 9669 §4.2: to-le on this little-endian host truncates; to-be and
 * ALU64 bswap swap. Widths were checked at load. */
INTERP_INLINE uint64_t interp_endian_le(uint64_t d, int32_t width)
{
	return width == 16 ? (uint16_t)d : width == 32 ? (uint32_t)d : d;
}

INTERP_INLINE uint64_t interp_endian_be(uint64_t d, int32_t width)
{
	return width == 16   ? __builtin_bswap16((uint16_t)d)
	       : width == 32 ? __builtin_bswap32((uint32_t)d)
			     : __builtin_bswap64(d);
}

/* Whether conditional jump op is taken (RFC 9669 §4.3), 64-bit operands. */
INTERP_INLINE bool interp_jmp64(uint8_t op, uint64_t d, uint64_t s)
{
	switch (op) {
	case BPF_JEQ:
		return d == s;
	case BPF_JNE:
		return d != s;
	case BPF_JGT:
		return d > s;
	case BPF_JGE:
		return d >= s;
	case BPF_JLT:
		return d < s;
	case BPF_JLE:
		return d <= s;
	case BPF_JSGT:
		return (int64_t)d > (int64_t)s;
	case BPF_JSGE:
		return (int64_t)d >= (int64_t)s;
	case BPF_JSLT:
		return (int64_t)d < (int64_t)s;
	case BPF_JSLE:
		return (int64_t)d <= (int64_t)s;
	case BPF_JSET:
		return d & s;
	}
	__builtin_unreachable();
}

/* The same on the low 32 bits. */
INTERP_INLINE bool interp_jmp32(uint8_t op, uint32_t d, uint32_t s)
{
	switch (op) {
	case BPF_JEQ:
		return d == s;
	case BPF_JNE:
		return d != s;
	case BPF_JGT:
		return d > s;
	case BPF_JGE:
		return d >= s;
	case BPF_JLT:
		return d < s;
	case BPF_JLE:
		return d <= s;
	case BPF_JSGT:
		return (int32_t)d > (int32_t)s;
	case BPF_JSGE:
		return (int32_t)d >= (int32_t)s;
	case BPF_JSLT:
		return (int32_t)d < (int32_t)s;
	case BPF_JSLE:
		return (int32_t)d <= (int32_t)s;
	case BPF_JSET:
		return d & s;
	}
	__builtin_unreachable();
}

#endif
