/* tcp_input: handshakes (passive, active, simultaneous open), every state
 * transition of RFC 9293 §3.3.2 including simultaneous close and TIME_WAIT
 * (with reuse), RST cases with the RFC 5961 checks, SYN in a synchronised
 * state, PAWS, unknown tuples. Each test feeds reprs at explicit times and
 * asserts the exact reply or none. */
#include "check_main.h"
#include "test_tcp_fixture.h"

START_TEST(passive_handshake_options)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	uint32_t any = 0;
	ck_assert_int_eq(tcp_bind(f.tcp, l, &any, 80), 0);
	ck_assert_int_eq(tcp_listen(f.tcp, l, 4, f.now), 0);
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	syn.mss = 1460;
	syn.wscale = 7;
	syn.sack_perm = true;
	syn.ts = true;
	syn.tsval = 77;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.ack, 1001);
	ck_assert_uint_eq(sa->r.mss, 1460);
	ck_assert_int_eq(sa->r.wscale, 7);
	ck_assert(sa->r.sack_perm);
	ck_assert(sa->r.ts);
	ck_assert_uint_eq(sa->r.tsecr, 77);
	/* Linux's default SYN-ACK window with timestamps: 45 × 1448 */
	ck_assert_uint_eq(sa->r.window, 65160);
	ck_assert_ptr_null(tcp_accept(f.tcp, l));
	/* final ACK */
	struct tcp_repr ack = fx_repr(1001, sa->r.seq + 1, TCP_ACK, 1000);
	ack.ts = true;
	ack.tsval = 78;
	ack.tsecr = sa->r.tsval;
	f.now += 5 * MS;
	fx_send(&f, &ack, NULL, 0);
	fx_none(&f);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(c->send.wnd, 1000u << 7);
	ck_assert_uint_eq(c->mss, 1448);
	ck_assert(c->flags & TCB_F_TS);
	ck_assert(c->flags & TCB_F_SACK);
	ck_assert_uint_eq(c->rtt.srtt_us8 >> 3, 5000);
	ck_assert_uint_eq(c->cc.cwnd, 10);
	fx_fini(&f);
}
END_TEST

START_TEST(passive_no_options)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert(!(c->flags & (TCB_F_TS | TCB_F_SACK | TCB_F_WS)));
	ck_assert_uint_eq(c->mss, 536); /* RFC 9293 §3.7.1 default without the option */
	ck_assert_uint_eq(c->send.wnd, 65535);
	fx_fini(&f);
}
END_TEST

START_TEST(active_handshake)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	uint32_t dst = f.t.raddr.v4;
	ck_assert_int_eq(tcp_connect(f.tcp, c, &dst, 5000, f.now), -EINPROGRESS);
	ck_assert_uint_eq(c->state, TCP_SYN_SENT);
	ck_assert_uint_ge(c->t.lport, 32768);
	ck_assert_uint_le(c->t.lport, 60999);
	ck_assert_uint_eq(c->t.laddr.v4, f.t.laddr.v4);
	f.t = c->t;
	struct fx_seg *syn = fx_pop(&f);
	ck_assert_uint_eq(syn->r.flags, TCP_SYN);
	ck_assert_uint_eq(syn->r.seq, c->send.iss);
	ck_assert_uint_eq(syn->r.window, 64240); /* 44 × 1460, as Linux */
	ck_assert_uint_eq(syn->r.mss, 1460);
	ck_assert_int_eq(syn->r.wscale, 7);
	ck_assert(syn->r.ts && syn->r.sack_perm);
	/* a SYN-ACK with a wrong ACK gets a reset and changes nothing */
	struct tcp_repr bad = fx_repr(5000, c->send.iss + 7, TCP_SYN | TCP_ACK, 1000);
	fx_send(&f, &bad, NULL, 0);
	struct fx_seg *rst = fx_pop(&f);
	ck_assert_uint_eq(rst->r.flags, TCP_RST);
	ck_assert_uint_eq(rst->r.seq, c->send.iss + 7);
	ck_assert_uint_eq(c->state, TCP_SYN_SENT);
	struct tcp_repr sa = fx_repr(5000, c->send.iss + 1, TCP_SYN | TCP_ACK, 1000);
	sa.mss = 1400;
	fx_send(&f, &sa, NULL, 0);
	struct fx_seg *ack = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(ack->r.flags, TCP_ACK);
	ck_assert_uint_eq(ack->r.seq, c->send.iss + 1);
	ck_assert_uint_eq(ack->r.ack, 5001);
	ck_assert(!ack->r.ts); /* not negotiated */
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(c->mss, 1400);
	ck_assert(!(c->flags & TCB_F_WS));
	ck_assert_uint_eq(tcp_events(c) & SKOPS_EV_OUT, SKOPS_EV_OUT);
	fx_fini(&f);
}
END_TEST

