/* Static passes before the walk, on the facts the loader computed once
 * (insn_check.c: encoding and jump ranges; prog_facts.c: subprograms, jumps
 * staying inside them, no fall-through): constant operands, the control-flow
 * check (every insn reachable; back-edges are marked as loop heads for the
 * walk to prove bounded) and the call depth of the static call graph
 * (kernel: check_subprogs, check_cfg, check_max_stack_depth). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

/* The program facts (prog_facts.c) the loader computed; a program handed to
 * the verifier directly gets the loader's encoding check and facts here. */
static int ensure_facts(struct vrf_env *env)
{
	struct bpfvm_prog *prog = env->prog;
	struct bpfvm_insn_err e;
	int err = 0;
	if (prog->facts.built)
		return 0;
	err = bpfvm_insns_check(prog->insns, prog->ninsns, &e);
	if (!err)
		err = bpfvm_prog_facts_build(prog, &e);
	if (err == -EINVAL) {
		env->insn_idx = (int)e.pc;
		return vrf_err(env, err, "%s", e.why);
	}
	return err;
}

/* What the verifier refuses beyond the encoding: constant operands the
 * walk would otherwise have to fault on (kernel: check_alu_op). */
static int check_const_operand(struct vrf_env *env, int i, const struct bpfvm_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	int width = cls == BPF_ALU64 ? 64 : 32;
	if ((cls != BPF_ALU && cls != BPF_ALU64) || BPF_SRC(in->code) != BPF_K)
		return 0;
	env->insn_idx = i;
	if ((op == BPF_DIV || op == BPF_MOD) && in->imm == 0)
		return vrf_err(env, -EINVAL, "division by zero");
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && (in->imm < 0 || in->imm >= width))
		return vrf_err(env, -EINVAL, "invalid shift %d", in->imm);
	return 0;
}

int vrf_check_insns(struct vrf_env *env)
{
	if (env->n <= 0)
		return vrf_err(env, -EINVAL, "program has no instructions");
	if (env->n > BPFVM_MAX_INSNS)
		return vrf_err(env, -E2BIG, "program of %d insns is too large", env->n);
	int err = ensure_facts(env);
	if (err)
		return err;
	const struct bpfvm_insn_aux *aux = env->prog->aux;
	for (int i = 0; i < env->n; i++) {
		env->ia[i].ldimm_hi = aux[i].ldimm_hi;
		env->ia[i].cb_entry = aux[i].cb_entry;
		env->ia[i].subprog = (int)aux[i].subprog;
		if (aux[i].sub_start)
			env->sub[aux[i].subprog].start = i;
		if (!aux[i].ldimm_hi && env->insns[i].code == (BPF_JMP | BPF_CALL) &&
		    env->insns[i].src == 0 && env->insns[i].imm == BPF_HELPER_TAIL_CALL)
			env->sub[aux[i].subprog].tail_calls = true;
		if (!aux[i].ldimm_hi && (err = check_const_operand(env, i, &env->insns[i])))
			return err;
	}
	env->nsub = (int)env->prog->facts.nsub;
	for (int s = 0; s < env->nsub; s++)
		env->sub[s].end = s + 1 < env->nsub ? env->sub[s + 1].start : env->n;
	return 0;
}

/* Successors of insn i: up to two; returns the count. */
static int succs(struct vrf_env *env, int i, int out[3])
{
	const struct bpfvm_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code);
	int n = 0;
	if (bpfvm_insn_is_ldimm64(in)) {
		out[n++] = i + 2;
		if (in->src == BPF_PSEUDO_FUNC)
			out[n++] = in->imm;
		return n;
	}
	if (cls != BPF_JMP && cls != BPF_JMP32) {
		out[n++] = i + 1;
		return n;
	}
	uint8_t op = BPF_OP(in->code);
	if (op == BPF_EXIT)
		return 0;
	if (op == BPF_CALL) {
		out[n++] = i + 1;
		if (in->src == BPF_PSEUDO_CALL)
			out[n++] = i + in->imm + 1;
		return n;
	}
	/* in range, not into an ld_imm64, inside its subprogram: prog_facts.c */
	int t = i + (int)bpfvm_insn_jump_off(in) + 1;
	out[n++] = (int)t;
	env->ia[t].prune = 1;
	if (op != BPF_JA) {
		out[n++] = i + 1;
		env->ia[i + 1 < env->n ? i + 1 : i].prune = 1;
	}
	return n;
}

