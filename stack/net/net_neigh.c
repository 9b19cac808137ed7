/* net: the neighbour cache shared by ARP (RFC 826, RFC 1122 §2.3.2.1-2) and
 * NDP (RFC 4861 §7.2-7.3, static addresses without DAD). An unresolved
 * neighbour holds a few packets (RFC 1122 §2.3.2.2 "SHOULD save at least
 * one"); an expired entry is still used while it is re-probed (NDP's STALE),
 * a neighbour that never answers fails its packets with -EHOSTUNREACH. */
#include "net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

static struct net_neigh_tbl *neigh_tbl(struct net *n, uint8_t family)
{
	return family == AF_INET ? &n->neigh4 : &n->neigh6;
}

static uint32_t neigh_hash(const struct net_neigh_tbl *t, uint8_t family, const void *addr)
{
	const uint8_t *a = addr;
	uint32_t h = t->key;
	for (size_t i = 0; i < net_alen(family); i += 4) {
		uint32_t w;
		memcpy(&w, a + i, 4);
		h = (h ^ w) * 0x9e3779b1u;
		h ^= h >> 15;
	}
	return h & (t->nbucket - 1);
}

static int tbl_init(struct net_neigh_tbl *t, uint32_t cap, uint32_t key)
{
	t->cap = cap;
	t->nbucket = 1;
	while (t->nbucket < cap)
		t->nbucket <<= 1;
	t->e = calloc(cap, sizeof(*t->e));
	t->bucket = malloc(t->nbucket * sizeof(*t->bucket));
	if (!t->e || !t->bucket)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nbucket; i++)
		t->bucket[i] = -1;
	for (uint32_t i = 0; i < cap; i++)
		t->e[i].hnext = i + 1 < cap ? (int32_t)i + 1 : -1;
	t->free = 0;
	t->phead = t->ptail = -1;
	/* A quarter may wait for an answer, at least 8: room for a /24 of
	 * spoofed sources, each probed once a second (Linux's incomplete
	 * entries); a smaller share would churn, one ARP per SYN. */
	t->pending_max = cap / 4 < 8 ? (cap < 8 ? cap : 8) : cap / 4;
	t->key = key;
	return 0;
}

int net_neigh_init(struct net *n)
{
	uint32_t cap = n->cfg.neigh_max;
	int rc = tbl_init(&n->neigh4, cap, rnd_u32(&n->rnd));
	return rc ? rc : tbl_init(&n->neigh6, cap, rnd_u32(&n->rnd));
}

static int32_t neigh_idx(const struct net_neigh_tbl *t, const struct net_neigh *e)
{
	return (int32_t)(e - t->e);
}

static struct net_neigh *neigh_find(struct net *n, uint8_t family, const void *addr)
{
	struct net_neigh_tbl *t = neigh_tbl(n, family);
	size_t al = net_alen(family);
	for (int32_t i = t->bucket[neigh_hash(t, family, addr)]; i >= 0; i = t->e[i].hnext)
		if (!memcmp(t->e[i].addr, addr, al))
			return &t->e[i];
	return NULL;
}

/* The probing list holds INCOMPLETE and STALE entries, in the order they
 * began probing: the deadline looks only there, eviction takes its oldest
 * INCOMPLETE one. */
static void probing_add(struct net_neigh_tbl *t, struct net_neigh *e)
{
	int32_t i = neigh_idx(t, e);
	e->pnext = -1;
	e->pprev = t->ptail;
	if (t->ptail >= 0)
		t->e[t->ptail].pnext = i;
	else
		t->phead = i;
	t->ptail = i;
}

static void probing_del(struct net_neigh_tbl *t, struct net_neigh *e)
{
	if (e->pprev >= 0)
		t->e[e->pprev].pnext = e->pnext;
	else
		t->phead = e->pnext;
	if (e->pnext >= 0)
		t->e[e->pnext].pprev = e->pprev;
	else
		t->ptail = e->pprev;
	e->pprev = e->pnext = -1;
}

static bool probing(enum net_neigh_state s)
{
	return s == NET_NEIGH_INCOMPLETE || s == NET_NEIGH_STALE;
}

/* Every state change goes through here: it keeps the counts and the
 * probing list. */
static void neigh_set_state(struct net *n, struct net_neigh *e, enum net_neigh_state s)
{
	struct net_neigh_tbl *t = neigh_tbl(n, e->family);
	if (probing(e->state) && !probing(s))
		probing_del(t, e);
	else if (!probing(e->state) && probing(s))
		probing_add(t, e);
	t->pending += (s == NET_NEIGH_INCOMPLETE) - (e->state == NET_NEIGH_INCOMPLETE);
	e->state = s;
}

