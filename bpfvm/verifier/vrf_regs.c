/* Register state: scalar ranges (tnum, signed/unsigned 64- and 32-bit bounds)
 * and their transfer through ALU instructions, pointer arithmetic rules.
 * Follows the ideas of the kernel's adjust_scalar_min_max_vals and
 * adjust_ptr_min_max_vals (kernel/bpf/verifier.c); read RFC 9669 §4 first. */
#include <errno.h>
#include <string.h>

#include "vrf_int.h"

#define U32_MAXV 0xffffffffu
#define S32_MINV INT32_MIN
#define S32_MAXV INT32_MAX

static uint64_t umax64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}
static uint64_t umin64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}
static int64_t smax64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}
static int64_t smin64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void full64(struct vrf_reg *r)
{
	r->smin = INT64_MIN;
	r->smax = INT64_MAX;
	r->umin = 0;
	r->umax = UINT64_MAX;
}

static void full32(struct vrf_reg *r)
{
	r->s32min = S32_MINV;
	r->s32max = S32_MAXV;
	r->u32min = 0;
	r->u32max = U32_MAXV;
}

void vrf_mark_unknown(struct vrf_reg *r)
{
	memset(r, 0, sizeof(*r));
	r->type = VRF_SCALAR;
	r->var = vrf_tnum_unknown();
	full64(r);
	full32(r);
}

void vrf_mark_const(struct vrf_reg *r, uint64_t v)
{
	memset(r, 0, sizeof(*r));
	r->type = VRF_SCALAR;
	r->var = vrf_tnum_const(v);
	r->smin = r->smax = (int64_t)v;
	r->umin = r->umax = v;
	r->s32min = r->s32max = (int32_t)v;
	r->u32min = r->u32max = (uint32_t)v;
}

void vrf_mark_not_init(struct vrf_reg *r)
{
	memset(r, 0, sizeof(*r));
}

bool vrf_reg_is_const(const struct vrf_reg *r)
{
	return r->type == VRF_SCALAR && vrf_tnum_is_const(r->var);
}

bool vrf_reg_is_ptr(const struct vrf_reg *r)
{
	return r->type != VRF_NOT_INIT && r->type != VRF_SCALAR;
}

bool vrf_reg_empty(const struct vrf_reg *r)
{
	return r->umin > r->umax || r->smin > r->smax || r->u32min > r->u32max ||
	       r->s32min > r->s32max;
}

/* The kernel's __reg64_deduce_bounds: signed and unsigned views agree when
 * the range does not cross the sign boundary. */
static void deduce64(struct vrf_reg *r)
{
	if (r->smin >= 0 || r->smax < 0) {
		r->smin = (int64_t)(r->umin = umax64((uint64_t)r->smin, r->umin));
		r->smax = (int64_t)(r->umax = umin64((uint64_t)r->smax, r->umax));
		return;
	}
	if ((int64_t)r->umax >= 0) {
		r->smin = (int64_t)r->umin;
		r->smax = (int64_t)(r->umax = umin64(r->umax, (uint64_t)r->smax));
	} else if ((int64_t)r->umin < 0) {
		r->smin = (int64_t)(r->umin = umax64(r->umin, (uint64_t)r->smin));
		r->smax = (int64_t)r->umax;
	}
}

static void deduce32(struct vrf_reg *r)
{
	if (r->s32min >= 0 || r->s32max < 0) {
		uint32_t lo = r->u32min > (uint32_t)r->s32min ? r->u32min : (uint32_t)r->s32min;
		uint32_t hi = r->u32max < (uint32_t)r->s32max ? r->u32max : (uint32_t)r->s32max;
		r->u32min = lo;
		r->u32max = hi;
		r->s32min = (int32_t)lo;
		r->s32max = (int32_t)hi;
		return;
	}
	if ((int32_t)r->u32max >= 0) {
		r->s32min = (int32_t)r->u32min;
		r->u32max = r->u32max < (uint32_t)r->s32max ? r->u32max : (uint32_t)r->s32max;
		r->s32max = (int32_t)r->u32max;
	} else if ((int32_t)r->u32min < 0) {
		r->u32min = r->u32min > (uint32_t)r->s32min ? r->u32min : (uint32_t)r->s32min;
		r->s32min = (int32_t)r->u32min;
		r->s32max = (int32_t)r->u32max;
	}
}

/* Tighten every view of a scalar (or of a pointer's variable part) from the
 * others. Each step intersects sound facts, so the result stays sound. */
