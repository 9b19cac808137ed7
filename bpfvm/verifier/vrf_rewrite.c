/* Facts recorded for later passes once the program is proven: the ctx field
 * each ctx access touches (aux[].ctx_field; hooks fills only the fields in
 * prog->ctx_fields), the 32-bit results whose upper half the JIT must clear,
 * and the deepest stack frame. Nothing is rewritten in place: the JIT and
 * interpreter run the insns as loaded. */
#include <errno.h>

#include "vrf_int.h"

int vrf_record_ctx_field(struct vrf_env *env, int insn, int field)
{
	struct bpfvm_insn_aux *a = &env->prog->aux[insn];
	if (env->prog->type->nr_fields && (uint32_t)field >= env->prog->type->nr_fields)
		return vrf_err(env, -EINVAL, "ctx field %d out of the type's %u fields", field,
			       env->prog->type->nr_fields);
	/* clang's loops over ctx arrays (args[i]) reach several fields through
	 * one insn; aux keeps the first, ctx_fields gets every one. Nothing
	 * rewrites ctx accesses, so no single field is needed. */
	if (a->ctx_field < 0)
		a->ctx_field = (int16_t)field;
	return 0;
}

void vrf_mark_zext(struct vrf_env *env, int insn)
{
	env->prog->aux[insn].zext_dst = 1;
}

int vrf_finish(struct vrf_env *env)
{
	uint32_t depth = 0;
	for (int s = 0; s < env->nsub; s++)
		if (env->sub[s].stack_depth > depth)
			depth = env->sub[s].stack_depth;
	env->prog->stack_depth = (depth + 7) & ~7u;
	/* A tail call runs another program on this ctx, which reads what it
	 * likes: the caller must find every field filled, not only its own
	 * (the issue 25 review read stale stack through ctx->sk). */
	for (size_t i = 0; i < env->prog->ninsns; i++) {
		const struct bpfvm_insn *in = &env->prog->insns[i];
		if (in->code == (BPF_JMP | BPF_CALL) && in->src == 0 &&
		    in->imm == BPF_HELPER_TAIL_CALL && env->prog->aux[i].seen)
			env->prog->ctx_fields = UINT64_MAX;
	}
	return 0;
}
