/* The checked-execution oracle: the checked interpreter, in oracle mode,
 * follows where every pointer came from (a register's tag, a spilled slot's
 * tag) and checks each access against the object the pointer was derived
 * from, not merely against "some valid memory": a map value pointer walked
 * into the next array element, a NULL packet pointer, a ctx field at the
 * wrong width, a write into .rodata, a pointer leaked to an unprivileged
 * loader, a record used after its release. Any of these in a program the
 * verifier accepted is a verifier (or helper contract) bug: the run stops
 * and the violation is reported with its insn. docs/oracle.md.
 * Helper calls are checked in oracle_helper.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_int.h"

static const char *const kind_names[] = {
    [OK_SCALAR] = "scalar", [OK_CTX] = "ctx", [OK_STACK] = "stack",	[OK_MAP] = "map_ptr",
    [OK_FUNC] = "func",	    [OK_PKT] = "pkt", [OK_PKT_END] = "pkt_end", [OK_REGION] = "region",
};

static const char *const region_names[] = {
    [OR_MAP_VALUE] = "map_value", [OR_SK_STORAGE] = "sk_storage", [OR_RINGBUF] = "ringbuf_mem",
    [OR_SOCK] = "sock",		  [OR_KEY] = "for_each key",
};

bool oracle_fail(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 const char *fmt, ...)
{
	if (o->failed)
		return false;
	o->failed = true;
	o->pc = ip ? (uint32_t)(ip - prog->insns) : 0;
	int n = snprintf(o->why, sizeof(o->why), "oracle: insn %u: ", o->pc);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why + n, sizeof(o->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

const char *oracle_tag_name(const struct oracle *o, struct oracle_tag t)
{
	if (t.kind == OK_REGION)
		return region_names[o->regions[t.idx].kind];
	return kind_names[t.kind];
}

static uint64_t frame_lo(const struct oracle *o, uint32_t d)
{
	return o->stack + (uint64_t)(BPFVM_MAX_CALL_DEPTH - 1 - d) * BPFVM_STACK_SIZE;
}

/* A region for [base, base+size); an equal live one is reused. -1 when the
 * table is full (the run then stops as a violation of the oracle's own
 * limit: loud rather than silently unchecked). */
int oracle_region_add(struct oracle *o, uint8_t kind, uint64_t base, uint64_t size,
		      const struct bpfvm_map *map, bool ro)
{
	for (uint32_t i = 0; i < o->nregions; i++) {
		struct oracle_region *r = &o->regions[i];
		if (!r->dead && r->kind == kind && r->base == base && r->size == size &&
		    r->map == map && kind != OR_RINGBUF)
			return (int)i;
	}
	if (o->nregions == ORACLE_REGIONS)
		return -1;
	o->regions[o->nregions] =
	    (struct oracle_region){.base = base, .size = size, .map = map, .kind = kind, .ro = ro};
	return (int)o->nregions++;
}

bool oracle_map_ro(const struct bpfvm_map *m)
{
	return bpfvm_map_prog_rdonly(m) || bpfvm_map_is_rdonly(m);
}

void oracle_init(struct oracle *o, const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
		 uint8_t *stack)
{
	memset(o, 0, sizeof(*o));
	o->prog = prog;
	o->ctx = (uint64_t)(uintptr_t)ctx;
	o->ctx_len = ctx_len;
	o->stack = (uint64_t)(uintptr_t)stack;
	o->unpriv = !prog->allow_ptr_leaks;
	o->pkt_off = o->pkt_end_off = -1;
	o->lock = -1;
	const struct bpfvm_prog_type *type = prog->type;
	for (uint32_t off = 0; type->ctx_access && off + 8 <= type->ctx_size; off += 8) {
		struct bpfvm_ctx_access acc = {0};
		char why[96];
		if (type->ctx_access(off, 8, false, &acc, why, sizeof(why)))
			continue;
		if (acc.result == BPFVM_CTX_PKT)
			o->pkt_off = (int)off;
		if (acc.result == BPFVM_CTX_PKT_END)
			o->pkt_end_off = (int)off;
	}
	if (type->btf) {
		struct bpfvm_btf btf;
		char why[96];
		if (bpfvm_btf_parse(type->btf, type->btf_len, &btf, why, sizeof(why)) == 0) {
			for (int i = 1; i < BPFVM_BTF_NR; i++)
				if (type->btf_ids[i])
					(void)bpfvm_btf_size(&btf, type->btf_ids[i],
							     &o->btf_size[i]);
			bpfvm_btf_fini(&btf);
		}
	}
}

