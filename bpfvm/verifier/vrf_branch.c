/* Conditional jumps: refine both operands on each side of the branch (the
 * kernel's reg_set_min_max, incl. JMP32 on the subregisters), drop a side
 * whose refined state is empty, propagate NULL checks through equal ids
 * (mark_ptr_or_null_regs) and packet range checks (find_good_pkt_pointers).
 * Pointers may only be compared against NULL, packet against packet end, or
 * with a pointer into the same region. */
#include <errno.h>

#include "vrf_int.h"

enum { C_EQ, C_NE, C_GT, C_GE, C_SGT, C_SGE, C_SET, C_NSET };

static uint64_t umx(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}
static uint64_t umn(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}
static int64_t smx(int64_t a, int64_t b)
{
	return a > b ? a : b;
}
static int64_t smn(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void set_empty(struct vrf_reg *r)
{
	r->umin = 1;
	r->umax = 0;
}

/* Make "a cond b" hold on 64-bit values. */
static void refine64(struct vrf_reg *a, struct vrf_reg *b, int c)
{
	switch (c) {
	case C_EQ:
		if (vrf_tnum_conflict(a->var, b->var)) {
			set_empty(a);
			return;
		}
		a->var = b->var = vrf_tnum_intersect(a->var, b->var);
		a->umin = b->umin = umx(a->umin, b->umin);
		a->umax = b->umax = umn(a->umax, b->umax);
		a->smin = b->smin = smx(a->smin, b->smin);
		a->smax = b->smax = smn(a->smax, b->smax);
		break;
	case C_NE:
		for (int k = 0; k < 2; k++) {
			struct vrf_reg *x = k ? b : a, *y = k ? a : b;
			if (!vrf_tnum_is_const(y->var))
				continue;
			uint64_t v = y->var.value;
			if (vrf_tnum_is_const(x->var) && x->var.value == v) {
				set_empty(x);
				return;
			}
			if (x->umin == v && x->umin < UINT64_MAX)
				x->umin++;
			else if (x->umax == v && x->umax > 0)
				x->umax--;
			if (x->smin == (int64_t)v && x->smin < INT64_MAX)
				x->smin++;
			else if (x->smax == (int64_t)v && x->smax > INT64_MIN)
				x->smax--;
		}
		break;
	case C_GT:
		if (b->umin == UINT64_MAX || a->umax == 0) {
			set_empty(a);
			return;
		}
		a->umin = umx(a->umin, b->umin + 1);
		b->umax = umn(b->umax, a->umax - 1);
		break;
	case C_GE:
		a->umin = umx(a->umin, b->umin);
		b->umax = umn(b->umax, a->umax);
		break;
	case C_SGT:
		if (b->smin == INT64_MAX || a->smax == INT64_MIN) {
			set_empty(a);
			return;
		}
		a->smin = smx(a->smin, b->smin + 1);
		b->smax = smn(b->smax, a->smax - 1);
		break;
	case C_SGE:
		a->smin = smx(a->smin, b->smin);
		b->smax = smn(b->smax, a->smax);
		break;
	case C_SET:
		if (vrf_tnum_is_const(b->var)) {
			uint64_t m = b->var.value;
			if (((a->var.value | a->var.mask) & m) == 0) {
				set_empty(a);
				return;
			}
			if (m && !(m & (m - 1))) /* one bit: it is set */
				a->var = vrf_tnum_intersect(a->var, (struct vrf_tnum){m, ~m});
		}
		break;
	case C_NSET:
		if (vrf_tnum_is_const(b->var)) {
			uint64_t m = b->var.value;
			if (a->var.value & m) {
				set_empty(a);
				return;
			}
			a->var.mask &= ~m;
		}
		break;
	}
}

/* The same on the low 32 bits. */
static void refine32(struct vrf_reg *a, struct vrf_reg *b, int c)
{
	struct vrf_tnum ta = vrf_tnum_subreg(a->var), tb = vrf_tnum_subreg(b->var);
	switch (c) {
	case C_EQ: {
		if (vrf_tnum_conflict(ta, tb)) {
			set_empty(a);
			return;
		}
		struct vrf_tnum t = vrf_tnum_intersect(ta, tb);
		a->var = vrf_tnum_with_subreg(a->var, t);
		b->var = vrf_tnum_with_subreg(b->var, t);
		a->u32min = b->u32min = a->u32min > b->u32min ? a->u32min : b->u32min;
		a->u32max = b->u32max = a->u32max < b->u32max ? a->u32max : b->u32max;
		a->s32min = b->s32min = a->s32min > b->s32min ? a->s32min : b->s32min;
		a->s32max = b->s32max = a->s32max < b->s32max ? a->s32max : b->s32max;
		break;
	}
	case C_NE:
		for (int k = 0; k < 2; k++) {
			struct vrf_reg *x = k ? b : a;
			struct vrf_tnum ty = k ? ta : tb, tx = k ? tb : ta;
			if (!vrf_tnum_is_const(ty))
				continue;
			uint32_t v = (uint32_t)ty.value;
			if (vrf_tnum_is_const(tx) && (uint32_t)tx.value == v) {
				set_empty(x);
				return;
			}
			if (x->u32min == v && x->u32min < UINT32_MAX)
				x->u32min++;
			else if (x->u32max == v && x->u32max > 0)
				x->u32max--;
			if (x->s32min == (int32_t)v && x->s32min < INT32_MAX)
				x->s32min++;
			else if (x->s32max == (int32_t)v && x->s32max > INT32_MIN)
				x->s32max--;
		}
		break;
	case C_GT:
		if (b->u32min == UINT32_MAX || a->u32max == 0) {
			set_empty(a);
			return;
		}
		if (a->u32min < b->u32min + 1)
			a->u32min = b->u32min + 1;
		if (b->u32max > a->u32max - 1)
			b->u32max = a->u32max - 1;
		break;
	case C_GE:
		if (a->u32min < b->u32min)
			a->u32min = b->u32min;
		if (b->u32max > a->u32max)
			b->u32max = a->u32max;
		break;
	case C_SGT:
		if (b->s32min == INT32_MAX || a->s32max == INT32_MIN) {
			set_empty(a);
			return;
		}
		if (a->s32min < b->s32min + 1)
			a->s32min = b->s32min + 1;
		if (b->s32max > a->s32max - 1)
			b->s32max = a->s32max - 1;
		break;
	case C_SGE:
		if (a->s32min < b->s32min)
			a->s32min = b->s32min;
		if (b->s32max > a->s32max)
			b->s32max = a->s32max;
		break;
	case C_SET:
		if (vrf_tnum_is_const(tb)) {
			uint64_t m = tb.value;
			if (((ta.value | ta.mask) & m) == 0) {
				set_empty(a);
				return;
			}
			if (m && !(m & (m - 1)))
				a->var = vrf_tnum_intersect(a->var, (struct vrf_tnum){m, ~m});
		}
		break;
	case C_NSET:
		if (vrf_tnum_is_const(tb)) {
			uint64_t m = tb.value;
			if (ta.value & m) {
				set_empty(a);
				return;
			}
			a->var.mask &= ~m;
		}
		break;
	}
}

/* Map a jump op to (cond, swapped) for the taken side, or its negation. */
static void cond_of(uint8_t op, bool taken, int *c, bool *swap)
{
	*swap = false;
	switch (op) {
	case BPF_JEQ:
		*c = taken ? C_EQ : C_NE;
		break;
	case BPF_JNE:
		*c = taken ? C_NE : C_EQ;
		break;
	case BPF_JSET:
		*c = taken ? C_SET : C_NSET;
		break;
	case BPF_JGT:
		*c = taken ? C_GT : C_GE;
		*swap = !taken;
		break; /* !(a>b): b>=a */
	case BPF_JGE:
		*c = taken ? C_GE : C_GT;
		*swap = !taken;
		break;
	case BPF_JLT:
		*c = taken ? C_GT : C_GE;
		*swap = taken;
		break; /* a<b: b>a */
	case BPF_JLE:
		*c = taken ? C_GE : C_GT;
		*swap = taken;
		break;
	case BPF_JSGT:
		*c = taken ? C_SGT : C_SGE;
		*swap = !taken;
		break;
	case BPF_JSGE:
		*c = taken ? C_SGE : C_SGT;
		*swap = !taken;
		break;
	case BPF_JSLT:
		*c = taken ? C_SGT : C_SGE;
		*swap = taken;
		break;
	default: /* JSLE */
		*c = taken ? C_SGE : C_SGT;
		*swap = taken;
		break;
	}
}

/* Refine copies of dst and src for one side; false when that side is dead. */
static bool refine_side(struct vrf_reg *d, struct vrf_reg *s, uint8_t op, bool is32, bool taken)
{
	int c;
	bool swap;
	cond_of(op, taken, &c, &swap);
	struct vrf_reg *a = swap ? s : d, *b = swap ? d : s;
	if (is32)
		refine32(a, b, c);
	else
		refine64(a, b, c);
	if (vrf_reg_empty(a) || vrf_reg_empty(b))
		return false;
	vrf_reg_bounds_sync(a);
	vrf_reg_bounds_sync(b);
	return !vrf_reg_empty(a) && !vrf_reg_empty(b);
}

bool vrf_type_is_or_null(uint8_t t)
{
	return t == VRF_MAP_VALUE_OR_NULL || t == VRF_PTR_SOCK_OR_NULL ||
	       t == VRF_PTR_MEM_OR_NULL || t == VRF_PTR_TCP_SOCK_OR_NULL ||
	       t == VRF_PTR_BTF_OR_NULL;
}

static void null_one(struct vrf_reg *r, uint32_t id, bool is_null)
{
	if (r->id != id || !vrf_type_is_or_null(r->type))
		return;
	if (is_null) {
		vrf_mark_const(r, 0);
		return;
	}
	switch (r->type) {
	case VRF_MAP_VALUE_OR_NULL:
		r->type = VRF_MAP_VALUE;
		break;
	case VRF_PTR_SOCK_OR_NULL:
		r->type = VRF_PTR_SOCK;
		break;
	case VRF_PTR_TCP_SOCK_OR_NULL:
		r->type = VRF_PTR_TCP_SOCK;
		break;
	case VRF_PTR_BTF_OR_NULL:
		r->type = VRF_PTR_BTF;
		break;
	default:
		r->type = VRF_PTR_MEM;
		break;
	}
}

void vrf_mark_ptr_or_null(struct vrf_state *st, uint32_t id, bool is_null)
{
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int i = 0; i < VRF_NREGS; i++)
			null_one(&fr->regs[i], id, is_null);
		for (int i = 0; i < VRF_SLOTS; i++)
			if (fr->stack[i].type[0] == VRF_ST_SPILL)
				null_one(&fr->stack[i].spill, id, is_null);
	}
	if (!is_null)
		return;
	/* a NULL ringbuf record holds no reference */
	for (int i = 0; i < st->nrefs; i++) {
		if (st->refs[i] == id) {
			st->refs[i] = st->refs[--st->nrefs];
			st->ref_insn[i] = st->ref_insn[st->nrefs];
			break;
		}
	}
}

