/* cg stress: two writers attach, detach and replace on a small tree (and
 * create and remove a cgroup) while two readers walk the effective arrays
 * and report quiescent states. Every array a reader sees must be one that
 * could have been published: live handles only, in an order the kernel's
 * rules allow. Dead handles are poisoned (and ASan-poisoned under ASan),
 * arrays are really freed, so a use after free fails either way.
 * Bounded: CG_STRESS_SECONDS (2 s) or the iteration caps below. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup.h"
#include "check_main.h"

#if defined(__SANITIZE_ADDRESS__)
#define CG_STRESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CG_STRESS_ASAN 1
#endif
#endif
#ifdef CG_STRESS_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define SO		  CG_ATTACH_SOCK_OPS
#define CG_STRESS_SECONDS 2
#define READER_ROUNDS_MAX 50000000ul
#define WRITER_OPS_MAX	  2000000ul
#define PER_NODE_MAX	  8 /* programs a writer keeps on one cgroup */
#define NNODES		  4

#define SP_ALIVE 0x5350524fu
#define SP_DEAD	 0xdeadbeefu

/* Cgroups: 0 "/", 1 "/a", 2 "/a/b", 3 "/c". chain[k]: k and its ancestors,
 * deepest first; chain position = run order of their programs. */
static const char *const node_path[NNODES] = {"/", "/a", "/a/b", "/c"};
static const int chain[NNODES][4] = {{0, -1}, {1, 0, -1}, {2, 1, 0, -1}, {3, 0, -1}};

struct sprog {
	/* Poisoned together under ASan: what readers look at. */
	struct {
		_Atomic uint32_t magic;
		uint32_t id;
		uint8_t node;  /* where it was attached */
		uint8_t multi; /* attached with MULTI */
	} v;
	atomic_int refs;
	struct sprog *grave_next;
};

struct stress {
	struct cg_tree *tree;
	struct cg_node *node[NNODES];
	atomic_bool stop;
	_Atomic(struct sprog *) grave; /* released handles, freed at the end */
	atomic_ulong released, created, bad_refs;
	atomic_uint next_id;
};

static struct stress *g_ops_ctx; /* the handle ops have no context pointer */

static void sp_get(void *prog)
{
	struct sprog *p = prog;
	if (atomic_fetch_add(&p->refs, 1) <= 0)
		atomic_fetch_add(&g_ops_ctx->bad_refs, 1); /* resurrection */
}

static void sp_put(void *prog)
{
	struct sprog *p = prog;
	int before = atomic_fetch_sub(&p->refs, 1);
	if (before <= 0)
		atomic_fetch_add(&g_ops_ctx->bad_refs, 1);
	if (before != 1)
		return;
	atomic_store(&p->v.magic, SP_DEAD);
#ifdef CG_STRESS_ASAN
	ASAN_POISON_MEMORY_REGION(&p->v, sizeof p->v);
#endif
	struct stress *s = g_ops_ctx;
	p->grave_next = atomic_load(&s->grave);
	while (!atomic_compare_exchange_weak(&s->grave, &p->grave_next, p))
		;
	atomic_fetch_add(&s->released, 1);
}

static uint32_t sp_id(const void *prog)
{
	return ((const struct sprog *)prog)->v.id;
}

static const struct cg_prog_ops sp_ops = {.get = sp_get, .put = sp_put, .id = sp_id};

