/* Unit tests of stack/net over dev_wire: ARP and NDP resolution, queueing
 * and timeouts, gratuitous ARP, UDP send/receive, routes and output errors,
 * L4 delivery to a handler with checksum checks and padding trimmed, and the
 * counters of the drop reasons. */
#include "test_net_util.h"

START_TEST(arp_resolves_and_udp_flows_both_ways)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, true);
	struct udp_got ga = {0}, gb = {0};
	struct net_udp_sock *sa, *sb;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &ga, &sa), 0);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, &p.b4, 7000, tnu_udp_cb, &gb, &sb), 0);
	ck_assert_uint_ge(net_udp_port(sa), 49152);
	/* queued while ARP resolves, then delivered */
	ck_assert_int_eq(net_udp_sendto(p.a, sa, "hello", 5, AF_INET, &p.b4, 7000), 0);
	ck_assert_int_eq(net_udp_sendto(p.a, sa, "again", 5, AF_INET, &p.b4, 7000), 0);
	tnu_run(&p, 3);
	ck_assert_uint_eq(gb.n, 2);
	ck_assert_uint_eq(gb.len, 5);
	ck_assert_mem_eq(gb.data, "again", 5);
	ck_assert_uint_eq(gb.sport, net_udp_port(sa));
	ck_assert_uint_eq(gb.meta.src.v4, p.a4);
	ck_assert_uint_eq(gb.meta.dst.v4, p.b4);
	ck_assert_uint_eq(gb.meta.ttl, 64);
	/* b answers from the learnt entry: no ARP request needed by b */
	struct net_stats sbs;
	net_get_stats(p.b, &sbs);
	uint64_t req_b = sbs.arp_requests_out;
	ck_assert_int_eq(net_udp_sendto(p.b, sb, "reply!", 6, AF_INET, &p.a4, net_udp_port(sa)), 0);
	tnu_run(&p, 2);
	ck_assert_uint_eq(ga.n, 1);
	ck_assert_mem_eq(ga.data, "reply!", 6);
	net_get_stats(p.b, &sbs);
	ck_assert_uint_eq(sbs.arp_requests_out, req_b);
	ck_assert_uint_ge(sbs.arp_replies_out, 1);
	/* duplicate bind refused, wildcard vs specific conflicts */
	struct net_udp_sock *sx;
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, NULL, 7000, tnu_udp_cb, &gb, &sx), -EADDRINUSE);
	uint32_t other = htonl(0xc6120063);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, &other, 7001, tnu_udp_cb, &gb, &sx),
			 -EADDRNOTAVAIL);
	net_udp_close(p.b, sb);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, NULL, 7000, tnu_udp_cb, &gb, &sb), 0);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(ndp_resolves_and_udp6_flows)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, true);
	struct udp_got gb = {0}, ga = {0};
	struct net_udp_sock *sa, *sb;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET6, NULL, 5000, tnu_udp_cb, &ga, &sa), 0);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET6, NULL, 6000, tnu_udp_cb, &gb, &sb), 0);
	char big[1400];
	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (char)i;
	ck_assert_int_eq(net_udp_sendto(p.a, sa, big, sizeof(big), AF_INET6, p.b6, 6000), 0);
	tnu_run(&p, 3);
	ck_assert_uint_eq(gb.n, 1);
	ck_assert_uint_eq(gb.len, sizeof(big));
	ck_assert_mem_eq(gb.data, big, sizeof(big));
	ck_assert_mem_eq(gb.meta.src.v6, p.a6, 16);
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.ndp_ns_out, 1);
	ck_assert_uint_eq(s.ndp_na_in, 1);
	ck_assert_int_eq(net_udp_sendto(p.b, sb, "x", 1, AF_INET6, p.a6, 5000), 0);
	tnu_run(&p, 1);
	ck_assert_uint_eq(ga.n, 1);
	net_get_stats(p.b, &s);
	ck_assert_uint_eq(s.ndp_ns_out, 0); /* learnt from a's NS */
	/* over the link MTU: fragments (test_ip6 looks closer), whole at b */
	char huge[1500];
	memset(huge, 0x5a, sizeof(huge));
	ck_assert_int_eq(net_udp_sendto(p.a, sa, huge, sizeof(huge), AF_INET6, p.b6, 6000), 0);
	tnu_run(&p, 1);
	ck_assert_uint_eq(gb.n, 2);
	ck_assert_uint_eq(gb.len, sizeof(huge));
	ck_assert_mem_eq(gb.data, huge, sizeof(huge));
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(gratuitous_arp_on_start)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	net_flush(p.a);
	uint8_t f[128];
	size_t n = tnu_raw_next(&p, f, sizeof(f));
	ck_assert_uint_eq(n, ETH_HDR_LEN + ARP_LEN);
	struct wire_view v = {f, n};
	struct eth_repr e;
	ck_assert_int_eq(eth_parse(&v, &e), 0);
	ck_assert(eth_is_broadcast(e.dst));
	ck_assert_uint_eq(e.type, ETH_TYPE_ARP);
	struct arp_repr a;
	struct wire_view av = {f + ETH_HDR_LEN, ARP_LEN};
	ck_assert_int_eq(arp_parse(&av, &a), 0);
	ck_assert_uint_eq(a.spa, p.a4);
	ck_assert_uint_eq(a.tpa, p.a4);
	ck_assert_uint_eq(tnu_raw_next(&p, f, sizeof(f)), 0);
	tnu_pair_fini(&p);
	struct net_config c = {.no_gratuitous_arp = true};
	tnu_pair_init(&p, &c, false);
	net_flush(p.a);
	ck_assert_uint_eq(tnu_raw_next(&p, f, sizeof(f)), 0);
	tnu_pair_fini(&p);
}
END_TEST

