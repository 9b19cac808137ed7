/* tcp_sockops: the call sites with the real hooks/ and the example programs
 * of hooks/progs (built by meson): TIMEOUT_INIT in jiffies of the hz setting
 * on the SYN and the SYN-ACK, RWND_INIT in the SYN / SYN-ACK window,
 * NEEDS_ECN in the SYN and SYN-ACK flags, TCP_BPF_IW as the initial flight,
 * SNDCWND_CLAMP, SO_SNDBUF/SO_RCVBUF, TCP_CONGESTION "dctcp" (and its Reno fallback),
 * the callbacks each open runs (op_count), and cb flags (cb_logger). */
#include <stdio.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "check_main.h"
#include "test_tcp_fixture.h"

#define PORT 55601

struct env {
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct cg_node *root;
	struct hooks *hk;
	struct bpfvm_obj *obj;
	char log[4096];
	uint32_t hz;
};

static struct env E;

static void with_hooks(struct tcp_config *c)
{
	c->hooks = E.hk;
	c->default_cg = E.root;
	c->hz = E.hz;
}

/* rel: the object's path under the build directory, without ".o" */
static void env_init_obj(const char *rel, uint32_t hz)
{
	memset(&E, 0, sizeof(E));
	E.hz = hz;
	ck_assert_int_eq(bpfvm_registry_create(&E.reg), 0);
	ck_assert_int_eq(cg_tree_create(&hooks_cg_prog_ops, 2, &E.tree), 0);
	struct hooks_config hc = {.tree = E.tree, .reg = E.reg, .lcore = 0, .netns_cookie = 1};
	ck_assert_int_eq(hooks_create(&hc, &E.hk), 0);
	ck_assert_int_eq(cg_lookup(E.tree, "/", false, &E.root), 0);
	const char *b = getenv("SKOPS_BUILD");
	ck_assert_msg(b != NULL, "SKOPS_BUILD unset");
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.o", b, rel);
	struct bpfvm_log log = {.level = 1, .buf = E.log, .size = sizeof(E.log)};
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type, .strict = true, .log = &log};
	struct bpfvm_prog *p = NULL;
	int err = bpfvm_obj_open(E.reg, path, NULL, 0, &log, &E.obj);
	ck_assert_msg(err == 0, "%s: %d %s", path, err, E.log);
	err = bpfvm_obj_load_prog(E.obj, NULL, &o, &p);
	ck_assert_msg(err == 0, "%s: load %d %s", path, err, E.log);
	ck_assert_int_eq(cg_attach(E.tree, E.root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL),
			 0);
	bpfvm_prog_put(p);
}

/* one of hooks/progs */
static void env_init(const char *prog, uint32_t hz)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "hooks/progs/%s", prog);
	env_init_obj(rel, hz);
}

static void env_fini(void)
{
	bpfvm_obj_close(E.obj);
	cg_node_put(E.root);
	hooks_destroy(E.hk);
	cg_tree_destroy(E.tree);
	bpfvm_registry_destroy(E.reg);
}

static uint64_t next_tx(struct fx *f, uint64_t limit)
{
	unsigned before = f->nout;
	for (int i = 0; i < 100000 && f->nout == before; i++) {
		uint64_t d = tcp_next_deadline(f->tcp);
		if (d == UINT64_MAX || d > limit)
			break;
		fx_at(f, d > f->now ? d : f->now + MS);
	}
	return f->nout > before ? f->out[before].at : 0;
}

