/* skops-demo: loads the example sock_ops programs (hooks/progs) and, when the
 * seed patches are there, the Linux 4.13 seed samples; runs each alone on a
 * few in-memory sockets (ports, families, address prefixes) for the ops the
 * stack calls at connection set-up, and prints replies and setsockopt effects.
 * Usage: skops-demo [PROGS_DIR]   (default: $SKOPS_BUILD/hooks/progs, else the
 * build dir this binary sits in). Seeds: $SKOPS_SEEDS, else the configured dir. */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "hk_double.h"
#include "hooks.h"

struct demo_env {
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hk;
	struct cg_node *root;
};

struct demo_scen {
	const char *label;
	uint32_t family;
	uint16_t lport, rport;
	bool near;
};

static const struct demo_scen scens[] = {
    {"v6 near :55601", 10, 40000, 55601, true},
    {"v6 far :55601", 10, 40000, 55601, false},
    {"v4 :55601", 2, 40000, 55601, true},
    {"v6 near :8080", 10, 40000, 8080, true},
};
#define NSCENS (sizeof(scens) / sizeof(scens[0]))

static const struct {
	uint32_t op;
	const char *name;
	bool fullsock;
} ops[] = {
    {3, "TCP_CONNECT_CB", true},
    {2, "RWND_INIT", true},
    {1, "TIMEOUT_INIT", true},
    {6, "NEEDS_ECN", true},
    {4, "ACTIVE_ESTABLISHED_CB", true},
    {5, "PASSIVE_ESTABLISHED_CB", true},
    {1, "TIMEOUT_INIT (request)", false},
    {11, "TCP_LISTEN_CB", true},
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static int demo_env_init(struct demo_env *env)
{
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 1};
	int err;

	memset(env, 0, sizeof(*env));
	if ((err = bpfvm_registry_create(&env->reg)) < 0 ||
	    (err = cg_tree_create(&hooks_cg_prog_ops, 1, &env->tree)) < 0)
		return err;
	cfg.tree = env->tree;
	cfg.reg = env->reg;
	if ((err = hooks_create(&cfg, &env->hk)) < 0)
		return err;
	return cg_lookup(env->tree, "/", false, &env->root);
}

static void demo_env_fini(struct demo_env *env)
{
	if (env->root)
		cg_node_put(env->root);
	if (env->hk)
		hooks_destroy(env->hk);
	if (env->tree)
		cg_tree_destroy(env->tree);
	if (env->reg)
		bpfvm_registry_destroy(env->reg);
}

static void effect_str(const struct hkd_call *c, char *buf, size_t size)
{
	const char *what = NULL;

	if (c->level == 1 && c->optname == 7)
		what = "sndbuf";
	else if (c->level == 1 && c->optname == 8)
		what = "rcvbuf";
	else if (c->level == 6 && c->optname == 1001)
		what = "iw";
	else if (c->level == 6 && c->optname == 1002)
		what = "clamp";
	if (c->level == 6 && c->optname == 13)
		snprintf(buf, size, "cc=%s", c->str);
	else if (what)
		snprintf(buf, size, "%s=%d", what, c->val);
	else
		snprintf(buf, size, "%d/%d=%d", c->level, c->optname, c->val);
	if (c->err) {
		size_t n = strlen(buf);
		snprintf(buf + n, size - n, "(%d)", c->err);
	}
}

static void cell(struct demo_env *env, const struct demo_scen *s, uint32_t op, bool full, char *buf,
		 size_t size)
{
	struct hkd_sock d;
	int r;
	size_t n;

	hkd_init(&d, s->family, s->lport, s->rport, s->near);
	hooks_sock_init(&d.hs, env->hk, &hkd_ops, env->root, full);
	r = hooks_call(&d.hs, op, NULL, 0);
	n = (size_t)snprintf(buf, size, "%s", r == -1 ? "-" : "");
	if (r != -1)
		n = (size_t)snprintf(buf, size, "%d", r);
	for (unsigned i = 0; i < d.ncalls && n < size; i++) {
		char e[48];
		effect_str(&d.calls[i], e, sizeof e);
		n += (size_t)snprintf(buf + n, size - n, " %s", e);
	}
	hooks_sock_fini(&d.hs);
}

