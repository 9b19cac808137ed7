/* x86-64 instruction encoders for the JIT. Intel SDM vol. 2, chapter 2
 * (prefix order legacy → REX → opcode, ModRM/SIB, the rsp/r12 SIB and
 * rbp/r13 disp8 special cases). Peepholes that only change the encoding live
 * here: imm8 forms, the short rax forms, xor for zero, short jumps. Every
 * encoder is a no-op once the buffer's sticky error is set. */
#include <errno.h>
#include <string.h>

#include "jit_int.h"

void jit_emit1(struct jit_buf *b, uint8_t v)
{
	if (b->err)
		return;
	if (b->len >= b->cap) {
		b->err = -E2BIG;
		return;
	}
	b->p[b->len++] = v;
}

void jit_emit4(struct jit_buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		jit_emit1(b, (uint8_t)(v >> (8 * i)));
}

void jit_emit8(struct jit_buf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		jit_emit1(b, (uint8_t)(v >> (8 * i)));
}

void jit_patch_rel8(struct jit_buf *b, size_t pos)
{
	if (b->err)
		return;
	int64_t rel = (int64_t)b->len - (int64_t)(pos + 1);
	if (pos >= b->len || rel < -128 || rel > 127) {
		b->err = -ERANGE;
		return;
	}
	b->p[pos] = (uint8_t)(int8_t)rel;
}

static bool is_imm8(int64_t v)
{
	return v >= -128 && v <= 127;
}

/* REX is needed for 64-bit operands, registers 8..15, and byte access to
 * spl/bpl/sil/dil (without it those encodings mean ah/ch/dh/bh). */
static void emit_rex(struct jit_buf *b, bool w, int reg, int index, int base, bool force)
{
	uint8_t rex = (uint8_t)(0x40 | (w ? 8 : 0) | ((reg >> 3) & 1) << 2 |
				((index >> 3) & 1) << 1 | ((base >> 3) & 1));
	if (rex != 0x40 || force)
		jit_emit1(b, rex);
}

static bool byte_needs_rex(int r)
{
	return r >= 4 && r <= 7;
}

static void emit_ops(struct jit_buf *b, const uint8_t *op, int oplen)
{
	for (int i = 0; i < oplen; i++)
		jit_emit1(b, op[i]);
}

/* ModRM (+SIB, +disp) for [base + disp]. */
static void emit_modrm_mem(struct jit_buf *b, int reg, int base, int32_t disp)
{
	uint8_t r = (uint8_t)((reg & 7) << 3), bb = (uint8_t)(base & 7);
	/* rbp/r13 with mod 00 means rip-relative: use disp8 0 instead. */
	if (disp == 0 && bb != 5) {
		jit_emit1(b, r | bb);
		if (bb == 4)
			jit_emit1(b, 0x24);
	} else if (is_imm8(disp)) {
		jit_emit1(b, 0x40 | r | bb);
		if (bb == 4)
			jit_emit1(b, 0x24);
		jit_emit1(b, (uint8_t)disp);
	} else {
		jit_emit1(b, 0x80 | r | bb);
		if (bb == 4)
			jit_emit1(b, 0x24);
		jit_emit4(b, (uint32_t)disp);
	}
}

/* [66] REX op ModRM(11, reg, rm) */
static void emit_rr(struct jit_buf *b, bool p66, bool w, bool byte, const uint8_t *op, int oplen,
		    int reg, int rm)
{
	if (p66)
		jit_emit1(b, 0x66);
	emit_rex(b, w, reg, 0, rm, byte && (byte_needs_rex(reg) || byte_needs_rex(rm)));
	emit_ops(b, op, oplen);
	jit_emit1(b, (uint8_t)(0xc0 | (reg & 7) << 3 | (rm & 7)));
}

