/* Shared by the verifier unit tests and the fuzz target: a sock_ops-like
 * program type with the ctx rules of docs/sockops.md §2 (so bpfvm tests need not
 * link hooks/), and a harness that verifies raw insns directly. */
#ifndef SKOPS_TEST_BPFVM_VRF_TEST_UTIL_H
#define SKOPS_TEST_BPFVM_VRF_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

#define VT_CTX_SIZE 224

/* docs/sockops.md §2 layout: u32 words up to 164, sk_txhash 164, u64 counters
 * 168/176, sk 184, skb_data 192, skb_data_end 200, skb_len 208, flags 212. */
static inline int vt_ctx_access(uint32_t off, uint32_t size, bool write,
				struct bpfvm_ctx_access *acc, char *why, size_t why_len)
{
	acc->field = (int)(off / 4);
	acc->result = BPFVM_CTX_SCALAR;
	if (off + size > VT_CTX_SIZE || off % size) {
		snprintf(why, why_len, "test: ctx+%u size %u out of bounds or misaligned", off,
			 size);
		return -EACCES;
	}
	if (write) {
		if (size == 4 && ((off >= 4 && off < 20) || off == 164))
			return 0;
		snprintf(why, why_len, "test: ctx+%u is read-only", off);
		return -EACCES;
	}
	if (off >= 168 && off < 208) {
		if (size != 8) {
			snprintf(why, why_len, "test: ctx+%u needs an 8-byte load", off);
			return -EACCES;
		}
		if (off == 184)
			acc->result = BPFVM_CTX_SOCK_OR_NULL;
		else if (off == 192)
			acc->result = BPFVM_CTX_PKT;
		else if (off == 200)
			acc->result = BPFVM_CTX_PKT_END;
		return 0;
	}
	if (size > 4) {
		snprintf(why, why_len, "test: ctx+%u is a 4-byte field", off);
		return -EACCES;
	}
	return 0;
}

/* The fuzz variant has no pointer fields: its ctx is plain bytes. */
static inline int vt_ctx_access_flat(uint32_t off, uint32_t size, bool write,
				     struct bpfvm_ctx_access *acc, char *why, size_t why_len)
{
	int err = vt_ctx_access(off, size, write, acc, why, why_len);
	acc->result = BPFVM_CTX_SCALAR;
	return err;
}

static uint64_t vt_setsockopt(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
			      struct bpfvm_run *run)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)run;
	return 0;
}

static const struct bpfvm_helper vt_helpers[] = {
    {.id = 49,
     .name = "setsockopt",
     .fn = vt_setsockopt,
     .args = {BPFVM_A(CTX), BPFVM_A(SCALAR), BPFVM_A(SCALAR), BPFVM_A_MEM(READ, 5),
	      BPFVM_A_SIZE(4)},
     BPFVM_RET_ANY},
};

static inline const struct bpfvm_helper *vt_helper(uint32_t id)
{
	if (id == 49)
		return &vt_helpers[0];
	return bpfvm_base_helper(id);
}

static const struct bpfvm_prog_type vt_type = {
    .name = "test_sock_ops",
    .type = 13,
    .ctx_size = VT_CTX_SIZE,
    .ctx_access = vt_ctx_access,
    .helper = vt_helper,
    .ret_min = 0,
    .ret_max = 1,
    .nr_fields = VT_CTX_SIZE / 4,
};

static const struct bpfvm_prog_type vt_type_flat = {
    .name = "test_flat",
    .type = 13,
    .ctx_size = VT_CTX_SIZE,
    .ctx_access = vt_ctx_access_flat,
    .helper = vt_helper,
    .ret_min = 0,
    .ret_max = 1,
    .nr_fields = VT_CTX_SIZE / 4,
};

/* Relocate like bpfvm_prog_load (map index -> pointer, value offset ->
 * address, callback offset -> absolute index) and verify directly. */
static inline int vt_verify(const struct bpfvm_prog_type *type, const struct bpfvm_insn *insns,
			    size_t n, struct bpfvm_map **maps, size_t nmaps, bool strict,
			    struct bpfvm_log *log, struct bpfvm_prog **out)
{
	struct bpfvm_prog *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->type = type;
	p->strict = strict;
	p->insns = calloc(n ? n : 1, sizeof(*insns));
	p->maps = maps;
	p->nmaps = nmaps;
	if (!p->insns) {
		free(p);
		return -ENOMEM;
	}
	memcpy(p->insns, insns, n * sizeof(*insns));
	p->ninsns = n;
	for (size_t i = 0; i + 1 < n; i++) {
		struct bpfvm_insn *in = &p->insns[i];
		if (in->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		uint64_t v = 0;
		if (in->src == BPF_PSEUDO_MAP_FD && (size_t)in->imm < nmaps) {
			v = (uint64_t)(uintptr_t)maps[in->imm];
		} else if (in->src == BPF_PSEUDO_MAP_VALUE && (size_t)in->imm < nmaps) {
			uint32_t key = 0;
			v = (uint64_t)(uintptr_t)bpfvm_map_lookup(maps[in->imm], &key) +
			    (uint32_t)in[1].imm;
		} else if (in->src == BPF_PSEUDO_FUNC) {
			v = (uint64_t)((int64_t)i + in->imm + 1);
		} else {
			i++;
			continue;
		}
		in[0].imm = (int32_t)(uint32_t)v;
		in[1].imm = (int32_t)(uint32_t)(v >> 32);
		i++;
	}
	int err = bpfvm_verify(p, log);
	if (out && !err) {
		*out = p;
		return 0;
	}
	free(p->aux);
	free(p->insns);
	free(p);
	return err;
}

static inline void vt_free(struct bpfvm_prog *p)
{
	if (!p)
		return;
	free(p->aux);
	free(p->insns);
	free(p);
}

#endif
