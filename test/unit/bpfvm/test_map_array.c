/* Array and per-cpu array maps: validation errnos, update flags, index range,
 * get_next_key order and per-cpu slots, as kernel/bpf/arraymap.c behaves. */
#include <errno.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static struct bpfvm_map *mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t n, uint32_t flags,
			    int *err)
{
	struct bpfvm_map_def d = {
	    .type = type, .key_size = ks, .value_size = vs, .max_entries = n, .map_flags = flags};
	struct bpfvm_map *m = NULL;
	*err = bpfvm_map_create(NULL, &d, &m);
	return m;
}

START_TEST(array_create_errnos)
{
	int err;
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 4, 8, 0, 0, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 8, 8, 4, 0, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 4, 0, 4, 0, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 0, 8, 4, 0, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 4, 8, 4, 1u << 20, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 4, 1u << 30, 1, 0, &err));
	ck_assert_int_eq(err, -E2BIG);
	ck_assert_ptr_null(mk(BPFVM_MAP_ARRAY, 4, 4096, 0xffffffffu, 0, &err));
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_ptr_null(mk(BPFVM_MAP_PERCPU_ARRAY, 4, 64 * 1024, 1, 0, &err));
	ck_assert_int_eq(err, -E2BIG);
	ck_assert_ptr_null(mk(77, 4, 8, 4, 0, &err));
	ck_assert_int_eq(err, -EINVAL);
	struct bpfvm_map_def d = {.type = BPFVM_MAP_ARRAY,
				  .key_size = 4,
				  .value_size = 4,
				  .max_entries = 1,
				  .name = "bad-name"};
	struct bpfvm_map *m;
	ck_assert_int_eq(bpfvm_map_create(NULL, &d, &m), -EINVAL);
	ck_assert_int_eq(bpfvm_map_create(NULL, NULL, &m), -EINVAL);
}
END_TEST

START_TEST(array_update_lookup)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_ARRAY, 4, 12, 4, 0, &err);
	ck_assert_int_eq(err, 0);
	uint32_t k = 2;
	uint8_t v[12];
	memset(v, 0xab, sizeof v);
	uint8_t *p = bpfvm_map_lookup(m, &k);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[0], 0); /* preallocated zeroed */
	ck_assert_int_eq(((uintptr_t)p) % 8, 0);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_NOEXIST), -EEXIST);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, 3), -EINVAL);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_EXIST), 0);
	ck_assert_int_eq(p[11], 0xab);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	k = 4;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), -E2BIG);
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -EINVAL);
	k = 0;
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -EINVAL);
	ck_assert(bpfvm_map_owns(m, p, 12));
	ck_assert(bpfvm_map_owns(m, p + 4, 8));
	ck_assert(!bpfvm_map_owns(m, p + 4, 9));  /* past the value into padding */
	ck_assert(!bpfvm_map_owns(m, p + 12, 1)); /* padding */
	ck_assert(!bpfvm_map_owns(m, v, 1));
	struct bpfvm_map_info info;
	bpfvm_map_info(m, &info);
	ck_assert_uint_eq(info.type, BPFVM_MAP_ARRAY);
	ck_assert_uint_eq(info.value_size, 12);
	ck_assert_uint_eq(info.max_entries, 4);
	ck_assert_uint_eq(bpfvm_map_def(m)->key_size, 4);
	uint32_t vals[BPFVM_MAX_CPUS * 2];
	ck_assert_int_eq(bpfvm_map_lookup_percpu(m, &k, vals), -EINVAL);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(array_next_key)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_ARRAY, 4, 4, 3, 0, &err);
	uint32_t k, next = 99;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &next), 0);
	ck_assert_uint_eq(next, 0);
	k = 0;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), 0);
	ck_assert_uint_eq(next, 1);
	k = 1;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), 0);
	ck_assert_uint_eq(next, 2);
	k = 2;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), -ENOENT);
	k = 1000;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), 0);
	ck_assert_uint_eq(next, 0);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(percpu_array_slots)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_PERCPU_ARRAY, 4, 4, 2, 0, &err);
	ck_assert_int_eq(err, 0);
	uint32_t k = 1, v = 7;
	bpfvm_set_cpu(0);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	bpfvm_set_cpu(3);
	v = 9;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	ck_assert_uint_eq(*(uint32_t *)bpfvm_map_lookup(m, &k), 9);
	bpfvm_set_cpu(0);
	uint32_t *p = bpfvm_map_lookup(m, &k);
	ck_assert_uint_eq(*p, 7);
	ck_assert(bpfvm_map_owns(m, p, 4));
	uint64_t all[BPFVM_MAX_CPUS];
	ck_assert_int_eq(bpfvm_map_lookup_percpu(m, &k, all), 0);
	ck_assert_uint_eq((uint32_t)all[0], 7);
	ck_assert_uint_eq((uint32_t)all[3], 9);
	ck_assert_uint_eq((uint32_t)all[1], 0);
	k = 2;
	ck_assert_int_eq(bpfvm_map_lookup_percpu(m, &k, all), -ENOENT);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), -E2BIG);
	bpfvm_map_put(m);
}
END_TEST

/* A value with a struct bpf_spin_lock (the loader's BTF finds it): the map
 * type must be able to hold one, the word must be 4-byte aligned inside the
 * value, and an update never writes it (the kernel's copy_map_value). */
START_TEST(array_spin_lock_word)
{
	struct bpfvm_map_def d = {.type = BPFVM_MAP_ARRAY,
				  .key_size = 4,
				  .value_size = 12,
				  .max_entries = 1,
				  .has_spin_lock = true,
				  .spin_lock_off = 4};
	struct bpfvm_map *m = NULL;
	struct bpfvm_map_def bad = d;
	bad.spin_lock_off = 6;
	ck_assert_int_eq(bpfvm_map_create(NULL, &bad, &m), -EINVAL);
	bad.spin_lock_off = 12;
	ck_assert_int_eq(bpfvm_map_create(NULL, &bad, &m), -EINVAL);
	bad = d;
	bad.type = BPFVM_MAP_PERCPU_ARRAY;
	ck_assert_int_eq(bpfvm_map_create(NULL, &bad, &m), -EINVAL);
	ck_assert_int_eq(bpfvm_map_create(NULL, &d, &m), 0);
	uint32_t k = 0, v[3] = {7, 8, 9};
	uint32_t *val = bpfvm_map_lookup(m, &k);
	ck_assert_ptr_nonnull(val);
	val[1] = 1; /* held */
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	ck_assert_uint_eq(val[0], 7);
	ck_assert_uint_eq(val[1], 1);
	ck_assert_uint_eq(val[2], 9);
	bpfvm_map_put(m);
}
END_TEST

static Suite *map_array_suite(void)
{
	Suite *s = suite_create("bpfvm_map_array");
	TCase *tc = tcase_create("array");
	tcase_add_test(tc, array_create_errnos);
	tcase_add_test(tc, array_update_lookup);
	tcase_add_test(tc, array_next_key);
	tcase_add_test(tc, percpu_array_slots);
	tcase_add_test(tc, array_spin_lock_word);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(map_array_suite)
