/* CO-RE on sock_ops: test/compat/progs/core_tcp_sock.c, written against its own
 * vmlinux.h-style header (vmlinux_tcp.h: another field order, fields skops
 * lacks, a u64 where skops has u32), loads strict; every relocated load lands
 * on the field hooks publishes (the offsets are hooks_int.h's, the load sizes
 * skops's), the map holds the socket's own values in both engines, the
 * queries (exists, size, signed, shifts, type size) answer for skops's BTF,
 * and the bad_core_* programs are refused with the verifier's reason. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "check_main.h"
#include "hk_double.h"
#include "hooks_int.h"

#include "compat_fixture.h"

/* The map value of core_tcp_sock.c. */
struct core_snap {
	uint32_t calls, no_tp;
	uint32_t snd_cwnd, snd_ssthresh, srtt_us, mss_cache, rcv_nxt, snd_nxt, snd_una;
	uint32_t segs_in, segs_out, data_segs_in, data_segs_out, total_retrans, min_rtt;
	uint64_t bytes_received, bytes_acked, delivered;
	uint32_t ecn_flags, state, family, dport, num, retransmits, mark;
	uint32_t daddr, v6_daddr3, flavor_una;
	uint32_t has_snd_cwnd, has_app_limited, app_limited, cwnd_size, cwnd_off_nonzero;
	uint32_t tp_size, has_flavor, has_udp_sock, delivered_signed, cwnd_rshift, cwnd_lshift;
	int32_t probe_sk;
	uint32_t probe_sk_val;
	uint32_t has_mdev_us, mdev_us, rcv_wnd, window_clamp, rcv_wup, copied_seq, write_seq;
	uint32_t snd_wnd, snd_wl1, rcv_ssthresh;
};

/* The "sockops" section's insns as clang wrote them (malloc'd), from the file. */
static struct bpfvm_insn *raw_insns(const char *name, size_t *n)
{
	char path[512];
	obj_path(name, path, sizeof(path));
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static uint8_t img[1 << 20];
	size_t len = fread(img, 1, sizeof(img), f);
	fclose(f);
	Elf64_Ehdr eh;
	ck_assert_uint_ge(len, sizeof(eh));
	memcpy(&eh, img, sizeof(eh));
	ck_assert_uint_le(eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr), len);
	Elf64_Shdr strs;
	memcpy(&strs, img + eh.e_shoff + eh.e_shstrndx * sizeof(strs), sizeof(strs));
	for (size_t i = 1; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (strcmp((const char *)img + strs.sh_offset + sh.sh_name, "sockops") != 0)
			continue;
		ck_assert_uint_le(sh.sh_offset + sh.sh_size, len);
		struct bpfvm_insn *in = malloc(sh.sh_size);
		ck_assert_ptr_nonnull(in);
		memcpy(in, img + sh.sh_offset, sh.sh_size);
		*n = sh.sh_size / sizeof(*in);
		return in;
	}
	ck_abort_msg("%s: no sockops section", name);
	return NULL;
}

#define LDX(sz) (0x61 | (sz)) /* BPF_LDX | BPF_MEM | size */
#define W	0x00
#define B	0x10
#define DW	0x18

/* The loaded program holds a load of size sz at off that clang wrote at
 * another offset (and size osz): the relocation moved it onto skops's field. */
static void assert_moved(const struct bpfvm_insn *raw, const struct bpfvm_insn *in, size_t n,
			 uint8_t osz, uint8_t sz, size_t off, const char *field)
{
	for (size_t pc = 0; pc < n; pc++)
		if (in[pc].code == LDX(sz) && (size_t)in[pc].off == off &&
		    raw[pc].code == LDX(osz) && (size_t)raw[pc].off != off)
			return;
	ck_abort_msg("no relocated load of %s at %zu", field, off);
}

START_TEST(patched_offsets)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	size_t nraw, n;

	ck_assert_msg(load("core_tcp_sock", false, &obj, &prog) == 0, "load: %s", logbuf);
	struct bpfvm_insn *raw = raw_insns("core_tcp_sock", &nraw);
	const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &n);
	ck_assert_uint_eq(n, nraw); /* no sub-programs: pc for pc */
	assert_moved(raw, in, n, W, W, offsetof(struct hooks_k_tcp_sock, snd_cwnd), "snd_cwnd");
	assert_moved(raw, in, n, W, W, offsetof(struct hooks_k_tcp_sock, snd_ssthresh),
		     "snd_ssthresh");
	assert_moved(raw, in, n, W, W, offsetof(struct hooks_k_tcp_sock, rtt_min.s[0].v),
		     "rtt_min.s[0].v");
	assert_moved(raw, in, n, B, B, offsetof(struct hooks_k_tcp_sock, ecn_flags), "ecn_flags");
	/* vmlinux_tcp.h's delivered is a u64: the load narrows to skops's u32 */
	assert_moved(raw, in, n, DW, W, offsetof(struct hooks_k_tcp_sock, delivered), "delivered");
	assert_moved(
	    raw, in, n, W, W,
	    offsetof(struct hooks_k_tcp_sock, inet_conn.icsk_inet.sk.__sk_common.skc_v6_daddr) + 12,
	    "skc_v6_daddr[3]");
	/* the read of app_limited (absent here) sat behind bpf_core_field_exists: it
	 * was poisoned, never reached, and left as the kernel leaves dead code */
	size_t traps = 0;
	for (size_t pc = 0; pc < n; pc++) {
		ck_assert_msg(!(in[pc].code == 0x85 && in[pc].imm == 0xbad2310),
			      "poisoned call left at %zu", pc);
		traps += in[pc].code == 0x05 && in[pc].off == -1 && raw[pc].code == LDX(W);
	}
	ck_assert_uint_eq(traps, 1);
	free(raw);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}
