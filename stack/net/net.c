/* net: the layer's entry points: create/destroy, the receive poll and
 * Ethernet demultiplexing, the transmit queue, routes and the path MTU cache
 * (RFC 1191 §6.3, RFC 8201 §5), L4 checksums and delivery to handlers. */
#include "net_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

static bool net_prefix_eq(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned bytes = bits / 8, rem = bits % 8;
	if (memcmp(a, b, bytes))
		return false;
	if (!rem)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rem));
	return (a[bytes] & mask) == (b[bytes] & mask);
}

const struct net_addr *net_addr_match(const struct net *n, uint8_t family, const void *dst)
{
	for (unsigned i = 0; i < n->cfg.naddrs; i++) {
		const struct net_addr *a = &n->cfg.addrs[i];
		if (a->family == family &&
		    net_prefix_eq((const uint8_t *)&a->addr, dst, a->prefix_len))
			return a;
	}
	return NULL;
}

static const struct net_addr *net_first_addr(const struct net *n, uint8_t family)
{
	for (unsigned i = 0; i < n->cfg.naddrs; i++)
		if (n->cfg.addrs[i].family == family)
			return &n->cfg.addrs[i];
	return NULL;
}

bool net_is_local(const struct net *n, uint8_t family, const void *addr)
{
	for (unsigned i = 0; i < n->cfg.naddrs; i++) {
		const struct net_addr *a = &n->cfg.addrs[i];
		if (a->family == family && !memcmp(&a->addr, addr, net_alen(family)))
			return true;
	}
	return false;
}

int net_create(const struct net_config *cfg, struct net **out)
{
	if (!cfg || !out || !cfg->dev || !cfg->pool || !cfg->clk || cfg->naddrs > NET_MAX_ADDRS)
		return -EINVAL;
	for (unsigned i = 0; i < cfg->naddrs; i++) {
		const struct net_addr *a = &cfg->addrs[i];
		if ((a->family != AF_INET || a->prefix_len > 32) &&
		    (a->family != AF_INET6 || a->prefix_len > 128))
			return -EINVAL;
	}
	struct net *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->cfg = *cfg;
	struct net_config *c = &n->cfg;
	if (!c->neigh_timeout_ms)
		c->neigh_timeout_ms = 60000;
	if (!c->neigh_retrans_ms)
		c->neigh_retrans_ms = 1000;
	if (!c->neigh_max_probes)
		c->neigh_max_probes = 3;
	if (!c->neigh_queue || c->neigh_queue > NET_NEIGH_QMAX)
		c->neigh_queue = c->neigh_queue > NET_NEIGH_QMAX ? NET_NEIGH_QMAX : 8;
	if (!c->neigh_max)
		c->neigh_max = 1024;
	if (c->neigh_max < 8)
		c->neigh_max = 8;
	if (!c->frag_timeout_ms)
		c->frag_timeout_ms = 30000;
	if (!c->frag6_timeout_ms)
		c->frag6_timeout_ms = 60000;
	if (!c->frag_max_datagrams || c->frag_max_datagrams > NET_REASM_MAX)
		c->frag_max_datagrams = c->frag_max_datagrams > NET_REASM_MAX ? NET_REASM_MAX : 64;
	if (!c->frag_mem_max)
		c->frag_mem_max = 4u << 20;
	if (!c->frag_max_size || c->frag_max_size > 65535)
		c->frag_max_size = 65535;
	n->dev = cfg->dev;
	dev_caps(n->dev, &n->caps);
	n->mtu = n->caps.mtu ? n->caps.mtu : 1500;
	if (cfg->mtu && cfg->mtu < n->mtu)
		n->mtu = cfg->mtu;
	if (n->mtu < 576)
		n->mtu = 576;
	rnd_seed(&n->rnd, cfg->seed ^ 0x6e6574ull);
	if (net_neigh_init(n)) {
		net_neigh_fini(n);
		free(n);
		return -ENOMEM;
	}
	n->ip4_id = (uint16_t)rnd_u32(&n->rnd);
	n->udp_next_port = (uint16_t)(49152 + rnd_below(&n->rnd, 16384));
	n->now = clk_now(cfg->clk);
	n->icmp_tokens = NET_ICMP_RATE;
	n->icmp_tokens_at = n->now;
	if (!cfg->no_gratuitous_arp)
		net_arp_announce(n);
	*out = n;
	return 0;
}

