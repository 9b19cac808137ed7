/* State pruning: at jump targets, after branches and at loop heads the walk
 * stops when the current state lies within a fully explored one (range
 * inclusion, as the kernel's regsafe/stacksafe), considering only registers
 * live there (a static backward liveness pass). A state equal to one still
 * being explored on the same path is an infinite loop. Callback entries may
 * prune against in-progress states (the helper bounds the calls) and widen
 * scalars that keep changing between calls, so their walk converges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

#define PER_INSN_STATES 64
#define IDMAP_SIZE	128

/* ---- liveness ---------------------------------------------------------- */

static void use_def(const struct bpfvm_insn *in, uint16_t *use, uint16_t *def)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = (uint16_t)(1u << in->dst), s = (uint16_t)(1u << in->src);
	*use = *def = 0;
	switch (cls) {
	case BPF_LD:
		*def = d;
		break;
	case BPF_LDX:
		*use = s;
		*def = d;
		break;
	case BPF_ST:
		*use = d;
		break;
	case BPF_STX:
		*use = d | s;
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			if (in->imm == BPF_CMPXCHG) {
				*use |= 1;
				*def = 1;
			} else if (in->imm & BPF_FETCH) {
				*def = s;
			}
		}
		break;
	case BPF_ALU:
	case BPF_ALU64:
		*def = d;
		if (op != BPF_MOV)
			*use = d;
		if (BPF_SRC(in->code) == BPF_X && op != BPF_NEG && op != BPF_END)
			*use |= s;
		break;
	default:
		if (op == BPF_CALL) {
			*use = 0x3e;
			*def = 0x3f;
		} else if (op == BPF_EXIT) {
			*use = 1;
		} else if (op != BPF_JA) {
			*use = d | (BPF_SRC(in->code) == BPF_X ? s : 0);
		}
		break;
	}
}

static int nsucc(struct vrf_env *env, int i, int out[2])
{
	const struct bpfvm_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	if (bpfvm_insn_is_ldimm64(in)) {
		out[0] = i + 2;
		return 1;
	}
	if (cls != BPF_JMP && cls != BPF_JMP32) {
		out[0] = i + 1;
		return 1;
	}
	if (op == BPF_EXIT)
		return 0;
	if (op == BPF_CALL) {
		out[0] = i + 1;
		return 1;
	}
	int off = (cls == BPF_JMP32 && op == BPF_JA) ? in->imm : in->off;
	out[0] = i + off + 1;
	if (op == BPF_JA)
		return 1;
	out[1] = i + 1;
	return 2;
}

/* Backward transfer of "sensitive" registers: those whose scalar range may
 * still decide a check (an address, a branch, a helper argument, a spill
 * filled later, R0 at exit). A scalar outside this set can hold any value
 * without changing what the walk would find, so pruning ignores its range
 * (a static stand-in for the kernel's precision tracking). */
static uint16_t sens_transfer(const struct bpfvm_insn *in, uint16_t out)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = (uint16_t)(1u << in->dst), s = (uint16_t)(1u << in->src);
	bool x = BPF_SRC(in->code) == BPF_X;
	switch (cls) {
	case BPF_LD:
		return out & (uint16_t)~d;
	case BPF_LDX:
		return (uint16_t)((out & ~d) | s);
	case BPF_ST:
		return out | d;
	case BPF_STX:
		/* the stored value may come back from the stack: a spill keeps
		 * it whole, a narrower store of a known zero as known-zero bytes
		 * (a constant on reload) */
		out |= d | s;
		return BPF_MODE(in->code) == BPF_ATOMIC ? out | 1 : out;
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_END || op == BPF_NEG)
			return out;
		if (op == BPF_MOV) {
			bool hit = out & d;
			out &= (uint16_t)~d;
			return hit && x ? out | s : out;
		}
		return (out & d) && x ? out | s : out;
	default:
		if (op == BPF_CALL)
			return (uint16_t)((out & ~0x3f) | 0x3e);
		if (op == BPF_EXIT)
			return out | 1;
		if (op == BPF_JA)
			return out;
		return (uint16_t)(out | d | (x ? s : 0));
	}
}

