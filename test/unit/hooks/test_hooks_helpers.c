/* hooks_helpers and hooks_trace: every sock_ops helper called directly on a
 * context over the socket double: the setsockopt/getsockopt table of
 * docs/sockops.md §5 with its errnos, callback flags, cookies, socket storage,
 * perf output and trace_printk into the hooks log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "hk_double.h"
#include "hooks_int.h"

static struct hooks *hk;
static struct bpfvm_registry *reg;
static struct hkd_sock d;
static struct hooks_ctx ctx;
static struct bpfvm_run run;

static void setup(void)
{
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	hk = calloc(1, sizeof(*hk));
	ck_assert_ptr_nonnull(hk);
	hk->cfg.reg = reg;
	hk->cfg.netns_cookie = 0x1234;
	hkd_init(&d, 10, 55601, 40000, true);
	hooks_sock_init(&d.hs, hk, &hkd_ops, NULL, true);
	memset(&ctx, 0, sizeof(ctx));
	ctx.hs = &d.hs;
	ctx.view.sk = (uint64_t)(uintptr_t)&ctx.bsk;
	memset(&run, 0, sizeof(run));
	run.ctx = &ctx;
}

static void teardown(void)
{
	hooks_sock_fini(&d.hs);
	free(hk);
	bpfvm_registry_destroy(reg);
}

static int64_t call(uint32_t id, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	const struct bpfvm_helper *h = hooks_sock_ops_type.helper(id);
	ck_assert_msg(h != NULL, "helper %u", id);
	return (int64_t)h->fn(a1, a2, a3, a4, a5, &run);
}

#define CTX    ((uint64_t)(uintptr_t)&ctx)
#define PTR(p) ((uint64_t)(uintptr_t)(p))

static int64_t set_int(int level, int opt, int32_t v)
{
	return call(49, CTX, (uint64_t)level, (uint64_t)opt, PTR(&v), sizeof(v));
}

static int64_t get_int(int level, int opt, int32_t *v)
{
	return call(57, CTX, (uint64_t)level, (uint64_t)opt, PTR(v), sizeof(*v));
}

/* The int options of the table reach the socket, with their value. */
START_TEST(setsockopt_table)
{
	static const int tab[][2] = {{1, 2},
				     {1, 7},
				     {1, 8},
				     {1, 9},
				     {1, 12},
				     {1, 18},
				     {1, 36},
				     {1, 47},
				     {6, 1},
				     {6, 2},
				     {6, 4},
				     {6, 5},
				     {6, 6},
				     {6, 7},
				     {6, 10},
				     {6, 18},
				     {6, 25},
				     {6, 27},
				     {6, 1001},
				     {6, 1002},
				     {6, 1003},
				     {6, 1004},
				     {41, 67},
				     /* Linux 6.1's additions: SO_REUSEPORT, SO_BINDTOIFINDEX,
				      * SO_TXREHASH, TCP_THIN_LINEAR_TIMEOUTS, IPV6_AUTOFLOWLABEL */
				     {1, 15},
				     {1, 62},
				     {1, 74},
				     {6, 16},
				     {41, 70}};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		hkd_reset_calls(&d);
		ck_assert_msg(set_int(tab[i][0], tab[i][1], 77) == 0, "%d/%d", tab[i][0],
			      tab[i][1]);
		ck_assert_uint_eq(d.ncalls, 1);
		ck_assert_int_eq(d.calls[0].level, tab[i][0]);
		ck_assert_int_eq(d.calls[0].optname, tab[i][1]);
		ck_assert_int_eq(d.calls[0].val, 77);
	}
}
END_TEST

/* Options outside the table, bad sizes and request sockets never reach it. */
START_TEST(setsockopt_refused)
{
	static const int bad[][2] = {{1, 26},	{6, 17},   {1, 6},    {6, 3},	 {6, 11}, {6, 28},
				     {6, 1005}, {6, 1006}, {6, 1007}, {6, 1009}, {0, 1},  {0, 2},
				     {41, 1},	{99, 7},   {-1, 7},   {255, 1}};
	int64_t v8 = 1;

	hkd_reset_calls(&d);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(set_int(bad[i][0], bad[i][1], 1) == -EINVAL, "%d/%d allowed",
			      bad[i][0], bad[i][1]);
	ck_assert_int_eq(call(49, CTX, 1, 7, PTR(&v8), 8), -EINVAL);
	ck_assert_int_eq(call(49, CTX, 1, 7, PTR(&v8), 2), -EINVAL);
	ck_assert_uint_eq(d.ncalls, 0);

	d.hs.fullsock = false;
	ck_assert_int_eq(set_int(1, 7, 1000), -EINVAL);
	ck_assert_int_eq(call(49, CTX, 6, 13, PTR("reno"), 5), -EINVAL);
	ck_assert_int_eq(set_int(6, 1008, 1), -EINVAL);
	ck_assert_uint_eq(d.ncalls, 0);
}
END_TEST

