/* bpfvm_bench [samples]: fixed programs (tight ALU loop, map-lookup loop,
 * sock_ops-style branchy program, memory copy) on every engine of the table;
 * median over samples of ns per invocation and ns per executed instruction,
 * as JSON on stdout. Adding an engine is one entry in bench_engines[]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rte.h"
#include "bpfvm_int.h"
#include "isa_insn.h"

struct bench_engine {
	const char *name;
	bool load_jit; /* needs a JIT image; reported unavailable without one */
	uint64_t (*run)(const struct bpfvm_prog *prog, void *ctx, size_t len);
	/* optional: false (and why) when the engine cannot take this program */
	bool (*usable)(const struct bpfvm_prog *prog, char *why, size_t why_len);
};

static uint64_t run_interp(const struct bpfvm_prog *prog, void *ctx, size_t len)
{
	return bpfvm_prog_run_interp(prog, ctx, len);
}

static uint64_t run_checked(const struct bpfvm_prog *prog, void *ctx, size_t len)
{
	struct bpfvm_fault f;
	return bpfvm_interp_run_checked(prog, ctx, len, &f);
}

static uint64_t run_prog(const struct bpfvm_prog *prog, void *ctx, size_t len)
{
	return bpfvm_prog_run(prog, ctx, len);
}

static const struct bench_engine bench_engines[] = {
    {"interp", false, run_interp, NULL},
    {"interp_checked", false, run_checked, NULL},
    {"jit", true, run_prog, NULL},
    /* jit: DPDK librte_bpf's JIT (cpu v1/v2, no loops, no bpf-to-bpf calls) */
    {"rte_bpf_jit", false, bench_rte_run, bench_rte_usable},
};

#define ALU_ITERS  100000
#define MAP_ITERS  10000
#define COPY_BYTES 256

/* 7 insns per iteration + 3 */
static const struct bpfvm_insn alu_loop[] = {
    MOV64_K(0, 0),
    MOV64_K(1, ALU_ITERS),
    ALU64_X(BPF_ADD, 0, 1),
    ALU64_K(BPF_XOR, 0, 0x55),
    ALU64_K(BPF_LSH, 0, 1),
    ALU32_K(BPF_ADD, 2, 3),
    ALU64_X(BPF_SUB, 0, 2),
    ALU64_K(BPF_SUB, 1, 1),
    JMP_K(BPF_JNE, 1, 0, -7),
    EXIT(),
};
#define ALU_INSNS (3 + 7ULL * ALU_ITERS)

/* map_lookup_elem(array, i & 3), sum the values: 12 insns per iteration + 4 */
static const struct bpfvm_insn map_loop[] = {
    MOV64_K(6, 0),
    MOV64_K(7, 0),
    MOV64_X(1, 6),
    ALU64_K(BPF_AND, 1, 3),
    STX(BPF_W, 10, 1, -4),
    LD_MAP(1, 0),
    MOV64_X(2, 10),
    ALU64_K(BPF_ADD, 2, -4),
    CALL(1),
    JMP_K(BPF_JEQ, 0, 0, 2),
    LDX(BPF_DW, 0, 0, 0),
    ALU64_X(BPF_ADD, 7, 0),
    ALU64_K(BPF_ADD, 6, 1),
    JMP_K(BPF_JLT, 6, MAP_ITERS, -13),
    MOV64_X(0, 7),
    EXIT(),
};
#define MAP_INSNS (4 + 12ULL * MAP_ITERS) /* ld_imm64 counts once */

/* sock_ops-like: op at ctx+0, a chain of op compares, field reads, a
 * computed reply (the 4th op is the one benchmarked) */
static const struct bpfvm_insn branchy[] = {
    LDX(BPF_W, 2, 1, 0),
    MOV64_K(0, -1),
    JMP_K(BPF_JEQ, 2, 1, 11),
    JMP_K(BPF_JEQ, 2, 2, 12),
    JMP_K(BPF_JEQ, 2, 3, 12),
    JMP_K(BPF_JNE, 2, 4, 11),
    LDX(BPF_W, 3, 1, 4),
    LDX(BPF_W, 4, 1, 8),
    JMP_X(BPF_JGT, 3, 4, 2),
    ALU64_K(BPF_MUL, 3, 2),
    JA(1),
    ALU64_K(BPF_RSH, 3, 1),
    MOV64_X(0, 3),
    JA(3),
    MOV64_K(0, 10),
    JA(1),
    MOV64_K(0, 20),
    EXIT(),
};
#define BRANCHY_INSNS 14ULL /* op 4, field a <= b: insns 0-10, 12, 13, 17 */

/* copy COPY_BYTES from ctx to ctx+COPY_BYTES, 8 at a time: 5 per word + 4 */
static const struct bpfvm_insn mem_copy[] = {
    MOV64_K(2, 0),
    MOV64_X(3, 1),
    LDX(BPF_DW, 4, 3, 0),
    STX(BPF_DW, 3, 4, COPY_BYTES),
    ALU64_K(BPF_ADD, 3, 8),
    ALU64_K(BPF_ADD, 2, 8),
    JMP_K(BPF_JLT, 2, COPY_BYTES, -5),
    MOV64_X(0, 2),
    EXIT(),
};
#define COPY_INSNS (4 + 5ULL * (COPY_BYTES / 8))

