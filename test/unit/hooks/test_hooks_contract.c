/* Every helper of every program type (bpfvm's base table and sock_ops with its
 * header-option, sockmap and trace_printk helpers, as bpfvm_type_helpers
 * lists them) against its own contract entry. Each memory argument is an
 * exact-size heap buffer between guard bytes (ASan-poisoned in the sanitizer
 * build, so a read past the declared bytes is caught too): the helper may
 * write only what its entry declares WRITE or UNINIT_WRITE, must leave READ
 * bytes as they were, and outside the ops its entry names touches nothing;
 * every UNINIT_WRITE byte must be written (the helper runs twice over two
 * poison patterns: a byte showing the poison both times was not written);
 * an integer result lies in the entry's [ret_min, ret_max]. Each runs in an
 * ordinary op and the three header-option ops, with sizes 1..64 and, for
 * get/setsockopt, several options. The oracle (bpfvm/oracle.c) makes the
 * same checks inside program runs; docs/oracle.md. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define HC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HC_ASAN 1
#endif
#endif
#ifdef HC_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "cgroup.h"
#include "check_main.h"
#include "hk_double.h"
#include "hooks_int.h"

#define GUARD 32

enum { M_ARRAY, M_RINGBUF, M_SKS, M_SOCKMAP, M_SOCKHASH, M_LOCK, M_NR };

struct env {
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hk;
	struct bpfvm_map *maps[M_NR];
	struct bpfvm_prog *prog;
	struct hkd_sock sock;
	struct hooks_ctx ctx;
	struct hooks_skb skb;
	uint8_t hdr[60];
};

static void env_init(struct env *e)
{
	static const struct bpfvm_map_def defs[M_NR] = {
	    [M_ARRAY] = {.type = BPFVM_MAP_ARRAY,
			 .key_size = 4,
			 .value_size = 16,
			 .max_entries = 2},
	    [M_RINGBUF] = {.type = BPFVM_MAP_RINGBUF, .max_entries = 4096},
	    [M_SKS] = {.type = BPFVM_MAP_SK_STORAGE,
		       .key_size = 4,
		       .value_size = 16,
		       .map_flags = 1},
	    [M_SOCKMAP] = {.type = BPFVM_MAP_SOCKMAP,
			   .key_size = 4,
			   .value_size = 8,
			   .max_entries = 4},
	    [M_SOCKHASH] = {.type = BPFVM_MAP_SOCKHASH,
			    .key_size = 4,
			    .value_size = 8,
			    .max_entries = 4},
	    [M_LOCK] = {.type = BPFVM_MAP_ARRAY,
			.key_size = 4,
			.value_size = 16,
			.max_entries = 1,
			.has_spin_lock = true,
			.spin_lock_off = 4},
	};
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 1};
	memset(e, 0, sizeof(*e));
	ck_assert_int_eq(bpfvm_registry_create(&e->reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &e->tree), 0);
	cfg.tree = e->tree;
	cfg.reg = e->reg;
	ck_assert_int_eq(hooks_create(&cfg, &e->hk), 0);
	for (int i = 0; i < M_NR; i++)
		ck_assert_int_eq(bpfvm_map_create(e->reg, &defs[i], &e->maps[i]), 0);
	const struct bpfvm_insn insns[] = {{.code = 0xb7, .imm = 1}, {.code = 0x95}};
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type};
	ck_assert_int_eq(bpfvm_prog_load(e->reg, insns, 2, NULL, 0, &o, &e->prog), 0);
	hkd_init(&e->sock, 2, 55601, 443, true);
	hooks_sock_init(&e->sock.hs, e->hk, &hkd_ops, NULL, true);
}

static void env_fini(struct env *e)
{
	hooks_sock_fini(&e->sock.hs);
	bpfvm_prog_put(e->prog);
	for (int i = 0; i < M_NR; i++)
		bpfvm_map_put(e->maps[i]);
	hooks_destroy(e->hk);
	cg_tree_destroy(e->tree);
	bpfvm_registry_destroy(e->reg);
}

/* A fresh ctx for op; header-option ops get a segment with one option
 * (kind 0xfd, 8 bytes, magic 01 02 03 04) and option space to write. */
