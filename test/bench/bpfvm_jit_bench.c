/* bpfvm_jit_bench: the same programs on the interpreter, the JIT (through
 * bpfvm_prog_run, and its image called directly) and DPDK's librte_bpf JIT,
 * in one run, JSON on stdout. Per program and engine: the median of several
 * timed samples as ns per invocation and ns per executed instruction, plus
 * the ratios (thread CPU time). rte_bpf runs cpu v1/v2 programs without loops or bpf-to-bpf
 * calls; programs it refuses say why in the JSON. A benchmark, not a test.
 * Usage: bpfvm_jit_bench [samples]   (SKOPS_BUILD locates hooks/progs/syn_rto.o) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_rte.h"
#include "bpfvm.h"
#include "hooks.h"
#include "isa_insn.h"

#define SAMPLE_NS 20000000.0 /* each sample runs about this long */
#define CTX_SIZE  256

struct bench_prog {
	const char *name;
	const char *what;
	struct bpfvm_insn insns[256];
	size_t n;
	double executed; /* insns executed per invocation; 0 when unknown */
	bool sock_ops;	 /* load as the sock_ops type (else generic) */
	bool uses_map;
};

/* this thread's CPU time: on a shared machine wall time also counts the
 * time the scheduler gave to others */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put(struct bench_prog *p, struct bpfvm_insn in)
{
	if (p->n < sizeof p->insns / sizeof p->insns[0])
		p->insns[p->n++] = in;
}

#define PUT(p, ...) put(p, (struct bpfvm_insn)__VA_ARGS__)

/* 1000 iterations of 9 ALU insns on four independent chains + loop control */
static void build_alu_loop(struct bench_prog *p)
{
	PUT(p, MOV64_K(0, 0));
	PUT(p, MOV64_K(2, 1));
	PUT(p, MOV64_K(3, 2));
	PUT(p, MOV64_K(4, 3));
	PUT(p, MOV64_K(6, 1000));
	PUT(p, ALU64_X(BPF_ADD, 0, 6));
	PUT(p, ALU64_K(BPF_XOR, 2, 0x55));
	PUT(p, ALU64_K(BPF_ADD, 3, 7));
	PUT(p, ALU64_K(BPF_OR, 4, 1));
	PUT(p, ALU64_X(BPF_ADD, 0, 2));
	PUT(p, ALU64_K(BPF_AND, 3, 0xffff));
	PUT(p, ALU64_K(BPF_LSH, 4, 1));
	PUT(p, ALU64_K(BPF_SUB, 6, 1));
	PUT(p, JMP_K(BPF_JNE, 6, 0, -9));
	PUT(p, ALU64_X(BPF_ADD, 0, 3));
	PUT(p, ALU64_X(BPF_ADD, 0, 4));
	PUT(p, EXIT());
	p->executed = 5 + 9.0 * 1000 + 3;
}

/* the same ALU mix unrolled (no loop), which rte_bpf can run */
static void build_alu_straight(struct bench_prog *p)
{
	PUT(p, MOV64_K(0, 0));
	PUT(p, MOV64_K(2, 1));
	PUT(p, MOV64_K(3, 2));
	PUT(p, MOV64_K(4, 3));
	for (int k = 0; k < 30; k++) {
		PUT(p, ALU64_K(BPF_ADD, 0, k));
		PUT(p, ALU64_K(BPF_XOR, 2, 0x55));
		PUT(p, ALU64_K(BPF_ADD, 3, 7));
		PUT(p, ALU64_K(BPF_OR, 4, 1));
		PUT(p, ALU64_X(BPF_ADD, 0, 2));
		PUT(p, ALU64_K(BPF_AND, 3, 0xffff));
		PUT(p, ALU64_K(BPF_LSH, 4, 1));
	}
	PUT(p, ALU64_X(BPF_ADD, 0, 3));
	PUT(p, ALU64_X(BPF_ADD, 0, 4));
	PUT(p, EXIT());
	p->executed = (double)p->n;
}

