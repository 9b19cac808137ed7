/* Static passes before the walk: instruction encoding (RFC 9669 §3-§5,
 * reserved fields zero), subprogram discovery, the control-flow check (jumps
 * in range and inside their subprogram, never into the second half of an
 * ld_imm64, every insn reachable, no fall-through off the end; back-edges are
 * marked as loop heads for the walk to prove bounded) and the call depth of
 * the static call graph (kernel: check_subprogs, check_cfg, check_max_stack_depth). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

static int bad(struct vrf_env *env, int i, const char *what)
{
	env->insn_idx = i;
	return vrf_err(env, -EINVAL, "%s", what);
}

static int check_alu(struct vrf_env *env, int i, const struct bpfvm_insn *in)
{
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	int width = is64 ? 64 : 32;

	if (op == BPF_END) {
		if (is64 && x)
			return bad(env, i, "invalid bswap: source bit set");
		if (in->src || in->off || (in->imm != 16 && in->imm != 32 && in->imm != 64))
			return bad(env, i, "invalid byte swap: reserved fields or width");
		return 0;
	}
	if (op == BPF_NEG) {
		if (x || in->src || in->off || in->imm)
			return bad(env, i, "BPF_NEG uses reserved fields");
		return 0;
	}
	if (op > BPF_END)
		return vrf_err(env, -EINVAL, "invalid BPF_ALU opcode 0x%02x", in->code);
	if (x) {
		if (in->imm)
			return bad(env, i, "BPF_ALU uses reserved fields");
	} else if (in->src) {
		return bad(env, i, "BPF_ALU uses reserved fields");
	}
	if (in->off) {
		bool sdiv = (op == BPF_DIV || op == BPF_MOD) && in->off == 1;
		bool movsx = op == BPF_MOV && x &&
			     (in->off == 8 || in->off == 16 || (is64 && in->off == 32));
		if (!sdiv && !movsx)
			return bad(env, i, "BPF_ALU uses reserved fields");
	}
	if (!x && (op == BPF_DIV || op == BPF_MOD) && in->imm == 0)
		return bad(env, i, "division by zero");
	if (!x && (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
	    (in->imm < 0 || in->imm >= width)) {
		env->insn_idx = i;
		return vrf_err(env, -EINVAL, "invalid shift %d", in->imm);
	}
	return 0;
}

static int check_jmp(struct vrf_env *env, int i, const struct bpfvm_insn *in)
{
	uint8_t op = BPF_OP(in->code);
	bool j32 = BPF_CLASS(in->code) == BPF_JMP32;

	switch (op) {
	case BPF_JA:
		if (BPF_SRC(in->code) || in->src || in->dst || (j32 ? in->off : in->imm))
			return bad(env, i, "BPF_JA uses reserved fields");
		return 0;
	case BPF_CALL:
		if (j32 || BPF_SRC(in->code) || in->off || in->dst)
			return bad(env, i, "BPF_CALL uses reserved fields");
		if (in->src != 0 && in->src != BPF_PSEUDO_CALL)
			return bad(env, i, "unsupported call kind (kfuncs are not available)");
		return 0;
	case BPF_EXIT:
		if (j32 || BPF_SRC(in->code) || in->src || in->dst || in->off || in->imm)
			return bad(env, i, "BPF_EXIT uses reserved fields");
		return 0;
	case 0xe0:
	case 0xf0:
		return vrf_err(env, -EINVAL, "unknown opcode 0x%02x", in->code);
	default:
		if (BPF_SRC(in->code) == BPF_X ? in->imm != 0 : in->src != 0)
			return bad(env, i, "BPF_JMP uses reserved fields");
		return 0;
	}
}

static int check_one(struct vrf_env *env, int i)
{
	const struct bpfvm_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code);
	uint8_t mode = BPF_MODE(in->code);

	env->insn_idx = i;
	if (in->dst > 10 || in->src > 10) {
		if (!(bpfvm_insn_is_ldimm64(in) && in->dst <= 10))
			return vrf_err(env, -EINVAL, "invalid register R%u",
				       in->dst > 10 ? in->dst : in->src);
	}
	switch (cls) {
	case BPF_LD:
		if (mode == BPF_ABS || mode == BPF_IND)
			return vrf_err(env, -EINVAL,
				       "BPF_LD_[ABS|IND] not allowed for this program type");
		if (!bpfvm_insn_is_ldimm64(in))
			return vrf_err(env, -EINVAL, "unknown opcode 0x%02x", in->code);
		if (in->off)
			return bad(env, i, "invalid ld_imm64: reserved fields set");
		if (i + 1 >= env->n)
			return bad(env, i, "invalid ld_imm64: missing second half");
		{
			const struct bpfvm_insn *hi = &in[1];
			if (hi->code || hi->dst || hi->src || hi->off)
				return bad(env, i, "invalid ld_imm64: bad second half");
		}
		if (in->src != 0 && in->src != BPF_PSEUDO_MAP_FD &&
		    in->src != BPF_PSEUDO_MAP_VALUE && in->src != BPF_PSEUDO_FUNC)
			return vrf_err(env, -EINVAL, "invalid ld_imm64 src %u", in->src);
		if (in->src == BPF_PSEUDO_FUNC && in[1].imm)
			return bad(env, i, "invalid ld_imm64 func: second imm set");
		env->ia[i + 1].ldimm_hi = 1;
		return 0;
	case BPF_LDX:
		if ((mode != BPF_MEM && mode != BPF_MEMSX) ||
		    (mode == BPF_MEMSX && BPF_SIZE(in->code) == BPF_DW))
			return vrf_err(env, -EINVAL, "unknown opcode 0x%02x", in->code);
		if (in->imm)
			return bad(env, i, "BPF_LDX uses reserved fields");
		return 0;
	case BPF_ST:
		if (mode != BPF_MEM)
			return vrf_err(env, -EINVAL, "unknown opcode 0x%02x", in->code);
		if (in->src)
			return bad(env, i, "BPF_ST uses reserved fields");
		return 0;
	case BPF_STX:
		if (mode == BPF_MEM) {
			if (in->imm)
				return bad(env, i, "BPF_STX uses reserved fields");
			return 0;
		}
		if (mode != BPF_ATOMIC)
			return vrf_err(env, -EINVAL, "unknown opcode 0x%02x", in->code);
		if (BPF_SIZE(in->code) != BPF_W && BPF_SIZE(in->code) != BPF_DW)
			return bad(env, i, "invalid atomic operand size");
		if (!bpfvm_atomic_op_valid(in->imm))
			return vrf_err(env, -EINVAL, "BPF_ATOMIC uses invalid atomic opcode 0x%02x",
				       (unsigned)in->imm & 0xff);
		return 0;
	case BPF_ALU:
	case BPF_ALU64:
		return check_alu(env, i, in);
	default:
		return check_jmp(env, i, in);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int vrf_check_insns(struct vrf_env *env)
{
	if (env->n <= 0)
		return vrf_err(env, -EINVAL, "program has no instructions");
	if (env->n > BPFVM_MAX_INSNS)
		return vrf_err(env, -E2BIG, "program of %d insns is too large", env->n);
	for (int i = 0; i < env->n; i++) {
		if (env->ia[i].ldimm_hi)
			continue;
		int err = check_one(env, i);
		if (err)
			return err;
	}
	/* subprogram starts: insn 0, call targets, callback addresses */
	int *starts = malloc(((size_t)env->n + 1) * sizeof(int));
	if (!starts)
		return -ENOMEM;
	int ns = 0;
	starts[ns++] = 0;
	for (int i = 0; i < env->n; i++) {
		const struct bpfvm_insn *in = &env->insns[i];
		if (env->ia[i].ldimm_hi)
			continue;
		bool pcall = in->code == (BPF_JMP | BPF_CALL) && in->src == BPF_PSEUDO_CALL;
		bool pfunc = bpfvm_insn_is_ldimm64(in) && in->src == BPF_PSEUDO_FUNC;
		if (!pcall && !pfunc)
			continue;
		/* relocated callbacks carry the absolute insn index */
		int64_t t = pfunc ? (int64_t)in->imm : (int64_t)i + in->imm + 1;
		if (t < 0 || t >= env->n || env->ia[t].ldimm_hi) {
			free(starts);
			env->insn_idx = i;
			return vrf_err(env, -EINVAL, "call to invalid destination %lld",
				       (long long)t);
		}
		starts[ns++] = (int)t;
		if (pfunc)
			env->ia[t].cb_entry = 1;
	}
	qsort(starts, (size_t)ns, sizeof(int), cmp_int);
	env->nsub = 0;
	for (int k = 0; k < ns; k++) {
		if (k && starts[k] == starts[k - 1])
			continue;
		env->sub[env->nsub++].start = starts[k];
	}
	free(starts);
	for (int s = 0; s < env->nsub; s++) {
		env->sub[s].end = s + 1 < env->nsub ? env->sub[s + 1].start : env->n;
		for (int i = env->sub[s].start; i < env->sub[s].end; i++)
			env->ia[i].subprog = s;
	}
	return 0;
}

