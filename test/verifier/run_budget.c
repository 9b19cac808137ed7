/* run_budget OBJ: issue 25 class 8 at run time. The corpus program
 * accept_nested_loop.o (bpf_loop in a bpf_loop callback, both at the
 * maximum count: 2^46 callbacks) is accepted by the verifier; here it runs
 * as sock_ops on the interpreter and on the JIT and must be stopped by the
 * run-time budget quickly, counted, with result 0 and its reply unwritten.
 * Exit 0 when both engines stopped it, 1 otherwise. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bpfvm.h"
#include "hooks.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(struct bpfvm_obj *obj, bool jit, uint64_t budget)
{
	static char log[16384];
	struct bpfvm_log lg = {.level = 1, .buf = log, .size = sizeof log};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .jit = jit, .run_budget = budget, .log = &lg};
	struct bpfvm_prog *p = NULL;
	const char *eng = jit ? "jit" : "interp";
	if (bpfvm_obj_load_prog(obj, NULL, &o, &p)) {
		printf("FAIL %s: not accepted:\n%s", eng, log);
		return 1;
	}
	/* bpf_sock_ops: op 0, reply at 4; 216 bytes */
	_Alignas(8) uint8_t ctx[216] = {0};
	uint64_t r0 = 9;
	double t0 = now_s();
	int err = bpfvm_prog_exec(p, ctx, sizeof ctx, &r0);
	double s = now_s() - t0;
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	uint32_t reply;
	memcpy(&reply, ctx + 4, 4);
	int bad = err != -ETIME || r0 != 0 || info.budget_stops != 1 || reply != 0 || s > 3.0;
	printf("%s %s: budget %llu: err %d r0 %llu stops %llu reply %u in %.3f s\n",
	       bad ? "FAIL" : "ok", eng, (unsigned long long)info.run_budget, err,
	       (unsigned long long)r0, (unsigned long long)info.budget_stops, reply, s);
	bpfvm_prog_put(p);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: run_budget OBJ\n");
		return 2;
	}
	struct bpfvm_registry *reg;
	struct bpfvm_obj *obj = NULL;
	static char log[4096];
	struct bpfvm_log lg = {.level = 1, .buf = log, .size = sizeof log};
	if (bpfvm_registry_create(&reg) || bpfvm_obj_open(reg, argv[1], NULL, 0, &lg, &obj)) {
		printf("FAIL cannot open %s: %s\n", argv[1], log);
		return 1;
	}
	/* the default budget on the JIT; the interpreter a smaller one to stay
	 * quick under sanitizers */
	int bad = run(obj, true, 0) + run(obj, false, 1u << 20);
	if (bpfvm_registry_budget_stops(reg) != 2) {
		printf("FAIL registry counted %llu stops, want 2\n",
		       (unsigned long long)bpfvm_registry_budget_stops(reg));
		bad = 1;
	}
	bpfvm_obj_close(obj);
	bpfvm_registry_destroy(reg);
	return bad ? 1 : 0;
}
