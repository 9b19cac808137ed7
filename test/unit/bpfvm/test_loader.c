/* ELF loader: objects built by meson from elf/NAME.bpf.c (legacy maps, BTF maps,
 * global data, sub-programs, callbacks, several sections), the linked
 * instruction arrays and map tables, and programs run on the interpreter.
 * Every rejection path is test_loader_errors.c's (the "errors" case). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "ld_elf_edit.h"
#include "ld_fixture.h"
#include "loader_int.h"

#define LD64 (BPF_LD | BPF_IMM | BPF_DW)
#define CALL (BPF_JMP | BPF_CALL)

/* test_loader_errors.c */
TCase *loader_errors_tcase(void);

static struct bpfvm_obj *open_ok(struct bpfvm_registry *reg, const char *name)
{
	struct bpfvm_obj *o = NULL;
	log_reset();
	int rc = bpfvm_obj_open(reg, obj_path(name), NULL, 0, &lg, &o);
	ck_assert_msg(rc == 0, "open %s: %d: %s", name, rc, logbuf);
	return o;
}

static uint64_t run_linked(struct bpfvm_registry *reg, const struct bpfvm_obj *o, size_t i,
			   void *ctx, size_t len)
{
	/* the loader's map table, remapped as bpfvm_obj_load_prog does, loaded
	 * without the verifier (generic type) to run the linked code */
	const struct ld_prog *p = &o->progs[i];
	struct bpfvm_insn *in = malloc(p->ninsns * sizeof(*in));
	memcpy(in, p->insns, p->ninsns * sizeof(*in));
	struct bpfvm_load_opts opts = {.no_verify = true};
	struct bpfvm_prog *prog;
	char lb[1024] = "";
	struct bpfvm_log l = {.level = 1, .buf = lb, .size = sizeof lb};
	opts.log = &l;
	int rc = bpfvm_prog_load(reg, in, p->ninsns, o->maps, o->nmaps, &opts, &prog);
	ck_assert_msg(rc == 0, "load: %d %s", rc, lb);
	uint64_t r = bpfvm_prog_run_interp(prog, ctx, len);
	bpfvm_prog_put(prog);
	free(in);
	return r;
}

