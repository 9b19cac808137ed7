/* Object registry: the kernel's prog_idr/map_idr namespace (kernel/bpf/syscall.c
 * bpf_prog_alloc_id, bpf_map_get_fd_by_id), the bpf_trace_printk line buffer and
 * the per-cpu prandom state. Read docs/sockops.md §7 first. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "bpfvm_int.h"

#define REG_TRACE_LINES	   256
#define REG_TRACE_LINE_MAX 256

/* One ID namespace: live entries sorted by id, plus the cyclic cursor. */
struct reg_idr {
	struct reg_ent {
		uint32_t id;
		void *obj;
	} * ents;
	size_t n, cap;
	uint32_t next; /* where the next allocation starts looking */
};

struct reg_trace_line {
	uint16_t len;
	char text[REG_TRACE_LINE_MAX];
};

struct bpfvm_registry {
	pthread_mutex_t lock;
	/* One for the owner (until destroy) plus one per registered object, so a
	 * live object can always reach its registry on release. */
	_Atomic uint32_t refcnt;
	struct reg_idr progs, maps;

	pthread_mutex_t trace_lock;
	struct reg_trace_line *trace; /* ring of REG_TRACE_LINES */
	uint32_t trace_head, trace_count;
	uint64_t trace_dropped;

	uint64_t prandom[BPFVM_MAX_CPUS]; /* xorshift64* state, one per cpu */

	_Atomic uint64_t run_budget;   /* default for loads naming none; 0: the built-in */
	_Atomic uint64_t budget_stops; /* invocations the budget stopped */
};

int bpfvm_registry_create(struct bpfvm_registry **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	struct bpfvm_registry *reg = calloc(1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	reg->trace = calloc(REG_TRACE_LINES, sizeof(*reg->trace));
	if (!reg->trace) {
		free(reg);
		return -ENOMEM;
	}
	pthread_mutex_init(&reg->lock, NULL);
	pthread_mutex_init(&reg->trace_lock, NULL);
	atomic_init(&reg->refcnt, 1);
	reg->progs.next = 1;
	reg->maps.next = 1;
	uint64_t seed;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec;
	}
	for (unsigned i = 0; i < BPFVM_MAX_CPUS; i++) {
		seed += 0x9e3779b97f4a7c15ULL;
		reg->prandom[i] = seed | 1;
	}
	*out = reg;
	return 0;
}

static void reg_unref(struct bpfvm_registry *reg)
{
	if (atomic_fetch_sub(&reg->refcnt, 1) != 1)
		return;
	pthread_mutex_destroy(&reg->lock);
	pthread_mutex_destroy(&reg->trace_lock);
	free(reg->progs.ents);
	free(reg->maps.ents);
	free(reg->trace);
	free(reg);
}

void bpfvm_registry_destroy(struct bpfvm_registry *reg)
{
	if (reg)
		reg_unref(reg);
}

/* ---- ID allocation ---------------------------------------------------- */

