/* Object registry: cyclic IDs (idr_alloc_cyclic semantics), next-id walks,
 * get-by-id after the last put, info fields, and the checks of the seed's
 * test_obj_id (seed 011) re-created against the bpfvm API. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <time.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"

static const struct bpfvm_insn ret0[] = {MOV64_K(0, 0), EXIT()};

START_TEST(ids_cyclic_and_never_reused_while_live)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *a = fx_load_ok(reg, ret0, 2, NULL, 0);
	struct bpfvm_prog *b = fx_load_ok(reg, ret0, 2, NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_id(a), 1);
	ck_assert_uint_eq(bpfvm_prog_id(b), 2);
	/* a freed id is not handed out again until the space wraps */
	bpfvm_prog_put(a);
	struct bpfvm_prog *c = fx_load_ok(reg, ret0, 2, NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_id(c), 3);
	/* maps have their own space */
	struct bpfvm_map *m = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	ck_assert_uint_eq(bpfvm_map_id(m), 1);
	/* wrap at INT_MAX back to 1, skipping live ids (2 and 3 are live) */
	bpfvm_reg_set_next_id(reg, false, INT_MAX);
	struct bpfvm_prog *d = fx_load_ok(reg, ret0, 2, NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_id(d), INT_MAX);
	struct bpfvm_prog *e = fx_load_ok(reg, ret0, 2, NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_id(e), 1);
	struct bpfvm_prog *f = fx_load_ok(reg, ret0, 2, NULL, 0);
	ck_assert_uint_eq(bpfvm_prog_id(f), 4);
	bpfvm_prog_put(b);
	bpfvm_prog_put(c);
	bpfvm_prog_put(d);
	bpfvm_prog_put(e);
	bpfvm_prog_put(f);
	bpfvm_map_put(m);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(next_id_walk_and_get_by_id)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *p[4];
	for (int i = 0; i < 4; i++)
		p[i] = fx_load_ok(reg, ret0, 2, NULL, 0);
	bpfvm_prog_put(p[1]); /* id 2 gone */
	uint32_t id = 0, seen[8], n = 0;
	while (bpfvm_prog_get_next_id(reg, id, &id) == 0 && n < 8)
		seen[n++] = id;
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(seen[0], 1);
	ck_assert_uint_eq(seen[1], 3);
	ck_assert_uint_eq(seen[2], 4);
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, 4, &id), -ENOENT);
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, UINT32_MAX, &id), -ENOENT);
	struct bpfvm_prog *got;
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 0, &got), -ENOENT);
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 2, &got), -ENOENT);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 3, &got), 0);
	ck_assert_ptr_eq(got, p[2]);
	/* the reference from get_by_id keeps it alive past the loader's put */
	bpfvm_prog_put(p[2]);
	ck_assert_uint_eq(bpfvm_prog_run(got, NULL, 0), 0);
	struct bpfvm_prog *again;
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 3, &again), 0);
	bpfvm_prog_put(again);
	bpfvm_prog_put(got);
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 3, &got), -ENOENT);
	ck_assert_int_eq(bpfvm_map_get_next_id(reg, 0, &id), -ENOENT);
	bpfvm_prog_put(p[0]);
	bpfvm_prog_put(p[3]);
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, 0, &id), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Objects outlive the registry handle: destroy first, put later. */
START_TEST(registry_outlived_by_objects)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *m = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	struct bpfvm_prog *p = fx_load_ok(reg, ret0, 2, &m, 0);
	bpfvm_registry_destroy(reg);
	ck_assert_uint_eq(bpfvm_prog_run(p, NULL, 0), 0);
	bpfvm_prog_put(p);
	bpfvm_map_put(m);
}
END_TEST

