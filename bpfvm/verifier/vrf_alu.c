/* ALU instructions: operand checks, scalar transfer (vrf_regs.c) and the
 * pointer arithmetic rules: only 64-bit add/sub of bounded scalars on
 * pointers that allow it, no pointer leaking into a scalar (kernel:
 * check_alu_op, adjust_ptr_min_max_vals). */
#include <errno.h>

#include "vrf_int.h"

static const char *op_name(uint8_t op)
{
	static const char *const names[16] = {"+=",   "-=",	"*=",  "/=", "|=", "&=",
					      "<<=",  ">>=",	"neg", "%=", "^=", "=",
					      "s>>=", "endian", "?",   "?"};
	return names[op >> 4];
}

void vrf_mark_ptr(struct vrf_reg *r, uint8_t type)
{
	vrf_mark_const(r, 0);
	r->type = type;
}

static bool same_region(const struct vrf_reg *a, const struct vrf_reg *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case VRF_PTR_STACK:
		return a->frameno == b->frameno;
	case VRF_MAP_VALUE:
		return a->map == b->map;
	case VRF_PTR_PKT:
	case VRF_PTR_CTX:
		return true;
	case VRF_PTR_MEM:
		return a->ref == b->ref && a->id == b->id;
	default:
		return false;
	}
}

static int ptr_alu(struct vrf_env *env, const struct bpfvm_insn *insn, struct vrf_reg *dst,
		   const struct vrf_reg *src)
{
	uint8_t op = BPF_OP(insn->code);
	int d = insn->dst;
	bool dptr = vrf_reg_is_ptr(dst), sptr = vrf_reg_is_ptr(src);

	if (BPF_CLASS(insn->code) != BPF_ALU64)
		return vrf_err(env, -EACCES, "R%d 32-bit pointer arithmetic prohibited", d);
	if (op != BPF_ADD && op != BPF_SUB)
		return vrf_err(env, -EACCES, "R%d pointer arithmetic with %s operator prohibited",
			       d, op_name(op));
	if (dptr && sptr) {
		if (op == BPF_SUB && same_region(dst, src)) {
			vrf_mark_unknown(dst);
			return 0;
		}
		return vrf_err(env, -EACCES, "R%d pointer %s pointer prohibited", d, op_name(op));
	}
	if (!dptr && op == BPF_SUB)
		return vrf_err(env, -EACCES, "R%d tried to subtract pointer from scalar", d);
	const struct vrf_reg *ptr = dptr ? dst : src;
	if (dptr && BPF_SRC(insn->code) == BPF_X)
		vrf_mark_reg_precise(env, insn->src);
	else if (!dptr)
		vrf_mark_reg_precise(env, insn->dst);
	struct vrf_reg off = dptr ? *src : *dst;
	switch (ptr->type) {
	case VRF_PTR_CTX:
	case VRF_PTR_STACK:
	case VRF_MAP_VALUE:
	case VRF_PTR_PKT:
	case VRF_PTR_MEM:
		break;
	case VRF_PTR_BTF:
		/* a kernel-typed object: constant offsets only (the kernel's
		 * check_ptr_to_btf_access wants a constant var_off) */
		if (!vrf_reg_is_const(&off))
			return vrf_err(env, -EACCES, "R%d variable offset on %s prohibited", d,
				       vrf_type_name(ptr->type));
		break;
	default:
		return vrf_err(env, -EACCES, "R%d pointer arithmetic on %s prohibited", d,
			       vrf_type_name(ptr->type));
	}
	struct vrf_reg res = *ptr;
	const int64_t lim = VRF_MAX_MEM_SIZE;
	if (vrf_reg_is_const(&off)) {
		int64_t c = (int64_t)off.var.value;
		if (c >= lim || c <= -lim)
			return vrf_err(env, -EACCES,
				       "R%d value %lld makes %s pointer be out of bounds", d,
				       (long long)c, vrf_type_name(ptr->type));
		int64_t no = op == BPF_SUB ? (int64_t)ptr->off - c : (int64_t)ptr->off + c;
		if (no >= lim || no <= -lim)
			return vrf_err(env, -EACCES,
				       "R%d offset %lld makes %s pointer be out of bounds", d,
				       (long long)no, vrf_type_name(ptr->type));
		res.off = (int32_t)no;
	} else {
		if (off.smin <= -lim || off.smax >= lim)
			return vrf_err(env, -EACCES,
				       "R%d math between %s pointer and register with unbounded "
				       "value is not allowed",
				       d, vrf_type_name(ptr->type));
		struct vrf_reg pv = *ptr;
		pv.type = VRF_SCALAR;
		vrf_scalar_alu(&pv, &off, op, true);
		if (pv.smin <= -lim || pv.smax >= lim)
			return vrf_err(env, -EACCES,
				       "R%d variable offset makes %s pointer be out of bounds", d,
				       vrf_type_name(ptr->type));
		res.var = pv.var;
		res.smin = pv.smin;
		res.smax = pv.smax;
		res.umin = pv.umin;
		res.umax = pv.umax;
		res.s32min = pv.s32min;
		res.s32max = pv.s32max;
		res.u32min = pv.u32min;
		res.u32max = pv.u32max;
		if (res.type == VRF_PTR_PKT) {
			/* a new variable base: no proven range yet */
			res.id = env->next_id++;
			res.range = 0;
		}
	}
	*dst = res;
	return 0;
}

