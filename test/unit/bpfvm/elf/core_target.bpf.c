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

enum ek { EK_B = 20, EK_A = -10 };

/* core_relo's struct bits: hi and neg whole fields first, lo and mid in a
 * u16, wide across the middle of a 64-bit unit, two last; the enum rides
 * along for its BTF. */
struct bits {
	__u32 hi;
	__s16 neg;
	__u16 lo : 4;
	__u16 mid : 12;
	__s64 pad : 30;
	__s64 wide : 20;
	__u8 two : 2;
	enum ek kind;
};

SEC("generic/bits")
int target_bits(struct bits *b)
{
	return b->lo + b->kind;
}

char _license[] SEC("license") = "GPL";
