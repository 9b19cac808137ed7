/* clk: the injected clock and the seeded random generator of the stack.
 * The stack reads the clock once per poll (docs/style.md "Clock"); tests
 * and the simulation drive a manual clock. ISNs, ports and faults draw from a
 * seeded struct rnd so every run reproduces from its seed. */
#ifndef SKOPS_STACK_CLK_H
#define SKOPS_STACK_CLK_H

#include <stdint.h>

struct clk {
	uint64_t (*now_ns)(void *arg);
	void *arg;
};

/* Monotonic wall time in nanoseconds (CLOCK_MONOTONIC); needs no EAL. */
void clk_init_real(struct clk *c);
/* Reads *now_ns on every call; the caller advances it (test/sim clock). The
 * pointer must outlive the clock. */
void clk_init_manual(struct clk *c, uint64_t *now_ns);

/* Time units: the clock counts nanoseconds; configs and the TCP state carry
 * milliseconds, microseconds and seconds. */
#define CLK_NS_PER_US 1000ull
#define CLK_NS_PER_MS 1000000ull
#define CLK_NS_PER_S  1000000000ull
#define CLK_US_PER_MS 1000u
#define CLK_US_PER_S  1000000u

static inline uint64_t clk_now(const struct clk *c)
{
	return c->now_ns(c->arg);
}

/* xoshiro256** seeded through splitmix64: fast, 256 bits of state, and the
 * same sequence for the same seed on every platform. Not cryptographic: RFC
 * 6528 ISNs mix a keyed hash over this. */
struct rnd {
	uint64_t s[4];
};

void rnd_seed(struct rnd *r, uint64_t seed);
uint64_t rnd_u64(struct rnd *r);
uint32_t rnd_u32(struct rnd *r);
/* Uniform in [0, bound) (bound > 0), without modulo bias. */
uint32_t rnd_below(struct rnd *r, uint32_t bound);

#endif
