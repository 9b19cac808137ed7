/* Every case of isa_cases.h on every engine of the table below. Set
 * SKOPS_ISA_ENGINE=<name> to run one engine only (an unknown name fails). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "isa_cases.h"

static uint64_t run_interp(const struct bpfvm_prog *prog, void *mem, size_t len, bool *stopped)
{
	*stopped = false;
	return bpfvm_prog_run_interp(prog, mem, len);
}

static uint64_t run_checked(const struct bpfvm_prog *prog, void *mem, size_t len, bool *stopped)
{
	struct bpfvm_fault f;
	uint64_t r0 = bpfvm_interp_run_checked(prog, mem, len, &f);
	*stopped = f.hit;
	return r0;
}

static uint64_t run_prog(const struct bpfvm_prog *prog, void *mem, size_t len, bool *stopped)
{
	*stopped = false;
	return bpfvm_prog_run(prog, mem, len);
}

/* Engines: the JIT engineer adds {"jit", true, true, run_prog} here. */
static const struct isa_engine engines[] = {
    {"interp", false, false, run_interp},
    {"checked", false, false, run_checked},
    {"prog_run", false, false, run_prog},
    {"jit", true, true, run_prog},
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

static bool engine_selected(const struct isa_engine *e)
{
	const char *only = getenv("SKOPS_ISA_ENGINE");
	return !only || !*only || strcmp(only, e->name) == 0;
}

START_TEST(isa_engine_name_known)
{
	const char *only = getenv("SKOPS_ISA_ENGINE");
	if (!only || !*only)
		return;
	bool found = false;
	for (size_t i = 0; i < NENGINES; i++)
		found |= strcmp(engines[i].name, only) == 0;
	ck_assert_msg(found, "SKOPS_ISA_ENGINE=%s names no engine", only);
}
END_TEST

START_TEST(isa_case)
{
	const struct isa_engine *e = &engines[_i / ISA_NCASES];
	const struct isa_case *c = &isa_cases[_i % ISA_NCASES];
	if (!engine_selected(e))
		return;
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	char buf[512] = "";
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof(buf)};
	struct bpfvm_load_opts opts = {.no_verify = true, .jit = e->load_jit, .log = &log};
	struct bpfvm_prog *prog;
	int err = bpfvm_prog_load(reg, c->insns, c->n, NULL, 0, &opts, &prog);
	ck_assert_msg(err == 0, "%s/%s: load %d: %s", e->name, c->name, err, buf);
	if (e->need_jit_image)
		ck_assert_msg(bpfvm_prog_jited(prog, NULL), "%s/%s: no JIT image: %s", e->name,
			      c->name, buf);
	/* a fresh 8-aligned copy per run, as the conformance plugin does */
	uint64_t *mem = calloc(1, c->memlen + 8);
	ck_assert_ptr_nonnull(mem);
	if (c->memlen)
		memcpy(mem, c->mem, c->memlen);
	bool stopped;
	uint64_t r0 = e->run(prog, c->memlen ? mem : NULL, c->memlen, &stopped);
	ck_assert_msg(!stopped, "%s/%s: run stopped (fault)", e->name, c->name);
	ck_assert_msg(r0 == c->expect, "%s/%s: r0 0x%llx, expected 0x%llx", e->name, c->name,
		      (unsigned long long)r0, (unsigned long long)c->expect);
	free(mem);
	bpfvm_prog_put(prog);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *isa_suite(void)
{
	Suite *s = suite_create("bpfvm_isa");
	TCase *tc = tcase_create("isa");
	tcase_add_test(tc, isa_engine_name_known);
	tcase_add_loop_test(tc, isa_case, 0, (int)(NENGINES * ISA_NCASES));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(isa_suite)
