/* Memory access: ctx through the program type's ctx_access table (docs/sockops.md
 * §2 for sock_ops), stack slots (per-byte state, 512 bytes per frame, spills),
 * map values within value_size, packet bytes proven by a pkt_end check,
 * ringbuf records, socket views; ld_imm64 of maps and callbacks.
 * Kernel counterparts: check_mem_access, check_stack_write/read. */
#include <errno.h>
#include <string.h>

#include "vrf_int.h"

#define SOCK_VIEW_SIZE 80 /* struct bpf_sock, read-only */

static void bump_depth(struct vrf_env *env, int frameno, int64_t o)
{
	int sp = env->cur->frames[frameno]->subprog;
	uint32_t d = (uint32_t)(-o);
	if (env->sub[sp].stack_depth < d)
		env->sub[sp].stack_depth = d;
}

static int stack_off(struct vrf_env *env, int regno, const struct vrf_reg *p, int off, int size,
		     int64_t *out)
{
	char t[48];
	if (!vrf_tnum_is_const(p->var)) {
		vrf_tnum_str(t, sizeof t, p->var);
		return vrf_err(env, -EACCES, "R%d variable stack access var_off=%s off=%d size=%d",
			       regno, t, p->off + off, size);
	}
	int64_t o = (int64_t)p->off + off + (int64_t)p->var.value;
	if (o < -BPFVM_STACK_SIZE || o + size > 0)
		return vrf_err(env, -EACCES,
			       "invalid stack access off=%lld size=%d (frame limit %d bytes)",
			       (long long)o, size, BPFVM_STACK_SIZE);
	if (o % size)
		return vrf_err(env, -EACCES, "misaligned stack access off=%lld size=%d",
			       (long long)o, size);
	*out = o;
	return 0;
}

static uint8_t *byte_type(struct vrf_frame *fr, int64_t o)
{
	int b = (int)(o + BPFVM_STACK_SIZE);
	return &fr->stack[b / 8].type[b % 8];
}

static struct vrf_slot *slot_of(struct vrf_frame *fr, int64_t o)
{
	return &fr->stack[(int)(o + BPFVM_STACK_SIZE) / 8];
}

/* Writing size bytes at o breaks any spill they touch: the spilled scalar's
 * other bytes stay readable as scalar bytes, a spilled pointer's are gone. */
static void break_spill(struct vrf_frame *fr, int64_t o, int size)
{
	for (int64_t b = o; b < o + size; b += 8 - ((b + BPFVM_STACK_SIZE) % 8)) {
		struct vrf_slot *s = slot_of(fr, b);
		if (s->type[0] != VRF_ST_SPILL)
			continue;
		uint8_t nt = s->spill.type == VRF_SCALAR ? VRF_ST_MISC : VRF_ST_INVALID;
		for (int i = 0; i < 8; i++)
			s->type[i] = nt;
	}
}

static int stack_write(struct vrf_env *env, const struct vrf_reg *p, int64_t o, int size,
		       const struct vrf_reg *val, int valno)
{
	struct vrf_frame *fr = env->cur->frames[p->frameno];
	bump_depth(env, p->frameno, o);
	if (val && vrf_reg_is_ptr(val) && size != 8)
		return vrf_err(env, -EACCES, "R%d invalid size of register spill", valno);
	if (val && val->type == VRF_PTR_STACK && val->frameno > p->frameno)
		return vrf_err(env, -EACCES,
			       "cannot spill pointers to stack into stack frame of the caller");
	/* for_each_map_elem's key is in the helper's frame: it must die with
	 * the callback frame that received it */
	if (val && val->type == VRF_PTR_MEM && (val->pad & VRF_MEM_CB_SCOPED) &&
	    p->frameno < val->frameno)
		return vrf_err(env, -EACCES,
			       "R%d the callback's key pointer may not outlive the callback",
			       valno);
	if (val && size == 8) {
		struct vrf_slot *s = slot_of(fr, o);
		memset(s->type, VRF_ST_SPILL, 8);
		s->spill = *val;
		return 0;
	}
	break_spill(fr, o, size);
	bool zero = val && vrf_reg_is_const(val) && val->var.value == 0;
	/* known-zero bytes, which a later load turns into the constant 0
	 * without naming the register: backtracking cannot get from that load
	 * to this store, so the register's value counts for pruning now */
	if (zero)
		vrf_mark_reg_precise(env, valno);
	for (int i = 0; i < size; i++)
		*byte_type(fr, o + i) = zero ? VRF_ST_ZERO : VRF_ST_MISC;
	return 0;
}

