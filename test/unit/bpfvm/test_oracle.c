/* The checked-execution oracle (bpfvm/oracle.c) on programs that break what
 * a verifier proves: each is loaded unverified and then run as if it had
 * been verified, and must stop with the violation named; sound programs,
 * verified for real, must run clean. Helper contracts are checked by calling
 * oracle_helper with helpers that break their own entries. */
#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"
#include "oracle.h"

static uint8_t ctx[256];

/* Load unverified, then present it to the oracle as verified. */
static struct bpfvm_prog *as_verified(struct bpfvm_registry *reg, const struct bpfvm_insn *insns,
				      size_t n, struct bpfvm_map *const *maps, size_t nmaps,
				      bool priv)
{
	struct bpfvm_prog *p = fx_load_ok(reg, insns, n, maps, nmaps);
	p->no_verify = false;
	p->allow_ptr_leaks = priv;
	return p;
}

static void expect(const struct bpfvm_prog *p, int64_t pc, const char *what)
{
	struct bpfvm_oracle_report rep;
	(void)bpfvm_prog_run_oracle(p, ctx, sizeof(ctx), &rep);
	if (!what) {
		ck_assert_msg(!rep.violation && rep.pc == -1, "unexpected: %s (pc %lld)", rep.why,
			      (long long)rep.pc);
		return;
	}
	ck_assert_msg(rep.violation, "no violation, wanted '%s'", what);
	ck_assert_msg(strstr(rep.why, what), "got '%s', wanted '%s'", rep.why, what);
	ck_assert_int_eq(rep.pc, pc);
}

#define LOOKUP0(m)                                                                                 \
	ST(BPF_DW, 10, -8, 0), LD_MAP(1, m), MOV64_X(2, 10), ALU64_K(BPF_ADD, 2, -8), CALL(1)

START_TEST(sound_verified)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 4);
	struct bpfvm_insn insns[] = {
	    LOOKUP0(0),
	    JMP_K(BPF_JEQ, 0, 0, 3),
	    LDX(BPF_DW, 1, 0, 8),
	    STX(BPF_DW, 10, 1, -16),
	    LDX(BPF_DW, 0, 10, -16),
	    EXIT(),
	};
	struct bpfvm_log log = {.level = 1, .buf = fx_logbuf, .size = sizeof(fx_logbuf)};
	struct bpfvm_load_opts o = {.log = &log};
	struct bpfvm_prog *p = NULL;
	ck_assert_msg(bpfvm_prog_load(reg, insns, NINSNS(insns), &arr, 1, &o, &p) == 0, "%s",
		      fx_logbuf);
	expect(p, -1, NULL);
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* An array's values are contiguous: the plain checked run sees valid memory,
 * the oracle sees a value pointer past its value. */
