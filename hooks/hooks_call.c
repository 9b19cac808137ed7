/* hooks: running a socket's effective sock_ops programs (the kernel's
 * tcp_call_bpf() and BPF_PROG_RUN_ARRAY), the per-call context, and the typed
 * wrappers the stack calls at each site. Read docs/sockops.md §3 and §4. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup.h"
#include "hooks_int.h"

static void hooks_cg_get(void *prog)
{
	bpfvm_prog_get(prog);
}

static void hooks_cg_put(void *prog)
{
	bpfvm_prog_put(prog);
}

static uint32_t hooks_cg_id(const void *prog)
{
	return bpfvm_prog_id(prog);
}

const struct cg_prog_ops hooks_cg_prog_ops = {
    .get = hooks_cg_get,
    .put = hooks_cg_put,
    .id = hooks_cg_id,
};

int hooks_create(const struct hooks_config *cfg, struct hooks **out)
{
	struct hooks *hk;
	int err;

	if (!cfg || !cfg->tree || !out)
		return -EINVAL;
	hk = calloc(1, sizeof(*hk));
	if (!hk)
		return -ENOMEM;
	if (cfg->lcore >= BPFVM_MAX_CPUS) {
		free(hk);
		return -EINVAL;
	}
	hk->cfg = *cfg;
	err = cg_reader_register(cfg->tree, cfg->lcore);
	if (err < 0) {
		free(hk);
		return err;
	}
	*out = hk;
	return 0;
}

void hooks_destroy(struct hooks *hk)
{
	if (!hk)
		return;
	cg_reader_unregister(hk->cfg.tree, hk->cfg.lcore);
	free(hk);
}

void hooks_bind_thread(const struct hooks *hk)
{
	bpfvm_set_cpu(hk->cfg.lcore);
}

void hooks_quiescent(struct hooks *hk)
{
	hk->plan.arr = NULL;
	cg_quiescent(hk->cfg.tree, hk->cfg.lcore);
}

void hooks_sock_init(struct hooks_sock *hs, struct hooks *hk, const struct hooks_sock_ops *ops,
		     struct cg_node *cg, bool fullsock)
{
	memset(hs, 0, sizeof(*hs));
	hs->ops = ops;
	hs->hk = hk;
	hs->cg = cg;
	if (cg)
		cg_node_get(cg);
	/* Unique among instances as long as each has its own lcore, and
	 * never 0 (Linux's cookies start at 1 too). */
	hs->cookie = ((uint64_t)(hk->cfg.lcore + 1) << 48) | ++hk->next_cookie;
	hs->fullsock = fullsock;
}

void hooks_sock_fini(struct hooks_sock *hs)
{
	if (hs->hk && hs->hk->cfg.reg)
		bpfvm_sock_release(hs->hk->cfg.reg, hs);
	if (hs->cg)
		cg_node_put(hs->cg);
	hs->cg = NULL;
}

/* An AF_INET6 socket whose connection runs on IPv4 (v4-mapped peer): Linux
 * shows the IPv4 addresses in the ip4 fields too. */
static bool hooks_info_mapped(const struct hooks_sk_info *in)
{
	const uint8_t *a = (const uint8_t *)in->remote_ip6;
	static const uint8_t pre[12] = {[10] = 0xff, [11] = 0xff};
	return memcmp(a, pre, 12) == 0;
}

/* Copy what the programs read from the socket into the context. Fields the
 * kernel shows only on full sockets stay 0 on request sockets. */
