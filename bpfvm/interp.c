/* The interpreter: RFC 9669 (cpu v1-v4) with computed-goto dispatch. Built
 * twice: plain (bpfvm_interp_run) and with -DBPFVM_CHECKED via interp_checked.c
 * (bpfvm_interp_run_checked), where every memory access and helper pointer is
 * checked against ctx, the live stack frames and the program's maps
 * (interp_checks.h). This file holds the entry points, the frames of a run
 * and the dispatch loop; the instruction classes' bodies are inline functions
 * in interp_alu.h (§4 arithmetic and jumps), interp_mem.h (§5 loads, stores,
 * atomics) and interp_call.h (§4.3.1 calls). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_alu.h"
#include "interp_call.h"
#include "interp_int.h"
#include "interp_mem.h"
#if INTERP_CHECKED
#include "interp_checks.h"
#include "interp_fdep.h"
#endif

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

/* The instruction lists the dispatch table and its labels are built from.
 * ALU and JMP: (op, label stem), each in 64- and 32-bit, K and X forms. */
#define ALU_OPS(X)                                                                                 \
	X(BPF_ADD, add)                                                                            \
	X(BPF_SUB, sub)                                                                            \
	X(BPF_MUL, mul)                                                                            \
	X(BPF_DIV, div)                                                                            \
	X(BPF_OR, or)                                                                              \
	X(BPF_AND, and)                                                                            \
	X(BPF_LSH, lsh)                                                                            \
	X(BPF_RSH, rsh)                                                                            \
	X(BPF_MOD, mod)                                                                            \
	X(BPF_XOR, xor)                                                                            \
	X(BPF_ARSH, arsh)
#define JMP_OPS(X)                                                                                 \
	X(BPF_JEQ, jeq)                                                                            \
	X(BPF_JNE, jne)                                                                            \
	X(BPF_JGT, jgt)                                                                            \
	X(BPF_JGE, jge)                                                                            \
	X(BPF_JLT, jlt)                                                                            \
	X(BPF_JLE, jle)                                                                            \
	X(BPF_JSGT, jsgt)                                                                          \
	X(BPF_JSGE, jsge)                                                                          \
	X(BPF_JSLT, jslt)                                                                          \
	X(BPF_JSLE, jsle)                                                                          \
	X(BPF_JSET, jset)
/* loads (RFC 9669 §5.1): label, mode, size, type read, type extended from */
#define LDX_OPS(X)                                                                                 \
	X(ldx_b, BPF_MEM, BPF_B, uint8_t, uint8_t)                                                 \
	X(ldx_h, BPF_MEM, BPF_H, uint16_t, uint16_t)                                               \
	X(ldx_w, BPF_MEM, BPF_W, uint32_t, uint32_t)                                               \
	X(ldx_dw, BPF_MEM, BPF_DW, uint64_t, uint64_t)                                             \
	X(ldxsx_b, BPF_MEMSX, BPF_B, int8_t, int64_t)                                              \
	X(ldxsx_h, BPF_MEMSX, BPF_H, int16_t, int64_t)                                             \
	X(ldxsx_w, BPF_MEMSX, BPF_W, int32_t, int64_t)
/* stores (RFC 9669 §5.2): label, class, size, type written, value */
#define ST_OPS(X)                                                                                  \
	X(st_b, BPF_ST, BPF_B, uint8_t, IMM)                                                       \
	X(st_h, BPF_ST, BPF_H, uint16_t, IMM)                                                      \
	X(st_w, BPF_ST, BPF_W, uint32_t, IMM)                                                      \
	X(st_dw, BPF_ST, BPF_DW, uint64_t, (int64_t)IMM)                                           \
	X(stx_b, BPF_STX, BPF_B, uint8_t, SRC)                                                     \
	X(stx_h, BPF_STX, BPF_H, uint16_t, SRC)                                                    \
	X(stx_w, BPF_STX, BPF_W, uint32_t, SRC)                                                    \
	X(stx_dw, BPF_STX, BPF_DW, uint64_t, SRC)

