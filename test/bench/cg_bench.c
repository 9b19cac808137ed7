/* cg_bench: reader-side cost of cg_effective() plus a walk of the array
 * (touching each handle as hooks_call would before running it) for 0, 1, 8
 * and 64 effective programs, the cost of cg_quiescent(), and the writer-side
 * cost of an attach+detach pair that recomputes a subtree of 1, 16 and 256
 * cgroups. Prints JSON. Usage: cg_bench [reader_iterations] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup.h"

struct bprog {
	uint32_t id;
	uint32_t weight; /* what the walk reads */
	int refs;
};

static void bp_get(void *p)
{
	((struct bprog *)p)->refs++;
}

static void bp_put(void *p)
{
	((struct bprog *)p)->refs--;
}

static uint32_t bp_id(const void *p)
{
	return ((const struct bprog *)p)->id;
}

static const struct cg_prog_ops bp_ops = {.get = bp_get, .put = bp_put, .id = bp_id};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* ns per cg_effective + walk, with nprogs effective at /a/b/c: half attached
 * MULTI at the root, half at /a/b/c (a socket's usual depth). */
static int bench_reader(unsigned nprogs, uint64_t iters, double *ns_walk, double *ns_qs)
{
	struct cg_tree *tree = NULL;
	struct cg_node *root = NULL, *leaf = NULL;
	static struct bprog progs[CG_MAX_PROGS];
	int err = cg_tree_create(&bp_ops, 1, &tree);
	if (err)
		return err;
	if ((err = cg_lookup(tree, "/", false, &root)) ||
	    (err = cg_lookup(tree, "/a/b/c", true, &leaf)))
		goto out;
	for (unsigned i = 0; i < nprogs; i++) {
		progs[i] = (struct bprog){.id = i + 1, .weight = i};
		err = cg_attach(tree, i % 2 ? root : leaf, CG_ATTACH_SOCK_OPS, &progs[i],
				CG_F_ALLOW_MULTI, NULL);
		if (err)
			goto out;
	}
	if ((err = cg_reader_register(tree, 0)))
		goto out;
	if (cg_effective(leaf, CG_ATTACH_SOCK_OPS)->n != nprogs) {
		err = -EINVAL;
		goto out;
	}
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		const struct cg_array *a = cg_effective(leaf, CG_ATTACH_SOCK_OPS);
		for (uint32_t k = 0; k < a->n; k++)
			acc += ((const struct bprog *)a->progs[k])->weight;
		__asm__ volatile("" ::: "memory"); /* keep one load per call */
	}
	uint64_t t1 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		cg_quiescent(tree, 0);
	uint64_t t2 = now_ns();
	sink = acc;
	*ns_walk = (double)(t1 - t0) / (double)iters;
	*ns_qs = (double)(t2 - t1) / (double)iters;
	cg_reader_unregister(tree, 0);
out:
	cg_node_put(leaf);
	cg_node_put(root);
	cg_tree_destroy(tree);
	return err;
}

/* ns per attach+detach at "/" in a tree of ncg cgroups (all recomputed),
 * one MULTI program already at "/" so every array is rebuilt non-empty. */
static int bench_writer(unsigned ncg, unsigned pairs, double *ns_pair)
{
	struct cg_tree *tree = NULL;
	struct cg_node *root = NULL;
	struct bprog base = {.id = 1}, p = {.id = 2};
	int err = cg_tree_create(&bp_ops, 1, &tree);
	if (err)
		return err;
	if ((err = cg_lookup(tree, "/", false, &root)))
		goto out;
	for (unsigned i = 1; i < ncg; i++) {
		char path[32];
		struct cg_node *n;
		snprintf(path, sizeof path, "/c%u", i); /* root + ncg-1 children */
		if ((err = cg_lookup(tree, path, true, &n)))
			goto out;
		cg_node_put(n);
	}
	if ((err = cg_attach(tree, root, CG_ATTACH_SOCK_OPS, &base, CG_F_ALLOW_MULTI, NULL)))
		goto out;
	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < pairs; i++) {
		if ((err = cg_attach(tree, root, CG_ATTACH_SOCK_OPS, &p, CG_F_ALLOW_MULTI, NULL)) ||
		    (err = cg_detach(tree, root, CG_ATTACH_SOCK_OPS, &p)))
			goto out;
	}
	*ns_pair = (double)(now_ns() - t0) / (double)pairs;
out:
	cg_node_put(root);
	cg_tree_destroy(tree);
	return err;
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000ull;
	if (iters == 0 || iters > 10000000000ull) {
		fprintf(stderr, "cg_bench: iterations must be 1..1e10\n");
		return 2;
	}
	static const unsigned nprogs[] = {0, 1, 8, 64};
	static const unsigned ncgs[] = {1, 16, 256};
	printf("{\n  \"bench\": \"cg_effective\",\n  \"iterations\": %llu,\n  \"reader\": [",
	       (unsigned long long)iters);
	for (size_t i = 0; i < sizeof nprogs / sizeof nprogs[0]; i++) {
		double walk = 0, qs = 0;
		int err = bench_reader(nprogs[i], iters, &walk, &qs);
		if (err) {
			fprintf(stderr, "cg_bench: reader %u programs: %s\n", nprogs[i],
				strerror(-err));
			return 1;
		}
		printf("%s\n    {\"programs\": %u, \"ns_effective_and_walk\": %.2f, "
		       "\"ns_quiescent\": %.2f}",
		       i ? "," : "", nprogs[i], walk, qs);
	}
	printf("\n  ],\n  \"writer\": [");
	for (size_t i = 0; i < sizeof ncgs / sizeof ncgs[0]; i++) {
		double pair = 0;
		unsigned pairs = 200000 / ncgs[i];
		int err = bench_writer(ncgs[i], pairs, &pair);
		if (err) {
			fprintf(stderr, "cg_bench: writer %u cgroups: %s\n", ncgs[i],
				strerror(-err));
			return 1;
		}
		printf("%s\n    {\"cgroups\": %u, \"ns_attach_detach_pair\": %.0f}", i ? "," : "",
		       ncgs[i], pair);
	}
	printf("\n  ]\n}\n");
	return 0;
}
