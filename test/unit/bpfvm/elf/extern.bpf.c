/* An undefined symbol: the loader has no externs to resolve, so it must refuse
 * the relocation naming 'missing_config'. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int missing_config;

SEC("sockops")
int uses_extern(struct bpf_sock_ops *skops)
{
	return missing_config + 1;
}

char _license[] SEC("license") = "GPL";
