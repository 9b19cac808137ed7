/* libFuzzer target for the JIT: the verifier's input layout (byte 0 flags,
 * bytes 1..32 ctx seed, then 8-byte insns; see fuzz_verifier.c). Every
 * program the verifier accepts (or, with flags bit 2, every program the
 * structural check accepts, unverified) runs on the bounds-checked
 * interpreter; when that run is clean, the JIT image runs on the same ctx and
 * map contents and must give the same r0, ctx bytes and map values.
 * Nondeterministic helpers (time, random, trace output) are left out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

#define FUZZ_MAX_INSNS 512
#define FUZZ_CTX       256

static const struct bpfvm_helper *fuzz_helper(uint32_t id)
{
	switch (id) {
	case 1:	  /* map_lookup_elem */
	case 2:	  /* map_update_elem */
	case 3:	  /* map_delete_elem */
	case 8:	  /* get_smp_processor_id */
	case 164: /* for_each_map_elem */
	case 181: /* loop */
		return bpfvm_base_helper(id);
	}
	return NULL;
}

static int generic_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			  char *why, size_t why_len)
{
	return bpfvm_type_generic.ctx_access(off, size, write, acc, why, why_len);
}

static const struct bpfvm_prog_type fuzz_type = {
    .name = "fuzz_jit",
    .ctx_size = FUZZ_CTX,
    .ctx_access = generic_access,
    .helper = fuzz_helper,
    .ret_min = INT32_MIN,
    .ret_max = INT32_MAX,
    .nr_fields = 32,
};

struct fuzz_env {
	struct bpfvm_registry *reg;
	struct bpfvm_map *maps[2];
};

static struct fuzz_env *fuzz_env(void)
{
	static struct fuzz_env env; /* harness state, set up once */
	if (env.reg)
		return &env;
	const struct bpfvm_map_def defs[] = {
	    {.type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 4},
	    {.type = BPFVM_MAP_HASH, .key_size = 8, .value_size = 8, .max_entries = 16},
	};
	if (bpfvm_registry_create(&env.reg))
		abort();
	for (size_t i = 0; i < 2; i++)
		if (bpfvm_map_create(env.reg, &defs[i], &env.maps[i]))
			abort();
	return &env;
}

/* Same map contents before each engine: zeroed array, empty hash. */
static void reset_maps(struct fuzz_env *env)
{
	uint8_t zero[16] = {0};
	for (uint32_t k = 0; k < 4; k++)
		bpfvm_map_update(env->maps[0], &k, zero, BPFVM_ANY);
	uint64_t key;
	for (int i = 0; i < 64 && bpfvm_map_get_next_key(env->maps[1], NULL, &key) == 0; i++)
		bpfvm_map_delete(env->maps[1], &key);
}

/* Array values and the hash's key/value pairs (in iteration order). */
static size_t snapshot(struct fuzz_env *env, uint8_t *out, size_t cap)
{
	size_t n = 0;
	for (uint32_t k = 0; k < 4 && n + 16 <= cap; k++, n += 16)
		memcpy(out + n, bpfvm_map_lookup(env->maps[0], &k), 16);
	uint64_t key, *prev = NULL;
	while (n + 16 <= cap && bpfvm_map_get_next_key(env->maps[1], prev, &key) == 0) {
		memcpy(out + n, &key, 8);
		memcpy(out + n + 8, bpfvm_map_lookup(env->maps[1], &key), 8);
		n += 16;
		prev = (uint64_t *)(out + n - 16);
	}
	return n;
}

/* The frame pointer copied into a value: stack addresses differ between the
 * engines (their frames live in different places), so a mismatch may be
 * nothing but a leaked address. */
static bool fp_escapes(const struct bpfvm_insn *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(in[i].code);
		bool x = BPF_SRC(in[i].code) == BPF_X;
		if (in[i].src == 10 &&
		    (cls == BPF_STX || ((cls == BPF_ALU || cls == BPF_ALU64) && x)))
			return true;
	}
	return false;
}

/* Verified loops are left to fuzz_verifier: proving some of them takes the
 * verifier minutes under ASan, and this target is about translation (the
 * unit differential test covers verified loops; unverified ones run here). */
