/* tcp_isn: initial sequence numbers per RFC 6528 §3: ISN = M + F(4-tuple,
 * secret), M a 4 µs clock, F SipHash-2-4 keyed from the stack seed; the same
 * hash with another tweak gives the per-connection timestamp offset (RFC
 * 7323 §7.1, as Linux randomises TSval per connection). */
#include <string.h>

#include "tcp_int.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound on four words kept in registers: a SYN flood answered with
 * cookies spends most of its time here (four hashes a SYN), and an
 * out-of-line round on an array in memory cost three times as much. */
#define SIPROUND(v0, v1, v2, v3)                                                                   \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL(v1, 13);                                                                 \
		v1 ^= v0;                                                                          \
		v0 = ROTL(v0, 32);                                                                 \
		v2 += v3;                                                                          \
		v3 = ROTL(v3, 16);                                                                 \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL(v3, 21);                                                                 \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL(v1, 17);                                                                 \
		v1 ^= v2;                                                                          \
		v2 = ROTL(v2, 32);                                                                 \
	} while (0)

static uint64_t siphash(const uint64_t key[2], const uint64_t *w, size_t nw)
{
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ull, v1 = key[1] ^ 0x646f72616e646f6dull,
		 v2 = key[0] ^ 0x6c7967656e657261ull, v3 = key[1] ^ 0x7465646279746573ull;
	for (size_t i = 0; i < nw; i++) {
		v3 ^= w[i];
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= w[i];
	}
	uint64_t b = (uint64_t)(nw * 8) << 56;
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t tuple_hash(struct tcp *tcp, const struct tcp_tuple *t, uint64_t tweak)
{
	uint64_t w[6];
	memcpy(w, t, sizeof(*t)); /* 40 bytes */
	w[5] = tweak;
	return siphash(tcp->isn_key, w, 6);
}

uint32_t tcp_isn(struct tcp *tcp, const struct tcp_tuple *t, uint64_t now)
{
	return (uint32_t)(now / 4000u) + (uint32_t)tuple_hash(tcp, t, 1);
}

uint32_t tcp_tuple_hash32(struct tcp *tcp, const struct tcp_tuple *t, uint64_t tweak)
{
	return (uint32_t)tuple_hash(tcp, t, tweak);
}

uint32_t tcp_ts_offset(struct tcp *tcp, const struct tcp_tuple *t)
{
	return (uint32_t)tuple_hash(tcp, t, 2);
}
