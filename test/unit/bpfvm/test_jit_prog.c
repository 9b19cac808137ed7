/* Whole programs on both engines: helpers, maps, nested bpf-to-bpf calls
 * with stack pointers, tail calls (JIT target, interpreted target, empty
 * slot, the 33-call limit, from a subprogram), bpf_loop and
 * for_each_map_elem callbacks, trace_printk output. Every program is
 * verified; state the program changes (maps, trace ring) is reset before
 * each engine so the r0, ctx memory and map contents can be compared. */
#include "check_main.h"
#include "isa_insn.h"
#include "jit_engines.h"

#define R0  0
#define R1  1
#define R2  2
#define R3  3
#define R4  4
#define R5  5
#define R6  6
#define R7  7
#define R10 10

struct fixture {
	struct bpfvm_registry *reg;
	struct bpfvm_map *array, *hash, *progs;
};

static void fx_init(struct fixture *fx)
{
	ck_assert_int_eq(bpfvm_registry_create(&fx->reg), 0);
	struct bpfvm_map_def a = {.type = BPFVM_MAP_ARRAY,
				  .key_size = 4,
				  .value_size = 8,
				  .max_entries = 4,
				  .name = "arr"};
	struct bpfvm_map_def h = {.type = BPFVM_MAP_HASH,
				  .key_size = 8,
				  .value_size = 8,
				  .max_entries = 16,
				  .name = "hash"};
	struct bpfvm_map_def p = {.type = BPFVM_MAP_PROG_ARRAY,
				  .key_size = 4,
				  .value_size = 4,
				  .max_entries = 4,
				  .name = "progs"};
	ck_assert_int_eq(bpfvm_map_create(fx->reg, &a, &fx->array), 0);
	ck_assert_int_eq(bpfvm_map_create(fx->reg, &h, &fx->hash), 0);
	ck_assert_int_eq(bpfvm_map_create(fx->reg, &p, &fx->progs), 0);
}

static void fx_fini(struct fixture *fx)
{
	bpfvm_map_put(fx->array);
	bpfvm_map_put(fx->hash);
	bpfvm_map_put(fx->progs);
	bpfvm_registry_destroy(fx->reg);
}

static void reset_array(struct fixture *fx)
{
	for (uint32_t k = 0; k < 4; k++) {
		uint64_t v = k + 1;
		ck_assert_int_eq(bpfvm_map_update(fx->array, &k, &v, BPFVM_ANY), 0);
	}
}

static void reset_hash(struct fixture *fx)
{
	uint64_t key = 0;
	while (bpfvm_map_get_next_key(fx->hash, NULL, &key) == 0)
		ck_assert_int_eq(bpfvm_map_delete(fx->hash, &key), 0);
}

static struct bpfvm_prog *load_mode(struct fixture *fx, const struct bpfvm_insn *insns, size_t n,
				    struct bpfvm_map *map, bool jit, bool no_verify);

static struct bpfvm_prog *load(struct fixture *fx, const struct bpfvm_insn *insns, size_t n,
			       struct bpfvm_map *map, bool jit)
{
	return load_mode(fx, insns, n, map, jit, false);
}

static struct bpfvm_prog *load_mode(struct fixture *fx, const struct bpfvm_insn *insns, size_t n,
				    struct bpfvm_map *map, bool jit, bool no_verify)
{
	char log[8192];
	struct bpfvm_log lg = {.level = 1, .buf = log, .size = sizeof log};
	log[0] = 0;
	struct bpfvm_load_opts o = {.jit = jit, .no_verify = no_verify, .log = &lg};
	struct bpfvm_map *maps[1] = {map};
	struct bpfvm_prog *p = NULL;
	int err = bpfvm_prog_load(fx->reg, insns, n, maps, map ? 1 : 0, &o, &p);
	ck_assert_msg(err == 0, "load: %d: %s", err, log);
	if (jit)
		ck_assert_msg(bpfvm_prog_jited(p, NULL), "not jited: %s", log);
	return p;
}

/* Run one engine on a fresh copy of ctx after reset; returns r0. */
static uint64_t run(struct fixture *fx, const struct bpfvm_prog *p, bool jit, uint8_t *ctx,
		    const uint8_t *init, void (*reset)(struct fixture *))
{
	memcpy(ctx, init, 256);
	if (reset)
		reset(fx);
	return jit ? bpfvm_prog_run(p, ctx, 256) : bpfvm_prog_run_interp(p, ctx, 256);
}

static void dump_array(struct fixture *fx, uint64_t out[4])
{
	for (uint32_t k = 0; k < 4; k++)
		memcpy(&out[k], bpfvm_map_lookup(fx->array, &k), 8);
}

