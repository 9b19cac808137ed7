/* net: IPv6 input (RFC 8200: extension headers skipped; fragments, §4.5,
 * checked here, RFC 6946's atomic ones taken whole, RFC 7112's short first
 * fragments refused, and queued by net_frag.c) and ICMPv6 (RFC 4443: echo,
 * errors in and out, packet too big → path MTU per RFC 8201), handing NS/NA
 * to the neighbour cache. */
#include "net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

static void ip6_meta(const struct ip6_repr *r, uint8_t proto, struct ip_meta *m, uint16_t l4_len)
{
	memset(m, 0, sizeof(*m));
	m->family = AF_INET6;
	m->proto = proto;
	m->tos = r->tclass;
	m->ttl = r->hop_limit;
	memcpy(m->src.v6, r->src, 16);
	memcpy(m->dst.v6, r->dst, 16);
	m->l4_len = l4_len;
}

int net_icmp6_send(struct net *n, const uint8_t src[16], const uint8_t dst[16], uint8_t hl,
		   const struct icmp_repr *r, const uint8_t *dst_mac)
{
	struct rte_mbuf *m = net_alloc(n);
	if (!m)
		return -ENOBUFS;
	size_t len = icmp_len(r);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (!p) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	struct wire_view v = {p, len};
	icmp6_emit(r, src, dst, &v);
	struct ip6_repr ip = {
	    .next_header = IP6_NH_ICMP6, .hop_limit = hl, .payload_len = (uint16_t)len};
	memcpy(ip.src, src, 16);
	memcpy(ip.dst, dst, 16);
	struct wire_view hv = {(uint8_t *)rte_pktmbuf_prepend(m, IP6_HDR_LEN), IP6_HDR_LEN};
	ip6_emit(&ip, &hv);
	if (dst_mac)
		return net_eth_send(n, m, dst_mac, ETH_TYPE_IP6);
	return net_l2_output(n, m, AF_INET6, dst);
}

void net_icmp6_error(struct net *n, const struct rte_mbuf *orig, uint8_t type, uint8_t code,
		     uint32_t rest)
{
	const uint8_t *ip = rte_pktmbuf_mtod(orig, const uint8_t *);
	uint32_t olen = rte_pktmbuf_pkt_len(orig);
	if (olen < IP6_HDR_LEN)
		return;
	const uint8_t *src = ip + 8, *dst = ip + 24;
	/* RFC 4443 §2.4 (e): not about multicast (except PTB) or from an
	 * unspecified source; (f) rate limited. */
	if (ip6_is_multicast(dst) || ip6_is_unspecified(src) || !net_is_local(n, AF_INET6, dst) ||
	    !net_icmp_allow(n))
		return;
	/* §2.4 (c): as much of the packet as fits the minimum MTU. */
	uint32_t quote = olen;
	if (quote > 1280 - IP6_HDR_LEN - ICMP_HDR_LEN)
		quote = 1280 - IP6_HDR_LEN - ICMP_HDR_LEN;
	uint8_t buf[1280];
	const uint8_t *q = rte_pktmbuf_read(orig, 0, quote, buf);
	if (!q)
		return;
	uint8_t s6[16], d6[16];
	memcpy(s6, dst, 16);
	memcpy(d6, src, 16);
	struct icmp_repr r = {
	    .type = type, .code = code, .rest = rest, .data = q, .data_len = quote};
	n->st.icmp_errors_out++;
	net_icmp6_send(n, s6, d6, 64, &r, NULL);
}

