/* wire: the IPv4 header, RFC 791 §3.1. Options are length-checked and
 * skipped (RFC 1122 §3.2.1.8 lets a host ignore the ones it does not know;
 * we use none). */
#include "wire.h"

#include <errno.h>

int ip4_parse(const struct wire_view *v, struct ip4_repr *r, bool skip_csum)
{
	if (v->len < IP4_HDR_LEN)
		return -EINVAL;
	const uint8_t *p = v->p;
	if ((p[0] >> 4) != 4)
		return -EINVAL;
	size_t hl = (size_t)(p[0] & 0xf) * 4;
	uint16_t total = wire_get16(p + 2);
	if (hl < IP4_HDR_LEN || hl > v->len || total < hl || total > v->len)
		return -EINVAL;
	if (!skip_csum && wire_csum_fold(wire_csum_add(0, p, hl)) != 0xffff)
		return -EBADMSG;
	uint16_t fo = wire_get16(p + 6);
	/* The reserved flag must be zero (RFC 791 §3.1 "Bit 0: reserved"). */
	if (fo & 0x8000)
		return -EINVAL;
	r->hdr_len = (uint8_t)hl;
	r->payload_len = (uint16_t)(total - hl);
	r->tos = p[1];
	r->id = wire_get16(p + 4);
	r->df = fo & IP4_FLAG_DF;
	r->mf = fo & IP4_FLAG_MF;
	r->frag_off = (uint16_t)((fo & 0x1fff) * 8);
	r->ttl = p[8];
	r->proto = p[9];
	memcpy(&r->src, p + 12, 4);
	memcpy(&r->dst, p + 16, 4);
	/* A fragment that would end beyond 65535 is malformed (ping of death). */
	if ((uint32_t)r->frag_off + r->payload_len > 65535)
		return -EINVAL;
	return 0;
}

void ip4_emit(const struct ip4_repr *r, struct wire_view *v, bool csum_offload)
{
	uint8_t *p = v->p;
	p[0] = 0x45;
	p[1] = r->tos;
	wire_put16(p + 2, (uint16_t)(IP4_HDR_LEN + r->payload_len));
	wire_put16(p + 4, r->id);
	uint16_t fo = (uint16_t)((r->frag_off / 8) & 0x1fff);
	if (r->df)
		fo |= IP4_FLAG_DF;
	if (r->mf)
		fo |= IP4_FLAG_MF;
	wire_put16(p + 6, fo);
	p[8] = r->ttl;
	p[9] = r->proto;
	p[10] = p[11] = 0;
	memcpy(p + 12, &r->src, 4);
	memcpy(p + 16, &r->dst, 4);
	if (!csum_offload)
		wire_put16(p + 10, wire_csum_finish(wire_csum_add(0, p, IP4_HDR_LEN)));
}
