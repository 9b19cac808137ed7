/* Calls and exits: helper calls checked against each helper's contract (struct
 * bpfvm_helper in bpfvm.h: argument kinds and memory access, return kind and
 * range, map types, references, callbacks; nothing here is keyed on a helper
 * id but the sockmap refusals), bpf-to-bpf calls with one frame each,
 * callbacks walked as frames entered by the helper, and the R0 rule at program
 * exit (compatibility: any scalar; strict: the type's [ret_min, ret_max]).
 * Kernel counterparts: check_helper_call, check_func_call, prepare_func_exit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

static int new_frame(struct vrf_env *env, struct vrf_state *st, int callsite, int target,
		     struct vrf_frame **out)
{
	if (st->curframe + 1 >= VRF_MAX_FRAMES)
		return vrf_err(env, -E2BIG, "the call stack of %d frames is too deep (max %d)",
			       st->curframe + 2, VRF_MAX_FRAMES);
	struct vrf_frame *fr = calloc(1, sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	fr->callsite = callsite;
	fr->subprog = env->ia[target].subprog;
	st->frames[++st->curframe] = fr;
	vrf_mark_ptr(&fr->regs[VRF_FP], VRF_PTR_STACK);
	fr->regs[VRF_FP].frameno = (uint8_t)st->curframe;
	*out = fr;
	return 0;
}

static void clobber_args(struct vrf_reg *regs)
{
	for (int r = 1; r <= 5; r++)
		vrf_mark_not_init(&regs[r]);
}

/* Enter the callback of the helper call at callsite with what the helper's
 * contract says it passes (cb_args; the caller's registers still hold the
 * call's arguments). The key of for_each_map_elem lives in the helper's own
 * frame: the pointer is scoped to the callback's frame (VRF_MEM_CB_SCOPED),
 * so it can never be kept where the caller could read it after the call. */
static int enter_callback(struct vrf_env *env, struct vrf_state *st, int callsite, int *entry)
{
	const struct bpfvm_insn *call = &env->insns[callsite];
	const struct bpfvm_helper *h = bpfvm_call_proto(env->prog->type, call->src, call->imm);
	struct vrf_reg *cr = st->frames[st->curframe]->regs;
	int fn = -1, cbctx = -1, mapr = -1;
	for (int a = 0; a < 5; a++) {
		if (h->args[a].kind == BPFVM_ARG_FUNC)
			fn = a + 1;
		else if (h->args[a].kind == BPFVM_ARG_CB_CTX)
			cbctx = a + 1;
		else if (h->args[a].kind == BPFVM_ARG_MAP)
			mapr = a + 1;
	}
	int target = cr[fn].off;
	*entry = target;
	struct vrf_frame *fr;
	int err = new_frame(env, st, callsite, target, &fr);
	if (err)
		return err;
	fr->in_callback = true;
	fr->cb_ret_min = 0;
	fr->cb_ret_max = 1;
	const struct bpfvm_map *m = mapr > 0 ? cr[mapr].map : NULL;
	for (int i = 0; i < 4; i++) {
		struct vrf_reg *r = &fr->regs[i + 1];
		switch (h->cb_args[i]) {
		case BPFVM_CB_INDEX:
			vrf_mark_unknown(r);
			r->umax = BPFVM_MAX_LOOPS - 1;
			vrf_reg_bounds_sync(r);
			break;
		case BPFVM_CB_MAP:
			*r = cr[mapr];
			break;
		case BPFVM_CB_MAP_KEY:
			vrf_mark_ptr(r, VRF_PTR_MEM);
			r->range = m->def.key_size;
			r->pad = VRF_MEM_RDONLY | VRF_MEM_CB_SCOPED;
			r->frameno = (uint8_t)st->curframe;
			break;
		case BPFVM_CB_MAP_VALUE:
			vrf_mark_ptr(r, VRF_MAP_VALUE);
			r->map = m;
			break;
		case BPFVM_CB_CTX:
			*r = cr[cbctx];
			break;
		default:
			break; /* not set: reading it is refused (!read_ok) */
		}
	}
	return 0;
}