START_TEST(legacy_maps)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "legacy_maps");
	ck_assert_str_eq(bpfvm_obj_license(o), "GPL");
	ck_assert_uint_eq(bpfvm_obj_prog_count(o), 1);
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 0), "sockops");
	ck_assert_ptr_null(bpfvm_obj_prog_section(o, 1));
	ck_assert_uint_eq(bpfvm_obj_map_count(o), 2);
	struct bpfvm_map *h = bpfvm_obj_map_by_name(o, "op_hash");
	struct bpfvm_map *a = bpfvm_obj_map_by_name(o, "op_array");
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(bpfvm_obj_map_by_name(o, "nope"));
	ck_assert_ptr_null(bpfvm_obj_map(o, 2));
	const struct bpfvm_map_def *d = bpfvm_map_def(h);
	ck_assert_uint_eq(d->type, BPFVM_MAP_HASH);
	ck_assert_uint_eq(d->key_size, 4);
	ck_assert_uint_eq(d->value_size, 8);
	ck_assert_uint_eq(d->max_entries, 32);
	ck_assert_uint_eq(bpfvm_map_def(a)->type, BPFVM_MAP_ARRAY);
	ck_assert_uint_eq(bpfvm_map_def(a)->max_entries, 16);
	ck_assert_uint_gt(bpfvm_map_id(a), 0);
	/* both map references became PSEUDO_MAP_FD with the right map index */
	const struct ld_prog *p = &o->progs[0];
	ck_assert_str_eq(p->name, "count_ops");
	size_t refs = 0;
	for (size_t i = 0; i + 1 < p->ninsns; i++) {
		if (p->insns[i].code != LD64)
			continue;
		ck_assert_uint_eq(p->insns[i].src, BPF_PSEUDO_MAP_FD);
		ck_assert_int_eq(p->insns[i + 1].imm, 0);
		struct bpfvm_map *m = bpfvm_obj_map(o, (size_t)p->insns[i].imm);
		ck_assert_ptr_eq(m, refs == 0 ? a : h); /* source order: array first */
		refs++;
		i++;
	}
	ck_assert_uint_eq(refs, 2);
	/* run: op 3 counts in both maps */
	uint32_t ctx[64] = {3};
	uint32_t k = 3;
	uint64_t one = 1;
	ck_assert_int_eq(bpfvm_map_update(h, &k, &one, BPFVM_ANY), 0);
	ck_assert_uint_eq(run_linked(reg, o, 0, ctx, sizeof ctx), 1);
	ck_assert_uint_eq(*(uint64_t *)bpfvm_map_lookup(a, &k), 1);
	ck_assert_uint_eq(*(uint64_t *)bpfvm_map_lookup(h, &k), 2);
	uint32_t id = bpfvm_map_id(a);
	bpfvm_obj_close(o);
	struct bpfvm_map *gone;
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, id, &gone), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(btf_maps)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "btf_maps");
	/* three .maps and the .rodata holding hv's initialiser */
	ck_assert_uint_eq(bpfvm_obj_map_count(o), 4);
	ck_assert_ptr_nonnull(bpfvm_obj_map_by_name(o, ".rodata"));
	const struct bpfvm_map_def *t = bpfvm_map_def(bpfvm_obj_map_by_name(o, "typed"));
	ck_assert_uint_eq(t->type, BPFVM_MAP_ARRAY);
	ck_assert_uint_eq(t->key_size, 4);
	ck_assert_uint_eq(t->value_size, 16);
	ck_assert_uint_eq(t->max_entries, 8);
	const struct bpfvm_map_def *s = bpfvm_map_def(bpfvm_obj_map_by_name(o, "sized"));
	ck_assert_uint_eq(s->type, BPFVM_MAP_HASH);
	ck_assert_uint_eq(s->key_size, 8);
	ck_assert_uint_eq(s->value_size, 24);
	ck_assert_uint_eq(s->max_entries, 64);
	ck_assert_uint_eq(s->map_flags, 1);
	const struct bpfvm_map_def *pc = bpfvm_map_def(bpfvm_obj_map_by_name(o, "percpu"));
	ck_assert_uint_eq(pc->type, BPFVM_MAP_PERCPU_ARRAY);
	ck_assert_uint_eq(pc->value_size, 24);
	ck_assert_uint_eq(pc->max_entries, 2);
	uint32_t ctx[64] = {9};
	ck_assert_uint_eq(run_linked(reg, o, 0, ctx, sizeof ctx), 1);
	uint32_t k = 1;
	uint32_t *typed = bpfvm_map_lookup(bpfvm_obj_map_by_name(o, "typed"), &k);
	ck_assert_uint_eq(typed[2], 9); /* p->b at offset 8 */
	uint64_t hk = 9;
	uint64_t *hv = bpfvm_map_lookup(bpfvm_obj_map_by_name(o, "sized"), &hk);
	ck_assert_ptr_nonnull(hv);
	ck_assert_uint_eq(hv[2], 3);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(btf_map_kinds)
{
	static const struct {
		const char *name;
		uint32_t type, key, value, max, flags;
	} want[] = {
	    {"lru", BPFVM_MAP_LRU_HASH, 8, 4, 128, 0},
	    {"pcpu_hash", BPFVM_MAP_PERCPU_HASH, 4, 8, 16, 0},
	    {"sk_store", BPFVM_MAP_SK_STORAGE, 4, 8, 0, 1},
	    {"events", BPFVM_MAP_RINGBUF, 0, 0, 4096, 0},
	    {"perf", BPFVM_MAP_PERF_EVENT_ARRAY, 4, 4, 4, 0},
	    {"jumps", BPFVM_MAP_PROG_ARRAY, 4, 4, 8, 0},
	};
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "btf_kinds");
	ck_assert_uint_eq(bpfvm_obj_map_count(o), 6);
	for (size_t i = 0; i < 6; i++) {
		struct bpfvm_map *m = bpfvm_obj_map_by_name(o, want[i].name);
		ck_assert_msg(m != NULL, "%s", want[i].name);
		const struct bpfvm_map_def *d = bpfvm_map_def(m);
		ck_assert_uint_eq(d->type, want[i].type);
		ck_assert_uint_eq(d->key_size, want[i].key);
		ck_assert_uint_eq(d->value_size, want[i].value);
		ck_assert_uint_eq(d->max_entries, want[i].max);
		ck_assert_uint_eq(d->map_flags, want[i].flags);
	}
	/* six distinct map references in the program */
	const struct ld_prog *p = &o->progs[0];
	uint32_t seen = 0;
	for (size_t i = 0; i + 1 < p->ninsns; i++)
		if (p->insns[i].code == LD64) {
			/* plain 64-bit constants (BPF_F_CURRENT_CPU) stay src 0 */
			ck_assert_uint_le(p->insns[i].src, BPF_PSEUDO_MAP_FD);
			if (p->insns[i].src)
				seen |= 1u << p->insns[i].imm;
			i++;
		}
	ck_assert_uint_eq(seen, 0x3f);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(global_data)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "global_data");
	struct bpfvm_map *data = bpfvm_obj_map_by_name(o, ".data");
	struct bpfvm_map *ro = bpfvm_obj_map_by_name(o, ".rodata");
	struct bpfvm_map *bss = bpfvm_obj_map_by_name(o, ".bss");
	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(ro);
	ck_assert_ptr_nonnull(bss);
	ck_assert_uint_eq(bpfvm_map_def(data)->max_entries, 1);
	ck_assert_uint_eq(bpfvm_map_def(data)->value_size, 4);
	ck_assert_uint_eq(bpfvm_map_def(bss)->value_size, 12); /* hits (u64), last_op */
	ck_assert_uint_eq(bpfvm_map_def(ro)->map_flags, 0x80); /* BPF_F_RDONLY_PROG */
	uint32_t k = 0;
	ck_assert_int_eq(*(int *)bpfvm_map_lookup(data, &k), 5);
	const uint8_t *rov = bpfvm_map_lookup(ro, &k);
	uint32_t rosz = bpfvm_map_def(ro)->value_size;
	ck_assert_ptr_nonnull(memmem(rov, rosz, "over %d", 8));
	int lim = 42;
	ck_assert_ptr_nonnull(memmem(rov, rosz, &lim, 4));
	/* frozen: the verifier checks bpf_snprintf formats on these bytes */
	uint8_t ro_new[64] = {0};
	ck_assert_uint_le(rosz, sizeof ro_new);
	ck_assert_int_eq(bpfvm_map_update(ro, &k, ro_new, 0), -EPERM);
	ck_assert_int_eq(bpfvm_map_delete(ro, &k), -EPERM);
	ck_assert_ptr_nonnull(memmem(rov, rosz, "over %d", 8));
	int five = 5;
	ck_assert_int_eq(bpfvm_map_update(data, &k, &five, 0), 0);
	/* every PSEUDO_MAP_VALUE names a data map and an offset inside it */
	const struct ld_prog *p = &o->progs[0];
	size_t nval = 0;
	for (size_t i = 0; i + 1 < p->ninsns; i++) {
		if (p->insns[i].code != LD64)
			continue;
		ck_assert_uint_eq(p->insns[i].src, BPF_PSEUDO_MAP_VALUE);
		struct bpfvm_map *m = bpfvm_obj_map(o, (size_t)p->insns[i].imm);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_lt((uint32_t)p->insns[i + 1].imm, bpfvm_map_def(m)->value_size);
		nval++;
		i++;
	}
	ck_assert_uint_ge(nval, 5);
	uint32_t ctx[64] = {4};
	ck_assert_uint_eq(run_linked(reg, o, 0, ctx, sizeof ctx), 1);
	uint64_t *b = bpfvm_map_lookup(bss, &k);
	ck_assert_uint_eq(b[0], 1);
	ck_assert_uint_eq((uint32_t)b[1], 4);
	ck_assert_int_eq(*(int *)bpfvm_map_lookup(data, &k), 5 + 4);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Calls must land on a function's first insn inside the linked program. */
