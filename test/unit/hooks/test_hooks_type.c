/* hooks_type: the sock_ops ctx access table (docs/sockops.md §2, Linux's
 * sock_ops_is_valid_access), helper availability and the R0 range. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "hooks_int.h"

static int access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc, char *why)
{
	memset(acc, 0, sizeof(*acc));
	why[0] = '\0';
	return hooks_sock_ops_type.ctx_access(off, size, write, acc, why, 64);
}

START_TEST(type_basics)
{
	ck_assert_uint_eq(hooks_sock_ops_type.type, 13);
	ck_assert_uint_eq(hooks_sock_ops_type.ctx_size, 216);
	ck_assert_int_eq(hooks_sock_ops_type.ret_min, 0);
	ck_assert_int_eq(hooks_sock_ops_type.ret_max, 1);
	ck_assert_uint_le(hooks_sock_ops_type.nr_fields, 64);
}
END_TEST

/* Every 4-byte slot of the u32 region reads with a 4-byte load. */
START_TEST(u32_loads)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	for (uint32_t off = 0; off < 168; off += 4) {
		ck_assert_msg(access(off, 4, false, &acc, why) == 0, "off %u: %s", off, why);
		ck_assert_int_eq(acc.field, (int)(off / 4));
		ck_assert_int_eq(acc.result, BPFVM_CTX_SCALAR);
		ck_assert_int_lt(acc.field, (int)hooks_sock_ops_type.nr_fields);
	}
	ck_assert_int_eq(access(208, 4, false, &acc, why), 0); /* skb_len */
	ck_assert_int_eq(access(212, 4, false, &acc, why), 0); /* skb_tcp_flags */
}
END_TEST

/* Linux 6.1 allows narrow loads only of skb_tcp_flags. */
START_TEST(narrow_loads)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	ck_assert_int_eq(access(212, 1, false, &acc, why), 0);
	ck_assert_int_eq(access(213, 1, false, &acc, why), 0);
	ck_assert_int_eq(access(214, 2, false, &acc, why), 0);
	ck_assert_int_eq(access(64, 2, false, &acc, why), -EACCES); /* remote_port */
	ck_assert_ptr_nonnull(strstr(why, "ctx+64"));
	ck_assert_ptr_nonnull(strstr(why, "remote_port"));
	ck_assert_int_eq(access(0, 1, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(22, 2, false, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "ctx+22"));
}
END_TEST

