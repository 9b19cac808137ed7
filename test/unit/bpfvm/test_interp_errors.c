/* bpfvm_prog_load rejections (each asserts its log line) and the checked
 * interpreter's faults (pc, address, size), against the plain interpreter on
 * the same programs where those are safe. */
#include <errno.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"

struct reject_case {
	const char *name;
	struct bpfvm_insn insns[8];
	size_t n;
	int err;
	const char *log;
};

static const struct reject_case rejects[] = {
    {"unknown opcode",
     {INSN(0xff, 0, 0, 0, 0), EXIT()},
     2,
     -EINVAL,
     "insn 0: invalid BPF_ALU opcode 0xff"},
    {"legacy ld_abs",
     {INSN(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0), EXIT()},
     2,
     -EINVAL,
     "insn 0: BPF_LD_[ABS|IND] (legacy packet loads)"},
    {"jump past end", {JA(3), EXIT()}, 2, -EINVAL, "insn 0: jump out of range"},
    {"jump before start",
     {JMP_K(BPF_JEQ, 0, 0, -2), EXIT()},
     2,
     -EINVAL,
     "insn 0: jump out of range"},
    {"jump into ld_imm64",
     {JA(1), LDDW(0, 1), EXIT()},
     4,
     -EINVAL,
     "insn 0: jump into the middle of ld_imm64 at insn 2"},
    {"call out of range",
     {CALL_REL(5), EXIT()},
     2,
     -EINVAL,
     "insn 0: call to invalid destination 6"},
    {"ld_imm64 truncated",
     {MOV64_K(0, 0), INSN(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1)},
     2,
     -EINVAL,
     "insn 1: invalid ld_imm64: missing second half"},
    {"ld_imm64 bad slot",
     {INSN(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1), INSN(0, 1, 0, 0, 0), EXIT()},
     3,
     -EINVAL,
     "insn 0: invalid ld_imm64: bad second half"},
    {"falls off the end",
     {MOV64_K(0, 0)},
     1,
     -EINVAL,
     "insn 0: falls through off the end of the program"},
    {"conditional last",
     {MOV64_K(0, 0), JMP_K(BPF_JEQ, 0, 0, -2)},
     2,
     -EINVAL,
     "insn 1: falls through off the end of the program"},
    {"write r10", {MOV64_K(10, 0), EXIT()}, 2, -EINVAL, "insn 0: frame pointer is read only"},
    {"register 11", {MOV64_X(0, 11), EXIT()}, 2, -EINVAL, "insn 0: invalid register"},
    {"unknown helper", {CALL(9999), EXIT()}, 2, -EINVAL, "insn 0: unknown helper"},
    {"sock_ops helper on generic", {CALL(49), EXIT()}, 2, -EINVAL, "insn 0: unknown helper"},
    {"kfunc call on a type without kfuncs",
     {INSN(BPF_JMP | BPF_CALL, 0, 2, 0, 0x10001), EXIT()},
     2,
     -EINVAL,
     "insn 0: unknown helper"},
    {"call kind 3",
     {INSN(BPF_JMP | BPF_CALL, 0, 3, 0, 1), EXIT()},
     2,
     -EINVAL,
     "insn 0: unsupported call kind"},
    {"movsx32 by 32", {MOVSX32(0, 1, 32), EXIT()}, 2, -EINVAL, "insn 0: invalid movsx width"},
    {"movsx from imm",
     {INSN(BPF_ALU64 | BPF_K | BPF_MOV, 0, 0, 8, 1), EXIT()},
     2,
     -EINVAL,
     "invalid movsx width"},
    {"div off 2",
     {INSN(BPF_ALU64 | BPF_K | BPF_DIV, 0, 0, 2, 1), EXIT()},
     2,
     -EINVAL,
     "div/mod off must be 0 or 1"},
    {"bswap width 8", {BSWAP(0, 8), EXIT()}, 2, -EINVAL, "invalid byte swap width"},
    {"neg with source",
     {INSN(BPF_ALU64 | BPF_X | BPF_NEG, 0, 1, 0, 0), EXIT()},
     2,
     -EINVAL,
     "BPF_NEG uses reserved fields"},
    {"ldxsx dw",
     {INSN(BPF_LDX | BPF_MEMSX | BPF_DW, 0, 1, 0, 0), EXIT()},
     2,
     -EINVAL,
     "no sign-extending 64-bit load"},
    {"atomic byte",
     {ATOMIC(BPF_B, BPF_ADD, 10, 1, -8), EXIT()},
     2,
     -EINVAL,
     "atomic size must be 32 or 64 bits"},
    {"atomic sub",
     {ATOMIC(BPF_DW, BPF_SUB, 10, 1, -8), EXIT()},
     2,
     -EINVAL,
     "unknown atomic operation"},
    {"exit in jmp32",
     {INSN(BPF_JMP32 | BPF_EXIT, 0, 0, 0, 0)},
     1,
     -EINVAL,
     "BPF_EXIT uses reserved fields"},
    {"map index without maps",
     {LD_MAP(1, 0), EXIT()},
     3,
     -EINVAL,
     "insn 0: map index 0 out of range"},
    {"ld_imm64 src 3",
     {INSN(BPF_LD | BPF_IMM | BPF_DW, 0, 3, 0, 0), INSN(0, 0, 0, 0, 0), EXIT()},
     3,
     -EINVAL,
     "insn 0: unsupported ld_imm64 source 3"},
    {"callback out of range",
     {LD_FUNC(1, 7), EXIT()},
     3,
     -EINVAL,
     "insn 0: callback target out of range"},
};
#define NREJECTS (sizeof(rejects) / sizeof(rejects[0]))

