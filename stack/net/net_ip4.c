/* net: IPv4 input (RFC 791, RFC 1122 §3.2.1), fragments handed to the
 * reassembly queues of net_frag.c, and ICMP (RFC 792: echo, errors in and
 * out, frag-needed → path MTU per RFC 1191). */
#include "net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

static void ip4_meta(const struct ip4_repr *r, struct ip_meta *m, uint16_t l4_len)
{
	memset(m, 0, sizeof(*m));
	m->family = AF_INET;
	m->proto = r->proto;
	m->tos = r->tos;
	m->ttl = r->ttl;
	m->src.v4 = r->src;
	m->dst.v4 = r->dst;
	m->l4_len = l4_len;
}

/* ---- ICMP errors out --------------------------------------------------- */

void net_icmp4_error(struct net *n, const struct rte_mbuf *orig, uint8_t type, uint8_t code,
		     uint32_t rest)
{
	const uint8_t *ip = rte_pktmbuf_mtod(orig, const uint8_t *);
	uint32_t olen = rte_pktmbuf_pkt_len(orig);
	if (olen < IP4_HDR_LEN)
		return;
	uint32_t src, dst;
	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	/* RFC 1122 §3.2.2: never about a broadcast/multicast datagram, a
	 * non-initial fragment, or from an address that is not ours. */
	const uint8_t *s = (const uint8_t *)&src, *d = (const uint8_t *)&dst;
	if (s[0] >= 224 || d[0] >= 224 || src == 0 || !net_is_local(n, AF_INET, &dst) ||
	    (wire_get16(ip + 6) & 0x1fff) || !net_icmp_allow(n))
		return;
	/* Quote as much as fits a 576-byte datagram (RFC 1812 §4.3.2.3). */
	uint32_t quote = olen;
	if (quote > 576 - IP4_HDR_LEN - ICMP_HDR_LEN)
		quote = 576 - IP4_HDR_LEN - ICMP_HDR_LEN;
	struct rte_mbuf *m = net_alloc(n);
	if (!m)
		return;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(ICMP_HDR_LEN + quote));
	if (!p) {
		rte_pktmbuf_free(m);
		return;
	}
	/* rte_pktmbuf_read copies only when the range spans segments. */
	const void *q = rte_pktmbuf_read(orig, 0, quote, p + ICMP_HDR_LEN);
	if (q != p + ICMP_HDR_LEN)
		memcpy(p + ICMP_HDR_LEN, q, quote);
	struct icmp_repr r = {
	    .type = type, .code = code, .rest = rest, .data = p + ICMP_HDR_LEN, .data_len = quote};
	struct wire_view v = {p, ICMP_HDR_LEN + quote};
	icmp4_emit(&r, &v);
	struct ip_meta mt = {.family = AF_INET, .proto = IPPROTO_ICMP};
	mt.src.v4 = dst;
	mt.dst.v4 = src;
	n->st.icmp_errors_out++;
	net_ip_output(n, m, &mt);
}

/* ---- ICMP in ----------------------------------------------------------- */

static void icmp4_err_in(struct net *n, const struct icmp_repr *r)
{
	n->st.icmp_errors_in++;
	struct wire_view q = {(uint8_t *)r->data, r->data_len};
	struct ip4_repr in;
	/* The quote is at least the inner header + 8 bytes (RFC 792); its
	 * total length may exceed what was quoted, so parse a header view. */
	if (q.len < IP4_HDR_LEN + 8 || (q.p[0] >> 4) != 4)
		goto bad;
	size_t ihl = (size_t)(q.p[0] & 0xf) * 4;
	if (ihl < IP4_HDR_LEN || q.len < ihl + 8)
		goto bad;
	uint8_t hdr[60];
	memcpy(hdr, q.p, ihl);
	wire_put16(hdr + 2, (uint16_t)(ihl + 8));
	struct wire_view hv = {hdr, ihl + 8};
	if (ip4_parse(&hv, &in, true) || !net_is_local(n, AF_INET, &in.src))
		goto bad;
	struct net_icmp_err e = {.type = r->type, .code = r->code};
	ip4_meta(&in, &e.inner, 8);
	memcpy(e.l4, q.p + ihl, 8);
	bool locked = false;
	if (r->type == ICMP_UNREACH && r->code == ICMP_UNREACH_NEEDFRAG) {
		e.kind = NET_ICMP_FRAG_NEEDED;
		/* RFC 1191 §5: an old router reports 0; like any report below
		 * the floor it becomes the floor (Linux). */
		e.mtu = net_pmtu_candidate(n, AF_INET, &in.dst, r->rest & 0xffff, &locked);
	} else if (r->type == ICMP_UNREACH) {
		e.kind =
		    r->code == ICMP_UNREACH_PORT ? NET_ICMP_UNREACH_PORT : NET_ICMP_UNREACH_OTHER;
	} else if (r->type == ICMP_TIME_EXCEEDED) {
		e.kind = NET_ICMP_TIME_EXCEEDED;
	} else {
		e.kind = NET_ICMP_PARAM_PROBLEM;
	}
	/* RFC 5927 §4.1 (Linux tcp_v4_err): the path MTU changes only when
	 * the quote is of something we sent that is still in flight; a blind
	 * attacker guessing ports and sequence numbers changes nothing. */
	bool ours = false;
	if (in.proto == IPPROTO_TCP && n->icmp_fn)
		ours = n->icmp_fn(n->icmp_arg, &e);
	else if (in.proto == IPPROTO_UDP)
		ours = net_udp_icmp(n, &e);
	if (e.kind == NET_ICMP_FRAG_NEEDED) {
		if (ours)
			net_pmtu_update(n, AF_INET, &in.dst, e.mtu, locked);
		else
			n->st.pmtu_refused++;
	}
	return;
bad:
	n->st.icmp_bad++;
}