/* [F0] [66] REX op ModRM-mem */
static void emit_rm(struct jit_buf *b, bool lock, bool p66, bool w, bool byte_reg,
		    const uint8_t *op, int oplen, int reg, int base, int32_t disp)
{
	if (lock)
		jit_emit1(b, 0xf0);
	if (p66)
		jit_emit1(b, 0x66);
	emit_rex(b, w, reg, 0, base, byte_reg && byte_needs_rex(reg));
	emit_ops(b, op, oplen);
	emit_modrm_mem(b, reg, base, disp);
}

void jit_alu_rr(struct jit_buf *b, bool w, uint8_t op, int dst, int src)
{
	emit_rr(b, false, w, false, &op, 1, src, dst);
}

void jit_alu_ri(struct jit_buf *b, bool w, int ext, int dst, int32_t imm)
{
	if (is_imm8(imm)) {
		static const uint8_t op = 0x83;
		emit_rr(b, false, w, false, &op, 1, ext, dst);
		jit_emit1(b, (uint8_t)imm);
	} else if (dst == JIT_RAX) {
		emit_rex(b, w, 0, 0, 0, false);
		jit_emit1(b, (uint8_t)(ext << 3 | 5));
		jit_emit4(b, (uint32_t)imm);
	} else {
		static const uint8_t op = 0x81;
		emit_rr(b, false, w, false, &op, 1, ext, dst);
		jit_emit4(b, (uint32_t)imm);
	}
}

void jit_mov_rr(struct jit_buf *b, bool w, int dst, int src)
{
	jit_alu_rr(b, w, JIT_OP_MOV, dst, src);
}

static void mov_ri32(struct jit_buf *b, int dst, uint32_t imm)
{
	if (imm == 0) {
		jit_alu_rr(b, false, JIT_OP_XOR, dst, dst);
		return;
	}
	emit_rex(b, false, 0, 0, dst, false);
	jit_emit1(b, (uint8_t)(0xb8 | (dst & 7)));
	jit_emit4(b, imm);
}

void jit_mov_ri(struct jit_buf *b, bool w, int dst, int32_t imm)
{
	if (!w || imm >= 0) {
		mov_ri32(b, dst, (uint32_t)imm);
		return;
	}
	static const uint8_t op = 0xc7;
	emit_rr(b, false, true, false, &op, 1, 0, dst);
	jit_emit4(b, (uint32_t)imm);
}

void jit_mov_ri64(struct jit_buf *b, int dst, uint64_t imm)
{
	if (imm <= UINT32_MAX) {
		mov_ri32(b, dst, (uint32_t)imm);
	} else if ((int64_t)imm >= INT32_MIN && (int64_t)imm < 0) {
		jit_mov_ri(b, true, dst, (int32_t)imm);
	} else {
		emit_rex(b, true, 0, 0, dst, false);
		jit_emit1(b, (uint8_t)(0xb8 | (dst & 7)));
		jit_emit8(b, imm);
	}
}

void jit_test_ri(struct jit_buf *b, bool w, int dst, int32_t imm)
{
	if (imm >= 0 && imm <= 255) {
		/* the low byte decides alone: test r8, imm8 */
		static const uint8_t op = 0xf6;
		emit_rr(b, false, false, true, &op, 1, 0, dst);
		jit_emit1(b, (uint8_t)imm);
	} else if (dst == JIT_RAX) {
		emit_rex(b, w, 0, 0, 0, false);
		jit_emit1(b, 0xa9);
		jit_emit4(b, (uint32_t)imm);
	} else {
		static const uint8_t op = 0xf7;
		emit_rr(b, false, w, false, &op, 1, 0, dst);
		jit_emit4(b, (uint32_t)imm);
	}
}

void jit_imul_rr(struct jit_buf *b, bool w, int dst, int src)
{
	static const uint8_t op[] = {0x0f, 0xaf};
	emit_rr(b, false, w, false, op, 2, dst, src);
}

