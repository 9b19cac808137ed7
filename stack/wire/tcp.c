/* TCP header view/repr and checksum. RFC 9293 §3.1 (header), RFC 7323 §2-3
 * (window scale, timestamps), RFC 2018 (SACK); bytes through wire_get/put,
 * the checksum through wire_csum (RFC 1071) over the pseudo-header. */
#include <errno.h>
#include <string.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "wire.h"

enum {
	OPT_EOL = 0,
	OPT_NOP = 1,
	OPT_MSS = 2,
	OPT_WS = 3,
	OPT_SACKPERM = 4,
	OPT_SACK = 5,
	OPT_TS = 8
};

static void parse_options(const uint8_t *p, size_t n, struct tcp_repr *r)
{
	size_t i = 0;
	while (i < n) {
		uint8_t kind = p[i];
		if (kind == OPT_EOL)
			return;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= n)
			return;
		uint8_t olen = p[i + 1];
		if (olen < 2 || i + olen > n)
			return; /* malformed: stop, keep what we have */
		const uint8_t *o = p + i + 2;
		switch (kind) {
		case OPT_MSS:
			if (olen == 4 && (r->flags & TCP_SYN))
				r->mss = wire_get16(o);
			break;
		case OPT_WS:
			if (olen == 3 && (r->flags & TCP_SYN)) {
				/* RFC 7323 §2.3: a shift above 14 is used as 14. */
				r->wscale = (int8_t)(o[0] > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : o[0]);
			}
			break;
		case OPT_SACKPERM:
			if (olen == 2 && (r->flags & TCP_SYN))
				r->sack_perm = true;
			break;
		case OPT_SACK:
			if (olen >= 10 && (olen - 2) % 8 == 0) {
				unsigned nb = (olen - 2u) / 8u;
				r->nsack = 0;
				for (unsigned b = 0; b < nb && b < TCP_SACK_MAX; b++) {
					r->sack[b].l = wire_get32(o + 8 * b);
					r->sack[b].r = wire_get32(o + 8 * b + 4);
					r->nsack++;
				}
			}
			break;
		case OPT_TS:
			if (olen == 10) {
				r->ts = true;
				r->tsval = wire_get32(o);
				r->tsecr = wire_get32(o + 4);
			}
			break;
		default:
			r->unknown_opt = true;
			break;
		}
		i += olen;
	}
}

int tcp_parse(const uint8_t *buf, size_t len, struct tcp_repr *r)
{
	if (!buf || len < TCP_HDR_MIN)
		return -EINVAL;
	size_t hlen = (size_t)(buf[12] >> 4) * 4;
	if (hlen < TCP_HDR_MIN || hlen > len)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->wscale = -1;
	r->sport = wire_get16(buf);
	r->dport = wire_get16(buf + 2);
	r->seq = wire_get32(buf + 4);
	r->ack = wire_get32(buf + 8);
	r->flags = buf[13];
	r->window = wire_get16(buf + 14);
	r->urg = wire_get16(buf + 18);
	if (r->sport == 0 || r->dport == 0)
		return -EINVAL;
	if ((r->flags & TCP_SYN) && (r->flags & (TCP_FIN | TCP_RST)))
		return -EINVAL;
	parse_options(buf + TCP_HDR_MIN, hlen - TCP_HDR_MIN, r);
	r->rxopt_len = (uint8_t)(hlen - TCP_HDR_MIN);
	memcpy(r->rxopt, buf + TCP_HDR_MIN, r->rxopt_len);
	return (int)hlen;
}

static unsigned sack_blocks(const struct tcp_repr *r)
{
	unsigned n = r->nsack > TCP_SACK_MAX ? TCP_SACK_MAX : r->nsack;
	/* 40 option bytes: with timestamps (12) at most 3 blocks (4 + 24). */
	if (r->ts && n > 3)
		n = 3;
	if (r->flags & TCP_SYN)
		n = 0;
	return n;
}

size_t tcp_repr_hdr_len(const struct tcp_repr *r)
{
	size_t n = TCP_HDR_MIN;
	if (r->mss)
		n += 4;
	if (r->ts || r->sack_perm)
		n += r->ts ? 12 : 4;
	if (r->wscale >= 0)
		n += 4;
	unsigned sb = sack_blocks(r);
	if (sb)
		n += 4 + 8 * sb;
	return n + r->xopt_len;
}

void tcp_emit(const struct tcp_repr *r, uint8_t *buf)
{
	size_t hlen = tcp_repr_hdr_len(r);
	wire_put16(buf, r->sport);
	wire_put16(buf + 2, r->dport);
	wire_put32(buf + 4, r->seq);
	wire_put32(buf + 8, r->ack);
	buf[12] = (uint8_t)((hlen / 4) << 4);
	buf[13] = r->flags;
	wire_put16(buf + 14, r->window);
	wire_put16(buf + TCP_CSUM_OFF, 0);
	wire_put16(buf + 18, r->urg);
	uint8_t *p = buf + TCP_HDR_MIN;
	/* Linux's layout (tcp_options_write), so captures compare byte-for-byte. */
	if (r->mss) {
		p[0] = OPT_MSS;
		p[1] = 4;
		wire_put16(p + 2, r->mss);
		p += 4;
	}
	if (r->ts) {
		if (r->sack_perm) {
			p[0] = OPT_SACKPERM;
			p[1] = 2;
		} else {
			p[0] = OPT_NOP;
			p[1] = OPT_NOP;
		}
		p[2] = OPT_TS;
		p[3] = 10;
		wire_put32(p + 4, r->tsval);
		wire_put32(p + 8, r->tsecr);
		p += 12;
	} else if (r->sack_perm) {
		p[0] = OPT_NOP;
		p[1] = OPT_NOP;
		p[2] = OPT_SACKPERM;
		p[3] = 2;
		p += 4;
	}
	if (r->wscale >= 0) {
		p[0] = OPT_NOP;
		p[1] = OPT_WS;
		p[2] = 3;
		p[3] = (uint8_t)r->wscale;
		p += 4;
	}
	unsigned sb = sack_blocks(r);
	if (sb) {
		p[0] = OPT_NOP;
		p[1] = OPT_NOP;
		p[2] = OPT_SACK;
		p[3] = (uint8_t)(2 + 8 * sb);
		p += 4;
		for (unsigned i = 0; i < sb; i++) {
			wire_put32(p, r->sack[i].l);
			wire_put32(p + 4, r->sack[i].r);
			p += 8;
		}
	}
	memcpy(p, r->xopt, r->xopt_len);
}

uint16_t tcp_checksum(int family, const void *src, const void *dst, const void *seg, size_t len)
{
	uint32_t ps;
	if (family == AF_INET6) {
		ps = wire_csum_pseudo6(src, dst, IPPROTO_TCP, (uint32_t)len);
	} else {
		uint32_t s4, d4;
		memcpy(&s4, src, 4);
		memcpy(&d4, dst, 4);
		ps = wire_csum_pseudo4(s4, d4, IPPROTO_TCP, (uint32_t)len);
	}
	return wire_csum_finish(wire_csum_add(ps, seg, len));
}