static struct sprog *sp_new(struct stress *s, int node, bool multi)
{
	struct sprog *p = calloc(1, sizeof(*p));
	ck_assert_ptr_nonnull(p);
	atomic_init(&p->v.magic, SP_ALIVE);
	p->v.id = atomic_fetch_add(&s->next_id, 1) + 1;
	p->v.node = (uint8_t)node;
	p->v.multi = multi;
	atomic_init(&p->refs, 1); /* the writer's, dropped right after attach */
	atomic_fetch_add(&s->created, 1);
	return p;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- readers ----------------------------------------------------------- */

struct reader {
	struct stress *s;
	unsigned slot;
	unsigned long rounds, arrays, entries, reports, errors;
	char first_error[160];
};

static int chain_pos(int k, int label)
{
	for (int i = 0; chain[k][i] >= 0; i++)
		if (chain[k][i] == label)
			return i;
	return -1;
}

/* Could arr have been published for cgroup k? Returns NULL or what is wrong. */
static const char *check_array(int k, const struct cg_array *arr)
{
	if (arr->n > PER_NODE_MAX * 4)
		return "too long";
	int last_pos = 0, first_label = -1;
	for (uint32_t i = 0; i < arr->n; i++) {
		const struct sprog *p = arr->progs[i];
		if (!p)
			return "NULL entry";
		if (atomic_load_explicit(&p->v.magic, memory_order_relaxed) != SP_ALIVE)
			return "released handle in array";
		int pos = chain_pos(k, p->v.node);
		if (pos < 0)
			return "program of a cgroup off the ancestor chain";
		if (pos < last_pos)
			return "ancestor's program before a descendant's";
		last_pos = pos;
		if (i == 0)
			first_label = p->v.node;
		/* Only the first (lowest) cgroup with programs contributes
		 * non-MULTI ones, and then exactly one. */
		if (!p->v.multi &&
		    (i != 0 ||
		     (arr->n > 1 && ((const struct sprog *)arr->progs[1])->v.node == p->v.node)))
			return "exclusive program not alone at the front";
		if (i > 0 && p->v.node != first_label && !p->v.multi)
			return "non-MULTI ancestor program not hidden";
		for (uint32_t j = 0; j < i; j++)
			if (arr->progs[j] == p)
				return "handle twice";
	}
	return NULL;
}

static void *reader_main(void *argp)
{
	struct reader *r = argp;
	struct stress *s = r->s;
	ck_assert_int_eq(cg_reader_register(s->tree, r->slot), 0);
	while (r->rounds < READER_ROUNDS_MAX &&
	       !atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		for (int k = 0; k < NNODES; k++) {
			const struct cg_array *arr = cg_effective(s->node[k], SO);
			const char *bad = check_array(k, arr);
			if (bad && r->errors++ == 0)
				snprintf(r->first_error, sizeof r->first_error,
					 "reader %u: %s: %s (n=%u)", r->slot, node_path[k], bad,
					 arr->n);
			r->arrays++;
			r->entries += arr->n;
		}
		r->rounds++;
		/* One report per "poll loop" of four lookups. */
		cg_quiescent(s->tree, r->slot);
		r->reports++;
	}
	cg_reader_unregister(s->tree, r->slot);
	return NULL;
}

/* ---- writers ----------------------------------------------------------- */

struct owned {
	int node;
	uint32_t flags; /* current flags while n > 0 */
	bool fixed;	/* flags never change */
	int n;
	struct sprog *p[PER_NODE_MAX];
};

struct writer {
	struct stress *s;
	uint64_t rng;
	struct owned own[2];
	unsigned long ops, attaches, detaches, replaces, syncs, cg_churn, errors;
	char first_error[160];
};

static void werr(struct writer *w, const char *what, int got)
{
	if (w->errors++ == 0)
		snprintf(w->first_error, sizeof w->first_error, "writer: %s: %d", what, got);
}

/* The writer alone changes its cgroups: a query must show its own list. */
static void verify_owned(struct writer *w, const struct owned *o)
{
	uint32_t ids[PER_NODE_MAX], cnt = PER_NODE_MAX, flags = 0;
	int err = cg_query(w->s->tree, w->s->node[o->node], SO, 0, &flags, ids, &cnt);
	if (err || cnt != (uint32_t)o->n || (o->n && flags != o->flags)) {
		werr(w, "query disagrees", err ? err : (int)cnt);
		return;
	}
	for (int i = 0; i < o->n; i++)
		if (ids[i] != o->p[i]->v.id)
			werr(w, "query order", i);
}

static void writer_step(struct writer *w, struct owned *o)
{
	struct stress *s = w->s;
	struct cg_node *node = s->node[o->node];
	unsigned what = (unsigned)(xorshift(&w->rng) % 3);
	if (o->n == 0)
		what = 0;
	if (what == 0 && o->n > 0 && !(o->flags & CG_F_ALLOW_MULTI))
		what = 2; /* a single program is replaced by attaching again */
	if (what == 0 && o->n == PER_NODE_MAX)
		what = 1;
	if (what == 0) { /* attach */
		if (o->n == 0 && !o->fixed) {
			static const uint32_t choice[3] = {0, CG_F_ALLOW_OVERRIDE,
							   CG_F_ALLOW_MULTI};
			o->flags = choice[xorshift(&w->rng) % 3];
		}
		struct sprog *p = sp_new(s, o->node, o->flags & CG_F_ALLOW_MULTI);
		int err = cg_attach(s->tree, node, SO, p, o->flags, NULL);
		if (err)
			werr(w, "attach", err);
		else
			o->p[o->n++] = p;
		sp_put(p);
		w->attaches++;
	} else if (what == 1) { /* detach a random one */
		int i = (int)(xorshift(&w->rng) % (uint64_t)o->n);
		int err = cg_detach(s->tree, node, SO, o->p[i]);
		if (err)
			werr(w, "detach", err);
		memmove(&o->p[i], &o->p[i + 1], (size_t)(o->n - i - 1) * sizeof(o->p[0]));
		o->n--;
		w->detaches++;
	} else { /* replace a random one in place */
		int i = (int)(xorshift(&w->rng) % (uint64_t)o->n);
		bool multi = o->flags & CG_F_ALLOW_MULTI;
		struct sprog *p = sp_new(s, o->node, multi);
		int err = multi ? cg_attach(s->tree, node, SO, p, o->flags | CG_F_REPLACE, o->p[i])
				: cg_attach(s->tree, node, SO, p, o->flags, NULL);
		if (err)
			werr(w, "replace", err);
		else
			o->p[i] = p;
		sp_put(p);
		w->replaces++;
	}
}

static void *writer_main(void *argp)
{
	struct writer *w = argp;
	struct stress *s = w->s;
	while (w->ops < WRITER_OPS_MAX && !atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct owned *o = &w->own[xorshift(&w->rng) & 1];
		writer_step(w, o);
		if ((w->ops & 15) == 0)
			verify_owned(w, o);
		if ((w->ops & 255) == 0) {
			cg_synchronize(s->tree);
			w->syncs++;
		}
		if (o->node == 3 && (w->ops & 63) == 1) {
			/* A cgroup that comes and goes under /c inherits and
			 * retires arrays too; held across its removal it is
			 * dying and still runs its (inherited) programs. */
			struct cg_node *t = NULL;
			int err = cg_lookup(s->tree, "/c/t", true, &t);
			if (err) {
				werr(w, "lookup /c/t", err);
			} else {
				if (cg_effective(t, SO)->n != cg_effective(s->node[3], SO)->n)
					werr(w, "new cgroup did not inherit",
					     (int)cg_effective(t, SO)->n);
				err = cg_remove(s->tree, "/c/t");
				if (err)
					werr(w, "remove /c/t", err);
				const char *bad = check_array(3, cg_effective(t, SO));
				if (bad)
					werr(w, bad, 0);
				cg_node_put(t);
			}
			w->cg_churn++;
		}
		w->ops++;
	}
	return NULL;
}

START_TEST(writers_and_readers)
{
	static struct stress s;
	memset(&s, 0, sizeof s);
	g_ops_ctx = &s;
	ck_assert_int_eq(cg_tree_create(&sp_ops, 2, &s.tree), 0);
	for (int k = 0; k < NNODES; k++)
		ck_assert_int_eq(cg_lookup(s.tree, node_path[k], true, &s.node[k]), 0);

	/* Writer 0: "/" always MULTI, "/a/b" any flags. Writer 1: "/a" always
	 * OVERRIDE, "/c" always MULTI. Those keep every attach legal, so any
	 * refusal is a failure. */
	struct writer w[2] = {
	    {.s = &s,
	     .rng = 0x9e3779b97f4a7c15ull,
	     .own = {{.node = 0, .flags = CG_F_ALLOW_MULTI, .fixed = true}, {.node = 2}}},
	    {.s = &s,
	     .rng = 0xd1b54a32d192ed03ull,
	     .own = {{.node = 1, .flags = CG_F_ALLOW_OVERRIDE, .fixed = true},
		     {.node = 3, .flags = CG_F_ALLOW_MULTI, .fixed = true}}},
	};
	struct reader r[2] = {{.s = &s, .slot = 0}, {.s = &s, .slot = 1}};
	pthread_t th[4];
	double t0 = now_s();
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_create(&th[i], NULL, reader_main, &r[i]), 0);
		ck_assert_int_eq(pthread_create(&th[2 + i], NULL, writer_main, &w[i]), 0);
	}
	while (now_s() - t0 < CG_STRESS_SECONDS) {
		struct timespec ts = {.tv_nsec = 10000000};
		nanosleep(&ts, NULL);
	}
	atomic_store(&s.stop, true);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	double secs = now_s() - t0;

	for (int i = 0; i < 2; i++) {
		ck_assert_msg(r[i].errors == 0, "%lu errors, first: %s", r[i].errors,
			      r[i].first_error);
		ck_assert_msg(w[i].errors == 0, "%lu errors, first: %s", w[i].errors,
			      w[i].first_error);
		ck_assert_uint_gt(r[i].rounds, 0);
		ck_assert_uint_gt(w[i].ops, 0);
	}
	unsigned long walks = r[0].arrays + r[1].arrays, entries = r[0].entries + r[1].entries;
	unsigned long ops = w[0].ops + w[1].ops;
	printf("cg_stress: %.2f s: readers %lu arrays walked (%lu entries), quiescent reports "
	       "%lu + %lu; writers %lu ops (attach %lu, detach %lu, replace %lu, synchronize %lu, "
	       "cgroup create/remove %lu); handles created %lu, released so far %lu\n",
	       secs, walks, entries, r[0].reports, r[1].reports, ops, w[0].attaches + w[1].attaches,
	       w[0].detaches + w[1].detaches, w[0].replaces + w[1].replaces,
	       w[0].syncs + w[1].syncs, w[0].cg_churn + w[1].cg_churn, atomic_load(&s.created),
	       atomic_load(&s.released));

	/* Every handle goes exactly once, when the tree lets go of it. */
	cg_synchronize(s.tree);
	for (int k = 0; k < NNODES; k++)
		cg_node_put(s.node[k]);
	cg_tree_destroy(s.tree);
	ck_assert_uint_eq(atomic_load(&s.released), atomic_load(&s.created));
	ck_assert_uint_eq(atomic_load(&s.bad_refs), 0);
	unsigned long freed = 0;
	for (struct sprog *p = atomic_load(&s.grave), *next; p; p = next, freed++) {
		next = p->grave_next;
#ifdef CG_STRESS_ASAN
		ASAN_UNPOISON_MEMORY_REGION(&p->v, sizeof p->v);
#endif
		ck_assert_int_eq(atomic_load(&p->refs), 0);
		free(p);
	}
	ck_assert_uint_eq(freed, atomic_load(&s.created));
}
END_TEST

static Suite *stress_suite(void)
{
	Suite *s = suite_create("cg_stress");
	TCase *tc = tcase_create("stress");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, writers_and_readers);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(stress_suite)
