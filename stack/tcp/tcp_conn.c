/* tcp_conn: the per-stack TCP context and connection lifecycle: creation
 * and teardown, state changes (with STATE_CB), TIME_WAIT (RFC 9293 §3.10.7.4,
 * 2·MSL), the end of a connection, initial cwnd (RFC 6928) and buffers,
 * readiness events and the tcp_info snapshot. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "cgroup.h"
#include "tcp_int.h"

static const char *const state_names[] = {
    [TCP_CLOSED] = "CLOSED",	       [TCP_LISTEN] = "LISTEN",
    [TCP_SYN_SENT] = "SYN_SENT",       [TCP_SYN_RECEIVED] = "SYN_RECV",
    [TCP_ESTABLISHED] = "ESTABLISHED", [TCP_FIN_WAIT_1] = "FIN_WAIT1",
    [TCP_FIN_WAIT_2] = "FIN_WAIT2",    [TCP_CLOSE_WAIT] = "CLOSE_WAIT",
    [TCP_CLOSING] = "CLOSING",	       [TCP_LAST_ACK] = "LAST_ACK",
    [TCP_TIME_WAIT] = "TIME_WAIT",
};

const char *tcp_state_name(enum tcp_state s)
{
	return (unsigned)s <= TCP_TIME_WAIT ? state_names[s] : "?";
}

uint8_t tcp_state_kernel(enum tcp_state s)
{
	static const uint8_t map[] = {
	    [TCP_CLOSED] = HOOKS_TCP_CLOSE,
	    [TCP_LISTEN] = HOOKS_TCP_LISTEN,
	    [TCP_SYN_SENT] = HOOKS_TCP_SYN_SENT,
	    [TCP_SYN_RECEIVED] = HOOKS_TCP_SYN_RECV,
	    [TCP_ESTABLISHED] = HOOKS_TCP_ESTABLISHED,
	    [TCP_FIN_WAIT_1] = HOOKS_TCP_FIN_WAIT1,
	    [TCP_FIN_WAIT_2] = HOOKS_TCP_FIN_WAIT2,
	    [TCP_CLOSE_WAIT] = HOOKS_TCP_CLOSE_WAIT,
	    [TCP_CLOSING] = HOOKS_TCP_CLOSING,
	    [TCP_LAST_ACK] = HOOKS_TCP_LAST_ACK,
	    [TCP_TIME_WAIT] = HOOKS_TCP_TIME_WAIT,
	};
	return (unsigned)s <= TCP_TIME_WAIT ? map[s] : HOOKS_TCP_CLOSE;
}

const char *tcp_cc_available(void)
{
	return cc_available();
}

int tcp_create(const struct tcp_config *cfg, struct tcp **out)
{
	/* hz: Linux's CONFIG_HZ choices (100, 250, 300, 1000) or 0. */
	if (!cfg || !cfg->xmit || !out || cfg->ecn > 2 || cfg->syncookies > 2 ||
	    cfg->pacing_ss_ratio > 1000 || cfg->pacing_ca_ratio > 1000 ||
	    (cfg->hz && cfg->hz != 100 && cfg->hz != 250 && cfg->hz != 300 && cfg->hz != 1000))
		return -EINVAL;
	const struct tcp_cc_ops *cc = cfg->cc ? cc_find(cfg->cc) : cc_default();
	if (!cc)
		return -ENOENT;
	struct tcp *tcp = calloc(1, sizeof(*tcp));
	if (!tcp)
		return -ENOMEM;
	/* RFC 6528 §3: the secret behind ISNs and SYN cookies must not follow
	 * from what is on the wire. The seeded generator's outputs are
	 * (ephemeral ports, flow labels) and its state can be solved from
	 * them, so the key comes from the kernel's CSPRNG. */
	if (!cfg->keys_from_seed &&
	    getrandom(tcp->isn_key, sizeof(tcp->isn_key), 0) != sizeof(tcp->isn_key)) {
		int err = errno ? -errno : -EIO;
		free(tcp);
		return err;
	}
	tcp->cfg = *cfg;
	tcp->cfg.cc = NULL; /* not kept: the caller's string */
	tcp->cc_default = cc;
	struct tcp_config *c = &tcp->cfg;
	if (!c->hz)
		c->hz = TCP_HZ_DEFAULT;
	/* 0 is "unset" (the current kernel's 4); UINT32_MAX asks for none,
	 * Linux 4.13's pure doubling. */
	if (c->syn_linear_timeouts == 0)
		c->syn_linear_timeouts = 4;
	else if (c->syn_linear_timeouts == UINT32_MAX)
		c->syn_linear_timeouts = 0;
	if (!c->max_conns)
		c->max_conns = 1024;
	if (!c->wmem_default)
		c->wmem_default = 16384;
	if (!c->rmem_default)
		c->rmem_default = 131072;
	if (!c->tcp_rmem_max)
		c->tcp_rmem_max = 6u << 20;
	if (!c->tcp_wmem_max)
		c->tcp_wmem_max = 4u << 20;
	if (!c->syn_retries)
		c->syn_retries = 6;
	if (!c->synack_retries)
		c->synack_retries = 5;
	if (!c->msl_ms)
		c->msl_ms = 30000;
	if (!c->ecn_set)
		c->ecn = 2;
	if (!c->syncookies_set)
		c->syncookies = 1;
	if (!c->pacing_ss_ratio)
		c->pacing_ss_ratio = 200; /* net.ipv4.tcp_pacing_ss_ratio */
	if (!c->pacing_ca_ratio)
		c->pacing_ca_ratio = 120; /* net.ipv4.tcp_pacing_ca_ratio */
	if (!c->oow_ratelimit_ms)
		c->oow_ratelimit_ms = 500;
	/* Linux's sysctl accepts 48 (TCP_MIN_SND_MSS) up to 65535 − 40 only;
	 * below 48 a full set of options would leave no room for data. */
	if (c->min_snd_mss < 48)
		c->min_snd_mss = 48;
	if (c->min_snd_mss > 65495)
		c->min_snd_mss = 65495;
	tcp->challenge_sec = UINT64_MAX;
	uint32_t hsz = 16;
	while (hsz < 2 * c->max_conns)
		hsz <<= 1;
	tcp->pool = calloc(c->max_conns, sizeof(struct tcb));
	tcp->ht = calloc(hsz, sizeof(struct tcb *));
	tcp->cookie_req = calloc(1, sizeof(struct tcb));
	if (!tcp->pool || !tcp->ht || !tcp->cookie_req) {
		free(tcp->pool);
		free(tcp->ht);
		free(tcp->cookie_req);
		free(tcp);
		return -ENOMEM;
	}
	tcp->ht_mask = hsz - 1;
	for (uint32_t i = c->max_conns; i-- > 0;) {
		tcp->pool[i].next = tcp->free_list;
		tcp->free_list = &tcp->pool[i];
	}
	rnd_seed(&tcp->rnd, c->seed);
	/* a simulation that must replay takes the key from its seed */
	if (c->keys_from_seed) {
		tcp->isn_key[0] = rnd_u64(&tcp->rnd);
		tcp->isn_key[1] = rnd_u64(&tcp->rnd);
	}
	*out = tcp;
	return 0;
}

