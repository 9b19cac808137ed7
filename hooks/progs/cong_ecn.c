/* Congestion control for nearby peers: inside one datacenter use DCTCP,
 * which needs ECN, so answer NEEDS_ECN with 1 and switch the algorithm once
 * the connection is established. */
#include <uapi/linux/bpf.h>
#include <uapi/linux/tcp.h>
#include <linux/socket.h>
#include "bpf_helpers.h"
#include "bpf_endian.h"
#include "policy.h"

SEC("sockops")
int cong_ecn(struct bpf_sock_ops *skops)
{
	char cc[] = "dctcp";
	__u32 answer = POLICY_NO_OPINION;

	if (policy_port_match(skops) && policy_nearby(skops)) {
		switch (skops->op) {
		case BPF_SOCK_OPS_NEEDS_ECN:
			answer = 1;
			break;
		case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
			answer = bpf_setsockopt(skops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc));
			break;
		}
	}
	skops->reply = answer;
	return 1;
}

char _license[] SEC("license") = "GPL";
