/* cg_attach: every attach/detach mix the kernel refuses, with its errno, as
 * a table checked against a 6.18 kernel (BPF_PROG_ATTACH/DETACH on cgroup v2
 * with sock_ops programs); replacement; the 64 limit; query. */
#include <errno.h>

#include "cg_test_prog.h"
#include "check_main.h"

#define SO CG_ATTACH_SOCK_OPS
#define O  CG_F_ALLOW_OVERRIDE /* shorthands for the table */
#define M  CG_F_ALLOW_MULTI
#define R  CG_F_REPLACE

enum { END, ATT, DET }; /* END: zero-filled rest of a row */

/* One operation: on cgroup c (0 "/", 1 "/c", 2 "/c/d"), program p (1..4,
 * 0 = NULL), flags, replace target r (0 = NULL), expected result. */
struct step {
	int op, c, p;
	uint32_t flags;
	int r, want;
};

#define MAXSTEPS 5
struct row {
	const char *name;
	struct step steps[MAXSTEPS];
	int nroot; /* the root's own programs afterwards */
	int root[3];
};

/* Every row ends with the step under test; earlier steps set the scene. */
static const struct row rows[] = {
    {"override with multi", {{ATT, 0, 1, O | M, 0, -EINVAL}}, 0, {0}},
    {"replace without multi", {{ATT, 0, 1, R, 2, -EINVAL}}, 0, {0}},
    {"replace with override", {{ATT, 0, 1, O | R, 2, -EINVAL}}, 0, {0}},
    {"replace without target", {{ATT, 0, 1, M | R, 0, -EINVAL}}, 0, {0}},
    {"target without replace", {{ATT, 0, 1, M, 2, -EINVAL}}, 0, {0}},
    {"unknown flag", {{ATT, 0, 1, 1u << 3, 0, -EINVAL}}, 0, {0}},
    {"null program", {{ATT, 0, 0, M, 0, -EINVAL}}, 0, {0}},
    {"multi twice", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 1, M, 0, -EINVAL}}, 1, {1}},
    {"none over multi", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, 0, 0, -EPERM}}, 1, {1}},
    {"override over multi", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, O, 0, -EPERM}}, 1, {1}},
    {"multi over none", {{ATT, 0, 1, 0, 0, 0}, {ATT, 0, 2, M, 0, -EPERM}}, 1, {1}},
    {"override over none", {{ATT, 0, 1, 0, 0, 0}, {ATT, 0, 2, O, 0, -EPERM}}, 1, {1}},
    {"none over override", {{ATT, 0, 1, O, 0, 0}, {ATT, 0, 2, 0, 0, -EPERM}}, 1, {1}},
    {"multi over override", {{ATT, 0, 1, O, 0, 0}, {ATT, 0, 2, M, 0, -EPERM}}, 1, {1}},
    {"same prog, other flags", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 1, O, 0, -EPERM}}, 1, {1}},
    {"none replaces none", {{ATT, 0, 1, 0, 0, 0}, {ATT, 0, 2, 0, 0, 0}}, 1, {2}},
    {"override replaces override", {{ATT, 0, 1, O, 0, 0}, {ATT, 0, 2, O, 0, 0}}, 1, {2}},
    {"none again, same prog", {{ATT, 0, 1, 0, 0, 0}, {ATT, 0, 1, 0, 0, 0}}, 1, {1}},
    {"replace target missing", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, M | R, 3, -ENOENT}}, 1, {1}},
    {"replace on empty", {{ATT, 0, 2, M | R, 3, -ENOENT}}, 0, {0}},
    {"replace keeps position",
     {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, M, 0, 0}, {ATT, 0, 3, M | R, 1, 0}},
     2,
     {3, 2}},
    {"replace by itself", {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 1, M | R, 1, 0}}, 1, {1}},
    {"replace by an attached prog",
     {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, M, 0, 0}, {ATT, 0, 1, M | R, 2, -EINVAL}},
     2,
     {1, 2}},
    {"child under none (none)", {{ATT, 0, 1, 0, 0, 0}, {ATT, 1, 2, 0, 0, -EPERM}}, 1, {1}},
    {"child under none (override)", {{ATT, 0, 1, 0, 0, 0}, {ATT, 1, 2, O, 0, -EPERM}}, 1, {1}},
    {"child under none (multi)", {{ATT, 0, 1, 0, 0, 0}, {ATT, 1, 2, M, 0, -EPERM}}, 1, {1}},
    {"grandchild under none, empty middle",
     {{ATT, 0, 1, 0, 0, 0}, {ATT, 2, 2, M, 0, -EPERM}},
     1,
     {1}},
    {"child under override", {{ATT, 0, 1, O, 0, 0}, {ATT, 1, 2, 0, 0, 0}}, 1, {1}},
    {"child under multi", {{ATT, 0, 1, M, 0, 0}, {ATT, 1, 2, 0, 0, 0}}, 1, {1}},
    /* Only ancestors are checked, and the nearest one with programs
     * decides: a MULTI root does not lift /c's exclusive program. */
    {"nearest ancestor decides",
     {{ATT, 1, 1, 0, 0, 0}, {ATT, 0, 2, M, 0, 0}, {ATT, 2, 3, M, 0, -EPERM}},
     1,
     {2}},
    {"middle attach above exclusive child",
     {{ATT, 0, 1, O, 0, 0}, {ATT, 2, 2, 0, 0, 0}, {ATT, 1, 3, O, 0, 0}},
     1,
     {1}},
    {"detach unattached (multi)", {{ATT, 0, 1, M, 0, 0}, {DET, 0, 2, 0, 0, -ENOENT}}, 1, {1}},
    {"detach null (multi)", {{ATT, 0, 1, M, 0, 0}, {DET, 0, 0, 0, 0, -EINVAL}}, 1, {1}},
    {"detach from empty", {{DET, 0, 1, 0, 0, -ENOENT}}, 0, {0}},
    {"detach null from empty", {{DET, 0, 0, 0, 0, -ENOENT}}, 0, {0}},
    {"detach null (none)", {{ATT, 0, 1, 0, 0, 0}, {DET, 0, 0, 0, 0, 0}}, 0, {0}},
    {"detach null (override)", {{ATT, 0, 1, O, 0, 0}, {DET, 0, 0, 0, 0, 0}}, 0, {0}},
    {"detach other prog (none)", {{ATT, 0, 1, 0, 0, 0}, {DET, 0, 2, 0, 0, 0}}, 0, {0}},
    {"detach twice",
     {{ATT, 0, 1, M, 0, 0}, {DET, 0, 1, 0, 0, 0}, {DET, 0, 1, 0, 0, -ENOENT}},
     0,
     {0}},
    {"flags reset by last detach",
     {{ATT, 0, 1, 0, 0, 0}, {DET, 0, 1, 0, 0, 0}, {ATT, 0, 2, M, 0, 0}},
     1,
     {2}},
    {"flags stay while one is left",
     {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, M, 0, 0}, {DET, 0, 1, 0, 0, 0}, {ATT, 0, 3, 0, 0, -EPERM}},
     1,
     {2}},
    {"detach keeps order",
     {{ATT, 0, 1, M, 0, 0}, {ATT, 0, 2, M, 0, 0}, {ATT, 0, 3, M, 0, 0}, {DET, 0, 2, 0, 0, 0}},
     2,
     {1, 3}},
};

