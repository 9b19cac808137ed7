/* tcp_sockops: the stack side of hooks/: struct hooks_sock_ops (info, and
 * the bpf_setsockopt/getsockopt options, which tcp_sockopt.c shares with the
 * user's setsockopt), and every sock_ops call site of docs/sockops.md §3
 * with the units the stack owns (TIMEOUT_INIT jiffies at cfg.hz, RWND_INIT
 * segments). */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cgroup.h"
#include "tcp_int.h"

static bool so_on(const struct tcb *tcb)
{
	return tcb->hs.hk != NULL;
}

void tcp_so_sock_init(struct tcp *tcp, struct tcb *tcb, struct cg_node *cg, bool fullsock)
{
	if (tcp->cfg.hooks && cg) {
		hooks_sock_init(&tcb->hs, tcp->cfg.hooks, &tcp_hooks_ops, cg, fullsock);
	} else {
		memset(&tcb->hs, 0, sizeof(tcb->hs));
		tcb->hs.ops = &tcp_hooks_ops;
		tcb->hs.fullsock = fullsock;
	}
}

void tcp_so_sock_fini(struct tcb *tcb)
{
	if (so_on(tcb))
		hooks_sock_fini(&tcb->hs);
	memset(&tcb->hs, 0, sizeof(tcb->hs));
}

int tcp_set_cgroup(struct tcb *tcb, struct cg_node *cg)
{
	struct tcp *tcp = tcb->tcp;
	if (!tcp->cfg.hooks)
		return -EOPNOTSUPP;
	uint32_t flags = tcb->hs.cb_flags;
	uint8_t sk_flags = tcb->hs.sk_cb_flags;
	bool full = tcb->hs.fullsock;
	tcp_so_sock_fini(tcb);
	tcp_so_sock_init(tcp, tcb, cg, full);
	tcb->hs.cb_flags = flags;
	tcb->hs.sk_cb_flags = sk_flags;
	return 0;
}

/* Linux tcp_select_initial_window with the RWND_INIT reply. mss is the
 * advertised MSS less the timestamp option on a passive open with
 * timestamps (tcp_openreq_init_rwin), so the defaults come out as Linux's
 * 64240 (SYN) and 65160 (SYN-ACK) for a 1460 MSS. */
uint32_t tcp_rwnd_init_bytes(const struct tcb *tcb, int reply)
{
	uint32_t mss = tcb->rcv_mss;
	if (tcb->state == TCP_SYN_RECEIVED && (tcb->flags & TCB_F_TS) && mss > 12)
		mss -= 12;
	/* The kernel offers half the buffer at first (scaling_ratio 50 %). */
	uint32_t space = tcb->rcvbuf / 2;
	if (tcb->opt.window_clamp && space > tcb->opt.window_clamp)
		space = tcb->opt.window_clamp;
	if (space > mss)
		space -= space % mss;
	uint32_t wnd = space < 65535u ? space : 65535u;
	if (reply > 0 && (uint64_t)reply * mss < wnd)
		wnd = (uint32_t)reply * mss;
	return wnd;
}

static uint32_t syn_rto_us(const struct tcp *tcp, int jiffies)
{
	/* TIMEOUT_INIT: jiffies of 1/hz s; ≤ 0 → 1 s; at most TCP_RTO_MAX. */
	if (jiffies <= 0)
		return TCP_RTO_INIT_US;
	uint64_t us = (uint64_t)jiffies * CLK_US_PER_S / tcp->cfg.hz;
	if (us > TCP_RTO_MAX_US)
		us = TCP_RTO_MAX_US;
	return us ? (uint32_t)us : 1;
}

