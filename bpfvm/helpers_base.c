/* Base helpers (docs/sockops.md §5 "Base") with the kernel's prototypes
 * (kernel/bpf/helpers.c, bpf_trace.c), and the generic program type the tests
 * and the conformance runner use. Numbers are enum bpf_func_id. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "helpers_int.h"

#define MAX_BPRINTF_VARARGS 12
#define BPF_MAX_LOOPS	    (1U << 23)

static struct bpfvm_map *as_map(uint64_t v)
{
	return (struct bpfvm_map *)(uintptr_t)v;
}

static void *as_ptr(uint64_t v)
{
	return (void *)(uintptr_t)v;
}

/* ---- maps (1-3) -------------------------------------------------------- */

static uint64_t h_map_lookup_elem(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	return (uint64_t)(uintptr_t)bpfvm_map_lookup(as_map(r1), as_ptr(r2));
}

static uint64_t h_map_update_elem(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r5, (void)run;
	return (uint64_t)(int64_t)bpfvm_map_update(as_map(r1), as_ptr(r2), as_ptr(r3), r4);
}

static uint64_t h_map_delete_elem(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	return (uint64_t)(int64_t)bpfvm_map_delete(as_map(r1), as_ptr(r2));
}

/* ---- time, randomness, cpu (5, 7, 8) ----------------------------------- */

static uint64_t h_ktime_get_ns(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			       struct bpfvm_run *run)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t h_get_prandom_u32(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return bpfvm_reg_prandom(run->prog->reg, bpfvm_cpu());
}

static uint64_t h_get_smp_processor_id(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
				       uint64_t r5, struct bpfvm_run *run)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	return bpfvm_cpu();
}

/* ---- printing (6, 165) ------------------------------------------------- */

/* bpf_trace_printk(fmt, fmt_size, a1, a2, a3): at most three arguments; the
 * line goes to the registry's trace buffer. Returns the bytes written. */
static uint64_t h_trace_printk(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			       struct bpfvm_run *run)
{
	uint64_t args[3] = {r3, r4, r5};
	char line[256];
	int n = bpfvm_fmt(line, sizeof(line), as_ptr(r1), (size_t)(uint32_t)r2, args, 3, 3);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	bpfvm_trace_write(run->prog->reg, line, len);
	return len;
}

/* bpf_snprintf(str, str_size, fmt, data, data_len): data is an array of u64
 * arguments (data_len a multiple of 8, at most 12 of them). Returns the size
 * the full output needs including the NUL, like the kernel. */
static uint64_t h_snprintf(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			   struct bpfvm_run *run)
{
	(void)run;
	uint32_t data_len = (uint32_t)r5;
	if (data_len % 8 || data_len / 8 > MAX_BPRINTF_VARARGS || (data_len && !r4))
		return (uint64_t)(int64_t)-EINVAL;
	uint64_t args[MAX_BPRINTF_VARARGS];
	if (data_len)
		memcpy(args, as_ptr(r4), data_len);
	const char *fmt = as_ptr(r3);
	if (!fmt)
		return (uint64_t)(int64_t)-EINVAL;
	size_t fmt_size = strnlen(fmt, 1024) + 1;
	if (fmt_size > 1024)
		return (uint64_t)(int64_t)-EINVAL;
	int n = bpfvm_fmt(as_ptr(r1), r1 ? (size_t)(uint32_t)r2 : 0, fmt, fmt_size, args,
			  data_len / 8, MAX_BPRINTF_VARARGS);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	return (uint64_t)n + 1;
}

/* ---- spin locks (93, 94) ----------------------------------------------- */

/* struct bpf_spin_lock { u32 val; } inside a map value. The verifier allows
 * one held lock and no helper calls while holding it, so the holder finishes
 * quickly; the spin is still bounded so an unverified program cannot hang us
 * (~2^26 pause loops, well over a second). */