START_TEST(kernel_rules_table)
{
	const struct row *row = &rows[_i];
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *c[3] = {tnode(t, "/"), tnode(t, "/c"), tnode(t, "/c/d")};
	struct tprog p[5];
	for (int i = 0; i < 5; i++)
		tprog_init(&p[i], 100 + (uint32_t)i);
	for (int s = 0; s < MAXSTEPS; s++) {
		const struct step *st = &row->steps[s];
		if (st->op == END)
			break;
		void *prog = st->p ? &p[st->p] : NULL;
		void *rep = st->r ? &p[st->r] : NULL;
		int got = st->op == ATT ? cg_attach(t, c[st->c], SO, prog, st->flags, rep)
					: cg_detach(t, c[st->c], SO, prog);
		ck_assert_msg(got == st->want, "%s: step %d: got %d want %d", row->name, s, got,
			      st->want);
	}
	uint32_t ids[8], cnt = 8;
	ck_assert_int_eq(cg_query(t, c[0], SO, 0, NULL, ids, &cnt), 0);
	ck_assert_msg(cnt == (uint32_t)row->nroot, "%s: root has %u", row->name, cnt);
	for (int i = 0; i < row->nroot; i++)
		ck_assert_msg(ids[i] == 100u + (uint32_t)row->root[i], "%s: root[%d] = %u",
			      row->name, i, ids[i]);
	/* The tree holds exactly one reference per attachment (no reader is
	 * registered, so retired arrays are already gone). */
	int attached = 0;
	for (int i = 0; i < 3; i++) {
		cnt = 0;
		ck_assert_int_eq(cg_query(t, c[i], SO, 0, NULL, NULL, &cnt), 0);
		attached += (int)cnt;
	}
	int refs_in_arrays = 0;
	for (int i = 0; i < 3; i++)
		refs_in_arrays += (int)cg_effective(c[i], SO)->n;
	int refs = 0;
	for (int i = 1; i < 5; i++)
		refs += tprog_refs(&p[i]);
	ck_assert_int_eq(refs, attached + refs_in_arrays);
	cg_tree_destroy(t);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(tprog_refs(&p[i]), 0);
		ck_assert_int_eq(tprog_bad(&p[i]), 0);
	}
}
END_TEST