static void neigh_drop_queue(struct net *n, struct net_neigh *e)
{
	for (uint32_t i = 0; i < e->nq; i++)
		rte_pktmbuf_free(e->q[i]);
	n->st.neigh_failed += e->nq;
	neigh_tbl(n, e->family)->queued -= e->nq;
	e->nq = 0;
}

static void neigh_free(struct net *n, struct net_neigh *e)
{
	struct net_neigh_tbl *t = neigh_tbl(n, e->family);
	neigh_drop_queue(n, e);
	neigh_set_state(n, e, NET_NEIGH_FREE);
	int32_t *pp = &t->bucket[neigh_hash(t, e->family, e->addr)];
	int32_t i = neigh_idx(t, e);
	while (*pp != i)
		pp = &t->e[*pp].hnext;
	*pp = e->hnext;
	memset(e, 0, sizeof(*e));
	e->hnext = t->free;
	t->free = i;
	t->used--;
}

/* The default gateway's entry is never given up for another (Linux keeps a
 * route's neighbour referenced). */
static bool neigh_is_gw(const struct net *n, const struct net_neigh *e)
{
	if (e->family == AF_INET)
		return n->cfg.gw4 && !memcmp(e->addr, &n->cfg.gw4, 4);
	static const uint8_t zero[16];
	return memcmp(n->cfg.gw6, zero, 16) && !memcmp(e->addr, n->cfg.gw6, 16);
}

/* The oldest unresolved entry that is not the gateway's. */
static struct net_neigh *oldest_pending(struct net *n, struct net_neigh_tbl *t)
{
	for (int32_t i = t->phead; i >= 0; i = t->e[i].pnext)
		if (t->e[i].state == NET_NEIGH_INCOMPLETE && !neigh_is_gw(n, &t->e[i]))
			return &t->e[i];
	return NULL;
}

/* Room in a full table: an entry nobody answered for goes first (the
 * oldest unresolved, then a failed one, then the oldest learnt only from
 * a request), never one a neighbour confirmed. */
static struct net_neigh *neigh_victim(struct net *n, struct net_neigh_tbl *t)
{
	struct net_neigh *v = oldest_pending(n, t);
	if (v)
		return v;
	for (uint32_t i = 0; i < t->cap; i++) {
		struct net_neigh *e = &t->e[i];
		if (e->state == NET_NEIGH_FREE || neigh_is_gw(n, e))
			continue;
		if (e->state == NET_NEIGH_FAILED)
			return e;
		if (e->unconfirmed && (!v || e->expires < v->expires))
			v = e;
	}
	return v;
}

/* A new entry for addr. pending: we have something to send there; it waits
 * for an answer, so it counts against the unresolved entries' share and
 * displaces the oldest of those when that is used up (Linux bounds the
 * queues, skops the entries too: a SYN flood from spoofed on-link sources
 * makes one per source), and a full table makes room for it. */
static struct net_neigh *neigh_alloc(struct net *n, uint8_t family, const void *addr, bool pending)
{
	struct net_neigh_tbl *t = neigh_tbl(n, family);
	struct net_neigh *v = NULL;
	/* An entry learnt from a request (nobody asked us to send) displaces
	 * nothing: spoofed requests must not push out what we resolve, and a
	 * flood of them must not pay a scan each. */
	if (pending && t->pending >= t->pending_max)
		v = oldest_pending(n, t);
	else if (t->free < 0 && pending)
		v = neigh_victim(n, t);
	if (v) {
		n->st.neigh_evicted++;
		neigh_free(n, v);
	}
	if (t->free < 0 || (pending && t->pending >= t->pending_max)) {
		n->st.neigh_table_full++;
		return NULL;
	}
	int32_t i = t->free;
	struct net_neigh *e = &t->e[i];
	t->free = e->hnext;
	t->used++;
	memset(e, 0, sizeof(*e));
	e->family = family;
	memcpy(e->addr, addr, net_alen(family));
	e->pprev = e->pnext = -1;
	uint32_t b = neigh_hash(t, family, e->addr);
	e->hnext = t->bucket[b];
	t->bucket[b] = i;
	return e;
}

bool net_neigh_pressure(const struct net *n, uint8_t family)
{
	const struct net_neigh_tbl *t = family == AF_INET ? &n->neigh4 : &n->neigh6;
	return t->pending * 2 >= t->pending_max || t->used * 8 >= t->cap * 7;
}

