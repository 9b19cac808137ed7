/* Base helpers (docs/sockops.md §5 "Base") with the kernel's prototypes
 * (kernel/bpf/helpers.c, bpf_trace.c), and the generic program type the tests
 * and the conformance runner use. Numbers are enum bpf_func_id. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helpers_int.h"

#define MAX_BPRINTF_VARARGS 12

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
	(void)r5;
	struct bpfvm_map *m = as_map(r1);
	if (m)
		bpfvm_run_charge(run, m->def.value_size);
	return (uint64_t)(int64_t)bpfvm_map_update(m, as_ptr(r2), as_ptr(r3), r4);
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
	int n = bpfvm_fmt(run, line, sizeof(line), as_ptr(r1), (size_t)(uint32_t)r2, args, 3, 3);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	bpfvm_trace_write(run->prog->reg, line, len);
	return len;
}

/* bpf_snprintf(str, str_size, fmt, data, data_len): data is an array of u64
 * arguments (data_len a multiple of 8, at most 12 of them). Returns the size
 * the full output needs including the NUL, like the kernel. */
static int64_t do_snprintf(const struct bpfvm_run *run, char *out, size_t size, const char *fmt,
			   const uint64_t *data, uint32_t data_len)
{
	if (data_len % 8 || data_len / 8 > MAX_BPRINTF_VARARGS || (data_len && !data) || !fmt)
		return -EINVAL;
	uint64_t args[MAX_BPRINTF_VARARGS];
	if (data_len)
		memcpy(args, data, data_len);
	size_t fmt_size = strnlen(fmt, 1024) + 1;
	if (fmt_size > 1024)
		return -EINVAL;
	int n = bpfvm_fmt(run, out, size, fmt, fmt_size, args, data_len / 8, MAX_BPRINTF_VARARGS);
	return n < 0 ? n : (int64_t)n + 1;
}

static uint64_t h_snprintf(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			   struct bpfvm_run *run)
{
	char *out = as_ptr(r1);
	size_t size = out ? (size_t)(uint32_t)r2 : 0;
	bpfvm_run_charge(run, size);
	int64_t ret = do_snprintf(run, out, size, as_ptr(r3), as_ptr(r4), (uint32_t)r5);
	/* The contract says every byte of str is written (UNINIT_WRITE): the
	 * text and its NUL, then zeros, and all zeros on an error, so the bytes
	 * past the text never keep what the stack held before. */
	size_t w = ret > 0 ? (size_t)ret : 0;
	if (w < size)
		memset(out + w, 0, size - w);
	return (uint64_t)ret;
}

/* ---- spin locks (93, 94) ----------------------------------------------- */

/* struct bpf_spin_lock { u32 val; } inside a map value. The verifier allows
 * one held lock and no helper calls while holding it, and a run the budget
 * stops releases the lock it holds (run_held.c). The word holds the holder
 * thread's id, so a waiter can tell a holder the kernel preempted (alive:
 * wait, yielding the CPU, however long) from a word nobody will clear: a
 * thread that died holding it, the same thread locking again (an unverified
 * program), or a value user space wrote. Those are taken over once
 * SPIN_LOCK_WAIT_NS have passed, instead of an lcore stalling for good; the
 * taker's unlock then clears the word. Taking over a live holder's lock
 * after a fixed time (as this did before) lost updates when the holder was
 * merely descheduled for that long. */
#define SPIN_LOCK_WAIT_NS 10000000ULL
#define SPIN_LOCK_BATCH	  1024U

static uint64_t spin_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static _Thread_local uint32_t spin_tid;
static pthread_once_t spin_once = PTHREAD_ONCE_INIT;

static void spin_tid_forget(void)
{
	spin_tid = 0; /* a forked child is another thread */
}

static void spin_tid_atfork(void)
{
	pthread_atfork(NULL, NULL, spin_tid_forget);
}

static uint32_t spin_self(void)
{
	if (!spin_tid) {
		pthread_once(&spin_once, spin_tid_atfork);
		spin_tid = (uint32_t)syscall(SYS_gettid);
	}
	return spin_tid;
}

/* Whether nobody will ever clear a word that holds owner. */
static bool spin_abandoned(uint32_t owner, uint32_t self)
{
	if (owner == self)
		return true;
	return syscall(SYS_tgkill, getpid(), (pid_t)owner, 0) < 0 && errno == ESRCH;
}

