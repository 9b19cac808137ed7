/* Unit tests of stack/net against a remote attacker (issue 30): unresolved
 * neighbour entries bounded and evicted oldest first while resolved ones
 * stay, ARP requests and NS for a foreign target learnt from nobody, the
 * pressure signal TCP turns into SYN cookies, and fragment reassembly's
 * memory bound evicting the oldest datagram instead of refusing new ones. */
#include "test_frag_util.h"

static uint8_t f[2048];

/* The raw end sends an ARP request from spa/sha asking for tpa. */
static void arp_req(struct tnu_pair *p, uint32_t spa, const uint8_t sha[6], uint32_t tpa)
{
	uint8_t fr[64];
	struct eth_repr e = {.dst = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, .type = ETH_TYPE_ARP};
	memcpy(e.src, sha, 6);
	eth_emit(&e, &(struct wire_view){fr, ETH_HDR_LEN});
	struct arp_repr a = {.op = ARP_OP_REQUEST, .spa = spa, .tpa = tpa};
	memcpy(a.sha, sha, 6);
	arp_emit(&a, &(struct wire_view){fr + ETH_HDR_LEN, ARP_LEN});
	tnu_raw_send(p, fr, ETH_HDR_LEN + ARP_LEN);
}

/* Frames the raw end got: ARP requests for tpa, and IPv4 frames to mac. */
static void count_out(struct tnu_pair *p, uint32_t tpa, const uint8_t mac[6], unsigned *arps,
		      unsigned *ip4_to_mac)
{
	*arps = *ip4_to_mac = 0;
	size_t n;
	while ((n = tnu_raw_next(p, f, sizeof(f)))) {
		struct wire_view v = {f, n}, av = {f + ETH_HDR_LEN, n - ETH_HDR_LEN};
		struct eth_repr e;
		struct arp_repr a;
		if (eth_parse(&v, &e))
			continue;
		if (e.type == ETH_TYPE_ARP && arp_parse(&av, &a) == 0 && a.op == ARP_OP_REQUEST &&
		    a.tpa == tpa)
			(*arps)++;
		if (e.type == ETH_TYPE_IP4 && !memcmp(e.dst, mac, 6))
			(*ip4_to_mac)++;
	}
}

static uint32_t host(unsigned i)
{
	return htonl(0xc6120000u | (100 + i)); /* 198.18.0.(100 + i), on link */
}