static void arp_send(struct net *n, uint16_t op, uint32_t spa, const uint8_t tha[6], uint32_t tpa,
		     const uint8_t *eth_dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(n->cfg.pool);
	if (!m) {
		n->st.out_nobufs++;
		return;
	}
	struct wire_view v = {(uint8_t *)rte_pktmbuf_append(m, ARP_LEN), ARP_LEN};
	struct arp_repr r = {.op = op, .spa = spa, .tpa = tpa};
	memcpy(r.sha, n->caps.mac, 6);
	memcpy(r.tha, tha, 6);
	arp_emit(&r, &v);
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	if (op == ARP_OP_REQUEST)
		n->st.arp_requests_out++;
	else
		n->st.arp_replies_out++;
	net_eth_send(n, m, eth_dst ? eth_dst : bc, ETH_TYPE_ARP);
}

void net_arp_announce(struct net *n)
{
	static const uint8_t zero[6];
	/* Gratuitous ARP (RFC 5227 §3 announcement): sender = target = our
	 * address, so peers refresh a stale mapping. */
	for (unsigned i = 0; i < n->cfg.naddrs; i++)
		if (n->cfg.addrs[i].family == AF_INET)
			arp_send(n, ARP_OP_REQUEST, n->cfg.addrs[i].addr.v4, zero,
				 n->cfg.addrs[i].addr.v4, NULL);
}

static const struct net_addr *neigh_src_for(struct net *n, uint8_t family, const void *target)
{
	const struct net_addr *a = net_addr_match(n, family, target);
	if (a)
		return a;
	for (unsigned i = 0; i < n->cfg.naddrs; i++)
		if (n->cfg.addrs[i].family == family)
			return &n->cfg.addrs[i];
	return NULL;
}

static void ns_send(struct net *n, const uint8_t target[16], const uint8_t *unicast_mac)
{
	const struct net_addr *a = neigh_src_for(n, AF_INET6, target);
	if (!a)
		return;
	uint8_t body[32], dst[16];
	struct ndp_repr r = {.type = NDP_NS, .has_lla = true};
	memcpy(r.target, target, 16);
	memcpy(r.lla, n->caps.mac, 6);
	struct icmp_repr ic;
	ndp_emit_body(&r, body, sizeof(body), &ic);
	/* RFC 4861 §7.2.2: multicast to the solicited-node group while
	 * resolving; unicast to the cached address when re-probing. */
	if (unicast_mac)
		memcpy(dst, target, 16);
	else
		ip6_solicited_node(target, dst);
	n->st.ndp_ns_out++;
	net_icmp6_send(n, a->addr.v6, dst, 255, &ic, unicast_mac);
}

static void neigh_probe(struct net *n, struct net_neigh *e)
{
	const uint8_t *uc = e->state == NET_NEIGH_STALE ? e->mac : NULL;
	if (e->family == AF_INET) {
		static const uint8_t zero[6];
		const struct net_addr *a = neigh_src_for(n, AF_INET, e->addr);
		uint32_t tpa;
		memcpy(&tpa, e->addr, 4);
		if (a)
			arp_send(n, ARP_OP_REQUEST, a->addr.v4, zero, tpa, uc);
	} else {
		ns_send(n, e->addr, uc);
	}
	e->probes++;
	e->next_probe = n->now + n->cfg.neigh_retrans_ms * CLK_NS_PER_MS;
	net_timers_arm(n, e->next_probe);
}

static void neigh_send_queue(struct net *n, struct net_neigh *e)
{
	uint16_t type = e->family == AF_INET ? ETH_TYPE_IP4 : ETH_TYPE_IP6;
	for (uint32_t i = 0; i < e->nq; i++)
		net_eth_send(n, e->q[i], e->mac, type);
	neigh_tbl(n, e->family)->queued -= e->nq;
	e->nq = 0;
}

void net_neigh_learn(struct net *n, uint8_t family, const void *addr, const uint8_t mac[6],
		     bool create, bool confirm)
{
	struct net_neigh *e = neigh_find(n, family, addr);
	if (!e) {
		if (!create)
			return;
		e = neigh_alloc(n, family, addr, false);
		if (!e)
			return;
		e->unconfirmed = true;
	}
	if (confirm)
		e->unconfirmed = false;
	memcpy(e->mac, mac, 6);
	neigh_set_state(n, e, NET_NEIGH_REACHABLE);
	e->expires = n->now + n->cfg.neigh_timeout_ms * CLK_NS_PER_MS;
	net_timers_arm(n, e->expires + NET_NEIGH_GC_NS);
	e->probes = 0;
	neigh_send_queue(n, e);
}

