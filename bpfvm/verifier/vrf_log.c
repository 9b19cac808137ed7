/* The verifier log in the kernel's spirit: on rejection the insn index, its
 * disassembly, the register state ("R1=ctx() R10=fp0 R2=scalar(umax=255)")
 * and a one-line reason; level 2 also logs every insn walked. Output goes to
 * the caller's bpfvm_log, which truncates rather than overflows. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vrf_int.h"

const char *vrf_type_name(uint8_t t)
{
	static const char *const names[VRF_NTYPES] = {
	    [VRF_NOT_INIT] = "?",
	    [VRF_SCALAR] = "scalar",
	    [VRF_PTR_CTX] = "ctx",
	    [VRF_PTR_STACK] = "fp",
	    [VRF_CONST_MAP] = "map_ptr",
	    [VRF_MAP_VALUE] = "map_value",
	    [VRF_MAP_VALUE_OR_NULL] = "map_value_or_null",
	    [VRF_PTR_PKT] = "pkt",
	    [VRF_PTR_PKT_END] = "pkt_end",
	    [VRF_PTR_SOCK] = "sock",
	    [VRF_PTR_SOCK_OR_NULL] = "sock_or_null",
	    [VRF_PTR_TCP_SOCK] = "tcp_sock",
	    [VRF_PTR_TCP_SOCK_OR_NULL] = "tcp_sock_or_null",
	    [VRF_PTR_BTF] = "btf_ptr",
	    [VRF_PTR_BTF_OR_NULL] = "btf_ptr_or_null",
	    [VRF_PTR_MEM] = "mem",
	    [VRF_PTR_MEM_OR_NULL] = "mem_or_null",
	    [VRF_PTR_FUNC] = "func",
	};
	return t < VRF_NTYPES ? names[t] : "?";
}

int vrf_err(struct vrf_env *env, int err, const char *fmt, ...)
{
	if (env->failed)
		return err; /* keep the first, most precise reason */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(env->why, sizeof env->why, fmt, ap);
	va_end(ap);
	env->failed = true;
	return err;
}

