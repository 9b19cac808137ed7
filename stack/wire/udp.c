/* wire: the UDP header, RFC 768. */
#include "wire.h"

#include <errno.h>

int udp_parse(const struct wire_view *v, struct udp_repr *r)
{
	if (v->len < UDP_HDR_LEN)
		return -EINVAL;
	r->sport = wire_get16(v->p);
	r->dport = wire_get16(v->p + 2);
	r->len = wire_get16(v->p + 4);
	if (r->len < UDP_HDR_LEN || r->len > v->len || r->dport == 0)
		return -EINVAL;
	return 0;
}

void udp_emit(const struct udp_repr *r, struct wire_view *v)
{
	wire_put16(v->p, r->sport);
	wire_put16(v->p + 2, r->dport);
	wire_put16(v->p + 4, r->len);
	v->p[6] = v->p[7] = 0;
}