static uint64_t h_spin_lock(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			    struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5;
	uint32_t *lock = as_ptr(r1);
	uint32_t self = spin_self(), owner = 0, spins = 0;
	uint64_t deadline = 0;
	while (!__atomic_compare_exchange_n(lock, &owner, self, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		/* owner: the word as found, not 0 */
		__builtin_ia32_pause();
		if (++spins % SPIN_LOCK_BATCH == 0) {
			uint64_t now = spin_now_ns();
			if (!deadline)
				deadline = now + SPIN_LOCK_WAIT_NS;
			else if (now >= deadline && spin_abandoned(owner, self) &&
				 __atomic_compare_exchange_n(lock, &owner, self, false,
							     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break; /* taken over */
			sched_yield();
		}
		owner = 0;
	}
	if (run) /* NULL: called outside a run (tests), nothing to track */
		run->held_lock = lock;
	return 0;
}

static uint64_t h_spin_unlock(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			      struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5;
	__atomic_store_n((uint32_t *)as_ptr(r1), 0, __ATOMIC_RELEASE);
	if (run)
		run->held_lock = NULL;
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
	if (nr > BPFVM_MAX_LOOPS)
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
	(void)r5;
	bpfvm_run_charge(run, r3);
	return (uint64_t)(int64_t)bpfvm_ringbuf_output(as_map(r1), as_ptr(r2), r3, r4);
}

static uint64_t h_ringbuf_reserve(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r4, (void)r5;
	if (run && run->held_nrecs >= BPFVM_RUN_MAX_RECS)
		return 0;
	void *rec = bpfvm_ringbuf_reserve(as_map(r1), r2, r3);
	if (rec && run)
		bpfvm_run_hold_rec(run, rec);
	return (uint64_t)(uintptr_t)rec;
}

static uint64_t h_ringbuf_submit(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				 struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5;
	bpfvm_run_drop_rec(run, as_ptr(r1));
	bpfvm_ringbuf_submit(as_ptr(r1), r2);
	return 0;
}

static uint64_t h_ringbuf_discard(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r3, (void)r4, (void)r5;
	bpfvm_run_drop_rec(run, as_ptr(r1));
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

/* The contract of each helper (bpfvm.h "the helper contract"); docs/helpers.md
 * is generated from these entries and checked against them. */
static const struct bpfvm_helper base_helpers[] = {
    {.id = 1,
     .name = "map_lookup_elem",
     .fn = h_map_lookup_elem,
     .args = {BPFVM_A_MAP(READ), BPFVM_A_KEY(READ)},
     .ret = BPFVM_RET_MAP_VALUE_OR_NULL,
     .map_types = BPFVM_MAPT_DATA},
    {.id = 2,
     .name = "map_update_elem",
     .fn = h_map_update_elem,
     .args = {BPFVM_A_MAP(WRITE), BPFVM_A_KEY(READ), BPFVM_A_VALUE(READ), BPFVM_A(SCALAR)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, 0),
     .map_types = BPFVM_MAPT_DATA},
    {.id = 3,
     .name = "map_delete_elem",
     .fn = h_map_delete_elem,
     .args = {BPFVM_A_MAP(WRITE), BPFVM_A_KEY(READ)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, 0),
     .map_types = BPFVM_MAPT_DATA | BPFVM_MAPT(BPFVM_MAP_SOCKMAP) | BPFVM_MAPT(BPFVM_MAP_SOCKHASH)},
    {.id = 5, .name = "ktime_get_ns", .fn = h_ktime_get_ns, BPFVM_RET_ANY},
    {.id = 6,
     .name = "trace_printk",
     .fn = h_trace_printk,
     .args = {BPFVM_A_MEM(READ, 2), BPFVM_A_SIZE(1), BPFVM_A(ANYTHING), BPFVM_A(ANYTHING),
	      BPFVM_A(ANYTHING)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, 255)},
    {.id = 7, .name = "get_prandom_u32", .fn = h_get_prandom_u32, BPFVM_RET_RANGE(0, UINT32_MAX)},
    {.id = 8,
     .name = "get_smp_processor_id",
     .fn = h_get_smp_processor_id,
     BPFVM_RET_RANGE(0, BPFVM_MAX_CPUS - 1)},
    /* Engines perform the tail call themselves (it replaces the running
     * program); fn is NULL so no engine can mistake it for a plain call. */
    {.id = 12,
     .name = "tail_call",
     .args = {BPFVM_A(CTX), BPFVM_A_MAP(READ), BPFVM_A(SCALAR)},
     .ret = BPFVM_RET_VOID,
     .flags = BPFVM_HF_NO_REFS,
     .map_types = BPFVM_MAPT(BPFVM_MAP_PROG_ARRAY)},
    {.id = 93,
     .name = "spin_lock",
     .fn = h_spin_lock,
     .args = {BPFVM_A(SPIN_LOCK)},
     .ret = BPFVM_RET_VOID},
    {.id = 94,
     .name = "spin_unlock",
     .fn = h_spin_unlock,
     .args = {BPFVM_A_RELEASE(SPIN_LOCK)},
     .ret = BPFVM_RET_VOID},
    {.id = 130,
     .name = "ringbuf_output",
     .fn = h_ringbuf_output,
     .args = {BPFVM_A_MAP(WRITE), BPFVM_A_MEM(READ, 3), BPFVM_A_SIZE_OR_ZERO(2), BPFVM_A(SCALAR)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, 0),
     .map_types = BPFVM_MAPT(BPFVM_MAP_RINGBUF)},
    {.id = 131,
     .name = "ringbuf_reserve",
     .fn = h_ringbuf_reserve,
     .args = {BPFVM_A_MAP(WRITE), BPFVM_A(SCALAR), BPFVM_A(SCALAR)},
     .ret = BPFVM_RET_MEM_OR_NULL,
     .flags = BPFVM_HF_ACQUIRE,
     .map_types = BPFVM_MAPT(BPFVM_MAP_RINGBUF)},
    {.id = 132,
     .name = "ringbuf_submit",
     .fn = h_ringbuf_submit,
     .args = {BPFVM_A_RELEASE(RINGBUF_MEM), BPFVM_A(SCALAR)},
     .ret = BPFVM_RET_VOID},
    {.id = 133,
     .name = "ringbuf_discard",
     .fn = h_ringbuf_discard,
     .args = {BPFVM_A_RELEASE(RINGBUF_MEM), BPFVM_A(SCALAR)},
     .ret = BPFVM_RET_VOID},
    {.id = 134,
     .name = "ringbuf_query",
     .fn = h_ringbuf_query,
     .args = {BPFVM_A_MAP(READ), BPFVM_A(SCALAR)},
     BPFVM_RET_ANY,
     .map_types = BPFVM_MAPT(BPFVM_MAP_RINGBUF)},
    {.id = 164,
     .name = "for_each_map_elem",
     .fn = h_for_each_map_elem,
     .args = {BPFVM_A_MAP(READ), BPFVM_A(FUNC), BPFVM_A(CB_CTX), BPFVM_A(SCALAR)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, UINT32_MAX),
     .map_types = BPFVM_MAPT_DATA,
     .cb_args = {BPFVM_CB_MAP, BPFVM_CB_MAP_KEY, BPFVM_CB_MAP_VALUE, BPFVM_CB_CTX}},
    /* the output buffer: every byte of str_size is written (the text, its
     * NUL, zeros after it), so the program may read all of it */
    {.id = 165,
     .name = "snprintf",
     .fn = h_snprintf,
     .args = {BPFVM_A_MEM_OR_NULL(UNINIT_WRITE, 2), BPFVM_A_SIZE_OR_ZERO(1), BPFVM_A(STR),
	      BPFVM_A_MEM_OR_NULL(READ, 5), BPFVM_A_SIZE_OR_ZERO(4)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, INT32_MAX)},
    {.id = 181,
     .name = "loop",
     .fn = h_loop,
     .args = {BPFVM_A(SCALAR), BPFVM_A(FUNC), BPFVM_A(CB_CTX), BPFVM_A(SCALAR)},
     BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, BPFVM_MAX_LOOPS),
     .cb_args = {BPFVM_CB_INDEX, BPFVM_CB_CTX}},
    {.id = 182,
     .name = "strncmp",
     .fn = h_strncmp,
     .args = {BPFVM_A_MEM(READ, 2), BPFVM_A_SIZE(1), BPFVM_A(STR)},
     BPFVM_RET_RANGE(-1, 1)},
};

const struct bpfvm_helper *bpfvm_base_helper(uint32_t id)
{
	for (size_t i = 0; i < sizeof(base_helpers) / sizeof(base_helpers[0]); i++)
		if (base_helpers[i].id == id)
			return &base_helpers[i];
	return NULL;
}

const struct bpfvm_helper *bpfvm_call_proto(const struct bpfvm_prog_type *type, uint8_t src,
					    int32_t imm)
{
	if (src == BPF_PSEUDO_KFUNC_CALL)
		return type->kfunc && (uint32_t)imm >= BPFVM_KFUNC_ID_BASE
			   ? type->kfunc((uint32_t)imm)
			   : NULL;
	return src == 0 && type->helper ? type->helper((uint32_t)imm) : NULL;
}

size_t bpfvm_type_helpers(const struct bpfvm_prog_type *type, const struct bpfvm_helper **out,
			  size_t max)
{
	size_t n = 0;
	for (uint32_t id = 0; type->helper && id < BPFVM_MAX_HELPER_ID; id++) {
		const struct bpfvm_helper *h = type->helper(id);
		if (!h)
			continue;
		if (n < max)
			out[n] = h;
		n++;
	}
	return n;
}

bool bpfvm_helper_op_ok(const struct bpfvm_helper *h, const struct bpfvm_run *run)
{
	const struct bpfvm_prog_type *t = run && run->prog ? run->prog->type : NULL;
	if (!h->ops || !t || !t->ctx_op || !run->ctx)
		return true;
	uint32_t op = t->ctx_op(run->ctx);
	return op < 64 && (h->ops >> op) & 1;
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
