/* Shared by the JIT tests: load one program twice-usable (interpreter and
 * JIT image of the same struct bpfvm_prog) and run both engines on copies of
 * the same input memory, so r0 and memory effects can be compared. */
#ifndef SKOPS_TEST_BPFVM_JIT_ENGINES_H
#define SKOPS_TEST_BPFVM_JIT_ENGINES_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

struct jit_pair {
	uint64_t r0_interp, r0_jit;
	bool mem_equal;
	bool jited;
};

/* Constant blinding for jt_load: the blinded build of a test defines
 * JT_BLIND=1; a test may also flip it. */
#ifndef JT_BLIND
#define JT_BLIND 0
#endif
static bool jt_blind = JT_BLIND;

/* Load with jit=true; returns the program or NULL with log filled. */
static inline struct bpfvm_prog *jt_load(struct bpfvm_registry *reg, const struct bpfvm_insn *insns,
					 size_t n, struct bpfvm_map *const *maps, size_t nmaps,
					 bool no_verify, char *logbuf, size_t logsz)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = logsz};
	if (logsz)
		logbuf[0] = 0;
	struct bpfvm_load_opts o = {
	    .no_verify = no_verify, .jit = true, .jit_blind = jt_blind, .log = &log};
	struct bpfvm_prog *p = NULL;
	if (bpfvm_prog_load(reg, insns, n, maps, nmaps, &o, &p) != 0)
		return NULL;
	return p;
}

/* Run both engines on copies of mem; r1 = the copy, r2 = len. */
static inline struct jit_pair jt_run_both(const struct bpfvm_prog *p, const void *mem, size_t len)
{
	struct jit_pair r = {0};
	uint8_t a[4096], b[4096];
	ck_assert_uint_le(len, sizeof a);
	if (len) { /* mem may be NULL for len 0, which memcpy does not allow */
		memcpy(a, mem, len);
		memcpy(b, mem, len);
	}
	size_t jl = 0;
	r.jited = bpfvm_prog_jited(p, &jl) != NULL && jl > 0;
	r.r0_interp = bpfvm_prog_run_interp(p, len ? a : NULL, len);
	r.r0_jit = bpfvm_prog_run(p, len ? b : NULL, len);
	r.mem_equal = memcmp(a, b, len) == 0;
	return r;
}

#endif
