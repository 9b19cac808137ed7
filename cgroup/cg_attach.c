/* cgroup: attach, detach and query with the kernel's rules and errnos, read
 * from kernel/bpf/cgroup.c (__cgroup_bpf_attach, hierarchy_allows_attach,
 * find_attach_entry, __cgroup_bpf_detach, find_detach_entry,
 * __cgroup_bpf_query) and checked against a 6.18 kernel's answers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cg_int.h"

#define CG_F_SAVED (CG_F_ALLOW_OVERRIDE | CG_F_ALLOW_MULTI)
#define CG_F_ALL   (CG_F_ALLOW_OVERRIDE | CG_F_ALLOW_MULTI | CG_F_REPLACE)

/* An ancestor with an exclusive program forbids attaching below it; one
 * with OVERRIDE or MULTI allows anything. Only the nearest ancestor that has
 * programs decides (an empty cgroup's flags are 0 and it is skipped). */
static bool hierarchy_allows_attach(const struct cg_node *node, uint32_t type)
{
	for (const struct cg_node *p = node->parent; p; p = p->parent) {
		const struct cg_progs *pr = p->attached[type];
		if (!pr)
			continue;
		if (pr->flags & CG_F_ALLOW_MULTI)
			return true;
		return (pr->flags & CG_F_ALLOW_OVERRIDE) != 0;
	}
	return true;
}

/* Which slot an attach fills: -1 to append, else the slot it replaces. A
 * non-MULTI cgroup's single program is replaced by attaching again with the
 * same flags; MULTI refuses the same program twice (-EINVAL, not -EEXIST:
 * the kernel's find_attach_entry) and replaces only the named target. */
static int find_attach_slot(const struct cg_progs *pr, void *prog, void *replace, bool multi,
			    int *slot)
{
	*slot = -1;
	uint32_t n = pr ? pr->n : 0;
	if (!multi) {
		if (n > 0)
			*slot = 0;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++)
		if (pr->progs[i] == prog && prog != replace)
			return -EINVAL;
	if (!replace)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (pr->progs[i] == replace) {
			*slot = (int)i;
			return 0;
		}
	}
	return -ENOENT;
}

static int attach_locked(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog,
			 uint32_t flags, void *replace)
{
	uint32_t saved = flags & CG_F_SAVED;
	if (node->tree != tree || node->removed)
		return -ENOENT;
	if (!hierarchy_allows_attach(node, type))
		return -EPERM;
	struct cg_progs *pr = node->attached[type];
	/* Flags must match what is attached: no exclusive program on top of an
	 * overridable one, no MULTI on top of either. */
	if (pr && pr->flags != saved)
		return -EPERM;
	/* Checked before looking for a replace target, as the kernel does: a
	 * full MULTI list refuses a replace too. */
	if (pr && pr->n >= CG_MAX_PROGS)
		return -E2BIG;
	int slot;
	int err = find_attach_slot(pr, prog, replace, saved & CG_F_ALLOW_MULTI, &slot);
	if (err)
		return err;

	bool fresh = !pr;
	if (fresh) {
		pr = calloc(1, sizeof(*pr));
		if (!pr)
			return -ENOMEM;
		pr->flags = saved;
		node->attached[type] = pr;
	}
	void *old = NULL;
	if (slot >= 0) {
		old = pr->progs[slot];
		pr->progs[slot] = prog;
	} else {
		slot = (int)pr->n++;
		pr->progs[slot] = prog;
	}
	err = cg_update_effective(tree, node, type);
	if (err) {
		if (old)
			pr->progs[slot] = old;
		else
			pr->n--;
		if (fresh) {
			node->attached[type] = NULL;
			free(pr);
		}
		return err;
	}
	tree->ops.get(prog); /* the attachment's reference */
	if (old)
		tree->ops.put(old); /* retired arrays still hold theirs */
	return 0;
}