START_TEST(u64_fields)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	ck_assert_int_eq(access(168, 8, false, &acc, why), 0);
	ck_assert_int_eq(access(176, 8, false, &acc, why), 0);
	ck_assert_int_eq(acc.result, BPFVM_CTX_SCALAR);
	ck_assert_int_eq(access(168, 4, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(172, 4, false, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "ctx+172"));
	ck_assert_int_eq(access(0, 8, false, &acc, why), -EACCES); /* op+args[0] */
	ck_assert_int_eq(access(160, 8, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(192, 8, false, &acc, why), 0);
	ck_assert_int_eq(acc.result, BPFVM_CTX_PKT);
	ck_assert_int_eq(access(200, 8, false, &acc, why), 0);
	ck_assert_int_eq(acc.result, BPFVM_CTX_PKT_END);
	ck_assert_int_eq(access(196, 4, false, &acc, why), -EACCES);
}
END_TEST

START_TEST(sk_pointer)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	ck_assert_int_eq(access(184, 8, false, &acc, why), 0);
	ck_assert_int_eq(acc.result, BPFVM_CTX_SOCK_OR_NULL);
	ck_assert_int_eq(access(184, 4, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(188, 4, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(184, 8, true, &acc, why), -EACCES);
}
END_TEST

START_TEST(out_of_bounds_and_misaligned)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	ck_assert_int_eq(access(216, 4, false, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "ctx+216"));
	ck_assert_int_eq(access(214, 4, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(1000, 1, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(UINT32_MAX - 1, 4, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(2, 4, false, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "misaligned"));
	ck_assert_int_eq(access(4, 3, false, &acc, why), -EACCES);
	ck_assert_int_eq(access(4, 16, false, &acc, why), -EACCES);
}
END_TEST

START_TEST(stores)
{
	struct bpfvm_ctx_access acc;
	char why[64];

	ck_assert_int_eq(access(4, 4, true, &acc, why), 0);   /* reply */
	ck_assert_int_eq(access(164, 4, true, &acc, why), 0); /* sk_txhash */
	/* replylong[1..3] alias args[1..3], the next MULTI program's input */
	for (uint32_t off = 8; off < 20; off += 4) {
		ck_assert_msg(access(off, 4, true, &acc, why) == -EACCES, "store at %u allowed",
			      off);
		ck_assert_ptr_nonnull(strstr(why, "replylong"));
	}
	ck_assert_int_eq(access(4, 2, true, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "4 bytes"));
	ck_assert_int_eq(access(4, 8, true, &acc, why), -EACCES);
	/* everything else is read-only, with the offset and name in the reason */
	for (uint32_t off = 0; off < 216; off += 4) {
		if (off == 4 || off == 164)
			continue;
		ck_assert_msg(access(off, 4, true, &acc, why) == -EACCES, "store at %u allowed",
			      off);
		char want[16];
		snprintf(want, sizeof want, "ctx+%u", off);
		ck_assert_msg(strstr(why, want) != NULL, "reason '%s' lacks %s", why, want);
	}
	ck_assert_int_eq(access(20, 4, true, &acc, why), -EACCES);
	ck_assert_ptr_nonnull(strstr(why, "family"));
}
END_TEST

START_TEST(helpers_allowed)
{
	static const uint32_t ok[] = {1,  2,   3,   6,	 25,  46,  49,	53,  57,  59, 70,
				      96, 107, 108, 122, 137, 142, 143, 144, 182, 196};
	static const uint32_t no[] = {0, 4, 9, 13, 26, 44, 52, 86 /* sk_release */, 9999};

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		const struct bpfvm_helper *h = hooks_sock_ops_type.helper(ok[i]);
		ck_assert_msg(h != NULL, "helper %u missing", ok[i]);
		ck_assert_uint_eq(h->id, ok[i]);
	}
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		ck_assert_msg(hooks_sock_ops_type.helper(no[i]) == NULL, "helper %u allowed",
			      no[i]);
	ck_assert_int_eq(hooks_sock_ops_type.helper(49)->args[0].kind, BPFVM_ARG_CTX);
	ck_assert_int_eq(hooks_sock_ops_type.helper(57)->args[3].kind, BPFVM_ARG_MEM);
	ck_assert_int_eq(hooks_sock_ops_type.helper(57)->args[3].access, BPFVM_MEM_UNINIT_WRITE);
	ck_assert_int_eq(hooks_sock_ops_type.helper(57)->args[3].size_arg, 5);
	/* load_hdr_opt reads its search and writes the option over it */
	ck_assert_int_eq(hooks_sock_ops_type.helper(142)->args[1].access, BPFVM_MEM_WRITE);
}
END_TEST

START_TEST(fields_to_groups)
{
	ck_assert_uint_eq(hooks_fields_groups(0), 0);
	ck_assert_uint_eq(hooks_fields_groups(1ull << HOOKS_FIELD(op)), 0);
	ck_assert_uint_eq(hooks_fields_groups(1ull << HOOKS_FIELD(reply)), 0);
	ck_assert_uint_eq(hooks_fields_groups(1ull << HOOKS_FIELD(remote_port)), HOOKS_INFO_ADDR);
	ck_assert_uint_eq(hooks_fields_groups(1ull << (HOOKS_FIELD(local_ip6) + 1)),
			  HOOKS_INFO_ADDR);
	ck_assert(hooks_fields_groups(1ull << HOOKS_FIELD(snd_cwnd)) & HOOKS_INFO_TCP);
	ck_assert(hooks_fields_groups(1ull << HOOKS_FIELD(bytes_acked)) & HOOKS_INFO_TCP);
	ck_assert_uint_eq(hooks_fields_groups(1ull << HOOKS_FIELD(sk_txhash)), HOOKS_INFO_SOCK);
}
END_TEST

static Suite *type_suite(void)
{
	Suite *s = suite_create("hooks_type");
	TCase *tc = tcase_create("ctx");
	tcase_add_test(tc, type_basics);
	tcase_add_test(tc, u32_loads);
	tcase_add_test(tc, narrow_loads);
	tcase_add_test(tc, u64_fields);
	tcase_add_test(tc, sk_pointer);
	tcase_add_test(tc, out_of_bounds_and_misaligned);
	tcase_add_test(tc, stores);
	tcase_add_test(tc, helpers_allowed);
	tcase_add_test(tc, fields_to_groups);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(type_suite)
