/* tcp_user: the user calls of RFC 9293 §3.10.1-3.10.6 (OPEN, SEND,
 * RECEIVE, CLOSE, ABORT) shaped as the BSD socket calls the native API
 * exposes: bind, listen with SYN and accept queues, connect with the active
 * open call sites, send/recv over the rings, shutdown (half-close), close. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

static bool addr_is_any(int family, const void *a)
{
	static const uint8_t zero[16];
	return memcmp(a, zero, family == AF_INET6 ? 16 : 4) == 0;
}

int tcp_open(struct tcp *tcp, int family, struct tcb **out)
{
	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	struct tcb *tcb = tcb_alloc(tcp, family);
	if (!tcb)
		return -ENOBUFS;
	tcp_init_buffers(tcp, tcb);
	tcp_rto_init(tcb);
	tcp_opt_init(tcp, tcb);
	tcp_cc_attach(tcb, tcp->cc_default);
	tcp_so_sock_init(tcp, tcb, tcp->cfg.default_cg, true);
	*out = tcb;
	return 0;
}

int tcp_bind(struct tcp *tcp, struct tcb *tcb, const void *addr, uint16_t port)
{
	if (tcb->state != TCP_CLOSED || (tcb->flags & TCB_F_BOUND))
		return -EINVAL;
	size_t alen = tcb->t.family == AF_INET6 ? 16 : 4;
	bool v6 = tcb->t.family == AF_INET6;
	/* Linux inet6_bind: a v4-mapped address makes no sense on an
	 * IPV6_V6ONLY socket; a specific IPv6 address makes the socket
	 * IPv6-only. */
	if (v6 && tcp_v6_is_mapped(addr) && tcb->v6only)
		return -EINVAL;
	memcpy(&tcb->t.laddr, addr, alen);
	if (port == 0) {
		/* An ephemeral port nobody has bound. */
		uint32_t range = TCP_EPH_HI - TCP_EPH_LO + 1;
		uint32_t start = rnd_below(&tcp->rnd, range);
		for (uint32_t i = 0; i < range; i++) {
			uint16_t p = (uint16_t)(TCP_EPH_LO + (start + i) % range);
			if (!tcp_port_in_use(tcp, p)) {
				port = p;
				break;
			}
		}
	} else if (tcp_port_conflict(tcp, tcb, port)) {
		port = 0;
	}
	if (!port) {
		memset(&tcb->t.laddr, 0, sizeof(tcb->t.laddr));
		return -EADDRINUSE;
	}
	if (v6 && !tcp_v6_is_any(addr) && !tcp_v6_is_mapped(addr))
		tcb->v6only = true;
	tcb->t.lport = port;
	tcp_port_add(tcp, tcb);
	return 0;
}

int tcp_set_v6only(struct tcb *tcb, bool on)
{
	if (tcb->sk_family != AF_INET6)
		return -ENOPROTOOPT;
	if ((tcb->flags & TCB_F_BOUND) || tcb->state != TCP_CLOSED || tcb->t.lport)
		return -EINVAL;
	tcb->v6only = on;
	return 0;
}

/* Linux __sys_listen: somaxconn (4096) caps it and a negative backlog,
 * unsigned there, is somaxconn; 0 stays 0 (one connection fits the
 * accept queue, tcp_acc_full). */
static uint16_t listen_backlog(int backlog)
{
	return (uint16_t)(backlog < 0 || backlog > 4096 ? 4096 : backlog);
}

static int listen_call(struct tcp *tcp, struct tcb *tcb, int backlog)
{
	if (tcb->state == TCP_LISTEN) {
		tcb->backlog = listen_backlog(backlog);
		return 0;
	}
	if (tcb->state != TCP_CLOSED)
		return -EINVAL;
	if (!(tcb->flags & TCB_F_BOUND)) {
		static const uint8_t any[16];
		int rc = tcp_bind(tcp, tcb, any, 0);
		if (rc < 0)
			return rc;
	}
	/* Linux checks the port again as a listener: SO_REUSEADDR shares a
	 * port only with holders that do not listen. */
	int rc = tcp_port_conflict(tcp, tcb, tcb->t.lport);
	if (rc < 0)
		return rc;
	tcb->backlog = listen_backlog(backlog);
	tcp_set_state(tcp, tcb, TCP_LISTEN);
	tcp_listener_add(tcp, tcb);
	tcp_so_listen(tcp, tcb);
	return 0;
}