/* r0 and ctx equal on both engines, r0 == expect; returns r0. */
static uint64_t both(struct fixture *fx, const struct bpfvm_prog *p, const uint8_t *init,
		     void (*reset)(struct fixture *), uint64_t expect)
{
	uint8_t ci[256], cj[256];
	uint64_t ai[4], aj[4];
	uint64_t ri = run(fx, p, false, ci, init, reset);
	dump_array(fx, ai);
	uint64_t rj = run(fx, p, true, cj, init, reset);
	dump_array(fx, aj);
	ck_assert_msg(ri == expect && rj == expect, "r0 interp %#llx jit %#llx want %#llx",
		      (unsigned long long)ri, (unsigned long long)rj, (unsigned long long)expect);
	ck_assert_msg(memcmp(ci, cj, sizeof ci) == 0, "ctx differs");
	ck_assert_msg(memcmp(ai, aj, sizeof ai) == 0, "array map differs");
	return rj;
}

static const uint8_t zero_ctx[256];

START_TEST(array_lookup_atomic_add)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn prog[] = {
	    ST(BPF_W, R10, -4, 1),
	    LD_MAP(R1, 0),
	    MOV64_X(R2, R10),
	    ALU64_K(BPF_ADD, R2, -4),
	    CALL(1),
	    JMP_K(BPF_JEQ, R0, 0, 4),
	    MOV64_K(R1, 5),
	    ATOMIC(BPF_DW, BPF_ADD, R0, R1, 0),
	    LDX(BPF_DW, R0, R0, 0),
	    EXIT(),
	    MOV64_K(R0, 0),
	    EXIT(),
	};
	struct bpfvm_prog *p = load(&fx, prog, NINSNS(prog), fx.array, true);
	both(&fx, p, zero_ctx, reset_array, 2 + 5);
	bpfvm_prog_put(p);
	fx_fini(&fx);
}
END_TEST

START_TEST(hash_update_lookup)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn prog[] = {
	    MOV64_X(R6, R1),
	    LDX(BPF_DW, R2, R6, 0),
	    STX(BPF_DW, R10, R2, -8),
	    LDX(BPF_DW, R3, R6, 8),
	    STX(BPF_DW, R10, R3, -16),
	    LD_MAP(R1, 0),
	    MOV64_X(R2, R10),
	    ALU64_K(BPF_ADD, R2, -8),
	    MOV64_X(R3, R10),
	    ALU64_K(BPF_ADD, R3, -16),
	    MOV64_K(R4, 0),
	    CALL(2),
	    MOV64_X(R7, R0),
	    LD_MAP(R1, 0),
	    MOV64_X(R2, R10),
	    ALU64_K(BPF_ADD, R2, -8),
	    CALL(1),
	    JMP_K(BPF_JEQ, R0, 0, 3),
	    LDX(BPF_DW, R0, R0, 0),
	    ALU64_X(BPF_ADD, R0, R7),
	    EXIT(),
	    MOV64_K(R0, -1),
	    EXIT(),
	};
	struct bpfvm_prog *p = load(&fx, prog, NINSNS(prog), fx.hash, true);
	uint8_t ctx[256] = {0};
	uint64_t key = 0x1122334455667788ull, val = 4242;
	memcpy(ctx, &key, 8);
	memcpy(ctx + 8, &val, 8);
	both(&fx, p, ctx, reset_hash, 4242);
	bpfvm_prog_put(p);
	fx_fini(&fx);
}
END_TEST

START_TEST(nested_calls_with_stack_pointers)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn prog[] = {
	    /* main */
	    ST(BPF_DW, R10, -8, 100),
	    MOV64_X(R1, R10),
	    ALU64_K(BPF_ADD, R1, -8),
	    MOV64_K(R2, 3),
	    CALL_REL(3),
	    LDX(BPF_DW, R1, R10, -8),
	    ALU64_X(BPF_ADD, R0, R1),
	    EXIT(),
	    /* f1(p): *p += f2(&local), returns f2 + local */
	    MOV64_X(R6, R1),
	    ST(BPF_DW, R10, -8, 7),
	    MOV64_X(R1, R10),
	    ALU64_K(BPF_ADD, R1, -8),
	    CALL_REL(6),
	    LDX(BPF_DW, R1, R6, 0),
	    ALU64_X(BPF_ADD, R1, R0),
	    STX(BPF_DW, R6, R1, 0),
	    LDX(BPF_DW, R2, R10, -8),
	    ALU64_X(BPF_ADD, R0, R2),
	    EXIT(),
	    /* f2(p): *p *= 3 */
	    LDX(BPF_DW, R0, R1, 0),
	    ALU64_K(BPF_MUL, R0, 3),
	    STX(BPF_DW, R1, R0, 0),
	    EXIT(),
	};
	struct bpfvm_prog *p = load(&fx, prog, NINSNS(prog), NULL, true);
	both(&fx, p, zero_ctx, NULL, 163);
	bpfvm_prog_put(p);
	fx_fini(&fx);
}
END_TEST

