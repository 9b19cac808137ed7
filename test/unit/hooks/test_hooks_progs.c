/* hooks/progs: the project's example programs (built by meson into
 * $SKOPS_BUILD/hooks/progs) load in strict mode and, on the socket double,
 * give the replies and setsockopt calls of their policy for every op, port,
 * family and prefix; op_count's map and cb_logger's callbacks, log and
 * ringbuf records are checked on a connection's life cycle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "hk_run.h"

static void prog_path(const char *name, char *buf, size_t size)
{
	const char *b = getenv("SKOPS_BUILD");
	ck_assert_msg(b != NULL, "SKOPS_BUILD unset");
	snprintf(buf, size, "%s/hooks/progs/%s.o", b, name);
}

static void model_syn_rto(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = (sc->op == 1 && hkr_port(sc) && hkr_same44(sc)) ? 10 : -1;
}

static void model_rwnd_init(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = (sc->op == 2 && sc->family == 10 && hkr_port(sc) && !hkr_same44(sc)) ? 40 : -1;
}

static void model_bufs(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (hkr_port(sc) && (sc->op == 4 || sc->op == 5)) {
		int snd = hkr_sso_int(sc, e, 1, 7, 1500000);
		e->ret = snd * 100 + hkr_sso_int(sc, e, 1, 8, 1500000);
	}
}

static void model_cong_ecn(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (!hkr_port(sc) || !hkr_same44(sc))
		return;
	if (sc->op == 6)
		e->ret = 1;
	else if (sc->op == 4 || sc->op == 5)
		e->ret = hkr_sso_str(sc, e, 6, 13, "dctcp");
}

static void model_init_cwnd(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (sc->op == 4 && hkr_port(sc))
		e->ret = hkr_sso_int(sc, e, 6, 1001, 40);
}

static void model_cwnd_clamp(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if ((sc->op == 4 || sc->op == 5) && hkr_port(sc) && hkr_same44(sc))
		e->ret = hkr_sso_int(sc, e, 6, 1002, 100);
}

static void model_none(const struct hkr_scen *sc, struct hkr_expect *e)
{
	(void)sc;
	e->ret = -1;
}

static const struct {
	const char *name;
	hkr_model_fn model;
} progs[] = {
    {"syn_rto", model_syn_rto},	  {"rwnd_init", model_rwnd_init}, {"bufs", model_bufs},
    {"cong_ecn", model_cong_ecn}, {"init_cwnd", model_init_cwnd}, {"cwnd_clamp", model_cwnd_clamp},
    {"op_count", model_none},	  {"cb_logger", model_none},
};
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

START_TEST(prog_matrix)
{
	struct hkr_env env;
	struct bpfvm_obj *obj;
	struct bpfvm_prog *p;
	char path[512];
	int err;

	hkr_env_init(&env);
	prog_path(progs[_i].name, path, sizeof path);
	p = hkr_load(&env, path, true, &obj, &err);
	ck_assert_msg(p != NULL, "%s: strict load %d: %s", path, err, env.log);
	hkr_check_matrix(&env, p, progs[_i].model, progs[_i].name);
	bpfvm_prog_put(p);
	bpfvm_obj_close(obj);
	hkr_env_fini(&env);
}
END_TEST

static struct bpfvm_prog *attach_prog(struct hkr_env *env, const char *name, struct bpfvm_obj **obj)
{
	char path[512];
	int err;
	struct bpfvm_prog *p;

	prog_path(name, path, sizeof path);
	p = hkr_load(env, path, true, obj, &err);
	ck_assert_msg(p != NULL, "%s: load %d: %s", path, err, env->log);
	ck_assert_int_eq(
	    cg_attach(env->tree, env->root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL), 0);
	bpfvm_prog_put(p);
	return p;
}

/* An active open and close as the stack would call it. */
static void life_cycle(struct hooks_sock *hs)
{
	hooks_connect_cb(hs);
	(void)hooks_rwnd_init(hs);
	(void)hooks_timeout_init(hs);
	(void)hooks_needs_ecn(hs);
	hooks_active_established_cb(hs);
	hooks_rto_cb(hs, 1, 200, 0);
	hooks_retrans_cb(hs, 1000, 1, 0);
	hooks_state_cb(hs, HOOKS_TCP_ESTABLISHED, HOOKS_TCP_FIN_WAIT1);
}