static void release_ref(struct vrf_state *st, uint32_t ref)
{
	for (int i = 0; i < st->nrefs; i++) {
		if (st->refs[i] != ref)
			continue;
		st->refs[i] = st->refs[--st->nrefs];
		st->ref_insn[i] = st->ref_insn[st->nrefs];
		break;
	}
	for (int f = 0; f <= st->curframe; f++) {
		struct vrf_frame *fr = st->frames[f];
		for (int r = 0; r < VRF_NREGS; r++)
			if (fr->regs[r].ref == ref)
				vrf_mark_unknown(&fr->regs[r]);
		for (int s = 0; s < VRF_SLOTS; s++)
			if (fr->stack[s].type[0] == VRF_ST_SPILL && fr->stack[s].spill.ref == ref)
				vrf_mark_unknown(&fr->stack[s].spill);
	}
}

static bool is_null(const struct vrf_reg *r)
{
	return vrf_reg_is_const(r) && r->var.value == 0;
}

static int arg_type_err(struct vrf_env *env, int regno, const struct vrf_reg *r, const char *want)
{
	return vrf_err(env, -EACCES, "R%d type=%s expected=%s", regno, vrf_type_name(r->type),
		       want);
}

/* A SIZE argument and the MEM argument it sizes (size_arg, 1-based), whose
 * bytes are checked for the access the contract declares. */
static int check_size_arg(struct vrf_env *env, int regno, const struct bpfvm_arg *sa,
			  const struct bpfvm_helper *h)
{
	struct vrf_reg *r = &vrf_cur_regs(env)[regno];
	bool zero_ok = sa->flags & BPFVM_ARGF_ZERO_OK;
	int mem_regno = sa->size_arg;
	if (mem_regno < 1 || mem_regno > 5 || h->args[mem_regno - 1].kind != BPFVM_ARG_MEM)
		return vrf_err(env, -EINVAL, "helper bpf_%s: size argument R%d sizes no memory",
			       h->name, regno);
	const struct bpfvm_arg *ma = &h->args[mem_regno - 1];
	if (r->type != VRF_SCALAR)
		return arg_type_err(env, regno, r, "scalar");
	vrf_mark_reg_precise(env, regno);
	if (vrf_cur_regs(env)[mem_regno].type == VRF_SCALAR)
		vrf_mark_reg_precise(env, mem_regno);
	if (r->smin < 0)
		return vrf_err(env, -EACCES,
			       "R%d min value is negative, either use unsigned or 'var &= const'",
			       regno);
	if (r->umax > VRF_MAX_MEM_SIZE)
		return vrf_err(
		    env, -EACCES,
		    "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'", regno);
	if (!zero_ok && r->umin == 0)
		return vrf_err(env, -EACCES, "R%d invalid zero-sized read", regno);
	struct vrf_reg *m = &vrf_cur_regs(env)[mem_regno];
	if ((ma->flags & BPFVM_ARGF_OR_NULL) && is_null(m)) {
		if (r->umax != 0)
			return vrf_err(env, -EACCES, "R%d NULL memory with a non-zero size",
				       mem_regno);
		return 0;
	}
	return vrf_check_mem_range(env, mem_regno, r->umin, r->umax, ma->access, zero_ok);
}

/* A constant string (bpf_snprintf's format): checked here, once, so its bytes
 * must be ones nothing can change afterwards: a read-only, frozen map (the
 * loader's .rodata: one array element), as the kernel's ARG_PTR_TO_CONST_STR. */
static int check_str(struct vrf_env *env, int regno, const struct vrf_reg *r)
{
	if (r->type != VRF_MAP_VALUE)
		return arg_type_err(env, regno, r, "map_value (constant string)");
	if (!bpfvm_map_is_rdonly(r->map) || r->map->def.type != BPFVM_MAP_ARRAY ||
	    r->map->def.max_entries != 1)
		return vrf_err(env, -EACCES, "R%d does not point to a readonly map", regno);
	if (!vrf_tnum_is_const(r->var))
		return vrf_err(env, -EACCES, "R%d is not a constant address", regno);
	const char *v = vrf_map_value0(r->map);
	int64_t off = (int64_t)r->off + (int64_t)r->var.value;
	if (!v || off < 0 || off >= r->map->def.value_size ||
	    !memchr(v + off, 0, r->map->def.value_size - (size_t)off))
		return vrf_err(env, -EACCES,
			       "R%d does not point to a NUL-terminated constant string", regno);
	return 0;
}

