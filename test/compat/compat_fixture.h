/* The fixture the compat tests on the socket double share: a registry, a
 * cgroup tree and a hooks instance; programs opened from the build's
 * test/compat/NAME.o and loaded strict into either engine; a refused program
 * checked for the verifier's reason. Included once per test program. */
#ifndef SKOPS_TEST_COMPAT_FIXTURE_H
#define SKOPS_TEST_COMPAT_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "check_main.h"
#include "hooks.h"

static struct bpfvm_registry *reg;
static struct cg_tree *tree;
static struct cg_node *root;
static struct hooks *hk;
static char logbuf[16384];

static void setup(void)
{
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 1};

	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &tree), 0);
	cfg.tree = tree;
	cfg.reg = reg;
	ck_assert_int_eq(hooks_create(&cfg, &hk), 0);
	ck_assert_int_eq(cg_lookup(tree, "/", false, &root), 0);
}

static void teardown(void)
{
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
}

static void obj_path(const char *name, char *buf, size_t size)
{
	const char *b = getenv("SKOPS_BUILD");
	ck_assert_msg(b != NULL, "SKOPS_BUILD unset: run through meson test");
	snprintf(buf, size, "%s/test/compat/%s.o", b, name);
}

/* Open and load the object's program; returns the load's error. */
static int load(const char *name, bool jit, struct bpfvm_obj **obj, struct bpfvm_prog **prog)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof(logbuf)};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .strict = true, .jit = jit, .log = &log};
	char path[512];
	int err;

	obj_path(name, path, sizeof(path));
	logbuf[0] = '\0';
	*prog = NULL;
	err = bpfvm_obj_open(reg, path, NULL, 0, &log, obj);
	ck_assert_msg(err == 0, "%s: open: %d: %s", name, err, logbuf);
	return bpfvm_obj_load_prog(*obj, NULL, &o, prog);
}

/* The program is refused, and the verifier's log says why. */
static inline void assert_refused(const char *name, const char *reason)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	int err = load(name, false, &obj, &prog);

	ck_assert_msg(err < 0, "%s loaded", name);
	ck_assert_msg(strstr(logbuf, reason), "%s: want '%s' in:\n%s", name, reason, logbuf);
	bpfvm_obj_close(obj);
}

#endif
