/* Per-program facts computed once at load, after the encoding check and
 * relocation: the ld_imm64 second slots, the subprograms (insn 0, every
 * bpf-to-bpf call target and every callback address, as the kernel's
 * check_subprogs), the jump targets, and the structural flaws a verified
 * program cannot have. The verifier, the JIT and the interpreter read them
 * from prog->aux and prog->facts instead of rediscovering them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

/* Absolute insn index a relocated ld_imm64 BPF_PSEUDO_FUNC loads. */
static uint64_t callback_addr(const struct bpfvm_insn *in)
{
	return (uint64_t)(uint32_t)in[0].imm | (uint64_t)(uint32_t)in[1].imm << 32;
}

static void flaw(struct bpfvm_prog_facts *f, size_t pc, const char *fmt, ...)
{
	if (f->flaw_pc >= 0)
		return; /* the first one is reported */
	va_list ap;
	f->flaw_pc = (int64_t)pc;
	va_start(ap, fmt);
	vsnprintf(f->flaw, sizeof f->flaw, fmt, ap);
	va_end(ap);
}

/* Subprogram starts, callbacks, calls; -EINVAL for a callback outside. */
static int mark_starts(struct bpfvm_prog *prog, struct bpfvm_insn_err *e)
{
	const struct bpfvm_insn *insns = prog->insns;
	struct bpfvm_insn_aux *aux = prog->aux;
	size_t n = prog->ninsns;
	aux[0].sub_start = 1;
	for (size_t pc = 0; pc < n; pc++) {
		const struct bpfvm_insn *in = &insns[pc];
		if (aux[pc].ldimm_hi)
			continue;
		if (bpfvm_insn_is_ldimm64(in) && in->src == BPF_PSEUDO_FUNC) {
			uint64_t t = callback_addr(in);
			if (t >= n || aux[t].ldimm_hi) {
				e->pc = pc;
				snprintf(e->why, sizeof e->why, "call to invalid destination %llu",
					 (unsigned long long)t);
				return -EINVAL;
			}
			aux[t].sub_start = aux[t].cb_entry = 1;
			prog->facts.callbacks = true;
		} else if (in->code == (BPF_JMP | BPF_CALL)) {
			prog->facts.calls = true;
			if (in->src == BPF_PSEUDO_CALL) /* in range: bpfvm_insns_check */
				aux[(int64_t)pc + in->imm + 1].sub_start = 1;
		}
	}
	return 0;
}

int bpfvm_prog_facts_build(struct bpfvm_prog *prog, struct bpfvm_insn_err *e)
{
	size_t n = prog->ninsns;
	struct bpfvm_prog_facts *f = &prog->facts;
	if (!prog->aux) {
		prog->aux = calloc(n ? n : 1, sizeof(*prog->aux));
		if (!prog->aux)
			return -ENOMEM;
	} else {
		memset(prog->aux, 0, n * sizeof(*prog->aux));
	}
	memset(f, 0, sizeof(*f));
	f->flaw_pc = -1;
	struct bpfvm_insn_aux *aux = prog->aux;
	const struct bpfvm_insn *insns = prog->insns;
	for (size_t pc = 0; pc < n; pc++) {
		aux[pc].ctx_field = -1;
		if (bpfvm_insn_is_ldimm64(&insns[pc]) && pc + 1 < n) {
			aux[pc + 1].ctx_field = -1;
			aux[++pc].ldimm_hi = 1;
		}
	}
	int err = mark_starts(prog, e);
	if (err)
		return err;
	for (size_t pc = 0; pc < n; pc++) {
		if (aux[pc].sub_start && pc)
			f->nsub++;
		aux[pc].subprog = f->nsub;
	}
	f->nsub++;
	/* a subprogram's last insn (skipping an ld_imm64's data) ends its flow */
	for (size_t pc = 0; pc < n; pc++) {
		if (pc + 1 < n && !aux[pc + 1].sub_start)
			continue;
		size_t last = aux[pc].ldimm_hi ? pc - 1 : pc;
		if (!bpfvm_insn_ends_flow(&insns[last]))
			flaw(f, last,
			     pc + 1 < n ? "falls through into the next subprogram"
					: "falls through off the end of the program");
	}
	for (size_t pc = 0; pc < n; pc++) {
		if (aux[pc].ldimm_hi || !bpfvm_insn_is_jump(&insns[pc]))
			continue;
		int64_t t = (int64_t)pc + bpfvm_insn_jump_off(&insns[pc]) + 1;
		aux[t].jump_target = 1; /* in range: bpfvm_insns_check */
		if (t <= (int64_t)pc)
			f->backedge = true;
		if (aux[t].subprog != aux[pc].subprog)
			flaw(f, pc, "jump out of subprogram from insn %zu to %lld", pc,
			     (long long)t);
	}
	f->built = true;
	return 0;
}
