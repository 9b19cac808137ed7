/* The fixture of the fragment tests (test_ip4, test_ip6): net a with a UDP
 * socket on port 7000 of one family, the raw end of the wire introduced to
 * it, and a 3000-byte UDP datagram from the raw end to cut into fragments. */
#ifndef SKOPS_TEST_UNIT_STACK_TEST_FRAG_UTIL_H
#define SKOPS_TEST_UNIT_STACK_TEST_FRAG_UTIL_H

#include "test_net_util.h"

static uint8_t dgram[4000];
static size_t dgram_len;
static uint8_t payload[3000];

struct fx {
	struct tnu_pair p;
	struct udp_got g;
	struct net_udp_sock *s;
};

static void fx_init(struct fx *x, const struct net_config *c, uint8_t family)
{
	memset(&x->g, 0, sizeof(x->g));
	tnu_pair_init(&x->p, c, false);
	ck_assert_int_eq(net_udp_open(x->p.a, family, NULL, 7000, tnu_udp_cb, &x->g, &x->s), 0);
	tnu_raw_hello(&x->p);
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13 + 1);
	const void *src = family == AF_INET ? (const void *)&x->p.b4 : x->p.b6;
	const void *dst = family == AF_INET ? (const void *)&x->p.a4 : x->p.a6;
	dgram_len = tnu_udp(dgram, family, src, dst, 1234, 7000, payload, sizeof(payload));
}

static struct net_stats stats(struct fx *x)
{
	struct net_stats s;
	net_get_stats(x->p.a, &s);
	return s;
}

#endif