/* dispatch table entries */
#define ALU_ENTRIES(op, name)                                                                      \
	[BPF_ALU64 | BPF_K | op] = &&alu64_##name##_k,                                             \
			     [BPF_ALU64 | BPF_X | op] = &&alu64_##name##_x,                        \
			     [BPF_ALU | BPF_K | op] = &&alu32_##name##_k,                          \
			     [BPF_ALU | BPF_X | op] = &&alu32_##name##_x,
#define JMP_ENTRIES(op, name)                                                                      \
	[BPF_JMP | BPF_K | op] = &&jmp_##name##_k, [BPF_JMP | BPF_X | op] = &&jmp_##name##_x,      \
			   [BPF_JMP32 | BPF_K | op] = &&jmp32_##name##_k,                          \
			   [BPF_JMP32 | BPF_X | op] = &&jmp32_##name##_x,
#define LDX_ENTRY(name, mode, size, T, ET) [BPF_LDX | mode | size] = &&name,
#define ST_ENTRY(name, cls, size, T, V)	   [cls | BPF_MEM | size] = &&name,

/* The loop's vocabulary: operands of the insn at ip, moving on, stopping. */
#define DST reg[ip->dst]
#define SRC reg[ip->src]
#define IMM ip->imm
#if INTERP_CHECKED
#define CHK (&chk)
#define DISPATCH()                                                                                 \
	do {                                                                                       \
		chk.stackp = chk.stackp_after;                                                     \
		chk.fdep = chk.fdep_after;                                                         \
		if ((interp_insn_reads(ip) & chk.undef) || !interp_fdep_use_ok(st, ip, reg, &chk)) \
			STOP(0, 0);                                                                \
		if (st->oracle &&                                                                  \
		    !oracle_insn(st->oracle, prog, ip, reg, &chk.otags, nframes, st->depth))       \
			STOP(0, 0);                                                                \
		chk.undef &= (uint16_t)~interp_insn_writes(ip);                                    \
		chk.stackp_after = interp_insn_stackp(ip, chk.stackp);                             \
		interp_fdep_next(st, ip, reg, &chk);                                               \
		goto *tbl[ip->code];                                                               \
	} while (0)
