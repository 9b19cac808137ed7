/* SYN (and SYN-ACK) retransmission timeout for peers in the same datacenter:
 * a round trip there is far below the 1 s default, so start at 10 jiffies
 * (40 ms at HZ 250, 10 ms at HZ 1000). */
#include <uapi/linux/bpf.h>
#include <linux/socket.h>
#include "bpf_helpers.h"
#include "bpf_endian.h"
#include "policy.h"

SEC("sockops")
int syn_rto(struct bpf_sock_ops *skops)
{
	__u32 answer = POLICY_NO_OPINION;

	if (skops->op == BPF_SOCK_OPS_TIMEOUT_INIT && policy_port_match(skops) &&
	    policy_nearby(skops))
		answer = 10;
	skops->reply = answer;
	return 1;
}

char _license[] SEC("license") = "GPL";
