/* compat: progs/tstamp_cb.c on the socket double, in both engines. The
 * program sets SOL_SOCKET SK_BPF_CB_FLAGS at ACTIVE_ESTABLISHED_CB; only then
 * do the TSTAMP ops run, and the kfunc bpf_sock_ops_enable_tx_tstamp, called
 * through bpf_cast_to_kern_ctx, marks a send at TSTAMP_SENDMSG_CB and
 * answers Linux 6.15's errnos elsewhere. The refused programs are the
 * 6.18 kernel's verdicts too (docs/verifier-diff.md "kfuncs"). */
#include <errno.h>

#include "compat_fixture.h"
#include "hk_double.h"
#include "hooks_int.h"
#include "tstamp_res.h"

static const struct tstamp_res *result(struct bpfvm_obj *obj, uint32_t slot)
{
	const struct tstamp_res *r = tstamp_res_get(obj, slot);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void tstamp_run(bool jit)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock act;

	ck_assert_msg(load("tstamp_cb", jit, &obj, &prog) == 0, "load: %s", logbuf);
	/* the JIT compiles the kfunc calls (no fallback to the interpreter) */
	struct bpfvm_prog_info info;
	bpfvm_prog_info(prog, &info);
	ck_assert(jit ? info.jited_prog_len > 0 : info.jited_prog_len == 0);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	hkd_init(&act, 2, 40000, 55601, true);
	hooks_sock_init(&act.hs, hk, &hkd_ops, root, true);
	const struct tstamp_res *r = result(obj, 0);

	/* SK_BPF_CB_TX_TIMESTAMPING off: no TSTAMP op runs */
	ck_assert(!hooks_tstamp_sendmsg(&act.hs, 1000));
	hooks_tstamp_cb(&act.hs, HOOKS_OP_TSTAMP_SCHED_CB, 1000);
	ck_assert_uint_eq(r->n_sendmsg + r->n_sched, 0);

	hooks_active_established_cb(&act.hs);
	ck_assert_uint_eq(r->seen, 1);
	ck_assert_int_eq(r->flags_bad, -EINVAL);
	ck_assert_int_eq(r->flags_len8, -EINVAL);
	ck_assert_int_eq(r->flags_tcp, -EINVAL);
	ck_assert_int_eq(r->get0_rc, 0);
	ck_assert_uint_eq(r->get0_val, 0);
	ck_assert_int_eq(r->set_rc, 0);
	ck_assert_uint_eq(r->get1_val, 1);
	ck_assert_uint_eq(act.hs.sk_cb_flags, HOOKS_SK_CB_TX_TIMESTAMPING);

	ck_assert(hooks_tstamp_sendmsg(&act.hs, 1000));
	ck_assert_int_eq(r->kf_flags, -EINVAL);
	ck_assert_int_eq(r->kf_first, 0);
	ck_assert_uint_eq(r->n_marked, 1);
	/* the locked helpers refuse in these ops */
	ck_assert_int_eq(r->sockopt_ts, -EOPNOTSUPP);
	ck_assert_int_eq(r->getopt_ts, -EOPNOTSUPP);
	ck_assert_int_eq(r->cbset_ts, -EOPNOTSUPP);
	hooks_tstamp_cb(&act.hs, HOOKS_OP_TSTAMP_SCHED_CB, 1000);
	ck_assert_int_eq(r->kf_other, -EOPNOTSUPP);
	hooks_tstamp_cb(&act.hs, HOOKS_OP_TSTAMP_SND_SW_CB, 1000);
	hooks_tstamp_cb(&act.hs, HOOKS_OP_TSTAMP_ACK_CB, 1000);
	ck_assert_uint_eq(r->n_sched, 1);
	ck_assert_uint_eq(r->n_sw, 1);
	ck_assert_uint_eq(r->n_ack, 1);
	ck_assert_uint_eq(r->n_hw, 0);
	ck_assert_uint_eq(r->order_bad, 0);
	ck_assert_uint_eq(r->not_full, 0);
	/* a second send, marked again */
	ck_assert(hooks_tstamp_sendmsg(&act.hs, 10));
	ck_assert_uint_eq(r->n_sendmsg, 2);
	ck_assert_uint_eq(r->n_marked, 2);

	hooks_sock_fini(&act.hs);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}

START_TEST(tstamp_interp)
{
	tstamp_run(false);
}
END_TEST

START_TEST(tstamp_jit)
{
	tstamp_run(true);
}
END_TEST

/* The checked-execution oracle follows the kernel-context pointer from
 * bpf_cast_to_kern_ctx into the kfunc: a run at TSTAMP_SENDMSG_CB breaks no
 * contract and marks the send; in TSTAMP_SCHED_CB nothing is marked. */
START_TEST(tstamp_oracle)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock act;
	static struct hooks_ctx ctx;
	struct bpfvm_oracle_report rep;

	ck_assert_msg(load("tstamp_cb", false, &obj, &prog) == 0, "load: %s", logbuf);
	hkd_init(&act, 2, 40000, 55601, true);
	hooks_sock_init(&act.hs, hk, &hkd_ops, root, true);
	for (uint32_t op = HOOKS_OP_TSTAMP_SCHED_CB; op <= HOOKS_OP_TSTAMP_SENDMSG_CB; op++) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.hs = &act.hs;
		ctx.view.op = op;
		ctx.view.is_fullsock = 1;
		ctx.view.local_port = 40000;
		ctx.view.sk = (uint64_t)(uintptr_t)&ctx.bsk;
		uint64_t r0 = bpfvm_prog_run_oracle(prog, &ctx, HOOKS_CTX_SIZE, &rep);
		ck_assert_msg(!rep.violation && rep.pc == -1, "op %u: %s", op, rep.why);
		ck_assert_uint_eq(r0, 1);
		ck_assert_uint_eq(ctx.tx_marked, op == HOOKS_OP_TSTAMP_SENDMSG_CB);
	}
	ck_assert_uint_eq(result(obj, 0)->n_marked, 1);
	hooks_sock_fini(&act.hs);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}
END_TEST

static const struct {
	const char *name;
	const char *reason;
} bad[] = {
    {"bad_kfunc_ctx", "R1 type=ctx expected=trusted_ptr_bpf_sock_ops_kern"},
    {"bad_kfunc_unknown", "extern function 'bpf_no_such_kfunc' is not a kfunc of program type"},
    {"bad_kfunc_moved", "R1 type=btf_ptr expected=trusted_ptr_bpf_sock_ops_kern"},
};

START_TEST(refused)
{
	assert_refused(bad[_i].name, bad[_i].reason);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_tstamp");
	TCase *tc = tcase_create("tstamp");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tstamp_interp);
	tcase_add_test(tc, tstamp_jit);
	tcase_add_test(tc, tstamp_oracle);
	tcase_add_loop_test(tc, refused, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
