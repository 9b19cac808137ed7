/* Congestion window clamp for nearby peers: inside one datacenter 100
 * segments cover the bandwidth-delay product, so cap cwnd (and ssthresh)
 * there once established, on both sides. */
#include <uapi/linux/bpf.h>
#include <linux/socket.h>
#include "bpf_helpers.h"
#include "bpf_endian.h"
#include "policy.h"

SEC("sockops")
int cwnd_clamp(struct bpf_sock_ops *skops)
{
	int clamp = 100;
	__u32 answer = POLICY_NO_OPINION;

	if ((skops->op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB ||
	     skops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB) &&
	    policy_port_match(skops) && policy_nearby(skops))
		answer =
		    bpf_setsockopt(skops, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, &clamp, sizeof(clamp));
	skops->reply = answer;
	return 1;
}

char _license[] SEC("license") = "GPL";
