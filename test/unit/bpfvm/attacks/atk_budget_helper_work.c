/* Attack: a verified sock_ops-like program spends unbounded time per budget
 * unit. The run-time budget (docs/verifier-diff.md "Run-time budget") counts
 * back-edges and callback entries only; bpf_map_update_elem copies
 * value_size bytes (up to BPFVM_MAP_MAX_VALUE = 4 MiB) per call. One
 * bpf_loop callback entry (1 unit) doing one 4 MiB update costs ~0.2-1 ms,
 * so the default budget of 2^24 units allows hours in one invocation.
 * Build: see attacks/README. Prints time per unit and the extrapolation. */
#include <errno.h>
#include <time.h>

#include "atk.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint32_t loops = argc > 1 ? (uint32_t)atoi(argv[1]) : 100000;
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 2;
	struct bpfvm_map_def def = {.type = BPFVM_MAP_ARRAY,
				    .key_size = 4,
				    .value_size = 1u << 22,
				    .max_entries = 2,
				    .name = "big"};
	struct bpfvm_map *m;
	if (bpfvm_map_create(reg, &def, &m))
		return 2;
	const struct bpfvm_insn p[] = {
	    /* 0 */ MOV64_K(1, (int32_t)loops),
	    /* 1 */ LD_FUNC(2, 6), /* callback at 1 + 6 + 1 = 8 */
	    /* 3 */ MOV64_K(3, 0),
	    /* 4 */ MOV64_K(4, 0),
	    /* 5 */ CALL(181), /* bpf_loop */
	    /* 6 */ MOV64_K(0, 0),
	    /* 7 */ EXIT(),
	    /* callback(i, ctx): elem[1] = elem[0], 4 MiB, one budget unit */
	    /* 8 */ ST(BPF_W, 10, -4, 0),
	    /* 9 */ LD_MAP(1, 0),
	    /* 11 */ MOV64_X(2, 10),
	    /* 12 */ ALU64_K(BPF_ADD, 2, -4),
	    /* 13 */ CALL(1),
	    /* 14 */ JMP_K(BPF_JEQ, 0, 0, 8),
	    /* 15 */ MOV64_X(3, 0),
	    /* 16 */ ST(BPF_W, 10, -8, 1),
	    /* 17 */ LD_MAP(1, 0),
	    /* 19 */ MOV64_X(2, 10),
	    /* 20 */ ALU64_K(BPF_ADD, 2, -8),
	    /* 21 */ MOV64_K(4, 0),
	    /* 22 */ CALL(2),
	    /* 23 */ MOV64_K(0, 0),
	    /* 24 */ EXIT(),
	};
	struct bpfvm_prog *prog = NULL;
	int err = atk_load(reg, &vt_type, p, NINSNS(p), &m, 1, true, &prog);
	printf("verifier: %s (%d)\n", err ? atk_log : "accepted", err);
	if (err)
		return 2;
	uint8_t ctx[VT_CTX_SIZE] = {0};
	uint64_t r0;
	double t0 = now();
	int rc = bpfvm_prog_exec(prog, ctx, sizeof ctx, &r0);
	double dt = now() - t0;
	struct bpfvm_prog_info info;
	bpfvm_prog_info(prog, &info);
	printf("run: exec=%d r0=%llu budget=%llu units, stops=%llu\n", rc, (unsigned long long)r0,
	       (unsigned long long)info.run_budget, (unsigned long long)info.budget_stops);
	printf("%u units (callback entries) took %.3f s = %.3f ms/unit\n", loops, dt,
	       dt * 1e3 / loops);
	printf("one bpf_loop at BPFVM_MAX_LOOPS (2^23 units, under the 2^24 budget): ~%.0f s "
	       "in ONE invocation\n",
	       dt / loops * (double)BPFVM_MAX_LOOPS);
	bpfvm_prog_put(prog);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
	/* held when the helpers' work (4 MiB a callback) spends the budget:
	 * the run stops well before the loop's end, in well under a second
	 * here (5 s allowed for the sanitizers); before bpfvm_run_charge,
	 * 100000 callbacks took about 40 s */
	return rc == -ETIME && dt < 5.0 ? 0 : 1;
}
