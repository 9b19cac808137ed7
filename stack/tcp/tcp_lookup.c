/* tcp_lookup: the connection table (open addressing on the 4-tuple with
 * linear probing and backward-shift deletion: no tombstones, at most half
 * full), listeners, and ephemeral port selection (RFC 6056 §3.3.1-style:
 * a random start, then the first port whose 4-tuple is free). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_jhash.h>

#include "tcp_int.h"

uint32_t tcp_tuple_hash(const struct tcp_tuple *t)
{
	return rte_jhash_32b((const uint32_t *)t, sizeof(*t) / 4, 0x5eed5eed);
}

static bool tuple_eq(const struct tcp_tuple *a, const struct tcp_tuple *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

int tcp_hash_insert(struct tcp *tcp, struct tcb *tcb)
{
	uint32_t i = tcp_tuple_hash(&tcb->t) & tcp->ht_mask;
	for (uint32_t n = 0; n <= tcp->ht_mask; n++, i = (i + 1) & tcp->ht_mask) {
		struct tcb *c = tcp->ht[i];
		if (!c) {
			tcp->ht[i] = tcb;
			tcb->flags |= TCB_F_HASHED;
			return 0;
		}
		if (tuple_eq(&c->t, &tcb->t))
			return -EADDRINUSE;
	}
	return -ENOSPC;
}

struct tcb *tcp_hash_find(struct tcp *tcp, const struct tcp_tuple *t)
{
	uint32_t i = tcp_tuple_hash(t) & tcp->ht_mask;
	for (uint32_t n = 0; n <= tcp->ht_mask; n++, i = (i + 1) & tcp->ht_mask) {
		struct tcb *c = tcp->ht[i];
		if (!c)
			return NULL;
		if (tuple_eq(&c->t, t))
			return c;
	}
	return NULL;
}

void tcp_hash_remove(struct tcp *tcp, struct tcb *tcb)
{
	if (!(tcb->flags & TCB_F_HASHED))
		return;
	uint32_t i = tcp_tuple_hash(&tcb->t) & tcp->ht_mask;
	uint32_t n;
	for (n = 0; n <= tcp->ht_mask; n++, i = (i + 1) & tcp->ht_mask)
		if (tcp->ht[i] == tcb)
			break;
	tcb->flags &= ~TCB_F_HASHED;
	if (n > tcp->ht_mask)
		return;
	/* Backward shift: move later entries of the probe run into the hole
	 * when their home slot does not lie cyclically in (hole, j]. */
	uint32_t hole = i;
	for (uint32_t j = (i + 1) & tcp->ht_mask; tcp->ht[j]; j = (j + 1) & tcp->ht_mask) {
		uint32_t home = tcp_tuple_hash(&tcp->ht[j]->t) & tcp->ht_mask;
		bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!in_range) {
			tcp->ht[hole] = tcp->ht[j];
			hole = j;
		}
	}
	tcp->ht[hole] = NULL;
}

/* How well listener l matches a SYN for t: 0 not at all; a specific
 * address beats a wildcard, and between equals an AF_INET socket beats an
 * AF_INET6 one (Linux compute_score). An IPv4 SYN also finds AF_INET6
 * listeners that are not IPV6_V6ONLY, on :: or on its v4-mapped address;
 * an IPv6 SYN finds AF_INET6 listeners only. */
static int listener_score(const struct tcb *l, const struct tcp_tuple *t)
{
	if (l->t.lport != t->lport)
		return 0;
	if (t->family == AF_INET6) {
		if (l->t.family != AF_INET6 || tcp_v6_is_mapped(l->t.laddr.v6))
			return 0;
		if (tcp_v6_is_any(l->t.laddr.v6))
			return 1;
		return memcmp(l->t.laddr.v6, t->laddr.v6, 16) == 0 ? 3 : 0;
	}
	uint32_t a;
	int fam_bonus = 1;
	if (l->t.family == AF_INET) {
		a = l->t.laddr.v4;
	} else {
		if (l->v6only)
			return 0;
		if (tcp_v6_is_any(l->t.laddr.v6))
			return 1;
		if (!tcp_v6_is_mapped(l->t.laddr.v6))
			return 0;
		memcpy(&a, l->t.laddr.v6 + 12, 4);
		fam_bonus = 0;
	}
	if (a == 0)
		return 1 + fam_bonus;
	return a == t->laddr.v4 ? 3 + fam_bonus : 0;
}

/* A listener bound to our port (SO_BINDTODEVICE) beats an unbound one of
 * the same kind; one bound to another port hears nothing. */
static int listener_score_dev(const struct tcp *tcp, const struct tcb *l, const struct tcp_tuple *t)
{
	if (!tcp_dev_ok(tcp, l))
		return 0;
	int sc = listener_score(l, t);
	return sc ? 2 * sc + (l->bound_if != 0) : 0;
}

/* Members of one SO_REUSEPORT group (Linux reuseport_add_sock: same port,
 * address, device and owner). */
static bool same_group(const struct tcb *a, const struct tcb *b)
{
	return a->reuseport && b->reuseport && a->uid == b->uid && a->bound_if == b->bound_if &&
	       a->t.family == b->t.family &&
	       memcmp(&a->t.laddr, &b->t.laddr, sizeof(a->t.laddr)) == 0;
}

struct tcb *tcp_listener_find(struct tcp *tcp, const struct tcp_tuple *t)
{
	struct tcb *best = NULL;
	int best_score = 0;
	uint32_t group = 0;
	for (struct tcb *l = tcp->listeners; l; l = l->next) {
		int sc = listener_score_dev(tcp, l, t);
		if (sc > best_score) {
			best = l;
			best_score = sc;
			group = 1;
		} else if (sc && sc == best_score && same_group(l, best)) {
			group++;
		}
	}
	if (group < 2)
		return best;
	/* SO_REUSEPORT: the SYN's 4-tuple picks one of the group, so every
	 * segment of a handshake (and a retransmitted SYN) finds the same
	 * one (Linux reuseport_select_sock without a BPF selector). */
	uint32_t pick = tcp_tuple_hash(t) % group;
	const struct tcb *first = best;
	for (struct tcb *l = tcp->listeners; l; l = l->next)
		if (l == first ||
		    (listener_score_dev(tcp, l, t) == best_score && same_group(l, first)))
			if (pick-- == 0)
				return l;
	return best;
}

void tcp_listener_add(struct tcp *tcp, struct tcb *tcb)
{
	tcb->prev = NULL;
	tcb->next = tcp->listeners;
	if (tcp->listeners)
		tcp->listeners->prev = tcb;
	tcp->listeners = tcb;
}

void tcp_listener_remove(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->prev)
		tcb->prev->next = tcb->next;
	else if (tcp->listeners == tcb)
		tcp->listeners = tcb->next;
	if (tcb->next)
		tcb->next->prev = tcb->prev;
	tcb->next = tcb->prev = NULL;
}

int tcp_port_alloc(struct tcp *tcp, struct tcb *tcb)
{
	uint32_t range = TCP_EPH_HI - TCP_EPH_LO + 1;
	uint32_t start = rnd_below(&tcp->rnd, range);
	for (uint32_t i = 0; i < range; i++) {
		uint16_t port = (uint16_t)(TCP_EPH_LO + (start + i) % range);
		if (tcp_port_in_use(tcp, port))
			continue;
		tcb->t.lport = port;
		if (!tcp_hash_find(tcp, &tcb->t))
			return 0;
	}
	tcb->t.lport = 0;
	return -EADDRNOTAVAIL;
}
