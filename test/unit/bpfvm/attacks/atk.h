/* Attack harness (the attacks found by an attacker reading the source,
 * kept as regression tests: exit 0 when the attack holds, 1 when it works,
 * 2 on a harness error): load a program as the verifier
 * sees it (vt_type, unprivileged, strict off), then run it on the
 * interpreter, the oracle and the JIT and print what each did. */
#ifndef SKOPS_ATK_H
#define SKOPS_ATK_H
#include <inttypes.h>
#include "isa_insn.h"
#include "vrf_test_util.h"

static char atk_log[1 << 16];

static int atk_load(struct bpfvm_registry *reg, const struct bpfvm_prog_type *type,
		    const struct bpfvm_insn *in, size_t n, struct bpfvm_map *const *maps,
		    size_t nmaps, bool jit, struct bpfvm_prog **out)
{
	atk_log[0] = 0;
	struct bpfvm_log log = {.level = 1, .buf = atk_log, .size = sizeof atk_log};
	struct bpfvm_load_opts o = {.type = type, .jit = jit, .log = &log};
	return bpfvm_prog_load(reg, in, n, maps, nmaps, &o, out);
}

/* returns 1 when the oracle saw a violation or the engines disagree */
__attribute__((unused)) static int atk_run(const char *name, struct bpfvm_registry *reg,
					   const struct bpfvm_prog_type *type,
					   const struct bpfvm_insn *in, size_t n,
					   struct bpfvm_map *const *maps, size_t nmaps, void *ctx,
					   size_t ctxlen)
{
	struct bpfvm_prog *pi = NULL, *pj = NULL;
	int err = atk_load(reg, type, in, n, maps, nmaps, false, &pi);
	printf("== %s: verifier %s (%d)\n", name, err ? "REFUSED" : "accepted", err);
	if (err) {
		const char *l = atk_log + strlen(atk_log);
		int nl = 0;
		while (l > atk_log && nl < 3)
			if (*--l == '\n')
				nl++;
		printf("   log tail: %s\n", l);
		return 0;
	}
	struct bpfvm_oracle_report rep;
	uint64_t ro = bpfvm_prog_run_oracle(pi, ctx, ctxlen, &rep);
	printf("   oracle: r0=%#" PRIx64 " violation=%d pc=%" PRId64 " %s\n", ro, rep.violation,
	       rep.pc, rep.why);
	int64_t stop;
	uint64_t rc = bpfvm_prog_run_checked(pi, ctx, ctxlen, &stop);
	printf("   checked: r0=%#" PRIx64 " stop_pc=%" PRId64 "\n", rc, stop);
	uint64_t r0i = bpfvm_prog_run(pi, ctx, ctxlen);
	printf("   interp: r0=%#" PRIx64 "\n", r0i);
	int bad = rep.violation || stop != -1;
	if (atk_load(reg, type, in, n, maps, nmaps, true, &pj) == 0) {
		size_t jl = 0;
		bpfvm_prog_jited(pj, &jl);
		uint64_t r0j = bpfvm_prog_run(pj, ctx, ctxlen);
		printf("   jit(%zu bytes): r0=%#" PRIx64 "%s\n", jl, r0j,
		       r0j != r0i ? "  <-- DISAGREES with interp" : "");
		bad |= r0j != r0i;
		bpfvm_prog_put(pj);
	}
	bpfvm_prog_put(pi);
	return bad;
}
#endif
