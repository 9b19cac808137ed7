/* prog array maps: IDs in, IDs out, references held, type compatibility,
 * update flags and range errnos, the tail-call accessor. */
#include <errno.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static struct bpfvm_prog *load_ret(struct bpfvm_registry *reg, int32_t r)
{
	struct bpfvm_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst = 0, .imm = r},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	/* no_verify: the generic type admits unverified programs; this tests the map */
	struct bpfvm_load_opts o = {.name = "ret", .no_verify = true};
	struct bpfvm_prog *p = NULL;
	ck_assert_int_eq(bpfvm_prog_load(reg, insns, 2, NULL, 0, &o, &p), 0);
	return p;
}

START_TEST(prog_array_slots)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def bad = {
	    .type = BPFVM_MAP_PROG_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 4};
	struct bpfvm_map *m;
	ck_assert_int_eq(bpfvm_map_create(reg, &bad, &m), -EINVAL);
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 4};
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	struct bpfvm_prog *p1 = load_ret(reg, 1), *p2 = load_ret(reg, 2);
	uint32_t k = 1, id = bpfvm_prog_id(p1);
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	ck_assert_ptr_null(bpfvm_prog_array_get(m, 1));
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_NOEXIST), -EINVAL);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_ANY), 0);
	ck_assert_uint_eq(*(uint32_t *)bpfvm_map_lookup(m, &k), id);
	ck_assert_ptr_eq(bpfvm_prog_array_get(m, 1), p1);
	ck_assert_ptr_null(bpfvm_prog_array_get(m, 4));
	/* the map holds its own reference */
	bpfvm_prog_put(p1);
	ck_assert_ptr_eq(bpfvm_prog_array_get(m, 1), p1);
	struct bpfvm_prog *got;
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, id, &got), 0);
	bpfvm_prog_put(got);
	uint32_t none = 999999;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &none, BPFVM_ANY), -ENOENT);
	k = 4;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_ANY), -E2BIG);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -E2BIG);
	k = 1;
	id = bpfvm_prog_id(p2);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_ANY), 0);
	ck_assert_ptr_eq(bpfvm_prog_array_get(m, 1), p2);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -ENOENT);
	ck_assert_ptr_null(bpfvm_prog_array_get(m, 1));
	uint32_t next;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &next), 0);
	ck_assert_uint_eq(next, 0);
	k = 3;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), -ENOENT);
	bpfvm_prog_put(p2);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(prog_array_unregistered)
{
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	struct bpfvm_map *m;
	ck_assert_int_eq(bpfvm_map_create(NULL, &d, &m), 0);
	uint32_t k = 0, id = 1;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_ANY), -EINVAL);
	bpfvm_map_put(m);
}
END_TEST

/* The issue 25 review ran a generic program through a sock_ops program's
 * tail call, on the sock_ops ctx: an array belongs to one kind of program,
 * whether it joins the array or only names it to tail-call through it. */
START_TEST(prog_array_one_kind)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	struct bpfvm_map *m;
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	struct bpfvm_prog *target = load_ret(reg, 7); /* generic, unverified */
	uint32_t k = 0, id = bpfvm_prog_id(target);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &id, BPFVM_ANY), 0);
	struct bpfvm_insn names_map[] = {
	    {.code = BPF_LD | BPF_DW | BPF_IMM, .dst = 2, .src = 1, .imm = 0},
	    {0},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst = 0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct bpfvm_map *maps[] = {m};
	struct bpfvm_load_opts verified = {.name = "caller"};
	struct bpfvm_prog *p = NULL;
	ck_assert_int_eq(bpfvm_prog_load(reg, names_map, 4, maps, 1, &verified, &p), -EINVAL);
	ck_assert_ptr_null(p);
	struct bpfvm_load_opts unverified = {.name = "caller", .no_verify = true};
	ck_assert_int_eq(bpfvm_prog_load(reg, names_map, 4, maps, 1, &unverified, &p), 0);
	bpfvm_prog_put(p);
	bpfvm_prog_put(target);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *pa_suite(void)
{
	Suite *s = suite_create("bpfvm_map_prog_array");
	TCase *tc = tcase_create("prog_array");
	tcase_add_test(tc, prog_array_slots);
	tcase_add_test(tc, prog_array_unregistered);
	tcase_add_test(tc, prog_array_one_kind);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(pa_suite)
