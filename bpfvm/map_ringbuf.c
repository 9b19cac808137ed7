/* BPF_MAP_TYPE_RINGBUF (kernel/bpf/ringbuf.c semantics: power-of-2 page-multiple
 * byte size, 8-byte record headers with busy/discard bits, records committed in
 * reservation order) and BPF_MAP_TYPE_PERF_EVENT_ARRAY as far as
 * bpf_perf_event_output needs: its records go to one such ring per map.
 * The kernel maps the data area twice so a record may wrap; we never wrap a
 * record, padding the tail with a discarded record instead. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

#define RB_BUSY		  (1U << 31)
#define RB_DISCARD	  (1U << 30)
#define RB_HDR		  8U
#define RB_PAGE		  4096U
#define RB_MAX_SIZE	  (1U << 30)
#define PERF_RING_SIZE	  (256U * 1024) /* per perf-array map */
#define RB_F_NO_WAKEUP	  1ULL
#define RB_F_FORCE_WAKEUP 2ULL

struct rb_hdr {
	_Atomic uint32_t len; /* payload bytes | RB_BUSY | RB_DISCARD */
	uint32_t off;	      /* header offset in data[]: finds the ring from a record */
};

struct rb {
	pthread_mutex_t prod_lock, cons_lock;
	uint64_t size; /* power of 2 */
	_Atomic uint64_t cons, prod;
	_Alignas(8) uint8_t data[];
};

struct perf_data {
	uint32_t *slots; /* values user space stored (perf event fds there) */
	struct rb *ring;
};

static struct rb *rb_create(uint64_t size)
{
	struct rb *r = calloc(1, sizeof(*r) + size);
	if (!r)
		return NULL;
	r->size = size;
	pthread_mutex_init(&r->prod_lock, NULL);
	pthread_mutex_init(&r->cons_lock, NULL);
	return r;
}

static void rb_destroy(struct rb *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->prod_lock);
	pthread_mutex_destroy(&r->cons_lock);
	free(r);
}

static struct rb *map_ring(struct bpfvm_map *map)
{
	if (!map || !map->data)
		return NULL;
	if (map->def.type == BPFVM_MAP_RINGBUF)
		return map->data;
	if (map->def.type == BPFVM_MAP_PERF_EVENT_ARRAY)
		return ((struct perf_data *)map->data)->ring;
	return NULL;
}

static struct rb_hdr *hdr_at(struct rb *r, uint64_t pos)
{
	return (struct rb_hdr *)(r->data + (pos & (r->size - 1)));
}

static void *rb_reserve(struct rb *r, uint64_t size)
{
	if (size == 0 || size > r->size - RB_HDR)
		return NULL;
	uint64_t total = (size + RB_HDR + 7) & ~7ULL;
	void *rec = NULL;
	pthread_mutex_lock(&r->prod_lock);
	uint64_t prod = atomic_load_explicit(&r->prod, memory_order_relaxed);
	uint64_t cons = atomic_load_explicit(&r->cons, memory_order_acquire);
	uint64_t room = r->size - (prod & (r->size - 1)), pad = room < total ? room : 0;
	if (prod + pad + total - cons > r->size)
		goto out;
	if (pad) {
		struct rb_hdr *h = hdr_at(r, prod);
		h->off = (uint32_t)(prod & (r->size - 1));
		atomic_store_explicit(&h->len, (uint32_t)(pad - RB_HDR) | RB_DISCARD,
				      memory_order_relaxed);
		prod += pad;
	}
	struct rb_hdr *h = hdr_at(r, prod);
	h->off = (uint32_t)(prod & (r->size - 1));
	atomic_store_explicit(&h->len, (uint32_t)size | RB_BUSY, memory_order_relaxed);
	atomic_store_explicit(&r->prod, prod + total, memory_order_release);
	rec = (uint8_t *)h + RB_HDR;
out:
	pthread_mutex_unlock(&r->prod_lock);
	return rec;
}

static void rb_commit(void *rec, bool discard)
{
	if (!rec)
		return;
	struct rb_hdr *h = (struct rb_hdr *)((uint8_t *)rec - RB_HDR);
	uint32_t len =
	    atomic_load_explicit(&h->len, memory_order_relaxed) & ~(RB_BUSY | RB_DISCARD);
	atomic_store_explicit(&h->len, discard ? len | RB_DISCARD : len, memory_order_release);
}

void *bpfvm_ringbuf_reserve(struct bpfvm_map *map, uint64_t size, uint64_t flags)
{
	struct rb *r = map_ring(map);
	if (!r || flags)
		return NULL;
	return rb_reserve(r, size);
}

void bpfvm_ringbuf_submit(void *rec, uint64_t flags)
{
	(void)flags; /* wakeup flags: consumers poll here */
	rb_commit(rec, false);
}

void bpfvm_ringbuf_discard(void *rec, uint64_t flags)
{
	(void)flags;
	rb_commit(rec, true);
}

int bpfvm_ringbuf_output(struct bpfvm_map *map, const void *data, uint64_t size, uint64_t flags)
{
	struct rb *r = map_ring(map);
	if (!r || (flags & ~(RB_F_NO_WAKEUP | RB_F_FORCE_WAKEUP)))
		return -EINVAL;
	void *rec = rb_reserve(r, size);
	if (!rec)
		return size == 0 ? -EINVAL : -EAGAIN;
	memcpy(rec, data, size);
	rb_commit(rec, false);
	return 0;
}