/* Copy a refined scalar to every register and spill sharing its id. */
static void propagate_scalar(struct vrf_state *st, const struct vrf_reg *r)
{
	if (!r->id || r->type != VRF_SCALAR)
		return;
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int i = 0; i < VRF_NREGS; i++)
			if (fr->regs[i].type == VRF_SCALAR && fr->regs[i].id == r->id)
				fr->regs[i] = *r;
		for (int i = 0; i < VRF_SLOTS; i++)
			if (fr->stack[i].type[0] == VRF_ST_SPILL &&
			    fr->stack[i].spill.type == VRF_SCALAR && fr->stack[i].spill.id == r->id)
				fr->stack[i].spill = *r;
	}
}

/* pkt < pkt_end style checks: on the side where pkt + off <= end holds,
 * every packet pointer of the same base may read off bytes. */
static void pkt_range(struct vrf_state *st, const struct vrf_reg *pkt)
{
	if (pkt->off <= 0)
		return;
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int i = 0; i < VRF_NREGS; i++) {
			struct vrf_reg *r = &fr->regs[i];
			if (r->type == VRF_PTR_PKT && r->id == pkt->id &&
			    r->range < (uint32_t)pkt->off)
				r->range = (uint32_t)pkt->off;
		}
		for (int i = 0; i < VRF_SLOTS; i++) {
			struct vrf_reg *r = &fr->stack[i].spill;
			if (fr->stack[i].type[0] == VRF_ST_SPILL && r->type == VRF_PTR_PKT &&
			    r->id == pkt->id && r->range < (uint32_t)pkt->off)
				r->range = (uint32_t)pkt->off;
		}
	}
}

