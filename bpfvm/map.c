/* Map core: creation with the kernel's validation and errnos (kernel/bpf/syscall.c
 * map_create), reference counting with registry release, and the wrappers every
 * caller (helpers, user space, loader) goes through. Types live in map_*.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

static const struct bpfvm_map_ops *map_type_ops(uint32_t type)
{
	switch (type) {
	case BPFVM_MAP_ARRAY:
		return &bpfvm_array_ops;
	case BPFVM_MAP_PERCPU_ARRAY:
		return &bpfvm_percpu_array_ops;
	case BPFVM_MAP_HASH:
		return &bpfvm_hash_ops;
	case BPFVM_MAP_PERCPU_HASH:
		return &bpfvm_percpu_hash_ops;
	case BPFVM_MAP_LRU_HASH:
		return &bpfvm_lru_hash_ops;
	case BPFVM_MAP_SK_STORAGE:
		return &bpfvm_sk_storage_ops;
	case BPFVM_MAP_RINGBUF:
		return &bpfvm_ringbuf_ops;
	case BPFVM_MAP_PERF_EVENT_ARRAY:
		return &bpfvm_perf_event_array_ops;
	case BPFVM_MAP_PROG_ARRAY:
		return &bpfvm_prog_array_ops;
	case BPFVM_MAP_SOCKMAP:
	case BPFVM_MAP_SOCKHASH:
		return &bpfvm_sock_map_ops;
	default:
		return NULL;
	}
}

bool bpfvm_map_type_known(uint32_t type)
{
	return map_type_ops(type) != NULL;
}

/* Map names follow the kernel's bpf_obj_name_cpy: alphanumerics, '_' and '.',
 * NUL-terminated within BPFVM_OBJ_NAME_LEN. */
static int map_name_ok(const char *name)
{
	size_t i;
	for (i = 0; i < BPFVM_OBJ_NAME_LEN && name[i]; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.'))
			return -EINVAL;
	}
	return i < BPFVM_OBJ_NAME_LEN ? 0 : -EINVAL;
}

int bpfvm_map_create(struct bpfvm_registry *reg, const struct bpfvm_map_def *def,
		     struct bpfvm_map **out)
{
	if (!def || !out)
		return -EINVAL;
	*out = NULL;
	const struct bpfvm_map_ops *ops = map_type_ops(def->type);
	if (!ops)
		return -EINVAL;
	if (map_name_ok(def->name))
		return -EINVAL;
	/* a lock word inside the value, in the map types the kernel lets hold
	 * one (map_check_btf: no per-cpu values, no special maps) */
	if (def->has_spin_lock && ((def->type != BPFVM_MAP_ARRAY && def->type != BPFVM_MAP_HASH &&
				    def->type != BPFVM_MAP_SK_STORAGE) ||
				   def->spin_lock_off % 4 || def->spin_lock_off > def->value_size ||
				   def->value_size - def->spin_lock_off < 4))
		return -EINVAL;
	struct bpfvm_map *map = calloc(1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	atomic_init(&map->refcnt, 1);
	map->def = *def;
	map->ops = ops;
	int err = ops->alloc(map);
	if (err) {
		free(map);
		return err;
	}
	if (reg) {
		err = bpfvm_reg_add_map(reg, map);
		if (err) {
			ops->free(map);
			free(map);
			return err;
		}
		map->reg = reg;
	}
	*out = map;
	return 0;
}

void bpfvm_map_get(struct bpfvm_map *map)
{
	if (map)
		atomic_fetch_add(&map->refcnt, 1);
}

void bpfvm_map_put(struct bpfvm_map *map)
{
	if (!map || atomic_fetch_sub(&map->refcnt, 1) != 1)
		return;
	if (map->reg && !bpfvm_reg_release_map(map))
		return;
	map->ops->free(map);
	free(map);
}

void *bpfvm_map_lookup(struct bpfvm_map *map, const void *key)
{
	if (!map || !key || !map->ops->lookup)
		return NULL;
	return map->ops->lookup(map, key);
}

void bpfvm_map_freeze(struct bpfvm_map *map)
{
	map->frozen = true;
}

bool bpfvm_map_prog_rdonly(const struct bpfvm_map *map)
{
	return map->def.map_flags & BPFVM_F_RDONLY_PROG;
}

bool bpfvm_map_is_rdonly(const struct bpfvm_map *map)
{
	return bpfvm_map_prog_rdonly(map) && map->frozen;
}

int bpfvm_map_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	if (!map || !key || !value)
		return -EINVAL;
	if (map->frozen)
		return -EPERM;
	if (!map->ops->update)
		return -EOPNOTSUPP;
	return map->ops->update(map, key, value, flags);
}

int bpfvm_map_delete(struct bpfvm_map *map, const void *key)
{
	if (!map || !key)
		return -EINVAL;
	if (map->frozen)
		return -EPERM;
	if (!map->ops->delete)
		return -EOPNOTSUPP;
	return map->ops->delete (map, key);
}

int bpfvm_map_get_next_key(struct bpfvm_map *map, const void *key, void *next_key)
{
	if (!map || !next_key)
		return -EINVAL;
	if (!map->ops->get_next_key)
		return -EOPNOTSUPP;
	return map->ops->get_next_key(map, key, next_key);
}

int bpfvm_map_lookup_percpu(struct bpfvm_map *map, const void *key, void *values)
{
	if (!map || !key || !values)
		return -EINVAL;
	switch (map->def.type) {
	case BPFVM_MAP_PERCPU_ARRAY:
		return bpfvm_percpu_array_copy(map, key, values);
	case BPFVM_MAP_PERCPU_HASH:
		return bpfvm_percpu_hash_copy(map, key, values);
	default:
		return -EINVAL;
	}
}

bool bpfvm_map_owns(const struct bpfvm_map *map, const void *p, size_t len)
{
	if (!map || !p || !map->ops->owns)
		return false;
	return map->ops->owns(map, p, len);
}

void bpfvm_map_info(const struct bpfvm_map *map, struct bpfvm_map_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!map)
		return;
	info->type = map->def.type;
	info->id = map->id;
	info->key_size = map->def.key_size;
	info->value_size = map->def.value_size;
	info->max_entries = map->def.max_entries;
	info->map_flags = map->def.map_flags;
	memcpy(info->name, map->def.name, sizeof(info->name));
}

uint32_t bpfvm_map_id(const struct bpfvm_map *map)
{
	return map ? map->id : 0;
}

const struct bpfvm_map_def *bpfvm_map_def(const struct bpfvm_map *map)
{
	return map ? &map->def : NULL;
}

int bpfvm_map_check_fd_array(const struct bpfvm_map_def *d)
{
	if (d->max_entries == 0 || d->key_size != 4 || d->value_size != 4 ||
	    (d->map_flags & ~(BPFVM_F_NUMA_NODE | BPFVM_F_ACCESS_MASK)))
		return -EINVAL;
	if (d->max_entries > (1U << 24))
		return -E2BIG;
	return 0;
}

int bpfvm_map_index_next_key(struct bpfvm_map *map, const void *key, void *next_key)
{
	uint32_t index = 0, next = 0;
	if (key)
		memcpy(&index, key, 4);
	if (key && index < map->def.max_entries) {
		if (index == map->def.max_entries - 1)
			return -ENOENT;
		next = index + 1;
	}
	memcpy(next_key, &next, 4);
	return 0;
}