void vrf_reg_bounds_sync(struct vrf_reg *r)
{
	for (int k = 0; k < 2; k++) {
		if (vrf_reg_empty(r))
			return;
		struct vrf_tnum t = r->var;
		r->umin = umax64(r->umin, t.value);
		r->umax = umin64(r->umax, t.value | t.mask);
		r->smin = smax64(r->smin, (int64_t)(t.value | (t.mask & (1ull << 63))));
		r->smax = smin64(r->smax, (int64_t)(t.value | (t.mask & ~(1ull << 63))));
		struct vrf_tnum s = vrf_tnum_subreg(t);
		uint32_t sv = (uint32_t)s.value, sm = (uint32_t)s.mask;
		if (r->u32min < sv)
			r->u32min = sv;
		if (r->u32max > (sv | sm))
			r->u32max = sv | sm;
		if (r->s32min < (int32_t)(sv | (sm & 0x80000000u)))
			r->s32min = (int32_t)(sv | (sm & 0x80000000u));
		if (r->s32max > (int32_t)(sv | (sm & 0x7fffffffu)))
			r->s32max = (int32_t)(sv | (sm & 0x7fffffffu));
		/* 64 -> 32: one upper half means a monotone lower half */
		if ((r->umin >> 32) == (r->umax >> 32)) {
			if (r->u32min < (uint32_t)r->umin)
				r->u32min = (uint32_t)r->umin;
			if (r->u32max > (uint32_t)r->umax)
				r->u32max = (uint32_t)r->umax;
		}
		if ((r->smin >> 32) == (r->smax >> 32)) {
			if (r->u32min < (uint32_t)r->smin)
				r->u32min = (uint32_t)r->smin;
			if (r->u32max > (uint32_t)r->smax)
				r->u32max = (uint32_t)r->smax;
		}
		if (r->smin >= S32_MINV && r->smax <= S32_MAXV) {
			if (r->s32min < r->smin)
				r->s32min = (int32_t)r->smin;
			if (r->s32max > r->smax)
				r->s32max = (int32_t)r->smax;
		}
		if (vrf_reg_empty(r))
			return;
		deduce32(r);
		/* 32 -> 64: a known upper half fixes the full value range */
		if ((t.mask >> 32) == 0) {
			uint64_t hi = t.value & ~0xffffffffull;
			r->umin = umax64(r->umin, hi | r->u32min);
			r->umax = umin64(r->umax, hi | r->u32max);
			if (hi == 0 || hi == ~0xffffffffull) {
				/* the value is the sign or zero extension of the subreg */
				if (hi == 0 && r->s32min >= 0) {
					r->smin = smax64(r->smin, r->s32min);
					r->smax = smin64(r->smax, r->s32max);
				} else if (hi != 0 && r->s32max < 0) {
					r->smin = smax64(r->smin, r->s32min);
					r->smax = smin64(r->smax, r->s32max);
				}
			}
		}
		if (r->smin >= S32_MINV && r->smax <= S32_MAXV) {
			r->smin = smax64(r->smin, r->s32min);
			r->smax = smin64(r->smax, r->s32max);
		}
		if (vrf_reg_empty(r))
			return;
		deduce64(r);
		if (vrf_reg_empty(r))
			return;
		struct vrf_tnum v64 = vrf_tnum_intersect(r->var, vrf_tnum_range(r->umin, r->umax));
		struct vrf_tnum v32 =
		    vrf_tnum_intersect(vrf_tnum_subreg(v64), vrf_tnum_range(r->u32min, r->u32max));
		r->var = vrf_tnum_with_subreg(v64, v32);
	}
}

/* A loaded value of size bytes, zero- or sign-extended. */
void vrf_reg_bound_size(struct vrf_reg *r, int size, bool sign)
{
	vrf_mark_unknown(r);
	if (size >= 8)
		return;
	unsigned bits = (unsigned)size * 8;
	if (sign) {
		r->smin = -(1ll << (bits - 1));
		r->smax = (1ll << (bits - 1)) - 1;
	} else {
		r->umax = (1ull << bits) - 1;
		r->var = vrf_tnum_range(0, r->umax);
	}
	vrf_reg_bounds_sync(r);
}

/* Exact semantics of one ALU insn on known operands (RFC 9669 §4): 32-bit
 * results are zero-extended, division by zero yields 0, modulo by zero keeps
 * the dividend. */