/* Successors of insn i: up to two; returns count, or <0 on a bad edge. */
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
	int64_t off = (cls == BPF_JMP32 && op == BPF_JA) ? in->imm : in->off;
	int64_t t = (int64_t)i + off + 1;
	if (t < 0 || t >= env->n)
		return vrf_err(env, -EINVAL, "jump out of range from insn %d to %lld", i,
			       (long long)t);
	if (env->ia[t].ldimm_hi)
		return vrf_err(env, -EINVAL, "jump into the middle of ld_imm64 at insn %lld",
			       (long long)t);
	if (env->ia[t].subprog != env->ia[i].subprog)
		return vrf_err(env, -EINVAL, "jump out of subprogram from insn %d to %lld", i,
			       (long long)t);
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
	for (int s = 0; s < env->nsub; s++) {
		int last = env->sub[s].end - 1;
		if (env->ia[last].ldimm_hi)
			last--;
		const struct bpfvm_insn *in = &env->insns[last];
		if (!bpfvm_insn_ends_flow(in)) {
			env->insn_idx = last;
			err =
			    vrf_err(env, -EINVAL,
				    s + 1 < env->nsub ? "falls through into the next subprogram"
						      : "falls through off the end of the program");
			goto out;
		}
		env->ia[env->sub[s].start].prune = 1;
	}
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
