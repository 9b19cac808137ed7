/* sk_storage maps: kernel validation, get with/without F_CREATE and init value,
 * delete, release of an owner across every sk_storage map of a registry. */
#include <errno.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static int mk(struct bpfvm_registry *reg, uint32_t ks, uint32_t vs, uint32_t n, uint32_t flags,
	      struct bpfvm_map **m)
{
	struct bpfvm_map_def d = {.type = BPFVM_MAP_SK_STORAGE,
				  .key_size = ks,
				  .value_size = vs,
				  .max_entries = n,
				  .map_flags = flags};
	return bpfvm_map_create(reg, &d, m);
}

START_TEST(sk_create_errnos)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(NULL, 4, 8, 0, 0, &m), -EINVAL); /* needs NO_PREALLOC */
	ck_assert_int_eq(mk(NULL, 4, 8, 1, 1, &m), -EINVAL); /* max_entries must be 0 */
	ck_assert_int_eq(mk(NULL, 8, 8, 0, 1, &m), -EINVAL); /* key is an int fd */
	ck_assert_int_eq(mk(NULL, 4, 0, 0, 1, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, 4, 8, 0, 1 | 4, &m), -EINVAL);
	ck_assert_int_eq(mk(NULL, 4, 1u << 30, 0, 1, &m), -E2BIG);
	ck_assert_int_eq(mk(NULL, 4, 8, 0, 1, &m), 0);
	int fd = 3;
	uint64_t v = 1;
	ck_assert_ptr_null(bpfvm_map_lookup(m, &fd));
	ck_assert_int_eq(bpfvm_map_update(m, &fd, &v, 0), -EOPNOTSUPP);
	ck_assert_int_eq(bpfvm_map_delete(m, &fd), -EOPNOTSUPP);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &fd), -EOPNOTSUPP);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(sk_get_create_delete)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(NULL, 4, 12, 0, 1, &m), 0);
	int sock_a, sock_b;
	ck_assert_ptr_null(bpfvm_sk_storage_get(m, &sock_a, NULL, 0));
	ck_assert_ptr_null(bpfvm_sk_storage_get(m, &sock_a, NULL, 2)); /* unknown flag */
	ck_assert_ptr_null(bpfvm_sk_storage_get(m, NULL, NULL, 1));
	uint8_t init[12] = {7, 7, 7};
	uint8_t *a = bpfvm_sk_storage_get(m, &sock_a, init, 1);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a[0], 7);
	ck_assert_int_eq(((uintptr_t)a) % 8, 0);
	a[5] = 9;
	ck_assert_ptr_eq(bpfvm_sk_storage_get(m, &sock_a, NULL, 0), a);
	ck_assert_ptr_eq(bpfvm_sk_storage_get(m, &sock_a, init, 1), a); /* existing kept */
	ck_assert_int_eq(a[5], 9);
	uint8_t *b = bpfvm_sk_storage_get(m, &sock_b, NULL, 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b[0], 0); /* no init: zeroed */
	ck_assert(bpfvm_map_owns(m, a, 12));
	ck_assert(!bpfvm_map_owns(m, a + 4, 9));
	ck_assert_int_eq(bpfvm_sk_storage_delete(m, &sock_a), 0);
	ck_assert_int_eq(bpfvm_sk_storage_delete(m, &sock_a), -ENOENT);
	ck_assert_ptr_null(bpfvm_sk_storage_get(m, &sock_a, NULL, 0));
	ck_assert_ptr_eq(bpfvm_sk_storage_get(m, &sock_b, NULL, 0), b);
	bpfvm_map_put(m);
}
END_TEST

/* Issue 25 class 9: deleted while a program invocation runs, an element
 * stays readable until the outermost invocation of this thread ends (the
 * kernel's RCU grace period); outside one it is freed at once. ASan checks
 * both (a use after free, or a leak). */
START_TEST(sk_delete_during_run_is_deferred)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(NULL, 4, 16, 0, 1, &m), 0);
	int sock_a;
	uint64_t init[2] = {42, 43};
	bpfvm_run_enter();
	bpfvm_run_enter(); /* a tail call or a nested harness: still one run */
	uint64_t *v = bpfvm_sk_storage_get(m, &sock_a, init, 1);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(bpfvm_sk_storage_delete(m, &sock_a), 0);
	ck_assert_ptr_null(bpfvm_sk_storage_get(m, &sock_a, NULL, 0));
	bpfvm_run_exit();
	ck_assert_uint_eq(v[0], 42); /* the program still holds it: still valid */
	ck_assert_uint_eq(v[1], 43);
	v[1] = 7;
	bpfvm_run_exit(); /* freed here */
	/* a new element for the same socket is a fresh one */
	v = bpfvm_sk_storage_get(m, &sock_a, NULL, 1);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v[1], 0);
	ck_assert_int_eq(bpfvm_sk_storage_delete(m, &sock_a), 0); /* no run: freed at once */
	bpfvm_map_put(m);
}
END_TEST

START_TEST(sk_release_all_maps)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *m1, *m2, *arr;
	ck_assert_int_eq(mk(reg, 4, 8, 0, 1, &m1), 0);
	ck_assert_int_eq(mk(reg, 4, 16, 0, 1, &m2), 0);
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &arr), 0);
	int s1, s2;
	ck_assert_ptr_nonnull(bpfvm_sk_storage_get(m1, &s1, NULL, 1));
	ck_assert_ptr_nonnull(bpfvm_sk_storage_get(m2, &s1, NULL, 1));
	ck_assert_ptr_nonnull(bpfvm_sk_storage_get(m2, &s2, NULL, 1));
	bpfvm_sock_release(reg, &s1);
	ck_assert_ptr_null(bpfvm_sk_storage_get(m1, &s1, NULL, 0));
	ck_assert_ptr_null(bpfvm_sk_storage_get(m2, &s1, NULL, 0));
	ck_assert_ptr_nonnull(bpfvm_sk_storage_get(m2, &s2, NULL, 0));
	/* wrong map type is refused */
	ck_assert_ptr_null(bpfvm_sk_storage_get(arr, &s2, NULL, 1));
	ck_assert_int_eq(bpfvm_sk_storage_delete(arr, &s2), -EINVAL);
	bpfvm_map_put(m1);
	bpfvm_map_put(m2);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *sk_suite(void)
{
	Suite *s = suite_create("bpfvm_map_sk_storage");
	TCase *tc = tcase_create("sk_storage");
	tcase_add_test(tc, sk_create_errnos);
	tcase_add_test(tc, sk_get_create_delete);
	tcase_add_test(tc, sk_delete_during_run_is_deferred);
	tcase_add_test(tc, sk_release_all_maps);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(sk_suite)