static unsigned count_arp_requests(struct tnu_pair *p, uint32_t tpa)
{
	uint8_t f[2048];
	unsigned c = 0;
	size_t n;
	while ((n = tnu_raw_next(p, f, sizeof(f)))) {
		struct wire_view v = {f, n}, av = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
		struct eth_repr e;
		struct arp_repr a;
		if (eth_parse(&v, &e) == 0 && e.type == ETH_TYPE_ARP && arp_parse(&av, &a) == 0 &&
		    a.op == ARP_OP_REQUEST && a.tpa == tpa && a.spa != a.tpa)
			c++;
	}
	return c;
}

START_TEST(arp_timeout_fails_with_hostunreach)
{
	struct net_config c = {.neigh_retrans_ms = 100, .neigh_max_probes = 3, .neigh_queue = 2};
	struct tnu_pair p;
	tnu_pair_init(&p, &c, false);
	struct udp_got g = {0};
	struct net_udp_sock *s;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &g, &s), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(net_udp_sendto(p.a, s, "q", 1, AF_INET, &p.b4, 9), 0);
	tnu_run(&p, 350);
	ck_assert_uint_eq(count_arp_requests(&p, p.b4), 3);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.neigh_queue_drop, 1); /* queue of 2, 3 sent */
	ck_assert_uint_eq(st.neigh_failed, 2);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "q", 1, AF_INET, &p.b4, 9), -EHOSTUNREACH);
	/* after the failure ages out, resolution starts again */
	tnu_run(&p, 150);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "q", 1, AF_INET, &p.b4, 9), 0);
	tnu_run(&p, 1);
	ck_assert_uint_eq(count_arp_requests(&p, p.b4), 1);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(arp_entry_expires_and_is_reprobed)
{
	struct net_config c = {.neigh_timeout_ms = 1000, .neigh_retrans_ms = 100};
	struct tnu_pair p;
	tnu_pair_init(&p, &c, true);
	struct udp_got g = {0};
	struct net_udp_sock *sa, *sb;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &g, &sa), 0);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, NULL, 53, tnu_udp_cb, &g, &sb), 0);
	ck_assert_int_eq(net_udp_sendto(p.a, sa, "1", 1, AF_INET, &p.b4, 53), 0);
	tnu_run(&p, 5);
	ck_assert_uint_eq(g.n, 1);
	struct net_stats s0, s1;
	net_get_stats(p.a, &s0);
	tnu_run(&p, 1500);
	/* expired: the packet still goes out at once with the old MAC and a
	 * (unicast) probe refreshes the entry */
	ck_assert_int_eq(net_udp_sendto(p.a, sa, "2", 1, AF_INET, &p.b4, 53), 0);
	net_flush(p.a);
	tnu_run(&p, 5);
	ck_assert_uint_eq(g.n, 2);
	net_get_stats(p.a, &s1);
	ck_assert_uint_eq(s1.arp_requests_out, s0.arp_requests_out + 1);
	ck_assert_uint_eq(s1.arp_replies_in, s0.arp_replies_in + 1);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(ndp_timeout_fails)
{
	struct net_config c = {.neigh_retrans_ms = 50, .neigh_max_probes = 2};
	struct tnu_pair p;
	tnu_pair_init(&p, &c, false);
	struct udp_got g = {0};
	struct net_udp_sock *s;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET6, NULL, 0, tnu_udp_cb, &g, &s), 0);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "q", 1, AF_INET6, p.b6, 9), 0);
	tnu_run(&p, 120);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "q", 1, AF_INET6, p.b6, 9), -EHOSTUNREACH);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.ndp_ns_out, 2);
	/* the NS went to the solicited-node group's MAC */
	uint8_t f[256];
	size_t n = tnu_raw_next(&p, f, sizeof(f));
	while (n && !(f[0] == 0x33 && f[1] == 0x33))
		n = tnu_raw_next(&p, f, sizeof(f));
	ck_assert_uint_gt(n, 0);
	ck_assert_mem_eq(f, ((uint8_t[6]){0x33, 0x33, 0xff, 0, 0, 2}), 6);
	ck_assert_uint_eq(f[ETH_HDR_LEN + 7], 255); /* hop limit */
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(routes_and_output_errors)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	uint32_t far, src, mtu;
	inet_pton(AF_INET, "203.0.113.9", &far);
	ck_assert_int_eq(net_route(p.a, AF_INET, &far, &src, &mtu), -ENETUNREACH);
	ck_assert_int_eq(net_route(p.a, AF_INET, &p.b4, &src, &mtu), 0);
	ck_assert_uint_eq(src, p.a4);
	ck_assert_uint_eq(mtu, 1500);
	ck_assert(net_is_local(p.a, AF_INET, &p.a4));
	ck_assert(!net_is_local(p.a, AF_INET, &p.b4));
	ck_assert(net_is_local(p.a, AF_INET6, p.a6));
	struct rte_mbuf *m = net_alloc(p.a);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_ge(rte_pktmbuf_headroom(m), ETH_HDR_LEN + IP6_HDR_LEN);
	memset(rte_pktmbuf_append(m, 20), 0, 20);
	struct ip_meta mt = {.family = AF_INET, .proto = IPPROTO_TCP};
	mt.dst.v4 = far;
	ck_assert_int_eq(net_output(p.a, m, &mt), -ENETUNREACH);
	m = net_alloc(p.a);
	memset(rte_pktmbuf_append(m, 1481), 0, 1481);
	mt.dst.v4 = p.b4;
	ck_assert_int_eq(net_output(p.a, m, &mt), -EMSGSIZE);
	m = net_alloc(p.a);
	mt.family = 99;
	ck_assert_int_eq(net_output(p.a, m, &mt), -EINVAL);
	tnu_pair_fini(&p);
	/* with a gateway, off-link traffic resolves the gateway */
	struct net_config c = {0};
	inet_pton(AF_INET, "198.18.0.254", &c.gw4);
	tnu_pair_init(&p, &c, false);
	ck_assert_int_eq(net_route(p.a, AF_INET, &far, &src, &mtu), 0);
	ck_assert_uint_eq(src, p.a4);
	m = net_alloc(p.a);
	memset(rte_pktmbuf_append(m, 20), 0, 20);
	mt.family = AF_INET;
	mt.dst.v4 = far;
	ck_assert_int_eq(net_output(p.a, m, &mt), 0);
	tnu_run(&p, 1);
	ck_assert_uint_eq(count_arp_requests(&p, c.gw4), 1);
	tnu_pair_fini(&p);
}
END_TEST

