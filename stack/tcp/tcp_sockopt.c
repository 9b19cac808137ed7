/* tcp_sockopt: setsockopt and getsockopt of a TCP socket, for the
 * application (socket.c) and for sock_ops programs (bpf_setsockopt, with
 * docs/sockops.md §5 results): SOL_SOCKET, SOL_TCP, IP_TOS / IPV6_TCLASS,
 * TCP_CONGESTION and TCP_SAVED_SYN. Option semantics follow Linux's
 * do_tcp_setsockopt and bpf_sol_tcp_setsockopt; the sock_ops call sites
 * stay in tcp_sockops.c. */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

/* Linux's SOL_TCP option numbers (netinet/tcp.h would clash with our
 * state names). */
#define TCP_OPT_NODELAY	      1
#define TCP_OPT_MAXSEG	      2
#define TCP_OPT_KEEPIDLE      4
#define TCP_OPT_KEEPINTVL     5
#define TCP_OPT_KEEPCNT	      6
#define TCP_OPT_SYNCNT	      7
#define TCP_OPT_WINDOW_CLAMP  10
#define TCP_OPT_CONGESTION    13
#define TCP_OPT_USER_TIMEOUT  18
#define TCP_OPT_NOTSENT_LOWAT 25
#define TCP_OPT_SAVE_SYN      27
#define TCP_OPT_SAVED_SYN     28
#ifndef SOL_TCP
#define SOL_TCP 6
#endif

#define SOCK_MIN_SNDBUF 4608u /* 2 × (2048 + sizeof(struct sk_buff)) */
#define SOCK_MIN_RCVBUF 2304u
#define TCP_MIN_MSS	88u
void tcp_opt_init(struct tcp *tcp, struct tcb *tcb)
{
	tcb->opt.rto_min_us = TCP_RTO_MIN_US;
	tcb->opt.delack_max_us = TCP_DELACK_MAX_US;
	tcb->opt.keep_idle_s = TCP_KEEP_IDLE_S;
	tcb->opt.keep_intvl_s = TCP_KEEP_INTVL_S;
	tcb->opt.keep_cnt = TCP_KEEP_CNT;
	tcb->opt.syn_retries = tcp->cfg.syn_retries;
}

/* SO_RCVLOWAT and TCP_NOTSENT_LOWAT are not inherited (a child starts
 * with none, as before the options were grouped). */
void tcp_opt_inherit(struct tcb *c, const struct tcb *l)
{
	c->opt.user_mss = l->opt.user_mss;
	c->opt.window_clamp = l->opt.window_clamp;
	c->opt.keep_idle_s = l->opt.keep_idle_s;
	c->opt.keep_intvl_s = l->opt.keep_intvl_s;
	c->opt.keep_cnt = l->opt.keep_cnt;
	c->opt.user_timeout_ms = l->opt.user_timeout_ms;
	c->opt.rto_min_us = l->opt.rto_min_us;
	c->opt.delack_max_us = l->opt.delack_max_us;
	c->opt.tos = l->opt.tos;
	c->opt.mark = l->opt.mark;
	c->opt.priority = l->opt.priority;
	c->opt.syn_retries = l->opt.syn_retries;
	c->opt.save_syn = l->opt.save_syn;
}

static int get_int(const void *val, uint32_t len, int *out)
{
	if (!val || len < sizeof(int))
		return -EINVAL;
	memcpy(out, val, sizeof(int));
	return 0;
}

static int set_cc(struct tcb *tcb, const void *val, uint32_t len)
{
	char name[TCP_CC_NAME_MAX];
	if (!val || len == 0)
		return -EINVAL;
	uint32_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
	memcpy(name, val, n);
	name[n] = 0;
	const struct tcp_cc_ops *cc = cc_find(name);
	if (!cc)
		return -ENOENT;
	if (cc == tcb->cc.ops)
		return 0;
	/* Linux tcp_set_congestion_control: swap and reinitialise once the
	 * connection runs; before that, establish() initialises it. */
	if (tcb->flags & TCB_F_CC_INIT)
		tcp_cc_release(tcb);
	tcp_cc_attach(tcb, cc);
	if (tcb->flags & TCB_F_CC_INIT)
		tcp_cc_init(tcb);
	return 0;
}