static void release(struct tcp *tcp, struct tcb *tcb)
{
	tcp_timers_clear_all(tcp, tcb);
	tcp_hash_remove(tcp, tcb);
	if (tcb->state == TCP_LISTEN)
		tcp_listener_remove(tcp, tcb);
	tcp_port_remove(tcp, tcb);
	if (tcb->flags & TCB_F_CC_INIT)
		tcp_cc_release(tcb);
	tcp_conn_scrub(tcp, tcb);
	tcb_free(tcp, tcb);
}

void tcp_conn_scrub(struct tcp *tcp, struct tcb *tcb)
{
	tcp_so_sock_fini(tcb);
	tcp_pend_forget(tcp, tcb);
	tcp_outq_forget(tcp, tcb);
	/* Off the pending-events lists, the one being delivered included (an
	 * event callback may close any socket). Both are only ever a few
	 * entries long, and skipped when not on them. */
	struct tcb **lists[] = {&tcp->dirty, &tcp->flushing};
	for (unsigned i = 0; i < 2 && (tcb->flags & TCB_F_INQ); i++) {
		for (struct tcb **pp = lists[i]; *pp; pp = &(*pp)->dirty_next) {
			if (*pp == tcb) {
				*pp = tcb->dirty_next;
				tcb->flags &= ~TCB_F_INQ;
				break;
			}
		}
	}
}

void tcp_destroy(struct tcp *tcp)
{
	if (!tcp)
		return;
	/* Everything goes: no events, no segments. */
	for (struct tcb *t = tcp->dirty; t; t = t->dirty_next)
		t->flags &= ~TCB_F_INQ;
	tcp->dirty = NULL;
	while (tcp->pend)
		tcp_pend_forget(tcp, tcp->pend);
	for (uint32_t i = 0; i < tcp->cfg.max_conns; i++) {
		struct tcb *tcb = &tcp->pool[i];
		if (tcb->tcp)
			release(tcp, tcb);
	}
	ring_cache_free(tcp);
	free(tcp->pool);
	free(tcp->ht);
	free(tcp->cookie_req);
	free(tcp);
}

uint32_t tcp_conn_count(const struct tcp *tcp)
{
	return tcp->nconn;
}

