/* Unit tests of IPv6 fragments in stack/net (RFC 8200 §4.5): reassembly in
 * order, out of order, with duplicates and behind a hop-by-hop header;
 * overlaps abandon the datagram (RFC 5722); the timeout with Time Exceeded
 * only when the first fragment came; the size checks with their Parameter
 * Problems; atomic fragments taken whole (RFC 6946); a first fragment
 * without the upper-layer header refused (RFC 7112); UDP over the path MTU
 * sent as fragments (sizes, offsets, flags, one random ID per datagram, the
 * PMTU of a Packet Too Big honoured) that reassemble to the datagram. */
#include "test_frag_util.h"

/* Sends bytes [off, off+len) of src as a fragment of id: an IPv6 header
 * (hop limit 255, as NDP wants), a hop-by-hop header when hbh, the Fragment header (next header nh,
 * M as more), the bytes. */
static void frag_of(struct fx *x, const uint8_t *src, uint32_t id, uint16_t off, uint16_t len,
		    bool more, uint8_t nh, bool hbh)
{
	static uint8_t pl[2048], f[2100];
	size_t k = 0;
	if (hbh) {
		memset(pl, 0, 8);
		pl[0] = IP6_NH_FRAGMENT; /* PadN fills the rest */
		pl[2] = 1;
		pl[3] = 4;
		k = 8;
	}
	pl[k] = nh;
	pl[k + 1] = 0;
	wire_put16(pl + k + 2, (uint16_t)(off | more));
	wire_put32(pl + k + 4, id);
	memcpy(pl + k + 8, src + off, len);
	size_t n = tnu_ip6_frame(f, x->p.b6, x->p.a6, hbh ? IP6_NH_HOPOPT : IP6_NH_FRAGMENT, 255,
				 pl, k + 8 + len);
	tnu_raw_send(&x->p, f, n);
}

/* A fragment of the test's UDP datagram; M set unless it reaches the end. */
static void frag(struct fx *x, uint32_t id, uint16_t off, uint16_t len)
{
	frag_of(x, dgram, id, off, len, off + len < dgram_len, IPPROTO_UDP, false);
}

/* The next ICMPv6 message a sent to the raw end, its type/code/rest and
 * the quote's first bytes in q; false when none. */
static bool next_icmp6(struct fx *x, uint8_t *type, uint8_t *code, uint32_t *rest, uint8_t *q,
		       size_t qlen)
{
	uint8_t f[2048];
	size_t n;
	for (int i = 0; i < 64 && (n = tnu_raw_next(&x->p, f, sizeof(f))); i++) {
		const uint8_t *ip = f + ETH_HDR_LEN;
		if (wire_get16(f + 12) != ETH_TYPE_IP6 || ip[6] != IP6_NH_ICMP6)
			continue;
		const uint8_t *ic = ip + IP6_HDR_LEN;
		if (ic[0] == NDP_NS || ic[0] == NDP_NA)
			continue;
		ck_assert_uint_ge(n, ETH_HDR_LEN + IP6_HDR_LEN + ICMP_HDR_LEN + qlen);
		*type = ic[0];
		*code = ic[1];
		*rest = wire_get32(ic + 4);
		memcpy(q, ic + ICMP_HDR_LEN, qlen);
		return true;
	}
	return false;
}

START_TEST(reasm_in_order)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	frag(&x, 1, 0, 1448);
	frag(&x, 1, 1448, 1448);
	frag(&x, 1, 2896, (uint16_t)(dgram_len - 2896));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_uint_eq(x.g.len, sizeof(payload));
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip6_frag_in, 3);
	ck_assert_uint_eq(s.ip6_reasm_ok, 1);
	ck_assert_uint_eq(s.udp_bad_csum, 0);
	/* behind a hop-by-hop header (the unfragmentable part), last first */
	frag_of(&x, dgram, 2, 1504, (uint16_t)(dgram_len - 1504), false, IPPROTO_UDP, true);
	frag_of(&x, dgram, 2, 0, 1504, true, IPPROTO_UDP, true);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 2);
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	tnu_pair_fini(&x.p);
}
END_TEST