static int stack_read(struct vrf_env *env, const struct vrf_reg *p, int64_t o, int size,
		      struct vrf_reg *dst, bool sign)
{
	struct vrf_frame *fr = env->cur->frames[p->frameno];
	struct vrf_slot *s = slot_of(fr, o);
	if (s->type[0] == VRF_ST_SPILL) {
		if (size == 8) {
			if (dst)
				*dst = s->spill;
			return 0;
		}
		if (s->spill.type != VRF_SCALAR)
			return vrf_err(env, -EACCES,
				       "invalid size of register fill off=%lld size=%d",
				       (long long)o, size);
		if (dst)
			vrf_reg_bound_size(dst, size, sign);
		return 0;
	}
	bool zero = true;
	for (int i = 0; i < size; i++) {
		uint8_t t = *byte_type(fr, o + i);
		if (t == VRF_ST_INVALID)
			return vrf_err(env, -EACCES, "invalid read from stack off=%lld size=%d",
				       (long long)o, size);
		if (t != VRF_ST_ZERO)
			zero = false;
	}
	if (dst) {
		if (zero)
			vrf_mark_const(dst, 0);
		else
			vrf_reg_bound_size(dst, size, sign);
	}
	return 0;
}

/* A stack access at a variable offset (an on-stack array indexed by a
 * bounded scalar): every byte it may touch must lie in the frame and be
 * initialised, reads give an unknown scalar, writes of scalars turn the
 * touched bytes into scalar bytes (a spilled pointer there is refused). */
static int stack_var_access(struct vrf_env *env, int regno, const struct vrf_reg *p, int off,
			    int size, bool write, const struct vrf_reg *val, int valno,
			    struct vrf_reg *dst, bool sign)
{
	char t[48];
	vrf_tnum_str(t, sizeof t, p->var);
	int64_t base = (int64_t)p->off + off;
	int64_t lo = base + p->smin, hi = base + p->smax + size;
	uint64_t align = (uint64_t)size - 1;
	if (lo < -BPFVM_STACK_SIZE || hi > 0)
		return vrf_err(env, -EACCES,
			       "R%d variable stack access var_off=%s off=[%lld,%lld] size=%d out "
			       "of the %d-byte frame",
			       regno, t, (long long)lo, (long long)(hi - size), size,
			       BPFVM_STACK_SIZE);
	if ((base & (int64_t)align) || (p->var.mask & align) || (p->var.value & align))
		return vrf_err(env, -EACCES,
			       "R%d misaligned variable stack access var_off=%s off=%lld size=%d",
			       regno, t, (long long)base, size);
	if (write && val && vrf_reg_is_ptr(val))
		return vrf_err(env, -EACCES, "R%d variable-offset stack write of a pointer", valno);
	struct vrf_frame *fr = env->cur->frames[p->frameno];
	bump_depth(env, p->frameno, lo);
	for (int64_t b = lo; b < hi; b++) {
		struct vrf_slot *s = slot_of(fr, b);
		uint8_t bt = *byte_type(fr, b);
		if (bt == VRF_ST_INVALID)
			return vrf_err(env, -EACCES,
				       "R%d variable stack access var_off=%s reaches uninitialised "
				       "stack off=%lld",
				       regno, t, (long long)b);
		if (bt == VRF_ST_SPILL && s->spill.type != VRF_SCALAR)
			return vrf_err(env, -EACCES,
				       "R%d variable stack access var_off=%s reaches a spilled "
				       "pointer at off=%lld",
				       regno, t, (long long)b);
	}
	if (!write) {
		if (dst)
			vrf_reg_bound_size(dst, size, sign);
		return 0;
	}
	bool zero =
	    val ? vrf_reg_is_const(val) && val->var.value == 0 : env->insns[env->insn_idx].imm == 0;
	if (zero && val)
		vrf_mark_reg_precise(env, valno); /* known-zero bytes: see stack_write */
	break_spill(fr, lo, (int)(hi - lo));
	for (int64_t b = lo; b < hi; b++)
		if (!(zero && *byte_type(fr, b) == VRF_ST_ZERO))
			*byte_type(fr, b) = VRF_ST_MISC;
	return 0;
}

