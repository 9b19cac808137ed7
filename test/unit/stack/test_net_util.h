/* Helpers of the net-layer unit tests: the EAL (no hugepages, no PCI, a
 * unique file prefix) initialised once per executable, Check run without
 * fork (the EAL cannot be initialised twice), and two struct net instances
 * joined by a dev_wire under a manual clock. */
#ifndef SKOPS_TEST_UNIT_STACK_TEST_NET_UTIL_H
#define SKOPS_TEST_UNIT_STACK_TEST_NET_UTIL_H

#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "clk.h"
#include "dev/dev.h"
#include "net/net.h"

static inline void tnu_eal_init(const char *name)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=skops-%s-%d", name, (int)getpid());
	char *argv[] = {(char *)name, "--no-huge",	   "--no-pci",	     "-m", "256",
			prefix,	      "--log-level=error", "--no-telemetry", NULL};
	char err[256] = "";
	if (dev_eal_init(8, argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: EAL init failed: %s\n", name, err);
		exit(EXIT_FAILURE);
	}
}

#define TNU_MAIN(name, suite_fn)                                                                   \
	int main(void)                                                                             \
	{                                                                                          \
		tnu_eal_init(name);                                                                \
		SRunner *sr = srunner_create(suite_fn());                                          \
		srunner_set_fork_status(sr, CK_NOFORK);                                            \
		srunner_run_all(sr, CK_NORMAL);                                                    \
		int failed = srunner_ntests_failed(sr);                                            \
		srunner_free(sr);                                                                  \
		rte_eal_cleanup();                                                                 \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                       \
	}

static inline struct rte_mempool *tnu_pool(const char *tag)
{
	static unsigned seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "t_%s_%u", tag, seq++);
	struct rte_mempool *p =
	    rte_pktmbuf_pool_create(name, 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	ck_assert_msg(p != NULL, "mempool %s", name);
	return p;
}

/* Two hosts on one wire: a = 198.18.0.1/24 + fd00:1::1/64, b = .2 / ::2. */
struct tnu_pair {
	uint64_t now;
	struct clk clk;
	struct rte_mempool *pool;
	struct dev *da, *db;
	struct net *a, *b;
	uint32_t a4, b4;
	uint8_t a6[16], b6[16];
};

static inline void tnu_addrs(struct net_config *c, uint32_t v4, const uint8_t v6[16])
{
	c->addrs[0].family = AF_INET;
	c->addrs[0].prefix_len = 24;
	c->addrs[0].addr.v4 = v4;
	c->addrs[1].family = AF_INET6;
	c->addrs[1].prefix_len = 64;
	memcpy(c->addrs[1].addr.v6, v6, 16);
	c->naddrs = 2;
}

static inline void tnu_pair_init(struct tnu_pair *p, const struct net_config *tmpl, bool make_b)
{
	memset(p, 0, sizeof(*p));
	p->now = 1000000000ull;
	clk_init_manual(&p->clk, &p->now);
	p->pool = tnu_pool("pair");
	ck_assert_int_eq(dev_wire_pair_create(&p->clk, &p->da, &p->db), 0);
	inet_pton(AF_INET, "198.18.0.1", &p->a4);
	inet_pton(AF_INET, "198.18.0.2", &p->b4);
	inet_pton(AF_INET6, "fd00:1::1", p->a6);
	inet_pton(AF_INET6, "fd00:1::2", p->b6);
	struct net_config c;
	if (tmpl)
		c = *tmpl;
	else
		memset(&c, 0, sizeof(c));
	c.pool = p->pool;
	c.clk = &p->clk;
	c.dev = p->da;
	c.seed = 1;
	tnu_addrs(&c, p->a4, p->a6);
	ck_assert_int_eq(net_create(&c, &p->a), 0);
	if (make_b) {
		c.dev = p->db;
		c.seed = 2;
		tnu_addrs(&c, p->b4, p->b6);
		ck_assert_int_eq(net_create(&c, &p->b), 0);
	}
}

