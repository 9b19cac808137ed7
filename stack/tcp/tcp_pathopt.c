/* tcp_pathopt: the socket options that choose where a connection's segments
 * go and how they are labelled, with Linux 6.1's values and errnos
 * (sk_setsockopt, do_tcp_setsockopt, do_ipv6_setsockopt):
 * - SO_BINDTODEVICE / SO_BINDTOIFINDEX: the stack has one port (tcp_config
 *   ifname, ifindex); a socket bound to another index sends nothing and
 *   receives nothing, as a Linux socket bound to a device without the route;
 * - SO_REUSEPORT: sockets of one owner share a port (tcp_port.c) and an
 *   incoming SYN picks one of the listeners by its 4-tuple (tcp_lookup.c);
 * - SO_TXREHASH: a new random txhash on every retransmission timeout, so an
 *   IPv6 connection's flow label changes and an ECMP path may too;
 * - IPV6_AUTOFLOWLABEL: the flow label of an IPv6 connection's segments
 *   comes from its txhash (Linux ip6_make_flowlabel, RFC 6437 §3);
 * - TCP_THIN_LINEAR_TIMEOUTS: the RTO does not back off for the first
 *   TCP_THIN_LINEAR_RETRIES timeouts of a thin stream (tcp_timer.c). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

#ifndef SOL_TCP
#define SOL_TCP 6
#endif
#define SO_REUSEPORT_OPT     15
#define SO_BINDTODEVICE_OPT  25
#define SO_BINDTOIFINDEX_OPT 62
#define SO_TXREHASH_OPT	     74
#define TCP_THIN_LTO_OPT     16 /* TCP_THIN_LINEAR_TIMEOUTS */
#define IPV6_AUTOFLOW_OPT    70 /* IPV6_AUTOFLOWLABEL */
#define IFNAME_MAX	     16 /* IFNAMSIZ, with the NUL */
/* Linux: a thin stream's RTO stays linear for this many retries, then backs
 * off as any other (TCP_THIN_LINEAR_RETRIES). */
#define THIN_LINEAR_RETRIES 6u
#define THIN_PACKETS	    4u
#define TXREHASH_DEFAULT    255 /* -1 as a u8: take the stack's default */

static uint32_t port_ifindex(const struct tcp *tcp)
{
	return tcp->cfg.ifindex ? tcp->cfg.ifindex : 1;
}

static const char *port_ifname(const struct tcp *tcp)
{
	return tcp->cfg.ifname ? tcp->cfg.ifname : "skops0";
}

/* Linux net_tx_rndhash: random and never 0 (0 means "no hash"). */
static uint32_t new_txhash(struct tcp *tcp)
{
	uint32_t h = rnd_u32(&tcp->rnd);
	return h ? h : 1;
}

void tcp_pathopt_init(struct tcp *tcp, struct tcb *tcb)
{
	tcb->txhash = new_txhash(tcp);
	tcb->txrehash = 1; /* net.core.txrehash's default, SOCK_TXREHASH_ENABLED */
	tcb->autoflowlabel = -1;
}

void tcp_pathopt_inherit(struct tcb *c, const struct tcb *l)
{
	c->bound_if = l->bound_if;
	c->uid = l->uid;
	c->reuseport = l->reuseport;
	c->thin_lto = l->thin_lto;
	c->txrehash = l->txrehash;
	c->autoflowlabel = l->autoflowlabel;
}

void tcp_set_owner(struct tcb *tcb, uint32_t uid)
{
	tcb->uid = uid;
}

bool tcp_dev_ok(const struct tcp *tcp, const struct tcb *tcb)
{
	return tcb->bound_if == 0 || tcb->bound_if == port_ifindex(tcp);
}

/* Linux sock_bindtoindex_locked: any index ≥ 0 is taken, whether or not a
 * device has it (only SO_BINDTODEVICE's name must exist). */
static int bind_index(struct tcb *tcb, int ifindex)
{
	if (ifindex < 0)
		return -EINVAL;
	tcb->bound_if = (uint32_t)ifindex;
	return 0;
}

/* Linux sock_setbindtodevice: at most IFNAMSIZ - 1 bytes up to a NUL; "" or
 * an empty value unbinds; a name no device has is -ENODEV. */
static int bind_name(struct tcb *tcb, const void *val, uint32_t len)
{
	char name[IFNAME_MAX];
	memset(name, 0, sizeof(name));
	if (len > IFNAME_MAX - 1)
		len = IFNAME_MAX - 1;
	if (len && !val)
		return -EFAULT;
	memcpy(name, val, len);
	if (!name[0])
		return bind_index(tcb, 0);
	if (strcmp(name, port_ifname(tcb->tcp)) != 0)
		return -ENODEV;
	return bind_index(tcb, (int)port_ifindex(tcb->tcp));
}

