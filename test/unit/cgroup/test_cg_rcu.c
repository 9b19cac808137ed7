/* cg_rcu: reader slots, quiescent reports and grace periods: what blocks
 * reclamation, what does not, and cg_synchronize against a live reader. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "cg_test_prog.h"
#include "check_main.h"

#define SO CG_ATTACH_SOCK_OPS

START_TEST(register_rules)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 2, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 2), -EINVAL);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), -EBUSY);
	ck_assert_int_eq(cg_reader_register(t, 1), 0);
	cg_reader_unregister(t, 0);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	/* Out-of-range slots are ignored rather than written. */
	cg_quiescent(t, 7);
	cg_reader_unregister(t, 7);
	cg_tree_destroy(t);

	ck_assert_int_eq(cg_tree_create(&tprog_ops, 0, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), -EINVAL);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(quiescent_is_not_registration)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1, &t), 0);
	struct tprog p;
	tprog_init(&p, 1);
	struct cg_node *r = tnode(t, "/");
	cg_quiescent(t, 0); /* slot 0 never registered: stays offline */
	ck_assert_int_eq(cg_attach(t, r, SO, &p, 0, NULL), 0);
	ck_assert_int_eq(cg_detach(t, r, SO, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 0);
	cg_tree_destroy(t);
}
END_TEST

START_TEST(every_reader_must_report)
{
	struct cg_tree *t = NULL;
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 3, &t), 0);
	ck_assert_int_eq(cg_reader_register(t, 0), 0);
	ck_assert_int_eq(cg_reader_register(t, 2), 0);
	struct tprog p, q;
	tprog_init(&p, 1);
	tprog_init(&q, 2);
	struct cg_node *r = tnode(t, "/");
	ck_assert_int_eq(cg_attach(t, r, SO, &p, 0, NULL), 0);
	ck_assert_int_eq(cg_detach(t, r, SO, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 1);
	cg_quiescent(t, 0);
	ck_assert_int_eq(cg_attach(t, r, SO, &q, 0, NULL), 0); /* reclaims */
	ck_assert_int_eq(tprog_refs(&p), 1);		       /* slot 2 has not */
	cg_quiescent(t, 2);
	ck_assert_int_eq(cg_detach(t, r, SO, NULL), 0);
	ck_assert_int_eq(tprog_refs(&p), 0);
	/* A report made before a retirement does not cover it. */
	ck_assert_int_eq(tprog_refs(&q), 1);
	cg_quiescent(t, 0);
	cg_quiescent(t, 2);
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&q), 0);
	/* Registering late: starts past every grace period already begun. */
	ck_assert_int_eq(cg_attach(t, r, SO, &q, 0, NULL), 0);
	ck_assert_int_eq(cg_detach(t, r, SO, NULL), 0);
	cg_quiescent(t, 0);
	cg_quiescent(t, 2);
	ck_assert_int_eq(cg_reader_register(t, 1), 0);
	cg_synchronize(t);
	ck_assert_int_eq(tprog_refs(&q), 0);
	cg_tree_destroy(t);
}
END_TEST

struct reader_arg {
	struct cg_tree *tree;
	struct cg_node *node;
	atomic_bool stop, online;
	atomic_ulong reports;
};

static void *reader(void *argp)
{
	struct reader_arg *a = argp;
	ck_assert_int_eq(cg_reader_register(a->tree, 0), 0);
	atomic_store(&a->online, true);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < 100000000ul && !atomic_load(&a->stop); i++) {
		const struct cg_array *e = cg_effective(a->node, SO);
		for (uint32_t k = 0; k < e->n; k++)
			ck_assert_uint_eq(((const struct tprog *)e->progs[k])->magic, TPROG_ALIVE);
		cg_quiescent(a->tree, 0);
		atomic_fetch_add(&a->reports, 1);
		if ((i & 1023) == 0) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec > 10)
				break; /* bounded even if the writer stalls */
		}
	}
	cg_reader_unregister(a->tree, 0);
	return NULL;
}

START_TEST(synchronize_waits_for_live_reader)
{
	struct reader_arg a = {0};
	ck_assert_int_eq(cg_tree_create(&tprog_ops, 1, &a.tree), 0);
	a.node = tnode(a.tree, "/a");
	struct cg_node *r = tnode(a.tree, "/");
	static struct tprog p[50];
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, reader, &a), 0);
	for (int i = 0; i < 10000 && !atomic_load(&a.online); i++) {
		struct timespec ts = {.tv_nsec = 1000000};
		nanosleep(&ts, NULL);
	}
	ck_assert_msg(atomic_load(&a.online), "reader thread did not register within 10 s");
	for (int i = 0; i < 50; i++) {
		tprog_init(&p[i], (uint32_t)i);
		ck_assert_int_eq(cg_attach(a.tree, r, SO, &p[i], 0, NULL), 0);
		if (i > 0) {
			cg_synchronize(a.tree);
			/* After a grace period the replaced handle is gone. */
			ck_assert_int_eq(atomic_load(&p[i - 1].refs), 0);
			ck_assert_uint_eq(p[i - 1].magic, TPROG_DEAD);
		}
	}
	atomic_store(&a.stop, true);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	unsigned long reports = atomic_load(&a.reports);
	ck_assert_uint_gt(reports, 0);
	cg_tree_destroy(a.tree);
	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(tprog_bad(&p[i]), 0);
}
END_TEST

static Suite *rcu_suite(void)
{
	Suite *s = suite_create("cg_rcu");
	TCase *tc = tcase_create("rcu");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, register_rules);
	tcase_add_test(tc, quiescent_is_not_registration);
	tcase_add_test(tc, every_reader_must_report);
	tcase_add_test(tc, synchronize_waits_for_live_reader);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(rcu_suite)