static inline __attribute__((always_inline)) void hooks_ctx_fill(struct hooks_sock_ops_view *v,
								 struct hooks_bpf_sock_view *b,
								 struct hooks_sock *hs,
								 uint32_t groups)
{
	struct hooks_sk_info in;

	if (!groups)
		return;
	/* no memset: the stack fills the groups asked for, and only those are
	 * copied below */
	hs->ops->info(hs, groups, &in);
	if (groups & HOOKS_INFO_ADDR) {
		/* the stack fills one family's addresses; the other's stay 0 */
		v->family = in.family;
		if (in.family == HOOKS_AF_INET6) {
			memcpy(v->remote_ip6, in.remote_ip6, sizeof(v->remote_ip6));
			memcpy(v->local_ip6, in.local_ip6, sizeof(v->local_ip6));
		}
		if (in.family != HOOKS_AF_INET6 || hooks_info_mapped(&in)) {
			v->remote_ip4 = in.remote_ip4;
			v->local_ip4 = in.local_ip4;
		}
		/* network-order port in the upper half: the in-memory bytes of a
		 * big-endian 32-bit word holding the port (ntohl gives it back) */
		v->remote_port = __builtin_bswap32((uint32_t)in.remote_port);
		v->local_port = in.local_port;
	}
	v->is_fullsock = hs->fullsock;
	if (hs->fullsock && (groups & HOOKS_INFO_TCP)) {
		v->snd_cwnd = in.snd_cwnd;
		v->srtt_us = in.srtt_us;
		v->state = in.state;
		v->rtt_min = in.rtt_min;
		v->snd_ssthresh = in.snd_ssthresh;
		v->rcv_nxt = in.rcv_nxt;
		v->snd_nxt = in.snd_nxt;
		v->snd_una = in.snd_una;
		v->mss_cache = in.mss_cache;
		v->ecn_flags = in.ecn_flags;
		v->rate_delivered = in.rate_delivered;
		v->rate_interval_us = in.rate_interval_us;
		v->packets_out = in.packets_out;
		v->retrans_out = in.retrans_out;
		v->total_retrans = in.total_retrans;
		v->segs_in = in.segs_in;
		v->data_segs_in = in.data_segs_in;
		v->segs_out = in.segs_out;
		v->data_segs_out = in.data_segs_out;
		v->lost_out = in.lost_out;
		v->sacked_out = in.sacked_out;
		v->bytes_received = in.bytes_received;
		v->bytes_acked = in.bytes_acked;
	}
	if (groups & HOOKS_INFO_SOCK) {
		v->sk_txhash = in.sk_txhash;
		b->family = in.family;
		b->type = in.sk_type;
		b->protocol = in.sk_protocol;
		b->mark = in.sk_mark;
		b->priority = in.sk_priority;
		if (in.family == HOOKS_AF_INET6) {
			memcpy(b->src_ip6, in.local_ip6, sizeof(b->src_ip6));
			memcpy(b->dst_ip6, in.remote_ip6, sizeof(b->dst_ip6));
		}
		if (in.family != HOOKS_AF_INET6 || hooks_info_mapped(&in)) {
			b->src_ip4 = in.local_ip4;
			b->dst_ip4 = in.remote_ip4;
		}
		b->src_port = in.local_port;
		b->dst_port = __builtin_bswap16(in.remote_port);
		b->state = in.state;
		b->rx_queue_mapping = -1;
	}
}

/* 216 bytes of vector stores: a plain memset here becomes "rep stos", whose
 * start-up cost dominated a one-program call in hooks_bench. */
static inline void hooks_view_zero(struct hooks_sock_ops_view *v)
{
	typedef uint64_t hooks_v2 __attribute__((vector_size(16), may_alias, aligned(8)));
	hooks_v2 *p = (hooks_v2 *)(void *)v;

	_Static_assert(HOOKS_CTX_SIZE == 13 * 16 + 8, "view size");
	/* spelled out: gcc turns the equivalent loop back into memset */
	p[0] = p[1] = p[2] = p[3] = p[4] = p[5] = p[6] = (hooks_v2){0, 0};
	p[7] = p[8] = p[9] = p[10] = p[11] = p[12] = (hooks_v2){0, 0};
	*(uint64_t *)(void *)(p + 13) = 0;
}

/* The view every program of a run reads, and the bpf_sock view its sk points
 * at. Linux zeroes the context before each call (tcp_call_bpf), so reply
 * starts as args[0] or 0 and unread fields read 0. */
static inline __attribute__((always_inline)) void
hooks_view_build(struct hooks_sock_ops_view *v, struct hooks_bpf_sock_view *b,
		 struct hooks_sock *hs, uint32_t groups, uint32_t op, const uint32_t *args,
		 unsigned nargs, const struct hooks_skb *skb)
{
	hooks_view_zero(v);
	v->op = op;
	if (nargs > 4)
		nargs = 4;
	for (unsigned i = 0; i < nargs; i++)
		v->args[i] = args[i];
	v->bpf_sock_ops_cb_flags = hs->fullsock ? hs->cb_flags : 0;
	if (groups & HOOKS_INFO_SOCK)
		memset(b, 0, sizeof(*b));
	hooks_ctx_fill(v, b, hs, groups);
	v->sk = (uint64_t)(uintptr_t)b;
	if (skb) {
		v->skb_data = (uint64_t)(uintptr_t)skb->hdr;
		v->skb_data_end = (uint64_t)(uintptr_t)(skb->hdr + skb->hdr_len);
		v->skb_len = skb->skb_len;
		v->skb_tcp_flags = skb->flags;
	}
}