/* IP_TOS needs an IPv4 socket, IPV6_TCLASS an IPv6 one. */
START_TEST(setsockopt_ip_levels)
{
	ck_assert_int_eq(set_int(0, 1, 0x10), -EINVAL); /* d is IPv6 */
	ck_assert_int_eq(set_int(41, 67, 0x10), 0);
	hkd_init(&d, 2, 55601, 40000, true);
	d.hs.ops = &hkd_ops;
	d.hs.hk = hk;
	d.hs.fullsock = true;
	ck_assert_int_eq(set_int(0, 1, 0x10), 0);
	ck_assert_int_eq(set_int(41, 67, 0x10), -EINVAL);
}
END_TEST

START_TEST(setsockopt_buffers)
{
	ck_assert_int_eq(set_int(1, 7, 1500000), 0);
	ck_assert_uint_eq(d.sndbuf, 3000000);
	ck_assert(d.sndbuf_locked);
	ck_assert_int_eq(set_int(1, 8, 100), 0);
	ck_assert_uint_eq(d.rcvbuf, HKD_SOCK_MIN_RCVBUF);
	int32_t v = 0;
	ck_assert_int_eq(get_int(1, 7, &v), 0);
	ck_assert_int_eq(v, 3000000);
}
END_TEST

START_TEST(setsockopt_congestion)
{
	char name[] = "dctcp";
	char longname[] = "averyveryverylongname";

	ck_assert_int_eq(call(49, CTX, 6, 13, PTR(name), sizeof name), 0);
	ck_assert_str_eq(d.cc, "dctcp");
	ck_assert_str_eq(d.calls[0].str, "dctcp");
	/* without the NUL, as a program may pass strlen */
	ck_assert_int_eq(call(49, CTX, 6, 13, PTR("reno"), 4), 0);
	ck_assert_str_eq(d.cc, "reno");
	ck_assert_int_eq(call(49, CTX, 6, 13, PTR("nosuch"), 7), -ENOENT);
	ck_assert_str_eq(d.cc, "reno");
	ck_assert_int_eq(call(49, CTX, 6, 13, PTR(name), 0), -EINVAL);
	/* Linux keeps TCP_CA_NAME_MAX - 1 = 15 bytes of a longer name */
	hkd_reset_calls(&d);
	ck_assert_int_eq(call(49, CTX, 6, 13, PTR(longname), sizeof longname), -ENOENT);
	ck_assert_str_eq(d.calls[0].str, "averyveryverylo");

	char out[16];
	memset(out, 'x', sizeof out);
	ck_assert_int_eq(call(57, CTX, 6, 13, PTR(out), sizeof out), 0);
	ck_assert_str_eq(out, "reno");
	memset(out, 'x', sizeof out);
	ck_assert_int_eq(call(57, CTX, 6, 13, PTR(out), 3), 0);
	ck_assert_str_eq(out, "re");
}
END_TEST

START_TEST(setsockopt_iw_and_clamp)
{
	ck_assert_int_eq(set_int(6, 1001, 40), 0);
	ck_assert_uint_eq(d.cwnd, 40);
	hkd_reset_calls(&d);
	ck_assert_int_eq(set_int(6, 1001, 0), -EINVAL);
	ck_assert_int_eq(set_int(6, 1001, -3), -EINVAL);
	ck_assert_uint_eq(d.ncalls, 0);
	d.info.data_segs_out = 1; /* data went out: too late for an initial window */
	ck_assert_int_eq(set_int(6, 1001, 40), -EINVAL);

	ck_assert_int_eq(set_int(6, 1002, 100), 0);
	ck_assert_uint_eq(d.cwnd_clamp, 100);
	ck_assert_uint_eq(d.ssthresh, 100);
	ck_assert_int_eq(set_int(6, 1002, 0), -EINVAL);
	ck_assert_uint_eq(d.cwnd_clamp, 100);
}
END_TEST