void net_destroy(struct net *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->ntx; i++)
		rte_pktmbuf_free(n->txq[i]);
	net_neigh_fini(n);
	net_reasm_fini(n);
	free(n);
}

void net_set_l4_handler(struct net *n, uint8_t proto, net_l4_fn fn, void *arg)
{
	n->l4_fn[proto] = fn;
	n->l4_arg[proto] = arg;
}

void net_set_icmp_handler(struct net *n, net_icmp_fn fn, void *arg)
{
	n->icmp_fn = fn;
	n->icmp_arg = arg;
}

struct rte_mbuf *net_alloc(struct net *n)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(n->cfg.pool);
	if (!m) {
		n->st.out_nobufs++;
		return NULL;
	}
	/* rte_pktmbuf_alloc leaves RTE_PKTMBUF_HEADROOM (>= 128) in front. */
	return m;
}

void net_get_stats(const struct net *n, struct net_stats *out)
{
	*out = n->st;
}

/* clang-format splits a braced initialiser inside a macro badly */
// clang-format off
#define NET_DROP(f) {#f, offsetof(struct net_stats, f)}
const struct net_stat_name net_stat_names[] = {
	NET_DROP(neigh_table_full),  NET_DROP(neigh_evicted),
	NET_DROP(neigh_failed),      NET_DROP(neigh_queue_drop),
	NET_DROP(neigh_ignored),     NET_DROP(pmtu_updates),
	NET_DROP(pmtu_refused),      NET_DROP(pmtu_floored),
	NET_DROP(pmtu_expired),      NET_DROP(out_too_big),
	NET_DROP(out_nobufs),        NET_DROP(out_no_route),
	NET_DROP(tx_dev_full),       NET_DROP(ip4_reasm_drop),
	NET_DROP(ip4_reasm_timeout), NET_DROP(ip6_reasm_drop),
	NET_DROP(ip6_reasm_timeout), NET_DROP(reasm_evicted),
	NET_DROP(ip4_bad_len),       NET_DROP(ip4_bad_hdr),
	NET_DROP(ip6_bad_hdr),       NET_DROP(icmp_bad),
	NET_DROP(icmp6_bad),         NET_DROP(l4_bad_csum),
	NET_DROP(l4_no_handler),     NET_DROP(ip4_not_for_us),
	NET_DROP(ip6_not_for_us),    NET_DROP(rx_frames),
	NET_DROP(tx_frames),         {NULL, 0},
};
// clang-format on

void net_link(const struct net *n, uint8_t mac[6], uint32_t *mtu)
{
	if (mac)
		memcpy(mac, n->caps.mac, 6);
	if (mtu)
		*mtu = n->mtu;
}

/* ---- routes and path MTU ----------------------------------------------- */

struct net_pmtu *net_pmtu_find(struct net *n, uint8_t family, const void *dst)
{
	size_t al = net_alen(family);
	for (unsigned i = 0; i < NET_PMTU_MAX; i++) {
		struct net_pmtu *p = &n->pmtu[i];
		if (p->family != family || memcmp(p->addr, dst, al))
			continue;
		if (p->expires <= n->now) {
			/* RFC 1191 §6.3: forget old estimates to find a larger
			 * MTU; Linux ip_rt_mtu_expires, 10 minutes too. */
			p->family = 0;
			n->st.pmtu_expired++;
			return NULL;
		}
		return p;
	}
	return NULL;
}

uint32_t net_path_mtu(struct net *n, uint8_t family, const void *dst)
{
	const struct net_pmtu *p = net_pmtu_find(n, family, dst);
	return p && p->mtu < n->mtu ? p->mtu : n->mtu;
}

/* Linux's floors: min_pmtu 552 for IPv4 (a report below it is taken as
 * 552 with the route locked: sent without DF, RFC 1191 §3 lets routers
 * fragment then), IPv6's minimum link MTU 1280 (RFC 8200 §5; Linux's
 * tcp_v6_err ignores smaller reports, RFC 8201 §4). RFC 791's 68 let one
 * forged ICMP message shrink every segment to a few bytes. */
#define NET_PMTU_MIN4 552u
#define NET_PMTU_MIN6 1280u

