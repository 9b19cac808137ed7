/* What users write around the calls issue 11 tightened, still accepted: a
 * tail call once the reservation is submitted; a spin lock released through
 * a copy of the pointer it was taken through (register or stack); a
 * bpf_snprintf format in .rodata (a string literal, a const array). */
#include "common.h"

struct bpf_map_def SEC("maps") rb = {
    .type = BPF_MAP_TYPE_RINGBUF, .key_size = 0, .value_size = 0, .max_entries = 4096};
struct bpf_map_def SEC("maps") jmp = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 2};

SEC("sockops/tail_after_submit")
int tail_after_submit(struct bpf_sock_ops *skops)
{
	__u32 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (rec) {
		*rec = skops->op;
		bpf_ringbuf_submit(rec, 0);
	}
	bpf_tail_call(skops, &jmp, 0);
	return 1;
}

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

SEC("sockops/lock_pair")
int lock_pair(struct bpf_sock_ops *skops)
{
	__u32 k = skops->op & 1;
	struct val *v = bpf_map_lookup_elem(&locks, &k);
	if (!v)
		return 1;
	struct val *copy = v;
	bpf_spin_lock(&v->lock);
	v->count++;
	bpf_spin_unlock(&copy->lock);
	return 1;
}

SEC("sockops/lock_spilled_copy")
NAKED int lock_spilled_copy(void)
{
	asm volatile("r1 = 0;"
		     "*(u32 *)(r10 - 4) = r1;"
		     "r1 = %[locks] ll;"
		     "r2 = r10;"
		     "r2 += -4;"
		     "call %[lookup];"
		     "if r0 == 0 goto 1f;"
		     "*(u64 *)(r10 - 16) = r0;"
		     "r1 = r0;"
		     "call %[lock];"
		     "r1 = *(u64 *)(r10 - 16);"
		     "call %[unlock];"
		     "1: r0 = 1;"
		     "exit;" ::[locks] "i"(&locks),
		     [lookup] "i"(BPF_FUNC_map_lookup_elem), [lock] "i"(BPF_FUNC_spin_lock),
		     [unlock] "i"(BPF_FUNC_spin_unlock)
		     : "memory");
}

static const char cwnd_fmt[] = "cwnd=%u";

SEC("sockops/snprintf_rodata")
int snprintf_rodata(struct bpf_sock_ops *skops)
{
	__u64 args[2] = {skops->op, skops->snd_cwnd};
	char out[32];
	bpf_snprintf(out, sizeof out, "op=%d", args, 8);
	bpf_snprintf(out + 8, 24, cwnd_fmt, args + 1, 8);
	skops->reply = out[0] + out[8];
	return 1;
}

char _license[] SEC("license") = "GPL";
