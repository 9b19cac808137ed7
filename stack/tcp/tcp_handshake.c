/* tcp_handshake: opening a connection. LISTEN (RFC 9293 §3.10.7.2) answers
 * a SYN with a request and its SYN-ACK (or a SYN cookie, tcp_syncookie.c),
 * SYN-SENT (§3.10.7.3) takes the SYN-ACK, and both ends meet in establish
 * (Linux tcp_init_transfer): MSS, cwnd, buffers, the sock_ops call, CC. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcp_input.h"

static void take_syn_options(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h)
{
	tcb->peer_mss = h->mss ? h->mss : TCP_MSS_DEFAULT;
	if (h->wscale >= 0 && !tcp->cfg.no_wscale) {
		tcb->flags |= TCB_F_WS;
		tcb->snd_wscale = (uint8_t)h->wscale;
	} else {
		tcb->snd_wscale = 0;
		tcb->rcv_wscale = 0;
	}
	if (h->sack_perm && !tcp->cfg.no_sack)
		tcb->flags |= TCB_F_SACK;
	if (h->ts && !tcp->cfg.no_timestamps) {
		tcb->flags |= TCB_F_TS;
		tcp_rcv_ts_recent(tcb, h->tsval, tcp->now);
	}
}

/* ---- LISTEN (RFC 9293 §3.10.7.2) ---- */

/* Linux tcp_reqsk_record_syn: the headers as they came, from the IP header
 * (or the Ethernet header for TCP_SAVE_SYN 2); nothing when the caller has
 * no contiguous copy or memory is short (TCP_SAVED_SYN then finds none). */
static void save_syn(struct tcb *c, uint8_t mode, const struct tcp_rx_hdrs *hdrs)
{
	if (!mode || !hdrs || !hdrs->p)
		return;
	uint16_t mac = mode == 2 ? hdrs->mac_len : 0;
	uint32_t n = (uint32_t)mac + hdrs->net_len + hdrs->tcp_len;
	struct tcp_saved_syn *s = malloc(sizeof(*s) + n);
	if (!s)
		return;
	s->mac_len = mac;
	s->net_len = hdrs->net_len;
	s->tcp_len = hdrs->tcp_len;
	memcpy(s->data, hdrs->p + (hdrs->mac_len - mac), n);
	c->saved_syn = s;
}

/* A request for SYN h to listener l: what it inherits, our ISN and
 * options, its MSS (from a SYN cookie too: tcp_syncookie.c). */
void tcp_req_init(struct tcp *tcp, struct tcb *l, struct tcb *c, const struct tcp_tuple *t,
		  const struct tcp_repr *h)
{
	c->t = *t;
	/* What a child inherits from its listener (Linux sk_clone_lock); an
	 * IPv4 child of an AF_INET6 listener stays an AF_INET6 socket. */
	c->sk_family = l->sk_family;
	c->v6only = l->v6only;
	c->flags =
	    l->flags & (TCB_F_NODELAY | TCB_F_KEEPALIVE | TCB_F_SNDBUF_LOCK | TCB_F_RCVBUF_LOCK);
	c->flags |= TCB_F_LISTEN_CHILD;
	c->sndbuf = l->sndbuf;
	c->rcvbuf = l->rcvbuf;
	tcp_opt_inherit(c, l);
	tcp_cc_attach(c, l->cc.ops);
	tcp_pace_inherit(c, l);
	tcp_pathopt_inherit(c, l);
	tcp_rto_init(c);
	c->state = TCP_SYN_RECEIVED;
	tcp_rcv_init(c, h->seq);
	/* a cookie request's ISN is the cookie (tcp_syncookie_send): no hash
	 * spent on one it replaces, in a flood the SYN's largest cost */
	tcp_snd_init(c, c == tcp->cookie_req ? 0 : tcp_isn(tcp, t, tcp->now));
	/* never scaled in a SYN (RFC 7323 §2.2) */
	tcp_snd_set_window(c, h->window, h->seq, c->send.iss);
	c->ts_off = tcp_ts_offset(tcp, t);
	uint32_t mtu = 1500;
	if (tcp->cfg.route)
		tcp->cfg.route(tcp->cfg.arg, t->family, &t->raddr, NULL, &mtu);
	c->pmtu = mtu;
	c->rcv_wscale = (uint8_t)tcp_pick_wscale(tcp, c);
	take_syn_options(tcp, c, h);
	c->rcv_mss = (uint16_t)(mtu - tcp_hdrs_len(t->family));
	if (c->opt.user_mss && c->rcv_mss > c->opt.user_mss)
		c->rcv_mss = c->opt.user_mss;
	if ((h->flags & (TCP_ECE | TCP_CWR)) == (TCP_ECE | TCP_CWR))
		c->flags |= TCB_F_SYN_ECN;
}

