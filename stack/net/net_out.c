/* net: the IP and Ethernet output path: header construction (RFC 791 §3.1,
 * RFC 8200 §3), the MTU check (TCP sets DF and sizes its segments from the
 * path MTU, RFC 1191; a UDP datagram over the path MTU is fragmented, RFC 791
 * §3.2 / RFC 8200 §4.5, as Linux does without IP_PMTUDISC_DO), next-hop
 * choice and the hand-over to neighbour resolution. */
#include "net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

/* Room for hdr bytes in front of m: a shared or indirect first segment (a
 * retransmission queue's reference) gets a fresh header segment instead of
 * having its headroom written. Returns the (possibly new) head or NULL
 * (m freed). */
static struct rte_mbuf *net_make_room(struct net *n, struct rte_mbuf *m, uint16_t hdr)
{
	if (rte_pktmbuf_headroom(m) >= hdr && RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1)
		return m;
	struct rte_mbuf *h = rte_pktmbuf_alloc(n->cfg.pool);
	if (!h || rte_pktmbuf_chain(h, m)) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(m);
		n->st.out_nobufs++;
		return NULL;
	}
	h->ol_flags = m->ol_flags;
	return h;
}

int net_eth_send(struct net *n, struct rte_mbuf *m, const uint8_t dst_mac[6], uint16_t type)
{
	m = net_make_room(n, m, ETH_HDR_LEN);
	if (!m)
		return -ENOBUFS;
	struct wire_view v = {(uint8_t *)rte_pktmbuf_prepend(m, ETH_HDR_LEN), ETH_HDR_LEN};
	struct eth_repr e = {.type = type};
	memcpy(e.dst, dst_mac, 6);
	memcpy(e.src, n->caps.mac, 6);
	eth_emit(&e, &v);
	m->l2_len = ETH_HDR_LEN;
	return net_tx_frame(n, m);
}

int net_l2_output(struct net *n, struct rte_mbuf *m, uint8_t family, const void *dst)
{
	const uint8_t *d = dst;
	if (family == AF_INET6 && ip6_is_multicast(d)) {
		uint8_t mac[6];
		ip6_mcast_mac(d, mac);
		return net_eth_send(n, m, mac, ETH_TYPE_IP6);
	}
	if (family == AF_INET && d[0] == 255 && d[1] == 255 && d[2] == 255 && d[3] == 255) {
		static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
		return net_eth_send(n, m, bc, ETH_TYPE_IP4);
	}
	const void *hop = dst;
	if (!net_addr_match(n, family, dst)) {
		bool ll = family == AF_INET6 && d[0] == 0xfe && (d[1] & 0xc0) == 0x80;
		if (!ll)
			hop = family == AF_INET ? (const void *)&n->cfg.gw4
						: (const void *)n->cfg.gw6;
	}
	return net_neigh_output(n, m, family, hop);
}

static struct ip4_repr ip4_repr_of(const struct ip_meta *meta, uint16_t payload_len, uint16_t id)
{
	return (struct ip4_repr){
	    .src = meta->src.v4,
	    .dst = meta->dst.v4,
	    .proto = meta->proto,
	    .tos = meta->tos,
	    .ttl = meta->ttl ? meta->ttl : 64,
	    .payload_len = payload_len,
	    .id = id,
	};
}

static struct ip6_repr ip6_repr_of(const struct ip_meta *meta, uint8_t nh, uint16_t payload_len)
{
	struct ip6_repr r = {
	    .next_header = nh,
	    .hop_limit = meta->ttl ? meta->ttl : 64,
	    .tclass = meta->tos,
	    .flow = meta->flow,
	    .payload_len = payload_len,
	};
	memcpy(r.src, meta->src.v6, 16);
	memcpy(r.dst, meta->dst.v6, 16);
	return r;
}