static int demo_prog(struct demo_env *env, const char *path)
{
	char logbuf[4096] = "";
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type, .log = &log};
	struct bpfvm_obj *obj = NULL, *sobj = NULL;
	struct bpfvm_prog *p = NULL, *sp = NULL;
	const char *strict;
	int err;

	printf("\n== %s\n", path);
	err = bpfvm_obj_open(env->reg, path, NULL, 0, &log, &obj);
	if (err == 0)
		err = bpfvm_obj_load_prog(obj, NULL, &o, &p);
	if (err < 0) {
		printf("   not loaded (%d): %s\n", err, logbuf[0] ? logbuf : "(no log)");
		if (obj)
			bpfvm_obj_close(obj);
		return err;
	}
	o.strict = true;
	logbuf[0] = '\0';
	log.used = 0;
	if (bpfvm_obj_open(env->reg, path, NULL, 0, &log, &sobj) == 0 &&
	    bpfvm_obj_load_prog(sobj, NULL, &o, &sp) == 0)
		strict = "accepted";
	else
		strict = "rejected (R0 outside [0, 1])";
	if (sp)
		bpfvm_prog_put(sp);
	if (sobj)
		bpfvm_obj_close(sobj);
	printf("   loaded, verified (compatibility mode); strict mode: %s\n", strict);
	err = cg_attach(env->tree, env->root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL);
	if (err < 0) {
		printf("   attach failed (%d)\n", err);
		goto out;
	}
	printf("   %-24s", "op \\ socket");
	for (size_t s = 0; s < NSCENS; s++)
		printf(" | %-32s", scens[s].label);
	printf("\n");
	for (size_t i = 0; i < NOPS; i++) {
		printf("   %-24s", ops[i].name);
		for (size_t s = 0; s < NSCENS; s++) {
			char c[128];
			cell(env, &scens[s], ops[i].op, ops[i].fullsock, c, sizeof c);
			printf(" | %-32s", c);
		}
		printf("\n");
	}
	cg_detach(env->tree, env->root, CG_ATTACH_SOCK_OPS, p);
	hooks_quiescent(env->hk);
out:
	bpfvm_prog_put(p);
	bpfvm_obj_close(obj);
	return err;
}

static int demo_dir(struct demo_env *env, const char *dir)
{
	char pat[PATH_MAX];
	glob_t g;
	int bad = 0;

	snprintf(pat, sizeof pat, "%s/*.o", dir);
	if (glob(pat, 0, NULL, &g) != 0) {
		printf("\n(no programs in %s)\n", dir);
		return -ENOENT;
	}
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (demo_prog(env, g.gl_pathv[i]) < 0)
			bad++;
	globfree(&g);
	return bad ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	char progs[PATH_MAX], exe[PATH_MAX], seedobj[] = "/tmp/skops-demo-XXXXXX";
	const char *seeds = getenv("SKOPS_SEEDS");
	struct demo_env env;
	struct stat st;
	int rc = 0;

	if (argc > 1) {
		snprintf(progs, sizeof progs, "%s", argv[1]);
	} else if (getenv("SKOPS_BUILD")) {
		snprintf(progs, sizeof progs, "%s/hooks/progs", getenv("SKOPS_BUILD"));
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		snprintf(progs, sizeof progs, "%s/../hooks/progs", dirname(exe));
	}
	if (!seeds || !*seeds)
		seeds = SKOPS_DEMO_SEEDS;

	printf("skops-demo: sock_ops programs on in-memory sockets\n");
	printf("cells: reply ('-' = -1, the stack keeps its default) and setsockopt effects\n");
	printf("(err) after an effect is the errno the socket returned\n");
	if (demo_env_init(&env) < 0) {
		fprintf(stderr, "skops-demo: set-up failed\n");
		demo_env_fini(&env);
		return 1;
	}
	printf("\n##### hooks/progs (%s)\n", progs);
	if (demo_dir(&env, progs) < 0)
		rc = 1;
	if (stat(seeds, &st) == 0 && mkdtemp(seedobj)) {
		char cmd[PATH_MAX * 3 + 64];
		printf("\n##### Linux 4.13 seed samples (%s)\n", seeds);
		snprintf(cmd, sizeof cmd,
			 "sh '%s/test/unit/hooks/build_seeds.sh' '%s' '%s' '%s' >/dev/null",
			 SKOPS_DEMO_SRC, seeds, SKOPS_DEMO_SDK, seedobj);
		if (system(cmd) != 0) {
			printf("(building the seed samples failed)\n");
			rc = 1;
		} else if (demo_dir(&env, seedobj) < 0) {
			rc = 1;
		}
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", seedobj);
		if (system(cmd) != 0)
			rc = 1;
	} else {
		printf("\n(seed patches not found at %s: seed samples not shown)\n", seeds);
	}
	demo_env_fini(&env);
	return rc;
}
