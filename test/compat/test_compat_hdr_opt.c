/* Header options (ops 13-15, helpers 142-144) as Linux 5.10+ runs them, on
 * the socket double: progs/hdr_opt_write.c reserves 12 bytes in a SYN that
 * already carries an MSS option, writes kind 254 (magic 0xa5c3, data 0x1234)
 * and is refused a duplicate (-EEXIST); the space left becomes NOPs.
 * progs/hdr_opt_parse.c, attached elsewhere, finds the option in that header
 * at PARSE_HDR_OPT_CB. Helper errnos outside their callbacks are checked
 * directly. Both engines. */
#include <errno.h>

#include "compat_fixture.h"
#include "hk_double.h"
#include "hooks_int.h"

struct hdr_stat {
	int32_t reserve_rc, store_rc, dup_rc;
	uint32_t len_cbs, write_cbs;
};

struct parse_stat {
	int32_t load_rc, syn_rc;
	uint32_t parse_cbs;
	uint8_t data[2], pad[2];
};

/* Load build/test/compat/NAME.o and attach it at cgroup path cg. */
static struct bpfvm_obj *attach(const char *name, const char *cg, bool jit, struct cg_node **node)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;

	ck_assert_msg(load(name, jit, &obj, &prog) == 0, "%s: %s", name, logbuf);
	ck_assert_int_eq(cg_lookup(tree, cg, true, node), 0);
	ck_assert_int_eq(cg_attach(tree, *node, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	bpfvm_prog_put(prog);
	return obj;
}

static void *value(struct bpfvm_obj *obj, const char *map)
{
	uint32_t k = 0;
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, map);
	ck_assert_ptr_nonnull(m);
	return bpfvm_map_lookup(m, &k);
}

static void write_then_parse(bool jit)
{
	struct cg_node *wn, *pn;
	struct bpfvm_obj *wobj = attach("hdr_opt_write", "/w", jit, &wn);
	struct bpfvm_obj *pobj = attach("hdr_opt_parse", "/p", jit, &pn);
	struct hkd_sock a, b;

	hkd_init(&a, 2, 40000, 55601, true);
	hooks_sock_init(&a.hs, hk, &hkd_ops, wn, true);
	hooks_connect_cb(&a.hs);
	ck_assert(hooks_cb_enabled(&a.hs, HOOKS_CB_WRITE_HDR_OPT));

	/* a SYN: 20-byte header, MSS 1460, then what the program adds */
	uint8_t hdr[60];
	memset(hdr, 0xee, sizeof(hdr));
	memset(hdr, 0, 20);
	hdr[12] = 6 << 4;
	hdr[13] = 0x02; /* SYN */
	hdr[20] = 2, hdr[21] = 4, hdr[22] = 0x05, hdr[23] = 0xb4;
	struct hooks_skb skb = {.hdr = hdr, .hdr_len = 24, .skb_len = 24, .flags = 0x02};
	uint32_t reserved = hooks_hdr_opt_len(&a.hs, &skb, 36, 1);
	ck_assert_uint_eq(reserved, 12);
	ck_assert_uint_eq(hooks_write_hdr_opt(&a.hs, &skb, reserved, 1), 6);
	static const uint8_t want[] = {254, 6, 0xa5, 0xc3, 0x12, 0x34, 1, 1, 1, 1, 1, 1};
	ck_assert_mem_eq(hdr + 24, want, sizeof(want));
	ck_assert_uint_eq(hdr[36], 0xee); /* nothing past the reserved space */
	const struct hdr_stat *ws = value(wobj, "stat");
	ck_assert_int_eq(ws->reserve_rc, 0);
	ck_assert_int_eq(ws->store_rc, 0);
	ck_assert_int_eq(ws->dup_rc, -EEXIST);
	ck_assert_uint_eq(ws->len_cbs, 1);
	ck_assert_uint_eq(ws->write_cbs, 1);

	/* no flag, no callback: the write side never asked to parse */
	hooks_parse_hdr_opt_cb(&a.hs, &skb, true);

	hkd_init(&b, 2, 55601, 40000, true);
	hooks_sock_init(&b.hs, hk, &hkd_ops, pn, true);
	struct hooks_skb in = {.hdr = hdr, .hdr_len = 36, .skb_len = 36, .flags = 0x02};
	hooks_parse_hdr_opt_cb(&b.hs, &in, true); /* flags not set yet: not called */
	const struct parse_stat *ps = value(pobj, "seen");
	ck_assert_uint_eq(ps->parse_cbs, 0);
	hooks_passive_established_cb(&b.hs);
	hooks_parse_hdr_opt_cb(&b.hs, &in, false);
	ck_assert_uint_eq(ps->parse_cbs, 1);
	ck_assert_int_eq(ps->load_rc, 6);
	ck_assert_uint_eq(ps->data[0], 0x12);
	ck_assert_uint_eq(ps->data[1], 0x34);
	ck_assert_int_eq(ps->syn_rc, -ENOENT);

	/* a header without the option */
	in.hdr_len = 24;
	hooks_parse_hdr_opt_cb(&b.hs, &in, false);
	ck_assert_int_eq(ps->load_rc, -ENOMSG);

	hooks_sock_fini(&a.hs);
	hooks_sock_fini(&b.hs);
	cg_node_put(wn);
	cg_node_put(pn);
	bpfvm_obj_close(wobj);
	bpfvm_obj_close(pobj);
}

START_TEST(write_parse_interp)
{
	write_then_parse(false);
}
END_TEST

START_TEST(write_parse_jit)
{
	write_then_parse(true);
}
END_TEST

/* Linux's errnos: each helper only in its callback, bad searches and options
 * refused, a malformed option list -EFAULT, a short buffer -ENOSPC, nothing
 * stored after an EOL. */
