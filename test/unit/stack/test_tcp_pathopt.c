/* tcp_pathopt: the options Linux 6.1's bpf_setsockopt added that act on the
 * path: TCP_THIN_LINEAR_TIMEOUTS (the RTO sequence), IPV6_AUTOFLOWLABEL and
 * SO_TXREHASH (the flow label on every segment, changed by an RTO),
 * SO_BINDTODEVICE / SO_BINDTOIFINDEX (the stack's one port, "skops0" index
 * 1 here) and SO_REUSEPORT (port sharing, SYNs spread by 4-tuple). */
#include "test_tcp_fixture.h"

#define SOL_TCP_	  6
#define SO_REUSEPORT_	  15
#define SO_BINDTODEVICE_  25
#define SO_BINDTOIFINDEX_ 62
#define SO_TXREHASH_	  74
#define TCP_THIN_LTO_	  16
#define IPV6_AUTOFLOW_	  70

static int set_int(struct tcb *c, int level, int opt, int v)
{
	return tcp_setsockopt(c, level, opt, &v, sizeof(v), false);
}

static int get_int(struct tcb *c, int level, int opt)
{
	int v = -12345;
	uint32_t len = sizeof(v);
	int rc = tcp_getsockopt(c, level, opt, &v, &len);
	ck_assert_msg(rc == 0, "getsockopt %d/%d: %d", level, opt, rc);
	return v;
}

/* The first retransmission after 'after', or fail. */
static uint64_t next_tx(struct fx *f, uint64_t limit)
{
	unsigned before = f->nout;
	for (uint64_t t = f->now + MS; t <= limit; t += MS) {
		fx_at(f, t);
		if (f->nout > before)
			return t;
	}
	ck_abort_msg("nothing sent before the limit");
	return 0;
}

/* The RTO times (ms after the first transmission) of n retransmissions of
 * what was sent last. */
static void rto_times(struct fx *f, uint64_t t0, uint64_t *out, int n)
{
	for (int i = 0; i < n; i++) {
		out[i] = (next_tx(f, t0 + 200000 * MS) - t0) / MS;
		while (f->next < f->nout)
			fx_pop(f);
	}
}

/* Linux tcp_retransmit_timer: a thin stream (fewer than 4 segments out,
 * past initial slow start) keeps its RTO for 6 retries, then doubles. */
START_TEST(thin_linear_timeouts)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_uint_eq(c->rtt.rto_us, 210000);
	ck_assert_int_eq(get_int(c, SOL_TCP_, TCP_THIN_LTO_), 0);
	ck_assert_int_eq(set_int(c, SOL_TCP_, TCP_THIN_LTO_, 2), -EINVAL);
	ck_assert_int_eq(set_int(c, SOL_TCP_, TCP_THIN_LTO_, 1), 0);
	ck_assert_int_eq(get_int(c, SOL_TCP_, TCP_THIN_LTO_), 1);
	uint64_t t0 = f.now;
	ck_assert_int_eq(tcp_send(f.tcp, c, "hello", 5, f.now), 5);
	fx_pop(&f);
	uint64_t got[9];
	rto_times(&f, t0, got, 9);
	static const uint64_t want[9] = {210, 420, 630, 840, 1050, 1260, 1470, 1890, 2730};
	for (int i = 0; i < 9; i++)
		ck_assert_msg(got[i] == want[i], "retransmission %d at %llu ms, want %llu", i + 1,
			      (unsigned long long)got[i], (unsigned long long)want[i]);
	fx_fini(&f);
}
END_TEST

/* Four segments out is not thin: the RTO doubles from the first. */
START_TEST(thick_stream_backs_off)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_int_eq(set_int(c, SOL_TCP_, TCP_THIN_LTO_, 1), 0);
	static char buf[4 * 536];
	memset(buf, 'x', sizeof(buf));
	uint64_t t0 = f.now;
	ck_assert_int_eq(tcp_send(f.tcp, c, buf, sizeof(buf), f.now), (int)sizeof(buf));
	ck_assert_uint_eq(f.nout - f.next, 4);
	while (f.next < f.nout)
		fx_pop(&f);
	uint64_t got[3];
	rto_times(&f, t0, got, 3);
	ck_assert_uint_eq(got[0], 210);
	ck_assert_uint_eq(got[1], 630);
	ck_assert_uint_eq(got[2], 1470);
	fx_fini(&f);
}
END_TEST

