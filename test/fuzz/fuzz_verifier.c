/* libFuzzer target for the verifier: bytes become an instruction stream (and
 * a choice of program type, strict mode, loader privilege and ctx contents);
 * every program the verifier accepts runs in the bounds-checked interpreter,
 * and any stop other than a normal exit means an unsafe program was
 * accepted: abort. Input layout: byte 0 flags (1 sock_ops, 2 strict, 4
 * structured, 8 privileged), bytes 1..32 ctx seed, then 8-byte insns. */
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
	unsigned long runs, accepted; /* printed at exit with FUZZ_VERIFIER_STATS=1 */
};

static void fuzz_stats(void);

/* Base helpers; trace_printk/snprintf read %s arguments with a fault-safe
 * copy, so they are fuzzed too. */
static const struct bpfvm_helper *fuzz_helper(uint32_t id)
{
	return bpfvm_base_helper(id);
}

/* A flat ctx like sock_ops' (docs/sockops.md §2 access rules, no pointer fields):
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
	if (getenv("FUZZ_VERIFIER_STATS"))
		atexit(fuzz_stats);
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
		if (bpfvm_map_create(env.reg, &defs[i], &env.maps[env.nmaps++]))
			abort();
	return &env;
}

/* Structured decoding (flags bit 2): every 8 bytes become a well-formed insn
 * of a common shape, so most programs pass the encoding checks and the
 * fuzzer spends its time on the abstract interpretation itself. */
static const uint8_t fuzz_codes[] = {
    0xb7, 0xbf, 0xb4, 0xbc, 0x07, 0x0f, 0x17, 0x1f, 0x57, 0x5f, 0x47, 0x4f, 0xa7, 0xaf, 0x67, 0x77,
    0xc7, 0x27, 0x2f, 0x37, 0x97, 0x04, 0x0c, 0x54, 0x64, 0x74, 0x84, 0x87, 0xdc, 0xd4, 0x61, 0x69,
    0x71, 0x79, 0x91, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xdb, 0xc3, 0x05, 0x15, 0x1d,
    0x25, 0x2d, 0x35, 0x3d, 0x45, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5,
    0xcd, 0xd5, 0xdd, 0x16, 0x1e, 0x26, 0x2e, 0xa6, 0xb6, 0xc6, 0xd6, 0x56, 0x85, 0x95, 0x18,
};

static void fuzz_structure(struct bpfvm_insn *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *b = (const uint8_t *)&in[i];
		uint8_t code = fuzz_codes[b[0] % sizeof fuzz_codes];
		uint8_t dst = b[1] % 11, src = (b[1] >> 4) % 11;
		int16_t off = (int16_t)((int8_t)b[2] % 24);
		int32_t imm = (int8_t)b[4] * (b[5] & 1 ? 1 : 8);
		uint8_t cls = code & 7;
		if (cls == BPF_LDX || cls == BPF_STX || cls == BPF_ST)
			off = (int16_t)(-8 * (b[2] % 8) + (b[3] % 4) * 4);
		if (cls == BPF_JMP || cls == BPF_JMP32)
			off = (int16_t)(b[2] % 8) - 2;
		if (code == 0x85) { /* helpers: lookup, update, delete, ktime, prandom, loop... */
			static const int32_t ids[] = {1, 2, 3, 5, 6, 7, 8, 93, 94, 164, 165, 181};
			imm = ids[b[4] % (sizeof ids / sizeof ids[0])];
			src = 0, dst = 0, off = 0;
		}
		if (code == 0xdb || code == 0xc3)
			imm = (int32_t[]){0, 1, 0x40, 0x50, 0xa0, 0xe1, 0xf1}[b[4] % 7];
		if (code == 0xdc || code == 0xd4)
			imm = 16 << (b[4] % 3);
		if ((code & 0xf0) >= 0x60 && (code & 0xf0) <= 0x70 && cls >= BPF_ALU)
			imm &= 31;
		if (code == 0x18) { /* a map, a value, or a constant; the next slot pairs it */
			if (i + 1 >= n) {
				code = 0x95;
			} else {
				src = b[4] % 3;
				imm = (int32_t)b[5];
				in[i + 1] = (struct bpfvm_insn){0};
				in[i + 1].imm = src == 2 ? b[6] % 16 : 0;
				in[i] = (struct bpfvm_insn){
				    .code = code, .dst = dst, .src = src, .imm = imm};
				i++;
				continue;
			}
		}
		if (code == 0x95)
			src = dst = 0, off = 0, imm = 0;
		if (code == 0x05)
			dst = src = 0, imm = 0;
		in[i] = (struct bpfvm_insn){
		    .code = code, .dst = dst, .src = src, .off = off, .imm = imm};
	}
	if (n)
		in[n - 1] = (struct bpfvm_insn){.code = 0x95};
}

static void fuzz_stats(void)
{
	struct fuzz_env *env = fuzz_env();
	fprintf(stderr, "fuzz_verifier: %lu inputs, %lu programs accepted and run\n", env->runs,
		env->accepted);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_env *env = fuzz_env();
	env->runs++;
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
	if (flags & 4)
		fuzz_structure(insns, n);
	/* map references take indices; keep them in range so the loader relocates */
	for (size_t i = 0; i < n; i++)
		if (insns[i].code == 0x18 && (insns[i].src == 1 || insns[i].src == 2))
			insns[i].imm = (int32_t)((uint32_t)insns[i].imm % env->nmaps);

	char logbuf[4096];
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = (flags & 1) ? &fuzz_sock_type : &fuzz_generic_type,
	    .strict = (flags & 2) != 0,
	    .allow_ptr_leaks = (flags & 8) != 0, /* a privileged loader */
	    .log = &log,
	};
	struct bpfvm_prog *prog = NULL;
	if (bpfvm_prog_load(env->reg, insns, n, env->maps, env->nmaps, &o, &prog))
		return 0;
	env->accepted++;
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