static struct hooks_ctx ectx;
static struct bpfvm_run erun;

static int64_t hcall(uint32_t id, const void *p, uint64_t a2, uint64_t a3)
{
	const struct bpfvm_helper *h = hooks_sock_ops_type.helper(id);
	ck_assert_msg(h != NULL, "helper %u", id);
	return (int64_t)h->fn((uint64_t)(uintptr_t)&ectx, p ? (uint64_t)(uintptr_t)p : a2,
			      p ? a2 : a3, p ? a3 : 0, 0, &erun);
}

static void op_skb(uint32_t op, struct hooks_skb *skb, uint32_t remaining)
{
	ectx.view.op = op;
	ectx.skb = skb;
	ectx.remaining_opt_len = remaining;
	ectx.view.skb_data = (uint64_t)(uintptr_t)skb->hdr;
	ectx.view.skb_data_end = (uint64_t)(uintptr_t)(skb->hdr + skb->hdr_len);
}

START_TEST(helper_errnos)
{
	uint8_t hdr[40] = {0};
	struct hooks_skb skb = {.hdr = hdr, .hdr_len = 24};
	uint8_t b[8];

	memset(&ectx, 0, sizeof(ectx));
	erun.ctx = &ectx;
	ectx.view.op = HOOKS_OP_TIMEOUT_INIT; /* outside the header-option callbacks */
	ck_assert_int_eq(hcall(144, NULL, 4, 0), -EPERM);
	memcpy(b, (uint8_t[]){254, 6, 1, 2, 3, 4}, 6);
	ck_assert_int_eq(hcall(143, b, 6, 0), -EPERM);
	memcpy(b, (uint8_t[]){2, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 8, 0), -EPERM);
	memcpy(b, (uint8_t[]){1, 0}, 2); /* NOP is never searched */
	ck_assert_int_eq(hcall(142, b, 8, 0), -EINVAL);
	memcpy(b, (uint8_t[]){254, 5}, 2); /* a 3-byte magic */
	ck_assert_int_eq(hcall(142, b, 8, 0), -EINVAL);
	memcpy(b, (uint8_t[]){2, 4}, 2); /* a length for a plain kind */
	ck_assert_int_eq(hcall(142, b, 8, 0), -EINVAL);
	memcpy(b, (uint8_t[]){2, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 8, 2), -EINVAL); /* unknown flag */
	ck_assert_int_eq(hcall(142, b, 1, 0), -EINVAL);
	ck_assert_int_eq(hcall(142, b, 8, 1), -ENOENT); /* no SYN to search */

	/* parsing a header: MSS, then EOL */
	hdr[20] = 2, hdr[21] = 4, hdr[22] = 5, hdr[23] = 0xb4;
	op_skb(HOOKS_OP_PARSE_HDR_OPT_CB, &skb, 0);
	memcpy(b, (uint8_t[]){2, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 2, 0), -ENOSPC); /* 2 of its 4 bytes copied */
	ck_assert_uint_eq(b[1], 4);
	memcpy(b, (uint8_t[]){2, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 8, 0), 4);
	ck_assert_uint_eq(b[3], 0xb4);
	memcpy(b, (uint8_t[]){8, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 8, 0), -ENOMSG);
	hdr[21] = 9; /* a length past the header */
	memcpy(b, (uint8_t[]){8, 0}, 2);
	ck_assert_int_eq(hcall(142, b, 8, 0), -EFAULT);
	hdr[21] = 4;

	/* reserving */
	op_skb(HOOKS_OP_HDR_OPT_LEN_CB, &skb, 8);
	ck_assert_int_eq(hcall(142, b, 8, 0), -EPERM); /* the segment is not built yet */
	ck_assert_int_eq(hcall(144, NULL, 1, 0), -EINVAL);
	ck_assert_int_eq(hcall(144, NULL, 4, 1), -EINVAL);
	ck_assert_int_eq(hcall(144, NULL, 9, 0), -ENOSPC);
	ck_assert_int_eq(hcall(144, NULL, 6, 0), 0);
	ck_assert_uint_eq(ectx.remaining_opt_len, 2);

	/* storing */
	op_skb(HOOKS_OP_WRITE_HDR_OPT_CB, &skb, 8);
	memcpy(b, (uint8_t[]){254, 3, 0xa5, 0xc3}, 4);
	ck_assert_int_eq(hcall(143, b, 4, 0), -EINVAL); /* 254 needs its magic */
	memcpy(b, (uint8_t[]){30, 9, 1, 2, 3, 4, 5, 6}, 8);
	ck_assert_int_eq(hcall(143, b, 8, 0), -EINVAL); /* longer than given */
	memcpy(b, (uint8_t[]){30, 8, 1, 2, 3, 4, 5, 6}, 8);
	ck_assert_int_eq(hcall(143, b, 8, 1), -EINVAL);
	memcpy(b, (uint8_t[]){2, 4, 1, 1}, 4);
	ck_assert_int_eq(hcall(143, b, 4, 0), -EEXIST); /* MSS is there already */
	memcpy(b, (uint8_t[]){30, 8, 1, 2, 3, 4, 5, 6}, 8);
	ectx.remaining_opt_len = 6;
	ck_assert_int_eq(hcall(143, b, 8, 0), -ENOSPC);
	hdr[23] = 0, hdr[21] = 2, hdr[20] = 0; /* an EOL first: the list is over */
	ectx.remaining_opt_len = 8;
	ck_assert_int_eq(hcall(143, b, 8, 0), -ENOSPC);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_hdr_opt");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_parse_interp);
	tcase_add_test(tc, write_parse_jit);
	tcase_add_test(tc, helper_errnos);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
