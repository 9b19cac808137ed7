/* hooks_call: the run semantics of docs/sockops.md §4 (every effective program in
 * order on one context, reply from the last, -1 unless all returned 1 or when
 * none is attached), the context contents, cgroup inheritance, statistics and
 * the typed call-site wrappers, over hand-assembled programs and the double. */
#include <errno.h>
#include <string.h>

#include "cgroup.h"
#include "check_main.h"
#include "hk_double.h"
#include "hk_insn.h"
#include "hooks.h"

static struct bpfvm_registry *reg;
static struct cg_tree *tree;
static struct hooks *hk;
static struct cg_node *root;
static struct hkd_sock d;
static char logbuf[4096];
/* the "jit" cases load every program JIT-compiled: programs that call
 * nothing then run through hooks' leaf path, the others through the full one */
static bool use_jit;

static void setup_stats(bool stats)
{
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 7, .stats = stats};

	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &tree), 0);
	cfg.tree = tree;
	cfg.reg = reg;
	ck_assert_int_eq(hooks_create(&cfg, &hk), 0);
	ck_assert_int_eq(cg_lookup(tree, "/", false, &root), 0);
	hkd_init(&d, 10, 55601, 40000, true);
	hooks_sock_init(&d.hs, hk, &hkd_ops, root, true);
}

static void setup(void)
{
	use_jit = false;
	setup_stats(false);
}

static void setup_with_stats(void)
{
	use_jit = false;
	setup_stats(true);
}

static void setup_jit(void)
{
	use_jit = true;
	setup_stats(false);
}

static void setup_jit_with_stats(void)
{
	use_jit = true;
	setup_stats(true);
}

static void teardown(void)
{
	hooks_sock_fini(&d.hs);
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
}

static struct bpfvm_prog *load(const struct bpfvm_insn *insns, size_t n, bool strict, int *err)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .strict = strict, .jit = use_jit, .log = &log};
	struct bpfvm_prog *p = NULL;
	size_t len;

	logbuf[0] = '\0';
	*err = bpfvm_prog_load(reg, insns, n, NULL, 0, &o, &p);
	if (*err == 0 && use_jit)
		ck_assert_msg(bpfvm_prog_jited(p, &len) != NULL, "not JIT-compiled: %s", logbuf);
	return p;
}