void oracle_frame_enter(struct oracle *o, uint32_t depth)
{
	memset(&o->slot[(BPFVM_MAX_CALL_DEPTH - 1 - depth) * (BPFVM_STACK_SIZE / 8)], 0,
	       sizeof(o->slot[0]) * (BPFVM_STACK_SIZE / 8));
}

/* The region a for_each_map_elem value pointer lies in. */
static struct oracle_tag value_tag(struct oracle *o, const struct bpfvm_map *m, uint64_t v)
{
	if (!v || !m)
		return oracle_tag_of(OK_SCALAR, 0);
	int r = oracle_region_add(o, OR_MAP_VALUE, v, m->def.value_size, m, oracle_map_ro(m));
	return r < 0 ? oracle_tag_of(OK_SCALAR, 0) : oracle_tag_of(OK_REGION, (uint16_t)r);
}

void oracle_enter(struct oracle *o, struct oracle_regs *t, uint32_t depth, const uint64_t *args)
{
	memset(t, 0, sizeof(*t));
	t->r[10] = oracle_tag_of(OK_STACK, (uint16_t)depth);
	if (!o->started) {
		o->started = true;
		t->r[1] = oracle_tag_of(OK_CTX, 0);
		return;
	}
	o->nest++;
	/* a callback: its r1..r4 as its helper's contract entry says */
	const struct bpfvm_map *m = o->cb.map;
	for (int i = 0; i < 4; i++) {
		switch (o->cb.cb_args[i]) {
		case BPFVM_CB_MAP:
			for (size_t k = 0; o->cb.prog && k < o->cb.prog->nmaps; k++)
				if (o->cb.prog->maps[k] == m)
					t->r[i + 1] = oracle_tag_of(OK_MAP, (uint16_t)k);
			break;
		case BPFVM_CB_MAP_KEY: {
			int k = m ? oracle_region_add(o, OR_KEY, args[i], m->def.key_size, m, true)
				  : -1;
			if (k >= 0)
				t->r[i + 1] = oracle_tag_of(OK_REGION, (uint16_t)k);
			break;
		}
		case BPFVM_CB_MAP_VALUE:
			t->r[i + 1] = value_tag(o, m, args[i]);
			break;
		case BPFVM_CB_CTX:
			t->r[i + 1] = o->cb.ctx_arg;
			break;
		default:
			break;
		}
	}
}

/* ---- memory accesses ---------------------------------------------------- */

static bool in_range(uint64_t addr, uint64_t size, uint64_t lo, uint64_t len)
{
	return addr >= lo && addr - lo <= len && size <= len - (addr - lo);
}

/* May [addr, addr+size) be read (write=false) or written through a pointer
 * tagged t? ctx accesses go through the program type's own rule. */