/* bpf_spin_lock/unlock: the map value's struct bpf_spin_lock, at the offset
 * the map's BTF names (a map without one cannot be locked, as the kernel's
 * "map does not contain struct bpf_spin_lock"), in a map programs may write;
 * one lock at a time, released before any other call or the exit, by the
 * same word of the same value: the map says which word of some value, the
 * pointer's id which lookup's value (two lookups may return two elements),
 * as the kernel's active_lock ptr/id (process_spin_lock). */
static int check_lock(struct vrf_env *env, int regno, const struct vrf_reg *r, bool unlock)
{
	struct vrf_state *st = env->cur;
	if (r->type != VRF_MAP_VALUE || !vrf_tnum_is_const(r->var))
		return arg_type_err(env, regno, r, "map_value (constant offset)");
	int64_t off = (int64_t)r->off + (int64_t)r->var.value;
	if (!r->map->def.has_spin_lock)
		return vrf_err(env, -EINVAL,
			       "map '%s' has no struct bpf_spin_lock in its value (BTF-defined "
			       "maps only)",
			       r->map->def.name);
	if (bpfvm_map_prog_rdonly(r->map))
		return vrf_err(env, -EACCES, "R%d spin lock in a read-only map", regno);
	if (off != (int64_t)r->map->def.spin_lock_off)
		return vrf_err(env, -EINVAL,
			       "off %lld doesn't point to 'struct bpf_spin_lock' that is at %u",
			       (long long)off, r->map->def.spin_lock_off);
	if (!unlock) {
		if (st->lock_map)
			return vrf_err(env, -EACCES, "Locking two bpf_spin_locks are not allowed");
		st->lock_map = r->map;
		st->lock_off = off;
		st->lock_id = r->id;
		return 0;
	}
	if (!st->lock_map)
		return vrf_err(env, -EACCES, "bpf_spin_unlock without taking a lock");
	if (st->lock_map != r->map || st->lock_off != off || st->lock_id != r->id)
		return vrf_err(env, -EACCES, "bpf_spin_unlock of different lock");
	st->lock_map = NULL;
	st->lock_off = 0;
	st->lock_id = 0;
	return 0;
}

/* Linux lets only some program types update a sockmap from a program
 * (may_update_sockmap, not sock_ops: it has bpf_sock_map_update), and a
 * program's lookup acquires a socket reference that only bpf_sk_release,
 * which sock_ops does not have, gives back: the kernel rejects both here. */
static int sock_map_refusal(struct vrf_env *env, const struct bpfvm_map *map, int id)
{
	if (map->def.type != BPFVM_MAP_SOCKMAP && map->def.type != BPFVM_MAP_SOCKHASH)
		return 0;
	if (id == 2)
		return vrf_err(env, -EINVAL, "cannot update sockmap in this context");
	if (id == 1)
		return vrf_err(env, -EINVAL,
			       "map_lookup_elem of a sockmap/sockhash returns a referenced "
			       "socket this program type cannot release (Linux: Unreleased "
			       "reference)");
	return 0;
}

/* Any socket pointer a sock_ops program can hold: ctx->sk, what bpf_tcp_sock
 * returns, a BTF tcp_sock (the kernel's sock_common-compatible types). */
static bool is_sock(uint8_t t, bool or_null)
{
	switch (t) {
	case VRF_PTR_SOCK:
	case VRF_PTR_TCP_SOCK:
	case VRF_PTR_BTF:
		return true;
	case VRF_PTR_SOCK_OR_NULL:
	case VRF_PTR_TCP_SOCK_OR_NULL:
	case VRF_PTR_BTF_OR_NULL:
		return or_null;
	default:
		return false;
	}
}

