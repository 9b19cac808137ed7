/* cgroup internals shared by cg_tree.c, cg_attach.c, cg_effective.c and
 * cg_rcu.c; never included outside cgroup/. Writers serialise on tree->lock;
 * readers touch only node->hot.effective[] (acquire loads) and their QSBR slot. */
#ifndef SKOPS_CGROUP_CG_INT_H
#define SKOPS_CGROUP_CG_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "cgroup.h"

#define CG_NAME_MAX    255  /* one path component, as NAME_MAX */
#define CG_PATH_MAX    4096 /* whole path including the NUL, as PATH_MAX */
#define CG_READERS_MAX 1024

/* Programs attached directly to one (cgroup, attach type): the kernel's
 * cgrp->bpf.progs[atype] list and cgrp->bpf.flags[atype]. Allocated on the
 * first attach, freed when the last program is detached (flags back to 0). */
struct cg_progs {
	uint32_t flags; /* CG_F_ALLOW_OVERRIDE / CG_F_ALLOW_MULTI as attached */
	uint32_t n;
	void *progs[CG_MAX_PROGS]; /* attach (FIFO) order */
};

struct cg_node {
	/* Hot: the only fields readers touch; first, as cg_effective (cgroup.h)
	 * reads them through the node's address */
	struct cg_node_hot hot;

	/* References: the tree's while not removed, one per linked child (a
	 * child pins its ancestors, as cgroup_bpf_inherit() takes bpf refs on
	 * them), and the callers'. The last one releases the node. */
	atomic_uint refcnt;
	struct cg_tree *tree;	/* NULL once cg_tree_destroy orphaned it */
	struct cg_node *parent; /* NULL for "/" */
	struct cg_node *child;	/* first child, removed ones included */
	struct cg_node *sibling;
	struct cg_progs *attached[CG_ATTACH_TYPES];
	const struct cg_array *pending; /* computed, not yet published */
	/* Removed ("dying" in the kernel): invisible to lookup, refuses
	 * attach/detach/query, but keeps its programs and its effective arrays
	 * (still updated from its ancestors) until its last reference goes. */
	bool removed;
	const char *name; /* last component, inside path */
	char path[];
};
_Static_assert(offsetof(struct cg_node, hot) == 0, "cg_effective reads the node as its hot part");

/* Header in front of every allocated cg_array: the retire list link and the
 * grace-period token after which it may be freed. */
struct cg_arr_hdr {
	struct cg_arr_hdr *next;
	uint64_t token;
};

/* One reader slot on its own cache line: 0 = offline, else the last token
 * this reader observed at a quiescent state (rte_rcu_qsbr's per-thread cnt). */
struct cg_qsbr_slot {
	_Alignas(64) _Atomic uint64_t cnt;
};

struct cg_qsbr {
	_Alignas(64) _Atomic uint64_t token; /* grace-period counter, starts at 1 */
	unsigned nslots;
	struct cg_qsbr_slot *slots;
};

struct cg_tree {
	pthread_mutex_t lock; /* all writers: tree shape, attachments, retire list */
	struct cg_prog_ops ops;
	struct cg_node *root;
	struct cg_arr_hdr *retired; /* newest first */
	struct cg_qsbr qsbr;
};

/* The array every (node, type) without effective programs points at. A
 * constant table, never freed or retired. */

/* cg_effective.c */
struct cg_array *cg_array_alloc(uint32_t n);
/* Frees an array built by cg_array_alloc, dropping its program references. */
void cg_array_free(struct cg_tree *tree, const struct cg_array *arr);
/* Recomputes the effective arrays of type for node and all its descendants,
 * all-or-nothing (-ENOMEM leaves every published array untouched), then
 * publishes them and retires the old ones. */
int cg_update_effective(struct cg_tree *tree, struct cg_node *node, uint32_t type);
/* Publishes the empty array for every type of node (removal, teardown) and
 * retires the old ones. */
void cg_clear_effective(struct cg_tree *tree, struct cg_node *node);

/* cg_rcu.c */
int cg_qsbr_init(struct cg_qsbr *q, unsigned nslots);
void cg_qsbr_fini(struct cg_qsbr *q);
/* Queues an array that is no longer published for freeing once a grace
 * period has passed. Lock held, after the store that unpublished it; the
 * entry gets its token from the next cg_grace_start(). */
void cg_retire(struct cg_tree *tree, const struct cg_array *arr);
/* Starts a grace period covering everything retired so far and stamps the
 * new entries with its token (lock held). */
uint64_t cg_grace_start(struct cg_tree *tree);
/* Frees retired arrays every online reader has moved past (lock held). */
void cg_reclaim(struct cg_tree *tree);
/* Frees all retired arrays now; readers must have stopped (teardown). */
void cg_reclaim_all(struct cg_tree *tree);

static inline struct cg_arr_hdr *cg_arr_hdr_of(const struct cg_array *arr)
{
	return (struct cg_arr_hdr *)arr - 1;
}

static inline struct cg_array *cg_arr_of_hdr(struct cg_arr_hdr *hdr)
{
	return (struct cg_array *)(hdr + 1);
}

#endif