bool oracle_access_ok(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		      struct oracle_tag t, uint64_t addr, uint64_t size, bool write, uint32_t depth,
		      const char *what)
{
	const char *op = write ? "write" : "read";
	switch (t.kind) {
	case OK_STACK: {
		if (t.idx >= depth)
			return oracle_fail(o, prog, ip,
					   "%s of %llu bytes through a pointer to frame %u, "
					   "which has returned",
					   op, (unsigned long long)size, t.idx);
		uint64_t lo = frame_lo(o, t.idx);
		if (!in_range(addr, size, lo, BPFVM_STACK_SIZE))
			return oracle_fail(o, prog, ip, "%s %s fp%lld size %llu outside frame %u",
					   what, op, (long long)(addr - lo - BPFVM_STACK_SIZE),
					   (unsigned long long)size, t.idx);
		return true;
	}
	case OK_CTX: {
		if (!in_range(addr, size, o->ctx, o->ctx_len))
			return oracle_fail(o, prog, ip, "%s ctx %s at %+lld size %llu outside ctx",
					   what, op, (long long)(addr - o->ctx),
					   (unsigned long long)size);
		struct bpfvm_ctx_access acc = {0};
		char why[96] = "";
		uint32_t off = (uint32_t)(addr - o->ctx);
		if (!prog->type->ctx_access ||
		    prog->type->ctx_access(off, (uint32_t)size, write, &acc, why, sizeof(why)))
			return oracle_fail(o, prog, ip, "%s ctx %s off %u size %llu refused: %s",
					   what, op, off, (unsigned long long)size, why);
		return true;
	}
	case OK_PKT: {
		if (o->pkt_off < 0 || o->pkt_end_off < 0)
			return oracle_fail(o, prog, ip, "%s packet %s with no packet in ctx", what,
					   op);
		uint64_t data, end;
		memcpy(&data, (const void *)(uintptr_t)(o->ctx + (uint64_t)o->pkt_off), 8);
		memcpy(&end, (const void *)(uintptr_t)(o->ctx + (uint64_t)o->pkt_end_off), 8);
		if (!data)
			return oracle_fail(o, prog, ip,
					   "%s packet %s through a NULL packet pointer "
					   "(skb_data is 0 in this op)",
					   what, op);
		if (write)
			return oracle_fail(o, prog, ip, "%s write into the read-only packet", what);
		if (!in_range(addr, size, data, end - data))
			return oracle_fail(o, prog, ip,
					   "%s packet %s at data%+lld size %llu past data_end "
					   "(%llu bytes)",
					   what, op, (long long)(addr - data),
					   (unsigned long long)size,
					   (unsigned long long)(end - data));
		return true;
	}
	case OK_REGION: {
		const struct oracle_region *r = &o->regions[t.idx];
		const char *rn = region_names[r->kind];
		if (r->dead)
			return oracle_fail(o, prog, ip, "%s %s of a %s after its release", what, op,
					   rn);
		if (!in_range(addr, size, r->base, r->size))
			return oracle_fail(o, prog, ip, "%s %s %s at off %lld size %llu of %llu",
					   what, rn, op, (long long)(addr - r->base),
					   (unsigned long long)size, (unsigned long long)r->size);
		if (write && r->ro)
			return oracle_fail(o, prog, ip, "%s write into a read-only %s at off %lld",
					   what, rn, (long long)(addr - r->base));
		if (r->lock_off && addr < r->base + r->lock_off - 1 + 4 &&
		    addr + size > r->base + r->lock_off - 1 && what[0] == 'p')
			return oracle_fail(o, prog, ip,
					   "plain %s of the bpf_spin_lock word at off %u of a %s",
					   op, r->lock_off - 1, rn);
		return true;
	}
	default:
		return oracle_fail(o, prog, ip, "%s %s through a %s (not a memory pointer)", what,
				   op, kind_names[t.kind]);
	}
}

/* A store of size bytes at addr (already checked): spilled tags follow. */
static bool store_tags(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		       struct oracle_tag dt, uint64_t addr, uint64_t size, struct oracle_tag val)
{
	if (dt.kind == OK_STACK) {
		if (size == 8 && addr % 8 == 0) {
			*oracle_slot_of(o, addr) = val;
			return true;
		}
		for (uint64_t a = addr & ~7ull; a < addr + size; a += 8)
			*oracle_slot_of(o, a) = oracle_tag_of(OK_SCALAR, 0);
		return true;
	}
	if (oracle_is_ptr(val) && o->unpriv)
		return oracle_fail(o, prog, ip, "unprivileged program stored a %s pointer into %s",
				   oracle_tag_name(o, val), oracle_tag_name(o, dt));
	return true;
}