static int set_sol_socket(struct tcb *tcb, int optname, int v)
{
	struct tcp *tcp = tcb->tcp;
	switch (optname) {
	case SO_SNDBUF: {
		uint32_t u = v < 0 ? 0 : (uint32_t)v;
		if (tcp->cfg.wmem_max && u > tcp->cfg.wmem_max)
			u = tcp->cfg.wmem_max;
		uint64_t b = (uint64_t)u * 2;
		tcb->sndbuf = b < SOCK_MIN_SNDBUF ? SOCK_MIN_SNDBUF
			      : b > INT32_MAX	  ? INT32_MAX
						  : (uint32_t)b;
		tcb->flags |= TCB_F_SNDBUF_LOCK;
		tcp_mark_event(tcp, tcb);
		return 0;
	}
	case SO_RCVBUF: {
		uint32_t u = v < 0 ? 0 : (uint32_t)v;
		if (tcp->cfg.rmem_max && u > tcp->cfg.rmem_max)
			u = tcp->cfg.rmem_max;
		uint64_t b = (uint64_t)u * 2;
		uint32_t nb = b < SOCK_MIN_RCVBUF ? SOCK_MIN_RCVBUF
			      : b > INT32_MAX	  ? INT32_MAX
						  : (uint32_t)b;
		/* The ring never drops held bytes: it shrinks when it drains. */
		if (nb <
		    tcb->rcv.len + (tcb->ooo.n ? tcb->ooo.r[tcb->ooo.n - 1].r - tcb->recv.nxt : 0))
			nb = tcb->rcv.cap;
		tcb->rcvbuf = nb;
		if (tcb->rcv.cap && tcb->rcv.cap < nb)
			tcp_defer(tcp, tcb, TCB_P_RCVBUF);
		tcp_rcv_clamp(tcb, nb);
		tcb->flags |= TCB_F_RCVBUF_LOCK;
		return 0;
	}
	case SO_KEEPALIVE:
		if (v)
			tcb->flags |= TCB_F_KEEPALIVE;
		else
			tcb->flags &= ~TCB_F_KEEPALIVE;
		tcp_defer(tcp, tcb, TCB_P_KEEP);
		return 0;
	case SO_REUSEADDR:
		if (v)
			tcb->flags |= TCB_F_REUSEADDR;
		else
			tcb->flags &= ~TCB_F_REUSEADDR;
		return 0;
	case SO_MARK:
		tcb->opt.mark = (uint32_t)v;
		return 0;
	case SO_PRIORITY:
		tcb->opt.priority = (uint32_t)v;
		return 0;
	case SO_RCVLOWAT:
		tcb->opt.rcvlowat = v < 1 ? 1 : (uint32_t)v;
		return 0;
	case SO_MAX_PACING_RATE:
		/* an int: ~0U is no limit (Linux sk_setsockopt) */
		tcp_pace_set_max(tcb, (uint32_t)v == UINT32_MAX ? UINT64_MAX : (uint32_t)v);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int set_sol_tcp(struct tcb *tcb, int optname, int v, bool from_bpf)
{
	struct tcp *tcp = tcb->tcp;
	switch (optname) {
	case TCP_OPT_NODELAY:
		if (v)
			tcb->flags |= TCB_F_NODELAY;
		else
			tcb->flags &= ~TCB_F_NODELAY;
		/* Linux pushes what Nagle held at once; here the caller's way
		 * out of tcp does, at the same instant. */
		if (v)
			tcp_defer(tcp, tcb, TCB_P_OUTPUT);
		return 0;
	case TCP_OPT_MAXSEG:
		if (v && (v < (int)TCP_MIN_MSS || v > 65535))
			return -EINVAL;
		tcb->opt.user_mss = (uint16_t)v;
		tcp_defer(tcp, tcb, TCB_P_MSS);
		return 0;
	case TCP_OPT_KEEPIDLE:
		if (v < 1 || v > 32767)
			return -EINVAL;
		tcb->opt.keep_idle_s = (uint32_t)v;
		if (tcb->flags & TCB_F_KEEPALIVE)
			tcp_defer(tcp, tcb, TCB_P_KEEP);
		return 0;
	case TCP_OPT_KEEPINTVL:
		if (v < 1 || v > 32767)
			return -EINVAL;
		tcb->opt.keep_intvl_s = (uint32_t)v;
		return 0;
	case TCP_OPT_KEEPCNT:
		if (v < 1 || v > 127)
			return -EINVAL;
		tcb->opt.keep_cnt = (uint32_t)v;
		return 0;
	case TCP_OPT_SYNCNT:
		if (v < 1 || v > 127)
			return -EINVAL;
		tcb->opt.syn_retries = (uint32_t)v;
		return 0;
	case TCP_OPT_WINDOW_CLAMP:
		if (v == 0) {
			if (tcb->state != TCP_CLOSED)
				return -EINVAL;
			tcb->opt.window_clamp = 0;
		} else {
			tcb->opt.window_clamp =
			    v < (int)SOCK_MIN_RCVBUF / 2 ? SOCK_MIN_RCVBUF / 2 : (uint32_t)v;
		}
		return 0;
	case TCP_OPT_USER_TIMEOUT:
		if (v < 0)
			return -EINVAL;
		tcb->opt.user_timeout_ms = (uint32_t)v;
		return 0;
	case TCP_OPT_NOTSENT_LOWAT:
		tcb->opt.notsent_lowat = (uint32_t)v;
		tcp_mark_event(tcp, tcb);
		return 0;
	case TCP_OPT_SAVE_SYN:
		/* 1: from the IP header, 2: from the Ethernet header; a
		 * listener's children keep their SYN (Linux tp->save_syn) */
		if (v < 0 || v > 2)
			return -EINVAL;
		tcb->opt.save_syn = (uint8_t)v;
		return 0;
	}
	if (!from_bpf)
		return -ENOPROTOOPT;
	switch (optname) {
	case HOOKS_TCP_IW:
		/* Only before the first data segment (Linux bpf_sol_tcp_setsockopt). */
		if (v <= 0 || (tcb->flags & TCB_F_DATA_SENT))
			return -EINVAL;
		tcp_cc_set_iw(tcb, (uint32_t)v);
		tcp_defer(tcp, tcb, TCB_P_OUTPUT);
		return 0;
	case HOOKS_TCP_SNDCWND_CLAMP:
		if (v <= 0)
			return -EINVAL;
		tcp_cc_set_clamp(tcb, (uint32_t)v);
		return 0;
	case HOOKS_TCP_DELACK_MAX:
		if (v < 2)
			return -EINVAL;
		tcb->opt.delack_max_us = (uint32_t)v;
		return 0;
	case HOOKS_TCP_RTO_MIN:
		if (v < 2 || v > (int)TCP_RTO_MIN_US)
			return -EINVAL;
		tcb->opt.rto_min_us = (uint32_t)v;
		return 0;
	case HOOKS_TCP_SOCK_OPS_CB_FLAGS:
		if ((uint32_t)v & ~HOOKS_CB_ALL)
			return -EINVAL;
		tcb->hs.cb_flags = (uint32_t)v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int setsockopt_locked(struct tcb *tcb, int level, int optname, const void *val, uint32_t len,
			     bool from_bpf)
{
	int v = 0;
	if (level == SOL_TCP && optname == TCP_OPT_CONGESTION)
		return set_cc(tcb, val, len);
	if (level == SOL_SOCKET && optname == SO_MAX_PACING_RATE && !from_bpf && val &&
	    len >= sizeof(uint64_t)) {
		/* the application may pass an unsigned long (bytes a second) */
		uint64_t rate;
		memcpy(&rate, val, sizeof(rate));
		tcp_pace_set_max(tcb, rate);
		return 0;
	}
	int rc = tcp_pathopt_set(tcb, level, optname, val, len);
	if (rc != -ENOPROTOOPT)
		return rc;
	if (get_int(val, len, &v) < 0)
		return -EINVAL;
	switch (level) {
	case SOL_SOCKET:
		return set_sol_socket(tcb, optname, v);
	case SOL_TCP:
		return set_sol_tcp(tcb, optname, v, from_bpf);
	case SOL_IP:
		if (optname != IP_TOS || tcb->t.family != AF_INET)
			return -ENOPROTOOPT;
		tcb->opt.tos = (uint8_t)(v & 0xfc); /* ECN bits belong to TCP */
		return 0;
	case SOL_IPV6:
		if (optname != IPV6_TCLASS || tcb->t.family != AF_INET6)
			return -ENOPROTOOPT;
		if (v < -1 || v > 255)
			return -EINVAL;
		tcb->opt.tos = (uint8_t)((v < 0 ? 0 : v) & 0xfc);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

/* Effects are recorded (tcp_effect.c): from a program they wait for the
 * call that ran it; from the user this is the outermost call and applies
 * them before returning. */
int tcp_setsockopt(struct tcb *tcb, int level, int optname, const void *val, uint32_t len,
		   bool from_bpf)
{
	struct tcp *tcp = tcb->tcp;
	tcp_enter(tcp);
	int rc = setsockopt_locked(tcb, level, optname, val, len, from_bpf);
	tcp_leave(tcp);
	return rc;
}

static int put_int(void *val, uint32_t *len, int v)
{
	if (!val || !len || *len < sizeof(int))
		return -EINVAL;
	memcpy(val, &v, sizeof(int));
	*len = sizeof(int);
	return 0;
}

/* Linux bpf_sock_ops_get_syn's views of the saved SYN: the TCP header, from
 * the IP header, or from the Ethernet header (only when it was kept). Copies
 * what fits in *len and sets *len to the view's whole length. */
static int saved_syn_view(const struct tcb *tcb, int optname, void *val, uint32_t *len)
{
	const struct tcp_saved_syn *s = tcb->saved_syn;
	if (!s || !len)
		return -ENOENT;
	uint32_t off = 0, n = (uint32_t)s->mac_len + s->net_len + s->tcp_len;
	if (optname == HOOKS_TCP_SYN) {
		off = (uint32_t)s->mac_len + s->net_len;
	} else if (optname == HOOKS_TCP_SYN_IP) {
		off = s->mac_len;
	} else if (!s->mac_len) {
		return -ENOENT;
	}
	n -= off;
	if (val)
		memcpy(val, s->data + off, *len < n ? *len : n);
	*len = n;
	return 0;
}

/* getsockopt(TCP_SAVED_SYN) as Linux's do_tcp_getsockopt: the headers once
 * (then freed); a short buffer gets -EINVAL and the length it needs; no
 * saved SYN reads as length 0. */
static int saved_syn_take(struct tcb *tcb, void *val, uint32_t *len)
{
	struct tcp_saved_syn *s = tcb->saved_syn;
	if (!len)
		return -EINVAL;
	if (!s) {
		*len = 0;
		return 0;
	}
	uint32_t n = (uint32_t)s->mac_len + s->net_len + s->tcp_len;
	if (*len < n || !val) {
		*len = n;
		return -EINVAL;
	}
	memcpy(val, s->data, n);
	*len = n;
	free(s);
	tcb->saved_syn = NULL;
	return 0;
}

int tcp_getsockopt(struct tcb *tcb, int level, int optname, void *val, uint32_t *len)
{
	if (level == SOL_TCP && optname == TCP_OPT_CONGESTION) {
		if (!val || !len || *len == 0)
			return -EINVAL;
		const char *n = tcb->cc.ops ? tcb->cc.ops->name : "";
		uint32_t l = (uint32_t)strnlen(n, TCP_CC_NAME_MAX);
		uint32_t c = *len < TCP_CC_NAME_MAX ? *len : TCP_CC_NAME_MAX;
		memset(val, 0, c);
		memcpy(val, n, l < c ? l : c);
		*len = c;
		return 0;
	}
	if (level == SOL_TCP && (optname == HOOKS_TCP_SYN || optname == HOOKS_TCP_SYN_IP ||
				 optname == HOOKS_TCP_SYN_MAC))
		return saved_syn_view(tcb, optname, val, len);
	if (level == SOL_TCP && optname == TCP_OPT_SAVED_SYN)
		return saved_syn_take(tcb, val, len);
	if (level == SOL_SOCKET && optname == SO_MAX_PACING_RATE && val && len &&
	    *len >= sizeof(uint64_t)) {
		/* Linux sk_getsockopt: the whole unsigned long when it fits,
		 * else (below) an int capped at ~0U */
		memcpy(val, &tcb->pace.max_rate, sizeof(uint64_t));
		*len = sizeof(uint64_t);
		return 0;
	}
	if (level == SOL_SOCKET && optname == 25 /* SO_BINDTODEVICE */)
		return val && len ? tcp_pathopt_devname(tcb, val, len) : -EINVAL;
	int v;
	if (tcp_pathopt_get(tcb, level, optname, &v) == 0)
		return put_int(val, len, v);
	switch (level) {
	case SOL_SOCKET:
		switch (optname) {
		case SO_SNDBUF:
			v = (int)tcb->sndbuf;
			break;
		case SO_RCVBUF:
			v = (int)tcb->rcvbuf;
			break;
		case SO_KEEPALIVE:
			v = !!(tcb->flags & TCB_F_KEEPALIVE);
			break;
		case SO_REUSEADDR:
			v = !!(tcb->flags & TCB_F_REUSEADDR);
			break;
		case SO_MARK:
			v = (int)tcb->opt.mark;
			break;
		case SO_PRIORITY:
			v = (int)tcb->opt.priority;
			break;
		case SO_RCVLOWAT:
			v = tcb->opt.rcvlowat ? (int)tcb->opt.rcvlowat : 1;
			break;
		case SO_TYPE:
			v = SOCK_STREAM;
			break;
		case SO_MAX_PACING_RATE: /* an int reads at most ~0U (Linux) */
			v = (int)(tcb->pace.max_rate > UINT32_MAX ? UINT32_MAX
								  : tcb->pace.max_rate);
			break;
		case SO_ERROR:
			v = tcb->err;
			tcb->err = 0;
			break;
		default:
			return -ENOPROTOOPT;
		}
		break;
	case SOL_TCP:
		switch (optname) {
		case TCP_OPT_NODELAY:
			v = !!(tcb->flags & TCB_F_NODELAY);
			break;
		case TCP_OPT_MAXSEG:
			v = tcb->state >= TCP_ESTABLISHED && tcb->mss ? tcb->mss
			    : tcb->opt.user_mss			      ? tcb->opt.user_mss
								      : (int)TCP_MSS_DEFAULT;
			break;
		case TCP_OPT_KEEPIDLE:
			v = (int)tcb->opt.keep_idle_s;
			break;
		case TCP_OPT_KEEPINTVL:
			v = (int)tcb->opt.keep_intvl_s;
			break;
		case TCP_OPT_KEEPCNT:
			v = (int)tcb->opt.keep_cnt;
			break;
		case TCP_OPT_SYNCNT:
			v = (int)tcb->opt.syn_retries;
			break;
		case TCP_OPT_WINDOW_CLAMP:
			v = (int)tcb->opt.window_clamp;
			break;
		case TCP_OPT_USER_TIMEOUT:
			v = (int)tcb->opt.user_timeout_ms;
			break;
		case TCP_OPT_NOTSENT_LOWAT:
			v = (int)tcb->opt.notsent_lowat;
			break;
		case HOOKS_TCP_SOCK_OPS_CB_FLAGS:
			v = (int)tcb->hs.cb_flags;
			break;
		case TCP_OPT_SAVE_SYN:
			v = tcb->opt.save_syn;
			break;
		default:
			return -ENOPROTOOPT;
		}
		break;
	case SOL_IP:
		if (optname != IP_TOS)
			return -ENOPROTOOPT;
		v = tcb->opt.tos;
		break;
	case SOL_IPV6:
		if (optname != IPV6_TCLASS)
			return -ENOPROTOOPT;
		v = tcb->opt.tos;
		break;
	default:
		return -ENOPROTOOPT;
	}
	return put_int(val, len, v);
}
