/* cgroup: effective program arrays, computed as the kernel's
 * compute_effective_progs() and update_effective_progs() (kernel/bpf/cgroup.c)
 * and published for lock-free readers. Read the attach-flags comment of the
 * uapi linux/bpf.h for the rules and the example tree the tests reproduce. */
#include <errno.h>
#include <stdlib.h>

#include "cg_int.h"

const struct cg_array cg_empty_array = {.n = 0};

struct cg_array *cg_array_alloc(uint32_t n)
{
	size_t sz =
	    sizeof(struct cg_arr_hdr) + sizeof(struct cg_array) + (size_t)n * sizeof(void *);
	struct cg_arr_hdr *h = malloc(sz);
	if (!h)
		return NULL;
	h->next = NULL;
	h->token = 0;
	struct cg_array *arr = cg_arr_of_hdr(h);
	arr->n = n;
	return arr;
}

void cg_array_free(struct cg_tree *tree, const struct cg_array *arr)
{
	if (!arr || arr == &cg_empty_array)
		return;
	/* The array held one reference per entry: the handles outlive every
	 * reader that could still walk this array. */
	for (uint32_t i = 0; i < arr->n; i++)
		tree->ops.put(arr->progs[i]);
	free(cg_arr_hdr_of(arr));
}

/* Next node of a pre-order walk of the subtree under top. */
static struct cg_node *next_pre(struct cg_node *pos, const struct cg_node *top)
{
	if (pos->child)
		return pos->child;
	while (pos != top) {
		if (pos->sibling)
			return pos->sibling;
		pos = pos->parent;
	}
	return NULL;
}

/* The node's own programs first, then each ancestor's: an ancestor counts
 * while nothing was collected yet (so a lower attachment hides its
 * OVERRIDE or exclusive program), and always when it is MULTI. */
static int compute(struct cg_tree *tree, const struct cg_node *node, uint32_t type,
		   const struct cg_array **out)
{
	uint32_t cnt = 0;
	for (const struct cg_node *p = node; p; p = p->parent) {
		const struct cg_progs *pr = p->attached[type];
		if (pr && (cnt == 0 || (pr->flags & CG_F_ALLOW_MULTI)))
			cnt += pr->n;
	}
	if (cnt == 0) {
		*out = &cg_empty_array;
		return 0;
	}
	struct cg_array *arr = cg_array_alloc(cnt);
	if (!arr)
		return -ENOMEM;
	uint32_t i = 0;
	for (const struct cg_node *p = node; p; p = p->parent) {
		const struct cg_progs *pr = p->attached[type];
		if (!pr || (i > 0 && !(pr->flags & CG_F_ALLOW_MULTI)))
			continue;
		for (uint32_t k = 0; k < pr->n; k++) {
			tree->ops.get(pr->progs[k]);
			arr->progs[i++] = pr->progs[k];
		}
	}
	*out = arr;
	return 0;
}

int cg_update_effective(struct cg_tree *tree, struct cg_node *node, uint32_t type)
{
	/* Compute everything first, as update_effective_progs() does, so that
	 * an allocation failure publishes nothing. */
	for (struct cg_node *d = node; d; d = next_pre(d, node)) {
		int err = compute(tree, d, type, &d->pending);
		if (err) {
			for (struct cg_node *e = node; e != d; e = next_pre(e, node)) {
				cg_array_free(tree, e->pending);
				e->pending = NULL;
			}
			return err;
		}
	}
	for (struct cg_node *d = node; d; d = next_pre(d, node)) {
		/* Release: a reader that loads the new pointer sees its contents. */
		const struct cg_array *old = atomic_exchange_explicit(
		    &d->hot.effective[type], d->pending, memory_order_acq_rel);
		d->pending = NULL;
		cg_retire(tree, old);
	}
	cg_grace_start(tree);
	cg_reclaim(tree);
	return 0;
}

void cg_clear_effective(struct cg_tree *tree, struct cg_node *node)
{
	for (uint32_t t = 0; t < CG_ATTACH_TYPES; t++) {
		const struct cg_array *old = atomic_exchange_explicit(
		    &node->hot.effective[t], &cg_empty_array, memory_order_acq_rel);
		cg_retire(tree, old);
	}
	cg_grace_start(tree);
	cg_reclaim(tree);
}
