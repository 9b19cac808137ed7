/* Unit tests of IPv4 fragment reassembly in stack/net (RFC 791 §3.2, RFC
 * 815): in order, out of order, duplicates, overlaps (dropped, as Linux),
 * the limits on concurrent datagrams, fragment count and size, and the
 * reassembly timeout (with Time Exceeded); IPv4 options ignored safely; UDP over the MTU sent
 * as fragments (RFC 791 §3.2) that reassemble to the datagram. */
#include "test_frag_util.h"

/* Sends bytes [off, off+len) of the UDP datagram as a fragment of id. */
static void frag(struct fx *x, uint16_t id, uint16_t off, uint16_t len)
{
	uint8_t f[2048];
	bool mf = off + len < dgram_len;
	size_t n = tnu_ip4_frame(f, x->p.b4, x->p.a4, IPPROTO_UDP, id, off, mf, dgram + off, len);
	tnu_raw_send(&x->p, f, n);
}

START_TEST(reasm_in_order)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	frag(&x, 1, 0, 1480);
	frag(&x, 1, 1480, 1480);
	frag(&x, 1, 2960, (uint16_t)(dgram_len - 2960));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_uint_eq(x.g.len, sizeof(payload));
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	ck_assert_uint_eq(stats(&x).ip4_reasm_ok, 1);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_out_of_order_and_duplicate)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	frag(&x, 2, 2000, (uint16_t)(dgram_len - 2000));
	frag(&x, 2, 1000, 1000);
	frag(&x, 2, 1000, 1000); /* exact duplicate: ignored */
	frag(&x, 2, 0, 1000);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	/* two datagrams interleaved */
	frag(&x, 3, 0, 1504);
	frag(&x, 4, 1504, (uint16_t)(dgram_len - 1504));
	frag(&x, 4, 0, 1504);
	frag(&x, 3, 1504, (uint16_t)(dgram_len - 1504));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 3);
	ck_assert_uint_eq(stats(&x).ip4_reasm_ok, 3);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_overlap_drops_datagram)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	frag(&x, 5, 0, 1504);
	frag(&x, 5, 1496, (uint16_t)(dgram_len - 1496)); /* overlaps by 8 */
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	ck_assert_uint_eq(stats(&x).ip4_reasm_drop, 1);
	/* the queue is gone: the remaining fragment alone completes nothing */
	frag(&x, 5, 1504, (uint16_t)(dgram_len - 1504));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	/* a non-final fragment not a multiple of 8 */
	frag(&x, 6, 0, 1001);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(stats(&x).ip4_reasm_drop, 2);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_limits_and_timeout)
{
	struct fx x;
	struct net_config c = {
	    .frag_max_datagrams = 2, .frag_timeout_ms = 500, .frag_max_size = 2500};
	fx_init(&x, &c, AF_INET);
	frag(&x, 10, 0, 800);
	frag(&x, 11, 0, 800);
	frag(&x, 12, 0, 800); /* a third concurrent datagram displaces the first */
	tnu_run(&x.p, 1);
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip4_reasm_drop, 0);
	ck_assert_uint_eq(s.reasm_evicted, 1);
	ck_assert_uint_eq(s.ip4_frag_in, 3);
	ck_assert_uint_eq(net_next_deadline_ns(x.p.a) - x.p.now, 499 * 1000000ull);
	tnu_run(&x.p, 500);
	s = stats(&x);
	ck_assert_uint_eq(s.ip4_reasm_timeout, 2);
	/* both had their first fragment: Time Exceeded code 1 for each (RFC
	 * 1122 §3.3.2) */
	ck_assert_uint_eq(s.icmp_errors_out, 2);
	ck_assert_uint_eq(net_next_deadline_ns(x.p.a), UINT64_MAX);
	/* a datagram beyond frag_max_size (2500) is dropped */
	frag(&x, 13, 0, 1600);
	frag(&x, 13, 1600, (uint16_t)(dgram_len - 1600));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	ck_assert_uint_eq(stats(&x).ip4_reasm_drop, 1);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_too_many_fragments)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	/* 3008 bytes as 8-byte fragments: 376 > the 64 a datagram may have */
	for (uint16_t off = 0; off < 8 * 70; off += 8)
		frag(&x, 20, off, 8);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(stats(&x).ip4_reasm_drop, 1);
	ck_assert_uint_eq(x.g.n, 0);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(options_are_skipped)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	uint8_t f[256], u[64];
	size_t ul = tnu_udp(u, AF_INET, &x.p.b4, &x.p.a4, 1234, 7000, "opt", 3);
	size_t n = tnu_ip4_frame(f, x.p.b4, x.p.a4, IPPROTO_UDP, 30, 0, false, u, ul);
	/* insert 4 bytes of options: record route stub + EOL */
	uint8_t *ip = f + ETH_HDR_LEN;
	memmove(ip + 24, ip + 20, ul);
	ip[20] = 7, ip[21] = 3, ip[22] = 4, ip[23] = 0;
	ip[0] = 0x46;
	wire_put16(ip + 2, (uint16_t)(24 + ul));
	ip[10] = ip[11] = 0;
	wire_put16(ip + 10, wire_csum_finish(wire_csum_add(0, ip, 24)));
	tnu_raw_send(&x.p, f, n + 4);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_mem_eq(x.g.data, "opt", 3);
	ck_assert_uint_eq(stats(&x).ip4_options, 1);
	tnu_pair_fini(&x.p);
}
END_TEST