/* An AF_INET6 socket connecting to ::ffff:a.b.c.d runs the connection over
 * IPv4 (Linux tcp_v6_connect hands it to tcp_v4_connect): the tuple
 * becomes AF_INET, sk_family stays AF_INET6. */
static int connect_mapped(struct tcb *tcb, const uint8_t *raddr, uint8_t v4[4])
{
	if (tcb->v6only)
		return -ENETUNREACH;
	uint8_t l[4] = {0};
	if (!tcp_v6_is_any(tcb->t.laddr.v6))
		memcpy(l, tcb->t.laddr.v6 + 12, 4); /* bound to ::ffff:x (v6only otherwise) */
	memset(&tcb->t.laddr, 0, sizeof(tcb->t.laddr));
	memcpy(&tcb->t.laddr, l, 4);
	memcpy(v4, raddr + 12, 4);
	tcb->t.family = AF_INET;
	return 0;
}

static int connect_tuple(struct tcp *tcp, struct tcb *tcb, const void *raddr, uint16_t rport,
			 uint64_t now);

static int connect_call(struct tcp *tcp, struct tcb *tcb, const void *raddr, uint16_t rport,
			uint64_t now)
{
	struct tcp_tuple before = tcb->t;
	int rc = connect_tuple(tcp, tcb, raddr, rport, now);
	/* a refused connect leaves the socket as it was (family included) */
	if (rc < 0 && rc != -EINPROGRESS && !(tcb->flags & TCB_F_HASHED))
		tcb->t = before;
	return rc;
}

static int connect_tuple(struct tcp *tcp, struct tcb *tcb, const void *raddr, uint16_t rport,
			 uint64_t now)
{
	if (tcb->state == TCP_SYN_SENT || tcb->state == TCP_SYN_RECEIVED)
		return -EALREADY;
	if (tcb->state != TCP_CLOSED)
		return -EISCONN;
	if (tcb->err)
		return -EINVAL; /* a failed connection is not reused */
	if (rport == 0)
		return -EINVAL;
	if (!tcp_dev_ok(tcp, tcb))
		return -ENETUNREACH; /* SO_BINDTODEVICE to a port without the route */
	uint8_t v4[4];
	if (tcb->t.family == AF_INET6 && tcp_v6_is_mapped(raddr)) {
		int rc = connect_mapped(tcb, raddr, v4);
		if (rc < 0)
			return rc;
		raddr = v4;
	}
	int fam = tcb->t.family;
	size_t alen = fam == AF_INET6 ? 16 : 4;
	if (addr_is_any(fam, raddr))
		return -ENETUNREACH;
	memcpy(&tcb->t.raddr, raddr, alen);
	tcb->t.rport = rport;
	uint32_t mtu = 1500;
	if (tcp->cfg.route) {
		uint8_t src[16];
		int rc = tcp->cfg.route(tcp->cfg.arg, (uint8_t)fam, raddr, src, &mtu);
		if (rc < 0)
			return rc;
		if (addr_is_any(fam, &tcb->t.laddr))
			memcpy(&tcb->t.laddr, src, alen);
	}
	if (!(tcb->flags & TCB_F_BOUND) || tcb->t.lport == 0) {
		int rc = tcp_port_alloc(tcp, tcb);
		if (rc < 0)
			return rc;
	}
	int rc = tcp_hash_insert(tcp, tcb);
	if (rc < 0)
		return rc == -EADDRINUSE ? -EADDRNOTAVAIL : rc;
	tcb->pmtu = mtu;
	tcb->rcv_mss = (uint16_t)(mtu - tcp_hdrs_len(fam));
	if (tcb->opt.user_mss && tcb->rcv_mss > tcb->opt.user_mss)
		tcb->rcv_mss = tcb->opt.user_mss;
	tcp_snd_init(tcb, tcp_isn(tcp, &tcb->t, now));
	tcb->ts_off = tcp_ts_offset(tcp, &tcb->t);
	tcb->rcv_wscale = (uint8_t)tcp_pick_wscale(tcp, tcb);
	tcp_set_state(tcp, tcb, TCP_SYN_SENT);
	/* CONNECT_CB → RWND_INIT → TIMEOUT_INIT → NEEDS_ECN, then the SYN. */
	tcp_so_active_open(tcp, tcb);
	if (tcb->state != TCP_SYN_SENT)
		return -ECONNABORTED;
	tcp_send_syn(tcp, tcb);
	tcp_timer_set_us(tcp, tcb, TCP_T_RTX, tcb->syn_rto_us);
	return -EINPROGRESS;
}

