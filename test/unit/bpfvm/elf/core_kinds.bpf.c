/* One program holding every instruction kind a CO-RE relocation could be
 * pointed at (issue 25 class 7): field loads, a field size as an ALU imm, a
 * plain 64-bit constant, ld_imm64 of a map, of a global-data value and of a
 * callback, helper and bpf-to-bpf calls, an atomic, stores, jumps, exit.
 * test_loader_core moves a relocation onto each of them in turn. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct pkt {
	__u32 a;
	__u32 b;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} vals SEC(".maps");

__u64 counter = 5;

static long step(__u32 i, void *ctx)
{
	*(__u64 *)ctx += i;
	return 0;
}

static __attribute__((noinline)) __u64 twice(__u64 x)
{
	return x * 2;
}

SEC("generic")
int kinds(struct pkt *p)
{
	__u32 k = p->a & 3;
	__u64 acc = 0x1234567890ull;
	__u64 *v = bpf_map_lookup_elem(&vals, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		acc += *v;
	}
	bpf_loop(p->b & 7, step, &acc, 0);
	counter += acc;
	return (int)twice(acc + bpf_core_field_size(p->b));
}

char _license[] SEC("license") = "GPL";