void tcp_set_state(struct tcp *tcp, struct tcb *tcb, enum tcp_state st)
{
	enum tcp_state old = tcb->state;
	if (old == st)
		return;
	/* Linux tcp_set_state runs STATE_CB just before it stores the new
	 * state: the program sees the old one in ctx->state, everything else
	 * as the transition left it (the caller updated it first). */
	tcp_so_state(tcp, tcb, old, st);
	tcb->state = (uint8_t)st;
	tcp_mark_event(tcp, tcb);
}

void tcp_mark_event(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->flags & TCB_F_INQ)
		return;
	tcb->flags |= TCB_F_INQ;
	tcb->dirty_next = tcp->dirty;
	tcp->dirty = tcb;
}

void tcp_flush_events(struct tcp *tcp)
{
	/* Bounded: each tcb is on the list once; callbacks may add new ones,
	 * which are delivered on the next flush. The list being delivered is
	 * tcp->flushing, so that a callback closing another socket takes that
	 * one off it (release) instead of leaving a freed tcb to be visited. */
	if (tcp->flushing)
		return; /* a callback flushing again: the outer loop delivers */
	tcp->flushing = tcp->dirty;
	tcp->dirty = NULL;
	while (tcp->flushing) {
		struct tcb *t = tcp->flushing;
		tcp->flushing = t->dirty_next;
		t->dirty_next = NULL;
		t->flags &= ~TCB_F_INQ;
		if (t->sd >= 0 && tcp->cfg.event)
			tcp->cfg.event(tcp->cfg.arg, t);
	}
}

static void unlink_from_parent(struct tcb *tcb)
{
	struct tcb *l = tcb->parent;
	if (!l)
		return;
	if (tcb->flags & TCB_F_ACCQ) {
		struct tcb **pp = &l->acc_head, *prev = NULL;
		while (*pp && *pp != tcb) {
			prev = *pp;
			pp = &(*pp)->next;
		}
		if (*pp) {
			*pp = tcb->next;
			if (l->acc_tail == tcb)
				l->acc_tail = prev;
			l->nq_acc--;
		}
		tcb->flags &= ~TCB_F_ACCQ;
	} else {
		if (tcb->prev)
			tcb->prev->next = tcb->next;
		else if (l->syn_head == tcb)
			l->syn_head = tcb->next;
		if (tcb->next)
			tcb->next->prev = tcb->prev;
		l->nq_syn--;
	}
	tcb->next = tcb->prev = NULL;
	tcb->parent = NULL;
}

void tcp_done(struct tcp *tcp, struct tcb *tcb, int err)
{
	if (err)
		tcb->err = err;
	if (tcb->state == TCP_TIME_WAIT)
		tcb->state = TCP_CLOSED; /* the kernel's STATE_CB saw the close already */
	else
		tcp_set_state(tcp, tcb, TCP_CLOSED);
	tcp_timers_clear_all(tcp, tcb);
	tcp_hash_remove(tcp, tcb);
	tcb->flags &= ~(TCB_F_DELACK | TCB_F_ACK_NOW);
	/* A child nobody accepted yet: a request in the SYN queue just goes;
	 * one in the accept queue stays for accept() to report the error. */
	if (tcb->parent && !(tcb->flags & TCB_F_ACCQ)) {
		unlink_from_parent(tcb);
		release(tcp, tcb);
		return;
	}
	if ((tcb->flags & TCB_F_ORPHAN) && !tcb->parent) {
		release(tcp, tcb);
		return;
	}
	tcp_mark_event(tcp, tcb);
}

void tcp_enter_time_wait(struct tcp *tcp, struct tcb *tcb)
{
	/* Linux replaces the socket by a timewait sock and reports the full
	 * socket's end as STATE_CB(old, CLOSE). */
	tcp_so_state(tcp, tcb, tcb->state, TCP_CLOSED);
	tcb->state = TCP_TIME_WAIT;
	tcp_timers_clear_all(tcp, tcb);
	ring_drop(&tcb->snd, tcb->snd.len);
	ring_release(tcp, &tcb->snd, false);
	if (tcb->flags & TCB_F_ORPHAN) {
		ring_drop(&tcb->rcv, tcb->rcv.len);
		ring_release(tcp, &tcb->rcv, false);
	}
	tcp_timer_set_us(tcp, tcb, TCP_T_KEEP, 2ull * tcp->cfg.msl_ms * CLK_US_PER_MS);
	tcp_mark_event(tcp, tcb);
}

void tcp_release(struct tcp *tcp, struct tcb *tcb)
{
	unlink_from_parent(tcb);
	release(tcp, tcb);
}

void tcp_init_buffers(struct tcp *tcp, struct tcb *tcb)
{
	if (!tcb->sndbuf)
		tcb->sndbuf = tcp->cfg.wmem_default;
	if (!tcb->rcvbuf)
		tcb->rcvbuf = tcp->cfg.rmem_default;
}

