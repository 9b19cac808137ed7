/* BPF_MAP_TYPE_SK_STORAGE: one value per owner (a socket), created on demand by
 * bpf_sk_storage_get with BPF_SK_STORAGE_GET_F_CREATE, as the kernel's
 * net/core/bpf_sk_storage.c. The owner is an opaque pointer; user space has no
 * socket fds here, so the fd-keyed syscall operations are -EOPNOTSUPP. Values
 * are allocated per owner (one per socket, not per update). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

#define SK_FLAGS	(BPFVM_F_NO_PREALLOC | (1U << 9) /* BPF_F_CLONE */)
#define SK_BUCKETS	1024U
#define SK_GET_F_CREATE 1ULL

struct sk_elem {
	struct sk_elem *next; /* reused as the deferred-free link once unlinked */
	const void *owner;
	uint64_t value[]; /* value_size bytes, 8-aligned */
};

struct sk_data {
	pthread_mutex_t lock;
	struct sk_elem *buckets[SK_BUCKETS];
};

static size_t sk_bucket(const void *owner)
{
	uintptr_t p = (uintptr_t)owner;
	return (size_t)((p >> 4) ^ (p >> 14)) % SK_BUCKETS;
}

/* bpf_local_storage_map_alloc_check */
static int sk_alloc(struct bpfvm_map *map)
{
	const struct bpfvm_map_def *d = &map->def;
	if ((d->map_flags & ~SK_FLAGS) || !(d->map_flags & BPFVM_F_NO_PREALLOC) ||
	    d->max_entries != 0 || d->key_size != sizeof(int) || d->value_size == 0)
		return -EINVAL;
	if (d->value_size > BPFVM_MAP_MAX_VALUE)
		return -E2BIG;
	struct sk_data *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	map->data = s;
	return 0;
}

static void sk_free(struct bpfvm_map *map)
{
	struct sk_data *s = map->data;
	if (!s)
		return;
	for (size_t b = 0; b < SK_BUCKETS; b++) {
		struct sk_elem *e = s->buckets[b];
		while (e) {
			struct sk_elem *n = e->next;
			free(e);
			e = n;
		}
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
	map->data = NULL;
}

static bool sk_owns(const struct bpfvm_map *map, const void *p, size_t len)
{
	struct sk_data *s = map->data;
	uintptr_t at = (uintptr_t)p;
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (size_t b = 0; b < SK_BUCKETS && !found; b++)
		for (struct sk_elem *e = s->buckets[b]; e && !found; e = e->next) {
			uintptr_t v = (uintptr_t)e->value;
			found = at >= v && at - v < map->def.value_size &&
				len <= map->def.value_size - (at - v);
		}
	pthread_mutex_unlock(&s->lock);
	return found;
}

void *bpfvm_sk_storage_get(struct bpfvm_map *map, const void *owner, const void *init,
			   uint64_t flags)
{
	if (!map || map->def.type != BPFVM_MAP_SK_STORAGE || !owner || (flags & ~SK_GET_F_CREATE))
		return NULL;
	struct sk_data *s = map->data;
	size_t b = sk_bucket(owner);
	void *v = NULL;
	pthread_mutex_lock(&s->lock);
	for (struct sk_elem *e = s->buckets[b]; e; e = e->next)
		if (e->owner == owner) {
			v = e->value;
			goto out;
		}
	if (!(flags & SK_GET_F_CREATE))
		goto out;
	struct sk_elem *e = calloc(1, sizeof(*e) + bpfvm_round8(map->def.value_size));
	if (!e)
		goto out;
	e->owner = owner;
	if (init)
		memcpy(e->value, init, map->def.value_size);
	e->next = s->buckets[b];
	s->buckets[b] = e;
	v = e->value;
out:
	pthread_mutex_unlock(&s->lock);
	return v;
}

int bpfvm_sk_storage_delete(struct bpfvm_map *map, const void *owner)
{
	if (!map || map->def.type != BPFVM_MAP_SK_STORAGE || !owner)
		return -EINVAL;
	struct sk_data *s = map->data;
	int err = -ENOENT;
	pthread_mutex_lock(&s->lock);
	for (struct sk_elem **pp = &s->buckets[sk_bucket(owner)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->owner == owner) {
			struct sk_elem *e = *pp;
			*pp = e->next;
			/* the running program may hold e->value (from
			 * bpf_sk_storage_get): free it once the run ended */
			bpfvm_free_deferred((struct bpfvm_deferred *)(void *)e);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

const struct bpfvm_map_ops bpfvm_sk_storage_ops = {
    .alloc = sk_alloc,
    .free = sk_free,
    .owns = sk_owns,
};