struct l4_got {
	unsigned n;
	struct ip_meta meta;
	uint8_t hdr[20];
};

static void tcp_cb(void *arg, struct rte_mbuf *m, const struct ip_meta *meta)
{
	struct l4_got *g = arg;
	g->n++;
	g->meta = *meta;
	ck_assert_uint_eq(rte_pktmbuf_pkt_len(m), meta->l4_len);
	memcpy(g->hdr, rte_pktmbuf_mtod(m, void *), 20);
	rte_pktmbuf_free(m);
}

/* A minimal TCP header with a valid checksum for the 4 data bytes. */
static size_t tcp_seg(uint8_t *out, uint8_t family, const void *src, const void *dst)
{
	memset(out, 0, 24);
	wire_put16(out, 40000);
	wire_put16(out + 2, 80);
	wire_put32(out + 4, 12345);
	out[12] = 5 << 4;
	out[13] = 0x02; /* SYN */
	wire_put16(out + 14, 65535);
	memcpy(out + 20, "data", 4);
	uint32_t ps = family == AF_INET
			  ? wire_csum_pseudo4(*(const uint32_t *)src, *(const uint32_t *)dst, 6, 24)
			  : wire_csum_pseudo6(src, dst, 6, 24);
	wire_put16(out + 16, wire_csum_finish(wire_csum_add(ps, out, 24)));
	return 24;
}

