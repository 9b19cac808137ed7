/* Interpreter control transfer: tail calls (target, missing index, empty slot,
 * the 33-call limit), bpf_loop and for_each_map_elem callbacks, the call-depth
 * limit and the instruction budget of unverified programs. */
#include <time.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"

/* prog: tail call into maps[0] slot `idx`, else return 7 */
#define TAIL_PROG(idx)                                                                             \
	{                                                                                          \
		LD_MAP(2, 0), MOV64_K(3, idx), CALL(BPF_HELPER_TAIL_CALL), MOV64_K(0, 7), EXIT()   \
	}

START_TEST(tail_call_target_and_fallthrough)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *pa = fx_map(reg, BPFVM_MAP_PROG_ARRAY, 4, 4, 4);
	/* the target reads ctx (r1 survives the tail call) */
	struct bpfvm_insn target[] = {LDX(BPF_DW, 0, 1, 0), ALU64_K(BPF_ADD, 0, 1), EXIT()};
	struct bpfvm_prog *t = fx_load_ok(reg, target, NINSNS(target), NULL, 0);
	uint32_t key = 2, id = bpfvm_prog_id(t);
	ck_assert_int_eq(bpfvm_map_update(pa, &key, &id, BPFVM_ANY), 0);
	struct bpfvm_insn hit[] = TAIL_PROG(2), empty[] = TAIL_PROG(1), out[] = TAIL_PROG(4),
			  big[] = TAIL_PROG(-1);
	struct bpfvm_prog *ph = fx_load_ok(reg, hit, NINSNS(hit), &pa, 1);
	struct bpfvm_prog *pe = fx_load_ok(reg, empty, NINSNS(empty), &pa, 1);
	struct bpfvm_prog *po = fx_load_ok(reg, out, NINSNS(out), &pa, 1);
	struct bpfvm_prog *pb = fx_load_ok(reg, big, NINSNS(big), &pa, 1);
	uint64_t ctx = 41;
	struct bpfvm_fault f;
	ck_assert_uint_eq(e->run(ph, &ctx, sizeof(ctx), &f), 42);
	ck_assert(!f.hit);
	ck_assert_uint_eq(e->run(pe, &ctx, sizeof(ctx), &f), 7);
	ck_assert_uint_eq(e->run(po, &ctx, sizeof(ctx), &f), 7);
	ck_assert_uint_eq(e->run(pb, &ctx, sizeof(ctx), &f), 7);
	ck_assert(!f.hit);
	bpfvm_prog_put(ph);
	bpfvm_prog_put(pe);
	bpfvm_prog_put(po);
	bpfvm_prog_put(pb);
	bpfvm_prog_put(t);
	bpfvm_map_put(pa);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* A program that tail-calls itself runs 1 + 33 times, then falls through.
 * The prog array comes through ctx so the program holds no reference to it
 * (the array holds the program: no cycle); the checked engine admits only
 * the program's own maps, so this runs on the plain interpreter. */
START_TEST(tail_call_limit_33)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *pa = fx_map(reg, BPFVM_MAP_PROG_ARRAY, 4, 4, 1);
	struct bpfvm_insn self[] = {
	    MOV64_X(6, 1),	    LDX(BPF_DW, 2, 6, 8),
	    ALU64_K(BPF_ADD, 2, 1), STX(BPF_DW, 6, 2, 8),
	    MOV64_X(1, 6),	    LDX(BPF_DW, 2, 6, 0),
	    MOV64_K(3, 0),	    CALL(BPF_HELPER_TAIL_CALL),
	    MOV64_K(0, 7),	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, self, NINSNS(self), NULL, 0);
	uint32_t key = 0, id = bpfvm_prog_id(p);
	ck_assert_int_eq(bpfvm_map_update(pa, &key, &id, BPFVM_ANY), 0);
	uint64_t ctx[2] = {(uint64_t)(uintptr_t)pa, 0};
	ck_assert_uint_eq(bpfvm_prog_run_interp(p, ctx, sizeof(ctx)), 7);
	ck_assert_uint_eq(ctx[1], 1 + BPFVM_MAX_TAIL_CALLS);
	/* the count is per run */
	ctx[1] = 0;
	ck_assert_uint_eq(bpfvm_prog_run_interp(p, ctx, sizeof(ctx)), 7);
	ck_assert_uint_eq(ctx[1], 34);
	bpfvm_map_put(pa);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* bpf_loop(nr, cb, &sum, 0); r0 = ret * 1000 + sum; cb adds its index and
 * returns 1 at index `stop`. */
#define LOOP_PROG(nr, stop)                                                                        \
	{                                                                                          \
		ST(BPF_DW, 10, -8, 0), MOV64_K(1, nr), LD_FUNC(2, 9), MOV64_X(3, 10),              \
		    ALU64_K(BPF_ADD, 3, -8), MOV64_K(4, 0), CALL(181), LDX(BPF_DW, 1, 10, -8),     \
		    ALU64_K(BPF_MUL, 0, 1000), ALU64_X(BPF_ADD, 0, 1), EXIT(),                     \
		    LDX(BPF_DW, 3, 2, 0), ALU64_X(BPF_ADD, 3, 1), STX(BPF_DW, 2, 3, 0),            \
		    MOV64_K(0, 0), JMP_K(BPF_JNE, 1, stop, 1), MOV64_K(0, 1), EXIT()               \
	}

