/* libFuzzer target for the receive path: one fresh stack per input, on a
 * dev_wire whose far end the fuzzer drives. The stack listens on TCP 5001
 * (IPv4) and 5002 (IPv6), holds a UDP socket on 7 and has an active
 * connection pending to 198.18.0.2:80; every accepted connection is read and
 * written to. Whatever arrives must be handled or dropped: no crash, no
 * sanitizer report, no hang, and after the stack is destroyed every mbuf is
 * back in the pool.
 *
 * Input: byte 0 flags (bit 0: send frames as given, without the fix-ups),
 * then records [advance ms: u8][length: u16 le][frame]. The fix-ups give the
 * fuzzer a way past the checks it cannot solve by mutation: the destination
 * MAC of a unicast frame becomes the stack's, IPv4 total length and IPv6
 * payload length match the frame, and the IPv4 header and TCP/UDP/ICMP
 * checksums are computed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "clk.h"
#include "dev/dev.h"
#include "skops.h"
#include "wire/wire.h"

#define POOL_SIZE   4095
#define FRAME_MAX   2048
#define MAX_RECORDS 64
#define MAX_SOCKS   16

static struct rte_mempool *pool;
/* FUZZ_STACK_TRACE=1 prints what the stack sends (debugging a finding). */
static bool trace;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "--file-prefix=skops-fuzz-stack-%d", (int)getpid());
	char *eal[] = {"fuzz_stack", "--no-huge",	  "--no-pci",	    "-m", "256",
		       prefix,	     "--log-level=error", "--no-telemetry", NULL};
	char err[256] = "";
	if (dev_eal_init(8, eal, err, sizeof err) < 0) {
		fprintf(stderr, "fuzz_stack: EAL init failed: %s\n", err);
		exit(1);
	}
	const char *t = getenv("FUZZ_STACK_TRACE");
	trace = t && t[0] == '1';
	pool = rte_pktmbuf_pool_create("fuzz", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		fprintf(stderr, "fuzz_stack: no mbuf pool\n");
		exit(1);
	}
	return 0;
}

/* L4 checksum over [l4, end) with the given pseudo-header sum; off is the
 * checksum field's offset in the L4 header. */
static void fix_l4(uint8_t *l4, size_t len, uint32_t pseudo, size_t off)
{
	if (len < off + 2)
		return;
	wire_put16(l4 + off, 0);
	uint16_t c = wire_csum_finish(wire_csum_add(pseudo, l4, len));
	wire_put16(l4 + off, c);
}

static size_t l4_csum_off(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return TCP_CSUM_OFF;
	case IPPROTO_UDP:
		return UDP_CSUM_OFF;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return 2;
	}
	return 0;
}

static void fixup(uint8_t *f, size_t len, const uint8_t mac[6])
{
	if (len < ETH_HDR_LEN)
		return;
	if (!(f[0] & 1))
		memcpy(f, mac, 6);
	uint16_t type = wire_get16(f + 12);
	uint8_t *ip = f + ETH_HDR_LEN;
	size_t iplen = len - ETH_HDR_LEN;
	if (type == ETH_TYPE_IP4 && iplen >= 20 && (ip[0] >> 4) == 4) {
		size_t ihl = (size_t)(ip[0] & 15) * 4;
		if (ihl < 20 || ihl > iplen)
			return;
		wire_put16(ip + 2, (uint16_t)iplen);
		wire_put16(ip + 10, 0);
		wire_put16(ip + 10, wire_csum_finish(wire_csum_add(0, ip, ihl)));
		bool fragment = (wire_get16(ip + 6) & 0x3fff) != 0;
		size_t off = l4_csum_off(ip[9]);
		if (fragment || !off || ip[9] == IPPROTO_ICMPV6)
			return;
		uint32_t src, dst;
		memcpy(&src, ip + 12, 4);
		memcpy(&dst, ip + 16, 4);
		uint32_t pseudo = ip[9] == IPPROTO_ICMP
				      ? 0
				      : wire_csum_pseudo4(src, dst, ip[9], (uint32_t)(iplen - ihl));
		fix_l4(ip + ihl, iplen - ihl, pseudo, off);
	} else if (type == ETH_TYPE_IP6 && iplen >= 40 && (ip[0] >> 4) == 6) {
		wire_put16(ip + 4, (uint16_t)(iplen - 40));
		size_t off = l4_csum_off(ip[6]);
		if (!off || ip[6] == IPPROTO_ICMP)
			return;
		fix_l4(ip + 40, iplen - 40,
		       wire_csum_pseudo6(ip + 8, ip + 24, ip[6], (uint32_t)(iplen - 40)), off);
	}
}

struct world {
	uint64_t now;
	struct clk clk;
	struct dev *wa, *wb;
	struct stack *st;
	int socks[MAX_SOCKS];
	int nsocks;
};

