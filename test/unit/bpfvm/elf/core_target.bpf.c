/* The target of core_relo.bpf.c: its .BTF is what a program type would
 * publish. struct pkt here: other order, b widened, no 'gone'. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pkt {
	__u64 c;
	__u32 d[4];
	__u32 b;
	__u32 pad;
	__u32 a;
};

SEC("generic")
int target(struct pkt *p)
{
	return (int)p->a;
}

char _license[] SEC("license") = "GPL";
