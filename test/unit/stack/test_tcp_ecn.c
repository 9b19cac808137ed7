/* tcp_ecn: the stack's ECN setting as Linux's net.ipv4.tcp_ecn, without a
 * program. 2 (the default) agrees to ECN when a SYN asks (ECE+CWR) and a
 * SYN that is itself ECT is refused (RFC 3168 §6.1.1); 1 also asks on
 * active opens (ECE+CWR, the SYN not ECT as in tcp_ecn_send_syn); 0 never;
 * values above 2 are refused. */
#include "check_main.h"
#include "test_tcp_fixture.h"

static void cfg_ecn0(struct tcp_config *c)
{
	c->ecn_set = true;
	c->ecn = 0;
}

static void cfg_ecn1(struct tcp_config *c)
{
	c->ecn_set = true;
	c->ecn = 1;
}

/* The SYN-ACK a listener on port 80 sends to a SYN with flags and IP ECN
 * field ipecn from peer port rport; *child the request's tcb. */
static struct fx_seg *synack_for(struct fx *f, uint8_t flags, uint8_t ipecn, uint16_t rport)
{
	f->t.rport = rport;
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN | flags, 65535);
	fx_send_ecn(f, &syn, NULL, 0, ipecn);
	return fx_pop(f);
}

static struct tcb *listener(struct fx *f)
{
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f->tcp, AF_INET, &l), 0);
	uint32_t any = 0;
	ck_assert_int_eq(tcp_bind(f->tcp, l, &any, 80), 0);
	ck_assert_int_eq(tcp_listen(f->tcp, l, 8, f->now), 0);
	return l;
}

START_TEST(passive_default_agrees)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f);
	struct fx_seg *sa = synack_for(&f, TCP_ECE | TCP_CWR, 0, 5001);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK | TCP_ECE);
	/* no program: the SYN-ACK itself is not ECT (tcp_v4_send_synack) */
	ck_assert_uint_eq(sa->tos & 3, 0);
	struct tcp_repr a = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert(c->flags & TCB_F_ECN);
	/* negotiated: new data goes out ECT(0) */
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	ck_assert_int_eq(tcp_send(f.tcp, c, "x", 1, f.now), 1);
	ck_assert_uint_eq(fx_pop(&f)->tos & 3, 2);
	/* a SYN with ECE alone, or none, does not ask */
	ck_assert_uint_eq(synack_for(&f, TCP_ECE, 0, 5002)->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(synack_for(&f, 0, 0, 5003)->r.flags, TCP_SYN | TCP_ACK);
	/* an ECT SYN is refused ECN (RFC 3168 §6.1.1) */
	ck_assert_uint_eq(synack_for(&f, TCP_ECE | TCP_CWR, 2, 5004)->r.flags, TCP_SYN | TCP_ACK);
	fx_fini(&f);
}
END_TEST

START_TEST(passive_off_and_on)
{
	struct fx f;
	fx_init_cfg(&f, cfg_ecn0);
	listener(&f);
	ck_assert_uint_eq(synack_for(&f, TCP_ECE | TCP_CWR, 0, 5001)->r.flags, TCP_SYN | TCP_ACK);
	fx_fini(&f);
	fx_init_cfg(&f, cfg_ecn1);
	listener(&f);
	ck_assert_uint_eq(synack_for(&f, TCP_ECE | TCP_CWR, 0, 5001)->r.flags,
			  TCP_SYN | TCP_ACK | TCP_ECE);
	fx_fini(&f);
}
END_TEST

/* Our SYN under setting fn, and whether ECN is on after a SYN-ACK with sa_flags. */
static void active(void (*fn)(struct tcp_config *), uint8_t want_syn, uint8_t sa_flags,
		   bool want_ecn)
{
	struct fx f;
	fx_init_cfg(&f, fn);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	ck_assert_int_eq(tcp_connect(f.tcp, c, &f.t.raddr, 80, f.now), -EINPROGRESS);
	f.t = c->t;
	struct fx_seg *syn = fx_pop(&f);
	ck_assert_uint_eq(syn->r.flags, want_syn);
	ck_assert_uint_eq(syn->tos & 3, 0); /* only a program or the CC marks it */
	struct tcp_repr sa =
	    fx_repr(FX_PEER_ISN, syn->r.seq + 1, TCP_SYN | TCP_ACK | sa_flags, 65535);
	fx_send(&f, &sa, NULL, 0);
	ck_assert_int_eq(c->state, TCP_ESTABLISHED);
	ck_assert_int_eq((c->flags & TCB_F_ECN) != 0, want_ecn);
	fx_fini(&f);
}

START_TEST(active_asks_only_with_1)
{
	active(cfg_ecn1, TCP_SYN | TCP_ECE | TCP_CWR, TCP_ECE, true);
	/* RFC 3168 §6.1.1: a SYN-ACK with ECE and CWR is not an ECN-setup SYN-ACK */
	active(cfg_ecn1, TCP_SYN | TCP_ECE | TCP_CWR, TCP_ECE | TCP_CWR, false);
	active(NULL, TCP_SYN, TCP_ECE, false);
	active(cfg_ecn0, TCP_SYN, TCP_ECE, false);
}
END_TEST

static void cfg_ecn3(struct tcp_config *c)
{
	c->ecn_set = true;
	c->ecn = 3;
}

START_TEST(setting_range)
{
	struct tcp_config c = {0};
	c.xmit = fx_xmit;
	cfg_ecn3(&c);
	struct tcp *t = NULL;
	ck_assert_int_eq(tcp_create(&c, &t), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_ecn");
	TCase *tc = tcase_create("ecn");
	tcase_add_test(tc, passive_default_agrees);
	tcase_add_test(tc, passive_off_and_on);
	tcase_add_test(tc, active_asks_only_with_1);
	tcase_add_test(tc, setting_range);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
