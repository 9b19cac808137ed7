/* cg_tree: path validation, lookup and creation, removal rules, node
 * references and what a removed cgroup still answers. */
#include <errno.h>
#include <string.h>

#include "cg_test_prog.h"
#include "check_main.h"

static struct cg_tree *tree_new(unsigned readers)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, readers, &t), 0);
	ck_assert_ptr_nonnull(t);
	return t;
}

START_TEST(create_validates_ops)
{
	struct cg_tree *t = NULL;
	struct cg_prog_ops no_put = {.get = tprog_get, .id = tprog_id};
	ck_assert_int_eq(cg_tree_create(NULL, 1, &t), -EINVAL);
	ck_assert_int_eq(cg_tree_create(&no_put, 1, &t), -EINVAL);
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1, NULL), -EINVAL);
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1u << 20, &t), -EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	cg_tree_destroy(t);
	cg_tree_destroy(NULL);
}
END_TEST

static const struct {
	const char *path;
	int err;
} bad_paths[] = {
    {"", -EINVAL},     {"a", -EINVAL},	     {"a/b", -EINVAL},	 {"//", -EINVAL},
    {"/a/", -EINVAL},  {"/a//b", -EINVAL},   {"/.", -EINVAL},	 {"/..", -EINVAL},
    {"/a/.", -EINVAL}, {"/a/../b", -EINVAL}, {"/a\nb", -EINVAL}, {"/a/b/", -EINVAL},
};

