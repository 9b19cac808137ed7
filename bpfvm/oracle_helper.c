/* The oracle at a helper call (oracle_helper): arguments checked by their
 * kind against the tags of the registers passing them, memory arguments
 * handed to the helper in exact-size bounce buffers so that an access past
 * the size it was given shows, compared afterwards (read arguments must come
 * back unchanged, output arguments filled), and r0 tagged by the helper's
 * return contract. The provenance it checks against is oracle.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_int.h"

#define ORACLE_BOUNCE_MAX 4096 /* larger helper buffers are checked in place */

struct bounce {
	uint8_t *buf;  /* what the helper gets */
	uint8_t *orig; /* a copy of the original bytes (read arguments) */
	uint64_t addr, size;
	int arg;    /* 0..4 */
	bool out;   /* uninit-write: the helper must fill it */
	bool write; /* the helper may change it */
};

static uint8_t poison(uint64_t i)
{
	return (uint8_t)(0xa5 ^ (i * 0x3b) ^ (i >> 8));
}

/* Spilled pointers a helper would read from the stack as bytes: a leak for
 * an unprivileged loader (the helper may copy them anywhere). */
static bool stack_bytes_ok(struct oracle *o, const struct bpfvm_prog *prog,
			   const struct bpfvm_insn *ip, struct oracle_tag t, uint64_t addr,
			   uint64_t size, const char *hn, int arg)
{
	if (t.kind != OK_STACK || !o->unpriv)
		return true;
	for (uint64_t a = addr & ~7ull; a < addr + size; a += 8)
		if (oracle_is_ptr(*oracle_slot_of(o, a)))
			return oracle_fail(o, prog, ip,
					   "helper %s arg %d reads a spilled %s pointer "
					   "(unprivileged)",
					   hn, arg, oracle_tag_name(o, *oracle_slot_of(o, a)));
	return true;
}

static bool is_sock_tag(const struct oracle *o, struct oracle_tag t)
{
	return t.kind == OK_REGION && o->regions[t.idx].kind == OR_SOCK;
}

/* The byte count of memory argument a (MEM, MAP_KEY, MAP_VALUE). */
static uint64_t arg_size(const struct bpfvm_arg *a, const struct bpfvm_map *map,
			 const uint64_t *reg)
{
	if (a->kind == BPFVM_ARG_MAP_KEY)
		return map ? map->def.key_size : 0;
	if (a->kind == BPFVM_ARG_MAP_VALUE)
		return map ? map->def.value_size : 0;
	if (a->size_arg >= 1 && a->size_arg <= 5)
		return reg[a->size_arg];
	return a->size;
}

