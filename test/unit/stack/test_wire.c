/* Unit tests of stack/wire: parse(emit(r)) == r for every protocol below TCP,
 * truncated and garbage buffers refused, RFC 1071 checksums incl. pseudo
 * headers and odd-length mbuf chains. */
#include "test_net_util.h"

#include "wire/wire.h"

static uint8_t buf[2048];

START_TEST(csum_rfc1071_example)
{
	/* RFC 1071 §3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2. */
	static const uint8_t d[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(0, d, sizeof(d))), 0xddf2);
	/* odd length pads with a zero byte */
	static const uint8_t o[] = {0x12, 0x34, 0x56};
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(0, o, 3)), 0x1234 + 0x5600);
}
END_TEST

/* RFC 1071's definition, one big-endian 16-bit word at a time */
static uint16_t csum_ref(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = sum;
	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The wide-word sum against the definition: every length to 80 and some
 * long ones, every alignment, random and all-ones bytes (whose sums fold
 * to 0xffff), with a running sum carried in */
START_TEST(csum_wide_words_match_rfc1071)
{
	static uint8_t buf[9100];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	static const size_t longs[] = {1448, 1500, 4095, 8948, 9000};
	for (int ones = 0; ones < 2; ones++) {
		if (ones)
			memset(buf, 0xff, sizeof(buf));
		for (size_t off = 0; off < 8; off++) {
			for (size_t len = 0; len < 85; len++) {
				size_t l = len < 80 ? len : longs[len - 80];
				uint32_t start = (uint32_t)(off * 0x1111u + len);
				ck_assert_uint_eq(
				    wire_csum_fold(wire_csum_add(start, buf + off, l)),
				    csum_ref(start, buf + off, l));
			}
		}
	}
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(0, buf, 0)), 0);
}
END_TEST

START_TEST(csum_known_ip4_header)
{
	/* A captured header: 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7 */
	static const uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
				      0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(0, h, 20)), 0xffff);
	struct ip4_repr r;
	struct wire_view v = {(uint8_t *)h, 20};
	ck_assert_int_eq(ip4_parse(&v, &r, false), -EINVAL); /* total 0x73 > 20 bytes */
	uint8_t big[0x73] = {0};
	memcpy(big, h, 20);
	v = (struct wire_view){big, sizeof(big)};
	ck_assert_int_eq(ip4_parse(&v, &r, false), 0);
	ck_assert_uint_eq(r.proto, 17);
	ck_assert_uint_eq(r.payload_len, 0x73 - 20);
	big[11] ^= 1;
	ck_assert_int_eq(ip4_parse(&v, &r, false), -EBADMSG);
	ck_assert_int_eq(ip4_parse(&v, &r, true), 0);
}
END_TEST

START_TEST(csum_mbuf_chain_odd_split)
{
	struct rte_mempool *pool = tnu_pool("csum");
	uint8_t data[1001];
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	uint32_t flat = wire_csum_add(0x1234, data, sizeof(data));
	/* Split into segments of 3, 500, 1, 497 bytes: odd boundaries. */
	unsigned cuts[] = {3, 500, 1, 497};
	struct rte_mbuf *head = NULL;
	unsigned off = 0;
	for (unsigned i = 0; i < 4; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(m, (uint16_t)cuts[i]), data + off, cuts[i]);
		off += cuts[i];
		if (head)
			ck_assert_int_eq(rte_pktmbuf_chain(head, m), 0);
		else
			head = m;
	}
	ck_assert_uint_eq(wire_csum_fold(wire_csum_mbuf(head, 0, 1001, 0x1234)),
			  wire_csum_fold(flat));
	/* A sub-range starting inside a segment. */
	ck_assert_uint_eq(wire_csum_fold(wire_csum_mbuf(head, 2, 600, 0)),
			  wire_csum_fold(wire_csum_add(0, data + 2, 600)));
	rte_pktmbuf_free(head);
	rte_mempool_free(pool);
}
END_TEST

START_TEST(csum_pseudo_headers)
{
	uint32_t s, d;
	inet_pton(AF_INET, "198.18.0.1", &s);
	inet_pton(AF_INET, "198.18.0.2", &d);
	/* c612 0001 + c612 0002 + 0011 + 0008 */
	uint32_t want = 0xc612 + 0x0001 + 0xc612 + 0x0002 + 0x0011 + 0x0008;
	ck_assert_uint_eq(wire_csum_fold(wire_csum_pseudo4(s, d, 17, 8)), wire_csum_fold(want));
	uint8_t a[16] = {0xfd, 0}, b[16] = {0xfd, 0};
	a[15] = 1;
	b[15] = 2;
	ck_assert_uint_eq(wire_csum_fold(wire_csum_pseudo6(a, b, 58, 16)),
			  wire_csum_fold(0xfd00 + 1 + 0xfd00 + 2 + 16 + 58));
}
END_TEST