#define LOAD(arr)                                                                                  \
	({                                                                                         \
		int e_;                                                                            \
		struct bpfvm_prog *p_ = load(arr, sizeof(arr) / sizeof(arr[0]), false, &e_);       \
		ck_assert_msg(e_ == 0, "load %s: %d: %s", #arr, e_, logbuf);                       \
		p_;                                                                                \
	})

static void attach(struct cg_node *node, struct bpfvm_prog *p)
{
	ck_assert_int_eq(cg_attach(tree, node, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL), 0);
	bpfvm_prog_put(p); /* the attachment holds it */
}

/* reply = V; return R */
#define PROG_REPLY(name, V, R)                                                                     \
	static const struct bpfvm_insn name[] = {I_STW(1, 4, V), I_MOV64_IMM(0, R), I_EXIT()}

PROG_REPLY(reply5_ret1, 5, 1);
PROG_REPLY(reply7_ret1, 7, 1);
PROG_REPLY(reply5_ret0, 5, 0);
PROG_REPLY(reply9_ret2, 9, 2);
static const struct bpfvm_insn ret1[] = {I_MOV64_IMM(0, 1), I_EXIT()};
/* cb_flags_set(ctx, RTT), return 1: shows that a program ran */
static const struct bpfvm_insn set_rtt_flag[] = {I_MOV64_IMM(2, 8), I_CALL(59), I_MOV64_IMM(0, 1),
						 I_EXIT()};
/* reply = op + args[1] */
static const struct bpfvm_insn op_plus_arg1[] = {I_LDXW(2, 1, 0),   I_LDXW(3, 1, 8),
						 I_ADD64_REG(2, 3), I_STXW(1, 2, 4),
						 I_MOV64_IMM(0, 1), I_EXIT()};
/* reply = *(u32 *)(ctx + OFF) */
#define PROG_READ(name, OFF)                                                                       \
	static const struct bpfvm_insn name[] = {I_LDXW(2, 1, OFF), I_STXW(1, 2, 4),               \
						 I_MOV64_IMM(0, 1), I_EXIT()}

PROG_READ(read_remote_port, 64);
PROG_READ(read_local_port, 68);
PROG_READ(read_family, 20);
PROG_READ(read_is_fullsock, 72);
PROG_READ(read_snd_cwnd, 76);
PROG_READ(read_cb_flags, 84);
PROG_READ(read_local_ip6_1, 52);
/* replylong[1] = bytes_acked >> 32 */
static const struct bpfvm_insn read_bytes_acked[] = {I_LDXDW(2, 1, 176),
						     {.code = 0x77, .dst = 2, .imm = 32},
						     I_STXW(1, 2, 4),
						     I_MOV64_IMM(0, 1),
						     I_EXIT()};
/* sk_txhash = args[1] */
static const struct bpfvm_insn txhash_arg1[] = {I_LDXW(2, 1, 8), I_STXW(1, 2, 164),
						I_MOV64_IMM(0, 1), I_EXIT()};
/* r0 = 0x100000001: the low 32 bits count, as in Linux */
static const struct bpfvm_insn ret_wide1[] = {I_LD64_LO(0, 1), I_LD64_HI(1), I_EXIT()};

/* reply = ctx->sk ? ctx->sk->family : untouched */
static const struct bpfvm_insn sk_family[] = {I_LDXDW(2, 1, 184), I_JEQ_IMM(2, 0, 2),
					      I_LDXW(3, 2, 4),	  I_STXW(1, 3, 4),
					      I_MOV64_IMM(0, 1),  I_EXIT()};
/* per-socket counter in sk_storage: reply = ++*sk_storage_get(map, ctx->sk, 0, F_CREATE) */
static const struct bpfvm_insn sk_counter[] = {I_MOV64_REG(6, 1),
					       I_LDXDW(2, 6, 184),
					       I_JEQ_IMM(2, 0, 10),
					       {.code = 0x18, .dst = 1, .src = 1, .imm = 0},
					       {.imm = 0},
					       I_MOV64_IMM(3, 0),
					       I_MOV64_IMM(4, 1),
					       I_CALL(107),
					       I_JEQ_IMM(0, 0, 4),
					       I_LDXDW(1, 0, 0),
					       {.code = 0x07, .dst = 1, .imm = 1},
					       {.code = 0x7b, .dst = 0, .src = 1},
					       I_STXW(6, 1, 4),
					       I_MOV64_IMM(0, 1),
					       I_EXIT()};

START_TEST(sk_pointer_view)
{
	attach(root, LOAD(sk_family));
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 10);
	ck_assert(d.groups_asked & HOOKS_INFO_SOCK);
}
END_TEST

START_TEST(sk_storage_per_socket)
{
	struct bpfvm_map_def def = {.type = BPFVM_MAP_SK_STORAGE,
				    .key_size = 4,
				    .value_size = 8,
				    .map_flags = 1,
				    .name = "cnt"};
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .strict = true, .jit = use_jit, .log = &log};
	struct bpfvm_map *map;
	struct bpfvm_prog *p;
	struct hkd_sock d2;

	ck_assert_int_eq(bpfvm_map_create(reg, &def, &map), 0);
	ck_assert_msg(bpfvm_prog_load(reg, sk_counter, sizeof sk_counter / sizeof sk_counter[0],
				      &map, 1, &o, &p) == 0,
		      "load: %s", logbuf);
	attach(root, p);
	hkd_init(&d2, 2, 1, 2, false);
	hooks_sock_init(&d2.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 1);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 2);
	ck_assert_int_eq(hooks_call(&d2.hs, 4, NULL, 0), 1);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 3);
	/* the socket's value goes with it */
	hooks_sock_fini(&d2.hs);
	hooks_sock_init(&d2.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&d2.hs, 4, NULL, 0), 1);
	hooks_sock_fini(&d2.hs);
	bpfvm_map_put(map);
}
END_TEST

/* reply = get_smp_processor_id() */
static const struct bpfvm_insn reply_cpu[] = {I_MOV64_REG(6, 1), I_CALL(8), I_STXW(6, 0, 4),
					      I_MOV64_IMM(0, 1), I_EXIT()};

/* One lcore identity: the instance's lcore is the cpu programs see (per-CPU
 * map slots) once the polling thread binds it, and its cookies' prefix. */
