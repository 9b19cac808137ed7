/* tcp_wire: parse(emit(r)) round trips, option layouts, the RFC 7323 §2.3
 * clamp, refusal of truncated/garbage headers, the checksum. */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "check_main.h"
#include "wire/wire.h"

static struct tcp_repr base(void)
{
	struct tcp_repr r;
	memset(&r, 0, sizeof(r));
	r.sport = 1234;
	r.dport = 80;
	r.seq = 0xfffffff0u;
	r.ack = 7;
	r.flags = TCP_ACK;
	r.window = 512;
	r.wscale = -1;
	return r;
}

START_TEST(roundtrip_syn_options)
{
	struct tcp_repr r = base(), p;
	r.flags = TCP_SYN | TCP_ECE | TCP_CWR;
	r.mss = 1460;
	r.wscale = 7;
	r.sack_perm = true;
	r.ts = true;
	r.tsval = 0x01020304;
	r.tsecr = 0;
	uint8_t buf[60];
	size_t hl = tcp_repr_hdr_len(&r);
	ck_assert_uint_eq(hl, 40); /* Linux's SYN: MSS, SACK_PERM+TS, NOP+WS */
	tcp_emit(&r, buf);
	/* Byte layout as Linux's tcp_options_write */
	static const uint8_t opts[] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2,
				       3, 4, 0,	   0,	 0, 0, 1, 3,  3, 7};
	ck_assert_mem_eq(buf + 20, opts, sizeof(opts));
	ck_assert_int_eq(tcp_parse(buf, hl, &p), 40);
	ck_assert_uint_eq(p.mss, 1460);
	ck_assert_int_eq(p.wscale, 7);
	ck_assert(p.sack_perm);
	ck_assert(p.ts);
	ck_assert_uint_eq(p.tsval, 0x01020304);
	ck_assert_uint_eq(p.seq, r.seq);
	ck_assert_uint_eq(p.flags, r.flags);
}
END_TEST

START_TEST(roundtrip_sack_blocks)
{
	struct tcp_repr r = base(), p;
	r.ts = true;
	r.tsval = 5;
	r.tsecr = 6;
	r.nsack = 4; /* only 3 fit with timestamps */
	for (int i = 0; i < 4; i++) {
		r.sack[i].l = 100u * (uint32_t)i;
		r.sack[i].r = 100u * (uint32_t)i + 50;
	}
	uint8_t buf[60];
	size_t hl = tcp_repr_hdr_len(&r);
	ck_assert_uint_eq(hl, 20 + 12 + 4 + 24);
	tcp_emit(&r, buf);
	ck_assert_int_eq(tcp_parse(buf, hl, &p), (int)hl);
	ck_assert_uint_eq(p.nsack, 3);
	ck_assert_uint_eq(p.sack[2].l, 200);
	ck_assert_uint_eq(p.sack[2].r, 250);
	ck_assert_uint_eq(p.tsecr, 6);
	/* SYN-only options are ignored outside a SYN */
	ck_assert_uint_eq(p.mss, 0);
	ck_assert_int_eq(p.wscale, -1);
}
END_TEST

START_TEST(wscale_clamped)
{
	struct tcp_repr r = base(), p;
	r.flags = TCP_SYN;
	r.wscale = 14;
	uint8_t buf[60];
	tcp_emit(&r, buf);
	buf[20 + 3] = 15; /* NOP, WS, 3, 15 */
	ck_assert_int_eq(tcp_parse(buf, tcp_repr_hdr_len(&r), &p), 24);
	ck_assert_int_eq(p.wscale, 14);
}
END_TEST

START_TEST(bad_headers)
{
	struct tcp_repr r = base(), p;
	uint8_t buf[60];
	tcp_emit(&r, buf);
	for (size_t n = 0; n < 20; n++)
		ck_assert_int_eq(tcp_parse(buf, n, &p), -EINVAL);
	buf[12] = 4 << 4; /* data offset below 5 */
	ck_assert_int_eq(tcp_parse(buf, 20, &p), -EINVAL);
	buf[12] = 6 << 4; /* header longer than the buffer */
	ck_assert_int_eq(tcp_parse(buf, 20, &p), -EINVAL);
	tcp_emit(&r, buf);
	buf[13] = TCP_SYN | TCP_FIN;
	ck_assert_int_eq(tcp_parse(buf, 20, &p), -EINVAL);
	buf[13] = TCP_SYN | TCP_RST;
	ck_assert_int_eq(tcp_parse(buf, 20, &p), -EINVAL);
	r.sport = 0;
	tcp_emit(&r, buf);
	ck_assert_int_eq(tcp_parse(buf, 20, &p), -EINVAL);
	ck_assert_int_eq(tcp_parse(NULL, 20, &p), -EINVAL);
}
END_TEST

START_TEST(malformed_options_stop)
{
	struct tcp_repr r = base(), p;
	r.flags = TCP_SYN;
	r.mss = 1000;
	r.wscale = 3;
	uint8_t buf[60];
	tcp_emit(&r, buf); /* MSS(4) NOP WS(3) */
	buf[20 + 5] = 0;   /* WS length 0: malformed */
	ck_assert_int_eq(tcp_parse(buf, 28, &p), 28);
	ck_assert_uint_eq(p.mss, 1000);
	ck_assert_int_eq(p.wscale, -1);
	/* an option running past the header */
	buf[20 + 1] = 40;
	ck_assert_int_eq(tcp_parse(buf, 28, &p), 28);
	ck_assert_uint_eq(p.mss, 0);
	/* garbage never reads out of bounds: every byte pattern of a 24-byte header */
	for (unsigned v = 0; v < 256; v++) {
		memset(buf + 20, (int)v, 4);
		(void)tcp_parse(buf, 24, &p);
	}
}
END_TEST

START_TEST(checksum)
{
	/* A segment with a correct checksum sums to zero. */
	struct tcp_repr r = base();
	uint8_t seg[24 + 3];
	tcp_emit(&r, seg);
	memcpy(seg + 20, "abcdefg", 7); /* odd length */
	uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
	uint16_t c = tcp_checksum(AF_INET, src, dst, seg, 27);
	seg[16] = (uint8_t)(c >> 8);
	seg[17] = (uint8_t)c;
	ck_assert_uint_eq(tcp_checksum(AF_INET, src, dst, seg, 27), 0);
	seg[25] ^= 1;
	ck_assert_uint_ne(tcp_checksum(AF_INET, src, dst, seg, 27), 0);
	uint8_t s6[16] = {0xfd}, d6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	seg[25] ^= 1;
	seg[16] = seg[17] = 0;
	c = tcp_checksum(AF_INET6, s6, d6, seg, 27);
	seg[16] = (uint8_t)(c >> 8);
	seg[17] = (uint8_t)c;
	ck_assert_uint_eq(tcp_checksum(AF_INET6, s6, d6, seg, 27), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_wire");
	TCase *tc = tcase_create("wire");
	tcase_add_test(tc, roundtrip_syn_options);
	tcase_add_test(tc, roundtrip_sack_blocks);
	tcase_add_test(tc, wscale_clamped);
	tcase_add_test(tc, bad_headers);
	tcase_add_test(tc, malformed_options_stop);
	tcase_add_test(tc, checksum);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
