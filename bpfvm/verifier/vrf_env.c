/* Verifier env: per-insn aux, the state of the path being walked, the queue
 * of pending branch states and the checkpoints kept for pruning. Mirrors the
 * kernel's push_stack/pop_stack (kernel/bpf/verifier.c) in our own terms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

struct vrf_state *vrf_state_new(void)
{
	struct vrf_state *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->frames[0] = calloc(1, sizeof(struct vrf_frame));
	if (!st->frames[0]) {
		free(st);
		return NULL;
	}
	st->frames[0]->callsite = -1;
	st->branches = 1;
	return st;
}

void vrf_state_free(struct vrf_state *st)
{
	if (!st)
		return;
	for (int i = 0; i < VRF_MAX_FRAMES; i++)
		free(st->frames[i]);
	free(st->trace);
	free(st);
}

/* Deep copy; dst keeps its own frame allocations where it can. The pruning
 * links (parent, branches) travel with the copy; callers adjust them. */
int vrf_state_copy(struct vrf_state *dst, const struct vrf_state *src)
{
	for (int i = 0; i < VRF_MAX_FRAMES; i++) {
		if (i <= src->curframe) {
			if (!dst->frames[i]) {
				dst->frames[i] = malloc(sizeof(struct vrf_frame));
				if (!dst->frames[i])
					return -ENOMEM;
			}
			memcpy(dst->frames[i], src->frames[i], sizeof(struct vrf_frame));
		} else if (dst->frames[i]) {
			free(dst->frames[i]);
			dst->frames[i] = NULL;
		}
	}
	if (src->ntrace > dst->captrace) {
		struct vrf_trace *t = realloc(dst->trace, (size_t)src->ntrace * sizeof(*t));
		if (!t)
			return -ENOMEM;
		dst->trace = t;
		dst->captrace = src->ntrace;
	}
	if (src->ntrace)
		memcpy(dst->trace, src->trace, (size_t)src->ntrace * sizeof(*dst->trace));
	dst->ntrace = src->ntrace;
	dst->trace_lost = src->trace_lost;
	dst->all_precise = src->all_precise;
	dst->curframe = src->curframe;
	memcpy(dst->refs, src->refs, sizeof(dst->refs));
	memcpy(dst->ref_insn, src->ref_insn, sizeof(dst->ref_insn));
	dst->nrefs = src->nrefs;
	dst->lock_map = src->lock_map;
	dst->lock_off = src->lock_off;
	dst->lock_id = src->lock_id;
	dst->parent = src->parent;
	dst->branches = src->branches;
	dst->insn_idx = src->insn_idx;
	dst->next_at_insn = NULL;
	return 0;
}

int vrf_env_init(struct vrf_env *env, struct bpfvm_prog *prog, struct bpfvm_log *log)
{
	memset(env, 0, sizeof(*env));
	env->prog = prog;
	env->insns = prog->insns;
	env->n = (int)prog->ninsns;
	env->log = log;
	env->next_id = 1;
	env->ia = calloc((size_t)env->n + 1, sizeof(*env->ia));
	env->sub = calloc((size_t)env->n + 1, sizeof(*env->sub));
	if (!env->ia || !env->sub)
		return -ENOMEM;
	return 0;
}

void vrf_env_fini(struct vrf_env *env)
{
	for (int i = 0; i < env->npending; i++)
		vrf_state_free(env->stack[i].st);
	free(env->stack);
	for (int i = 0; i < env->nall; i++)
		vrf_state_free(env->all[i]);
	free(env->all);
	vrf_state_free(env->cur);
	free(env->ia);
	free(env->sub);
	bpfvm_btf_fini(&env->btf);
	memset(env, 0, sizeof(*env));
}

/* Queue the other side of a branch: a copy of the current state that resumes
 * at insn. Its checkpoint parent gains a pending branch. */
int vrf_push(struct vrf_env *env, int insn, int prev, struct vrf_state **out)
{
	if (env->npending >= VRF_MAX_PENDING)
		return vrf_err(env, -E2BIG, "the sequence of %d jumps is too complex",
			       env->npending);
	if (env->npending == env->cap_pending) {
		int cap = env->cap_pending ? env->cap_pending * 2 : 64;
		struct vrf_pending *p = realloc(env->stack, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		env->stack = p;
		env->cap_pending = cap;
	}
	struct vrf_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	int err = vrf_state_copy(st, env->cur);
	if (err) {
		vrf_state_free(st);
		return err;
	}
	st->branches = 1;
	if (st->parent)
		st->parent->branches++;
	env->stack[env->npending++] = (struct vrf_pending){
	    .st = st, .insn = insn, .prev = prev, .log_pos = env->log ? env->log->used : 0};
	*out = st;
	return 0;
}

/* Replace the current state by the most recently queued one. */
int vrf_pop(struct vrf_env *env, int *insn, int *prev)
{
	if (!env->npending)
		return -ENOENT;
	struct vrf_pending *p = &env->stack[--env->npending];
	vrf_state_free(env->cur);
	env->cur = p->st;
	*insn = p->insn;
	*prev = p->prev;
	return 0;
}

/* Checkpoints live until the end of the verification: pending states point
 * at them as parents. */
int vrf_keep_state(struct vrf_env *env, struct vrf_state *st)
{
	if (env->nall == env->cap_all) {
		int cap = env->cap_all ? env->cap_all * 2 : 64;
		struct vrf_state **a = realloc(env->all, (size_t)cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		env->all = a;
		env->cap_all = cap;
	}
	env->all[env->nall++] = st;
	return 0;
}