START_TEST(lcore_identity)
{
	struct hooks_config cfg = {.tree = tree, .reg = reg, .lcore = 1};
	struct hooks *hk1;
	struct hkd_sock d1;

	ck_assert_int_eq(hooks_create(&cfg, &hk1), 0);
	cfg.lcore = BPFVM_MAX_CPUS;
	struct hooks *bad = NULL;
	ck_assert_int_eq(hooks_create(&cfg, &bad), -EINVAL);
	attach(root, LOAD(reply_cpu));
	hkd_init(&d1, 2, 1, 2, false);
	hooks_sock_init(&d1.hs, hk1, &hkd_ops, root, true);
	ck_assert_uint_eq(d1.hs.cookie >> 48, 2);
	ck_assert_uint_eq(d.hs.cookie >> 48, 1);
	hooks_bind_thread(hk1);
	ck_assert_int_eq(hooks_call(&d1.hs, 4, NULL, 0), 1);
	hooks_bind_thread(hk);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 0);
	hooks_sock_fini(&d1.hs);
	hooks_destroy(hk1);
}
END_TEST

START_TEST(nothing_attached)
{
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), -1);
	ck_assert_int_eq(hooks_timeout_init(&d.hs), -1);
	ck_assert_int_eq(hooks_rwnd_init(&d.hs), -1);
	ck_assert(!hooks_needs_ecn(&d.hs));
	ck_assert_uint_eq(hooks_base_rtt(&d.hs), 0);
	ck_assert_uint_eq(d.info_calls, 0);
	/* a socket without a cgroup runs nothing either */
	struct hooks_sock bare;
	hooks_sock_init(&bare, hk, &hkd_ops, NULL, true);
	ck_assert_int_eq(hooks_call(&bare, 2, NULL, 0), -1);
	hooks_sock_fini(&bare);
}
END_TEST

START_TEST(reply_from_last_writer)
{
	attach(root, LOAD(reply5_ret1));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	attach(root, LOAD(reply7_ret1));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 7);
	/* a third program that does not write keeps the last written reply */
	attach(root, LOAD(ret1));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 7);
}
END_TEST

START_TEST(any_not_one_gives_minus_one)
{
	attach(root, LOAD(reply5_ret0));
	attach(root, LOAD(set_rtt_flag));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), -1);
	/* the second program still ran, as Linux runs the whole array */
	ck_assert_uint_eq(d.hs.cb_flags, HOOKS_CB_RTT);
}
END_TEST

START_TEST(return_two_is_failure)
{
	attach(root, LOAD(reply9_ret2));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), -1);
}
END_TEST

START_TEST(return_low_word)
{
	attach(root, LOAD(ret_wide1));
	ck_assert_int_eq(hooks_call(&d.hs, 1, (const uint32_t[]){33}, 1), 33);
}
END_TEST

START_TEST(strict_rejects_two)
{
	int err;
	struct bpfvm_prog *p = load(reply9_ret2, 3, true, &err);
	ck_assert_int_lt(err, 0);
	ck_assert_ptr_null(p);
	p = load(reply5_ret1, 3, true, &err);
	ck_assert_int_eq(err, 0);
	bpfvm_prog_put(p);
}
END_TEST

START_TEST(op_and_args)
{
	const uint32_t args[4] = {1000, 100, 3, 4};

	attach(root, LOAD(op_plus_arg1));
	ck_assert_int_eq(hooks_call(&d.hs, 9, args, 3), 109);
	ck_assert_int_eq(hooks_call(&d.hs, 10, args, 1), 10); /* args[1] not passed: 0 */
	/* reading only op/args never asks the socket for info */
	ck_assert_uint_eq(d.info_calls, 0);
}
END_TEST

START_TEST(ctx_address_fields)
{
	attach(root, LOAD(read_remote_port));
	/* network-order port in the upper 16 bits: ntohl gives 40000 back */
	ck_assert_uint_eq((uint32_t)hooks_call(&d.hs, 2, NULL, 0), __builtin_bswap32(40000u));
	ck_assert_uint_eq(d.groups_asked, HOOKS_INFO_ADDR);
}
END_TEST

START_TEST(ctx_more_fields)
{
	struct bpfvm_prog *p;

	p = LOAD(read_local_port);
	attach(root, p);
	ck_assert_int_eq(hooks_call(&d.hs, 2, NULL, 0), 55601);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);
	p = LOAD(read_family);
	attach(root, p);
	ck_assert_int_eq(hooks_call(&d.hs, 2, NULL, 0), 10);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);
	p = LOAD(read_local_ip6_1);
	attach(root, p);
	ck_assert_uint_eq((uint32_t)hooks_call(&d.hs, 2, NULL, 0), d.info.local_ip6[1]);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);
	p = LOAD(read_bytes_acked);
	attach(root, p);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 2);
	ck_assert(d.groups_asked & HOOKS_INFO_TCP);
}
END_TEST