static void ctx_reset(struct env *e, uint32_t op)
{
	uint32_t zero = 0;
	/* bpf_spin_lock's word: free again (the walk calls lock without unlock) */
	memset(bpfvm_map_lookup(e->maps[M_LOCK], &zero), 0, 16);
	memset(&e->ctx, 0, sizeof(e->ctx));
	e->ctx.view.op = op;
	e->ctx.hs = &e->sock.hs;
	e->ctx.view.sk = (uint64_t)(uintptr_t)&e->ctx.bsk;
	if (op >= HOOKS_OP_PARSE_HDR_OPT_CB) {
		memset(e->hdr, 0, sizeof(e->hdr));
		e->hdr[12] = 0x80; /* data offset: 32 bytes */
		const uint8_t opt[] = {0xfd, 8, 1, 2, 3, 4, 9, 9, 1, 1, 1, 0};
		memcpy(e->hdr + 20, opt, sizeof(opt));
		e->skb = (struct hooks_skb){.hdr = e->hdr, .hdr_len = 32, .skb_len = 32};
		e->ctx.skb = &e->skb;
		e->ctx.view.skb_data = (uint64_t)(uintptr_t)e->hdr;
		e->ctx.view.skb_data_end = (uint64_t)(uintptr_t)(e->hdr + 32);
		e->ctx.remaining_opt_len = 20;
	}
}

/* One guarded buffer: [GUARD][size][GUARD]. */
struct gbuf {
	uint8_t *mem;
	size_t size;
	bool out;   /* UNINIT_WRITE: every byte must be written */
	bool write; /* WRITE: any byte may change */
};

static uint8_t guard_byte(size_t i)
{
	return (uint8_t)(0x5c ^ i);
}

static uint8_t poison_byte(int pass, size_t i)
{
	return (uint8_t)(pass ? 0x3a + i * 7 : 0xc5 ^ (i * 13));
}

static void gbuf_make(struct gbuf *g, size_t size, bool out, int pass, const uint8_t *content)
{
	g->size = size;
	g->out = out;
	g->mem = malloc(size + 2 * GUARD);
	ck_assert_ptr_nonnull(g->mem);
	for (size_t i = 0; i < GUARD; i++)
		g->mem[i] = g->mem[GUARD + size + i] = guard_byte(i);
	for (size_t i = 0; i < size; i++)
		g->mem[GUARD + i] = out ? poison_byte(pass, i) : content[i];
	POISON(g->mem, GUARD);
	POISON(g->mem + GUARD + size, GUARD);
}

static uint8_t *gbuf_ptr(struct gbuf *g)
{
	return g->mem + GUARD;
}

/* A failure message, or NULL: guards intact, read-only bytes unchanged. */
static const char *gbuf_check(struct gbuf *g, const uint8_t *content, bool untouched, char *why,
			      size_t n)
{
	UNPOISON(g->mem, GUARD);
	UNPOISON(g->mem + GUARD + g->size, GUARD);
	for (size_t i = 0; i < GUARD; i++)
		if (g->mem[i] != guard_byte(i) || g->mem[GUARD + g->size + i] != guard_byte(i)) {
			snprintf(why, n, "wrote outside its %zu-byte argument", g->size);
			return why;
		}
	if (!g->out && (!g->write || untouched) && memcmp(gbuf_ptr(g), content, g->size)) {
		snprintf(why, n, "wrote its %zu-byte %s", g->size,
			 untouched ? "argument in an op its entry excludes" : "read-only argument");
		return why;
	}
	return NULL;
}

/* Per-helper scalar argument variants: (arg index, values). */
struct variant {
	uint64_t s[5];
};

static size_t variants(uint32_t id, struct variant *v)
{
	memset(v, 0, 4 * sizeof(*v));
	switch (id) {
	case 49: /* setsockopt */
	case 57: /* getsockopt: TCP_CONGESTION, TCP_MAXSEG, SO_SNDBUF, TCP_SAVED_SYN */
		v[0].s[1] = 6, v[0].s[2] = 13;
		v[1].s[1] = 6, v[1].s[2] = 2;
		v[2].s[1] = 1, v[2].s[2] = 7;
		v[3].s[1] = 6, v[3].s[2] = 28;
		return 4;
	case 107: /* sk_storage_get: F_CREATE */
		v[0].s[3] = 1;
		return 1;
	case 6: /* trace_printk's values */
		v[0].s[2] = 7;
		return 1;
	default:
		return 1;
	}
}