static bool is_zero(const struct vrf_reg *r)
{
	return vrf_reg_is_const(r) && r->var.value == 0;
}

static int ptr_cond(struct vrf_env *env, const struct bpfvm_insn *insn, struct vrf_reg *dst,
		    struct vrf_reg *src, int target, int *next)
{
	uint8_t op = BPF_OP(insn->code);
	int idx = env->insn_idx;
	struct vrf_state *other;
	int err;

	if (BPF_CLASS(insn->code) == BPF_JMP32)
		return vrf_err(env, -EACCES, "R%d pointer comparison prohibited",
			       vrf_reg_is_ptr(dst) ? insn->dst : insn->src);
	struct vrf_reg *p = vrf_reg_is_ptr(dst) ? dst : src;
	struct vrf_reg *o = p == dst ? src : dst;
	if ((op == BPF_JEQ || op == BPF_JNE) && is_zero(o)) {
		if (o == src && BPF_SRC(insn->code) == BPF_X)
			vrf_mark_reg_precise(env, insn->src);
		else if (o == dst)
			vrf_mark_reg_precise(env, insn->dst);
		if (vrf_type_is_or_null(p->type)) {
			uint32_t id = p->id;
			/* JEQ: the taken side holds NULL */
			err = vrf_push(env, target, idx, &other);
			if (err)
				return err;
			vrf_mark_ptr_or_null(other, id, op == BPF_JEQ);
			vrf_mark_ptr_or_null(env->cur, id, op != BPF_JEQ);
			*next = idx + 1;
			return 0;
		}
		/* Packet pointers are NULL where the program type has no segment
		 * (sock_ops outside the header-option ops: skb_data and
		 * skb_data_end are 0), so both sides are live and both are
		 * walked; the kernel's reg_not_null leaves packets out too. A
		 * range proven on either side is still sound: 0 + off <= 0
		 * never holds for off > 0. Every other pointer the verifier
		 * tracks is never NULL: one side is dead. */
		if (p->type == VRF_PTR_PKT || p->type == VRF_PTR_PKT_END) {
			err = vrf_push(env, target, idx, &other);
			if (err)
				return err;
			*next = idx + 1;
			return 0;
		}
		*next = op == BPF_JEQ ? idx + 1 : target;
		return 0;
	}
	int pk = -1; /* which operand is the packet pointer */
	if (dst->type == VRF_PTR_PKT && src->type == VRF_PTR_PKT_END)
		pk = 0;
	else if (dst->type == VRF_PTR_PKT_END && src->type == VRF_PTR_PKT)
		pk = 1;
	if (pk >= 0 && op != BPF_JEQ && op != BPF_JNE && op != BPF_JSET) {
		struct vrf_reg pkt = pk ? *src : *dst;
		/* side where pkt <= end (or pkt < end) holds */
		bool good_taken;
		switch (op) {
		case BPF_JGT:
		case BPF_JSGT:
			good_taken = pk == 1;
			break; /* end > pkt */
		case BPF_JGE:
		case BPF_JSGE:
			good_taken = pk == 1;
			break;
		case BPF_JLT:
		case BPF_JSLT:
			good_taken = pk == 0;
			break; /* pkt < end */
		default:
			good_taken = pk == 0;
			break; /* pkt <= end */
		}
		err = vrf_push(env, target, idx, &other);
		if (err)
			return err;
		pkt_range(good_taken ? other : env->cur, &pkt);
		*next = idx + 1;
		return 0;
	}
	/* two pointers ordered against each other tell their distance to
	 * whoever watches the branch: only a loader allowed pointer leaks may
	 * (kernel check_cond_jmp_op: "pointer comparison prohibited") */
	if (vrf_reg_is_ptr(dst) && vrf_reg_is_ptr(src) && dst->type == src->type &&
	    !env->prog->allow_ptr_leaks)
		return vrf_err(env, -EACCES, "R%d pointer comparison prohibited", insn->src);
	if (vrf_reg_is_ptr(dst) && vrf_reg_is_ptr(src) && dst->type == src->type &&
	    dst->type != VRF_PTR_FUNC && !vrf_type_is_or_null(dst->type) &&
	    (dst->type != VRF_PTR_STACK || dst->frameno == src->frameno) &&
	    (dst->type != VRF_MAP_VALUE || dst->map == src->map)) {
		err = vrf_push(env, target, idx, &other);
		if (err)
			return err;
		*next = idx + 1;
		return 0;
	}
	return vrf_err(env, -EACCES, "R%d pointer comparison prohibited",
		       p == dst ? insn->dst : insn->src);
}

