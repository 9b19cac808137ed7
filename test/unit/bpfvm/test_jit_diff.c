/* Randomized differential test: seeded programs from jit_gen.h run on the
 * bounds-checked interpreter (which also proves the generator safe: a fault
 * is a generator bug and fails the test) and on the JIT; r0 and the ctx
 * memory must be identical. When the verifier accepts programs, each one is
 * also loaded verified (the JIT's leaf/no-budget code path).
 * SKOPS_JIT_DIFF_SEED and SKOPS_JIT_DIFF_N override the seed and the count;
 * the seed is printed so a failure reproduces. */
#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "check_main.h"
#include "jit_engines.h"
#include "jit_gen.h"

#define DEFAULT_N    8000
#define TIME_LIMIT_S 90

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/* The verifier placeholder refuses everything with -EOPNOTSUPP; until the
 * real one lands the generator's programs run unverified (no_verify), which
 * is why they are safe by construction. */
static bool verifier_available(struct bpfvm_registry *reg)
{
	struct bpfvm_insn ok[] = {MOV64_K(0, 0), EXIT()};
	struct bpfvm_load_opts o = {0};
	struct bpfvm_prog *p = NULL;
	int err = bpfvm_prog_load(reg, ok, 2, NULL, 0, &o, &p);
	if (err == 0)
		bpfvm_prog_put(p);
	return err != -EOPNOTSUPP;
}

static void fill_ctx(struct jg_rng *r, uint8_t *ctx)
{
	for (int i = 0; i < JG_CTX_SIZE; i += 8) {
		uint64_t v = jg_imm64(r);
		memcpy(ctx + i, &v, 8);
	}
}

/* 0 when equal; the interpreter run is the checked one. */
static int compare(const struct bpfvm_prog *p, const uint8_t *ctx, uint64_t seed, size_t idx,
		   const char *mode)
{
	uint8_t a[JG_CTX_SIZE], b[JG_CTX_SIZE];
	memcpy(a, ctx, sizeof a);
	memcpy(b, ctx, sizeof b);
	struct bpfvm_fault fault;
	uint64_t ri = bpfvm_interp_run_checked(p, a, sizeof a, &fault);
	ck_assert_msg(!fault.hit,
		      "seed %" PRIu64 " prog %zu (%s): generator bug: checked interpreter fault at "
		      "insn %u addr %#" PRIx64 " size %u",
		      seed, idx, mode, fault.pc, fault.addr, fault.size);
	size_t len = 0;
	ck_assert_msg(bpfvm_prog_jited(p, &len) && len, "seed %" PRIu64 " prog %zu (%s): not jited",
		      seed, idx, mode);
	uint64_t rj = bpfvm_prog_run(p, b, sizeof b);
	ck_assert_msg(ri == rj,
		      "seed %" PRIu64 " prog %zu (%s): r0 interp %#" PRIx64 " jit %#" PRIx64, seed,
		      idx, mode, ri, rj);
	ck_assert_msg(memcmp(a, b, sizeof a) == 0, "seed %" PRIu64 " prog %zu (%s): ctx differs",
		      seed, idx, mode);
	return 0;
}

START_TEST(differential)
{
	uint64_t seed = env_u64("SKOPS_JIT_DIFF_SEED", (uint64_t)time(NULL));
	size_t n = (size_t)env_u64("SKOPS_JIT_DIFF_N", DEFAULT_N);
	printf("test_jit_diff: seed %" PRIu64 " programs %zu (SKOPS_JIT_DIFF_SEED=%" PRIu64
	       " reproduces)\n",
	       seed, n, seed);
	fflush(stdout);
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	bool verified = verifier_available(reg);
	printf("test_jit_diff: verifier %s\n",
	       verified ? "available: programs run verified and unverified"
			: "not available: programs run unverified (no_verify)");
	struct jg_prog *gp = malloc(sizeof(*gp));
	ck_assert_ptr_nonnull(gp);
	struct jg_rng rng = {.s = seed};
	uint8_t ctx[JG_CTX_SIZE];
	size_t accepted = 0, compared = 0;
	char log[4096];
	time_t t0 = time(NULL);
	size_t i;
	for (i = 0; i < n && time(NULL) - t0 < TIME_LIMIT_S; i++) {
		jg_generate(&rng, 4 + (int)jg_below(&rng, JG_MAX_BODY - 4), gp);
		fill_ctx(&rng, ctx);
		struct bpfvm_prog *p =
		    jt_load(reg, gp->insns, gp->n, NULL, 0, true, log, sizeof log);
		ck_assert_msg(p, "seed %" PRIu64 " prog %zu: no_verify load failed: %s", seed, i,
			      log);
		compare(p, ctx, seed, i, "unverified");
		compared++;
		bpfvm_prog_put(p);
		if (!verified)
			continue;
		p = jt_load(reg, gp->insns, gp->n, NULL, 0, false, log, sizeof log);
		if (!p) {
			/* SKOPS_JIT_DIFF_VERBOSE=1 shows why the verifier refused */
			if (getenv("SKOPS_JIT_DIFF_VERBOSE"))
				printf("prog %zu rejected: %s\n", i, log);
			continue;
		}
		accepted++;
		compare(p, ctx, seed, i, "verified");
		compared++;
		bpfvm_prog_put(p);
	}
	printf("test_jit_diff: %zu programs, %zu verifier-accepted, %zu engine comparisons, %lds\n",
	       i, accepted, compared, (long)(time(NULL) - t0));
	ck_assert_msg(i >= n / 4, "only %zu of %zu programs within %ds", i, n, TIME_LIMIT_S);
	if (verified)
		ck_assert_msg(accepted * 2 >= i, "verifier accepted only %zu of %zu programs",
			      accepted, i);
	free(gp);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *jit_diff_suite(void)
{
	Suite *s = suite_create("bpfvm_jit_diff");
	TCase *tc = tcase_create("diff");
	tcase_set_timeout(tc, TIME_LIMIT_S + 30);
	tcase_add_test(tc, differential);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(jit_diff_suite)
