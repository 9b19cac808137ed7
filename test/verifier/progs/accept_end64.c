/* 64-bit byte swaps bounded afterwards, still accepted: a be64 value shifted
 * down to its top byte, a le64 value masked, a be16 value (16 bits). */
#include "common.h"

struct bpf_map_def SEC("maps") big = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 256, .max_entries = 1};

SEC("sockops")
NAKED int end_bounded(void)
{
	asm volatile("r6 = *(u32 *)(r1 + 0);"
		     "r7 = *(u64 *)(r1 + 168);"
		     "r8 = *(u32 *)(r1 + 4);"
		     "r1 = 0;"
		     "*(u32 *)(r10 - 4) = r1;"
		     "r1 = %[big] ll;"
		     "r2 = r10;"
		     "r2 += -4;"
		     "call %[lookup];"
		     "if r0 == 0 goto 1f;"
		     "r6 = be64 r6;"
		     "r6 >>= 56;"
		     "r1 = r0;"
		     "r1 += r6;"
		     "r2 = *(u8 *)(r1 + 0);"
		     "r7 = le64 r7;"
		     "r7 &= 255;"
		     "r1 = r0;"
		     "r1 += r7;"
		     "*(u8 *)(r1 + 0) = r2;"
		     "r8 = be16 r8;"
		     "if r8 > 255 goto 1f;"
		     "r0 += r8;"
		     "r2 = *(u8 *)(r0 + 0);"
		     "1: r0 = 1;"
		     "exit;" ::[big] "i"(&big),
		     [lookup] "i"(BPF_FUNC_map_lookup_elem)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