uint32_t net_pmtu_candidate(struct net *n, uint8_t family, const void *dst, uint32_t reported,
			    bool *locked)
{
	*locked = false;
	if (family == AF_INET6 && reported < NET_PMTU_MIN6)
		return 0;
	uint32_t cur = net_path_mtu(n, family, dst);
	if (family == AF_INET && reported < NET_PMTU_MIN4) {
		*locked = true;
		reported = NET_PMTU_MIN4;
	}
	/* an increase is never believed (RFC 1191 §6.1, RFC 8201 §4) */
	return reported < cur ? reported : cur;
}

void net_pmtu_update(struct net *n, uint8_t family, const void *dst, uint32_t mtu, bool locked)
{
	uint32_t cur = net_path_mtu(n, family, dst);
	if (!mtu || mtu > cur || (mtu == cur && !locked))
		return;
	size_t al = net_alen(family);
	struct net_pmtu *slot = net_pmtu_find(n, family, dst), *oldest = &n->pmtu[0];
	for (unsigned i = 0; !slot && i < NET_PMTU_MAX; i++) {
		struct net_pmtu *p = &n->pmtu[i];
		if (!p->family) {
			slot = p;
			break;
		}
		if (p->expires < oldest->expires)
			oldest = p;
	}
	if (!slot)
		slot = oldest;
	bool same = slot->family == family && !memcmp(slot->addr, dst, al);
	if (same && slot->mtu <= mtu && slot->locked >= locked)
		return; /* nothing lower: the lifetime runs on */
	slot->locked = locked || (same && slot->locked);
	slot->family = family;
	memset(slot->addr, 0, 16);
	memcpy(slot->addr, dst, al);
	slot->mtu = mtu;
	slot->expires = n->now + NET_PMTU_LIFETIME_NS;
	n->st.pmtu_updates++;
	n->st.pmtu_floored += locked;
}

int net_route(struct net *n, uint8_t family, const void *dst, void *src_out, uint32_t *mtu_out)
{
	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	const struct net_addr *a = net_addr_match(n, family, dst);
	if (!a) {
		static const uint8_t zero[16];
		bool gw = family == AF_INET ? n->cfg.gw4 != 0 : memcmp(n->cfg.gw6, zero, 16) != 0;
		const uint8_t *d = dst;
		bool ll = family == AF_INET6 && d[0] == 0xfe && (d[1] & 0xc0) == 0x80;
		if (!gw && !ll)
			return -ENETUNREACH;
		a = net_first_addr(n, family);
		if (!a)
			return -ENETUNREACH;
	}
	if (src_out)
		memcpy(src_out, &a->addr, net_alen(family));
	if (mtu_out)
		*mtu_out = net_path_mtu(n, family, dst);
	return 0;
}

/* ---- receive ------------------------------------------------------------ */

bool net_icmp_allow(struct net *n)
{
	uint64_t el = n->now - n->icmp_tokens_at;
	if (el >= CLK_NS_PER_S / NET_ICMP_RATE) {
		uint64_t add = el / (CLK_NS_PER_S / NET_ICMP_RATE);
		n->icmp_tokens = add + n->icmp_tokens > NET_ICMP_RATE
				     ? NET_ICMP_RATE
				     : (uint32_t)(n->icmp_tokens + add);
		n->icmp_tokens_at = n->now;
	}
	if (!n->icmp_tokens)
		return false;
	n->icmp_tokens--;
	return true;
}

static uint32_t net_pseudo(const struct ip_meta *meta, uint32_t len)
{
	return meta->family == AF_INET
		   ? wire_csum_pseudo4(meta->src.v4, meta->dst.v4, meta->proto, len)
		   : wire_csum_pseudo6(meta->src.v6, meta->dst.v6, meta->proto, len);
}

/* Where TCP's or UDP's checksum field sits in its header (wire.h). */
static uint32_t net_l4_csum_off(uint8_t proto)
{
	return proto == IPPROTO_TCP ? TCP_CSUM_OFF : UDP_CSUM_OFF;
}

