/* Calls and exits: helper prototypes from the program type (enum bpfvm_arg /
 * bpfvm_ret in bpfvm.h), bpf-to-bpf calls with one frame each, callbacks of
 * bpf_loop and bpf_for_each_map_elem walked as frames entered by the helper,
 * reference tracking for ringbuf records, and the R0 rule at program exit
 * (compatibility: any scalar; strict: the type's [ret_min, ret_max]).
 * Kernel counterparts: check_helper_call, check_func_call, prepare_func_exit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vrf_int.h"

#define HELPER_FOR_EACH_MAP_ELEM 164

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

/* Enter the callback of the helper call at callsite with the arguments the
 * helper passes (the caller's registers still hold the call's arguments). */
static int enter_callback(struct vrf_env *env, struct vrf_state *st, int callsite)
{
	const struct bpfvm_insn *call = &env->insns[callsite];
	struct vrf_reg *cr = st->frames[st->curframe]->regs;
	int target = cr[2].off;
	struct vrf_frame *fr;
	int err = new_frame(env, st, callsite, target, &fr);
	if (err)
		return err;
	fr->in_callback = true;
	fr->cb_ret_min = 0;
	fr->cb_ret_max = 1;
	if (call->imm == BPF_HELPER_LOOP) {
		vrf_mark_unknown(&fr->regs[1]);
		fr->regs[1].umax = (1u << 23) - 1; /* BPF_MAX_LOOPS */
		vrf_reg_bounds_sync(&fr->regs[1]);
		fr->regs[2] = cr[3];
	} else {
		const struct bpfvm_map *m = cr[1].map;
		fr->regs[1] = cr[1];
		vrf_mark_ptr(&fr->regs[2], VRF_PTR_MEM);
		fr->regs[2].range = m->def.key_size;
		fr->regs[2].pad = VRF_MEM_RDONLY;
		vrf_mark_ptr(&fr->regs[3], VRF_MAP_VALUE);
		fr->regs[3].map = m;
		fr->regs[4] = cr[3];
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

static int check_size_arg(struct vrf_env *env, int regno, enum bpfvm_arg t, int mem_regno,
			  enum bpfvm_arg mem_t)
{
	struct vrf_reg *r = &vrf_cur_regs(env)[regno];
	if (r->type != VRF_SCALAR)
		return arg_type_err(env, regno, r, "scalar");
	vrf_mark_reg_precise(env, regno);
	if (mem_regno >= 0 && vrf_cur_regs(env)[mem_regno].type == VRF_SCALAR)
		vrf_mark_reg_precise(env, mem_regno);
	if (r->smin < 0)
		return vrf_err(env, -EACCES,
			       "R%d min value is negative, either use unsigned or 'var &= const'",
			       regno);
	if (r->umax > VRF_MAX_MEM_SIZE)
		return vrf_err(
		    env, -EACCES,
		    "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'", regno);
	if (t == BPFVM_ARG_SIZE && r->umin == 0)
		return vrf_err(env, -EACCES, "R%d invalid zero-sized read", regno);
	if (mem_regno < 0)
		return 0;
	struct vrf_reg *m = &vrf_cur_regs(env)[mem_regno];
	if (mem_t == BPFVM_ARG_MEM_OR_NULL && is_null(m)) {
		if (r->umax != 0)
			return vrf_err(env, -EACCES, "R%d NULL memory with a non-zero size",
				       mem_regno);
		return 0;
	}
	return vrf_check_mem_range(env, mem_regno, r->umin, r->umax, mem_t == BPFVM_ARG_MEM_UNINIT,
				   t == BPFVM_ARG_SIZE_OR_ZERO);
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

#define HELPER_SPIN_LOCK   93
#define HELPER_SPIN_UNLOCK 94

/* bpf_spin_lock/unlock: a 4-byte aligned word of a map value at a known
 * offset; one lock at a time, released before any other call or the exit, by
 * the same word of the same value: the map and offset say which word of some
 * value, the pointer's id which lookup's value (two lookups may return two
 * elements), as the kernel's active_lock ptr/id (process_spin_lock). */
static int check_lock(struct vrf_env *env, int regno, const struct vrf_reg *r, int id)
{
	struct vrf_state *st = env->cur;
	if (r->type != VRF_MAP_VALUE || !vrf_tnum_is_const(r->var))
		return arg_type_err(env, regno, r, "map_value (constant offset)");
	int64_t off = (int64_t)r->off + (int64_t)r->var.value;
	if (off < 0 || off % 4 || off + 4 > r->map->def.value_size)
		return vrf_err(env, -EACCES,
			       "R%d spin lock at off=%lld is not an aligned word of the value",
			       regno, (long long)off);
	if (id == HELPER_SPIN_LOCK) {
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

/* Which maps a helper may take (kernel: check_map_func_compatibility):
 * special maps only with their own helpers, their own helpers only with them. */
static bool map_func_ok(uint32_t map_type, int id)
{
	bool data = map_type == BPFVM_MAP_HASH || map_type == BPFVM_MAP_ARRAY ||
		    map_type == BPFVM_MAP_PERCPU_HASH || map_type == BPFVM_MAP_PERCPU_ARRAY ||
		    map_type == BPFVM_MAP_LRU_HASH;
	bool sock = map_type == BPFVM_MAP_SOCKMAP || map_type == BPFVM_MAP_SOCKHASH;
	switch (id) {
	case BPF_HELPER_TAIL_CALL:
		return map_type == BPFVM_MAP_PROG_ARRAY;
	case 53: /* sock_map_update */
		return map_type == BPFVM_MAP_SOCKMAP;
	case 70: /* sock_hash_update */
		return map_type == BPFVM_MAP_SOCKHASH;
	case 3: /* map_delete_elem */
		return data || sock;
	case 25: /* perf_event_output */
		return map_type == BPFVM_MAP_PERF_EVENT_ARRAY;
	case 107: /* sk_storage_get / delete */
	case 108:
		return map_type == BPFVM_MAP_SK_STORAGE;
	case 130: /* ringbuf_output, reserve, query */
	case 131:
	case 134:
		return map_type == BPFVM_MAP_RINGBUF;
	default: /* lookup/update/delete, for_each_map_elem, ... */
		return data;
	}
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

static int check_helper(struct vrf_env *env, const struct bpfvm_insn *insn, int *next)
{
	const struct bpfvm_prog_type *type = env->prog->type;
	const struct bpfvm_helper *h = type->helper ? type->helper((uint32_t)insn->imm) : NULL;
	struct vrf_reg *regs = vrf_cur_regs(env);
	const struct bpfvm_map *map = NULL;
	int mem_regno = -1, cb = -1;
	uint32_t sz;
	enum bpfvm_arg mem_t = BPFVM_ARG_NONE;
	int err;

	const char *poisoned = bpfvm_prog_poison(env->prog, (size_t)env->insn_idx);
	if (poisoned && insn->imm == BPFVM_CORE_POISON)
		return vrf_err(env, -EINVAL, "%s", poisoned);
	if (!h) {
		const char *name = vrf_helper_name((uint32_t)insn->imm);
		if (!name)
			return vrf_err(env, -EINVAL, "unknown helper #%d", insn->imm);
		return vrf_err(env, -EINVAL, "helper bpf_%s#%d is not allowed for program type %s",
			       name, insn->imm, type->name);
	}
	if (env->cur->lock_map && insn->imm != HELPER_SPIN_UNLOCK)
		return vrf_err(env, -EACCES, "function calls are not allowed while holding a lock");
	for (int a = 0; a < 5 && h->args[a] != BPFVM_ARG_NONE; a++) {
		int rn = a + 1;
		struct vrf_reg *r = &regs[rn];
		enum bpfvm_arg t = h->args[a];
		/* clang passes only the arguments a variadic call names (the seed
		 * samples' 3-argument bpf_trace_printk): an unused ANYTHING slot
		 * may be unset; the helper sees some value and never dereferences it */
		if (r->type == VRF_NOT_INIT && t == BPFVM_ARG_ANYTHING)
			continue;
		if (r->type == VRF_NOT_INIT)
			return vrf_err(env, -EACCES, "R%d !read_ok", rn);
		if (r->type == VRF_SCALAR &&
		    (t == BPFVM_ARG_MAP_VALUE_OR_NULL || t == BPFVM_ARG_SOCK_OR_NULL))
			vrf_mark_reg_precise(env, rn); /* NULL or not decides */
		switch (t) {
		case BPFVM_ARG_ANYTHING:
			break;
		case BPFVM_ARG_SCALAR:
			if (r->type != VRF_SCALAR)
				return arg_type_err(env, rn, r, "scalar");
			break;
		case BPFVM_ARG_CTX:
			if (r->type != VRF_PTR_CTX)
				return arg_type_err(env, rn, r, "ctx");
			if (r->off || !vrf_tnum_is_const(r->var) || r->var.value)
				return vrf_err(env, -EACCES,
					       "R%d ctx pointer with a non-zero offset", rn);
			break;
		case BPFVM_ARG_MAP:
			if (r->type != VRF_CONST_MAP)
				return arg_type_err(env, rn, r, "map_ptr");
			map = r->map;
			err = sock_map_refusal(env, map, insn->imm);
			if (err)
				return err;
			if (!map_func_ok(map->def.type, insn->imm))
				return vrf_err(env, -EINVAL,
					       "cannot pass map_type %u into func bpf_%s#%d",
					       map->def.type, h->name, insn->imm);
			break;
		case BPFVM_ARG_MAP_KEY:
		case BPFVM_ARG_MAP_VALUE:
		case BPFVM_ARG_MAP_VALUE_OR_NULL:
			if (!map)
				return vrf_err(env, -EACCES,
					       "R%d map argument missing before key/value", rn);
			if (t == BPFVM_ARG_MAP_VALUE_OR_NULL && is_null(r))
				break;
			sz = t == BPFVM_ARG_MAP_KEY ? map->def.key_size : map->def.value_size;
			err = vrf_check_mem_range(env, rn, sz, sz, false, false);
			if (err)
				return err;
			break;
		case BPFVM_ARG_MEM:
		case BPFVM_ARG_MEM_OR_NULL:
		case BPFVM_ARG_MEM_UNINIT:
			if (!(t == BPFVM_ARG_MEM_OR_NULL && is_null(r)) && !vrf_reg_is_ptr(r))
				return arg_type_err(env, rn, r, "fp, pkt, map_value, mem");
			mem_regno = rn;
			mem_t = t;
			break;
		case BPFVM_ARG_SIZE:
		case BPFVM_ARG_SIZE_OR_ZERO:
			err = check_size_arg(env, rn, t, mem_regno, mem_t);
			if (err)
				return err;
			mem_regno = -1;
			break;
		case BPFVM_ARG_FUNC:
			if (r->type != VRF_PTR_FUNC)
				return arg_type_err(env, rn, r, "func");
			cb = rn;
			break;
		case BPFVM_ARG_SOCK_OR_NULL:
			if (!is_sock(r->type, true) && !is_null(r))
				return arg_type_err(env, rn, r, "sock_or_null");
			break;
		case BPFVM_ARG_SOCK_COMMON:
			/* the kernel's sock-common argument types carry no
			 * PTR_MAYBE_NULL: ctx->sk must be checked first */
			if (!is_sock(r->type, false))
				return arg_type_err(env, rn, r, "sock_common");
			break;
		case BPFVM_ARG_RINGBUF_MEM:
			if (r->type != VRF_PTR_MEM || !r->ref || r->off ||
			    !vrf_tnum_is_const(r->var) || r->var.value)
				return arg_type_err(env, rn, r, "ringbuf_mem");
			release_ref(env->cur, r->ref);
			break;
		case BPFVM_ARG_STR:
			err = check_str(env, rn, r);
			if (err)
				return err;
			break;
		case BPFVM_ARG_SPIN_LOCK:
			err = check_lock(env, rn, r, insn->imm);
			if (err)
				return err;
			break;
		default:
			return vrf_err(env, -EINVAL, "helper bpf_%s: unsupported argument kind %d",
				       h->name, (int)t);
		}
	}
	if (mem_regno >= 0)
		return vrf_err(env, -EINVAL, "helper bpf_%s: memory argument without a size",
			       h->name);
	/* the tail-called program never sees this one's references: none may be
	 * outstanding (kernel: check_resource_leak on tail_call) */
	if (insn->imm == BPF_HELPER_TAIL_CALL && env->cur->nrefs)
		return vrf_err(env, -EINVAL, "tail_call would lead to reference leak");

	if (cb >= 0) {
		if (insn->imm != BPF_HELPER_LOOP && insn->imm != HELPER_FOR_EACH_MAP_ELEM)
			return vrf_err(env, -EINVAL, "helper bpf_%s: callbacks not supported",
				       h->name);
		if (insn->imm == HELPER_FOR_EACH_MAP_ELEM && (!map || cb != 2))
			return vrf_err(env, -EINVAL, "helper bpf_%s: bad callback arguments",
				       h->name);
		if (insn->imm == BPF_HELPER_LOOP && cb != 2)
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
		err = enter_callback(env, env->cur, env->insn_idx);
		if (err)
			return err;
		*next = regs[2].off;
		return 0;
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
		if (env->cur->nrefs >= VRF_MAX_REFS)
			return vrf_err(env, -E2BIG, "too many unreleased references");
		uint32_t size = (uint32_t)regs[2].var.value;
		vrf_mark_ptr(r0, VRF_PTR_MEM_OR_NULL);
		r0->range = size;
		r0->id = r0->ref = env->next_id++;
		env->cur->refs[env->cur->nrefs] = r0->ref;
		env->cur->ref_insn[env->cur->nrefs++] = (uint32_t)env->insn_idx;
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
		vrf_mark_unknown(r0);
		break;
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
			err = enter_callback(env, again, callsite);
			if (err)
				return err;
			env->stack[env->npending - 1].insn =
			    again->frames[again->curframe - 1]->regs[2].off;
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
