/* Shared runner of the program tests (see hk_run.h). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hk_run.h"

void hkr_env_init(struct hkr_env *env)
{
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 1};

	memset(env, 0, sizeof(*env));
	ck_assert_int_eq(bpfvm_registry_create(&env->reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &env->tree), 0);
	cfg.tree = env->tree;
	cfg.reg = env->reg;
	ck_assert_int_eq(hooks_create(&cfg, &env->hk), 0);
	ck_assert_int_eq(cg_lookup(env->tree, "/", false, &env->root), 0);
}

void hkr_env_fini(struct hkr_env *env)
{
	cg_node_put(env->root);
	hooks_destroy(env->hk);
	cg_tree_destroy(env->tree);
	bpfvm_registry_destroy(env->reg);
}

struct bpfvm_prog *hkr_load(struct hkr_env *env, const char *path, bool strict,
			    struct bpfvm_obj **obj, int *err)
{
	struct bpfvm_log log = {.level = 1, .buf = env->log, .size = sizeof(env->log)};
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type, .strict = strict, .log = &log};
	struct bpfvm_prog *p = NULL;

	env->log[0] = '\0';
	*obj = NULL;
	*err = bpfvm_obj_open(env->reg, path, NULL, 0, &log, obj);
	if (*err < 0)
		return NULL;
	*err = bpfvm_obj_load_prog(*obj, NULL, &o, &p);
	return *err < 0 ? NULL : p;
}

bool hkr_port(const struct hkr_scen *sc)
{
	return sc->lport == 55601 || sc->rport == 55601;
}

/* The double's addresses (hk_double.c): near shares the /52, far differs in
 * the first word; IPv4 sockets have no IPv6 words. */
bool hkr_same44(const struct hkr_scen *sc)
{
	return sc->family == 10 && sc->near;
}

bool hkr_same52(const struct hkr_scen *sc)
{
	return sc->family == 10 && sc->near;
}

static struct hkd_call *hkr_add(struct hkr_expect *e, int level, int opt)
{
	struct hkd_call *c;

	ck_assert_uint_lt(e->ncalls, HKD_MAX_CALLS);
	c = &e->calls[e->ncalls++];
	memset(c, 0, sizeof(*c));
	c->level = level;
	c->optname = opt;
	return c;
}

int hkr_sso_int(const struct hkr_scen *sc, struct hkr_expect *e, int level, int opt, int32_t val)
{
	struct hkd_call *c;

	if (!sc->fullsock)
		return -EINVAL; /* hooks refuses request sockets */
	if (level == 6 && (opt == 1001 || opt == 1002) && val <= 0)
		return -EINVAL;
	c = hkr_add(e, level, opt);
	c->val = val;
	c->err = 0; /* the double's sockets have sent no data yet */
	return c->err;
}

int hkr_sso_str(const struct hkr_scen *sc, struct hkr_expect *e, int level, int opt, const char *s)
{
	struct hkd_call *c;

	if (!sc->fullsock)
		return -EINVAL;
	c = hkr_add(e, level, opt);
	strncpy(c->str, s, sizeof(c->str) - 1);
	c->err = (!strcmp(s, "reno") || !strcmp(s, "cubic") || !strcmp(s, "dctcp")) ? 0 : -ENOENT;
	return c->err;
}

static void hkr_run_one(struct hkr_env *env, const struct hkr_scen *sc, hkr_model_fn model,
			const char *name)
{
	static const uint32_t args[3] = {1, 2, 3};
	struct hkr_expect e = {0};
	struct hkd_sock d;
	char where[160];
	int r;

	snprintf(where, sizeof where, "%s: op %u fam %u ports %u/%u near %d full %d", name, sc->op,
		 sc->family, sc->lport, sc->rport, sc->near, sc->fullsock);
	hkd_init(&d, sc->family, sc->lport, sc->rport, sc->near);
	hooks_sock_init(&d.hs, env->hk, &hkd_ops, env->root, sc->fullsock);
	r = hooks_call(&d.hs, sc->op, args, sc->op >= 8 ? 3 : 0);
	model(sc, &e);
	ck_assert_msg(r == e.ret, "%s: reply %d, want %d", where, r, e.ret);
	ck_assert_msg(d.ncalls == e.ncalls, "%s: %u setsockopt calls, want %u", where, d.ncalls,
		      e.ncalls);
	for (unsigned i = 0; i < e.ncalls; i++) {
		const struct hkd_call *g = &d.calls[i], *w = &e.calls[i];
		ck_assert_msg(g->level == w->level && g->optname == w->optname &&
				  g->val == w->val && !strcmp(g->str, w->str) && g->err == w->err,
			      "%s: call %u: got %d/%d %d '%s' -> %d, want %d/%d %d '%s' -> %d",
			      where, i, g->level, g->optname, g->val, g->str, g->err, w->level,
			      w->optname, w->val, w->str, w->err);
	}
	hooks_sock_fini(&d.hs);
}

void hkr_check_matrix(struct hkr_env *env, struct bpfvm_prog *prog, hkr_model_fn model,
		      const char *name)
{
	static const uint16_t ports[3][2] = {{55601, 40000}, {40000, 55601}, {40000, 8080}};
	static const uint32_t fams[2] = {2, 10};
	unsigned runs = 0;

	ck_assert_int_eq(
	    cg_attach(env->tree, env->root, CG_ATTACH_SOCK_OPS, prog, CG_F_ALLOW_MULTI, NULL), 0);
	for (int pi = 0; pi < 3; pi++)
		for (int fi = 0; fi < 2; fi++)
			for (int near = 0; near < 2; near++)
				for (uint32_t op = 0; op <= 12; op++)
					for (int full = 0; full < 2; full++) {
						struct hkr_scen sc = {fams[fi],	    ports[pi][0],
								      ports[pi][1], near,
								      full,	    op};
						hkr_run_one(env, &sc, model, name);
						runs++;
					}
	ck_assert_uint_eq(runs, 3 * 2 * 2 * 13 * 2);
	ck_assert_int_eq(cg_detach(env->tree, env->root, CG_ATTACH_SOCK_OPS, prog), 0);
	hooks_quiescent(env->hk);
}