int net_ip_output(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta)
{
	uint32_t l4 = rte_pktmbuf_pkt_len(m);
	const void *dst = &meta->dst;
	const struct net_pmtu *pm = net_pmtu_find(n, meta->family, dst);
	uint32_t mtu = pm && pm->mtu < n->mtu ? pm->mtu : n->mtu;
	uint16_t hl = meta->family == AF_INET ? IP4_HDR_LEN : IP6_HDR_LEN;
	if (l4 + hl > mtu) {
		n->st.out_too_big++;
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	if (l4 + hl > 65535 + (meta->family == AF_INET6 ? IP6_HDR_LEN : 0)) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	m = net_make_room(n, m, (uint16_t)(hl + ETH_HDR_LEN));
	if (!m)
		return -ENOBUFS;
	struct wire_view v = {(uint8_t *)rte_pktmbuf_prepend(m, hl), hl};
	m->l3_len = hl;
	if (meta->family == AF_INET) {
		bool off = n->caps.tx_ip4_csum;
		struct ip4_repr r = ip4_repr_of(meta, (uint16_t)l4, n->ip4_id++);
		/* DF on all we do not fragment ourselves: path MTU discovery
		 * (RFC 1191 §3); not on a path whose MTU was reported below
		 * the floor (Linux's locked route MTU): routers fragment. */
		r.df = !(pm && pm->locked);
		ip4_emit(&r, &v, off);
		m->ol_flags |= RTE_MBUF_F_TX_IPV4;
		if (off)
			m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
	} else {
		struct ip6_repr r = ip6_repr_of(meta, meta->proto, (uint16_t)l4);
		ip6_emit(&r, &v);
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	}
	return net_l2_output(n, m, meta->family, dst);
}

/* The IP header of one fragment in front of m's k bytes at off of total. */
static void frag_header(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta, uint32_t id,
			uint32_t off, uint32_t k, uint32_t total)
{
	bool more = off + k < total;
	if (meta->family == AF_INET) {
		struct wire_view v = {(uint8_t *)rte_pktmbuf_prepend(m, IP4_HDR_LEN), IP4_HDR_LEN};
		m->l3_len = IP4_HDR_LEN;
		struct ip4_repr r = ip4_repr_of(meta, (uint16_t)k, (uint16_t)id);
		r.frag_off = (uint16_t)off;
		r.mf = more;
		/* no offload for a fragment: its L4 checksum is already final */
		ip4_emit(&r, &v, false);
		m->ol_flags = RTE_MBUF_F_TX_IPV4;
		n->st.ip4_frag_out++;
		return;
	}
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, IP6_HDR_LEN + IP6_FRAG_HDR_LEN);
	m->l3_len = IP6_HDR_LEN + IP6_FRAG_HDR_LEN;
	struct ip6_repr r = ip6_repr_of(meta, IP6_NH_FRAGMENT, (uint16_t)(IP6_FRAG_HDR_LEN + k));
	ip6_emit(&r, &(struct wire_view){p, IP6_HDR_LEN});
	/* RFC 8200 §4.5: next header, reserved, offset in 8-byte units with
	 * the M flag in bit 0, identification */
	uint8_t *f = p + IP6_HDR_LEN;
	f[0] = meta->proto;
	f[1] = 0;
	wire_put16(f + 2, (uint16_t)(off | more));
	wire_put32(f + 4, id);
	m->ol_flags = RTE_MBUF_F_TX_IPV6;
	n->st.ip6_frag_out++;
}

int net_ip_output_frags(struct net *n, const struct ip_meta *meta, const uint8_t *l4hdr,
			uint32_t hlen, const uint8_t *data, uint32_t len, uint32_t mtu)
{
	bool v4 = meta->family == AF_INET;
	uint32_t total = hlen + len;
	/* IPv4: the whole datagram within 65535 bytes; IPv6: the payload of
	 * the reassembled packet, which has no Fragment header (§4.5). */
	uint32_t hl = v4 ? IP4_HDR_LEN : IP6_HDR_LEN + IP6_FRAG_HDR_LEN;
	if (mtu < (v4 ? 68u : 1280u) || total > (v4 ? 65535u - IP4_HDR_LEN : 65535u))
		return -EMSGSIZE;
	/* Every fragment but the last carries a multiple of 8 bytes; all share
	 * one identification. IPv6's is random per datagram (RFC 7739 §5.1:
	 * a global counter would let anyone predict it and count our
	 * traffic); IPv4's 16 bits stay a counter, as in Linux. */
	uint32_t step = (mtu - hl) & ~7u;
	uint32_t id = v4 ? n->ip4_id++ : rnd_u32(&n->rnd);
	uint16_t room = (uint16_t)(hl + ETH_HDR_LEN);
	for (uint32_t off = 0; off < total; off += step) {
		uint32_t k = total - off < step ? total - off : step;
		struct rte_mbuf *m = net_alloc(n);
		uint8_t *p = m && rte_pktmbuf_headroom(m) >= room && rte_pktmbuf_tailroom(m) >= k
				 ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)k)
				 : NULL;
		if (!p) {
			rte_pktmbuf_free(m);
			n->st.out_nobufs++;
			return -ENOBUFS;
		}
		/* the fragment's bytes of the L4 header, then of the data */
		uint32_t h = off < hlen ? (hlen - off < k ? hlen - off : k) : 0;
		memcpy(p, l4hdr + off, h);
		memcpy(p + h, data + (off + h - hlen), k - h);
		frag_header(n, m, meta, id, off, k, total);
		int rc = net_l2_output(n, m, meta->family, &meta->dst);
		if (rc)
			return rc;
	}
	return 0;
}

int net_ip_output_flat(struct net *n, const struct ip_meta *meta, const uint8_t *l4, uint32_t len)
{
	uint32_t hl = meta->family == AF_INET ? IP4_HDR_LEN : IP6_HDR_LEN;
	uint32_t mtu = net_path_mtu(n, meta->family, &meta->dst);
	if (len + hl > mtu)
		return net_ip_output_frags(n, meta, l4, 0, l4, len, mtu);
	struct rte_mbuf *m = net_alloc(n);
	uint8_t *p = m && rte_pktmbuf_tailroom(m) >= len
			 ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len)
			 : NULL;
	if (!p) {
		rte_pktmbuf_free(m);
		n->st.out_nobufs++;
		return -ENOBUFS;
	}
	memcpy(p, l4, len);
	return net_ip_output(n, m, meta);
}

uint8_t *net_l4_flat(struct rte_mbuf *m, uint8_t **copy)
{
	*copy = NULL;
	/* a reassembled datagram longer than one mbuf's room stays a chain */
	if (m->nb_segs == 1 || !rte_pktmbuf_linearize(m))
		return rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	*copy = malloc(len ? len : 1);
	const void *d = *copy ? rte_pktmbuf_read(m, 0, len, *copy) : NULL;
	if (!d) {
		free(*copy);
		*copy = NULL;
		return NULL;
	}
	if (d != *copy) /* contiguous after all: read returned m's own bytes */
		memcpy(*copy, d, len);
	return *copy;
}
