/* What a sock_ops program stopped by the run-time budget leaves behind
 * (docs/verifier-diff.md "Run-time budget"): nothing on the connection. The
 * options it set get their old values back, its callback flags, reply and
 * txhash are dropped, the call fails as a program returning 0 would, and
 * the stop is counted. Also issue 25 class 9: an sk_storage element the
 * program deleted stays readable until the program ends (run under ASan). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cgroup.h"
#include "check_main.h"
#include "hk_double.h"
#include "hk_insn.h"
#include "hooks.h"
#include "hooks_int.h"

static struct bpfvm_registry *reg;
static struct cg_tree *tree;
static struct hooks *hk;
static struct cg_node *root;
static struct hkd_sock d;
static char logbuf[8192];

static void setup(void)
{
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 7};
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &tree), 0);
	cfg.tree = tree;
	cfg.reg = reg;
	ck_assert_int_eq(hooks_create(&cfg, &hk), 0);
	ck_assert_int_eq(cg_lookup(tree, "/", false, &root), 0);
	hkd_init(&d, 10, 55601, 40000, true);
	strcpy(d.cc, "cubic");
	hooks_sock_init(&d.hs, hk, &hkd_ops, root, true);
}

static void teardown(void)
{
	hooks_sock_fini(&d.hs);
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
}

static void attach(const struct bpfvm_insn *insns, size_t n, struct bpfvm_map **maps, size_t nmaps,
		   bool jit, uint64_t budget)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .jit = jit, .run_budget = budget, .log = &log};
	struct bpfvm_prog *p = NULL;
	logbuf[0] = 0;
	int err = bpfvm_prog_load(reg, insns, n, maps, nmaps, &o, &p);
	ck_assert_msg(err == 0, "load: %d: %s", err, logbuf);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL), 0);
	bpfvm_prog_put(p);
}

static struct bpfvm_prog *attached(void)
{
	const struct cg_array *arr = cg_effective(root, CG_ATTACH_SOCK_OPS);
	ck_assert_uint_eq(arr->n, 1);
	return arr->progs[0];
}

#define I_ST(sz, d, o, v)                                                                          \
	((struct bpfvm_insn){.code = 0x62 | (sz), .dst = (d), .off = (o), .imm = (v)})
#define I_LDFUNC(d, rel)  ((struct bpfvm_insn){.code = 0x18, .dst = (d), .src = 4, .imm = (rel)})
#define I_LDMAP(d, idx)	  ((struct bpfvm_insn){.code = 0x18, .dst = (d), .src = 1, .imm = (idx)})
#define I_ADD64_IMM(d, v) ((struct bpfvm_insn){.code = 0x07, .dst = (d), .imm = (v)})

/* SO_MARK = 7, TCP_CONGESTION = "dctcp", cb flags = all, SO_SNDBUF = 10000,
 * reply = 99, then
 * bpf_loop(args[1], cb): a budget of 100 stops it once args[1] >= 100. */
static const struct bpfvm_insn set_then_loop[] = {
    I_MOV64_REG(6, 1),
    I_LDXW(7, 6, 8), /* args[1]: the loop count */
    I_STW(10, -4, 7),
    I_MOV64_REG(1, 6),
    I_MOV64_IMM(2, 1),
    I_MOV64_IMM(3, 36),
    I_MOV64_REG(4, 10),
    I_ADD64_IMM(4, -4),
    I_MOV64_IMM(5, 4),
    I_CALL(49),
    I_STW(10, -16, 0x63746364), /* "dctc" */
    I_STW(10, -12, 0x70),	/* "p\0\0\0" */
    I_MOV64_REG(1, 6),
    I_MOV64_IMM(2, 6),
    I_MOV64_IMM(3, 13),
    I_MOV64_REG(4, 10),
    I_ADD64_IMM(4, -16),
    I_MOV64_IMM(5, 8),
    I_CALL(49),
    I_MOV64_REG(1, 6),
    I_MOV64_IMM(2, 0x7f),
    I_CALL(59),
    I_STW(10, -8, 10000), /* SO_SNDBUF = 10000 */
    I_MOV64_REG(1, 6),
    I_MOV64_IMM(2, 1),
    I_MOV64_IMM(3, 7),
    I_MOV64_REG(4, 10),
    I_ADD64_IMM(4, -8),
    I_MOV64_IMM(5, 4),
    I_CALL(49),
    I_STW(6, 4, 99), /* reply */
    I_MOV64_REG(1, 7),
    I_LDFUNC(2, 6),
    I_LD64_HI(0),
    I_MOV64_IMM(3, 0),
    I_MOV64_IMM(4, 0),
    I_CALL(181),
    I_MOV64_IMM(0, 1),
    I_EXIT(),
    /* cb */
    I_MOV64_IMM(0, 0),
    I_EXIT(),
};

static int32_t mark_of(void)
{
	int32_t v = 0;
	uint32_t len = sizeof v;
	ck_assert_int_eq(hkd_ops.getsockopt(&d.hs, 1, 36, &v, &len), 0);
	return v;
}