int cg_attach(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog, uint32_t flags,
	      void *replace_prog)
{
	if (!tree || !node || !prog)
		return -EINVAL;
	/* The kernel's order: unknown flags, OVERRIDE with MULTI, REPLACE
	 * without MULTI, a replace target without REPLACE or REPLACE without
	 * one, then the attach type. */
	if (flags & ~CG_F_ALL)
		return -EINVAL;
	if (((flags & CG_F_ALLOW_OVERRIDE) && (flags & CG_F_ALLOW_MULTI)) ||
	    ((flags & CG_F_REPLACE) && !(flags & CG_F_ALLOW_MULTI)))
		return -EINVAL;
	if (!replace_prog != !(flags & CG_F_REPLACE))
		return -EINVAL;
	if (type >= CG_ATTACH_TYPES)
		return -EINVAL;
	pthread_mutex_lock(&tree->lock);
	int err = attach_locked(tree, node, type, prog, flags, replace_prog);
	pthread_mutex_unlock(&tree->lock);
	return err;
}

static int detach_locked(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog)
{
	if (node->tree != tree || node->removed)
		return -ENOENT;
	struct cg_progs *pr = node->attached[type];
	if (!pr)
		return -ENOENT; /* nothing attached */
	uint32_t slot = 0;
	if (pr->flags & CG_F_ALLOW_MULTI) {
		/* MULTI needs the program; without it -EINVAL. */
		if (!prog)
			return -EINVAL;
		while (slot < pr->n && pr->progs[slot] != prog)
			slot++;
		if (slot == pr->n)
			return -ENOENT;
	}
	/* Not MULTI: the single program goes whatever prog names, the legacy
	 * behaviour the kernel keeps (find_detach_entry). */
	void *old = pr->progs[slot];
	memmove(&pr->progs[slot], &pr->progs[slot + 1], (pr->n - slot - 1) * sizeof(void *));
	pr->n--;
	int err = cg_update_effective(tree, node, type);
	if (err) {
		memmove(&pr->progs[slot + 1], &pr->progs[slot], (pr->n - slot) * sizeof(void *));
		pr->progs[slot] = old;
		pr->n++;
		return err;
	}
	if (pr->n == 0) {
		/* Last one gone: the flags reset to none. */
		node->attached[type] = NULL;
		free(pr);
	}
	tree->ops.put(old);
	return 0;
}

int cg_detach(struct cg_tree *tree, struct cg_node *node, uint32_t type, void *prog)
{
	if (!tree || !node || type >= CG_ATTACH_TYPES)
		return -EINVAL;
	pthread_mutex_lock(&tree->lock);
	int err = detach_locked(tree, node, type, prog);
	pthread_mutex_unlock(&tree->lock);
	return err;
}

static int query_locked(struct cg_tree *tree, struct cg_node *node, uint32_t type,
			uint32_t query_flags, uint32_t *attach_flags, uint32_t *ids, uint32_t *cnt)
{
	if (node->tree != tree || node->removed)
		return -ENOENT;
	const struct cg_progs *pr = node->attached[type];
	const struct cg_array *eff =
	    atomic_load_explicit(&node->hot.effective[type], memory_order_relaxed);
	bool effective = query_flags & CG_QUERY_EFFECTIVE;
	uint32_t total = effective ? eff->n : (pr ? pr->n : 0);
	/* This cgroup's own flags; an effective query reports 0, as kernels
	 * since 6.0 do ("always output attach_flags as 0 during effective
	 * query" in __cgroup_bpf_query; 6.18 checked). */
	if (attach_flags)
		*attach_flags = effective ? 0 : (pr ? pr->flags : 0);
	uint32_t cap = *cnt;
	*cnt = total;
	if (cap == 0 || !ids || total == 0)
		return 0;
	uint32_t n = total;
	int ret = 0;
	if (cap < total) {
		n = cap;
		ret = -ENOSPC;
	}
	for (uint32_t i = 0; i < n; i++)
		ids[i] = tree->ops.id(effective ? eff->progs[i] : pr->progs[i]);
	return ret;
}

int cg_query(struct cg_tree *tree, struct cg_node *node, uint32_t type, uint32_t query_flags,
	     uint32_t *attach_flags, uint32_t *ids, uint32_t *cnt)
{
	if (!tree || !node || !cnt || (query_flags & ~CG_QUERY_EFFECTIVE) ||
	    type >= CG_ATTACH_TYPES)
		return -EINVAL;
	pthread_mutex_lock(&tree->lock);
	int err = query_locked(tree, node, type, query_flags, attach_flags, ids, cnt);
	pthread_mutex_unlock(&tree->lock);
	return err;
}