END_TEST

/* What skopsctl btf dump prints: the published layout, as C. */
START_TEST(published_dump)
{
	static char buf[16384];
	char want[96];
	const struct bpfvm_prog_type *t = &hooks_sock_ops_type;
	int n = bpfvm_btf_dump_c(t->btf, t->btf_len, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (int)sizeof buf);
	snprintf(want, sizeof want, "struct tcp_sock { /* %zu bytes */\n",
		 sizeof(struct hooks_k_tcp_sock));
	ck_assert_msg(strstr(buf, want), "%s", buf);
	snprintf(want, sizeof want, "        unsigned int snd_cwnd; /* %zu */\n",
		 offsetof(struct hooks_k_tcp_sock, snd_cwnd));
	ck_assert_msg(strstr(buf, want), "%s", buf);
	snprintf(want, sizeof want, "        volatile unsigned char skc_state; /* %zu */\n",
		 offsetof(struct hooks_k_sock_common, skc_state));
	ck_assert_msg(strstr(buf, want), "%s", buf);
}
END_TEST

static void fill(struct hkd_sock *d)
{
	struct hooks_sk_info *in = &d->info;

	/* distinct values everywhere, so a field read from the wrong offset shows */
	in->snd_cwnd = 11;
	in->snd_ssthresh = 12;
	in->srtt_us = 13;
	in->mss_cache = 14;
	in->rcv_nxt = 15;
	in->snd_nxt = 16;
	in->snd_una = 17;
	in->segs_in = 18;
	in->segs_out = 19;
	in->data_segs_in = 20;
	in->data_segs_out = 21;
	in->total_retrans = 22;
	in->rtt_min = 23;
	in->bytes_received = 0x2400000024ull;
	in->bytes_acked = 0x2500000025ull;
	in->delivered = 26;
	in->ecn_flags = 3;
	in->icsk_retransmits = 4;
	in->sk_mark = 0x2700;
	in->mdev_us = 28;
	in->rcv_wnd = 29;
	in->window_clamp = 30;
	in->rcv_wup = 31;
	in->copied_seq = 32;
	in->write_seq = 33;
	in->snd_wnd = 34;
	in->snd_wl1 = 35;
	in->rcv_ssthresh = 36;
}

static void check(const struct core_snap *s, const struct hooks_sk_info *in)
{
	ck_assert_uint_eq(s->snd_cwnd, in->snd_cwnd);
	ck_assert_uint_eq(s->snd_ssthresh, in->snd_ssthresh);
	ck_assert_uint_eq(s->srtt_us, in->srtt_us);
	ck_assert_uint_eq(s->mss_cache, in->mss_cache);
	ck_assert_uint_eq(s->rcv_nxt, in->rcv_nxt);
	ck_assert_uint_eq(s->snd_nxt, in->snd_nxt);
	ck_assert_uint_eq(s->snd_una, in->snd_una);
	ck_assert_uint_eq(s->flavor_una, in->snd_una);
	ck_assert_uint_eq(s->segs_in, in->segs_in);
	ck_assert_uint_eq(s->segs_out, in->segs_out);
	ck_assert_uint_eq(s->data_segs_in, in->data_segs_in);
	ck_assert_uint_eq(s->data_segs_out, in->data_segs_out);
	ck_assert_uint_eq(s->total_retrans, in->total_retrans);
	ck_assert_uint_eq(s->min_rtt, in->rtt_min);
	ck_assert_uint_eq(s->bytes_received, in->bytes_received);
	ck_assert_uint_eq(s->bytes_acked, in->bytes_acked);
	ck_assert_uint_eq(s->delivered, in->delivered);
	ck_assert_uint_eq(s->ecn_flags, in->ecn_flags);
	ck_assert_uint_eq(s->retransmits, in->icsk_retransmits);
	ck_assert_uint_eq(s->mark, in->sk_mark);
	ck_assert_uint_eq(s->state, in->state);
	ck_assert_uint_eq(s->family, in->family);
	ck_assert_uint_eq(s->dport, __builtin_bswap16(in->remote_port)); /* network order */
	ck_assert_uint_eq(s->num, in->local_port);			 /* host order */
	if (in->family == HOOKS_AF_INET)
		ck_assert_uint_eq(s->daddr, in->remote_ip4);
	else
		ck_assert_uint_eq(s->v6_daddr3, in->remote_ip6[3]);
	/* the queries, answered from skops's BTF */
	ck_assert_uint_eq(s->has_snd_cwnd, 1);
	ck_assert_uint_eq(s->has_app_limited, 0);
	ck_assert_uint_eq(s->app_limited, 0);
	ck_assert_uint_eq(s->has_mdev_us, 1);
	ck_assert_uint_eq(s->mdev_us, in->mdev_us);
	ck_assert_uint_eq(s->rcv_wnd, in->rcv_wnd);
	ck_assert_uint_eq(s->window_clamp, in->window_clamp);
	ck_assert_uint_eq(s->rcv_wup, in->rcv_wup);
	ck_assert_uint_eq(s->copied_seq, in->copied_seq);
	ck_assert_uint_eq(s->write_seq, in->write_seq);
	ck_assert_uint_eq(s->snd_wnd, in->snd_wnd);
	ck_assert_uint_eq(s->snd_wl1, in->snd_wl1);
	ck_assert_uint_eq(s->rcv_ssthresh, in->rcv_ssthresh);
	ck_assert_uint_eq(s->cwnd_size, 4);
	ck_assert_uint_eq(s->cwnd_off_nonzero, 1);
	ck_assert_uint_eq(s->delivered_signed, 0);
	ck_assert_uint_eq(s->cwnd_rshift, 32);
	ck_assert_uint_eq(s->cwnd_lshift, 32);
	ck_assert_uint_eq(s->tp_size, sizeof(struct hooks_k_tcp_sock));
	ck_assert_uint_eq(s->has_flavor, 1);
	ck_assert_uint_eq(s->has_udp_sock, 0);
	ck_assert_int_eq(s->probe_sk, -EFAULT);
	ck_assert_uint_eq(s->probe_sk_val, 0);
}

