/* ICMP errors and SYN floods against TCP (issue 30): a frag-needed quoting
 * a sequence number not in flight changes nothing (RFC 5927 §4.1, Linux
 * OutOfWindowIcmps), one in flight lowers the MSS and resends in smaller
 * segments, a listener's request takes no path MTU, and a listener answers
 * SYNs with cookies while its owner reports pressure. */
#include "test_tcp_fixture.h"

#include "check_main.h"

static uint8_t big[20000];

static struct tcb *sending(struct fx *f)
{
	struct tcb *c = fx_active(f, true);
	ck_assert_uint_eq(c->mss, 1448);
	ck_assert_int_eq(tcp_send(f->tcp, c, big, sizeof(big), f->now), (int32_t)sizeof(big));
	tcp_output(f->tcp, c);
	f->next = f->nout;
	ck_assert(c->send.max != c->send.una);
	return c;
}

START_TEST(out_of_window_quote_ignored)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = sending(&f);
	uint32_t una = c->send.una, max = c->send.max;
	/* blind guesses: before snd_una, at snd_max, far away */
	uint32_t guesses[] = {una - 1, max, max + 100000, una + 0x80000000u};
	for (unsigned i = 0; i < 4; i++)
		ck_assert(!tcp_icmp(f.tcp, f.now, &c->t, guesses[i], 552, false));
	ck_assert_uint_eq(c->mss, 1448);
	ck_assert_uint_eq(c->pmtu, 1500);
	fx_none(&f);
	ck_assert_uint_eq(f.tcp->stats.icmp_out_of_window, 4);
	struct skops_tcp_counters k;
	tcp_get_counters(f.tcp, &k);
	ck_assert_uint_eq(k.out_of_window_icmps, 4);
	/* unreachable errors likewise leave the connection alone */
	ck_assert(!tcp_icmp(f.tcp, f.now, &c->t, max + 1, 0, true));
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	fx_fini(&f);
}
END_TEST

START_TEST(in_window_quote_lowers_mss_and_resends)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = sending(&f);
	uint32_t una = c->send.una;
	/* a quote of the second segment in flight: accepted */
	ck_assert(tcp_icmp(f.tcp, f.now, &c->t, una + 1448, 552, false));
	ck_assert_uint_eq(c->pmtu, 552);
	ck_assert_uint_eq(c->mss, 552 - 40 - 12);
	/* RFC 1191 §6.4: resent from snd_una in segments that fit */
	struct fx_seg *s = fx_pop(&f);
	ck_assert_uint_eq(s->r.seq, una);
	ck_assert_uint_le(s->len, 500);
	ck_assert_uint_gt(s->len, 0);
	while (f.next < f.nout)
		ck_assert_uint_le(fx_pop(&f)->len, 500);
	ck_assert_uint_eq(f.tcp->stats.icmp_out_of_window, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(request_takes_no_pmtu)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f.tcp, l, any, 80), 0);
	ck_assert_int_eq(tcp_listen(f.tcp, l, 16, f.now), 0);
	l->sd = 0;
	struct tcp_repr syn = fx_repr(5000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	/* the SYN-ACK's own sequence number, but a request (Linux
	 * tcp_req_err): the path MTU stays */
	ck_assert(!tcp_icmp(f.tcp, f.now, &f.t, sa->r.seq, 552, false));
	fx_fini(&f);
}
END_TEST

/* A path whose MTU another connection's ICMP lowered: the route says so,
 * and the network layer refuses larger segments (-EMSGSIZE). */
static uint32_t path_mtu = 1500;

static int small_path_xmit(void *arg, const struct tcp_tuple *t, uint8_t tos,
			   const struct tcp_repr *r, const struct tcp_iov *d)
{
	if (tcp_repr_hdr_len(r) + d->n[0] + d->n[1] + 20 > path_mtu)
		return -EMSGSIZE;
	return fx_xmit(arg, t, tos, r, d);
}