static void icmp4_input(struct net *n, struct rte_mbuf *m, const struct ip4_repr *ip, bool bcast)
{
	n->st.icmp_in++;
	uint8_t *copy;
	uint8_t *l4 = net_l4_flat(m, &copy);
	if (!l4)
		goto bad;
	struct wire_view v = {l4, rte_pktmbuf_pkt_len(m)};
	struct icmp_repr r;
	if (icmp4_parse(&v, &r, false))
		goto bad;
	switch (r.type) {
	case ICMP_ECHO: {
		/* RFC 1122 §3.2.2.6: no reply to a broadcast echo (we choose
		 * not to answer those); reply reusing the request's buffer. */
		if (bcast || r.code != 0)
			break;
		r.type = ICMP_ECHO_REPLY;
		icmp4_emit(&r, &v);
		struct ip_meta mt = {.family = AF_INET, .proto = IPPROTO_ICMP, .tos = ip->tos};
		mt.src.v4 = ip->dst;
		mt.dst.v4 = ip->src;
		n->st.icmp_echo_replies++;
		if (copy || v.len + IP4_HDR_LEN > net_path_mtu(n, AF_INET, &mt.dst)) {
			net_ip_output_flat(n, &mt, v.p, (uint32_t)v.len);
			break;
		}
		m->ol_flags = 0;
		net_ip_output(n, m, &mt);
		return;
	}
	case ICMP_UNREACH:
	case ICMP_TIME_EXCEEDED:
	case ICMP_PARAM_PROBLEM:
		icmp4_err_in(n, &r);
		break;
	default:
		break;
	}
	free(copy);
	rte_pktmbuf_free(m);
	return;
bad:
	n->st.icmp_bad++;
	free(copy);
	rte_pktmbuf_free(m);
}

/* ---- input --------------------------------------------------------------- */

void net_ip4_input(struct net *n, struct rte_mbuf *m)
{
	n->st.ip4_in++;
	struct wire_view v = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	struct ip4_repr r;
	bool skip = n->caps.rx_csum &&
		    (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	int rc = ip4_parse(&v, &r, skip);
	if (rc) {
		if (rc == -EBADMSG)
			n->st.ip4_bad_csum++;
		/* Shorter than its total length: over net_af_packet this is a
		 * datagram the kernel reassembled (the PMD's fanout asks for
		 * PACKET_FANOUT_FLAG_DEFRAG) cut to the ring's frame size. */
		else if (v.len >= 4 && wire_get16(v.p + 2) > v.len)
			n->st.ip4_bad_len++;
		else
			n->st.ip4_bad_hdr++;
		rte_pktmbuf_free(m);
		return;
	}
	const uint8_t *d = (const uint8_t *)&r.dst, *s = (const uint8_t *)&r.src;
	bool bcast = r.dst == 0xffffffffu;
	if (!bcast && !net_is_local(n, AF_INET, &r.dst)) {
		/* Directed broadcast of one of our subnets. */
		const struct net_addr *a = net_addr_match(n, AF_INET, &r.dst);
		uint32_t host = a && a->prefix_len < 31 ? ~0u >> a->prefix_len : 0;
		bcast = host && (ntohl(r.dst) & host) == host;
		if (!bcast) {
			n->st.ip4_not_for_us++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	/* Martian sources (RFC 1812 §5.3.7): never answer them. */
	if (s[0] >= 224 || r.src == 0 || s[0] == 127 || d[0] == 127) {
		n->st.ip4_bad_hdr++;
		rte_pktmbuf_free(m);
		return;
	}
	if (r.hdr_len > IP4_HDR_LEN)
		n->st.ip4_options++;
	/* Trim Ethernet padding, then step over the header (options ignored). */
	uint32_t want = r.hdr_len + r.payload_len;
	if (rte_pktmbuf_pkt_len(m) > want)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - want));
	if (r.mf || r.frag_off) {
		n->st.ip4_frag_in++;
		if (bcast) {
			rte_pktmbuf_free(m);
			return;
		}
		rte_pktmbuf_adj(m, r.hdr_len);
		struct net_frag_key k = {.family = AF_INET, .proto = r.proto, .id = r.id};
		memcpy(k.src, &r.src, 4);
		memcpy(k.dst, &r.dst, 4);
		struct net_frag_desc fd = {.off = r.frag_off,
					   .len = r.payload_len,
					   .more = r.mf,
					   .hdr_len = r.hdr_len,
					   .nh = r.proto};
		m = net_frag_add(n, &k, m, &fd, NULL);
		if (!m)
			return;
		struct ip_meta mt;
		ip4_meta(&r, &mt, (uint16_t)rte_pktmbuf_pkt_len(m));
		/* The reassembled datagram has no IP header in front to quote;
		 * hdr_len 0 suppresses port/protocol unreachable for it. */
		if (mt.proto == IPPROTO_ICMP) {
			icmp4_input(n, m, &r, false);
			return;
		}
		net_l4_deliver(n, m, &mt, 0);
		return;
	}
	rte_pktmbuf_adj(m, r.hdr_len);
	if (r.proto == IPPROTO_ICMP) {
		icmp4_input(n, m, &r, bcast);
		return;
	}
	if (bcast && r.proto != IPPROTO_UDP) {
		n->st.ip4_not_for_us++;
		rte_pktmbuf_free(m);
		return;
	}
	struct ip_meta mt;
	ip4_meta(&r, &mt, r.payload_len);
	mt.l2_len = ETH_HDR_LEN;
	mt.l3_len = r.hdr_len;
	net_l4_deliver(n, m, &mt, bcast ? 0 : r.hdr_len);
}
