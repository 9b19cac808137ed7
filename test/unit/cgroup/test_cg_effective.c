/* cg_effective: effective arrays as the kernel computes them (the uapi
 * linux/bpf.h example tree, the issue's example), recomputation of whole
 * subtrees, inheritance, and when program handles are finally released. */
#include <errno.h>
#include <stdarg.h>

#include "cg_test_prog.h"
#include "check_main.h"

#define SO CG_ATTACH_SOCK_OPS
#define O  CG_F_ALLOW_OVERRIDE
#define M  CG_F_ALLOW_MULTI

/* Asserts the effective ids of node, through the fast path and the query. */
static void expect(struct cg_tree *t, struct cg_node *node, unsigned n, ...)
{
	uint32_t want[16], got[16], q[16], cnt = 16;
	va_list ap;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		want[i] = va_arg(ap, uint32_t);
	va_end(ap);
	uint32_t have = tprog_ids(cg_effective(node, SO), got, 16);
	ck_assert_msg(have == n, "%s: %u effective, want %u", cg_node_path(node), have, n);
	ck_assert_int_eq(cg_query(t, node, SO, CG_QUERY_EFFECTIVE, NULL, q, &cnt), 0);
	ck_assert_uint_eq(cnt, n);
	for (unsigned i = 0; i < n; i++) {
		ck_assert_msg(got[i] == want[i], "%s: [%u] = %u, want %u", cg_node_path(node), i,
			      got[i], want[i]);
		ck_assert_uint_eq(q[i], want[i]);
	}
}

enum { A = 1, B, C, D, E, F };

/* uapi linux/bpf.h: cgrp1 (MULTI A, B) -> cgrp2 (OVERRIDE C) -> cgrp3
 * (MULTI D) -> cgrp4 (OVERRIDE E) -> cgrp5 (NONE F) runs F,D,A,B; without F
 * E,D,A,B; without F and D E,A,B; without F, E and D C,A,B. */
START_TEST(kernel_doc_example)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *c1 = tnode(t, "/"), *c2 = tnode(t, "/2"), *c3 = tnode(t, "/2/3"),
		       *c4 = tnode(t, "/2/3/4"), *c5 = tnode(t, "/2/3/4/5");
	struct tprog p[F + 1];
	for (uint32_t i = 0; i <= F; i++)
		tprog_init(&p[i], i);
	ck_assert_int_eq(cg_attach(t, c1, SO, &p[A], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, c1, SO, &p[B], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, c2, SO, &p[C], O, NULL), 0);
	ck_assert_int_eq(cg_attach(t, c3, SO, &p[D], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, c4, SO, &p[E], O, NULL), 0);
	ck_assert_int_eq(cg_attach(t, c5, SO, &p[F], 0, NULL), 0);
	expect(t, c5, 4, F, D, A, B);
	expect(t, c4, 4, E, D, A, B);
	expect(t, c3, 3, D, A, B);
	expect(t, c2, 3, C, A, B);
	expect(t, c1, 2, A, B);
	ck_assert_int_eq(cg_detach(t, c5, SO, &p[F]), 0);
	expect(t, c5, 4, E, D, A, B);
	ck_assert_int_eq(cg_detach(t, c3, SO, &p[D]), 0);
	expect(t, c5, 3, E, A, B);
	expect(t, c3, 3, C, A, B);
	ck_assert_int_eq(cg_detach(t, c4, SO, &p[E]), 0);
	expect(t, c5, 3, C, A, B);
	expect(t, c4, 3, C, A, B);
	/* NONE at cgrp5 was only possible under permissive ancestors. */
	ck_assert_int_eq(cg_attach(t, c5, SO, &p[F], 0, NULL), 0);
	expect(t, c5, 3, F, A, B);
	cg_tree_destroy(t);
	for (uint32_t i = 0; i <= F; i++)
		ck_assert_int_eq(tprog_refs(&p[i]), 0);
}
END_TEST