void tcp_so_active_open(struct tcp *tcp, struct tcb *tcb)
{
	int rwnd = -1, tmo = -1;
	bool ecn = false;
	if (so_on(tcb)) {
		hooks_connect_cb(&tcb->hs);
		rwnd = hooks_rwnd_init(&tcb->hs);
		tmo = hooks_timeout_init(&tcb->hs);
		ecn = hooks_needs_ecn(&tcb->hs);
	}
	/* Linux tcp_connect_init → tcp_select_initial_window runs after
	 * CONNECT_CB: a TCP_WINDOW_CLAMP set there (or before connect) caps
	 * the space the window scale is chosen for, as it caps the window. */
	if (tcb->opt.window_clamp) {
		uint32_t space = tcb->opt.window_clamp, ws = 0;
		while (space > 65535u && ws < TCP_MAX_WSCALE) {
			space >>= 1;
			ws++;
		}
		if (ws < tcb->rcv_wscale)
			tcb->rcv_wscale = (uint8_t)ws;
	}
	tcb->syn_wnd = tcp_rwnd_init_bytes(tcb, rwnd);
	tcp_rcv_offer(tcb, tcb->syn_wnd);
	tcb->syn_rto_us = syn_rto_us(tcp, tmo);
	/* Linux tcp_ecn_send_syn: NEEDS_ECN is asked whatever tcp_ecn says;
	 * tcp_ecn 1 asks for ECN too, but only a program or the CC marks the
	 * SYN itself ECT(0). */
	if (ecn || (tcb->cc.ops->flags & TCP_CC_NEEDS_ECN))
		tcb->flags |= TCB_F_ECN_WANT | TCB_F_SYN_ECT;
	else if (tcp->cfg.ecn == 1)
		tcb->flags |= TCB_F_ECN_WANT;
}

void tcp_so_passive_request(struct tcp *tcp, struct tcb *req, bool ecn_ok, bool cookie)
{
	int rwnd = -1, tmo = -1;
	bool ecn = false;
	if (req->flags & TCB_F_SYN_ECN)
		ecn = ecn_ok || (req->cc.ops->flags & TCP_CC_NEEDS_ECN);
	if (so_on(req)) {
		/* Linux tcp_ecn_create_request asks only when the SYN itself
		 * asks for ECN and neither tcp_ecn nor the CC has agreed
		 * already (the program is the last operand of an ||). */
		if ((req->flags & TCB_F_SYN_ECN) && !ecn)
			ecn = hooks_needs_ecn(&req->hs);
		rwnd = hooks_rwnd_init(&req->hs);
		/* Linux tcp_conn_request asks TIMEOUT_INIT only for a request
		 * it keeps: a SYN cookie's SYN-ACK is never retransmitted. */
		if (!cookie)
			tmo = hooks_timeout_init(&req->hs);
	}
	if (ecn)
		req->flags |= TCB_F_ECN | TCB_F_ECN_WANT;
	req->syn_wnd = tcp_rwnd_init_bytes(req, rwnd);
	tcp_rcv_offer(req, req->syn_wnd);
	req->syn_rto_us = syn_rto_us(tcp, tmo);
}

/* Linux asks NEEDS_ECN again for every SYN-ACK it sends and marks that
 * SYN-ACK ECT(0) on a reply of 1 (tcp_v4/v6_send_synack). */
bool tcp_so_synack_ect(struct tcp *tcp, struct tcb *req)
{
	(void)tcp;
	return so_on(req) && hooks_needs_ecn(&req->hs);
}

void tcp_so_established(struct tcp *tcp, struct tcb *tcb, bool active)
{
	(void)tcp;
	tcp_so_syn_free(tcb); /* no SYN-ACK goes out again */
	if (!so_on(tcb))
		return;
	if (active)
		hooks_active_established_cb(&tcb->hs);
	else
		hooks_passive_established_cb(&tcb->hs);
}

void tcp_so_listen(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	if (so_on(tcb))
		hooks_listen_cb(&tcb->hs);
}

void tcp_so_state(struct tcp *tcp, struct tcb *tcb, enum tcp_state old, enum tcp_state st)
{
	(void)tcp;
	if (so_on(tcb) && tcb->hs.fullsock && hooks_cb_enabled(&tcb->hs, HOOKS_CB_STATE))
		hooks_state_cb(&tcb->hs, tcp_state_kernel(old), tcp_state_kernel(st));
}

void tcp_so_rto(struct tcp *tcp, struct tcb *tcb, uint32_t rto_us, bool expired)
{
	/* Linux tcp_write_timeout: the retransmissions so far, the RTO that
	 * just expired in jiffies, and whether this one gives up. */
	if (so_on(tcb) && tcb->hs.fullsock && hooks_cb_enabled(&tcb->hs, HOOKS_CB_RTO))
		hooks_rto_cb(&tcb->hs, tcb->rtx.retransmits,
			     (uint32_t)((uint64_t)rto_us * tcp->cfg.hz / CLK_US_PER_S), expired);
}

