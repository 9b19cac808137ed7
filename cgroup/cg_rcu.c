/* cgroup: quiescent-state based reclamation of effective arrays.
 * The scheme is DPDK's rte_rcu_qsbr (lib/rcu): a global token the writer
 * bumps after unpublishing, one counter per reader slot that the reader sets
 * to the token it saw at each quiescent state (0 = offline); an array retired
 * at token t may be freed once every online slot holds a value >= t.
 * Written here with C11 atomics rather than linked from librte_rcu so that
 * cgroup/ and its tests need neither the EAL nor libdpdk, and so that the
 * memory ordering argument sits next to the code (below, per function). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "cg_int.h"

int cg_qsbr_init(struct cg_qsbr *q, unsigned nslots)
{
	atomic_init(&q->token, 1);
	q->nslots = nslots;
	q->slots = NULL;
	if (nslots == 0)
		return 0;
	q->slots = aligned_alloc(_Alignof(struct cg_qsbr_slot), nslots * sizeof(*q->slots));
	if (!q->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < nslots; i++)
		atomic_init(&q->slots[i].cnt, 0);
	return 0;
}

void cg_qsbr_fini(struct cg_qsbr *q)
{
	free(q->slots);
	q->slots = NULL;
	q->nslots = 0;
}

int cg_reader_register(struct cg_tree *tree, unsigned slot)
{
	struct cg_qsbr *q = &tree->qsbr;
	if (slot >= q->nslots)
		return -EINVAL;
	uint64_t zero = 0;
	uint64_t t = atomic_load_explicit(&q->token, memory_order_acquire);
	if (!atomic_compare_exchange_strong(&q->slots[slot].cnt, &zero, t))
		return -EBUSY;
	/* Going online races with a writer that unpublishes and then scans the
	 * slots (Dekker): this fence, paired with the writer's fence before its
	 * scan, makes either the writer see us online or our next loads of
	 * node->effective see the new arrays. rte_rcu_qsbr_thread_online does
	 * the same with a full barrier. */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

void cg_reader_unregister(struct cg_tree *tree, unsigned slot)
{
	struct cg_qsbr *q = &tree->qsbr;
	if (slot >= q->nslots)
		return;
	/* Release: every array read before is done with before we look offline. */
	atomic_store_explicit(&q->slots[slot].cnt, 0, memory_order_release);
}

void cg_quiescent(struct cg_tree *tree, unsigned slot)
{
	struct cg_qsbr *q = &tree->qsbr;
	if (slot >= q->nslots)
		return;
	/* Only our own thread writes a non-zero value here: an offline slot
	 * stays offline (a quiescent report is not a registration). */
	if (atomic_load_explicit(&q->slots[slot].cnt, memory_order_relaxed) == 0)
		return;
	/* Acquire on the token: having seen token t, our later loads of
	 * node->effective see what was published before t was started.
	 * Release on the counter: our earlier reads of old arrays happen before
	 * a writer that sees the counter frees them. */
	uint64_t t = atomic_load_explicit(&q->token, memory_order_acquire);
	atomic_store_explicit(&q->slots[slot].cnt, t, memory_order_release);
}

void cg_retire(struct cg_tree *tree, const struct cg_array *arr)
{
	if (arr == &cg_empty_array)
		return;
	struct cg_arr_hdr *h = cg_arr_hdr_of(arr);
	h->token = 0; /* stamped by cg_grace_start */
	h->next = tree->retired;
	tree->retired = h;
}

uint64_t cg_grace_start(struct cg_tree *tree)
{
	uint64_t t = atomic_fetch_add_explicit(&tree->qsbr.token, 1, memory_order_seq_cst) + 1;
	/* Newest first: unstamped entries are exactly the head of the list. */
	for (struct cg_arr_hdr *h = tree->retired; h && h->token == 0; h = h->next)
		h->token = t;
	return t;
}

/* The smallest counter of an online reader; UINT64_MAX when none is online. */
static uint64_t qsbr_min_seen(struct cg_qsbr *q)
{
	/* Pairs with the fence in cg_reader_register (see there). */
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t min = UINT64_MAX;
	for (unsigned i = 0; i < q->nslots; i++) {
		uint64_t c = atomic_load_explicit(&q->slots[i].cnt, memory_order_acquire);
		if (c != 0 && c < min)
			min = c;
	}
	return min;
}

static void free_from(struct cg_tree *tree, struct cg_arr_hdr **link)
{
	struct cg_arr_hdr *h = *link;
	*link = NULL;
	while (h) {
		struct cg_arr_hdr *next = h->next;
		cg_array_free(tree, cg_arr_of_hdr(h));
		h = next;
	}
}

void cg_reclaim(struct cg_tree *tree)
{
	if (!tree->retired)
		return;
	uint64_t min = qsbr_min_seen(&tree->qsbr);
	/* Tokens do not increase along the list: everything from the first
	 * entry every reader has passed onwards is free to go. */
	struct cg_arr_hdr **link = &tree->retired;
	while (*link && ((*link)->token == 0 || (*link)->token > min))
		link = &(*link)->next;
	free_from(tree, link);
}

void cg_reclaim_all(struct cg_tree *tree)
{
	free_from(tree, &tree->retired);
}

void cg_synchronize(struct cg_tree *tree)
{
	struct cg_qsbr *q = &tree->qsbr;
	pthread_mutex_lock(&tree->lock);
	/* Every retired entry carries a token <= the current one. */
	uint64_t target = atomic_load_explicit(&q->token, memory_order_acquire);
	pthread_mutex_unlock(&tree->lock);

	/* Wait without the lock so other writers proceed; a reader that never
	 * reports blocks this call, as an RCU grace period would (a caller that
	 * is itself an online reader must report or go offline first). */
	atomic_thread_fence(memory_order_seq_cst);
	for (unsigned i = 0; i < q->nslots; i++) {
		unsigned spins = 0;
		for (;;) {
			uint64_t c = atomic_load_explicit(&q->slots[i].cnt, memory_order_acquire);
			if (c == 0 || c >= target)
				break;
			if (++spins < 64) {
				sched_yield();
			} else {
				struct timespec ts = {.tv_nsec = 20000};
				nanosleep(&ts, NULL);
			}
		}
	}

	pthread_mutex_lock(&tree->lock);
	cg_reclaim(tree);
	pthread_mutex_unlock(&tree->lock);
}
