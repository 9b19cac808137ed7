/* A counted program handle for the cgroup tests: the tree only ever sees
 * these through cg_prog_ops, so every reference it takes or drops shows up. */
#ifndef SKOPS_TEST_CG_TEST_PROG_H
#define SKOPS_TEST_CG_TEST_PROG_H

#include <check.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cgroup.h"

#define TPROG_ALIVE 0x70726f67u
#define TPROG_DEAD  0xdeadbeefu

struct tprog {
	uint32_t magic; /* TPROG_DEAD once the last reference went */
	uint32_t id;
	atomic_int refs;
	atomic_int releases; /* times refs dropped to 0 */
	atomic_int bad;	     /* put below zero */
};

static inline void tprog_init(struct tprog *p, uint32_t id)
{
	p->magic = TPROG_ALIVE;
	p->id = id;
	atomic_init(&p->refs, 0);
	atomic_init(&p->releases, 0);
	atomic_init(&p->bad, 0);
}

static inline void tprog_get(void *prog)
{
	struct tprog *p = prog;
	if (atomic_fetch_add(&p->refs, 1) == 0)
		p->magic = TPROG_ALIVE;
}

static inline void tprog_put(void *prog)
{
	struct tprog *p = prog;
	int before = atomic_fetch_sub(&p->refs, 1);
	if (before <= 0)
		atomic_fetch_add(&p->bad, 1);
	if (before == 1) {
		p->magic = TPROG_DEAD;
		atomic_fetch_add(&p->releases, 1);
	}
}

static inline uint32_t tprog_id(const void *prog)
{
	return ((const struct tprog *)prog)->id;
}

/* Plain ints for assertions (Check prints the expression). */
static inline int tprog_refs(struct tprog *p)
{
	return atomic_load(&p->refs);
}

static inline int tprog_bad(struct tprog *p)
{
	return atomic_load(&p->bad);
}

static inline int tprog_releases(struct tprog *p)
{
	return atomic_load(&p->releases);
}

static const struct cg_prog_ops tprog_ops = {
    .get = tprog_get,
    .put = tprog_put,
    .id = tprog_id,
};

/* The ids of an effective array, for comparisons. */
static inline uint32_t tprog_ids(const struct cg_array *arr, uint32_t *ids, uint32_t cap)
{
	uint32_t n = arr->n < cap ? arr->n : cap;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = tprog_id(arr->progs[i]);
	return arr->n;
}

/* Looks up (creating) a cgroup and returns it borrowed: the tree's own
 * reference keeps it alive while it is linked. */
static inline struct cg_node *tnode(struct cg_tree *t, const char *path)
{
	struct cg_node *n = NULL;
	int err = cg_lookup(t, path, true, &n);
	ck_assert_msg(err == 0, "lookup %s: %d", path, err);
	cg_node_put(n);
	return n;
}

#endif