/* A map of a type the helper's entry accepts. */
static int map_for(const struct env *e, const struct bpfvm_helper *h)
{
	for (int i = 0; i < M_NR; i++)
		if (!h->map_types || (h->map_types & BPFVM_MAPT(bpfvm_map_def(e->maps[i])->type)))
			return i;
	return M_ARRAY;
}

/* Read contents: a format-like string for text arguments, an option kind
 * first (load_hdr_opt searches for the kind in byte 0). */
static void read_content(uint8_t *c, size_t size)
{
	static const char txt[] = "%d v\0";
	for (size_t i = 0; i < size; i++)
		c[i] = i < sizeof(txt) ? (uint8_t)txt[i] : (uint8_t)(0x20 + i % 64);
	/* kind 0xfd, length 6, magic 01 02 03 04: the option ctx_reset puts in
	 * the segment */
	static const uint8_t opt[] = {0xfd, 6, 1, 2, 3, 4};
	memcpy(c, opt, size < sizeof(opt) ? size : sizeof(opt));
	c[size - 1] = 0;
}

static int failures;

/* Call h once per pass with size for every sized memory argument. */
static void walk_one(struct env *e, const struct bpfvm_helper *h, uint32_t op, size_t size,
		     const struct variant *v)
{
	struct gbuf g[2][5];
	uint8_t content[5][512];
	bool used[5] = {false};
	char why[160] = "";
	const char *bad = NULL;
	uint64_t r0[2] = {0, 0};
	struct bpfvm_map *map = NULL;

	for (int pass = 0; pass < 2 && !bad; pass++) {
		ctx_reset(e, op);
		uint64_t a[5];
		memcpy(a, v->s, sizeof(a));
		for (int i = 0; i < 5; i++) /* the map first: key and value sizes are its */
			if (h->args[i].kind == BPFVM_ARG_MAP) {
				map = e->maps[map_for(e, h)];
				a[i] = (uint64_t)(uintptr_t)map;
			}
		for (int i = 0; i < 5; i++) {
			const struct bpfvm_arg *arg = &h->args[i];
			size_t sz = 0;
			switch (arg->kind) {
			case BPFVM_ARG_CTX:
				a[i] = (uint64_t)(uintptr_t)&e->ctx;
				continue;
			case BPFVM_ARG_SOCK:
				a[i] = (uint64_t)(uintptr_t)&e->ctx.bsk;
				continue;
			case BPFVM_ARG_SPIN_LOCK: {
				uint32_t zero = 0;
				uint8_t *val = bpfvm_map_lookup(e->maps[M_LOCK], &zero);
				a[i] = (uint64_t)(uintptr_t)(val + bpfvm_map_def(e->maps[M_LOCK])
								       ->spin_lock_off);
				continue;
			}
			case BPFVM_ARG_RINGBUF_MEM: {
				const struct bpfvm_helper *rs = bpfvm_base_helper(131);
				a[i] = rs->fn((uint64_t)(uintptr_t)e->maps[M_RINGBUF], 16, 0, 0, 0,
					      NULL);
				ck_assert_uint_ne(a[i], 0);
				continue;
			}
			case BPFVM_ARG_STR:
				sz = 3;
				break;
			case BPFVM_ARG_MAP_KEY:
				sz = map ? bpfvm_map_def(map)->key_size : 4;
				break;
			case BPFVM_ARG_MAP_VALUE:
				sz = map ? bpfvm_map_def(map)->value_size : 16;
				break;
			case BPFVM_ARG_MEM:
				sz = arg->size_arg ? size : arg->size;
				if (arg->size_arg >= 1 && arg->size_arg <= 5)
					a[arg->size_arg - 1] = size;
				break;
			default:
				continue;
			}
			bool out = arg->access == BPFVM_MEM_UNINIT_WRITE;
			if (arg->kind == BPFVM_ARG_MAP_KEY)
				memset(content[i], 0, sz);
			else
				read_content(content[i], sz);
			if (arg->kind == BPFVM_ARG_STR)
				memcpy(content[i], "%d", 3);
			gbuf_make(&g[pass][i], sz, out, pass, content[i]);
			g[pass][i].write = arg->access == BPFVM_MEM_WRITE;
			used[i] = true;
			a[i] = (uint64_t)(uintptr_t)gbuf_ptr(&g[pass][i]);
		}
		struct bpfvm_run run = {.prog = e->prog, .ctx = &e->ctx};
		/* outside its ops a helper touches nothing (returns -EPERM) */
		bool in_op = bpfvm_helper_op_ok(h, &run);
		r0[pass] = h->fn(a[0], a[1], a[2], a[3], a[4], &run);
		if (h->ret == BPFVM_RET_INTEGER &&
		    ((int64_t)r0[pass] < h->ret_min || (int64_t)r0[pass] > h->ret_max)) {
			snprintf(why, sizeof(why), "returned %lld outside [%lld, %lld]",
				 (long long)r0[pass], (long long)h->ret_min, (long long)h->ret_max);
			bad = why;
		}
		for (int i = 0; i < 5 && !bad; i++)
			if (used[i])
				bad = gbuf_check(&g[pass][i], content[i], !in_op, why, sizeof(why));
		if (h->id == 107)
			(void)bpfvm_sk_storage_delete(e->maps[M_SKS], &e->sock.hs);
	}
	for (int i = 0; i < 5 && !bad; i++) {
		if (!used[i] || !g[0][i].out)
			continue;
		for (size_t j = 0; j < g[0][i].size; j++)
			if (gbuf_ptr(&g[0][i])[j] == poison_byte(0, j) &&
			    gbuf_ptr(&g[1][i])[j] == poison_byte(1, j)) {
				snprintf(why, sizeof(why),
					 "left byte %zu of its %zu-byte uninit-write argument "
					 "unwritten (returned %lld)",
					 j, g[0][i].size, (long long)r0[0]);
				bad = why;
				break;
			}
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 5; i++)
			if (used[i] && g[pass][i].mem) {
				free(g[pass][i].mem);
				g[pass][i].mem = NULL;
			}
	if (!bad)
		return;
	failures++;
	fprintf(stderr, "helper %u %s (op %u, size %zu, args %llu %llu): %s\n", h->id, h->name, op,
		size, (unsigned long long)v->s[1], (unsigned long long)v->s[2], bad);
}