START_TEST(pending_evicted_oldest_resolved_kept)
{
	/* 16 entries: 8 may be unresolved */
	struct net_config c = {.neigh_max = 16};
	struct tnu_pair p;
	tnu_pair_init(&p, &c, false);
	tnu_raw_hello(&p); /* b resolved */
	struct net_udp_sock *s;
	struct udp_got g = {0};
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &g, &s), 0);
	ck_assert(!net_neigh_pressure(p.a, AF_INET));
	/* replies to 40 spoofed on-link sources: each waits for an answer */
	for (unsigned i = 0; i < 40; i++)
		ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(i)}, 9),
				 0);
	ck_assert(net_neigh_pressure(p.a, AF_INET));
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.neigh_evicted, 32); /* the oldest went first */
	ck_assert_uint_eq(st.neigh_table_full, 0);
	ck_assert_uint_eq(st.neigh_failed, 32); /* their queued datagram */
	/* b is still resolved: its datagram leaves at once, no ARP */
	tnu_raw_drain(&p);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "y", 1, AF_INET, &p.b4, 9), 0);
	tnu_run(&p, 0);
	unsigned arps, to_b;
	count_out(&p, p.b4, tnu_mac_b, &arps, &to_b);
	ck_assert_uint_eq(arps, 0);
	ck_assert_uint_eq(to_b, 1);
	/* the newest unresolved one is still there: its answer delivers its
	 * queued datagram; the oldest's answer finds nothing to send */
	static const uint8_t m39[6] = {0x02, 0, 0, 0, 0, 0x39}, m0[6] = {0x02, 0, 0, 0, 0, 0x30};
	uint8_t fr[64];
	struct eth_repr e = {.type = ETH_TYPE_ARP};
	memcpy(e.dst, tnu_mac_a, 6);
	for (int k = 0; k < 2; k++) {
		const uint8_t *m = k ? m0 : m39;
		memcpy(e.src, m, 6);
		eth_emit(&e, &(struct wire_view){fr, ETH_HDR_LEN});
		struct arp_repr a = {.op = ARP_OP_REPLY, .spa = host(k ? 0 : 39), .tpa = p.a4};
		memcpy(a.sha, m, 6);
		memcpy(a.tha, tnu_mac_a, 6);
		arp_emit(&a, &(struct wire_view){fr + ETH_HDR_LEN, ARP_LEN});
		tnu_raw_send(&p, fr, ETH_HDR_LEN + ARP_LEN);
	}
	tnu_run(&p, 1);
	unsigned to39, to0;
	count_out(&p, 0, m39, &arps, &to39);
	ck_assert_uint_eq(to39, 1);
	tnu_run(&p, 1);
	count_out(&p, 0, m0, &arps, &to0);
	ck_assert_uint_eq(to0, 0);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(full_table_never_displaces_resolved)
{
	struct net_config c = {.neigh_max = 8};
	struct tnu_pair p;
	tnu_pair_init(&p, &c, false);
	/* 8 neighbours resolve by answering our requests: confirmed */
	struct net_udp_sock *s;
	struct udp_got g = {0};
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &g, &s), 0);
	uint8_t fr[64];
	for (unsigned i = 0; i < 8; i++) {
		ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(i)}, 9),
				 0);
		uint8_t m[6] = {0x02, 1, 0, 0, 0, (uint8_t)i};
		struct eth_repr e = {.type = ETH_TYPE_ARP};
		memcpy(e.dst, tnu_mac_a, 6);
		memcpy(e.src, m, 6);
		eth_emit(&e, &(struct wire_view){fr, ETH_HDR_LEN});
		struct arp_repr a = {.op = ARP_OP_REPLY, .spa = host(i), .tpa = p.a4};
		memcpy(a.sha, m, 6);
		arp_emit(&a, &(struct wire_view){fr + ETH_HDR_LEN, ARP_LEN});
		tnu_raw_send(&p, fr, ETH_HDR_LEN + ARP_LEN);
		tnu_run(&p, 0);
	}
	tnu_raw_drain(&p);
	/* a ninth destination finds no room: refused, nobody displaced */
	ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(50)}, 9),
			 -ENOBUFS);
	/* spoofed requests to us from new sources learn nothing either */
	arp_req(&p, host(60), (const uint8_t[6]){2, 2, 2, 2, 2, 2}, p.a4);
	tnu_run(&p, 0);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.neigh_table_full, 2);
	ck_assert_uint_eq(st.neigh_evicted, 0);
	for (unsigned i = 0; i < 8; i++) {
		uint8_t m[6] = {0x02, 1, 0, 0, 0, (uint8_t)i};
		ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(i)}, 9),
				 0);
		tnu_run(&p, 0);
		unsigned arps, to;
		count_out(&p, host(i), m, &arps, &to);
		ck_assert_uint_eq(arps, 0);
		ck_assert_uint_eq(to, 1);
	}
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(arp_for_foreign_target_ignored)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	tnu_raw_hello(&p);
	static const uint8_t spoof[6] = {0x02, 0xee, 0, 0, 0, 1};
	uint32_t other;
	inet_pton(AF_INET, "198.18.0.99", &other); /* not ours */
	arp_req(&p, host(1), spoof, other);
	tnu_run(&p, 1);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.neigh_ignored, 1);
	ck_assert_uint_eq(st.arp_replies_out, 1); /* hello's only */
	/* host(1) was not learnt: sending to it resolves first */
	struct net_udp_sock *s;
	struct udp_got g = {0};
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 0, tnu_udp_cb, &g, &s), 0);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(1)}, 9), 0);
	tnu_run(&p, 0);
	unsigned arps, to;
	count_out(&p, host(1), spoof, &arps, &to);
	ck_assert_uint_eq(arps, 1);
	ck_assert_uint_eq(to, 0);
	/* a request for our address is answered and its sender learnt */
	arp_req(&p, host(2), spoof, p.a4);
	tnu_run(&p, 0);
	tnu_raw_drain(&p);
	ck_assert_int_eq(net_udp_sendto(p.a, s, "x", 1, AF_INET, &(uint32_t){host(2)}, 9), 0);
	tnu_run(&p, 0);
	count_out(&p, host(2), spoof, &arps, &to);
	ck_assert_uint_eq(arps, 0);
	ck_assert_uint_eq(to, 1);
	tnu_pair_fini(&p);
}
END_TEST

