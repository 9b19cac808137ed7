/* hooks: the helpers only sock_ops programs get (docs/sockops.md §5): setsockopt/
 * getsockopt through the socket interface, callback flags, cookies, socket
 * storage, perf output and trace_printk into the hooks instance's log.
 * Behaviour follows Linux's net/core/filter.c (bpf_sock_ops_setsockopt and
 * friends); where 6.1 and 4.13 differ docs/sockops.md says which we took. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hooks_int.h"

#define HK_SOL_IP	   0
#define HK_SOL_SOCKET	   1
#define HK_SOL_TCP	   6
#define HK_SOL_IPV6	   41
#define HK_TCP_CONGESTION  13
#define HK_TCP_SAVED_SYN   28
#define HK_SO_BINDTODEVICE 25
#define HK_CA_NAME_MAX	   16 /* TCP_CA_NAME_MAX, with the NUL */

/* The int-valued options of the §5 table, per level. */
static const int hooks_sol_socket_opts[] = {2 /* SO_REUSEADDR */,
					    7 /* SO_SNDBUF */,
					    8 /* SO_RCVBUF */,
					    9 /* SO_KEEPALIVE */,
					    12 /* SO_PRIORITY */,
					    15 /* SO_REUSEPORT */,
					    18 /* SO_RCVLOWAT */,
					    36 /* SO_MARK */,
					    47 /* SO_MAX_PACING_RATE */,
					    62 /* SO_BINDTOIFINDEX */,
					    74 /* SO_TXREHASH */};
static const int hooks_sol_tcp_opts[] = {
    1 /* TCP_NODELAY */,       2 /* TCP_MAXSEG */,
    4 /* TCP_KEEPIDLE */,      5 /* TCP_KEEPINTVL */,
    6 /* TCP_KEEPCNT */,       7 /* TCP_SYNCNT */,
    10 /* TCP_WINDOW_CLAMP */, 16 /* TCP_THIN_LINEAR_TIMEOUTS */,
    18 /* TCP_USER_TIMEOUT */, 25 /* TCP_NOTSENT_LOWAT */,
    27 /* TCP_SAVE_SYN */,     HOOKS_TCP_IW,
    HOOKS_TCP_SNDCWND_CLAMP,   HOOKS_TCP_DELACK_MAX,
    HOOKS_TCP_RTO_MIN};

static bool hooks_in(const int *tab, size_t n, int v)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i] == v)
			return true;
	return false;
}
#define HOOKS_IN(tab, v) hooks_in(tab, sizeof(tab) / sizeof(tab[0]), v)

static struct hooks_sock *hooks_ctx_sock(uint64_t r1)
{
	return ((struct hooks_ctx *)(uintptr_t)r1)->hs;
}

/* Linux is_locked_tcp_sock_ops (6.14): the TSTAMP_* ops run without the
 * socket lock, so the helpers that change or read the socket refuse there
 * with -EOPNOTSUPP, before any other check. */
static bool hooks_locked_op(uint64_t r1)
{
	return ((const struct hooks_ctx *)(uintptr_t)r1)->view.op <= HOOKS_OP_WRITE_HDR_OPT_CB;
}

static uint32_t hooks_sock_family(const struct hooks_sock *hs)
{
	struct hooks_sk_info info;

	memset(&info, 0, sizeof(info));
	hs->ops->info(hs, HOOKS_INFO_ADDR, &info);
	return info.family;
}

/* Is (level, optname) in the int-valued part of the table for this socket?
 * SOL_IP needs an IPv4 socket and SOL_IPV6 an IPv6 one, as in Linux. */
static bool hooks_int_opt(const struct hooks_sock *hs, int level, int optname)
{
	switch (level) {
	case HK_SOL_SOCKET:
		return HOOKS_IN(hooks_sol_socket_opts, optname);
	case HK_SOL_TCP:
		return HOOKS_IN(hooks_sol_tcp_opts, optname);
	case HK_SOL_IP:
		return optname == 1 /* IP_TOS */ && hooks_sock_family(hs) == HOOKS_AF_INET;
	case HK_SOL_IPV6:
		return (optname == 67 /* IPV6_TCLASS */ ||
			optname == 70 /* IPV6_AUTOFLOWLABEL */) &&
		       hooks_sock_family(hs) == HOOKS_AF_INET6;
	default:
		return false;
	}
}