int vrf_compute_liveness(struct vrf_env *env)
{
	int n = env->n;
	bool changed = true;
	/* backward passes to a fixpoint; sets only grow, so at most 11 * n
	 * rounds, in practice a handful */
	for (int round = 0; changed && round < 12 * n + 2; round++) {
		changed = false;
		for (int i = n - 1; i >= 0; i--) {
			if (env->ia[i].ldimm_hi)
				continue;
			uint16_t use, def, out = 0, sout = 0;
			int s[2];
			int k = nsucc(env, i, s);
			for (int j = 0; j < k; j++) {
				if (s[j] < n) {
					out |= env->ia[s[j]].live_in;
					sout |= env->ia[s[j]].sens_in;
				}
			}
			use_def(&env->insns[i], &use, &def);
			uint16_t in = (uint16_t)(use | (out & ~def));
			uint16_t sin = sens_transfer(&env->insns[i], sout);
			if (in != env->ia[i].live_in || sin != env->ia[i].sens_in) {
				env->ia[i].live_in = in;
				env->ia[i].sens_in = sin;
				changed = true;
			}
		}
	}
	return 0;
}

/* ---- equivalence ------------------------------------------------------- */

struct idmap {
	uint32_t old[IDMAP_SIZE], cur[IDMAP_SIZE];
	int n;
};

static bool check_ids(struct idmap *m, uint32_t o, uint32_t c)
{
	if (!o && !c)
		return true;
	if (!o || !c)
		return false;
	for (int i = 0; i < m->n; i++) {
		if (m->old[i] == o)
			return m->cur[i] == c;
		if (m->cur[i] == c)
			return false;
	}
	if (m->n == IDMAP_SIZE)
		return false;
	m->old[m->n] = o;
	m->cur[m->n++] = c;
	return true;
}

static bool range_within(const struct vrf_reg *o, const struct vrf_reg *c)
{
	return o->umin <= c->umin && o->umax >= c->umax && o->smin <= c->smin &&
	       o->smax >= c->smax && o->u32min <= c->u32min && o->u32max >= c->u32max &&
	       o->s32min <= c->s32min && o->s32max >= c->s32max && vrf_tnum_in(o->var, c->var);
}

static bool regsafe(const struct vrf_reg *o, const struct vrf_reg *c, struct idmap *m, bool precise)
{
	if (o->type == VRF_NOT_INIT)
		return true;
	if (o->type != c->type)
		return false;
	switch (o->type) {
	case VRF_SCALAR:
		if (!precise)
			return true;
		/* an unlinked old scalar proves nothing about links */
		return range_within(o, c) && (!o->id || check_ids(m, o->id, c->id));
	case VRF_PTR_FUNC:
		return o->off == c->off;
	case VRF_CONST_MAP:
		return o->map == c->map;
	case VRF_PTR_PKT:
		if (o->range > c->range)
			return false;
		break;
	case VRF_PTR_MEM:
	case VRF_PTR_MEM_OR_NULL:
	case VRF_PTR_BTF: /* range: which kernel object */
	case VRF_PTR_BTF_OR_NULL:
		if (o->range != c->range || o->pad != c->pad)
			return false;
		break;
	default:
		break;
	}
	return o->off == c->off && o->map == c->map && o->frameno == c->frameno &&
	       range_within(o, c) && check_ids(m, o->id, c->id) && check_ids(m, o->ref, c->ref);
}

static bool stacksafe(const struct vrf_frame *o, const struct vrf_frame *c, struct idmap *m,
		      bool exact)
{
	for (int s = 0; s < VRF_SLOTS; s++) {
		const struct vrf_slot *os = &o->stack[s], *cs = &c->stack[s];
		if (os->type[0] == VRF_ST_SPILL) {
			if (cs->type[0] != VRF_ST_SPILL ||
			    !regsafe(&os->spill, &cs->spill, m, exact || os->spill.precise))
				return false;
			continue;
		}
		for (int b = 0; b < 8; b++) {
			uint8_t ot = os->type[b], ct = cs->type[b];
			if (ot == VRF_ST_INVALID || ot == ct)
				continue;
			if (ot == VRF_ST_MISC &&
			    (ct == VRF_ST_ZERO ||
			     (ct == VRF_ST_SPILL && cs->spill.type == VRF_SCALAR)))
				continue;
			return false;
		}
	}
	return true;
}

