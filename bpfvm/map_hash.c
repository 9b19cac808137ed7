/* BPF_MAP_TYPE_HASH, PERCPU_HASH and LRU_HASH with the semantics of the kernel's
 * kernel/bpf/hashtab.c: every element preallocated at create (no malloc per
 * update, BPF_F_NO_PREALLOC is accepted and ignored), -E2BIG when a plain hash
 * is full, exact least-recently-used eviction for LRU (the kernel approximates
 * it per cpu; exact LRU is the behaviour it approximates). One mutex per map:
 * values are handed out as borrowed pointers, as the kernel's preallocated
 * elements are, and stay valid memory until the map is freed. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

#define HASH_FLAGS                                                                                 \
	(BPFVM_F_NO_PREALLOC | BPFVM_F_NO_COMMON_LRU | BPFVM_F_NUMA_NODE | BPFVM_F_ACCESS_MASK |   \
	 BPFVM_F_ZERO_SEED)
#define NIL 0U /* element links are index + 1 */

struct helem {
	uint32_t next;	       /* bucket chain */
	uint32_t lprev, lnext; /* LRU list (lru) or free list (lnext) */
	uint32_t hash;
	uint32_t used;
	uint32_t pad;
	/* key (round8), then value slot(s) */
};

struct htab {
	pthread_mutex_t lock;
	bool percpu, lru;
	uint32_t nbuckets; /* power of 2 */
	uint32_t *buckets;
	uint32_t key_off, val_off, slot, elem_size;
	uint8_t *pool;
	uint32_t free_head;	     /* deleted elements, linked through lnext */
	uint32_t next_fresh;	     /* first element never used */
	uint32_t lru_head, lru_tail; /* most recent at head */
	uint32_t count;
};

static struct helem *el(const struct htab *h, uint32_t link)
{
	return (struct helem *)(h->pool + (size_t)(link - 1) * h->elem_size);
}

static uint8_t *el_key(const struct htab *h, struct helem *e)
{
	return (uint8_t *)e + h->key_off;
}

static uint8_t *el_val(const struct htab *h, struct helem *e, unsigned cpu)
{
	return (uint8_t *)e + h->val_off + (size_t)cpu * h->slot;
}