static bool hooks_cb_opt(int level, int optname)
{
	return level == HK_SOL_TCP && optname == HOOKS_TCP_SOCK_OPS_CB_FLAGS;
}

/* Linux sk_bpf_set_get_cb_flags (6.14): an int at SOL_SOCKET, bits outside
 * SK_BPF_CB_MASK refused; it belongs to the socket, not to TCP. */
static bool hooks_sk_cb_opt(int level, int optname)
{
	return level == HK_SOL_SOCKET && optname == HOOKS_SK_BPF_CB_FLAGS;
}

static void hooks_set_cb_flags(struct hooks_sock *hs, uint64_t r1, uint32_t flags)
{
	hs->cb_flags = flags;
	/* the running program reads the new value too, as Linux's ctx rewrite
	 * reads tp->bpf_sock_ops_cb_flags live */
	((struct hooks_ctx *)(uintptr_t)r1)->view.bpf_sock_ops_cb_flags = flags;
}

/* Every socket change a program makes goes through here: the hook can then
 * put the old value back if the run-time budget stops the program. */
static int hooks_apply(uint64_t r1, int level, int optname, const void *val, uint32_t len)
{
	struct hooks_ctx *ctx = (struct hooks_ctx *)(uintptr_t)r1;
	hooks_undo_note(ctx, level, optname);
	return ctx->hs->ops->setsockopt(ctx->hs, level, optname, val, len);
}

static int hooks_do_setsockopt(uint64_t r1, int level, int optname, const void *optval,
			       int64_t optlen)
{
	struct hooks_sock *hs = hooks_ctx_sock(r1);
	char name[HK_CA_NAME_MAX];
	int32_t val;

	if (!hooks_locked_op(r1))
		return -EOPNOTSUPP;
	if (!hs->fullsock || optlen < 0)
		return -EINVAL;
	if (level == HK_SOL_TCP && optname == HK_TCP_CONGESTION) {
		/* Linux copies at most TCP_CA_NAME_MAX - 1 bytes and stops at a NUL. */
		size_t n = (size_t)optlen < sizeof(name) - 1 ? (size_t)optlen : sizeof(name) - 1;
		if (optlen < 1)
			return -EINVAL;
		memcpy(name, optval, n);
		name[n] = '\0';
		return hooks_apply(r1, level, optname, name, (uint32_t)strlen(name));
	}
	/* Linux sol_socket_sockopt: a device name of any length (the socket
	 * reads at most IFNAMSIZ - 1 bytes of it); set only. */
	if (level == HK_SOL_SOCKET && optname == HK_SO_BINDTODEVICE)
		return hooks_apply(r1, level, optname, optval, (uint32_t)optlen);
	if (optlen != sizeof(val))
		return -EINVAL;
	memcpy(&val, optval, sizeof(val));
	if (hooks_cb_opt(level, optname)) {
		if ((uint32_t)val & ~HOOKS_CB_ALL)
			return -EINVAL;
		hooks_set_cb_flags(hs, r1, (uint32_t)val);
		return 0;
	}
	if (hooks_sk_cb_opt(level, optname)) {
		if ((uint32_t)val & ~HOOKS_SK_CB_MASK)
			return -EINVAL;
		hs->sk_cb_flags = (uint8_t)val;
		return 0;
	}
	if (!hooks_int_opt(hs, level, optname))
		return -EINVAL;
	/* Linux: "val <= 0" is refused for both, before touching the socket. */
	if (level == HK_SOL_TCP &&
	    (optname == HOOKS_TCP_IW || optname == HOOKS_TCP_SNDCWND_CLAMP) && val <= 0)
		return -EINVAL;
	return hooks_apply(r1, level, optname, &val, sizeof(val));
}

static uint64_t hooks_setsockopt(uint64_t r1, uint64_t level, uint64_t optname, uint64_t optval,
				 uint64_t optlen, struct bpfvm_run *run)
{
	(void)run;
	return (uint64_t)(int64_t)hooks_do_setsockopt(r1, (int)level, (int)optname,
						      (const void *)(uintptr_t)optval,
						      (int64_t)(int32_t)optlen);
}