/* exact: every live scalar compared (infinite-loop check), else only the
 * precise ones the later checks depend on */
static bool states_equal(struct vrf_env *env, const struct vrf_state *o, const struct vrf_state *c,
			 int insn, bool exact)
{
	struct idmap m;
	m.n = 0;
	if (o->curframe != c->curframe || o->nrefs != c->nrefs || o->lock_map != c->lock_map ||
	    o->lock_off != c->lock_off)
		return false;
	for (int i = 0; i < o->nrefs; i++)
		if (!check_ids(&m, o->refs[i], c->refs[i]))
			return false;
	/* the lock must be released through a pointer with the same id */
	if (!check_ids(&m, o->lock_id, c->lock_id))
		return false;
	for (int f = o->curframe; f >= 0; f--) {
		const struct vrf_frame *of = o->frames[f], *cf = c->frames[f];
		if (of->callsite != cf->callsite)
			return false;
		uint16_t live, sens;
		if (f == o->curframe) {
			live = env->ia[insn].live_in;
			sens = env->ia[insn].sens_in;
		} else {
			int at = o->frames[f + 1]->callsite + 1;
			live = env->ia[at].live_in & ~0x3f;
			sens = env->ia[at].sens_in & ~0x3f;
			/* a helper running a callback enters it again from the
			 * caller's R1-R5 (count, callback, ctx, flags) */
			if (o->frames[f + 1]->in_callback) {
				live |= 0x3e;
				sens |= 0x3e;
			}
		}
		live |= 1u << VRF_FP;
		for (int r = 0; r < VRF_NREGS; r++)
			if ((live & (1u << r)) &&
			    !regsafe(&of->regs[r], &cf->regs[r], &m,
				     exact || (((sens >> r) & 1) && of->regs[r].precise)))
				return false;
		if (!stacksafe(of, cf, &m, exact))
			return false;
	}
	return true;
}

void vrf_update_branch_counts(struct vrf_env *env, struct vrf_state *st)
{
	(void)env;
	while (st) {
		if (--st->branches)
			break;
		st = st->parent;
	}
}

/* Widen cur's scalars that differ from old into unknowns. */
static void widen_reg(struct vrf_reg *c, const struct vrf_reg *o)
{
	if (c->type == VRF_SCALAR && o->type == VRF_SCALAR &&
	    (!range_within(o, c) || !range_within(c, o)))
		vrf_mark_unknown(c);
}

static void widen(struct vrf_state *c, const struct vrf_state *o)
{
	for (int f = 0; f <= c->curframe; f++) {
		struct vrf_frame *cf = c->frames[f];
		const struct vrf_frame *of = o->frames[f];
		for (int r = 0; r < VRF_NREGS; r++)
			widen_reg(&cf->regs[r], &of->regs[r]);
		for (int s = 0; s < VRF_SLOTS; s++) {
			struct vrf_slot *cs = &cf->stack[s];
			const struct vrf_slot *os = &of->stack[s];
			if (cs->type[0] == VRF_ST_SPILL && os->type[0] == VRF_ST_SPILL) {
				widen_reg(&cs->spill, &os->spill);
				continue;
			}
			for (int b = 0; b < 8; b++)
				if (cs->type[b] == VRF_ST_ZERO && os->type[b] == VRF_ST_MISC)
					cs->type[b] = VRF_ST_MISC;
		}
	}
}

/* A checkpoint's precision marks must all come from backtracking through it
 * (vrf_precise.c stops at a checkpoint's register that is already precise,
 * taking its history as done): marks the walked path carried here describe
 * its values at earlier insns, before branches that refined them since. */
static void clear_precise(struct vrf_state *st)
{
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int r = 0; r < VRF_NREGS; r++)
			fr->regs[r].precise = 0;
		for (int s = 0; s < VRF_SLOTS; s++)
			fr->stack[s].spill.precise = 0;
	}
}

/* cur was found within old: what old's subtree depended on, cur's path now
 * depends on too. An old state still being explored (a callback entry) has
 * not learnt all of that yet, and what it learns later never reaches cur's
 * checkpoints: those compare every scalar instead. */
static void pruned_by(struct vrf_env *env, const struct vrf_state *old)
{
	if (old->branches)
		vrf_mark_all_precise(env);
	else
		vrf_propagate_precision(env, old);
}