int vrf_alu_eval(uint8_t code, int16_t off, int32_t imm, uint64_t a, uint64_t b, uint64_t *out)
{
	bool is64 = BPF_CLASS(code) == BPF_ALU64;
	uint64_t r;
	if (BPF_OP(code) == BPF_END) {
		bool swap = is64 || BPF_SRC(code) == BPF_TO_BE; /* little-endian host */
		if (imm == 16)
			r = swap ? __builtin_bswap16((uint16_t)a) : (uint16_t)a;
		else if (imm == 32)
			r = swap ? __builtin_bswap32((uint32_t)a) : (uint32_t)a;
		else
			r = swap ? __builtin_bswap64(a) : a;
		*out = r;
		return 0;
	}
	if (!is64) {
		a = (uint32_t)a;
		b = (uint32_t)b;
	}
	unsigned sh = (unsigned)b & (is64 ? 63 : 31);
	switch (BPF_OP(code)) {
	case BPF_ADD:
		r = a + b;
		break;
	case BPF_SUB:
		r = a - b;
		break;
	case BPF_MUL:
		r = a * b;
		break;
	case BPF_OR:
		r = a | b;
		break;
	case BPF_AND:
		r = a & b;
		break;
	case BPF_XOR:
		r = a ^ b;
		break;
	case BPF_LSH:
		r = a << sh;
		break;
	case BPF_RSH:
		r = a >> sh;
		break;
	case BPF_NEG:
		r = -a;
		break;
	case BPF_ARSH:
		r = is64 ? (uint64_t)((int64_t)a >> sh) : (uint32_t)((int32_t)(uint32_t)a >> sh);
		break;
	case BPF_DIV:
		if (off == 1) {
			if (is64) {
				int64_t x = (int64_t)a, y = (int64_t)b;
				r = y == 0 ? 0 : (y == -1 ? (uint64_t)0 - a : (uint64_t)(x / y));
			} else {
				int32_t x = (int32_t)a, y = (int32_t)b;
				r = y == 0 ? 0
					   : (y == -1 ? (uint32_t)(0u - (uint32_t)a)
						      : (uint32_t)(x / y));
			}
		} else {
			r = b ? a / b : 0;
		}
		break;
	case BPF_MOD:
		if (off == 1) {
			if (is64) {
				int64_t x = (int64_t)a, y = (int64_t)b;
				r = y == 0 ? a : (y == -1 ? 0 : (uint64_t)(x % y));
			} else {
				int32_t x = (int32_t)a, y = (int32_t)b;
				r = y == 0 ? a : (y == -1 ? 0 : (uint32_t)(x % y));
			}
		} else {
			r = b ? a % b : a;
		}
		break;
	case BPF_MOV:
		if (off == 8)
			r = (uint64_t)(int64_t)(int8_t)b;
		else if (off == 16)
			r = (uint64_t)(int64_t)(int16_t)b;
		else if (off == 32)
			r = (uint64_t)(int64_t)(int32_t)b;
		else
			r = b;
		break;
	default:
		return -EINVAL;
	}
	*out = is64 ? r : (uint32_t)r;
	return 0;
}

