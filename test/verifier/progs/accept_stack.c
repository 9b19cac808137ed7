/* Stack use: a congestion control name and an int option passed to
 * bpf_setsockopt, a struct spilled and read back. */
#include "common.h"

#define SOL_TCP	       6
#define SOL_SOCKET     1
#define TCP_CONGESTION 13
#define SO_SNDBUF      7

SEC("sockops")
int stack(struct bpf_sock_ops *skops)
{
	char cc[8] = "reno";
	int buf = 150000;
	struct {
		__u32 a, b;
	} pair = {skops->family, skops->op};
	int rv = 0;

	if (pair.b == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB) {
		rv = bpf_setsockopt(skops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc));
		rv += bpf_setsockopt(skops, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	skops->reply = rv + pair.a;
	return 1;
}

char _license[] SEC("license") = "GPL";