static void drain(struct world *w)
{
	struct rte_mbuf *m[32];
	uint16_t n;
	while ((n = dev_rx_burst(w->wb, m, 32)) > 0) {
		for (uint16_t i = 0; trace && i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
			fprintf(stderr, "fuzz_stack: t=%llu ms: out %u bytes, type %04x:",
				(unsigned long long)(w->now / 1000000), m[i]->data_len,
				m[i]->data_len >= 14 ? wire_get16(f + 12) : 0);
			for (uint16_t k = 14; k < m[i]->data_len && k < 14 + 60; k++)
				fprintf(stderr, " %02x", f[k]);
			fprintf(stderr, "\n");
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

static void run(struct world *w, int polls)
{
	for (int i = 0; i < polls && stack_poll(w->st) > 0; i++)
		;
	drain(w);
}

static void add_sock(struct world *w, int sd)
{
	if (sd >= 0 && w->nsocks < MAX_SOCKS)
		w->socks[w->nsocks++] = sd;
	else if (sd >= 0)
		skops_close(w->st, sd);
}

static void listen_on(struct world *w, int family, uint16_t port)
{
	int sd = skops_socket(w->st, family, SOCK_STREAM);
	if (sd < 0)
		return;
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	const struct sockaddr *a = family == AF_INET6 ? (void *)&a6 : (void *)&a4;
	socklen_t al = family == AF_INET6 ? sizeof a6 : sizeof a4;
	if (skops_bind(w->st, sd, a, al) < 0 || skops_listen(w->st, sd, 8) < 0) {
		fprintf(stderr, "fuzz_stack: cannot listen on %u\n", port);
		abort();
	}
	add_sock(w, sd);
}

static void setup(struct world *w)
{
	memset(w, 0, sizeof *w);
	w->now = 1000000000ull;
	clk_init_manual(&w->clk, &w->now);
	struct dev_wire_config wc = {.mtu = 1500, .queue_len = 256};
	if (dev_wire_pair_create_cfg(&wc, &w->clk, &w->wa, &w->wb) < 0)
		abort();
	struct stack_config c;
	memset(&c, 0, sizeof c);
	c.net.dev = w->wa;
	c.net.pool = pool;
	c.net.clk = &w->clk;
	c.net.addrs[0].family = AF_INET;
	c.net.addrs[0].prefix_len = 24;
	c.net.addrs[0].addr.v4 = inet_addr("198.18.0.1");
	c.net.addrs[1].family = AF_INET6;
	c.net.addrs[1].prefix_len = 64;
	inet_pton(AF_INET6, "fd00:1::1", c.net.addrs[1].addr.v6);
	c.net.naddrs = 2;
	c.net.seed = 1;
	c.net.no_gratuitous_arp = true;
	c.seed = 2;
	c.keys_from_seed = true; /* a crash input replays */
	c.max_conns = 32;
	c.wmem_default = 16384;
	c.rmem_default = 16384;
	if (stack_create(&c, &w->st) < 0) {
		fprintf(stderr, "fuzz_stack: stack_create failed\n");
		abort();
	}
	listen_on(w, AF_INET, 5001);
	listen_on(w, AF_INET6, 5002);
	int u = skops_socket(w->st, AF_INET, SOCK_DGRAM);
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_port = htons(7)};
	if (u >= 0 && skops_bind(w->st, u, (struct sockaddr *)&ua, sizeof ua) < 0)
		abort();
	add_sock(w, u);
	int t = skops_socket(w->st, AF_INET, SOCK_STREAM);
	struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(80)};
	peer.sin_addr.s_addr = inet_addr("198.18.0.2");
	if (t >= 0)
		(void)skops_connect(w->st, t, (struct sockaddr *)&peer, sizeof peer);
	add_sock(w, t);
	run(w, 8);
}

/* What an application does with whatever is ready: accept, read, echo. */
static void app(struct world *w)
{
	static const char msg[] = "skops fuzz";
	char buf[2048];
	for (int i = 0; i < w->nsocks; i++) {
		int sd = w->socks[i];
		int c = skops_accept(w->st, sd, NULL, NULL);
		if (c >= 0)
			add_sock(w, c);
		ssize_t n = skops_recv(w->st, sd, buf, sizeof buf, 0);
		if (n > 0 || (skops_events(w->st, sd) & SKOPS_EV_OUT))
			(void)skops_send(w->st, sd, msg, sizeof msg, 0);
	}
}

static void teardown(struct world *w)
{
	for (int i = 0; i < w->nsocks; i++)
		skops_close(w->st, w->socks[i]);
	/* let closes, retransmissions and TIME_WAIT play out, bounded */
	for (int i = 0; i < 64; i++) {
		run(w, 8);
		uint64_t d = stack_next_deadline_ns(w->st);
		if (d == UINT64_MAX)
			break;
		w->now = d > w->now ? d : w->now + 1000;
	}
	stack_destroy(w->st);
	drain(w);
	dev_destroy(w->wa);
	dev_destroy(w->wb);
	unsigned avail = rte_mempool_avail_count(pool);
	if (avail != POOL_SIZE) {
		fprintf(stderr, "fuzz_stack: %u of %u mbufs not returned\n", POOL_SIZE - avail,
			POOL_SIZE);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool raw = data[0] & 1;
	struct world w;
	setup(&w);
	struct dev_caps caps;
	dev_caps(w.wa, &caps);
	size_t pos = 1;
	for (int r = 0; r < MAX_RECORDS && pos + 3 <= size; r++) {
		uint8_t adv = data[pos];
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		if (len > FRAME_MAX)
			len = FRAME_MAX;
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		if (!m)
			abort(); /* the pool covers every frame: a leak drained it */
		uint8_t *f = len ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;
		if (len && !f)
			abort();
		if (len)
			memcpy(f, data + pos, len);
		pos += len;
		if (!raw)
			fixup(f, len, caps.mac);
		if (dev_tx_burst(w.wb, &m, 1) != 1)
			rte_pktmbuf_free(m);
		w.now += (uint64_t)adv * 1000000ull;
		run(&w, 8);
		app(&w);
		run(&w, 8);
	}
	teardown(&w);
	return 0;
}
