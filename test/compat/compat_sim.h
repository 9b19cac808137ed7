/* Set-up shared by the compat tests that run programs on two simulated
 * stacks (test/sim/sim_harness.h): a registry, a cgroup tree and the hooks
 * the stacks call, and objects from SKOPS_BUILD/test/compat loaded strict
 * and attached as sock_ops at a cgroup path. Set-up failures print
 * "TEST: FAIL: ..." and end the program: nothing after them could run. */
#ifndef SKOPS_TEST_COMPAT_SIM_H
#define SKOPS_TEST_COMPAT_SIM_H

#include "../sim/sim_harness.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "hooks.h"

struct compat_env {
	const char *test;
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hk;
};

static inline void compat_env_init(struct compat_env *e, const char *test)
{
	memset(e, 0, sizeof(*e));
	e->test = test;
	struct hooks_config hc = {.netns_cookie = 1};
	if (bpfvm_registry_create(&e->reg) < 0 ||
	    cg_tree_create(&hooks_cg_prog_ops, 2, &e->tree) < 0 ||
	    (hc.tree = e->tree, hc.reg = e->reg, hooks_create(&hc, &e->hk) < 0)) {
		printf("%s: FAIL: registry, cgroup tree or hooks set-up\n", test);
		exit(EXIT_FAILURE);
	}
}

/* Loads test/compat/NAME.o and attaches its program at cgroup path cg
 * (created if missing); the object stays open for its maps. */
static inline struct bpfvm_obj *compat_attach(struct compat_env *e, const char *name,
					      const char *cg)
{
	char log[8192] = "", path[512];
	const char *b = getenv("SKOPS_BUILD");
	struct bpfvm_log bl = {.level = 1, .buf = log, .size = sizeof(log)};
	struct bpfvm_load_opts lo = {.type = &hooks_sock_ops_type, .strict = true, .log = &bl};
	struct bpfvm_obj *obj = NULL;
	struct bpfvm_prog *prog = NULL;
	struct cg_node *node = NULL;
	if (!b) {
		printf("%s: FAIL: SKOPS_BUILD unset (run through meson test)\n", e->test);
		exit(EXIT_FAILURE);
	}
	snprintf(path, sizeof(path), "%s/test/compat/%s.o", b, name);
	if (bpfvm_obj_open(e->reg, path, NULL, 0, &bl, &obj) < 0 ||
	    bpfvm_obj_load_prog(obj, NULL, &lo, &prog) < 0 ||
	    cg_lookup(e->tree, cg, true, &node) < 0 ||
	    cg_attach(e->tree, node, CG_ATTACH_SOCK_OPS, prog, 0, NULL) < 0) {
		printf("%s: FAIL: load/attach %s: %s\n", e->test, path, log);
		exit(EXIT_FAILURE);
	}
	bpfvm_prog_put(prog);
	cg_node_put(node);
	return obj;
}

static inline void compat_env_fini(struct compat_env *e)
{
	hooks_destroy(e->hk);
	cg_tree_destroy(e->tree);
	bpfvm_registry_destroy(e->reg);
}

#endif
