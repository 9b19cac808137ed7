/* Precision tracking in the spirit of the kernel's mark_chain_precision: a
 * scalar's range counts for pruning only once some check depended on it (a
 * branch decided by ranges, pointer arithmetic, a helper size, R0 at exit).
 * Such a check walks the path's recorded insns backwards to the checkpoints
 * that produced the value and marks the registers and spill slots there: a
 * register refined by a branch against another one brings that one in, a
 * fill brings in its stack slot, a spill into that slot the spilled register.
 * Each side of a branch records the branch insn. Known-zero stack bytes carry
 * no register: the store that makes them marks its source at once
 * (vrf_mem.c). Anything the backward walk cannot follow (frame changes, stack
 * accesses through other registers) marks every scalar of the chain precise. */
#include <errno.h>
#include <stdlib.h>

#include "vrf_int.h"

int vrf_trace_add(struct vrf_state *st, int idx, int frame, int sframe, int slot)
{
	if (st->ntrace >= VRF_MAX_TRACE) {
		/* no checkpoint for a long stretch (a loop past the per-insn
		 * state cap): stop recording, precision falls back to "all" */
		st->trace_lost = true;
		st->ntrace = 0;
	}
	if (st->trace_lost)
		return 0;
	if (st->ntrace == st->captrace) {
		int cap = st->captrace ? st->captrace * 2 : 16;
		struct vrf_trace *t = realloc(st->trace, (size_t)cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		st->trace = t;
		st->captrace = cap;
	}
	st->trace[st->ntrace++] = (struct vrf_trace){
	    .idx = idx, .frame = (int8_t)frame, .sframe = (int8_t)sframe, .slot = (int16_t)slot};
	return 0;
}

static void mark_all_in(struct vrf_state *st)
{
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int r = 0; r < VRF_NREGS; r++)
			if (fr->regs[r].type == VRF_SCALAR)
				fr->regs[r].precise = 1;
		for (int s = 0; s < VRF_SLOTS; s++)
			if (fr->stack[s].type[0] == VRF_ST_SPILL &&
			    fr->stack[s].spill.type == VRF_SCALAR)
				fr->stack[s].spill.precise = 1;
	}
}

void vrf_mark_all_precise(struct vrf_env *env)
{
	mark_all_in(env->cur);
	for (struct vrf_state *st = env->cur->parent; st && !st->all_precise; st = st->parent) {
		mark_all_in(st);
		st->all_precise = true;
	}
}

/* Scalars linked by an id (a copy) were refined together by branches: when
 * one is precise, so are its copies (kernel: mark_precise_scalar_ids).
 * false when a copy sits in another frame, which the walk cannot follow. */
static bool add_linked(struct vrf_state *st, int f, uint16_t *regs, uint64_t *slots)
{
	struct vrf_frame *fr = st->frames[f];
	uint32_t ids[VRF_NREGS + VRF_SLOTS];
	int n = 0;
	for (int r = 0; r < VRF_NREGS; r++)
		if ((*regs >> r & 1) && fr->regs[r].type == VRF_SCALAR && fr->regs[r].id)
			ids[n++] = fr->regs[r].id;
	for (int s = 0; s < VRF_SLOTS; s++)
		if ((*slots >> s & 1) && fr->stack[s].type[0] == VRF_ST_SPILL &&
		    fr->stack[s].spill.type == VRF_SCALAR && fr->stack[s].spill.id)
			ids[n++] = fr->stack[s].spill.id;
	for (int k = 0; k < n; k++) {
		for (int g = 0; g <= st->curframe; g++) {
			struct vrf_frame *x = st->frames[g];
			for (int r = 0; r < VRF_NREGS; r++) {
				if (x->regs[r].type != VRF_SCALAR || x->regs[r].id != ids[k])
					continue;
				if (g != f)
					return false;
				*regs |= (uint16_t)(1u << r);
			}
			for (int s = 0; s < VRF_SLOTS; s++) {
				if (x->stack[s].type[0] != VRF_ST_SPILL ||
				    x->stack[s].spill.type != VRF_SCALAR ||
				    x->stack[s].spill.id != ids[k])
					continue;
				if (g != f)
					return false;
				*slots |= 1ull << s;
			}
		}
	}
	return true;
}

/* Mark regs/slots of frame f in st; false when that cannot be followed.
 * In a checkpoint (drop), ones already precise were backtracked from there
 * before, so they leave the sets (this keeps long loops linear). That holds
 * because a checkpoint starts with no marks (vrf_prune.c clears what the
 * path carried in); marks on the walked state itself are never trusted. */
static bool mark_in(struct vrf_state *st, int f, uint16_t *regs, uint64_t *slots, bool drop)
{
	if (st->curframe != f || !add_linked(st, f, regs, slots))
		return false;
	struct vrf_frame *fr = st->frames[f];
	for (int r = 0; r < VRF_NREGS; r++) {
		if (!(*regs >> r & 1) || fr->regs[r].type != VRF_SCALAR)
			continue;
		if (fr->regs[r].precise && drop)
			*regs &= (uint16_t) ~(1u << r);
		fr->regs[r].precise = 1;
	}
	for (int s = 0; s < VRF_SLOTS; s++) {
		if (!(*slots >> s & 1) || fr->stack[s].type[0] != VRF_ST_SPILL ||
		    fr->stack[s].spill.type != VRF_SCALAR)
			continue;
		if (fr->stack[s].spill.precise && drop)
			*slots &= ~(1ull << s);
		fr->stack[s].spill.precise = 1;
	}
	return true;
}

