/* SOCKMAP / SOCKHASH: the kernel's validation (sock_map_alloc/sock_hash_alloc),
 * insert of an owner with update flags and errnos, the syscall view (cookie
 * for value_size 8, nothing for 4, no fd updates), delete errnos, iteration,
 * and release of an owner from every socket map of a registry. */
#include <errno.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static int mk(struct bpfvm_registry *reg, uint32_t type, uint32_t ks, uint32_t vs, uint32_t n,
	      uint32_t flags, struct bpfvm_map **m)
{
	struct bpfvm_map_def d = {
	    .type = type, .key_size = ks, .value_size = vs, .max_entries = n, .map_flags = flags};
	return bpfvm_map_create(reg, &d, m);
}

START_TEST(sock_create_errnos)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 8, 0, 0, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 8, 8, 4, 0, &m), -EINVAL); /* u32 index */
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 6, 4, 0, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 8, 4, 1 /* NO_PREALLOC */, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKHASH, 0, 8, 4, 0, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKHASH, 513, 8, 4, 0, &m), -E2BIG);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKHASH, 12, 4, 4, 0, &m), 0);
	bpfvm_map_put(m);
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 4, 4, 4 /* NUMA_NODE */, &m), 0);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(sockmap_update_lookup_delete)
{
	struct bpfvm_map *m, *m4;
	int sock_a, sock_b;
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 8, 2, 0, &m), 0);
	uint32_t k = 0, big = 2, next = 99;
	uint64_t v = 1;
	ck_assert_int_eq(bpfvm_sock_map_update(m, &k, &sock_a, 11, 3), -EINVAL); /* flags */
	ck_assert_int_eq(bpfvm_sock_map_update(m, &big, &sock_a, 11, 0), -E2BIG);
	ck_assert_int_eq(bpfvm_sock_map_update(m, &k, &sock_a, 11, BPFVM_EXIST), -ENOENT);
	ck_assert_int_eq(bpfvm_sock_map_update(m, &k, &sock_a, 11, BPFVM_NOEXIST), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(m, &k, &sock_b, 12, BPFVM_NOEXIST), -EEXIST);
	uint64_t *cookie = bpfvm_map_lookup(m, &k);
	ck_assert_ptr_nonnull(cookie);
	ck_assert_uint_eq(*cookie, 11);
	ck_assert_ptr_eq(bpfvm_sock_map_owner(m, &k), &sock_a);
	ck_assert_int_eq(bpfvm_sock_map_update(m, &k, &sock_b, 12, BPFVM_EXIST), 0);
	ck_assert_ptr_eq(bpfvm_sock_map_owner(m, &k), &sock_b);
	ck_assert_ptr_null(bpfvm_map_lookup(m, &big));
	/* no socket fds in user space */
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, 0), -EOPNOTSUPP);
	/* a sockmap iterates every index, as the kernel's */
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &next), 0);
	ck_assert_uint_eq(next, 0);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &next, &next), 0);
	ck_assert_uint_eq(next, 1);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &next, &next), -ENOENT);
	ck_assert_int_eq(bpfvm_map_delete(m, &big), -EINVAL);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -EINVAL); /* empty slot */
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	/* the syscall lookup needs room for the cookie (Linux: -ENOSPC) */
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKMAP, 4, 4, 2, 0, &m4), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(m4, &k, &sock_a, 11, 0), 0);
	ck_assert_ptr_null(bpfvm_map_lookup(m4, &k));
	ck_assert_ptr_eq(bpfvm_sock_map_owner(m4, &k), &sock_a);
	bpfvm_map_put(m);
	bpfvm_map_put(m4);
}
END_TEST

START_TEST(sockhash_update_full_delete)
{
	struct bpfvm_map *m, *arr;
	int s[3];
	uint8_t k[3][6] = {{1}, {2}, {3}}, got[6];
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_SOCKHASH, 6, 8, 2, 0, &m), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(m, k[0], &s[0], 1, 0), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(m, k[1], &s[1], 2, 0), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(m, k[2], &s[2], 3, 0), -E2BIG); /* full */
	ck_assert_int_eq(bpfvm_sock_map_update(m, k[1], &s[2], 3, 0), 0);      /* replace */
	uint64_t *c = bpfvm_map_lookup(m, k[1]);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(*c, 3);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, got), 0);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, got, got), 0);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, got, got), -ENOENT);
	ck_assert_int_eq(bpfvm_map_delete(m, k[2]), -ENOENT);
	ck_assert_int_eq(bpfvm_map_delete(m, k[0]), 0);
	ck_assert_ptr_null(bpfvm_sock_map_owner(m, k[0]));
	/* the helpers refuse a map of another type */
	ck_assert_int_eq(mk(NULL, BPFVM_MAP_ARRAY, 4, 8, 2, 0, &arr), 0);
	ck_assert_int_eq(bpfvm_sock_map_update(arr, k[0], &s[0], 1, 0), -EINVAL);
	bpfvm_map_put(arr);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(sock_release_all_maps)
{
	struct bpfvm_registry *reg;
	struct bpfvm_map *sm, *sh;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	ck_assert_int_eq(mk(reg, BPFVM_MAP_SOCKMAP, 4, 8, 8, 0, &sm), 0);
	ck_assert_int_eq(mk(reg, BPFVM_MAP_SOCKHASH, 4, 8, 8, 0, &sh), 0);
	int a, b;
	for (uint32_t i = 0; i < 8; i++) /* a in every even slot, b in the odd ones */
		ck_assert_int_eq(bpfvm_sock_map_update(sm, &i, i % 2 ? &b : &a, 1, 0), 0);
	uint32_t k = 5;
	ck_assert_int_eq(bpfvm_sock_map_update(sh, &k, &a, 1, 0), 0);
	k = 6;
	ck_assert_int_eq(bpfvm_sock_map_update(sh, &k, &b, 2, 0), 0);
	bpfvm_sock_release(reg, &a);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_ptr_eq(bpfvm_sock_map_owner(sm, &i), i % 2 ? &b : NULL);
	k = 5;
	ck_assert_ptr_null(bpfvm_sock_map_owner(sh, &k));
	k = 6;
	ck_assert_ptr_eq(bpfvm_sock_map_owner(sh, &k), &b);
	/* one walk releases both kinds of socket-holding map */
	struct bpfvm_map *st;
	struct bpfvm_map_def sd = {.type = BPFVM_MAP_SK_STORAGE,
				   .key_size = 4,
				   .value_size = 8,
				   .map_flags = 1 /* NO_PREALLOC */};
	ck_assert_int_eq(bpfvm_map_create(reg, &sd, &st), 0);
	ck_assert_ptr_nonnull(bpfvm_sk_storage_get(st, &b, NULL, 1));
	bpfvm_sock_release(reg, &b);
	ck_assert_ptr_null(bpfvm_sk_storage_get(st, &b, NULL, 0));
	ck_assert_ptr_null(bpfvm_sock_map_owner(sh, &k));
	k = 1;
	ck_assert_ptr_null(bpfvm_sock_map_owner(sm, &k));
	bpfvm_map_put(st);
	bpfvm_map_put(sm);
	bpfvm_map_put(sh);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *sock_suite(void)
{
	Suite *s = suite_create("bpfvm_map_sockmap");
	TCase *tc = tcase_create("sockmap");
	tcase_add_test(tc, sock_create_errnos);
	tcase_add_test(tc, sockmap_update_lookup_delete);
	tcase_add_test(tc, sockhash_update_full_delete);
	tcase_add_test(tc, sock_release_all_maps);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(sock_suite)