/* Linux grows a send buffer that SO_SNDBUF did not lock with the window
 * (tcp_sndbuf_expand): two windows of segments at their in-memory size
 * (MSS plus headers and skb overhead, rounded to a power of two), at most
 * tcp_wmem[2] (tcp_wmem_max). Without it a 16 KiB default would cap the flight at about
 * 11 segments whatever the cwnd, where Linux sends TCP_BPF_IW's 40. */
void tcp_sndbuf_expand(struct tcb *tcb)
{
	if (tcb->flags & TCB_F_SNDBUF_LOCK)
		return;
	uint32_t per_mss = 1;
	while (per_mss < tcb->mss + 896u)
		per_mss <<= 1;
	uint64_t want = 2ull * (tcb->cc.cwnd > 10 ? tcb->cc.cwnd : 10) * per_mss;
	if (want > tcb->tcp->cfg.tcp_wmem_max)
		want = tcb->tcp->cfg.tcp_wmem_max;
	if (want > tcb->sndbuf)
		tcb->sndbuf = (uint32_t)want;
}

uint32_t tcp_sndbuf_free(const struct tcb *tcb)
{
	return tcb->sndbuf > tcb->snd.len ? tcb->sndbuf - tcb->snd.len : 0;
}

uint32_t tcp_events(const struct tcb *tcb)
{
	uint32_t ev = 0;
	switch (tcb->state) {
	case TCP_LISTEN:
		if (tcb->acc_head)
			ev |= TCP_EV_IN;
		return ev;
	case TCP_SYN_SENT:
	case TCP_SYN_RECEIVED:
		break;
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		if (!(tcb->flags & TCB_F_FIN_QUEUED) && tcp_sndbuf_free(tcb) >= tcb->sndbuf / 2 &&
		    (!tcb->opt.notsent_lowat ||
		     tcb->snd.len - (tcb->send.nxt - tcb->send.una) < tcb->opt.notsent_lowat))
			ev |= TCP_EV_OUT;
		break;
	default:
		break;
	}
	if (tcb->rcv.len || (tcb->flags & TCB_F_FIN_RCVD))
		ev |= TCP_EV_IN;
	if (tcb->flags & TCB_F_FIN_RCVD)
		ev |= TCP_EV_RDHUP;
	if (tcb->err)
		ev |= TCP_EV_ERR | TCP_EV_IN;
	if (tcb->state == TCP_CLOSED && tcb->sd >= 0 && (tcb->err || tcb->flags & TCB_F_FIN_RCVD))
		ev |= TCP_EV_HUP;
	if (tcb->state == TCP_TIME_WAIT || tcb->state == TCP_CLOSED) {
		if (tcb->flags & (TCB_F_FIN_RCVD | TCB_F_FIN_SENT))
			ev |= TCP_EV_HUP;
	}
	return ev;
}

static bool icmp_conn(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t mtu, bool unreach);

bool tcp_icmp(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t, uint32_t seq, uint32_t mtu,
	      bool unreach)
{
	tcp->now = now;
	struct tcb *tcb = tcp_hash_find(tcp, t);
	if (!tcb || tcb->state == TCP_TIME_WAIT || tcb->state == TCP_LISTEN)
		return false;
	tcp_enter(tcp);
	bool ok = icmp_conn(tcp, tcb, seq, mtu, unreach);
	tcp_leave(tcp);
	return ok;
}

static bool icmp_conn(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t mtu, bool unreach)
{
	/* RFC 5927 §4.1: only errors quoting a sequence number in flight
	 * (Linux tcp_v4_err: snd_una <= seq <= snd_nxt; snd_max here, as a
	 * rewound snd_nxt leaves sent segments in flight). */
	if (SEQ_LT(seq, tcb->send.una) || SEQ_GEQ(seq, tcb->send.max)) {
		tcp->stats.icmp_out_of_window++;
		return false;
	}
	/* Linux tcp_req_err: a request's path MTU is not updated (a SYN-ACK
	 * is small). */
	if (mtu && tcb->state == TCP_SYN_RECEIVED)
		return false;
	if (mtu) {
		uint16_t old = tcb->mss;
		tcp_update_mss(tcp, tcb, mtu);
		/* RFC 1191 §6.4: resend what the smaller MSS no longer carries
		 * (Linux tcp_simple_retransmit). */
		if (tcb->mss < old && tcb->state >= TCP_ESTABLISHED) {
			tcp_snd_rewind(tcb);
			tcp_output(tcp, tcb);
		}
		return true;
	}
	/* RFC 1122 §4.2.3.9: hard errors abort only a connection attempt. */
	if (unreach && tcb->state == TCP_SYN_SENT)
		tcp_done(tcp, tcb, ECONNREFUSED);
	return true;
}