static void icmp6_err_in(struct net *n, const struct icmp_repr *r)
{
	n->st.icmp6_errors_in++;
	struct wire_view q = {(uint8_t *)r->data, r->data_len};
	if (q.len < IP6_HDR_LEN + 8 || (q.p[0] >> 4) != 6) {
		n->st.icmp6_bad++;
		return;
	}
	struct ip6_repr in;
	uint8_t hdr[IP6_HDR_LEN];
	memcpy(hdr, q.p, IP6_HDR_LEN);
	wire_put16(hdr + 4, 0); /* the quote may be cut: parse the header only */
	struct wire_view hv = {hdr, IP6_HDR_LEN};
	if (ip6_parse(&hv, &in) || !net_is_local(n, AF_INET6, in.src)) {
		n->st.icmp6_bad++;
		return;
	}
	struct wire_view rest = {q.p + IP6_HDR_LEN, q.len - IP6_HDR_LEN};
	uint8_t nh = in.next_header;
	int off = ip6_skip_ext(&rest, &nh);
	/* our first fragment: the L4 header follows its Fragment header */
	size_t fo = (size_t)off;
	if (off >= 0 && nh == IP6_NH_FRAGMENT && rest.len >= fo + IP6_FRAG_HDR_LEN &&
	    !(wire_get16(rest.p + fo + 2) & 0xfff8)) {
		nh = rest.p[fo];
		struct wire_view after = {rest.p + fo + IP6_FRAG_HDR_LEN,
					  rest.len - fo - IP6_FRAG_HDR_LEN};
		int o = ip6_skip_ext(&after, &nh);
		off = o < 0 ? o : off + IP6_FRAG_HDR_LEN + o;
	}
	bool ptb = r->type == ICMP6_PACKET_TOO_BIG;
	/* A quote without the L4 header (a fragment past the first) cannot
	 * be checked against a connection: it changes nothing (Linux). */
	if (off < 0 || nh == IP6_NH_FRAGMENT || rest.len < (size_t)off + 8) {
		n->st.pmtu_refused += ptb;
		return;
	}
	struct net_icmp_err e = {.type = r->type, .code = r->code};
	ip6_meta(&in, nh, &e.inner, 8);
	memcpy(e.l4, rest.p + off, 8);
	switch (r->type) {
	case ICMP6_PACKET_TOO_BIG:
		e.kind = NET_ICMP_FRAG_NEEDED;
		e.mtu = net_pmtu_candidate(n, AF_INET6, in.dst, r->rest, &(bool){false});
		if (!e.mtu) {
			/* below 1280: ignored as Linux's tcp_v6_err does */
			n->st.pmtu_refused++;
			return;
		}
		break;
	case ICMP6_UNREACH:
		e.kind =
		    r->code == ICMP6_UNREACH_PORT ? NET_ICMP_UNREACH_PORT : NET_ICMP_UNREACH_OTHER;
		break;
	case ICMP6_TIME_EXCEEDED:
		e.kind = NET_ICMP_TIME_EXCEEDED;
		break;
	default:
		e.kind = NET_ICMP_PARAM_PROBLEM;
	}
	/* RFC 5927 §4.1 (Linux tcp_v6_err): only a quote of a segment in
	 * flight lowers the path MTU. */
	bool ours = false;
	if (nh == IPPROTO_TCP && n->icmp_fn)
		ours = n->icmp_fn(n->icmp_arg, &e);
	else if (nh == IPPROTO_UDP)
		ours = net_udp_icmp(n, &e);
	if (ptb) {
		if (ours)
			net_pmtu_update(n, AF_INET6, in.dst, e.mtu, false);
		else
			n->st.pmtu_refused++;
	}
}

/* frag: the packet had a Fragment header (atomic or reassembled). */
static void icmp6_input(struct net *n, struct rte_mbuf *m, const struct ip6_repr *ip, bool frag)
{
	n->st.icmp6_in++;
	uint8_t *copy;
	uint8_t *l4 = net_l4_flat(m, &copy);
	if (!l4)
		goto bad;
	struct wire_view v = {l4, rte_pktmbuf_pkt_len(m)};
	struct icmp_repr r;
	if (icmp6_parse(&v, ip->src, ip->dst, &r, false))
		goto bad;
	switch (r.type) {
	case ICMP6_ECHO: {
		/* RFC 4443 §4.2: answer unicast echoes (multicast ones we skip). */
		if (ip6_is_multicast(ip->dst) || r.code != 0)
			break;
		r.type = ICMP6_ECHO_REPLY;
		icmp6_emit(&r, ip->dst, ip->src, &v);
		struct ip_meta mt = {.family = AF_INET6, .proto = IP6_NH_ICMP6, .tos = ip->tclass};
		memcpy(mt.src.v6, ip->dst, 16);
		memcpy(mt.dst.v6, ip->src, 16);
		n->st.icmp6_echo_replies++;
		if (copy || v.len + IP6_HDR_LEN > net_path_mtu(n, AF_INET6, &mt.dst)) {
			net_ip_output_flat(n, &mt, v.p, (uint32_t)v.len);
			break;
		}
		m->ol_flags = 0;
		net_ip_output(n, m, &mt);
		return;
	}
	case NDP_NS:
	case NDP_NA:
		/* RFC 6980 §5: never from a packet that was fragmented */
		if (!frag)
			net_ndp_input(n, ip, &r);
		break;
	case ICMP6_UNREACH:
	case ICMP6_PACKET_TOO_BIG:
	case ICMP6_TIME_EXCEEDED:
	case ICMP6_PARAM_PROBLEM:
		icmp6_err_in(n, &r);
		break;
	default:
		break;
	}
	free(copy);
	rte_pktmbuf_free(m);
	return;
bad:
	n->st.icmp6_bad++;
	free(copy);
	rte_pktmbuf_free(m);
}