/* FNV-1a: deterministic, so iteration order reproduces across runs. */
static uint32_t hash_key(const void *key, uint32_t n)
{
	const uint8_t *p = key;
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int hash_alloc_common(struct bpfvm_map *map, bool percpu, bool lru)
{
	const struct bpfvm_map_def *d = &map->def;
	/* htab_map_alloc_check */
	if (d->max_entries == 0 || d->key_size == 0 || d->value_size == 0 ||
	    (d->map_flags & ~HASH_FLAGS))
		return -EINVAL;
	if ((d->map_flags & BPFVM_F_NO_COMMON_LRU) && !lru)
		return -EINVAL;
	if (lru && (d->map_flags & BPFVM_F_NO_PREALLOC))
		return -EINVAL; /* the kernel's -ENOTSUPP: LRU needs preallocation */
	if (d->key_size > BPFVM_MAP_MAX_KEY)
		return -E2BIG;
	if (d->value_size > (percpu ? BPFVM_MAP_MAX_PERCPU_VALUE : BPFVM_MAP_MAX_VALUE))
		return -E2BIG;
	if (d->max_entries > (1U << 31))
		return -E2BIG;
	struct htab *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->percpu = percpu;
	h->lru = lru;
	h->nbuckets = 1;
	while (h->nbuckets < d->max_entries)
		h->nbuckets <<= 1;
	h->key_off = sizeof(struct helem);
	h->val_off = h->key_off + bpfvm_round8(d->key_size);
	h->slot = bpfvm_round8(d->value_size);
	unsigned long long esz =
	    h->val_off + (unsigned long long)h->slot * (percpu ? BPFVM_MAX_CPUS : 1);
	unsigned long long bytes = esz * d->max_entries + (unsigned long long)h->nbuckets * 4;
	if (bytes > BPFVM_MAP_MAX_BYTES) {
		free(h);
		return -ENOMEM;
	}
	h->elem_size = (uint32_t)esz;
	h->buckets = calloc(h->nbuckets, sizeof(*h->buckets));
	h->pool = calloc(d->max_entries, esz);
	if (!h->buckets || !h->pool) {
		free(h->buckets);
		free(h->pool);
		free(h);
		return -ENOMEM;
	}
	/* elements never used are taken in order from next_fresh, so creating a
	 * large map touches none of its (lazily zeroed) pool */
	h->next_fresh = 1;
	pthread_mutex_init(&h->lock, NULL);
	map->data = h;
	return 0;
}

static int hash_alloc(struct bpfvm_map *map)
{
	return hash_alloc_common(map, false, false);
}

static int percpu_hash_alloc(struct bpfvm_map *map)
{
	return hash_alloc_common(map, true, false);
}

static int lru_hash_alloc(struct bpfvm_map *map)
{
	return hash_alloc_common(map, false, true);
}

static void hash_free(struct bpfvm_map *map)
{
	struct htab *h = map->data;
	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	free(h->buckets);
	free(h->pool);
	free(h);
	map->data = NULL;
}

static uint32_t find(const struct htab *h, const struct bpfvm_map *map, const void *key,
		     uint32_t hash, uint32_t *prev)
{
	uint32_t p = NIL;
	for (uint32_t l = h->buckets[hash & (h->nbuckets - 1)]; l != NIL; l = el(h, l)->next) {
		struct helem *e = el(h, l);
		if (e->hash == hash && memcmp(el_key(h, e), key, map->def.key_size) == 0) {
			if (prev)
				*prev = p;
			return l;
		}
		p = l;
	}
	return NIL;
}

static void lru_unlink(struct htab *h, uint32_t l)
{
	struct helem *e = el(h, l);
	if (e->lprev)
		el(h, e->lprev)->lnext = e->lnext;
	else
		h->lru_head = e->lnext;
	if (e->lnext)
		el(h, e->lnext)->lprev = e->lprev;
	else
		h->lru_tail = e->lprev;
	e->lprev = e->lnext = NIL;
}

static void lru_push(struct htab *h, uint32_t l)
{
	struct helem *e = el(h, l);
	e->lprev = NIL;
	e->lnext = h->lru_head;
	if (h->lru_head)
		el(h, h->lru_head)->lprev = l;
	h->lru_head = l;
	if (!h->lru_tail)
		h->lru_tail = l;
}

static void bucket_unlink(struct htab *h, uint32_t l, uint32_t prev)
{
	struct helem *e = el(h, l);
	if (prev)
		el(h, prev)->next = e->next;
	else
		h->buckets[e->hash & (h->nbuckets - 1)] = e->next;
	e->next = NIL;
}

/* Remove element l (found with its chain predecessor prev) to the free list. */
static void remove_elem(struct htab *h, uint32_t l, uint32_t prev)
{
	bucket_unlink(h, l, prev);
	if (h->lru)
		lru_unlink(h, l);
	struct helem *e = el(h, l);
	e->used = 0;
	e->lnext = h->free_head;
	h->free_head = l;
	h->count--;
}

static void *hash_lookup(struct bpfvm_map *map, const void *key)
{
	struct htab *h = map->data;
	void *v = NULL;
	pthread_mutex_lock(&h->lock);
	uint32_t l = find(h, map, key, hash_key(key, map->def.key_size), NULL);
	if (l) {
		if (h->lru) {
			lru_unlink(h, l);
			lru_push(h, l);
		}
		v = el_val(h, el(h, l), h->percpu ? bpfvm_cpu() : 0);
	}
	pthread_mutex_unlock(&h->lock);
	return v;
}

/* The least recently used element, unlinked for reuse. */
static uint32_t lru_evict(struct htab *h, const struct bpfvm_map *map)
{
	uint32_t l = h->lru_tail, prev;
	if (!l)
		return NIL;
	struct helem *e = el(h, l);
	find(h, map, el_key(h, e), e->hash, &prev);
	remove_elem(h, l, prev);
	l = h->free_head;
	h->free_head = el(h, l)->lnext;
	return l;
}

static int hash_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	struct htab *h = map->data;
	if (flags > BPFVM_EXIST)
		return -EINVAL;
	uint32_t hash = hash_key(key, map->def.key_size);
	unsigned cpu = h->percpu ? bpfvm_cpu() : 0;
	int err = 0;
	pthread_mutex_lock(&h->lock);
	uint32_t l = find(h, map, key, hash, NULL);
	if (l) {
		if (flags == BPFVM_NOEXIST) {
			err = -EEXIST;
		} else {
			bpfvm_map_copy_value(map, el_val(h, el(h, l), cpu), value);
			if (h->lru) {
				lru_unlink(h, l);
				lru_push(h, l);
			}
		}
		goto out;
	}
	if (flags == BPFVM_EXIST) {
		err = -ENOENT;
		goto out;
	}
	if (h->free_head) {
		l = h->free_head;
		h->free_head = el(h, l)->lnext;
	} else if (h->next_fresh <= map->def.max_entries) {
		l = h->next_fresh++;
	} else if (h->lru) {
		l = lru_evict(h, map);
	}
	if (!l) {
		err = -E2BIG;
		goto out;
	}
	struct helem *e = el(h, l);
	memset(e, 0, h->elem_size);
	e->hash = hash;
	e->used = 1;
	memcpy(el_key(h, e), key, map->def.key_size);
	bpfvm_map_copy_value(map, el_val(h, e, cpu), value); /* lock word: 0 */
	uint32_t *b = &h->buckets[hash & (h->nbuckets - 1)];
	e->next = *b;
	*b = l;
	if (h->lru)
		lru_push(h, l);
	h->count++;
out:
	pthread_mutex_unlock(&h->lock);
	return err;
}

