/* Values that depend on where a frame lives, in a checked run. The engines'
 * frames sit at different addresses (the JIT's on the native stack), so a
 * frame address is the one value an unverified program can compute that is
 * not the same in every engine. A register derived from r10 by pointer
 * arithmetic is tracked as a frame pointer (interp_checks.h, stackp) and its
 * accesses are kept inside the frames; any other value computed from a frame
 * address (a shift, a mask, a 32-bit copy, a partial fill of a spilled frame
 * pointer...) is "frame-dependent" (fdep): the run stops where such a value
 * would choose an address, a branch or a helper argument, since the JIT may
 * then read or jump where the checked run never went (fuzz_jit: ctx s>>= r10
 * was ctx itself when the interpreter's frame had its low 6 bits clear). The
 * verifier refuses every one of these uses, so verified programs never stop
 * here. Include only from interp.c, checked builds. */
#ifndef SKOPS_BPFVM_INTERP_FDEP_H
#define SKOPS_BPFVM_INTERP_FDEP_H

#include "interp_checks.h"

/* a and b point into one frame: their difference is the same in every engine */
static bool interp_same_frame(const struct interp_state *st, uint64_t a, uint64_t b)
{
	for (uint32_t f = 0; f < st->depth; f++) {
		uint64_t lo = interp_frame_top(st, f + 1), hi = interp_frame_top(st, f);
		if (a >= lo && a <= hi && b >= lo && b <= hi)
			return true;
	}
	return false;
}

static bool interp_shadow_any(const uint8_t *w, uint64_t size, uint8_t flag)
{
	for (uint64_t i = 0; i < size; i++)
		if (w[i] & flag)
			return true;
	return false;
}

/* The 8 bytes at w are one whole spill of a frame pointer: filled back, they
 * are that pointer again (the verifier tracks spilled pointers the same way). */
static bool interp_shadow_spill(const uint8_t *w)
{
	if (!(w[0] & INTERP_SH_SPILL))
		return false;
	for (int i = 1; i < 8; i++)
		if (!(w[i] & INTERP_SH_FDEP) || (w[i] & INTERP_SH_SPILL))
			return false;
	return true;
}

/* A conditional jump on a frame pointer gives the same answer in every
 * engine only against a pointer into the same frame or against zero (what
 * the verifier admits); on a frame-dependent value, never. */
static bool interp_fdep_branch_ok(const struct interp_state *st, const struct bpfvm_insn *ip,
				  const uint64_t *reg, const struct interp_chk *c)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	uint16_t d = (uint16_t)(1u << (ip->dst & 15)), s = (uint16_t)(1u << (ip->src & 15));
	bool x = BPF_SRC(ip->code) == BPF_X;
	uint16_t reads = interp_insn_reads(ip);
	if (reads & c->fdep)
		return false;
	if (!(reads & c->stackp))
		return true;
	if (cls == BPF_JMP32)
		return false;
	if (x && (c->stackp & d) && (c->stackp & s))
		return interp_same_frame(st, reg[ip->dst], reg[ip->src]);
	uint64_t other = !x		   ? (uint64_t)(int64_t)ip->imm
			 : (c->stackp & d) ? reg[ip->src]
					   : reg[ip->dst];
	return (op == BPF_JEQ || op == BPF_JNE) && other == 0;
}

/* Before ip runs: none of its addresses or branches may hang on a frame's
 * address. false stops the run at ip. */
static bool interp_fdep_use_ok(const struct interp_state *st, const struct bpfvm_insn *ip,
			       const uint64_t *reg, const struct interp_chk *c)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	switch (cls) {
	case BPF_LDX:
		return !(c->fdep & (1u << (ip->src & 15)));
	case BPF_ST:
	case BPF_STX:
		return !(c->fdep & (1u << (ip->dst & 15)));
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_CALL || op == BPF_EXIT || op == BPF_JA)
			return true;
		return interp_fdep_branch_ok(st, ip, reg, c);
	}
	return true;
}