/* Linux bpf_sock_ops_get_syn: the SYN's headers (TCP_BPF_SYN: the TCP header,
 * _IP: from the IP header, _MAC: from the Ethernet header) from the SYN a
 * SYN-ACK being written answers, else the one TCP_SAVE_SYN kept. The answer
 * is their length; a short buffer gets what fits and -ENOSPC; the rest of
 * the buffer is zeroed. */
static int hooks_get_syn(uint64_t r1, int optname, void *optval, uint32_t optlen)
{
	const struct hooks_ctx *ctx = (const struct hooks_ctx *)(uintptr_t)r1;
	struct hooks_sock *hs = ctx->hs;
	uint32_t n = optlen;
	if (hs->ops->getsockopt(hs, HK_SOL_TCP, optname, optval, &n) < 0) {
		/* Only the TCP header of the SYN in hand is known here. */
		if (optname != HOOKS_TCP_SYN || !ctx->skb || !ctx->skb->syn)
			return -ENOENT;
		n = ctx->skb->syn_len;
		memcpy(optval, ctx->skb->syn, n < optlen ? n : optlen);
	}
	if (n > optlen)
		return -ENOSPC;
	memset((uint8_t *)optval + n, 0, optlen - n);
	return (int)n;
}

static int hooks_do_getsockopt(uint64_t r1, int level, int optname, void *optval, int64_t optlen)
{
	struct hooks_sock *hs = hooks_ctx_sock(r1);
	uint32_t len = (uint32_t)optlen;
	int32_t val = 0;
	int err;

	if (!hooks_locked_op(r1))
		return -EOPNOTSUPP;
	if (!hs->fullsock || optlen <= 0)
		return -EINVAL;
	if (level == HK_SOL_TCP && optname == HK_TCP_CONGESTION) {
		err = hs->ops->getsockopt(hs, level, optname, optval, &len);
		if (err == 0)
			((char *)optval)[optlen - 1] = '\0'; /* BPF wants a C string */
		return err;
	}
	if (level == HK_SOL_TCP && optname >= HOOKS_TCP_SYN && optname <= HOOKS_TCP_SYN_MAC)
		return hooks_get_syn(r1, optname, optval, len);
	if (level == HK_SOL_TCP && optname == HK_TCP_SAVED_SYN) {
		/* Linux sol_tcp_sockopt: the first optlen bytes of the saved
		 * headers, as kept (from the Ethernet or the IP header), no
		 * more than there are; the SYN stays saved. */
		if (hs->ops->getsockopt(hs, level, HOOKS_TCP_SYN_MAC, optval, &len) < 0) {
			len = (uint32_t)optlen;
			if (hs->ops->getsockopt(hs, level, HOOKS_TCP_SYN_IP, optval, &len) < 0)
				return -EINVAL;
		}
		return (uint32_t)optlen > len ? -EINVAL : 0;
	}
	if (optlen != sizeof(val))
		return -EINVAL;
	if (hooks_cb_opt(level, optname)) {
		val = (int32_t)hs->cb_flags;
		memcpy(optval, &val, sizeof(val));
		return 0;
	}
	if (hooks_sk_cb_opt(level, optname)) {
		val = (int32_t)hs->sk_cb_flags;
		memcpy(optval, &val, sizeof(val));
		return 0;
	}
	/* The TCP_BPF_* knobs are write-only in Linux. */
	if (level == HK_SOL_TCP && optname >= HOOKS_TCP_IW && optname <= HOOKS_TCP_RTO_MIN)
		return -EINVAL;
	if (!hooks_int_opt(hs, level, optname))
		return -EINVAL;
	len = sizeof(val);
	err = hs->ops->getsockopt(hs, level, optname, &val, &len);
	if (err == 0)
		memcpy(optval, &val, sizeof(val));
	return err;
}

static uint64_t hooks_getsockopt(uint64_t r1, uint64_t level, uint64_t optname, uint64_t optval,
				 uint64_t optlen, struct bpfvm_run *run)
{
	void *p = (void *)(uintptr_t)optval;
	int64_t n = (int64_t)(int32_t)optlen;
	int err;

	(void)run;
	/* The contract (UNINIT_WRITE) says every byte of optval is written: the
	 * answer, then zeros (Linux's strncpy of TCP_CONGESTION pads the same
	 * way), so nothing the stack held before survives past it. */
	if (n > 0)
		memset(p, 0, (size_t)n);
	err = hooks_do_getsockopt(r1, (int)level, (int)optname, p, n);
	/* Linux zeroes the buffer on failure so the program never reads stale
	 * stack bytes as an answer; a SYN too long for it keeps what fit. */
	if (err < 0 && n > 0 && err != -ENOSPC)
		memset(p, 0, (size_t)n);
	return (uint64_t)(int64_t)err;
}