/* A device that says it is an af_packet/tap port, over the wire end a. */
struct host_port {
	struct dev dev;
	struct dev *inner;
};

static uint16_t hp_rx(struct dev *d, struct rte_mbuf **pk, uint16_t n)
{
	return dev_rx_burst(((struct host_port *)d)->inner, pk, n);
}

static uint16_t hp_tx(struct dev *d, struct rte_mbuf **pk, uint16_t n)
{
	return dev_tx_burst(((struct host_port *)d)->inner, pk, n);
}

static void hp_caps(const struct dev *d, struct dev_caps *out)
{
	dev_caps(((const struct host_port *)d)->inner, out);
	out->rx_host_port = true;
}

static void hp_destroy(struct dev *d)
{
	(void)d;
}

static const struct dev_ops hp_ops = {
    .rx_burst = hp_rx, .tx_burst = hp_tx, .caps = hp_caps, .destroy = hp_destroy};

/* Replaces p->a with a net on a host port around p->da. */
static void use_host_port(struct tnu_pair *p, struct host_port *hp)
{
	hp->dev.ops = &hp_ops;
	hp->inner = p->da;
	net_destroy(p->a);
	struct net_config c = {.pool = p->pool, .clk = &p->clk, .dev = &hp->dev, .seed = 1};
	tnu_addrs(&c, p->a4, p->a6);
	ck_assert_int_eq(net_create(&c, &p->a), 0);
	tnu_raw_hello(p);
	tnu_raw_drain(p);
}

/* The SYN a Linux sender hands a veth with tx checksum offload on: the
 * checksum field holds the folded pseudo-header sum, nothing more. */
static size_t unfilled_syn(struct tnu_pair *p, uint8_t *f)
{
	uint8_t seg[24];
	tcp_seg(seg, AF_INET, &p->b4, &p->a4);
	wire_put16(seg + 16, wire_csum_fold(wire_csum_pseudo4(p->b4, p->a4, IPPROTO_TCP, 24)));
	return tnu_ip4_frame(f, p->b4, p->a4, IPPROTO_TCP, 1, 0, false, seg, 24);
}

