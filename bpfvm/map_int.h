/* Shared by the map implementations (map*.c) only: the kernel's map_flags bits,
 * size limits and the per-type ops tables map.c dispatches on. */
#ifndef SKOPS_BPFVM_MAP_INT_H
#define SKOPS_BPFVM_MAP_INT_H

#include "bpfvm_int.h"

/* map_flags bits as in linux/bpf.h */
#define BPFVM_F_NO_PREALLOC   (1U << 0)
#define BPFVM_F_NO_COMMON_LRU (1U << 1)
#define BPFVM_F_NUMA_NODE     (1U << 2)
#define BPFVM_F_RDONLY	      (1U << 3)
#define BPFVM_F_WRONLY	      (1U << 4)
#define BPFVM_F_ZERO_SEED     (1U << 6)
#define BPFVM_F_RDONLY_PROG   (1U << 7)
#define BPFVM_F_WRONLY_PROG   (1U << 8)
#define BPFVM_F_MMAPABLE      (1U << 10)
#define BPFVM_F_ACCESS_MASK                                                                        \
	(BPFVM_F_RDONLY | BPFVM_F_WRONLY | BPFVM_F_RDONLY_PROG | BPFVM_F_WRONLY_PROG)

/* The kernel caps keys at the BPF stack size (a key must fit on it) and limits
 * values through kmalloc; we cap every map's memory so a hostile object cannot
 * make us allocate without bound (the kernel fails such maps with -ENOMEM). */
#define BPFVM_MAP_MAX_KEY	   512
#define BPFVM_MAP_MAX_VALUE	   (1U << 22)
#define BPFVM_MAP_MAX_PERCPU_VALUE (32U * 1024) /* PCPU_MIN_UNIT_SIZE */
#define BPFVM_MAP_MAX_BYTES	   (1ULL << 30)

static inline uint32_t bpfvm_round8(uint32_t v)
{
	return (v + 7U) & ~7U;
}

/* Per-cpu maps: copy every cpu's value of key into values (BPFVM_MAX_CPUS
 * slots of round8(value_size) bytes). */
int bpfvm_percpu_array_copy(struct bpfvm_map *map, const void *key, void *values);
int bpfvm_percpu_hash_copy(struct bpfvm_map *map, const void *key, void *values);

extern const struct bpfvm_map_ops bpfvm_array_ops;
extern const struct bpfvm_map_ops bpfvm_percpu_array_ops;
extern const struct bpfvm_map_ops bpfvm_hash_ops;
extern const struct bpfvm_map_ops bpfvm_percpu_hash_ops;
extern const struct bpfvm_map_ops bpfvm_lru_hash_ops;
extern const struct bpfvm_map_ops bpfvm_prog_array_ops;
extern const struct bpfvm_map_ops bpfvm_perf_event_array_ops;
extern const struct bpfvm_map_ops bpfvm_sk_storage_ops;
extern const struct bpfvm_map_ops bpfvm_ringbuf_ops;
extern const struct bpfvm_map_ops bpfvm_sock_map_ops;

/* Maps whose values are u32 handles indexed by a u32 key (prog array, perf
 * event array): the kernel's fd_array checks. 0, -EINVAL or -E2BIG. */
int bpfvm_map_check_fd_array(const struct bpfvm_map_def *d);

/* get_next_key of maps indexed 0..max_entries-1 by a u32 key. */
int bpfvm_map_index_next_key(struct bpfvm_map *map, const void *key, void *next_key);

#endif