static inline void tnu_pair_fini(struct tnu_pair *p)
{
	net_destroy(p->a);
	net_destroy(p->b);
	dev_destroy(p->da);
	dev_destroy(p->db);
	rte_mempool_free(p->pool);
}

/* Advances the clock in 1 ms steps for ms, polling and flushing both. */
static inline void tnu_run(struct tnu_pair *p, unsigned ms)
{
	for (unsigned i = 0; i <= ms; i++) {
		for (int k = 0; k < 4; k++) {
			net_poll(p->a, p->now);
			net_flush(p->a);
			if (p->b) {
				net_poll(p->b, p->now);
				net_flush(p->b);
			}
		}
		if (i < ms)
			p->now += 1000000ull;
	}
}

/* Frames waiting on the raw end b (when no net b exists). */
static inline uint16_t tnu_raw_rx(struct tnu_pair *p, struct rte_mbuf **pkts, uint16_t n)
{
	return dev_rx_burst(p->db, pkts, n);
}

/* ---- a raw peer on wire end b: hand-built frames in, frames out --------- */

#include "wire/wire.h"

static const uint8_t tnu_mac_a[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t tnu_mac_b[6] = {0x02, 0, 0, 0, 0, 0x02};

static inline void tnu_raw_send(struct tnu_pair *p, const uint8_t *frame, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->pool);
	ck_assert_ptr_nonnull(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	ck_assert_uint_eq(dev_tx_burst(p->db, &m, 1), 1);
}

/* Copies the next frame the raw end received into buf; 0 when none. */
static inline size_t tnu_raw_next(struct tnu_pair *p, uint8_t *buf, size_t cap)
{
	struct rte_mbuf *m;
	if (dev_rx_burst(p->db, &m, 1) != 1)
		return 0;
	size_t len = rte_pktmbuf_pkt_len(m);
	ck_assert_uint_le(len, cap);
	const void *d = rte_pktmbuf_read(m, 0, (uint32_t)len, buf);
	ck_assert_ptr_nonnull(d);
	if (d != buf)
		memcpy(buf, d, len);
	rte_pktmbuf_free(m);
	return len;
}

static inline void tnu_raw_drain(struct tnu_pair *p)
{
	uint8_t b[2048];
	for (int i = 0; i < 10000 && tnu_raw_next(p, b, sizeof(b)); i++)
		;
}

/* Ethernet + IPv4 header + payload; returns the frame length. */
static inline size_t tnu_ip4_frame(uint8_t *buf, uint32_t src, uint32_t dst, uint8_t proto,
				   uint16_t id, uint16_t frag_off, bool mf, const void *payload,
				   size_t plen)
{
	struct eth_repr e = {.type = ETH_TYPE_IP4};
	memcpy(e.dst, tnu_mac_a, 6);
	memcpy(e.src, tnu_mac_b, 6);
	struct wire_view ev = {buf, ETH_HDR_LEN};
	eth_emit(&e, &ev);
	struct ip4_repr r = {.src = src,
			     .dst = dst,
			     .proto = proto,
			     .ttl = 64,
			     .payload_len = (uint16_t)plen,
			     .id = id,
			     .mf = mf,
			     .frag_off = frag_off};
	struct wire_view iv = {buf + ETH_HDR_LEN, IP4_HDR_LEN};
	ip4_emit(&r, &iv, false);
	memcpy(buf + ETH_HDR_LEN + IP4_HDR_LEN, payload, plen);
	return ETH_HDR_LEN + IP4_HDR_LEN + plen;
}

static inline size_t tnu_ip6_frame(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16],
				   uint8_t nh, uint8_t hl, const void *payload, size_t plen)
{
	struct eth_repr e = {.type = ETH_TYPE_IP6};
	memcpy(e.dst, tnu_mac_a, 6);
	memcpy(e.src, tnu_mac_b, 6);
	struct wire_view ev = {buf, ETH_HDR_LEN};
	eth_emit(&e, &ev);
	struct ip6_repr r = {.next_header = nh, .hop_limit = hl, .payload_len = (uint16_t)plen};
	memcpy(r.src, src, 16);
	memcpy(r.dst, dst, 16);
	struct wire_view iv = {buf + ETH_HDR_LEN, IP6_HDR_LEN};
	ip6_emit(&r, &iv);
	memcpy(buf + ETH_HDR_LEN + IP6_HDR_LEN, payload, plen);
	return ETH_HDR_LEN + IP6_HDR_LEN + plen;
}

