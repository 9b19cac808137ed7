/* Shared by the interpreter tests: a registry, loading unverified generic
 * programs with a log, and the engines every case runs on. */
#ifndef SKOPS_TEST_BPFVM_INTERP_FIXTURE_H
#define SKOPS_TEST_BPFVM_INTERP_FIXTURE_H

#include <check.h>
#include <string.h>

#include "isa_insn.h"

struct fx_engine {
	const char *name;
	uint64_t (*run)(const struct bpfvm_prog *prog, void *ctx, size_t len,
			struct bpfvm_fault *fault);
};

static inline uint64_t fx_run_interp(const struct bpfvm_prog *prog, void *ctx, size_t len,
				     struct bpfvm_fault *fault)
{
	memset(fault, 0, sizeof(*fault));
	return bpfvm_prog_run_interp(prog, ctx, len);
}

static inline uint64_t fx_run_checked(const struct bpfvm_prog *prog, void *ctx, size_t len,
				      struct bpfvm_fault *fault)
{
	return bpfvm_interp_run_checked(prog, ctx, len, fault);
}

static const struct fx_engine fx_engines[] = {
    {"interp", fx_run_interp},
    {"checked", fx_run_checked},
};
#define FX_NENGINES 2

static char fx_logbuf[4096];

static inline int fx_load(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
			  struct bpfvm_map *const *maps, size_t nmaps, struct bpfvm_prog **out)
{
	fx_logbuf[0] = '\0';
	struct bpfvm_log log = {.level = 1, .buf = fx_logbuf, .size = sizeof(fx_logbuf)};
	struct bpfvm_load_opts opts = {.no_verify = true, .log = &log};
	return bpfvm_prog_load(reg, insns, n, maps, nmaps, &opts, out);
}

static inline struct bpfvm_prog *fx_load_ok(struct bpfvm_registry *reg,
					    const struct bpfvm_insn *insns, size_t n,
					    struct bpfvm_map *const *maps, size_t nmaps)
{
	struct bpfvm_prog *prog = NULL;
	int err = fx_load(reg, insns, n, maps, nmaps, &prog);
	ck_assert_msg(err == 0, "load %d: %s", err, fx_logbuf);
	return prog;
}

static inline struct bpfvm_map *fx_map(struct bpfvm_registry *reg, uint32_t type, uint32_t ksz,
				       uint32_t vsz, uint32_t max)
{
	struct bpfvm_map_def def = {
	    .type = type, .key_size = ksz, .value_size = vsz, .max_entries = max};
	struct bpfvm_map *map = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &def, &map), 0);
	return map;
}

#endif