/* Linux tcp_conn_request: a full SYN queue answers with a SYN cookie
 * (tcp_syncookies 1; 2 always), a full accept queue drops the SYN
 * (ListenOverflows); every SYN dropped counts in ListenDrops. The accept
 * queue is full as Linux's sk_acceptq_is_full says: with more than backlog
 * connections in it, so a listener holds backlog + 1 (tcp_acc_full). */
void tcp_listen_input(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
		      const struct tcp_repr *h, uint32_t len, uint8_t ecn,
		      const struct tcp_rx_hdrs *hdrs)
{
	if (h->flags & TCP_RST)
		return;
	if (h->flags & TCP_ACK) {
		tcp_reply_rst(tcp, t, h, len);
		return;
	}
	if (!(h->flags & TCP_SYN))
		return;
	bool cookie = false;
	/* Cookies also when the owner says replies to new peers strain it: a
	 * flood from spoofed on-link sources fills its neighbour table, and a
	 * cookie keeps at least the SYN queue out of it. */
	if (tcp->cfg.syncookies == 2 || l->nq_syn >= l->backlog ||
	    (tcp->cfg.syncookies && tcp->cfg.syn_pressure &&
	     tcp->cfg.syn_pressure(tcp->cfg.arg, t->family))) {
		cookie = tcp->cfg.syncookies != 0;
		if (!cookie) {
			tcp->stats.listen_drops++;
			tcp->stats.syn_drop++;
			return;
		}
	}
	if (tcp_acc_full(l)) {
		tcp->stats.listen_overflows++;
		tcp->stats.listen_drops++;
		tcp->stats.syn_drop++;
		return;
	}
	if (cookie) {
		tcp_syncookie_send(tcp, l, t, h, ecn);
		return;
	}
	struct tcb *c = tcb_alloc(tcp, t->family);
	if (!c) {
		/* No tcb for a request is a full SYN queue too. */
		if (tcp->cfg.syncookies) {
			tcp_syncookie_send(tcp, l, t, h, ecn);
			return;
		}
		tcp->stats.listen_drops++;
		tcp->stats.syn_drop++;
		return;
	}
	tcp_req_init(tcp, l, c, t, h);
	save_syn(c, l->opt.save_syn, hdrs);
	/* tcp_ecn 1 or 2 agrees to a SYN that asks, unless the SYN itself is
	 * ECT (RFC 3168 §6.1.1: a SYN is never ECT; Linux then leaves the
	 * choice to the CC or a program). */
	bool ecn_ok = tcp->cfg.ecn != 0 && (ecn & 3) == 0;
	/* The request runs the passive calls in the listener's cgroup on a
	 * non-full socket (docs/sockops.md §3). */
	tcp_so_sock_init(tcp, c, l->hs.cg, false);
	c->hs.cb_flags = l->hs.cb_flags;
	c->hs.sk_cb_flags = l->hs.sk_cb_flags;
	tcp_so_save_syn(c, h);
	tcp_so_passive_request(tcp, c, ecn_ok, false);
	if (tcp_hash_insert(tcp, c) < 0) {
		tcp_so_sock_fini(c);
		tcb_free(tcp, c);
		tcp->stats.syn_drop++;
		tcp->stats.listen_drops++;
		return;
	}
	tcp_req_link(l, c);
	tcp_send_syn(tcp, c);
	tcp_timer_set_us(tcp, c, TCP_T_RTX, c->syn_rto_us);
}

/* Onto the listener's SYN queue. */
void tcp_req_link(struct tcb *l, struct tcb *c)
{
	c->parent = l;
	c->prev = NULL;
	c->next = l->syn_head;
	if (l->syn_head)
		l->syn_head->prev = c;
	l->syn_head = c;
	l->nq_syn++;
}

/* Both ends after the handshake: MSS, cwnd, buffers, CC (Linux tcp_init_transfer). */
static void establish(struct tcp *tcp, struct tcb *tcb, bool active)
{
	/* The passive side is a full socket from here on: Linux makes the
	 * child when this ACK arrives, before the RTT sample. */
	if (!active)
		tcb->hs.fullsock = true;
	tcp_update_mss(tcp, tcb, 0);
	tcp_rec_established(tcb);
	/* RTT of the handshake, unless the SYN (or SYN-ACK) was retransmitted. */
	if (tcb->syn_tx == 1)
		tcp_rtt_sample(tcp, tcb, (uint32_t)((tcp->now - tcb->syn_last_ns) / CLK_NS_PER_US));
	else
		tcp_rto_init(tcb); /* RFC 6298 §5 (7): no sample after a lost SYN */
	tcp_rtx_established(tcb);
	tcp_timer_clear(tcp, tcb, TCP_T_RTX);
	/* Linux: the active side changes state and then runs
	 * tcp_init_transfer (cwnd, ACTIVE_ESTABLISHED_CB, CC); the passive
	 * side runs it in SYN_RECV and changes state after (STATE_CB last). */
	if (active)
		tcp_set_state(tcp, tcb, TCP_ESTABLISHED);
	tcp_init_cwnd(tcp, tcb);
	tcp_rcvbuf_init(tcp, tcb);
	tcp_so_established(tcp, tcb, active);
	if (!(tcb->flags & TCB_F_CC_INIT)) {
		tcb->flags |= TCB_F_CC_INIT;
		tcp_cc_init(tcb);
	}
	tcp_pace_update(tcp, tcb);
	if (!active)
		tcp_set_state(tcp, tcb, TCP_ESTABLISHED);
	if (tcb->flags & TCB_F_KEEPALIVE)
		tcp_timer_set_us(tcp, tcb, TCP_T_KEEP,
				 (uint64_t)tcb->opt.keep_idle_s * CLK_US_PER_S);
	tcp_mark_event(tcp, tcb);
}