/* One insn backwards: which values before it produced the precise ones
 * after it. false: cannot follow. */
static bool backtrack(struct vrf_env *env, const struct vrf_trace *t, int f, uint16_t *regs,
		      uint64_t *slots)
{
	const struct bpfvm_insn *in = &env->insns[t->idx];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = (uint16_t)(1u << in->dst), s = (uint16_t)(1u << in->src);
	bool x = BPF_SRC(in->code) == BPF_X;
	uint64_t sbit = t->slot >= 0 ? 1ull << t->slot : 0;

	if (t->frame != f)
		return false;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (!(*regs & d) || op == BPF_END || op == BPF_NEG)
			return true;
		if (op == BPF_MOV)
			*regs &= (uint16_t)~d;
		if (x)
			*regs |= s;
		return true;
	case BPF_LD:
		*regs &= (uint16_t)~d;
		return true;
	case BPF_LDX:
		if (!(*regs & d))
			return true;
		*regs &= (uint16_t)~d;
		if (t->slot >= 0 && BPF_SIZE(in->code) == BPF_DW) {
			if (t->sframe != f)
				return false;
			*slots |= sbit; /* a fill: the spilled value */
		}
		return true;
	case BPF_ST:
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			if (in->imm == BPF_CMPXCHG)
				*regs &= (uint16_t)~1u;
			else if (in->imm & BPF_FETCH)
				*regs &= (uint16_t)~s;
			if (t->slot >= 0 && t->sframe == f)
				*slots &= ~sbit;
			return true;
		}
		if (t->slot >= 0 && t->sframe == f && (*slots & sbit)) {
			*slots &= ~sbit;
			if (cls == BPF_STX && BPF_SIZE(in->code) == BPF_DW)
				*regs |= s;
		}
		return true;
	default:
		if (op == BPF_CALL) {
			if (in->src == BPF_PSEUDO_CALL && (*regs & 0x3f))
				return false; /* R0 came from the callee */
			*regs &= (uint16_t)~0x3fu;
			return true;
		}
		if (op == BPF_EXIT)
			return false;
		if (op != BPF_JA && ((*regs & d) || (x && (*regs & s))))
			*regs |= (uint16_t)(d | (x ? s : 0));
		return true;
	}
}

/* regs/slots of the current frame, as they are before the insn being checked. */
int vrf_mark_precise(struct vrf_env *env, uint16_t regs, uint64_t slots)
{
	struct vrf_state *st = env->cur;
	int f = st->curframe;
	if (!mark_in(st, f, &regs, &slots, false)) {
		vrf_mark_all_precise(env);
		return 0;
	}
	/* bounded: every checkpoint and trace entry is visited at most once */
	while (st && (regs || slots)) {
		if (st->trace_lost) {
			vrf_mark_all_precise(env);
			return 0;
		}
		for (int i = st->ntrace - 1; i >= 0 && (regs || slots); i--) {
			if (!backtrack(env, &st->trace[i], f, &regs, &slots)) {
				vrf_mark_all_precise(env);
				return 0;
			}
		}
		st = st->parent;
		if (st && !mark_in(st, f, &regs, &slots, true)) {
			vrf_mark_all_precise(env);
			return 0;
		}
	}
	return 0;
}

/* Always walks back, even for a register the path marked before: branches
 * since then may have refined it against others (if r2 > r4), and those
 * others decide its range now. */
void vrf_mark_reg_precise(struct vrf_env *env, int regno)
{
	if (vrf_cur_regs(env)[regno].type == VRF_SCALAR)
		vrf_mark_precise(env, (uint16_t)(1u << regno), 0);
}

/* cur is pruned by old: what old's subtree depended on, cur's chain now
 * depends on too. */
void vrf_propagate_precision(struct vrf_env *env, const struct vrf_state *old)
{
	int f = old->curframe;
	uint16_t regs = 0;
	uint64_t slots = 0;
	for (int k = 0; k < f; k++) {
		const struct vrf_frame *fr = old->frames[k];
		for (int r = 0; r < VRF_NREGS; r++)
			if (fr->regs[r].type == VRF_SCALAR && fr->regs[r].precise) {
				vrf_mark_all_precise(env);
				return;
			}
		for (int s = 0; s < VRF_SLOTS; s++)
			if (fr->stack[s].type[0] == VRF_ST_SPILL && fr->stack[s].spill.precise) {
				vrf_mark_all_precise(env);
				return;
			}
	}
	const struct vrf_frame *fr = old->frames[f];
	for (int r = 0; r < VRF_NREGS; r++)
		if (fr->regs[r].type == VRF_SCALAR && fr->regs[r].precise)
			regs |= (uint16_t)(1u << r);
	for (int s = 0; s < VRF_SLOTS; s++)
		if (fr->stack[s].type[0] == VRF_ST_SPILL && fr->stack[s].spill.type == VRF_SCALAR &&
		    fr->stack[s].spill.precise)
			slots |= 1ull << s;
	if (regs || slots)
		vrf_mark_precise(env, regs, slots);
}
