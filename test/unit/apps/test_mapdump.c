/* apps/lib/mapdump: the JSON skcat --dump-maps prints, byte for byte, for an
 * array, a hash, a per-CPU array and a ringbuf (no entries), and the empty
 * registry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "check_main.h"
#include "mapdump.h"

static char *dump(struct bpfvm_registry *reg, unsigned ncpus, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	*rc = mapdump_json(f, reg, ncpus);
	fclose(f);
	return buf;
}

static struct bpfvm_map *mk(struct bpfvm_registry *reg, uint32_t type, uint32_t ks, uint32_t vs,
			    uint32_t max, const char *name)
{
	struct bpfvm_map_def d = {
	    .type = type, .key_size = ks, .value_size = vs, .max_entries = max};
	struct bpfvm_map *m;
	snprintf(d.name, sizeof(d.name), "%s", name);
	ck_assert_int_eq(bpfvm_map_create(reg, &d, &m), 0);
	return m;
}

START_TEST(empty_registry)
{
	struct bpfvm_registry *reg;
	int rc;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	char *s = dump(reg, 1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(s, "[]\n");
	free(s);
	free(dump(reg, 0, &rc));
	ck_assert_int_eq(rc, -EINVAL);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(maps)
{
	struct bpfvm_registry *reg;
	int rc;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *a = mk(reg, BPFVM_MAP_ARRAY, 4, 2, 2, "counts");
	struct bpfvm_map *h = mk(reg, BPFVM_MAP_HASH, 2, 1, 4, "side");
	struct bpfvm_map *p = mk(reg, BPFVM_MAP_PERCPU_ARRAY, 4, 4, 1, "pc");
	struct bpfvm_map *r = mk(reg, BPFVM_MAP_RINGBUF, 0, 0, 4096, "rb");
	uint32_t k = 1;
	uint16_t v = 0xbeef, hk = 0x0102;
	uint8_t hv = 7;
	ck_assert_int_eq(bpfvm_map_update(a, &k, &v, BPFVM_ANY), 0);
	ck_assert_int_eq(bpfvm_map_update(h, &hk, &hv, BPFVM_ANY), 0);
	k = 0;
	bpfvm_set_cpu(1);
	uint32_t pv = 0x11223344;
	ck_assert_int_eq(bpfvm_map_update(p, &k, &pv, BPFVM_ANY), 0);
	bpfvm_set_cpu(0);
	char *s = dump(reg, 2, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(
	    s, "[{\"id\":1,\"type\":\"array\",\"name\":\"counts\",\"flags\":0,\"bytes_key\":4,"
	       "\"bytes_value\":2,\"max_entries\":2,\"entries\":["
	       "{\"key\":[\"0x00\",\"0x00\",\"0x00\",\"0x00\"],\"value\":[\"0x00\",\"0x00\"]},"
	       "{\"key\":[\"0x01\",\"0x00\",\"0x00\",\"0x00\"],\"value\":[\"0xef\",\"0xbe\"]}]},"
	       "{\"id\":2,\"type\":\"hash\",\"name\":\"side\",\"flags\":0,\"bytes_key\":2,"
	       "\"bytes_value\":1,\"max_entries\":4,\"entries\":["
	       "{\"key\":[\"0x02\",\"0x01\"],\"value\":[\"0x07\"]}]},"
	       "{\"id\":3,\"type\":\"percpu_array\",\"name\":\"pc\",\"flags\":0,\"bytes_key\":4,"
	       "\"bytes_value\":4,\"max_entries\":1,\"entries\":["
	       "{\"key\":[\"0x00\",\"0x00\",\"0x00\",\"0x00\"],\"values\":["
	       "{\"cpu\":0,\"value\":[\"0x00\",\"0x00\",\"0x00\",\"0x00\"]},"
	       "{\"cpu\":1,\"value\":[\"0x44\",\"0x33\",\"0x22\",\"0x11\"]}]}]},"
	       "{\"id\":4,\"type\":\"ringbuf\",\"name\":\"rb\",\"flags\":0,\"bytes_key\":0,"
	       "\"bytes_value\":0,\"max_entries\":4096,\"entries\":[]}]\n");
	free(s);
	bpfvm_map_put(a);
	bpfvm_map_put(h);
	bpfvm_map_put(p);
	bpfvm_map_put(r);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mapdump");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, empty_registry);
	tcase_add_test(tc, maps);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