/* Index of the first entry with id >= id. */
static size_t idr_lower_bound(const struct reg_idr *idr, uint32_t id)
{
	size_t lo = 0, hi = idr->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idr->ents[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* idr_alloc_cyclic(idr, obj, 1, INT_MAX): the first free id at or after the
 * cursor, wrapping to 1 past INT_MAX, so a freed id is reused only after the
 * whole space has gone round. */
static int idr_alloc(struct reg_idr *idr, void *obj, uint32_t *out)
{
	if (idr->n >= (size_t)INT_MAX)
		return -ENOSPC;
	if (idr->n == idr->cap) {
		size_t cap = idr->cap ? idr->cap * 2 : 16;
		struct reg_ent *e = realloc(idr->ents, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		idr->ents = e;
		idr->cap = cap;
	}
	uint32_t id = idr->next;
	if (id == 0 || id > INT_MAX)
		id = 1;
	size_t pos = idr_lower_bound(idr, id);
	/* Walk over the run of live ids starting at id; n < INT_MAX guarantees a
	 * hole within one lap. */
	while (pos < idr->n && idr->ents[pos].id == id) {
		id++;
		pos++;
		if (id > INT_MAX) {
			id = 1;
			pos = 0;
		}
	}
	memmove(&idr->ents[pos + 1], &idr->ents[pos], (idr->n - pos) * sizeof(*idr->ents));
	idr->ents[pos].id = id;
	idr->ents[pos].obj = obj;
	idr->n++;
	idr->next = id == INT_MAX ? 1 : id + 1;
	*out = id;
	return 0;
}

static void idr_remove(struct reg_idr *idr, uint32_t id)
{
	size_t pos = idr_lower_bound(idr, id);
	if (pos == idr->n || idr->ents[pos].id != id)
		return;
	memmove(&idr->ents[pos], &idr->ents[pos + 1], (idr->n - pos - 1) * sizeof(*idr->ents));
	idr->n--;
}

static void *idr_find(const struct reg_idr *idr, uint32_t id)
{
	size_t pos = idr_lower_bound(idr, id);
	if (pos == idr->n || idr->ents[pos].id != id)
		return NULL;
	return idr->ents[pos].obj;
}

int bpfvm_reg_add_prog(struct bpfvm_registry *reg, struct bpfvm_prog *prog)
{
	if (!reg || !prog)
		return -EINVAL;
	pthread_mutex_lock(&reg->lock);
	int err = idr_alloc(&reg->progs, prog, &prog->id);
	pthread_mutex_unlock(&reg->lock);
	if (err)
		return err;
	prog->reg = reg;
	atomic_fetch_add(&reg->refcnt, 1);
	return 0;
}

int bpfvm_reg_add_map(struct bpfvm_registry *reg, struct bpfvm_map *map)
{
	if (!reg || !map)
		return -EINVAL;
	pthread_mutex_lock(&reg->lock);
	int err = idr_alloc(&reg->maps, map, &map->id);
	pthread_mutex_unlock(&reg->lock);
	if (err)
		return err;
	map->reg = reg;
	atomic_fetch_add(&reg->refcnt, 1);
	return 0;
}

/* The caller dropped refcnt to 0 outside the lock; a concurrent get_by_id saw
 * either the live object (and took its reference before that) or refcnt 0
 * and refused, so once the id is gone nobody can revive it. */
static bool reg_release(struct bpfvm_registry *reg, struct reg_idr *idr, uint32_t id)
{
	if (!reg)
		return true;
	if (id) {
		pthread_mutex_lock(&reg->lock);
		idr_remove(idr, id);
		pthread_mutex_unlock(&reg->lock);
		reg_unref(reg);
	}
	return true;
}

bool bpfvm_reg_release_prog(struct bpfvm_prog *prog)
{
	struct bpfvm_registry *reg = prog->reg;
	return reg_release(reg, reg ? &reg->progs : NULL, prog->id);
}

bool bpfvm_reg_release_map(struct bpfvm_map *map)
{
	struct bpfvm_registry *reg = map->reg;
	return reg_release(reg, reg ? &reg->maps : NULL, map->id);
}

/* ---- lookups ----------------------------------------------------------- */

static int reg_next_id(struct bpfvm_registry *reg, struct reg_idr *idr, uint32_t start,
		       uint32_t *next)
{
	if (!reg || !next)
		return -EINVAL;
	if (start == UINT32_MAX)
		return -ENOENT;
	pthread_mutex_lock(&reg->lock);
	size_t pos = idr_lower_bound(idr, start + 1);
	int err = -ENOENT;
	if (pos < idr->n) {
		*next = idr->ents[pos].id;
		err = 0;
	}
	pthread_mutex_unlock(&reg->lock);
	return err;
}

int bpfvm_prog_get_next_id(struct bpfvm_registry *reg, uint32_t start, uint32_t *next)
{
	return reg ? reg_next_id(reg, &reg->progs, start, next) : -EINVAL;
}

int bpfvm_map_get_next_id(struct bpfvm_registry *reg, uint32_t start, uint32_t *next)
{
	return reg ? reg_next_id(reg, &reg->maps, start, next) : -EINVAL;
}

/* atomic_inc_not_zero: an object whose count already reached 0 is dying and
 * must not be handed out (bpf_prog_inc_not_zero). */
static bool ref_inc_not_zero(_Atomic uint32_t *ref)
{
	uint32_t v = atomic_load(ref);
	while (v != 0) {
		if (atomic_compare_exchange_weak(ref, &v, v + 1))
			return true;
	}
	return false;
}

int bpfvm_prog_get_by_id(struct bpfvm_registry *reg, uint32_t id, struct bpfvm_prog **out)
{
	if (!reg || !out)
		return -EINVAL;
	*out = NULL;
	int err = -ENOENT;
	pthread_mutex_lock(&reg->lock);
	struct bpfvm_prog *prog = id ? idr_find(&reg->progs, id) : NULL;
	if (prog && ref_inc_not_zero(&prog->refcnt)) {
		*out = prog;
		err = 0;
	}
	pthread_mutex_unlock(&reg->lock);
	return err;
}

int bpfvm_map_get_by_id(struct bpfvm_registry *reg, uint32_t id, struct bpfvm_map **out)
{
	if (!reg || !out)
		return -EINVAL;
	*out = NULL;
	int err = -ENOENT;
	pthread_mutex_lock(&reg->lock);
	struct bpfvm_map *map = id ? idr_find(&reg->maps, id) : NULL;
	if (map && ref_inc_not_zero(&map->refcnt)) {
		*out = map;
		err = 0;
	}
	pthread_mutex_unlock(&reg->lock);
	return err;
}

/* ---- trace buffer ------------------------------------------------------ */

void bpfvm_trace_write(struct bpfvm_registry *reg, const char *text, size_t len)
{
	if (!reg || !text)
		return;
	if (len > REG_TRACE_LINE_MAX)
		len = REG_TRACE_LINE_MAX;
	pthread_mutex_lock(&reg->trace_lock);
	uint32_t slot = (reg->trace_head + reg->trace_count) % REG_TRACE_LINES;
	if (reg->trace_count == REG_TRACE_LINES) {
		/* full: overwrite the oldest line, as the kernel's trace ring does */
		reg->trace_head = (reg->trace_head + 1) % REG_TRACE_LINES;
		reg->trace_dropped++;
	} else {
		reg->trace_count++;
	}
	memcpy(reg->trace[slot].text, text, len);
	reg->trace[slot].len = (uint16_t)len;
	pthread_mutex_unlock(&reg->trace_lock);
}

void bpfvm_registry_set_run_budget(struct bpfvm_registry *reg, uint64_t units)
{
	atomic_store_explicit(&reg->run_budget, units, memory_order_relaxed);
}

uint64_t bpfvm_registry_run_budget(const struct bpfvm_registry *reg)
{
	uint64_t b = atomic_load_explicit(&reg->run_budget, memory_order_relaxed);
	return b ? b : BPFVM_RUN_BUDGET_DEFAULT;
}

uint64_t bpfvm_registry_budget_stops(const struct bpfvm_registry *reg)
{
	return atomic_load_explicit(&reg->budget_stops, memory_order_relaxed);
}

void bpfvm_reg_budget_stop(struct bpfvm_registry *reg)
{
	atomic_fetch_add_explicit(&reg->budget_stops, 1, memory_order_relaxed);
}

size_t bpfvm_trace_read(struct bpfvm_registry *reg, char *buf, size_t size)
{
	if (!reg || !buf || size == 0)
		return 0;
	size_t used = 0;
	pthread_mutex_lock(&reg->trace_lock);
	while (reg->trace_count) {
		const struct reg_trace_line *l = &reg->trace[reg->trace_head];
		bool nl = l->len == 0 || l->text[l->len - 1] != '\n';
		size_t need = l->len + (nl ? 1 : 0);
		if (used + need + 1 > size)
			break;
		memcpy(buf + used, l->text, l->len);
		used += l->len;
		if (nl)
			buf[used++] = '\n';
		reg->trace_head = (reg->trace_head + 1) % REG_TRACE_LINES;
		reg->trace_count--;
	}
	pthread_mutex_unlock(&reg->trace_lock);
	buf[used] = '\0';
	return used;
}

/* ---- prandom ----------------------------------------------------------- */

/* bpf_get_prandom_u32: per-cpu state like the kernel's bpf_user_rnd_state; a cpu
 * index belongs to one thread, so no lock. */
uint32_t bpfvm_reg_prandom(struct bpfvm_registry *reg, unsigned cpu)
{
	uint64_t *s = &reg->prandom[cpu % BPFVM_MAX_CPUS];
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32);
}

void bpfvm_reg_set_next_id(struct bpfvm_registry *reg, bool map, uint32_t next)
{
	pthread_mutex_lock(&reg->lock);
	(map ? &reg->maps : &reg->progs)->next = next;
	pthread_mutex_unlock(&reg->lock);
}