START_TEST(getsockopt_rules)
{
	int32_t v = 0x55555555;

	ck_assert_int_eq(set_int(6, 1, 1), 0);
	ck_assert_int_eq(get_int(6, 1, &v), 0);
	ck_assert_int_eq(v, 1);
	/* TCP_BPF_* knobs are write-only; a failure zeroes the buffer */
	v = 0x55555555;
	ck_assert_int_eq(get_int(6, 1001, &v), -EINVAL);
	ck_assert_int_eq(v, 0);
	v = 0x55555555;
	ck_assert_int_eq(get_int(1, 6, &v), -EINVAL);
	ck_assert_int_eq(v, 0);
	/* SO_BINDTODEVICE is set-only (Linux sol_socket_sockopt) */
	v = 0x55555555;
	ck_assert_int_eq(get_int(1, 25, &v), -EINVAL);
	ck_assert_int_eq(v, 0);
	char syn[64];
	memset(syn, 1, sizeof syn);
	ck_assert_int_eq(call(57, CTX, 6, 1005, PTR(syn), sizeof syn), -ENOENT);
	ck_assert_int_eq(syn[0], 0);
	d.hs.fullsock = false;
	v = 0x55555555;
	ck_assert_int_eq(get_int(1, 7, &v), -EINVAL);
	ck_assert_int_eq(v, 0);
}
END_TEST

START_TEST(cb_flags)
{
	ck_assert_int_eq(call(59, CTX, 0x7, 0, 0, 0), 0);
	ck_assert_uint_eq(d.hs.cb_flags, 0x7);
	ck_assert_uint_eq(ctx.view.bpf_sock_ops_cb_flags, 0x7);
	ck_assert(hooks_cb_enabled(&d.hs, HOOKS_CB_STATE));
	/* replaces the set */
	ck_assert_int_eq(call(59, CTX, HOOKS_CB_RTT, 0, 0, 0), 0);
	ck_assert_uint_eq(d.hs.cb_flags, HOOKS_CB_RTT);
	/* answers the bits it did not take */
	ck_assert_int_eq(call(59, CTX, 0x1ff, 0, 0, 0), 0x180);
	ck_assert_uint_eq(d.hs.cb_flags, 0x7f);
	/* the same through setsockopt(TCP_BPF_SOCK_OPS_CB_FLAGS) */
	ck_assert_int_eq(set_int(6, 1008, 0x4), 0);
	ck_assert_uint_eq(d.hs.cb_flags, 0x4);
	ck_assert_int_eq(set_int(6, 1008, 0x80), -EINVAL);
	int32_t v = 0;
	ck_assert_int_eq(get_int(6, 1008, &v), 0);
	ck_assert_int_eq(v, 4);
	d.hs.fullsock = false;
	ck_assert_int_eq(call(59, CTX, 0x1, 0, 0, 0), -EINVAL);
	ck_assert_uint_eq(d.hs.cb_flags, 0x4);
}
END_TEST