START_TEST(info_fields_and_stats)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *m = fx_map(reg, BPFVM_MAP_ARRAY, 4, 8, 1);
	struct bpfvm_insn insns[] = {LD_MAP(1, 0), LD_MAP(2, 0), MOV64_K(0, 0), EXIT()};
	struct timespec before;
	clock_gettime(CLOCK_REALTIME, &before);
	struct bpfvm_load_opts opts = {
	    .no_verify = true, .name = "a_rather_long_program_name", .uid = 1234};
	struct bpfvm_prog *p;
	ck_assert_int_eq(bpfvm_prog_load(reg, insns, NINSNS(insns), &m, 1, &opts, &p), 0);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.type, bpfvm_type_generic.type);
	ck_assert_uint_eq(info.id, bpfvm_prog_id(p));
	ck_assert_str_eq(info.name, "a_rather_long_p"); /* 15 chars kept */
	ck_assert_uint_eq(info.xlated_prog_len, NINSNS(insns) * 8);
	ck_assert_uint_eq(info.jited_prog_len, 0);
	ck_assert_uint_eq(info.nr_map_ids, 1); /* one map referenced twice */
	ck_assert_uint_eq(info.map_ids[0], bpfvm_map_id(m));
	ck_assert_uint_eq(info.created_by_uid, 1234);
	ck_assert_uint_ge(info.load_time,
			  (uint64_t)before.tv_sec * 1000000000ULL + (uint64_t)before.tv_nsec);
	ck_assert_uint_eq(info.run_cnt, 0);
	/* the tag covers the insns with the map pointers zeroed */
	uint8_t tag[BPFVM_TAG_SIZE];
	bpfvm_prog_tag(insns, NINSNS(insns), tag);
	ck_assert_mem_eq(info.tag, tag, sizeof(tag));
	bpfvm_prog_add_stats(p, 3, 1500);
	bpfvm_prog_add_stats(p, 1, 500);
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.run_cnt, 4);
	ck_assert_uint_eq(info.run_time_ns, 2000);
	/* relocated insns carry the map pointer, both slots */
	size_t n;
	const struct bpfvm_insn *x = bpfvm_prog_insns(p, &n);
	ck_assert_uint_eq(n, NINSNS(insns));
	uint64_t ptr = (uint64_t)(uint32_t)x[0].imm | (uint64_t)(uint32_t)x[1].imm << 32;
	ck_assert_uint_eq(ptr, (uint64_t)(uintptr_t)m);
	ck_assert_uint_eq(x[0].src, BPF_PSEUDO_MAP_FD);
	ck_assert_ptr_eq(bpfvm_prog_type(p), &bpfvm_type_generic);
	ck_assert_ptr_null(bpfvm_prog_jited(p, &n));
	ck_assert_uint_eq(n, 0);
	/* the program holds the map: it survives the creator's put */
	uint32_t mid = bpfvm_map_id(m);
	bpfvm_map_put(m);
	struct bpfvm_map *mm;
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, mid, &mm), 0);
	bpfvm_map_put(mm);
	bpfvm_prog_put(p);
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, mid, &mm), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* seed 011 test_bpf_obj_id, on this API: two loads of a program using a
 * one-entry array map; info by handle; the next-id walks find exactly ours;
 * info via the id equals info via the handle; the map value written through
 * one handle reads back through the other; after close, get-by-id fails. */