uint64_t bpfvm_ringbuf_query(struct bpfvm_map *map, uint64_t flags)
{
	struct rb *r = map_ring(map);
	if (!r)
		return 0;
	uint64_t cons = atomic_load(&r->cons), prod = atomic_load(&r->prod);
	switch (flags) {
	case 0: /* BPF_RB_AVAIL_DATA */
		return prod - cons;
	case 1: /* BPF_RB_RING_SIZE */
		return r->size;
	case 2: /* BPF_RB_CONS_POS */
		return cons;
	case 3: /* BPF_RB_PROD_POS */
		return prod;
	default:
		return 0;
	}
}

int bpfvm_ringbuf_consume(struct bpfvm_map *map, void *buf, size_t size)
{
	struct rb *r = map_ring(map);
	if (!r || (!buf && size))
		return -EINVAL;
	int ret = 0;
	pthread_mutex_lock(&r->cons_lock);
	uint64_t cons = atomic_load_explicit(&r->cons, memory_order_relaxed);
	/* at most one pass over the ring: bounded even if headers were scribbled */
	for (uint64_t walked = 0; walked < r->size;) {
		uint64_t prod = atomic_load_explicit(&r->prod, memory_order_acquire);
		if (cons == prod)
			break;
		struct rb_hdr *h = hdr_at(r, cons);
		uint32_t len = atomic_load_explicit(&h->len, memory_order_acquire);
		if (len & RB_BUSY)
			break; /* reserved, not yet submitted: later records wait */
		uint32_t n = len & ~(RB_BUSY | RB_DISCARD);
		uint64_t total = ((uint64_t)n + RB_HDR + 7) & ~7ULL;
		if (!(len & RB_DISCARD)) {
			if (n > size) {
				ret = -ENOSPC;
				break;
			}
			memcpy(buf, (uint8_t *)h + RB_HDR, n);
			ret = (int)n;
		}
		cons += total;
		walked += total;
		atomic_store_explicit(&r->cons, cons, memory_order_release);
		if (ret)
			break;
	}
	pthread_mutex_unlock(&r->cons_lock);
	return ret;
}

/* ringbuf_map_alloc: no key or value, max_entries a power-of-2 multiple of
 * the page size. */
static int ringbuf_alloc(struct bpfvm_map *map)
{
	const struct bpfvm_map_def *d = &map->def;
	if (d->key_size || d->value_size || d->map_flags || d->max_entries & (d->max_entries - 1) ||
	    d->max_entries % RB_PAGE || !d->max_entries)
		return -EINVAL;
	if (d->max_entries > RB_MAX_SIZE)
		return -E2BIG;
	map->data = rb_create(d->max_entries);
	return map->data ? 0 : -ENOMEM;
}

static void ringbuf_free(struct bpfvm_map *map)
{
	rb_destroy(map->data);
	map->data = NULL;
}

static bool ringbuf_owns(const struct bpfvm_map *map, const void *p, size_t len)
{
	const struct rb *r = map->data;
	uintptr_t base = (uintptr_t)r->data, at = (uintptr_t)p;
	return at >= base && at - base < r->size && len <= r->size - (at - base);
}

const struct bpfvm_map_ops bpfvm_ringbuf_ops = {
    .alloc = ringbuf_alloc,
    .free = ringbuf_free,
    .owns = ringbuf_owns,
};

/* ---- perf event array -------------------------------------------------- */

static int perf_alloc(struct bpfvm_map *map)
{
	const struct bpfvm_map_def *d = &map->def;
	int err = bpfvm_map_check_fd_array(d);
	if (err)
		return err;
	struct perf_data *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->slots = calloc(d->max_entries, sizeof(*p->slots));
	p->ring = rb_create(PERF_RING_SIZE);
	if (!p->slots || !p->ring) {
		free(p->slots);
		rb_destroy(p->ring);
		free(p);
		return -ENOMEM;
	}
	map->data = p;
	return 0;
}

static void perf_free(struct bpfvm_map *map)
{
	struct perf_data *p = map->data;
	if (!p)
		return;
	free(p->slots);
	rb_destroy(p->ring);
	free(p);
	map->data = NULL;
}

/* fd arrays (bpf_fd_array_map_update_elem): BPF_ANY only. */
static int perf_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags)
{
	struct perf_data *p = map->data;
	uint32_t index, v;
	memcpy(&index, key, 4);
	memcpy(&v, value, 4);
	if (flags != BPFVM_ANY)
		return -EINVAL;
	if (index >= map->def.max_entries)
		return -E2BIG;
	p->slots[index] = v;
	return 0;
}

static int perf_delete(struct bpfvm_map *map, const void *key)
{
	struct perf_data *p = map->data;
	uint32_t index;
	memcpy(&index, key, 4);
	if (index >= map->def.max_entries)
		return -E2BIG;
	if (!p->slots[index])
		return -ENOENT;
	p->slots[index] = 0;
	return 0;
}

const struct bpfvm_map_ops bpfvm_perf_event_array_ops = {
    .alloc = perf_alloc,
    .free = perf_free,
    .update = perf_update,
    .delete = perf_delete,
    .get_next_key = bpfvm_map_index_next_key,
};
