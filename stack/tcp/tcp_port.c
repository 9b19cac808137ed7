/* tcp_port: the port table. Sockets that called bind() (or listen()
 * without it) hold their local port here until they are released; a new
 * bind, and each listen, is checked against the other holders of the port
 * with Linux's rules (inet_csk_bind_conflict, inet_rcv_saddr_equal):
 * addresses overlap when they are equal or one is a wildcard, where an
 * AF_INET6 socket on :: also covers IPv4 unless it is IPV6_V6ONLY, and
 * SO_REUSEADDR on both lets them share a port while the holder is not
 * listening; SO_REUSEPORT on both, with one owner, lets them share it
 * even then; sockets bound to two different devices never conflict.
 * Accepted and connected sockets do not hold their port here
 * (Linux also counts them and TIME_WAIT sockets). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

bool tcp_v6_is_any(const uint8_t a[16])
{
	static const uint8_t zero[16];
	return memcmp(a, zero, 16) == 0;
}

bool tcp_v6_is_mapped(const uint8_t a[16])
{
	static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return memcmp(a, pre, 12) == 0;
}

/* A bound socket's local address as the conflict rules see it. */
enum bind_kind {
	BK_ANY,	   /* AF_INET6 on :: */
	BK_MAPPED, /* an IPv4 address or 0.0.0.0, of either family */
	BK_V6,	   /* a specific IPv6 address */
};

struct bind_view {
	bool inet6; /* the socket is AF_INET6 */
	bool v6only;
	enum bind_kind kind;
	uint32_t v4; /* BK_MAPPED: the IPv4 address (0: 0.0.0.0) */
	const uint8_t *v6;
};

static void view_of(const struct tcb *tcb, struct bind_view *v)
{
	v->inet6 = tcb->sk_family == AF_INET6;
	v->v6only = tcb->v6only;
	v->v6 = tcb->t.laddr.v6;
	v->v4 = 0;
	if (tcb->t.family == AF_INET) {
		/* an AF_INET socket, or an AF_INET6 one connected over IPv4 */
		v->kind = BK_MAPPED;
		v->v4 = tcb->t.laddr.v4;
	} else if (tcp_v6_is_any(v->v6)) {
		v->kind = BK_ANY;
	} else if (tcp_v6_is_mapped(v->v6)) {
		v->kind = BK_MAPPED;
		memcpy(&v->v4, v->v6 + 12, 4);
	} else {
		v->kind = BK_V6;
		v->v6only = true; /* Linux sets it when binding such an address */
	}
}

static bool v4_overlap(uint32_t a, uint32_t b)
{
	return a == b || a == 0 || b == 0;
}

/* Whether a (the socket being bound) and b (a holder) claim a common
 * local address; not symmetric in Linux either, only a's IPV6_V6ONLY
 * matters for a's wildcard and b's for b's. */
static bool overlap(const struct bind_view *a, const struct bind_view *b)
{
	if (!a->inet6) {
		if (b->v6only) /* every BK_V6 holder is */
			return false;
		return b->kind == BK_ANY || v4_overlap(a->v4, b->v4);
	}
	if (a->kind == BK_MAPPED && b->kind == BK_MAPPED)
		return !b->v6only && v4_overlap(a->v4, b->v4);
	if (a->kind == BK_ANY && b->kind == BK_ANY)
		return true;
	if (b->kind == BK_ANY && !(b->v6only && a->kind == BK_MAPPED))
		return true;
	if (a->kind == BK_ANY && !(a->v6only && b->kind == BK_MAPPED))
		return true;
	return a->kind == BK_V6 && b->kind == BK_V6 && memcmp(a->v6, b->v6, 16) == 0;
}

bool tcp_port_in_use(const struct tcp *tcp, uint16_t port)
{
	for (const struct tcb *b = tcp->bind_ht[port % TCP_BIND_SLOTS]; b; b = b->bind_next)
		if (b->t.lport == port)
			return true;
	return false;
}

int tcp_port_conflict(const struct tcp *tcp, const struct tcb *tcb, uint16_t port)
{
	struct bind_view me, other;
	view_of(tcb, &me);
	bool reuse = (tcb->flags & TCB_F_REUSEADDR) != 0;
	for (const struct tcb *b = tcp->bind_ht[port % TCP_BIND_SLOTS]; b; b = b->bind_next) {
		if (b == tcb || b->t.lport != port)
			continue;
		/* bound to two different devices: no common address */
		if (tcb->bound_if && b->bound_if && tcb->bound_if != b->bound_if)
			continue;
		if (reuse && (b->flags & TCB_F_REUSEADDR) && b->state != TCP_LISTEN)
			continue;
		/* SO_REUSEPORT on both, one owner: they share (listeners too) */
		if (tcb->reuseport && b->reuseport && tcb->uid == b->uid)
			continue;
		view_of(b, &other);
		if (overlap(&me, &other))
			return -EADDRINUSE;
	}
	return 0;
}

void tcp_port_add(struct tcp *tcp, struct tcb *tcb)
{
	struct tcb **head = &tcp->bind_ht[tcb->t.lport % TCP_BIND_SLOTS];
	tcb->bind_next = *head;
	*head = tcb;
	tcb->flags |= TCB_F_BOUND;
}

void tcp_port_remove(struct tcp *tcp, struct tcb *tcb)
{
	if (!(tcb->flags & TCB_F_BOUND))
		return;
	tcb->flags &= ~TCB_F_BOUND;
	for (struct tcb **pp = &tcp->bind_ht[tcb->t.lport % TCP_BIND_SLOTS]; *pp;
	     pp = &(*pp)->bind_next) {
		if (*pp == tcb) {
			*pp = tcb->bind_next;
			break;
		}
	}
	tcb->bind_next = NULL;
}