static bool check_args(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		       const struct bpfvm_helper *h, const uint64_t *reg, struct oracle_regs *t,
		       uint32_t depth, struct bounce *b, int *nb, const struct bpfvm_map **mapp)
{
	const struct bpfvm_map *map = NULL;
	const char *hn = h->name;
	if ((h->flags & BPFVM_HF_PRIV) && o->unpriv)
		return oracle_fail(o, prog, ip, "helper %s is for privileged loaders only", hn);
	for (int i = 0; i < 5; i++) /* the map first: key and value sizes are its */
		if (h->args[i].kind == BPFVM_ARG_MAP) {
			struct oracle_tag at = t->r[i + 1];
			if (at.kind != OK_MAP || at.idx >= prog->nmaps)
				return oracle_fail(o, prog, ip, "helper %s arg %d: %s, not a map",
						   hn, i + 1, oracle_tag_name(o, at));
			map = prog->maps[at.idx];
			if (h->map_types && !(h->map_types & BPFVM_MAPT(map->def.type)))
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: map type %u not in its "
						   "contract",
						   hn, i + 1, map->def.type);
		}
	for (int i = 0; i < 5; i++) {
		const struct bpfvm_arg *a = &h->args[i];
		struct oracle_tag at = t->r[i + 1];
		uint64_t v = reg[i + 1], size = 0;
		bool or_null = a->flags & BPFVM_ARGF_OR_NULL;
		switch (a->kind) {
		case BPFVM_ARG_NONE:
		case BPFVM_ARG_SIZE:
		case BPFVM_ARG_CB_CTX:
		case BPFVM_ARG_ADDR:
		case BPFVM_ARG_MAP:
			continue;
		case BPFVM_ARG_ANYTHING:
			if (oracle_is_ptr(at) && o->unpriv)
				return oracle_fail(
				    o, prog, ip,
				    "helper %s arg %d: a %s pointer given as a value "
				    "by an unprivileged program",
				    hn, i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_SCALAR:
			if (oracle_is_ptr(at))
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: a %s pointer where the "
						   "contract wants a scalar",
						   hn, i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_FUNC:
			if (at.kind != OK_FUNC)
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: %s, not a callback", hn,
						   i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_CTX:
			if (at.kind != OK_CTX || v != o->ctx)
				return oracle_fail(o, prog, ip, "helper %s arg %d: %s, not the ctx",
						   hn, i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_KERN_CTX:
			/* the kernel context is the ctx itself here (hooks) */
			if (at.kind != OK_CTX || v != o->ctx)
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: %s, not the kernel ctx", hn,
						   i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_SOCK:
			if ((or_null && !v) || is_sock_tag(o, at))
				continue;
			return oracle_fail(o, prog, ip, "helper %s arg %d: %s, not a socket", hn,
					   i + 1, oracle_tag_name(o, at));
		case BPFVM_ARG_RINGBUF_MEM:
			if (at.kind != OK_REGION || o->regions[at.idx].kind != OR_RINGBUF ||
			    o->regions[at.idx].dead || o->regions[at.idx].base != v)
				return oracle_fail(
				    o, prog, ip, "helper %s arg %d: %s, not a live ringbuf record",
				    hn, i + 1, oracle_tag_name(o, at));
			continue;
		case BPFVM_ARG_SPIN_LOCK: {
			const struct oracle_region *r =
			    at.kind == OK_REGION ? &o->regions[at.idx] : NULL;
			if (!r || r->kind != OR_MAP_VALUE || !r->map)
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: %s, not a map value", hn,
						   i + 1, oracle_tag_name(o, at));
			if (!r->map->def.has_spin_lock || v != r->base + r->map->def.spin_lock_off)
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: value off %lld is not the "
						   "map's bpf_spin_lock",
						   hn, i + 1, (long long)(v - r->base));
			if (!oracle_access_ok(o, prog, ip, at, v, 4, true, depth, "helper"))
				return false;
			continue;
		}
		case BPFVM_ARG_STR:
			if (!oracle_access_ok(o, prog, ip, at, v, 1, false, depth, "helper"))
				return false;
			if (at.kind != OK_REGION || !o->regions[at.idx].ro)
				return oracle_fail(o, prog, ip,
						   "helper %s arg %d: format string not in a "
						   "read-only map",
						   hn, i + 1);
			continue;
		case BPFVM_ARG_MAP_KEY:
		case BPFVM_ARG_MAP_VALUE:
		case BPFVM_ARG_MEM:
			size = arg_size(a, map, reg);
			if (or_null && !v)
				continue;
			break;
		default:
			return oracle_fail(o, prog, ip,
					   "helper %s arg %d: kind %u unknown to the "
					   "oracle",
					   hn, i + 1, a->kind);
		}
		if (!size)
			continue;
		bool out = a->access == BPFVM_MEM_UNINIT_WRITE;
		bool write = out || a->access == BPFVM_MEM_WRITE;
		if (!oracle_access_ok(o, prog, ip, at, v, size, false, depth, "helper") ||
		    (write && !oracle_access_ok(o, prog, ip, at, v, size, true, depth, "helper")) ||
		    (!out && !stack_bytes_ok(o, prog, ip, at, v, size, hn, i + 1)))
			return false;
		if (at.kind == OK_STACK && write)
			for (uint64_t x = v & ~7ull; x < v + size; x += 8)
				*oracle_slot_of(o, x) = oracle_tag_of(OK_SCALAR, 0);
		if (size > ORACLE_BOUNCE_MAX || at.kind == OK_PKT)
			continue;
		struct bounce *x = &b[(*nb)++];
		x->addr = v;
		x->size = size;
		x->arg = i;
		x->out = out;
		x->write = write;
		x->buf = malloc(size);
		x->orig = malloc(size);
		if (!x->buf || !x->orig)
			abort(); /* the oracle is a test tool */
		if (out) {
			for (uint64_t j = 0; j < size; j++)
				x->buf[j] = poison(j);
		} else {
			memcpy(x->buf, (const void *)(uintptr_t)v, size);
		}
		memcpy(x->orig, x->buf, size);
	}
	*mapp = map;
	return true;
}