#define CHAIN 36 /* more programs than the 33 tail calls the limit allows */

START_TEST(tail_calls)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn b[] = {MOV64_K(R0, 7), EXIT()};
	struct bpfvm_insn c[] = {MOV64_K(R0, 8), EXIT()};
	/* chain[k]: ctx[0] += 1, then tail-call slot 0 of maps[k + 1]. A chain of
	 * distinct programs and maps, since a program in the array it references
	 * is a reference cycle the prog array cannot break. */
	struct bpfvm_insn d[] = {
	    MOV64_X(R6, R1),	     LDX(BPF_DW, R2, R6, 0),
	    ALU64_K(BPF_ADD, R2, 1), STX(BPF_DW, R6, R2, 0),
	    MOV64_X(R1, R6),	     LD_MAP(R2, 0),
	    MOV64_K(R3, 0),	     CALL(12),
	    LDX(BPF_DW, R0, R6, 0),  EXIT(),
	};
	/* a: tail-call slot ctx[8], 99 when nothing ran */
	struct bpfvm_insn a[] = {
	    MOV64_X(R6, R1), LDX(BPF_DW, R3, R6, 8), LD_MAP(R2, 0), MOV64_X(R1, R6),
	    CALL(12),	     MOV64_K(R0, 99),	     EXIT(),
	};
	/* e: a subprogram tail-calls slot 0; its caller adds 1000 */
	struct bpfvm_insn e[] = {
	    CALL_REL(2),    ALU64_K(BPF_ADD, R0, 1000),
	    EXIT(),	    LD_MAP(R2, 0),
	    MOV64_K(R3, 0), CALL(12),
	    MOV64_K(R0, 5), EXIT(),
	};
	struct bpfvm_map *maps[CHAIN + 1];
	struct bpfvm_prog *chain[CHAIN];
	struct bpfvm_map_def pdef = {.type = BPFVM_MAP_PROG_ARRAY,
				     .key_size = 4,
				     .value_size = 4,
				     .max_entries = 1,
				     .name = "chain"};
	for (int k = 0; k <= CHAIN; k++)
		ck_assert_int_eq(bpfvm_map_create(fx.reg, &pdef, &maps[k]), 0);
	uint32_t zero = 0;
	for (int k = CHAIN - 1; k >= 0; k--) {
		chain[k] = load(&fx, d, NINSNS(d), maps[k + 1], true);
		uint32_t id = bpfvm_prog_id(chain[k]);
		ck_assert_int_eq(bpfvm_map_update(maps[k], &zero, &id, BPFVM_ANY), 0);
	}
	struct bpfvm_prog *pb = load(&fx, b, NINSNS(b), NULL, true);
	struct bpfvm_prog *pc = load(&fx, c, NINSNS(c), NULL, false); /* interpreted target */
	uint32_t ids[3] = {bpfvm_prog_id(pb), bpfvm_prog_id(pc), bpfvm_prog_id(chain[0])};
	for (uint32_t k = 0; k < 3; k++)
		ck_assert_int_eq(bpfvm_map_update(fx.progs, &k, &ids[k], BPFVM_ANY), 0);
	struct bpfvm_prog *pa = load(&fx, a, NINSNS(a), fx.progs, true);
	struct bpfvm_prog *pe = load(&fx, e, NINSNS(e), fx.progs, true);
	uint8_t ctx[256] = {0};
	/* slot 2: a's call plus 32 in the chain are the 33 allowed */
	const uint64_t slot_expect[][2] = {{0, 7}, {1, 8}, {3, 99}, {100, 99}, {2, 33}};
	for (size_t i = 0; i < NINSNS(slot_expect); i++) {
		memcpy(ctx + 8, &slot_expect[i][0], 8);
		both(&fx, pa, ctx, NULL, slot_expect[i][1]);
	}
	both(&fx, pe, zero_ctx, NULL, 1007);
	bpfvm_prog_put(pa);
	bpfvm_prog_put(pe);
	bpfvm_prog_put(pb);
	bpfvm_prog_put(pc);
	for (int k = 0; k < CHAIN; k++)
		bpfvm_prog_put(chain[k]);
	for (int k = 0; k <= CHAIN; k++)
		bpfvm_map_put(maps[k]);
	fx_fini(&fx);
}
END_TEST

