/* cgroup: a tree of named cgroups, attach/detach/query with the kernel's flag
 * rules (kernel/bpf/cgroup.c), and effective program arrays published with RCU
 * for lock-free readers. Programs are opaque refcounted handles here.
 * Read docs/cgroup.md and the kernel's Documentation/bpf (cgroup attach flags). */
#ifndef SKOPS_CGROUP_CGROUP_H
#define SKOPS_CGROUP_CGROUP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Attach flags, as the kernel's. */
#define CG_F_ALLOW_OVERRIDE (1u << 0)
#define CG_F_ALLOW_MULTI    (1u << 1)
#define CG_F_REPLACE	    (1u << 2)
#define CG_QUERY_EFFECTIVE  (1u << 0) /* BPF_F_QUERY_EFFECTIVE */

#define CG_MAX_PROGS	   64 /* BPF_CGROUP_MAX_PROGS */
#define CG_ATTACH_TYPES	   64 /* attach types are enum bpf_attach_type < this */
#define CG_ATTACH_SOCK_OPS 3u /* BPF_CGROUP_SOCK_OPS */

/* How the tree holds program handles. Called with the tree's writer lock
 * held (put also when a grace period ends): must not call back into the tree. */
struct cg_prog_ops {
	void (*get)(void *prog);
	void (*put)(void *prog);
	uint32_t (*id)(const void *prog);
};

struct cg_tree;
struct cg_node;

/* The published effective array of one (cgroup, attach type); immutable. */
struct cg_array {
	uint32_t n;
	void *progs[]; /* run order */
};

/* max_readers: reader thread slots for the quiescent-state scheme. */
int cg_tree_create(const struct cg_prog_ops *ops, unsigned max_readers, struct cg_tree **out);
/* Detaches everything and frees; readers must have stopped. */
void cg_tree_destroy(struct cg_tree *tree);

/* Path "/" or "/a/b" (no trailing slash, no empty or "."/".." components).
 * create: make missing components. Returns a node reference (cg_node_put). */
int cg_lookup(struct cg_tree *tree, const char *path, bool create, struct cg_node **out);
void cg_node_get(struct cg_node *node);
void cg_node_put(struct cg_node *node);
/* Removes an empty cgroup: -EBUSY with children, -ENOENT if absent, -EINVAL on "/".
 * Its attached programs are detached (as the kernel does on rmdir) when its last
 * reference goes: until then holders still run its effective programs. */
int cg_remove(struct cg_tree *tree, const char *path);
const char *cg_node_path(const struct cg_node *node);

/* Kernel errnos: -EPERM when the hierarchy forbids or the flags differ from the
 * attached ones, -E2BIG beyond CG_MAX_PROGS, -EINVAL for bad flag mixes and for
 * the same program twice in MULTI (the kernel's answer, not -EEXIST), -ENOENT for
 * a missing replace target or detach of an unattached program. */
int cg_attach(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog, uint32_t flags,
	      void *replace_prog);
/* prog NULL: detach the single non-MULTI program, as the kernel allows. */
int cg_detach(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog);
/* ids may be NULL to ask only for the count; *cnt in: capacity, out: total
 * (-ENOSPC when ids was too small, filled up to capacity). */
int cg_query(struct cg_tree *tree, struct cg_node *node, uint32_t type, uint32_t query_flags,
	     uint32_t *attach_flags, uint32_t *ids, uint32_t *cnt);

/* ---- fast path (readers never lock) ------------------------------------ */

/* Each reader thread registers a slot once, then reports a quiescent state
 * between uses (once per poll loop); arrays it read before are then reclaimable. */
int cg_reader_register(struct cg_tree *tree, unsigned slot);
void cg_reader_unregister(struct cg_tree *tree, unsigned slot);
void cg_quiescent(struct cg_tree *tree, unsigned slot);
/* What readers touch of a node: its first member (cg_int.h), so that
 * cg_effective, on every sock_ops call, is one load in the caller. */
struct cg_node_hot {
	/* each points at an array owned by the tree (or at cg_empty_array),
	 * swapped with release stores */
	_Atomic(const struct cg_array *) effective[CG_ATTACH_TYPES];
};
extern const struct cg_array cg_empty_array;

/* The effective array, valid until this reader's next cg_quiescent(). Never
 * NULL: an empty array when nothing is attached. */
static inline const struct cg_array *cg_effective(const struct cg_node *node, uint32_t type)
{
	if (!node || type >= CG_ATTACH_TYPES)
		return &cg_empty_array;
	const struct cg_node_hot *hot = (const struct cg_node_hot *)(const void *)node;
	/* Acquire pairs with the writer's exchange: the entries are visible. */
	return atomic_load_explicit(&hot->effective[type], memory_order_acquire);
}

/* Writers free old arrays after a grace period; this waits for one and frees
 * everything pending (also done opportunistically on each change). Not from an
 * online reader thread: it would wait for itself. */
void cg_synchronize(struct cg_tree *tree);

#endif