/* After the call: read arguments unchanged, output arguments filled,
 * written ones copied back. */
static bool check_bounces(struct oracle *o, const struct bpfvm_prog *prog,
			  const struct bpfvm_insn *ip, const struct bpfvm_helper *h,
			  struct bounce *b, int nb, uint64_t r0)
{
	bool ok = true;
	for (int i = 0; i < nb && ok; i++) {
		struct bounce *x = &b[i];
		if (!x->write) {
			for (uint64_t j = 0; j < x->size; j++)
				if (x->buf[j] != x->orig[j]) {
					ok = oracle_fail(o, prog, ip,
							 "helper %s wrote byte %llu of a %llu-byte "
							 "argument its contract says it only reads",
							 h->name, (unsigned long long)j,
							 (unsigned long long)x->size);
					break;
				}
			continue;
		}
		/* a run of 4 or more untouched poison bytes (or all of a shorter
		 * buffer): not written (a helper writing exactly the pattern
		 * there is a 2^-32 chance) */
		uint64_t run = 0;
		for (uint64_t j = 0; x->out && j < x->size && ok; j++) {
			run = x->buf[j] == poison(j) ? run + 1 : 0;
			if (run == 4 || (x->size < 4 && run == x->size))
				ok = oracle_fail(o, prog, ip,
						 "helper %s left bytes %llu.. of its %llu-byte "
						 "uninit-write argument unwritten (returned %lld)",
						 h->name, (unsigned long long)(j + 1 - run),
						 (unsigned long long)x->size, (long long)r0);
		}
		memcpy((void *)(uintptr_t)x->addr, x->buf, x->size);
	}
	for (int i = 0; i < nb; i++) {
		free(b[i].buf);
		free(b[i].orig);
	}
	return ok;
}

static bool ret_tag(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		    const struct bpfvm_helper *h, const struct bpfvm_map *map, const uint64_t *reg,
		    uint64_t r0, struct oracle_tag *out)
{
	int r = -1;
	*out = oracle_tag_of(OK_SCALAR, 0);
	if (h->ret == BPFVM_RET_INTEGER && ((int64_t)r0 < h->ret_min || (int64_t)r0 > h->ret_max))
		return oracle_fail(
		    o, prog, ip, "helper %s returned %lld, outside its contract's [%lld, %lld]",
		    h->name, (long long)r0, (long long)h->ret_min, (long long)h->ret_max);
	if (!r0)
		return true;
	switch (h->ret) {
	case BPFVM_RET_MAP_VALUE_OR_NULL:
		if (!map)
			break;
		r = oracle_region_add(
		    o, map->def.type == BPFVM_MAP_SK_STORAGE ? OR_SK_STORAGE : OR_MAP_VALUE, r0,
		    map->def.value_size, map, oracle_map_ro(map));
		break;
	case BPFVM_RET_MEM_OR_NULL:
		r = oracle_region_add(o, OR_RINGBUF, r0, reg[2], map, false);
		break;
	case BPFVM_RET_TCP_SOCK_OR_NULL:
		r = oracle_region_add(o, OR_SOCK, r0, BPFVM_TCP_SOCK_VIEW_SIZE, NULL, true);
		break;
	case BPFVM_RET_BTF_TCP_SOCK_OR_NULL:
		r = oracle_region_add(o, OR_SOCK, r0, o->btf_size[BPFVM_BTF_TCP_SOCK], NULL, true);
		break;
	case BPFVM_RET_BTF_MPTCP_SOCK_OR_NULL:
		r = oracle_region_add(o, OR_SOCK, r0, o->btf_size[BPFVM_BTF_MPTCP_SOCK], NULL,
				      true);
		break;
	case BPFVM_RET_BTF_KERN_CTX:
		/* bpf_cast_to_kern_ctx: the same ctx, which only kfuncs take */
		*out = oracle_tag_of(OK_CTX, 0);
		return true;
	default:
		return true;
	}
	if (r < 0)
		return oracle_fail(o, prog, ip, "oracle region table full");
	if (h->flags & BPFVM_HF_ACQUIRE)
		o->refs++;
	*out = oracle_tag_of(OK_REGION, (uint16_t)r);
	return true;
}