struct sbuf {
	char *p;
	size_t n, used;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	if (b->used >= b->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b->p + b->used, b->n - b->used, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->used = b->used + (size_t)k < b->n ? b->used + (size_t)k : b->n - 1;
}

/* Variable part of a scalar or pointer, only the bounds that say something. */
static void fmt_bounds(struct sbuf *b, const struct vrf_reg *r, bool lead)
{
	const char *sep = lead ? "," : "";
	if (r->smin != INT64_MIN && !(r->smin >= 0 && (uint64_t)r->smin == r->umin)) {
		sb_printf(b, "%ssmin=%lld", sep, (long long)r->smin);
		sep = ",";
	}
	if (r->smax != INT64_MAX && !(r->smax >= 0 && (uint64_t)r->smax == r->umax)) {
		sb_printf(b, "%ssmax=%lld", sep, (long long)r->smax);
		sep = ",";
	}
	if (r->umin) {
		sb_printf(b, "%sumin=%llu", sep, (unsigned long long)r->umin);
		sep = ",";
	}
	if (r->umax != UINT64_MAX) {
		sb_printf(b, "%sumax=%llu", sep, (unsigned long long)r->umax);
		sep = ",";
	}
	uint64_t full = r->umax == UINT64_MAX ? ~0ull : 0;
	if (r->var.mask != full && r->var.mask != ~0ull &&
	    vrf_tnum_range(r->umin, r->umax).mask != r->var.mask) {
		char t[48];
		vrf_tnum_str(t, sizeof t, r->var);
		sb_printf(b, "%svar_off=%s", sep, t);
	}
}

static void fmt_reg(struct sbuf *b, const struct vrf_reg *r)
{
	if (r->type == VRF_SCALAR) {
		if (vrf_tnum_is_const(r->var)) {
			sb_printf(b, "%lld", (long long)r->var.value);
			return;
		}
		sb_printf(b, "scalar(");
		if (r->id)
			sb_printf(b, "id=%u", r->id);
		fmt_bounds(b, r, r->id != 0);
		sb_printf(b, ")");
		return;
	}
	if (r->type == VRF_PTR_STACK && vrf_tnum_is_const(r->var)) {
		sb_printf(b, "fp%d", r->off + (int)r->var.value);
		return;
	}
	sb_printf(b, "%s(", vrf_type_name(r->type));
	bool lead = false;
	if (r->id) {
		sb_printf(b, "id=%u", r->id);
		lead = true;
	}
	if (r->map) {
		sb_printf(b, "%sks=%u,vs=%u", lead ? "," : "", r->map->def.key_size,
			  r->map->def.value_size);
		lead = true;
	}
	if (r->type == VRF_PTR_FUNC) {
		sb_printf(b, "%sinsn=%d", lead ? "," : "", r->off);
		lead = true;
	} else if (r->off) {
		sb_printf(b, "%soff=%d", lead ? "," : "", r->off);
		lead = true;
	}
	if (r->type == VRF_PTR_PKT || r->type == VRF_PTR_MEM || r->type == VRF_PTR_MEM_OR_NULL) {
		sb_printf(b, "%s%s=%u", lead ? "," : "", r->type == VRF_PTR_PKT ? "r" : "sz",
			  r->range);
		lead = true;
	}
	if (!vrf_tnum_is_const(r->var) || r->var.value)
		fmt_bounds(b, r, lead);
	sb_printf(b, ")");
}

static void fmt_state(struct vrf_env *env, struct sbuf *b)
{
	struct vrf_state *st = env->cur;
	if (!st)
		return;
	struct vrf_frame *fr = st->frames[st->curframe];
	if (st->curframe)
		sb_printf(b, "frame%d: ", st->curframe);
	bool first = true;
	for (int i = 0; i < VRF_NREGS; i++) {
		if (fr->regs[i].type == VRF_NOT_INIT)
			continue;
		sb_printf(b, "%sR%d=", first ? "" : " ", i);
		fmt_reg(b, &fr->regs[i]);
		first = false;
	}
	for (int s = VRF_SLOTS - 1; s >= 0; s--) {
		const struct vrf_slot *sl = &fr->stack[s];
		int off = s * 8 - BPFVM_STACK_SIZE;
		if (sl->type[0] == VRF_ST_SPILL) {
			sb_printf(b, " fp%d=", off);
			fmt_reg(b, &sl->spill);
			continue;
		}
		char c[9];
		bool any = false;
		for (int k = 0; k < 8; k++) {
			uint8_t t = sl->type[7 - k];
			c[k] = t == VRF_ST_MISC ? 'm' : t == VRF_ST_ZERO ? '0' : '?';
			any |= t != VRF_ST_INVALID;
		}
		c[8] = 0;
		if (any)
			sb_printf(b, " fp%d=%s", off, c);
	}
}

static uint32_t env_map_id(void *arg, uint64_t ptr)
{
	struct vrf_env *env = arg;
	for (size_t i = 0; i < env->prog->nmaps; i++)
		if ((uint64_t)(uintptr_t)env->prog->maps[i] == ptr)
			return bpfvm_map_id(env->prog->maps[i]);
	return 0;
}

static void disasm_at(struct vrf_env *env, int idx, char *buf, size_t n)
{
	const struct bpfvm_insn *in = &env->insns[idx];
	const struct bpfvm_insn *next = idx + 1 < env->n ? &in[1] : NULL;
	vrf_disasm(in, next, env_map_id, env, buf, n);
}

void vrf_log_insn(struct vrf_env *env, int idx)
{
	char d[128];
	disasm_at(env, idx, d, sizeof d);
	bpfvm_log_printf(env->log, "%d: (%02x) %s\n", idx, env->insns[idx].code, d);
}

void vrf_log_state(struct vrf_env *env)
{
	char s[4096];
	struct sbuf b = {s, sizeof s, 0};
	s[0] = 0;
	fmt_state(env, &b);
	bpfvm_log_printf(env->log, "%s\n", s);
}

void vrf_log_reject(struct vrf_env *env, int err)
{
	if (!env->failed) {
		bpfvm_log_printf(env->log, "verifier: internal error %d\n", err);
		return;
	}
	int idx = env->insn_idx;
	if (idx < 0 || idx >= env->n) {
		bpfvm_log_printf(env->log, "verifier: %s\n", env->why);
		return;
	}
	char d[128], s[4096];
	disasm_at(env, idx, d, sizeof d);
	bpfvm_log_printf(env->log, "verifier: insn %d: %s\n", idx, d);
	if (env->cur) {
		struct sbuf b = {s, sizeof s, 0};
		s[0] = 0;
		fmt_state(env, &b);
		bpfvm_log_printf(env->log, "verifier: state: %s\n", s);
	}
	bpfvm_log_printf(env->log, "verifier: insn %d: %s\n", idx, env->why);
}
