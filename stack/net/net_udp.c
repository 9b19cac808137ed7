/* net: UDP sockets for the native API, RFC 768 and RFC 1122 §4.1 (port
 * unreachable for a datagram nobody listens to, zero checksum accepted on
 * IPv4 only, RFC 8200 §8.1). Binding is rare: a small table searched
 * linearly. */
#include "net_int.h"

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

/* What a socket's local address takes in (Linux inet_rcv_saddr_equal and
 * compute_score): AF_INET a.b.c.d (0.0.0.0: any) takes IPv4; AF_INET6 ::
 * takes IPv6 and, unless IPV6_V6ONLY, IPv4 too; ::ffff:a.b.c.d takes the
 * IPv4 address a.b.c.d only; another IPv6 address only itself. */
struct udp_reach {
	bool v4, v6;
	uint32_t a4; /* 0: any */
	const uint8_t *a6;
};

static bool udp_v6_any(const uint8_t a[16])
{
	static const uint8_t zero[16];
	return !memcmp(a, zero, 16);
}

static void udp_reach_of(const struct net_udp_sock *s, struct udp_reach *r)
{
	r->a6 = s->addr;
	r->a4 = 0;
	if (s->family == AF_INET) {
		r->v4 = true;
		r->v6 = false;
		memcpy(&r->a4, s->addr, 4);
	} else if (net_v6_mapped(s->addr)) {
		r->v4 = true;
		r->v6 = false;
		memcpy(&r->a4, s->addr + 12, 4);
	} else {
		r->v6 = true;
		r->v4 = udp_v6_any(s->addr) && !s->v6only;
	}
}

/* Two sockets' addresses share a datagram's destination: a bind conflict. */
static bool udp_overlap(const struct udp_reach *a, const struct udp_reach *b)
{
	if (a->v4 && b->v4 && (a->a4 == b->a4 || !a->a4 || !b->a4))
		return true;
	return a->v6 && b->v6 &&
	       (udp_v6_any(a->a6) || udp_v6_any(b->a6) || !memcmp(a->a6, b->a6, 16));
}

/* How well s takes a datagram to dst from src:sport: 0 not at all; an
 * exact address beats a wildcard, between equals AF_INET beats AF_INET6,
 * and a socket connected to the source beats them all (Linux
 * compute_score: its peer address and port must both match). */
static int udp_score(const struct net_udp_sock *s, uint8_t family, const void *dst, const void *src,
		     uint16_t sport)
{
	int peer = 0;
	if (s->pfam) {
		if (s->pfam != family || s->pport != sport ||
		    memcmp(s->paddr, src, net_alen(family)))
			return 0;
		peer = 8;
	} else if (family == AF_INET6 && s->v6peer_set) {
		if (memcmp(s->v6peer, src, 16))
			return 0;
		peer = 4;
	}
	struct udp_reach r;
	udp_reach_of(s, &r);
	if (family == AF_INET6) {
		if (!r.v6)
			return 0;
		return udp_v6_any(r.a6) ? 1 + peer : !memcmp(r.a6, dst, 16) ? 3 + peer : 0;
	}
	uint32_t d;
	memcpy(&d, dst, 4);
	int inet = s->family == AF_INET;
	if (!r.v4)
		return 0;
	return !r.a4 ? 1 + inet + peer : r.a4 == d ? 3 + inet + peer : 0;
}

/* Members of one SO_REUSEPORT group: one owner's unconnected sockets of the
 * same binding (Linux's pick skips connected members) */
static bool udp_same_group(const struct net_udp_sock *a, const struct net_udp_sock *b)
{
	return a->reuseport && b->reuseport && !a->pfam && !b->pfam && a->uid == b->uid &&
	       a->family == b->family && a->v6only == b->v6only && !memcmp(a->addr, b->addr, 16);
}

/* The socket for a datagram to dst:port from src:sport: the best score;
 * of equals the newest binding (Linux puts a new one at the head of the
 * port's chain), or for an SO_REUSEPORT group a member picked by a hash of
 * the 4-tuple, so one peer's datagrams keep to one socket. Linux hashes it
 * with jhash and a secret drawn at boot, so which member a peer gets is
 * not the kernel's (nor predictable there); the scaling of the hash to the
 * group is Linux reciprocal_scale. */
static struct net_udp_sock *udp_lookup(struct net *n, uint8_t family, const void *dst,
				       uint16_t port, const void *src, uint16_t sport)
{
	struct net_udp_sock *best = NULL, *group[NET_UDP_MAX];
	int best_score = 0;
	unsigned ng = 0;
	for (unsigned i = 0; i < NET_UDP_MAX; i++) {
		struct net_udp_sock *s = &n->udp[i];
		if (!s->used || s->port != port)
			continue;
		int sc = udp_score(s, family, dst, src, sport);
		if (sc > best_score || (sc && sc == best_score && s->seq > best->seq)) {
			best = s;
			best_score = sc;
		}
	}
	if (!best || !best->reuseport || best->pfam)
		return best;
	for (unsigned i = 0; i < NET_UDP_MAX; i++)
		if (n->udp[i].used && n->udp[i].port == port && udp_same_group(&n->udp[i], best))
			group[ng++] = &n->udp[i];
	uint32_t h = 2166136261u; /* FNV-1a */
	const uint8_t *a = src, *d = dst;
	for (size_t i = 0; i < net_alen(family); i++)
		h = (h ^ a[i] ^ (uint32_t)d[i] << 8) * 16777619u;
	h = (h ^ ((uint32_t)sport << 16 | port)) * 16777619u;
	h ^= h >> 16; /* spread the last bytes to the high bits the scaling reads */
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return group[(uint64_t)h * ng >> 32];
}