int vrf_check_cond_jmp(struct vrf_env *env, const struct bpfvm_insn *insn, int *next)
{
	struct vrf_reg *regs = vrf_cur_regs(env);
	bool x = BPF_SRC(insn->code) == BPF_X;
	bool is32 = BPF_CLASS(insn->code) == BPF_JMP32;
	uint8_t op = BPF_OP(insn->code);
	int idx = env->insn_idx, target = idx + insn->off + 1;
	struct vrf_reg *dst = &regs[insn->dst], srcv, *src = &srcv;

	if (dst->type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", insn->dst);
	if (x) {
		if (regs[insn->src].type == VRF_NOT_INIT)
			return vrf_err(env, -EACCES, "R%d !read_ok", insn->src);
		src = &regs[insn->src];
	} else {
		vrf_mark_const(&srcv, is32 ? (uint32_t)insn->imm : (uint64_t)(int64_t)insn->imm);
	}
	if (vrf_reg_is_ptr(dst) || vrf_reg_is_ptr(src))
		return ptr_cond(env, insn, dst, src, target, next);
	if (x && insn->src == insn->dst) {
		/* a register against itself: the op alone decides, and refining
		 * a register from itself would narrow it by one on every pass
		 * of a loop (kernel: is_scalar_branch_taken with reg1 == reg2);
		 * r & r is r != 0 */
		if (op != BPF_JSET) {
			bool t = op == BPF_JEQ || op == BPF_JGE || op == BPF_JLE ||
				 op == BPF_JSGE || op == BPF_JSLE;
			*next = t ? target : idx + 1;
			return 0;
		}
		op = BPF_JNE;
		x = false;
		vrf_mark_const(&srcv, 0);
		src = &srcv;
	}

	struct vrf_reg td = *dst, ts = *src, fd = *dst, fs = *src;
	bool take = refine_side(&td, &ts, op, is32, true);
	bool fall = refine_side(&fd, &fs, op, is32, false);
	if (!take || !fall) {
		/* the ranges decided the branch: they now matter for pruning */
		vrf_mark_precise(env, (uint16_t)((1u << insn->dst) | (x ? 1u << insn->src : 0)), 0);
		td.precise = ts.precise = fd.precise = fs.precise = 1;
	}
	if (take && fall) {
		struct vrf_state *other;
		int err = vrf_push(env, target, idx, &other);
		if (err)
			return err;
		struct vrf_reg *oregs = other->frames[other->curframe]->regs;
		oregs[insn->dst] = td;
		propagate_scalar(other, &td);
		if (x) {
			oregs[insn->src] = ts;
			propagate_scalar(other, &ts);
		}
	}
	if (fall) {
		*dst = fd;
		propagate_scalar(env->cur, &fd);
		if (x) {
			regs[insn->src] = fs;
			propagate_scalar(env->cur, &fs);
		}
		*next = idx + 1;
		return 0;
	}
	if (take) {
		*dst = td;
		propagate_scalar(env->cur, &td);
		if (x) {
			regs[insn->src] = ts;
			propagate_scalar(env->cur, &ts);
		}
		*next = target;
		return 0;
	}
	/* neither side feasible: the state itself was unreachable */
	*next = -1;
	return 0;
}
