/* Unit tests of ICMP and ICMPv6 in stack/net: echo replies, port unreachable
 * generation for UDP (quoting the datagram), frag-needed and packet-too-big
 * updating the path MTU and reaching the TCP error handler, and the
 * protections (no reply to broadcast, floors, no increase). */
#include "test_net_util.h"

static uint8_t f[2048];

static size_t next_ip4(struct tnu_pair *p, uint8_t proto, struct ip4_repr *ir)
{
	size_t n;
	while ((n = tnu_raw_next(p, f, sizeof(f)))) {
		struct wire_view v = {f, n}, iv = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
		struct eth_repr e;
		if (eth_parse(&v, &e) == 0 && e.type == ETH_TYPE_IP4 &&
		    ip4_parse(&iv, ir, false) == 0 && ir->proto == proto)
			return n;
	}
	return 0;
}

static size_t next_icmp6(struct tnu_pair *p, uint8_t type, struct ip6_repr *ir,
			 struct icmp_repr *ic)
{
	size_t n;
	while ((n = tnu_raw_next(p, f, sizeof(f)))) {
		struct wire_view v = {f, n}, iv = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
		struct eth_repr e;
		if (eth_parse(&v, &e) || e.type != ETH_TYPE_IP6 || ip6_parse(&iv, ir) ||
		    ir->next_header != IP6_NH_ICMP6)
			continue;
		struct wire_view mv = {f + ETH_HDR_LEN + IP6_HDR_LEN, ir->payload_len};
		if (icmp6_parse(&mv, ir->src, ir->dst, ic, false) == 0 && ic->type == type)
			return n;
	}
	return 0;
}