/* A store (or a helper's output) into a map programs may only read: .rodata,
 * whose bytes the verifier trusts (kernel: check_map_access_type). */
static int map_write_forbidden(struct vrf_env *env, const struct vrf_reg *p, int off, int64_t size)
{
	return vrf_err(env, -EACCES, "write into map forbidden, value_size=%u off=%lld size=%lld",
		       p->map->def.value_size, (long long)p->off + off + p->smin, (long long)size);
}

/* Bounds of an access through a map value / ringbuf record pointer. */
static int region_check(struct vrf_env *env, int regno, const struct vrf_reg *p, int off,
			int64_t size, uint64_t limit, const char *what)
{
	if (p->smin < 0)
		return vrf_err(env, -EACCES,
			       "R%d min value is negative, either use unsigned index or do a if "
			       "(index >=0) check",
			       regno);
	int64_t lo = (int64_t)p->off + off + p->smin;
	int64_t hi = (int64_t)p->off + off + (int64_t)p->umax + size;
	if ((lo < 0 || hi > (int64_t)limit) && hi - size == lo)
		return vrf_err(env, -EACCES, "invalid access to %s, %s=%llu off=%lld size=%lld",
			       what, p->type == VRF_MAP_VALUE ? "value_size" : "mem_size",
			       (unsigned long long)limit, (long long)lo, (long long)size);
	if (lo < 0 || hi > (int64_t)limit)
		return vrf_err(
		    env, -EACCES, "invalid access to %s, %s=%llu off=[%lld,%lld] size=%lld", what,
		    p->type == VRF_MAP_VALUE ? "value_size" : "mem_size", (unsigned long long)limit,
		    (long long)lo, (long long)(hi - size), (long long)size);
	/* the lock word is bpf_spin_lock's alone (kernel: check_map_access) */
	if (p->type == VRF_MAP_VALUE && p->map->def.has_spin_lock &&
	    lo < (int64_t)p->map->def.spin_lock_off + 4 && hi > (int64_t)p->map->def.spin_lock_off)
		return vrf_err(env, -EACCES,
			       "bpf_spin_lock cannot be accessed directly by load/store");
	return 0;
}

static int pkt_check(struct vrf_env *env, int regno, const struct vrf_reg *p, int off, int64_t size)
{
	if (p->smin < 0)
		return vrf_err(env, -EACCES, "R%d min value is negative for a packet pointer",
			       regno);
	int64_t lo = (int64_t)p->off + off, hi = lo + size;
	if (lo < 0 || hi > (int64_t)p->range)
		return vrf_err(
		    env, -EACCES,
		    "invalid access to packet, off=%lld size=%lld, R%d(id=%u,off=%d,r=%u)",
		    (long long)lo, (long long)size, regno, p->id, p->off, p->range);
	return 0;
}

/* The kernel's bpf_tcp_sock_is_valid_access: the two u64 counters are read
 * whole, every other field as its u32. */
static bool tcp_sock_access_ok(int64_t o, int size)
{
	if (o < 0 || o >= BPFVM_TCP_SOCK_VIEW_SIZE || o % size)
		return false;
	if (o == BPFVM_TCP_SOCK_U64_A || o == BPFVM_TCP_SOCK_U64_B)
		return size == 8;
	return size == 4;
}