static uint64_t hooks_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hooks_undo_note(struct hooks_ctx *ctx, int level, int optname)
{
	struct hooks_sock *hs = ctx->hs;
	if (ctx->nundo >= HOOKS_UNDO_MAX || ctx->undo_mark > ctx->nundo)
		return;
	/* an earlier program's entry is no use: it would be put back only if
	 * that program were stopped */
	for (unsigned i = ctx->undo_mark; i < ctx->nundo; i++)
		if (ctx->undo[i].level == level && ctx->undo[i].optname == optname)
			return;
	struct hooks_undo *u = &ctx->undo[ctx->nundo];
	/* names for TCP_CONGESTION and SO_BINDTODEVICE, an int otherwise */
	bool cc = level == 6 /* SOL_TCP */ && optname == 13 /* TCP_CONGESTION */;
	bool name = cc || (level == 1 /* SOL_SOCKET */ && optname == 25 /* SO_BINDTODEVICE */);
	u->len = name ? sizeof(u->val) : sizeof(int32_t);
	memset(u->val, 0, sizeof(u->val));
	if (hs->ops->getsockopt(hs, level, optname, u->val, &u->len) != 0 ||
	    u->len > sizeof(u->val))
		return;
	if (cc)
		u->len = (uint32_t)strnlen((const char *)u->val, u->len);
	if (level == 1 /* SOL_SOCKET */ && (optname == 7 || optname == 8) && u->len == 4) {
		/* SO_SNDBUF/SO_RCVBUF read back doubled (Linux sock_setsockopt
		 * stores twice what it is given): put back half */
		int32_t v;
		memcpy(&v, u->val, sizeof(v));
		v /= 2;
		memcpy(u->val, &v, sizeof(v));
	}
	u->level = level;
	u->optname = optname;
	ctx->nundo++;
}

/* A program stopped by the run-time budget: put back the options it set,
 * newest first, so the socket is as the program found it. */
static void hooks_undo(struct hooks_ctx *ctx, uint8_t mark)
{
	struct hooks_sock *hs = ctx->hs;
	while (ctx->nundo > mark) {
		const struct hooks_undo *u = &ctx->undo[--ctx->nundo];
		(void)hs->ops->setsockopt(hs, u->level, u->optname, u->val, u->len);
	}
}

/* The plan of arr, kept for the last array this instance ran. Out of line:
 * the array changes only with an attach or detach, and the loop here would
 * cost hooks_run a frame on every call. */
static __attribute__((noinline)) const struct hooks_plan *
hooks_plan_build(struct hooks *hk, const struct cg_array *arr)
{
	struct hooks_plan *pl = &hk->plan;
	uint64_t fields = 0;
	/* timing each run (stats) wants hooks_run_full's clock reads */
	bool leaf = !hk->cfg.stats && arr->n <= HOOKS_PLAN_LEAVES;
	for (uint32_t i = 0; i < arr->n; i++) {
		fields |= bpfvm_prog_ctx_fields(arr->progs[i]);
		if (leaf && !(pl->leaf[i] = bpfvm_prog_leaf_fn(arr->progs[i])))
			leaf = false;
	}
	pl->groups = hooks_fields_groups(fields);
	/* sk is a pointer to the bpf_sock view, filled when a program reads it */
	if (fields & (3ull << HOOKS_FIELD(sk)))
		pl->groups |= HOOKS_INFO_SOCK | HOOKS_INFO_ADDR | HOOKS_INFO_TCP;
	pl->nleaf = leaf ? arr->n : 0;
	pl->arr = arr;
	return pl;
}