START_TEST(ns_for_foreign_target_ignored)
{
	struct tnu_pair p;
	tnu_pair_init(&p, NULL, false);
	uint8_t other[16], src[16], sn[16], body[32], msg[64], fr[256];
	inet_pton(AF_INET6, "fd00:1::99", other);
	inet_pton(AF_INET6, "fd00:1::77", src);
	struct ndp_repr ns = {.type = NDP_NS, .has_lla = true};
	memcpy(ns.target, other, 16);
	memcpy(ns.lla, tnu_mac_b, 6);
	struct icmp_repr ic;
	ndp_emit_body(&ns, body, sizeof(body), &ic);
	ip6_solicited_node(other, sn);
	icmp6_emit(&ic, src, sn, &(struct wire_view){msg, icmp_len(&ic)});
	size_t n = tnu_ip6_frame(fr, src, sn, IP6_NH_ICMP6, 255, msg, icmp_len(&ic));
	fr[0] = 0x33, fr[1] = 0x33, fr[2] = 0xff, memcpy(fr + 3, sn + 13, 3);
	/* not our solicited-node group: never reaches the NDP code */
	tnu_raw_send(&p, fr, n);
	/* unicast to our MAC and address instead: reaches it, learns nothing */
	memcpy(fr, tnu_mac_a, 6);
	icmp6_emit(&ic, src, p.a6, &(struct wire_view){msg, icmp_len(&ic)});
	n = tnu_ip6_frame(fr, src, p.a6, IP6_NH_ICMP6, 255, msg, icmp_len(&ic));
	tnu_raw_send(&p, fr, n);
	tnu_run(&p, 1);
	struct net_stats st;
	net_get_stats(p.a, &st);
	ck_assert_uint_eq(st.ndp_ns_in, 1);
	ck_assert_uint_eq(st.neigh_ignored, 1);
	ck_assert_uint_eq(st.ndp_na_out, 0);
	tnu_pair_fini(&p);
}
END_TEST

/* A first fragment of datagram id from the raw end (800 bytes). */
static void first_frag(struct fx *x, uint16_t id)
{
	uint8_t fr[2048];
	size_t n = tnu_ip4_frame(fr, x->p.b4, x->p.a4, IPPROTO_UDP, id, 0, true, dgram, 800);
	tnu_raw_send(&x->p, fr, n);
}

START_TEST(reasm_memory_bound_evicts_oldest)
{
	struct fx x;
	/* room for about 4 fragments' buffers */
	struct net_config c = {.frag_mem_max = 4 * RTE_MBUF_DEFAULT_BUF_SIZE + 100};
	fx_init(&x, &c, AF_INET);
	/* 20 spoofed first fragments, never completed */
	for (uint16_t id = 1; id <= 20; id++) {
		first_frag(&x, id);
		tnu_run(&x.p, 1);
	}
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip4_frag_in, 20);
	/* over 4: down to 3/4 of the bound, the oldest first */
	ck_assert_uint_ge(s.reasm_evicted, 16);
	ck_assert_uint_eq(s.ip4_reasm_drop, 0);
	/* a legitimate datagram still reassembles */
	uint8_t fr[2048];
	size_t n = tnu_ip4_frame(fr, x.p.b4, x.p.a4, IPPROTO_UDP, 99, 0, true, dgram, 1480);
	tnu_raw_send(&x.p, fr, n);
	n = tnu_ip4_frame(fr, x.p.b4, x.p.a4, IPPROTO_UDP, 99, 1480, true, dgram + 1480, 1480);
	tnu_raw_send(&x.p, fr, n);
	n = tnu_ip4_frame(fr, x.p.b4, x.p.a4, IPPROTO_UDP, 99, 2960, false, dgram + 2960,
			  dgram_len - 2960);
	tnu_raw_send(&x.p, fr, n);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_uint_eq(x.g.len, sizeof(payload));
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_slots_evict_oldest_and_time_out)
{
	struct fx x;
	struct net_config c = {.frag_max_datagrams = 4};
	fx_init(&x, &c, AF_INET);
	/* a minute of spoofed first fragments, one a second: each new one
	 * displaces the oldest; none blocks the next */
	for (uint16_t id = 1; id <= 60; id++) {
		first_frag(&x, id);
		tnu_run(&x.p, 1000);
	}
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip4_reasm_drop, 0);
	ck_assert_uint_eq(s.reasm_evicted + s.ip4_reasm_timeout, 56);
	/* IPv4's lifetime is Linux's ipfrag_time, 30 s */
	tnu_run(&x.p, 30000);
	s = stats(&x);
	ck_assert_uint_eq(s.reasm_evicted + s.ip4_reasm_timeout, 60);
	ck_assert_uint_eq(net_next_deadline_ns(x.p.a), UINT64_MAX);
	tnu_pair_fini(&x.p);
}
END_TEST

static Suite *attack_suite(void)
{
	Suite *s = suite_create("net_attack");
	TCase *tc = tcase_create("net_attack");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pending_evicted_oldest_resolved_kept);
	tcase_add_test(tc, full_table_never_displaces_resolved);
	tcase_add_test(tc, arp_for_foreign_target_ignored);
	tcase_add_test(tc, ns_for_foreign_target_ignored);
	tcase_add_test(tc, reasm_memory_bound_evicts_oldest);
	tcase_add_test(tc, reasm_slots_evict_oldest_and_time_out);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_net_attack", attack_suite)
