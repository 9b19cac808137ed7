/* net: UDP sockets for the native API, RFC 768 and RFC 1122 §4.1 (port
 * unreachable for a datagram nobody listens to, zero checksum accepted on
 * IPv4 only, RFC 8200 §8.1). Binding is rare: a small table searched
 * linearly. */
#include "net_int.h"

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

static bool udp_addr_any(const struct net_udp_sock *s)
{
	static const uint8_t zero[16];
	return !memcmp(s->addr, zero, 16);
}

static struct net_udp_sock *udp_lookup(struct net *n, uint8_t family, const void *dst,
				       uint16_t port)
{
	struct net_udp_sock *wild = NULL;
	for (unsigned i = 0; i < NET_UDP_MAX; i++) {
		struct net_udp_sock *s = &n->udp[i];
		if (!s->used || s->family != family || s->port != port)
			continue;
		if (!memcmp(s->addr, dst, net_alen(family)))
			return s;
		if (udp_addr_any(s))
			wild = s;
	}
	return wild;
}

static bool udp_port_taken(struct net *n, uint8_t family, const uint8_t addr[16], uint16_t port)
{
	static const uint8_t zero[16];
	for (unsigned i = 0; i < NET_UDP_MAX; i++) {
		struct net_udp_sock *s = &n->udp[i];
		if (s->used && s->family == family && s->port == port &&
		    (udp_addr_any(s) || !memcmp(addr, zero, 16) || !memcmp(addr, s->addr, 16)))
			return true;
	}
	return false;
}

int net_udp_open(struct net *n, uint8_t family, const void *addr, uint16_t port, net_udp_fn fn,
		 void *arg, struct net_udp_sock **out)
{
	if ((family != AF_INET && family != AF_INET6) || !fn || !out)
		return -EINVAL;
	uint8_t a[16] = {0};
	static const uint8_t zero[16];
	if (addr)
		memcpy(a, addr, net_alen(family));
	if (memcmp(a, zero, 16) && !net_is_local(n, family, a))
		return -EADDRNOTAVAIL;
	struct net_udp_sock *s = NULL;
	for (unsigned i = 0; i < NET_UDP_MAX && !s; i++)
		if (!n->udp[i].used)
			s = &n->udp[i];
	if (!s)
		return -ENOBUFS;
	if (port == 0) {
		/* Ephemeral range of RFC 6335 §6, starting from a seeded point. */
		for (unsigned tries = 0; tries < 16384; tries++) {
			uint16_t p = n->udp_next_port;
			n->udp_next_port = p == 65535 ? 49152 : (uint16_t)(p + 1);
			if (!udp_port_taken(n, family, a, p)) {
				port = p;
				break;
			}
		}
		if (!port)
			return -EADDRINUSE;
	} else if (udp_port_taken(n, family, a, port)) {
		return -EADDRINUSE;
	}
	s->used = true;
	s->family = family;
	memcpy(s->addr, a, 16);
	s->port = port;
	s->fn = fn;
	s->arg = arg;
	*out = s;
	return 0;
}

void net_udp_set_err(struct net_udp_sock *s, net_icmp_fn fn)
{
	s->err_fn = fn;
}

/* The quoted datagram's source is ours: its socket hears of the error. */
void net_udp_icmp(struct net *n, const struct net_icmp_err *e)
{
	struct net_udp_sock *s = udp_lookup(n, e->inner.family, &e->inner.src, wire_get16(e->l4));
	if (s && s->err_fn)
		s->err_fn(s->arg, e);
}

uint16_t net_udp_port(const struct net_udp_sock *s)
{
	return s->port;
}

void net_udp_close(struct net *n, struct net_udp_sock *s)
{
	(void)n;
	if (s)
		memset(s, 0, sizeof(*s));
}

/* Over the path MTU: the checksum covers the whole datagram, so it is
 * computed here, in software, before the datagram is cut (RFC 768, RFC 8200
 * §8.1). The largest: 65507 bytes on IPv4 (a 65535-byte datagram), 65527 on
 * IPv6 (the UDP length field), as Linux. */