static bool udp_port_taken(struct net *n, const struct net_udp_sock *me, uint16_t port)
{
	struct udp_reach a, b;
	udp_reach_of(me, &a);
	for (unsigned i = 0; i < NET_UDP_MAX; i++) {
		struct net_udp_sock *s = &n->udp[i];
		if (!s->used || s->port != port || (me->reuseaddr && s->reuseaddr) ||
		    (me->reuseport && s->reuseport && me->uid == s->uid))
			continue;
		udp_reach_of(s, &b);
		if (udp_overlap(&a, &b))
			return true;
	}
	return false;
}

int net_udp_open(struct net *n, uint8_t family, const void *addr, uint16_t port, net_udp_fn fn,
		 void *arg, struct net_udp_sock **out)
{
	struct net_udp_opts o = {0};
	return net_udp_open_opts(n, family, addr, port, &o, fn, arg, out);
}

int net_udp_open_opts(struct net *n, uint8_t family, const void *addr, uint16_t port,
		      const struct net_udp_opts *o, net_udp_fn fn, void *arg,
		      struct net_udp_sock **out)
{
	if ((family != AF_INET && family != AF_INET6) || !o || !fn || !out)
		return -EINVAL;
	struct net_udp_sock me = {.family = family,
				  .v6only = o->v6only,
				  .reuseaddr = o->reuseaddr,
				  .reuseport = o->reuseport,
				  .uid = o->uid};
	if (addr)
		memcpy(me.addr, addr, net_alen(family));
	bool mapped = family == AF_INET6 && net_v6_mapped(me.addr);
	if (mapped && me.v6only) /* Linux inet6_bind */
		return -EINVAL;
	/* ::ffff:a.b.c.d is the IPv4 address a.b.c.d (0.0.0.0: any) */
	uint8_t lfam = mapped ? AF_INET : family;
	const uint8_t *la = mapped ? me.addr + 12 : me.addr;
	static const uint8_t zero[16];
	if (memcmp(la, zero, net_alen(lfam)) && !net_is_local(n, lfam, la))
		return -EADDRNOTAVAIL;
	if (family == AF_INET6 && !mapped && !udp_v6_any(me.addr))
		me.v6only = true; /* a specific IPv6 address: IPv6 only, as Linux */
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
			if (!udp_port_taken(n, &me, p)) {
				port = p;
				break;
			}
		}
		if (!port)
			return -EADDRINUSE;
	} else if (udp_port_taken(n, &me, port)) {
		return -EADDRINUSE;
	}
	*s = me;
	s->used = true;
	s->seq = ++n->udp_seq;
	s->port = port;
	s->fn = fn;
	s->arg = arg;
	*out = s;
	return 0;
}

bool net_udp_v6only(const struct net_udp_sock *s)
{
	return s->v6only;
}

void net_udp_connect(struct net_udp_sock *s, uint8_t family, const void *dst, uint16_t dport)
{
	s->pfam = dst ? family : 0;
	memset(s->paddr, 0, sizeof(s->paddr));
	if (s->pfam)
		memcpy(s->paddr, dst, net_alen(family));
	s->pport = s->pfam ? dport : 0;
	if (s->pfam && s->family == AF_INET6) {
		uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
		if (family == AF_INET)
			memcpy(mapped + 12, dst, 4);
		memcpy(s->v6peer, family == AF_INET ? mapped : dst, 16);
		s->v6peer_set = true;
	}
}

void net_udp_set_err(struct net_udp_sock *s, net_udp_err_fn fn)
{
	s->err_fn = fn;
}

/* The quoted datagram's source is ours: its socket hears of the error. */
bool net_udp_icmp(struct net *n, const struct net_icmp_err *e)
{
	/* the quoted datagram went out from us: its source is our end */
	struct net_udp_sock *s = udp_lookup(n, e->inner.family, &e->inner.src, wire_get16(e->l4),
					    &e->inner.dst, wire_get16(e->l4 + 2));
	if (s && s->err_fn)
		s->err_fn(s->arg, e);
	return s != NULL;
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
	if (!s || !s->used || !dst || dport == 0 || (family != AF_INET && family != AF_INET6))
		return -EINVAL;
	struct udp_reach rch;
	udp_reach_of(s, &rch);
	/* IPv4 from an AF_INET6 socket: only a dual-stack one (Linux
	 * udpv6_sendmsg, ENETUNREACH for IPV6_V6ONLY) */
	if (family == AF_INET ? !rch.v4 : !rch.v6)
		return s->family == AF_INET ? -EAFNOSUPPORT : -ENETUNREACH;
	struct ip_meta mt = {.family = family, .proto = IPPROTO_UDP};
	memcpy(&mt.dst, dst, net_alen(family));
	uint32_t mtu;
	int rc = net_route(n, family, dst, &mt.src, &mtu);
	if (rc)
		return rc;
	if (family == AF_INET && rch.a4)
		memcpy(&mt.src, &rch.a4, 4);
	else if (family == AF_INET6 && !udp_v6_any(rch.a6))
		memcpy(&mt.src, rch.a6, 16);
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
	struct net_udp_sock *s =
	    udp_lookup(n, meta->family, &meta->dst, r.dport, &meta->src, r.sport);
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