/* IPV6_AUTOFLOWLABEL (on unless set): the label comes from the txhash, the
 * same on every segment; an RTO with SO_TXREHASH on draws a new one. */
START_TEST(flow_label_and_txrehash)
{
	struct fx f;
	fx_init(&f);
	fx_v6(&f, true, 0, 443);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET6, &c), 0);
	ck_assert_int_eq(get_int(c, SOL_IPV6, IPV6_AUTOFLOW_), 1);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_TXREHASH_), 1);
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_TXREHASH_, 2), -EINVAL);
	c->sd = 0;
	ck_assert_int_eq(tcp_connect(f.tcp, c, &f.t.raddr, 443, f.now), -EINPROGRESS);
	uint32_t l1 = fx_pop(&f)->r.ip6_flow;
	ck_assert_uint_ne(l1, 0);
	ck_assert_uint_le(l1, 0xfffff);
	/* the first SYN's RTO (1 s): a new hash, a new label */
	fx_at(&f, f.now + 1000 * MS);
	uint32_t l2 = fx_pop(&f)->r.ip6_flow;
	ck_assert_uint_ne(l2, 0);
	ck_assert_uint_ne(l2, l1);
	/* without SO_TXREHASH the label stays */
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_TXREHASH_, 0), 0);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_TXREHASH_), 0);
	fx_at(&f, f.now + 1000 * MS);
	ck_assert_uint_eq(fx_pop(&f)->r.ip6_flow, l2);
	/* -1 is the stack's default (net.core.txrehash 1) */
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_TXREHASH_, -1), 0);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_TXREHASH_), 1);
	/* off: no label */
	ck_assert_int_eq(set_int(c, SOL_IPV6, IPV6_AUTOFLOW_, 0), 0);
	ck_assert_int_eq(get_int(c, SOL_IPV6, IPV6_AUTOFLOW_), 0);
	fx_at(&f, f.now + 1000 * MS);
	ck_assert_uint_eq(fx_pop(&f)->r.ip6_flow, 0);
	fx_fini(&f);
}
END_TEST

/* IPv4 carries no flow label; IPV6_AUTOFLOWLABEL is an IPv6 socket's. */
START_TEST(flow_label_ipv4)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_active(&f, false);
	ck_assert_int_eq(set_int(c, SOL_IPV6, IPV6_AUTOFLOW_, 1), -ENOPROTOOPT);
	ck_assert_int_eq(tcp_send(f.tcp, c, "x", 1, f.now), 1);
	ck_assert_uint_eq(fx_pop(&f)->r.ip6_flow, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(bind_to_device)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_BINDTODEVICE_, "eth9", 5, false),
			 -ENODEV);
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_BINDTODEVICE_, "skops0", 7, false), 0);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_), 1);
	char name[16] = {0};
	uint32_t len = sizeof(name);
	ck_assert_int_eq(tcp_getsockopt(c, SOL_SOCKET, SO_BINDTODEVICE_, name, &len), 0);
	ck_assert_str_eq(name, "skops0");
	/* a name of more than IFNAMSIZ - 1 bytes is cut there, not refused */
	ck_assert_int_eq(
	    tcp_setsockopt(c, SOL_SOCKET, SO_BINDTODEVICE_, "skops0\0ignored-tail", 20, false), 0);
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_BINDTODEVICE_, "", 1, false), 0);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_), 0);
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_, -1), -EINVAL);
	/* any index is taken (Linux does not look it up); another port's
	 * socket cannot reach the peer through ours */
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_, 7), 0);
	ck_assert_int_eq(get_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_), 7);
	ck_assert_int_eq(tcp_connect(f.tcp, c, &f.t.raddr, f.t.rport, f.now), -ENETUNREACH);
	fx_none(&f);
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_, 1), 0);
	ck_assert_int_eq(tcp_connect(f.tcp, c, &f.t.raddr, f.t.rport, f.now), -EINPROGRESS);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN);
	fx_fini(&f);
}
END_TEST