static bool is_call_edge(struct vrf_env *env, int from, int to)
{
	return env->ia[to].subprog != env->ia[from].subprog ||
	       to == env->sub[env->ia[to].subprog].start;
}

/* Iterative DFS over the CFG: 1 = on the DFS path, 2 = done. */
int vrf_check_cfg(struct vrf_env *env)
{
	int n = env->n, err = 0;
	uint8_t *color = calloc((size_t)n, 1);
	int *stk = malloc((size_t)n * sizeof(int));
	int *edge = calloc((size_t)n, sizeof(int));
	if (!color || !stk || !edge) {
		err = -ENOMEM;
		goto out;
	}
	if (env->prog->facts.flaw_pc >= 0) {
		env->insn_idx = (int)env->prog->facts.flaw_pc;
		err = vrf_err(env, -EINVAL, "%s", env->prog->facts.flaw);
		goto out;
	}
	for (int s = 0; s < env->nsub; s++)
		env->ia[env->sub[s].start].prune = 1;
	int sp = 0;
	stk[sp++] = 0;
	color[0] = 1;
	while (sp) {
		int i = stk[sp - 1];
		int out[3];
		env->insn_idx = i;
		int ns = succs(env, i, out);
		if (ns < 0) {
			err = ns;
			goto out;
		}
		if (edge[i] < ns) {
			int t = out[edge[i]++];
			if (t >= n) {
				err = vrf_err(env, -EINVAL,
					      "falls through off the end of the program");
				goto out;
			}
			if (color[t] == 0) {
				color[t] = 1;
				stk[sp++] = t;
			} else if (color[t] == 1 && !is_call_edge(env, i, t)) {
				env->ia[t].prune =
				    1; /* loop head: the walk must prove it bounded */
			}
			continue;
		}
		color[i] = 2;
		sp--;
	}
	for (int i = 0; i < n; i++) {
		if (!color[i] && !env->ia[i].ldimm_hi) {
			env->insn_idx = i;
			err = vrf_err(env, -EINVAL, "unreachable insn %d", i);
			goto out;
		}
	}
	/* call depth over the static call graph; callbacks run a frame deeper */
	int *depth = color ? (int *)edge : NULL;
	memset(depth, 0, (size_t)n * sizeof(int));
	memset(color, 0, (size_t)n);
	/* DFS over subprogs with an explicit stack of (subprog, next insn) */
	int *sstk = stk, *spos = malloc((size_t)(env->nsub + 1) * sizeof(int));
	if (!spos) {
		err = -ENOMEM;
		goto out;
	}
	sp = 0;
	sstk[sp] = 0;
	spos[sp++] = env->sub[0].start;
	color[0] = 1;
	while (sp && !err) {
		int s = sstk[sp - 1];
		int i = spos[sp - 1];
		if (i >= env->sub[s].end) {
			color[s] = 2;
			sp--;
			continue;
		}
		spos[sp - 1] = i + 1;
		const struct bpfvm_insn *in = &env->insns[i];
		bool pcall = in->code == (BPF_JMP | BPF_CALL) && in->src == BPF_PSEUDO_CALL;
		bool pfunc =
		    bpfvm_insn_is_ldimm64(in) && in->src == BPF_PSEUDO_FUNC && !env->ia[i].ldimm_hi;
		if (!pcall && !pfunc)
			continue;
		int t = env->ia[pfunc ? in->imm : i + in->imm + 1].subprog;
		if (color[t] == 1) {
			env->insn_idx = i;
			err = vrf_err(env, -EINVAL,
				      "recursive call from insn %d to subprogram at insn %d", i,
				      env->sub[t].start);
			break;
		}
		if (sp + 1 > BPFVM_MAX_CALL_DEPTH) {
			env->insn_idx = i;
			err =
			    vrf_err(env, -E2BIG, "the call stack of %d frames is too deep (max %d)",
				    sp + 1, BPFVM_MAX_CALL_DEPTH);
			break;
		}
		if (color[t] == 2 && depth[t] + sp <= BPFVM_MAX_CALL_DEPTH)
			continue;
		color[t] = 1;
		sstk[sp] = t;
		spos[sp++] = env->sub[t].start;
		for (int k = 0; k < sp; k++)
			if (depth[sstk[k]] < sp - k)
				depth[sstk[k]] = sp - k;
	}
	free(spos);
out:
	free(color);
	free(stk);
	free(edge);
	return err;
}
