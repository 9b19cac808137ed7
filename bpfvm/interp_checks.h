/* What a checked run (interp.c built with BPFVM_CHECKED) verifies around each
 * instruction: memory accesses against ctx, the live frames and the program's
 * maps; reads of unwritten stack bytes and undefined registers; pointers
 * derived from r10 staying inside the frames; helper pointer arguments by
 * prototype. A failed check stops the run, so that an unverified program
 * behaves the same on every engine. Include only from interp.c. */
#ifndef SKOPS_BPFVM_INTERP_CHECKS_H
#define SKOPS_BPFVM_INTERP_CHECKS_H

#include "interp_int.h"

static bool interp_range_in(uint64_t addr, uint64_t size, uint64_t lo, uint64_t hi)
{
	return addr >= lo && addr <= hi && size <= hi - addr;
}

/* [addr, addr+size) must lie in ctx, the live frames, or one map value. */
static bool interp_mem_ok(const struct interp_state *st, const struct bpfvm_prog *prog,
			  uint64_t addr, uint64_t size)
{
	uint64_t c = (uint64_t)(uintptr_t)st->ctx;
	if (st->ctx && interp_range_in(addr, size, c, c + st->ctx_len))
		return true;
	if (interp_range_in(addr, size, interp_frame_top(st, st->depth), interp_frame_top(st, 0)))
		return true;
	uint64_t sc = (uint64_t)(uintptr_t)st->run.scratch;
	if (sc && interp_range_in(addr, size, sc, sc + st->run.scratch_len))
		return true;
	for (size_t i = 0; i < prog->nmaps; i++)
		if (bpfvm_map_owns(prog->maps[i], (const void *)(uintptr_t)addr, size))
			return true;
	return st->oracle && oracle_owns(st->oracle, addr, size);
}

/* The shadow flags of [addr, addr+size) when that range is stack, else NULL
 * (callers have checked the range with interp_mem_ok). */
static uint8_t *interp_shadow(struct interp_state *st, uint64_t addr, uint64_t size)
{
	uint64_t base = (uint64_t)(uintptr_t)st->stack;
	if (!interp_range_in(addr, size, base, interp_frame_top(st, 0)))
		return NULL;
	return st->written + (addr - base);
}

static bool interp_stack_written(struct interp_state *st, uint64_t addr, uint64_t size)
{
	const uint8_t *w = interp_shadow(st, addr, size);
	return !w || !memchr(w, 0, size);
}

/* Stack bytes hold no part of a frame address (interp_fdep.h). An unverified
 * program's map keys and values must not: copied into a map, a frame address
 * leaves the run's sight and may come back as a number to dereference (the
 * verifier lets only a privileged loader do this, and never dereferences what
 * comes back). Other helpers may read them: a %s argument of snprintf is
 * checked by the helper against the calling engine's own frame. */
static bool interp_stack_plain(struct interp_state *st, uint64_t addr, uint64_t size)
{
	const uint8_t *w = interp_shadow(st, addr, size);
	for (uint64_t i = 0; w && i < size; i++)
		if (w[i] & INTERP_SH_FDEP)
			return false;
	return true;
}

static void interp_stack_write(struct interp_state *st, uint64_t addr, uint64_t size)
{
	uint8_t *w = interp_shadow(st, addr, size);
	if (w)
		memset(w, 1, size);
}

/* A frame starts unwritten, even where an earlier call at this depth wrote. */
static void interp_frame_enter(struct interp_state *st)
{
	memset(st->written + (size_t)(BPFVM_MAX_CALL_DEPTH - 1 - st->depth) * BPFVM_STACK_SIZE, 0,
	       BPFVM_STACK_SIZE);
	if (st->oracle)
		oracle_frame_enter(st->oracle, st->depth);
}

static struct bpfvm_map *interp_map_arg(const struct bpfvm_prog *prog, uint64_t v)
{
	for (size_t i = 0; i < prog->nmaps; i++)
		if ((uint64_t)(uintptr_t)prog->maps[i] == v)
			return prog->maps[i];
	return NULL;
}

/* Registers an instruction reads and writes, as masks of 1 << regno.
 * Helper arguments are checked at the call, by prototype. */
static uint16_t interp_insn_reads(const struct bpfvm_insn *ip)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	uint16_t d = (uint16_t)(1u << (ip->dst & 15)), s = (uint16_t)(1u << (ip->src & 15));
	bool x = BPF_SRC(ip->code) == BPF_X;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_MOV)
			return x ? s : 0;
		return (uint16_t)(d | (x && op != BPF_NEG && op != BPF_END ? s : 0));
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_EXIT)
			return 1;
		if (op == BPF_CALL || op == BPF_JA)
			return 0;
		return (uint16_t)(d | (x ? s : 0));
	case BPF_LDX:
		return s;
	case BPF_ST:
		return d;
	case BPF_STX:
		if (BPF_MODE(ip->code) == BPF_ATOMIC && ip->imm == BPF_CMPXCHG)
			return (uint16_t)(d | s | 1);
		return (uint16_t)(d | s);
	}
	return 0;
}

static uint16_t interp_insn_writes(const struct bpfvm_insn *ip)
{
	uint8_t cls = BPF_CLASS(ip->code);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
	case BPF_LDX:
	case BPF_LD:
		return (uint16_t)(1u << (ip->dst & 15));
	case BPF_STX:
		if (BPF_MODE(ip->code) != BPF_ATOMIC)
			return 0;
		if (ip->imm == BPF_CMPXCHG)
			return 1;
		return ip->imm & BPF_FETCH ? (uint16_t)(1u << (ip->src & 15)) : 0;
	}
	return 0;
}

