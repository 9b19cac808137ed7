/* wire: ARP for Ethernet and IPv4, RFC 826 (packet format only). */
#include "wire.h"

#include <errno.h>

int arp_parse(const struct wire_view *v, struct arp_repr *r)
{
	if (v->len < ARP_LEN)
		return -EINVAL;
	const uint8_t *p = v->p;
	if (wire_get16(p) != 1 || wire_get16(p + 2) != ETH_TYPE_IP4 || p[4] != 6 || p[5] != 4)
		return -EINVAL;
	r->op = wire_get16(p + 6);
	if (r->op != ARP_OP_REQUEST && r->op != ARP_OP_REPLY)
		return -EINVAL;
	memcpy(r->sha, p + 8, 6);
	memcpy(&r->spa, p + 14, 4);
	memcpy(r->tha, p + 18, 6);
	memcpy(&r->tpa, p + 24, 4);
	if (eth_is_multicast(r->sha))
		return -EINVAL;
	return 0;
}

void arp_emit(const struct arp_repr *r, struct wire_view *v)
{
	uint8_t *p = v->p;
	wire_put16(p, 1);
	wire_put16(p + 2, ETH_TYPE_IP4);
	p[4] = 6;
	p[5] = 4;
	wire_put16(p + 6, r->op);
	memcpy(p + 8, r->sha, 6);
	memcpy(p + 14, &r->spa, 4);
	memcpy(p + 18, r->tha, 6);
	memcpy(p + 24, &r->tpa, 4);
}
