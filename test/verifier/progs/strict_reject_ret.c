/* Returns -1 for "no opinion" as the seed samples do: fine in
 * compatibility mode, outside [0, 1] in strict mode. */
#include "common.h"

SEC("sockops")
int ret_minus_one(struct bpf_sock_ops *skops)
{
	if (skops->op == BPF_SOCK_OPS_TIMEOUT_INIT) {
		skops->reply = 10;
		return 1;
	}
	return -1;
}

char _license[] SEC("license") = "GPL";