static int udp_send_frags(struct net *n, struct net_udp_sock *s, const void *buf, size_t len,
			  const struct ip_meta *mt, uint16_t dport, uint32_t mtu)
{
	if (len > 65535 - UDP_HDR_LEN - (mt->family == AF_INET ? IP4_HDR_LEN : 0))
		return -EMSGSIZE;
	uint8_t h[UDP_HDR_LEN];
	struct udp_repr r = {
	    .sport = s->port, .dport = dport, .len = (uint16_t)(UDP_HDR_LEN + len)};
	udp_emit(&r, &(struct wire_view){h, UDP_HDR_LEN});
	uint32_t sum = mt->family == AF_INET
			   ? wire_csum_pseudo4(mt->src.v4, mt->dst.v4, IPPROTO_UDP, r.len)
			   : wire_csum_pseudo6(mt->src.v6, mt->dst.v6, IPPROTO_UDP, r.len);
	sum = wire_csum_add(wire_csum_add(sum, h, UDP_HDR_LEN), buf, len);
	uint16_t c = wire_csum_finish(sum);
	wire_put16(h + UDP_CSUM_OFF, c ? c : 0xffff); /* RFC 768: zero sent as ones */
	n->st.udp_out++;
	return net_ip_output_frags(n, mt, h, UDP_HDR_LEN, buf, (uint32_t)len, mtu);
}

int net_udp_sendto(struct net *n, struct net_udp_sock *s, const void *buf, size_t len,
		   uint8_t family, const void *dst, uint16_t dport)
{
	if (!s || !s->used || family != s->family || !dst || dport == 0)
		return -EINVAL;
	struct ip_meta mt = {.family = family, .proto = IPPROTO_UDP};
	memcpy(&mt.dst, dst, net_alen(family));
	uint32_t mtu;
	int rc = net_route(n, family, dst, &mt.src, &mtu);
	if (rc)
		return rc;
	if (!udp_addr_any(s))
		memcpy(&mt.src, s->addr, net_alen(family));
	uint32_t hl = family == AF_INET ? IP4_HDR_LEN : IP6_HDR_LEN;
	if (len + UDP_HDR_LEN + hl > mtu)
		return udp_send_frags(n, s, buf, len, &mt, dport, mtu);
	struct rte_mbuf *m = net_alloc(n);
	if (!m)
		return -ENOBUFS;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(UDP_HDR_LEN + len));
	if (!p) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	struct udp_repr r = {
	    .sport = s->port, .dport = dport, .len = (uint16_t)(UDP_HDR_LEN + len)};
	struct wire_view v = {p, UDP_HDR_LEN + len};
	udp_emit(&r, &v);
	memcpy(p + UDP_HDR_LEN, buf, len);
	n->st.udp_out++;
	return net_output(n, m, &mt);
}

void net_udp_input(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta,
		   uint16_t ip_hdr_len)
{
	n->st.udp_in++;
	struct wire_view v = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	struct udp_repr r;
	if (v.len < UDP_HDR_LEN || udp_parse(&(struct wire_view){v.p, meta->l4_len}, &r) ||
	    r.len > meta->l4_len) {
		n->st.udp_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	uint16_t ck = wire_get16(v.p + UDP_CSUM_OFF);
	/* RFC 768: zero means "no checksum" on IPv4; RFC 8200 §8.1 forbids it
	 * on IPv6. The checksum covers the UDP length, not the IP payload. */
	if (ck == 0 && meta->family == AF_INET6) {
		n->st.udp_bad_csum++;
		rte_pktmbuf_free(m);
		return;
	}
	struct ip_meta mt = *meta;
	mt.l4_len = r.len;
	if (ck != 0 && !net_l4_csum_ok(n, m, &mt)) {
		n->st.udp_bad_csum++;
		rte_pktmbuf_free(m);
		return;
	}
	struct net_udp_sock *s = udp_lookup(n, meta->family, &meta->dst, r.dport);
	if (!s) {
		n->st.udp_no_port++;
		if (ip_hdr_len && rte_pktmbuf_prepend(m, ip_hdr_len)) {
			if (meta->family == AF_INET)
				net_icmp4_error(n, m, ICMP_UNREACH, ICMP_UNREACH_PORT, 0);
			else
				net_icmp6_error(n, m, ICMP6_UNREACH, ICMP6_UNREACH_PORT, 0);
		}
		rte_pktmbuf_free(m);
		return;
	}
	if (rte_pktmbuf_pkt_len(m) > r.len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - r.len));
	rte_pktmbuf_adj(m, UDP_HDR_LEN);
	mt.l4_len = (uint16_t)(r.len - UDP_HDR_LEN);
	s->fn(s->arg, m, &mt, r.sport, r.dport);
}
