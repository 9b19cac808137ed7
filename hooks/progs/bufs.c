/* Socket buffer sizes: once a connection on the test port is established
 * (either side), ask for 1.5 MB send and receive buffers. The reply encodes
 * both results (send * 100 + receive) so a test can see each errno. */
#include <uapi/linux/bpf.h>
#include <linux/socket.h>
#include "bpf_helpers.h"
#include "bpf_endian.h"
#include "policy.h"

SEC("sockops")
int bufs(struct bpf_sock_ops *skops)
{
	int size = 1500000;
	int snd, rcv;

	if (!policy_port_match(skops) || (skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
					  skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)) {
		skops->reply = POLICY_NO_OPINION;
		return 1;
	}
	snd = bpf_setsockopt(skops, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	rcv = bpf_setsockopt(skops, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	skops->reply = snd * 100 + rcv;
	return 1;
}

char _license[] SEC("license") = "GPL";