static uint64_t hooks_cb_flags_set(uint64_t r1, uint64_t flags, uint64_t r3, uint64_t r4,
				   uint64_t r5, struct bpfvm_run *run)
{
	struct hooks_sock *hs = hooks_ctx_sock(r1);
	uint32_t f = (uint32_t)flags;

	(void)r3, (void)r4, (void)r5, (void)run;
	if (!hooks_locked_op(r1))
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	if (!hs->fullsock)
		return (uint64_t)(int64_t)-EINVAL;
	/* Replaces the set; the answer is the bits this stack did not take. */
	hooks_set_cb_flags(hs, r1, f & HOOKS_CB_ALL);
	return (uint64_t)(f & ~HOOKS_CB_ALL);
}

static uint64_t hooks_socket_cookie(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				    struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	return hooks_ctx_sock(r1)->cookie;
}

static uint64_t hooks_netns_cookie(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				   struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	return hooks_ctx_sock(r1)->hk->cfg.netns_cookie;
}

/* A socket pointer (ctx->sk, a bpf_tcp_sock, a BTF tcp_sock) always names the
 * socket of the running call, so it is found through the run's ctx. */
static struct hooks_sock *hooks_bsk_sock(uint64_t sk, const struct bpfvm_run *run)
{
	if (sk == 0)
		return NULL;
	return ((struct hooks_ctx *)run->ctx)->hs;
}

/* Fill the bpf_tcp_sock view from the socket as it is now (a program may have
 * changed it through setsockopt since the call began), or NULL on a request
 * socket: Linux's bpf_tcp_sock and bpf_skc_to_tcp_sock want a full TCP sock. */
static uint64_t hooks_tcp_sock_of(const struct bpfvm_run *run)
{
	struct hooks_ctx *ctx = run->ctx;
	struct hooks_tcp_sock_view *t = &ctx->tsk;
	struct hooks_sk_info in;

	if (!ctx->hs->fullsock)
		return 0;
	memset(&in, 0, sizeof(in));
	ctx->hs->ops->info(ctx->hs, HOOKS_INFO_TCP, &in);
	t->snd_cwnd = in.snd_cwnd;
	t->srtt_us = in.srtt_us;
	t->rtt_min = in.rtt_min;
	t->snd_ssthresh = in.snd_ssthresh;
	t->rcv_nxt = in.rcv_nxt;
	t->snd_nxt = in.snd_nxt;
	t->snd_una = in.snd_una;
	t->mss_cache = in.mss_cache;
	t->ecn_flags = in.ecn_flags;
	t->rate_delivered = in.rate_delivered;
	t->rate_interval_us = in.rate_interval_us;
	t->packets_out = in.packets_out;
	t->retrans_out = in.retrans_out;
	t->total_retrans = in.total_retrans;
	t->segs_in = in.segs_in;
	t->data_segs_in = in.data_segs_in;
	t->segs_out = in.segs_out;
	t->data_segs_out = in.data_segs_out;
	t->lost_out = in.lost_out;
	t->sacked_out = in.sacked_out;
	t->bytes_received = in.bytes_received;
	t->bytes_acked = in.bytes_acked;
	t->dsack_dups = in.dsack_dups;
	t->delivered = in.delivered;
	t->delivered_ce = in.delivered_ce;
	t->icsk_retransmits = in.icsk_retransmits;
	return (uint64_t)(uintptr_t)t;
}

/* What bpf_skc_to_tcp_sock() returns: skops's struct tcp_sock (hooks_int.h,
 * described by hooks_btf.c), filled from the socket as it is now; NULL on a
 * request socket, as Linux's for anything but a full TCP sock. */