static int small_path_route(void *arg, uint8_t family, const void *dst, void *src, uint32_t *mtu)
{
	int rc = fx_route(arg, family, dst, src, mtu);
	if (mtu)
		*mtu = path_mtu;
	return rc;
}

static void small_path(struct tcp_config *c)
{
	c->xmit = small_path_xmit;
	c->route = small_path_route;
}

START_TEST(refused_for_size_resyncs_mss)
{
	struct fx f;
	path_mtu = 1500;
	fx_init_cfg(&f, small_path);
	struct tcb *c = fx_active(&f, true);
	ck_assert_uint_eq(c->mss, 1448);
	/* the route's MTU drops without an ICMP for this connection */
	path_mtu = 600;
	ck_assert_int_eq(tcp_send(f.tcp, c, big, sizeof(big), f.now), (int32_t)sizeof(big));
	tcp_output(f.tcp, c);
	ck_assert_uint_eq(f.tcp->stats.out_err, 1); /* the one 1448-byte segment */
	ck_assert_uint_eq(c->pmtu, 600);
	ck_assert_uint_eq(c->mss, 600 - 40 - 12);
	/* what went out fits; the refused segment is resent in ones that do
	 * (the peer acknowledges only what arrived in order) */
	uint32_t rcv = c->send.una;
	for (unsigned i = 0; i < 400 && c->send.una != c->send.max; i++) {
		while (f.next < f.nout) {
			struct fx_seg *g = fx_pop(&f);
			ck_assert_uint_le(g->len, 548);
			if (SEQ_LEQ(g->r.seq, rcv) && SEQ_GT(g->r.seq + g->len, rcv))
				rcv = g->r.seq + g->len;
		}
		f.nout = f.next = 0;
		fx_at(&f, f.now + 50 * MS);
		struct tcp_repr a = fx_repr(f.peer_seq, rcv, TCP_ACK, 65535);
		a.ts = true;
		a.tsval = (uint32_t)(f.now / MS);
		a.tsecr = c->recv.ts_recent;
		fx_send(&f, &a, NULL, 0);
		tcp_output(f.tcp, c);
	}
	ck_assert_uint_eq(c->send.una, c->send.max);
	ck_assert_uint_eq(c->send.una - c->send.iss - 1, sizeof(big));
	fx_fini(&f);
}
END_TEST

static bool pressure;

static bool fx_pressure(void *arg, uint8_t family)
{
	(void)arg;
	(void)family;
	return pressure;
}

static void with_pressure(struct tcp_config *c)
{
	c->syn_pressure = fx_pressure;
}

START_TEST(syn_cookies_under_neighbour_pressure)
{
	struct fx f;
	fx_init_cfg(&f, with_pressure);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f.tcp, l, any, 80), 0);
	ck_assert_int_eq(tcp_listen(f.tcp, l, 128, f.now), 0);
	l->sd = 0;
	/* no pressure: a request on the SYN queue */
	pressure = false;
	f.t.rport = 6000;
	struct tcp_repr syn = fx_repr(5000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	ck_assert_uint_eq(l->nq_syn, 1);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 0);
	/* pressure: a cookie, no state, though the queue has room */
	pressure = true;
	f.t.rport = 6001;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags & (TCP_SYN | TCP_ACK), TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(l->nq_syn, 1);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 1);
	/* the cookie's ACK makes the connection */
	struct tcp_repr ack = fx_repr(5001, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &ack, NULL, 0);
	ck_assert_uint_eq(f.tcp->stats.syncookies_recv, 1);
	fx_fini(&f);
}
END_TEST

static Suite *tcp_icmp_suite(void)
{
	Suite *s = suite_create("tcp_icmp");
	TCase *tc = tcase_create("tcp_icmp");
	tcase_add_test(tc, out_of_window_quote_ignored);
	tcase_add_test(tc, in_window_quote_lowers_mss_and_resends);
	tcase_add_test(tc, request_takes_no_pmtu);
	tcase_add_test(tc, refused_for_size_resyncs_mss);
	tcase_add_test(tc, syn_cookies_under_neighbour_pressure);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(tcp_icmp_suite)
