/* Hash, per-cpu hash and LRU hash maps: validation errnos, update flags,
 * fullness, LRU eviction order, get_next_key walks, per-cpu slots, owns(). */
#include <errno.h>
#include <pthread.h>
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

START_TEST(hash_create_errnos)
{
	int err;
	static const uint32_t types[] = {BPFVM_MAP_HASH, BPFVM_MAP_PERCPU_HASH, BPFVM_MAP_LRU_HASH};
	for (size_t i = 0; i < 3; i++) {
		uint32_t t = types[i];
		ck_assert_ptr_null(mk(t, 0, 8, 4, 0, &err));
		ck_assert_int_eq(err, -EINVAL);
		ck_assert_ptr_null(mk(t, 4, 0, 4, 0, &err));
		ck_assert_int_eq(err, -EINVAL);
		ck_assert_ptr_null(mk(t, 4, 8, 0, 0, &err));
		ck_assert_int_eq(err, -EINVAL);
		ck_assert_ptr_null(mk(t, 513, 8, 4, 0, &err));
		ck_assert_int_eq(err, -E2BIG);
		ck_assert_ptr_null(mk(t, 4, 8, 4, 1u << 12, &err));
		ck_assert_int_eq(err, -EINVAL);
		ck_assert_ptr_null(mk(t, 4, 8, 0xffffffffu, 0, &err));
		ck_assert_int_eq(err, -E2BIG);
		ck_assert_ptr_null(mk(t, 64, 4096, 1u << 30, 0, &err));
		ck_assert_int_eq(err, -ENOMEM);
	}
	ck_assert_ptr_null(mk(BPFVM_MAP_HASH, 4, 8, 4, 2 /* NO_COMMON_LRU */, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(mk(BPFVM_MAP_LRU_HASH, 4, 8, 4, 1 /* NO_PREALLOC */, &err));
	ck_assert_int_eq(err, -EINVAL);
	struct bpfvm_map *m = mk(BPFVM_MAP_HASH, 4, 8, 4, 1, &err);
	ck_assert_int_eq(err, 0);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(hash_flags_and_full)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_HASH, 8, 12, 3, 0, &err);
	ck_assert_int_eq(err, 0);
	uint64_t k = 10;
	uint8_t v[12] = {1, 2, 3};
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_EXIST), -ENOENT);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, 4), -EINVAL);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_NOEXIST), 0);
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_NOEXIST), -EEXIST);
	v[0] = 9;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_EXIST), 0);
	uint8_t *p = bpfvm_map_lookup(m, &k);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[0], 9);
	ck_assert_int_eq(((uintptr_t)p) % 8, 0);
	ck_assert(bpfvm_map_owns(m, p, 12));
	ck_assert(!bpfvm_map_owns(m, p, 13));
	ck_assert(!bpfvm_map_owns(m, p - 8, 4)); /* the key */
	k = 11;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	k = 12;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	k = 13;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), -E2BIG);
	k = 12; /* replacing an existing key works when full */
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -ENOENT);
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	k = 13;
	ck_assert_int_eq(bpfvm_map_update(m, &k, v, BPFVM_ANY), 0);
	/* a new element starts from the value written, nothing stale */
	uint8_t *q = bpfvm_map_lookup(m, &k);
	ck_assert_int_eq(q[11], 0);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(hash_next_key_walk)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_HASH, 4, 4, 64, 0, &err);
	uint32_t k, v = 0, next, seen[64] = {0};
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &next), -ENOENT);
	for (k = 0; k < 40; k++)
		ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	uint32_t order[40], n = 0;
	int rc = bpfvm_map_get_next_key(m, NULL, &next);
	while (rc == 0 && n < 64) {
		ck_assert_uint_lt(next, 40);
		ck_assert_uint_eq(seen[next], 0);
		seen[next] = 1;
		order[n++] = next;
		k = next;
		rc = bpfvm_map_get_next_key(m, &k, &next);
	}
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_uint_eq(n, 40);
	/* the same walk again gives the same order */
	rc = bpfvm_map_get_next_key(m, NULL, &next);
	for (uint32_t i = 0; i < 40; i++) {
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_eq(next, order[i]);
		k = next;
		rc = bpfvm_map_get_next_key(m, &k, &next);
	}
	/* a missing key restarts at the first */
	k = 1000;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), 0);
	ck_assert_uint_eq(next, order[0]);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(lru_evicts_least_recent)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_LRU_HASH, 4, 4, 3, 0, &err);
	ck_assert_int_eq(err, 0);
	uint32_t k, v;
	for (k = 1; k <= 3; k++) {
		v = k * 10;
		ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	}
	k = 1; /* touch 1: 2 is now the oldest */
	ck_assert_ptr_nonnull(bpfvm_map_lookup(m, &k));
	k = 4;
	v = 40;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_NOEXIST), 0);
	k = 2;
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	k = 3; /* update refreshes too: 1 is now the oldest */
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_EXIST), 0);
	k = 5;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	k = 1;
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	for (k = 3; k <= 5; k++)
		ck_assert_ptr_nonnull(bpfvm_map_lookup(m, &k));
	k = 3;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_NOEXIST), -EEXIST);
	k = 9;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_EXIST), -ENOENT);
	k = 4;
	ck_assert_int_eq(bpfvm_map_delete(m, &k), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -ENOENT);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(percpu_hash_slots)
{
	int err;
	struct bpfvm_map *m = mk(BPFVM_MAP_PERCPU_HASH, 4, 4, 4, 0, &err);
	ck_assert_int_eq(err, 0);
	uint32_t k = 7, v = 1;
	bpfvm_set_cpu(0);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	bpfvm_set_cpu(5);
	ck_assert_uint_eq(*(uint32_t *)bpfvm_map_lookup(m, &k), 0); /* other cpus start zeroed */
	v = 2;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_EXIST), 0);
	uint32_t *p = bpfvm_map_lookup(m, &k);
	ck_assert_uint_eq(*p, 2);
	ck_assert(bpfvm_map_owns(m, p, 4));
	bpfvm_set_cpu(0);
	ck_assert_uint_eq(*(uint32_t *)bpfvm_map_lookup(m, &k), 1);
	uint64_t all[BPFVM_MAX_CPUS];
	ck_assert_int_eq(bpfvm_map_lookup_percpu(m, &k, all), 0);
	ck_assert_uint_eq((uint32_t)all[0], 1);
	ck_assert_uint_eq((uint32_t)all[5], 2);
	k = 8;
	ck_assert_int_eq(bpfvm_map_lookup_percpu(m, &k, all), -ENOENT);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(hash_registered_ids)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map_def d = {
	    .type = BPFVM_MAP_HASH, .key_size = 4, .value_size = 4, .max_entries = 2, .name = "h1"};
	struct bpfvm_map *a, *b, *got;
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &a), 0);
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &b), 0);
	ck_assert_uint_gt(bpfvm_map_id(a), 0);
	ck_assert_uint_ne(bpfvm_map_id(a), bpfvm_map_id(b));
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, bpfvm_map_id(b), &got), 0);
	ck_assert_ptr_eq(got, b);
	bpfvm_map_put(got);
	struct bpfvm_map_info info;
	bpfvm_map_info(a, &info);
	ck_assert_str_eq(info.name, "h1");
	ck_assert_uint_eq(info.id, bpfvm_map_id(a));
	uint32_t id = bpfvm_map_id(a);
	bpfvm_map_put(a);
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, id, &got), -ENOENT);
	bpfvm_map_put(b);
	bpfvm_registry_destroy(reg);
}
END_TEST

