/* Calls and returns of the interpreter (RFC 9669 §4.3.1): bpf-to-bpf frames,
 * tail calls and helper calls, inlined into interp.c's dispatch loop. A
 * checked run also carries what it knows about the registers across them
 * (struct interp_chk). Include only from interp.c. */
#ifndef SKOPS_BPFVM_INTERP_CALL_H
#define SKOPS_BPFVM_INTERP_CALL_H

#include "interp_int.h"
#if INTERP_CHECKED
#include "interp_checks.h"
#endif

/* A bpf-to-bpf call at ip enters frame f: the caller's callee-saved registers
 * and frame pointer wait there for the exit. */
INTERP_INLINE void interp_frame_push(struct interp_state *st, struct interp_frame *f,
				     const struct bpfvm_insn *ip, const struct bpfvm_prog *prog,
				     uint64_t *reg, const struct interp_chk *chk)
{
	f->ret = ip;
	f->prog = prog;
	memcpy(f->saved, &reg[6], sizeof(f->saved));
	f->fp = reg[10];
#if INTERP_CHECKED
	f->undef = chk->undef;
	f->stackp = chk->stackp;
	f->fdep = chk->fdep;
#else
	(void)chk;
#endif
	reg[10] = interp_frame_top(st, st->depth);
#if INTERP_CHECKED
	interp_frame_enter(st);
#endif
	st->depth++;
}

/* The exit of the frame f was entered for: the caller's registers come back;
 * f->ret and f->prog say where the caller resumes. */
INTERP_INLINE void interp_frame_pop(struct interp_state *st, const struct interp_frame *f,
				    uint64_t *reg, struct interp_chk *chk)
{
	memcpy(&reg[6], f->saved, sizeof(f->saved));
#if INTERP_CHECKED
	chk->undef = (uint16_t)((chk->undef & 0x003f) | (f->undef & 0x03c0) | INTERP_REGS_ARGS);
	chk->stackp_after =
	    (uint16_t)((chk->stackp_after & 0x0001) | (f->stackp & 0x03c0) | (1u << 10));
	chk->fdep_after = (uint16_t)((chk->fdep_after & 0x0001) | (f->fdep & 0x03c0));
#else
	(void)chk;
#endif
	reg[10] = f->fp;
	st->run.prog = f->prog;
	st->depth--;
}

/* bpf_tail_call(ctx, prog_array, index): a missing slot, a bad index or the
 * 34th tail call return NULL (the call falls through with r0 untouched);
 * otherwise the target, which replaces the running program in this frame,
 * keeping r1 (ctx) and the frame pointer. */
INTERP_INLINE const struct bpfvm_prog *interp_tail_target(struct interp_state *st,
							  const uint64_t *reg)
{
	struct bpfvm_map *m = (struct bpfvm_map *)(uintptr_t)reg[2];
	const struct bpfvm_prog *t = NULL;
	if (m && m->def.type == BPFVM_MAP_PROG_ARRAY && st->run.tail_calls < BPFVM_MAX_TAIL_CALLS)
		t = bpfvm_prog_array_get(m, (uint32_t)reg[3]);
	if (t) {
		st->run.tail_calls++;
		st->run.prog = t;
	}
	return t;
}

enum interp_helper_end {
	INTERP_HELPER_DONE,    /* r0 holds the result */
	INTERP_HELPER_FAULT,   /* the call may not run: stop at *bad */
	INTERP_HELPER_STOPPED, /* the helper (a callback in it) stopped the run */
};

/* The helper call at ip: r0 = helper(r1..r5). */
INTERP_INLINE enum interp_helper_end interp_helper_call(struct interp_state *st,
							const struct bpfvm_prog *prog,
							const struct bpfvm_insn *ip, uint64_t *reg,
							struct interp_chk *chk, uint64_t *bad)
{
	*bad = 0;
	const struct bpfvm_helper *h = bpfvm_call_proto(prog->type, ip->src, ip->imm);
	if (!h || !h->fn)
		return INTERP_HELPER_FAULT;
#if INTERP_CHECKED
	for (int i = 0; i < 5; i++)
		if (h->args[i].kind != BPFVM_ARG_NONE &&
		    ((chk->undef | chk->fdep) & (1u << (i + 1))))
			return INTERP_HELPER_FAULT;
	if (!interp_args_ok(st, prog, h, reg, chk->stackp, bad))
		return INTERP_HELPER_FAULT;
	chk->undef = (uint16_t)((chk->undef | INTERP_REGS_ARGS) & ~1u);
#else
	(void)chk;
#endif
	st->run.fp = reg[10]; /* the frame bpfvm_run_readable admits */
#if INTERP_CHECKED
	if (st->oracle) {
		reg[0] = oracle_helper(st->oracle, prog, ip, h, reg, &chk->otags, &st->run);
		if (st->oracle->failed && !st->stopped)
			return INTERP_HELPER_FAULT;
	} else
#endif
		reg[0] = h->fn(reg[1], reg[2], reg[3], reg[4], reg[5], &st->run);
	if (!st->run.budget) /* spent by the helper's work (bpfvm_run_charge) */
		st->stopped = true;
	return st->stopped ? INTERP_HELPER_STOPPED : INTERP_HELPER_DONE;
}

#endif