static bool ip6_for_us(const struct net *n, const uint8_t dst[16])
{
	if (net_is_local(n, AF_INET6, dst))
		return true;
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	if (!memcmp(dst, all_nodes, 16))
		return true;
	for (unsigned i = 0; i < n->cfg.naddrs; i++) {
		const struct net_addr *a = &n->cfg.addrs[i];
		uint8_t sn[16];
		if (a->family != AF_INET6)
			continue;
		ip6_solicited_node(a->addr.v6, sn);
		if (!memcmp(dst, sn, 16))
			return true;
	}
	return false;
}

/* The upper layer of a packet whole in front of us: m's data at its header,
 * l4 bytes; hdr the IPv6 headers still in front of m (0 after reassembly:
 * nothing to quote, so no unreachable errors); frag as for icmp6_input. */
static void ip6_upper(struct net *n, struct rte_mbuf *m, const struct ip6_repr *r, uint8_t nh,
		      uint32_t l4, uint32_t hdr, bool frag)
{
	if (nh == IP6_NH_ICMP6) {
		icmp6_input(n, m, r, frag);
		return;
	}
	if (nh == IP6_NH_NONE) {
		rte_pktmbuf_free(m);
		return;
	}
	if (ip6_is_multicast(r->dst) && nh != IPPROTO_UDP) {
		n->st.ip6_not_for_us++;
		rte_pktmbuf_free(m);
		return;
	}
	struct ip_meta mt;
	ip6_meta(r, nh, &mt, (uint16_t)l4);
	mt.l2_len = hdr ? ETH_HDR_LEN : 0;
	mt.l3_len = (uint16_t)hdr;
	net_l4_deliver(n, m, &mt, ip6_is_multicast(r->dst) ? 0 : (uint16_t)hdr);
}

/* What of the upper-layer header the first fragment must hold (RFC 7112 §5:
 * the whole header chain, so a filter sees the ports): the fixed part. */
static uint32_t ip6_upper_min(uint8_t nh)
{
	switch (nh) {
	case IPPROTO_TCP:
		return TCP_HDR_MIN;
	case IPPROTO_UDP:
		return UDP_HDR_LEN;
	case IP6_NH_ICMP6:
		return ICMP_HDR_LEN;
	default:
		return 0;
	}
}

/* Drops a fragment with the Parameter Problem RFC 8200 §4.5 / RFC 7112 §5
 * ask for (m at the IPv6 header). */
static void ip6_frag_reject(struct net *n, struct rte_mbuf *m, uint8_t code, uint32_t ptr)
{
	n->st.ip6_reasm_drop++;
	net_icmp6_error(n, m, ICMP6_PARAM_PROBLEM, code, ptr);
	rte_pktmbuf_free(m);
}

/* A packet with a Fragment header at fh (m's data at the IPv6 header, its
 * length trimmed to the payload length), RFC 8200 §4.5. */