int net_neigh_output(struct net *n, struct rte_mbuf *m, uint8_t family, const void *nexthop)
{
	struct net_neigh *e = neigh_find(n, family, nexthop);
	uint16_t type = family == AF_INET ? ETH_TYPE_IP4 : ETH_TYPE_IP6;
	if (e && e->state == NET_NEIGH_FAILED) {
		if (e->expires > n->now) {
			rte_pktmbuf_free(m);
			n->st.neigh_failed++;
			return -EHOSTUNREACH;
		}
		/* The failure has aged out: try again, within the unresolved
		 * entries' share like a new one. */
		neigh_free(n, e);
		e = NULL;
	}
	if (e && e->state == NET_NEIGH_REACHABLE && e->expires <= n->now) {
		neigh_set_state(n, e, NET_NEIGH_STALE);
		e->probes = 0;
		neigh_probe(n, e);
	}
	if (e && (e->state == NET_NEIGH_REACHABLE || e->state == NET_NEIGH_STALE))
		return net_eth_send(n, m, e->mac, type);
	if (!e) {
		e = neigh_alloc(n, family, nexthop, true);
		if (!e) {
			rte_pktmbuf_free(m);
			return -ENOBUFS;
		}
		neigh_set_state(n, e, NET_NEIGH_INCOMPLETE);
		neigh_probe(n, e);
	}
	struct net_neigh_tbl *t = neigh_tbl(n, family);
	if (e->nq >= n->cfg.neigh_queue || (e->nq && t->queued >= NET_NEIGH_QTOTAL)) {
		/* Keep the newest packets: retransmissions supersede old ones. */
		rte_pktmbuf_free(e->q[0]);
		memmove(e->q, e->q + 1, (e->nq - 1) * sizeof(e->q[0]));
		e->nq--;
		t->queued--;
		n->st.neigh_queue_drop++;
	}
	if (t->queued >= NET_NEIGH_QTOTAL) {
		/* The mbufs every connection shares are not spent on sources
		 * that may never answer: the packet goes, its entry probes on. */
		rte_pktmbuf_free(m);
		n->st.neigh_queue_drop++;
		return 0;
	}
	e->q[e->nq++] = m;
	t->queued++;
	return 0;
}

/* How long a failed entry keeps its slot after its failure aged out. */
#define NEIGH_FAILED_KEEP_NS (60 * CLK_NS_PER_S)

/* When net_neigh_timers has work for e next. */
static uint64_t neigh_due(const struct net *n, const struct net_neigh *e)
{
	if (probing(e->state))
		return e->next_probe;
	if (e->state == NET_NEIGH_FAILED)
		return e->expires + NEIGH_FAILED_KEEP_NS;
	/* Linux gc_stale_time: unused a minute past its reachable time */
	if (e->state == NET_NEIGH_REACHABLE && !neigh_is_gw(n, e))
		return e->expires + NET_NEIGH_GC_NS;
	return UINT64_MAX;
}

static uint64_t tbl_timers(struct net *n, struct net_neigh_tbl *t)
{
	uint64_t next = UINT64_MAX;
	for (uint32_t i = 0; i < t->cap; i++) {
		struct net_neigh *e = &t->e[i];
		if (e->state == NET_NEIGH_FREE)
			continue;
		if (neigh_due(n, e) <= n->now) {
			if (e->state == NET_NEIGH_FAILED || e->state == NET_NEIGH_REACHABLE) {
				/* Freed lazily: a later output retries after expiry. */
				neigh_free(n, e);
				continue;
			} else if (e->probes >= n->cfg.neigh_max_probes) {
				neigh_drop_queue(n, e);
				/* Remember the failure for one probe round so that
				 * senders see -EHOSTUNREACH instead of queueing again. */
				neigh_set_state(n, e, NET_NEIGH_FAILED);
				e->expires = n->now + n->cfg.neigh_retrans_ms * CLK_NS_PER_MS;
			} else {
				neigh_probe(n, e);
			}
		}
		uint64_t due = neigh_due(n, e);
		next = due < next ? due : next;
	}
	return next;
}

uint64_t net_neigh_timers(struct net *n)
{
	uint64_t a = tbl_timers(n, &n->neigh4), b = tbl_timers(n, &n->neigh6);
	return a < b ? a : b;
}

static uint64_t tbl_deadline(const struct net_neigh_tbl *t)
{
	uint64_t d = UINT64_MAX;
	for (int32_t i = t->phead; i >= 0; i = t->e[i].pnext)
		if (t->e[i].next_probe < d)
			d = t->e[i].next_probe;
	return d;
}