static void syn_spacing(uint32_t hz, uint64_t rto_us)
{
	env_init("syn_rto", hz);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	fx_v6(&f, true, 0, PORT);
	struct tcb *c;
	tcp_open(f.tcp, AF_INET6, &c);
	c->sd = 0;
	uint64_t t0 = f.now;
	ck_assert_int_eq(tcp_connect(f.tcp, c, &f.t.raddr, PORT, f.now), -EINPROGRESS);
	fx_pop(&f);
	ck_assert_uint_eq(c->syn_rto_us, rto_us);
	/* linear for 4 retries after the first timeout, then doubling */
	uint64_t at = t0;
	for (unsigned k = 1; k <= 6; k++) { /* tcp_syn_retries */
		uint64_t tx = next_tx(&f, t0 + 100000 * MS);
		at += (k <= 5 ? 1 : 1u << (k - 5)) * rto_us * 1000;
		ck_assert_msg(tx == at, "retransmission %u at %llu us, want %llu", k,
			      (unsigned long long)((tx - t0) / 1000),
			      (unsigned long long)((at - t0) / 1000));
		fx_pop(&f);
	}
	fx_fini(&f);
	env_fini();
}

START_TEST(timeout_init_hz1000)
{
	syn_spacing(1000, 10000); /* 10 jiffies = 10 ms */
}
END_TEST

START_TEST(timeout_init_hz250)
{
	syn_spacing(250, 40000); /* the kernel's HZ here: 40 ms */
}
END_TEST

START_TEST(timeout_init_synack_and_far_default)
{
	env_init("syn_rto", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	fx_v6(&f, true, PORT, 40000);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET6, &l);
	uint8_t any[16] = {0};
	tcp_bind(f.tcp, l, any, PORT);
	tcp_listen(f.tcp, l, 4, f.now);
	uint64_t t0 = f.now;
	struct tcp_repr syn = fx_repr(1, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	ck_assert_uint_eq((next_tx(&f, t0 + 10000 * MS) - t0) / 1000, 10000);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq((next_tx(&f, t0 + 10000 * MS) - t0) / 1000, 30000); /* doubling */
	fx_pop(&f);
	/* a far peer: no opinion → 1 s */
	f.t.raddr.v6[1] = 0x99;
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	struct tcb *r = tcp_hash_find(f.tcp, &f.t);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->syn_rto_us, 1000000);
	ck_assert(!r->hs.fullsock); /* the passive calls ran on a request */
	fx_fini(&f);
	env_fini();
}
END_TEST

START_TEST(rwnd_init_windows)
{
	env_init("rwnd_init", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	fx_v6(&f, false, 0, PORT);
	struct tcb *c;
	tcp_open(f.tcp, AF_INET6, &c);
	tcp_connect(f.tcp, c, &f.t.raddr, PORT, f.now);
	ck_assert_uint_eq(fx_pop(&f)->r.window, 40 * 1440); /* MSS 1440 over IPv6 */
	/* passive with timestamps: 40 × (1440 - 12) */
	fx_v6(&f, false, PORT, 40001);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET6, &l);
	uint8_t any[16] = {0};
	tcp_bind(f.tcp, l, any, PORT);
	tcp_listen(f.tcp, l, 4, f.now);
	struct tcp_repr syn = fx_repr(1, 0, TCP_SYN, 65535);
	syn.ts = true;
	syn.tsval = 9;
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.window, 40 * 1428);
	/* a nearby peer keeps the default */
	fx_v6(&f, true, PORT, 40002);
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.window, 45 * 1428);
	fx_fini(&f);
	env_fini();
}
END_TEST

