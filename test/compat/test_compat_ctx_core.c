/* compat: progs/core_ctx.c reads its context the way a vmlinux.h program does,
 * every ctx and ctx->sk access a CO-RE relocation against a local layout that
 * is not the uapi one. The sock_ops BTF publishes struct bpf_sock_ops and
 * struct bpf_sock (hooks_btf_uapi.h), so each read lands at its uapi offset:
 * the relocated reads equal the fixed-offset ones and the socket's values, and
 * the relocated store of reply answers TIMEOUT_INIT. */
#include "compat_fixture.h"
#include "hk_double.h"

struct ctx_pair {
	uint32_t op, op_raw;
	uint32_t family, family_raw;
	uint32_t local_port, local_port_raw;
	uint32_t remote_port, remote_port_raw;
	uint32_t is_fullsock, is_fullsock_raw;
	uint64_t bytes_acked, bytes_acked_raw;
	uint32_t sk_family, sk_family_raw;
	uint32_t sk_src_port, sk_src_port_raw;
	uint32_t no_sk;
};

static void check_pairs(const struct ctx_pair *p, uint32_t op, uint64_t acked)
{
	ck_assert_uint_eq(p->op, op);
	ck_assert_uint_eq(p->op_raw, op);
	ck_assert_uint_eq(p->family, 2);
	ck_assert_uint_eq(p->family_raw, 2);
	ck_assert_uint_eq(p->local_port, 40000);
	ck_assert_uint_eq(p->local_port_raw, 40000);
	ck_assert_uint_ne(p->remote_port, 0);
	ck_assert_uint_eq(p->remote_port, p->remote_port_raw);
	ck_assert_uint_eq(p->is_fullsock, 1);
	ck_assert_uint_eq(p->is_fullsock_raw, 1);
	ck_assert_uint_eq(p->bytes_acked, acked);
	ck_assert_uint_eq(p->bytes_acked_raw, acked);
	ck_assert_uint_eq(p->sk_family, 2);
	ck_assert_uint_eq(p->sk_family_raw, 2);
	ck_assert_uint_eq(p->sk_src_port, 40000);
	ck_assert_uint_eq(p->sk_src_port_raw, 40000);
	ck_assert_uint_eq(p->no_sk, 0);
}

static void ctx_run(bool jit)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock s;
	uint32_t key = 0;

	ck_assert_msg(load("core_ctx", jit, &obj, &prog) == 0, "load: %s", logbuf);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "pairs");
	ck_assert_ptr_nonnull(m);
	const struct ctx_pair *p = bpfvm_map_lookup(m, &key);
	ck_assert_ptr_nonnull(p);

	hkd_init(&s, 2, 40000, 55601, true);
	s.info.bytes_acked = 12345;
	hooks_sock_init(&s.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&s.hs, HOOKS_OP_ACTIVE_ESTABLISHED_CB, NULL, 0), 0);
	check_pairs(p, HOOKS_OP_ACTIVE_ESTABLISHED_CB, 12345);
	ck_assert_int_eq(hooks_timeout_init(&s.hs), 10);
	check_pairs(p, HOOKS_OP_TIMEOUT_INIT, 12345);

	hooks_sock_fini(&s.hs);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}

START_TEST(ctx_interp)
{
	ctx_run(false);
}
END_TEST

START_TEST(ctx_jit)
{
	ctx_run(true);
}
END_TEST

/* a relocated store still meets the context rules (the kernel: "invalid
 * bpf_context access off=20 size=4", -EACCES) */
START_TEST(refused_write)
{
	assert_refused("bad_core_ctx_write", "ctx+20 (family): field is read-only");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_ctx_core");
	TCase *tc = tcase_create("ctx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ctx_interp);
	tcase_add_test(tc, ctx_jit);
	tcase_add_test(tc, refused_write);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