/* An echo request of 3000 bytes in fragments: reassembled longer than one
 * mbuf and over the link MTU, it is answered in fragments (as Linux's
 * ip6_fragment does); until issue 30's attack tests it went unanswered. */
START_TEST(echo_reassembled_answered_in_fragments)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	static uint8_t data[3000], req[3100], got[3100];
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	struct icmp_repr er = {
	    .type = ICMP6_ECHO, .rest = 0x00300001, .data = data, .data_len = sizeof(data)};
	struct wire_view ev = {req, icmp_len(&er)};
	icmp6_emit(&er, x.p.b6, x.p.a6, &ev);
	uint16_t len = (uint16_t)icmp_len(&er);
	frag_of(&x, req, 9, 0, 1448, true, IP6_NH_ICMP6, false);
	frag_of(&x, req, 9, 1448, (uint16_t)(len - 1448), false, IP6_NH_ICMP6, false);
	tnu_run(&x.p, 1);
	/* the reply's fragments, put together by offset */
	uint8_t f[2048];
	size_t n, total = 0, frags = 0;
	bool last = false;
	for (int i = 0; i < 64 && (n = tnu_raw_next(&x.p, f, sizeof(f))); i++) {
		const uint8_t *ip = f + ETH_HDR_LEN;
		if (wire_get16(f + 12) != ETH_TYPE_IP6 || ip[6] != IP6_NH_FRAGMENT)
			continue;
		const uint8_t *fh = ip + IP6_HDR_LEN;
		ck_assert_uint_eq(fh[0], IP6_NH_ICMP6);
		ck_assert_uint_le(n, ETH_HDR_LEN + 1500);
		uint16_t off = wire_get16(fh + 2) & 0xfff8;
		size_t k = wire_get16(ip + 4) - 8; /* the Fragment header */
		ck_assert_uint_le(off + k, sizeof(got));
		memcpy(got + off, fh + 8, k);
		total += k;
		frags++;
		last |= !(wire_get16(fh + 2) & 1);
	}
	ck_assert_uint_eq(frags, 3); /* 1448 + 1448 + 112 bytes */
	ck_assert(last);
	ck_assert_uint_eq(total, len);
	struct wire_view rv = {got, total};
	struct icmp_repr rep;
	ck_assert_int_eq(icmp6_parse(&rv, x.p.a6, x.p.b6, &rep, false), 0);
	ck_assert_uint_eq(rep.type, ICMP6_ECHO_REPLY);
	ck_assert_uint_eq(rep.rest, 0x00300001);
	ck_assert_uint_eq(rep.data_len, sizeof(data));
	ck_assert_mem_eq(rep.data, data, sizeof(data));
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.icmp6_echo_replies, 1);
	ck_assert_uint_eq(s.icmp6_bad, 0);
	ck_assert_uint_eq(s.out_too_big, 0);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_out_of_order_and_duplicate)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	frag(&x, 3, 2000, (uint16_t)(dgram_len - 2000));
	frag(&x, 3, 1000, 1000);
	frag(&x, 3, 1000, 1000); /* exact duplicate: ignored (RFC 8200 §4.5) */
	frag(&x, 3, 0, 1000);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	/* two datagrams interleaved */
	frag(&x, 4, 0, 1504);
	frag(&x, 5, 1504, (uint16_t)(dgram_len - 1504));
	frag(&x, 5, 0, 1504);
	frag(&x, 4, 1504, (uint16_t)(dgram_len - 1504));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 3);
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip6_reasm_ok, 3);
	ck_assert_uint_eq(s.ip6_reasm_drop, 0);
	ck_assert_uint_eq(s.ip4_reasm_ok, 0);
	tnu_pair_fini(&x.p);
}
END_TEST