/* The infinite-loop test needs both states equal; their live registers in
 * the current frame differ far more often than their stacks do, so compare
 * those both ways first (kernel: states_maybe_looping). */
static bool regs_maybe_looping(struct vrf_env *env, const struct vrf_state *o,
			       const struct vrf_state *c, int insn)
{
	if (o->curframe != c->curframe)
		return false;
	const struct vrf_frame *of = o->frames[o->curframe], *cf = c->frames[c->curframe];
	uint16_t live = env->ia[insn].live_in;
	struct idmap m1, m2; /* only n is read before written */
	m1.n = m2.n = 0;
	for (int r = 0; r < VRF_NREGS; r++)
		if ((live & (1u << r)) && (!regsafe(&of->regs[r], &cf->regs[r], &m1, true) ||
					   !regsafe(&cf->regs[r], &of->regs[r], &m2, true)))
			return false;
	return true;
}

/* A checkpoint that keeps failing to prune costs a comparison at every visit
 * and saves nothing: a loop whose iterations each refine a bound by one
 * would otherwise compare every visit against PER_INSN_STATES checkpoints
 * until the processed-insn limit (kernel: miss_cnt > hit_cnt * 3 + 3).
 * Unlinked, it stays allocated: parent chains may still lead through it. */
static bool evict(struct vrf_iaux *ia, struct vrf_state ***link, bool add)
{
	struct vrf_state *sl = **link;
	if (add)
		sl->misses++;
	if (ia->cb_entry || sl->misses <= sl->hits * 3 + 3)
		return false;
	**link = sl->next_at_insn;
	ia->nexplored--;
	return true;
}

int vrf_is_state_visited(struct vrf_env *env, int insn)
{
	struct vrf_iaux *ia = &env->ia[insn];
	struct vrf_state *cur = env->cur;
	bool add = true;

	if (!ia->prune)
		return 0;
	/* inside a loop: iterations rarely help pruning, keep few */
	bool in_loop_burst =
	    env->jmps - env->prev_jmps < 20 && env->processed - env->prev_processed < 100;
	struct vrf_state **link = &ia->explored;
	while (*link) {
		struct vrf_state *sl = *link;
		if (sl->branches && !ia->cb_entry) {
			if (regs_maybe_looping(env, sl, cur, insn) &&
			    states_equal(env, sl, cur, insn, true) &&
			    states_equal(env, cur, sl, insn, true)) {
				env->insn_idx = insn;
				return vrf_err(env, -EINVAL, "infinite loop detected at insn %d",
					       insn);
			}
			if (in_loop_burst)
				add = false;
		} else if (states_equal(env, sl, cur, insn, sl->branches != 0)) {
			/* an in-progress callback entry has not learnt its
			 * precision yet: only full inclusion proves the new
			 * entry safe */
			sl->hits++;
			pruned_by(env, sl);
			return 1;
		}
		if (!evict(ia, &link, add))
			link = &sl->next_at_insn;
	}
	if (ia->cb_entry && ia->explored && ia->explored->curframe == cur->curframe &&
	    ia->explored->frames[cur->curframe]->callsite == cur->frames[cur->curframe]->callsite) {
		widen(cur, ia->explored);
		if (states_equal(env, ia->explored, cur, insn, ia->explored->branches != 0)) {
			pruned_by(env, ia->explored);
			return 1;
		}
	}
	if (!add || ia->nexplored >= PER_INSN_STATES || env->nall >= VRF_MAX_STATES)
		return 0;
	struct vrf_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int err = vrf_state_copy(s, cur);
	if (!err)
		err = vrf_keep_state(env, s);
	if (err) {
		vrf_state_free(s);
		return err;
	}
	clear_precise(s);
	s->insn_idx = insn;
	s->branches = 1;
	s->parent = cur->parent;
	cur->parent = s;
	cur->ntrace = 0; /* the checkpoint keeps the segment that led to it */
	cur->trace_lost = false;
	s->all_precise = false;
	s->next_at_insn = ia->explored;
	ia->explored = s;
	ia->nexplored++;
	env->prev_jmps = env->jmps;
	env->prev_processed = env->processed;
	return 0;
}
