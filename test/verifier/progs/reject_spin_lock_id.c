/* Issue 11 class 5: bpf_spin_unlock must release the lock bpf_spin_lock took:
 * the same word of the same map value, which the map and offset alone do not
 * say (two lookups return two elements, or the same one): the pointer's id
 * must match too. Variants: two keys in C, the same key twice, other
 * registers, a pointer chosen by a JMP or JMP32 branch (each side), an unlock
 * with nothing held. */
#include "common.h"

struct val {
	struct bpf_spin_lock lock;
	__u32 count;
};

/* BTF-defined: the loader finds the lock in the value type */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct val);
} locks SEC(".maps");

SEC("sockops/c_two_keys")
int c_two_keys(struct bpf_sock_ops *skops)
{
	__u32 k0 = 0, k1 = 1;
	struct val *a = bpf_map_lookup_elem(&locks, &k0);
	struct val *b = bpf_map_lookup_elem(&locks, &k1);
	if (!a || !b)
		return 1;
	bpf_spin_lock(&a->lock);
	a->count++;
	bpf_spin_unlock(&b->lock);
	return 1;
}

/* r6 = lookup(key 0), r7 = lookup(key 0): maybe the same element, not proven */
#define TWO_LOOKUPS                                                                                \
	"r1 = 0;"                                                                                  \
	"*(u32 *)(r10 - 4) = r1;"                                                                  \
	"r1 = %[locks] ll;"                                                                        \
	"r2 = r10;"                                                                                \
	"r2 += -4;"                                                                                \
	"call %[lookup];"                                                                          \
	"r6 = r0;"                                                                                 \
	"r1 = %[locks] ll;"                                                                        \
	"r2 = r10;"                                                                                \
	"r2 += -4;"                                                                                \
	"call %[lookup];"                                                                          \
	"r7 = r0;"                                                                                 \
	"if r6 == 0 goto 9f;"                                                                      \
	"if r7 == 0 goto 9f;"
#define OUT                                                                                        \
	"9: r0 = 1;"                                                                               \
	"exit;"
#define IMMS                                                                                       \
	[locks] "i"(&locks), [lookup] "i"(BPF_FUNC_map_lookup_elem),                               \
	    [lock] "i"(BPF_FUNC_spin_lock), [unlock] "i"(BPF_FUNC_spin_unlock)

SEC("sockops/same_key_r6_r7")
NAKED int same_key_r6_r7(void)
{
	asm volatile(TWO_LOOKUPS "r1 = r6;"
				 "call %[lock];"
				 "r1 = r7;"
				 "call %[unlock];" OUT ::IMMS
		     : "memory");
}

/* lock through r7, unlock through a spilled copy of r6 */
SEC("sockops/same_key_spilled")
NAKED int same_key_spilled(void)
{
	asm volatile(TWO_LOOKUPS "*(u64 *)(r10 - 16) = r6;"
				 "r1 = r7;"
				 "call %[lock];"
				 "r1 = *(u64 *)(r10 - 16);"
				 "call %[unlock];" OUT ::IMMS
		     : "memory");
}

/* r8 = op > 3 ? r7 : r6 (JMP); lock r8, unlock r6: wrong when op > 3 */
SEC("sockops/branch_taken")
NAKED int branch_taken(void)
{
	asm volatile("r9 = *(u32 *)(r1 + 0);" TWO_LOOKUPS "r8 = r6;"
		     "if r9 > 3 goto 1f;"
		     "goto 2f;"
		     "1: r8 = r7;"
		     "2: r1 = r8;"
		     "call %[lock];"
		     "r1 = r6;"
		     "call %[unlock];" OUT ::IMMS
		     : "memory");
}

/* r8 = w9 != 5 ? r6 : r7 (JMP32); lock r8, unlock r6: wrong on the fall-through */
SEC("sockops/branch_fall_jmp32")
NAKED int branch_fall_jmp32(void)
{
	asm volatile("r9 = *(u32 *)(r1 + 0);" TWO_LOOKUPS "r8 = r6;"
		     "if w9 != 5 goto 2f;"
		     "r8 = r7;"
		     "2: r1 = r8;"
		     "call %[lock];"
		     "r1 = r6;"
		     "call %[unlock];" OUT ::IMMS
		     : "memory");
}

SEC("sockops/unlock_unheld")
NAKED int unlock_unheld(void)
{
	asm volatile(TWO_LOOKUPS "r1 = r6;"
				 "call %[unlock];" OUT ::IMMS
		     : "memory");
}

char _license[] SEC("license") = "GPL";