static void check_calls(const struct ld_prog *p)
{
	for (size_t i = 0; i < p->ninsns; i++) {
		const struct bpfvm_insn *in = &p->insns[i];
		if (in->code == LD64) {
			i++;
			continue;
		}
		if (in->code != CALL || in->src != BPF_PSEUDO_CALL)
			continue;
		int64_t t = (int64_t)i + in->imm + 1;
		ck_assert(t > 0 && (size_t)t < p->ninsns);
	}
}

START_TEST(subprog_calls)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "subprog");
	ck_assert_str_eq(bpfvm_obj_license(o), "Dual BSD/GPL");
	ck_assert_uint_eq(bpfvm_obj_prog_count(o), 2);
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 0), "sockops");
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 1), "tc/second");
	/* caller_a: 13 own insns + mid, leaf, global_add (3 each); not unused_func */
	ck_assert_uint_eq(o->progs[0].ninsns, 13 + 9);
	ck_assert_str_eq(o->progs[0].name, "caller_a");
	/* caller_b: 3 own + leaf */
	ck_assert_uint_eq(o->progs[1].ninsns, 3 + 3);
	for (size_t i = 0; i < o->progs[0].ninsns; i++)
		ck_assert_int_ne(o->progs[0].insns[i].imm, -100); /* unused_func's constant */
	check_calls(&o->progs[0]);
	check_calls(&o->progs[1]);
	uint32_t ctx[64] = {5};
	/* mid(5) = 16, global_add(1) = 8: 24 > 0 */
	ck_assert_uint_eq(run_linked(reg, o, 0, ctx, sizeof ctx), 1);
	ctx[0] = 7; /* skb->len at offset 0: leaf(7) */
	ck_assert_uint_eq(run_linked(reg, o, 1, ctx, sizeof ctx), 21);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(callback_func)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "callback");
	const struct ld_prog *p = &o->progs[0];
	ck_assert_uint_eq(p->ninsns, 14 + 7);
	size_t funcs = 0;
	for (size_t i = 0; i + 1 < p->ninsns; i++)
		if (p->insns[i].code == LD64) {
			ck_assert_uint_eq(p->insns[i].src, BPF_PSEUDO_FUNC);
			ck_assert_int_eq((int64_t)i + p->insns[i].imm + 1, 14);
			funcs++;
			i++;
		}
	ck_assert_uint_eq(funcs, 1);
	uint32_t ctx[64] = {0};
	ck_assert_uint_eq(run_linked(reg, o, 0, ctx, sizeof ctx), 1);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* A map whose type skops lacks fails the programs that use it, with the
 * map's name and type, not the object; libbpf's max_entries 0 of a perf
 * event array becomes the CPU count. */