static int hash_delete(struct bpfvm_map *map, const void *key)
{
	struct htab *h = map->data;
	uint32_t prev;
	int err = 0;
	pthread_mutex_lock(&h->lock);
	uint32_t l = find(h, map, key, hash_key(key, map->def.key_size), &prev);
	if (l)
		remove_elem(h, l, prev);
	else
		err = -ENOENT;
	pthread_mutex_unlock(&h->lock);
	return err;
}

/* htab_map_get_next_key: the element after key in bucket order; a missing
 * key (or NULL) restarts at the first element. */
static int hash_get_next_key(struct bpfvm_map *map, const void *key, void *next_key)
{
	struct htab *h = map->data;
	uint32_t start = 0, l = NIL;
	pthread_mutex_lock(&h->lock);
	if (key) {
		uint32_t hash = hash_key(key, map->def.key_size);
		uint32_t cur = find(h, map, key, hash, NULL);
		if (cur) {
			l = el(h, cur)->next;
			start = (hash & (h->nbuckets - 1)) + 1;
		}
	}
	for (uint32_t b = start; !l && b < h->nbuckets; b++)
		l = h->buckets[b];
	if (l)
		memcpy(next_key, el_key(h, el(h, l)), map->def.key_size);
	pthread_mutex_unlock(&h->lock);
	return l ? 0 : -ENOENT;
}

static bool hash_owns(const struct bpfvm_map *map, const void *p, size_t len)
{
	const struct htab *h = map->data;
	uintptr_t base = (uintptr_t)h->pool, at = (uintptr_t)p;
	if (at < base || at - base >= (size_t)h->elem_size * map->def.max_entries)
		return false;
	size_t in = (at - base) % h->elem_size;
	if (in < h->val_off)
		return false;
	in = (in - h->val_off) % h->slot;
	return len <= map->def.value_size && in + len <= map->def.value_size;
}

int bpfvm_percpu_hash_copy(struct bpfvm_map *map, const void *key, void *values)
{
	struct htab *h = map->data;
	if (!h->percpu)
		return -EINVAL;
	int err = 0;
	pthread_mutex_lock(&h->lock);
	uint32_t l = find(h, map, key, hash_key(key, map->def.key_size), NULL);
	if (l)
		memcpy(values, el_val(h, el(h, l), 0), (size_t)h->slot * BPFVM_MAX_CPUS);
	else
		err = -ENOENT;
	pthread_mutex_unlock(&h->lock);
	return err;
}

const struct bpfvm_map_ops bpfvm_hash_ops = {
    .alloc = hash_alloc,
    .free = hash_free,
    .lookup = hash_lookup,
    .update = hash_update,
    .delete = hash_delete,
    .get_next_key = hash_get_next_key,
    .owns = hash_owns,
};

const struct bpfvm_map_ops bpfvm_percpu_hash_ops = {
    .alloc = percpu_hash_alloc,
    .free = hash_free,
    .lookup = hash_lookup,
    .update = hash_update,
    .delete = hash_delete,
    .get_next_key = hash_get_next_key,
    .owns = hash_owns,
};

const struct bpfvm_map_ops bpfvm_lru_hash_ops = {
    .alloc = lru_hash_alloc,
    .free = hash_free,
    .lookup = hash_lookup,
    .update = hash_update,
    .delete = hash_delete,
    .get_next_key = hash_get_next_key,
    .owns = hash_owns,
};