static const char *btf_obj_name(uint32_t obj)
{
	if (obj == BPFVM_BTF_KERN_CTX)
		return "bpf_sock_ops_kern";
	return obj == BPFVM_BTF_MPTCP_SOCK ? "mptcp_sock" : "tcp_sock";
}

/* A read through a helper-returned kernel-typed pointer (the kernel's
 * btf_struct_access): only inside one integer field of the struct the
 * program type publishes, which is what CO-RE relocated offsets point at. */
static int btf_access(struct vrf_env *env, uint32_t obj, int64_t o, int size)
{
	const struct bpfvm_prog_type *type = env->prog->type;
	uint32_t id = obj < BPFVM_BTF_NR ? type->btf_ids[obj] : 0;
	char why[96];
	if (!type->btf || !id)
		return vrf_err(
		    env, -EACCES,
		    "access to a kernel-typed %s: program type %s publishes no BTF for it",
		    btf_obj_name(obj), type->name);
	if (!env->btf_parsed) {
		int err = bpfvm_btf_parse(type->btf, type->btf_len, &env->btf, why, sizeof(why));
		if (err == -EINVAL)
			return vrf_err(env, -EINVAL, "the %s BTF: %s", type->name, why);
		if (err)
			return err;
		env->btf_parsed = true;
	}
	const char *field = NULL;
	if (o < 0 || o > INT32_MAX ||
	    bpfvm_btf_scalar_at(&env->btf, id, (uint64_t)o, (uint32_t)size, &field))
		return vrf_err(
		    env, -EACCES,
		    "invalid access to struct %s off=%lld size=%d: not inside one integer "
		    "field of the %s BTF",
		    btf_obj_name(obj), (long long)o, size, type->name);
	return 0;
}

/* sign: a sign-extending load (BPF_MEMSX). Its result is bounded as the
 * engines compute it; the loads that yield pointers have no signed form. */
static int ctx_access(struct vrf_env *env, int regno, const struct vrf_reg *p, int off, int size,
		      bool write, struct vrf_reg *dst, bool sign)
{
	const struct bpfvm_prog_type *type = env->prog->type;
	char why[80] = "";
	if (!vrf_tnum_is_const(p->var) || p->var.value)
		return vrf_err(env, -EACCES, "R%d variable ctx access disallowed", regno);
	int64_t o = (int64_t)p->off + off;
	struct bpfvm_ctx_access acc = {.field = -1};
	int err = -EACCES;
	if (o >= 0 && o < (int64_t)type->ctx_size)
		err = type->ctx_access((uint32_t)o, (uint32_t)size, write, &acc, why, sizeof(why));
	else
		snprintf(why, sizeof why, "outside the %u-byte context", type->ctx_size);
	if (err)
		return vrf_err(env, -EACCES, "invalid bpf_context %s off=%lld size=%d: %s",
			       write ? "write" : "access", (long long)o, size,
			       why[0] ? why : "not allowed");
	if (acc.field >= 0) {
		err = vrf_record_ctx_field(env, env->insn_idx, acc.field);
		if (err)
			return err;
		if (!write && (uint32_t)acc.field < 64)
			env->prog->ctx_fields |= 1ull << acc.field;
	}
	if (!dst)
		return 0;
	if (sign && acc.result != BPFVM_CTX_SCALAR)
		return vrf_err(
		    env, -EACCES,
		    "invalid bpf_context access off=%lld size=%d: sign-extending pointer load",
		    (long long)o, size);
	switch (acc.result) {
	case BPFVM_CTX_SOCK_OR_NULL:
		if (size != 8)
			return vrf_err(
			    env, -EACCES,
			    "invalid bpf_context access off=%lld size=%d: partial pointer load",
			    (long long)o, size);
		vrf_mark_ptr(dst, VRF_PTR_SOCK_OR_NULL);
		dst->id = env->next_id++;
		break;
	case BPFVM_CTX_PKT:
	case BPFVM_CTX_PKT_END:
		if (size != 8)
			return vrf_err(
			    env, -EACCES,
			    "invalid bpf_context access off=%lld size=%d: partial pointer load",
			    (long long)o, size);
		vrf_mark_ptr(dst, acc.result == BPFVM_CTX_PKT ? VRF_PTR_PKT : VRF_PTR_PKT_END);
		break;
	default:
		vrf_reg_bound_size(dst, size, sign);
		break;
	}
	return 0;
}