START_TEST(eth_roundtrip_and_garbage)
{
	struct eth_repr r = {
	    .dst = {1, 2, 3, 4, 5, 6}, .src = {2, 0, 0, 0, 0, 9}, .type = ETH_TYPE_IP6};
	struct wire_view v = {buf, ETH_HDR_LEN};
	eth_emit(&r, &v);
	struct eth_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(eth_parse(&v, &p), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	for (size_t l = 0; l < ETH_HDR_LEN; l++) {
		struct wire_view t = {buf, l};
		ck_assert_int_eq(eth_parse(&t, &p), -EINVAL);
	}
	buf[6] |= 1; /* multicast source */
	ck_assert_int_eq(eth_parse(&v, &p), -EINVAL);
	ck_assert(eth_is_broadcast((uint8_t[6]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
	ck_assert(!eth_is_broadcast(r.dst));
}
END_TEST

START_TEST(arp_roundtrip_and_garbage)
{
	struct arp_repr r = {.op = ARP_OP_REPLY,
			     .sha = {2, 1, 1, 1, 1, 1},
			     .tha = {2, 2, 2, 2, 2, 2},
			     .spa = 0x01020304,
			     .tpa = 0x05060708};
	struct wire_view v = {buf, ARP_LEN};
	arp_emit(&r, &v);
	struct arp_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(arp_parse(&v, &p), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	struct wire_view t = {buf, ARP_LEN - 1};
	ck_assert_int_eq(arp_parse(&t, &p), -EINVAL);
	buf[7] = 3; /* op 3 */
	ck_assert_int_eq(arp_parse(&v, &p), -EINVAL);
	arp_emit(&r, &v);
	buf[5] = 16; /* plen 16 */
	ck_assert_int_eq(arp_parse(&v, &p), -EINVAL);
}
END_TEST

START_TEST(ip4_roundtrip_options_and_garbage)
{
	struct ip4_repr r = {.src = 0x0a000001,
			     .dst = 0x0a000002,
			     .proto = 6,
			     .tos = 0x02,
			     .ttl = 17,
			     .hdr_len = 20,
			     .payload_len = 100,
			     .id = 0xbeef,
			     .df = true,
			     .mf = true,
			     .frag_off = 1480};
	struct wire_view v = {buf, 120};
	ip4_emit(&r, &v, false);
	struct ip4_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(ip4_parse(&v, &p, false), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	/* trailing padding is allowed, shortness is not */
	struct wire_view pad = {buf, 200};
	ck_assert_int_eq(ip4_parse(&pad, &p, false), 0);
	ck_assert_uint_eq(p.payload_len, 100);
	for (size_t l = 0; l < 120; l += 7) {
		struct wire_view t = {buf, l};
		ck_assert_int_eq(ip4_parse(&t, &p, false), -EINVAL);
	}
	/* offloaded checksum leaves zero */
	ip4_emit(&r, &v, true);
	ck_assert_uint_eq(wire_get16(buf + 10), 0);
	/* a header with 8 option bytes: skipped, payload follows */
	ip4_emit(&r, &v, false);
	memmove(buf + 28, buf + 20, 100);
	buf[0] = 0x47;
	wire_put16(buf + 2, 128);
	memset(buf + 20, 1, 8); /* NOPs */
	buf[10] = buf[11] = 0;
	wire_put16(buf + 10, wire_csum_finish(wire_csum_add(0, buf, 28)));
	v.len = 128;
	ck_assert_int_eq(ip4_parse(&v, &p, false), 0);
	ck_assert_uint_eq(p.hdr_len, 28);
	ck_assert_uint_eq(p.payload_len, 100);
	/* IHL below 5, version 6, total < IHL */
	buf[0] = 0x44;
	ck_assert_int_eq(ip4_parse(&v, &p, true), -EINVAL);
	buf[0] = 0x65;
	ck_assert_int_eq(ip4_parse(&v, &p, true), -EINVAL);
	buf[0] = 0x45;
	wire_put16(buf + 2, 10);
	ck_assert_int_eq(ip4_parse(&v, &p, true), -EINVAL);
	/* fragment running past 65535 */
	wire_put16(buf + 2, 120);
	wire_put16(buf + 6, 0x1fff);
	ck_assert_int_eq(ip4_parse(&v, &p, true), -EINVAL);
}
END_TEST

START_TEST(ip6_roundtrip_ext_and_garbage)
{
	struct ip6_repr r = {
	    .next_header = 6, .hop_limit = 64, .tclass = 0x03, .flow = 0x12345, .payload_len = 40};
	inet_pton(AF_INET6, "fd00::1", r.src);
	inet_pton(AF_INET6, "fd00::2", r.dst);
	struct wire_view v = {buf, 80};
	ip6_emit(&r, &v);
	struct ip6_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(ip6_parse(&v, &p), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	struct wire_view t = {buf, 79};
	ck_assert_int_eq(ip6_parse(&t, &p), -EINVAL);
	/* hop-by-hop (8 bytes) then dest options (16 bytes) then TCP */
	uint8_t ext[40] = {0};
	ext[0] = IP6_NH_DSTOPTS;
	ext[1] = 0;
	ext[8] = 6;
	ext[9] = 1;
	struct wire_view e = {ext, sizeof(ext)};
	uint8_t nh = IP6_NH_HOPOPT;
	ck_assert_int_eq(ip6_skip_ext(&e, &nh), 24);
	ck_assert_uint_eq(nh, 6);
	/* truncated extension */
	e.len = 20;
	nh = IP6_NH_HOPOPT;
	ck_assert_int_eq(ip6_skip_ext(&e, &nh), -EINVAL);
	/* a Fragment header stops the walk: reassembly is the caller's */
	nh = IP6_NH_FRAGMENT;
	ck_assert_int_eq(ip6_skip_ext(&e, &nh), 0);
	ck_assert_uint_eq(nh, IP6_NH_FRAGMENT);
	nh = IP6_NH_HOPOPT;
	ext[8] = IP6_NH_FRAGMENT;
	e.len = sizeof(ext);
	ck_assert_int_eq(ip6_skip_ext(&e, &nh), 24);
	ck_assert_uint_eq(nh, IP6_NH_FRAGMENT);
	/* a routing header with segments left is not ours to skip */
	memset(ext, 0, sizeof(ext));
	ext[3] = 1;
	nh = IP6_NH_ROUTING;
	ck_assert_int_eq(ip6_skip_ext(&e, &nh), -EPROTO);
	uint8_t sn[16], mac[6];
	ip6_solicited_node(r.dst, sn);
	char s[64];
	inet_ntop(AF_INET6, sn, s, sizeof(s));
	ck_assert_str_eq(s, "ff02::1:ff00:2");
	ip6_mcast_mac(sn, mac);
	ck_assert_mem_eq(mac, ((uint8_t[6]){0x33, 0x33, 0xff, 0, 0, 2}), 6);
}
END_TEST

START_TEST(icmp_roundtrip_and_csum)
{
	uint8_t data[5] = {1, 2, 3, 4, 5};
	struct icmp_repr r = {
	    .type = ICMP_ECHO, .code = 0, .rest = 0x00010002, .data = data, .data_len = 5};
	struct wire_view v = {buf, icmp_len(&r)};
	icmp4_emit(&r, &v);
	struct icmp_repr p;
	ck_assert_int_eq(icmp4_parse(&v, &p, false), 0);
	ck_assert_uint_eq(p.type, ICMP_ECHO);
	ck_assert_uint_eq(p.rest, 0x00010002);
	ck_assert_uint_eq(p.data_len, 5);
	ck_assert_mem_eq(p.data, data, 5);
	buf[9] ^= 0x40;
	ck_assert_int_eq(icmp4_parse(&v, &p, false), -EBADMSG);
	struct wire_view t = {buf, 7};
	ck_assert_int_eq(icmp4_parse(&t, &p, true), -EINVAL);
	uint8_t s6[16] = {0xfd, [15] = 1}, d6[16] = {0xfd, [15] = 2};
	r.type = ICMP6_ECHO;
	icmp6_emit(&r, s6, d6, &v);
	ck_assert_int_eq(icmp6_parse(&v, s6, d6, &p, false), 0);
	/* the pseudo-header matters */
	ck_assert_int_eq(icmp6_parse(&v, d6, s6, &p, false), 0); /* symmetric sum */
	d6[14] = 1;
	ck_assert_int_eq(icmp6_parse(&v, s6, d6, &p, false), -EBADMSG);
}
END_TEST

START_TEST(ndp_roundtrip_and_garbage)
{
	struct ndp_repr r = {.type = NDP_NA,
			     .flags = NDP_NA_SOLICITED | NDP_NA_OVERRIDE,
			     .has_lla = true,
			     .lla = {2, 3, 4, 5, 6, 7}};
	inet_pton(AF_INET6, "fd00:1::2", r.target);
	uint8_t body[32];
	struct icmp_repr ic;
	ck_assert_uint_eq(ndp_emit_body(&r, body, sizeof(body), &ic), 24);
	struct ndp_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(ndp_parse(&ic, &p), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	/* through the ICMPv6 wire form */
	uint8_t s6[16] = {0xfd, [15] = 2}, d6[16] = {0xfd, [15] = 1};
	struct wire_view v = {buf, icmp_len(&ic)};
	icmp6_emit(&ic, s6, d6, &v);
	struct icmp_repr pi;
	ck_assert_int_eq(icmp6_parse(&v, s6, d6, &pi, false), 0);
	ck_assert_int_eq(ndp_parse(&pi, &p), 0);
	ck_assert(p.has_lla);
	/* zero-length option, short body, multicast target, wrong code */
	body[17] = 0;
	ck_assert_int_eq(ndp_parse(&ic, &p), -EINVAL);
	body[17] = 1;
	ic.data_len = 15;
	ck_assert_int_eq(ndp_parse(&ic, &p), -EINVAL);
	ic.data_len = 24;
	body[0] = 0xff;
	ck_assert_int_eq(ndp_parse(&ic, &p), -EINVAL);
	body[0] = 0xfd;
	ic.code = 1;
	ck_assert_int_eq(ndp_parse(&ic, &p), -EINVAL);
	/* NS without an option */
	struct ndp_repr ns = {.type = NDP_NS};
	memcpy(ns.target, r.target, 16);
	ck_assert_uint_eq(ndp_emit_body(&ns, body, sizeof(body), &ic), 16);
	ck_assert_int_eq(ndp_parse(&ic, &p), 0);
	ck_assert(!p.has_lla);
	ck_assert_uint_eq(ndp_emit_body(&r, body, 10, &ic), 0);
}
END_TEST

START_TEST(udp_roundtrip_and_garbage)
{
	struct udp_repr r = {.sport = 5353, .dport = 53, .len = 20};
	struct wire_view v = {buf, 20};
	udp_emit(&r, &v);
	struct udp_repr p;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(udp_parse(&v, &p), 0);
	ck_assert_mem_eq(&p, &r, sizeof(r));
	struct wire_view t = {buf, 19};
	ck_assert_int_eq(udp_parse(&t, &p), -EINVAL); /* length field beyond the buffer */
	wire_put16(buf + 4, 7);
	ck_assert_int_eq(udp_parse(&v, &p), -EINVAL);
	wire_put16(buf + 4, 20);
	wire_put16(buf + 2, 0);
	ck_assert_int_eq(udp_parse(&v, &p), -EINVAL);
}
END_TEST

/* Random bytes into every parser: never a crash, never an out-of-bounds read
 * (ASan), and whatever parses re-emits to bytes that parse the same. */
START_TEST(garbage_never_crashes)
{
	struct rnd rg;
	rnd_seed(&rg, 42);
	static uint8_t g[256];
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = rnd_below(&rg, sizeof(g) + 1);
		for (size_t i = 0; i < len; i++)
			g[i] = (uint8_t)rnd_u32(&rg);
		if (len && rnd_below(&rg, 2))
			g[0] = rnd_below(&rg, 2) ? 0x45 : 0x60;
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, g, len);
		struct wire_view v = {copy, len};
		struct eth_repr e;
		struct arp_repr a;
		struct ip4_repr i4;
		struct ip6_repr i6;
		struct icmp_repr ic;
		struct ndp_repr nd;
		struct udp_repr u;
		eth_parse(&v, &e);
		arp_parse(&v, &a);
		if (ip4_parse(&v, &i4, true) == 0) {
			uint8_t o[20];
			struct wire_view ov = {o, 20};
			struct ip4_repr back;
			i4.hdr_len = 20;
			i4.payload_len = 0;
			ip4_emit(&i4, &ov, false);
			ck_assert_int_eq(ip4_parse(&ov, &back, false), 0);
			ck_assert_uint_eq(back.dst, i4.dst);
		}
		ip6_parse(&v, &i6);
		uint8_t nh = (uint8_t)rnd_below(&rg, 3);
		ip6_skip_ext(&v, &nh);
		if (icmp4_parse(&v, &ic, true) == 0) {
			ic.type = rnd_below(&rg, 2) ? NDP_NS : NDP_NA;
			ndp_parse(&ic, &nd);
		}
		udp_parse(&v, &u);
		free(copy);
	}
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("wire");
	tcase_add_test(tc, csum_rfc1071_example);
	tcase_add_test(tc, csum_known_ip4_header);
	tcase_add_test(tc, csum_wide_words_match_rfc1071);
	tcase_add_test(tc, csum_mbuf_chain_odd_split);
	tcase_add_test(tc, csum_pseudo_headers);
	tcase_add_test(tc, eth_roundtrip_and_garbage);
	tcase_add_test(tc, arp_roundtrip_and_garbage);
	tcase_add_test(tc, ip4_roundtrip_options_and_garbage);
	tcase_add_test(tc, ip6_roundtrip_ext_and_garbage);
	tcase_add_test(tc, icmp_roundtrip_and_csum);
	tcase_add_test(tc, ndp_roundtrip_and_garbage);
	tcase_add_test(tc, udp_roundtrip_and_garbage);
	tcase_add_test(tc, garbage_never_crashes);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_wire", wire_suite)