#define CLOBBER(mask)  (chk.undef |= (mask))
#define STACKP_RESET() (chk.stackp_after = 1u << 10, chk.fdep_after &= 0x0002u)
#define FRAME_ENTER()  interp_frame_enter(st)
/* the checks before an access through register base stop the run at it */
#define MEMCHK(fn, base, addr, size)                                                               \
	do {                                                                                       \
		if (!fn(st, prog, chk.stackp, (base), (addr), (size)))                             \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define LOADCHK(base, addr, size)  MEMCHK(interp_load_ok, base, addr, size)
#define STORECHK(base, addr, size) MEMCHK(interp_store_ok, base, addr, size)
#define ATOMCHK(base, addr, size)  MEMCHK(interp_atomic_ok, base, addr, size)
/* after a store's checks: what the stored value depends on (interp_fdep.h) */
#define STORETAINT(addr, size)                                                                     \
	do {                                                                                       \
		if (!interp_fdep_store(st, prog, ip, &chk, (addr), (size)))                        \
			return interp_stop(st, prog, ip, (addr), (size));                          \
	} while (0)
#define TAILCHK()                                                                                  \
	do {                                                                                       \
		if ((chk.undef & 0x000e) || !interp_map_arg(prog, reg[2]))                         \
			STOP(reg[2], 0);                                                           \
	} while (0)
#else
#define CHK			   NULL
#define DISPATCH()		   goto *tbl[ip->code]
#define CLOBBER(mask)		   ((void)0)
#define STACKP_RESET()		   ((void)0)
#define FRAME_ENTER()		   ((void)0)
#define LOADCHK(base, addr, size)  ((void)0)
#define STORECHK(base, addr, size) ((void)0)
#define ATOMCHK(base, addr, size)  ((void)0)
#define STORETAINT(addr, size)	   ((void)0)
#define TAILCHK()		   ((void)0)
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

/* labels, one operation each (RFC 9669 §4.1: 32-bit results zero-extended) */
#define ALU_LABELS(op, name)                                                                       \
	alu64_##name##_k : DST = interp_alu64(op, DST, (uint64_t)(int64_t)IMM, ip->off);           \
	NEXT();                                                                                    \
	alu64_##name##_x : DST = interp_alu64(op, DST, SRC, ip->off);                              \
	NEXT();                                                                                    \
	alu32_##name##_k : DST = interp_alu32(op, (uint32_t)DST, (uint32_t)IMM, ip->off);          \
	NEXT();                                                                                    \
	alu32_##name##_x : DST = interp_alu32(op, (uint32_t)DST, (uint32_t)SRC, ip->off);          \
	NEXT();
#define JMP_LABELS(op, name)                                                                       \
	jmp_##name##_k : if (interp_jmp64(op, DST, (uint64_t)(int64_t)IMM)) JUMP(ip->off);         \
	NEXT();                                                                                    \
	jmp_##name##_x : if (interp_jmp64(op, DST, SRC)) JUMP(ip->off);                            \
	NEXT();                                                                                    \
	jmp32_##name##_k : if (interp_jmp32(op, (uint32_t)DST, (uint32_t)IMM)) JUMP(ip->off);      \
	NEXT();                                                                                    \
	jmp32_##name##_x : if (interp_jmp32(op, (uint32_t)DST, (uint32_t)SRC)) JUMP(ip->off);      \
	NEXT();
#define LDX_LABEL(name, mode, size, T, ET)                                                         \
	name : {                                                                                   \
		uint64_t a_ = SRC + (uint64_t)(int64_t)ip->off;                                    \
		LOADCHK(ip->src, a_, sizeof(T));                                                   \
		DST = (uint64_t)(ET)INTERP_LOADT(T, a_);                                           \
		NEXT();                                                                            \
	}
#define ST_LABEL(name, cls, size, T, V)                                                            \
	name : {                                                                                   \
		uint64_t a_ = DST + (uint64_t)(int64_t)ip->off;                                    \
		STORECHK(ip->dst, a_, sizeof(T));                                                  \
		STORETAINT(a_, sizeof(T));                                                         \
		INTERP_STORET(T, a_, V);                                                           \
		NEXT();                                                                            \
	}
#define ATOMIC_LABEL(name, fn, T)                                                                  \
	name : {                                                                                   \
		uint64_t a_ = DST + (uint64_t)(int64_t)ip->off;                                    \
		ATOMCHK(ip->dst, a_, sizeof(T));                                                   \
		STORETAINT(a_, sizeof(T));                                                         \
		if (!fn(a_, IMM, &SRC, &reg[0]))                                                   \
			STOP(a_, sizeof(T));                                                       \
		NEXT();                                                                            \
	}

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

/* Runs prog from ip in a new activation (the program, or a callback) until
 * its exit. One function with computed gotos so that each instruction costs
 * one indirect jump and the registers stay in this frame: its labels are
 * generated from the lists above and do one inline call each. */
static uint64_t interp_exec(struct interp_state *st, const struct bpfvm_prog *prog,
			    const struct bpfvm_insn *ip, uint64_t r1, uint64_t r2, uint64_t r3,
			    uint64_t r4, uint64_t r5)
{
	/* one line per group of entries */
	/* clang-format off */
	static const void *const tbl[256] = {
	    [0 ... 255] = &&op_invalid,
	    ALU_OPS(ALU_ENTRIES)
	    ALU_ENTRIES(BPF_MOV, mov)
	    [BPF_ALU64 | BPF_NEG] = &&alu64_neg,
	    [BPF_ALU | BPF_NEG] = &&alu32_neg,
	    [BPF_ALU | BPF_END | BPF_TO_LE] = &&end_le,
	    [BPF_ALU | BPF_END | BPF_TO_BE] = &&end_be,
	    [BPF_ALU64 | BPF_END] = &&end_be, /* bswap: unconditional swap */
	    JMP_OPS(JMP_ENTRIES)
	    [BPF_JMP | BPF_JA] = &&jmp_ja,
	    [BPF_JMP32 | BPF_JA] = &&jmp32_ja,
	    [BPF_JMP | BPF_CALL] = &&op_call,
	    [BPF_JMP | BPF_EXIT] = &&op_exit,
	    [BPF_LD | BPF_IMM | BPF_DW] = &&ld_imm64,
	    LDX_OPS(LDX_ENTRY)
	    ST_OPS(ST_ENTRY)
	    [BPF_STX | BPF_ATOMIC | BPF_W] = &&atomic_w,
	    [BPF_STX | BPF_ATOMIC | BPF_DW] = &&atomic_dw,
	};
	/* clang-format on */
	uint64_t reg[11];
	struct interp_frame frames[BPFVM_MAX_CALL_DEPTH];
	uint32_t nframes = 0;
#if INTERP_CHECKED
	struct interp_chk chk;
	chk.undef = st->depth == 0 ? 0 : INTERP_REGS_CALLBACK_UNDEF;
	chk.stackp = chk.stackp_after = 1u << 10;
	chk.fdep = chk.fdep_after = 0;
	if (st->oracle && st->depth < BPFVM_MAX_CALL_DEPTH)
		oracle_enter(st->oracle, &chk.otags, st->depth, (const uint64_t[]){r1, r2, r3, r4});
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
	reg[10] = interp_frame_top(st, st->depth);
	FRAME_ENTER();
	st->depth++;
	DISPATCH();

	ALU_OPS(ALU_LABELS)
alu64_mov_k:
	DST = (uint64_t)(int64_t)IMM;
	NEXT();
alu64_mov_x:
	DST = interp_movsx64(SRC, ip->off);
	NEXT();
alu32_mov_k:
	DST = (uint32_t)IMM;
	NEXT();
alu32_mov_x:
	DST = interp_movsx32(SRC, ip->off);
	NEXT();
alu64_neg:
	DST = 0 - DST;
	NEXT();
alu32_neg:
	DST = (uint32_t)(0 - (uint32_t)DST);
	NEXT();
end_le:
	DST = interp_endian_le(DST, IMM);
	NEXT();
end_be:
	DST = interp_endian_be(DST, IMM);
	NEXT();

	JMP_OPS(JMP_LABELS)
jmp_ja:
	JUMP(ip->off);
jmp32_ja:
	JUMP(IMM); /* gotol: the 32-bit offset lives in imm */

ld_imm64: /* RFC 9669 §5.4; map/func sources were relocated */
	DST = (uint64_t)(uint32_t)ip[0].imm | ((uint64_t)(uint32_t)ip[1].imm << 32);
	ip++;
	NEXT();
	LDX_OPS(LDX_LABEL)
	ST_OPS(ST_LABEL)
	ATOMIC_LABEL(atomic_w, interp_atomic32, uint32_t)
	ATOMIC_LABEL(atomic_dw, interp_atomic64, uint64_t)

op_call:
	if (ip->src == BPF_PSEUDO_CALL) {
		/* calls need no budget: without recursion (verified) or with
		 * the depth bounded, only back-edges and callbacks repeat */
		if (st->depth >= BPFVM_MAX_CALL_DEPTH)
			STOP(0, 0);
		interp_frame_push(st, &frames[nframes++], ip, prog, reg, CHK);
		ip += IMM;
		NEXT();
	}
	if (ip->src == 0 && IMM == BPF_HELPER_TAIL_CALL) {
		TAILCHK();
		const struct bpfvm_prog *t = interp_tail_target(st, reg);
		if (!t) {
			CLOBBER(INTERP_REGS_ARGS);
			NEXT();
		}
		prog = t;
		ip = t->insns;
		CLOBBER(0x03fd); /* the target starts with ctx in r1, nothing else */
		STACKP_RESET();
		DISPATCH();
	}
	{
		uint64_t bad;
		enum interp_helper_end end = interp_helper_call(st, prog, ip, reg, CHK, &bad);
		if (end == INTERP_HELPER_STOPPED) {
			st->depth--;
			return 0;
		}
		if (end == INTERP_HELPER_FAULT)
			STOP(bad, 0);
		NEXT();
	}

op_exit:
	if (nframes == 0) {
		st->depth--;
		return reg[0];
	}
	nframes--;
	interp_frame_pop(st, &frames[nframes], reg, CHK);
	ip = frames[nframes].ret;
	prog = frames[nframes].prog;
	NEXT();

op_invalid:
	STOP(0, 0);
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
