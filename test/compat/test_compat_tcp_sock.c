/* bpf_tcp_sock (96), bpf_skc_to_tcp_sock (137), bpf_skc_to_mptcp_sock (196)
 * as kernel-targeted programs use them: test/compat/progs/tcp_sock_snap.c
 * (selftests style) loads strict, and on the socket double its snapshot of
 * struct bpf_tcp_sock equals the socket's counters on a full socket and is
 * NULL on a request socket, in both engines; the bad_* programs are refused
 * with the kernel verifier's reasons. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "check_main.h"
#include "hk_double.h"
#include "hooks.h"

#include "compat_fixture.h"

struct tcp_snap_tp {
	uint32_t snd_cwnd, srtt_us, rtt_min, snd_ssthresh, rcv_nxt, snd_nxt, snd_una;
	uint32_t mss_cache, ecn_flags, rate_delivered, rate_interval_us, packets_out;
	uint32_t retrans_out, total_retrans, segs_in, data_segs_in, segs_out, data_segs_out;
	uint32_t lost_out, sacked_out;
	uint64_t bytes_received, bytes_acked;
	uint32_t dsack_dups, delivered, delivered_ce, icsk_retransmits;
};

/* The map value of tcp_sock_snap.c. */
struct tcp_snap {
	uint32_t calls, no_sk, no_tp, skc_tcp, skc_mptcp, op;
	struct tcp_snap_tp tp;
};

static void fill_counters(struct hkd_sock *d)
{
	struct hooks_sk_info *in = &d->info;

	/* distinct values everywhere, so a field read from the wrong offset shows */
	in->snd_cwnd = 11;
	in->srtt_us = 12;
	in->rtt_min = 13;
	in->snd_ssthresh = 14;
	in->rcv_nxt = 15;
	in->snd_nxt = 16;
	in->snd_una = 17;
	in->mss_cache = 18;
	in->ecn_flags = 1;
	in->rate_delivered = 20;
	in->rate_interval_us = 21;
	in->packets_out = 22;
	in->retrans_out = 23;
	in->total_retrans = 24;
	in->segs_in = 25;
	in->data_segs_in = 26;
	in->segs_out = 27;
	in->data_segs_out = 28;
	in->lost_out = 29;
	in->sacked_out = 30;
	in->bytes_received = 0x3100000031ull;
	in->bytes_acked = 0x3200000032ull;
	in->dsack_dups = 33;
	in->delivered = 34;
	in->delivered_ce = 35;
	in->icsk_retransmits = 36;
}

static void check_snapshot(const struct tcp_snap *s, const struct hooks_sk_info *in)
{
	const struct tcp_snap_tp *t = &s->tp;

	ck_assert_uint_eq(t->snd_cwnd, in->snd_cwnd);
	ck_assert_uint_eq(t->srtt_us, in->srtt_us);
	ck_assert_uint_eq(t->rtt_min, in->rtt_min);
	ck_assert_uint_eq(t->snd_ssthresh, in->snd_ssthresh);
	ck_assert_uint_eq(t->rcv_nxt, in->rcv_nxt);
	ck_assert_uint_eq(t->snd_nxt, in->snd_nxt);
	ck_assert_uint_eq(t->snd_una, in->snd_una);
	ck_assert_uint_eq(t->mss_cache, in->mss_cache);
	ck_assert_uint_eq(t->ecn_flags, in->ecn_flags);
	ck_assert_uint_eq(t->rate_delivered, in->rate_delivered);
	ck_assert_uint_eq(t->rate_interval_us, in->rate_interval_us);
	ck_assert_uint_eq(t->packets_out, in->packets_out);
	ck_assert_uint_eq(t->retrans_out, in->retrans_out);
	ck_assert_uint_eq(t->total_retrans, in->total_retrans);
	ck_assert_uint_eq(t->segs_in, in->segs_in);
	ck_assert_uint_eq(t->data_segs_in, in->data_segs_in);
	ck_assert_uint_eq(t->segs_out, in->segs_out);
	ck_assert_uint_eq(t->data_segs_out, in->data_segs_out);
	ck_assert_uint_eq(t->lost_out, in->lost_out);
	ck_assert_uint_eq(t->sacked_out, in->sacked_out);
	ck_assert_uint_eq(t->bytes_received, in->bytes_received);
	ck_assert_uint_eq(t->bytes_acked, in->bytes_acked);
	ck_assert_uint_eq(t->dsack_dups, in->dsack_dups);
	ck_assert_uint_eq(t->delivered, in->delivered);
	ck_assert_uint_eq(t->delivered_ce, in->delivered_ce);
	ck_assert_uint_eq(t->icsk_retransmits, in->icsk_retransmits);
}

