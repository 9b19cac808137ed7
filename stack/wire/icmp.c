/* wire: ICMP messages, RFC 792 (v4) and RFC 4443 §2 (v6; checksum over the
 * RFC 8200 §8.1 pseudo-header). The body is left to the caller. */
#include "wire.h"

#include <errno.h>

static int icmp_view(const struct wire_view *v, struct icmp_repr *r)
{
	if (v->len < ICMP_HDR_LEN)
		return -EINVAL;
	r->type = v->p[0];
	r->code = v->p[1];
	r->rest = wire_get32(v->p + 4);
	r->data = v->p + ICMP_HDR_LEN;
	r->data_len = v->len - ICMP_HDR_LEN;
	return 0;
}

int icmp4_parse(const struct wire_view *v, struct icmp_repr *r, bool skip_csum)
{
	int rc = icmp_view(v, r);
	if (rc)
		return rc;
	if (!skip_csum && wire_csum_fold(wire_csum_add(0, v->p, v->len)) != 0xffff)
		return -EBADMSG;
	return 0;
}

static void icmp_fill(const struct icmp_repr *r, struct wire_view *v)
{
	v->p[0] = r->type;
	v->p[1] = r->code;
	v->p[2] = v->p[3] = 0;
	wire_put32(v->p + 4, r->rest);
	if (r->data_len && r->data != v->p + ICMP_HDR_LEN)
		memmove(v->p + ICMP_HDR_LEN, r->data, r->data_len);
}

void icmp4_emit(const struct icmp_repr *r, struct wire_view *v)
{
	icmp_fill(r, v);
	wire_put16(v->p + 2, wire_csum_finish(wire_csum_add(0, v->p, icmp_len(r))));
}

int icmp6_parse(const struct wire_view *v, const uint8_t src[16], const uint8_t dst[16],
		struct icmp_repr *r, bool skip_csum)
{
	int rc = icmp_view(v, r);
	if (rc)
		return rc;
	if (!skip_csum) {
		uint32_t s = wire_csum_pseudo6(src, dst, IP6_NH_ICMP6, (uint32_t)v->len);
		if (wire_csum_fold(wire_csum_add(s, v->p, v->len)) != 0xffff)
			return -EBADMSG;
	}
	return 0;
}

void icmp6_emit(const struct icmp_repr *r, const uint8_t src[16], const uint8_t dst[16],
		struct wire_view *v)
{
	icmp_fill(r, v);
	uint32_t s = wire_csum_pseudo6(src, dst, IP6_NH_ICMP6, (uint32_t)icmp_len(r));
	wire_put16(v->p + 2, wire_csum_finish(wire_csum_add(s, v->p, icmp_len(r))));
}
