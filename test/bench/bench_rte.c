/* Translate a loaded bpfvm program into librte_bpf's input: map pointers are
 * plain 64-bit immediates there, helper calls index rte_bpf_xsym entries. Only
 * map_lookup_elem is offered, the one helper the benchmark programs use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf_def.h>
#include <rte_bpf.h>
#include <rte_errno.h>

#include "bench_rte.h"

#define HELPER_MAP_LOOKUP 1

/* rte_bpf calls external functions with five arguments; the base helper
 * takes a sixth (the run state) that map_lookup_elem ignores, so rte_bpf gets
 * the very function the JIT calls: same work behind both call sites. */
typedef uint64_t (*rte_fn5)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

int bench_rte_load(const struct bpfvm_prog *prog, size_t ctx_size, struct bench_rte *out, char *why,
		   size_t why_len)
{
	size_t n;
	const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &n);
	struct ebpf_insn *ins = calloc(n, sizeof(*ins));
	struct bpfvm_map *map = NULL;
	if (!ins)
		return -ENOMEM;
	int err = -EOPNOTSUPP;
	for (size_t i = 0; i < n; i++) {
		memcpy(&ins[i], &in[i], sizeof(ins[i]));
		uint8_t cls = in[i].code & 7, op = in[i].code & 0xf0, mode = in[i].code & 0xe0;
		if (in[i].code == (BPF_LD | BPF_IMM | EBPF_DW) && i + 1 < n) {
			if (in[i].src == 1) /* the relocated map pointer */
				map = (struct bpfvm_map
					   *)(uintptr_t)((uint64_t)(uint32_t)in[i].imm |
							 (uint64_t)(uint32_t)in[i + 1].imm << 32);
			ins[i].src_reg = 0;
			memcpy(&ins[i + 1], &in[i + 1], sizeof(ins[i + 1]));
			i++;
			continue;
		}
		if (cls == BPF_JMP && op == EBPF_CALL) {
			if (in[i].src != 0 || in[i].imm != HELPER_MAP_LOOKUP) {
				snprintf(why, why_len, "insn %zu: %s", i,
					 in[i].src ? "bpf-to-bpf call" : "helper not offered");
				goto out;
			}
			ins[i].imm = 0; /* xsym[0] */
		}
		if ((cls == BPF_JMP && op != EBPF_CALL && op != EBPF_EXIT) && in[i].off < 0) {
			snprintf(why, why_len,
				 "insn %zu: loop (rte_bpf's validator refuses back-edges)", i);
			goto out;
		}
		if (cls == 6 /* JMP32 */ || (cls == BPF_LDX && mode == 0x80) /* MEMSX */ ||
		    ((cls == BPF_ALU || cls == EBPF_ALU64) && in[i].off != 0)) {
			snprintf(why, why_len, "insn %zu: cpu v3/v4 instruction", i);
			goto out;
		}
	}
	const struct bpfvm_map_def *d = map ? bpfvm_map_def(map) : NULL;
	struct rte_bpf_xsym xsym = {
	    .name = "map_lookup_elem",
	    .type = RTE_BPF_XTYPE_FUNC,
	    .func = {.val = (rte_fn5)(uintptr_t)bpfvm_base_helper(HELPER_MAP_LOOKUP)->fn,
		     .nb_args = 2,
		     .args = {{.type = RTE_BPF_ARG_RAW, .size = 8},
			      {.type = RTE_BPF_ARG_PTR, .size = d ? d->key_size : 8}},
		     .ret = {.type = RTE_BPF_ARG_PTR, .size = d ? d->value_size : 8}},
	};
	struct rte_bpf_prm prm = {
	    .ins = ins,
	    .nb_ins = (uint32_t)n,
	    .xsym = &xsym,
	    .nb_xsym = 1,
	    .prog_arg = {.type = RTE_BPF_ARG_PTR, .size = ctx_size},
	};
	out->bpf = rte_bpf_load(&prm);
	if (!out->bpf) {
		snprintf(why, why_len, "rte_bpf_load: %s", strerror(rte_errno));
		goto out;
	}
	struct rte_bpf_jit jit = {0};
	if (rte_bpf_get_jit(out->bpf, &jit) != 0 || !jit.func) {
		snprintf(why, why_len, "rte_bpf: no JIT image");
		rte_bpf_destroy(out->bpf);
		out->bpf = NULL;
		goto out;
	}
	out->fn = jit.func;
	err = 0;
out:
	free(ins);
	return err;
}

void bench_rte_free(struct bench_rte *r)
{
	if (r->bpf)
		rte_bpf_destroy(r->bpf);
	r->bpf = NULL;
	r->fn = NULL;
}

#define RTE_CACHE 32

struct rte_cache_ent {
	uint32_t id;
	bool ok;
	struct bench_rte rte;
};

/* bench-process state: one image per program ID (IDs are not reused while
 * the process runs its few dozen loads) */
static struct rte_cache_ent rte_cache[RTE_CACHE];

static struct rte_cache_ent *rte_cached(const struct bpfvm_prog *prog, char *why, size_t why_len)
{
	uint32_t id = bpfvm_prog_id(prog);
	struct rte_cache_ent *free_ent = NULL;
	for (size_t i = 0; i < RTE_CACHE; i++) {
		if (rte_cache[i].id == id)
			return &rte_cache[i];
		if (!rte_cache[i].id && !free_ent)
			free_ent = &rte_cache[i];
	}
	if (!free_ent) {
		snprintf(why, why_len, "bench_rte: cache full");
		return NULL;
	}
	free_ent->id = id;
	free_ent->ok = bench_rte_load(prog, 4096, &free_ent->rte, why, why_len) == 0;
	return free_ent;
}

bool bench_rte_usable(const struct bpfvm_prog *prog, char *why, size_t why_len)
{
	struct rte_cache_ent *e = rte_cached(prog, why, why_len);
	return e && e->ok;
}

uint64_t bench_rte_run(const struct bpfvm_prog *prog, void *ctx, size_t len)
{
	(void)len;
	char why[8];
	struct rte_cache_ent *e = rte_cached(prog, why, sizeof why);
	return e && e->ok ? e->rte.fn(ctx) : 0;
}