static bool has_backedge(const struct bpfvm_insn *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(in[i].code), op = BPF_OP(in[i].code);
		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
		    ((cls == BPF_JMP32 && op == BPF_JA) ? in[i].imm : in[i].off) < 0)
			return true;
	}
	return false;
}

/* Only deterministic helpers: the engines must see the same world. */
static bool helpers_ok(const struct bpfvm_insn *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in[i].code == (BPF_JMP | BPF_CALL) && in[i].src == 0 &&
		    !fuzz_helper((uint32_t)in[i].imm))
			return false;
	return true;
}

static void dump_and_abort(const struct bpfvm_prog *prog, const char *what)
{
	fprintf(stderr, "fuzz_jit: %s\n", what);
	size_t cnt;
	const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &cnt);
	for (size_t i = 0; i < cnt; i++) {
		char d[128];
		bpfvm_disasm(&in[i], i + 1 < cnt ? &in[i + 1] : NULL, d, sizeof d);
		fprintf(stderr, "%4zu: (%02x) %s\n", i, in[i].code, d);
	}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_env *env = fuzz_env();
	if (size < 33 + 8)
		return 0;
	uint8_t flags = data[0], init[FUZZ_CTX];
	for (size_t i = 0; i < sizeof init; i++)
		init[i] = data[1 + i % 32] ^ (uint8_t)(i * 13);
	size_t n = (size - 33) / 8;
	if (n > FUZZ_MAX_INSNS)
		n = FUZZ_MAX_INSNS;
	struct bpfvm_insn insns[FUZZ_MAX_INSNS];
	memcpy(insns, data + 33, n * 8);
	for (size_t i = 0; i < n; i++)
		if (insns[i].code == 0x18 && (insns[i].src == 1 || insns[i].src == 2))
			insns[i].imm = (int32_t)((uint32_t)insns[i].imm % 2);
	char logbuf[2048];
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	/* unverified runs use the generic type (no_verify requires it) */
	bool unverified = flags & 4;
	struct bpfvm_load_opts o = {.type = unverified ? NULL : &fuzz_type,
				    .no_verify = unverified,
				    .jit = true,
				    .log = &log};
	struct bpfvm_prog *prog = NULL;
	if (!helpers_ok(insns, n) || (!unverified && has_backedge(insns, n)) ||
	    bpfvm_prog_load(env->reg, insns, n, env->maps, 2, &o, &prog))
		return 0;
	if (!bpfvm_prog_jited(prog, NULL)) {
		/* a refusal must be logged; verified programs must never be refused */
		if (!unverified || !strstr(logbuf, "jit: "))
			dump_and_abort(prog, "program not jited");
		bpfvm_prog_put(prog);
		return 0;
	}
	/* one ctx buffer for both runs, so a ctx address in r0 compares equal */
	uint8_t ctx[FUZZ_CTX], ci[FUZZ_CTX], mi[256], mj[256];
	memcpy(ctx, init, sizeof ctx);
	reset_maps(env);
	struct bpfvm_fault fault = {0};
	uint64_t ri = bpfvm_interp_run_checked(prog, ctx, sizeof ctx, &fault);
	size_t ni = snapshot(env, mi, sizeof mi);
	if (fault.hit) { /* unsafe on this input: the JIT would not be comparable */
		bpfvm_prog_put(prog);
		return 0;
	}
	memcpy(ci, ctx, sizeof ci);
	memcpy(ctx, init, sizeof ctx);
	reset_maps(env);
	uint64_t rj = bpfvm_prog_run(prog, ctx, sizeof ctx);
	size_t nj = snapshot(env, mj, sizeof mj);
	const char *bad = ri != rj			     ? "r0 differs"
			  : memcmp(ci, ctx, sizeof ci)	     ? "ctx differs"
			  : (ni != nj || memcmp(mi, mj, ni)) ? "maps differ"
							     : NULL;
	size_t cnt;
	const struct bpfvm_insn *rel = bpfvm_prog_insns(prog, &cnt);
	if (bad && !fp_escapes(rel, cnt)) {
		char what[128];
		snprintf(what, sizeof what, "%s: r0 interp %#llx jit %#llx", bad,
			 (unsigned long long)ri, (unsigned long long)rj);
		dump_and_abort(prog, what);
	}
	bpfvm_prog_put(prog);
	return 0;
}