/* R0 after a helper returning an integer: its contract's range. */
static void ret_range(struct vrf_reg *r0, const struct bpfvm_helper *h)
{
	vrf_mark_unknown(r0);
	if (h->ret_min == INT64_MIN && h->ret_max == INT64_MAX)
		return;
	r0->smin = h->ret_min;
	r0->smax = h->ret_max;
	if (h->ret_min >= 0) {
		r0->umin = (uint64_t)h->ret_min;
		r0->umax = (uint64_t)h->ret_max;
	}
	vrf_reg_bounds_sync(r0);
}

static int check_arg(struct vrf_env *env, const struct bpfvm_helper *h, int a,
		     const struct bpfvm_map **map, int *cb)
{
	const struct bpfvm_arg *ad = &h->args[a];
	int rn = a + 1, id = (int)h->id, err;
	struct vrf_reg *r = &vrf_cur_regs(env)[rn];
	bool or_null = ad->flags & BPFVM_ARGF_OR_NULL;
	uint32_t sz;

	/* clang passes only the arguments a variadic call names (the seed
	 * samples' 3-argument bpf_trace_printk): an unused ANYTHING slot may
	 * be unset; the helper sees some value and never dereferences it */
	if (r->type == VRF_NOT_INIT && ad->kind == BPFVM_ARG_ANYTHING)
		return 0;
	if (r->type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", rn);
	if (r->type == VRF_SCALAR && or_null)
		vrf_mark_reg_precise(env, rn); /* NULL or not decides */
	switch (ad->kind) {
	case BPFVM_ARG_ANYTHING:
		/* a number to the helper (printed, stored, a flag): an address
		 * only from a loader allowed to see addresses */
		if (vrf_reg_is_ptr(r) && !env->prog->allow_ptr_leaks)
			return vrf_err(env, -EACCES, "R%d leaks addr into helper function", rn);
		return 0;
	case BPFVM_ARG_CB_CTX:
	case BPFVM_ARG_ADDR:
		return 0;
	case BPFVM_ARG_SCALAR:
		if (r->type != VRF_SCALAR)
			return arg_type_err(env, rn, r, "scalar");
		return 0;
	case BPFVM_ARG_CTX:
		if (r->type != VRF_PTR_CTX)
			return arg_type_err(env, rn, r, "ctx");
		if (r->off || !vrf_tnum_is_const(r->var) || r->var.value)
			return vrf_err(env, -EACCES, "R%d ctx pointer with a non-zero offset", rn);
		return 0;
	case BPFVM_ARG_MAP:
		if (r->type != VRF_CONST_MAP)
			return arg_type_err(env, rn, r, "map_ptr");
		*map = r->map;
		err = sock_map_refusal(env, r->map, id);
		if (err)
			return err;
		if (r->map->def.type >= 64 || !(h->map_types & BPFVM_MAPT(r->map->def.type)))
			return vrf_err(env, -EINVAL, "cannot pass map_type %u into func bpf_%s#%d",
				       r->map->def.type, h->name, id);
		/* a helper that changes the map's elements, on a map programs may
		 * only read (.rodata; kernel: record_func_map) */
		if (ad->access == BPFVM_MEM_WRITE && bpfvm_map_prog_rdonly(r->map))
			return vrf_err(env, -EACCES, "write into map forbidden (bpf_%s#%d)",
				       h->name, id);
		return 0;
	case BPFVM_ARG_MAP_KEY:
	case BPFVM_ARG_MAP_VALUE:
		if (!*map)
			return vrf_err(env, -EACCES, "R%d map argument missing before key/value",
				       rn);
		if (or_null && is_null(r))
			return 0;
		sz = ad->kind == BPFVM_ARG_MAP_KEY ? (*map)->def.key_size : (*map)->def.value_size;
		return vrf_check_mem_range(env, rn, sz, sz, ad->access, false);
	case BPFVM_ARG_MEM:
		if (!(or_null && is_null(r)) && !vrf_reg_is_ptr(r))
			return arg_type_err(env, rn, r, "fp, pkt, map_value, mem");
		if (ad->size_arg)
			return 0; /* checked with its SIZE argument */
		if (or_null && is_null(r))
			return 0;
		return vrf_check_mem_range(env, rn, ad->size, ad->size, ad->access, false);
	case BPFVM_ARG_SIZE:
		return check_size_arg(env, rn, ad, h);
	case BPFVM_ARG_FUNC:
		if (r->type != VRF_PTR_FUNC)
			return arg_type_err(env, rn, r, "func");
		*cb = rn;
		return 0;
	case BPFVM_ARG_SOCK:
		/* the kernel's sock-common argument types carry no PTR_MAYBE_NULL:
		 * without OR_NULL ctx->sk must be checked first */
		if (!is_sock(r->type, or_null) && !(or_null && is_null(r)))
			return arg_type_err(env, rn, r, or_null ? "sock_or_null" : "sock_common");
		return 0;
	case BPFVM_ARG_RINGBUF_MEM:
		if (r->type != VRF_PTR_MEM || !r->ref || r->off || !vrf_tnum_is_const(r->var) ||
		    r->var.value)
			return arg_type_err(env, rn, r, "ringbuf_mem");
		if (ad->flags & BPFVM_ARGF_RELEASE)
			release_ref(env->cur, r->ref);
		return 0;
	case BPFVM_ARG_STR:
		return check_str(env, rn, r);
	case BPFVM_ARG_SPIN_LOCK:
		return check_lock(env, rn, r, ad->flags & BPFVM_ARGF_RELEASE);
	case BPFVM_ARG_KERN_CTX:
		/* the kernel's KF_TRUSTED_ARGS: the pointer bpf_cast_to_kern_ctx
		 * gave, unmoved; the uapi ctx itself is another type */
		if (r->type != VRF_PTR_BTF || r->range != BPFVM_BTF_KERN_CTX || r->off ||
		    !vrf_tnum_is_const(r->var) || r->var.value)
			return arg_type_err(env, rn, r, "trusted_ptr_bpf_sock_ops_kern");
		return 0;
	default:
		return vrf_err(env, -EINVAL, "helper bpf_%s: unsupported argument kind %d", h->name,
			       (int)ad->kind);
	}
}

static int check_helper(struct vrf_env *env, const struct bpfvm_insn *insn, int *next)
{
	const struct bpfvm_prog_type *type = env->prog->type;
	const struct bpfvm_helper *h = bpfvm_call_proto(type, insn->src, insn->imm);
	struct vrf_reg *regs = vrf_cur_regs(env);
	const struct bpfvm_map *map = NULL;
	int cb = -1;
	int err;

	const char *poisoned = bpfvm_prog_poison(env->prog, (size_t)env->insn_idx);
	if (poisoned && insn->imm == BPFVM_CORE_POISON)
		return vrf_err(env, -EINVAL, "%s", poisoned);
	if (!h && insn->src == BPF_PSEUDO_KFUNC_CALL)
		return vrf_err(env, -EINVAL, "kernel function call id %#x is not offered to %s",
			       (uint32_t)insn->imm, type->name);
	if (!h) {
		const char *name = vrf_helper_name((uint32_t)insn->imm);
		if (!name)
			return vrf_err(env, -EINVAL, "unknown helper #%d", insn->imm);
		return vrf_err(env, -EINVAL, "helper bpf_%s#%d is not allowed for program type %s",
			       name, insn->imm, type->name);
	}
	if ((h->flags & BPFVM_HF_PRIV) && !env->prog->allow_ptr_leaks)
		return vrf_err(env, -EPERM, "helper bpf_%s#%d is for privileged loaders only",
			       h->name, insn->imm);
	bool unlocks =
	    h->args[0].kind == BPFVM_ARG_SPIN_LOCK && (h->args[0].flags & BPFVM_ARGF_RELEASE);
	if (env->cur->lock_map && !unlocks)
		return vrf_err(env, -EACCES, "function calls are not allowed while holding a lock");
	for (int a = 0; a < 5 && h->args[a].kind != BPFVM_ARG_NONE; a++) {
		err = check_arg(env, h, a, &map, &cb);
		if (err)
			return err;
	}
	/* the tail-called program never sees this one's references: none may be
	 * outstanding (kernel: check_resource_leak on tail_call) */
	if ((h->flags & BPFVM_HF_NO_REFS) && env->cur->nrefs)
		return vrf_err(env, -EINVAL, "%s would lead to reference leak", h->name);

	if (cb >= 0) {
		bool maps_ok = true;
		for (int i = 0; i < 4; i++)
			if (h->cb_args[i] == BPFVM_CB_MAP_KEY ||
			    h->cb_args[i] == BPFVM_CB_MAP_VALUE || h->cb_args[i] == BPFVM_CB_MAP)
				maps_ok = maps_ok && map;
		if (!maps_ok)
			return vrf_err(env, -EINVAL, "helper bpf_%s: bad callback arguments",
				       h->name);
		/* the helper may return without calling back at all (nr_loops 0
		 * or over the limit, flags != 0, an empty map): that path goes
		 * on after the call with the caller's state as it is now */
		struct vrf_state *none;
		err = vrf_push(env, env->insn_idx + 1, env->insn_idx, &none);
		if (err)
			return err;
		vrf_mark_unknown(&none->frames[none->curframe]->regs[0]);
		clobber_args(none->frames[none->curframe]->regs);
		return enter_callback(env, env->cur, env->insn_idx, next);
	}
	struct vrf_reg *r0 = &regs[0];
	switch (h->ret) {
	case BPFVM_RET_VOID:
		vrf_mark_not_init(r0);
		break;
	case BPFVM_RET_MAP_VALUE_OR_NULL:
		if (!map)
			return vrf_err(env, -EINVAL,
				       "helper bpf_%s returns a map value without a map", h->name);
		vrf_mark_ptr(r0, VRF_MAP_VALUE_OR_NULL);
		r0->map = map;
		r0->id = env->next_id++;
		break;
	case BPFVM_RET_MEM_OR_NULL:
		vrf_mark_reg_precise(env, 2);
		if (!vrf_reg_is_const(&regs[2]) || regs[2].var.value == 0 ||
		    regs[2].var.value > VRF_MAX_MEM_SIZE)
			return vrf_err(env, -EACCES,
				       "R2 size of bpf_%s must be a positive constant", h->name);
		vrf_mark_ptr(r0, VRF_PTR_MEM_OR_NULL);
		r0->range = (uint32_t)regs[2].var.value;
		r0->id = env->next_id++;
		break;
	case BPFVM_RET_BTF_KERN_CTX:
		vrf_mark_ptr(r0, VRF_PTR_BTF);
		r0->range = BPFVM_BTF_KERN_CTX;
		break;
	case BPFVM_RET_TCP_SOCK_OR_NULL:
		vrf_mark_ptr(r0, VRF_PTR_TCP_SOCK_OR_NULL);
		r0->id = env->next_id++;
		break;
	case BPFVM_RET_BTF_TCP_SOCK_OR_NULL:
	case BPFVM_RET_BTF_MPTCP_SOCK_OR_NULL:
		vrf_mark_ptr(r0, VRF_PTR_BTF_OR_NULL);
		r0->range = h->ret == BPFVM_RET_BTF_TCP_SOCK_OR_NULL ? BPFVM_BTF_TCP_SOCK
								     : BPFVM_BTF_MPTCP_SOCK;
		r0->id = env->next_id++;
		break;
	default:
		ret_range(r0, h);
		break;
	}
	if (h->flags & BPFVM_HF_ACQUIRE) {
		/* the reference is the pointer's id: a NULL check that finds NULL
		 * drops it (vrf_mark_ptr_or_null) */
		if (!r0->id)
			return vrf_err(env, -EINVAL, "helper bpf_%s acquires without a pointer",
				       h->name);
		if (env->cur->nrefs >= VRF_MAX_REFS)
			return vrf_err(env, -E2BIG, "too many unreleased references");
		r0->ref = r0->id;
		env->cur->refs[env->cur->nrefs] = r0->ref;
		env->cur->ref_insn[env->cur->nrefs++] = (uint32_t)env->insn_idx;
	}
	clobber_args(regs);
	*next = env->insn_idx + 1;
	return 0;
}

int vrf_check_call(struct vrf_env *env, const struct bpfvm_insn *insn, int *next)
{
	if (insn->src != BPF_PSEUDO_CALL)
		return check_helper(env, insn, next);
	if (env->cur->lock_map)
		return vrf_err(env, -EACCES, "function calls are not allowed while holding a lock");
	int target = env->insn_idx + insn->imm + 1;
	struct vrf_reg *caller = vrf_cur_regs(env);
	struct vrf_frame *fr;
	int err = new_frame(env, env->cur, env->insn_idx, target, &fr);
	if (err)
		return err;
	for (int r = 1; r <= 5; r++)
		fr->regs[r] = caller[r];
	*next = target;
	return 0;
}

static void fmt_range(char *buf, size_t n, const struct vrf_reg *r)
{
	if (vrf_reg_is_const(r))
		snprintf(buf, n, "%lld", (long long)r->var.value);
	else
		snprintf(buf, n, "smin=%lld,smax=%lld", (long long)r->smin, (long long)r->smax);
}

int vrf_check_exit(struct vrf_env *env, int *next, bool *done)
{
	struct vrf_state *st = env->cur;
	struct vrf_frame *fr = st->frames[st->curframe];
	struct vrf_reg *r0 = &fr->regs[0];
	char v[64];
	int err;

	*done = false;
	if (r0->type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R0 !read_ok");
	if (st->curframe > 0 || env->prog->strict)
		vrf_mark_reg_precise(env, 0); /* range checked, or returned to a caller */
	if (st->lock_map)
		return vrf_err(env, -EACCES, "bpf_spin_unlock is missing");
	if (st->curframe > 0) {
		struct vrf_reg *caller = st->frames[st->curframe - 1]->regs;
		int callsite = fr->callsite;
		if (fr->in_callback) {
			if (r0->type != VRF_SCALAR || r0->smin < fr->cb_ret_min ||
			    r0->smax > fr->cb_ret_max) {
				fmt_range(v, sizeof v, r0);
				return vrf_err(env, -EACCES,
					       "At callback return the register R0 has value %s "
					       "should have been in [%d, %d]",
					       r0->type == VRF_SCALAR ? v : vrf_type_name(r0->type),
					       fr->cb_ret_min, fr->cb_ret_max);
			}
			/* the helper may call again: walk another entry with the
			 * caller's state as this iteration left it */
			struct vrf_state *again;
			err = vrf_push(env, 0, env->insn_idx, &again);
			if (err)
				return err;
			free(again->frames[again->curframe]);
			again->frames[again->curframe--] = NULL;
			int entry;
			err = enter_callback(env, again, callsite, &entry);
			if (err)
				return err;
			env->stack[env->npending - 1].insn = entry;
			vrf_mark_unknown(&caller[0]);
		} else {
			if (r0->type == VRF_PTR_STACK && r0->frameno == st->curframe)
				return vrf_err(env, -EACCES,
					       "cannot return stack pointer to the caller");
			caller[0] = *r0;
			/* a tail call taken in this function returned the
			 * target's R0 instead, any scalar (the engines run
			 * the target in the function's place, as the kernel) */
			if (env->sub[fr->subprog].tail_calls)
				vrf_mark_unknown(&caller[0]);
		}
		clobber_args(caller);
		free(fr);
		st->frames[st->curframe--] = NULL;
		*next = callsite + 1;
		return 0;
	}
	if (st->nrefs)
		return vrf_err(env, -EACCES, "Unreleased reference id=%u alloc_insn=%u",
			       st->refs[0], st->ref_insn[0]);
	if (r0->type != VRF_SCALAR)
		return vrf_err(env, -EACCES, "R0 leaks addr as return value");
	if (env->prog->strict) {
		const struct bpfvm_prog_type *t = env->prog->type;
		if (r0->smin < t->ret_min || r0->smax > t->ret_max) {
			fmt_range(v, sizeof v, r0);
			return vrf_err(env, -EACCES,
				       "At program exit the register R0 has value %s should have "
				       "been in [%d, %d]",
				       v, t->ret_min, t->ret_max);
		}
	}
	*done = true;
	return 0;
}
