/* State pruning must not merge a path into an explored one unless every value
 * a later check depends on was compared. Each program below has two paths that
 * meet at a pruning point: the first one walked is safe, the second differs in
 * a register or stack slot whose value only matters after the merge. A
 * verifier that prunes the second path accepts a program that, given the
 * trigger context, accesses memory outside ctx, stack and map values: each one
 * must be refused, and if it is not, the checked interpreter shows the fault.
 * Twins where both paths are safe must still be accepted.
 *
 * Class "narrow": a sub-8-byte store of a known-zero register makes known-zero
 * stack bytes; a load returns the constant 0. The stored register's value at
 * the pruning point before the store decides what the load returns.
 * Class "refine": a register already precise is refined against another one
 * (if r6 > r7); the other register's value decides the refined range. */
#include <string.h>

#include "check_main.h"
#include "isa_insn.h"
#include "vrf_test_util.h"

#define PROG(...)                                                                                  \
	.insns = (const struct bpfvm_insn[]){__VA_ARGS__},                                         \
	.n = sizeof((const struct bpfvm_insn[]){__VA_ARGS__}) / sizeof(struct bpfvm_insn)

struct pcase {
	const char *name;
	const struct bpfvm_insn *insns;
	size_t n;
	uint32_t op;	  /* ctx word 0 on the trigger run */
	uint32_t arg;	  /* ctx word 2 on the trigger run */
	bool safe;	  /* a twin: must be accepted and run without a fault */
	const char *line; /* exact reason line of the rejection */
};

/* r0 = lookup(map0: array, 16-byte values, key fp-4 = 0); NULL exits */
#define LOOKUP_OR_EXIT                                                                             \
	ST(BPF_W, 10, -4, 0), MOV64_X(2, 10), ALU64_K(BPF_ADD, 2, -4), LD_MAP(1, 0), CALL(1),      \
	    JMP_K(BPF_JNE, 0, 0, 1), EXIT()

/* insns 0..9 of the refine cases: r6 = arg & 255 marked precise by a branch
 * its range decides, r0 = map value, r8 = op */
#define REFINE_HEAD                                                                                \
	LDX(BPF_W, 6, 1, 8), LDX(BPF_W, 8, 1, 0), LOOKUP_OR_EXIT, ALU64_K(BPF_AND, 6, 255),        \
	    JMP_K(BPF_JGT, 6, 255, 0)

