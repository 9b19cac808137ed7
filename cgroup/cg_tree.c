/* cgroup: the tree of named cgroups ("/", "/a", "/a/b"), lookup with
 * on-demand creation, removal of empty cgroups, node reference counts.
 * A new cgroup inherits its ancestors' effective programs as the kernel's
 * cgroup_bpf_inherit() does; removal detaches its programs (rmdir). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cg_int.h"

/* Validates path and returns its length. Components may hold any byte but
 * '/', NUL and '\n' (the kernel's cgroup_mkdir refuses a newline). */
static int path_check(const char *path, size_t *len)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	size_t n = strnlen(path, CG_PATH_MAX);
	if (n >= CG_PATH_MAX)
		return -ENAMETOOLONG;
	*len = n;
	if (n == 1)
		return 0;
	if (path[n - 1] == '/')
		return -EINVAL;
	const char *c = path + 1;
	while (*c) {
		const char *end = strchr(c, '/');
		size_t clen = end ? (size_t)(end - c) : strlen(c);
		if (clen == 0)
			return -EINVAL;
		if (clen > CG_NAME_MAX)
			return -ENAMETOOLONG;
		if ((clen == 1 && c[0] == '.') || (clen == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (memchr(c, '\n', clen))
			return -EINVAL;
		c += clen;
		if (*c == '/')
			c++;
	}
	return 0;
}

static struct cg_node *node_alloc(struct cg_tree *tree, const char *path, size_t len)
{
	struct cg_node *n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	for (uint32_t t = 0; t < CG_ATTACH_TYPES; t++)
		atomic_init(&n->hot.effective[t], &cg_empty_array);
	atomic_init(&n->refcnt, 1);
	n->tree = tree;
	memcpy(n->path, path, len);
	n->path[len] = '\0';
	const char *slash = strrchr(n->path, '/');
	n->name = slash + 1;
	return n;
}

/* Live children only: a removed cgroup's name is free for a new one. */
static struct cg_node *find_child(const struct cg_node *parent, const char *name, size_t len)
{
	for (struct cg_node *c = parent->child; c; c = c->sibling)
		if (!c->removed && strlen(c->name) == len && memcmp(c->name, name, len) == 0)
			return c;
	return NULL;
}

static bool has_live_child(const struct cg_node *node)
{
	for (const struct cg_node *c = node->child; c; c = c->sibling)
		if (!c->removed)
			return true;
	return false;
}

/* Takes node out of its parent's child list and returns the parent, whose
 * reference the caller now owns (and must drop). */
static struct cg_node *unlink_child(struct cg_node *node)
{
	struct cg_node *parent = node->parent;
	struct cg_node **link = &parent->child;
	while (*link != node)
		link = &(*link)->sibling;
	*link = node->sibling;
	node->sibling = NULL;
	node->parent = NULL;
	return parent;
}

/* Makes a child of parent for path[0..len) and gives it the effective arrays
 * its ancestors imply. Lock held. */
static int node_create(struct cg_tree *tree, struct cg_node *parent, const char *path, size_t len,
		       struct cg_node **out)
{
	struct cg_node *n = node_alloc(tree, path, len);
	if (!n)
		return -ENOMEM;
	n->parent = parent;
	n->sibling = parent->child;
	parent->child = n;
	atomic_fetch_add_explicit(&parent->refcnt, 1, memory_order_relaxed);
	for (uint32_t t = 0; t < CG_ATTACH_TYPES; t++) {
		bool inherited = false;
		for (const struct cg_node *p = parent; p && !inherited; p = p->parent)
			inherited = p->attached[t] != NULL;
		if (!inherited)
			continue;
		int err = cg_update_effective(tree, n, t);
		if (err) {
			/* Nobody has seen n: retire what was published and drop
			 * it (the parent keeps the tree's or a child's reference). */
			cg_clear_effective(tree, n);
			atomic_fetch_sub_explicit(&unlink_child(n)->refcnt, 1,
						  memory_order_relaxed);
			free(n);
			return err;
		}
	}
	*out = n;
	return 0;
}

int cg_lookup(struct cg_tree *tree, const char *path, bool create, struct cg_node **out)
{
	size_t len;
	if (!tree || !out)
		return -EINVAL;
	int err = path_check(path, &len);
	if (err)
		return err;
	pthread_mutex_lock(&tree->lock);
	struct cg_node *node = tree->root;
	size_t pos = 1;
	while (pos < len) {
		const char *end = strchr(path + pos, '/');
		size_t clen = end ? (size_t)(end - (path + pos)) : len - pos;
		struct cg_node *c = find_child(node, path + pos, clen);
		if (!c) {
			if (!create) {
				err = -ENOENT;
				goto out;
			}
			err = node_create(tree, node, path, pos + clen, &c);
			if (err)
				goto out;
		}
		node = c;
		pos += clen + 1;
	}
	atomic_fetch_add_explicit(&node->refcnt, 1, memory_order_relaxed);
	*out = node;
out:
	pthread_mutex_unlock(&tree->lock);
	return err;
}

void cg_node_get(struct cg_node *node)
{
	if (node)
		atomic_fetch_add_explicit(&node->refcnt, 1, memory_order_relaxed);
}

/* Drops everything a node holds in the tree: its programs (the retired
 * arrays keep their own references), its effective arrays. Lock held. */
static void node_release(struct cg_tree *tree, struct cg_node *node)
{
	for (uint32_t t = 0; t < CG_ATTACH_TYPES; t++) {
		struct cg_progs *pr = node->attached[t];
		if (!pr)
			continue;
		node->attached[t] = NULL;
		for (uint32_t i = 0; i < pr->n; i++)
			tree->ops.put(pr->progs[i]);
		free(pr);
	}
	cg_clear_effective(tree, node);
}

void cg_node_put(struct cg_node *node)
{
	/* Releasing a node drops its reference on the parent: iterate up. */
	while (node) {
		if (atomic_fetch_sub_explicit(&node->refcnt, 1, memory_order_acq_rel) != 1)
			return;
		/* Only a removed (or orphaned) node gets here: a linked live
		 * one has the tree's reference. Nobody can find it any more;
		 * writers may still walk it until it is unlinked below. */
		struct cg_tree *tree = node->tree;
		struct cg_node *parent = NULL;
		if (tree) {
			pthread_mutex_lock(&tree->lock);
			node_release(tree, node);
			parent = unlink_child(node);
			pthread_mutex_unlock(&tree->lock);
		}
		free(node);
		node = parent;
	}
}

const char *cg_node_path(const struct cg_node *node)
{
	return node ? node->path : NULL;
}

int cg_remove(struct cg_tree *tree, const char *path)
{
	size_t len;
	if (!tree)
		return -EINVAL;
	int err = path_check(path, &len);
	if (err)
		return err;
	if (len == 1)
		return -EINVAL;
	struct cg_node *node;
	err = cg_lookup(tree, path, false, &node);
	if (err)
		return err;
	pthread_mutex_lock(&tree->lock);
	if (node->removed)
		err = -ENOENT; /* raced with another remove */
	else if (has_live_child(node))
		err = -EBUSY; /* removed children do not count, as in rmdir */
	else
		node->removed = true;
	pthread_mutex_unlock(&tree->lock);
	if (!err)
		cg_node_put(node); /* the tree's reference */
	/* The last reference releases it and its programs: at once unless a
	 * socket (or a removed child) still holds it. */
	cg_node_put(node);
	return err;
}

int cg_tree_create(const struct cg_prog_ops *ops, unsigned max_readers, struct cg_tree **out)
{
	if (!ops || !ops->get || !ops->put || !ops->id || !out || max_readers > CG_READERS_MAX)
		return -EINVAL;
	struct cg_tree *tree = calloc(1, sizeof(*tree));
	if (!tree)
		return -ENOMEM;
	tree->ops = *ops;
	int err = cg_qsbr_init(&tree->qsbr, max_readers);
	if (err)
		goto fail;
	tree->root = node_alloc(tree, "/", 1);
	if (!tree->root) {
		err = -ENOMEM;
		goto fail;
	}
	err = -pthread_mutex_init(&tree->lock, NULL);
	if (err)
		goto fail;
	*out = tree;
	return 0;
fail:
	free(tree->root);
	cg_qsbr_fini(&tree->qsbr);
	free(tree);
	return err;
}

void cg_tree_destroy(struct cg_tree *tree)
{
	if (!tree)
		return;
	pthread_mutex_lock(&tree->lock);
	/* Leaves first, so that a node's count holds no child references when
	 * it is looked at. What is still referenced from outside becomes an
	 * orphan with empty arrays that its last cg_node_put frees. */
	struct cg_node *root = tree->root;
	tree->root = NULL;
	while (root) {
		struct cg_node *n = root;
		while (n->child)
			n = n->child;
		if (n == root)
			root = NULL;
		else
			atomic_fetch_sub_explicit(&unlink_child(n)->refcnt, 1,
						  memory_order_relaxed);
		node_release(tree, n);
		unsigned drop = n->removed ? 0 : 1;
		if (atomic_fetch_sub_explicit(&n->refcnt, drop, memory_order_acq_rel) == drop)
			free(n);
		else
			n->tree = NULL;
	}
	cg_reclaim_all(tree);
	pthread_mutex_unlock(&tree->lock);
	pthread_mutex_destroy(&tree->lock);
	cg_qsbr_fini(&tree->qsbr);
	free(tree);
}
