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

/* Bitfields, signed and not, laid out otherwise in the target: other order
 * and storage, neg and hi whole fields there. */
struct bits {
	__u8 lo : 4;
	__u8 two : 2;
	__u32 mid : 12;
	__s8 neg : 5;
	__s32 wide : 20;
	__u32 hi;
} __attribute__((preserve_access_index));

SEC("generic/bits")
int core_bits(struct bits *b)
{
	return (int)(BPF_CORE_READ_BITFIELD(b, lo) | BPF_CORE_READ_BITFIELD(b, two) << 4 |
		     BPF_CORE_READ_BITFIELD(b, mid) << 6);
}

SEC("generic/bits_signed")
int core_bits_signed(struct bits *b)
{
	return (int)BPF_CORE_READ_BITFIELD(b, neg) * 1000000 + (int)BPF_CORE_READ_BITFIELD(b, wide);
}

SEC("generic/bits_whole")
int core_bits_whole(struct bits *b)
{
	return (int)BPF_CORE_READ_BITFIELD(b, hi);
}

/* The target's values differ, EK_A is negative there, EK_GONE absent. */
enum ek { EK_A = 1, EK_B = 2, EK_GONE = 3 };

SEC("generic/enum")
int core_enum(void *ctx)
{
	return (int)bpf_core_enum_value(enum ek, EK_A) +
	       (int)bpf_core_enum_value(enum ek, EK_B) * 100 +
	       (int)bpf_core_enum_value_exists(enum ek, EK_GONE) * 7 +
	       (int)bpf_core_enum_value_exists(enum ek, EK_A) * 100000;
}

SEC("generic/enum_gone")
int core_enum_gone(void *ctx)
{
	return (int)bpf_core_enum_value(enum ek, EK_GONE);
}

char _license[] SEC("license") = "GPL";
