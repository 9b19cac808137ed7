/* tcp_cc: the congestion control modules at the level of single segments.
 * The stack default (tcp_config.cc, cubic when unset, -ENOENT for a name
 * the stack lacks); CUBIC's multiplicative decrease (beta 717/1024); DCTCP's
 * receiver echoing each segment's CE mark (RFC 8257 §3.2, with the delayed
 * ACK sent first when the mark changes) and its sender folding the ECE
 * fraction of a window into alpha with g = 1/16 (§3.3) and cutting cwnd by
 * alpha/2. */
#include "check_main.h"
#include "test_tcp_fixture.h"

static void cfg_dctcp(struct tcp_config *c)
{
	c->cc = "dctcp";
}

START_TEST(stack_default)
{
	struct fx f;
	fx_init(&f);
	struct tcb *t;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &t), 0);
	ck_assert_str_eq(t->cc.ops->name, "cubic"); /* Linux's default */
	fx_fini(&f);
	fx_init_cfg(&f, cfg_dctcp);
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &t), 0);
	ck_assert_str_eq(t->cc.ops->name, "dctcp");
	fx_fini(&f);
	struct tcp_config c = f.cfg;
	c.cc = "vegas";
	struct tcp *tcp = NULL;
	ck_assert_int_eq(tcp_create(&c, &tcp), -ENOENT);
	ck_assert_ptr_null(tcp);
	ck_assert_str_eq(tcp_cc_available(), "reno newreno cubic dctcp bbr");
}
END_TEST

START_TEST(cubic_beta)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_str_eq(c->cc.ops->name, "cubic");
	c->cc.cwnd = 100;
	ck_assert_uint_eq(tcp_cc_ssthresh(c), 100 * 717 / 1024);
	c->cc.cwnd = 2;
	ck_assert_uint_eq(tcp_cc_ssthresh(c), 2);
	fx_fini(&f);
}
END_TEST

/* A DCTCP connection accepted from a peer whose SYN asked for ECN. */
static struct tcb *dctcp_conn(struct fx *f)
{
	fx_init_cfg(f, cfg_dctcp);
	struct tcb *l;
	tcp_open(f->tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f->tcp, l, &any, 80);
	tcp_listen(f->tcp, l, 4, f->now);
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN | TCP_ECE | TCP_CWR, 65535);
	syn.mss = 1460;
	fx_send(f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK | TCP_ECE);
	struct tcp_repr a = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	f->now += 10 * MS;
	fx_send(f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f->tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert(c->flags & TCB_F_ECN);
	ck_assert_str_eq(c->cc.ops->name, "dctcp");
	ck_assert_int_eq(cc_dctcp_alpha(c), 1024); /* dctcp_alpha_on_init */
	f->peer_seq = FX_PEER_ISN + 1;
	return c;
}

static uint8_t seg[1460];

/* The peer's next full segment with IP ECN field ecn. */
static void data_in(struct fx *f, struct tcb *c, uint8_t ecn)
{
	struct tcp_repr d = fx_repr(f->peer_seq, c->send.nxt, TCP_ACK, 65535);
	fx_send_ecn(f, &d, seg, sizeof(seg), ecn);
	f->peer_seq += sizeof(seg);
}

static void ack_out(struct fx *f, uint32_t ack, bool ece)
{
	struct fx_seg *s = fx_pop(f);
	ck_assert_uint_eq(s->r.ack, ack);
	ck_assert_uint_eq(s->r.flags, ece ? TCP_ACK | TCP_ECE : TCP_ACK);
}

START_TEST(dctcp_echo_per_segment)
{
	struct fx f;
	struct tcb *c = dctcp_conn(&f);
	uint32_t s0 = f.peer_seq, n = sizeof(seg);
	/* ECT: the ACK is delayed, as for any first segment */
	data_in(&f, c, 2);
	fx_none(&f);
	/* CE: the delayed ACK goes first without ECE, then the CE segment's
	 * ACK with ECE, at once */
	data_in(&f, c, 3);
	ack_out(&f, s0 + n, false);
	ack_out(&f, s0 + 2 * n, true);
	fx_none(&f);
	/* CE again: no change, delayed ACKs every second segment, with ECE */
	data_in(&f, c, 3);
	fx_none(&f);
	data_in(&f, c, 3);
	ack_out(&f, s0 + 4 * n, true);
	/* ECT: the mark changed back: at once, and without ECE (RFC 3168
	 * would keep echoing until CWR) */
	data_in(&f, c, 2);
	ack_out(&f, s0 + 5 * n, false);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(dctcp_alpha_and_cut)
{
	struct fx f;
	struct tcb *c = dctcp_conn(&f);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	uint32_t m = c->mss, una = c->send.una;
	ck_assert_uint_eq(c->cc.cwnd, 10);
	ck_assert_int_eq(tcp_send(f.tcp, c, seg, m, f.now), (int)m);
	static uint8_t big[10 * 1460];
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 9 * m, f.now), (int)(9 * m));
	f.next = f.nout;
	/* The first ACK ends the window that began at the handshake: alpha
	 * decays by 1/16 with nothing marked, 1024 → 960. */
	struct tcp_repr a = fx_repr(f.peer_seq, una + 2 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960);
	uint32_t cw = c->cc.cwnd;
	/* ECE on the next two ACKs: one cut, cwnd × (1 − alpha/2) */
	a = fx_repr(f.peer_seq, una + 4 * m, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(c->cc.ssthresh, cw - ((cw * 960) >> 11));
	ck_assert_uint_eq(c->cc.cwnd, c->cc.ssthresh);
	uint32_t cut = c->cc.cwnd;
	a = fx_repr(f.peer_seq, una + 6 * m, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_le(c->cc.cwnd, cut + 1); /* once per window (CWR) */
	a = fx_repr(f.peer_seq, una + 8 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960);
	/* the window's end: F = 4 of 8 segments, alpha = 960 − 60 + 1024 F / 16 */
	a = fx_repr(f.peer_seq, una + 10 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960 - 60 + (int)((4 * m) << 6) / (int)(8 * m));
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_cc");
	TCase *tc = tcase_create("cc");
	tcase_add_test(tc, stack_default);
	tcase_add_test(tc, cubic_beta);
	tcase_add_test(tc, dctcp_echo_per_segment);
	tcase_add_test(tc, dctcp_alpha_and_cut);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