void jit_imul_ri(struct jit_buf *b, bool w, int dst, int32_t imm)
{
	uint8_t op = is_imm8(imm) ? 0x6b : 0x69;
	emit_rr(b, false, w, false, &op, 1, dst, dst);
	if (is_imm8(imm))
		jit_emit1(b, (uint8_t)imm);
	else
		jit_emit4(b, (uint32_t)imm);
}

void jit_grp3(struct jit_buf *b, bool w, int ext, int rm)
{
	static const uint8_t op = 0xf7;
	emit_rr(b, false, w, false, &op, 1, ext, rm);
}

void jit_shift_ri(struct jit_buf *b, bool w, int ext, int dst, uint8_t count)
{
	uint8_t op = count == 1 ? 0xd1 : 0xc1;
	emit_rr(b, false, w, false, &op, 1, ext, dst);
	if (count != 1)
		jit_emit1(b, count);
}

void jit_shift_cl(struct jit_buf *b, bool w, int ext, int dst)
{
	static const uint8_t op = 0xd3;
	emit_rr(b, false, w, false, &op, 1, ext, dst);
}

void jit_cqo(struct jit_buf *b, bool w)
{
	if (w)
		jit_emit1(b, 0x48);
	jit_emit1(b, 0x99);
}

void jit_bswap(struct jit_buf *b, bool w, int r)
{
	emit_rex(b, w, 0, 0, r, false);
	jit_emit1(b, 0x0f);
	jit_emit1(b, (uint8_t)(0xc8 | (r & 7)));
}

void jit_rol16_8(struct jit_buf *b, int r)
{
	static const uint8_t op = 0xc1;
	emit_rr(b, true, false, false, &op, 1, 0, r);
	jit_emit1(b, 8);
}

void jit_movzx_rr(struct jit_buf *b, int dst, int src, int size)
{
	const uint8_t op[] = {0x0f, size == 1 ? 0xb6 : 0xb7};
	emit_rr(b, false, false, size == 1, op, 2, dst, src);
}

void jit_movsx_rr(struct jit_buf *b, bool w, int dst, int src, int size)
{
	if (size == 4) {
		static const uint8_t op = 0x63;
		emit_rr(b, false, true, false, &op, 1, dst, src);
		return;
	}
	const uint8_t op[] = {0x0f, size == 1 ? 0xbe : 0xbf};
	emit_rr(b, false, w, size == 1, op, 2, dst, src);
}

void jit_load(struct jit_buf *b, int size, bool sx, int dst, int base, int32_t disp)
{
	static const uint8_t mov = 0x8b, movsxd = 0x63;
	static const uint8_t zb[] = {0x0f, 0xb6}, zh[] = {0x0f, 0xb7};
	static const uint8_t sb[] = {0x0f, 0xbe}, sh[] = {0x0f, 0xbf};
	switch (size) {
	case 1:
		emit_rm(b, false, false, sx, false, sx ? sb : zb, 2, dst, base, disp);
		break;
	case 2:
		emit_rm(b, false, false, sx, false, sx ? sh : zh, 2, dst, base, disp);
		break;
	case 4:
		emit_rm(b, false, false, sx, false, sx ? &movsxd : &mov, 1, dst, base, disp);
		break;
	default:
		emit_rm(b, false, false, true, false, &mov, 1, dst, base, disp);
		break;
	}
}

void jit_store_r(struct jit_buf *b, int size, int base, int32_t disp, int src)
{
	uint8_t op = size == 1 ? 0x88 : 0x89;
	emit_rm(b, false, size == 2, size == 8, size == 1, &op, 1, src, base, disp);
}

void jit_store_i(struct jit_buf *b, int size, int base, int32_t disp, int32_t imm)
{
	uint8_t op = size == 1 ? 0xc6 : 0xc7;
	emit_rm(b, false, size == 2, size == 8, false, &op, 1, 0, base, disp);
	if (size == 1)
		jit_emit1(b, (uint8_t)imm);
	else if (size == 2) {
		jit_emit1(b, (uint8_t)imm);
		jit_emit1(b, (uint8_t)(imm >> 8));
	} else
		jit_emit4(b, (uint32_t)imm);
}