/* 16 array lookups of key i & 3, summing the values (unrolled) */
static void build_map_lookup(struct bench_prog *p)
{
	PUT(p, MOV64_K(6, 0));
	for (int k = 0; k < 16; k++) {
		PUT(p, ST(BPF_W, 10, -4, k & 3));
		struct bpfvm_insn ld[2] = {LD_MAP(1, 0)};
		put(p, ld[0]);
		put(p, ld[1]);
		PUT(p, MOV64_X(2, 10));
		PUT(p, ALU64_K(BPF_ADD, 2, -4));
		PUT(p, CALL(1));
		PUT(p, JMP_K(BPF_JEQ, 0, 0, 2));
		PUT(p, LDX(BPF_DW, 0, 0, 0));
		PUT(p, ALU64_X(BPF_ADD, 6, 0));
	}
	PUT(p, MOV64_X(0, 6));
	PUT(p, EXIT());
	p->executed = 1 + 16 * 8.0 + 2; /* ld_imm64 counts once */
	p->uses_map = true;
}

/* sock_ops-style: dispatch on op, read a few fields, compute a reply */
static void build_branchy(struct bench_prog *p)
{
	static const struct bpfvm_insn prog[] = {
	    LDX(BPF_W, 2, 1, 0), /* op */
	    MOV64_K(0, -1),
	    JMP_K(BPF_JEQ, 2, 1, 5),  /* TIMEOUT_INIT */
	    JMP_K(BPF_JEQ, 2, 2, 12), /* RWND_INIT */
	    JMP_K(BPF_JEQ, 2, 3, 15), /* TCP_CONNECT_CB */
	    JMP_K(BPF_JEQ, 2, 8, 16), /* NEEDS_ECN */
	    JMP_K(BPF_JEQ, 2, 9, 17), /* BASE_RTT */
	    EXIT(),
	    MOV64_K(0, 0),
	    LDX(BPF_W, 3, 1, 20),      /* family */
	    JMP_K(BPF_JNE, 3, 10, 13), /* AF_INET6 */
	    LDX(BPF_W, 4, 1, 64),      /* remote port */
	    LDX(BPF_W, 5, 1, 68),      /* local port */
	    JMP_X(BPF_JNE, 4, 5, 10),
	    MOV64_K(0, 10),
	    EXIT(),
	    LDX(BPF_W, 3, 1, 4),
	    ALU64_K(BPF_ADD, 3, 40),
	    MOV64_X(0, 3),
	    EXIT(),
	    MOV64_K(0, 1),
	    EXIT(),
	    MOV64_K(0, 80),
	    EXIT(),
	    MOV64_K(0, 0),
	    EXIT(),
	};
	memcpy(p->insns, prog, sizeof prog);
	p->n = sizeof prog / sizeof prog[0];
	p->executed = 11; /* op 1 (TIMEOUT_INIT), family 10, ports differ */
}

/* copy 128 bytes of ctx to its second half */
static void build_memcpy(struct bench_prog *p)
{
	for (int k = 0; k < 16; k++) {
		PUT(p, LDX(BPF_DW, 2, 1, (int16_t)(8 * k)));
		PUT(p, STX(BPF_DW, 1, 2, (int16_t)(128 + 8 * k)));
	}
	PUT(p, MOV64_K(0, 0));
	PUT(p, EXIT());
	p->executed = (double)p->n;
}

static void build_empty(struct bench_prog *p)
{
	PUT(p, MOV64_K(0, 1));
	PUT(p, EXIT());
	p->executed = 2;
	p->sock_ops = true;
}

typedef uint64_t (*jit_entry)(void *ctx, uint64_t len, struct bpfvm_run *run);

struct engine_ctx {
	const struct bpfvm_prog *prog;
	struct bench_rte *rte;
	jit_entry fn;
};

enum engine { ENG_INTERP, ENG_JIT, ENG_JIT_DIRECT, ENG_RTE, ENG_N };
static const char *const engine_names[ENG_N] = {"interp", "jit", "jit_direct", "rte_bpf_jit"};