START_TEST(load_rejects)
{
	const struct reject_case *c = &rejects[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *p = (struct bpfvm_prog *)1;
	int err = fx_load(reg, c->insns, c->n, NULL, 0, &p);
	ck_assert_msg(err == c->err, "%s: err %d, log '%s'", c->name, err, fx_logbuf);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(fx_logbuf, c->log), "%s: log '%s' lacks '%s'", c->name, fx_logbuf,
		      c->log);
	/* nothing was registered */
	uint32_t next;
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, 0, &next), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

static int dummy_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			char *why, size_t why_len)
{
	(void)off, (void)size, (void)write, (void)acc, (void)why, (void)why_len;
	return 0;
}

START_TEST(load_argument_errors)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn ok[] = {MOV64_K(0, 0), EXIT()};
	struct bpfvm_prog *p;
	char buf[256] = "";
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof(buf)};
	/* no_verify is for the generic type only */
	const struct bpfvm_prog_type other = {
	    .name = "other", .type = 40, .ctx_access = dummy_access, .helper = bpfvm_base_helper};
	struct bpfvm_load_opts opts = {.type = &other, .no_verify = true, .log = &log};
	ck_assert_int_eq(bpfvm_prog_load(reg, ok, 2, NULL, 0, &opts, &p), -EINVAL);
	ck_assert_ptr_nonnull(strstr(buf, "no_verify is only allowed for type generic"));
	opts.type = NULL;
	ck_assert_int_eq(bpfvm_prog_load(NULL, ok, 2, NULL, 0, &opts, &p), -EINVAL);
	ck_assert_int_eq(bpfvm_prog_load(reg, ok, 0, NULL, 0, &opts, &p), -EINVAL);
	ck_assert_int_eq(bpfvm_prog_load(reg, NULL, 2, NULL, 0, &opts, &p), -EINVAL);
	ck_assert_int_eq(bpfvm_prog_load(reg, ok, 2, NULL, 0, &opts, NULL), -EINVAL);
	/* a log that truncates turns an otherwise good load into -ENOSPC */
	char tiny[4];
	struct bpfvm_log small = {.level = 1, .buf = tiny, .size = sizeof(tiny)};
	struct bpfvm_load_opts jit_opts = {.no_verify = true, .jit = true, .log = &small};
	small.truncated = true; /* as if an earlier pass had overflowed it */
	ck_assert_int_eq(bpfvm_prog_load(reg, ok, 2, NULL, 0, &jit_opts, &p), -ENOSPC);
	uint32_t none;
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, 0, &none), -ENOENT);
	/* a map value offset outside the value */
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	struct bpfvm_insn mv[] = {LD_MAP_VALUE(1, 0, 8), MOV64_K(0, 0), EXIT()};
	buf[0] = '\0';
	log.used = 0;
	ck_assert_int_eq(bpfvm_prog_load(reg, mv, NINSNS(mv), &arr, 1, &opts, &p), -EINVAL);
	ck_assert_ptr_nonnull(strstr(buf, "insn 0: direct value access outside map value"));
	/* a failed load keeps no map reference: the last put frees the map
	 * (ASan would report the leak otherwise) and its id disappears */
	uint32_t id = bpfvm_map_id(arr);
	bpfvm_map_put(arr);
	struct bpfvm_map *m;
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, id, &m), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