START_TEST(map_value_walked_into_next)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 4);
	struct bpfvm_insn insns[] = {
	    LOOKUP0(0),
	    JMP_K(BPF_JEQ, 0, 0, 1),
	    LDX(BPF_DW, 0, 0, 16),
	    EXIT(),
	};
	struct bpfvm_prog *p = as_verified(reg, insns, NINSNS(insns), &arr, 1, true);
	expect(p, 7, "map_value read at off 16 size 8 of 16");
	int64_t stop = 0;
	(void)bpfvm_prog_run_checked(p, ctx, sizeof(ctx), &stop);
	ck_assert_int_eq(stop, -1); /* what the oracle adds */
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(scalar_and_ctx)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	/* a value from ctx used as a pointer */
	struct bpfvm_insn deref[] = {LDX(BPF_DW, 2, 1, 0), LDX(BPF_B, 0, 2, 0), EXIT()};
	struct bpfvm_prog *p = as_verified(reg, deref, NINSNS(deref), NULL, 0, true);
	uint64_t self = (uint64_t)(uintptr_t)ctx;
	memcpy(ctx, &self, 8);
	expect(p, 1, "through a scalar");
	bpfvm_prog_put(p);
	/* ctx at a misaligned width (the type's ctx_access refuses it) */
	struct bpfvm_insn mis[] = {LDX(BPF_W, 0, 1, 2), EXIT()};
	p = as_verified(reg, mis, NINSNS(mis), NULL, 0, true);
	expect(p, 0, "ctx read off 2 size 4 refused");
	bpfvm_prog_put(p);
	memset(ctx, 0, sizeof(ctx));
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(leaks_unprivileged)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 4);
	struct bpfvm_insn store[] = {
	    LOOKUP0(0), JMP_K(BPF_JEQ, 0, 0, 1), STX(BPF_DW, 0, 10, 0), MOV64_K(0, 0), EXIT(),
	};
	struct bpfvm_prog *p = as_verified(reg, store, NINSNS(store), &arr, 1, false);
	expect(p, 7, "stored a stack pointer into map_value");
	bpfvm_prog_put(p);
	p = as_verified(reg, store, NINSNS(store), &arr, 1, true); /* allowed when privileged */
	expect(p, -1, NULL);
	bpfvm_prog_put(p);
	struct bpfvm_insn ret[] = {MOV64_X(0, 10), ALU64_K(BPF_ADD, 0, -8), EXIT()};
	p = as_verified(reg, ret, NINSNS(ret), NULL, 0, false);
	expect(p, 2, "returned a stack pointer");
	bpfvm_prog_put(p);
	/* half of a spilled pointer */
	struct bpfvm_insn half[] = {STX(BPF_DW, 10, 1, -8), LDX(BPF_W, 0, 10, -8), EXIT()};
	p = as_verified(reg, half, NINSNS(half), NULL, 0, false);
	expect(p, 1, "read 4 bytes of a spilled ctx pointer");
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(rodata_and_refs)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def rd = {.type = BPFVM_MAP_ARRAY,
				   .key_size = 4,
				   .value_size = 16,
				   .max_entries = 1,
				   .map_flags = 0x80 /* BPF_F_RDONLY_PROG */};
	struct bpfvm_map *ro = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &rd, &ro), 0);
	bpfvm_map_freeze(ro);
	struct bpfvm_insn wr[] = {LD_MAP_VALUE(1, 0, 4), ST(BPF_B, 1, 0, 1), MOV64_K(0, 0), EXIT()};
	struct bpfvm_prog *p = as_verified(reg, wr, NINSNS(wr), &ro, 1, true);
	expect(p, 2, "write into a read-only map_value at off 4");
	bpfvm_prog_put(p);

	struct bpfvm_map *rb = fx_map(reg, BPFVM_MAP_RINGBUF, 0, 0, 4096);
	struct bpfvm_insn leak[] = {
	    LD_MAP(1, 0), MOV64_K(2, 8), MOV64_K(3, 0), CALL(131), MOV64_K(0, 0), EXIT(),
	};
	p = as_verified(reg, leak, NINSNS(leak), &rb, 1, true);
	expect(p, 6, "exited holding 1 ringbuf record");
	bpfvm_prog_put(p);
	struct bpfvm_insn uaf[] = {
	    LD_MAP(1, 0),  MOV64_K(2, 8), MOV64_K(3, 0), CALL(131), JMP_K(BPF_JEQ, 0, 0, 5),
	    MOV64_X(6, 0), MOV64_X(1, 0), MOV64_K(2, 0), CALL(132), ST(BPF_DW, 6, 0, 1),
	    MOV64_K(0, 0), EXIT(),
	};
	p = as_verified(reg, uaf, NINSNS(uaf), &rb, 1, true);
	expect(p, 10, "ringbuf_mem after its release");
	bpfvm_prog_put(p);
	bpfvm_map_put(rb);
	bpfvm_map_put(ro);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* A subprogram returns a pointer into its own frame; the caller reads it. */
START_TEST(stale_frame)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {
	    CALL_REL(2),    LDX(BPF_DW, 0, 0, 0),    EXIT(), ST(BPF_DW, 10, -8, 7),
	    MOV64_X(0, 10), ALU64_K(BPF_ADD, 0, -8), EXIT(),
	};
	struct bpfvm_prog *p = as_verified(reg, insns, NINSNS(insns), NULL, 0, true);
	expect(p, 1, "frame 1, which has returned");
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* for_each_map_elem's key lives in the helper's frame: a callback saving
 * it for the caller (issue 25 class 11). */
START_TEST(foreach_key_escapes)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 2);
	struct bpfvm_insn insns[] = {
	    LD_MAP(1, 0),
	    LD_FUNC(2, 8),
	    MOV64_X(3, 10),
	    ALU64_K(BPF_ADD, 3, -8),
	    MOV64_K(4, 0),
	    CALL(164),
	    LDX(BPF_DW, 1, 10, -8),
	    LDX(BPF_W, 0, 1, 0),
	    EXIT(),
	    /* callback(map, key, value, ctx): *(u64 *)ctx = key */
	    STX(BPF_DW, 4, 2, 0),
	    MOV64_K(0, 0),
	    EXIT(),
	};
	struct bpfvm_prog *p = as_verified(reg, insns, NINSNS(insns), &arr, 1, true);
	expect(p, 9, "for_each key after its release");
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* ---- helper contracts ---- */

static uint64_t h_writes_input(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			       struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	if (r2)
		((uint8_t *)(uintptr_t)r1)[r2 - 1] ^= 1;
	return 0;
}