/* One load or store of size bytes at regs[regno] + off. val: the stored
 * register (NULL for BPF_ST or loads); dst: where a load goes. */
static int access(struct vrf_env *env, int regno, int off, int size, bool write,
		  const struct vrf_reg *val, int valno, struct vrf_reg *dst, bool sign, bool atomic)
{
	struct vrf_reg *p = &vrf_cur_regs(env)[regno];
	int64_t o = 0;
	int err;

	if (p->type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", regno);
	/* A privileged loader may keep pointers in map values, as the kernel's
	 * allow_ptr_leaks does: loads from a map value are scalars whatever was
	 * stored, so the bytes are only ever numbers to the program. Into ctx,
	 * records and packets pointers stay refused for everyone. */
	bool leak_ok =
	    p->type == VRF_PTR_STACK || (p->type == VRF_MAP_VALUE && env->prog->allow_ptr_leaks);
	if (val && write && vrf_reg_is_ptr(val) && !leak_ok)
		return vrf_err(env, -EACCES, "R%d leaks addr into %s", valno,
			       p->type == VRF_PTR_CTX	  ? "ctx"
			       : p->type == VRF_MAP_VALUE ? "map"
							  : "mem");
	switch (p->type) {
	case VRF_PTR_CTX:
		if (atomic)
			return vrf_err(env, -EACCES,
				       "BPF_ATOMIC stores into R%d ctx is not allowed", regno);
		return ctx_access(env, regno, p, off, size, write, dst, sign);
	case VRF_PTR_STACK:
		if (!vrf_tnum_is_const(p->var) && !atomic)
			return stack_var_access(env, regno, p, off, size, write, val, valno, dst,
						sign);
		err = stack_off(env, regno, p, off, size, &o);
		if (err)
			return err;
		env->acc_sframe = p->frameno;
		env->acc_slot = (int)(o + BPFVM_STACK_SIZE) / 8;
		if (atomic) {
			err = stack_read(env, p, o, size, NULL, false);
			if (err)
				return err;
			struct vrf_slot *s = slot_of(env->cur->frames[p->frameno], o);
			if (s->type[0] == VRF_ST_SPILL && s->spill.type != VRF_SCALAR)
				return vrf_err(env, -EACCES, "R%d atomic on a spilled pointer",
					       regno);
			return stack_write(env, p, o, size, NULL, 0);
		}
		if (write) {
			/* a constant store keeps its value when it fills a slot */
			struct vrf_reg imm;
			if (!val && size == 8) {
				vrf_mark_const(&imm,
					       (uint64_t)(int64_t)env->insns[env->insn_idx].imm);
				val = &imm;
			}
			return stack_write(env, p, o, size, val, valno);
		}
		return stack_read(env, p, o, size, dst, sign);
	case VRF_MAP_VALUE:
		if ((write || atomic) && bpfvm_map_prog_rdonly(p->map))
			return map_write_forbidden(env, p, off, size);
		err = region_check(env, regno, p, off, size, p->map->def.value_size, "map value");
		break;
	case VRF_PTR_MEM:
		if ((write || atomic) && (p->pad & VRF_MEM_RDONLY))
			return vrf_err(env, -EACCES, "cannot write into read-only memory");
		err = region_check(env, regno, p, off, size, p->range, "mem");
		break;
	case VRF_PTR_PKT:
		if (write || atomic)
			return vrf_err(env, -EACCES, "cannot write into packet");
		err = pkt_check(env, regno, p, off, size);
		break;
	case VRF_PTR_SOCK:
		if (write || atomic)
			return vrf_err(env, -EACCES, "cannot write into sock");
		if (!vrf_tnum_is_const(p->var))
			return vrf_err(env, -EACCES, "R%d variable sock access disallowed", regno);
		o = (int64_t)p->off + off + (int64_t)p->var.value;
		if (o < 0 || o + size > SOCK_VIEW_SIZE || size > 4 || o % size)
			return vrf_err(env, -EACCES, "invalid bpf_sock access off=%lld size=%d",
				       (long long)o, size);
		err = 0;
		break;
	case VRF_PTR_TCP_SOCK:
		if (write || atomic)
			return vrf_err(env, -EACCES, "cannot write into tcp_sock");
		if (!vrf_tnum_is_const(p->var))
			return vrf_err(env, -EACCES, "R%d variable tcp_sock access disallowed",
				       regno);
		o = (int64_t)p->off + off + (int64_t)p->var.value;
		if (!tcp_sock_access_ok(o, size))
			return vrf_err(env, -EACCES, "invalid tcp_sock access off=%lld size=%d",
				       (long long)o, size);
		err = 0;
		break;
	case VRF_PTR_BTF:
		if (write || atomic)
			return vrf_err(env, -EACCES, "cannot write into a kernel-typed %s",
				       btf_obj_name(p->range));
		if (!vrf_tnum_is_const(p->var))
			return vrf_err(env, -EACCES, "R%d variable %s access disallowed", regno,
				       btf_obj_name(p->range));
		o = (int64_t)p->off + off + (int64_t)p->var.value;
		err = btf_access(env, p->range, o, size);
		break;
	default:
		return vrf_err(env, -EACCES, "R%d invalid mem access '%s'", regno,
			       vrf_type_name(p->type));
	}
	if (err)
		return err;
	if (dst)
		vrf_reg_bound_size(dst, size, sign);
	return 0;
}

int vrf_check_mem(struct vrf_env *env, const struct bpfvm_insn *insn)
{
	struct vrf_reg *regs = vrf_cur_regs(env);
	uint8_t cls = BPF_CLASS(insn->code);
	int size = bpfvm_insn_size(insn->code);
	struct vrf_reg out;
	int err;

	if (cls == BPF_LDX) {
		if (insn->dst == VRF_FP)
			return vrf_err(env, -EACCES, "frame pointer is read only");
		bool sign = BPF_MODE(insn->code) == BPF_MEMSX;
		err = access(env, insn->src, insn->off, size, false, NULL, 0, &out, sign, false);
		if (err)
			return err;
		if (size < 8)
			vrf_mark_zext(env, env->insn_idx);
		regs[insn->dst] = out;
		return 0;
	}
	if (cls == BPF_ST)
		return access(env, insn->dst, insn->off, size, true, NULL, 0, NULL, false, false);
	if (regs[insn->src].type == VRF_NOT_INIT)
		return vrf_err(env, -EACCES, "R%d !read_ok", insn->src);
	if (BPF_MODE(insn->code) == BPF_MEM)
		return access(env, insn->dst, insn->off, size, true, &regs[insn->src], insn->src,
			      NULL, false, false);
	/* atomics: the operand must be a scalar, memory readable and writable */
	int imm = insn->imm;
	if (vrf_reg_is_ptr(&regs[insn->src]))
		return vrf_err(env, -EACCES, "R%d leaks addr into %s", insn->src,
			       regs[insn->dst].type == VRF_MAP_VALUE ? "map" : "mem");
	if (imm == BPF_CMPXCHG) {
		if (regs[0].type == VRF_NOT_INIT)
			return vrf_err(env, -EACCES, "R0 !read_ok");
		if (vrf_reg_is_ptr(&regs[0]))
			return vrf_err(env, -EACCES, "R0 leaks addr into mem");
	}
	/* Atomics must be naturally aligned whatever the pointer (the kernel
	 * checks them strictly on every arch): a locked op across a cache line
	 * is a split lock natively, and undefined behaviour in C. Every region
	 * an atomic may reach starts 8-byte aligned. */
	const struct vrf_reg *p = &regs[insn->dst];
	if (vrf_reg_is_ptr(p)) {
		struct vrf_tnum a =
		    vrf_tnum_add(p->var, vrf_tnum_const((uint64_t)((int64_t)p->off + insn->off)));
		if ((a.value | a.mask) & (uint64_t)(size - 1)) {
			char t[64];
			vrf_tnum_str(t, sizeof t, p->var);
			return vrf_err(env, -EACCES,
				       "misaligned atomic access off %s+%d+%d size %d", t, p->off,
				       insn->off, size);
		}
	}
	err = access(env, insn->dst, insn->off, size, false, NULL, 0, &out, false, true);
	if (err)
		return err;
	if (imm == BPF_CMPXCHG)
		vrf_reg_bound_size(&regs[0], size, false);
	else if (imm & BPF_FETCH)
		vrf_reg_bound_size(&regs[insn->src], size, false);
	return 0;
}

static struct bpfvm_map *held_map(struct vrf_env *env, uint64_t ptr)
{
	for (size_t i = 0; i < env->prog->nmaps; i++)
		if ((uint64_t)(uintptr_t)env->prog->maps[i] == ptr)
			return env->prog->maps[i];
	return NULL;
}

int vrf_check_ld_imm64(struct vrf_env *env, const struct bpfvm_insn *insn)
{
	struct vrf_reg *dst = &vrf_cur_regs(env)[insn->dst];
	uint64_t v = (uint64_t)(uint32_t)insn[0].imm | ((uint64_t)(uint32_t)insn[1].imm << 32);
	int idx = env->insn_idx;

	if (insn->dst == VRF_FP)
		return vrf_err(env, -EACCES, "frame pointer is read only");
	switch (insn->src) {
	case 0:
		vrf_mark_const(dst, v);
		return 0;
	case BPF_PSEUDO_FUNC:
		vrf_mark_ptr(dst, VRF_PTR_FUNC);
		dst->off = insn->imm; /* relocated: absolute insn index */
		return 0;
	case BPF_PSEUDO_MAP_FD: {
		struct bpfvm_map *m = held_map(env, v);
		if (!m)
			return vrf_err(env, -EINVAL,
				       "ld_imm64 refers to a map the program does not hold");
		env->prog->aux[idx].map_ptr = 1;
		vrf_mark_ptr(dst, VRF_CONST_MAP);
		dst->map = m;
		return 0;
	}
	default: /* BPF_PSEUDO_MAP_VALUE: value address of an array map's element 0 */
		for (size_t i = 0; i < env->prog->nmaps; i++) {
			struct bpfvm_map *m = env->prog->maps[i];
			if (m->def.type != BPFVM_MAP_ARRAY)
				continue;
			uintptr_t base = (uintptr_t)vrf_map_value0(m);
			if (!base || v < base || v >= base + m->def.value_size)
				continue;
			/* a one-element array only (kernel array_map_direct_value_addr):
			 * with more, element 0's address would alias what the
			 * lock pairing and the callbacks take for other elements */
			if (m->def.max_entries != 1)
				return vrf_err(env, -EINVAL,
					       "invalid access to map value pointer: a direct "
					       "value address needs a one-element array, the map "
					       "has %u",
					       m->def.max_entries);
			env->prog->aux[idx].map_ptr = 1;
			vrf_mark_ptr(dst, VRF_MAP_VALUE);
			dst->map = m;
			dst->off = (int32_t)(v - base);
			return 0;
		}
		return vrf_err(env, -EINVAL,
			       "ld_imm64 map value address is in no map the program holds");
	}
}

/* The value of the all-zero key (element 0 of an array), for the checks the
 * verifier makes on a map's contents. The key buffer has the map's key size:
 * the lookup reads key_size bytes, whatever the map type. */
void *vrf_map_value0(const struct bpfvm_map *map)
{
	_Alignas(8) uint8_t key[BPFVM_STACK_SIZE] = {0};
	if (map->def.key_size == 0 || map->def.key_size > sizeof key)
		return NULL;
	return bpfvm_map_lookup((struct bpfvm_map *)map, key);
}

/* A helper's memory argument: size_min..size_max bytes at regs[regno],
 * accessed as the helper's contract says. READ: initialised, no pointer in
 * them, unchanged. WRITE: as READ, and every byte is an unknown scalar after
 * (a spilled value there is gone). UNINIT_WRITE: need not be initialised;
 * the first size_min bytes are surely written (the helper writes every byte
 * the size it is given names), the rest stay uninitialised if they were and
 * lose any spilled or known-zero value if they were not. Writes are refused
 * into memory programs may only read (.rodata, packet, read-only records). */
int vrf_check_mem_range(struct vrf_env *env, int regno, uint64_t size_min, uint64_t size_max,
			uint8_t access, bool zero_ok)
{
	struct vrf_reg *p = &vrf_cur_regs(env)[regno];
	bool write = access == BPFVM_MEM_WRITE || access == BPFVM_MEM_UNINIT_WRITE;
	bool uninit = access == BPFVM_MEM_UNINIT_WRITE;
	int64_t o;
	if (size_max == 0 && zero_ok)
		return 0;
	if (size_max == 0)
		return vrf_err(env, -EACCES, "R%d invalid zero-sized access", regno);
	if (size_max > VRF_MAX_MEM_SIZE)
		return vrf_err(env, -EACCES, "R%d memory size %llu too large", regno,
			       (unsigned long long)size_max);
	switch (p->type) {
	case VRF_PTR_STACK: {
		if (!vrf_tnum_is_const(p->var))
			return vrf_err(env, -EACCES, "R%d variable stack access disallowed", regno);
		o = (int64_t)p->off + (int64_t)p->var.value;
		if (o < -BPFVM_STACK_SIZE || o + (int64_t)size_max > 0)
			return vrf_err(
			    env, -EACCES,
			    "invalid stack access off=%lld size=%llu (frame limit %d bytes)",
			    (long long)o, (unsigned long long)size_max, BPFVM_STACK_SIZE);
		struct vrf_frame *fr = env->cur->frames[p->frameno];
		bump_depth(env, p->frameno, o);
		for (int64_t b = o; b < o + (int64_t)size_max; b++) {
			struct vrf_slot *s = slot_of(fr, b);
			if (uninit) {
				bool surely = b < o + (int64_t)size_min;
				if (!surely && *byte_type(fr, b) == VRF_ST_INVALID)
					continue;
				break_spill(fr, b, 1);
				*byte_type(fr, b) = VRF_ST_MISC;
				continue;
			}
			uint8_t t = *byte_type(fr, b);
			if (t == VRF_ST_INVALID)
				return vrf_err(
				    env, -EACCES,
				    "invalid indirect read from stack R%d off %lld+%lld size %llu",
				    regno, (long long)o, (long long)(b - o),
				    (unsigned long long)size_max);
			if (t == VRF_ST_SPILL && s->spill.type != VRF_SCALAR)
				return vrf_err(env, -EACCES,
					       "R%d leaks pointer from stack into helper", regno);
		}
		if (write && !uninit) {
			/* read, then possibly rewritten: unknown scalar bytes */
			break_spill(fr, o, (int)size_max);
			for (int64_t b = o; b < o + (int64_t)size_max; b++)
				*byte_type(fr, b) = VRF_ST_MISC;
		}
		return 0;
	}
	case VRF_MAP_VALUE:
		if (write && bpfvm_map_prog_rdonly(p->map))
			return map_write_forbidden(env, p, 0, (int64_t)size_max);
		return region_check(env, regno, p, 0, (int64_t)size_max, p->map->def.value_size,
				    "map value");
	case VRF_PTR_MEM:
		if (write && (p->pad & VRF_MEM_RDONLY))
			return vrf_err(env, -EACCES, "cannot write into read-only memory");
		return region_check(env, regno, p, 0, (int64_t)size_max, p->range, "mem");
	case VRF_PTR_PKT:
		if (write)
			return vrf_err(env, -EACCES, "cannot write into packet");
		return pkt_check(env, regno, p, 0, (int64_t)size_max);
	default:
		return vrf_err(env, -EACCES, "R%d type=%s expected=fp, pkt, map_value, mem", regno,
			       vrf_type_name(p->type));
	}
}