START_TEST(unsupported_map_per_prog)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "unsup_map");
	ck_assert_uint_eq(bpfvm_obj_map_count(o), 2);
	ck_assert_ptr_null(bpfvm_obj_map(o, 0));
	ck_assert_ptr_null(bpfvm_obj_map_by_name(o, "q"));
	struct bpfvm_map *ev = bpfvm_obj_map_by_name(o, "events");
	ck_assert_ptr_nonnull(ev);
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	ck_assert_uint_eq(bpfvm_map_def(ev)->max_entries,
			  cpus > BPFVM_MAX_CPUS ? BPFVM_MAX_CPUS : (uint32_t)cpus);
	struct bpfvm_prog *prog = NULL;
	struct bpfvm_load_opts opts = {.log = &lg};
	log_reset();
	ck_assert_msg(bpfvm_obj_load_prog(o, "generic", &opts, &prog) == 0, "%s", logbuf);
	bpfvm_prog_put(prog);
	log_reset();
	ck_assert_int_eq(bpfvm_obj_load_prog(o, "generic/q", &opts, &prog), -EOPNOTSUPP);
	ck_assert_ptr_null(prog);
	ck_assert_msg(strstr(logbuf, "section 'generic/q': insn ") &&
			  strstr(logbuf, "map 'q': map type 22 is not supported by skops"),
		      "%s", logbuf);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(multi_sections)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "multi");
	ck_assert_uint_eq(bpfvm_obj_prog_count(o), 3);
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 0), "sockops");
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 1), "sockops/rwnd");
	ck_assert_str_eq(bpfvm_obj_prog_section(o, 2), "generic");
	ck_assert_uint_eq(bpfvm_obj_map_count(o), 0);
	uint32_t ctx[64] = {2}; /* BPF_SOCK_OPS_RWND_INIT */
	ck_assert_uint_eq(run_linked(reg, o, 1, ctx, sizeof ctx), 40);
	ck_assert_uint_eq(run_linked(reg, o, 2, ctx, sizeof ctx), 2);
	/* load_prog: unknown section */
	struct bpfvm_prog *prog = (void *)1;
	log_reset();
	struct bpfvm_load_opts opts = {.log = &lg};
	ck_assert_int_eq(bpfvm_obj_load_prog(o, "nope", &opts, &prog), -ENOENT);
	ck_assert_ptr_null(prog);
	ck_assert_str_eq(logbuf, "loader: " LD_ELF_DIR "/multi.bpf.o: section 'nope': no such "
				 "program section\n");
	/* the generic section through the full load path (verifier included) */
	log_reset();
	ck_assert_msg(bpfvm_obj_load_prog(o, "generic", &opts, &prog) == 0, "%s", logbuf);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(prog, &info);
	ck_assert_str_eq(info.name, "third");
	ck_assert_uint_eq(info.nr_map_ids, 0);
	ck_assert_uint_eq(bpfvm_prog_run(prog, ctx, sizeof ctx), 2);
	bpfvm_prog_put(prog);
	/* NULL picks the first program section; opts->name overrides the name */
	opts.name = "renamed";
	ck_assert_int_eq(bpfvm_obj_load_prog(o, NULL, &opts, &prog), 0);
	bpfvm_prog_info(prog, &info);
	ck_assert_str_eq(info.name, "renamed");
	ctx[0] = 1; /* BPF_SOCK_OPS_TIMEOUT_INIT */
	ck_assert_uint_eq(bpfvm_prog_run(prog, ctx, sizeof ctx), 10);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(load_prog_map_table)
{
	/* the program's own map table holds only the maps it uses, first use first */
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "global_data");
	struct bpfvm_prog *prog = NULL;
	log_reset();
	struct bpfvm_load_opts opts = {.log = &lg};
	ck_assert_msg(bpfvm_obj_load_prog(o, NULL, &opts, &prog) == 0, "%s", logbuf);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(prog, &info);
	ck_assert_str_eq(info.name, "globals");
	ck_assert_uint_eq(info.nr_map_ids, 3);
	/* map_ids in first-use order: .bss (hits), then .rodata (scale), .data */
	ck_assert_uint_eq(info.map_ids[0], bpfvm_map_id(bpfvm_obj_map_by_name(o, ".bss")));
	ck_assert_uint_eq(info.map_ids[1], bpfvm_map_id(bpfvm_obj_map_by_name(o, ".rodata")));
	ck_assert_uint_eq(info.map_ids[2], bpfvm_map_id(bpfvm_obj_map_by_name(o, ".data")));
	uint32_t ctx[64] = {6};
	ck_assert_uint_eq(bpfvm_prog_run(prog, ctx, sizeof ctx), 1);
	uint32_t k = 0;
	ck_assert_uint_eq(*(uint64_t *)bpfvm_map_lookup(bpfvm_obj_map_by_name(o, ".bss"), &k), 1);
	bpfvm_prog_put(prog);
	/* the program keeps its maps after the object is gone */
	opts.jit = true;
	ck_assert_int_eq(bpfvm_obj_load_prog(o, "sockops", &opts, &prog), 0);
	struct bpfvm_map *bss = bpfvm_obj_map_by_name(o, ".bss");
	bpfvm_map_get(bss);
	bpfvm_obj_close(o);
	ck_assert_uint_eq(bpfvm_prog_run(prog, ctx, sizeof ctx), 1);
	ck_assert_uint_eq(*(uint64_t *)bpfvm_map_lookup(bss, &k), 2);
	bpfvm_map_put(bss);
	bpfvm_prog_put(prog);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Every program of the objects loads through the verifier and runs the same
 * on the interpreter and the JIT. */