bool net_l4_csum_ok(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta)
{
	if (n->caps.rx_csum) {
		uint64_t f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
		if (f == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
			return true;
		if (f == RTE_MBUF_F_RX_L4_CKSUM_BAD)
			return false;
	}
	uint32_t ps = net_pseudo(meta, meta->l4_len);
	uint32_t s = wire_csum_mbuf(m, 0, meta->l4_len, ps);
	if (wire_csum_fold(s) == 0xffff) {
		n->st.l4_csum_good++;
		return true;
	}
	/* A sender that offloads its checksum writes the folded pseudo-header
	 * sum into the field and leaves the rest to the NIC; af_packet hands the
	 * frame over before any NIC ran (Linux marks it TP_STATUS_CSUMNOTREADY). */
	uint32_t off = net_l4_csum_off(meta->proto);
	if (rte_pktmbuf_data_len(m) >= off + 2) {
		uint16_t field = wire_get16(rte_pktmbuf_mtod_offset(m, uint8_t *, off));
		uint16_t want = wire_csum_fold(ps);
		if (field % 0xffff == want % 0xffff) /* 0 and 0xffff alike */
			n->st.l4_csum_unfilled++;
	}
	return false;
}

size_t net_csum_notice(struct net *n, char *buf, size_t len)
{
	if (n->csum_notice_done || !n->caps.rx_host_port || n->st.l4_csum_good)
		return 0;
	uint64_t bad = n->st.l4_bad_csum + n->st.udp_bad_csum;
	if (!bad || !len)
		return 0;
	n->csum_notice_done = true;
	int w = snprintf(buf, len,
			 "%llu TCP/UDP segment(s) dropped for bad checksums and none good%s: the "
			 "sending interface leaves checksums to offload (a veth's default); "
			 "turn it off there: ethtool -K PEER tx off (PEER: the other end of "
			 "this port's veth)",
			 (unsigned long long)bad,
			 n->st.l4_csum_unfilled ? ", their checksum fields hold only the "
						  "pseudo-header sum"
						: "");
	return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
}

void net_l4_deliver(struct net *n, struct rte_mbuf *m, struct ip_meta *meta, uint16_t hdr_len)
{
	uint8_t proto = meta->proto;
	if (proto == IPPROTO_UDP && !n->l4_fn[proto]) {
		net_udp_input(n, m, meta, hdr_len);
		return;
	}
	if (!n->l4_fn[proto]) {
		n->st.l4_no_handler++;
		/* RFC 1122 §3.2.2.1: protocol unreachable for a protocol we lack
		 * (not for TCP: the TCP layer answers with RST once it exists). */
		if (proto != IPPROTO_TCP && hdr_len && rte_pktmbuf_prepend(m, hdr_len)) {
			if (meta->family == AF_INET)
				net_icmp4_error(n, m, ICMP_UNREACH, ICMP_UNREACH_PROTO, 0);
			else
				net_icmp6_error(n, m, ICMP6_PARAM_PROBLEM, 1, 6);
		}
		rte_pktmbuf_free(m);
		return;
	}
	uint32_t min = proto == IPPROTO_TCP ? TCP_HDR_MIN : 0;
	if (meta->l4_len < min || rte_pktmbuf_data_len(m) < min) {
		n->st.l4_bad_csum++;
		rte_pktmbuf_free(m);
		return;
	}
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && !net_l4_csum_ok(n, m, meta)) {
		n->st.l4_bad_csum++;
		rte_pktmbuf_free(m);
		return;
	}
	n->st.l4_delivered++;
	n->l4_fn[proto](n->l4_arg[proto], m, meta);
}

static bool net_eth_for_us(const struct net *n, const uint8_t dst[6])
{
	if (!memcmp(dst, n->caps.mac, 6) || eth_is_broadcast(dst))
		return true;
	if (dst[0] != 0x33 || dst[1] != 0x33)
		return false;
	/* IPv6 multicast we joined: all-nodes and our solicited-node groups. */
	if (dst[2] == 0 && dst[3] == 0 && dst[4] == 0 && dst[5] == 1)
		return true;
	for (unsigned i = 0; i < n->cfg.naddrs; i++) {
		const struct net_addr *a = &n->cfg.addrs[i];
		if (a->family == AF_INET6 && dst[2] == 0xff && !memcmp(dst + 3, a->addr.v6 + 13, 3))
			return true;
	}
	return false;
}

