/* The interpreter: RFC 9669 (cpu v1-v4) with computed-goto dispatch. Built
 * twice: plain (bpfvm_interp_run) and with -DBPFVM_CHECKED via interp_checked.c
 * (bpfvm_interp_run_checked), where every memory access and helper pointer is
 * checked against ctx, the live stack frames and the program's maps.
 * Read RFC 9669 §4 (arithmetic and jumps) and §5 (load/store, atomics). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"
#ifdef BPFVM_CHECKED
#include "oracle.h"
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bpfvm interpreter assumes a little-endian host (BPF_TO_LE is a truncation)"
#endif

#ifdef BPFVM_CHECKED
#define INTERP_CHECKED 1
#else
#define INTERP_CHECKED 0
#endif

#define REGS_ARGS	    0x003eu /* r1-r5: caller-saved, clobbered by any call */
#define REGS_CALLBACK_UNDEF 0x03e1u /* r0, r5-r9 at a callback's entry */

struct interp_frame {
	const struct bpfvm_insn *ret; /* the call insn */
	const struct bpfvm_prog *prog;
	uint64_t saved[4]; /* R6..R9, callee-saved (RFC 9669 §2.3 convention) */
	uint64_t fp;
	uint16_t undef;	 /* checked runs: the caller's undefined registers */
	uint16_t stackp; /* checked runs: the caller's frame-derived registers */
};

struct interp_state {
	struct bpfvm_run run; /* run.engine points back here */
	uint8_t *stack;	      /* BPFVM_MAX_CALL_DEPTH frames, frame 0 on top */
	uint32_t depth;	      /* frames in use */
	void *ctx;
	size_t ctx_len;
	bool stopped;
	struct bpfvm_fault *fault;
#if INTERP_CHECKED
	/* one flag per stack byte: written since its frame was entered. A read
	 * of an unwritten byte stops the run, because what it would see differs
	 * between engines (the JIT's frames hold whatever the native stack held),
	 * which makes unverified programs comparable in differential runs. */
	uint8_t written[BPFVM_MAX_CALL_DEPTH * BPFVM_STACK_SIZE];
	struct oracle *oracle; /* oracle runs (oracle.c), else NULL */
#endif
};

static inline uint64_t frame_top(const struct interp_state *st, uint32_t d)
{
	return (uint64_t)(uintptr_t)(st->stack +
				     (size_t)(BPFVM_MAX_CALL_DEPTH - d) * BPFVM_STACK_SIZE);
}

static uint64_t interp_stop(struct interp_state *st, const struct bpfvm_prog *prog,
			    const struct bpfvm_insn *ip, uint64_t addr, uint32_t size)
{
	st->stopped = true;
	st->run.budget = 0; /* helpers looping over callbacks see the stop */
	if (st->fault && !st->fault->hit) {
		st->fault->hit = true;
		st->fault->pc = (uint32_t)(ip - prog->insns);
		st->fault->addr = addr;
		st->fault->size = size;
	}
#if INTERP_CHECKED
	if (st->oracle)
		oracle_stop(st->oracle, prog, ip, addr, size);
#endif
	return 0;
}

#if INTERP_CHECKED
static bool range_in(uint64_t addr, uint64_t size, uint64_t lo, uint64_t hi)
{
	return addr >= lo && addr <= hi && size <= hi - addr;
}

/* [addr, addr+size) must lie in ctx, the live frames, or one map value. */
static bool interp_mem_ok(const struct interp_state *st, const struct bpfvm_prog *prog,
			  uint64_t addr, uint64_t size)
{
	uint64_t c = (uint64_t)(uintptr_t)st->ctx;
	if (st->ctx && range_in(addr, size, c, c + st->ctx_len))
		return true;
	if (range_in(addr, size, frame_top(st, st->depth), frame_top(st, 0)))
		return true;
	uint64_t sc = (uint64_t)(uintptr_t)st->run.scratch;
	if (sc && range_in(addr, size, sc, sc + st->run.scratch_len))
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
	if (!range_in(addr, size, base, frame_top(st, 0)))
		return NULL;
	return st->written + (addr - base);
}