START_TEST(load_verified_all)
{
	static const struct {
		const char *obj, *sec;
		uint32_t op;
		uint64_t want;
	} cases[] = {
	    {"legacy_maps", "sockops", 2, 1}, {"btf_maps", "sockops", 2, 1},
	    {"subprog", "sockops", 5, 1},     {"subprog", "tc/second", 7, 21},
	    {"callback", "sockops", 0, 1},    {"multi", "sockops/rwnd", 2, 40},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bpfvm_registry *reg;
		ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
		struct bpfvm_obj *o = open_ok(reg, cases[i].obj);
		for (int jit = 0; jit < 2; jit++) {
			struct bpfvm_load_opts opts = {.log = &lg, .jit = jit};
			struct bpfvm_prog *prog;
			log_reset();
			ck_assert_msg(bpfvm_obj_load_prog(o, cases[i].sec, &opts, &prog) == 0,
				      "%s %s: %s", cases[i].obj, cases[i].sec, logbuf);
			uint32_t ctx[64] = {cases[i].op};
			ck_assert_uint_eq(bpfvm_prog_run(prog, ctx, sizeof ctx), cases[i].want);
			ck_assert_uint_eq(bpfvm_prog_run_interp(prog, ctx, sizeof ctx),
					  cases[i].want);
			bpfvm_prog_put(prog);
		}
		bpfvm_obj_close(o);
		bpfvm_registry_destroy(reg);
	}
}
END_TEST

START_TEST(load_prog_errnos)
{
	struct bpfvm_prog *prog;
	ck_assert_int_eq(bpfvm_obj_load_prog(NULL, NULL, NULL, &prog), -EINVAL);
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_obj *o = open_ok(reg, "multi");
	ck_assert_int_eq(bpfvm_obj_load_prog(o, NULL, NULL, NULL), -EINVAL);
	/* opts NULL: generic type, verified */
	ck_assert_int_eq(bpfvm_obj_load_prog(o, "generic", NULL, &prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("bpfvm_loader");
	TCase *tc = tcase_create("objects");
	tcase_add_test(tc, legacy_maps);
	tcase_add_test(tc, btf_maps);
	tcase_add_test(tc, btf_map_kinds);
	tcase_add_test(tc, global_data);
	tcase_add_test(tc, subprog_calls);
	tcase_add_test(tc, callback_func);
	tcase_add_test(tc, multi_sections);
	tcase_add_test(tc, unsupported_map_per_prog);
	tcase_add_test(tc, load_prog_map_table);
	tcase_add_test(tc, load_verified_all);
	tcase_add_test(tc, load_prog_errnos);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, loader_errors_tcase());
	return s;
}

SKOPS_CHECK_MAIN(loader_suite)