START_TEST(bad_type_and_args)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *r = tnode(t, "/");
	struct tprog p;
	tprog_init(&p, 1);
	ck_assert_int_eq(cg_attach(t, r, CG_ATTACH_TYPES, &p, 0, NULL), -EINVAL);
	ck_assert_int_eq(cg_attach(NULL, r, SO, &p, 0, NULL), -EINVAL);
	ck_assert_int_eq(cg_attach(t, NULL, SO, &p, 0, NULL), -EINVAL);
	ck_assert_int_eq(cg_detach(t, r, CG_ATTACH_TYPES, &p), -EINVAL);
	ck_assert_int_eq(cg_detach(t, NULL, SO, &p), -EINVAL);
	uint32_t cnt = 0;
	ck_assert_int_eq(cg_query(t, r, CG_ATTACH_TYPES, 0, NULL, NULL, &cnt), -EINVAL);
	ck_assert_int_eq(cg_query(t, r, SO, 2, NULL, NULL, &cnt), -EINVAL);
	ck_assert_int_eq(cg_query(t, r, SO, 0, NULL, NULL, NULL), -EINVAL);
	/* Attach types are independent. */
	ck_assert_int_eq(cg_attach(t, r, 0, &p, 0, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p, CG_F_ALLOW_MULTI, NULL), 0);
	ck_assert_uint_eq(cg_effective(r, 0)->n, 1);
	ck_assert_uint_eq(cg_effective(r, SO)->n, 1);
	ck_assert_uint_eq(cg_effective(r, 1)->n, 0);
	ck_assert_uint_eq(cg_effective(r, CG_ATTACH_TYPES)->n, 0);
	ck_assert_uint_eq(cg_effective(NULL, SO)->n, 0);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&p), 0);
}
END_TEST

START_TEST(limit_64)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *r = tnode(t, "/"), *k = tnode(t, "/k");
	static struct tprog p[CG_MAX_PROGS + 2];
	for (int i = 0; i < CG_MAX_PROGS + 2; i++)
		tprog_init(&p[i], (uint32_t)i + 1);
	for (int i = 0; i < CG_MAX_PROGS; i++)
		ck_assert_int_eq(cg_attach(t, r, SO, &p[i], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[CG_MAX_PROGS], M, NULL), -E2BIG);
	/* Full also refuses a replace, even of a present target. */
	ck_assert_int_eq(cg_attach(t, r, SO, &p[CG_MAX_PROGS], M | R, &p[0]), -E2BIG);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[0], M | R, &p[0]), -E2BIG);
	/* The limit is per cgroup: the effective array below may be longer. */
	ck_assert_int_eq(cg_attach(t, k, SO, &p[CG_MAX_PROGS + 1], M, NULL), 0);
	const struct cg_array *e = cg_effective(k, SO);
	ck_assert_uint_eq(e->n, CG_MAX_PROGS + 1);
	ck_assert_ptr_eq(e->progs[0], &p[CG_MAX_PROGS + 1]);
	ck_assert_ptr_eq(e->progs[CG_MAX_PROGS], &p[CG_MAX_PROGS - 1]);
	ck_assert_int_eq(cg_detach(t, r, SO, &p[5]), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[CG_MAX_PROGS], M, NULL), 0);
	uint32_t ids[CG_MAX_PROGS], cnt = CG_MAX_PROGS;
	ck_assert_int_eq(cg_query(t, r, SO, 0, NULL, ids, &cnt), 0);
	ck_assert_uint_eq(cnt, CG_MAX_PROGS);
	ck_assert_uint_eq(ids[5], 7); /* p[6] moved up */
	ck_assert_uint_eq(ids[CG_MAX_PROGS - 1], CG_MAX_PROGS + 1);
	cg_tree_destroy(t);
	for (int i = 0; i < CG_MAX_PROGS + 2; i++)
		ck_assert_int_eq(tprog_refs(&p[i]), 0);
}
END_TEST