static void zext_from(struct vrf_reg *d, const struct vrf_reg *s)
{
	struct vrf_reg t = *s;
	vrf_mark_unknown(d);
	d->var = vrf_tnum_subreg(t.var);
	d->u32min = t.u32min;
	d->u32max = t.u32max;
	d->s32min = t.s32min;
	d->s32max = t.s32max;
	d->umin = t.u32min;
	d->umax = t.u32max;
	vrf_reg_bounds_sync(d);
}

static int check_mov(struct vrf_env *env, const struct bpfvm_insn *insn, struct vrf_reg *regs)
{
	bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;
	struct vrf_reg *dst = &regs[insn->dst];

	if (BPF_SRC(insn->code) == BPF_K) {
		vrf_mark_const(dst, is64 ? (uint64_t)(int64_t)insn->imm : (uint32_t)insn->imm);
		return 0;
	}
	struct vrf_reg *src = &regs[insn->src];
	if (is64 && insn->off == 0) {
		/* a copy links the two scalars so a later branch refines both */
		if (src->type == VRF_SCALAR && !vrf_tnum_is_const(src->var) && !src->id)
			src->id = env->next_id++;
		*dst = *src;
		return 0;
	}
	if (vrf_reg_is_ptr(src))
		return vrf_err(env, -EACCES, "R%d partial copy of pointer", insn->src);
	if (vrf_reg_is_const(src)) {
		uint64_t v = 0;
		vrf_alu_eval(insn->code, insn->off, insn->imm, 0, src->var.value, &v);
		vrf_mark_const(dst, v);
		return 0;
	}
	if (insn->off == 0) { /* w_dst = w_src */
		zext_from(dst, src);
		return 0;
	}
	unsigned bits = (unsigned)insn->off;
	struct vrf_reg s = *src;
	if (s.umax < (1ull << (bits - 1))) {
		/* sign bit of the low part is clear: the value is unchanged */
		if (is64) {
			*dst = s;
			dst->id = 0;
		} else {
			zext_from(dst, &s);
		}
		return 0;
	}
	vrf_mark_unknown(dst);
	if (is64) {
		dst->smin = -(1ll << (bits - 1));
		dst->smax = (1ll << (bits - 1)) - 1;
	} else {
		dst->s32min = -(1 << (bits - 1));
		dst->s32max = (1 << (bits - 1)) - 1;
		dst->umax = 0xffffffffu;
	}
	vrf_reg_bounds_sync(dst);
	return 0;
}

int vrf_check_alu(struct vrf_env *env, const struct bpfvm_insn *insn)
{
	struct vrf_reg *regs = vrf_cur_regs(env);
	uint8_t op = BPF_OP(insn->code);
	bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;
	/* the source bit of BPF_END selects the byte order, not a register */
	bool x = BPF_SRC(insn->code) == BPF_X && op != BPF_END;
	struct vrf_reg *dst = &regs[insn->dst];
	struct vrf_reg src;

	if (x && regs[insn->src].type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", insn->src);
	if (op != BPF_MOV && dst->type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", insn->dst);
	if (insn->dst == VRF_FP)
		return vrf_err(env, -EACCES, "frame pointer is read only");
	if (!is64)
		vrf_mark_zext(env, env->insn_idx);
	if (op == BPF_MOV)
		return check_mov(env, insn, regs);
	if (x)
		src = regs[insn->src];
	else
		vrf_mark_const(&src, is64 ? (uint64_t)(int64_t)insn->imm : (uint32_t)insn->imm);

	if (op == BPF_NEG || op == BPF_END) {
		if (vrf_reg_is_ptr(dst))
			return vrf_err(env, -EACCES,
				       "R%d pointer arithmetic with %s operator prohibited",
				       insn->dst, op_name(op));
		if (vrf_reg_is_const(dst)) {
			uint64_t v = 0;
			vrf_alu_eval(insn->code, insn->off, insn->imm, dst->var.value, 0, &v);
			vrf_mark_const(dst, v);
		} else if (op == BPF_END) {
			/* the width is imm's, whatever the class: be64/le64 are
			 * BPF_ALU class yet keep all 64 bits (interp end_le/end_be) */
			vrf_reg_bound_size(dst, insn->imm / 8, false);
		} else {
			vrf_reg_bound_size(dst, is64 ? 8 : 4, false);
		}
		return 0;
	}
	if (vrf_reg_is_ptr(dst) || vrf_reg_is_ptr(&src))
		return ptr_alu(env, insn, dst, &src);
	if (vrf_reg_is_const(dst) && vrf_reg_is_const(&src)) {
		uint64_t v = 0;
		vrf_alu_eval(insn->code, insn->off, insn->imm, dst->var.value, src.var.value, &v);
		vrf_mark_const(dst, v);
		return 0;
	}
	if ((op == BPF_DIV || op == BPF_MOD) && insn->off == 1) {
		vrf_reg_bound_size(dst, is64 ? 8 : 4, false); /* signed: no bounds kept */
		return 0;
	}
	vrf_scalar_alu(dst, &src, op, is64);
	return 0;
}