START_TEST(op_count_map)
{
	struct hkr_env env;
	struct bpfvm_obj *obj;
	struct hkd_sock a, b;

	hkr_env_init(&env);
	attach_prog(&env, "op_count", &obj);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "op_count_map");
	ck_assert_ptr_nonnull(m);
	hkd_init(&a, 10, 40000, 55601, true);
	hooks_sock_init(&a.hs, env.hk, &hkd_ops, env.root, true);
	hkd_init(&b, 2, 40001, 80, false);
	hooks_sock_init(&b.hs, env.hk, &hkd_ops, env.root, true);
	life_cycle(&a.hs);
	a.hs.cb_flags = HOOKS_CB_ALL;
	life_cycle(&a.hs);
	hooks_listen_cb(&b.hs);

	const uint64_t *ca = bpfvm_map_lookup(m, &a.hs.cookie);
	const uint64_t *cb = bpfvm_map_lookup(m, &b.hs.cookie);
	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	/* ops 3, 2, 1, 6, 4 twice; 8, 9, 10 only with the flags on */
	static const uint64_t want_a[16] = {
	    [1] = 2, [2] = 2, [3] = 2, [4] = 2, [6] = 2, [8] = 1, [9] = 1, [10] = 1};
	for (int i = 0; i < 16; i++)
		ck_assert_msg(ca[i] == want_a[i], "op %d: %llu, want %llu", i,
			      (unsigned long long)ca[i], (unsigned long long)want_a[i]);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(cb[i], i == 11 ? 1 : 0);
	hooks_sock_fini(&a.hs);
	hooks_sock_fini(&b.hs);
	bpfvm_obj_close(obj);
	hkr_env_fini(&env);
}
END_TEST

struct cb_event {
	uint64_t cookie;
	uint32_t op;
	uint32_t args[3];
};

START_TEST(cb_logger_events)
{
	struct hkr_env env;
	struct bpfvm_obj *obj;
	struct hkd_sock a;
	struct cb_event ev;
	char text[1024];

	hkr_env_init(&env);
	attach_prog(&env, "cb_logger", &obj);
	struct bpfvm_map *rb = bpfvm_obj_map_by_name(obj, "cb_events");
	ck_assert_ptr_nonnull(rb);
	hkd_init(&a, 10, 40000, 55601, true);
	hooks_sock_init(&a.hs, env.hk, &hkd_ops, env.root, true);
	life_cycle(&a.hs);
	ck_assert_uint_eq(a.hs.cb_flags, HOOKS_CB_RTO | HOOKS_CB_RETRANS | HOOKS_CB_STATE);

	size_t n = hooks_trace_read(env.hk, text, sizeof text - 1);
	text[n] = '\0';
	ck_assert_str_eq(text, "cb op 8 args 1 200\ncb op 9 args 1000 1\ncb op 10 args 1 4\n");
	static const uint32_t want[3][4] = {{8, 1, 200, 0}, {9, 1000, 1, 0}, {10, 1, 4, 0}};
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(bpfvm_ringbuf_consume(rb, &ev, sizeof ev), (int)sizeof ev);
		ck_assert_uint_eq(ev.cookie, a.hs.cookie);
		ck_assert_uint_eq(ev.op, want[i][0]);
		ck_assert_uint_eq(ev.args[0], want[i][1]);
		ck_assert_uint_eq(ev.args[1], want[i][2]);
		ck_assert_uint_eq(ev.args[2], want[i][3]);
	}
	ck_assert_int_eq(bpfvm_ringbuf_consume(rb, &ev, sizeof ev), 0);
	/* a request socket cannot take flags: nothing gets enabled */
	struct hkd_sock r;
	hkd_init(&r, 10, 55601, 40000, true);
	hooks_sock_init(&r.hs, env.hk, &hkd_ops, env.root, false);
	hooks_passive_established_cb(&r.hs);
	ck_assert_uint_eq(r.hs.cb_flags, 0);
	hooks_sock_fini(&r.hs);
	hooks_sock_fini(&a.hs);
	bpfvm_obj_close(obj);
	hkr_env_fini(&env);
}
END_TEST

/* The programs' headers come from the SDK, the uapi/libbpf directories and
 * the programs' own directory: never glibc. */
START_TEST(progs_no_libc)
{
	const char *src = getenv("SKOPS_SRC"), *sdk = getenv("SKOPS_SDK");
	char cmd[2048], dep[1024], dir[1024];
	unsigned headers = 0;

	ck_assert_msg(src && sdk, "SKOPS_SRC/SKOPS_SDK unset");
	snprintf(dir, sizeof dir, "%s/hooks/progs/", src);
	snprintf(cmd, sizeof cmd,
		 "clang -O2 -target bpf -I '%s' -M '%s/hooks/progs/%s.c' | tr ' \\\\' '\\n\\n'",
		 sdk, src, progs[_i].name);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(dep, sizeof dep, f)) {
		dep[strcspn(dep, "\n")] = '\0';
		size_t n = strlen(dep);
		if (n == 0 || dep[n - 1] == ':' || (n > 2 && !strcmp(dep + n - 2, ".c")))
			continue;
		headers++;
		ck_assert_msg(!strncmp(dep, sdk, strlen(sdk)) || !strncmp(dep, dir, strlen(dir)) ||
				  !strncmp(dep, "/usr/include/linux/", 19) ||
				  !strncmp(dep, "/usr/include/asm-generic/", 25) ||
				  !strncmp(dep, "/usr/include/bpf/", 17),
			      "%s: header %s outside the SDK", progs[_i].name, dep);
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_gt(headers, 3);
}
END_TEST

static Suite *progs_suite(void)
{
	Suite *s = suite_create("hooks_progs");
	TCase *tc = tcase_create("progs");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, progs_no_libc, 0, (int)NPROGS);
	tcase_add_loop_test(tc, prog_matrix, 0, (int)NPROGS);
	tcase_add_test(tc, op_count_map);
	tcase_add_test(tc, cb_logger_events);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(progs_suite)
