/* tcp_timer: exact retransmission timings. SYN at the 1 s default RTO,
 * linear for syn_linear_timeouts retries then doubling (Linux ≥ 6.x), the
 * SYN-ACK doubling, data RTO per RFC 6298 with backoff and Karn, FIN
 * retransmission, delayed ACK, persist probes, keepalive, the wheel's next
 * deadline. */
#include "check_main.h"
#include "test_tcp_fixture.h"

static uint64_t next_tx(struct fx *f, uint64_t limit)
{
	/* Step the clock by the wheel's own deadline until a segment leaves. */
	unsigned before = f->nout;
	for (int i = 0; i < 100000 && f->nout == before; i++) {
		uint64_t d = tcp_next_deadline(f->tcp);
		if (d == UINT64_MAX || d > limit)
			break;
		fx_at(f, d > f->now ? d : f->now + MS);
	}
	return f->nout > before ? f->out[before].at : 0;
}

START_TEST(syn_retransmit_linear_then_doubling)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	tcp_open(f.tcp, AF_INET, &c);
	c->sd = 0;
	uint32_t dst = f.t.raddr.v4;
	uint64_t t0 = f.now;
	tcp_connect(f.tcp, c, &dst, 5000, f.now);
	fx_pop(&f);
	/* gaps 1,1,1,1,1 s (4 linear retries after the first RTO), then 2, 4 */
	static const uint64_t gaps[] = {1000, 1000, 1000, 1000, 1000, 2000};
	uint64_t at = t0;
	for (unsigned i = 0; i < 6; i++) {
		uint64_t tx = next_tx(&f, at + 100000 * MS);
		at += gaps[i] * MS;
		ck_assert_msg(tx == at, "SYN retransmission %u at %llu ms, want %llu", i + 1,
			      (unsigned long long)((tx - t0) / MS),
			      (unsigned long long)((at - t0) / MS));
		struct fx_seg *s = fx_pop(&f);
		ck_assert_uint_eq(s->r.flags, TCP_SYN);
		ck_assert_uint_eq(s->r.seq, c->send.iss);
	}
	ck_assert_uint_eq(c->syn_tx, 7);
	ck_assert_uint_eq(c->syn_gaps_ms[5], 2000);
	/* tcp_syn_retries = 6: the next timeout (4 s later) gives up */
	fx_at(&f, at + 3999 * MS);
	ck_assert_uint_eq(c->state, TCP_SYN_SENT);
	fx_at(&f, at + 4000 * MS);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, ETIMEDOUT);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

static void lin0(struct tcp_config *c)
{
	c->syn_linear_timeouts = UINT32_MAX; /* none: Linux 4.13 */
}

START_TEST(syn_retransmit_doubling_when_not_linear)
{
	struct fx f;
	fx_init_cfg(&f, lin0);
	struct tcb *c;
	tcp_open(f.tcp, AF_INET, &c);
	uint32_t dst = f.t.raddr.v4;
	uint64_t t0 = f.now;
	tcp_connect(f.tcp, c, &dst, 5000, f.now);
	fx_pop(&f);
	uint64_t want[] = {1000, 3000, 7000};
	for (int i = 0; i < 3; i++) {
		uint64_t tx = next_tx(&f, t0 + 100000 * MS);
		ck_assert_uint_eq((tx - t0) / MS, want[i]);
		fx_pop(&f);
	}
	fx_fini(&f);
}
END_TEST

START_TEST(synack_retransmit_doubles)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	uint64_t t0 = f.now;
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	uint64_t want[] = {1000, 3000, 7000, 15000, 31000};
	for (int i = 0; i < 5; i++) {
		uint64_t tx = next_tx(&f, t0 + 100000 * MS);
		ck_assert_uint_eq((tx - t0) / MS, want[i]);
		ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK);
	}
	/* tcp_synack_retries = 5: then the request is dropped */
	fx_at(&f, t0 + 63000 * MS);
	ck_assert_uint_eq(l->nq_syn, 0);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1);
	fx_fini(&f);
}
END_TEST

START_TEST(data_rto_backoff_and_karn)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL); /* SYN-ACK RTT 10 ms */
	ck_assert_uint_eq(c->rtt.srtt_us8 >> 3, 10000);
	/* RTO = srtt + max(4·rttvar, rto_min) = 10 + 200 ms (Linux floor) */
	ck_assert_uint_eq(c->rtt.rto_us, 210000);
	uint64_t t0 = f.now;
	ck_assert_int_eq(tcp_send(f.tcp, c, "hello", 5, f.now), 5);
	struct fx_seg *d = fx_pop(&f);
	ck_assert_uint_eq(d->len, 5);
	ck_assert_mem_eq(d->data, "hello", 5);
	uint64_t want[] = {210, 630, 1470};
	for (int i = 0; i < 3; i++) {
		uint64_t tx = next_tx(&f, t0 + 100000 * MS);
		ck_assert_uint_eq((tx - t0) / MS, want[i]);
		struct fx_seg *r = fx_pop(&f);
		ck_assert_uint_eq(r->r.seq, d->r.seq);
		ck_assert_uint_eq(r->len, 5);
	}
	ck_assert_uint_eq(c->cnt.total_retrans, 3);
	ck_assert_uint_eq(c->cc.cwnd, 1);
	/* the ACK of a retransmitted segment gives no RTT sample (Karn) */
	f.now += 5 * MS;
	fx_ack_all(&f, c, 1000);
	ck_assert_uint_eq(c->rtt.srtt_us8 >> 3, 10000);
	ck_assert_uint_eq(c->rtx.retransmits, 0);
	ck_assert_uint_eq(tcp_next_deadline(f.tcp), UINT64_MAX);
	fx_fini(&f);
}
END_TEST