static const struct pcase cases[] = {
    /* ---- narrow stores ---- */
    /* u32 store; ctx pointer offset; the big value on the branch's taken side */
    {"narrow_w_ctx_off",
     PROG(LDX(BPF_W, 2, 1, 0), MOV64_K(3, 0x100000), JMP_K(BPF_JEQ, 2, 7, 1), MOV64_K(3, 0),
	  STX(BPF_W, 10, 3, -8), LDX(BPF_W, 4, 10, -8), ALU64_X(BPF_ADD, 1, 4), ST(BPF_W, 1, 4, 1),
	  MOV64_K(0, 0), EXIT()),
     7, 0, false,
     "verifier: insn 6: R1 math between ctx pointer and register with unbounded value is not "
     "allowed"},
    /* u8 store, other registers, JMP32 NE: the big value when op != 7 */
    {"narrow_b_ctx_off",
     PROG(LDX(BPF_W, 7, 1, 0), MOV64_K(5, 0xf0), JMP32_K(BPF_JNE, 7, 7, 1), MOV64_K(5, 0),
	  STX(BPF_B, 10, 5, -3), LDX(BPF_B, 9, 10, -3), ALU64_X(BPF_ADD, 1, 9),
	  ST(BPF_W, 1, 164, 1), MOV64_K(0, 0), EXIT()),
     0, 0, false, "verifier: insn 7: R1 variable ctx access disallowed"},
    /* u16 store, map value offset */
    {"narrow_h_map_off",
     PROG(LDX(BPF_W, 6, 1, 0), LOOKUP_OR_EXIT, MOV64_K(8, 0x1000), JMP_K(BPF_JEQ, 6, 7, 1),
	  MOV64_K(8, 0), STX(BPF_H, 10, 8, -18), LDX(BPF_H, 9, 10, -18), ALU64_X(BPF_ADD, 0, 9),
	  ST(BPF_DW, 0, 0, 1), MOV64_K(0, 0), EXIT()),
     7, 0, false,
     "verifier: insn 15: invalid access to map value, value_size=16 off=[0,65535] size=8"},
    /* the loaded zero decides a JMP32 branch; the other side dereferences a scalar */
    {"narrow_w_branch_ne",
     PROG(LDX(BPF_W, 2, 1, 0), MOV64_K(4, 1), JMP_K(BPF_JEQ, 2, 7, 1), MOV64_K(4, 0),
	  STX(BPF_W, 10, 4, -4), LDX(BPF_W, 5, 10, -4), JMP32_K(BPF_JNE, 5, 0, 2), MOV64_K(0, 0),
	  EXIT(), MOV64_K(6, 0x1000), LDX(BPF_DW, 0, 6, 0), EXIT()),
     7, 0, false, "verifier: insn 10: R6 invalid mem access 'scalar'"},
    /* the same with the branch the other way round: zero is the taken side */
    {"narrow_h_branch_eq",
     PROG(LDX(BPF_W, 2, 1, 0), MOV64_K(0, 2), JMP_K(BPF_JNE, 2, 7, 1), MOV64_K(0, 0),
	  STX(BPF_H, 10, 0, -2), LDX(BPF_H, 5, 10, -2), JMP_K(BPF_JEQ, 5, 0, 2), MOV64_K(6, 0x1000),
	  LDX(BPF_DW, 0, 6, 0), MOV64_K(0, 0), EXIT()),
     0, 0, false, "verifier: insn 8: R6 invalid mem access 'scalar'"},
    /* a u32 store over half of a spilled zero: the other half stays scalar bytes */
    {"narrow_w_over_spill",
     PROG(LDX(BPF_W, 2, 1, 0), MOV64_K(3, 0), STX(BPF_DW, 10, 3, -8), MOV64_K(4, 0x100000),
	  JMP_K(BPF_JNE, 2, 7, 1), MOV64_K(4, 0), STX(BPF_W, 10, 4, -8), LDX(BPF_W, 5, 10, -8),
	  ALU64_X(BPF_ADD, 1, 5), ST(BPF_W, 1, 4, 1), MOV64_K(0, 0), EXIT()),
     0, 0, false,
     "verifier: insn 8: R1 math between ctx pointer and register with unbounded value is not "
     "allowed"},
    /* a u32 store at a variable stack offset over known-zero bytes (stored from
     * a zero register: an immediate narrow store makes scalar bytes) */
    {"narrow_w_var_off",
     PROG(LDX(BPF_W, 2, 1, 0), LDX(BPF_W, 6, 1, 8), MOV64_K(9, 0), STX(BPF_W, 10, 9, -16),
	  STX(BPF_W, 10, 9, -12), ALU64_K(BPF_AND, 6, 4), MOV64_X(5, 10), ALU64_K(BPF_ADD, 5, -16),
	  ALU64_X(BPF_ADD, 5, 6), MOV64_K(3, 0x100000), JMP_K(BPF_JEQ, 2, 7, 1), MOV64_K(3, 0),
	  STX(BPF_W, 5, 3, 0), LDX(BPF_W, 4, 10, -16), ALU64_X(BPF_ADD, 1, 4), ST(BPF_W, 1, 4, 1),
	  MOV64_K(0, 0), EXIT()),
     7, 0, false,
     "verifier: insn 14: R1 math between ctx pointer and register with unbounded value is not "
     "allowed"},
    /* twin: both paths store zero */
    {"narrow_twin_both_zero",
     PROG(LDX(BPF_W, 2, 1, 0), MOV64_K(3, 0), JMP_K(BPF_JEQ, 2, 7, 1), MOV64_K(3, 0),
	  STX(BPF_W, 10, 3, -8), LDX(BPF_W, 4, 10, -8), ALU64_X(BPF_ADD, 1, 4), ST(BPF_W, 1, 4, 1),
	  MOV64_K(0, 0), EXIT()),
     7, 0, true, NULL},

    /* ---- refinement against a register after the refined one was precise ---- */
    /* if r6 > r7 (fall-through uses r6); r7 = 4, or 0x100000 when op == 7 */
    {"refine_jgt_fall",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP_X(BPF_JGT, 6, 7, 2), ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1), MOV64_K(0, 0),
	  EXIT()),
     7, 200, false,
     "verifier: insn 17: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* if r6 <= r7 goto use: the use is on the branch's taken side */
    {"refine_jle_taken",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP_X(BPF_JLE, 6, 7, 2), MOV64_K(0, 0), EXIT(), ALU64_X(BPF_ADD, 0, 6),
	  ST(BPF_W, 0, 0, 1), MOV64_K(0, 0), EXIT()),
     7, 200, false,
     "verifier: insn 19: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* JMP32: if w6 > w7 */
    {"refine_jmp32_jgt",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP32_X(BPF_JGT, 6, 7, 2), ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1), MOV64_K(0, 0),
	  EXIT()),
     7, 200, false,
     "verifier: insn 17: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* the bound as the branch's dst: if r7 < r6 goto out; signed JMP32 taken side */
    {"refine_jlt_swapped",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP_X(BPF_JLT, 7, 6, 2), ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1), MOV64_K(0, 0),
	  EXIT()),
     7, 200, false,
     "verifier: insn 17: invalid access to map value, value_size=16 off=[0,255] size=4"},
    {"refine_jmp32_jsge_taken",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP32_X(BPF_JSGE, 7, 6, 2), MOV64_K(0, 0), EXIT(), ALU64_X(BPF_ADD, 0, 6),
	  ST(BPF_W, 0, 0, 1), MOV64_K(0, 0), EXIT()),
     7, 200, false,
     "verifier: insn 19: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* the bound spilled before the merge and filled after it */
    {"refine_through_spill",
     PROG(REFINE_HEAD, MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  STX(BPF_DW, 10, 7, -16), MOV64_K(7, 0), LDX(BPF_DW, 9, 10, -16), JMP_X(BPF_JGT, 6, 9, 2),
	  ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1), MOV64_K(0, 0), EXIT()),
     7, 200, false,
     "verifier: insn 20: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* r6 made precise by pointer arithmetic instead of a decided branch */
    {"refine_after_ptr_math",
     PROG(LDX(BPF_W, 6, 1, 8), LDX(BPF_W, 8, 1, 0), LOOKUP_OR_EXIT, ALU64_K(BPF_AND, 6, 255),
	  MOV64_X(9, 10), ALU64_X(BPF_ADD, 9, 6), MOV64_K(7, 0x100000), JMP_K(BPF_JEQ, 8, 7, 1),
	  MOV64_K(7, 4), JMP_X(BPF_JGT, 6, 7, 2), ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1),
	  MOV64_K(0, 0), EXIT()),
     7, 200, false,
     "verifier: insn 18: invalid access to map value, value_size=16 off=[0,255] size=4"},
    /* twin: both bounds small */
    {"refine_twin_both_small",
     PROG(REFINE_HEAD, MOV64_K(7, 8), JMP_K(BPF_JEQ, 8, 7, 1), MOV64_K(7, 4),
	  JMP_X(BPF_JGT, 6, 7, 2), ALU64_X(BPF_ADD, 0, 6), ST(BPF_W, 0, 0, 1), MOV64_K(0, 0),
	  EXIT()),
     7, 8, true, NULL},
};