static uint64_t run_batch(enum engine e, const struct engine_ctx *ec, uint8_t *ctx, uint64_t iters)
{
	uint64_t acc = 0;
	struct bpfvm_run run = {.prog = ec->prog, .ctx = ctx};
	for (uint64_t i = 0; i < iters; i++) {
		switch (e) {
		case ENG_INTERP:
			acc += bpfvm_prog_run_interp(ec->prog, ctx, CTX_SIZE);
			break;
		case ENG_JIT:
			acc += bpfvm_prog_run(ec->prog, ctx, CTX_SIZE);
			break;
		case ENG_JIT_DIRECT:
			run.budget = BPFVM_RUN_BUDGET_DEFAULT; /* as bpfvm_prog_run gives */
			acc += ec->fn(ctx, CTX_SIZE, &run);
			break;
		default:
			acc += ec->rte->fn(ctx);
			break;
		}
	}
	return acc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median ns per invocation over samples; the r0 of the last call in *r0. */
static double measure(enum engine e, const struct engine_ctx *ec, uint8_t *ctx, int samples,
		      uint64_t *r0)
{
	uint64_t iters = 1;
	for (;;) { /* calibrate to about SAMPLE_NS */
		uint64_t t0 = now_ns();
		run_batch(e, ec, ctx, iters);
		uint64_t dt = now_ns() - t0;
		if (dt > SAMPLE_NS / 4 || iters > (1ull << 32))
			break;
		iters *= 4;
	}
	iters *= 4;
	double t[32];
	if (samples > 32)
		samples = 32;
	uint64_t sink = 0;
	for (int s = 0; s < samples; s++) {
		uint64_t t0 = now_ns();
		sink += run_batch(e, ec, ctx, iters);
		t[s] = (double)(now_ns() - t0) / (double)iters;
	}
	*r0 = run_batch(e, ec, ctx, 1);
	if (sink == 42) /* keep the batches observable */
		fputc(' ', stderr);
	qsort(t, (size_t)samples, sizeof t[0], cmp_double);
	return t[samples / 2];
}

static void fill_ctx(uint8_t *ctx)
{
	memset(ctx, 0, CTX_SIZE);
	uint32_t op = 1, family = 10, rport = 443, lport = 5555, arg = 7;
	memcpy(ctx + 0, &op, 4);
	memcpy(ctx + 4, &arg, 4);
	memcpy(ctx + 20, &family, 4);
	memcpy(ctx + 64, &rport, 4);
	memcpy(ctx + 68, &lport, 4);
	for (int i = 72; i < 128; i++)
		ctx[i] = (uint8_t)i;
}

static void bench_one(struct bpfvm_registry *reg, struct bpfvm_map *map,
		      const struct bench_prog *bp, struct bpfvm_prog *loaded, int samples,
		      bool first)
{
	char log[4096] = "";
	struct bpfvm_prog *prog = loaded;
	if (!prog) {
		struct bpfvm_log lg = {.level = 1, .buf = log, .size = sizeof log};
		struct bpfvm_load_opts o = {.type = bp->sock_ops ? &hooks_sock_ops_type : NULL,
					    .jit = true,
					    .name = bp->name,
					    .log = &lg};
		int err =
		    bpfvm_prog_load(reg, bp->insns, bp->n, &map, bp->uses_map ? 1 : 0, &o, &prog);
		if (err) {
			printf("%s    {\"program\": \"%s\", \"error\": \"load %d\"}",
			       first ? "" : ",\n", bp->name, err);
			fprintf(stderr, "bpfvm_jit_bench: %s: %s\n", bp->name, log);
			return;
		}
	}
	size_t jlen = 0;
	struct engine_ctx ec = {.prog = prog, .fn = (jit_entry)bpfvm_prog_jited(prog, &jlen)};
	struct bench_rte rte = {0};
	char why[160] = "";
	bool have_rte = bench_rte_load(prog, CTX_SIZE, &rte, why, sizeof why) == 0;
	ec.rte = &rte;
	uint8_t ctx[CTX_SIZE];
	double ns[ENG_N] = {0};
	uint64_t r0[ENG_N] = {0};
	for (int e = 0; e < ENG_N; e++) {
		if ((e == ENG_RTE && !have_rte) ||
		    ((e == ENG_JIT || e == ENG_JIT_DIRECT) && !ec.fn))
			continue;
		fill_ctx(ctx);
		ns[e] = measure((enum engine)e, &ec, ctx, samples, &r0[e]);
	}
	size_t ninsns = 0;
	bpfvm_prog_insns(prog, &ninsns);
	printf("%s    {\"program\": \"%s\", \"what\": \"%s\", \"insns\": %zu, \"executed\": ",
	       first ? "" : ",\n", bp->name, bp->what, ninsns);
	if (bp->executed > 0)
		printf("%.0f", bp->executed);
	else
		printf("null");
	printf(", \"jited_bytes\": %zu, \"engines\": {", jlen);
	bool sep = false;
	for (int e = 0; e < ENG_N; e++) {
		if (ns[e] == 0)
			continue;
		printf("%s\"%s\": {\"ns_per_invocation\": %.3f, \"ns_per_insn\": ", sep ? ", " : "",
		       engine_names[e], ns[e]);
		if (bp->executed > 0)
			printf("%.4f", ns[e] / bp->executed);
		else
			printf("null");
		printf(", \"r0\": %llu}", (unsigned long long)r0[e]);
		sep = true;
	}
	printf("}");
	if (!have_rte)
		printf(", \"rte_bpf_skipped\": \"%s\"", why);
	if (ns[ENG_INTERP] > 0 && ns[ENG_JIT] > 0)
		printf(", \"jit_vs_interp\": %.2f", ns[ENG_INTERP] / ns[ENG_JIT]);
	if (have_rte && ns[ENG_JIT_DIRECT] > 0)
		printf(", \"jit_direct_vs_rte\": %.2f", ns[ENG_RTE] / ns[ENG_JIT_DIRECT]);
	printf("}");
	fflush(stdout);
	bench_rte_free(&rte);
	if (!loaded)
		bpfvm_prog_put(prog);
}

/* The real sample program, when the build has it. */
static struct bpfvm_obj *open_syn_rto(struct bpfvm_registry *reg, struct bpfvm_prog **out)
{
	const char *b = getenv("SKOPS_BUILD");
	char path[1024];
	snprintf(path, sizeof path, "%s/hooks/progs/syn_rto.o", b ? b : "build");
	struct bpfvm_obj *obj = NULL;
	if (bpfvm_obj_open(reg, path, NULL, 0, NULL, &obj))
		return NULL;
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type, .jit = true};
	if (bpfvm_obj_load_prog(obj, NULL, &o, out)) {
		bpfvm_obj_close(obj);
		return NULL;
	}
	return obj;
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 7;
	if (samples < 1)
		samples = 1;
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 1;
	struct bpfvm_map_def def = {.type = BPFVM_MAP_ARRAY,
				    .key_size = 4,
				    .value_size = 8,
				    .max_entries = 4,
				    .name = "bench"};
	struct bpfvm_map *map;
	if (bpfvm_map_create(reg, &def, &map))
		return 1;
	for (uint32_t k = 0; k < 4; k++) {
		uint64_t v = 100 + k;
		bpfvm_map_update(map, &k, &v, BPFVM_ANY);
	}
	static struct bench_prog progs[] = {
	    {.name = "alu_loop", .what = "1000 iterations of 9 ALU insns, verified bounded loop"},
	    {.name = "alu_straight", .what = "214 ALU insns, no loop"},
	    {.name = "map_lookup", .what = "16 array map lookups (helper calls)"},
	    {.name = "sockops_branchy", .what = "op dispatch, ctx reads, reply"},
	    {.name = "memcpy128", .what = "16 dword loads and stores"},
	    {.name = "empty_sockops", .what = "r0 = 1; exit as sock_ops"},
	};
	void (*build[])(struct bench_prog *) = {build_alu_loop,	  build_alu_straight,
						build_map_lookup, build_branchy,
						build_memcpy,	  build_empty};
	printf("{\"bench\": \"bpfvm_jit\", \"samples\": %d, \"programs\": [\n", samples);
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		build[i](&progs[i]);
		bench_one(reg, map, &progs[i], NULL, samples, i == 0);
	}
	struct bpfvm_prog *syn = NULL;
	struct bpfvm_obj *obj = open_syn_rto(reg, &syn);
	if (obj) {
		struct bench_prog sp = {.name = "syn_rto.o",
					.what = "hooks/progs/syn_rto.c (clang)"};
		bench_one(reg, map, &sp, syn, samples, false);
		bpfvm_prog_put(syn);
		bpfvm_obj_close(obj);
	}
	printf("\n]}\n");
	bpfvm_map_put(map);
	bpfvm_registry_destroy(reg);
	return 0;
}
