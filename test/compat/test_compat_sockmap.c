/* compat: progs/sockmap_insert.c on the socket double. A sock_ops program puts
 * the socket it runs for into a SOCKMAP and a SOCKHASH at the ESTABLISHED
 * callbacks; user space finds each socket's cookie there, a refused insert
 * (TCP_CONNECT_CB, a second NOEXIST) answers the kernel's errno, and closing
 * a socket takes it out of both maps. The refused programs are the kernel's
 * verdicts for sock_ops (measured on the 6.18 kernel here, docs/sockops.md §5). */
#include <errno.h>

#include "compat_fixture.h"
#include "hk_double.h"

struct insert_result {
	int32_t connect_rc, map_rc, map_again, hash_rc;
	uint64_t cookie;
	uint32_t inserted;
};

static const struct insert_result *result(struct bpfvm_obj *obj, uint32_t side)
{
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "results");
	ck_assert_ptr_nonnull(m);
	const struct insert_result *r = bpfvm_map_lookup(m, &side);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void insert_run(bool jit)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock act, pas;

	ck_assert_msg(load("sockmap_insert", jit, &obj, &prog) == 0, "load: %s", logbuf);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	struct bpfvm_map *sm = bpfvm_obj_map_by_name(obj, "sock_map");
	struct bpfvm_map *sh = bpfvm_obj_map_by_name(obj, "sock_hash");
	ck_assert_ptr_nonnull(sm);
	ck_assert_ptr_nonnull(sh);

	hkd_init(&act, 2, 40000, 55601, true);
	hooks_sock_init(&act.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&act.hs, HOOKS_OP_TCP_CONNECT_CB, NULL, 0), 0);
	const struct insert_result *ra = result(obj, 0);
	ck_assert_int_eq(ra->connect_rc, -EOPNOTSUPP); /* sock_map_op_okay */
	uint32_t k = 0;
	ck_assert_ptr_null(bpfvm_map_lookup(sm, &k));
	ck_assert_int_eq(hooks_call(&act.hs, HOOKS_OP_ACTIVE_ESTABLISHED_CB, NULL, 0), 0);
	ck_assert_int_eq(ra->map_rc, 0);
	ck_assert_int_eq(ra->map_again, -EEXIST);
	ck_assert_int_eq(ra->hash_rc, 0);
	ck_assert_uint_eq(ra->inserted, 1);
	ck_assert_uint_ne(ra->cookie, 0);
	const uint64_t *c = bpfvm_map_lookup(sm, &k);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(*c, ra->cookie);
	ck_assert_ptr_eq(bpfvm_sock_map_owner(sm, &k), &act.hs);
	k = 40000;
	c = bpfvm_map_lookup(sh, &k);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(*c, ra->cookie);

	hkd_init(&pas, 2, 55601, 40000, true);
	hooks_sock_init(&pas.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&pas.hs, HOOKS_OP_PASSIVE_ESTABLISHED_CB, NULL, 0), 0);
	const struct insert_result *rp = result(obj, 1);
	ck_assert_int_eq(rp->map_rc, 0);
	ck_assert_uint_ne(rp->cookie, ra->cookie);
	k = 1;
	c = bpfvm_map_lookup(sm, &k);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(*c, rp->cookie);

	/* the maps hold a socket until it closes */
	hooks_sock_fini(&act.hs);
	k = 0;
	ck_assert_ptr_null(bpfvm_map_lookup(sm, &k));
	k = 40000;
	ck_assert_ptr_null(bpfvm_map_lookup(sh, &k));
	k = 1;
	ck_assert_ptr_nonnull(bpfvm_map_lookup(sm, &k));
	k = 55601;
	ck_assert_ptr_nonnull(bpfvm_map_lookup(sh, &k));
	hooks_sock_fini(&pas.hs);
	k = 1;
	ck_assert_ptr_null(bpfvm_map_lookup(sm, &k));

	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}

START_TEST(insert_interp)
{
	insert_run(false);
}
END_TEST

START_TEST(insert_jit)
{
	insert_run(true);
}
END_TEST

static const struct {
	const char *name;
	const char *reason;
} bad[] = {
    {"bad_sockmap_update", "cannot update sockmap in this context"},
    {"bad_sockmap_lookup", "Unreleased reference"},
    {"bad_sockhash_as_map", "cannot pass map_type 18 into func bpf_sock_map_update#53"},
};

START_TEST(refused)
{
	assert_refused(bad[_i].name, bad[_i].reason);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_sockmap");
	TCase *tc = tcase_create("sockmap");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, insert_interp);
	tcase_add_test(tc, insert_jit);
	tcase_add_loop_test(tc, refused, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
