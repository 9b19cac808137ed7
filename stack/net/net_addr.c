/* net: address forms: the v4-mapped test, and textual addresses for
 * configuration (inet_pton forms, RFC 4291 §2.2 for IPv6, CIDR prefix
 * lengths per RFC 4632 §3.1). */
#include "net_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool net_v6_mapped(const uint8_t a[16])
{
	static const uint8_t pre[12] = {[10] = 0xff, [11] = 0xff};
	return !memcmp(a, pre, 12);
}

int net_ip_parse(const char *s, uint8_t *family, void *addr)
{
	if (!s)
		return -EINVAL;
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int net_addr_parse(const char *s, struct net_addr *out)
{
	char buf[64];
	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	char *slash = strchr(buf, '/');
	long plen = -1;
	if (slash) {
		*slash = 0;
		char *end;
		plen = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || plen < 0)
			return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	if (net_ip_parse(buf, &out->family, &out->addr))
		return -EINVAL;
	long max = out->family == AF_INET ? 32 : 128;
	if (plen > max)
		return -EINVAL;
	out->prefix_len = (uint8_t)(plen < 0 ? max : plen);
	return 0;
}