START_TEST(echo_v4)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	tnu_raw_hello(&p);
	uint8_t msg[64], fr[256];
	uint8_t data[32];
	for (int i = 0; i < 32; i++)
		data[i] = (uint8_t)(i ^ 0x5a);
	struct icmp_repr r = {.type = ICMP_ECHO, .rest = 0x4242002a, .data = data, .data_len = 32};
	struct wire_view mv = {msg, icmp_len(&r)};
	icmp4_emit(&r, &mv);
	size_t n = tnu_ip4_frame(fr, p.b4, p.a4, IPPROTO_ICMP, 7, 0, false, msg, icmp_len(&r));
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	struct ip4_repr ir;
	n = next_ip4(&p, IPPROTO_ICMP, &ir);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(ir.src, p.a4);
	ck_assert_uint_eq(ir.dst, p.b4);
	struct icmp_repr rep;
	struct wire_view rv = {f + ETH_HDR_LEN + IP4_HDR_LEN, ir.payload_len};
	ck_assert_int_eq(icmp4_parse(&rv, &rep, false), 0);
	ck_assert_uint_eq(rep.type, ICMP_ECHO_REPLY);
	ck_assert_uint_eq(rep.rest, 0x4242002a);
	ck_assert_uint_eq(rep.data_len, 32);
	ck_assert_mem_eq(rep.data, data, 32);
	/* a broadcast echo gets no answer, a corrupt one neither */
	n = tnu_ip4_frame(fr, p.b4, 0xffffffffu, IPPROTO_ICMP, 8, 0, false, msg, icmp_len(&r));
	memset(fr, 0xff, 6);
	tnu_raw_send(&p, fr, n);
	n = tnu_ip4_frame(fr, p.b4, p.a4, IPPROTO_ICMP, 9, 0, false, msg, icmp_len(&r));
	fr[n - 1] ^= 1;
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(next_ip4(&p, IPPROTO_ICMP, &ir), 0);
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.icmp_echo_replies, 1);
	ck_assert_uint_eq(s.icmp_bad, 1);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(echo_v6_and_ns_answer)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	/* hello sends an NS: the NA is solicited, overriding, with our MAC */
	uint8_t fr[256], msg[64], body[32], sn[16];
	struct ndp_repr ns = {.type = NDP_NS, .has_lla = true};
	memcpy(ns.target, p.a6, 16);
	memcpy(ns.lla, tnu_mac_b, 6);
	struct icmp_repr ic;
	ndp_emit_body(&ns, body, sizeof(body), &ic);
	ip6_solicited_node(p.a6, sn);
	struct wire_view nv = {msg, icmp_len(&ic)};
	icmp6_emit(&ic, p.b6, sn, &nv);
	size_t n = tnu_ip6_frame(fr, p.b6, sn, IP6_NH_ICMP6, 255, msg, icmp_len(&ic));
	fr[0] = 0x33, fr[1] = 0x33, fr[2] = 0xff, memcpy(fr + 3, sn + 13, 3);
	tnu_raw_send(&p, fr, n);
	/* the same NS with hop limit 64 is ignored (RFC 4861 §7.1.1) */
	n = tnu_ip6_frame(fr, p.b6, sn, IP6_NH_ICMP6, 64, msg, icmp_len(&ic));
	fr[0] = 0x33, fr[1] = 0x33, fr[2] = 0xff, memcpy(fr + 3, sn + 13, 3);
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	struct ip6_repr ir;
	struct icmp_repr rep;
	ck_assert_uint_gt(next_icmp6(&p, NDP_NA, &ir, &rep), 0);
	ck_assert_mem_eq(f, tnu_mac_b, 6);
	ck_assert_uint_eq(ir.hop_limit, 255);
	struct ndp_repr na;
	ck_assert_int_eq(ndp_parse(&rep, &na), 0);
	ck_assert_uint_eq(na.flags, NDP_NA_SOLICITED | NDP_NA_OVERRIDE);
	ck_assert_mem_eq(na.target, p.a6, 16);
	ck_assert(na.has_lla);
	ck_assert_mem_eq(na.lla, tnu_mac_a, 6);
	ck_assert_uint_eq(next_icmp6(&p, NDP_NA, &ir, &rep), 0);
	/* echo */
	uint8_t data[100];
	memset(data, 0x33, sizeof(data));
	struct icmp_repr er = {
	    .type = ICMP6_ECHO, .rest = 0x00070001, .data = data, .data_len = sizeof(data)};
	struct wire_view ev = {msg, 0};
	uint8_t emsg[128];
	ev.p = emsg;
	ev.len = icmp_len(&er);
	icmp6_emit(&er, p.b6, p.a6, &ev);
	n = tnu_ip6_frame(fr, p.b6, p.a6, IP6_NH_ICMP6, 64, emsg, icmp_len(&er));
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	ck_assert_uint_gt(next_icmp6(&p, ICMP6_ECHO_REPLY, &ir, &rep), 0);
	ck_assert_mem_eq(ir.src, p.a6, 16);
	ck_assert_uint_eq(rep.rest, 0x00070001);
	ck_assert_uint_eq(rep.data_len, sizeof(data));
	ck_assert_mem_eq(rep.data, data, sizeof(data));
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(port_unreachable_v4_v6)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	tnu_raw_hello(&p);
	uint8_t u[64], fr[256];
	size_t ul = tnu_udp(u, AF_INET, &p.b4, &p.a4, 1111, 9, "nobody", 6);
	size_t n = tnu_ip4_frame(fr, p.b4, p.a4, IPPROTO_UDP, 0x77, 0, false, u, ul);
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	struct ip4_repr ir;
	ck_assert_uint_gt(next_ip4(&p, IPPROTO_ICMP, &ir), 0);
	struct icmp_repr rep;
	struct wire_view rv = {f + ETH_HDR_LEN + IP4_HDR_LEN, ir.payload_len};
	ck_assert_int_eq(icmp4_parse(&rv, &rep, false), 0);
	ck_assert_uint_eq(rep.type, ICMP_UNREACH);
	ck_assert_uint_eq(rep.code, ICMP_UNREACH_PORT);
	/* the quote is the whole original datagram */
	ck_assert_uint_eq(rep.data_len, IP4_HDR_LEN + ul);
	ck_assert_mem_eq(rep.data, fr + ETH_HDR_LEN, IP4_HDR_LEN + ul);
	/* IPv6 */
	ul = tnu_udp(u, AF_INET6, p.b6, p.a6, 1111, 9, "nobody", 6);
	n = tnu_ip6_frame(fr, p.b6, p.a6, IPPROTO_UDP, 64, u, ul);
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	struct ip6_repr i6;
	ck_assert_uint_gt(next_icmp6(&p, ICMP6_UNREACH, &i6, &rep), 0);
	ck_assert_uint_eq(rep.code, ICMP6_UNREACH_PORT);
	ck_assert_uint_eq(rep.data_len, IP6_HDR_LEN + ul);
	/* rate limit: a burst of 300 gets at most the bucket (100) answered */
	ul = tnu_udp(u, AF_INET, &p.b4, &p.a4, 1111, 9, "x", 1);
	n = tnu_ip4_frame(fr, p.b4, p.a4, IPPROTO_UDP, 1, 0, false, u, ul);
	for (int i = 0; i < 300; i++) {
		tnu_raw_send(&p, fr, n);
		if (i % 30 == 29) {
			net_poll(p.a, p.now);
			net_flush(p.a);
			tnu_raw_drain(&p);
		}
	}
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.udp_no_port, 302);
	ck_assert_uint_le(s.icmp_errors_out, 2 + 100);
	ck_assert_uint_ge(s.icmp_errors_out, 50);
	tnu_pair_fini(&p);
}
END_TEST