START_TEST(fin_retransmitted)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	uint64_t t0 = f.now;
	tcp_shutdown(f.tcp, c, false, true, f.now);
	struct fx_seg *fin = fx_pop(&f);
	uint64_t tx = next_tx(&f, t0 + 10000 * MS);
	ck_assert_uint_eq((tx - t0) / MS, 210);
	struct fx_seg *r = fx_pop(&f);
	ck_assert_uint_eq(r->r.flags, TCP_FIN | TCP_ACK);
	ck_assert_uint_eq(r->r.seq, fin->r.seq);
	fx_fini(&f);
}
END_TEST

START_TEST(delayed_ack)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint8_t buf[1448];
	memset(buf, 'a', sizeof(buf));
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 512);
	d.ts = true;
	d.tsval = 200;
	uint64_t t0 = f.now;
	fx_send(&f, &d, buf, 100);
	fx_none(&f); /* one small segment: delayed */
	ck_assert_uint_eq(tcp_next_deadline(f.tcp), t0 + 40 * MS);
	fx_at(&f, t0 + 39 * MS);
	fx_none(&f);
	fx_at(&f, t0 + 40 * MS);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 100);
	ck_assert_uint_eq(a->r.tsecr, 200);
	/* two full segments: ACK at once (RFC 5681 §4.2) */
	d.seq = f.peer_seq + 100;
	fx_send(&f, &d, buf, 1448);
	fx_none(&f);
	d.seq += 1448;
	fx_send(&f, &d, buf, 1448);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 100 + 2 * 1448);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(zero_window_persist)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	/* the peer closes its window */
	struct tcp_repr z = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 0);
	fx_send(&f, &z, NULL, 0);
	ck_assert_uint_eq(c->send.wnd, 0);
	uint64_t t0 = f.now;
	ck_assert_int_eq(tcp_send(f.tcp, c, "data", 4, f.now), 4);
	fx_none(&f);
	/* persist probes: an old sequence number, no data, backing off */
	uint64_t want[] = {210, 630};
	for (int i = 0; i < 2; i++) {
		uint64_t tx = next_tx(&f, t0 + 100000 * MS);
		ck_assert_uint_eq((tx - t0) / MS, want[i]);
		struct fx_seg *p = fx_pop(&f);
		ck_assert_uint_eq(p->r.seq, c->send.una - 1);
		ck_assert_uint_eq(p->len, 0);
	}
	/* the window opens: the data goes */
	struct tcp_repr o = fx_repr(f.peer_seq, c->send.una, TCP_ACK, 1000);
	fx_send(&f, &o, NULL, 0);
	struct fx_seg *d = fx_pop(&f);
	ck_assert_uint_eq(d->len, 4);
	ck_assert_mem_eq(d->data, "data", 4);
	fx_fini(&f);
}
END_TEST

START_TEST(keepalive)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	int one = 1, v = 10;
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one), false), 0);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 4 /* TCP_KEEPIDLE */, &v, sizeof(v), false), 0);
	v = 2;
	ck_assert_int_eq(tcp_setsockopt(c, 6, 5 /* TCP_KEEPINTVL */, &v, sizeof(v), false), 0);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 6 /* TCP_KEEPCNT */, &v, sizeof(v), false), 0);
	uint64_t t0 = f.now;
	uint64_t tx = next_tx(&f, t0 + 100000 * MS);
	ck_assert_uint_eq((tx - t0) / MS, 10000);
	struct fx_seg *p = fx_pop(&f);
	ck_assert_uint_eq(p->r.seq, c->send.una - 1);
	tx = next_tx(&f, t0 + 100000 * MS);
	ck_assert_uint_eq((tx - t0) / MS, 12000);
	fx_pop(&f);
	/* no answer to 2 probes: reset */
	tx = next_tx(&f, t0 + 100000 * MS);
	ck_assert_uint_eq((tx - t0) / MS, 14000);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_RST | TCP_ACK);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, ETIMEDOUT);
	fx_fini(&f);
}
END_TEST

START_TEST(wheel_far_deadline)
{
	/* A deadline beyond one revolution of the wheel (4.096 s) still fires
	 * exactly, also when the clock jumps over many revolutions. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	uint64_t t0 = f.now;
	tcp_timer_set(f.tcp, c, TCP_T_KEEP, t0 + 10000 * MS);
	c->flags |= TCB_F_KEEPALIVE;
	c->opt.keep_cnt = 5;
	ck_assert_uint_eq(tcp_next_deadline(f.tcp), t0 + 10000 * MS);
	fx_at(&f, t0 + 4096 * MS);
	fx_at(&f, t0 + 9999 * MS);
	fx_none(&f);
	fx_at(&f, t0 + 60000 * MS);
	ck_assert_uint_eq(fx_pop(&f)->r.seq, c->send.una - 1);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_timer");
	TCase *tc = tcase_create("timers");
	tcase_add_test(tc, syn_retransmit_linear_then_doubling);
	tcase_add_test(tc, syn_retransmit_doubling_when_not_linear);
	tcase_add_test(tc, synack_retransmit_doubles);
	tcase_add_test(tc, data_rto_backoff_and_karn);
	tcase_add_test(tc, fin_retransmitted);
	tcase_add_test(tc, delayed_ack);
	tcase_add_test(tc, zero_window_persist);
	tcase_add_test(tc, keepalive);
	tcase_add_test(tc, wheel_far_deadline);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
