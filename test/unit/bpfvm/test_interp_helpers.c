/* Base helpers called from programs on both interpreter engines: map
 * lookup/update/delete, direct map values, ktime, prandom, cpu id,
 * trace_printk into the registry's trace buffer, snprintf, spin locks under
 * two threads, and the ring buffer. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "bpfvm_int.h"
#include "check_main.h"
#include "interp_fixture.h"

/* Append ST W insns writing s (NUL-padded to 4 bytes) at r10+off. */
static size_t put_str(struct bpfvm_insn *out, size_t n, int16_t off, const char *s)
{
	size_t len = strlen(s) + 1;
	for (size_t i = 0; i < len; i += 4) {
		uint8_t w[4] = {0};
		memcpy(w, s + i, len - i < 4 ? len - i : 4);
		int32_t v;
		memcpy(&v, w, 4);
		out[n++] = (struct bpfvm_insn)ST(BPF_W, 10, (int16_t)(off + (int16_t)i), v);
	}
	return n;
}

static uint64_t run_ok(const struct fx_engine *e, struct bpfvm_prog *p, void *ctx, size_t len)
{
	struct bpfvm_fault f;
	uint64_t r0 = e->run(p, ctx, len, &f);
	ck_assert_msg(!f.hit, "%s: fault at insn %u addr 0x%llx size %u", e->name, f.pc,
		      (unsigned long long)f.addr, f.size);
	return r0;
}

