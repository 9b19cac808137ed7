/* Tracked numbers: a value/mask pair of known bits, with the arithmetic of
 * the kernel's kernel/bpf/tnum.c (Edward Cree's tnums), written anew. */
#include "vrf_tnum.h"

struct vrf_tnum vrf_tnum_const(uint64_t v)
{
	return (struct vrf_tnum){v, 0};
}

struct vrf_tnum vrf_tnum_unknown(void)
{
	return (struct vrf_tnum){0, ~0ull};
}

bool vrf_tnum_is_const(struct vrf_tnum t)
{
	return t.mask == 0;
}

struct vrf_tnum vrf_tnum_range(uint64_t min, uint64_t max)
{
	uint64_t chi = min ^ max;
	if (!chi)
		return vrf_tnum_const(min);
	int bits = 64 - __builtin_clzll(chi);
	if (bits > 63)
		return vrf_tnum_unknown();
	uint64_t delta = (1ull << bits) - 1;
	return (struct vrf_tnum){min & ~delta, delta};
}

struct vrf_tnum vrf_tnum_add(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t sm = a.mask + b.mask, sv = a.value + b.value;
	uint64_t sigma = sm + sv, chi = sigma ^ sv;
	uint64_t mu = chi | a.mask | b.mask;
	return (struct vrf_tnum){sv & ~mu, mu};
}

struct vrf_tnum vrf_tnum_sub(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t dv = a.value - b.value;
	uint64_t alpha = dv + a.mask, beta = dv - b.mask;
	uint64_t chi = alpha ^ beta, mu = chi | a.mask | b.mask;
	return (struct vrf_tnum){dv & ~mu, mu};
}

struct vrf_tnum vrf_tnum_and(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t alpha = a.value | a.mask, beta = b.value | b.mask;
	uint64_t v = a.value & b.value;
	return (struct vrf_tnum){v, alpha & beta & ~v};
}

struct vrf_tnum vrf_tnum_or(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t v = a.value | b.value, mu = a.mask | b.mask;
	return (struct vrf_tnum){v, mu & ~v};
}

struct vrf_tnum vrf_tnum_xor(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t v = a.value ^ b.value, mu = a.mask | b.mask;
	return (struct vrf_tnum){v & ~mu, mu};
}

struct vrf_tnum vrf_tnum_lshift(struct vrf_tnum a, unsigned s)
{
	return (struct vrf_tnum){a.value << s, a.mask << s};
}

struct vrf_tnum vrf_tnum_rshift(struct vrf_tnum a, unsigned s)
{
	return (struct vrf_tnum){a.value >> s, a.mask >> s};
}

struct vrf_tnum vrf_tnum_arshift(struct vrf_tnum a, unsigned s, bool is32)
{
	if (is32)
		return (struct vrf_tnum){(uint32_t)((int32_t)a.value >> s),
					 (uint32_t)((int32_t)a.mask >> s)};
	return (struct vrf_tnum){(uint64_t)((int64_t)a.value >> s),
				 (uint64_t)((int64_t)a.mask >> s)};
}

/* Multiplication by partial products: known bits of a select b, unknown bits
 * of a add b's possible bits as unknown. */
struct vrf_tnum vrf_tnum_mul(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t acc_v = a.value * b.value;
	struct vrf_tnum acc_m = {0, 0};
	for (int i = 0; i < 64 && (a.value || a.mask); i++) {
		if (a.value & 1)
			acc_m = vrf_tnum_add(acc_m, (struct vrf_tnum){0, b.mask});
		else if (a.mask & 1)
			acc_m = vrf_tnum_add(acc_m, (struct vrf_tnum){0, b.value | b.mask});
		a = vrf_tnum_rshift(a, 1);
		b = vrf_tnum_lshift(b, 1);
	}
	return vrf_tnum_add(vrf_tnum_const(acc_v), acc_m);
}

struct vrf_tnum vrf_tnum_intersect(struct vrf_tnum a, struct vrf_tnum b)
{
	uint64_t v = a.value | b.value, mu = a.mask & b.mask;
	return (struct vrf_tnum){v & ~mu, mu};
}

bool vrf_tnum_conflict(struct vrf_tnum a, struct vrf_tnum b)
{
	return ((a.value ^ b.value) & ~a.mask & ~b.mask) != 0;
}

/* true when every value of b is a value of a */
bool vrf_tnum_in(struct vrf_tnum a, struct vrf_tnum b)
{
	if (b.mask & ~a.mask)
		return false;
	return a.value == (b.value & ~a.mask);
}

struct vrf_tnum vrf_tnum_subreg(struct vrf_tnum a)
{
	return (struct vrf_tnum){a.value & 0xffffffffull, a.mask & 0xffffffffull};
}

struct vrf_tnum vrf_tnum_with_subreg(struct vrf_tnum a, struct vrf_tnum lo)
{
	return (struct vrf_tnum){(a.value & ~0xffffffffull) | (lo.value & 0xffffffffull),
				 (a.mask & ~0xffffffffull) | (lo.mask & 0xffffffffull)};
}

int vrf_tnum_str(char *buf, size_t size, struct vrf_tnum t)
{
	return snprintf(buf, size, "(0x%llx; 0x%llx)", (unsigned long long)t.value,
			(unsigned long long)t.mask);
}