/* The issue's tree: A, B MULTI at the root, D at a child, F at a grandchild. */
START_TEST(issue_example)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *r = tnode(t, "/"), *d = tnode(t, "/d"), *f = tnode(t, "/d/f");
	struct tprog p[F + 1];
	for (uint32_t i = 0; i <= F; i++)
		tprog_init(&p[i], i);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[A], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[B], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, d, SO, &p[D], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, f, SO, &p[F], 0, NULL), 0);
	expect(t, f, 4, F, D, A, B);
	/* A sibling subtree sees only the root's. */
	struct cg_node *s = tnode(t, "/s/t");
	expect(t, s, 2, A, B);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(detach_at_middle_node)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct cg_node *r = tnode(t, "/"), *m = tnode(t, "/m"), *leaf = tnode(t, "/m/l/x");
	struct tprog p[4];
	for (uint32_t i = 0; i < 4; i++)
		tprog_init(&p[i], i);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[1], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, m, SO, &p[2], M, NULL), 0);
	expect(t, leaf, 2, 2, 1);
	ck_assert_int_eq(cg_detach(t, m, SO, &p[2]), 0);
	expect(t, leaf, 1, 1);
	/* Now OVERRIDE in the middle: it runs first, the MULTI root after. */
	ck_assert_int_eq(cg_attach(t, m, SO, &p[3], O, NULL), 0);
	expect(t, leaf, 2, 3, 1);
	ck_assert_int_eq(cg_detach(t, m, SO, NULL), 0);
	expect(t, leaf, 1, 1);
	/* An OVERRIDE root is hidden by an OVERRIDE middle, back after detach. */
	ck_assert_int_eq(cg_detach(t, r, SO, &p[1]), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[1], O, NULL), 0);
	ck_assert_int_eq(cg_attach(t, m, SO, &p[3], O, NULL), 0);
	expect(t, leaf, 1, 3);
	expect(t, r, 1, 1);
	ck_assert_int_eq(cg_detach(t, m, SO, &p[3]), 0);
	expect(t, leaf, 1, 1);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(new_cgroup_inherits)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	struct tprog p[3];
	for (uint32_t i = 0; i < 3; i++)
		tprog_init(&p[i], i);
	ck_assert_int_eq(cg_attach(t, tnode(t, "/"), SO, &p[1], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, tnode(t, "/a"), SO, &p[2], O, NULL), 0);
	ck_assert_int_eq(cg_attach(t, tnode(t, "/"), 0, &p[0], 0, NULL), 0);
	/* Created afterwards, several levels at once. */
	struct cg_node *n = tnode(t, "/a/b/c");
	expect(t, n, 2, 2, 1);
	ck_assert_uint_eq(cg_effective(n, 0)->n, 1);
	ck_assert_uint_eq(cg_effective(tnode(t, "/a/b"), 0)->n, 1);
	ck_assert_uint_eq(cg_effective(n, 5)->n, 0);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(whole_subtree_recomputed)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	const char *paths[] = {"/", "/a", "/a/b", "/a/c", "/a/b/d", "/e", "/e/f/g"};
	struct cg_node *n[7];
	for (int i = 0; i < 7; i++)
		n[i] = tnode(t, paths[i]);
	struct tprog root, mid;
	tprog_init(&root, 1);
	tprog_init(&mid, 2);
	ck_assert_int_eq(cg_attach(t, n[1], SO, &mid, M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, n[0], SO, &root, M, NULL), 0);
	for (int i = 0; i < 7; i++) {
		bool under_a = i >= 1 && i <= 4;
		if (under_a)
			expect(t, n[i], 2, 2, 1);
		else
			expect(t, n[i], 1, 1);
	}
	/* One reference per attachment plus one per array entry: eight
	 * cgroups ("/e/f" was made on the way to "/e/f/g"). */
	ck_assert_int_eq(tprog_refs(&root), 1 + 8);
	ck_assert_int_eq(tprog_refs(&mid), 1 + 4);
	ck_assert_int_eq(cg_detach(t, n[0], SO, &root), 0);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(cg_effective(n[i], SO)->n, (i >= 1 && i <= 4) ? 1 : 0);
	ck_assert_int_eq(tprog_refs(&root), 0);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&mid), 0);
}
END_TEST

/* A handle goes when the last attachment and the last array that holds it
 * are gone, and not before: a registered reader that has not reported a
 * quiescent state since it could have seen an array keeps that array. */