static uint64_t h_spin_lock(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			    struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	uint32_t *lock = as_ptr(r1);
	for (uint32_t spins = 0; spins < (1U << 26); spins++) {
		if (!__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
			return 0;
		while (__atomic_load_n(lock, __ATOMIC_RELAXED) && spins++ < (1U << 26))
			__builtin_ia32_pause();
	}
	return 0;
}

static uint64_t h_spin_unlock(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			      struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	__atomic_store_n((uint32_t *)as_ptr(r1), 0, __ATOMIC_RELEASE);
	return 0;
}

/* ---- callbacks (164, 181) ---------------------------------------------- */

/* bpf_for_each_map_elem(map, cb, cb_ctx, flags): cb(map, key, value, cb_ctx)
 * per element; 1 stops, 0 continues. Returns the elements visited. The walk is
 * bounded by max_entries so concurrent deletes cannot make it loop. */
static uint64_t h_for_each_map_elem(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				    struct bpfvm_run *run)
{
	(void)r5;
	struct bpfvm_map *map = as_map(r1);
	if (r4 || !map)
		return (uint64_t)(int64_t)-EINVAL;
	uint32_t ksz = map->def.key_size;
	if (ksz == 0 || ksz > BPFVM_STACK_SIZE)
		return (uint64_t)(int64_t)-EINVAL;
	_Alignas(8) uint8_t keys[2][BPFVM_STACK_SIZE];
	const void *old_scratch = run->scratch;
	size_t old_len = run->scratch_len;
	uint64_t visited = 0;
	int cur = 0;
	const void *prev = NULL;
	while (visited < map->def.max_entries) {
		if (bpfvm_map_get_next_key(map, prev, keys[cur]) != 0)
			break;
		void *value = bpfvm_map_lookup(map, keys[cur]);
		prev = keys[cur];
		cur ^= 1;
		if (!value)
			continue;
		visited++;
		run->scratch = prev;
		run->scratch_len = ksz;
		uint64_t r0 = run->call(run, (uint32_t)r2, r1, (uint64_t)(uintptr_t)prev,
					(uint64_t)(uintptr_t)value, r3);
		if (r0 == 1 || bpfvm_run_stopped(run))
			break;
	}
	run->scratch = old_scratch;
	run->scratch_len = old_len;
	return visited;
}

/* bpf_loop(nr_loops, cb, cb_ctx, flags): cb(index, cb_ctx); a non-zero return
 * stops (the kernel documents 1). Returns the iterations performed. */
static uint64_t h_loop(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
		       struct bpfvm_run *run)
{
	(void)r5;
	if (r4)
		return (uint64_t)(int64_t)-EINVAL;
	uint32_t nr = (uint32_t)r1;
	if (nr > BPF_MAX_LOOPS)
		return (uint64_t)(int64_t)-E2BIG;
	for (uint32_t i = 0; i < nr; i++) {
		/* a stopped run ends the loop too: the budget counts callbacks */
		if (run->call(run, (uint32_t)r2, i, r3, 0, 0) || bpfvm_run_stopped(run))
			return i + 1;
	}
	return nr;
}

/* ---- ring buffer (130-134, map_ringbuf.c) ----------------------------- */

static uint64_t h_ringbuf_output(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				 struct bpfvm_run *run)
{
	(void)r5, (void)run;
	return (uint64_t)(int64_t)bpfvm_ringbuf_output(as_map(r1), as_ptr(r2), r3, r4);
}

static uint64_t h_ringbuf_reserve(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r4, (void)r5, (void)run;
	return (uint64_t)(uintptr_t)bpfvm_ringbuf_reserve(as_map(r1), r2, r3);
}

static uint64_t h_ringbuf_submit(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				 struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	bpfvm_ringbuf_submit(as_ptr(r1), r2);
	return 0;
}

static uint64_t h_ringbuf_discard(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	bpfvm_ringbuf_discard(as_ptr(r1), r2);
	return 0;
}

static uint64_t h_ringbuf_query(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5, (void)run;
	return bpfvm_ringbuf_query(as_map(r1), r2);
}

/* ---- strings (182) ---------------------------------------------------- */

/* bpf_strncmp(s1, s1_sz, s2): s2 is a verified constant NUL-terminated
 * string; the sign only, as the kernel's lib/string.c strncmp (-1, 0, 1). */
static uint64_t h_strncmp(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			  struct bpfvm_run *run)
{
	(void)r4, (void)r5, (void)run;
	const unsigned char *a = as_ptr(r1), *b = as_ptr(r3);
	for (uint64_t i = 0; i < (uint32_t)r2; i++) {
		if (a[i] != b[i])
			return (uint64_t)(int64_t)(a[i] < b[i] ? -1 : 1);
		if (!a[i])
			break;
	}
	return 0;
}

/* ---- the table --------------------------------------------------------- */

#define A(...)                                                                                     \
	{                                                                                          \
		__VA_ARGS__                                                                        \
	}
static const struct bpfvm_helper base_helpers[] = {
    {1, "map_lookup_elem", h_map_lookup_elem, BPFVM_RET_MAP_VALUE_OR_NULL,
     A(BPFVM_ARG_MAP, BPFVM_ARG_MAP_KEY)},
    {2, "map_update_elem", h_map_update_elem, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MAP, BPFVM_ARG_MAP_KEY, BPFVM_ARG_MAP_VALUE, BPFVM_ARG_SCALAR)},
    {3, "map_delete_elem", h_map_delete_elem, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MAP, BPFVM_ARG_MAP_KEY)},
    {5, "ktime_get_ns", h_ktime_get_ns, BPFVM_RET_INTEGER, A(0)},
    {6, "trace_printk", h_trace_printk, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MEM, BPFVM_ARG_SIZE, BPFVM_ARG_ANYTHING, BPFVM_ARG_ANYTHING, BPFVM_ARG_ANYTHING)},
    {7, "get_prandom_u32", h_get_prandom_u32, BPFVM_RET_INTEGER, A(0)},
    {8, "get_smp_processor_id", h_get_smp_processor_id, BPFVM_RET_INTEGER, A(0)},
    /* Engines perform the tail call themselves (it replaces the running
     * program); fn is NULL so no engine can mistake it for a plain call. */
    {12, "tail_call", NULL, BPFVM_RET_VOID, A(BPFVM_ARG_CTX, BPFVM_ARG_MAP, BPFVM_ARG_SCALAR)},
    {93, "spin_lock", h_spin_lock, BPFVM_RET_VOID, A(BPFVM_ARG_SPIN_LOCK)},
    {94, "spin_unlock", h_spin_unlock, BPFVM_RET_VOID, A(BPFVM_ARG_SPIN_LOCK)},
    {130, "ringbuf_output", h_ringbuf_output, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MAP, BPFVM_ARG_MEM, BPFVM_ARG_SIZE_OR_ZERO, BPFVM_ARG_SCALAR)},
    {131, "ringbuf_reserve", h_ringbuf_reserve, BPFVM_RET_MEM_OR_NULL,
     A(BPFVM_ARG_MAP, BPFVM_ARG_SCALAR, BPFVM_ARG_SCALAR)},
    {132, "ringbuf_submit", h_ringbuf_submit, BPFVM_RET_VOID,
     A(BPFVM_ARG_RINGBUF_MEM, BPFVM_ARG_SCALAR)},
    {133, "ringbuf_discard", h_ringbuf_discard, BPFVM_RET_VOID,
     A(BPFVM_ARG_RINGBUF_MEM, BPFVM_ARG_SCALAR)},
    {134, "ringbuf_query", h_ringbuf_query, BPFVM_RET_INTEGER, A(BPFVM_ARG_MAP, BPFVM_ARG_SCALAR)},
    {164, "for_each_map_elem", h_for_each_map_elem, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MAP, BPFVM_ARG_FUNC, BPFVM_ARG_ANYTHING, BPFVM_ARG_SCALAR)},
    {165, "snprintf", h_snprintf, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_MEM_UNINIT, BPFVM_ARG_SIZE_OR_ZERO, BPFVM_ARG_STR, BPFVM_ARG_MEM_OR_NULL,
       BPFVM_ARG_SIZE_OR_ZERO)},
    {181, "loop", h_loop, BPFVM_RET_INTEGER,
     A(BPFVM_ARG_SCALAR, BPFVM_ARG_FUNC, BPFVM_ARG_ANYTHING, BPFVM_ARG_SCALAR)},
    {182, "strncmp", h_strncmp, BPFVM_RET_INTEGER, A(BPFVM_ARG_MEM, BPFVM_ARG_SIZE, BPFVM_ARG_STR)},
};
#undef A

