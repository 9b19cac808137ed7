/* Issue 11 class 6: a tail call replaces the program, so a reference it holds
 * (a ringbuf reservation) could never be submitted or discarded: refused
 * while one is outstanding, from the main program and from a subprogram,
 * before and after the NULL check, with the pointer in a register or only on
 * the stack. Exiting with a reservation is refused too, on either side of a
 * JMP32 or JMP branch. */
#include "common.h"

struct bpf_map_def SEC("maps") rb = {
    .type = BPF_MAP_TYPE_RINGBUF, .key_size = 0, .value_size = 0, .max_entries = 4096};
struct bpf_map_def SEC("maps") jmp = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 2};

SEC("sockops/c_checked")
int c_checked(struct bpf_sock_ops *skops)
{
	__u32 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!rec)
		return 0;
	*rec = skops->op;
	bpf_tail_call(skops, &jmp, 0);
	bpf_ringbuf_submit(rec, 0);
	return 1;
}

static NOINLINE int chain(struct bpf_sock_ops *skops)
{
	bpf_tail_call(skops, &jmp, skops->op & 1);
	return skops->op;
}

SEC("sockops/c_subprog")
int c_subprog(struct bpf_sock_ops *skops)
{
	__u32 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!rec)
		return 0;
	*rec = chain(skops);
	bpf_ringbuf_submit(rec, 0);
	return 1;
}

/* before the NULL check: the reservation is a reference either way */
SEC("sockops/unchecked_r7")
NAKED int unchecked_r7(void)
{
	asm volatile("r6 = r1;"
		     "r1 = %[rb] ll;"
		     "r2 = 16;"
		     "r3 = 0;"
		     "call %[reserve];"
		     "r7 = r0;"
		     "r1 = r6;"
		     "r2 = %[jmp] ll;"
		     "r3 = 0;"
		     "call %[tail_call];"
		     "if r7 == 0 goto 1f;"
		     "r1 = r7;"
		     "r2 = 0;"
		     "call %[discard];"
		     "1: r0 = 1;"
		     "exit;" ::[rb] "i"(&rb),
		     [jmp] "i"(&jmp), [reserve] "i"(BPF_FUNC_ringbuf_reserve),
		     [tail_call] "i"(BPF_FUNC_tail_call), [discard] "i"(BPF_FUNC_ringbuf_discard)
		     : "memory");
}

/* the only copy spilled to the stack; the tail call behind a JMP32 test */
SEC("sockops/spilled_jmp32")
NAKED int spilled_jmp32(void)
{
	asm volatile("r9 = r1;"
		     "r1 = %[rb] ll;"
		     "r2 = 8;"
		     "r3 = 0;"
		     "call %[reserve];"
		     "if r0 == 0 goto 1f;"
		     "*(u64 *)(r10 - 8) = r0;"
		     "r6 = *(u32 *)(r9 + 0);"
		     "if w6 > 3 goto 2f;"
		     "r1 = r9;"
		     "r2 = %[jmp] ll;"
		     "r3 = 1;"
		     "call %[tail_call];"
		     "2: r1 = *(u64 *)(r10 - 8);"
		     "r2 = 0;"
		     "call %[submit];"
		     "1: r0 = 1;"
		     "exit;" ::[rb] "i"(&rb),
		     [jmp] "i"(&jmp), [reserve] "i"(BPF_FUNC_ringbuf_reserve),
		     [tail_call] "i"(BPF_FUNC_tail_call), [submit] "i"(BPF_FUNC_ringbuf_submit)
		     : "memory");
}

/* exit with the reservation on the fall-through side of the branch */
SEC("sockops/exit_fall")
NAKED int exit_fall(void)
{
	asm volatile("r6 = *(u32 *)(r1 + 0);"
		     "r1 = %[rb] ll;"
		     "r2 = 8;"
		     "r3 = 0;"
		     "call %[reserve];"
		     "if r0 == 0 goto 2f;"
		     "if w6 == 3 goto 1f;"
		     "r0 = 1;"
		     "exit;"
		     "1: r1 = r0;"
		     "r2 = 0;"
		     "call %[submit];"
		     "2: r0 = 1;"
		     "exit;" ::[rb] "i"(&rb),
		     [reserve] "i"(BPF_FUNC_ringbuf_reserve), [submit] "i"(BPF_FUNC_ringbuf_submit)
		     : "memory");
}

/* exit with the reservation on the taken side */
SEC("sockops/exit_taken")
NAKED int exit_taken(void)
{
	asm volatile("r6 = *(u32 *)(r1 + 0);"
		     "r1 = %[rb] ll;"
		     "r2 = 8;"
		     "r3 = 0;"
		     "call %[reserve];"
		     "if r0 == 0 goto 2f;"
		     "if r6 > 3 goto 1f;"
		     "r1 = r0;"
		     "r2 = 0;"
		     "call %[submit];"
		     "2: r0 = 1;"
		     "exit;"
		     "1: r0 = 0;"
		     "exit;" ::[rb] "i"(&rb),
		     [reserve] "i"(BPF_FUNC_ringbuf_reserve), [submit] "i"(BPF_FUNC_ringbuf_submit)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