/* SOL_SOCKET SK_BPF_CB_FLAGS (1009): Linux 6.14's sk_bpf_set_get_cb_flags. */
START_TEST(sk_cb_flags)
{
	int32_t v = 0x55555555;
	ck_assert_int_eq(get_int(1, 1009, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(set_int(1, 1009, HOOKS_SK_CB_TX_TIMESTAMPING), 0);
	ck_assert_uint_eq(d.hs.sk_cb_flags, HOOKS_SK_CB_TX_TIMESTAMPING);
	ck_assert_int_eq(get_int(1, 1009, &v), 0);
	ck_assert_int_eq(v, 1);
	/* bits outside SK_BPF_CB_MASK, and a size other than an int */
	ck_assert_int_eq(set_int(1, 1009, 2), -EINVAL);
	ck_assert_int_eq(set_int(1, 1009, -1), -EINVAL);
	int64_t v8 = 0;
	ck_assert_int_eq(call(49, CTX, 1, 1009, PTR(&v8), 8), -EINVAL);
	ck_assert_int_eq(call(57, CTX, 1, 1009, PTR(&v8), 8), -EINVAL);
	ck_assert_uint_eq(d.hs.sk_cb_flags, HOOKS_SK_CB_TX_TIMESTAMPING);
	/* its own flags: the TCP callback set is untouched, and back */
	ck_assert_uint_eq(d.hs.cb_flags, 0);
	ck_assert_int_eq(set_int(1, 1009, 0), 0);
	ck_assert_uint_eq(d.hs.sk_cb_flags, 0);
	/* never reaches the stack */
	ck_assert_uint_eq(d.ncalls, 0);
	d.hs.fullsock = false;
	ck_assert_int_eq(set_int(1, 1009, 1), -EINVAL);
	ck_assert_uint_eq(d.hs.sk_cb_flags, 0);
}
END_TEST

/* Linux is_locked_tcp_sock_ops: in the TSTAMP_* ops (16..20) setsockopt,
 * getsockopt, cb_flags_set and load_hdr_opt answer -EOPNOTSUPP first. */
START_TEST(tstamp_ops_unlocked)
{
	int32_t v = 0x55555555;
	uint8_t opt[4] = {254, 0, 0, 0};
	for (uint32_t op = 16; op <= 20; op++) {
		ctx.view.op = op;
		ck_assert_int_eq(set_int(1, 1009, 1), -EOPNOTSUPP);
		ck_assert_int_eq(get_int(1, 1009, &v), -EOPNOTSUPP);
		ck_assert_int_eq(v, 0);
		ck_assert_int_eq(set_int(6, 1, 1), -EOPNOTSUPP);
		ck_assert_int_eq(call(59, CTX, 0, 0, 0, 0), -EOPNOTSUPP);
		ck_assert_int_eq(call(142, CTX, PTR(opt), sizeof opt, 0, 0), -EOPNOTSUPP);
	}
	ck_assert_uint_eq(d.hs.sk_cb_flags, 0);
	ck_assert_uint_eq(d.ncalls, 0);
	ctx.view.op = 15;
	ck_assert_int_eq(set_int(1, 1009, 1), 0);
}
END_TEST

START_TEST(cookies)
{
	struct hkd_sock d2;
	uint64_t c1 = (uint64_t)call(46, CTX, 0, 0, 0, 0);

	hkd_init(&d2, 2, 1, 2, false);
	hooks_sock_init(&d2.hs, hk, &hkd_ops, NULL, true);
	ctx.hs = &d2.hs;
	uint64_t c2 = (uint64_t)call(46, CTX, 0, 0, 0, 0);
	ck_assert_uint_ne(c1, 0);
	ck_assert_uint_ne(c2, 0);
	ck_assert_uint_ne(c1, c2);
	ck_assert_uint_eq(c1, d.hs.cookie);
	ck_assert_uint_eq((uint64_t)call(122, CTX, 0, 0, 0, 0), 0x1234);
	hooks_sock_fini(&d2.hs);
}
END_TEST

START_TEST(sk_storage)
{
	struct bpfvm_map_def def = {.type = BPFVM_MAP_SK_STORAGE,
				    .key_size = 4,
				    .value_size = 8,
				    .max_entries = 0,
				    .map_flags = 1 /* BPF_F_NO_PREALLOC */,
				    .name = "sks"};
	struct bpfvm_map *map;
	uint64_t init = 42;

	ck_assert_int_eq(bpfvm_map_create(reg, &def, &map), 0);
	uint64_t sk = ctx.view.sk;
	ck_assert_int_eq(call(107, PTR(map), sk, 0, 0, 0), 0); /* absent, no create */
	uint64_t *v = (uint64_t *)(uintptr_t)call(107, PTR(map), sk, PTR(&init), 1, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(*v, 42);
	*v = 43;
	ck_assert_ptr_eq((void *)(uintptr_t)call(107, PTR(map), sk, 0, 0, 0), v);
	ck_assert_int_eq(call(107, PTR(map), 0, 0, 1, 0), 0);  /* NULL sk */
	ck_assert_int_eq(call(107, PTR(map), sk, 0, 2, 0), 0); /* unknown flag */
	ck_assert_int_eq(call(108, PTR(map), sk, 0, 0, 0), 0);
	ck_assert_int_eq(call(107, PTR(map), sk, 0, 0, 0), 0);
	ck_assert_int_lt(call(108, PTR(map), sk, 0, 0, 0), 0);
	/* hooks_sock_fini releases what the socket still holds (ASan checks) */
	ck_assert_ptr_nonnull((void *)(uintptr_t)call(107, PTR(map), sk, 0, 1, 0));
	bpfvm_map_put(map);
}
END_TEST

START_TEST(perf_output)
{
	struct bpfvm_map_def def = {.type = BPFVM_MAP_RINGBUF, .max_entries = 4096, .name = "rb"};
	struct bpfvm_map *map;
	uint32_t rec[3] = {1, 2, 3}, got[8];

	ck_assert_int_eq(bpfvm_map_create(reg, &def, &map), 0);
	ck_assert_int_eq(call(25, CTX, PTR(map), 0xffffffffull, PTR(rec), sizeof rec), 0);
	ck_assert_int_eq(call(25, CTX, PTR(map), 1ull << 32, PTR(rec), sizeof rec), -EINVAL);
	ck_assert_int_eq(bpfvm_ringbuf_consume(map, got, sizeof got), (int)sizeof rec);
	ck_assert_mem_eq(got, rec, sizeof rec);
	ck_assert_int_eq(bpfvm_ringbuf_consume(map, got, sizeof got), 0);
	bpfvm_map_put(map);
}
END_TEST

static int64_t printk(const char *fmt, uint64_t a, uint64_t b, uint64_t c)
{
	return call(6, PTR(fmt), strlen(fmt) + 1, a, b, c);
}

START_TEST(trace_printk)
{
	char buf[512];

	ck_assert_int_eq(printk("BPF command: %d\n", 5, 0, 0), 15);
	ck_assert_int_gt(printk("Returning %d %u %x", 0xffffffffull, 0xffffffffull, 255), 0);
	ck_assert_int_gt(printk("%ld %llu %5d|", (uint64_t)-2, 1ull << 40, 7), 0);
	ck_assert_int_eq(printk("%s", PTR("x"), 0, 0), -EINVAL);
	ck_assert_int_eq(printk("%d %d %d %d", 1, 2, 3), -EINVAL);
	ck_assert_int_eq(printk("%q", 1, 0, 0), -EINVAL);
	ck_assert_int_eq(call(6, PTR("abc"), 3, 0, 0, 0), -EINVAL); /* no NUL inside */
	/* no field wider than the line: %999999999d would pad for seconds */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(printk("%999999999d", 1, 0, 0), -EINVAL);
	ck_assert_int_eq(printk("%d %0256x", 1, 2, 0), -EINVAL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(dt < 0.1, "wide fields took %.3f s", dt);
	size_t n = hooks_trace_read(hk, buf, sizeof buf - 1);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "BPF command: 5\nReturning -1 4294967295 ff\n-2 1099511627776     7|"
			      "\n");
	ck_assert_uint_eq(hooks_trace_read(hk, buf, sizeof buf), 0);
}
END_TEST

START_TEST(trace_ring)
{
	char buf[64];

	/* whole lines only: a read that cannot take the second line stops */
	ck_assert_int_gt(printk("first line\n", 0, 0, 0), 0);
	ck_assert_int_gt(printk("second\n", 0, 0, 0), 0);
	ck_assert_uint_eq(hooks_trace_read(hk, buf, 14), 11);
	ck_assert_mem_eq(buf, "first line\n", 11);
	ck_assert_uint_eq(hooks_trace_read(hk, buf, sizeof buf), 7);
	/* overflow keeps the newest lines */
	for (int i = 0; i < 5000; i++)
		ck_assert_int_gt(printk("line %d\n", (uint64_t)i, 0, 0), 0);
	ck_assert_uint_gt(hk->trace.dropped, 0);
	size_t total = 0, n;
	char last[64] = "";
	char big[HOOKS_TRACE_SIZE];
	while ((n = hooks_trace_read(hk, big, sizeof big)) > 0 && total < 10 * HOOKS_TRACE_SIZE) {
		total += n;
		ck_assert_int_eq(big[n - 1], '\n');
		big[n - 1] = '\0';
		const char *nl = strrchr(big, '\n');
		const char *tail = nl ? nl + 1 : big;
		size_t tl = strlen(tail) < sizeof last - 1 ? strlen(tail) : sizeof last - 1;
		memcpy(last, tail, tl);
		last[tl] = '\0';
	}
	ck_assert_uint_le(total, HOOKS_TRACE_SIZE);
	ck_assert_str_eq(last, "line 4999");
}
END_TEST

/* One call of a helper whose contract has an UNINIT_WRITE buffer (arg
 * `buf`, size in arg `len`): the buffer is prefilled with a pattern. */
struct uw_case {
	uint32_t id;
	uint64_t a[5];
	int buf, len; /* 1-based */
};

static void uw_run(const struct uw_case *c, uint8_t pattern, uint8_t *out, size_t size)
{
	uint64_t a[5];
	memcpy(a, c->a, sizeof a);
	memset(out, pattern, size);
	a[c->buf - 1] = PTR(out);
	a[c->len - 1] = size;
	call(c->id, a[0], a[1], a[2], a[3], a[4]);
}

/* The contract of an UNINIT_WRITE argument (issue 25 class 3): the helper
 * writes every declared byte, whatever it answers, so the verifier may count
 * all of them initialised. Run with two prefill patterns, the buffers must
 * come out the same: no byte kept what the stack held. Every sock_ops helper
 * the table declares so must have a case here. */
START_TEST(uninit_write_every_byte)
{
	static const char fmt[] = "cwnd=%u";
	static uint64_t data[1] = {10};
	const struct uw_case cases[] = {
	    {57, {CTX, 6, 13, 0, 0}, 4, 5},		 /* TCP_CONGESTION, shorter than 64 */
	    {57, {CTX, 6, 1, 0, 0}, 4, 5},		 /* an int option */
	    {57, {CTX, 6, 1001, 0, 0}, 4, 5},		 /* refused: write-only */
	    {57, {CTX, 6, 1005, 0, 0}, 4, 5},		 /* TCP_BPF_SYN: none saved */
	    {113, {0, 0, 0x1000, 0, 0}, 1, 2},		 /* a kernel read that faults */
	    {165, {0, 0, PTR(fmt), PTR(data), 8}, 1, 2}, /* snprintf: text shorter than str */
	    {165, {0, 0, PTR(fmt), PTR(data), 4}, 1, 2}, /* snprintf: refused data_len */
	};
	uint32_t covered[8] = {57, 113, 165};
	const struct bpfvm_helper *all[BPFVM_MAX_HELPER_ID];
	size_t n = bpfvm_type_helpers(&hooks_sock_ops_type, all, BPFVM_MAX_HELPER_ID);
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < 5; a++) {
			if (all[i]->args[a].access != BPFVM_MEM_UNINIT_WRITE)
				continue;
			bool have = false;
			for (size_t k = 0; k < 3; k++)
				have |= covered[k] == all[i]->id;
			ck_assert_msg(have, "bpf_%s: UNINIT_WRITE argument %d without a case here",
				      all[i]->name, a + 1);
		}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t one[64], two[64];
		uw_run(&cases[i], 0xa5, one, sizeof one);
		uw_run(&cases[i], 0x5a, two, sizeof two);
		ck_assert_msg(!memcmp(one, two, sizeof one),
			      "case %zu (bpf_%u): a byte kept its prefill", i, cases[i].id);
	}
}
END_TEST

static Suite *helpers_suite(void)
{
	Suite *s = suite_create("hooks_helpers");
	TCase *tc = tcase_create("helpers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, setsockopt_table);
	tcase_add_test(tc, setsockopt_refused);
	tcase_add_test(tc, setsockopt_ip_levels);
	tcase_add_test(tc, setsockopt_buffers);
	tcase_add_test(tc, setsockopt_congestion);
	tcase_add_test(tc, setsockopt_iw_and_clamp);
	tcase_add_test(tc, getsockopt_rules);
	tcase_add_test(tc, cb_flags);
	tcase_add_test(tc, sk_cb_flags);
	tcase_add_test(tc, tstamp_ops_unlocked);
	tcase_add_test(tc, cookies);
	tcase_add_test(tc, sk_storage);
	tcase_add_test(tc, perf_output);
	tcase_add_test(tc, trace_printk);
	tcase_add_test(tc, trace_ring);
	tcase_add_test(tc, uninit_write_every_byte);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(helpers_suite)