struct err_got {
	unsigned n;
	bool refuse; /* answer as TCP does for a quote not in flight */
	struct net_icmp_err e;
};

static bool err_cb(void *arg, const struct net_icmp_err *e)
{
	struct err_got *g = arg;
	g->n++;
	g->e = *e;
	return !g->refuse;
}

/* ICMP 3/4 from b about a TCP segment a sent to dst. */
static void send_frag_needed(struct tnu_pair *p, uint32_t dst, uint16_t mtu)
{
	uint8_t inner[IP4_HDR_LEN + 8], msg[64], fr[256];
	struct ip4_repr ir = {.src = p->a4,
			      .dst = dst,
			      .proto = IPPROTO_TCP,
			      .ttl = 64,
			      .payload_len = 1460,
			      .df = true};
	struct wire_view iv = {inner, IP4_HDR_LEN};
	ip4_emit(&ir, &iv, false);
	wire_put16(inner + 20, 40000);
	wire_put16(inner + 22, 80);
	wire_put32(inner + 24, 0xabcdef01);
	struct icmp_repr r = {.type = ICMP_UNREACH,
			      .code = ICMP_UNREACH_NEEDFRAG,
			      .rest = mtu,
			      .data = inner,
			      .data_len = sizeof(inner)};
	struct wire_view mv = {msg, icmp_len(&r)};
	icmp4_emit(&r, &mv);
	size_t n = tnu_ip4_frame(fr, p->b4, p->a4, IPPROTO_ICMP, 3, 0, false, msg, icmp_len(&r));
	tnu_raw_send(p, fr, n);
}

