// SPDX-License-Identifier: GPL-2.0
/* Selftests style with glibc's headers: <string.h> and <netinet/in.h> beside
 * the uapi ones, as kernel selftests include them; built with the SDK's
 * second command (the host's multiarch directory added). Counts IPv6 peers
 * whose address, copied into a struct in6_addr, is a v4-mapped one. */
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <linux/ipv6.h>
#include <linux/socket.h>
#include <uapi/linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} peers SEC(".maps");

SEC("sockops")
int glibc_hdrs(struct bpf_sock_ops *skops)
{
	struct in6_addr a;
	struct ipv6hdr h;
	__u32 key;
	__u64 *n;

	if (skops->op != BPF_SOCK_OPS_TCP_CONNECT_CB || skops->family != AF_INET6)
		return 1;
	memset(&h, 0, sizeof(h));
	h.nexthdr = IPPROTO_TCP;
	a.s6_addr32[0] = skops->remote_ip6[0];
	a.s6_addr32[1] = skops->remote_ip6[1];
	a.s6_addr32[2] = skops->remote_ip6[2];
	a.s6_addr32[3] = skops->remote_ip6[3];
	memcpy(&h.daddr, &a, sizeof(a));
	key = h.daddr.s6_addr32[2] == bpf_htonl(0xffff) && h.nexthdr == IPPROTO_TCP;
	n = bpf_map_lookup_elem(&peers, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 1;
}

char _license[] SEC("license") = "GPL";
