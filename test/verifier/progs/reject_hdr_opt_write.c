/* Issue 25 class 6: bpf_load_hdr_opt writes the option it finds over its
 * buffer: its contract says read and write (WRITE), so a value spilled there
 * is unknown after the call, and a buffer in .rodata is refused (no helper
 * writes into a map programs may only read). accept_contract.c's
 * hdr_opt_stack reads the option back from a stack buffer. */
#include "common.h"

struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

static const char search[8] = {(char)254, 4, 0x5c, 0x0b};

/* a spilled constant 2 in the buffer, used as an index after the call: the
 * helper may have written anything there (up to 255: far past the value) */
SEC("sockops/stale_spill")
NAKED int stale_spill(void)
{
	asm volatile("r6 = r1;"
		     "r1 = 2;"
		     "*(u64 *)(r10 - 8) = r1;"
		     "r1 = r6;"
		     "r2 = r10;"
		     "r2 += -8;"
		     "r3 = 8;"
		     "r4 = 0;"
		     "call %[load];"
		     "r1 = 0;"
		     "*(u32 *)(r10 - 12) = r1;"
		     "r2 = r10;"
		     "r2 += -12;"
		     "r1 = %[vals] ll;"
		     "call %[lookup];"
		     "if r0 == 0 goto 1f;"
		     "r1 = *(u64 *)(r10 - 8);"
		     "r0 += r1;"
		     "r1 = 0;"
		     "*(u8 *)(r0 + 0) = r1;"
		     "1: r0 = 1;"
		     "exit;" ::[load] "i"(BPF_FUNC_load_hdr_opt),
		     [lookup] "i"(BPF_FUNC_map_lookup_elem), [vals] "i"(&vals)
		     : "memory");
}

/* the search key in .rodata: the helper would rewrite frozen bytes */
SEC("sockops/rodata_buffer")
NAKED int rodata_buffer(void)
{
	asm volatile("r2 = %[search] ll;"
		     "r3 = 8;"
		     "r4 = 0;"
		     "call %[load];"
		     "r0 = 1;"
		     "exit;" ::[load] "i"(BPF_FUNC_load_hdr_opt),
		     [search] "i"(search)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