/* Registers holding a pointer derived from r10 after ip, by the rules of
 * pointer arithmetic the verifier knows (mov, add/sub of a scalar); any other
 * result is no longer tracked. Such a pointer must stay inside the live
 * frames: by address alone, a frame pointer plus a large offset can land in
 * ctx or a map value in one engine and somewhere else in the other. */
static uint16_t interp_insn_stackp(const struct bpfvm_insn *ip, uint16_t sp)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	uint16_t d = (uint16_t)(1u << (ip->dst & 15)), s = (uint16_t)(1u << (ip->src & 15));
	bool x = BPF_SRC(ip->code) == BPF_X;
	switch (cls) {
	case BPF_ALU64:
		if (op == BPF_MOV && ip->off == 0)
			return x && (sp & s) ? (uint16_t)(sp | d) : (uint16_t)(sp & ~d);
		if (op == BPF_ADD && !(x && (sp & s) && (sp & d)))
			return x && (sp & s) ? (uint16_t)(sp | d) : sp;
		if (op == BPF_SUB && !(x && (sp & s)))
			return sp;
		return (uint16_t)(sp & ~d);
	case BPF_ALU:
	case BPF_LDX:
	case BPF_LD:
		return (uint16_t)(sp & ~d);
	case BPF_STX:
		return (uint16_t)(sp & ~interp_insn_writes(ip));
	case BPF_JMP:
		/* a helper's r0 is not a frame pointer; r1-r5 die at any call */
		if (op == BPF_CALL && ip->src != BPF_PSEUDO_CALL)
			return (uint16_t)(sp & ~0x003fu);
		return sp;
	}
	return sp;
}

static bool interp_in_frames(const struct interp_state *st, uint64_t addr, uint64_t size)
{
	return interp_range_in(addr, size, interp_frame_top(st, st->depth),
			       interp_frame_top(st, 0));
}

/* Pointer arguments of a helper call, by its contract. false: fault at addr. */
static bool interp_args_ok(struct interp_state *st, const struct bpfvm_prog *prog,
			   const struct bpfvm_helper *h, const uint64_t *r, uint16_t stackp,
			   uint64_t *bad)
{
	const struct bpfvm_map *map = NULL;
	for (int i = 0; i < 5; i++) {
		const struct bpfvm_arg *a = &h->args[i];
		uint64_t v = r[i + 1], size = 0;
		bool or_null = a->flags & BPFVM_ARGF_OR_NULL;
		switch (a->kind) {
		case BPFVM_ARG_MAP:
			map = interp_map_arg(prog, v);
			if (!map) {
				*bad = v;
				return false;
			}
			continue;
		case BPFVM_ARG_CTX:
		case BPFVM_ARG_KERN_CTX:
			if (v != (uint64_t)(uintptr_t)st->ctx) {
				*bad = v;
				return false;
			}
			continue;
		case BPFVM_ARG_MAP_KEY:
		case BPFVM_ARG_MAP_VALUE:
			if (or_null && !v)
				continue;
			size = !map			      ? 1
			       : a->kind == BPFVM_ARG_MAP_KEY ? map->def.key_size
							      : map->def.value_size;
			break;
		case BPFVM_ARG_MEM:
			size = a->size_arg >= 1 && a->size_arg <= 5 ? r[a->size_arg] : a->size;
			if (or_null && !v && !size)
				continue;
			if (!size)
				continue;
			break;
		case BPFVM_ARG_SPIN_LOCK:
			size = 4;
			break;
		case BPFVM_ARG_STR:
		case BPFVM_ARG_RINGBUF_MEM:
			size = 1;
			break;
		default:
			continue;
		}
		if (!interp_mem_ok(st, prog, v, size) ||
		    ((stackp & (2u << i)) && !interp_in_frames(st, v, size))) {
			*bad = v;
			return false;
		}
		/* the helper fills uninit memory; everything else it reads */
		if (a->access == BPFVM_MEM_UNINIT_WRITE)
			interp_stack_write(st, v, size);
		else if (!interp_stack_written(st, v, size) ||
			 (prog->no_verify &&
			  (a->kind == BPFVM_ARG_MAP_KEY || a->kind == BPFVM_ARG_MAP_VALUE) &&
			  !interp_stack_plain(st, v, size))) {
			*bad = v;
			return false;
		}
	}
	return true;
}

/* An access of size bytes at addr through register base: inside known
 * memory, and inside the live frames when base is frame-derived (stackp). */
static bool interp_base_ok(const struct interp_state *st, const struct bpfvm_prog *prog,
			   uint16_t stackp, uint8_t base, uint64_t addr, uint64_t size)
{
	if (!interp_mem_ok(st, prog, addr, size))
		return false;
	return !((stackp & (1u << base)) && !interp_in_frames(st, addr, size));
}

/* A load also reads only written stack bytes. */
static bool interp_load_ok(struct interp_state *st, const struct bpfvm_prog *prog, uint16_t stackp,
			   uint8_t base, uint64_t addr, uint64_t size)
{
	return interp_base_ok(st, prog, stackp, base, addr, size) &&
	       interp_stack_written(st, addr, size);
}

/* A store marks the stack bytes it writes. */
static bool interp_store_ok(struct interp_state *st, const struct bpfvm_prog *prog, uint16_t stackp,
			    uint8_t base, uint64_t addr, uint64_t size)
{
	if (!interp_base_ok(st, prog, stackp, base, addr, size))
		return false;
	interp_stack_write(st, addr, size);
	return true;
}

/* An atomic reads and writes, aligned to its size. */
static bool interp_atomic_ok(struct interp_state *st, const struct bpfvm_prog *prog,
			     uint16_t stackp, uint8_t base, uint64_t addr, uint64_t size)
{
	return interp_load_ok(st, prog, stackp, base, addr, size) && !(addr & (size - 1));
}

#endif