static bool has_line(const char *log, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = log; (p = strstr(p, line)); p++)
		if ((p == log || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

START_TEST(prune_case)
{
	const struct pcase *c = &cases[_i];
	struct bpfvm_registry *reg = NULL;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 4};
	struct bpfvm_map *m = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	char buf[8192] = "";
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof buf};
	struct bpfvm_load_opts o = {.type = &vt_type, .log = &log};
	struct bpfvm_prog *prog = NULL;
	int err = bpfvm_prog_load(reg, c->insns, c->n, &m, 1, &o, &prog);
	if (!err) {
		/* the trigger context takes the path pruning skipped */
		uint32_t ctx[VT_CTX_SIZE / 4] = {0};
		ctx[0] = c->op;
		ctx[2] = c->arg;
		struct bpfvm_fault f = {0};
		bpfvm_interp_run_checked(prog, ctx, VT_CTX_SIZE, &f);
		bpfvm_prog_put(prog);
		if (f.hit)
			ck_abort_msg("%s: accepted, and the checked interpreter stopped at insn %u "
				     "(addr 0x%llx size %u)",
				     c->name, f.pc, (unsigned long long)f.addr, f.size);
		ck_assert_msg(c->safe, "%s: accepted", c->name);
	} else {
		ck_assert_msg(!c->safe, "%s: refused (%d):\n%s", c->name, err, buf);
		ck_assert_msg(err == -EACCES, "%s: got %d:\n%s", c->name, err, buf);
		ck_assert_msg(has_line(buf, c->line), "%s: missing line '%s'; log:\n%s", c->name,
			      c->line, buf);
	}
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *prune_suite(void)
{
	Suite *s = suite_create("bpfvm_verifier_prune");
	TCase *tc = tcase_create("prune");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, prune_case, 0, (int)(sizeof cases / sizeof cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(prune_suite)
