/* wire: the IPv6 header and extension header chain, RFC 8200 §3/§4;
 * multicast address forms from RFC 4291 §2.7 and RFC 2464 §7. */
#include "wire.h"

#include <errno.h>

int ip6_parse(const struct wire_view *v, struct ip6_repr *r)
{
	if (v->len < IP6_HDR_LEN)
		return -EINVAL;
	const uint8_t *p = v->p;
	uint32_t w = wire_get32(p);
	if ((w >> 28) != 6)
		return -EINVAL;
	r->payload_len = wire_get16(p + 4);
	if ((size_t)r->payload_len + IP6_HDR_LEN > v->len)
		return -EINVAL;
	r->tclass = (uint8_t)(w >> 20);
	r->flow = w & 0xfffff;
	r->next_header = p[6];
	r->hop_limit = p[7];
	memcpy(r->src, p + 8, 16);
	memcpy(r->dst, p + 24, 16);
	/* A multicast source is illegal (RFC 4291 §2.7). */
	if (ip6_is_multicast(r->src))
		return -EINVAL;
	return 0;
}

void ip6_emit(const struct ip6_repr *r, struct wire_view *v)
{
	uint8_t *p = v->p;
	wire_put32(p, (6u << 28) | ((uint32_t)r->tclass << 20) | (r->flow & 0xfffff));
	wire_put16(p + 4, r->payload_len);
	p[6] = r->next_header;
	p[7] = r->hop_limit;
	memcpy(p + 8, r->src, 16);
	memcpy(p + 24, r->dst, 16);
}

int ip6_skip_ext(const struct wire_view *payload, uint8_t *nh)
{
	size_t off = 0;
	/* Bounded: every header is at least 8 bytes. */
	for (;;) {
		switch (*nh) {
		case IP6_NH_HOPOPT:
		case IP6_NH_DSTOPTS:
		case IP6_NH_ROUTING: {
			if (payload->len - off < 8)
				return -EINVAL;
			const uint8_t *h = payload->p + off;
			size_t hl = ((size_t)h[1] + 1) * 8;
			if (payload->len - off < hl)
				return -EINVAL;
			/* RFC 8200 §4.4: a routing header with segments left must be
			 * processed; we are no router, so the packet is not ours. */
			if (*nh == IP6_NH_ROUTING && h[3] != 0)
				return -EPROTO;
			*nh = h[0];
			off += hl;
			break;
		}
		default: /* the upper layer, or a Fragment header: the caller's */
			return (int)off;
		}
	}
}

bool ip6_is_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}

bool ip6_is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];
	return memcmp(a, zero, 16) == 0;
}

void ip6_solicited_node(const uint8_t a[16], uint8_t out[16])
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};
	memcpy(out, pfx, 13);
	memcpy(out + 13, a + 13, 3);
}

void ip6_mcast_mac(const uint8_t a[16], uint8_t mac[6])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, a + 12, 4);
}
