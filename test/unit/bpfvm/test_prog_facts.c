/* The per-program facts the loader computes once (prog_facts.c) and the
 * verifier, JIT and interpreter read: ld_imm64 second slots, subprogram and
 * callback starts, jump targets, back-edges and the structural flaws an
 * unverified program may have; and the interpreter entering a callback only
 * at a subprogram start. */
#include <errno.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"

START_TEST(facts_of_a_program)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	/* 0: r1 = 1; 1-2: ld_imm64 r2 = callback 9; 3: r3 = 0; 4: r4 = 0;
	 * 5: call bpf_loop; 6: call subprog 11; 7: if r0 == 0 goto 6 (back);
	 * 8: exit; 9-10: callback; 11-12: subprogram */
	struct bpfvm_insn insns[] = {
	    MOV64_K(1, 1),
	    LD_FUNC(2, 7),
	    MOV64_K(3, 0),
	    MOV64_K(4, 0),
	    CALL(181),
	    CALL_REL(4),
	    JMP_K(BPF_JEQ, 0, 0, -2),
	    EXIT(),
	    MOV64_K(0, 0),
	    EXIT(),
	    MOV64_K(0, 1),
	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), NULL, 0);
	const struct bpfvm_prog_facts *f = &p->facts;
	ck_assert(f->built);
	ck_assert_uint_eq(f->nsub, 3);
	ck_assert(f->calls && f->callbacks && f->backedge);
	ck_assert_int_eq(f->flaw_pc, -1);
	ck_assert(p->aux[2].ldimm_hi && !p->aux[1].ldimm_hi);
	ck_assert(p->aux[0].sub_start && p->aux[9].sub_start && p->aux[11].sub_start);
	ck_assert(p->aux[9].cb_entry && !p->aux[11].cb_entry);
	ck_assert(p->aux[6].jump_target && !p->aux[7].jump_target);
	ck_assert_uint_eq(p->aux[8].subprog, 0);
	ck_assert_uint_eq(p->aux[10].subprog, 1);
	ck_assert_uint_eq(p->aux[12].subprog, 2);
	ck_assert(bpfvm_prog_is_entry(p, 9) && !bpfvm_prog_is_entry(p, 10));
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(flaws_of_an_unverified_program)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	/* main runs into the subprogram at 2 */
	struct bpfvm_insn fall[] = {CALL_REL(1), MOV64_K(0, 1), MOV64_K(0, 2), EXIT()};
	struct bpfvm_prog *p = fx_load_ok(reg, fall, NINSNS(fall), NULL, 0);
	ck_assert_int_eq(p->facts.flaw_pc, 1);
	ck_assert_str_eq(p->facts.flaw, "falls through into the next subprogram");
	bpfvm_prog_put(p);
	/* a jump from main into the subprogram at 3 */
	struct bpfvm_insn leave[] = {CALL_REL(2), JA(1), EXIT(), MOV64_K(0, 2), EXIT()};
	p = fx_load_ok(reg, leave, NINSNS(leave), NULL, 0);
	ck_assert_int_eq(p->facts.flaw_pc, 1);
	ck_assert_str_eq(p->facts.flaw, "jump out of subprogram from insn 1 to 3");
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* bpf_loop handed a pc inside main (a scalar: nothing verified it): the
 * interpreter refuses to enter there, as the JIT only enters functions. */
START_TEST(callback_only_at_an_entry)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {
	    MOV64_K(1, 1), MOV64_K(2, 5), MOV64_K(3, 0), MOV64_K(4, 0),
	    CALL(181),	   MOV64_K(0, 0), EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), NULL, 0);
	struct bpfvm_fault f;
	ck_assert_uint_eq(bpfvm_interp_run_checked(p, NULL, 0, &f), 0);
	ck_assert_msg(f.hit, "entered the callback at insn 5");
	ck_assert_uint_eq(f.addr, 5);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bpfvm_prog_facts");
	TCase *tc = tcase_create("facts");
	tcase_add_test(tc, facts_of_a_program);
	tcase_add_test(tc, flaws_of_an_unverified_program);
	tcase_add_test(tc, callback_only_at_an_entry);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