START_TEST(seed_011_obj_id)
{
	enum { NR_ITERS = 2 };
	const uint64_t magic = 0xfaceb00c;
	const uint32_t key = 0;
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_prog *probe;
	struct bpfvm_map *mprobe;
	ck_assert_int_eq(bpfvm_prog_get_by_id(reg, 0, &probe), -ENOENT);
	ck_assert_int_eq(bpfvm_map_get_by_id(reg, 0, &mprobe), -ENOENT);

	struct bpfvm_prog *progs[NR_ITERS];
	struct bpfvm_map *maps[NR_ITERS];
	struct bpfvm_prog_info pinfo[NR_ITERS];
	struct bpfvm_map_info minfo[NR_ITERS];
	for (int i = 0; i < NR_ITERS; i++) {
		struct bpfvm_map_def def = {
		    .type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};
		strcpy(def.name, "test_map_id");
		ck_assert_int_eq(bpfvm_map_create(reg, &def, &maps[i]), 0);
		/* the seed's dumb program: look the map up, return 0 */
		struct bpfvm_insn insns[] = {
		    ST(BPF_W, 10, -4, 0),
		    MOV64_X(2, 10),
		    ALU64_K(BPF_ADD, 2, -4),
		    LD_MAP(1, 0),
		    CALL(1),
		    MOV64_K(0, 0),
		    EXIT(),
		};
		progs[i] = fx_load_ok(reg, insns, NINSNS(insns), &maps[i], 1);
		bpfvm_prog_info(progs[i], &pinfo[i]);
		ck_assert_uint_eq(pinfo[i].type, bpfvm_type_generic.type);
		ck_assert_uint_ne(pinfo[i].xlated_prog_len, 0);
		ck_assert_uint_ne(pinfo[i].id, 0);
		ck_assert_int_eq(bpfvm_map_update(maps[i], &key, &magic, 0), 0);
		bpfvm_map_info(maps[i], &minfo[i]);
		ck_assert_uint_eq(minfo[i].type, BPFVM_MAP_ARRAY);
		ck_assert_uint_eq(minfo[i].key_size, 4);
		ck_assert_uint_eq(minfo[i].value_size, 8);
		ck_assert_uint_eq(minfo[i].max_entries, 1);
		ck_assert_uint_eq(minfo[i].map_flags, 0);
		ck_assert_str_eq(minfo[i].name, "test_map_id");
	}
	ck_assert_uint_ne(pinfo[0].id, pinfo[1].id);

	int found = 0;
	uint32_t next = 0;
	for (int guard = 0; bpfvm_prog_get_next_id(reg, next, &next) == 0 && guard < 100; guard++) {
		struct bpfvm_prog *p;
		if (bpfvm_prog_get_by_id(reg, next, &p) == -ENOENT)
			continue; /* dying */
		int i;
		for (i = 0; i < NR_ITERS; i++)
			if (pinfo[i].id == next)
				break;
		if (i < NR_ITERS) {
			found++;
			struct bpfvm_prog_info again;
			bpfvm_prog_info(p, &again);
			ck_assert_mem_eq(&again, &pinfo[i], sizeof(again));
		}
		bpfvm_prog_put(p);
	}
	ck_assert_int_eq(found, NR_ITERS);

	found = 0;
	next = 0;
	for (int guard = 0; bpfvm_map_get_next_id(reg, next, &next) == 0 && guard < 100; guard++) {
		struct bpfvm_map *m;
		if (bpfvm_map_get_by_id(reg, next, &m) == -ENOENT)
			continue;
		int i;
		for (i = 0; i < NR_ITERS; i++)
			if (minfo[i].id == next)
				break;
		if (i < NR_ITERS) {
			found++;
			uint64_t *v = bpfvm_map_lookup(m, &key);
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(*v, magic);
			struct bpfvm_map_info again;
			bpfvm_map_info(m, &again);
			ck_assert_mem_eq(&again, &minfo[i], sizeof(again));
		}
		bpfvm_map_put(m);
	}
	ck_assert_int_eq(found, NR_ITERS);

	/* close everything: the ids are gone */
	for (int i = 0; i < NR_ITERS; i++) {
		bpfvm_prog_put(progs[i]);
		bpfvm_map_put(maps[i]);
		ck_assert_int_eq(bpfvm_prog_get_by_id(reg, pinfo[i].id, &probe), -ENOENT);
		ck_assert_int_eq(bpfvm_map_get_by_id(reg, minfo[i].id, &mprobe), -ENOENT);
	}
	bpfvm_registry_destroy(reg);
}
END_TEST

struct churn {
	struct bpfvm_registry *reg;
	int fails;
};

static void *churn_worker(void *arg)
{
	struct churn *c = arg;
	for (int i = 0; i < 2000; i++) {
		struct bpfvm_prog *p;
		struct bpfvm_load_opts opts = {.no_verify = true};
		if (bpfvm_prog_load(c->reg, ret0, 2, NULL, 0, &opts, &p)) {
			c->fails++;
			continue;
		}
		struct bpfvm_prog *q;
		if (bpfvm_prog_get_by_id(c->reg, bpfvm_prog_id(p), &q) != 0 || q != p)
			c->fails++;
		else
			bpfvm_prog_put(q);
		bpfvm_prog_put(p);
	}
	return NULL;
}

/* Concurrent loads, lookups and puts against walkers: no id is handed out
 * twice, nothing dying is returned (ASan/UBSan catch use-after-free). */
START_TEST(concurrent_churn)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct churn c[2] = {{reg, 0}, {reg, 0}};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn_worker, &c[i]), 0);
	for (int k = 0; k < 2000; k++) {
		uint32_t id = 0;
		for (int g = 0; g < 64 && bpfvm_prog_get_next_id(reg, id, &id) == 0; g++) {
			struct bpfvm_prog *p;
			if (bpfvm_prog_get_by_id(reg, id, &p) == 0) {
				ck_assert_uint_eq(bpfvm_prog_id(p), id);
				bpfvm_prog_put(p);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(c[0].fails + c[1].fails, 0);
	uint32_t id;
	ck_assert_int_eq(bpfvm_prog_get_next_id(reg, 0, &id), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *registry_suite(void)
{
	Suite *s = suite_create("bpfvm_registry");
	TCase *tc = tcase_create("registry");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ids_cyclic_and_never_reused_while_live);
	tcase_add_test(tc, next_id_walk_and_get_by_id);
	tcase_add_test(tc, registry_outlived_by_objects);
	tcase_add_test(tc, info_fields_and_stats);
	tcase_add_test(tc, seed_011_obj_id);
	tcase_add_test(tc, concurrent_churn);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(registry_suite)