/* 64-bit transfer of one op on scalar views a (dst) and b (src). */
static void op64(struct vrf_reg *d, const struct vrf_reg *a, const struct vrf_reg *b, uint8_t op,
		 int width)
{
	bool bconst = vrf_tnum_is_const(b->var);
	unsigned sh = (unsigned)b->var.value & (unsigned)(width - 1);
	uint64_t x, y;
	int64_t sx, sy;

	vrf_mark_unknown(d);
	switch (op) {
	case BPF_ADD:
		d->var = vrf_tnum_add(a->var, b->var);
		if (!__builtin_add_overflow(a->umin, b->umin, &x) &&
		    !__builtin_add_overflow(a->umax, b->umax, &y)) {
			d->umin = x;
			d->umax = y;
		}
		if (!__builtin_add_overflow(a->smin, b->smin, &sx) &&
		    !__builtin_add_overflow(a->smax, b->smax, &sy)) {
			d->smin = sx;
			d->smax = sy;
		}
		break;
	case BPF_SUB:
		d->var = vrf_tnum_sub(a->var, b->var);
		if (a->umin >= b->umax) {
			d->umin = a->umin - b->umax;
			d->umax = a->umax - b->umin;
		}
		if (!__builtin_sub_overflow(a->smin, b->smax, &sx) &&
		    !__builtin_sub_overflow(a->smax, b->smin, &sy)) {
			d->smin = sx;
			d->smax = sy;
		}
		break;
	case BPF_MUL:
		d->var = vrf_tnum_mul(a->var, b->var);
		if (a->umax <= U32_MAXV && b->umax <= U32_MAXV) {
			d->umin = a->umin * b->umin;
			d->umax = a->umax * b->umax;
		}
		break;
	case BPF_AND:
		d->var = vrf_tnum_and(a->var, b->var);
		d->umax = umin64(a->umax, b->umax);
		break;
	case BPF_OR:
		d->var = vrf_tnum_or(a->var, b->var);
		d->umin = umax64(a->umin, b->umin);
		break;
	case BPF_XOR:
		d->var = vrf_tnum_xor(a->var, b->var);
		break;
	case BPF_LSH:
		if (!bconst)
			break;
		d->var = vrf_tnum_lshift(a->var, sh);
		if (sh == 0 || a->umax <= (UINT64_MAX >> sh)) {
			d->umin = a->umin << sh;
			d->umax = a->umax << sh;
		}
		break;
	case BPF_RSH:
		if (!bconst) {
			d->umax = a->umax;
			break;
		}
		d->var = vrf_tnum_rshift(a->var, sh);
		d->umin = a->umin >> sh;
		d->umax = a->umax >> sh;
		break;
	case BPF_ARSH:
		if (!bconst)
			break;
		d->var = vrf_tnum_arshift(a->var, sh, false);
		d->smin = a->smin >> sh;
		d->smax = a->smax >> sh;
		break;
	case BPF_DIV:
	case BPF_MOD:
		d->umax = a->umax; /* unsigned only; callers pass signed ops elsewhere */
		break;
	default:
		break;
	}
	vrf_reg_bounds_sync(d);
}

/* Zero- and sign-extended 64-bit views of a subregister. */
static void view32(const struct vrf_reg *r, struct vrf_reg *z, struct vrf_reg *s)
{
	struct vrf_tnum t = vrf_tnum_subreg(r->var);
	vrf_mark_unknown(z);
	z->var = t;
	z->umin = r->u32min;
	z->umax = r->u32max;
	vrf_reg_bounds_sync(z);
	vrf_mark_unknown(s);
	if (t.mask & 0x80000000u) {
		s->var = (struct vrf_tnum){t.value, t.mask | ~0xffffffffull};
	} else {
		uint64_t ext = (t.value & 0x80000000u) ? ~0xffffffffull : 0;
		s->var = (struct vrf_tnum){t.value | ext, t.mask};
	}
	s->smin = r->s32min;
	s->smax = r->s32max;
	vrf_reg_bounds_sync(s);
}

/* d = d op s on scalars; is64 false: 32-bit ALU, result zero-extended. */
void vrf_scalar_alu(struct vrf_reg *d, const struct vrf_reg *s, uint8_t op, bool is64)
{
	if (is64) {
		struct vrf_reg a = *d;
		op64(d, &a, s, op, 64);
		return;
	}
	struct vrf_reg az, as, bz, bs, rz, rs;
	view32(d, &az, &as);
	view32(s, &bz, &bs);
	op64(&rz, &az, &bz, op, 32);
	op64(&rs, &as, &bs, op, 32);
	vrf_mark_unknown(d);
	struct vrf_tnum lo = vrf_tnum_subreg(op == BPF_ARSH ? rs.var : rz.var);
	if (op != BPF_ARSH && (rz.umin >> 32) == (rz.umax >> 32)) {
		d->u32min = (uint32_t)rz.umin;
		d->u32max = (uint32_t)rz.umax;
	}
	if (op != BPF_RSH && op != BPF_DIV && op != BPF_MOD && rs.smin >= S32_MINV &&
	    rs.smax <= S32_MAXV) {
		d->s32min = (int32_t)rs.smin;
		d->s32max = (int32_t)rs.smax;
	}
	if (op == BPF_ARSH && (rs.umin >> 32) == (rs.umax >> 32)) {
		d->u32min = (uint32_t)rs.umin;
		d->u32max = (uint32_t)rs.umax;
	}
	d->var = vrf_tnum_subreg(lo);
	d->umax = U32_MAXV;
	deduce32(d);
	d->umin = d->u32min;
	d->umax = d->u32max;
	vrf_reg_bounds_sync(d);
}