START_TEST(bad_paths_refused)
{
	struct cg_tree *t = tree_new(0);
	struct cg_node *n = NULL;
	for (size_t i = 0; i < sizeof bad_paths / sizeof bad_paths[0]; i++) {
		ck_assert_msg(cg_lookup(t, bad_paths[i].path, true, &n) == bad_paths[i].err,
			      "lookup '%s'", bad_paths[i].path);
		ck_assert_msg(cg_remove(t, bad_paths[i].path) == bad_paths[i].err, "remove '%s'",
			      bad_paths[i].path);
	}
	ck_assert_int_eq(cg_lookup(t, NULL, true, &n), -EINVAL);
	ck_assert_int_eq(cg_lookup(t, "/", true, NULL), -EINVAL);
	ck_assert_int_eq(cg_remove(t, NULL), -EINVAL);
	ck_assert_ptr_null(n);
	/* Nothing was created by the refused lookups. */
	ck_assert_int_eq(cg_lookup(t, "/a", false, &n), -ENOENT);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(long_names_refused)
{
	struct cg_tree *t = tree_new(0);
	struct cg_node *n = NULL;
	static char p[5000];
	p[0] = '/';
	memset(p + 1, 'x', 256);
	p[257] = '\0';
	ck_assert_int_eq(cg_lookup(t, p, true, &n), -ENAMETOOLONG);
	p[256] = '\0'; /* 255 is the longest component */
	ck_assert_int_eq(cg_lookup(t, p, true, &n), 0);
	ck_assert_str_eq(cg_node_path(n), p);
	cg_node_put(n);
	/* A whole path of 4096 bytes or more, made of short components. */
	for (size_t i = 0; i < 4200; i += 2) {
		p[i] = '/';
		p[i + 1] = 'y';
	}
	p[4200] = '\0';
	ck_assert_int_eq(cg_lookup(t, p, true, &n), -ENAMETOOLONG);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(lookup_creates_components)
{
	struct cg_tree *t = tree_new(0);
	struct cg_node *a = NULL, *b = NULL, *c = NULL, *root = NULL;
	ck_assert_int_eq(cg_lookup(t, "/a/b", false, &b), -ENOENT);
	ck_assert_int_eq(cg_lookup(t, "/a/b", true, &b), 0);
	ck_assert_str_eq(cg_node_path(b), "/a/b");
	ck_assert_int_eq(cg_lookup(t, "/a", false, &a), 0);
	ck_assert_str_eq(cg_node_path(a), "/a");
	ck_assert_int_eq(cg_lookup(t, "/", false, &root), 0);
	ck_assert_str_eq(cg_node_path(root), "/");
	ck_assert_int_eq(cg_lookup(t, "/a/b", false, &c), 0);
	ck_assert_ptr_eq(b, c);
	cg_node_put(c);
	/* Names are exact: a prefix or an extension is another cgroup. */
	ck_assert_int_eq(cg_lookup(t, "/a/bb", false, &c), -ENOENT);
	ck_assert_int_eq(cg_lookup(t, "/a/bb", true, &c), 0);
	ck_assert_ptr_ne(b, c);
	cg_node_put(c);
	ck_assert_int_eq(cg_lookup(t, "/...", true, &c), 0); /* three dots is a name */
	ck_assert_str_eq(cg_node_path(c), "/...");
	cg_node_put(c);
	ck_assert_ptr_null(cg_node_path(NULL));
	cg_node_put(a);
	cg_node_put(b);
	cg_node_put(root);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(remove_rules)
{
	struct cg_tree *t = tree_new(0);
	tnode(t, "/a/b");
	ck_assert_int_eq(cg_remove(t, "/"), -EINVAL);
	ck_assert_int_eq(cg_remove(t, "/a"), -EBUSY);
	ck_assert_int_eq(cg_remove(t, "/x"), -ENOENT);
	ck_assert_int_eq(cg_remove(t, "/a/b/c"), -ENOENT);
	ck_assert_int_eq(cg_remove(t, "/a/b"), 0);
	ck_assert_int_eq(cg_remove(t, "/a/b"), -ENOENT);
	ck_assert_int_eq(cg_remove(t, "/a"), 0);
	struct cg_node *n;
	ck_assert_int_eq(cg_lookup(t, "/a", false, &n), -ENOENT);
	cg_tree_destroy(t);
}
END_TEST

/* Like a kernel cgroup after rmdir: sockets that still hold it keep running
 * its effective programs (and see ancestors' changes) until the last
 * reference goes; then its programs are detached and released. */
START_TEST(removed_node_is_dying_until_last_put)
{
	struct cg_tree *t = tree_new(0);
	struct tprog p, q;
	tprog_init(&p, 7);
	tprog_init(&q, 8);
	struct cg_node *held = NULL, *again = NULL;
	ck_assert_int_eq(cg_lookup(t, "/a", true, &held), 0);
	ck_assert_int_eq(cg_attach(t, held, CG_ATTACH_SOCK_OPS, &p, CG_F_ALLOW_MULTI, NULL), 0);
	ck_assert_int_eq(cg_remove(t, "/a"), 0);
	ck_assert_int_eq(cg_remove(t, "/a"), -ENOENT);
	ck_assert_uint_eq(cg_effective(held, CG_ATTACH_SOCK_OPS)->n, 1);
	ck_assert_int_eq(tprog_refs(&p), 2);
	ck_assert_str_eq(cg_node_path(held), "/a");
	/* No changes through a removed cgroup. */
	ck_assert_int_eq(cg_attach(t, held, CG_ATTACH_SOCK_OPS, &q, CG_F_ALLOW_MULTI, NULL),
			 -ENOENT);
	ck_assert_int_eq(cg_detach(t, held, CG_ATTACH_SOCK_OPS, &p), -ENOENT);
	uint32_t cnt = 0;
	ck_assert_int_eq(cg_query(t, held, CG_ATTACH_SOCK_OPS, 0, NULL, NULL, &cnt), -ENOENT);
	/* Its ancestors' changes still reach it. */
	ck_assert_int_eq(
	    cg_attach(t, tnode(t, "/"), CG_ATTACH_SOCK_OPS, &q, CG_F_ALLOW_MULTI, NULL), 0);
	const struct cg_array *e = cg_effective(held, CG_ATTACH_SOCK_OPS);
	ck_assert_uint_eq(e->n, 2);
	ck_assert_ptr_eq(e->progs[0], &p);
	ck_assert_ptr_eq(e->progs[1], &q);
	/* The same path names a new cgroup now. */
	ck_assert_int_eq(cg_lookup(t, "/a", true, &again), 0);
	ck_assert_ptr_ne(again, held);
	ck_assert_uint_eq(cg_effective(again, CG_ATTACH_SOCK_OPS)->n, 1);
	cg_node_put(again);
	cg_node_put(held); /* the last reference: released (ASan checks) */
	ck_assert_int_eq(tprog_refs(&p), 0);
	ck_assert_int_eq(tprog_releases(&p), 1);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&q), 0);
	ck_assert_int_eq(tprog_bad(&p) + tprog_bad(&q), 0);
}
END_TEST

/* rmdir counts only live children; a removed child pins its ancestors. */
START_TEST(removed_child_pins_parent)
{
	struct cg_tree *t = tree_new(0);
	struct tprog p;
	tprog_init(&p, 1);
	struct cg_node *child = NULL, *n = NULL;
	ck_assert_int_eq(cg_lookup(t, "/a/b", true, &child), 0);
	ck_assert_int_eq(cg_attach(t, tnode(t, "/a"), CG_ATTACH_SOCK_OPS, &p, 0, NULL), 0);
	ck_assert_int_eq(cg_remove(t, "/a/b"), 0);
	ck_assert_int_eq(cg_remove(t, "/a"), 0);
	ck_assert_int_eq(cg_lookup(t, "/a", false, &n), -ENOENT);
	/* The removed parent's program still runs for the held child. */
	ck_assert_uint_eq(cg_effective(child, CG_ATTACH_SOCK_OPS)->n, 1);
	ck_assert_int_eq(tprog_refs(&p), 3);
	cg_node_put(child); /* releases /a/b, then /a */
	ck_assert_int_eq(tprog_refs(&p), 0);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(destroy_leaves_held_nodes_valid)
{
	struct cg_tree *t = tree_new(0);
	struct tprog p;
	tprog_init(&p, 1);
	struct cg_node *n = NULL;
	ck_assert_int_eq(cg_lookup(t, "/x/y", true, &n), 0);
	ck_assert_int_eq(
	    cg_attach(t, tnode(t, "/"), CG_ATTACH_SOCK_OPS, &p, CG_F_ALLOW_MULTI, NULL), 0);
	ck_assert_uint_eq(cg_effective(n, CG_ATTACH_SOCK_OPS)->n, 1);
	cg_tree_destroy(t);
	ck_assert_int_eq(tprog_refs(&p), 0);
	ck_assert_uint_eq(cg_effective(n, CG_ATTACH_SOCK_OPS)->n, 0);
	ck_assert_str_eq(cg_node_path(n), "/x/y");
	cg_node_put(n); /* an orphan now: just freed */
}
END_TEST

START_TEST(node_from_other_tree_refused)
{
	struct cg_tree *t1 = tree_new(0), *t2 = tree_new(0);
	struct tprog p;
	tprog_init(&p, 1);
	struct cg_node *n2 = tnode(t2, "/a");
	ck_assert_int_eq(cg_attach(t1, n2, CG_ATTACH_SOCK_OPS, &p, 0, NULL), -ENOENT);
	ck_assert_int_eq(tprog_refs(&p), 0);
	cg_tree_destroy(t1);
	cg_tree_destroy(t2);
}
END_TEST

static Suite *tree_suite(void)
{
	Suite *s = suite_create("cg_tree");
	TCase *tc = tcase_create("tree");
	tcase_add_test(tc, create_validates_ops);
	tcase_add_test(tc, bad_paths_refused);
	tcase_add_test(tc, long_names_refused);
	tcase_add_test(tc, lookup_creates_components);
	tcase_add_test(tc, remove_rules);
	tcase_add_test(tc, removed_node_is_dying_until_last_put);
	tcase_add_test(tc, removed_child_pins_parent);
	tcase_add_test(tc, destroy_leaves_held_nodes_valid);
	tcase_add_test(tc, node_from_other_tree_refused);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(tree_suite)
