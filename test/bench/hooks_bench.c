/* hooks_bench: cost of one hooks_call (context set-up, every effective
 * program, reply) for 0, 1 and 8 effective programs, interpreter and JIT.
 * The program is hooks/progs/syn_rto.o, a seed-style branchy policy (port,
 * family, address-prefix and op tests) answering TIMEOUT_INIT. Prints JSON.
 * Usage: hooks_bench [PROG.o] [calls] [interp|jit] [nprogs]
 *   (default: $SKOPS_BUILD/hooks/progs/syn_rto.o, 2000000 calls, both engines,
 *   0, 1 and 8 programs; one count alone is what a profile wants) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "hk_double.h"
#include "hooks.h"

#define BENCH_MAX_PROGS 8

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID,
		      &ts); /* on a shared machine, wall time mostly measures other processes */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct bench_result {
	double ns_per_call;
	int reply;
	bool jited;
};

static int bench_one(const char *path, unsigned nprogs, bool jit, uint64_t calls,
		     struct bench_result *res)
{
	struct bpfvm_registry *reg = NULL;
	struct cg_tree *tree = NULL;
	struct hooks *hk = NULL;
	struct cg_node *root = NULL;
	struct bpfvm_obj *objs[BENCH_MAX_PROGS] = {0};
	struct hkd_sock d;
	char logbuf[4096] = "";
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	int err;

	memset(res, 0, sizeof(*res));
	if ((err = bpfvm_registry_create(&reg)) < 0 ||
	    (err = cg_tree_create(&hooks_cg_prog_ops, 1, &tree)) < 0)
		goto out;
	struct hooks_config cfg = {.tree = tree, .reg = reg, .lcore = 0};
	if ((err = hooks_create(&cfg, &hk)) < 0 || (err = cg_lookup(tree, "/", false, &root)) < 0)
		goto out;
	res->jited = nprogs > 0;
	for (unsigned i = 0; i < nprogs; i++) {
		struct bpfvm_load_opts o = {
		    .type = &hooks_sock_ops_type, .strict = true, .jit = jit, .log = &log};
		struct bpfvm_prog *p;
		size_t len;
		if ((err = bpfvm_obj_open(reg, path, NULL, 0, &log, &objs[i])) < 0 ||
		    (err = bpfvm_obj_load_prog(objs[i], NULL, &o, &p)) < 0) {
			fprintf(stderr, "hooks_bench: %s: %d: %s\n", path, err, logbuf);
			goto out;
		}
		res->jited = res->jited && bpfvm_prog_jited(p, &len) != NULL;
		err = cg_attach(tree, root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL);
		bpfvm_prog_put(p);
		if (err < 0)
			goto out;
	}
	/* the policy's matching case: test port, IPv6 peers in one /44 */
	hkd_init(&d, 10, 40000, 55601, true);
	hooks_sock_init(&d.hs, hk, &hkd_ops, root, true);
	for (uint64_t i = 0; i < calls / 10; i++) /* warm up */
		res->reply = hooks_call(&d.hs, 1, NULL, 0);
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < calls; i++)
		res->reply = hooks_call(&d.hs, 1, NULL, 0);
	res->ns_per_call = (double)(now_ns() - t0) / (double)calls;
	hooks_sock_fini(&d.hs);
	hooks_quiescent(hk);
	err = 0;
out:
	if (root)
		cg_node_put(root);
	if (hk)
		hooks_destroy(hk);
	if (tree)
		cg_tree_destroy(tree);
	for (unsigned i = 0; i < BENCH_MAX_PROGS; i++)
		if (objs[i])
			bpfvm_obj_close(objs[i]);
	if (reg)
		bpfvm_registry_destroy(reg);
	return err;
}

int main(int argc, char **argv)
{
	static const unsigned all_counts[] = {0, 1, 8};
	const unsigned *counts = all_counts;
	size_t ncounts = sizeof all_counts / sizeof all_counts[0];
	unsigned one_count;
	char defpath[512];
	const char *path = argc > 1 && argv[1][0] ? argv[1] : NULL;
	uint64_t calls = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
	bool first = true;

	if (!path) {
		const char *b = getenv("SKOPS_BUILD");
		snprintf(defpath, sizeof defpath, "%s/hooks/progs/syn_rto.o", b ? b : "build");
		path = defpath;
	}
	if (calls == 0 || calls > 1000000000ull) {
		fprintf(stderr, "hooks_bench: calls must be 1..1e9\n");
		return 2;
	}
	int e_lo = 0, e_hi = 1; /* 0 interpreter, 1 JIT */
	if (argc > 3) {
		if (strcmp(argv[3], "interp") == 0)
			e_hi = 0;
		else if (strcmp(argv[3], "jit") == 0)
			e_lo = 1;
		else {
			fprintf(stderr, "hooks_bench: engine '%s': want interp or jit\n", argv[3]);
			return 2;
		}
	}
	if (argc > 4) {
		char *end;
		unsigned long n = strtoul(argv[4], &end, 10);
		if (*end || end == argv[4] || n > BENCH_MAX_PROGS) {
			fprintf(stderr, "hooks_bench: nprogs '%s': want 0..%d\n", argv[4],
				BENCH_MAX_PROGS);
			return 2;
		}
		one_count = (unsigned)n;
		counts = &one_count;
		ncounts = 1;
	}
	printf("{\"bench\": \"hooks_call\", \"program\": \"%s\", \"calls\": %llu, \"results\": [",
	       path, (unsigned long long)calls);
	for (int e = e_lo; e <= e_hi; e++)
		for (size_t i = 0; i < ncounts; i++) {
			struct bench_result r;
			if (bench_one(path, counts[i], e == 1, calls, &r) < 0)
				return 1;
			printf("%s\n  {\"engine\": \"%s\", \"progs\": %u, \"jited\": %s, "
			       "\"reply\": %d, \"ns_per_call\": %.2f}",
			       first ? "" : ",", e ? "jit" : "interp", counts[i],
			       r.jited ? "true" : "false", r.reply, r.ns_per_call);
			first = false;
		}
	printf("\n]}\n");
	return 0;
}