/* 4000 bytes to the raw side: three fragments of one ID, DF clear, MF on all
 * but the last, offsets in 8-byte units, and the checksum of the whole. */
START_TEST(udp_send_fragments)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET);
	tnu_raw_drain(&x.p);
	static uint8_t big[4000], whole[4008];
	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 3);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, big, sizeof(big), AF_INET, &x.p.b4, 1234), 0);
	tnu_run(&x.p, 1);
	uint8_t f[2048];
	size_t n, got = 0;
	unsigned k = 0;
	uint16_t id = 0;
	while ((n = tnu_raw_next(&x.p, f, sizeof(f))) && k < 8) {
		const uint8_t *ip = f + ETH_HDR_LEN;
		if (wire_get16(f + 12) != ETH_TYPE_IP4 || ip[9] != IPPROTO_UDP)
			continue;
		uint16_t fo = wire_get16(ip + 6), len = wire_get16(ip + 2);
		ck_assert_uint_le(len, 1500);
		ck_assert_uint_eq(fo & 0x4000, 0); /* DF clear */
		ck_assert_uint_eq((fo & 0x1fff) * 8u, got);
		ck_assert_uint_eq(wire_csum_fold(wire_csum_add(0, ip, 20)), 0xffff);
		if (k == 0)
			id = wire_get16(ip + 4);
		ck_assert_uint_eq(wire_get16(ip + 4), id);
		memcpy(whole + got, ip + 20, len - 20u);
		got += len - 20u;
		ck_assert_uint_eq((fo & 0x2000) != 0, got < sizeof(whole)); /* MF */
		k++;
	}
	ck_assert_uint_eq(k, 3);
	ck_assert_uint_eq(got, sizeof(whole));
	ck_assert_uint_eq(wire_get16(whole + 4), sizeof(whole));
	ck_assert_mem_eq(whole + 8, big, sizeof(big));
	uint32_t ps = wire_csum_pseudo4(x.p.a4, x.p.b4, IPPROTO_UDP, sizeof(whole));
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(ps, whole, sizeof(whole))), 0xffff);
	ck_assert_uint_eq(stats(&x).ip4_frag_out, 3);
	/* the largest IPv4 datagram (65507 bytes of data), and one over */
	static uint8_t max[65508];
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, max, 65507, AF_INET, &x.p.b4, 1234), 0);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, max, 65508, AF_INET, &x.p.b4, 1234), -EMSGSIZE);
	tnu_pair_fini(&x.p);
}
END_TEST

/* Stack to stack: the fragments reassemble to the datagram sent. */
START_TEST(udp_fragments_round_trip)
{
	struct tnu_pair p;
	struct udp_got g = {0};
	tnu_pair_init(&p, NULL, true);
	struct net_udp_sock *sa, *sb;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET, NULL, 7000, tnu_udp_cb, &g, &sa), 0);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET, NULL, 0, tnu_udp_cb, &g, &sb), 0);
	static uint8_t big[3001];
	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 11 + 5);
	/* the three fragments wait together for ARP (8 frames are queued) */
	ck_assert_int_eq(net_udp_sendto(p.b, sb, big, 3001, AF_INET, &p.a4, 7000), 0);
	tnu_run(&p, 50);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.len, 3001);
	ck_assert_mem_eq(g.data, big, 3001);
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.ip4_reasm_ok, 1);
	ck_assert_uint_eq(s.udp_bad_csum, 0);
	tnu_pair_fini(&p);
}
END_TEST

static Suite *ip4_suite(void)
{
	Suite *s = suite_create("ip4");
	TCase *tc = tcase_create("ip4");
	tcase_add_test(tc, reasm_in_order);
	tcase_add_test(tc, reasm_out_of_order_and_duplicate);
	tcase_add_test(tc, reasm_overlap_drops_datagram);
	tcase_add_test(tc, reasm_limits_and_timeout);
	tcase_add_test(tc, reasm_too_many_fragments);
	tcase_add_test(tc, options_are_skipped);
	tcase_add_test(tc, udp_send_fragments);
	tcase_add_test(tc, udp_fragments_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_ip4", ip4_suite)