/* Every program a JIT leaf: none calls a helper, so nothing but the view
 * changes (no option set, no callback flag, no header byte), and none can
 * be stopped by the budget. The helpers' state and the per-program undo
 * record of hooks_run_full have nothing to do; the run is the view and one
 * call per program. */
static inline __attribute__((always_inline)) int
hooks_run_leaves(const struct hooks_plan *pl, struct hooks_sock *hs, uint32_t op,
		 const uint32_t *args, unsigned nargs, const struct hooks_skb *skb,
		 uint32_t *remaining)
{
	struct {
		struct hooks_sock_ops_view view;
		struct hooks_bpf_sock_view bsk;
	} c;
	const uint32_t n = pl->nleaf;
	bool all_ok = true;

	hooks_view_build(&c.view, &c.bsk, hs, pl->groups, op, args, nargs, skb);
	const uint32_t txhash = c.view.sk_txhash;
	for (uint32_t i = 0; i < n; i++)
		/* Linux's run loop takes the program's 32-bit return value. */
		all_ok &= (uint32_t)pl->leaf[i](&c.view, HOOKS_CTX_SIZE, NULL) == 1;
	if (c.view.sk_txhash != txhash && hs->ops->set_txhash)
		hs->ops->set_txhash(hs, c.view.sk_txhash);
	/* the option space is as it was; no helper marked the data */
	if (remaining && op == HOOKS_OP_TSTAMP_SENDMSG_CB)
		*remaining = 0;
	return all_ok ? (int)c.view.reply : -1;
}

/* Any program may call helpers: the whole context, and what a program the
 * budget stops must put back. */
static __attribute__((noinline)) int hooks_run_full(const struct cg_array *arr, uint32_t groups,
						    struct hooks_sock *hs, uint32_t op,
						    const uint32_t *args, unsigned nargs,
						    const struct hooks_skb *skb,
						    uint32_t *remaining)
{
	struct hooks_ctx ctx;
	bool all_ok = true;

	hooks_view_build(&ctx.view, &ctx.bsk, hs, groups, op, args, nargs, skb);
	ctx.hs = hs;
	ctx.ktp_set = 0;
	ctx.nundo = 0;
	ctx.undo_mark = 0;
	ctx.skb = skb;
	ctx.remaining_opt_len = remaining ? *remaining : 0;
	ctx.tx_marked = 0;
	const uint32_t txhash = ctx.view.sk_txhash;

	const bool stats = hs->hk->cfg.stats;
	for (uint32_t i = 0; i < arr->n; i++) {
		struct bpfvm_prog *prog = arr->progs[i];
		uint64_t t0 = 0, r;
		/* what a program the budget stops must leave as it found it */
		const uint32_t reply = ctx.view.reply, cb_flags = hs->cb_flags;
		const uint8_t sk_cb_flags = hs->sk_cb_flags;
		const uint32_t view_cb = ctx.view.bpf_sock_ops_cb_flags;
		const uint32_t hash = ctx.view.sk_txhash, room = ctx.remaining_opt_len;
		const uint64_t data_end = ctx.view.skb_data_end;
		const uint8_t marked = ctx.tx_marked;
		/* the option space bpf_store_hdr_opt may fill (at most 40
		 * bytes): put back byte for byte if the budget stops it */
		uint8_t opt_was[40];
		const uint32_t opt_n = skb && room <= sizeof(opt_was) ? room : 0;
		if (opt_n)
			memcpy(opt_was, (const void *)(uintptr_t)data_end, opt_n);
		const uint8_t mark = ctx.nundo;
		ctx.undo_mark = mark;

		if (stats)
			t0 = hooks_now_ns();
		int stopped = bpfvm_prog_exec(prog, &ctx, HOOKS_CTX_SIZE, &r);
		if (stats)
			bpfvm_prog_add_stats(prog, 1, hooks_now_ns() - t0);
		if (stopped) {
			/* the budget stopped it: its effect on the connection is
			 * abandoned (options, callback flags, reply, txhash,
			 * option bytes) and it counts as a failed program */
			hooks_undo(&ctx, mark);
			hs->cb_flags = cb_flags;
			hs->sk_cb_flags = sk_cb_flags;
			ctx.view.bpf_sock_ops_cb_flags = view_cb;
			ctx.view.reply = reply;
			ctx.view.sk_txhash = hash;
			ctx.remaining_opt_len = room;
			ctx.view.skb_data_end = data_end;
			if (opt_n)
				memcpy((void *)(uintptr_t)data_end, opt_was, opt_n);
			ctx.tx_marked = marked;
			all_ok = false;
			continue;
		}
		/* Linux's run loop takes the program's 32-bit return value. */
		if ((uint32_t)r != 1)
			all_ok = false;
	}
	/* sk_txhash is the one writable socket field: hand a changed value on */
	if (ctx.view.sk_txhash != txhash && hs->ops->set_txhash)
		hs->ops->set_txhash(hs, ctx.view.sk_txhash);
	if (remaining)
		*remaining =
		    op == HOOKS_OP_TSTAMP_SENDMSG_CB ? ctx.tx_marked : ctx.remaining_opt_len;
	return all_ok ? (int)ctx.view.reply : -1;
}

