/* tcp_isn: initial sequence numbers per RFC 6528 §3: ISN = M + F(4-tuple,
 * secret), M a 4 µs clock, F SipHash-2-4 keyed from the stack seed; the same
 * hash with another tweak gives the per-connection timestamp offset (RFC
 * 7323 §7.1, as Linux randomises TSval per connection). */
#include <string.h>

#include "tcp_int.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

static uint64_t siphash(const uint64_t key[2], const uint64_t *w, size_t nw)
{
	uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
			 key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
	for (size_t i = 0; i < nw; i++) {
		v[3] ^= w[i];
		sipround(v);
		sipround(v);
		v[0] ^= w[i];
	}
	uint64_t b = (uint64_t)(nw * 8) << 56;
	v[3] ^= b;
	sipround(v);
	sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (int i = 0; i < 4; i++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
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