void jit_lea(struct jit_buf *b, int dst, int base, int32_t disp)
{
	static const uint8_t op = 0x8d;
	emit_rm(b, false, false, true, false, &op, 1, dst, base, disp);
}

void jit_mem_alu_i8(struct jit_buf *b, int ext, int base, int32_t disp, int8_t imm)
{
	static const uint8_t op = 0x83;
	emit_rm(b, false, false, true, false, &op, 1, ext, base, disp);
	jit_emit1(b, (uint8_t)imm);
}

void jit_mem_cmp_i8(struct jit_buf *b, int base, int32_t disp, int8_t imm)
{
	jit_mem_alu_i8(b, JIT_X_CMP, base, disp, imm);
}

void jit_mem_incdec(struct jit_buf *b, int ext, int base, int32_t disp)
{
	static const uint8_t op = 0xff;
	emit_rm(b, false, false, true, false, &op, 1, ext, base, disp);
}

void jit_atomic(struct jit_buf *b, int size, uint8_t op, int reg, int base, int32_t disp)
{
	bool w = size == 8;
	if (op == 0xc1 || op == 0xb1) {
		const uint8_t ops[] = {0x0f, op};
		emit_rm(b, true, false, w, false, ops, 2, reg, base, disp);
	} else {
		/* xchg with memory is locked without the prefix */
		emit_rm(b, op != 0x87, false, w, false, &op, 1, reg, base, disp);
	}
}

void jit_push(struct jit_buf *b, int r)
{
	emit_rex(b, false, 0, 0, r, false);
	jit_emit1(b, (uint8_t)(0x50 | (r & 7)));
}

void jit_pop(struct jit_buf *b, int r)
{
	emit_rex(b, false, 0, 0, r, false);
	jit_emit1(b, (uint8_t)(0x58 | (r & 7)));
}

void jit_ret(struct jit_buf *b)
{
	jit_emit1(b, 0xc3);
}

void jit_call_r(struct jit_buf *b, int r)
{
	static const uint8_t op = 0xff;
	emit_rr(b, false, false, false, &op, 1, 2, r);
}

void jit_jump(struct jit_buf *b, int cc, int64_t from, int64_t to, bool force_near)
{
	int64_t d8 = to - (from + 2);
	if (!force_near && is_imm8(d8)) {
		jit_emit1(b, cc == JIT_CC_ALWAYS ? 0xeb : (uint8_t)(0x70 | cc));
		jit_emit1(b, (uint8_t)d8);
		return;
	}
	int64_t d32;
	if (cc == JIT_CC_ALWAYS) {
		d32 = to - (from + 5);
		jit_emit1(b, 0xe9);
	} else {
		d32 = to - (from + 6);
		jit_emit1(b, 0x0f);
		jit_emit1(b, (uint8_t)(0x80 | cc));
	}
	if (d32 < INT32_MIN || d32 > INT32_MAX) {
		b->err = b->err ? b->err : -ERANGE;
		return;
	}
	jit_emit4(b, (uint32_t)(int32_t)(force_near ? 0 : d32));
}

void jit_call_rel(struct jit_buf *b, int64_t from, int64_t to, bool force_near)
{
	int64_t d32 = to - (from + 5);
	jit_emit1(b, 0xe8);
	if (d32 < INT32_MIN || d32 > INT32_MAX) {
		b->err = b->err ? b->err : -ERANGE;
		return;
	}
	jit_emit4(b, (uint32_t)(int32_t)(force_near ? 0 : d32));
}

size_t jit_jcc8_fwd(struct jit_buf *b, int cc)
{
	jit_emit1(b, cc == JIT_CC_ALWAYS ? 0xeb : (uint8_t)(0x70 | cc));
	size_t pos = b->len;
	jit_emit1(b, 0);
	return pos;
}