/* The run, inlined into hooks_call (most calls: no segment, no option space)
 * and hooks_run. */
static inline __attribute__((always_inline)) int
hooks_run_inline(struct hooks_sock *hs, uint32_t op, const uint32_t *args, unsigned nargs,
		 const struct hooks_skb *skb, uint32_t *remaining)
{
	if (!hs->cg)
		return -1;
	const struct cg_array *arr = cg_effective(hs->cg, CG_ATTACH_SOCK_OPS);
	if (arr->n == 0)
		return -1;
	const struct hooks_plan *pl = &hs->hk->plan;
	if (__builtin_expect(pl->arr != arr, 0))
		pl = hooks_plan_build(hs->hk, arr);
	if (pl->nleaf)
		return hooks_run_leaves(pl, hs, op, args, nargs, skb, remaining);
	return hooks_run_full(arr, pl->groups, hs, op, args, nargs, skb, remaining);
}

int hooks_run(struct hooks_sock *hs, uint32_t op, const uint32_t *args, unsigned nargs,
	      const struct hooks_skb *skb, uint32_t *remaining)
{
	return hooks_run_inline(hs, op, args, nargs, skb, remaining);
}

int hooks_call(struct hooks_sock *hs, uint32_t op, const uint32_t *args, unsigned nargs)
{
	return hooks_run_inline(hs, op, args, nargs, NULL, NULL);
}

/* ---- call-site wrappers (docs/sockops.md §3) -------------------------------- */

int hooks_timeout_init(struct hooks_sock *hs)
{
	int r = hooks_call(hs, HOOKS_OP_TIMEOUT_INIT, NULL, 0);
	/* tcp_timeout_init(): a positive reply replaces the 1 s default; the
	 * stack caps it at its maximum RTO, in its own HZ. */
	return r > 0 ? r : -1;
}

int hooks_rwnd_init(struct hooks_sock *hs)
{
	int r = hooks_call(hs, HOOKS_OP_RWND_INIT, NULL, 0);
	return r > 0 ? r : -1;
}

bool hooks_needs_ecn(struct hooks_sock *hs)
{
	return hooks_call(hs, HOOKS_OP_NEEDS_ECN, NULL, 0) == 1;
}

void hooks_connect_cb(struct hooks_sock *hs)
{
	(void)hooks_call(hs, HOOKS_OP_TCP_CONNECT_CB, NULL, 0);
}

void hooks_active_established_cb(struct hooks_sock *hs)
{
	(void)hooks_call(hs, HOOKS_OP_ACTIVE_ESTABLISHED_CB, NULL, 0);
}

void hooks_passive_established_cb(struct hooks_sock *hs)
{
	(void)hooks_call(hs, HOOKS_OP_PASSIVE_ESTABLISHED_CB, NULL, 0);
}

void hooks_listen_cb(struct hooks_sock *hs)
{
	(void)hooks_call(hs, HOOKS_OP_TCP_LISTEN_CB, NULL, 0);
}

uint32_t hooks_base_rtt(struct hooks_sock *hs)
{
	int r = hooks_call(hs, HOOKS_OP_BASE_RTT, NULL, 0);
	return r > 0 ? (uint32_t)r : 0;
}

void hooks_rto_cb(struct hooks_sock *hs, uint32_t retransmits, uint32_t rto_jiffies,
		  uint32_t expired)
{
	const uint32_t args[3] = {retransmits, rto_jiffies, expired};

	if (hooks_cb_enabled(hs, HOOKS_CB_RTO))
		(void)hooks_call(hs, HOOKS_OP_RTO_CB, args, 3);
}

