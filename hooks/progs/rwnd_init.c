/* Initial receive window for distant peers: across datacenters the path has
 * a large bandwidth-delay product, so advertise 40 segments from the start
 * instead of the default 10. */
#include <uapi/linux/bpf.h>
#include <linux/socket.h>
#include "bpf_helpers.h"
#include "bpf_endian.h"
#include "policy.h"

SEC("sockops")
int rwnd_init(struct bpf_sock_ops *skops)
{
	__u32 answer = POLICY_NO_OPINION;

	if (skops->op == BPF_SOCK_OPS_RWND_INIT && skops->family == AF_INET6 &&
	    policy_port_match(skops) && !policy_nearby(skops))
		answer = 40;
	skops->reply = answer;
	return 1;
}

char _license[] SEC("license") = "GPL";