/* UDP datagram with a valid checksum into out; returns its length. */
static inline size_t tnu_udp(uint8_t *out, uint8_t family, const void *src, const void *dst,
			     uint16_t sport, uint16_t dport, const void *data, size_t len)
{
	struct udp_repr u = {.sport = sport, .dport = dport, .len = (uint16_t)(UDP_HDR_LEN + len)};
	struct wire_view v = {out, UDP_HDR_LEN + len};
	udp_emit(&u, &v);
	memcpy(out + UDP_HDR_LEN, data, len);
	uint32_t ps = family == AF_INET
			  ? wire_csum_pseudo4(*(const uint32_t *)src, *(const uint32_t *)dst,
					      IPPROTO_UDP, (uint32_t)(UDP_HDR_LEN + len))
			  : wire_csum_pseudo6(src, dst, IPPROTO_UDP, (uint32_t)(UDP_HDR_LEN + len));
	uint16_t c = wire_csum_finish(wire_csum_add(ps, out, UDP_HDR_LEN + len));
	wire_put16(out + 6, c ? c : 0xffff);
	return UDP_HDR_LEN + len;
}

/* The raw end introduces itself: an ARP request and an NS for a's addresses,
 * so a learns b's MAC; what a answers is drained. */
static inline void tnu_raw_hello(struct tnu_pair *p)
{
	uint8_t f[128];
	struct eth_repr e = {.dst = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, .type = ETH_TYPE_ARP};
	memcpy(e.src, tnu_mac_b, 6);
	struct wire_view ev = {f, ETH_HDR_LEN};
	eth_emit(&e, &ev);
	struct arp_repr a = {.op = ARP_OP_REQUEST, .spa = p->b4, .tpa = p->a4};
	memcpy(a.sha, tnu_mac_b, 6);
	struct wire_view av = {f + ETH_HDR_LEN, ARP_LEN};
	arp_emit(&a, &av);
	tnu_raw_send(p, f, ETH_HDR_LEN + ARP_LEN);
	struct ndp_repr ns = {.type = NDP_NS, .has_lla = true};
	memcpy(ns.target, p->a6, 16);
	memcpy(ns.lla, tnu_mac_b, 6);
	uint8_t body[32], msg[64], sn[16];
	struct icmp_repr ic;
	ndp_emit_body(&ns, body, sizeof(body), &ic);
	ip6_solicited_node(p->a6, sn);
	struct wire_view mv = {msg, icmp_len(&ic)};
	icmp6_emit(&ic, p->b6, sn, &mv);
	size_t n = tnu_ip6_frame(f, p->b6, sn, IP6_NH_ICMP6, 255, msg, icmp_len(&ic));
	f[0] = 0x33, f[1] = 0x33, f[2] = 0xff, memcpy(f + 3, sn + 13, 3);
	tnu_raw_send(p, f, n);
	tnu_run(p, 2);
	tnu_raw_drain(p);
}

/* What a UDP socket received (net_udp_open with tnu_udp_cb): the count and
 * the last datagram with its ports and meta. */
struct udp_got {
	unsigned n;
	uint8_t data[65536];
	size_t len;
	uint16_t sport, dport;
	struct ip_meta meta;
};

static inline void tnu_udp_cb(void *arg, struct rte_mbuf *m, const struct ip_meta *meta,
			      uint16_t sport, uint16_t dport)
{
	struct udp_got *g = arg;
	g->n++;
	g->len = rte_pktmbuf_pkt_len(m);
	ck_assert_uint_le(g->len, sizeof(g->data));
	const void *d = rte_pktmbuf_read(m, 0, (uint32_t)g->len, g->data);
	if (d != g->data)
		memcpy(g->data, d, g->len);
	g->sport = sport;
	g->dport = dport;
	g->meta = *meta;
	rte_pktmbuf_free(m);
}

#endif