static void snap_run(bool jit)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock full, req;
	const struct tcp_snap *s;
	uint32_t key = 0;

	ck_assert_msg(load("tcp_sock_snap", jit, &obj, &prog) == 0, "load: %s", logbuf);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	struct bpfvm_map *map = bpfvm_obj_map_by_name(obj, "snap");
	ck_assert_ptr_nonnull(map);

	hkd_init(&full, 2, 40000, 55601, true);
	fill_counters(&full);
	hooks_sock_init(&full.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&full.hs, HOOKS_OP_ACTIVE_ESTABLISHED_CB, NULL, 0), 0);
	s = bpfvm_map_lookup(map, &key);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->calls, 1);
	ck_assert_uint_eq(s->op, HOOKS_OP_ACTIVE_ESTABLISHED_CB);
	ck_assert_uint_eq(s->no_sk, 0);
	ck_assert_uint_eq(s->no_tp, 0);
	ck_assert_uint_eq(s->skc_tcp, 1);
	ck_assert_uint_eq(s->skc_mptcp, 0); /* never an MPTCP socket */
	check_snapshot(s, &full.info);

	/* the snapshot is taken at the call: a counter that moved shows */
	full.info.snd_cwnd = 99;
	full.info.bytes_acked = 7;
	ck_assert_int_eq(hooks_call(&full.hs, HOOKS_OP_RTT_CB, NULL, 0), 0);
	check_snapshot(s, &full.info);

	/* a request socket has no tcp_sock, as in the kernel (not a full sock) */
	hkd_init(&req, 2, 55601, 40000, true);
	fill_counters(&req);
	hooks_sock_init(&req.hs, hk, &hkd_ops, root, false);
	ck_assert_int_eq(hooks_call(&req.hs, HOOKS_OP_TIMEOUT_INIT, NULL, 0), 0);
	ck_assert_uint_eq(s->calls, 3);
	ck_assert_uint_eq(s->no_tp, 1);
	ck_assert_uint_eq(s->skc_tcp, 2);
	ck_assert_uint_eq(s->tp.snd_cwnd, 99); /* unchanged by the request */

	hooks_sock_fini(&req.hs);
	hooks_sock_fini(&full.hs);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}

START_TEST(snapshot_interp)
{
	snap_run(false);
}
END_TEST

START_TEST(snapshot_jit)
{
	snap_run(true);
}
END_TEST

static const struct {
	const char *name;
	const char *reason;
} bad[] = {
    {"bad_tp_nocheck", "invalid mem access 'tcp_sock_or_null'"},
    {"bad_tp_write", "cannot write into tcp_sock"},
    {"bad_sk_nocheck", "sock_common"},
    {"bad_tp_narrow", "invalid tcp_sock access off=88 size=4"},
    {"bad_skc_read", "invalid access to struct tcp_sock off=4096 size=4"},
};

START_TEST(refused)
{
	assert_refused(bad[_i].name, bad[_i].reason);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_tcp_sock");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, snapshot_interp);
	tcase_add_test(tc, snapshot_jit);
	tcase_add_loop_test(tc, refused, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