START_TEST(needs_ecn_and_dctcp)
{
	env_init("cong_ecn", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	fx_v6(&f, true, 0, PORT);
	struct tcb *c;
	tcp_open(f.tcp, AF_INET6, &c);
	tcp_connect(f.tcp, c, &f.t.raddr, PORT, f.now);
	f.t = c->t;
	struct fx_seg *s = fx_pop(&f);
	ck_assert_uint_eq(s->r.flags, TCP_SYN | TCP_ECE | TCP_CWR);
	struct tcp_repr sa = fx_repr(1, s->r.seq + 1, TCP_SYN | TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &sa, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_ACK);
	ck_assert(c->flags & TCB_F_ECN);
	/* the program's TCP_CONGESTION "dctcp" took effect with ECN on */
	ck_assert_str_eq(c->cc.ops->name, "dctcp");
	ck_assert_int_eq(cc_dctcp_alpha(c), 1024); /* dctcp_alpha_on_init */
	/* passive: the SYN asks, NEEDS_ECN says yes → ECE in the SYN-ACK */
	fx_v6(&f, true, PORT, 40003);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET6, &l);
	uint8_t any[16] = {0};
	tcp_bind(f.tcp, l, any, PORT);
	tcp_listen(f.tcp, l, 4, f.now);
	struct tcp_repr syn = fx_repr(1, 0, TCP_SYN | TCP_ECE | TCP_CWR, 65535);
	fx_send(&f, &syn, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK | TCP_ECE);
	/* a SYN that does not ask gets no ECE */
	fx_v6(&f, true, PORT, 40004);
	struct tcp_repr plain = fx_repr(1, 0, TCP_SYN, 65535);
	fx_send(&f, &plain, NULL, 0);
	struct fx_seg *psa = fx_pop(&f);
	ck_assert_uint_eq(psa->r.flags, TCP_SYN | TCP_ACK);
	/* established without ECN, the program's "dctcp" falls back to Reno
	 * under Linux's name for it */
	struct tcp_repr pa = fx_repr(2, psa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &pa, NULL, 0);
	struct tcb *pc = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(pc);
	ck_assert(!(pc->flags & TCB_F_ECN));
	ck_assert_str_eq(pc->cc.ops->name, "dctcp-reno");
	ck_assert_int_eq(cc_dctcp_alpha(pc), -1);
	fx_fini(&f);
	env_fini();
}
END_TEST

START_TEST(init_cwnd_flight)
{
	static uint8_t data[100000];
	env_init("init_cwnd", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	f.t.rport = PORT;
	struct tcb *c = fx_active(&f, false);
	ck_assert_uint_eq(c->cc.cwnd, 40);
	int one = 1, big = 200000;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	tcp_setsockopt(c, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big), false);
	tcp_send(f.tcp, c, data, sizeof(data), f.now);
	unsigned n = 0;
	while (f.next < f.nout) {
		ck_assert_uint_gt(fx_pop(&f)->len, 0);
		n++;
	}
	ck_assert_uint_eq(n, 40); /* the initial flight before the first ACK */
	int v = 10;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_IW, &v, sizeof(v), true), -EINVAL);
	fx_fini(&f);
	env_fini();
}
END_TEST

