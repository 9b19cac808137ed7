/* wire: Ethernet II framing (IEEE 802.3 with an EtherType, RFC 894). */
#include "wire.h"

#include <errno.h>

int eth_parse(const struct wire_view *v, struct eth_repr *r)
{
	if (v->len < ETH_HDR_LEN)
		return -EINVAL;
	memcpy(r->dst, v->p, 6);
	memcpy(r->src, v->p + 6, 6);
	r->type = wire_get16(v->p + 12);
	/* A multicast source is never legal (IEEE 802.3 §3.2.3). */
	if (eth_is_multicast(r->src))
		return -EINVAL;
	return 0;
}

void eth_emit(const struct eth_repr *r, struct wire_view *v)
{
	memcpy(v->p, r->dst, 6);
	memcpy(v->p + 6, r->src, 6);
	wire_put16(v->p + 12, r->type);
}

bool eth_is_broadcast(const uint8_t mac[6])
{
	return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xff;
}

bool eth_is_multicast(const uint8_t mac[6])
{
	return mac[0] & 1;
}