/* The tag a load of size bytes at addr through dt yields. */
static bool load_tag(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		     struct oracle_tag dt, uint64_t addr, uint64_t size, struct oracle_tag *out)
{
	*out = oracle_tag_of(OK_SCALAR, 0);
	if (dt.kind == OK_STACK) {
		for (uint64_t a = addr & ~7ull; a < addr + size; a += 8) {
			struct oracle_tag s = *oracle_slot_of(o, a);
			if (!oracle_is_ptr(s))
				continue;
			if (size == 8 && addr % 8 == 0) {
				*out = s;
				return true;
			}
			if (o->unpriv)
				return oracle_fail(o, prog, ip,
						   "unprivileged program read %llu bytes of a "
						   "spilled %s pointer",
						   (unsigned long long)size, oracle_tag_name(o, s));
		}
		return true;
	}
	if (dt.kind == OK_CTX) {
		struct bpfvm_ctx_access acc = {0};
		char why[96];
		uint32_t off = (uint32_t)(addr - o->ctx);
		(void)prog->type->ctx_access(off, (uint32_t)size, false, &acc, why, sizeof(why));
		uint64_t v = 0;
		if (size == 8)
			memcpy(&v, (const void *)(uintptr_t)addr, 8);
		switch (acc.result) {
		case BPFVM_CTX_PKT:
			*out = oracle_tag_of(OK_PKT, 0);
			break;
		case BPFVM_CTX_PKT_END:
			*out = oracle_tag_of(OK_PKT_END, 0);
			break;
		case BPFVM_CTX_SOCK_OR_NULL:
			if (v) {
				int r = oracle_region_add(o, OR_SOCK, v, 80, NULL, true);
				if (r < 0)
					return oracle_fail(o, prog, ip, "oracle region table full");
				*out = oracle_tag_of(OK_REGION, (uint16_t)r);
			}
			break;
		default:
			break;
		}
	}
	return true;
}

/* ---- instructions ------------------------------------------------------- */

static bool alu(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		struct oracle_regs *t)
{
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	bool x = BPF_SRC(ip->code) == BPF_X;
	struct oracle_tag *d = &t->r[ip->dst], s = x ? t->r[ip->src] : oracle_tag_of(OK_SCALAR, 0);
	if (op == BPF_MOV) {
		if (cls == BPF_ALU64 && ip->off == 0) {
			*d = s;
			return true;
		}
		if (oracle_is_ptr(s) && o->unpriv)
			return oracle_fail(o, prog, ip,
					   "unprivileged program narrowed a %s pointer",
					   oracle_tag_name(o, s));
		*d = oracle_tag_of(OK_SCALAR, 0);
		return true;
	}
	bool dp = oracle_is_ptr(*d), sp = oracle_is_ptr(s);
	if (!dp && !sp)
		return true;
	if (cls == BPF_ALU64 && (op == BPF_ADD || op == BPF_SUB) && dp != sp) {
		if (sp && op == BPF_ADD)
			*d = s; /* scalar + pointer */
		else if (sp)
			goto scalar; /* scalar - pointer */
		return true;
	}
scalar:
	if (o->unpriv)
		return oracle_fail(o, prog, ip,
				   "unprivileged program turned a %s pointer into a scalar (alu op "
				   "0x%02x)",
				   oracle_tag_name(o, dp ? *d : s), ip->code);
	*d = oracle_tag_of(OK_SCALAR, 0);
	return true;
}