/* A listener bound to another port hears no SYN (the peer gets a reset);
 * an established connection moved to another port neither sends nor
 * receives. */
START_TEST(bound_device_receive)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	ck_assert_int_eq(set_int(l, SOL_SOCKET, SO_BINDTOIFINDEX_, 3), 0);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f.tcp, l, any, 80), 0);
	ck_assert_int_eq(tcp_listen(f.tcp, l, 16, f.now), 0);
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_RST | TCP_ACK);
	ck_assert_int_eq(set_int(l, SOL_SOCKET, SO_BINDTOIFINDEX_, 1), 0);
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK);
	fx_fini(&f);

	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_int_eq(set_int(c, SOL_SOCKET, SO_BINDTOIFINDEX_, 3), 0);
	ck_assert_int_eq(tcp_send(f.tcp, c, "x", 1, f.now), 1);
	fx_none(&f);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.una, TCP_ACK, 65535);
	fx_send(&f, &d, "y", 1);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_RST);
	ck_assert_uint_eq(c->cnt.bytes_received, 0);
	fx_fini(&f);
}
END_TEST

static struct tcb *open_bound(struct fx *f, bool reuseport, uint32_t uid, int want)
{
	struct tcb *s;
	ck_assert_int_eq(tcp_open(f->tcp, AF_INET, &s), 0);
	tcp_set_owner(s, uid);
	ck_assert_int_eq(set_int(s, SOL_SOCKET, SO_REUSEPORT_, reuseport), 0);
	ck_assert_int_eq(get_int(s, SOL_SOCKET, SO_REUSEPORT_), reuseport);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f->tcp, s, any, 80), want);
	return s;
}

/* Linux inet_csk_bind_conflict: SO_REUSEPORT on both and one owner share
 * a port, listening too; a SYN's 4-tuple picks the listener. */
START_TEST(reuseport_shares_and_spreads)
{
	struct fx f;
	fx_init(&f);
	struct tcb *a = open_bound(&f, true, 1000, 0);
	open_bound(&f, false, 1000, -EADDRINUSE);
	open_bound(&f, true, 1001, -EADDRINUSE);
	struct tcb *b = open_bound(&f, true, 1000, 0);
	ck_assert_int_eq(tcp_listen(f.tcp, a, 64, f.now), 0);
	ck_assert_int_eq(tcp_listen(f.tcp, b, 64, f.now), 0);
	unsigned to_a = 0, to_b = 0;
	for (uint16_t p = 0; p < 40; p++) {
		f.t.rport = (uint16_t)(20000 + p);
		struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
		fx_send(&f, &syn, NULL, 0);
		ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK);
		to_a = a->nq_syn;
		to_b = b->nq_syn;
	}
	ck_assert_uint_eq(to_a + to_b, 40);
	ck_assert_msg(to_a >= 5 && to_b >= 5, "SYNs split %u/%u", to_a, to_b);
	/* the same 4-tuple finds the same listener: a repeated SYN is the
	 * request's retransmission, not a new request elsewhere */
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(a->nq_syn + b->nq_syn, 40);
	fx_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tcp_pathopt");
	TCase *tc = tcase_create("pathopt");
	tcase_add_test(tc, thin_linear_timeouts);
	tcase_add_test(tc, thick_stream_backs_off);
	tcase_add_test(tc, flow_label_and_txrehash);
	tcase_add_test(tc, flow_label_ipv4);
	tcase_add_test(tc, bind_to_device);
	tcase_add_test(tc, bound_device_receive);
	tcase_add_test(tc, reuseport_shares_and_spreads);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
