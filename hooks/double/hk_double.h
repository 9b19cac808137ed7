/* An in-memory socket for hooks tests: implements struct hooks_sock_ops the
 * way a Linux-like stack would (buffer = max(2 x val, minimum), CC by name,
 * initial cwnd only before data, clamp sets ssthresh) and records every
 * setsockopt that reached it, so tests can compare effects with a model. */
#ifndef SKOPS_TEST_HK_DOUBLE_H
#define SKOPS_TEST_HK_DOUBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "hooks.h"

#define HKD_MAX_CALLS	    16
#define HKD_SOCK_MIN_SNDBUF 4608 /* Linux SOCK_MIN_SNDBUF on 64-bit */
#define HKD_SOCK_MIN_RCVBUF 2304

struct hkd_call {
	int level, optname;
	int32_t val;  /* int options */
	char str[16]; /* TCP_CONGESTION */
	int err;      /* what the double returned */
};

struct hkd_sock {
	struct hooks_sock hs; /* first: container_of is a cast */
	struct hooks_sk_info info;
	uint32_t groups_asked; /* union of info() group masks */
	unsigned info_calls;

	/* state the options change */
	uint32_t sndbuf, rcvbuf;
	bool sndbuf_locked, rcvbuf_locked;
	char cc[16];
	uint32_t cwnd, cwnd_clamp, ssthresh;
	int32_t ints[64]; /* other int options, by a small index */
	uint32_t txhash;
	unsigned txhash_calls;

	struct hkd_call calls[HKD_MAX_CALLS];
	unsigned ncalls;
};

extern const struct hooks_sock_ops hkd_ops;

/* Family 2 or 10; addresses: word 0 of the local IPv6 address is fixed, the
 * remote one shares the /52 prefix when near, else differs in word 0. */
void hkd_init(struct hkd_sock *d, uint32_t family, uint16_t local_port, uint16_t remote_port,
	      bool near);
void hkd_reset_calls(struct hkd_sock *d);

#endif
