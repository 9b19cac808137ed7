/* be64 (BPF_ALU class) keeps 64 bits: (be64(op & 255) >> 24) reaches 2^40 */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[256]);
} big SEC(".maps");

SEC("sockops")
int end64(struct bpf_sock_ops *s)
{
	__u32 k = 0;
	__u64 x = s->op & 255;
	char *v = bpf_map_lookup_elem(&big, &k);
	if (!v)
		return 1;
	asm volatile("%[x] = be64 %[x]" : [x] "+r"(x)); /* clang folds a bswap */
	x >>= 24;
	s->reply = v[x];
	return 1;
}
