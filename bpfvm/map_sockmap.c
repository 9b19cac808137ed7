/* BPF_MAP_TYPE_SOCKMAP and SOCKHASH as far as they mean something without the
 * kernel's skmsg redirection: a sock_ops program inserts the socket it runs for
 * (bpf_sock_map_update / bpf_sock_hash_update), the map holds a reference to it
 * by (owner, cookie) until the socket closes (bpfvm_sock_release) or the
 * entry is deleted, and user space looks an entry up as the kernel's syscall
 * path does: the socket cookie (value_size 8) or -ENOSPC (value_size 4).
 * Validation, flags and errnos follow net/core/sock_map.c. The entries live in
 * an inner preallocated hash map (map_hash.c), keyed by the map's key, whose
 * value is {cookie, owner}. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

/* SOCK_CREATE_FLAG_MASK */
#define SOCK_FLAGS   (BPFVM_F_NUMA_NODE | BPFVM_F_RDONLY | BPFVM_F_WRONLY)
#define SOCK_MAX_KEY 512 /* MAX_BPF_STACK */

struct sock_ent {
	uint64_t cookie; /* first: what a syscall lookup returns */
	uint64_t owner;
};

static bool is_sockmap(const struct bpfvm_map *map)
{
	return map->def.type == BPFVM_MAP_SOCKMAP;
}

static bool sock_type(const struct bpfvm_map *map)
{
	return map->def.type == BPFVM_MAP_SOCKMAP || map->def.type == BPFVM_MAP_SOCKHASH;
}

/* sock_map_alloc / sock_hash_alloc */
static int sock_alloc(struct bpfvm_map *map)
{
	const struct bpfvm_map_def *d = &map->def;
	if (d->max_entries == 0 || (d->value_size != 4 && d->value_size != 8) ||
	    (d->map_flags & ~SOCK_FLAGS))
		return -EINVAL;
	if (is_sockmap(map) ? d->key_size != 4 : d->key_size == 0)
		return -EINVAL;
	if (d->key_size > SOCK_MAX_KEY)
		return -E2BIG;
	struct bpfvm_map_def in = {
	    .type = BPFVM_MAP_HASH,
	    .key_size = d->key_size,
	    .value_size = sizeof(struct sock_ent),
	    .max_entries = d->max_entries,
	};
	memcpy(in.name, "sock_entries", sizeof("sock_entries"));
	struct bpfvm_map *inner;
	int err = bpfvm_map_create(NULL, &in, &inner);
	if (err)
		return err;
	map->data = inner;
	return 0;
}

static void sock_free(struct bpfvm_map *map)
{
	bpfvm_map_put(map->data);
	map->data = NULL;
}

static bool index_ok(const struct bpfvm_map *map, const void *key)
{
	uint32_t i;
	if (!is_sockmap(map))
		return true;
	memcpy(&i, key, sizeof(i));
	return i < map->def.max_entries;
}

/* The syscall view (sock_map_lookup_sys / sock_hash_lookup_sys): the cookie,
 * which needs an 8-byte value. */
static void *sock_lookup(struct bpfvm_map *map, const void *key)
{
	if (map->def.value_size != sizeof(uint64_t) || !index_ok(map, key))
		return NULL;
	return bpfvm_map_lookup(map->data, key);
}

/* User space has no socket fds here: the kernel's fd-taking update has no
 * counterpart; sockets enter through the sock_ops helpers only. */
static int sock_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return -EOPNOTSUPP;
}

/* sock_map_delete_elem: -EINVAL for an index out of range or an empty slot;
 * sock_hash_delete_elem: -ENOENT for an absent key. */
static int sock_delete(struct bpfvm_map *map, const void *key)
{
	if (!index_ok(map, key))
		return -EINVAL;
	int err = bpfvm_map_delete(map->data, key);
	return err == -ENOENT && is_sockmap(map) ? -EINVAL : err;
}

/* A sockmap walks every index (sock_map_get_next_key), a sockhash its keys. */
static int sock_next_key(struct bpfvm_map *map, const void *key, void *next_key)
{
	if (is_sockmap(map))
		return bpfvm_map_index_next_key(map, key, next_key);
	return bpfvm_map_get_next_key(map->data, key, next_key);
}

int bpfvm_sock_map_update(struct bpfvm_map *map, const void *key, const void *owner,
			  uint64_t cookie, uint64_t flags)
{
	if (!map || !sock_type(map) || !key || !owner)
		return -EINVAL;
	if (flags > BPFVM_EXIST)
		return -EINVAL;
	if (!index_ok(map, key))
		return -E2BIG;
	struct sock_ent e = {.cookie = cookie, .owner = (uint64_t)(uintptr_t)owner};
	return bpfvm_map_update(map->data, key, &e, flags);
}

const void *bpfvm_sock_map_owner(struct bpfvm_map *map, const void *key)
{
	if (!map || !sock_type(map) || !key || !index_ok(map, key))
		return NULL;
	struct sock_ent e;
	const struct sock_ent *p = bpfvm_map_lookup(map->data, key);
	if (!p)
		return NULL;
	memcpy(&e, p, sizeof(e));
	return (const void *)(uintptr_t)e.owner;
}

/* Drop every entry of owner from one map: the socket closed (the kernel's
 * sock_map_unref through the psock's links). */
static void sock_drop_owner(struct bpfvm_map *map, const void *owner)
{
	struct bpfvm_map *in = map->data;
	uint8_t key[SOCK_MAX_KEY], next[SOCK_MAX_KEY];
	bool first = true;
	while (bpfvm_map_get_next_key(in, first ? NULL : key, next) == 0) {
		memcpy(key, next, map->def.key_size);
		first = false;
		const struct sock_ent *p = bpfvm_map_lookup(in, key);
		struct sock_ent e;
		if (!p)
			continue;
		memcpy(&e, p, sizeof(e));
		if (e.owner == (uint64_t)(uintptr_t)owner) {
			bpfvm_map_delete(in, key);
			first = true; /* the walk's cursor is gone: restart */
		}
	}
}

/* One walk of the registry's maps per closing socket, for both kinds of map
 * that hold sockets (a close must not cost one walk per kind), found through
 * the registry's ID walk so no second list of maps needs keeping. */
void bpfvm_sock_release(struct bpfvm_registry *reg, const void *owner)
{
	uint32_t id = 0;
	if (!reg || !owner)
		return;
	while (bpfvm_map_get_next_id(reg, id, &id) == 0) {
		struct bpfvm_map *m;
		if (bpfvm_map_get_by_id(reg, id, &m))
			continue;
		if (sock_type(m))
			sock_drop_owner(m, owner);
		else if (m->def.type == BPFVM_MAP_SK_STORAGE)
			bpfvm_sk_storage_delete(m, owner);
		bpfvm_map_put(m);
	}
}

const struct bpfvm_map_ops bpfvm_sock_map_ops = {
    .alloc = sock_alloc,
    .free = sock_free,
    .lookup = sock_lookup,
    .update = sock_update,
    .delete = sock_delete,
    .get_next_key = sock_next_key,
};