uint64_t net_neigh_deadline(const struct net *n)
{
	uint64_t a = tbl_deadline(&n->neigh4), b = tbl_deadline(&n->neigh6);
	return a < b ? a : b;
}

static void tbl_fini(struct net_neigh_tbl *t)
{
	for (uint32_t i = 0; t->e && i < t->cap; i++)
		for (uint32_t j = 0; j < t->e[i].nq; j++)
			rte_pktmbuf_free(t->e[i].q[j]);
	free(t->e);
	free(t->bucket);
}

void net_neigh_fini(struct net *n)
{
	tbl_fini(&n->neigh4);
	tbl_fini(&n->neigh6);
}

void net_arp_input(struct net *n, struct rte_mbuf *m)
{
	struct wire_view v = {rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m)};
	struct arp_repr r;
	if (arp_parse(&v, &r)) {
		n->st.arp_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	if (r.op == ARP_OP_REQUEST)
		n->st.arp_requests_in++;
	else
		n->st.arp_replies_in++;
	bool for_us = net_is_local(n, AF_INET, &r.tpa);
	/* Linux arp_process, stricter than RFC 826's merge: a request for one
	 * of our addresses creates (or refreshes) the sender's entry, as we
	 * answer it; a reply to us updates an entry we made (resolving it);
	 * a gratuitous announcement (sender = target) refreshes an entry we
	 * have. Anything else, a request for another host above all, learns
	 * nothing: spoofed requests would fill the table. A sender claiming
	 * our own address, or 0.0.0.0 (an RFC 5227 probe), is never learnt. */
	bool garp = r.spa == r.tpa;
	if (r.spa != 0 && !net_is_local(n, AF_INET, &r.spa)) {
		if (for_us || garp)
			net_neigh_learn(n, AF_INET, &r.spa, r.sha, for_us && r.op == ARP_OP_REQUEST,
					for_us && r.op == ARP_OP_REPLY);
		else
			n->st.neigh_ignored++;
	}
	if (for_us && r.op == ARP_OP_REQUEST)
		arp_send(n, ARP_OP_REPLY, r.tpa, r.sha, r.spa, r.sha);
	rte_pktmbuf_free(m);
}

void net_ndp_input(struct net *n, const struct ip6_repr *ip, const struct icmp_repr *icmp)
{
	struct ndp_repr r;
	/* RFC 4861 §7.1: hop limit 255 proves the packet was not forwarded. */
	if (ip->hop_limit != 255 || ndp_parse(icmp, &r)) {
		n->st.icmp6_bad++;
		return;
	}
	if (r.type == NDP_NS) {
		n->st.ndp_ns_in++;
		bool dad = ip6_is_unspecified(ip->src);
		/* RFC 4861 §7.1.1: a DAD probe carries no SLLA and goes to a
		 * solicited-node group. */
		if (dad && (r.has_lla || !ip6_is_multicast(ip->dst))) {
			n->st.icmp6_bad++;
			return;
		}
		if (!net_is_local(n, AF_INET6, r.target)) {
			n->st.neigh_ignored++;
			return;
		}
		if (!dad && r.has_lla)
			net_neigh_learn(n, AF_INET6, ip->src, r.lla, true, false);
		struct ndp_repr na = {.type = NDP_NA, .has_lla = true};
		memcpy(na.target, r.target, 16);
		memcpy(na.lla, n->caps.mac, 6);
		na.flags = NDP_NA_OVERRIDE | (dad ? 0 : NDP_NA_SOLICITED);
		uint8_t body[32], all_nodes[16] = {0xff, 0x02, [15] = 1};
		struct icmp_repr ic;
		ndp_emit_body(&na, body, sizeof(body), &ic);
		n->st.ndp_na_out++;
		/* §7.2.4: to the soliciting unicast address, directly to its
		 * link-layer address when it gave one; DAD answers go to all
		 * nodes. */
		if (dad)
			net_icmp6_send(n, r.target, all_nodes, 255, &ic, NULL);
		else
			net_icmp6_send(n, r.target, ip->src, 255, &ic, r.has_lla ? r.lla : NULL);
		return;
	}
	n->st.ndp_na_in++;
	/* §7.1.2: a solicited NA must not go to a multicast destination. */
	if ((r.flags & NDP_NA_SOLICITED) && ip6_is_multicast(ip->dst)) {
		n->st.icmp6_bad++;
		return;
	}
	if (r.has_lla && !net_is_local(n, AF_INET6, r.target))
		net_neigh_learn(n, AF_INET6, r.target, r.lla, false, true);
}
