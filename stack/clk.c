/* clk: the real and the manual clock, and the seeded xoshiro256** generator.
 * The real clock is CLOCK_MONOTONIC through the vDSO (no syscall, no EAL
 * needed, immune to TSC frequency calibration): the stack reads it once per
 * poll, so its ~20 ns cost is negligible next to a burst. */
#include "clk.h"

#include <time.h>

static uint64_t clk_real_now(void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CLK_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t clk_manual_now(void *arg)
{
	return *(const uint64_t *)arg;
}

void clk_init_real(struct clk *c)
{
	c->now_ns = clk_real_now;
	c->arg = NULL;
}

void clk_init_manual(struct clk *c, uint64_t *now_ns)
{
	c->now_ns = clk_manual_now;
	c->arg = now_ns;
}

static uint64_t rnd_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rnd_seed(struct rnd *r, uint64_t seed)
{
	/* splitmix64 expands the seed so that nearby seeds give unrelated
	 * streams and the state is never all zero. */
	for (int i = 0; i < 4; i++)
		r->s[i] = rnd_splitmix(&seed);
}

static inline uint64_t rnd_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rnd_u64(struct rnd *r)
{
	uint64_t *s = r->s;
	uint64_t result = rnd_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rnd_rotl(s[3], 45);
	return result;
}

uint32_t rnd_u32(struct rnd *r)
{
	return (uint32_t)(rnd_u64(r) >> 32);
}

uint32_t rnd_below(struct rnd *r, uint32_t bound)
{
	if (bound <= 1)
		return 0;
	/* Lemire's multiply-shift with rejection of the biased low range. */
	uint64_t m = (uint64_t)rnd_u32(r) * bound;
	uint32_t low = (uint32_t)m;
	if (low < bound) {
		uint32_t thresh = (uint32_t)(-bound) % bound;
		while (low < thresh) {
			m = (uint64_t)rnd_u32(r) * bound;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}