START_TEST(reasm_overlap_drops_datagram)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	frag(&x, 6, 0, 1504);
	frag(&x, 6, 1496, (uint16_t)(dgram_len - 1496)); /* overlaps by 8 */
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	ck_assert_uint_eq(stats(&x).ip6_reasm_drop, 1);
	/* the queue is gone: the remaining fragment alone completes nothing */
	frag(&x, 6, 1504, (uint16_t)(dgram_len - 1504));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	/* RFC 8200 §4.5: no ICMP error for an overlap */
	uint8_t t, c, q[8];
	uint32_t r;
	ck_assert(!next_icmp6(&x, &t, &c, &r, q, sizeof(q)));
	ck_assert_uint_eq(stats(&x).ip4_reasm_drop, 0);
	tnu_pair_fini(&x.p);
}
END_TEST

/* RFC 8200 §4.5: 60 s after the first-arriving fragment the queue goes;
 * Time Exceeded code 1 quotes the first fragment, and only it. */
START_TEST(reasm_timeout)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	frag(&x, 7, 0, 1448);	 /* first fragment: an error at expiry */
	frag(&x, 8, 1448, 1448); /* a middle one only: silence */
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(net_next_deadline_ns(x.p.a) - x.p.now, 59999 * 1000000ull);
	x.p.now += 59997 * 1000000ull;
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(stats(&x).ip6_reasm_timeout, 0);
	tnu_run(&x.p, 1);
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip6_reasm_timeout, 2);
	ck_assert_uint_eq(s.ip4_reasm_timeout, 0);
	uint8_t t, c, q[IP6_HDR_LEN + 8];
	uint32_t r;
	ck_assert(next_icmp6(&x, &t, &c, &r, q, sizeof(q)));
	ck_assert_uint_eq(t, ICMP6_TIME_EXCEEDED);
	ck_assert_uint_eq(c, 1);
	ck_assert_mem_eq(q + 8, x.p.b6, 16); /* the fragment's source */
	ck_assert_uint_eq(q[6], IP6_NH_FRAGMENT);
	ck_assert_uint_eq(wire_get32(q + IP6_HDR_LEN + 4), 7);
	ck_assert(!next_icmp6(&x, &t, &c, &r, q, sizeof(q)));
	/* a late fragment starts afresh and completes nothing */
	frag(&x, 7, 1448, (uint16_t)(dgram_len - 1448));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	tnu_pair_fini(&x.p);
}
END_TEST

/* Sizes: past 65535 bytes of reassembled payload and a short non-final
 * fragment get §4.5's Parameter Problems; frag_max_size and the count of
 * concurrent datagrams (shared with IPv4) drop silently. */
START_TEST(reasm_too_big_and_limits)
{
	struct fx x;
	struct net_config c = {.frag_max_datagrams = 2, .frag_max_size = 2500};
	fx_init(&x, &c, AF_INET6);
	uint8_t t, code, q[IP6_HDR_LEN + 8];
	uint32_t r;
	static uint8_t junk[1024];
	/* offset 65528 + 16 bytes: over 65535 */
	static uint8_t far[65544];
	frag_of(&x, far, 9, 65528, 16, false, IPPROTO_UDP, false);
	tnu_run(&x.p, 1);
	ck_assert(next_icmp6(&x, &t, &code, &r, q, sizeof(q)));
	ck_assert_uint_eq(t, ICMP6_PARAM_PROBLEM);
	ck_assert_uint_eq(code, 0);
	ck_assert_uint_eq(r, IP6_HDR_LEN + 2); /* the Fragment Offset */
	/* M set on 1001 bytes */
	frag(&x, 10, 0, 1001);
	tnu_run(&x.p, 1);
	ck_assert(next_icmp6(&x, &t, &code, &r, q, sizeof(q)));
	ck_assert_uint_eq(t, ICMP6_PARAM_PROBLEM);
	ck_assert_uint_eq(code, 0);
	ck_assert_uint_eq(r, 4); /* the Payload Length */
	ck_assert_uint_eq(stats(&x).ip6_reasm_drop, 2);
	/* beyond frag_max_size (2500): silently dropped */
	frag(&x, 11, 0, 1600);
	frag(&x, 11, 1600, (uint16_t)(dgram_len - 1600));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 0);
	ck_assert_uint_eq(stats(&x).ip6_reasm_drop, 3);
	/* a third concurrent datagram, one of them IPv4: the oldest (the
	 * IPv4 one) is given up for it */
	uint8_t f[256];
	size_t n = tnu_ip4_frame(f, x.p.b4, x.p.a4, IPPROTO_UDP, 12, 0, true, junk, 64);
	tnu_raw_send(&x.p, f, n);
	frag(&x, 13, 0, 800);
	frag(&x, 14, 0, 800);
	tnu_run(&x.p, 1);
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ip6_reasm_drop, 3);
	ck_assert_uint_eq(s.reasm_evicted, 1);
	ck_assert_uint_eq(s.ip4_reasm_drop, 0);
	ck_assert_uint_eq(s.ip4_frag_in, 1);
	tnu_pair_fini(&x.p);
}
END_TEST

