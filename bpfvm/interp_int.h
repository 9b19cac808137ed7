/* The interpreter's run state, shared by interp.c and the headers it is built
 * from (interp_alu.h, interp_mem.h, interp_call.h, interp_checks.h). Those
 * headers hold static inline bodies of instruction classes so that the
 * dispatch loop in interp.c stays one function the compiler inlines them
 * into; interp.c is built twice (plain and BPFVM_CHECKED), so nothing here
 * has external linkage. Include only from interp.c. */
#ifndef SKOPS_BPFVM_INTERP_INT_H
#define SKOPS_BPFVM_INTERP_INT_H

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

/* the bodies are inlined into the dispatch loop with constant operations,
 * so each label compiles to the one operation it names */
#define INTERP_INLINE static inline __attribute__((always_inline))

#define INTERP_REGS_ARGS	   0x003eu /* r1-r5: caller-saved, clobbered by any call */
#define INTERP_REGS_CALLBACK_UNDEF 0x03e1u /* r0, r5-r9 at a callback's entry */

struct interp_frame {
	const struct bpfvm_insn *ret; /* the call insn */
	const struct bpfvm_prog *prog;
	uint64_t saved[4]; /* R6..R9, callee-saved (RFC 9669 §2.3 convention) */
	uint64_t fp;
	uint16_t undef;	 /* checked runs: the caller's undefined registers */
	uint16_t stackp; /* checked runs: the caller's frame-derived registers */
	uint16_t fdep;	 /* checked runs: the caller's frame-dependent registers */
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
#define INTERP_SH_FDEP	0x02u  /* written, part of a frame-dependent value (interp_fdep.h) */
#define INTERP_SH_SPILL 0x04u  /* written, first byte of an 8-byte spill of a frame pointer */
	struct oracle *oracle; /* oracle runs (oracle.c), else NULL */
#endif
};

/* What a checked run knows about the registers of one activation of
 * interp_exec; plain runs pass NULL where this is asked for. */
struct interp_chk {
	/* Registers holding no defined value: reading one stops the run. The
	 * engines agree on zeroed registers at the program's entry, but not on
	 * what r1-r5 hold after a call, nor on r0 and r5-r9 in a callback. */
	uint16_t undef;
	/* frame-derived registers before this insn, and after it (see
	 * interp_insn_stackp): the checks of an insn use its operands' state */
	uint16_t stackp, stackp_after;
	/* registers whose value depends on a frame's address otherwise than as
	 * a tracked frame pointer, before and after this insn (interp_fdep.h) */
	uint16_t fdep, fdep_after;
#if INTERP_CHECKED
	struct oracle_regs otags; /* oracle runs: what each register holds */
#endif
};

static inline uint64_t interp_frame_top(const struct interp_state *st, uint32_t d)
{
	return (uint64_t)(uintptr_t)(st->stack +
				     (size_t)(BPFVM_MAX_CALL_DEPTH - d) * BPFVM_STACK_SIZE);
}

#endif