START_TEST(unfilled_checksums_on_a_host_port_get_one_notice)
{
	struct tnu_pair p;
	struct host_port hp;
	struct l4_got g = {0};
	struct net_stats st;
	char line[320];
	uint8_t f[256];
	size_t n;

	/* on a port that is no af_packet/tap: counted, no notice */
	tnu_pair_init(&p, NULL, false);
	net_set_l4_handler(p.a, IPPROTO_TCP, tcp_cb, &g);
	tnu_raw_hello(&p);
	tnu_raw_drain(&p);
	n = unfilled_syn(&p, f);
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.l4_bad_csum, 1);
	ck_assert_uint_eq(st.l4_csum_unfilled, 1);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_eq(net_csum_notice(p.a, line, sizeof(line)), 0);

	/* on a host port: one line naming the fix, then never again */
	use_host_port(&p, &hp);
	net_set_l4_handler(p.a, IPPROTO_TCP, tcp_cb, &g);
	ck_assert_uint_eq(net_csum_notice(p.a, line, sizeof(line)), 0);
	tnu_raw_send(&p, f, n);
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 0);
	size_t len = net_csum_notice(p.a, line, sizeof(line));
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(len, strlen(line));
	ck_assert_ptr_null(strchr(line, '\n'));
	ck_assert_msg(strstr(line, "ethtool -K PEER tx off") && strstr(line, "pseudo-header") &&
			  !strncmp(line, "2 TCP/UDP", 9),
		      "notice: %s", line);
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(net_csum_notice(p.a, line, sizeof(line)), 0);

	/* a good segment first: a later bad one is corruption, not offload */
	use_host_port(&p, &hp);
	net_set_l4_handler(p.a, IPPROTO_TCP, tcp_cb, &g);
	uint8_t seg[24], good[256];
	tcp_seg(seg, AF_INET, &p.b4, &p.a4);
	size_t gn = tnu_ip4_frame(good, p.b4, p.a4, IPPROTO_TCP, 2, 0, false, seg, 24);
	tnu_raw_send(&p, good, gn);
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 1);
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.l4_csum_good, 1);
	ck_assert_uint_eq(st.l4_bad_csum, 1);
	ck_assert_uint_eq(net_csum_notice(p.a, line, sizeof(line)), 0);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(l4_handler_gets_checked_trimmed_segments)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	struct l4_got g = {0};
	net_set_l4_handler(p.a, IPPROTO_TCP, tcp_cb, &g);
	tnu_raw_hello(&p);
	uint8_t seg[24], f[256];
	tcp_seg(seg, AF_INET, &p.b4, &p.a4);
	size_t n = tnu_ip4_frame(f, p.b4, p.a4, IPPROTO_TCP, 1, 0, false, seg, 24);
	memset(f + n, 0xee, 10); /* Ethernet padding after the datagram */
	tnu_raw_send(&p, f, n + 10);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.meta.l4_len, 24);
	ck_assert_uint_eq(g.meta.proto, IPPROTO_TCP);
	ck_assert_uint_eq(g.meta.src.v4, p.b4);
	ck_assert_uint_eq(wire_get16(g.hdr + 2), 80);
	/* a flipped payload bit: dropped by the checksum */
	f[n - 1] ^= 4;
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 1);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.l4_bad_csum, 1);
	/* IPv6 too */
	tcp_seg(seg, AF_INET6, p.b6, p.a6);
	n = tnu_ip6_frame(f, p.b6, p.a6, IPPROTO_TCP, 64, seg, 24);
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.meta.family, AF_INET6);
	ck_assert_uint_eq(g.meta.l4_len, 24);
	/* send direction: net fills in the TCP checksum */
	struct rte_mbuf *m = net_alloc(p.a);
	memcpy(rte_pktmbuf_append(m, 24), seg, 24);
	struct ip_meta mt = {.family = AF_INET, .proto = IPPROTO_TCP, .tos = 0x02};
	mt.dst.v4 = p.b4;
	ck_assert_int_eq(net_output(p.a, m, &mt), 0);
	net_flush(p.a);
	n = tnu_raw_next(&p, f, sizeof(f));
	ck_assert_uint_eq(n, ETH_HDR_LEN + IP4_HDR_LEN + 24);
	struct wire_view iv = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
	struct ip4_repr ir;
	ck_assert_int_eq(ip4_parse(&iv, &ir, false), 0);
	ck_assert(ir.df);
	ck_assert_uint_eq(ir.tos, 0x02);
	uint32_t ps = wire_csum_pseudo4(ir.src, ir.dst, 6, 24);
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(ps, f + ETH_HDR_LEN + 20, 24)), 0xffff);
	/* IPv6: the traffic class and the flow label TCP chose (IPV6_AUTOFLOWLABEL) */
	m = net_alloc(p.a);
	memcpy(rte_pktmbuf_append(m, 24), seg, 24);
	struct ip_meta m6 = {
	    .family = AF_INET6, .proto = IPPROTO_TCP, .tos = 0x28, .flow = 0xabcde};
	memcpy(m6.src.v6, p.a6, 16);
	memcpy(m6.dst.v6, p.b6, 16);
	ck_assert_int_eq(net_output(p.a, m, &m6), 0);
	net_flush(p.a);
	n = tnu_raw_next(&p, f, sizeof(f));
	ck_assert_uint_eq(n, ETH_HDR_LEN + IP6_HDR_LEN + 24);
	struct wire_view v6 = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
	struct ip6_repr r6;
	ck_assert_int_eq(ip6_parse(&v6, &r6), 0);
	ck_assert_uint_eq(r6.flow, 0xabcde);
	ck_assert_uint_eq(r6.tclass, 0x28);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(bad_frames_are_counted_drops)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	tnu_raw_hello(&p);
	uint8_t f[256] = {0};
	tnu_raw_send(&p, f, 10); /* runt */
	size_t n = tnu_ip4_frame(f, p.b4, p.a4, 253, 1, 0, false, "abcd", 4);
	f[0] = 0x02, f[5] = 0x77; /* another host's MAC */
	tnu_raw_send(&p, f, n);
	n = tnu_ip4_frame(f, p.b4, p.a4, 253, 1, 0, false, "abcd", 4);
	f[ETH_HDR_LEN + 10] ^= 1; /* IPv4 header checksum */
	tnu_raw_send(&p, f, n);
	n = tnu_ip4_frame(f, p.b4, p.b4, 253, 1, 0, false, "abcd", 4); /* not our IP */
	tnu_raw_send(&p, f, n);
	n = tnu_ip4_frame(f, p.b4, p.a4, 17, 1, 0, false, "abcd", 4); /* short UDP */
	tnu_raw_send(&p, f, n);
	f[12] = 0x88, f[13] = 0xb5; /* unknown EtherType */
	tnu_raw_send(&p, f, n);
	tnu_run(&p, 1);
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.eth_short, 1);
	ck_assert_uint_eq(s.eth_not_for_us, 1);
	ck_assert_uint_eq(s.ip4_bad_csum, 1);
	ck_assert_uint_eq(s.ip4_not_for_us, 1);
	ck_assert_uint_eq(s.udp_bad, 1);
	ck_assert_uint_eq(s.eth_unknown_type, 1);
	tnu_pair_fini(&p);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("net");
	tcase_add_test(tc, arp_resolves_and_udp_flows_both_ways);
	tcase_add_test(tc, ndp_resolves_and_udp6_flows);
	tcase_add_test(tc, gratuitous_arp_on_start);
	tcase_add_test(tc, arp_timeout_fails_with_hostunreach);
	tcase_add_test(tc, arp_entry_expires_and_is_reprobed);
	tcase_add_test(tc, ndp_timeout_fails);
	tcase_add_test(tc, routes_and_output_errors);
	tcase_add_test(tc, l4_handler_gets_checked_trimmed_segments);
	tcase_add_test(tc, unfilled_checksums_on_a_host_port_get_one_notice);
	tcase_add_test(tc, bad_frames_are_counted_drops);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_net", net_suite)
