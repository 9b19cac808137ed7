/* DPDK librte_bpf as a third engine of bpfvm_bench: the same (relocated)
 * program loaded with rte_bpf_load and run through its x86-64 JIT. */
#ifndef SKOPS_TEST_BENCH_RTE_H
#define SKOPS_TEST_BENCH_RTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfvm.h"

struct bench_rte {
	struct rte_bpf *bpf;
	uint64_t (*fn)(void *ctx);
};

/* 0, or -EOPNOTSUPP with the reason in why when rte_bpf cannot take the
 * program (bpf-to-bpf calls, cpu v3/v4 insns, helpers other than
 * map_lookup_elem, its validator's refusal, no JIT). */
int bench_rte_load(const struct bpfvm_prog *prog, size_t ctx_size, struct bench_rte *out, char *why,
		   size_t why_len);
void bench_rte_free(struct bench_rte *r);

/* For engine tables that run (prog, ctx, len): the rte_bpf image of prog is
 * built on first use and cached by program ID for the life of the process.
 * bench_rte_usable says whether rte_bpf takes prog (false: why is filled). */
bool bench_rte_usable(const struct bpfvm_prog *prog, char *why, size_t why_len);
uint64_t bench_rte_run(const struct bpfvm_prog *prog, void *ctx, size_t len);

#endif