START_TEST(cwnd_clamp_and_bufs)
{
	env_init("cwnd_clamp", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	fx_v6(&f, true, 0, PORT);
	struct tcb *c = fx_active(&f, false);
	ck_assert_uint_eq(c->cc.cwnd_clamp, 100);
	ck_assert_uint_eq(c->cc.ssthresh, 100);
	fx_fini(&f);
	env_fini();

	env_init("bufs", 1000);
	fx_init_cfg(&f, with_hooks);
	f.t.rport = PORT;
	c = fx_active(&f, false);
	ck_assert_uint_eq(c->sndbuf, 3000000);
	ck_assert_uint_eq(c->rcvbuf, 3000000);
	ck_assert(c->flags & TCB_F_SNDBUF_LOCK);
	fx_fini(&f);
	env_fini();
}
END_TEST

struct op_counts {
	uint64_t n[16];
};

START_TEST(op_count_each_open)
{
	env_init("op_count", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	f.t.rport = PORT;
	struct tcb *c = fx_active(&f, false);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(E.obj, "op_count_map");
	ck_assert_ptr_nonnull(m);
	struct op_counts *oc = bpfvm_map_lookup(m, &c->hs.cookie);
	ck_assert_ptr_nonnull(oc);
	/* CONNECT_CB, RWND_INIT, TIMEOUT_INIT, NEEDS_ECN, ACTIVE_ESTABLISHED_CB once each */
	static const uint64_t active[16] = {[1] = 1, [2] = 1, [3] = 1, [4] = 1, [6] = 1};
	for (int i = 0; i < 16; i++)
		ck_assert_msg(oc->n[i] == active[i], "active op %d: %llu", i,
			      (unsigned long long)oc->n[i]);
	/* passive: LISTEN_CB on the listener; RWND_INIT, TIMEOUT_INIT and
	 * NEEDS_ECN for the one SYN-ACK on the request (the SYN did not ask
	 * for ECN, so Linux's first NEEDS_ECN is not made); then
	 * PASSIVE_ESTABLISHED_CB on the child */
	fx_v6(&f, false, 80, 40000);
	struct tcb *l;
	struct tcb *p = fx_passive(&f, false, &l);
	oc = bpfvm_map_lookup(m, &l->hs.cookie);
	ck_assert_ptr_nonnull(oc);
	ck_assert_uint_eq(oc->n[11], 1);
	oc = bpfvm_map_lookup(m, &p->hs.cookie);
	ck_assert_ptr_nonnull(oc);
	static const uint64_t passive[16] = {[1] = 1, [2] = 1, [5] = 1, [6] = 1};
	for (int i = 0; i < 16; i++)
		ck_assert_msg(oc->n[i] == passive[i], "passive op %d: %llu", i,
			      (unsigned long long)oc->n[i]);
	fx_fini(&f);
	env_fini();
}
END_TEST

static void hooks_ecn0(struct tcp_config *c)
{
	with_hooks(c);
	c->ecn_set = true;
	c->ecn = 0;
}

/* NEEDS_ECN calls on the request for a SYN that asks for ECN: Linux's
 * tcp_ecn_create_request asks the program only when tcp_ecn has not
 * agreed already; the per-SYN-ACK call (ECT on the SYN-ACK) is made
 * either way. */
static uint64_t needs_ecn_calls(void (*fn)(struct tcp_config *), uint8_t *synack_flags)
{
	env_init("op_count", 1000);
	struct fx f;
	fx_init_cfg(&f, fn);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	struct tcp_repr syn = fx_repr(1, 0, TCP_SYN | TCP_ECE | TCP_CWR, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	*synack_flags = sa->r.flags;
	struct tcp_repr a = fx_repr(2, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(E.obj, "op_count_map");
	struct op_counts *oc = bpfvm_map_lookup(m, &c->hs.cookie);
	ck_assert_ptr_nonnull(oc);
	uint64_t n = oc->n[6];
	fx_fini(&f);
	env_fini();
	return n;
}

START_TEST(needs_ecn_after_tcp_ecn)
{
	uint8_t fl;
	/* op_count replies 0: tcp_ecn 2 agrees alone, the program is asked
	 * once (the SYN-ACK's ECT) */
	ck_assert_uint_eq(needs_ecn_calls(with_hooks, &fl), 1);
	ck_assert_uint_eq(fl, TCP_SYN | TCP_ACK | TCP_ECE);
	/* tcp_ecn 0: the program decides (twice asked, 0 → no ECN) */
	ck_assert_uint_eq(needs_ecn_calls(hooks_ecn0, &fl), 2);
	ck_assert_uint_eq(fl, TCP_SYN | TCP_ACK);
}
END_TEST

START_TEST(cb_flags_state_rto)
{
	env_init("cb_logger", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_uint_eq(c->hs.cb_flags, HOOKS_CB_RTO | HOOKS_CB_RETRANS | HOOKS_CB_STATE);
	tcp_send(f.tcp, c, "x", 1, f.now);
	fx_at(&f, f.now + 300 * MS);		    /* RTO_CB + RETRANS_CB */
	tcp_shutdown(f.tcp, c, false, true, f.now); /* STATE_CB */
	char buf[1024];
	size_t n = hooks_trace_read(E.hk, buf, sizeof(buf) - 1);
	buf[n] = 0;
	ck_assert_msg(strstr(buf, "cb op 8 ") != NULL, "no RTO_CB in: %s", buf);
	ck_assert_msg(strstr(buf, "cb op 9 ") != NULL, "no RETRANS_CB in: %s", buf);
	ck_assert_msg(strstr(buf, "cb op 10 args 1 4") != NULL, "no STATE_CB 1→4 in: %s", buf);
	fx_fini(&f);
	env_fini();
}
END_TEST

/* An IPv4 peer of an AF_INET6 listener: the programs see the socket as
 * Linux shows a v4-mapped one, family AF_INET6 with ::ffff:a.b.c.d in the
 * ip6 fields (syn_rto.o finds such peers "nearby": the first 44 bits are
 * equal) and the IPv4 addresses in the ip4 fields; the same SYN to an
 * AF_INET listener is AF_INET (no opinion, 1 s). */
START_TEST(v4_mapped_child_family)
{
	env_init("syn_rto", 1000);
	for (int fam = AF_INET6; fam;) {
		struct fx f;
		fx_init_cfg(&f, with_hooks);
		f.t.lport = PORT;
		struct tcb *l;
		ck_assert_int_eq(tcp_open(f.tcp, fam, &l), 0);
		uint8_t any[16] = {0};
		ck_assert_int_eq(tcp_bind(f.tcp, l, any, PORT), 0);
		ck_assert_int_eq(tcp_listen(f.tcp, l, 4, f.now), 0);
		struct tcp_repr syn = fx_repr(1, 0, TCP_SYN, 65535);
		syn.dport = PORT;
		fx_send(&f, &syn, NULL, 0);
		ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_SYN | TCP_ACK);
		struct tcb *r = tcp_hash_find(f.tcp, &f.t);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->t.family, AF_INET);
		ck_assert_uint_eq(r->syn_rto_us, fam == AF_INET6 ? 10000 : 1000000);
		struct hooks_sk_info in;
		memset(&in, 0, sizeof(in));
		tcp_hooks_ops.info(&r->hs, HOOKS_INFO_ADDR, &in);
		ck_assert_uint_eq(in.family, fam);
		ck_assert_uint_eq(in.remote_ip4, inet_addr("10.0.0.2"));
		ck_assert_uint_eq(in.local_ip4, inet_addr("10.0.0.1"));
		if (fam == AF_INET6) {
			uint8_t want[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 2};
			ck_assert_mem_eq(in.remote_ip6, want, 16);
			want[15] = 1;
			ck_assert_mem_eq(in.local_ip6, want, 16);
		}
		fx_fini(&f);
		fam = fam == AF_INET6 ? AF_INET : 0;
	}
	env_fini();
}
END_TEST

/* What bpf_skc_to_tcp_sock shows beyond bpf_tcp_sock (Linux's meanings):
 * write_seq and copied_seq follow what the application wrote and has not
 * read, rcv_wup/rcv_wnd the last window advertised, window_clamp the largest
 * window the scale can say, mdev_us the RTT deviation × 4, a queued FIN in
 * write_seq and a received one not in copied_seq. */
START_TEST(tcp_sock_fields)
{
	env_init("syn_rto", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	struct tcb *c = fx_active(&f, true);
	uint8_t buf[3000] = {0};
	struct hooks_sk_info in;
	memset(&in, 0, sizeof(in));
	tcp_hooks_ops.info(&c->hs, HOOKS_INFO_TCP, &in);
	ck_assert_uint_eq(in.write_seq, c->send.iss + 1);
	ck_assert_uint_eq(in.copied_seq, FX_PEER_ISN + 1);
	ck_assert_uint_eq(in.window_clamp, 65535u << c->rcv_wscale);
	ck_assert_uint_eq(in.mdev_us, c->rtt.rttvar_us4);
	ck_assert_uint_gt(in.mdev_us, 0);
	ck_assert_uint_eq(in.snd_wnd, 65535); /* the SYN-ACK's, never scaled */

	ck_assert_int_eq(tcp_send(f.tcp, c, buf, 1000, f.now), 1000);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.una, TCP_ACK | TCP_PSH, 1024);
	d.ts = true;
	d.tsval = 200;
	d.tsecr = c->recv.ts_recent;
	fx_send(&f, &d, buf, 700);
	f.peer_seq += 700;
	f.next = f.nout; /* what went out meanwhile does not matter here */
	memset(&in, 0, sizeof(in));
	tcp_hooks_ops.info(&c->hs, HOOKS_INFO_TCP, &in);
	ck_assert_uint_eq(in.write_seq, c->send.iss + 1 + 1000);
	ck_assert_uint_eq(in.rcv_nxt, FX_PEER_ISN + 1 + 700);
	ck_assert_uint_eq(in.copied_seq, FX_PEER_ISN + 1); /* not read yet */
	ck_assert_uint_eq(in.rcv_wnd, c->recv.wnd);
	ck_assert_uint_eq(in.rcv_wup + in.rcv_wnd, c->recv.adv);
	ck_assert_uint_eq(in.snd_wl1, FX_PEER_ISN + 1);
	ck_assert_uint_eq(in.rcv_ssthresh, c->recv.ssthresh);

	ck_assert_int_eq(tcp_recv(f.tcp, c, buf, 300, false, f.now), 300);
	struct tcp_repr fin = fx_repr(f.peer_seq, c->send.una, TCP_ACK | TCP_FIN, 1024);
	fin.ts = true;
	fin.tsval = 201;
	fin.tsecr = c->recv.ts_recent;
	fx_send(&f, &fin, NULL, 0);
	ck_assert_int_eq(tcp_shutdown(f.tcp, c, false, true, f.now), 0);
	memset(&in, 0, sizeof(in));
	tcp_hooks_ops.info(&c->hs, HOOKS_INFO_TCP, &in);
	ck_assert_uint_eq(in.copied_seq, FX_PEER_ISN + 1 + 300);
	ck_assert_uint_eq(in.write_seq, c->send.iss + 1 + 1000 + 1);
	fx_fini(&f);
	env_fini();
}
END_TEST

/* An IPv4 listener on port 80 whose SYN queue one request fills: the next
 * SYN is answered with a cookie. */
static struct tcb *listen_backlog1(struct fx *f)
{
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f->tcp, AF_INET, &l), 0);
	uint32_t any = 0;
	ck_assert_int_eq(tcp_bind(f->tcp, l, &any, 80), 0);
	ck_assert_int_eq(tcp_listen(f->tcp, l, 1, f->now), 0);
	l->sd = 0;
	return l;
}

/* A SYN cookie (docs/sockops.md, call order): the SYN's request gets
 * RWND_INIT and NEEDS_ECN for its SYN-ACK but no TIMEOUT_INIT, and the
 * child the cookie makes gets PASSIVE_ESTABLISHED_CB and nothing else. */
START_TEST(op_count_syncookie)
{
	env_init("op_count", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	struct tcb *l = listen_backlog1(&f);
	/* a request fills the SYN queue; the next SYN gets a cookie */
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	f.t.rport = 40000;
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	f.t.rport = 40001;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 1);
	struct tcp_repr ack = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &ack, NULL, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->t.rport, 40001);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(E.obj, "op_count_map");
	ck_assert_ptr_nonnull(m);
	struct op_counts *oc = bpfvm_map_lookup(m, &c->hs.cookie);
	ck_assert_ptr_nonnull(oc);
	static const uint64_t child[16] = {[5] = 1};
	for (int i = 0; i < 16; i++)
		ck_assert_msg(oc->n[i] == child[i], "cookie child op %d: %llu", i,
			      (unsigned long long)oc->n[i]);
	/* every socket the program saw: the listener, the request, the
	 * cookie's request and the child; TIMEOUT_INIT for the request only */
	uint64_t key, *prev = NULL, timeout_init = 0;
	bool cookie_req = false;
	unsigned n = 0;
	while (bpfvm_map_get_next_key(m, prev, &key) == 0 && n < 16) {
		prev = &key;
		n++;
		oc = bpfvm_map_lookup(m, &key);
		ck_assert_ptr_nonnull(oc);
		timeout_init += oc->n[1];
		static const uint64_t req[16] = {[2] = 1, [6] = 1};
		if (!memcmp(oc->n, req, sizeof(req)))
			cookie_req = true;
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(timeout_init, 1);
	ck_assert_msg(cookie_req, "no socket with RWND_INIT and NEEDS_ECN only");
	fx_fini(&f);
	env_fini();
}
END_TEST

/* The SYN-ACK of a SYN cookie runs the header-option callbacks with args[0]
 * 2 (BPF_WRITE_HDR_TCP_SYNACK_COOKIE), a request's with 0, as Linux's
 * tcp_synack_options for TCP_SYNACK_COOKIE / TCP_SYNACK_NORMAL. */
START_TEST(hdr_opt_syncookie_arg0)
{
	env_init_obj("test/unit/stack/hdr_opt_arg0", 1000);
	struct fx f;
	fx_init_cfg(&f, with_hooks);
	(void)listen_backlog1(&f);
	struct bpfvm_map *m = bpfvm_obj_map_by_name(E.obj, "synack_arg0");
	ck_assert_ptr_nonnull(m);
	struct arg0_counts {
		uint32_t len_cbs, write_cbs;
	} * c[4];
	for (uint32_t k = 0; k < 4; k++) {
		c[k] = bpfvm_map_lookup(m, &k);
		ck_assert_ptr_nonnull(c[k]);
	}
	/* a request: its SYN-ACK carries the 4 reserved bytes (NOPs) */
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	f.t.rport = 40000;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags & (TCP_SYN | TCP_ACK), TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 0);
	ck_assert_uint_eq(c[0]->len_cbs, 1);
	ck_assert_uint_eq(c[0]->write_cbs, 1);
	ck_assert_uint_eq(c[2]->len_cbs + c[2]->write_cbs, 0);
	/* the SYN queue is full: the next SYN is answered with a cookie */
	f.t.rport = 40001;
	fx_send(&f, &syn, NULL, 0);
	sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags & (TCP_SYN | TCP_ACK), TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(f.tcp->stats.syncookies_sent, 1);
	ck_assert_uint_eq(c[2]->len_cbs, 1);
	ck_assert_uint_eq(c[2]->write_cbs, 1);
	ck_assert_uint_eq(c[0]->len_cbs, 1);
	ck_assert_uint_eq(c[0]->write_cbs, 1);
	ck_assert_uint_eq(c[1]->len_cbs + c[1]->write_cbs + c[3]->len_cbs + c[3]->write_cbs, 0);
	fx_fini(&f);
	env_fini();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_sockops");
	TCase *tc = tcase_create("sockops");
	tcase_add_test(tc, timeout_init_hz1000);
	tcase_add_test(tc, timeout_init_hz250);
	tcase_add_test(tc, timeout_init_synack_and_far_default);
	tcase_add_test(tc, rwnd_init_windows);
	tcase_add_test(tc, v4_mapped_child_family);
	tcase_add_test(tc, needs_ecn_and_dctcp);
	tcase_add_test(tc, needs_ecn_after_tcp_ecn);
	tcase_add_test(tc, init_cwnd_flight);
	tcase_add_test(tc, cwnd_clamp_and_bufs);
	tcase_add_test(tc, op_count_each_open);
	tcase_add_test(tc, op_count_syncookie);
	tcase_add_test(tc, hdr_opt_syncookie_arg0);
	tcase_add_test(tc, cb_flags_state_rto);
	tcase_add_test(tc, tcp_sock_fields);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