void tcp_so_retrans(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t segs, int32_t res)
{
	(void)tcp;
	if (so_on(tcb) && tcb->hs.fullsock && hooks_cb_enabled(&tcb->hs, HOOKS_CB_RETRANS))
		hooks_retrans_cb(&tcb->hs, seq, segs, res);
}

void tcp_so_rtt(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	if (so_on(tcb) && hooks_cb_enabled(&tcb->hs, HOOKS_CB_RTT))
		hooks_rtt_cb(&tcb->hs);
}

/* The space a socket's segments give the programs, as Linux's
 * tcp_established_options: the stack's own options (timestamps, then SACK
 * blocks) first, the rest of the 40 bytes to the programs. */
static uint32_t so_opt_left(size_t hl)
{
	return hl < TCP_HDR_MIN + TCP_OPT_SPACE ? (uint32_t)(TCP_HDR_MIN + TCP_OPT_SPACE - hl) : 0;
}

static bool so_writes(const struct tcb *tcb, bool syn)
{
	if (!so_on(tcb) || !hooks_cb_enabled(&tcb->hs, HOOKS_CB_WRITE_HDR_OPT))
		return false;
	/* A request's SYN-ACK runs its listener's programs. Otherwise only a
	 * full socket: Linux answers from a timewait sock (and for closed
	 * ports from none) without programs. */
	return syn || (tcb->hs.fullsock && tcb->state != TCP_TIME_WAIT &&
		       tcb->state != TCP_CLOSED && tcb->state != TCP_LISTEN);
}

/* Linux tcp_current_mss: tcp_established_options without a segment, so
 * HDR_OPT_LEN_CB with args[0] BPF_WRITE_HDR_TCP_CURRENT_MSS (1), no header and
 * skb_len 0. What the programs reserve comes off every data segment's payload
 * (tcp_seg_room) until the next send asks again. */
void tcp_so_current_mss(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	tcb->so_opt_mss = 0;
	if (!so_writes(tcb, false))
		return;
	size_t hl = TCP_HDR_MIN + ((tcb->flags & TCB_F_TS) ? 12u : 0u);
	if ((tcb->flags & TCB_F_SACK) && (tcb->ooo.n || tcb->recv.dsack)) {
		uint32_t max = (tcb->flags & TCB_F_TS) ? 3u : TCP_SACK_MAX;
		uint32_t nb =
		    tcb->ooo.n + tcb->recv.dsack < max ? tcb->ooo.n + tcb->recv.dsack : max;
		hl += 4 + 8 * nb;
	}
	tcb->so_opt_mss = (uint8_t)hooks_hdr_opt_len(&tcb->hs, NULL, so_opt_left(hl),
						     1 /* BPF_WRITE_HDR_TCP_CURRENT_MSS */);
}

/* Linux bpf_skops_hdr_opt_len + bpf_skops_write_hdr_opt, for every segment
 * a socket sends (tcp_syn_options, tcp_synack_options,
 * tcp_established_options): HDR_OPT_LEN_CB sees the segment's flags and
 * payload length but no header yet (skb_data empty); WRITE_HDR_OPT_CB sees the
 * header as built, its data offset already counting the reserved bytes, and
 * skb_len the whole segment. On a data segment the options and the payload
 * stay within the MSS (RFC 6691 §2): a program that reserves more than it did
 * when asked for the current MSS gets -ENOSPC for the excess where Linux
 * would send a segment larger than the MSS. A SYN cookie's SYN-ACK (built
 * on the scratch request) tells both callbacks so in args[0], as Linux's
 * TCP_SYNACK_COOKIE: nothing the programs keep about it survives. */
