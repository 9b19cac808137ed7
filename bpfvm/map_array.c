/* BPF_MAP_TYPE_ARRAY and BPF_MAP_TYPE_PERCPU_ARRAY with the semantics of the
 * kernel's kernel/bpf/arraymap.c: preallocated zeroed elements rounded up to 8
 * bytes, u32 index keys, no deletion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

#define ARRAY_FLAGS (BPFVM_F_NUMA_NODE | BPFVM_F_ACCESS_MASK | BPFVM_F_MMAPABLE)

struct array_data {
	uint32_t elem_size; /* round8(value_size) */
	bool percpu;
	char *values; /* max_entries elements; per-cpu: [index][cpu] */
};

static size_t array_slot(const struct array_data *a, uint32_t index, unsigned cpu)
{
	if (!a->percpu)
		return (size_t)index * a->elem_size;
	return ((size_t)index * BPFVM_MAX_CPUS + cpu) * a->elem_size;
}

static int array_alloc_common(struct bpfvm_map *map, bool percpu)
{
	const struct bpfvm_map_def *d = &map->def;
	/* array_map_alloc_check: key is a u32 index, no zero sizes, known flags */
	if (d->max_entries == 0 || d->key_size != 4 || d->value_size == 0 ||
	    (d->map_flags & ~ARRAY_FLAGS))
		return -EINVAL;
	if (percpu && (d->map_flags & BPFVM_F_MMAPABLE))
		return -EINVAL;
	if (d->value_size > (percpu ? BPFVM_MAP_MAX_PERCPU_VALUE : BPFVM_MAP_MAX_VALUE))
		return -E2BIG;
	struct array_data *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->elem_size = bpfvm_round8(d->value_size);
	a->percpu = percpu;
	unsigned long long bytes = (unsigned long long)a->elem_size * d->max_entries;
	if (percpu)
		bytes *= BPFVM_MAX_CPUS;
	if (bytes > BPFVM_MAP_MAX_BYTES) {
		free(a);
		return -ENOMEM;
	}
	a->values = calloc(1, (size_t)bytes);
	if (!a->values) {
		free(a);
		return -ENOMEM;
	}
	map->data = a;
	return 0;
}

static int array_alloc(struct bpfvm_map *map)
{
	return array_alloc_common(map, false);
}

static int percpu_array_alloc(struct bpfvm_map *map)
{
	return array_alloc_common(map, true);
}

static void array_free(struct bpfvm_map *map)
{
	struct array_data *a = map->data;
	if (!a)
		return;
	free(a->values);
	free(a);
	map->data = NULL;
}

static void *array_lookup(struct bpfvm_map *map, const void *key)
{
	struct array_data *a = map->data;
	uint32_t index;
	memcpy(&index, key, sizeof(index));
	if (index >= map->def.max_entries)
		return NULL;
	return a->values + array_slot(a, index, a->percpu ? bpfvm_cpu() : 0);
}

/* array_map_update_elem: flags above BPF_EXIST are -EINVAL, an index past the
 * end -E2BIG, and NOEXIST always -EEXIST since every element exists. */
static int array_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	struct array_data *a = map->data;
	uint32_t index;
	memcpy(&index, key, sizeof(index));
	if (flags > BPFVM_EXIST)
		return -EINVAL;
	if (index >= map->def.max_entries)
		return -E2BIG;
	if (flags == BPFVM_NOEXIST)
		return -EEXIST;
	bpfvm_map_copy_value(map, a->values + array_slot(a, index, a->percpu ? bpfvm_cpu() : 0),
			     value);
	return 0;
}

static int array_delete(struct bpfvm_map *map, const void *key)
{
	(void)map;
	(void)key;
	return -EINVAL;
}

/* array_map_get_next_key: a missing or out-of-range key restarts at 0. */
static int array_get_next_key(struct bpfvm_map *map, const void *key, void *next_key)
{
	uint32_t index = 0, next;
	if (key)
		memcpy(&index, key, sizeof(index));
	if (!key || index >= map->def.max_entries) {
		next = 0;
	} else {
		if (index == map->def.max_entries - 1)
			return -ENOENT;
		next = index + 1;
	}
	memcpy(next_key, &next, sizeof(next));
	return 0;
}

static bool array_owns(const struct bpfvm_map *map, const void *p, size_t len)
{
	const struct array_data *a = map->data;
	size_t n = array_slot(a, map->def.max_entries, 0);
	uintptr_t base = (uintptr_t)a->values, at = (uintptr_t)p;
	if (at < base || at - base >= n)
		return false;
	size_t in = (at - base) % a->elem_size;
	return len <= map->def.value_size && in + len <= map->def.value_size;
}

int bpfvm_percpu_array_copy(struct bpfvm_map *map, const void *key, void *values)
{
	struct array_data *a = map->data;
	uint32_t index;
	memcpy(&index, key, sizeof(index));
	if (!a->percpu)
		return -EINVAL;
	if (index >= map->def.max_entries)
		return -ENOENT;
	memcpy(values, a->values + array_slot(a, index, 0), (size_t)a->elem_size * BPFVM_MAX_CPUS);
	return 0;
}

const struct bpfvm_map_ops bpfvm_array_ops = {
    .alloc = array_alloc,
    .free = array_free,
    .lookup = array_lookup,
    .update = array_update,
    .delete = array_delete,
    .get_next_key = array_get_next_key,
    .owns = array_owns,
};

const struct bpfvm_map_ops bpfvm_percpu_array_ops = {
    .alloc = percpu_array_alloc,
    .free = array_free,
    .lookup = array_lookup,
    .update = array_update,
    .delete = array_delete,
    .get_next_key = array_get_next_key,
    .owns = array_owns,
};