START_TEST(active_refused)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	c->sd = 0;
	uint32_t dst = f.t.raddr.v4;
	tcp_connect(f.tcp, c, &dst, 5000, f.now);
	f.t = c->t;
	fx_pop(&f);
	/* RST without an acceptable ACK is ignored (RFC 9293 §3.10.7.3) */
	struct tcp_repr r = fx_repr(0, c->send.iss + 5, TCP_RST | TCP_ACK, 0);
	fx_send(&f, &r, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_SYN_SENT);
	r.ack = c->send.iss + 1;
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, ECONNREFUSED);
	ck_assert(tcp_events(c) & SKOPS_EV_ERR);
	fx_fini(&f);
}
END_TEST

START_TEST(simultaneous_open)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	uint32_t dst = f.t.raddr.v4;
	tcp_connect(f.tcp, c, &dst, 5000, f.now);
	f.t = c->t;
	fx_pop(&f);
	struct tcp_repr syn = fx_repr(7000, 0, TCP_SYN, 2000);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.seq, c->send.iss);
	ck_assert_uint_eq(sa->r.ack, 7001);
	ck_assert_uint_eq(c->state, TCP_SYN_RECEIVED);
	/* the peer's SYN-ACK completes it */
	struct tcp_repr psa = fx_repr(7000, c->send.iss + 1, TCP_SYN | TCP_ACK, 2000);
	fx_send(&f, &psa, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(c->send.una, c->send.iss + 1);
	fx_fini(&f);
}
END_TEST

START_TEST(active_close_to_time_wait)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_int_eq(tcp_shutdown(f.tcp, c, false, true, f.now), 0);
	struct fx_seg *fin = fx_pop(&f);
	ck_assert_uint_eq(fin->r.flags, TCP_FIN | TCP_ACK);
	ck_assert_uint_eq(c->state, TCP_FIN_WAIT_1);
	fx_ack_all(&f, c, 1000);
	ck_assert_uint_eq(c->state, TCP_FIN_WAIT_2);
	fx_none(&f);
	/* we can still receive in FIN_WAIT_2 (half-close) */
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &d, "bye", 3);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 4);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	char buf[8];
	ck_assert_int_eq(tcp_recv(f.tcp, c, buf, sizeof(buf), false, f.now), 3);
	ck_assert_int_eq(tcp_recv(f.tcp, c, buf, sizeof(buf), false, f.now), 0);
	/* a retransmitted FIN is ACKed again */
	fx_send(&f, &d, "bye", 3);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 4);
	/* 2 MSL (60 s) later it is closed */
	uint64_t t0 = f.now;
	fx_at(&f, t0 + 59999 * MS);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	fx_at(&f, t0 + 60000 * MS);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(passive_close)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr fin = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 1);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	ck_assert(tcp_events(c) & SKOPS_EV_RDHUP);
	/* we may still send in CLOSE_WAIT */
	ck_assert_int_eq(tcp_send(f.tcp, c, "x", 1, f.now), 1);
	struct fx_seg *d = fx_pop(&f);
	ck_assert_uint_eq(d->len, 1);
	tcp_close(f.tcp, c, f.now);
	struct fx_seg *ourfin = fx_pop(&f);
	ck_assert(ourfin->r.flags & TCP_FIN);
	ck_assert_uint_eq(ourfin->r.seq, d->r.seq + 1);
	ck_assert_uint_eq(c->state, TCP_LAST_ACK);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 2);
	struct tcp_repr ack = fx_repr(f.peer_seq + 1, ourfin->r.seq + 1, TCP_ACK, 1000);
	fx_send(&f, &ack, NULL, 0);
	/* orphaned and done: released */
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(simultaneous_close)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	tcp_shutdown(f.tcp, c, false, true, f.now);
	struct fx_seg *ourfin = fx_pop(&f);
	/* their FIN crosses ours: it does not ACK our FIN */
	struct tcp_repr fin = fx_repr(f.peer_seq, ourfin->r.seq, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_CLOSING);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 1);
	struct tcp_repr ack = fx_repr(f.peer_seq + 1, ourfin->r.seq + 1, TCP_ACK, 1000);
	fx_send(&f, &ack, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	fx_fini(&f);
}
END_TEST