struct fault_case {
	const char *name;
	struct bpfvm_insn insns[6];
	size_t n;
	uint32_t pc;
	int64_t addr_off; /* expected fault address relative to ctx (or absolute) */
	bool rel_ctx;
	uint32_t size;
};

static const struct fault_case faults[] = {
    {"load past ctx end", {LDX(BPF_DW, 0, 1, 4), EXIT()}, 2, 0, 4, true, 8},
    {"store before ctx", {ST(BPF_W, 1, -1, 0), MOV64_K(0, 0), EXIT()}, 3, 0, -1, true, 4},
    {"null load", {MOV64_K(2, 0), LDX(BPF_B, 0, 2, 16), EXIT()}, 3, 1, 16, false, 1},
    {"misaligned atomic in ctx",
     {MOV64_K(2, 1), ATOMIC(BPF_W, BPF_ADD, 1, 2, 2), EXIT()},
     3,
     1,
     2,
     true,
     4},
};
#define NFAULTS (sizeof(faults) / sizeof(faults[0]))

START_TEST(checked_faults)
{
	const struct fault_case *c = &faults[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *p = fx_load_ok(reg, c->insns, c->n, NULL, 0);
	uint64_t ctx[2] = {0, 0};
	struct bpfvm_fault f;
	/* ctx is the first 8 bytes of the array */
	ck_assert_uint_eq(bpfvm_interp_run_checked(p, ctx, 8, &f), 0);
	ck_assert_msg(f.hit, "%s: no fault", c->name);
	ck_assert_uint_eq(f.pc, c->pc);
	uint64_t want =
	    c->rel_ctx ? (uint64_t)(uintptr_t)ctx + (uint64_t)c->addr_off : (uint64_t)c->addr_off;
	ck_assert_msg(f.addr == want, "%s: addr 0x%llx want 0x%llx", c->name,
		      (unsigned long long)f.addr, (unsigned long long)want);
	ck_assert_uint_eq(f.size, c->size);
	int64_t stop;
	bpfvm_prog_run_checked(p, ctx, 8, &stop);
	ck_assert_int_eq(stop, c->pc);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(checked_stack_and_map_bounds)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_fault f;
	int64_t stop;
	/* r10 itself is one past the frame: an 8-byte store there faults */
	struct bpfvm_insn top[] = {ST(BPF_DW, 10, 0, 1), MOV64_K(0, 0), EXIT()};
	struct bpfvm_prog *p = fx_load_ok(reg, top, NINSNS(top), NULL, 0);
	bpfvm_interp_run_checked(p, NULL, 0, &f);
	ck_assert(f.hit);
	ck_assert_uint_eq(f.pc, 0);
	bpfvm_prog_put(p);
	/* a callee cannot reach below its own frame, but a caller's frame is live */
	struct bpfvm_insn below[] = {CALL_REL(1), EXIT(), ST(BPF_DW, 10, -520, 1), MOV64_K(0, 0),
				     EXIT()};
	p = fx_load_ok(reg, below, NINSNS(below), NULL, 0);
	bpfvm_prog_run_checked(p, NULL, 0, &stop);
	ck_assert_int_eq(stop, 2);
	bpfvm_prog_put(p);
	struct bpfvm_insn up[] = {CALL_REL(1), EXIT(), ST(BPF_DW, 10, 504, 1), MOV64_K(0, 3),
				  EXIT()};
	p = fx_load_ok(reg, up, NINSNS(up), NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_run_checked(p, NULL, 0, &stop), 3);
	ck_assert_int_eq(stop, -1);
	bpfvm_prog_put(p);
	/* inside a map value: fine; one byte past it: fault */
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	struct bpfvm_insn in[] = {LD_MAP_VALUE(1, 0, 0), LDX(BPF_DW, 0, 1, 0), EXIT()};
	struct bpfvm_insn past[] = {LD_MAP_VALUE(1, 0, 0), LDX(BPF_W, 0, 1, 5), EXIT()};
	p = fx_load_ok(reg, in, NINSNS(in), &arr, 1);
	bpfvm_prog_run_checked(p, NULL, 0, &stop);
	ck_assert_int_eq(stop, -1);
	bpfvm_prog_put(p);
	p = fx_load_ok(reg, past, NINSNS(past), &arr, 1);
	bpfvm_prog_run_checked(p, NULL, 0, &stop);
	ck_assert_int_eq(stop, 2);
	bpfvm_prog_put(p);
	/* a helper given a map pointer the program does not hold */
	struct bpfvm_insn bogus[] = {MOV64_K(1, 0x1000), MOV64_X(2, 10), ALU64_K(BPF_ADD, 2, -4),
				     CALL(1), EXIT()};
	p = fx_load_ok(reg, bogus, NINSNS(bogus), NULL, 0);
	ck_assert_uint_eq(bpfvm_interp_run_checked(p, NULL, 0, &f), 0);
	ck_assert(f.hit);
	ck_assert_uint_eq(f.pc, 3);
	ck_assert_uint_eq(f.addr, 0x1000);
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Reads of stack bytes nobody wrote stop a checked run: their contents differ
 * between engines. */
START_TEST(checked_unwritten_stack)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	int64_t stop;
	struct bpfvm_insn never[] = {LDX(BPF_DW, 0, 10, -8), EXIT()};
	struct bpfvm_insn written[] = {ST(BPF_DW, 10, -8, 5), LDX(BPF_DW, 0, 10, -8), EXIT()};
	struct bpfvm_insn partly[] = {ST(BPF_W, 10, -8, 5), LDX(BPF_DW, 0, 10, -8), EXIT()};
	/* a second call at the same depth gets a fresh frame */
	struct bpfvm_insn reused[] = {
	    CALL_REL(2), CALL_REL(3), EXIT(), ST(BPF_DW, 10, -8, 7), EXIT(), LDX(BPF_DW, 0, 10, -8),
	    EXIT()};
	struct {
		struct bpfvm_insn *insns;
		size_t n;
		int64_t stop;
		uint64_t r0;
	} cases[] = {
	    {never, NINSNS(never), 0, 0},
	    {written, NINSNS(written), -1, 5},
	    {partly, NINSNS(partly), 1, 0},
	    {reused, NINSNS(reused), 5, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bpfvm_prog *p = fx_load_ok(reg, cases[i].insns, cases[i].n, NULL, 0);
		ck_assert_uint_eq(bpfvm_prog_run_checked(p, NULL, 0, &stop), cases[i].r0);
		ck_assert_msg(stop == cases[i].stop, "case %zu: stop %lld want %lld", i,
			      (long long)stop, (long long)cases[i].stop);
		bpfvm_prog_put(p);
	}
	/* r1-r5 hold nothing after a call; r0 holds its result */
	struct bpfvm_insn clobbered[] = {CALL(8), MOV64_X(0, 2), EXIT()};
	struct bpfvm_insn result[] = {CALL(8), MOV64_X(1, 0), MOV64_K(0, 9), EXIT()};
	struct bpfvm_prog *q = fx_load_ok(reg, clobbered, NINSNS(clobbered), NULL, 0);
	bpfvm_prog_run_checked(q, NULL, 0, &stop);
	ck_assert_int_eq(stop, 1);
	bpfvm_prog_put(q);
	q = fx_load_ok(reg, result, NINSNS(result), NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_run_checked(q, NULL, 0, &stop), 9);
	ck_assert_int_eq(stop, -1);
	bpfvm_prog_put(q);
	/* a map key on the stack must have been written before the helper reads it */
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	struct bpfvm_insn key[] = {LD_MAP(1, 0), MOV64_X(2, 10), ALU64_K(BPF_ADD, 2, -4), CALL(1),
				   EXIT()};
	struct bpfvm_prog *p = fx_load_ok(reg, key, NINSNS(key), &arr, 1);
	bpfvm_prog_run_checked(p, NULL, 0, &stop);
	ck_assert_int_eq(stop, 4);
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Values computed from a frame's address stop a checked run where they would
 * choose an address or a branch: the JIT's frames live elsewhere, so it would
 * go where the checked run never went. Frame pointers themselves, spilled and
 * filled back whole, and differences of two of them in one frame, are fine. */
START_TEST(checked_frame_dependent)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	int64_t stop;
	/* fuzz_jit: ctx s>>= r10 is ctx again when the frame's low 6 bits are 0 */
	struct bpfvm_insn shifted[] = {ALU64_X(BPF_ARSH, 1, 10), LDX(BPF_DW, 0, 1, 0), EXIT()};
	struct bpfvm_insn masked[] = {MOV64_X(2, 10), ALU64_K(BPF_AND, 2, 64),
				      JMP_K(BPF_JEQ, 2, 0, 0), MOV64_K(0, 0), EXIT()};
	struct bpfvm_insn ptr_cmp[] = {JMP_K(BPF_JGT, 10, 5, 0), MOV64_K(0, 1), EXIT()};
	struct bpfvm_insn ptr_null[] = {JMP_K(BPF_JNE, 10, 0, 1), MOV64_K(0, 1), MOV64_K(0, 2),
					EXIT()};
	struct bpfvm_insn fill[] = {STX(BPF_DW, 10, 10, -8), LDX(BPF_DW, 1, 10, -8),
				    ST(BPF_DW, 1, -16, 3), LDX(BPF_DW, 0, 1, -16), EXIT()};
	struct bpfvm_insn half_fill[] = {STX(BPF_DW, 10, 10, -8), LDX(BPF_W, 1, 10, -8),
					 LDX(BPF_DW, 0, 1, 0), EXIT()};
	struct bpfvm_insn into_ctx[] = {STX(BPF_DW, 1, 10, 0), MOV64_K(0, 0), EXIT()};
	struct bpfvm_insn offset[] = {
	    MOV64_X(2, 10), ALU64_K(BPF_ADD, 2, -8), MOV64_X(3, 10), ALU64_X(BPF_SUB, 3, 2),
	    MOV64_X(0, 3),  JMP_K(BPF_JEQ, 3, 8, 0), EXIT()};
	struct {
		struct bpfvm_insn *insns;
		size_t n;
		int64_t stop;
		uint64_t r0;
	} cases[] = {
	    {shifted, NINSNS(shifted), 1, 0},	{masked, NINSNS(masked), 2, 0},
	    {ptr_cmp, NINSNS(ptr_cmp), 0, 0},	{ptr_null, NINSNS(ptr_null), -1, 2},
	    {fill, NINSNS(fill), -1, 3},	{half_fill, NINSNS(half_fill), 2, 0},
	    {into_ctx, NINSNS(into_ctx), 0, 0}, {offset, NINSNS(offset), -1, 8},
	};
	uint64_t ctx[4] = {0};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bpfvm_prog *p = fx_load_ok(reg, cases[i].insns, cases[i].n, NULL, 0);
		ck_assert_uint_eq(bpfvm_prog_run_checked(p, ctx, sizeof ctx, &stop), cases[i].r0);
		ck_assert_msg(stop == cases[i].stop, "case %zu: stop %lld want %lld", i,
			      (long long)stop, (long long)cases[i].stop);
		bpfvm_prog_put(p);
	}
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("bpfvm_interp_errors");
	TCase *tc = tcase_create("errors");
	tcase_add_loop_test(tc, load_rejects, 0, NREJECTS);
	tcase_add_test(tc, load_argument_errors);
	tcase_add_loop_test(tc, checked_faults, 0, NFAULTS);
	tcase_add_test(tc, checked_stack_and_map_bounds);
	tcase_add_test(tc, checked_unwritten_stack);
	tcase_add_test(tc, checked_frame_dependent);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(errors_suite)