/* TCP fields read 0 on request sockets; is_fullsock says which. */
START_TEST(ctx_request_socket)
{
	struct bpfvm_prog *cw = LOAD(read_snd_cwnd);
	attach(root, cw);
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 10);
	d.hs.fullsock = false;
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 0);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, cw), 0);
	attach(root, LOAD(read_is_fullsock));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 0);
	d.hs.fullsock = true;
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 1);
}
END_TEST

START_TEST(ctx_cb_flags_visible)
{
	attach(root, LOAD(read_cb_flags));
	d.hs.cb_flags = HOOKS_CB_STATE | HOOKS_CB_RTO;
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 5);
}
END_TEST

/* A socket of /a/b runs its own programs, then /a's MULTI ones, then the
 * root's (cgroup's effective order); the reply is the last one's. */
START_TEST(cgroup_inheritance)
{
	struct cg_node *a, *ab;
	struct hkd_sock s2;

	ck_assert_int_eq(cg_lookup(tree, "/a/b", true, &ab), 0);
	ck_assert_int_eq(cg_lookup(tree, "/a", false, &a), 0);
	hkd_init(&s2, 2, 1, 2, false);
	hooks_sock_init(&s2.hs, hk, &hkd_ops, ab, true);
	ck_assert_int_eq(hooks_call(&s2.hs, 1, NULL, 0), -1);
	attach(a, LOAD(reply5_ret1));
	ck_assert_int_eq(hooks_call(&s2.hs, 1, NULL, 0), 5);
	attach(ab, LOAD(reply7_ret1));
	ck_assert_int_eq(hooks_call(&s2.hs, 1, NULL, 0), 5); /* /a/b's runs first */
	/* a socket of the root sees none of it */
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), -1);
	attach(a, LOAD(reply5_ret0));
	ck_assert_int_eq(hooks_call(&s2.hs, 1, NULL, 0), -1);
	hooks_sock_fini(&s2.hs);
	hooks_quiescent(hk);
	cg_node_put(a);
	cg_node_put(ab);
}
END_TEST

START_TEST(wrappers)
{
	struct bpfvm_prog *p = LOAD(op_plus_arg1);

	attach(root, p);
	ck_assert_int_eq(hooks_timeout_init(&d.hs), 1);
	ck_assert_int_eq(hooks_rwnd_init(&d.hs), 2);
	ck_assert(!hooks_needs_ecn(&d.hs)); /* reply 6, not 1 */
	ck_assert_uint_eq(hooks_base_rtt(&d.hs), 7);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);

	p = LOAD(reply5_ret0);
	attach(root, p);
	ck_assert_int_eq(hooks_timeout_init(&d.hs), -1);
	ck_assert_int_eq(hooks_rwnd_init(&d.hs), -1);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);

	static const struct bpfvm_insn zero[] = {I_STW(1, 4, 0), I_MOV64_IMM(0, 1), I_EXIT()};
	static const struct bpfvm_insn neg[] = {I_STW(1, 4, -5), I_MOV64_IMM(0, 1), I_EXIT()};
	static const struct bpfvm_insn one[] = {I_STW(1, 4, 1), I_MOV64_IMM(0, 1), I_EXIT()};
	p = LOAD(zero);
	attach(root, p);
	ck_assert_int_eq(hooks_timeout_init(&d.hs), -1); /* 0 → default */
	ck_assert_uint_eq(hooks_base_rtt(&d.hs), 0);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);
	p = LOAD(neg);
	attach(root, p);
	ck_assert_int_eq(hooks_rwnd_init(&d.hs), -1);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, p), 0);
	p = LOAD(one);
	attach(root, p);
	ck_assert(hooks_needs_ecn(&d.hs));
}
END_TEST