/* RFC 6946: offset 0 and M clear is the whole packet, delivered at once and
 * leaving the queue of the same ID alone. */
START_TEST(atomic_fragment)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	frag(&x, 15, 0, 1448);
	uint8_t small[64];
	size_t sl = tnu_udp(small, AF_INET6, x.p.b6, x.p.a6, 1234, 7000, "atom", 4);
	frag_of(&x, small, 15, 0, (uint16_t)sl, false, IPPROTO_UDP, false);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_uint_eq(x.g.len, 4);
	ck_assert_mem_eq(x.g.data, "atom", 4);
	frag(&x, 15, 1448, (uint16_t)(dgram_len - 1448));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 2);
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	ck_assert_uint_eq(stats(&x).ip6_reasm_ok, 1);
	/* RFC 6980 §5: a Neighbor Solicitation in a fragment is ignored */
	struct ndp_repr ns = {.type = NDP_NS, .has_lla = true};
	memcpy(ns.target, x.p.a6, 16);
	memcpy(ns.lla, tnu_mac_b, 6);
	uint8_t body[32], msg[64];
	struct icmp_repr ic;
	ndp_emit_body(&ns, body, sizeof(body), &ic);
	icmp6_emit(&ic, x.p.b6, x.p.a6, &(struct wire_view){msg, icmp_len(&ic)});
	struct net_stats s0 = stats(&x);
	frag_of(&x, msg, 18, 0, (uint16_t)icmp_len(&ic), false, IP6_NH_ICMP6, false);
	tnu_run(&x.p, 1);
	struct net_stats s = stats(&x);
	ck_assert_uint_eq(s.ndp_ns_in, s0.ndp_ns_in);
	ck_assert_uint_eq(s.icmp6_in, s0.icmp6_in + 1);
	tnu_pair_fini(&x.p);
}
END_TEST

/* RFC 7112: a first fragment holding a destination options header but not
 * the UDP header behind it is refused with Parameter Problem code 3. */
START_TEST(first_fragment_without_upper_header)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	static uint8_t d[4016];
	memset(d, 0, 8);
	d[0] = IPPROTO_UDP; /* 8 bytes of destination options, PadN */
	d[2] = 1;
	d[3] = 4;
	memcpy(d + 8, dgram, dgram_len);
	frag_of(&x, d, 16, 0, 8, true, IP6_NH_DSTOPTS, false);
	tnu_run(&x.p, 1);
	uint8_t t, c, q[IP6_HDR_LEN + 8];
	uint32_t r;
	ck_assert(next_icmp6(&x, &t, &c, &r, q, sizeof(q)));
	ck_assert_uint_eq(t, ICMP6_PARAM_PROBLEM);
	ck_assert_uint_eq(c, 3);
	ck_assert_uint_eq(r, 0);
	ck_assert_uint_eq(stats(&x).ip6_reasm_drop, 1);
	/* with the UDP header in it the same datagram passes */
	frag_of(&x, d, 17, 0, 16, true, IP6_NH_DSTOPTS, false);
	frag_of(&x, d, 17, 16, 1440, true, IP6_NH_DSTOPTS, false);
	frag_of(&x, d, 17, 1456, (uint16_t)(dgram_len + 8 - 1456), false, IP6_NH_DSTOPTS, false);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(x.g.n, 1);
	ck_assert_mem_eq(x.g.data, payload, sizeof(payload));
	tnu_pair_fini(&x.p);
}
END_TEST