/* The frame-dependent registers after ip (c->fdep_after), from its operands
 * and, for loads, from what the stack bytes hold; a load of a whole spilled
 * frame pointer makes its register a frame pointer again (c->stackp_after).
 * Runs after interp_insn_stackp has set c->stackp_after. */
static void interp_fdep_next(struct interp_state *st, const struct bpfvm_insn *ip,
			     const uint64_t *reg, struct interp_chk *c)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	uint16_t d = (uint16_t)(1u << (ip->dst & 15)), s = (uint16_t)(1u << (ip->src & 15));
	uint16_t fd = c->fdep, tainted = c->stackp | c->fdep;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64: {
		/* the difference of two pointers into one frame is an offset */
		bool offset = cls == BPF_ALU64 && op == BPF_SUB && BPF_SRC(ip->code) == BPF_X &&
			      (c->stackp & d) && (c->stackp & s) &&
			      interp_same_frame(st, reg[ip->dst], reg[ip->src]);
		if ((c->stackp_after & d) || offset || !(interp_insn_reads(ip) & tainted))
			fd &= (uint16_t)~d;
		else
			fd |= d;
		break;
	}
	case BPF_LD:
		fd &= (uint16_t)~d;
		break;
	case BPF_LDX: {
		uint64_t size = (uint64_t)bpfvm_insn_size(ip->code);
		const uint8_t *w =
		    interp_shadow(st, reg[ip->src] + (uint64_t)(int64_t)ip->off, size);
		fd &= (uint16_t)~d;
		if (w && size == 8 && interp_shadow_spill(w))
			c->stackp_after |= d;
		else if (w && interp_shadow_any(w, size, INTERP_SH_FDEP))
			fd |= d;
		break;
	}
	case BPF_STX:
		if (BPF_MODE(ip->code) == BPF_ATOMIC) {
			/* what a fetch returns is what the memory held */
			uint64_t size = (uint64_t)bpfvm_insn_size(ip->code);
			const uint8_t *w =
			    interp_shadow(st, reg[ip->dst] + (uint64_t)(int64_t)ip->off, size);
			uint16_t wr = interp_insn_writes(ip);
			if (w && interp_shadow_any(w, size, INTERP_SH_FDEP))
				fd |= wr;
			else
				fd &= (uint16_t)~wr;
		}
		break;
	case BPF_JMP:
		/* a helper's r0 is its own; r1-r5 die at any call */
		if (op == BPF_CALL && ip->src != BPF_PSEUDO_CALL)
			fd &= (uint16_t)~0x003fu;
		break;
	}
	c->fdep_after = fd;
}

/* After a store at [addr, addr+size) passed its checks: the stack bytes
 * remember a frame-dependent value (a whole 8-byte frame pointer as a spill).
 * Anywhere else such a value would leave the checked run's sight (read back
 * as a number, then used as an address), so an unverified program stops
 * there; the verifier lets only a privileged loader put pointers in map
 * values, and then reads them back as scalars it never dereferences. */
static bool interp_fdep_store(struct interp_state *st, const struct bpfvm_prog *prog,
			      const struct bpfvm_insn *ip, const struct interp_chk *c,
			      uint64_t addr, uint64_t size)
{
	if (BPF_CLASS(ip->code) != BPF_STX)
		return true;
	uint16_t s = (uint16_t)(1u << (ip->src & 15)), tainted = c->stackp | c->fdep;
	bool atomic = BPF_MODE(ip->code) == BPF_ATOMIC;
	bool dep = (tainted & s) || (atomic && ip->imm == BPF_CMPXCHG && (tainted & 1));
	uint8_t *w = interp_shadow(st, addr, size);
	if (atomic && w && interp_shadow_any(w, size, INTERP_SH_FDEP))
		dep = true;
	if (!dep)
		return true;
	if (!w)
		return !prog->no_verify;
	memset(w, 1 | INTERP_SH_FDEP, size);
	if (!atomic && size == 8 && (c->stackp & s))
		w[0] |= INTERP_SH_SPILL;
	return true;
}

#endif