/* What the call ended or began: records released, locks taken and given. */
static void after_call(struct oracle *o, const struct bpfvm_helper *h, struct oracle_regs *t)
{
	for (int i = 0; i < 5; i++) {
		const struct bpfvm_arg *a = &h->args[i];
		struct oracle_tag at = t->r[i + 1];
		bool release = a->flags & BPFVM_ARGF_RELEASE;
		if (a->kind == BPFVM_ARG_RINGBUF_MEM && release) {
			o->regions[at.idx].dead = true;
			o->refs--;
		} else if (a->kind == BPFVM_ARG_SPIN_LOCK) {
			o->lock = release ? -1 : at.idx;
		}
	}
}

uint64_t oracle_helper(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		       const struct bpfvm_helper *h, const uint64_t *reg, struct oracle_regs *t,
		       struct bpfvm_run *run)
{
	struct bounce b[5];
	int nb = 0;
	const struct bpfvm_map *map = NULL;
	/* the interpreter's live depth: the frame R10 names is the deepest */
	uint32_t depth = (uint32_t)t->r[10].idx + 1;
	bool locks = false, unlocks = false;
	for (int i = 0; i < 5; i++)
		if (h->args[i].kind == BPFVM_ARG_SPIN_LOCK) {
			unlocks = h->args[i].flags & BPFVM_ARGF_RELEASE;
			locks = !unlocks;
		}
	if (unlocks && o->lock < 0)
		return oracle_fail(o, prog, ip, "bpf_spin_unlock without a held lock"), 0;
	if (locks && o->lock >= 0)
		return oracle_fail(o, prog, ip, "bpf_spin_lock while holding one"), 0;
	if (!check_args(o, prog, ip, h, reg, t, depth, b, &nb, &map)) {
		for (int i = 0; i < nb; i++)
			free(b[i].buf), free(b[i].orig);
		return 0;
	}
	uint64_t a[5];
	memcpy(a, &reg[1], sizeof(a));
	for (int i = 0; i < nb; i++)
		a[b[i].arg] = (uint64_t)(uintptr_t)b[i].buf;
	struct oracle_cb saved = o->cb;
	o->cb = (struct oracle_cb){.map = map, .prog = prog};
	memcpy(o->cb.cb_args, h->cb_args, sizeof(o->cb.cb_args));
	for (int i = 0; i < 5; i++)
		if (h->args[i].kind == BPFVM_ARG_CB_CTX)
			o->cb.ctx_arg = t->r[i + 1];
	uint32_t first = o->nregions;
	uint64_t r0 = h->fn(a[0], a[1], a[2], a[3], a[4], run);
	o->cb = saved;
	/* a callback's key lives in the helper's frame: it dies with the call */
	for (uint32_t i = first; i < o->nregions; i++)
		if (o->regions[i].kind == OR_KEY)
			o->regions[i].dead = true;
	if (!check_bounces(o, prog, ip, h, b, nb, r0) || o->failed)
		return 0;
	after_call(o, h, t);
	struct oracle_tag r0t;
	if (!ret_tag(o, prog, ip, h, map, reg, r0, &r0t))
		return 0;
	t->r[0] = r0t;
	for (int i = 1; i <= 5; i++)
		t->r[i] = oracle_tag_of(OK_SCALAR, 0);
	return r0;
}