START_TEST(handle_released_after_grace_period)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 2, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	struct cg_node *r = tnode(t, "/"), *x = tnode(t, "/x"), *y = tnode(t, "/x/y");
	struct tprog p, q;
	tprog_init(&p, 1);
	tprog_init(&q, 2);
	ck_assert_int_eq(cg_attach(t, r, SO, &p, M, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 4);
	const struct cg_array *seen = cg_effective(y, SO);
	ck_assert_uint_eq(seen->n, 1);
	ck_assert_int_eq(cg_detach(t, r, SO, &p), 0);
	/* Unpublished, but the reader may still be walking them. */
	ck_assert_uint_eq(cg_effective(y, SO)->n, 0);
	ck_assert_int_eq(tprog_refs(&p), 3);
	ck_assert_ptr_eq(seen->progs[0], &p);
	ck_assert_uint_eq(p.magic, TPROG_ALIVE);
	/* Another change reclaims opportunistically: still blocked. */
	ck_assert_int_eq(cg_attach(t, x, SO, &q, 0, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 3);
	cg_quiescent(t, 0);
	ck_assert_int_eq(tprog_refs(&p), 3); /* nothing frees on the reader side */
	ck_assert_int_eq(cg_detach(t, x, SO, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 0);
	ck_assert_int_eq(tprog_releases(&p), 1);
	ck_assert_uint_eq(p.magic, TPROG_DEAD);
	/* q's arrays were retired after the reader's report: still held. */
	ck_assert_int_eq(tprog_refs(&q), 2);
	cg_quiescent(t, 0);
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&q), 0);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_bad(&p) + tprog_bad(&q), 0);
	ck_assert_int_eq(tprog_releases(&p), 1);
}
END_TEST

START_TEST(replaced_handle_released_after_grace_period)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	struct cg_node *r = tnode(t, "/");
	struct tprog p[3];
	for (uint32_t i = 0; i < 3; i++)
		tprog_init(&p[i], i);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[0], 0, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[1], 0, NULL), 0); /* replaces */
	ck_assert_int_eq(tprog_refs(&p[0]), 1);			  /* the old array's */
	ck_assert_int_eq(tprog_refs(&p[1]), 2);
	cg_quiescent(t, 0);
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&p[0]), 0);
	ck_assert_int_eq(cg_detach(t, r, SO, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[0], M, NULL), 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &p[2], M | CG_F_REPLACE, &p[0]), 0);
	ck_assert_int_eq(tprog_refs(&p[0]), 1);
	ck_assert_int_eq(tprog_refs(&p[1]), 1);
	cg_reader_unregister(t, 0); /* an offline reader blocks nothing */
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&p[0]), 0);
	ck_assert_int_eq(tprog_refs(&p[1]), 0);
	ck_assert_int_eq(tprog_refs(&p[2]), 2);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&p[2]), 0);
}
END_TEST

START_TEST(remove_releases_after_grace_period)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	struct tprog p;
	tprog_init(&p, 1);
	ck_assert_int_eq(cg_attach(t, tnode(t, "/a"), SO, &p, M, NULL), 0);
	ck_assert_int_eq(cg_remove(t, "/a"), 0);
	ck_assert_int_eq(tprog_refs(&p), 1);
	cg_quiescent(t, 0);
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&p), 0);
	/* Destroy with a reader still registered (it stopped) frees all. */
	ck_assert_int_eq(cg_attach(t, tnode(t, "/b"), SO, &p, M, NULL), 0);
	ck_assert_int_eq(cg_detach(t, tnode(t, "/b"), SO, &p), 0);
	ck_assert_int_eq(tprog_refs(&p), 1);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&p), 0);
	ck_assert_int_eq(tprog_bad(&p), 0);
}
END_TEST

static Suite *effective_suite(void)
{
	Suite *s = suite_create("cg_effective");
	TCase *tc = tcase_create("effective");
	tcase_add_test(tc, kernel_doc_example);
	tcase_add_test(tc, issue_example);
	tcase_add_test(tc, detach_at_middle_node);
	tcase_add_test(tc, new_cgroup_inherits);
	tcase_add_test(tc, whole_subtree_recomputed);
	tcase_add_test(tc, handle_released_after_grace_period);
	tcase_add_test(tc, replaced_handle_released_after_grace_period);
	tcase_add_test(tc, remove_releases_after_grace_period);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(effective_suite)