static void run(bool jit, uint32_t family)
{
	struct bpfvm_obj *obj;
	struct bpfvm_prog *prog;
	struct hkd_sock full, req;
	const struct core_snap *s;
	uint32_t key = 0;

	ck_assert_msg(load("core_tcp_sock", jit, &obj, &prog) == 0, "load: %s", logbuf);
	ck_assert_int_eq(cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, 0, NULL), 0);
	struct bpfvm_map *map = bpfvm_obj_map_by_name(obj, "snap");
	ck_assert_ptr_nonnull(map);

	hkd_init(&full, family, 40000, 55601, true);
	fill(&full);
	hooks_sock_init(&full.hs, hk, &hkd_ops, root, true);
	ck_assert_int_eq(hooks_call(&full.hs, HOOKS_OP_ACTIVE_ESTABLISHED_CB, NULL, 0), 0);
	s = bpfvm_map_lookup(map, &key);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->calls, 1);
	ck_assert_uint_eq(s->no_tp, 0);
	check(s, &full.info);

	/* read when the helper is called: a counter that moved shows */
	full.info.snd_cwnd = 99;
	full.info.bytes_acked = 7;
	full.info.state = HOOKS_TCP_CLOSE_WAIT;
	ck_assert_int_eq(hooks_call(&full.hs, HOOKS_OP_RTT_CB, NULL, 0), 0);
	check(s, &full.info);

	/* a request socket has no tcp_sock */
	hkd_init(&req, family, 55601, 40000, true);
	hooks_sock_init(&req.hs, hk, &hkd_ops, root, false);
	ck_assert_int_eq(hooks_call(&req.hs, HOOKS_OP_TIMEOUT_INIT, NULL, 0), 0);
	ck_assert_uint_eq(s->calls, 3);
	ck_assert_uint_eq(s->no_tp, 1);
	ck_assert_uint_eq(s->snd_cwnd, 99);

	hooks_sock_fini(&req.hs);
	hooks_sock_fini(&full.hs);
	ck_assert_int_eq(cg_detach(tree, root, CG_ATTACH_SOCK_OPS, prog), 0);
	bpfvm_prog_put(prog);
	bpfvm_obj_close(obj);
}

START_TEST(values_interp)
{
	run(false, HOOKS_AF_INET);
	run(false, HOOKS_AF_INET6);
}
END_TEST

START_TEST(values_jit)
{
	run(true, HOOKS_AF_INET);
	run(true, HOOKS_AF_INET6);
}
END_TEST

static const struct {
	const char *name;
	const char *reason;
} bad[] = {
    {"bad_core_missing", "cannot be resolved: no field 'app_limited' in struct tcp_sock"},
    {"bad_core_write", "cannot write into a kernel-typed tcp_sock"},
    {"bad_core_nocheck", "invalid mem access 'btf_ptr_or_null'"},
    {"bad_core_span", "size=8: not inside one integer field of the sock_ops BTF"},
    {"bad_core_varoff", "variable offset on btf_ptr prohibited"},
};

START_TEST(refused)
{
	assert_refused(bad[_i].name, bad[_i].reason);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compat_core");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, patched_offsets);
	tcase_add_test(tc, published_dump);
	tcase_add_test(tc, values_interp);
	tcase_add_test(tc, values_jit);
	tcase_add_loop_test(tc, refused, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
