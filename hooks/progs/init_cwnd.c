/* Initial congestion window: a client on the test port starts with 40
 * segments once established (before it sent data). Written with the modern
 * libbpf includes to show both header styles build against the SDK. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <linux/socket.h>
#include "policy.h"

SEC("sockops")
int init_cwnd(struct bpf_sock_ops *skops)
{
	int iw = 40;
	__u32 answer = POLICY_NO_OPINION;

	if (skops->op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB && policy_port_match(skops))
		answer = bpf_setsockopt(skops, SOL_TCP, TCP_BPF_IW, &iw, sizeof(iw));
	skops->reply = answer;
	return 1;
}

char _license[] SEC("license") = "GPL";