/* Reads a's fragments of one datagram off the raw end into whole; returns
 * their count, checking each: Fragment header, one ID, 8-byte multiples,
 * M on all but the last, no larger than mtu. */
static unsigned read_frags(struct fx *x, uint8_t *whole, size_t cap, size_t *got, uint32_t mtu,
			   uint32_t *id_out)
{
	uint8_t f[2048];
	size_t n;
	unsigned k = 0;
	*got = 0;
	bool more = true;
	while (more && k < 64 && (n = tnu_raw_next(&x->p, f, sizeof(f)))) {
		const uint8_t *ip = f + ETH_HDR_LEN, *fh = ip + IP6_HDR_LEN;
		if (wire_get16(f + 12) != ETH_TYPE_IP6 || ip[6] != IP6_NH_FRAGMENT)
			continue;
		uint32_t plen = wire_get16(ip + 4);
		ck_assert_uint_le(IP6_HDR_LEN + plen, mtu);
		ck_assert_uint_eq(fh[0], IPPROTO_UDP);
		uint16_t om = wire_get16(fh + 2);
		ck_assert_uint_eq(om & 0xfff8u, *got);
		if (k == 0)
			*id_out = wire_get32(fh + 4);
		ck_assert_uint_eq(wire_get32(fh + 4), *id_out);
		uint32_t len = plen - 8;
		more = om & 1;
		if (more)
			ck_assert_uint_eq(len % 8, 0);
		ck_assert_uint_le(*got + len, cap);
		memcpy(whole + *got, fh + 8, len);
		*got += len;
		k++;
	}
	return k;
}

/* 4000 bytes to the raw side: three fragments of 1448 (1500 - 40 - 8, down
 * to a multiple of 8), 1448, 1112, and the UDP checksum of the whole; the
 * next datagram has another ID; a Packet Too Big shrinks the fragments. */
START_TEST(udp_send_fragments)
{
	struct fx x;
	fx_init(&x, NULL, AF_INET6);
	tnu_raw_drain(&x.p);
	static uint8_t big[4000], whole[4100];
	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 3);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, big, sizeof(big), AF_INET6, x.p.b6, 1234), 0);
	tnu_run(&x.p, 1);
	size_t got;
	uint32_t id1, id2;
	ck_assert_uint_eq(read_frags(&x, whole, sizeof(whole), &got, 1500, &id1), 3);
	ck_assert_uint_eq(got, 4008);
	ck_assert_uint_eq(wire_get16(whole + 4), 4008);
	ck_assert_mem_eq(whole + 8, big, sizeof(big));
	uint32_t ps = wire_csum_pseudo6(x.p.a6, x.p.b6, IPPROTO_UDP, 4008);
	ck_assert_uint_eq(wire_csum_fold(wire_csum_add(ps, whole, 4008)), 0xffff);
	ck_assert_uint_eq(stats(&x).ip6_frag_out, 3);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, big, sizeof(big), AF_INET6, x.p.b6, 1234), 0);
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(read_frags(&x, whole, sizeof(whole), &got, 1500, &id2), 3);
	ck_assert_uint_ne(id1, id2);
	/* a router's Packet Too Big (RFC 8201) quoting our first fragment */
	uint8_t inner[IP6_HDR_LEN + 16], msg[128], fr[256];
	struct ip6_repr ir = {.next_header = IP6_NH_FRAGMENT, .hop_limit = 64, .payload_len = 1456};
	memcpy(ir.src, x.p.a6, 16);
	memcpy(ir.dst, x.p.b6, 16);
	ip6_emit(&ir, &(struct wire_view){inner, IP6_HDR_LEN});
	memset(inner + IP6_HDR_LEN, 0, 16);
	inner[IP6_HDR_LEN] = IPPROTO_UDP;
	wire_put32(inner + IP6_HDR_LEN + 4, id2);
	wire_put16(inner + IP6_HDR_LEN + 8, 7000);
	struct icmp_repr pr = {
	    .type = ICMP6_PACKET_TOO_BIG, .rest = 1280, .data = inner, .data_len = sizeof(inner)};
	icmp6_emit(&pr, x.p.b6, x.p.a6, &(struct wire_view){msg, icmp_len(&pr)});
	tnu_raw_send(&x.p, fr,
		     tnu_ip6_frame(fr, x.p.b6, x.p.a6, IP6_NH_ICMP6, 64, msg, icmp_len(&pr)));
	tnu_run(&x.p, 1);
	ck_assert_uint_eq(stats(&x).pmtu_updates, 1);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, big, sizeof(big), AF_INET6, x.p.b6, 1234), 0);
	tnu_run(&x.p, 1);
	/* 1280 - 48 = 1232: four fragments */
	ck_assert_uint_eq(read_frags(&x, whole, sizeof(whole), &got, 1280, &id1), 4);
	ck_assert_uint_eq(got, 4008);
	ck_assert_mem_eq(whole + 8, big, sizeof(big));
	/* the largest IPv6 UDP payload (65527 bytes, as Linux), and one over */
	static uint8_t max[65528];
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, max, 65527, AF_INET6, x.p.b6, 1234), 0);
	ck_assert_int_eq(net_udp_sendto(x.p.a, x.s, max, 65528, AF_INET6, x.p.b6, 1234), -EMSGSIZE);
	tnu_pair_fini(&x.p);
}
END_TEST