START_TEST(fin_wait_1_fin_and_ack_together)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	tcp_shutdown(f.tcp, c, false, true, f.now);
	struct fx_seg *ourfin = fx_pop(&f);
	struct tcp_repr fa = fx_repr(f.peer_seq, ourfin->r.seq + 1, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fa, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 1);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(rst_rfc5961)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	/* outside the window: silently dropped */
	struct tcp_repr r = fx_repr(f.peer_seq + 1000000, 0, TCP_RST, 0);
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	/* in the window but not rcv_nxt: challenge ACK */
	r.seq = f.peer_seq + 10;
	fx_send(&f, &r, NULL, 0);
	struct fx_seg *ch = fx_pop(&f);
	ck_assert_uint_eq(ch->r.flags, TCP_ACK);
	ck_assert_uint_eq(ch->r.ack, f.peer_seq);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	/* exactly rcv_nxt: reset */
	r.seq = f.peer_seq;
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, ECONNRESET);
	char b[4];
	ck_assert_int_eq(tcp_recv(f.tcp, c, b, 4, false, f.now), -ECONNRESET);
	ck_assert_int_eq(tcp_send(f.tcp, c, b, 4, f.now), -ECONNRESET);
	fx_fini(&f);
}
END_TEST

START_TEST(syn_in_established_challenge)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr s = fx_repr(f.peer_seq + 5, 0, TCP_SYN, 1000);
	fx_send(&f, &s, NULL, 0);
	struct fx_seg *ch = fx_pop(&f);
	ck_assert_uint_eq(ch->r.flags, TCP_ACK);
	ck_assert_uint_eq(ch->r.ack, f.peer_seq);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	fx_fini(&f);
}
END_TEST

START_TEST(syn_received_rst_and_dup_syn)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	/* the same SYN again: the same SYN-ACK again */
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa2 = fx_pop(&f);
	ck_assert_uint_eq(sa2->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa2->r.seq, sa->r.seq);
	ck_assert_uint_eq(l->nq_syn, 1);
	/* an ACK for something else: reset, request stays */
	struct tcp_repr bad = fx_repr(1001, sa->r.seq + 100, TCP_ACK, 100);
	fx_send(&f, &bad, NULL, 0);
	struct fx_seg *rst = fx_pop(&f);
	ck_assert_uint_eq(rst->r.flags, TCP_RST);
	ck_assert_uint_eq(rst->r.seq, sa->r.seq + 100);
	/* RST at rcv_nxt: the request goes, back to LISTEN */
	struct tcp_repr r = fx_repr(1001, 0, TCP_RST, 0);
	fx_send(&f, &r, NULL, 0);
	ck_assert_uint_eq(l->nq_syn, 0);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1);
	fx_fini(&f);
}
END_TEST

START_TEST(listen_ack_gets_rst_and_unknown_tuple)
{
	struct fx f;
	fx_init(&f);
	/* nothing listening: RST|ACK for a SYN */
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, "ab", 2);
	struct fx_seg *r = fx_pop(&f);
	ck_assert_uint_eq(r->r.flags, TCP_RST | TCP_ACK);
	ck_assert_uint_eq(r->r.seq, 0);
	ck_assert_uint_eq(r->r.ack, 1003);
	/* an ACK: RST with seq = its ack */
	struct tcp_repr a = fx_repr(1000, 4242, TCP_ACK, 100);
	fx_send(&f, &a, NULL, 0);
	r = fx_pop(&f);
	ck_assert_uint_eq(r->r.flags, TCP_RST);
	ck_assert_uint_eq(r->r.seq, 4242);
	/* a RST: nothing */
	struct tcp_repr rr = fx_repr(1000, 0, TCP_RST, 0);
	fx_send(&f, &rr, NULL, 0);
	fx_none(&f);
	/* a listener answers an ACK with RST too */
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	fx_send(&f, &a, NULL, 0);
	r = fx_pop(&f);
	ck_assert_uint_eq(r->r.flags, TCP_RST);
	fx_fini(&f);
}
END_TEST