START_TEST(bpf_loop_callbacks)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn full[] = LOOP_PROG(10, -1), early[] = LOOP_PROG(10, 3),
			  zero[] = LOOP_PROG(0, -1), huge[] = LOOP_PROG((1 << 23) + 1, -1);
	struct {
		struct bpfvm_insn *insns;
		size_t n;
		uint64_t want;
	} cases[] = {
	    {full, NINSNS(full), 10045},
	    {early, NINSNS(early), 4006},
	    {zero, NINSNS(zero), 0},
	    {huge, NINSNS(huge), (uint64_t)-7000}, /* -E2BIG, no iteration */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpfvm_prog *p = fx_load_ok(reg, cases[i].insns, cases[i].n, NULL, 0);
		struct bpfvm_fault f;
		uint64_t r0 = e->run(p, NULL, 0, &f);
		ck_assert_msg(!f.hit, "%s case %zu: fault at %u", e->name, i, f.pc);
		ck_assert_msg(r0 == cases[i].want, "%s case %zu: r0 %lld", e->name, i,
			      (long long)r0);
		bpfvm_prog_put(p);
	}
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(bpf_loop_budget_of_callbacks)
{
	/* 8M iterations of an unverified program exceed the budget: the run
	 * stops (checked engine reports it) instead of taking seconds */
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn many[] = LOOP_PROG(1 << 23, -1);
	struct bpfvm_prog *p = fx_load_ok(reg, many, NINSNS(many), NULL, 0);
	struct bpfvm_fault f;
	ck_assert_uint_eq(bpfvm_interp_run_checked(p, NULL, 0, &f), 0);
	ck_assert(f.hit);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* for_each_map_elem over an array {1,2,3,4}: the callback adds value and
 * 100 * key; r0 = visited * 1000 + sum. */
START_TEST(for_each_map_elem_array)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 4);
	for (uint32_t k = 0; k < 4; k++) {
		uint64_t v = k + 1;
		ck_assert_int_eq(bpfvm_map_update(arr, &k, &v, BPFVM_ANY), 0);
	}
	struct bpfvm_insn insns[] = {
	    ST(BPF_DW, 10, -8, 0),
	    LD_MAP(1, 0),
	    LD_FUNC(2, 9),
	    MOV64_X(3, 10),
	    ALU64_K(BPF_ADD, 3, -8),
	    MOV64_K(4, 0),
	    CALL(164),
	    LDX(BPF_DW, 1, 10, -8),
	    ALU64_K(BPF_MUL, 0, 1000),
	    ALU64_X(BPF_ADD, 0, 1),
	    EXIT(),
	    /* callback(map, key, value, ctx) */
	    LDX(BPF_DW, 5, 4, 0),
	    LDX(BPF_DW, 6, 3, 0),
	    ALU64_X(BPF_ADD, 5, 6),
	    LDX(BPF_W, 6, 2, 0),
	    ALU64_K(BPF_MUL, 6, 100),
	    ALU64_X(BPF_ADD, 5, 6),
	    STX(BPF_DW, 4, 5, 0),
	    MOV64_K(0, 0),
	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), &arr, 1);
	struct bpfvm_fault f;
	uint64_t r0 = e->run(p, NULL, 0, &f);
	ck_assert_msg(!f.hit, "%s: fault at insn %u addr 0x%llx", e->name, f.pc,
		      (unsigned long long)f.addr);
	ck_assert_uint_eq(r0, 4610);
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(call_depth_limit)
{
	/* f(n) recurses n times: 8 frames run, 9 stop */
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	for (int depth = 6; depth <= 7; depth++) {
		struct bpfvm_insn insns[] = {
		    MOV64_K(1, depth),
		    CALL_REL(1),
		    EXIT(),
		    MOV64_K(0, 0),
		    JMP_K(BPF_JEQ, 1, 0, 3),
		    ALU64_K(BPF_SUB, 1, 1),
		    CALL_REL(-4),
		    ALU64_K(BPF_ADD, 0, 1),
		    EXIT(),
		};
		struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), NULL, 0);
		struct bpfvm_fault f;
		uint64_t r0 = bpfvm_interp_run_checked(p, NULL, 0, &f);
		if (depth == 6) {
			ck_assert(!f.hit);
			ck_assert_uint_eq(r0, 6);
			ck_assert_uint_eq(bpfvm_prog_run_interp(p, NULL, 0), 6);
		} else {
			ck_assert(f.hit);
			ck_assert_uint_eq(f.pc, 6);
			ck_assert_uint_eq(r0, 0);
			ck_assert_uint_eq(bpfvm_prog_run_interp(p, NULL, 0), 0);
		}
		bpfvm_prog_put(p);
	}
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(budget_stops_infinite_loop)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn spin[] = {MOV64_K(0, 1), ALU64_K(BPF_ADD, 0, 1), JA(-2), EXIT()};
	struct bpfvm_prog *p = fx_load_ok(reg, spin, NINSNS(spin), NULL, 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	struct bpfvm_fault f;
	ck_assert_uint_eq(e->run(p, NULL, 0, &f), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	ck_assert_msg(s < 5.0, "budget stop took %.2f s", s);
	if (e->run == fx_run_checked) {
		ck_assert(f.hit);
		ck_assert_uint_eq(f.pc, 2);
	}
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *calls_suite(void)
{
	Suite *s = suite_create("bpfvm_interp_calls");
	TCase *tc = tcase_create("calls");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tail_call_target_and_fallthrough, 0, FX_NENGINES);
	tcase_add_test(tc, tail_call_limit_33);
	tcase_add_loop_test(tc, bpf_loop_callbacks, 0, FX_NENGINES);
	tcase_add_test(tc, bpf_loop_budget_of_callbacks);
	tcase_add_loop_test(tc, for_each_map_elem_array, 0, FX_NENGINES);
	tcase_add_test(tc, call_depth_limit);
	tcase_add_loop_test(tc, budget_stops_infinite_loop, 0, FX_NENGINES);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(calls_suite)
