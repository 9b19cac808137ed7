/* Program tags (docs/sockops.md §7). Linux 4.13's bpf_prog_calc_tag hashes the
 * instructions with SHA-1 after zeroing the imm of both slots of every ld_imm64
 * that references a map, so the tag does not depend on fd numbers; Linux 6.18
 * hashes the same bytes with SHA-256 (bpf_prog_calc_tag → sha256(), the tag is
 * the digest's first 8 bytes). bpfvm_prog_tag is the 4.13 (SHA-1) tag,
 * bpfvm_prog_tag_sha256 the 6.18 one. SHA-1 and SHA-256 follow FIPS 180-4. */
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

/* ---- SHA-1 (FIPS 180-4 §6.1) ------------------------------------------- */

static uint32_t rol32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void sha1_block(uint32_t h[5], const uint8_t *blk)
{
	uint32_t w[80];
	for (int t = 0; t < 16; t++)
		w[t] = be32(blk + 4 * t);
	for (int t = 16; t < 80; t++)
		w[t] = rol32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int t = 0; t < 80; t++) {
		uint32_t f, k;
		if (t < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (t < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		uint32_t tmp = rol32(a, 5) + f + e + k + w[t];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

/* ---- SHA-256 (FIPS 180-4 §6.2) ----------------------------------------- */

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_block(uint32_t h[8], const uint8_t *blk)
{
	uint32_t w[64];
	for (int t = 0; t < 16; t++)
		w[t] = be32(blk + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror32(w[t - 15], 7) ^ ror32(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror32(w[t - 2], 17) ^ ror32(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t S1 = ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + sha256_k[t] + w[t];
		uint32_t S0 = ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

/* Both hashes share the Merkle–Damgård padding of FIPS 180-4 §5.1.1: 0x80,
 * zeros to 56 mod 64, then the bit length big-endian. */
static void md_hash(const uint8_t *msg, size_t len, uint32_t *h,
		    void (*block)(uint32_t *, const uint8_t *))
{
	size_t full = len / 64 * 64;
	for (size_t i = 0; i < full; i += 64)
		block(h, msg + i);
	uint8_t tail[128] = {0};
	size_t rest = len - full;
	memcpy(tail, msg + full, rest);
	tail[rest] = 0x80;
	size_t tlen = rest + 1 + 8 <= 64 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;
	put_be32(tail + tlen - 8, (uint32_t)(bits >> 32));
	put_be32(tail + tlen - 4, (uint32_t)bits);
	for (size_t i = 0; i < tlen; i += 64)
		block(h, tail + i);
}

static void sha1_block_v(uint32_t *h, const uint8_t *b)
{
	sha1_block(h, b);
}

static void sha256_block_v(uint32_t *h, const uint8_t *b)
{
	sha256_block(h, b);
}

void bpfvm_sha1(const void *msg, size_t len, uint8_t digest[20])
{
	uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
	md_hash(msg, len, h, sha1_block_v);
	for (int i = 0; i < 5; i++)
		put_be32(digest + 4 * i, h[i]);
}

void bpfvm_sha256(const void *msg, size_t len, uint8_t digest[32])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	md_hash(msg, len, h, sha256_block_v);
	for (int i = 0; i < 8; i++)
		put_be32(digest + 4 * i, h[i]);
}

/* ---- the tag ----------------------------------------------------------- */

#define LD_IMM64 (BPF_LD | BPF_IMM | BPF_DW)

/* Copy of insns as bpf_prog_calc_tag sees them: a map-referencing ld_imm64
 * (src PSEUDO_MAP_FD or PSEUDO_MAP_VALUE) loses its imm, and so does its second
 * slot when that is a well-formed continuation (code, regs and off zero). */
static struct bpfvm_insn *tag_input(const struct bpfvm_insn *insns, size_t n)
{
	struct bpfvm_insn *dst = malloc(n ? n * sizeof(*dst) : 1);
	if (!dst)
		return NULL;
	bool was_ld_map = false;
	for (size_t i = 0; i < n; i++) {
		dst[i] = insns[i];
		if (!was_ld_map && dst[i].code == LD_IMM64 &&
		    (dst[i].src == BPF_PSEUDO_MAP_FD || dst[i].src == BPF_PSEUDO_MAP_VALUE)) {
			was_ld_map = true;
			dst[i].imm = 0;
		} else if (was_ld_map && dst[i].code == 0 && dst[i].dst == 0 && dst[i].src == 0 &&
			   dst[i].off == 0) {
			was_ld_map = false;
			dst[i].imm = 0;
		} else {
			was_ld_map = false;
		}
	}
	return dst;
}

void bpfvm_prog_tag(const struct bpfvm_insn *insns, size_t n, uint8_t tag[BPFVM_TAG_SIZE])
{
	uint8_t digest[20] = {0};
	struct bpfvm_insn *dst = tag_input(insns, n);
	/* Without memory for the copy the tag is all zeros, as for a program
	 * the kernel has not tagged yet; callers never fail a load on it. */
	if (dst)
		bpfvm_sha1(dst, n * sizeof(*dst), digest);
	free(dst);
	memcpy(tag, digest, BPFVM_TAG_SIZE);
}

void bpfvm_prog_tag_sha256(const struct bpfvm_insn *insns, size_t n, uint8_t tag[BPFVM_TAG_SIZE])
{
	uint8_t digest[32] = {0};
	struct bpfvm_insn *dst = tag_input(insns, n);
	if (dst)
		bpfvm_sha256(dst, n * sizeof(*dst), digest);
	free(dst);
	memcpy(tag, digest, BPFVM_TAG_SIZE);
}