/* ---- SYN-SENT (RFC 9293 §3.10.7.3) ---- */

bool tcp_syn_sent_input(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h)
{
	bool ack_ok = false;
	if (h->flags & TCP_ACK) {
		if (SEQ_LEQ(h->ack, tcb->send.iss) || SEQ_GT(h->ack, tcb->send.max)) {
			if (!(h->flags & TCP_RST))
				tcp_reply_rst(tcp, &tcb->t, h, 0);
			return true;
		}
		ack_ok = true;
	}
	if (h->flags & TCP_RST) {
		if (ack_ok) {
			tcp->stats.in_rst++;
			tcp_done(tcp, tcb, ECONNREFUSED);
			return false;
		}
		return true;
	}
	if (!(h->flags & TCP_SYN))
		return true;
	tcp_rcv_init(tcb, h->seq);
	tcp_rcv_set_adv(tcb, tcb->syn_wnd); /* what our SYN offered */
	uint8_t want_ws = tcb->rcv_wscale;
	take_syn_options(tcp, tcb, h);
	if (tcb->flags & TCB_F_WS)
		tcb->rcv_wscale = want_ws;
	if (ack_ok) {
		tcp_snd_set_una(tcb, h->ack);
		/* SYN-ACK windows are not scaled */
		tcp_snd_set_window(tcb, h->window, h->seq, h->ack);
		tcp_snd_set_max_wnd(tcb, h->window);
		/* RFC 3168 §6.1.1: ECN when we asked and the SYN-ACK has ECE alone. */
		if ((tcb->flags & TCB_F_ECN_WANT) && (h->flags & (TCP_ECE | TCP_CWR)) == TCP_ECE)
			tcb->flags |= TCB_F_ECN;
		establish(tcp, tcb, true);
		if (tcb->state == TCP_CLOSED)
			return false;
		tcb->flags |= TCB_F_ACK_NOW;
		return true;
	}
	/* Simultaneous open: SYN-RECEIVED, our SYN again with an ACK. */
	tcp_snd_set_window(tcb, h->window, h->seq, tcb->send.wl2);
	tcp_snd_set_max_wnd(tcb, h->window);
	tcp_set_state(tcp, tcb, TCP_SYN_RECEIVED);
	if ((tcb->flags & TCB_F_ECN_WANT) &&
	    (h->flags & (TCP_ECE | TCP_CWR)) == (TCP_ECE | TCP_CWR))
		tcb->flags |= TCB_F_ECN;
	tcb->syn_tx = 0;
	tcp_send_syn(tcp, tcb);
	tcp_timer_set_us(tcp, tcb, TCP_T_RTX, tcb->syn_rto_us);
	return true;
}

bool tcp_passive_open_done(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	uint32_t wnd = (uint32_t)h->window << tcb->snd_wscale;
	tcp_snd_set_una(tcb, h->ack);
	tcp_snd_set_window(tcb, wnd, s->seq, h->ack);
	tcp_snd_set_max_wnd(tcb, wnd);
	struct tcb *l = tcb->parent;
	s->handshake = true;
	establish(tcp, tcb, false);
	if (tcb->state == TCP_CLOSED)
		return false;
	if (l) {
		/* From the SYN queue to the accept queue. */
		if (tcb->prev)
			tcb->prev->next = tcb->next;
		else
			l->syn_head = tcb->next;
		if (tcb->next)
			tcb->next->prev = tcb->prev;
		tcb->next = tcb->prev = NULL;
		l->nq_syn--;
		if (l->acc_tail)
			l->acc_tail->next = tcb;
		else
			l->acc_head = tcb;
		l->acc_tail = tcb;
		l->nq_acc++;
		tcb->flags |= TCB_F_ACCQ;
		tcp_mark_event(tcp, l);
	}
	return true;
}