static void net_eth_input(struct net *n, struct rte_mbuf *m)
{
	n->st.rx_frames++;
	if (m->nb_segs > 1 && rte_pktmbuf_linearize(m)) {
		n->st.eth_short++;
		rte_pktmbuf_free(m);
		return;
	}
	struct wire_view v = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	struct eth_repr e;
	if (eth_parse(&v, &e)) {
		n->st.eth_short++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!net_eth_for_us(n, e.dst)) {
		n->st.eth_not_for_us++;
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_adj(m, ETH_HDR_LEN);
	switch (e.type) {
	case ETH_TYPE_ARP:
		net_arp_input(n, m);
		break;
	case ETH_TYPE_IP4:
		net_ip4_input(n, m);
		break;
	case ETH_TYPE_IP6:
		net_ip6_input(n, m);
		break;
	default:
		n->st.eth_unknown_type++;
		rte_pktmbuf_free(m);
	}
}

int net_poll(struct net *n, uint64_t now_ns)
{
	n->now = now_ns;
	struct rte_mbuf *pkts[NET_BURST];
	uint16_t k = dev_rx_burst(n->dev, pkts, NET_BURST);
	for (uint16_t i = 0; i < k; i++)
		net_eth_input(n, pkts[i]);
	if (n->timers_at <= now_ns) {
		uint64_t a = net_neigh_timers(n), b = net_reasm_timers(n);
		n->timers_at = a < b ? a : b;
	}
	return k;
}

uint64_t net_next_deadline_ns(const struct net *n)
{
	uint64_t a = net_neigh_deadline(n), b = net_reasm_deadline(n);
	uint64_t c = dev_next_deadline_ns(n->dev);
	uint64_t d = a < b ? a : b;
	return d < c ? d : c;
}

/* ---- transmit queue ------------------------------------------------------ */

void net_flush(struct net *n)
{
	uint32_t sent = 0;
	/* Bounded: every round either sends or stops. */
	while (sent < n->ntx) {
		uint32_t want = n->ntx - sent;
		uint16_t k =
		    dev_tx_burst(n->dev, n->txq + sent, (uint16_t)(want > 512 ? 512 : want));
		if (!k)
			break;
		sent += k;
		n->st.tx_frames += k;
	}
	if (sent) {
		memmove(n->txq, n->txq + sent, (n->ntx - sent) * sizeof(n->txq[0]));
		n->ntx -= sent;
	}
}

uint32_t net_tx_room(const struct net *n)
{
	return NET_TXQ - n->ntx;
}

int net_tx_frame(struct net *n, struct rte_mbuf *m)
{
	if (n->ntx == NET_TXQ)
		net_flush(n);
	if (n->ntx == NET_TXQ) {
		n->st.tx_dev_full++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	n->txq[n->ntx++] = m;
	return 0;
}

/* ---- L4 output ----------------------------------------------------------- */

int net_output(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta)
{
	if (!m)
		return -EINVAL;
	if (!meta || (meta->family != AF_INET && meta->family != AF_INET6)) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	struct ip_meta mt = *meta;
	static const uint8_t zero[16];
	if (!memcmp(&mt.src, zero, net_alen(mt.family))) {
		int rc = net_route(n, mt.family, &mt.dst, &mt.src, NULL);
		if (rc) {
			n->st.out_no_route++;
			rte_pktmbuf_free(m);
			return rc;
		}
	}
	uint32_t len = rte_pktmbuf_pkt_len(m);
	bool l4csum = mt.proto == IPPROTO_TCP || mt.proto == IPPROTO_UDP;
	int off = l4csum ? (int)net_l4_csum_off(mt.proto) : -1;
	if (off >= 0 && rte_pktmbuf_data_len(m) < (uint32_t)off + 2) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	bool offload = mt.proto == IPPROTO_TCP	 ? n->caps.tx_tcp_csum
		       : mt.proto == IPPROTO_UDP ? n->caps.tx_udp_csum
						 : false;
	if (off >= 0) {
		uint8_t *ck = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
		ck[0] = ck[1] = 0;
		if (offload) {
			/* The NIC wants the pseudo-header sum in the field (DPDK's
			 * rte_ipv4_phdr_cksum convention). */
			uint32_t ps = net_pseudo(&mt, len);
			wire_put16(ck, wire_csum_fold(ps));
			m->ol_flags |= mt.proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM
							       : RTE_MBUF_F_TX_UDP_CKSUM;
		} else {
			uint16_t c =
			    wire_csum_finish(wire_csum_mbuf(m, 0, len, net_pseudo(&mt, len)));
			/* RFC 768: a computed zero is sent as all ones. */
			if (c == 0 && mt.proto == IPPROTO_UDP)
				c = 0xffff;
			wire_put16(ck, c);
		}
	}
	return net_ip_output(n, m, &mt);
}