START_TEST(stopped_program_leaves_the_socket_as_it_was)
{
	bool jit = _i;
	attach(set_then_loop, sizeof set_then_loop / sizeof set_then_loop[0], NULL, 0, jit, 100);
	uint32_t args[2] = {0, 1000};
	int32_t mark0 = mark_of();
	uint32_t sndbuf0 = d.sndbuf;
	ck_assert_int_eq(hooks_call(&d.hs, 4, args, 2), -1);
	ck_assert_int_eq(mark_of(), mark0);
	ck_assert_uint_eq(d.sndbuf, sndbuf0);
	ck_assert_str_eq(d.cc, "cubic");
	ck_assert_uint_eq(d.hs.cb_flags, 0);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(attached(), &info);
	ck_assert_uint_eq(info.budget_stops, 1);
	ck_assert_uint_eq(bpfvm_registry_budget_stops(reg), 1);
	/* the same program within its budget keeps what it did */
	args[1] = 10;
	ck_assert_int_eq(hooks_call(&d.hs, 4, args, 2), 99);
	ck_assert_int_eq(mark_of(), 7);
	ck_assert_str_eq(d.cc, "dctcp");
	ck_assert_uint_eq(d.hs.cb_flags, 0x7f);
	ck_assert_uint_eq(d.sndbuf, 20000);
	/* and a stop after that puts back these values, not the first ones */
	args[1] = 100;
	ck_assert_int_eq(hooks_call(&d.hs, 4, args, 2), -1);
	ck_assert_int_eq(mark_of(), 7);
	ck_assert_str_eq(d.cc, "dctcp");
	bpfvm_prog_info(attached(), &info);
	ck_assert_uint_eq(info.budget_stops, 2);
}
END_TEST

/* SO_MARK = 5, return 1 */
static const struct bpfvm_insn set_mark5[] = {
    I_STW(10, -4, 5),	I_MOV64_IMM(2, 1),  I_MOV64_IMM(3, 36),
    I_MOV64_REG(4, 10), I_ADD64_IMM(4, -4), I_MOV64_IMM(5, 4),
    I_CALL(49),		I_MOV64_IMM(0, 1),  I_EXIT(),
};

/* Two programs set the same option: the second, stopped, puts back the
 * first one's value, not the value before the call. */
START_TEST(stop_restores_the_previous_programs_value)
{
	attach(set_mark5, sizeof set_mark5 / sizeof set_mark5[0], NULL, 0, _i, 0);
	attach(set_then_loop, sizeof set_then_loop / sizeof set_then_loop[0], NULL, 0, _i, 100);
	uint32_t args[2] = {0, 1000};
	ck_assert_int_eq(hooks_call(&d.hs, 4, args, 2), -1);
	ck_assert_int_eq(mark_of(), 5);
	ck_assert_str_eq(d.cc, "cubic");
	ck_assert_uint_eq(bpfvm_registry_budget_stops(reg), 1);
}
END_TEST

/* Class 9: v = sk_storage_get(map, sk, 0, CREATE); *v = 42;
 * sk_storage_delete(map, sk); reply = *v (the element is gone from the map
 * but its memory lives until the program ends). */
#define SK_OFF ((int16_t)offsetof(struct hooks_sock_ops_view, sk))
static const struct bpfvm_insn get_delete_use[] = {
    I_MOV64_REG(6, 1),	 I_LDMAP(1, 0),		I_LD64_HI(0),	      I_LDXDW(2, 6, SK_OFF),
    I_JEQ_IMM(2, 0, 13), I_MOV64_IMM(3, 0),	I_MOV64_IMM(4, 1),    I_CALL(107),
    I_JEQ_IMM(0, 0, 9),	 I_MOV64_REG(7, 0),	I_ST(0x18, 7, 0, 42), I_LDMAP(1, 0),
    I_LD64_HI(0),	 I_LDXDW(2, 6, SK_OFF), I_JEQ_IMM(2, 0, 3),   I_CALL(108),
    I_LDXDW(0, 7, 0),	 I_STXW(6, 0, 4),	I_MOV64_IMM(0, 1),    I_EXIT(),
};

START_TEST(sk_storage_delete_then_use)
{
	struct bpfvm_map_def def = {.type = BPFVM_MAP_SK_STORAGE,
				    .key_size = 4,
				    .value_size = 8,
				    .map_flags = 1 /* BPF_F_NO_PREALLOC */};
	struct bpfvm_map *map = NULL;
	ck_assert_int_eq(bpfvm_map_create(reg, &def, &map), 0);
	attach(get_delete_use, sizeof get_delete_use / sizeof get_delete_use[0], &map, 1, _i, 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 42);
	/* deleted for good once the program ended */
	ck_assert_ptr_null(bpfvm_sk_storage_get(map, &d.hs, NULL, 0));
	bpfvm_map_put(map);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("hooks_budget");
	TCase *tc = tcase_create("budget");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, stopped_program_leaves_the_socket_as_it_was, 0, 2);
	tcase_add_loop_test(tc, stop_restores_the_previous_programs_value, 0, 2);
	tcase_add_loop_test(tc, sk_storage_delete_then_use, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(budget_suite)