static void ip6_frag_input(struct net *n, struct rte_mbuf *m, const struct ip6_repr *r, uint32_t fh)
{
	n->st.ip6_frag_in++;
	uint32_t plen = IP6_HDR_LEN + r->payload_len, data = fh + IP6_FRAG_HDR_LEN;
	if (plen < data) {
		n->st.ip6_bad_len++;
		rte_pktmbuf_free(m);
		return;
	}
	const uint8_t *f = rte_pktmbuf_mtod_offset(m, const uint8_t *, fh);
	uint8_t nh = f[0];
	uint16_t om = wire_get16(f + 2);
	uint32_t off = om & 0xfff8u, len = plen - data;
	bool more = om & 1;
	struct wire_view rest = {rte_pktmbuf_mtod_offset(m, uint8_t *, data), len};
	if (off == 0 && !more) {
		/* RFC 6946: an atomic fragment is the whole packet; it never
		 * joins (or disturbs) a queue. */
		int o = ip6_skip_ext(&rest, &nh);
		if (o < 0 || nh == IP6_NH_FRAGMENT) {
			n->st.ip6_ext_drop++;
			rte_pktmbuf_free(m);
			return;
		}
		rte_pktmbuf_adj(m, (uint16_t)(data + (uint32_t)o));
		ip6_upper(n, m, r, nh, len - (uint32_t)o, data + (uint32_t)o, true);
		return;
	}
	/* §4.5: a fragment that is not the last holds a multiple of 8 bytes
	 * (pointer: the Payload Length), and no fragment reaches past 65535
	 * bytes of reassembled payload (pointer: the Fragment Offset). */
	if (more && (len == 0 || len % 8)) {
		ip6_frag_reject(n, m, 0, 4);
		return;
	}
	if (fh - IP6_HDR_LEN + off + len > 65535) {
		ip6_frag_reject(n, m, 0, fh + 2);
		return;
	}
	if (off == 0) {
		/* RFC 7112 §5: the first fragment carries every header up to
		 * and through the upper-layer one, else Parameter Problem
		 * code 3 (pointer 0). A second Fragment header is refused. */
		uint8_t u = nh;
		int o = ip6_skip_ext(&rest, &u);
		if (o < 0 || u == IP6_NH_FRAGMENT || len < (uint32_t)o + ip6_upper_min(u)) {
			ip6_frag_reject(n, m, 3, 0);
			return;
		}
	}
	struct net_frag_key k = {.family = AF_INET6, .id = wire_get32(f + 4)};
	memcpy(k.src, r->src, 16);
	memcpy(k.dst, r->dst, 16);
	struct net_frag_desc d = {
	    .off = off, .len = len, .more = more, .hdr_len = (uint16_t)data, .nh = nh};
	rte_pktmbuf_adj(m, (uint16_t)data);
	m = net_frag_add(n, &k, m, &d, &nh);
	if (!m)
		return;
	/* Whole: the first fragment's segment holds the header chain (checked
	 * above), the upper layer follows it. */
	uint32_t total = rte_pktmbuf_pkt_len(m);
	struct wire_view w = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	int o = ip6_skip_ext(&w, &nh);
	if (o < 0 || nh == IP6_NH_FRAGMENT) {
		n->st.ip6_ext_drop++;
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_adj(m, (uint16_t)o);
	ip6_upper(n, m, r, nh, total - (uint32_t)o, 0, true);
}

void net_ip6_input(struct net *n, struct rte_mbuf *m)
{
	n->st.ip6_in++;
	struct wire_view v = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	struct ip6_repr r;
	if (ip6_parse(&v, &r)) {
		n->st.ip6_bad_hdr++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!ip6_for_us(n, r.dst)) {
		n->st.ip6_not_for_us++;
		rte_pktmbuf_free(m);
		return;
	}
	uint32_t want = IP6_HDR_LEN + r.payload_len;
	if (rte_pktmbuf_pkt_len(m) > want)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - want));
	struct wire_view pl = {v.p + IP6_HDR_LEN, r.payload_len};
	uint8_t nh = r.next_header;
	int off = ip6_skip_ext(&pl, &nh);
	if (off < 0) {
		n->st.ip6_ext_drop++;
		rte_pktmbuf_free(m);
		return;
	}
	if (nh == IP6_NH_FRAGMENT) {
		ip6_frag_input(n, m, &r, IP6_HDR_LEN + (uint32_t)off);
		return;
	}
	uint32_t hdr = IP6_HDR_LEN + (uint32_t)off;
	rte_pktmbuf_adj(m, (uint16_t)hdr);
	ip6_upper(n, m, &r, nh, r.payload_len - (uint32_t)off, hdr, false);
}