static uint64_t hooks_skc_to_tcp_sock(uint64_t sk, uint64_t r2, uint64_t r3, uint64_t r4,
				      uint64_t r5, struct bpfvm_run *run)
{
	struct hooks_ctx *ctx = run->ctx;
	struct hooks_k_tcp_sock *tp = &ctx->ktp;
	struct hooks_k_sock_common *skc = &tp->inet_conn.icsk_inet.sk.__sk_common;
	struct hooks_k_sock *s = &tp->inet_conn.icsk_inet.sk;
	struct hooks_sk_info in;

	(void)sk, (void)r2, (void)r3, (void)r4, (void)r5;
	if (!ctx->hs->fullsock)
		return 0;
	memset(&in, 0, sizeof(in));
	memset(tp, 0, sizeof(*tp));
	ctx->hs->ops->info(ctx->hs, HOOKS_INFO_ADDR | HOOKS_INFO_TCP | HOOKS_INFO_SOCK, &in);
	skc->skc_daddr = in.remote_ip4;
	skc->skc_rcv_saddr = in.local_ip4;
	skc->skc_dport = __builtin_bswap16(in.remote_port);
	skc->skc_num = in.local_port;
	skc->skc_family = (uint16_t)in.family;
	skc->skc_state = (uint8_t)in.state;
	memcpy(skc->skc_v6_daddr.in6_u.u6_addr32, in.remote_ip6, 16);
	memcpy(skc->skc_v6_rcv_saddr.in6_u.u6_addr32, in.local_ip6, 16);
	s->sk_mark = in.sk_mark;
	s->sk_priority = in.sk_priority;
	s->sk_txhash = in.sk_txhash;
	s->sk_type = (uint16_t)in.sk_type;
	s->sk_protocol = (uint16_t)in.sk_protocol;
	tp->inet_conn.icsk_inet.inet_saddr = in.local_ip4;
	tp->inet_conn.icsk_inet.inet_sport = __builtin_bswap16(in.local_port);
	tp->inet_conn.icsk_retransmits = (uint8_t)in.icsk_retransmits;
	tp->snd_cwnd = in.snd_cwnd;
	tp->snd_ssthresh = in.snd_ssthresh;
	tp->srtt_us = in.srtt_us;
	tp->mss_cache = in.mss_cache;
	tp->rcv_nxt = in.rcv_nxt;
	tp->snd_nxt = in.snd_nxt;
	tp->snd_una = in.snd_una;
	tp->packets_out = in.packets_out;
	tp->retrans_out = in.retrans_out;
	tp->lost_out = in.lost_out;
	tp->sacked_out = in.sacked_out;
	tp->total_retrans = in.total_retrans;
	tp->segs_in = in.segs_in;
	tp->segs_out = in.segs_out;
	tp->data_segs_in = in.data_segs_in;
	tp->data_segs_out = in.data_segs_out;
	tp->delivered = in.delivered;
	tp->delivered_ce = in.delivered_ce;
	tp->dsack_dups = in.dsack_dups;
	tp->rate_delivered = in.rate_delivered;
	tp->rate_interval_us = in.rate_interval_us;
	tp->ecn_flags = (uint8_t)in.ecn_flags;
	for (int i = 0; i < 3; i++)
		tp->rtt_min.s[i].v = in.rtt_min;
	tp->bytes_received = in.bytes_received;
	tp->bytes_acked = in.bytes_acked;
	tp->mdev_us = in.mdev_us;
	tp->rcv_wnd = in.rcv_wnd;
	tp->window_clamp = in.window_clamp;
	tp->rcv_wup = in.rcv_wup;
	tp->copied_seq = in.copied_seq;
	tp->write_seq = in.write_seq;
	tp->snd_wnd = in.snd_wnd;
	tp->snd_wl1 = in.snd_wl1;
	tp->rcv_ssthresh = in.rcv_ssthresh;
	ctx->ktp_set = 1;
	return (uint64_t)(uintptr_t)tp;
}

/* bpf_probe_read_kernel, which libbpf's BPF_CORE_READ reads through: the
 * only kernel memory a sock_ops program can name here is the tcp_sock
 * bpf_skc_to_tcp_sock returned in this call, so a read elsewhere (or before
 * the helper filled it) fails as a faulting kernel read does (-EFAULT, dst
 * zeroed; Linux's bpf_probe_read_kernel). */
