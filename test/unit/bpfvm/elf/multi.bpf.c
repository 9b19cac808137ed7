/* Several program sections, including "sockops/NAME" sections and a generic one;
 * no maps, no sub-programs. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int first(struct bpf_sock_ops *skops)
{
	return skops->op == BPF_SOCK_OPS_TIMEOUT_INIT ? 10 : -1;
}

SEC("sockops/rwnd")
int second(struct bpf_sock_ops *skops)
{
	return skops->op == BPF_SOCK_OPS_RWND_INIT ? 40 : -1;
}

SEC("generic")
int third(void *ctx)
{
	return 2;
}

char _license[] SEC("license") = "GPL";
