/* ringbuf and perf event array maps: validation, reserve/submit/discard order,
 * wrap-around padding, fullness, consume sizes, query values. */
#include <errno.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t n, struct bpfvm_map **m)
{
	struct bpfvm_map_def d = {.type = type, .key_size = ks, .value_size = vs, .max_entries = n};
	return bpfvm_map_create(NULL, &d, m);
}

START_TEST(ringbuf_create_errnos)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 0, &m), -EINVAL);
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 4096 * 3, &m), -EINVAL); /* not pow2 */
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 2048, &m), -EINVAL);     /* below a page */
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 4, 0, 4096, &m), -EINVAL);
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 4, 4096, &m), -EINVAL);
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 1u << 31, &m), -E2BIG);
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 4096, &m), 0);
	uint32_t k = 0;
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	ck_assert_int_eq(bpfvm_map_update(m, &k, &k, 0), -EOPNOTSUPP);
	bpfvm_map_put(m);
	ck_assert_int_eq(mk(BPFVM_MAP_PERF_EVENT_ARRAY, 4, 8, 4, &m), -EINVAL);
	ck_assert_int_eq(mk(BPFVM_MAP_PERF_EVENT_ARRAY, 4, 4, 0, &m), -EINVAL);
}
END_TEST

START_TEST(ringbuf_order_and_discard)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 4096, &m), 0);
	char buf[64];
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 0);
	ck_assert_ptr_null(bpfvm_ringbuf_reserve(m, 0, 0));
	ck_assert_ptr_null(bpfvm_ringbuf_reserve(m, 8, 1));
	char *a = bpfvm_ringbuf_reserve(m, 5, 0);
	char *b = bpfvm_ringbuf_reserve(m, 3, 0);
	char *c = bpfvm_ringbuf_reserve(m, 4, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert(bpfvm_map_owns(m, a, 5));
	memcpy(a, "hello", 5);
	memcpy(b, "abc", 3);
	memcpy(c, "wxyz", 4);
	ck_assert_uint_eq(bpfvm_ringbuf_query(m, 0), 16 + 16 + 16);
	ck_assert_uint_eq(bpfvm_ringbuf_query(m, 1), 4096);
	ck_assert_uint_eq(bpfvm_ringbuf_query(m, 3), 48);
	bpfvm_ringbuf_submit(b, 0);
	/* a is still busy: nothing after it may be consumed */
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 0);
	bpfvm_ringbuf_discard(a, 0);
	bpfvm_ringbuf_submit(c, 0);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, 2), -ENOSPC);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 3);
	ck_assert_mem_eq(buf, "abc", 3);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 4);
	ck_assert_mem_eq(buf, "wxyz", 4);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 0);
	ck_assert_uint_eq(bpfvm_ringbuf_query(m, 0), 0);
	ck_assert_uint_eq(bpfvm_ringbuf_query(m, 2), 48);
	ck_assert_int_eq(bpfvm_ringbuf_output(m, "q", 1, 4), -EINVAL);
	ck_assert_int_eq(bpfvm_ringbuf_output(m, "q", 0, 0), -EINVAL);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(ringbuf_full_and_wrap)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(BPFVM_MAP_RINGBUF, 0, 0, 4096, &m), 0);
	uint8_t rec[1000], out[1000];
	ck_assert_ptr_null(bpfvm_ringbuf_reserve(m, 4096, 0));
	int n = 0;
	for (int i = 0; i < 10; i++) {
		memset(rec, i, sizeof rec);
		if (bpfvm_ringbuf_output(m, rec, sizeof rec, 0) == 0)
			n++;
	}
	ck_assert_int_eq(n, 4); /* 1008 bytes each in 4096 */
	ck_assert_int_eq(bpfvm_ringbuf_output(m, rec, sizeof rec, 0), -EAGAIN);
	/* drain two, then a record that no longer fits before the end wraps */
	for (int round = 0; round < 20; round++) {
		ck_assert_int_eq(bpfvm_ringbuf_consume(m, out, sizeof out), 1000);
		memset(rec, 100 + round, sizeof rec);
		ck_assert_int_eq(bpfvm_ringbuf_output(m, rec, sizeof rec, 0), 0);
	}
	int got = 0;
	uint8_t last = 0;
	while (bpfvm_ringbuf_consume(m, out, sizeof out) == 1000 && got < 10) {
		last = out[999];
		got++;
	}
	ck_assert_int_eq(got, 4);
	ck_assert_uint_eq(last, 119);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(perf_array_queue)
{
	struct bpfvm_map *m;
	ck_assert_int_eq(mk(BPFVM_MAP_PERF_EVENT_ARRAY, 4, 4, 4, &m), 0);
	uint32_t k = 1, v = 9, next;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_NOEXIST), -EINVAL);
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), 0);
	ck_assert_ptr_null(bpfvm_map_lookup(m, &k));
	ck_assert_int_eq(bpfvm_map_delete(m, &k), 0);
	ck_assert_int_eq(bpfvm_map_delete(m, &k), -ENOENT);
	k = 4;
	ck_assert_int_eq(bpfvm_map_update(m, &k, &v, BPFVM_ANY), -E2BIG);
	ck_assert_int_eq(bpfvm_map_get_next_key(m, NULL, &next), 0);
	ck_assert_uint_eq(next, 0);
	k = 3;
	ck_assert_int_eq(bpfvm_map_get_next_key(m, &k, &next), -ENOENT);
	ck_assert_int_eq(bpfvm_ringbuf_output(m, "event1", 6, 0), 0);
	ck_assert_int_eq(bpfvm_ringbuf_output(m, "ev2", 3, 0), 0);
	char buf[16];
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 6);
	ck_assert_mem_eq(buf, "event1", 6);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 3);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), 0);
	bpfvm_map_put(m);
	/* other map types have no ring */
	ck_assert_int_eq(mk(BPFVM_MAP_ARRAY, 4, 4, 1, &m), 0);
	ck_assert_int_eq(bpfvm_ringbuf_output(m, "x", 1, 0), -EINVAL);
	ck_assert_int_eq(bpfvm_ringbuf_consume(m, buf, sizeof buf), -EINVAL);
	ck_assert_ptr_null(bpfvm_ringbuf_reserve(m, 8, 0));
	bpfvm_map_put(m);
}
END_TEST

static Suite *rb_suite(void)
{
	Suite *s = suite_create("bpfvm_map_ringbuf");
	TCase *tc = tcase_create("ringbuf");
	tcase_add_test(tc, ringbuf_create_errnos);
	tcase_add_test(tc, ringbuf_order_and_discard);
	tcase_add_test(tc, ringbuf_full_and_wrap);
	tcase_add_test(tc, perf_array_queue);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(rb_suite)
