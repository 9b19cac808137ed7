/* CO-RE relocations on a generic program: r1 points at a struct pkt laid out
 * as the target BTF (core_target.bpf.c) says, not as declared here. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct pkt {
	__u32 a;
	__u16 b;
	__u64 c;
	__u32 d[4];
	__u32 gone; /* not in the target */
} __attribute__((preserve_access_index));

struct pkt___v2 {
	__u32 a;
} __attribute__((preserve_access_index));

SEC("generic")
int core_read(struct pkt *p)
{
	__u32 r = p->a + p->b + (__u32)p->c + p->d[2] + ((struct pkt___v2 *)p)->a;

	if (bpf_core_field_exists(p->gone))
		r += p->gone;
	return (int)(r + bpf_core_field_size(p->b) * 1000 +
		     bpf_core_type_size(struct pkt) * 100000);
}

SEC("generic/unguarded")
int core_unguarded(struct pkt *p)
{
	return (int)p->gone;
}

char _license[] SEC("license") = "GPL";
