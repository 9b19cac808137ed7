/* The run-time budget (docs/verifier-diff.md "Run-time budget"): verified
 * programs too spend one unit per back-edge taken and per callback entered;
 * the unit that empties the budget stops the run at once on both engines
 * (the same count, to the unit), bpfvm_prog_exec says -ETIME and the stop
 * is counted for the program and its registry. Class 8 of issue 25: nested
 * bpf_loop at the maximum count (2^46 callbacks) ends within the budget.
 * A stopped run releases what it held: its bpf_spin_lock, its reserved
 * ringbuf records. */
#include <errno.h>
#include <time.h>

#include "check_main.h"
#include "isa_insn.h"

enum { ENG_INTERP, ENG_JIT, ENG_N };
static const char *const eng_name[ENG_N] = {"interp", "jit"};
static char logbuf[8192];
static uint8_t ctx[256];

static struct bpfvm_prog *load(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
			       int eng, uint64_t budget)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {.jit = eng == ENG_JIT, .run_budget = budget, .log = &log};
	struct bpfvm_prog *p = NULL;
	logbuf[0] = 0;
	int err = bpfvm_prog_load(reg, insns, n, NULL, 0, &o, &p);
	ck_assert_msg(err == 0, "load: %d: %s", err, logbuf);
	if (eng == ENG_JIT)
		ck_assert_msg(bpfvm_prog_jited(p, NULL) != NULL, "not jited: %s", logbuf);
	return p;
}

static uint64_t stops(const struct bpfvm_prog *p)
{
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	return info.budget_stops;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* r0 = sum(0..999): 999 back-edges taken */
static const struct bpfvm_insn back_loop[] = {
    MOV64_K(0, 0),
    MOV64_K(1, 0),
    ALU64_X(BPF_ADD, 0, 1),
    ALU64_K(BPF_ADD, 1, 1),
    JMP_K(BPF_JLT, 1, 1000, -3),
    EXIT(),
};

START_TEST(back_edges_to_the_unit)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	uint64_t r0 = 7;
	struct bpfvm_prog *p = load(reg, back_loop, NINSNS(back_loop), _i, 1000);
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), 0);
	ck_assert_uint_eq(r0, 499500);
	ck_assert_uint_eq(stops(p), 0);
	bpfvm_prog_put(p);
	p = load(reg, back_loop, NINSNS(back_loop), _i, 999);
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), -ETIME);
	ck_assert_uint_eq(r0, 0);
	ck_assert_uint_eq(bpfvm_prog_run(p, ctx, sizeof ctx), 0);
	ck_assert_uint_eq(stops(p), 2);
	ck_assert_uint_eq(bpfvm_registry_budget_stops(reg), 2);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* main reads nr from ctx and calls sub(nr); sub runs bpf_loop(nr, cb); cb
 * loops 4 times (3 back-edges): 4 units per iteration, spent in a callback
 * entered from a helper called from a subprogram, so a stop unwinds all of
 * them. r0 = nr. */
static const struct bpfvm_insn deep[] = {
    LDX(BPF_W, 1, 1, 0),
    ALU64_K(BPF_AND, 1, 0xffff),
    CALL_REL(1),
    EXIT(),
    /* sub(nr) */
    LD_FUNC(2, 5),
    MOV64_K(3, 0),
    MOV64_K(4, 0),
    CALL(181),
    EXIT(),
    /* cb(i, ctx) */
    MOV64_K(0, 0),
    MOV64_K(2, 0),
    ALU64_K(BPF_ADD, 0, 1),
    ALU64_K(BPF_ADD, 2, 1),
    JMP_K(BPF_JLT, 2, 4, -3),
    MOV64_K(0, 0),
    EXIT(),
};

START_TEST(stop_unwinds_callbacks_and_subprograms)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *p = load(reg, deep, NINSNS(deep), _i, 1000);
	static const struct {
		uint32_t nr;
		int err;
	} cases[] = {{10, 0}, {249, 0},	       {250, -ETIME}, {1000, -ETIME},
		     {3, 0},  {60000, -ETIME}, {0, 0}};
	uint64_t want_stops = 0;
	for (size_t i = 0; i < NINSNS(cases); i++) {
		uint64_t r0 = 7;
		memcpy(ctx, &cases[i].nr, 4);
		int err = bpfvm_prog_exec(p, ctx, sizeof ctx, &r0);
		ck_assert_msg(err == cases[i].err, "%s: nr %u: %d", eng_name[_i], cases[i].nr, err);
		ck_assert_uint_eq(r0, err ? 0 : cases[i].nr);
		want_stops += err != 0;
		ck_assert_uint_eq(stops(p), want_stops);
	}
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Issue 25 class 8: bpf_loop(2^23, cb1), cb1 runs bpf_loop(2^23, cb2): 2^46
 * callbacks if nothing bounds them. Verified (the kernel accepts it too). */