struct tcb *tcp_accept(struct tcp *tcp, struct tcb *l)
{
	(void)tcp;
	struct tcb *c = l->acc_head;
	if (!c)
		return NULL;
	l->acc_head = c->next;
	if (!l->acc_head)
		l->acc_tail = NULL;
	l->nq_acc--;
	c->next = NULL;
	c->parent = NULL;
	c->flags &= ~TCB_F_ACCQ;
	return c;
}

static int32_t send_call(struct tcp *tcp, struct tcb *tcb, const void *buf, uint32_t len)
{
	if (tcb->err)
		return -tcb->err;
	switch (tcb->state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	case TCP_SYN_SENT:
	case TCP_SYN_RECEIVED:
	case TCP_CLOSED:
	case TCP_LISTEN:
		return tcb->state == TCP_CLOSED && (tcb->flags & TCB_F_FIN_SENT) ? -EPIPE
										 : -ENOTCONN;
	default:
		return -EPIPE;
	}
	if (tcb->flags & TCB_F_FIN_QUEUED)
		return -EPIPE;
	tcp_sndbuf_expand(tcb);
	uint32_t room = tcp_sndbuf_free(tcb);
	if (room == 0)
		return -EAGAIN;
	if (len > room)
		len = room;
	if (len == 0)
		return 0;
	uint32_t most = (tcb->flags & TCB_F_SNDBUF_LOCK) || tcb->sndbuf > tcp->cfg.tcp_wmem_max
			    ? tcb->sndbuf
			    : tcp->cfg.tcp_wmem_max;
	if (ring_reserve_grow(tcp, &tcb->snd, tcb->sndbuf, most) < 0)
		return -ENOMEM;
	tcp_rate_check_app_limited(tcb); /* before the new data: was the sender dry? */
	ring_write_at(&tcb->snd, tcb->snd.len, buf, len);
	/* Linux tcp_sendmsg_locked: tcp_tx_timestamp before tcp_push */
	tcp_so_tstamp_sendmsg(tcp, tcb, len);
	tcp_output(tcp, tcb);
	return (int32_t)len;
}

int32_t tcp_recv(struct tcp *tcp, struct tcb *tcb, void *buf, uint32_t len, bool peek, uint64_t now)
{
	tcp->now = now;
	if (tcb->rcv.len == 0) {
		if (tcb->err)
			return -tcb->err;
		if ((tcb->flags & (TCB_F_FIN_RCVD | TCB_F_RD_SHUT)))
			return 0;
		if (tcb->state == TCP_LISTEN || tcb->state == TCP_SYN_SENT ||
		    (tcb->state == TCP_CLOSED && !(tcb->flags & TCB_F_FIN_RCVD)))
			return tcb->state == TCP_CLOSED ? 0 : -ENOTCONN;
		return -EAGAIN;
	}
	uint32_t before = tcp_rcv_space(tcb);
	uint32_t n = ring_read(&tcb->rcv, buf, len, !peek);
	if (!peek && tcb->rcv.len == 0 && tcb->ooo.n == 0)
		ring_release(tcp, &tcb->rcv, false);
	if (!peek)
		tcp_rcvbuf_copied(tcp, tcb, n);
	/* Window update (RFC 9293 §3.8.6.2.2): tell the peer once the window
	 * grew by a useful amount, in particular when it was closed. */
	if (!peek && tcb->state >= TCP_ESTABLISHED && tcb->state != TCP_TIME_WAIT) {
		uint32_t adv =
		    SEQ_GT(tcb->recv.adv, tcb->recv.nxt) ? tcb->recv.adv - tcb->recv.nxt : 0;
		uint32_t space = tcp_rcv_space(tcb);
		if (space > tcb->recv.ssthresh)
			space = tcb->recv.ssthresh;
		if (space > tcp_rcvbuf_wnd_max(tcb))
			space = tcp_rcvbuf_wnd_max(tcb);
		uint32_t step = tcb->rcvbuf / 2 < tcb->rcv_mss ? tcb->rcvbuf / 2 : tcb->rcv_mss;
		if (space >= adv + step && (before < step || adv < tcb->rcvbuf / 2 || adv == 0))
			tcp_send_ack(tcp, tcb);
	}
	return (int32_t)n;
}