START_TEST(frag_needed_updates_pmtu_v4)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	struct err_got g = {0};
	net_set_icmp_handler(p.a, err_cb, &g);
	tnu_raw_hello(&p);
	uint32_t far;
	inet_pton(AF_INET, "198.18.0.77", &far);
	send_frag_needed(&p, far, 1200);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.e.kind, NET_ICMP_FRAG_NEEDED);
	ck_assert_uint_eq(g.e.mtu, 1200);
	ck_assert_uint_eq(g.e.inner.proto, IPPROTO_TCP);
	ck_assert_uint_eq(g.e.inner.src.v4, p.a4);
	ck_assert_uint_eq(g.e.inner.dst.v4, far);
	ck_assert_uint_eq(wire_get32(g.e.l4 + 4), 0xabcdef01);
	uint32_t mtu;
	ck_assert_int_eq(net_route(p.a, AF_INET, &far, NULL, &mtu), 0);
	ck_assert_uint_eq(mtu, 1200);
	ck_assert_int_eq(net_route(p.a, AF_INET, &p.b4, NULL, &mtu), 0);
	ck_assert_uint_eq(mtu, 1500); /* per destination */
	/* an increase is not believed */
	send_frag_needed(&p, far, 1400);
	tnu_run(&p, 1);
	net_route(p.a, AF_INET, &far, NULL, &mtu);
	ck_assert_uint_eq(mtu, 1200);
	/* a quote the handler does not own (TCP: not in flight) changes
	 * nothing (RFC 5927 §4.1) */
	g.refuse = true;
	send_frag_needed(&p, far, 1000);
	tnu_run(&p, 1);
	g.refuse = false;
	net_route(p.a, AF_INET, &far, NULL, &mtu);
	ck_assert_uint_eq(mtu, 1200);
	ck_assert_uint_eq(g.e.mtu, 1000); /* what it would have been */
	/* a value below 552 is floored there, as Linux's min_pmtu, and the
	 * path is then sent to without DF */
	send_frag_needed(&p, far, 68);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.e.mtu, 552);
	net_route(p.a, AF_INET, &far, NULL, &mtu);
	ck_assert_uint_eq(mtu, 552);
	struct net_stats ns;
	net_get_stats(p.a, &ns);
	ck_assert_uint_eq(ns.pmtu_updates, 2);
	ck_assert_uint_eq(ns.pmtu_refused, 1);
	ck_assert_uint_eq(ns.pmtu_floored, 1);
	/* output above the path MTU is refused */
	struct rte_mbuf *m = net_alloc(p.a);
	memset(rte_pktmbuf_append(m, 600), 0, 600);
	struct ip_meta mt = {.family = AF_INET, .proto = IPPROTO_TCP};
	mt.dst.v4 = far;
	ck_assert_int_eq(net_output(p.a, m, &mt), -EMSGSIZE);
	/* a quote of somebody else's packet is ignored */
	uint32_t other = far;
	uint32_t save = p.a4;
	p.a4 = other;
	send_frag_needed(&p, far, 1000);
	p.a4 = save;
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 4);
	/* the estimate ages out after 10 minutes (RFC 1191 §6.3) */
	p.now += 601ull * 1000000000ull;
	tnu_run(&p, 0);
	net_route(p.a, AF_INET, &far, NULL, &mtu);
	ck_assert_uint_eq(mtu, 1500);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(packet_too_big_updates_pmtu_v6)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	struct err_got g = {0};
	net_set_icmp_handler(p.a, err_cb, &g);
	tnu_raw_hello(&p);
	uint8_t far[16];
	inet_pton(AF_INET6, "fd00:1::99", far);
	for (int k = 0; k < 2; k++) {
		uint32_t want = k == 0 ? 1300 : 1000;
		uint8_t inner[IP6_HDR_LEN + 8] = {0}, msg[128], fr[256];
		struct ip6_repr ir = {
		    .next_header = IPPROTO_TCP, .hop_limit = 64, .payload_len = 1400};
		memcpy(ir.src, p.a6, 16);
		memcpy(ir.dst, far, 16);
		struct wire_view iv = {inner, IP6_HDR_LEN};
		ip6_emit(&ir, &iv);
		wire_put16(inner + 40, 40000);
		struct icmp_repr r = {.type = ICMP6_PACKET_TOO_BIG,
				      .rest = want,
				      .data = inner,
				      .data_len = sizeof(inner)};
		struct wire_view mv = {msg, icmp_len(&r)};
		icmp6_emit(&r, p.b6, p.a6, &mv);
		size_t n = tnu_ip6_frame(fr, p.b6, p.a6, IP6_NH_ICMP6, 64, msg, icmp_len(&r));
		tnu_raw_send(&p, fr, n);
		tnu_run(&p, 1);
	}
	/* below the minimum link MTU (RFC 8200 §5): ignored, as Linux's
	 * tcp_v6_err; the handler never hears of it */
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.e.kind, NET_ICMP_FRAG_NEEDED);
	ck_assert_uint_eq(g.e.mtu, 1300);
	ck_assert_uint_eq(g.e.inner.family, AF_INET6);
	ck_assert_uint_eq(wire_get16(g.e.l4), 40000);
	uint32_t mtu;
	ck_assert_int_eq(net_route(p.a, AF_INET6, far, NULL, &mtu), 0);
	ck_assert_uint_eq(mtu, 1300);
	struct net_stats ns;
	net_get_stats(p.a, &ns);
	ck_assert_uint_eq(ns.pmtu_updates, 1);
	ck_assert_uint_eq(ns.pmtu_refused, 1);
	tnu_pair_fini(&p);
}
END_TEST

static Suite *icmp_suite(void)
{
	Suite *s = suite_create("icmp");
	TCase *tc = tcase_create("icmp");
	tcase_add_test(tc, echo_v4);
	tcase_add_test(tc, echo_v6_and_ns_answer);
	tcase_add_test(tc, port_unreachable_v4_v6);
	tcase_add_test(tc, frag_needed_updates_pmtu_v4);
	tcase_add_test(tc, packet_too_big_updates_pmtu_v6);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_icmp", icmp_suite)