static const struct bpfvm_insn nested[] = {
    MOV64_K(1, 1 << 23),
    LD_FUNC(2, 6),
    MOV64_K(3, 0),
    MOV64_K(4, 0),
    CALL(181),
    MOV64_K(0, 1),
    EXIT(),
    /* cb1 */
    MOV64_K(1, 1 << 23),
    LD_FUNC(2, 6),
    MOV64_K(3, 0),
    MOV64_K(4, 0),
    CALL(181),
    MOV64_K(0, 0),
    EXIT(),
    /* cb2 */
    MOV64_K(0, 0),
    EXIT(),
};

START_TEST(nested_bpf_loop_is_bounded)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *p = load(reg, nested, NINSNS(nested), _i, 1u << 20);
	uint64_t r0 = 7;
	double t0 = now_s();
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), -ETIME);
	double s = now_s() - t0;
	ck_assert_uint_eq(r0, 0);
	ck_assert_uint_eq(stops(p), 1);
	ck_assert_msg(s < 2.0, "%s: the stop took %.2f s", eng_name[_i], s);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* One budget for the whole invocation: a caller spending 599 units tail-calls
 * a target spending 599 more. On the JIT also a target without an image,
 * which the interpreter runs on what the JIT run has left. */
static const struct bpfvm_insn tail_caller[] = {
    MOV64_X(6, 1), MOV64_K(2, 0), ALU64_K(BPF_ADD, 2, 1), JMP_K(BPF_JLT, 2, 600, -2),
    MOV64_X(1, 6), LD_MAP(2, 0),  MOV64_K(3, 0),	  CALL(BPF_HELPER_TAIL_CALL),
    MOV64_K(0, 7), EXIT(),
};
static const struct bpfvm_insn tail_target[] = {
    MOV64_K(2, 0), ALU64_K(BPF_ADD, 2, 1), JMP_K(BPF_JLT, 2, 600, -2), MOV64_K(0, 42), EXIT(),
};

START_TEST(tail_calls_share_the_budget)
{
	/* _i: 0 both interpreted, 1 both JIT, 2 JIT caller, interpreted target */
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def def = {
	    .type = BPFVM_MAP_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	struct bpfvm_map *pa;
	ck_assert_int_eq(bpfvm_map_create(reg, &def, &pa), 0);
	struct bpfvm_prog *t =
	    load(reg, tail_target, NINSNS(tail_target), _i == 1 ? ENG_JIT : ENG_INTERP, 0);
	uint32_t key = 0, id = bpfvm_prog_id(t);
	ck_assert_int_eq(bpfvm_map_update(pa, &key, &id, BPFVM_ANY), 0);
	static const struct {
		uint64_t budget;
		int err;
	} cases[] = {{1000, -ETIME}, {1198, -ETIME}, {1199, 0}, {5000, 0}};
	for (size_t i = 0; i < NINSNS(cases); i++) {
		struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
		struct bpfvm_load_opts o = {
		    .jit = _i != 0, .run_budget = cases[i].budget, .log = &log};
		struct bpfvm_prog *p = NULL;
		logbuf[0] = 0;
		ck_assert_msg(
		    bpfvm_prog_load(reg, tail_caller, NINSNS(tail_caller), &pa, 1, &o, &p) == 0,
		    "%s", logbuf);
		uint64_t r0 = 9;
		int err = bpfvm_prog_exec(p, ctx, sizeof ctx, &r0);
		ck_assert_msg(err == cases[i].err, "engines %d budget %llu: %d", _i,
			      (unsigned long long)cases[i].budget, err);
		ck_assert_uint_eq(r0, err ? 0 : 42);
		ck_assert_uint_eq(stops(p), err != 0);
		ck_assert_uint_eq(stops(t), 0); /* the program the run began with pays */
		bpfvm_prog_put(p);
	}
	bpfvm_prog_put(t);
	bpfvm_map_put(pa);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(default_budget_and_registry_setting)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog_info info;
	ck_assert_uint_eq(bpfvm_registry_run_budget(reg), BPFVM_RUN_BUDGET_DEFAULT);
	struct bpfvm_prog *p = load(reg, nested, NINSNS(nested), ENG_JIT, 0);
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.run_budget, BPFVM_RUN_BUDGET_DEFAULT);
	/* the default bounds class 8 on its own, in well under a second of JIT */
	uint64_t r0;
	double t0 = now_s();
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), -ETIME);
	ck_assert_msg(now_s() - t0 < 3.0, "default budget stop took %.2f s", now_s() - t0);
	bpfvm_prog_put(p);
	/* a registry setting applies to later loads; 0 restores the default */
	bpfvm_registry_set_run_budget(reg, 999);
	p = load(reg, back_loop, NINSNS(back_loop), ENG_INTERP, 0);
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), -ETIME);
	bpfvm_prog_put(p);
	bpfvm_registry_set_run_budget(reg, 0);
	ck_assert_uint_eq(bpfvm_registry_run_budget(reg), BPFVM_RUN_BUDGET_DEFAULT);
	p = load(reg, back_loop, NINSNS(back_loop), ENG_INTERP, 0);
	ck_assert_int_eq(bpfvm_prog_exec(p, ctx, sizeof ctx, &r0), 0);
	ck_assert_uint_eq(r0, 499500);
	bpfvm_prog_put(p);
	ck_assert_uint_eq(bpfvm_registry_budget_stops(reg), 2);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* The engines of the held-resource tests: the checked interpreter too, since
 * it stops through the same interp_start the release sits in. */