static uint64_t hooks_probe_read_kernel(uint64_t dst, uint64_t size, uint64_t src, uint64_t r4,
					uint64_t r5, struct bpfvm_run *run)
{
	const struct hooks_ctx *ctx = run->ctx;
	uintptr_t lo = (uintptr_t)&ctx->ktp, hi = lo + sizeof(ctx->ktp);

	(void)r4, (void)r5;
	if (!ctx->ktp_set || src < lo || src > hi || size > hi - src) {
		memset((void *)(uintptr_t)dst, 0, size);
		return (uint64_t)(int64_t)-EFAULT;
	}
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, size);
	return 0;
}

static uint64_t hooks_tcp_sock(uint64_t sk, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
			       struct bpfvm_run *run)
{
	(void)sk, (void)r2, (void)r3, (void)r4, (void)r5;
	return hooks_tcp_sock_of(run);
}

/* skops sockets are never MPTCP: Linux's bpf_skc_to_mptcp_sock returns NULL
 * for a socket that is not an MPTCP subflow. */
static uint64_t hooks_skc_to_mptcp_sock(uint64_t sk, uint64_t r2, uint64_t r3, uint64_t r4,
					uint64_t r5, struct bpfvm_run *run)
{
	(void)sk, (void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	return 0;
}

#define HK_SK_STORAGE_GET_F_CREATE 1ull

static uint64_t hooks_sk_storage_get(uint64_t map, uint64_t sk, uint64_t value, uint64_t flags,
				     uint64_t r5, struct bpfvm_run *run)
{
	struct hooks_sock *hs = hooks_bsk_sock(sk, run);

	(void)r5;
	if (!hs || (flags & ~HK_SK_STORAGE_GET_F_CREATE))
		return 0;
	return (uint64_t)(uintptr_t)bpfvm_sk_storage_get((struct bpfvm_map *)(uintptr_t)map, hs,
							 (const void *)(uintptr_t)value, flags);
}

static uint64_t hooks_sk_storage_delete(uint64_t map, uint64_t sk, uint64_t r3, uint64_t r4,
					uint64_t r5, struct bpfvm_run *run)
{
	struct hooks_sock *hs = hooks_bsk_sock(sk, run);

	(void)r3, (void)r4, (void)r5;
	if (!hs)
		return (uint64_t)(int64_t)-EINVAL;
	return (uint64_t)(int64_t)bpfvm_sk_storage_delete((struct bpfvm_map *)(uintptr_t)map, hs);
}

#define HK_F_INDEX_MASK	 0xffffffffull
#define HK_F_CURRENT_CPU HK_F_INDEX_MASK

/* Perf output: one record per call to the map's consumer. bpfvm's ringbuf
 * output takes both ringbuf and perf-array maps (user space drains either
 * with bpfvm_ringbuf_consume); the cpu index must be the current one, as a
 * perf array here has a single consumer. */
static uint64_t hooks_perf_event_output(uint64_t r1, uint64_t map, uint64_t flags, uint64_t data,
					uint64_t size, struct bpfvm_run *run)
{
	const struct bpfvm_helper *out = bpfvm_base_helper(130 /* ringbuf_output */);
	uint64_t idx = flags & HK_F_INDEX_MASK;

	(void)r1;
	if ((flags & ~HK_F_INDEX_MASK) || (idx != HK_F_CURRENT_CPU && idx != bpfvm_cpu()))
		return (uint64_t)(int64_t)-EINVAL;
	if (!out)
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	return out->fn(map, data, size, 0, 0, run);
}

/* The contracts of the sock_ops helpers (bpfvm.h "the helper contract",
 * docs/helpers.md). */
static const struct bpfvm_helper hooks_helpers[] = {
    {.id = 25,
     .name = "perf_event_output",
     .fn = hooks_perf_event_output,
     .args = {BPFVM_A(CTX), BPFVM_A_MAP(WRITE), BPFVM_A(SCALAR), BPFVM_A_MEM(READ, 5),
	      BPFVM_A_SIZE_OR_ZERO(4)},
     BPFVM_RET_ANY,
     .map_types = BPFVM_MAPT(BPFVM_MAP_PERF_EVENT_ARRAY)},
    {.id = 46,
     .name = "get_socket_cookie",
     .fn = hooks_socket_cookie,
     .args = {BPFVM_A(CTX)},
     BPFVM_RET_ANY},
    {.id = 49,
     .name = "setsockopt",
     .fn = hooks_setsockopt,
     .args = {BPFVM_A(CTX), BPFVM_A(SCALAR), BPFVM_A(SCALAR), BPFVM_A_MEM(READ, 5),
	      BPFVM_A_SIZE(4)},
     BPFVM_RET_ANY},
    /* every byte of optval is written: the answer, zeros after it, or all
     * zeros on an error (hooks_getsockopt) */
    {.id = 57,
     .name = "getsockopt",
     .fn = hooks_getsockopt,
     .args = {BPFVM_A(CTX), BPFVM_A(SCALAR), BPFVM_A(SCALAR), BPFVM_A_MEM(UNINIT_WRITE, 5),
	      BPFVM_A_SIZE(4)},
     BPFVM_RET_ANY},
    {.id = 59,
     .name = "sock_ops_cb_flags_set",
     .fn = hooks_cb_flags_set,
     .args = {BPFVM_A(CTX), BPFVM_A(SCALAR)},
     BPFVM_RET_ANY},
    {.id = 96,
     .name = "tcp_sock",
     .fn = hooks_tcp_sock,
     .args = {BPFVM_A(SOCK)},
     .ret = BPFVM_RET_TCP_SOCK_OR_NULL},
    {.id = 107,
     .name = "sk_storage_get",
     .fn = hooks_sk_storage_get,
     .args = {BPFVM_A_MAP(WRITE),
	      BPFVM_A_OR_NULL(SOCK),
	      {.kind = BPFVM_ARG_MAP_VALUE, .access = BPFVM_MEM_READ, .flags = BPFVM_ARGF_OR_NULL},
	      BPFVM_A(SCALAR)},
     .ret = BPFVM_RET_MAP_VALUE_OR_NULL,
     .map_types = BPFVM_MAPT(BPFVM_MAP_SK_STORAGE)},
    {.id = 108,
     .name = "sk_storage_delete",
     .fn = hooks_sk_storage_delete,
     .args = {BPFVM_A_MAP(WRITE), BPFVM_A_OR_NULL(SOCK)},
     BPFVM_RET_ANY,
     .map_types = BPFVM_MAPT(BPFVM_MAP_SK_STORAGE)},
    /* dst: every byte written (the copy, or zeros on a fault) */
    {.id = 113,
     .name = "probe_read_kernel",
     .fn = hooks_probe_read_kernel,
     .args = {BPFVM_A_MEM(UNINIT_WRITE, 2), BPFVM_A_SIZE_OR_ZERO(1), BPFVM_A(ADDR)},
     BPFVM_RET_ANY},
    {.id = 122,
     .name = "get_netns_cookie",
     .fn = hooks_netns_cookie,
     .args = {BPFVM_A(CTX)},
     BPFVM_RET_ANY},
    {.id = 137,
     .name = "skc_to_tcp_sock",
     .fn = hooks_skc_to_tcp_sock,
     .args = {BPFVM_A(SOCK)},
     .ret = BPFVM_RET_BTF_TCP_SOCK_OR_NULL},
    {.id = 196,
     .name = "skc_to_mptcp_sock",
     .fn = hooks_skc_to_mptcp_sock,
     .args = {BPFVM_A(SOCK)},
     .ret = BPFVM_RET_BTF_MPTCP_SOCK_OR_NULL},
};

/* Base helpers docs/sockops.md §5 lets a sock_ops program call (trace_printk is
 * ours: it writes to the hooks log). */
static const uint32_t hooks_base_ids[] = {1,   2,   3,	 5,   7,   8,	12,  93,  94,
					  130, 131, 132, 133, 134, 164, 165, 181, 182};

const struct bpfvm_helper *hooks_sock_ops_helper(uint32_t id)
{
	for (size_t i = 0; i < sizeof(hooks_helpers) / sizeof(hooks_helpers[0]); i++)
		if (hooks_helpers[i].id == id)
			return &hooks_helpers[i];
	if (id == 6)
		return hooks_trace_printk_helper();
	if (hooks_hdr_opt_helper(id))
		return hooks_hdr_opt_helper(id);
	if (hooks_sockmap_helper(id))
		return hooks_sockmap_helper(id);
	for (size_t i = 0; i < sizeof(hooks_base_ids) / sizeof(hooks_base_ids[0]); i++)
		if (hooks_base_ids[i] == id)
			return bpfvm_base_helper(id);
	return NULL;
}