void tcp_so_hdr_opt(struct tcp *tcp, struct tcb *tcb, struct tcp_repr *r, uint32_t len)
{
	uint8_t hdr[TCP_HDR_MIN + TCP_OPT_SPACE];
	r->xopt_len = 0;
	bool syn = (r->flags & TCP_SYN) != 0;
	if (!so_writes(tcb, syn))
		return;
	size_t hl = tcp_repr_hdr_len(r);
	uint32_t room = so_opt_left(hl);
	if (!syn && len) {
		uint32_t seg = tcb->mss + ((tcb->flags & TCB_F_TS) ? 12u : 0u);
		uint32_t used = len + (uint32_t)(hl - TCP_HDR_MIN);
		uint32_t fit = seg > used ? (seg - used) & ~3u : 0;
		if (room > fit)
			room = fit;
	}
	if (!room)
		return;
	struct hooks_skb skb = {.hdr = hdr, .hdr_len = 0, .skb_len = len, .flags = r->flags};
	uint8_t synbuf[TCP_HDR_MIN + TCP_OPT_SPACE];
	if ((r->flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && tcb->syn_opt) {
		/* the SYN this answers, as it came: its options after a fixed
		 * header rebuilt from the connection */
		struct tcp_repr s;
		memset(&s, 0, sizeof(s));
		s.sport = tcb->t.rport;
		s.dport = tcb->t.lport;
		s.seq = tcb->recv.irs;
		s.flags = TCP_SYN;
		s.wscale = -1;
		s.xopt_len = tcb->syn_opt->len;
		memcpy(s.xopt, tcb->syn_opt->b, tcb->syn_opt->len);
		tcp_emit(&s, synbuf);
		skb.syn = synbuf;
		skb.syn_len = TCP_HDR_MIN + tcb->syn_opt->len;
	}
	uint32_t arg0 = tcb == tcp->cookie_req ? 2 /* BPF_WRITE_HDR_TCP_SYNACK_COOKIE */ : 0;
	uint32_t reserved = hooks_hdr_opt_len(&tcb->hs, &skb, room, arg0);
	if (!reserved)
		return;
	tcp_emit(r, hdr);
	hdr[12] = (uint8_t)(((hl + reserved) / 4) << 4);
	skb.hdr_len = (uint32_t)hl;
	skb.skb_len = (uint32_t)hl + reserved + len;
	(void)hooks_write_hdr_opt(&tcb->hs, &skb, reserved, arg0);
	memcpy(r->xopt, hdr + hl, reserved);
	r->xopt_len = (uint8_t)reserved;
}

/* Kept only for programs that write the SYN-ACK's options (every idle
 * connection would carry 41 bytes otherwise); without memory, they see a
 * SYN without options. */
void tcp_so_save_syn(struct tcb *req, const struct tcp_repr *syn)
{
	if (!syn->rxopt_len || !so_writes(req, true))
		return;
	req->syn_opt = malloc(sizeof(*req->syn_opt));
	if (!req->syn_opt)
		return;
	req->syn_opt->len = syn->rxopt_len;
	memcpy(req->syn_opt->b, syn->rxopt, syn->rxopt_len);
}

void tcp_so_syn_free(struct tcb *tcb)
{
	free(tcb->syn_opt);
	tcb->syn_opt = NULL;
}

/* Linux bpf_skops_parse_hdr, called at the end of tcp_validate_incoming: not
 * in SYN_SENT or SYN_RECV (the ESTABLISHED callbacks come first), nor in
 * TIME_WAIT (a timewait sock runs no programs). The header
 * is rebuilt as received: the fixed part and the option bytes as they came. */
void tcp_so_parse_hdr(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t len)
{
	uint8_t hdr[TCP_HDR_MIN + TCP_OPT_SPACE];
	struct tcp_repr raw;
	(void)tcp;
	if (!so_on(tcb) || !tcb->hs.fullsock || tcb->state == TCP_SYN_SENT ||
	    tcb->state == TCP_SYN_RECEIVED || tcb->state == TCP_TIME_WAIT)
		return;
	if (!hooks_cb_enabled(&tcb->hs, HOOKS_CB_PARSE_ALL_HDR_OPT) &&
	    !(h->unknown_opt && hooks_cb_enabled(&tcb->hs, HOOKS_CB_PARSE_UNKNOWN_HDR_OPT)))
		return;
	memset(&raw, 0, sizeof(raw));
	raw.sport = h->sport;
	raw.dport = h->dport;
	raw.seq = h->seq;
	raw.ack = h->ack;
	raw.flags = h->flags;
	raw.window = h->window;
	raw.urg = h->urg;
	raw.wscale = -1;
	raw.xopt_len = h->rxopt_len;
	memcpy(raw.xopt, h->rxopt, h->rxopt_len);
	tcp_emit(&raw, hdr);
	uint32_t hl = TCP_HDR_MIN + h->rxopt_len;
	struct hooks_skb skb = {.hdr = hdr, .hdr_len = hl, .skb_len = hl + len, .flags = h->flags};
	hooks_parse_hdr_opt_cb(&tcb->hs, &skb, h->unknown_opt);
}

/* ---- hooks_sock_ops ---- */

static int so_setsockopt(struct hooks_sock *hs, int level, int optname, const void *val,
			 uint32_t len)
{
	return tcp_setsockopt(tcb_of_hs(hs), level, optname, val, len, true);
}

static int so_getsockopt(struct hooks_sock *hs, int level, int optname, void *val, uint32_t *len)
{
	return tcp_getsockopt(tcb_of_hs(hs), level, optname, val, len);
}

static void so_set_txhash(struct hooks_sock *hs, uint32_t txhash)
{
	tcb_of_hs(hs)->txhash = txhash;
}

const struct hooks_sock_ops tcp_hooks_ops = {
    .info = tcp_so_info,
    .setsockopt = so_setsockopt,
    .getsockopt = so_getsockopt,
    .set_txhash = so_set_txhash,
};

/* ---- BPF TX timestamping (Linux 6.15) ---------------------------------------
 * Linux marks an skb (tskey: its last byte) when a program calls the kfunc at
 * TSTAMP_SENDMSG_CB, reports SCHED when a segment carrying that byte is
 * queued to the device, SND_SW at the driver's software timestamp and ACK
 * once the byte is cumulatively acked (tcp_ack_tstamp). skops has no skbs:
 * it keeps the marked bytes, and a segment covering one is reported when
 * the port took it (SCHED, then SND_SW: the port's tx burst is both the
 * queue and the driver here). A DPDK port gives no TX hardware timestamps
 * the stack reads, so SND_HW never runs. */

static bool tsk_on(const struct tcb *tcb)
{
	return so_on(tcb) && tcb->hs.fullsock &&
	       (tcb->hs.sk_cb_flags & HOOKS_SK_CB_TX_TIMESTAMPING);
}

void tcp_so_tstamp_sendmsg(struct tcp *tcp, struct tcb *tcb, uint32_t len)
{
	(void)tcp;
	if (!tsk_on(tcb) || !hooks_tstamp_sendmsg(&tcb->hs, len))
		return;
	struct tcp_tstamp_keys *k = &tcb->tsk;
	uint32_t key = tcb->send.una + tcb->snd.len - 1;
	/* Linux re-marks a tail skb a later send appended to (its tskey moves
	 * to the new last byte): the newest key, while unsent, moves */
	if (k->n && !(k->sent & (1u << (k->n - 1)))) {
		k->key[k->n - 1] = key;
		return;
	}
	if (k->n == TCP_TSTAMP_KEYS) { /* the oldest is forgotten */
		memmove(k->key, k->key + 1, (TCP_TSTAMP_KEYS - 1) * sizeof(k->key[0]));
		k->sent >>= 1;
		k->n--;
	}
	k->key[k->n++] = key;
}

void tcp_so_tstamp_xmit(struct tcb *tcb, uint32_t seq, uint32_t len)
{
	struct tcp_tstamp_keys *k = &tcb->tsk;
	if (!k->n || !tsk_on(tcb))
		return;
	for (uint8_t i = 0; i < k->n; i++) {
		if (k->key[i] - seq >= len)
			continue;
		k->sent |= (uint8_t)(1u << i);
		hooks_tstamp_cb(&tcb->hs, HOOKS_OP_TSTAMP_SCHED_CB, len);
		hooks_tstamp_cb(&tcb->hs, HOOKS_OP_TSTAMP_SND_SW_CB, len);
	}
}

void tcp_so_tstamp_acked(struct tcb *tcb, uint32_t prior, uint32_t una)
{
	struct tcp_tstamp_keys *k = &tcb->tsk;
	uint8_t i = 0;
	while (i < k->n) {
		/* Linux tcp_ack_tstamp: prior_snd_una <= tskey < snd_una */
		if (k->key[i] - prior >= una - prior) {
			i++;
			continue;
		}
		memmove(k->key + i, k->key + i + 1, (size_t)(k->n - i - 1) * sizeof(k->key[0]));
		uint8_t low = (uint8_t)(k->sent & ((1u << i) - 1));
		k->sent = (uint8_t)(low | ((k->sent >> (i + 1)) << i));
		k->n--;
		if (tsk_on(tcb))
			hooks_tstamp_cb(&tcb->hs, HOOKS_OP_TSTAMP_ACK_CB, una - prior);
	}
}