struct racer {
	struct bpfvm_map *m;
	uint32_t base;
	unsigned cpu;
	int errors;
};

/* Each thread owns a key range on its own cpu index: insert, bump through the
 * looked-up pointer, delete half; the map's lock keeps chains consistent. */
static void *race(void *arg)
{
	struct racer *r = arg;
	bpfvm_set_cpu(r->cpu);
	for (uint32_t round = 0; round < 20; round++)
		for (uint32_t i = 0; i < 100; i++) {
			uint32_t k = r->base + i, v = round;
			int rc = bpfvm_map_update(r->m, &k, &v, BPFVM_ANY);
			uint32_t *p = bpfvm_map_lookup(r->m, &k);
			if (rc || !p)
				r->errors++;
			else
				(*p)++;
			if (i % 2 && bpfvm_map_delete(r->m, &k))
				r->errors++;
		}
	return NULL;
}

START_TEST(hash_concurrent)
{
	static const uint32_t types[] = {BPFVM_MAP_HASH, BPFVM_MAP_PERCPU_HASH, BPFVM_MAP_LRU_HASH};
	for (size_t t = 0; t < 3; t++) {
		int err;
		struct bpfvm_map *m = mk(types[t], 4, 4, 400, 0, &err);
		ck_assert_int_eq(err, 0);
		pthread_t th[4];
		struct racer r[4];
		for (unsigned i = 0; i < 4; i++) {
			r[i] = (struct racer){.m = m, .base = i * 1000, .cpu = i};
			ck_assert_int_eq(pthread_create(&th[i], NULL, race, &r[i]), 0);
		}
		for (unsigned i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			ck_assert_int_eq(r[i].errors, 0);
		}
		/* 4 threads x 50 keys left, each 19 + 1 on its thread's cpu */
		uint32_t k, next, n = 0;
		int rc = bpfvm_map_get_next_key(m, NULL, &next);
		while (rc == 0 && n < 1000) {
			n++;
			k = next;
			bpfvm_set_cpu((k / 1000));
			ck_assert_uint_eq(*(uint32_t *)bpfvm_map_lookup(m, &k), 20);
			rc = bpfvm_map_get_next_key(m, &k, &next);
		}
		ck_assert_uint_eq(n, 200);
		bpfvm_set_cpu(0);
		bpfvm_map_put(m);
	}
}
END_TEST

static Suite *map_hash_suite(void)
{
	Suite *s = suite_create("bpfvm_map_hash");
	TCase *tc = tcase_create("hash");
	tcase_add_test(tc, hash_create_errnos);
	tcase_add_test(tc, hash_flags_and_full);
	tcase_add_test(tc, hash_next_key_walk);
	tcase_add_test(tc, lru_evicts_least_recent);
	tcase_add_test(tc, percpu_hash_slots);
	tcase_add_test(tc, hash_registered_ids);
	tcase_add_test(tc, hash_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(map_hash_suite)