START_TEST(query_own_and_effective)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *r = tnode(t, "/"), *a = tnode(t, "/a"), *b = tnode(t, "/a/b");
	struct tprog p[4];
	for (int i = 0; i < 4; i++)
		tprog_init(&p[i], 10 + (uint32_t)i);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[0], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[1], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, a, SO, &p[2], O, NULL), 0);

	uint32_t flags = 99, ids[4] = {0}, cnt = 4;
	ck_assert_int_eq(cg_query(t, r, SO, 0, &flags, ids, &cnt), 0);
	ck_assert_uint_eq(flags, M);
	ck_assert_uint_eq(cnt, 2);
	ck_assert_uint_eq(ids[0], 10);
	ck_assert_uint_eq(ids[1], 11);

	cnt = 4;
	ck_assert_int_eq(cg_query(t, a, SO, CG_QUERY_EFFECTIVE, &flags, ids, &cnt), 0);
	ck_assert_uint_eq(flags, 0); /* 0 for an effective query, as the kernel */
	ck_assert_uint_eq(cnt, 3);
	ck_assert_uint_eq(ids[0], 12);
	ck_assert_uint_eq(ids[1], 10);
	ck_assert_uint_eq(ids[2], 11);
	cnt = 4;
	ck_assert_int_eq(cg_query(t, a, SO, 0, &flags, ids, &cnt), 0);
	ck_assert_uint_eq(flags, O);
	ck_assert_uint_eq(cnt, 1);
	ck_assert_uint_eq(ids[0], 12);

	/* Nothing attached at /a/b: flags 0, own count 0, effective 3. */
	cnt = 4;
	ck_assert_int_eq(cg_query(t, b, SO, 0, &flags, ids, &cnt), 0);
	ck_assert_uint_eq(flags, 0);
	ck_assert_uint_eq(cnt, 0);
	cnt = 0;
	ck_assert_int_eq(cg_query(t, b, SO, CG_QUERY_EFFECTIVE, &flags, NULL, &cnt), 0);
	ck_assert_uint_eq(cnt, 3);

	/* Too small: filled up to capacity, -ENOSPC, the total reported. */
	ids[1] = 0;
	cnt = 1;
	ck_assert_int_eq(cg_query(t, b, SO, CG_QUERY_EFFECTIVE, NULL, ids, &cnt), -ENOSPC);
	ck_assert_uint_eq(cnt, 3);
	ck_assert_uint_eq(ids[0], 12);
	ck_assert_uint_eq(ids[1], 0);
	/* Capacity 0 with a buffer only counts (the kernel returns early). */
	cnt = 0;
	ck_assert_int_eq(cg_query(t, b, SO, CG_QUERY_EFFECTIVE, NULL, ids, &cnt), 0);
	ck_assert_uint_eq(cnt, 3);
	cg_tree_destroy(t);
}
END_TEST

static Suite *attach_suite(void)
{
	Suite *s = suite_create("cg_attach");
	TCase *tc = tcase_create("attach");
	tcase_add_loop_test(tc, kernel_rules_table, 0, (int)(sizeof rows / sizeof rows[0]));
	tcase_add_test(tc, bad_type_and_args);
	tcase_add_test(tc, limit_64);
	tcase_add_test(tc, query_own_and_effective);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(attach_suite)