enum { HELD_INTERP, HELD_JIT, HELD_CHECKED, HELD_N };

static struct bpfvm_prog *load_maps(struct bpfvm_registry *reg, const struct bpfvm_insn *insns,
				    size_t n, struct bpfvm_map *map, int eng, uint64_t budget)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {.jit = eng == HELD_JIT, .run_budget = budget, .log = &log};
	struct bpfvm_prog *p = NULL;
	logbuf[0] = 0;
	int err = bpfvm_prog_load(reg, insns, n, &map, 1, &o, &p);
	ck_assert_msg(err == 0, "load: %d: %s", err, logbuf);
	if (eng == HELD_JIT)
		ck_assert_msg(bpfvm_prog_jited(p, NULL) != NULL, "not jited: %s", logbuf);
	return p;
}

/* Run with ctx's first word = nr on the engine; true when the budget stopped
 * it (the checked interpreter reports a stop as 0 with a stop pc). */
static bool run_held(const struct bpfvm_prog *p, int eng, uint32_t nr)
{
	uint64_t r0 = 7;
	memcpy(ctx, &nr, 4);
	if (eng == HELD_CHECKED) {
		int64_t pc = -2;
		r0 = bpfvm_prog_run_checked(p, ctx, sizeof ctx, &pc);
		return r0 == 0;
	}
	int err = bpfvm_prog_exec(p, ctx, sizeof ctx, &r0);
	ck_assert_msg(err == 0 || err == -ETIME, "exec: %d", err);
	return err == -ETIME;
}

/* bpf_loop(nr, cb); cb takes the lock of the map value and spends 99
 * back-edges inside it: with a budget of 1000 the 10th iteration is stopped
 * holding the lock. r0 = 1 after a finished run. */
static const struct bpfvm_insn lock_loop[] = {
    LDX(BPF_W, 1, 1, 0),
    ALU64_K(BPF_AND, 1, 0xffff),
    LD_FUNC(2, 6),
    MOV64_K(3, 0),
    MOV64_K(4, 0),
    CALL(181),
    MOV64_K(0, 1),
    EXIT(),
    /* cb */
    ST(BPF_W, 10, -4, 0),
    MOV64_X(2, 10),
    ALU64_K(BPF_ADD, 2, -4),
    LD_MAP(1, 0),
    CALL(1),
    JMP_K(BPF_JEQ, 0, 0, 8),
    MOV64_X(6, 0),
    MOV64_X(1, 6),
    CALL(93),
    MOV64_K(7, 0),
    ALU64_K(BPF_ADD, 7, 1),
    JMP_K(BPF_JLT, 7, 100, -2),
    MOV64_X(1, 6),
    CALL(94),
    MOV64_K(0, 0),
    EXIT(),
};