/* Stack to stack: what one fragments the other reassembles, up to the
 * largest datagram. */
START_TEST(udp_fragments_round_trip)
{
	struct tnu_pair p;
	static struct udp_got g;
	memset(&g, 0, sizeof(g));
	tnu_pair_init(&p, NULL, true);
	struct net_udp_sock *sa, *sb;
	ck_assert_int_eq(net_udp_open(p.a, AF_INET6, NULL, 7000, tnu_udp_cb, &g, &sa), 0);
	ck_assert_int_eq(net_udp_open(p.b, AF_INET6, NULL, 0, tnu_udp_cb, &g, &sb), 0);
	static uint8_t big[65527];
	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 11 + 5);
	/* the three fragments wait together for ND (8 frames are queued) */
	ck_assert_int_eq(net_udp_sendto(p.b, sb, big, 3001, AF_INET6, p.a6, 7000), 0);
	tnu_run(&p, 50);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.len, 3001);
	ck_assert_mem_eq(g.data, big, 3001);
	const size_t sizes[] = {1453, 9000, 65527};
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(net_udp_sendto(p.b, sb, big, sizes[i], AF_INET6, p.a6, 7000), 0);
		tnu_run(&p, 2);
		ck_assert_uint_eq(g.n, 2 + i);
		ck_assert_uint_eq(g.len, sizes[i]);
		ck_assert_mem_eq(g.data, big, sizes[i]);
	}
	struct net_stats s;
	net_get_stats(p.a, &s);
	ck_assert_uint_eq(s.ip6_reasm_ok, 4);
	ck_assert_uint_eq(s.ip6_reasm_drop, 0);
	ck_assert_uint_eq(s.udp_bad_csum, 0);
	net_get_stats(p.b, &s);
	ck_assert_uint_eq(s.ip6_frag_out, 3 + 2 + 7 + 46);
	tnu_pair_fini(&p);
}
END_TEST

static Suite *ip6_suite(void)
{
	Suite *s = suite_create("ip6");
	TCase *tc = tcase_create("ip6");
	tcase_add_test(tc, reasm_in_order);
	tcase_add_test(tc, echo_reassembled_answered_in_fragments);
	tcase_add_test(tc, reasm_out_of_order_and_duplicate);
	tcase_add_test(tc, reasm_overlap_drops_datagram);
	tcase_add_test(tc, reasm_timeout);
	tcase_add_test(tc, reasm_too_big_and_limits);
	tcase_add_test(tc, atomic_fragment);
	tcase_add_test(tc, first_fragment_without_upper_header);
	tcase_add_test(tc, udp_send_fragments);
	tcase_add_test(tc, udp_fragments_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_ip6", ip6_suite)