/* RTO/RETRANS/STATE/RTT callbacks run only with their flag; args arrive. */
START_TEST(flagged_callbacks)
{
	attach(root, LOAD(txhash_arg1));
	hooks_state_cb(&d.hs, 2, 1);
	hooks_rto_cb(&d.hs, 1, 200, 0);
	hooks_retrans_cb(&d.hs, 100, 1, 0);
	hooks_rtt_cb(&d.hs);
	ck_assert_uint_eq(d.txhash_calls, 0);
	d.hs.cb_flags = HOOKS_CB_STATE;
	hooks_state_cb(&d.hs, 2, HOOKS_TCP_ESTABLISHED);
	ck_assert_uint_eq(d.txhash_calls, 1);
	ck_assert_uint_eq(d.txhash, HOOKS_TCP_ESTABLISHED);
	d.hs.cb_flags = HOOKS_CB_RTO | HOOKS_CB_RETRANS;
	hooks_rto_cb(&d.hs, 3, 400, 1);
	ck_assert_uint_eq(d.txhash, 400);
	hooks_retrans_cb(&d.hs, 123, 2, -11);
	ck_assert_uint_eq(d.txhash, 2);
	/* the non-flagged call sites run always */
	hooks_connect_cb(&d.hs);
	hooks_active_established_cb(&d.hs);
	hooks_passive_established_cb(&d.hs);
	hooks_listen_cb(&d.hs);
	ck_assert_uint_eq(d.txhash_calls, 3); /* args[1] = 0 each: unchanged hash */
}
END_TEST

START_TEST(stats_counted)
{
	struct bpfvm_prog *p = LOAD(reply5_ret1);
	struct bpfvm_prog_info info;

	bpfvm_prog_get(p);
	attach(root, p);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.run_cnt, 10);
	ck_assert_uint_gt(info.run_time_ns, 0);
	bpfvm_prog_put(p);
}
END_TEST

START_TEST(stats_off)
{
	struct bpfvm_prog *p = LOAD(reply5_ret1);
	struct bpfvm_prog_info info;

	bpfvm_prog_get(p);
	attach(root, p);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.run_cnt, 0);
	bpfvm_prog_put(p);
}
END_TEST

/* return 1 if the u32 at ctx + OFF is V, else 0 */
#define PROG_EXPECT(name, OFF, V)                                                                  \
	static const struct bpfvm_insn name[] = {I_LDXW(2, 1, OFF), I_MOV64_IMM(0, 1),             \
						 I_JEQ_IMM(2, V, 1), I_MOV64_IMM(0, 0), I_EXIT()}

PROG_READ(read_op, 0);
PROG_READ(read_remote_ip6_0, 32);
PROG_EXPECT(expect_rport, 64, 0x409c0000); /* 40000, network order, upper half */
PROG_EXPECT(expect_cwnd, 76, 10);

/* hooks fills the fields some program of the array reads: each program must
 * see the fields it reads, whichever program before or after it reads
 * nothing or other fields. */
START_TEST(fields_of_every_program)
{
	attach(root, LOAD(read_op));
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 4);
	ck_assert_uint_eq(d.groups_asked, 0);
	attach(root, LOAD(expect_rport)); /* reads what read_op did not */
	ck_assert_int_eq(hooks_call(&d.hs, 4, NULL, 0), 4);
	attach(root, LOAD(expect_cwnd)); /* another group */
	attach(root, LOAD(read_op));
	ck_assert_int_eq(hooks_call(&d.hs, 5, NULL, 0), 5);
	ck_assert_uint_eq(d.groups_asked, HOOKS_INFO_ADDR | HOOKS_INFO_TCP);
	/* a request socket: TCP fields read 0, so expect_cwnd fails */
	d.hs.fullsock = false;
	ck_assert_int_eq(hooks_call(&d.hs, 5, NULL, 0), -1);
}
END_TEST

/* Each call's view starts from zero: a field one socket fills reads 0 on the
 * next socket that has no value for it (an IPv4 socket's ip6 words), and
 * args a call does not pass read 0 after a call that passed them. */