static int shutdown_call(struct tcp *tcp, struct tcb *tcb, bool rd, bool wr)
{
	if (rd)
		tcb->flags |= TCB_F_RD_SHUT;
	if (!wr || (tcb->flags & TCB_F_FIN_QUEUED))
		return 0;
	switch (tcb->state) {
	case TCP_ESTABLISHED:
		tcp_set_state(tcp, tcb, TCP_FIN_WAIT_1);
		break;
	case TCP_CLOSE_WAIT:
		tcp_set_state(tcp, tcb, TCP_LAST_ACK);
		break;
	case TCP_SYN_SENT:
		tcp_done(tcp, tcb, 0);
		return 0;
	case TCP_SYN_RECEIVED:
		/* RFC 9293 §3.10.4: FIN once established; Linux sends it now. */
		tcp_set_state(tcp, tcb, TCP_FIN_WAIT_1);
		break;
	default:
		return tcb->state == TCP_LISTEN || tcb->state == TCP_CLOSED ? -ENOTCONN : 0;
	}
	tcb->flags |= TCB_F_FIN_QUEUED;
	tcb->fin_seq = tcb->send.una + tcb->snd.len;
	tcp_output(tcp, tcb);
	return 0;
}

void tcp_abort(struct tcp *tcp, struct tcb *tcb, uint64_t now, bool send_rst)
{
	tcp->now = now;
	if (send_rst && tcb->state != TCP_CLOSED && tcb->state != TCP_LISTEN &&
	    tcb->state != TCP_TIME_WAIT && tcb->state != TCP_SYN_SENT)
		tcp_send_rst(tcp, tcb);
	if (tcb->state == TCP_LISTEN) {
		while (tcb->syn_head)
			tcp_release(tcp, tcb->syn_head);
		for (struct tcb *c; (c = tcp_accept(tcp, tcb));) {
			tcp_abort(tcp, c, now, send_rst);
		}
	}
	tcp_release(tcp, tcb);
}

static void close_call(struct tcp *tcp, struct tcb *tcb, uint64_t now)
{
	tcb->sd = -1;
	tcb->flags |= TCB_F_ORPHAN | TCB_F_RD_SHUT;
	switch (tcb->state) {
	case TCP_LISTEN:
		/* Linux __tcp_close: tcp_set_state(TCP_CLOSE) first, so a
		 * listener whose program asked for STATE_CB sees LISTEN → CLOSE;
		 * then unaccepted children are reset (inet_csk_listen_stop). */
		tcp_so_state(tcp, tcb, TCP_LISTEN, TCP_CLOSED);
		tcp_abort(tcp, tcb, now, true);
		return;
	case TCP_CLOSED:
	case TCP_SYN_SENT:
		tcp_release(tcp, tcb);
		return;
	default:
		break;
	}
	if (tcb->rcv.len) {
		/* RFC 9293 §3.10.4 / RFC 2525 §2.17: unread data → reset. */
		tcp_abort(tcp, tcb, now, true);
		return;
	}
	if (tcb->state == TCP_TIME_WAIT)
		return;
	tcp_shutdown(tcp, tcb, true, true, now);
	if (tcb->state == TCP_FIN_WAIT_2)
		tcp_timer_set_us(tcp, tcb, TCP_T_KEEP, TCP_FIN_TIMEOUT_MS * CLK_US_PER_MS);
}

/* The entry points: sock_ops effects recorded by the calls above are applied
 * on the way out (tcp_effect.c). */
int tcp_listen(struct tcp *tcp, struct tcb *tcb, int backlog, uint64_t now)
{
	tcp->now = now;
	tcp_enter(tcp);
	int rc = listen_call(tcp, tcb, backlog);
	tcp_leave(tcp);
	return rc;
}

int tcp_connect(struct tcp *tcp, struct tcb *tcb, const void *raddr, uint16_t rport, uint64_t now)
{
	tcp->now = now;
	tcp_enter(tcp);
	int rc = connect_call(tcp, tcb, raddr, rport, now);
	tcp_leave(tcp);
	return rc;
}

int32_t tcp_send(struct tcp *tcp, struct tcb *tcb, const void *buf, uint32_t len, uint64_t now)
{
	tcp->now = now;
	tcp_enter(tcp);
	int32_t rc = send_call(tcp, tcb, buf, len);
	tcp_leave(tcp);
	return rc;
}

int tcp_shutdown(struct tcp *tcp, struct tcb *tcb, bool rd, bool wr, uint64_t now)
{
	tcp->now = now;
	tcp_enter(tcp);
	int rc = shutdown_call(tcp, tcb, rd, wr);
	tcp_leave(tcp);
	return rc;
}

void tcp_close(struct tcp *tcp, struct tcb *tcb, uint64_t now)
{
	tcp->now = now;
	tcp_enter(tcp);
	close_call(tcp, tcb, now);
	tcp_leave(tcp);
}