int tcp_pathopt_set(struct tcb *tcb, int level, int optname, const void *val, uint32_t len)
{
	if (level == SOL_SOCKET && optname == SO_BINDTODEVICE_OPT)
		return bind_name(tcb, val, len);
	int v;
	bool ours = (level == SOL_SOCKET &&
		     (optname == SO_REUSEPORT_OPT || optname == SO_BINDTOIFINDEX_OPT ||
		      optname == SO_TXREHASH_OPT)) ||
		    (level == SOL_TCP && optname == TCP_THIN_LTO_OPT) ||
		    (level == SOL_IPV6 && optname == IPV6_AUTOFLOW_OPT);
	if (!ours)
		return -ENOPROTOOPT;
	if (!val || len < sizeof(v))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	switch (optname) {
	case SO_REUSEPORT_OPT:
		tcb->reuseport = v != 0;
		return 0;
	case SO_BINDTOIFINDEX_OPT:
		return bind_index(tcb, v);
	case SO_TXREHASH_OPT:
		if (v < -1 || v > 1)
			return -EINVAL;
		tcb->txrehash = (uint8_t)v == TXREHASH_DEFAULT ? 1 : (uint8_t)v;
		return 0;
	case TCP_THIN_LTO_OPT:
		if (v < 0 || v > 1)
			return -EINVAL;
		tcb->thin_lto = v != 0;
		return 0;
	default: /* IPV6_AUTOFLOWLABEL: IPv6 sockets (Linux: ENOPROTOOPT otherwise) */
		if (tcb->sk_family != AF_INET6)
			return -ENOPROTOOPT;
		tcb->autoflowlabel = v != 0;
		return 0;
	}
}

int tcp_pathopt_get(const struct tcb *tcb, int level, int optname, int *v)
{
	if (level == SOL_SOCKET && optname == SO_REUSEPORT_OPT)
		*v = tcb->reuseport;
	else if (level == SOL_SOCKET && optname == SO_BINDTOIFINDEX_OPT)
		*v = (int)tcb->bound_if;
	else if (level == SOL_SOCKET && optname == SO_TXREHASH_OPT)
		*v = tcb->txrehash;
	else if (level == SOL_TCP && optname == TCP_THIN_LTO_OPT)
		*v = tcb->thin_lto;
	else if (level == SOL_IPV6 && optname == IPV6_AUTOFLOW_OPT && tcb->sk_family == AF_INET6)
		*v = tcb->autoflowlabel != 0; /* not set: on, auto_flowlabels' default */
	else
		return -ENOPROTOOPT;
	return 0;
}

/* The application's getsockopt(SO_BINDTODEVICE): the bound port's name,
 * or an empty answer when unbound (Linux sock_getbindtodevice). */
int tcp_pathopt_devname(const struct tcb *tcb, void *val, uint32_t *len)
{
	const char *n = tcb->bound_if == 0			  ? ""
			: tcb->bound_if == port_ifindex(tcb->tcp) ? port_ifname(tcb->tcp)
								  : NULL;
	if (!n)
		return -ENODEV; /* bound to an index no device has */
	uint32_t l = (uint32_t)strlen(n);
	if (l == 0) {
		*len = 0;
		return 0;
	}
	if (*len < l + 1)
		return -EINVAL;
	memcpy(val, n, l + 1);
	*len = l + 1;
	return 0;
}

uint32_t tcp_flowlabel(const struct tcb *tcb)
{
	if (tcb->t.family != AF_INET6 || !tcb->autoflowlabel)
		return 0;
	/* Linux ip6_make_flowlabel: the flow hash rotated by 16, low 20 bits
	 * (flowlabel_state_ranges 0: the top bit is not forced). */
	uint32_t h = tcb->txhash;
	return ((h << 16) | (h >> 16)) & 0xfffffu;
}

void tcp_rto_rehash(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->txhash && tcb->txrehash == 1)
		tcb->txhash = new_txhash(tcp);
}

/* Linux tcp_retransmit_timer with thin_lto: an established stream with
 * fewer than 4 segments out and past initial slow start (tcp_stream_is_thin)
 * keeps its RTO for the first THIN_LINEAR_RETRIES timeouts. */
bool tcp_thin_linear(const struct tcb *tcb)
{
	if (!tcb->thin_lto || tcb->state != TCP_ESTABLISHED ||
	    tcb->rtx.retransmits > THIN_LINEAR_RETRIES || tcb->cc.ssthresh >= 0x7fffffffu)
		return false;
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	return (tcb->send.max - tcb->send.una + mss - 1) / mss < THIN_PACKETS;
}
