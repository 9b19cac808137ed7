/* Issue 11 class 2: bpf_loop and bpf_for_each_map_elem may return without
 * calling back at all (nr_loops 0 or over BPF_MAX_LOOPS, flags != 0, an empty
 * map). What the callback sets through its ctx pointer is then never set: the
 * verifier must walk on after the call with the state before it too. Each
 * program here is safe only if the callback ran at least once. Variants: an
 * uninitialised stack read, a map value offset, a JMP32 and a JMP test on the
 * flag the callback sets (unsafe side taken or fall-through), a constant 0
 * count, flags != 0, for_each_map_elem. */
#include "common.h"

struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 4};
struct bpf_map_def SEC("maps") elems = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8, .max_entries = 4};

#define USED __attribute__((used)) NOINLINE

/* bpf_loop callback: *(u64 *)ctx = 1 */
static USED long set_one(__u32 i, __u64 *ctx)
{
	*ctx = 1;
	return 0;
}

/* bpf_loop callback: *(u64 *)ctx = 4 */
static USED long set_four(__u32 i, __u64 *ctx)
{
	*ctx = 4;
	return 1;
}

/* for_each_map_elem callback: *(u64 *)ctx = 1 */
static USED long visit_one(void *map, __u32 *key, __u64 *val, __u64 *ctx)
{
	*ctx = 1;
	return 0;
}

/* the callback initialises fp-8; after the call it is read */
SEC("sockops/uninit_read")
int uninit_read(struct bpf_sock_ops *skops)
{
	__u64 flag;
	bpf_loop(skops->op, set_one, &flag, 0);
	skops->reply = flag;
	return 1;
}

#define IMMS                                                                                       \
	[vals] "i"(&vals), [elems] "i"(&elems), [lookup] "i"(BPF_FUNC_map_lookup_elem),            \
	    [loop] "i"(BPF_FUNC_loop), [for_each] "i"(BPF_FUNC_for_each_map_elem),                 \
	    [set_one] "i"(set_one), [set_four] "i"(set_four), [visit_one] "i"(visit_one)

/* r6 = map value (key 0) or exit; fp-8 = 0x10000 */
#define VALUE_AND_BIG                                                                              \
	"r9 = r1;"                                                                                 \
	"r1 = 0;"                                                                                  \
	"*(u32 *)(r10 - 12) = r1;"                                                                 \
	"r1 = %[vals] ll;"                                                                         \
	"r2 = r10;"                                                                                \
	"r2 += -12;"                                                                               \
	"call %[lookup];"                                                                          \
	"if r0 == 0 goto 9f;"                                                                      \
	"r6 = r0;"                                                                                 \
	"r1 = 0x10000;"                                                                            \
	"*(u64 *)(r10 - 8) = r1;"
#define OUT                                                                                        \
	"9: r0 = 1;"                                                                               \
	"exit;"

/* the callback makes fp-8 a small offset; with no call it stays 0x10000 */
SEC("sockops/map_off_count0")
NAKED int map_off_count0(void)
{
	asm volatile(VALUE_AND_BIG "r1 = 0;"
				   "r2 = %[set_four] ll;"
				   "r3 = r10;"
				   "r3 += -8;"
				   "r4 = 0;"
				   "call %[loop];"
				   "r7 = *(u64 *)(r10 - 8);"
				   "r6 += r7;"
				   "r0 = *(u32 *)(r6 + 0);" OUT ::IMMS
		     : "memory");
}

/* the same with flags != 0: the helper returns -EINVAL at once */
SEC("sockops/map_off_flags")
NAKED int map_off_flags(void)
{
	asm volatile(VALUE_AND_BIG "r1 = *(u32 *)(r9 + 0);"
				   "r2 = %[set_four] ll;"
				   "r3 = r10;"
				   "r3 += -8;"
				   "r4 = 1;"
				   "call %[loop];"
				   "r8 = *(u64 *)(r10 - 8);"
				   "r6 += r8;"
				   "r0 = *(u8 *)(r6 + 3);" OUT ::IMMS
		     : "memory");
}

/* fp-16 = 0; callback sets 1; if w7 != 1 (JMP32, taken) a scalar is dereferenced */
SEC("sockops/flag_jmp32_taken")
NAKED int flag_jmp32_taken(void)
{
	asm volatile("r1 = 0;"
		     "*(u64 *)(r10 - 16) = r1;"
		     "r1 = 8;"
		     "r2 = %[set_one] ll;"
		     "r3 = r10;"
		     "r3 += -16;"
		     "r4 = 0;"
		     "call %[loop];"
		     "r7 = *(u64 *)(r10 - 16);"
		     "if w7 != 1 goto 1f;"
		     "r0 = 1;"
		     "exit;"
		     "1: r5 = 0x1000;"
		     "r0 = *(u64 *)(r5 + 0);"
		     "exit;" ::IMMS
		     : "memory");
}

/* if r7 == 1 (JMP, taken) is the safe side: the fall-through dereferences */
SEC("sockops/flag_jmp_fall")
NAKED int flag_jmp_fall(void)
{
	asm volatile("r1 = 0;"
		     "*(u64 *)(r10 - 16) = r1;"
		     "r1 = 8;"
		     "r2 = %[set_one] ll;"
		     "r3 = r10;"
		     "r3 += -16;"
		     "r4 = 0;"
		     "call %[loop];"
		     "r7 = *(u64 *)(r10 - 16);"
		     "if r7 == 1 goto 1f;"
		     "r4 = 0x1000;"
		     "r0 = *(u32 *)(r4 + 0);"
		     "exit;"
		     "1: r0 = 1;"
		     "exit;" ::IMMS
		     : "memory");
}

/* for_each_map_elem over a hash map that may be empty */
SEC("sockops/for_each_empty")
NAKED int for_each_empty(void)
{
	asm volatile(VALUE_AND_BIG "r1 = 0;"
				   "*(u64 *)(r10 - 8) = r1;"
				   "r1 = %[elems] ll;"
				   "r2 = %[visit_one] ll;"
				   "r3 = r10;"
				   "r3 += -8;"
				   "r4 = 0;"
				   "call %[for_each];"
				   "r7 = *(u64 *)(r10 - 8);"
				   "if w7 == 1 goto 9f;"
				   "r7 = 0x100000;"
				   "r6 += r7;"
				   "*(u32 *)(r6 + 0) = r7;" OUT ::IMMS
		     : "memory");
}

char _license[] SEC("license") = "GPL";
