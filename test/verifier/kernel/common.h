/* Shared by the kernel-agreement programs: the system's <linux/bpf.h> and
 * libbpf's <bpf/bpf_helpers.h> (BTF maps), so bpftool loads the same .o. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";