START_TEST(map_helpers)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *hash = fx_map(reg, BPFVM_MAP_HASH, 4, 8, 8);
	/* update(key 1 = 0x55), lookup(1) -> value + update's return;
	 * delete(1) afterwards, lookup again must miss */
	struct bpfvm_insn insns[] = {
	    ST(BPF_W, 10, -4, 1),
	    ST(BPF_DW, 10, -16, 0x55),
	    LD_MAP(1, 0),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -4),
	    MOV64_X(3, 10),
	    ALU64_K(BPF_ADD, 3, -16),
	    MOV64_K(4, BPFVM_NOEXIST),
	    CALL(2),
	    MOV64_X(6, 0),
	    LD_MAP(1, 0),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -4),
	    CALL(1),
	    JMP_K(BPF_JEQ, 0, 0, 10),
	    LDX(BPF_DW, 7, 0, 0),
	    ALU64_X(BPF_ADD, 7, 6),
	    LD_MAP(1, 0),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -4),
	    CALL(3),
	    ALU64_K(BPF_LSH, 0, 32),
	    ALU64_X(BPF_OR, 0, 7),
	    EXIT(),
	    MOV64_K(0, -1),
	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), &hash, 1);
	ck_assert_uint_eq(run_ok(e, p, NULL, 0), 0x55); /* delete returned 0 */
	uint32_t key = 1;
	ck_assert_ptr_null(bpfvm_map_lookup(hash, &key));
	/* key present: NOEXIST update fails with -EEXIST, added to the value */
	uint64_t v = 0x100;
	ck_assert_int_eq(bpfvm_map_update(hash, &key, &v, BPFVM_ANY), 0);
	uint64_t r0 = run_ok(e, p, NULL, 0);
	ck_assert_uint_eq((uint32_t)r0, (uint32_t)(0x100 - EEXIST));
	bpfvm_prog_put(p);
	bpfvm_map_put(hash);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(direct_map_value)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 1);
	uint32_t key = 0;
	uint64_t val[2] = {1, 0xabcd};
	ck_assert_int_eq(bpfvm_map_update(arr, &key, val, BPFVM_ANY), 0);
	struct bpfvm_insn insns[] = {LD_MAP_VALUE(1, 0, 8), LDX(BPF_DW, 0, 1, 0),
				     ST(BPF_DW, 1, -8, 9), EXIT()};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), &arr, 1);
	ck_assert_uint_eq(run_ok(e, p, NULL, 0), 0xabcd);
	uint64_t *cur = bpfvm_map_lookup(arr, &key);
	ck_assert_uint_eq(cur[0], 9);
	/* the relocated insn carries the value address; the program holds the map */
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.nr_map_ids, 1);
	ck_assert_uint_eq(info.map_ids[0], bpfvm_map_id(arr));
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(time_random_cpu)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn kt[] = {CALL(5), EXIT()}, rnd[] = {CALL(7), EXIT()},
			  cpu[] = {CALL(8), EXIT()};
	struct bpfvm_prog *pk = fx_load_ok(reg, kt, 2, NULL, 0);
	struct bpfvm_prog *pr = fx_load_ok(reg, rnd, 2, NULL, 0);
	struct bpfvm_prog *pc = fx_load_ok(reg, cpu, 2, NULL, 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t = run_ok(e, pk, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_uint_ge(t, (uint64_t)a.tv_sec * 1000000000ULL + (uint64_t)a.tv_nsec);
	ck_assert_uint_le(t, (uint64_t)b.tv_sec * 1000000000ULL + (uint64_t)b.tv_nsec);
	/* 32-bit values, not all equal over 8 draws */
	uint64_t first = run_ok(e, pr, NULL, 0);
	bool differ = false;
	for (int i = 0; i < 8; i++) {
		uint64_t r = run_ok(e, pr, NULL, 0);
		ck_assert_uint_le(r, UINT32_MAX);
		differ |= r != first;
	}
	ck_assert(differ);
	bpfvm_set_cpu(5);
	ck_assert_uint_eq(run_ok(e, pc, NULL, 0), 5);
	bpfvm_set_cpu(0);
	ck_assert_uint_eq(run_ok(e, pc, NULL, 0), 0);
	bpfvm_prog_put(pk);
	bpfvm_prog_put(pr);
	bpfvm_prog_put(pc);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(trace_printk_lines)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[64];
	const char *fmt = "a %d b %u c %lx %s";
	size_t n = put_str(insns, 0, -64, fmt);
	n = put_str(insns, n, -16, "hi");
	insns[n++] = (struct bpfvm_insn)MOV64_X(1, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 1, -64);
	insns[n++] = (struct bpfvm_insn)MOV64_K(2, (int32_t)strlen(fmt) + 1);
	insns[n++] = (struct bpfvm_insn)MOV64_K(3, -5);
	insns[n++] = (struct bpfvm_insn)MOV64_K(4, 7);
	insns[n++] = (struct bpfvm_insn)MOV64_K(5, 255);
	insns[n++] = (struct bpfvm_insn)CALL(6);
	insns[n++] = (struct bpfvm_insn)EXIT();
	struct bpfvm_prog *p = fx_load_ok(reg, insns, n, NULL, 0);
	/* four conversions, three arguments: -EINVAL and no line */
	ck_assert_int_eq((int64_t)run_ok(e, p, NULL, 0), -EINVAL);
	char buf[256];
	ck_assert_uint_eq(bpfvm_trace_read(reg, buf, sizeof(buf)), 0);
	bpfvm_prog_put(p);

	fmt = "a %d b %u c %x";
	n = put_str(insns, 0, -64, fmt);
	insns[n++] = (struct bpfvm_insn)MOV64_X(1, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 1, -64);
	insns[n++] = (struct bpfvm_insn)MOV64_K(2, (int32_t)strlen(fmt) + 1);
	insns[n++] = (struct bpfvm_insn)MOV64_K(3, -5);
	insns[n++] = (struct bpfvm_insn)MOV64_K(4, 7);
	insns[n++] = (struct bpfvm_insn)MOV64_K(5, 255);
	insns[n++] = (struct bpfvm_insn)CALL(6);
	insns[n++] = (struct bpfvm_insn)EXIT();
	p = fx_load_ok(reg, insns, n, NULL, 0);
	ck_assert_uint_eq(run_ok(e, p, NULL, 0), strlen("a -5 b 7 c ff"));
	ck_assert_uint_eq(run_ok(e, p, NULL, 0), strlen("a -5 b 7 c ff"));
	ck_assert_uint_eq(bpfvm_trace_read(reg, buf, sizeof(buf)), 28);
	ck_assert_str_eq(buf, "a -5 b 7 c ff\na -5 b 7 c ff\n");
	/* drained */
	ck_assert_uint_eq(bpfvm_trace_read(reg, buf, sizeof(buf)), 0);
	/* a buffer too small for the next line returns nothing and keeps it */
	run_ok(e, p, NULL, 0);
	ck_assert_uint_eq(bpfvm_trace_read(reg, buf, 8), 0);
	ck_assert_uint_eq(bpfvm_trace_read(reg, buf, sizeof(buf)), 14);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* A field width past one conversion's output is refused at once: glibc
 * would otherwise pad %999999999d byte by byte (~10 s in one helper call,
 * outside the run-time budget). */
START_TEST(printf_width_bounded)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	static const struct {
		const char *fmt;
		bool ok;
	} cases[] = {{"%999999999d", false}, {"%99999999x", false}, {"%0256u", false},
		     {"%256d", false},	     {"%255d", true},	    {"%-255c", true}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct bpfvm_insn insns[32];
		size_t n = put_str(insns, 0, -64, cases[c].fmt);
		insns[n++] = (struct bpfvm_insn)MOV64_X(1, 10);
		insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 1, -64);
		insns[n++] = (struct bpfvm_insn)MOV64_K(2, (int32_t)strlen(cases[c].fmt) + 1);
		insns[n++] = (struct bpfvm_insn)MOV64_K(3, 65);
		insns[n++] = (struct bpfvm_insn)CALL(6);
		insns[n++] = (struct bpfvm_insn)EXIT();
		struct bpfvm_prog *p = fx_load_ok(reg, insns, n, NULL, 0);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int64_t r = (int64_t)run_ok(e, p, NULL, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double dt =
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (cases[c].ok)
			ck_assert_msg(r > 0, "%s: %s: %lld", e->name, cases[c].fmt, (long long)r);
		else
			ck_assert_msg(r == -EINVAL, "%s: %s: %lld", e->name, cases[c].fmt,
				      (long long)r);
		ck_assert_msg(dt < 0.1, "%s: %s took %.3f s", e->name, cases[c].fmt, dt);
		bpfvm_prog_put(p);
	}
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(snprintf_into_ctx)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[64];
	size_t n = put_str(insns, 0, -64, "%d:%x:%s|%5u");
	n = put_str(insns, n, -40, "str");
	insns[n++] = (struct bpfvm_insn)MOV64_X(6, 1);
	/* data: {-1, 0xab, &"str", 42} at r10-32 */
	insns[n++] = (struct bpfvm_insn)ST(BPF_DW, 10, -32, -1);
	insns[n++] = (struct bpfvm_insn)ST(BPF_DW, 10, -24, 0xab);
	insns[n++] = (struct bpfvm_insn)MOV64_X(2, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 2, -40);
	insns[n++] = (struct bpfvm_insn)STX(BPF_DW, 10, 2, -16);
	insns[n++] = (struct bpfvm_insn)ST(BPF_DW, 10, -8, 42);
	insns[n++] = (struct bpfvm_insn)MOV64_X(1, 6);
	insns[n++] = (struct bpfvm_insn)MOV64_K(2, 32);
	insns[n++] = (struct bpfvm_insn)MOV64_X(3, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 3, -64);
	insns[n++] = (struct bpfvm_insn)MOV64_X(4, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 4, -32);
	insns[n++] = (struct bpfvm_insn)MOV64_K(5, 32);
	insns[n++] = (struct bpfvm_insn)CALL(165);
	insns[n++] = (struct bpfvm_insn)EXIT();
	struct bpfvm_prog *p = fx_load_ok(reg, insns, n, NULL, 0);
	char out[32];
	memset(out, 'z', sizeof(out));
	/* returns the size needed including the NUL */
	ck_assert_uint_eq(run_ok(e, p, out, sizeof(out)), strlen("-1:ab:str|   42") + 1);
	ck_assert_str_eq(out, "-1:ab:str|   42");
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Issue 25 class 4: a %s argument is a program number; snprintf reads it
 * only where the program itself may read (its frame, ctx, its maps' values):
 * the address of daemon memory (a number a privileged loader could have kept
 * in a map value) prints "", a string in the frame prints itself. */
static const char daemon_secret[] = "daemon secret";

START_TEST(snprintf_str_only_program_memory)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[64];
	size_t n = put_str(insns, 0, -64, "[%s][%s]");
	n = put_str(insns, n, -40, "mine");
	insns[n++] = (struct bpfvm_insn)MOV64_X(6, 1);
	struct bpfvm_insn ld[2] = {LDDW(2, (uint64_t)(uintptr_t)daemon_secret)};
	insns[n++] = ld[0];
	insns[n++] = ld[1];
	insns[n++] = (struct bpfvm_insn)STX(BPF_DW, 10, 2, -16);
	insns[n++] = (struct bpfvm_insn)MOV64_X(2, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 2, -40);
	insns[n++] = (struct bpfvm_insn)STX(BPF_DW, 10, 2, -8);
	insns[n++] = (struct bpfvm_insn)MOV64_X(1, 6);
	insns[n++] = (struct bpfvm_insn)MOV64_K(2, 32);
	insns[n++] = (struct bpfvm_insn)MOV64_X(3, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 3, -64);
	insns[n++] = (struct bpfvm_insn)MOV64_X(4, 10);
	insns[n++] = (struct bpfvm_insn)ALU64_K(BPF_ADD, 4, -16);
	insns[n++] = (struct bpfvm_insn)MOV64_K(5, 16);
	insns[n++] = (struct bpfvm_insn)CALL(165);
	insns[n++] = (struct bpfvm_insn)EXIT();
	struct bpfvm_prog *p = fx_load_ok(reg, insns, n, NULL, 0);
	char out[32];
	memset(out, 'z', sizeof(out));
	ck_assert_uint_eq(run_ok(e, p, out, sizeof(out)), strlen("[][mine]") + 1);
	ck_assert_str_eq(out, "[][mine]");
	bpfvm_prog_put(p);
	/* the JIT records the calling frame for the helper the same way */
	struct bpfvm_load_opts o = {.no_verify = true, .jit = true};
	ck_assert_int_eq(bpfvm_prog_load(reg, insns, n, NULL, 0, &o, &p), 0);
	size_t len = 0;
	ck_assert_ptr_nonnull(bpfvm_prog_jited(p, &len));
	memset(out, 'z', sizeof(out));
	ck_assert_uint_eq(bpfvm_prog_run(p, out, sizeof(out)), strlen("[][mine]") + 1);
	ck_assert_str_eq(out, "[][mine]");
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

struct lock_job {
	struct bpfvm_prog *prog;
	int iters;
	bool checked;
	bool fault;
};

static void *lock_worker(void *arg)
{
	struct lock_job *j = arg;
	for (int i = 0; i < j->iters; i++) {
		struct bpfvm_fault f = {0};
		if (j->checked)
			bpfvm_interp_run_checked(j->prog, NULL, 0, &f);
		else
			bpfvm_prog_run_interp(j->prog, NULL, 0);
		j->fault |= f.hit;
	}
	return NULL;
}

START_TEST(spin_lock_serialises)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	/* value: {u32 lock, u32 pad, u64 counter}; a plain load/add/store of
	 * the counter between lock and unlock */
	struct bpfvm_map *arr = fx_map(reg, BPFVM_MAP_ARRAY, 4, 16, 1);
	struct bpfvm_insn insns[] = {
	    ST(BPF_W, 10, -4, 0),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -4),
	    LD_MAP(1, 0),
	    CALL(1),
	    JMP_K(BPF_JNE, 0, 0, 1),
	    EXIT(),
	    MOV64_X(6, 0),
	    MOV64_X(1, 6),
	    CALL(93),
	    LDX(BPF_DW, 7, 6, 8),
	    ALU64_K(BPF_ADD, 7, 1),
	    STX(BPF_DW, 6, 7, 8),
	    MOV64_X(1, 6),
	    CALL(94),
	    MOV64_X(0, 7),
	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), &arr, 1);
	struct lock_job jobs[2] = {{p, 20000, e->run == fx_run_checked, false},
				   {p, 20000, e->run == fx_run_checked, false}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, lock_worker, &jobs[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ck_assert(!jobs[0].fault && !jobs[1].fault);
	uint32_t key = 0;
	uint64_t *v = bpfvm_map_lookup(arr, &key);
	ck_assert_uint_eq(v[1], 40000);
	ck_assert_uint_eq(*(uint32_t *)v, 0); /* released */
	bpfvm_prog_put(p);
	bpfvm_map_put(arr);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(ringbuf_helpers)
{
	const struct fx_engine *e = &fx_engines[_i];
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_map *rb = fx_map(reg, BPFVM_MAP_RINGBUF, 0, 0, 4096);
	/* reserve 8, write, submit; reserve 8, discard; output 4 bytes from
	 * the stack; r0 = query(avail data) */
	struct bpfvm_insn insns[] = {
	    LD_MAP(1, 0),
	    MOV64_K(2, 8),
	    MOV64_K(3, 0),
	    CALL(131),
	    JMP_K(BPF_JEQ, 0, 0, 27),
	    LDDW(1, 0x1122334455667788ULL),
	    STX(BPF_DW, 0, 1, 0),
	    MOV64_X(1, 0),
	    MOV64_K(2, 0),
	    CALL(132),
	    LD_MAP(1, 0),
	    MOV64_K(2, 8),
	    MOV64_K(3, 0),
	    CALL(131),
	    JMP_K(BPF_JEQ, 0, 0, 15),
	    MOV64_X(1, 0),
	    MOV64_K(2, 0),
	    CALL(133),
	    ST(BPF_W, 10, -4, 0x0a0b0c0d),
	    LD_MAP(1, 0),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -4),
	    MOV64_K(3, 4),
	    MOV64_K(4, 0),
	    CALL(130),
	    LD_MAP(1, 0),
	    MOV64_K(2, 0),
	    CALL(134),
	    EXIT(),
	};
	struct bpfvm_prog *p = fx_load_ok(reg, insns, NINSNS(insns), &rb, 1);
	uint64_t avail = run_ok(e, p, NULL, 0);
	ck_assert_uint_gt(avail, 0);
	uint8_t buf[64];
	ck_assert_int_eq(bpfvm_ringbuf_consume(rb, buf, sizeof(buf)), 8);
	uint64_t v;
	memcpy(&v, buf, 8);
	ck_assert_uint_eq(v, 0x1122334455667788ULL);
	ck_assert_int_eq(bpfvm_ringbuf_consume(rb, buf, sizeof(buf)), 4);
	uint32_t w;
	memcpy(&w, buf, 4);
	ck_assert_uint_eq(w, 0x0a0b0c0d);
	ck_assert_int_eq(bpfvm_ringbuf_consume(rb, buf, sizeof(buf)), 0);
	bpfvm_prog_put(p);
	bpfvm_map_put(rb);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* bpf_strncmp(s1, s1_sz, s2): the sign only, as the kernel's strncmp; s1_sz
 * bounds the comparison; a constant string (ARG_STR) as s2. */
START_TEST(strncmp_sign)
{
	const struct bpfvm_helper *h = bpfvm_base_helper(182);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(h->args[2].kind, BPFVM_ARG_STR);
	char cc[16] = "cubic";
#define STRNCMP(a, n, b)                                                                           \
	(int64_t) h->fn((uint64_t)(uintptr_t)(a), n, (uint64_t)(uintptr_t)(b), 0, 0, NULL)
	ck_assert_int_eq(STRNCMP(cc, sizeof(cc), "cubic"), 0);
	ck_assert_int_eq(STRNCMP(cc, sizeof(cc), "reno"), -1);
	ck_assert_int_eq(STRNCMP(cc, sizeof(cc), "bbr"), 1);
	ck_assert_int_eq(STRNCMP(cc, sizeof(cc), "cubicx"), -1);
	ck_assert_int_eq(STRNCMP(cc, 2, "cux"), 0); /* only s1_sz bytes */
	ck_assert_int_eq(STRNCMP(cc, 0, "x"), 0);
#undef STRNCMP
}
END_TEST

START_TEST(helper_prototypes)
{
	static const uint32_t ids[] = {1,  2,	3,   5,	  6,   7,   8,	 12,  93,
				       94, 130, 131, 132, 133, 134, 164, 165, 181};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct bpfvm_helper *h = bpfvm_base_helper(ids[i]);
		ck_assert_ptr_nonnull(h);
		ck_assert_uint_eq(h->id, ids[i]);
		ck_assert(h->fn || ids[i] == BPF_HELPER_TAIL_CALL);
	}
	ck_assert_ptr_null(bpfvm_base_helper(0));
	ck_assert_ptr_null(bpfvm_base_helper(49)); /* setsockopt: sock_ops only */
	ck_assert_int_eq(bpfvm_base_helper(1)->ret, BPFVM_RET_MAP_VALUE_OR_NULL);
	ck_assert_int_eq(bpfvm_base_helper(1)->args[0].kind, BPFVM_ARG_MAP);
	ck_assert_int_eq(bpfvm_base_helper(1)->args[1].kind, BPFVM_ARG_MAP_KEY);
	ck_assert_int_eq(bpfvm_base_helper(181)->args[1].kind, BPFVM_ARG_FUNC);
	ck_assert_int_eq(bpfvm_base_helper(131)->ret, BPFVM_RET_MEM_OR_NULL);
	ck_assert_ptr_eq(bpfvm_type_generic.helper(6), bpfvm_base_helper(6));
}
END_TEST

static Suite *helpers_suite(void)
{
	Suite *s = suite_create("bpfvm_interp_helpers");
	TCase *tc = tcase_create("helpers");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, map_helpers, 0, FX_NENGINES);
	tcase_add_loop_test(tc, direct_map_value, 0, FX_NENGINES);
	tcase_add_loop_test(tc, time_random_cpu, 0, FX_NENGINES);
	tcase_add_loop_test(tc, trace_printk_lines, 0, FX_NENGINES);
	tcase_add_loop_test(tc, snprintf_into_ctx, 0, FX_NENGINES);
	tcase_add_loop_test(tc, printf_width_bounded, 0, FX_NENGINES);
	tcase_add_loop_test(tc, spin_lock_serialises, 0, FX_NENGINES);
	tcase_add_loop_test(tc, snprintf_str_only_program_memory, 0, FX_NENGINES);
	tcase_add_loop_test(tc, ringbuf_helpers, 0, FX_NENGINES);
	tcase_add_test(tc, helper_prototypes);
	tcase_add_test(tc, strncmp_sign);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(helpers_suite)