START_TEST(stop_releases_the_spin_lock)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def d = {.type = BPFVM_MAP_ARRAY,
				  .key_size = 4,
				  .value_size = 16,
				  .max_entries = 1,
				  .has_spin_lock = true,
				  .spin_lock_off = 0};
	struct bpfvm_map *m = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	struct bpfvm_prog *p = load_maps(reg, lock_loop, NINSNS(lock_loop), m, _i, 1000);
	uint32_t k = 0;
	uint32_t *lock = bpfvm_map_lookup(m, &k);
	ck_assert_ptr_nonnull(lock);
	for (int round = 0; round < 3; round++) {
		ck_assert_msg(run_held(p, _i, 100), "%d: not stopped", _i);
		ck_assert_msg(*lock == 0, "engine %d round %d: lock word %u after a stop", _i,
			      round, *lock);
		double t = now_s();
		ck_assert_msg(!run_held(p, _i, 1), "%d: short run stopped", _i);
		ck_assert_uint_eq(*lock, 0);
		ck_assert_msg(now_s() - t < 0.1, "engine %d: locked run took %.3f s", _i,
			      now_s() - t);
	}
	/* a stale word (as an unverified program may leave): the wait is bounded
	 * (10 ms, plus what yielding costs on a loaded machine), not seconds */
	*lock = 1;
	double t = now_s();
	ck_assert(!run_held(p, _i, 1));
	ck_assert_msg(now_s() - t < 0.5, "engine %d: stale lock waited %.3f s", _i, now_s() - t);
	ck_assert_uint_eq(*lock, 0);
	bpfvm_prog_put(p);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* bpf_loop(nr, cb); cb reserves 8 bytes, spends 99 back-edges, submits:
 * with a budget of 1000 the 10th record is reserved when the run stops. */
static const struct bpfvm_insn rb_loop[] = {
    LDX(BPF_W, 1, 1, 0),
    ALU64_K(BPF_AND, 1, 0xffff),
    LD_FUNC(2, 6),
    MOV64_K(3, 0),
    MOV64_K(4, 0),
    CALL(181),
    MOV64_K(0, 1),
    EXIT(),
    /* cb */
    LD_MAP(1, 0),
    MOV64_K(2, 8),
    MOV64_K(3, 0),
    CALL(131),
    JMP_K(BPF_JEQ, 0, 0, 7),
    MOV64_X(6, 0),
    MOV64_K(7, 0),
    ALU64_K(BPF_ADD, 7, 1),
    JMP_K(BPF_JLT, 7, 100, -2),
    MOV64_X(1, 6),
    MOV64_K(2, 0),
    CALL(132),
    MOV64_K(0, 0),
    EXIT(),
};

START_TEST(stop_discards_reserved_records)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def d = {.type = BPFVM_MAP_RINGBUF, .max_entries = 4096};
	struct bpfvm_map *m = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	struct bpfvm_prog *p = load_maps(reg, rb_loop, NINSNS(rb_loop), m, _i, 1000);
	uint8_t buf[64];
	for (int round = 0; round < 3; round++) {
		ck_assert_msg(run_held(p, _i, 100), "%d: not stopped", _i);
		/* the nine submitted records, then nothing: the tenth is gone */
		int got = 0;
		while (got < 20 && bpfvm_ringbuf_consume(m, buf, sizeof buf) == 8)
			got++;
		ck_assert_msg(got == 9, "engine %d round %d: consumed %d", _i, round, got);
		ck_assert(!run_held(p, _i, 1));
		ck_assert_msg(bpfvm_ringbuf_consume(m, buf, sizeof buf) == 8,
			      "engine %d round %d: the consumer stalls behind a stopped record", _i,
			      round);
		ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 0);
	}
	bpfvm_prog_put(p);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("bpfvm_run_budget");
	TCase *tc = tcase_create("budget");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, back_edges_to_the_unit, 0, ENG_N);
	tcase_add_loop_test(tc, stop_unwinds_callbacks_and_subprograms, 0, ENG_N);
	tcase_add_loop_test(tc, nested_bpf_loop_is_bounded, 0, ENG_N);
	tcase_add_loop_test(tc, tail_calls_share_the_budget, 0, 3);
	tcase_add_test(tc, default_budget_and_registry_setting);
	tcase_add_loop_test(tc, stop_releases_the_spin_lock, 0, HELD_N);
	tcase_add_loop_test(tc, stop_discards_reserved_records, 0, HELD_N);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(budget_suite)