static uint64_t h_fills_half(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			     struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	memset((void *)(uintptr_t)r1, 0, r2 / 2);
	return 0;
}

static uint64_t h_fills_all(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			    struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	memset((void *)(uintptr_t)r1, 0, r2);
	return 0;
}

static void call_helper(const struct bpfvm_helper *h, uint64_t size, bool unpriv, const char *what)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {MOV64_K(0, 0), EXIT()};
	struct bpfvm_prog *p = as_verified(reg, insns, 2, NULL, 0, !unpriv);
	static struct oracle o;
	_Alignas(16) static uint8_t stack[BPFVM_MAX_CALL_DEPTH * BPFVM_STACK_SIZE];
	oracle_init(&o, p, ctx, sizeof(ctx), stack);
	struct oracle_regs t;
	uint64_t args[4] = {0};
	oracle_enter(&o, &t, 0, args);
	uint64_t reg_[11] = {0};
	uint64_t top = (uint64_t)(uintptr_t)(stack + sizeof(stack));
	reg_[1] = top - 64;
	reg_[2] = size;
	t.r[1] = (struct oracle_tag){.kind = OK_STACK, .idx = 0};
	struct bpfvm_run run = {.prog = p, .ctx = ctx};
	(void)oracle_helper(&o, p, p->insns, h, reg_, &t, &run);
	if (what) {
		ck_assert_msg(o.failed, "helper %s: no violation", h->name);
		ck_assert_msg(strstr(o.why, what), "got '%s', wanted '%s'", o.why, what);
	} else {
		ck_assert_msg(!o.failed, "%s", o.why);
	}
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}

START_TEST(helper_contracts)
{
	const struct bpfvm_helper rd = {.id = 900,
					.name = "writes_input",
					.fn = h_writes_input,
					.args = {BPFVM_A_MEM(READ, 2), BPFVM_A_SIZE(1)},
					BPFVM_RET_ANY};
	const struct bpfvm_helper half = {.id = 901,
					  .name = "fills_half",
					  .fn = h_fills_half,
					  .args = {BPFVM_A_MEM(UNINIT_WRITE, 2), BPFVM_A_SIZE(1)},
					  BPFVM_RET_ANY};
	const struct bpfvm_helper all = {.id = 902,
					 .name = "fills_all",
					 .fn = h_fills_all,
					 .args = {BPFVM_A_MEM(UNINIT_WRITE, 2), BPFVM_A_SIZE(1)},
					 BPFVM_RET_ANY};
	/* WRITE: may leave bytes as they were */
	const struct bpfvm_helper some = {.id = 903,
					  .name = "writes_some",
					  .fn = h_fills_half,
					  .args = {BPFVM_A_MEM(WRITE, 2), BPFVM_A_SIZE(1)},
					  BPFVM_RET_ANY};
	/* returns 0, but promises [1, 2] */
	const struct bpfvm_helper range = {.id = 904,
					   .name = "out_of_range",
					   .fn = h_fills_all,
					   .args = {BPFVM_A_MEM(UNINIT_WRITE, 2), BPFVM_A_SIZE(1)},
					   BPFVM_RET_RANGE(1, 2)};
	/* a frame pointer as a value, from an unprivileged program */
	const struct bpfvm_helper any = {.id = 905,
					 .name = "prints",
					 .fn = h_fills_all,
					 .args = {BPFVM_A(ANYTHING), BPFVM_A(SCALAR)},
					 BPFVM_RET_ANY};
	call_helper(&rd, 16, false, "helper writes_input wrote byte 15 of a 16-byte argument");
	call_helper(&half, 64, false, "helper fills_half left bytes 32.. of its 64-byte");
	call_helper(&all, 64, false, NULL);
	call_helper(&rd, 0, false, NULL);
	call_helper(&some, 64, false, NULL);
	call_helper(&range, 8, false, "returned 0, outside its contract's [1, 2]");
	call_helper(&any, 0, true, "helper prints arg 1: a stack pointer given as a value");
	call_helper(&any, 0, false, NULL);
}
END_TEST

static Suite *oracle_suite(void)
{
	Suite *s = suite_create("bpfvm_oracle");
	TCase *tc = tcase_create("oracle");
	tcase_add_test(tc, sound_verified);
	tcase_add_test(tc, map_value_walked_into_next);
	tcase_add_test(tc, scalar_and_ctx);
	tcase_add_test(tc, leaks_unprivileged);
	tcase_add_test(tc, rodata_and_refs);
	tcase_add_test(tc, stale_frame);
	tcase_add_test(tc, foreach_key_escapes);
	tcase_add_test(tc, helper_contracts);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(oracle_suite)
