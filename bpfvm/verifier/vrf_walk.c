/* The path walk (the kernel's do_check): one abstract state at a time from
 * insn 0, pending branches queued, every insn checked by its class. Bounded
 * loops are walked like straight code: each back-edge meets a loop-head
 * checkpoint, and the walk ends by pruning, an "infinite loop" verdict, or
 * the processed-insn limit (BPFVM_MAX_INSNS, -E2BIG). */
#include <errno.h>

#include "vrf_int.h"

static int init_state(struct vrf_env *env)
{
	env->cur = vrf_state_new();
	if (!env->cur)
		return -ENOMEM;
	struct vrf_reg *regs = env->cur->frames[0]->regs;
	vrf_mark_ptr(&regs[1], VRF_PTR_CTX);
	vrf_mark_ptr(&regs[VRF_FP], VRF_PTR_STACK);
	return 0;
}

static int step(struct vrf_env *env, int idx, int *next, bool *end)
{
	const struct bpfvm_insn *in = &env->insns[idx];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	*next = idx + 1;
	*end = false;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		return vrf_check_alu(env, in);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return vrf_check_mem(env, in);
	case BPF_LD:
		*next = idx + 2;
		env->prog->aux[idx + 1].seen = 1;
		return vrf_check_ld_imm64(env, in);
	default:
		break;
	}
	env->jmps++;
	if (op == BPF_JA) {
		*next = idx + 1 + (cls == BPF_JMP32 ? in->imm : in->off);
		return 0;
	}
	if (op == BPF_CALL)
		return vrf_check_call(env, in, next);
	if (op == BPF_EXIT)
		return vrf_check_exit(env, next, end);
	int err = vrf_check_cond_jmp(env, in, next);
	if (!err && *next < 0)
		*end = true;
	return err;
}

int vrf_do_check(struct vrf_env *env)
{
	int err = init_state(env);
	if (err)
		return err;
	int idx = 0, prev = -1;
	bool verbose = env->log && env->log->level >= 2;

	for (;;) {
		env->insn_idx = idx;
		env->prev_insn_idx = prev;
		if (++env->processed > BPFVM_MAX_INSNS)
			return vrf_err(env, -E2BIG, "BPF program is too large. Processed %llu insn",
				       (unsigned long long)env->processed);
		bool end = false;
		int next = idx;
		err = vrf_is_state_visited(env, idx);
		if (err < 0)
			return err;
		if (err == 1) {
			if (verbose)
				bpfvm_log_printf(env->log, "%d: safe\n", idx);
			end = true;
		} else {
			env->prog->aux[idx].seen = 1;
			if (verbose)
				vrf_log_insn(env, idx);
			int frame = env->cur->curframe, npending = env->npending;
			env->acc_sframe = env->acc_slot = -1;
			err = step(env, idx, &next, &end);
			if (err)
				return err;
			/* recorded in the frame the insn ran in (calls and exits
			 * change it), on this path and on every one the insn
			 * queued: a branch refines the queued side too */
			err = vrf_trace_add(env->cur, idx, frame, env->acc_sframe, env->acc_slot);
			for (int i = npending; !err && i < env->npending; i++)
				err = vrf_trace_add(env->stack[i].st, idx, frame, env->acc_sframe,
						    env->acc_slot);
			if (err)
				return err;
		}
		if (!end) {
			prev = idx;
			idx = next;
			continue;
		}
		vrf_update_branch_counts(env, env->cur->parent);
		if (vrf_pop(env, &idx, &prev))
			break;
		if (verbose) {
			bpfvm_log_printf(env->log, "from %d to %d: ", prev, idx);
			vrf_log_state(env);
		}
	}
	return 0;
}