void hooks_retrans_cb(struct hooks_sock *hs, uint32_t seq, uint32_t segs, int32_t result)
{
	const uint32_t args[3] = {seq, segs, (uint32_t)result};

	if (hooks_cb_enabled(hs, HOOKS_CB_RETRANS))
		(void)hooks_call(hs, HOOKS_OP_RETRANS_CB, args, 3);
}

void hooks_state_cb(struct hooks_sock *hs, uint32_t old_state, uint32_t new_state)
{
	const uint32_t args[2] = {old_state, new_state};

	if (hooks_cb_enabled(hs, HOOKS_CB_STATE))
		(void)hooks_call(hs, HOOKS_OP_STATE_CB, args, 2);
}

void hooks_rtt_cb(struct hooks_sock *hs)
{
	if (hooks_cb_enabled(hs, HOOKS_CB_RTT))
		(void)hooks_call(hs, HOOKS_OP_RTT_CB, NULL, 0);
}

/* ---- header options (Linux's bpf_skops_parse_hdr, bpf_skops_hdr_opt_len,
 * bpf_skops_write_hdr_opt) ---- */

void hooks_parse_hdr_opt_cb(struct hooks_sock *hs, const struct hooks_skb *skb, bool unknown)
{
	if (!hooks_cb_enabled(hs, HOOKS_CB_PARSE_ALL_HDR_OPT) &&
	    !(unknown && hooks_cb_enabled(hs, HOOKS_CB_PARSE_UNKNOWN_HDR_OPT)))
		return;
	(void)hooks_run(hs, HOOKS_OP_PARSE_HDR_OPT_CB, NULL, 0, skb, NULL);
}

uint32_t hooks_hdr_opt_len(struct hooks_sock *hs, const struct hooks_skb *skb, uint32_t remaining,
			   uint32_t args0)
{
	uint32_t left = remaining;

	if (!hooks_cb_enabled(hs, HOOKS_CB_WRITE_HDR_OPT) || remaining == 0)
		return 0;
	(void)hooks_run(hs, HOOKS_OP_HDR_OPT_LEN_CB, &args0, 1, skb, &left);
	/* options are laid out in 4-byte words; the helper never lets left
	 * grow past remaining */
	uint32_t want = (remaining - left + 3) & ~3u;
	return want < remaining ? want : remaining;
}

uint32_t hooks_write_hdr_opt(struct hooks_sock *hs, const struct hooks_skb *skb, uint32_t reserved,
			     uint32_t args0)
{
	uint32_t left = reserved;

	if (!reserved)
		return 0;
	(void)hooks_run(hs, HOOKS_OP_WRITE_HDR_OPT_CB, &args0, 1, skb, &left);
	uint32_t written = reserved - left;
	/* Linux: the space the programs did not fill becomes NOPs */
	memset(skb->hdr + skb->hdr_len + written, 1 /* TCPOPT_NOP */, left);
	return written;
}

/* Linux bpf_skops_tx_timestamping: a full socket, the skb's length, no
 * header bytes (skb_data == skb_data_end). */
static const uint8_t hooks_no_hdr[1];

bool hooks_tstamp_sendmsg(struct hooks_sock *hs, uint32_t len)
{
	struct hooks_skb skb = {.hdr = (uint8_t *)(uintptr_t)hooks_no_hdr, .skb_len = len};
	uint32_t marked = 0;

	if (!(hs->sk_cb_flags & HOOKS_SK_CB_TX_TIMESTAMPING))
		return false;
	(void)hooks_run(hs, HOOKS_OP_TSTAMP_SENDMSG_CB, NULL, 0, &skb, &marked);
	return marked != 0;
}

void hooks_tstamp_cb(struct hooks_sock *hs, uint32_t op, uint32_t len)
{
	struct hooks_skb skb = {.hdr = (uint8_t *)(uintptr_t)hooks_no_hdr, .skb_len = len};

	if (!(hs->sk_cb_flags & HOOKS_SK_CB_TX_TIMESTAMPING))
		return;
	(void)hooks_run(hs, op, NULL, 0, &skb, NULL);
}