const struct bpfvm_helper *bpfvm_base_helper(uint32_t id)
{
	for (size_t i = 0; i < sizeof(base_helpers) / sizeof(base_helpers[0]); i++)
		if (base_helpers[i].id == id)
			return &base_helpers[i];
	return NULL;
}

/* ---- the generic program type ------------------------------------------ */

/* Verified generic programs see a 256-byte scratch ctx of scalars (callers
 * pass at least that much); unverified ones (no_verify) get r1/r2 as given. */
#define GENERIC_CTX_SIZE 256

static int generic_ctx_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			      char *why, size_t why_len)
{
	(void)write;
	if ((size != 1 && size != 2 && size != 4 && size != 8) || off % size ||
	    off + size > GENERIC_CTX_SIZE) {
		if (why && why_len)
			strncpy(why, "outside the 256-byte generic ctx or misaligned", why_len - 1),
			    why[why_len - 1] = '\0';
		return -EACCES;
	}
	acc->field = (int)(off / 8);
	acc->result = BPFVM_CTX_SCALAR;
	return 0;
}

const struct bpfvm_prog_type bpfvm_type_generic = {
    .name = "generic",
    .type = 0, /* BPF_PROG_TYPE_UNSPEC */
    .ctx_size = GENERIC_CTX_SIZE,
    .ctx_access = generic_ctx_access,
    .helper = bpfvm_base_helper,
    .ret_min = INT32_MIN,
    .ret_max = INT32_MAX,
    .nr_fields = GENERIC_CTX_SIZE / 8,
};