START_TEST(no_stale_fields)
{
	struct hkd_sock d4;

	attach(root, LOAD(read_remote_ip6_0));
	hkd_init(&d4, 2, 55601, 40000, true);
	hooks_sock_init(&d4.hs, hk, &hkd_ops, root, true);
	ck_assert_uint_ne(d.info.remote_ip6[0], 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq((uint32_t)hooks_call(&d.hs, 4, NULL, 0), d.info.remote_ip6[0]);
		ck_assert_int_eq(hooks_call(&d4.hs, 4, NULL, 0), 0);
	}
	hooks_sock_fini(&d4.hs);
	/* args[2] passed, then not */
	static const struct bpfvm_insn read_arg2[] = {I_LDXW(2, 1, 12), I_STXW(1, 2, 4),
						      I_MOV64_IMM(0, 1), I_EXIT()};
	attach(root, LOAD(read_arg2));
	ck_assert_int_eq(hooks_call(&d.hs, 8, (const uint32_t[]){1, 2, 3}, 3), 3);
	ck_assert_int_eq(hooks_call(&d.hs, 8, (const uint32_t[]){1, 2}, 2), 0);
}
END_TEST

/* What hooks works out once per effective array is redone when the array
 * changes: a program that calls a helper joins, then leaves. */
START_TEST(plan_follows_the_array)
{
	attach(root, LOAD(reply5_ret1));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	struct bpfvm_prog *flag = LOAD(set_rtt_flag);
	bpfvm_prog_get(flag);
	attach(root, flag);
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	ck_assert_uint_eq(d.hs.cb_flags, HOOKS_CB_RTT);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, flag), 0);
	bpfvm_prog_put(flag);
	d.hs.cb_flags = 0;
	hooks_quiescent(hk); /* the old arrays may go: their addresses may come back */
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 5);
	ck_assert_uint_eq(d.hs.cb_flags, 0);
	attach(root, LOAD(read_snd_cwnd));
	ck_assert_int_eq(hooks_call(&d.hs, 1, NULL, 0), 10);
}
END_TEST

/* bpfvm_prog_leaf_fn: a JIT image that calls nothing, and only that. */
START_TEST(leaf_or_not)
{
	struct bpfvm_prog *leaf = LOAD(reply5_ret1), *calls = LOAD(set_rtt_flag);
	ck_assert_ptr_nonnull(bpfvm_prog_leaf_fn(leaf));
	ck_assert_ptr_null(bpfvm_prog_leaf_fn(calls));
	use_jit = false;
	struct bpfvm_prog *interp = LOAD(reply5_ret1);
	ck_assert_ptr_null(bpfvm_prog_leaf_fn(interp));
	bpfvm_prog_put(leaf);
	bpfvm_prog_put(calls);
	bpfvm_prog_put(interp);
}
END_TEST

static void add_call_tests(TCase *tc)
{
	tcase_add_test(tc, nothing_attached);
	tcase_add_test(tc, reply_from_last_writer);
	tcase_add_test(tc, any_not_one_gives_minus_one);
	tcase_add_test(tc, return_two_is_failure);
	tcase_add_test(tc, return_low_word);
	tcase_add_test(tc, strict_rejects_two);
	tcase_add_test(tc, op_and_args);
	tcase_add_test(tc, ctx_address_fields);
	tcase_add_test(tc, ctx_more_fields);
	tcase_add_test(tc, ctx_request_socket);
	tcase_add_test(tc, ctx_cb_flags_visible);
	tcase_add_test(tc, cgroup_inheritance);
	tcase_add_test(tc, wrappers);
	tcase_add_test(tc, flagged_callbacks);
	tcase_add_test(tc, stats_off);
	tcase_add_test(tc, sk_pointer_view);
	tcase_add_test(tc, sk_storage_per_socket);
	tcase_add_test(tc, lcore_identity);
	tcase_add_test(tc, fields_of_every_program);
	tcase_add_test(tc, no_stale_fields);
	tcase_add_test(tc, plan_follows_the_array);
}

static Suite *call_suite(void)
{
	Suite *s = suite_create("hooks_call");
	TCase *tc = tcase_create("call");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_call_tests(tc);
	suite_add_tcase(s, tc);
	TCase *tj = tcase_create("jit");
	tcase_add_checked_fixture(tj, setup_jit, teardown);
	add_call_tests(tj);
	tcase_add_test(tj, leaf_or_not);
	suite_add_tcase(s, tj);
	TCase *ts = tcase_create("stats");
	tcase_add_checked_fixture(ts, setup_with_stats, teardown);
	tcase_add_test(ts, stats_counted);
	suite_add_tcase(s, ts);
	TCase *tsj = tcase_create("stats_jit");
	tcase_add_checked_fixture(tsj, setup_jit_with_stats, teardown);
	tcase_add_test(tsj, stats_counted);
	suite_add_tcase(s, tsj);
	return s;
}

SKOPS_CHECK_MAIN(call_suite)