static bool ldimm64(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		    struct oracle_regs *t)
{
	struct oracle_tag *d = &t->r[ip->dst];
	uint64_t v = (uint64_t)(uint32_t)ip[0].imm | ((uint64_t)(uint32_t)ip[1].imm << 32);
	*d = oracle_tag_of(OK_SCALAR, 0);
	if (ip->src == BPF_PSEUDO_FUNC) {
		*d = oracle_tag_of(OK_FUNC, 0);
	} else if (ip->src == BPF_PSEUDO_MAP_FD) {
		for (size_t i = 0; i < prog->nmaps; i++)
			if ((uint64_t)(uintptr_t)prog->maps[i] == v)
				*d = oracle_tag_of(OK_MAP, (uint16_t)i);
	} else if (ip->src == BPF_PSEUDO_MAP_VALUE) {
		/* global data: the value of an array map's element 0 */
		for (size_t i = 0; i < prog->nmaps; i++) {
			struct bpfvm_map *m = prog->maps[i];
			uint32_t zero = 0;
			if (m->def.type != BPFVM_MAP_ARRAY || m->def.key_size != 4)
				continue;
			uint64_t base = (uint64_t)(uintptr_t)bpfvm_map_lookup(m, &zero);
			if (!base || !in_range(v, 0, base, m->def.value_size))
				continue;
			int r = oracle_region_add(o, OR_MAP_VALUE, base, m->def.value_size, m,
						  oracle_map_ro(m));
			if (r < 0)
				return oracle_fail(o, prog, ip, "oracle region table full");
			*d = oracle_tag_of(OK_REGION, (uint16_t)r);
		}
	}
	return true;
}

static bool mem(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		const uint64_t *reg, struct oracle_regs *t, uint32_t depth)
{
	uint8_t cls = BPF_CLASS(ip->code);
	uint64_t size = (uint64_t)bpfvm_insn_size(ip->code);
	if (cls == BPF_LDX) {
		struct oracle_tag bt = t->r[ip->src], out;
		uint64_t a = reg[ip->src] + (uint64_t)(int64_t)ip->off;
		if (!oracle_access_ok(o, prog, ip, bt, a, size, false, depth, "program") ||
		    !load_tag(o, prog, ip, bt, a, size, &out))
			return false;
		t->r[ip->dst] = out;
		return true;
	}
	struct oracle_tag bt = t->r[ip->dst];
	uint64_t a = reg[ip->dst] + (uint64_t)(int64_t)ip->off;
	struct oracle_tag val = cls == BPF_STX ? t->r[ip->src] : oracle_tag_of(OK_SCALAR, 0);
	if (BPF_MODE(ip->code) == BPF_ATOMIC) {
		struct oracle_tag dummy;
		if (!oracle_access_ok(o, prog, ip, bt, a, size, false, depth, "program") ||
		    !oracle_access_ok(o, prog, ip, bt, a, size, true, depth, "program") ||
		    !load_tag(o, prog, ip, bt, a, size, &dummy))
			return false;
		if (bt.kind == OK_CTX)
			return oracle_fail(o, prog, ip, "atomic operation on ctx");
		if (oracle_is_ptr(val) && (o->unpriv || bt.kind != OK_STACK))
			return oracle_fail(o, prog, ip,
					   "atomic operation with a %s pointer operand",
					   oracle_tag_name(o, val));
		if (!store_tags(o, prog, ip, bt, a, size, oracle_tag_of(OK_SCALAR, 0)))
			return false;
		if (ip->imm == BPF_CMPXCHG)
			t->r[0] = oracle_tag_of(OK_SCALAR, 0);
		else if (ip->imm & BPF_FETCH)
			t->r[ip->src] = oracle_tag_of(OK_SCALAR, 0);
		return true;
	}
	if (!oracle_access_ok(o, prog, ip, bt, a, size, true, depth, "program"))
		return false;
	if (oracle_is_ptr(val) && size != 8 && o->unpriv)
		return oracle_fail(o, prog, ip, "unprivileged program stored part of a %s pointer",
				   oracle_tag_name(o, val));
	return store_tags(o, prog, ip, bt, a, size, size == 8 ? val : oracle_tag_of(OK_SCALAR, 0));
}

