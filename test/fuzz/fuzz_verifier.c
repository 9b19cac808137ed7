/* libFuzzer target for the verifier: bytes become an instruction stream (and
 * a choice of program type, strict mode and ctx contents); every program
 * the verifier accepts runs in the bounds-checked interpreter, and any stop
 * other than a normal exit means an unsafe program was accepted: abort.
 * Input layout: byte 0 flags, bytes 1..32 ctx seed, then 8-byte insns. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h" /* bpfvm_interp_run_checked: the fuzz build compiles bpfvm in */

#define FUZZ_MAX_INSNS 512
#define FUZZ_CTX       256 /* >= both types' ctx_size */

struct fuzz_env {
	struct bpfvm_registry *reg;
	struct bpfvm_map *maps[3];
	size_t nmaps;
};

/* Helpers whose memory use the checked interpreter cannot follow into
 * (format strings read through %s) are left out of the fuzzed types. */
static const struct bpfvm_helper *fuzz_helper(uint32_t id)
{
	if (id == 6 || id == 165)
		return NULL;
	return bpfvm_base_helper(id);
}

/* A flat ctx like sock_ops' (SOCKOPS.md §2 access rules, no pointer fields):
 * writable reply words and sk_txhash, 8-byte counters at 168/176. */
static int fuzz_ctx_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			   char *why, size_t why_len)
{
	acc->field = (int)(off / 4);
	acc->result = BPFVM_CTX_SCALAR;
	if (off + size > 216 || off % size) {
		snprintf(why, why_len, "fuzz: ctx+%u size %u", off, size);
		return -13;
	}
	if (write)
		return size == 4 && ((off >= 4 && off < 20) || off == 164) ? 0 : -13;
	if (off >= 168 && off < 184)
		return size == 8 ? 0 : -13;
	return size <= 4 ? 0 : -13;
}

static const struct bpfvm_prog_type fuzz_sock_type = {
    .name = "fuzz_sock_ops",
    .type = 13,
    .ctx_size = 216,
    .ctx_access = fuzz_ctx_access,
    .helper = fuzz_helper,
    .ret_min = 0,
    .ret_max = 1,
    .nr_fields = 54,
};

static int generic_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			  char *why, size_t why_len)
{
	return bpfvm_type_generic.ctx_access(off, size, write, acc, why, why_len);
}

static const struct bpfvm_prog_type fuzz_generic_type = {
    .name = "fuzz_generic",
    .ctx_size = 256,
    .ctx_access = generic_access,
    .helper = fuzz_helper,
    .ret_min = INT32_MIN,
    .ret_max = INT32_MAX,
    .nr_fields = 32,
};

static struct fuzz_env *fuzz_env(void)
{
	static struct fuzz_env env; /* harness state, set up once */
	if (env.reg)
		return &env;
	const struct bpfvm_map_def defs[] = {
	    {.type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 4},
	    {.type = BPFVM_MAP_HASH, .key_size = 8, .value_size = 8, .max_entries = 16},
	    {.type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 64, .max_entries = 1},
	};
	if (bpfvm_registry_create(&env.reg))
		abort();
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
		if (bpfvm_map_create(env.reg, &defs[i], &env.maps[env.nmaps++]))
			abort();
	return &env;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_env *env = fuzz_env();
	if (size < 33 + 8)
		return 0;
	uint8_t flags = data[0];
	uint8_t ctx[FUZZ_CTX];
	for (size_t i = 0; i < sizeof ctx; i++)
		ctx[i] = data[1 + i % 32] ^ (uint8_t)(i * 13);
	size_t n = (size - 33) / 8;
	if (n > FUZZ_MAX_INSNS)
		n = FUZZ_MAX_INSNS;
	struct bpfvm_insn insns[FUZZ_MAX_INSNS];
	memcpy(insns, data + 33, n * 8);
	/* map references take indices; keep them in range so the loader relocates */
	for (size_t i = 0; i < n; i++)
		if (insns[i].code == 0x18 && (insns[i].src == 1 || insns[i].src == 2))
			insns[i].imm = (int32_t)((uint32_t)insns[i].imm % env->nmaps);

	char logbuf[4096];
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = (flags & 1) ? &fuzz_sock_type : &fuzz_generic_type,
	    .strict = (flags & 2) != 0,
	    .log = &log,
	};
	struct bpfvm_prog *prog = NULL;
	if (bpfvm_prog_load(env->reg, insns, n, env->maps, env->nmaps, &o, &prog))
		return 0;
	struct bpfvm_fault fault = {0};
	bpfvm_interp_run_checked(prog, ctx, o.type->ctx_size, &fault);
	if (fault.hit) {
		char d[128];
		fprintf(stderr,
			"fuzz_verifier: accepted program faulted at insn %u: addr 0x%llx size %u\n",
			fault.pc, (unsigned long long)fault.addr, fault.size);
		size_t cnt;
		const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &cnt);
		for (size_t i = 0; i < cnt; i++) {
			bpfvm_disasm(&in[i], i + 1 < cnt ? &in[i + 1] : NULL, d, sizeof d);
			fprintf(stderr, "%4zu: (%02x) %s\n", i, in[i].code, d);
		}
		abort();
	}
	bpfvm_prog_put(prog);
	return 0;
}