struct bench_prog {
	const char *name;
	const struct bpfvm_insn *insns;
	size_t n;
	bool uses_map;
	uint64_t insns_per_run;
	unsigned runs_per_sample;
};

static const struct bench_prog bench_progs[] = {
    {"alu_loop", alu_loop, NINSNS(alu_loop), false, ALU_INSNS, 10},
    {"map_lookup_loop", map_loop, NINSNS(map_loop), true, MAP_INSNS, 10},
    {"sockops_branchy", branchy, NINSNS(branchy), false, BRANCHY_INSNS, 100000},
    {"mem_copy", mem_copy, NINSNS(mem_copy), false, COPY_INSNS, 20000},
};

static double clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 7;
	if (samples < 1 || samples > 1000) {
		fprintf(stderr, "usage: bpfvm_bench [samples 1..1000]\n");
		return 2;
	}
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 1;
	struct bpfvm_map_def def = {
	    .type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 4};
	struct bpfvm_map *arr;
	if (bpfvm_map_create(reg, &def, &arr))
		return 1;
	for (uint32_t k = 0; k < 4; k++) {
		uint64_t v = k + 1;
		bpfvm_map_update(arr, &k, &v, BPFVM_ANY);
	}
	uint8_t ctx[2 * COPY_BYTES] __attribute__((aligned(8))) = {0};
	/* wall time and this thread's CPU time: on a shared machine the CPU
	 * time excludes the time the scheduler gave to others */
	double *ns = calloc((size_t)samples, sizeof(double));
	double *cpu = calloc((size_t)samples, sizeof(double));
	if (!ns || !cpu)
		return 1;

	printf("{\"bench\": \"bpfvm\", \"samples\": %d, \"results\": [", samples);
	bool first = true;
	for (size_t pi = 0; pi < sizeof(bench_progs) / sizeof(bench_progs[0]); pi++) {
		const struct bench_prog *bp = &bench_progs[pi];
		for (size_t ei = 0; ei < sizeof(bench_engines) / sizeof(bench_engines[0]); ei++) {
			const struct bench_engine *e = &bench_engines[ei];
			char logbuf[512] = "";
			struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof(logbuf)};
			struct bpfvm_load_opts opts = {
			    .no_verify = true, .jit = e->load_jit, .log = &log};
			struct bpfvm_prog *prog;
			int err = bpfvm_prog_load(reg, bp->insns, bp->n, &arr, bp->uses_map ? 1 : 0,
						  &opts, &prog);
			printf("%s\n  {\"program\": \"%s\", \"engine\": \"%s\"", first ? "" : ",",
			       bp->name, e->name);
			first = false;
			if (err || (e->load_jit && !bpfvm_prog_jited(prog, NULL)) ||
			    (e->usable && !e->usable(prog, logbuf, sizeof logbuf))) {
				logbuf[strcspn(logbuf, "\n\"\\")] = '\0';
				printf(", \"available\": false, \"why\": \"%s\"}", logbuf);
				if (!err)
					bpfvm_prog_put(prog);
				continue;
			}
			memset(ctx, 0, sizeof(ctx));
			ctx[0] = 4;
			ctx[4] = 3;
			ctx[8] = 5;
			/* warm-up; r0 lets a reader compare engines */
			uint64_t r0 = e->run(prog, ctx, sizeof(ctx));
			uint64_t sink = 0;
			for (int s = 0; s < samples; s++) {
				double t0 = clock_ns(CLOCK_MONOTONIC);
				double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
				for (unsigned r = 0; r < bp->runs_per_sample; r++)
					sink ^= e->run(prog, ctx, sizeof(ctx));
				cpu[s] =
				    (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / bp->runs_per_sample;
				ns[s] = (clock_ns(CLOCK_MONOTONIC) - t0) / bp->runs_per_sample;
			}
			qsort(ns, (size_t)samples, sizeof(double), cmp_double);
			qsort(cpu, (size_t)samples, sizeof(double), cmp_double);
			double med = ns[samples / 2], cmed = cpu[samples / 2];
			double k = (double)bp->insns_per_run;
			printf(
			    ", \"available\": true, \"insns_per_run\": %llu, \"ns_per_run\": %.1f, "
			    "\"ns_per_insn\": %.3f, \"cpu_ns_per_run\": %.1f, "
			    "\"cpu_ns_per_insn\": %.3f, \"min_ns_per_run\": %.1f, \"r0\": %llu}",
			    (unsigned long long)bp->insns_per_run, med, med / k, cmed, cmed / k,
			    ns[0], (unsigned long long)r0);
			(void)sink;
			bpfvm_prog_put(prog);
		}
	}
	printf("\n]}\n");
	free(ns);
	free(cpu);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
	return 0;
}
