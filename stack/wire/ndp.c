/* wire: NDP neighbour solicitation and advertisement, RFC 4861 §4.3, §4.4,
 * §4.6.1 (link-layer address options) and the validity checks of §7.1. */
#include "wire.h"

#include <errno.h>

int ndp_parse(const struct icmp_repr *icmp, struct ndp_repr *r)
{
	if (icmp->type != NDP_NS && icmp->type != NDP_NA)
		return -EINVAL;
	/* ICMP length >= 24: 8 header bytes (incl. reserved/flags) + target. */
	if (icmp->code != 0 || icmp->data_len < 16)
		return -EINVAL;
	r->type = icmp->type;
	r->flags = icmp->type == NDP_NA ? icmp->rest & 0xe0000000u : 0;
	memcpy(r->target, icmp->data, 16);
	if (ip6_is_multicast(r->target))
		return -EINVAL;
	r->has_lla = false;
	const uint8_t *o = icmp->data + 16;
	size_t left = icmp->data_len - 16;
	uint8_t want = icmp->type == NDP_NS ? NDP_OPT_SLLA : NDP_OPT_TLLA;
	while (left) {
		if (left < 2 || o[1] == 0 || (size_t)o[1] * 8 > left)
			return -EINVAL;
		size_t ol = (size_t)o[1] * 8;
		if (o[0] == want && ol == 8) {
			memcpy(r->lla, o + 2, 6);
			r->has_lla = true;
		}
		o += ol;
		left -= ol;
	}
	return 0;
}

size_t ndp_emit_body(const struct ndp_repr *r, uint8_t *buf, size_t buf_len, struct icmp_repr *icmp)
{
	size_t n = 16 + (r->has_lla ? 8 : 0);
	if (buf_len < n)
		return 0;
	memcpy(buf, r->target, 16);
	if (r->has_lla) {
		buf[16] = r->type == NDP_NS ? NDP_OPT_SLLA : NDP_OPT_TLLA;
		buf[17] = 1;
		memcpy(buf + 18, r->lla, 6);
	}
	icmp->type = r->type;
	icmp->code = 0;
	icmp->rest = r->type == NDP_NA ? (r->flags & 0xe0000000u) : 0;
	icmp->data = buf;
	icmp->data_len = n;
	return n;
}
