/* BPF_MAP_TYPE_PROG_ARRAY: tail-call targets. User space stores program IDs
 * (the kernel takes fds; IDs are our handles) and reads IDs back; the map holds
 * one reference per slot. Replaced or deleted programs are kept referenced until
 * the map is freed, because a running tail call may still use them and bpfvm has
 * no RCU grace period to wait for. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

struct prog_array {
	pthread_mutex_t lock;
	struct bpfvm_prog *_Atomic *progs;
	uint32_t *ids;
	/* All entries and every program that tail-calls through the array
	 * share one type and are all verified or all not: a tail call runs its
	 * target on the caller's ctx, which only a program of the caller's type
	 * was verified against (the kernel's bpf_prog_map_compatible). */
	const struct bpfvm_prog_type *owner_type;
	bool owner_unverified;
	struct bpfvm_prog **retired;
	size_t nretired;
};

static int pa_alloc(struct bpfvm_map *map)
{
	const struct bpfvm_map_def *d = &map->def;
	int err = bpfvm_map_check_fd_array(d);
	if (err)
		return err;
	struct prog_array *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->progs = calloc(d->max_entries, sizeof(*a->progs));
	a->ids = calloc(d->max_entries, sizeof(*a->ids));
	if (!a->progs || !a->ids) {
		free(a->progs);
		free(a->ids);
		free(a);
		return -ENOMEM;
	}
	pthread_mutex_init(&a->lock, NULL);
	map->data = a;
	return 0;
}

static void pa_free(struct bpfvm_map *map)
{
	struct prog_array *a = map->data;
	if (!a)
		return;
	for (uint32_t i = 0; i < map->def.max_entries; i++)
		bpfvm_prog_put(atomic_load(&a->progs[i]));
	for (size_t i = 0; i < a->nretired; i++)
		bpfvm_prog_put(a->retired[i]);
	free(a->retired);
	free(a->progs);
	free(a->ids);
	pthread_mutex_destroy(&a->lock);
	free(a);
	map->data = NULL;
}

static int retire(struct prog_array *a, struct bpfvm_prog *old)
{
	if (!old)
		return 0;
	struct bpfvm_prog **r = realloc(a->retired, (a->nretired + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	a->retired = r;
	r[a->nretired++] = old;
	return 0;
}

static void *pa_lookup(struct bpfvm_map *map, const void *key)
{
	struct prog_array *a = map->data;
	uint32_t index;
	memcpy(&index, key, 4);
	if (index >= map->def.max_entries || !a->ids[index])
		return NULL;
	return &a->ids[index];
}

/* Under a->lock: 0 if p may join (or call through) the array, which then
 * belongs to its kind. */
static int pa_claim(struct prog_array *a, const struct bpfvm_prog *p)
{
	if (a->owner_type && (a->owner_type != p->type || a->owner_unverified != p->no_verify))
		return -EINVAL;
	a->owner_type = p->type;
	a->owner_unverified = p->no_verify;
	return 0;
}

int bpfvm_prog_array_claim(struct bpfvm_map *map, const struct bpfvm_prog *prog)
{
	if (!map || map->def.type != BPFVM_MAP_PROG_ARRAY)
		return 0;
	struct prog_array *a = map->data;
	pthread_mutex_lock(&a->lock);
	int err = pa_claim(a, prog);
	pthread_mutex_unlock(&a->lock);
	return err;
}

static int pa_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	struct prog_array *a = map->data;
	uint32_t index, id;
	memcpy(&index, key, 4);
	memcpy(&id, value, 4);
	if (flags != BPFVM_ANY)
		return -EINVAL;
	if (index >= map->def.max_entries)
		return -E2BIG;
	if (!map->reg)
		return -EINVAL;
	struct bpfvm_prog *p;
	int err = bpfvm_prog_get_by_id(map->reg, id, &p);
	if (err)
		return err;
	pthread_mutex_lock(&a->lock);
	err = pa_claim(a, p);
	if (!err) {
		err = retire(a, atomic_load(&a->progs[index]));
		if (!err) {
			a->ids[index] = id;
			atomic_store(&a->progs[index], p);
			p = NULL;
		}
	}
	pthread_mutex_unlock(&a->lock);
	bpfvm_prog_put(p);
	return err;
}

static int pa_delete(struct bpfvm_map *map, const void *key)
{
	struct prog_array *a = map->data;
	uint32_t index;
	memcpy(&index, key, 4);
	if (index >= map->def.max_entries)
		return -E2BIG;
	int err = 0;
	pthread_mutex_lock(&a->lock);
	struct bpfvm_prog *old = atomic_load(&a->progs[index]);
	if (!old)
		err = -ENOENT;
	else if (!(err = retire(a, old))) {
		atomic_store(&a->progs[index], NULL);
		a->ids[index] = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return err;
}

struct bpfvm_prog *bpfvm_prog_array_get(struct bpfvm_map *map, uint32_t index)
{
	if (!map || map->def.type != BPFVM_MAP_PROG_ARRAY || index >= map->def.max_entries)
		return NULL;
	struct prog_array *a = map->data;
	return atomic_load_explicit(&a->progs[index], memory_order_acquire);
}

const struct bpfvm_map_ops bpfvm_prog_array_ops = {
    .alloc = pa_alloc,
    .free = pa_free,
    .lookup = pa_lookup,
    .update = pa_update,
    .delete = pa_delete,
    .get_next_key = bpfvm_map_index_next_key,
};