START_TEST(paws)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint32_t recent = c->recv.ts_recent;
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 512);
	d.ts = true;
	d.tsval = recent - 1; /* older than ts_recent: an old duplicate */
	d.tsecr = 0;
	fx_send(&f, &d, "old", 3);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, f.peer_seq);
	ck_assert_uint_eq(c->rcv.len, 0);
	/* a newer timestamp is taken and becomes ts_recent */
	d.tsval = recent + 5;
	fx_send(&f, &d, "new", 3);
	ck_assert_uint_eq(c->rcv.len, 3);
	ck_assert_uint_eq(c->recv.ts_recent, recent + 5);
	/* sequence numbers wrap, timestamps compare modulo 2^32 */
	c->recv.ts_recent = 0xfffffff0u;
	d.seq = f.peer_seq + 3;
	d.tsval = 5;
	fx_send(&f, &d, "wrp", 3);
	ck_assert_uint_eq(c->rcv.len, 6);
	fx_fini(&f);
}
END_TEST

START_TEST(time_wait_reuse)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	struct tcb *c = fx_passive(&f, false, &l);
	/* peer closes first, we close: we end in LAST_ACK... make us the
	 * active closer instead so that we hold TIME_WAIT */
	tcp_close(f.tcp, c, f.now);
	struct fx_seg *fin = fx_pop(&f);
	struct tcp_repr fa = fx_repr(f.peer_seq, fin->r.seq + 1, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fa, NULL, 0);
	fx_pop(&f);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	/* an old SYN (sequence not above rcv_nxt) gets an ACK, no new connection */
	struct tcp_repr syn = fx_repr(f.peer_seq - 10, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	/* a SYN above rcv_nxt starts a new incarnation (RFC 9293 §3.10.7.4) */
	syn.seq = f.peer_seq + 100000;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.ack, f.peer_seq + 100001);
	ck_assert_uint_eq(l->nq_syn, 1);
	fx_fini(&f);
}
END_TEST

START_TEST(close_with_unread_data_resets)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "unread", 6);
	f.next = f.nout; /* ignore the delayed-ACK bookkeeping */
	uint32_t nxt = c->send.nxt;
	tcp_close(f.tcp, c, f.now);
	struct fx_seg *r = fx_pop(&f);
	ck_assert_uint_eq(r->r.flags, TCP_RST | TCP_ACK);
	ck_assert_uint_eq(r->r.seq, nxt);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1);
	fx_fini(&f);
}
END_TEST

START_TEST(backlog_limit)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 2, f.now);
	for (uint16_t p = 0; p < 3; p++) {
		f.t.rport = (uint16_t)(6000 + p);
		struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
		fx_send(&f, &syn, NULL, 0);
	}
	/* the third SYN gets a SYN cookie (tcp_syncookies 1): a SYN-ACK and
	 * nothing kept (test_tcp_syncookie.c) */
	ck_assert_uint_eq(f.nout, 3);
	ck_assert_uint_eq(l->nq_syn, 2);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 3);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 1);
	/* closing the listener frees the requests */
	tcp_close(f.tcp, l, f.now);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 0);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_input");
	TCase *tc = tcase_create("states");
	tcase_add_test(tc, passive_handshake_options);
	tcase_add_test(tc, passive_no_options);
	tcase_add_test(tc, active_handshake);
	tcase_add_test(tc, active_refused);
	tcase_add_test(tc, simultaneous_open);
	tcase_add_test(tc, active_close_to_time_wait);
	tcase_add_test(tc, passive_close);
	tcase_add_test(tc, simultaneous_close);
	tcase_add_test(tc, fin_wait_1_fin_and_ack_together);
	tcase_add_test(tc, rst_rfc5961);
	tcase_add_test(tc, syn_in_established_challenge);
	tcase_add_test(tc, syn_received_rst_and_dup_syn);
	tcase_add_test(tc, listen_ack_gets_rst_and_unknown_tuple);
	tcase_add_test(tc, paws);
	tcase_add_test(tc, time_wait_reuse);
	tcase_add_test(tc, close_with_unread_data_resets);
	tcase_add_test(tc, backlog_limit);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