static bool has_func_arg(const struct bpfvm_helper *h)
{
	for (int i = 0; i < 5; i++)
		if (h->args[i].kind == BPFVM_ARG_FUNC)
			return true;
	return false;
}

START_TEST(every_helper_keeps_its_contract)
{
	static const uint32_t ops[] = {HOOKS_OP_ACTIVE_ESTABLISHED_CB, HOOKS_OP_PARSE_HDR_OPT_CB,
				       HOOKS_OP_HDR_OPT_LEN_CB, HOOKS_OP_WRITE_HDR_OPT_CB};
	static const size_t sizes[] = {1, 4, 8, 16, 40, 64};
	struct env e;
	unsigned walked = 0;
	env_init(&e);
	const struct bpfvm_prog_type *types[] = {&bpfvm_type_generic, &hooks_sock_ops_type};
	for (size_t ty = 0; ty < 2; ty++) {
		const struct bpfvm_helper *hs[BPFVM_MAX_HELPER_ID];
		size_t n = bpfvm_type_helpers(types[ty], hs, BPFVM_MAX_HELPER_ID);
		for (size_t i = 0; i < n; i++) {
			const struct bpfvm_helper *h = hs[i];
			uint32_t id = h->id;
			if (ty && h == bpfvm_base_helper(id))
				continue; /* walked with the base table */
			if (!h->fn) {
				/* tail_call: the engines perform it, no C body to call */
				ck_assert_uint_eq(id, 12);
				continue;
			}
			if (has_func_arg(h)) {
				/* bpf_loop and for_each_map_elem call back into a
				 * program: test_oracle and fuzz_oracle run them
				 * under the oracle */
				ck_assert_msg(id == 164 || id == 181, "helper %u", id);
				continue;
			}
			struct variant v[4];
			size_t nv = variants(id, v);
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
				for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
					for (size_t k = 0; k < nv; k++)
						walk_one(&e, h, ops[o], sizes[s], &v[k]);
			walked++;
		}
	}
	ck_assert_int_eq(failures, 0);
	ck_assert_uint_ge(walked, 30);
	env_fini(&e);
}
END_TEST

static Suite *contract_suite(void)
{
	Suite *s = suite_create("hooks_contract");
	TCase *tc = tcase_create("contract");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_helper_keeps_its_contract);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(contract_suite)