static bool do_exit(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		    struct oracle_regs *t, uint32_t frames)
{
	if (frames) {
		memcpy(&t->r[6], t->saved[frames - 1], sizeof(t->saved[0]));
		for (int i = 1; i <= 5; i++)
			t->r[i] = oracle_tag_of(OK_SCALAR, 0);
		return true;
	}
	if (o->nest) { /* a callback returns to its helper */
		o->nest--;
		if (oracle_is_ptr(t->r[0]))
			return oracle_fail(o, prog, ip, "callback returned a %s pointer",
					   oracle_tag_name(o, t->r[0]));
		return true;
	}
	if (oracle_is_ptr(t->r[0]) && o->unpriv)
		return oracle_fail(o, prog, ip, "unprivileged program returned a %s pointer",
				   oracle_tag_name(o, t->r[0]));
	if (o->refs)
		return oracle_fail(o, prog, ip, "program exited holding %u ringbuf record(s)",
				   o->refs);
	if (o->lock >= 0)
		return oracle_fail(o, prog, ip, "program exited holding a bpf_spin_lock");
	return true;
}

bool oracle_insn(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 const uint64_t *reg, struct oracle_regs *t, uint32_t frames, uint32_t depth)
{
	if (o->failed)
		return false;
	uint8_t cls = BPF_CLASS(ip->code), op = BPF_OP(ip->code);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		return alu(o, prog, ip, t);
	case BPF_LD:
		return ldimm64(o, prog, ip, t);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return mem(o, prog, ip, reg, t, depth);
	case BPF_JMP:
		if (op == BPF_EXIT)
			return do_exit(o, prog, ip, t, frames);
		if (op != BPF_CALL)
			return true;
		if (ip->src == BPF_PSEUDO_CALL) {
			if (frames >= BPFVM_MAX_CALL_DEPTH)
				return true; /* the interpreter stops it */
			memcpy(t->saved[frames], &t->r[6], sizeof(t->saved[0]));
			t->r[10] = oracle_tag_of(OK_STACK, (uint16_t)depth);
			return true;
		}
		if (ip->src == 0 && ip->imm == BPF_HELPER_TAIL_CALL) {
			if (o->refs)
				return oracle_fail(
				    o, prog, ip, "tail call holding %u ringbuf record(s)", o->refs);
			if (o->lock >= 0)
				return oracle_fail(o, prog, ip,
						   "tail call holding a bpf_spin_lock");
			for (int i = 0; i <= 5; i++)
				t->r[i] =
				    i == 1 ? oracle_tag_of(OK_CTX, 0) : oracle_tag_of(OK_SCALAR, 0);
			/* r0 is untouched when the call falls through */
			return true;
		}
		if (o->lock >= 0 && ip->imm != 94)
			return oracle_fail(o, prog, ip, "helper %d called holding a bpf_spin_lock",
					   ip->imm);
		return true;
	default:
		return true;
	}
}

bool oracle_owns(const struct oracle *o, uint64_t addr, uint64_t size)
{
	for (uint32_t i = 0; i < o->nregions; i++) {
		const struct oracle_region *r = &o->regions[i];
		if ((!r->dead || r->kind == OR_SK_STORAGE) &&
		    in_range(addr, size, r->base, r->size))
			return true;
	}
	if (o->pkt_off >= 0 && o->pkt_end_off >= 0) {
		uint64_t data, end;
		memcpy(&data, (const void *)(uintptr_t)(o->ctx + (uint64_t)o->pkt_off), 8);
		memcpy(&end, (const void *)(uintptr_t)(o->ctx + (uint64_t)o->pkt_end_off), 8);
		return data && end >= data && in_range(addr, size, data, end - data);
	}
	return false;
}

void oracle_stop(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 uint64_t addr, uint32_t size)
{
	oracle_fail(o, prog, ip, "checked interpreter stopped the run (addr 0x%llx size %u)",
		    (unsigned long long)addr, size);
}