START_TEST(bpf_loop_callback)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn prog[] = {
	    ST(BPF_DW, R10, -8, 0),
	    MOV64_K(R1, 10),
	    LD_FUNC(R2, 8),
	    MOV64_X(R3, R10),
	    ALU64_K(BPF_ADD, R3, -8),
	    MOV64_K(R4, 0),
	    CALL(BPF_HELPER_LOOP),
	    LDX(BPF_DW, R1, R10, -8),
	    ALU64_X(BPF_ADD, R0, R1),
	    EXIT(),
	    /* cb(i, ctx): *ctx += i, using its own frame on the way */
	    STX(BPF_DW, R10, R1, -8),
	    LDX(BPF_DW, R3, R2, 0),
	    LDX(BPF_DW, R4, R10, -8),
	    ALU64_X(BPF_ADD, R3, R4),
	    STX(BPF_DW, R2, R3, 0),
	    MOV64_K(R0, 0),
	    EXIT(),
	};
	/* verified (lean frame) and unverified (budget slots, unwinding thunk) */
	for (int nv = 0; nv < 2; nv++) {
		struct bpfvm_prog *p = load_mode(&fx, prog, NINSNS(prog), NULL, true, nv);
		both(&fx, p, zero_ctx, NULL, 10 + 45);
		bpfvm_prog_put(p);
	}
	fx_fini(&fx);
}
END_TEST

START_TEST(for_each_map_elem_callback)
{
	struct fixture fx;
	fx_init(&fx);
	struct bpfvm_insn prog[] = {
	    ST(BPF_DW, R10, -8, 0),
	    LD_MAP(R1, 0),
	    LD_FUNC(R2, 9),
	    MOV64_X(R3, R10),
	    ALU64_K(BPF_ADD, R3, -8),
	    MOV64_K(R4, 0),
	    CALL(164),
	    LDX(BPF_DW, R1, R10, -8),
	    ALU64_K(BPF_MUL, R0, 100),
	    ALU64_X(BPF_ADD, R0, R1),
	    EXIT(),
	    /* cb(map, key, value, ctx): *ctx += *value */
	    LDX(BPF_DW, R5, R3, 0),
	    LDX(BPF_DW, R0, R4, 0),
	    ALU64_X(BPF_ADD, R0, R5),
	    STX(BPF_DW, R4, R0, 0),
	    MOV64_K(R0, 0),
	    EXIT(),
	};
	for (int nv = 0; nv < 2; nv++) {
		struct bpfvm_prog *p = load_mode(&fx, prog, NINSNS(prog), fx.array, true, nv);
		both(&fx, p, zero_ctx, reset_array, 400 + 1 + 2 + 3 + 4);
		bpfvm_prog_put(p);
	}
	fx_fini(&fx);
}
END_TEST

START_TEST(trace_printk_same_output)
{
	struct fixture fx;
	fx_init(&fx);
	/* "v %d\n" on the stack */
	struct bpfvm_insn prog[] = {
	    LDDW(R1, 0x0000000a64252076ull),
	    STX(BPF_DW, R10, R1, -8),
	    MOV64_X(R1, R10),
	    ALU64_K(BPF_ADD, R1, -8),
	    MOV64_K(R2, 6),
	    MOV64_K(R3, 42),
	    CALL(6),
	    CALL(8),
	    EXIT(),
	};
	struct bpfvm_prog *p = load(&fx, prog, NINSNS(prog), NULL, true);
	char ti[128] = "", tj[128] = "";
	uint8_t ctx[256];
	uint64_t ri = run(&fx, p, false, ctx, zero_ctx, NULL);
	bpfvm_trace_read(fx.reg, ti, sizeof ti);
	uint64_t rj = run(&fx, p, true, ctx, zero_ctx, NULL);
	bpfvm_trace_read(fx.reg, tj, sizeof tj);
	ck_assert_uint_eq(ri, rj);
	ck_assert_msg(strstr(ti, "v 42"), "interp trace: '%s'", ti);
	ck_assert_str_eq(ti, tj);
	bpfvm_prog_put(p);
	fx_fini(&fx);
}
END_TEST

static Suite *jit_prog_suite(void)
{
	Suite *s = suite_create("bpfvm_jit_prog");
	TCase *tc = tcase_create("prog");
	tcase_add_test(tc, array_lookup_atomic_add);
	tcase_add_test(tc, hash_update_lookup);
	tcase_add_test(tc, nested_calls_with_stack_pointers);
	tcase_add_test(tc, tail_calls);
	tcase_add_test(tc, bpf_loop_callback);
	tcase_add_test(tc, for_each_map_elem_callback);
	tcase_add_test(tc, trace_printk_same_output);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(jit_prog_suite)