static bool interp_stack_written(struct interp_state *st, uint64_t addr, uint64_t size)
{
	const uint8_t *w = interp_shadow(st, addr, size);
	return !w || !memchr(w, 0, size);
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
static uint16_t insn_reads(const struct bpfvm_insn *ip)
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

static uint16_t insn_writes(const struct bpfvm_insn *ip)
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
static uint16_t insn_stackp(const struct bpfvm_insn *ip, uint16_t sp)
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
		return (uint16_t)(sp & ~insn_writes(ip));
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
	return range_in(addr, size, frame_top(st, st->depth), frame_top(st, 0));
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
		else if (!interp_stack_written(st, v, size)) {
			*bad = v;
			return false;
		}
	}
	return true;
}

#define MEMCHK(addr, size)                                                                         \
	do {                                                                                       \
		if (!interp_mem_ok(st, prog, (addr), (size)))                                      \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define BASECHK(base, addr, size)                                                                  \
	do {                                                                                       \
		MEMCHK(addr, size);                                                                \
		if ((stackp & (1u << (base))) && !interp_in_frames(st, (addr), (size)))            \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define LOADCHK(base, addr, size)                                                                  \
	do {                                                                                       \
		BASECHK(base, addr, size);                                                         \
		if (!interp_stack_written(st, (addr), (size)))                                     \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define STORECHK(base, addr, size)                                                                 \
	do {                                                                                       \
		BASECHK(base, addr, size);                                                         \
		interp_stack_write(st, (addr), (size));                                            \
	} while (0)
#define ATOMCHK(base, addr, size)                                                                  \
	do {                                                                                       \
		LOADCHK(base, addr, size);                                                         \
		if ((addr) & ((size)-1))                                                           \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define FRAME_ENTER() interp_frame_enter(st)
#else
#define LOADCHK(base, addr, size)  ((void)0)
#define STORECHK(base, addr, size) ((void)0)
#define ATOMCHK(base, addr, size)  ((void)0)
#define FRAME_ENTER()		   ((void)0)
#endif

/* Unaligned-safe accessors: memcpy compiles to one mov on x86-64. */
#define LOADT(T, a)                                                                                \
	({                                                                                         \
		T v_;                                                                              \
		memcpy(&v_, (const void *)(uintptr_t)(a), sizeof(v_));                             \
		v_;                                                                                \
	})
#define STORET(T, a, v)                                                                            \
	do {                                                                                       \
		T v_ = (T)(v);                                                                     \
		memcpy((void *)(uintptr_t)(a), &v_, sizeof(v_));                                   \
	} while (0)

/* RFC 9669 §4.1: division by zero yields 0, modulo by zero leaves dst; signed
 * INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0 (what the kernel's
 * verifier fixups produce). */
static inline uint64_t sdiv64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return 0;
	if ((int64_t)b == -1)
		return 0 - a;
	return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t smod64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return a;
	if ((int64_t)b == -1)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

static inline uint32_t sdiv32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return 0;
	if ((int32_t)b == -1)
		return 0 - a;
	return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint32_t smod32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return a;
	if ((int32_t)b == -1)
		return 0;
	return (uint32_t)((int32_t)a % (int32_t)b);
}

static uint64_t interp_exec(struct interp_state *st, const struct bpfvm_prog *prog,
			    const struct bpfvm_insn *ip, uint64_t r1, uint64_t r2, uint64_t r3,
			    uint64_t r4, uint64_t r5);

/* run->call: a callback (bpf_loop, for_each_map_elem) runs as a new frame of
 * the running program. */
static uint64_t interp_callback(struct bpfvm_run *run, uint32_t pc, uint64_t r1, uint64_t r2,
				uint64_t r3, uint64_t r4)
{
	struct interp_state *st = run->engine;
	const struct bpfvm_prog *prog = run->prog;
	if (st->stopped)
		return 0;
	if (!bpfvm_prog_is_entry(prog, pc) || --st->run.budget == 0)
		return interp_stop(st, prog, prog->insns, pc, 0);
	uint64_t r0 = interp_exec(st, prog, &prog->insns[pc], r1, r2, r3, r4, 0);
	st->run.prog = prog; /* a tail call inside the callback ends with it */
	return r0;
}

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

static uint64_t interp_exec(struct interp_state *st, const struct bpfvm_prog *prog,
			    const struct bpfvm_insn *ip, uint64_t r1, uint64_t r2, uint64_t r3,
			    uint64_t r4, uint64_t r5)
{
#define ALU_ENTRIES(op, name)                                                                      \
	[BPF_ALU64 | BPF_K | op] = &&alu64_##name##_k,                                             \
			     [BPF_ALU64 | BPF_X | op] = &&alu64_##name##_x,                        \
			     [BPF_ALU | BPF_K | op] = &&alu32_##name##_k,                          \
			     [BPF_ALU | BPF_X | op] = &&alu32_##name##_x
#define JMP_ENTRIES(op, name)                                                                      \
	[BPF_JMP | BPF_K | op] = &&jmp_##name##_k, [BPF_JMP | BPF_X | op] = &&jmp_##name##_x,      \
			   [BPF_JMP32 | BPF_K | op] = &&jmp32_##name##_k,                          \
			   [BPF_JMP32 | BPF_X | op] = &&jmp32_##name##_x
	static const void *const tbl[256] = {
	    [0 ... 255] = &&op_invalid,
	    ALU_ENTRIES(BPF_ADD, add),
	    ALU_ENTRIES(BPF_SUB, sub),
	    ALU_ENTRIES(BPF_MUL, mul),
	    ALU_ENTRIES(BPF_DIV, div),
	    ALU_ENTRIES(BPF_OR, or),
	    ALU_ENTRIES(BPF_AND, and),
	    ALU_ENTRIES(BPF_LSH, lsh),
	    ALU_ENTRIES(BPF_RSH, rsh),
	    ALU_ENTRIES(BPF_MOD, mod),
	    ALU_ENTRIES(BPF_XOR, xor),
	    ALU_ENTRIES(BPF_MOV, mov),
	    ALU_ENTRIES(BPF_ARSH, arsh),
	    [BPF_ALU64 | BPF_NEG] = &&alu64_neg,
	    [BPF_ALU | BPF_NEG] = &&alu32_neg,
	    [BPF_ALU | BPF_END | BPF_TO_LE] = &&end_le,
	    [BPF_ALU | BPF_END | BPF_TO_BE] = &&end_be,
	    [BPF_ALU64 | BPF_END] = &&end_be, /* bswap: unconditional swap */
	    JMP_ENTRIES(BPF_JEQ, jeq),
	    JMP_ENTRIES(BPF_JGT, jgt),
	    JMP_ENTRIES(BPF_JGE, jge),
	    JMP_ENTRIES(BPF_JSET, jset),
	    JMP_ENTRIES(BPF_JNE, jne),
	    JMP_ENTRIES(BPF_JSGT, jsgt),
	    JMP_ENTRIES(BPF_JSGE, jsge),
	    JMP_ENTRIES(BPF_JLT, jlt),
	    JMP_ENTRIES(BPF_JLE, jle),
	    JMP_ENTRIES(BPF_JSLT, jslt),
	    JMP_ENTRIES(BPF_JSLE, jsle),
	    [BPF_JMP | BPF_JA] = &&jmp_ja,
	    [BPF_JMP32 | BPF_JA] = &&jmp32_ja,
	    [BPF_JMP | BPF_CALL] = &&op_call,
	    [BPF_JMP | BPF_EXIT] = &&op_exit,
	    [BPF_LD | BPF_IMM | BPF_DW] = &&ld_imm64,
	    [BPF_LDX | BPF_MEM | BPF_B] = &&ldx_b,
	    [BPF_LDX | BPF_MEM | BPF_H] = &&ldx_h,
	    [BPF_LDX | BPF_MEM | BPF_W] = &&ldx_w,
	    [BPF_LDX | BPF_MEM | BPF_DW] = &&ldx_dw,
	    [BPF_LDX | BPF_MEMSX | BPF_B] = &&ldxsx_b,
	    [BPF_LDX | BPF_MEMSX | BPF_H] = &&ldxsx_h,
	    [BPF_LDX | BPF_MEMSX | BPF_W] = &&ldxsx_w,
	    [BPF_ST | BPF_MEM | BPF_B] = &&st_b,
	    [BPF_ST | BPF_MEM | BPF_H] = &&st_h,
	    [BPF_ST | BPF_MEM | BPF_W] = &&st_w,
	    [BPF_ST | BPF_MEM | BPF_DW] = &&st_dw,
	    [BPF_STX | BPF_MEM | BPF_B] = &&stx_b,
	    [BPF_STX | BPF_MEM | BPF_H] = &&stx_h,
	    [BPF_STX | BPF_MEM | BPF_W] = &&stx_w,
	    [BPF_STX | BPF_MEM | BPF_DW] = &&stx_dw,
	    [BPF_STX | BPF_ATOMIC | BPF_W] = &&atomic_w,
	    [BPF_STX | BPF_ATOMIC | BPF_DW] = &&atomic_dw,
	};
#undef ALU_ENTRIES
#undef JMP_ENTRIES

	uint64_t reg[11];
	struct interp_frame frames[BPFVM_MAX_CALL_DEPTH];
	uint32_t nframes = 0;
#if INTERP_CHECKED
	/* Registers holding no defined value: reading one stops the run. The
	 * engines agree on zeroed registers at the program's entry, but not on
	 * what r1-r5 hold after a call, nor on r0 and r5-r9 in a callback. */
	uint16_t undef = st->depth == 0 ? 0 : REGS_CALLBACK_UNDEF;
	/* frame-derived registers before this insn, and after it (see
	 * insn_stackp): the checks of an insn use its operands' state */
	uint16_t stackp = 1u << 10, stackp_after = 1u << 10;
	struct oracle_regs otags; /* oracle runs: what each register holds */
	if (st->oracle && st->depth < BPFVM_MAX_CALL_DEPTH)
		oracle_enter(st->oracle, &otags, st->depth, (const uint64_t[]){r1, r2, r3, r4});
#endif

	if (st->depth >= BPFVM_MAX_CALL_DEPTH)
		return interp_stop(st, prog, ip, 0, 0);
	reg[0] = 0;
	reg[1] = r1;
	reg[2] = r2;
	reg[3] = r3;
	reg[4] = r4;
	reg[5] = r5;
	reg[6] = reg[7] = reg[8] = reg[9] = 0;
	reg[10] = frame_top(st, st->depth);
	FRAME_ENTER();
	st->depth++;

#define DST reg[ip->dst]
#define SRC reg[ip->src]
#define IMM ip->imm
#if INTERP_CHECKED
#define DISPATCH()                                                                                 \
	do {                                                                                       \
		stackp = stackp_after;                                                             \
		if (insn_reads(ip) & undef)                                                        \
			STOP(0, 0);                                                                \
		if (st->oracle &&                                                                  \
		    !oracle_insn(st->oracle, prog, ip, reg, &otags, nframes, st->depth))           \
			STOP(0, 0);                                                                \
		undef &= (uint16_t)~insn_writes(ip);                                               \
		stackp_after = insn_stackp(ip, stackp);                                            \
		goto *tbl[ip->code];                                                               \
	} while (0)
#define CLOBBER(mask) (undef |= (mask))
#else
#define DISPATCH()    goto *tbl[ip->code]
#define CLOBBER(mask) ((void)0)
#endif
#define NEXT()                                                                                     \
	do {                                                                                       \
		ip++;                                                                              \
		DISPATCH();                                                                        \
	} while (0)
#define STOP(addr, size)                                                                           \
	do {                                                                                       \
		st->depth--;                                                                       \
		return interp_stop(st, prog, ip, (addr), (size));                                  \
	} while (0)
/* ip += off, then NEXT's ++ lands on pc + off + 1. Backward edges spend
 * budget (an offset of -1 jumps to itself). */
#define JUMP(o)                                                                                    \
	do {                                                                                       \
		int32_t o_ = (o);                                                                  \
		if (o_ < 0 && --st->run.budget == 0)                                               \
			STOP(0, 0);                                                                \
		ip += o_;                                                                          \
		NEXT();                                                                            \
	} while (0)

	DISPATCH();

	/* ---- ALU (RFC 9669 §4.1): 32-bit results are zero-extended ---- */
#define ALU_OP(name, op)                                                                           \
	alu64_##name##_k : DST = DST op(uint64_t)(int64_t) IMM;                                    \
	NEXT();                                                                                    \
	alu64_##name##_x : DST = DST op SRC;                                                       \
	NEXT();                                                                                    \
	alu32_##name##_k : DST = (uint32_t)((uint32_t)DST op(uint32_t) IMM);                       \
	NEXT();                                                                                    \
	alu32_##name##_x : DST = (uint32_t)((uint32_t)DST op(uint32_t) SRC);                       \
	NEXT();
	ALU_OP(add, +)
	ALU_OP(sub, -)
	ALU_OP(mul, *)
	ALU_OP(or, |)
	ALU_OP(and, &)
	ALU_OP(xor, ^)
#undef ALU_OP

	/* shift counts are masked to the operand width (RFC 9669 §4.1) */
alu64_lsh_k:
	DST = DST << (IMM & 63);
	NEXT();
alu64_lsh_x:
	DST = DST << (SRC & 63);
	NEXT();
alu32_lsh_k:
	DST = (uint32_t)((uint32_t)DST << (IMM & 31));
	NEXT();
alu32_lsh_x:
	DST = (uint32_t)((uint32_t)DST << (SRC & 31));
	NEXT();
alu64_rsh_k:
	DST = DST >> (IMM & 63);
	NEXT();
alu64_rsh_x:
	DST = DST >> (SRC & 63);
	NEXT();
alu32_rsh_k:
	DST = (uint32_t)DST >> (IMM & 31);
	NEXT();
alu32_rsh_x:
	DST = (uint32_t)DST >> (SRC & 31);
	NEXT();
alu64_arsh_k:
	DST = (uint64_t)((int64_t)DST >> (IMM & 63));
	NEXT();
alu64_arsh_x:
	DST = (uint64_t)((int64_t)DST >> (SRC & 63));
	NEXT();
alu32_arsh_k:
	DST = (uint32_t)((int32_t)(uint32_t)DST >> (IMM & 31));
	NEXT();
alu32_arsh_x:
	DST = (uint32_t)((int32_t)(uint32_t)DST >> (SRC & 31));
	NEXT();

	/* off 1 selects sdiv/smod (cpu v4) */
alu64_div_k:
	DST = ip->off ? sdiv64(DST, (uint64_t)(int64_t)IMM)
		      : (IMM ? DST / (uint64_t)(int64_t)IMM : 0);
	NEXT();
alu64_div_x:
	DST = ip->off ? sdiv64(DST, SRC) : (SRC ? DST / SRC : 0);
	NEXT();
alu32_div_k:
	DST = ip->off ? sdiv32((uint32_t)DST, (uint32_t)IMM)
		      : ((uint32_t)IMM ? (uint32_t)DST / (uint32_t)IMM : 0);
	NEXT();
alu32_div_x:
	DST = ip->off ? sdiv32((uint32_t)DST, (uint32_t)SRC)
		      : ((uint32_t)SRC ? (uint32_t)DST / (uint32_t)SRC : 0);
	NEXT();
alu64_mod_k:
	DST = ip->off ? smod64(DST, (uint64_t)(int64_t)IMM)
		      : (IMM ? DST % (uint64_t)(int64_t)IMM : DST);
	NEXT();
alu64_mod_x:
	DST = ip->off ? smod64(DST, SRC) : (SRC ? DST % SRC : DST);
	NEXT();
alu32_mod_k:
	DST = ip->off ? smod32((uint32_t)DST, (uint32_t)IMM)
		      : ((uint32_t)IMM ? (uint32_t)DST % (uint32_t)IMM : (uint32_t)DST);
	NEXT();
alu32_mod_x:
	DST = ip->off ? smod32((uint32_t)DST, (uint32_t)SRC)
		      : ((uint32_t)SRC ? (uint32_t)DST % (uint32_t)SRC : (uint32_t)DST);
	NEXT();

alu64_neg:
	DST = 0 - DST;
	NEXT();
alu32_neg:
	DST = (uint32_t)(0 - (uint32_t)DST);
	NEXT();

	/* MOV; with off 8/16/32 it is MOVSX (RFC 9669 §4.1, cpu v4) */
alu64_mov_k:
	DST = (uint64_t)(int64_t)IMM;
	NEXT();
alu64_mov_x:
	switch (ip->off) {
	case 8:
		DST = (uint64_t)(int64_t)(int8_t)SRC;
		break;
	case 16:
		DST = (uint64_t)(int64_t)(int16_t)SRC;
		break;
	case 32:
		DST = (uint64_t)(int64_t)(int32_t)SRC;
		break;
	default:
		DST = SRC;
	}
	NEXT();
alu32_mov_k:
	DST = (uint32_t)IMM;
	NEXT();
alu32_mov_x:
	switch (ip->off) {
	case 8:
		DST = (uint32_t)(int32_t)(int8_t)SRC;
		break;
	case 16:
		DST = (uint32_t)(int32_t)(int16_t)SRC;
		break;
	default:
		DST = (uint32_t)SRC;
	}
	NEXT();

	/* RFC 9669 §4.2: to-le on this little-endian host truncates; to-be and
	 * ALU64 bswap swap. Widths were checked at load. */
end_le:
	DST = IMM == 16 ? (uint16_t)DST : IMM == 32 ? (uint32_t)DST : DST;
	NEXT();
end_be:
	DST = IMM == 16	  ? __builtin_bswap16((uint16_t)DST)
	      : IMM == 32 ? __builtin_bswap32((uint32_t)DST)
			  : __builtin_bswap64(DST);
	NEXT();

	/* ---- jumps (RFC 9669 §4.3) ---- */
#define JMP_OP(name, expr64k, expr64x, expr32k, expr32x)                                           \
	jmp_##name##_k : if (expr64k) JUMP(ip->off);                                               \
	NEXT();                                                                                    \
	jmp_##name##_x : if (expr64x) JUMP(ip->off);                                               \
	NEXT();                                                                                    \
	jmp32_##name##_k : if (expr32k) JUMP(ip->off);                                             \
	NEXT();                                                                                    \
	jmp32_##name##_x : if (expr32x) JUMP(ip->off);                                             \
	NEXT();
#define JMP_U(name, op)                                                                            \
	JMP_OP(name, DST op(uint64_t)(int64_t) IMM, DST op SRC, (uint32_t)DST op(uint32_t) IMM,    \
	       (uint32_t)DST op(uint32_t) SRC)
#define JMP_S(name, op)                                                                            \
	JMP_OP(name, (int64_t)DST op(int64_t) IMM, (int64_t)DST op(int64_t) SRC,                   \
	       (int32_t)(uint32_t)DST op(int32_t) IMM,                                             \
	       (int32_t)(uint32_t)DST op(int32_t)(uint32_t) SRC)
	JMP_U(jeq, ==)
	JMP_U(jne, !=)
	JMP_U(jgt, >)
	JMP_U(jge, >=)
	JMP_U(jlt, <)
	JMP_U(jle, <=)
	JMP_S(jsgt, >)
	JMP_S(jsge, >=)
	JMP_S(jslt, <)
	JMP_S(jsle, <=)
	JMP_OP(jset, (DST & (uint64_t)(int64_t)IMM), (DST & SRC), ((uint32_t)DST & (uint32_t)IMM),
	       ((uint32_t)DST & (uint32_t)SRC))
#undef JMP_OP
#undef JMP_U
#undef JMP_S
jmp_ja:
	JUMP(ip->off);
jmp32_ja:
	JUMP(IMM); /* gotol: the 32-bit offset lives in imm */

	/* ---- ld_imm64 (RFC 9669 §5.4); map/func sources were relocated ---- */
ld_imm64:
	DST = (uint64_t)(uint32_t)ip[0].imm | ((uint64_t)(uint32_t)ip[1].imm << 32);
	ip++;
	NEXT();

	/* ---- loads and stores (RFC 9669 §5.1, §5.2) ---- */
#define LDX(name, T, ET)                                                                           \
	name : {                                                                                   \
		uint64_t a_ = SRC + (uint64_t)(int64_t)ip->off;                                    \
		LOADCHK(ip->src, a_, sizeof(T));                                                   \
		DST = (uint64_t)(ET)LOADT(T, a_);                                                  \
		NEXT();                                                                            \
	}
	LDX(ldx_b, uint8_t, uint8_t)
	LDX(ldx_h, uint16_t, uint16_t)
	LDX(ldx_w, uint32_t, uint32_t)
	LDX(ldx_dw, uint64_t, uint64_t)
	LDX(ldxsx_b, int8_t, int64_t)
	LDX(ldxsx_h, int16_t, int64_t)
	LDX(ldxsx_w, int32_t, int64_t)
#undef LDX
#define ST(name, T, V)                                                                             \
	name : {                                                                                   \
		uint64_t a_ = DST + (uint64_t)(int64_t)ip->off;                                    \
		STORECHK(ip->dst, a_, sizeof(T));                                                  \
		STORET(T, a_, V);                                                                  \
		NEXT();                                                                            \
	}
	ST(st_b, uint8_t, IMM)
	ST(st_h, uint16_t, IMM)
	ST(st_w, uint32_t, IMM)
	ST(st_dw, uint64_t, (int64_t)IMM)
	ST(stx_b, uint8_t, SRC)
	ST(stx_h, uint16_t, SRC)
	ST(stx_w, uint32_t, SRC)
	ST(stx_dw, uint64_t, SRC)
#undef ST

	/* ---- atomics (RFC 9669 §5.3): sequentially consistent like the
	 * kernel's lock-prefixed ops; FETCH returns the old value in src,
	 * zero-extended for 32 bits; cmpxchg compares with and returns in R0. */
#define ATOMIC(name, T)                                                                            \
	name : {                                                                                   \
		uint64_t a_ = DST + (uint64_t)(int64_t)ip->off;                                    \
		ATOMCHK(ip->dst, a_, sizeof(T));                                                   \
		T *p_ = (T *)(uintptr_t)a_;                                                        \
		T s_ = (T)SRC, old_;                                                               \
		switch (IMM) {                                                                     \
		case BPF_ADD:                                                                      \
		case BPF_ADD | BPF_FETCH:                                                          \
			old_ = __atomic_fetch_add(p_, s_, __ATOMIC_SEQ_CST);                       \
			break;                                                                     \
		case BPF_OR:                                                                       \
		case BPF_OR | BPF_FETCH:                                                           \
			old_ = __atomic_fetch_or(p_, s_, __ATOMIC_SEQ_CST);                        \
			break;                                                                     \
		case BPF_AND:                                                                      \
		case BPF_AND | BPF_FETCH:                                                          \
			old_ = __atomic_fetch_and(p_, s_, __ATOMIC_SEQ_CST);                       \
			break;                                                                     \
		case BPF_XOR:                                                                      \
		case BPF_XOR | BPF_FETCH:                                                          \
			old_ = __atomic_fetch_xor(p_, s_, __ATOMIC_SEQ_CST);                       \
			break;                                                                     \
		case BPF_XCHG:                                                                     \
			old_ = __atomic_exchange_n(p_, s_, __ATOMIC_SEQ_CST);                      \
			break;                                                                     \
		case BPF_CMPXCHG:                                                                  \
			old_ = (T)reg[0];                                                          \
			__atomic_compare_exchange_n(p_, &old_, s_, false, __ATOMIC_SEQ_CST,        \
						    __ATOMIC_SEQ_CST);                             \
			reg[0] = old_;                                                             \
			NEXT();                                                                    \
		default:                                                                           \
			STOP(a_, sizeof(T));                                                       \
		}                                                                                  \
		if (IMM & BPF_FETCH)                                                               \
			SRC = old_;                                                                \
		NEXT();                                                                            \
	}
	ATOMIC(atomic_w, uint32_t)
	ATOMIC(atomic_dw, uint64_t)
#undef ATOMIC

	/* ---- calls and exit (RFC 9669 §4.3.1) ---- */
op_call:
	if (ip->src == BPF_PSEUDO_CALL) {
		/* calls need no budget: without recursion (verified) or with
		 * the depth bounded, only back-edges and callbacks repeat */
		if (st->depth >= BPFVM_MAX_CALL_DEPTH)
			STOP(0, 0);
		struct interp_frame *f = &frames[nframes++];
		f->ret = ip;
		f->prog = prog;
		memcpy(f->saved, &reg[6], sizeof(f->saved));
		f->fp = reg[10];
#if INTERP_CHECKED
		f->undef = undef;
		f->stackp = stackp;
#endif
		reg[10] = frame_top(st, st->depth);
		FRAME_ENTER();
		st->depth++;
		ip += IMM;
		NEXT();
	}
	if (IMM == BPF_HELPER_TAIL_CALL) {
		/* bpf_tail_call(ctx, prog_array, index): a missing slot, a bad
		 * index or the 34th tail call fall through with r0 untouched;
		 * otherwise the target replaces the running program in this
		 * frame, keeping r1 (ctx) and the frame pointer. */
		struct bpfvm_map *m = (struct bpfvm_map *)(uintptr_t)reg[2];
#if INTERP_CHECKED
		if ((undef & 0x000e) || !interp_map_arg(prog, reg[2]))
			STOP(reg[2], 0);
#endif
		const struct bpfvm_prog *t = NULL;
		if (m && m->def.type == BPFVM_MAP_PROG_ARRAY &&
		    st->run.tail_calls < BPFVM_MAX_TAIL_CALLS)
			t = bpfvm_prog_array_get(m, (uint32_t)reg[3]);
		if (!t) {
			CLOBBER(REGS_ARGS);
			NEXT();
		}
		st->run.tail_calls++;
		prog = t;
		st->run.prog = t;
		ip = t->insns;
		CLOBBER(0x03fd); /* the target starts with ctx in r1, nothing else */
#if INTERP_CHECKED
		stackp_after = 1u << 10;
#endif
		DISPATCH();
	}
	{
		const struct bpfvm_helper *h = prog->type->helper((uint32_t)IMM);
		if (!h || !h->fn)
			STOP(0, 0);
#if INTERP_CHECKED
		for (int i = 0; i < 5; i++)
			if (h->args[i].kind != BPFVM_ARG_NONE && (undef & (1u << (i + 1))))
				STOP(0, 0);
		uint64_t bad;
		if (!interp_args_ok(st, prog, h, reg, stackp, &bad))
			STOP(bad, 0);
		undef = (uint16_t)((undef | REGS_ARGS) & ~1u);
#endif
		st->run.fp = reg[10]; /* the frame bpfvm_run_readable admits */
#if INTERP_CHECKED
		if (st->oracle) {
			reg[0] = oracle_helper(st->oracle, prog, ip, h, reg, &otags, &st->run);
			if (st->oracle->failed && !st->stopped)
				STOP(0, 0);
		} else
#endif
			reg[0] = h->fn(reg[1], reg[2], reg[3], reg[4], reg[5], &st->run);
		if (st->stopped) {
			st->depth--;
			return 0;
		}
		NEXT();
	}

op_exit:
	if (nframes == 0) {
		st->depth--;
		return reg[0];
	}
	{
		struct interp_frame *f = &frames[--nframes];
		memcpy(&reg[6], f->saved, sizeof(f->saved));
#if INTERP_CHECKED
		undef = (uint16_t)((undef & 0x003f) | (f->undef & 0x03c0) | REGS_ARGS);
		stackp_after =
		    (uint16_t)((stackp_after & 0x0001) | (f->stackp & 0x03c0) | (1u << 10));
#endif
		reg[10] = f->fp;
		ip = f->ret;
		prog = f->prog;
		st->run.prog = prog;
		st->depth--;
		NEXT();
	}

op_invalid:
	STOP(0, 0);

#undef DST
#undef SRC
#undef IMM
#undef DISPATCH
#undef CLOBBER
#undef NEXT
#undef STOP
#undef JUMP
}

#if defined(__clang__)
#pragma clang diagnostic pop
#else
#pragma GCC diagnostic pop
#endif

static uint64_t interp_start(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
			     struct bpfvm_fault *fault, uint64_t *budget, void *oracle)
{
	uint8_t stack[BPFVM_MAX_CALL_DEPTH * BPFVM_STACK_SIZE] __attribute__((aligned(16)));
	struct interp_state st = {
	    .run = {.prog = prog, .ctx = ctx, .call = interp_callback, .budget = *budget},
	    .stack = stack,
	    .ctx = ctx,
	    .ctx_len = ctx_len,
	    .fault = fault,
	};
	st.run.engine = &st;
#if INTERP_CHECKED
	st.oracle = oracle;
	if (oracle)
		oracle_init(oracle, prog, ctx, ctx_len, stack);
#else
	(void)oracle;
#endif
	if (fault)
		memset(fault, 0, sizeof(*fault));
	uint64_t r0 = 0;
	if (st.run.budget)
		r0 =
		    interp_exec(&st, prog, prog->insns, (uint64_t)(uintptr_t)ctx, ctx_len, 0, 0, 0);
	if (st.stopped)
		bpfvm_run_release(&st.run);
	*budget = st.stopped ? 0 : st.run.budget;
	return st.stopped ? 0 : r0;
}

#if INTERP_CHECKED
uint64_t bpfvm_interp_run_checked(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
				  struct bpfvm_fault *fault)
{
	struct bpfvm_fault local;
	uint64_t budget = prog->run_budget ? prog->run_budget : BPFVM_RUN_BUDGET_UNVERIFIED;
	return interp_start(prog, ctx, ctx_len, fault ? fault : &local, &budget, NULL);
}

uint64_t bpfvm_prog_run_oracle(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
			       struct bpfvm_oracle_report *rep)
{
	struct bpfvm_fault f;
	struct oracle *o = prog->no_verify ? NULL : malloc(sizeof(*o));
	uint64_t budget = prog->run_budget ? prog->run_budget : BPFVM_RUN_BUDGET_UNVERIFIED;
	bpfvm_run_enter(); /* storage deleted during the run is freed after it */
	uint64_t r0 = interp_start(prog, ctx, ctx_len, &f, &budget, o);
	bpfvm_run_exit();
	memset(rep, 0, sizeof(*rep));
	rep->pc = f.hit ? (int64_t)f.pc : -1;
	if (o && o->failed) {
		rep->violation = true;
		rep->pc = o->pc;
		snprintf(rep->why, sizeof(rep->why), "%s", o->why);
	}
	free(o);
	return r0;
}
#else
uint64_t bpfvm_interp_run(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
			  uint64_t *budget)
{
	return interp_start(prog, ctx, ctx_len, NULL, budget, NULL);
}
#endif
