/* net: the neighbour cache shared by ARP (RFC 826, RFC 1122 §2.3.2.1-2) and
 * NDP (RFC 4861 §7.2-7.3, static addresses without DAD). An unresolved
 * neighbour holds a few packets (RFC 1122 §2.3.2.2 "SHOULD save at least
 * one"); an expired entry is still used while it is re-probed (NDP's STALE),
 * a neighbour that never answers fails its packets with -EHOSTUNREACH. */
#include "net_int.h"

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

static struct net_neigh *neigh_find(struct net *n, uint8_t family, const void *addr)
{
	size_t al = net_alen(family);
	for (unsigned i = 0; i < NET_NEIGH_MAX; i++) {
		struct net_neigh *e = &n->neigh[i];
		if (e->state != NET_NEIGH_FREE && e->family == family && !memcmp(e->addr, addr, al))
			return e;
	}
	return NULL;
}

static void neigh_drop_queue(struct net *n, struct net_neigh *e)
{
	for (uint32_t i = 0; i < e->nq; i++)
		rte_pktmbuf_free(e->q[i]);
	n->st.neigh_failed += e->nq;
	e->nq = 0;
}

/* A free slot, else the oldest non-incomplete one (its queue is empty). */
static struct net_neigh *neigh_alloc(struct net *n)
{
	struct net_neigh *victim = NULL;
	for (unsigned i = 0; i < NET_NEIGH_MAX; i++) {
		struct net_neigh *e = &n->neigh[i];
		if (e->state == NET_NEIGH_FREE)
			return e;
		if (e->state != NET_NEIGH_INCOMPLETE && (!victim || e->expires < victim->expires))
			victim = e;
	}
	if (victim) {
		neigh_drop_queue(n, victim);
		memset(victim, 0, sizeof(*victim));
	} else {
		n->st.neigh_table_full++;
	}
	return victim;
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
	e->nq = 0;
}

void net_neigh_learn(struct net *n, uint8_t family, const void *addr, const uint8_t mac[6],
		     bool create)
{
	struct net_neigh *e = neigh_find(n, family, addr);
	if (!e) {
		if (!create)
			return;
		e = neigh_alloc(n);
		if (!e)
			return;
		e->family = family;
		memset(e->addr, 0, 16);
		memcpy(e->addr, addr, net_alen(family));
	}
	memcpy(e->mac, mac, 6);
	e->state = NET_NEIGH_REACHABLE;
	e->expires = n->now + n->cfg.neigh_timeout_ms * CLK_NS_PER_MS;
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
		/* The failure has aged out: try again. */
		e->state = NET_NEIGH_INCOMPLETE;
		e->probes = 0;
		neigh_probe(n, e);
	}
	if (e && e->state == NET_NEIGH_REACHABLE && e->expires <= n->now) {
		e->state = NET_NEIGH_STALE;
		e->probes = 0;
		neigh_probe(n, e);
	}
	if (e && (e->state == NET_NEIGH_REACHABLE || e->state == NET_NEIGH_STALE))
		return net_eth_send(n, m, e->mac, type);
	if (!e) {
		e = neigh_alloc(n);
		if (!e) {
			rte_pktmbuf_free(m);
			return -ENOBUFS;
		}
		e->family = family;
		memset(e->addr, 0, 16);
		memcpy(e->addr, nexthop, net_alen(family));
		e->state = NET_NEIGH_INCOMPLETE;
		neigh_probe(n, e);
	}
	if (e->nq >= n->cfg.neigh_queue) {
		/* Keep the newest packets: retransmissions supersede old ones. */
		rte_pktmbuf_free(e->q[0]);
		memmove(e->q, e->q + 1, (e->nq - 1) * sizeof(e->q[0]));
		e->nq--;
		n->st.neigh_queue_drop++;
	}
	e->q[e->nq++] = m;
	return 0;
}

/* How long a failed entry keeps its slot after its failure aged out. */
#define NEIGH_FAILED_KEEP_NS (60 * CLK_NS_PER_S)

/* When net_neigh_timers has work for e next. */
static uint64_t neigh_due(const struct net_neigh *e)
{
	if (e->state == NET_NEIGH_INCOMPLETE || e->state == NET_NEIGH_STALE)
		return e->next_probe;
	if (e->state == NET_NEIGH_FAILED)
		return e->expires + NEIGH_FAILED_KEEP_NS;
	return UINT64_MAX;
}

uint64_t net_neigh_timers(struct net *n)
{
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < NET_NEIGH_MAX; i++) {
		struct net_neigh *e = &n->neigh[i];
		if (neigh_due(e) <= n->now) {
			if (e->state == NET_NEIGH_FAILED) {
				/* Freed lazily: a later output retries after expiry. */
				memset(e, 0, sizeof(*e));
			} else if (e->probes >= n->cfg.neigh_max_probes) {
				neigh_drop_queue(n, e);
				/* Remember the failure for one probe round so that
				 * senders see -EHOSTUNREACH instead of queueing again. */
				e->state = NET_NEIGH_FAILED;
				e->expires = n->now + n->cfg.neigh_retrans_ms * CLK_NS_PER_MS;
			} else {
				neigh_probe(n, e);
			}
		}
		uint64_t due = neigh_due(e);
		next = due < next ? due : next;
	}
	return next;
}

uint64_t net_neigh_deadline(const struct net *n)
{
	uint64_t d = UINT64_MAX;
	for (unsigned i = 0; i < NET_NEIGH_MAX; i++) {
		const struct net_neigh *e = &n->neigh[i];
		if ((e->state == NET_NEIGH_INCOMPLETE || e->state == NET_NEIGH_STALE) &&
		    e->next_probe < d)
			d = e->next_probe;
	}
	return d;
}

void net_neigh_fini(struct net *n)
{
	for (unsigned i = 0; i < NET_NEIGH_MAX; i++)
		for (uint32_t j = 0; j < n->neigh[i].nq; j++)
			rte_pktmbuf_free(n->neigh[i].q[j]);
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
	/* RFC 826 "Packet reception": merge the sender into an existing entry;
	 * create one only when the packet is for us. A sender claiming our own
	 * address, or 0.0.0.0 (an RFC 5227 probe), is never learnt. */
	if (r.spa != 0 && !net_is_local(n, AF_INET, &r.spa))
		net_neigh_learn(n, AF_INET, &r.spa, r.sha, for_us);
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
		if (!net_is_local(n, AF_INET6, r.target))
			return;
		if (!dad && r.has_lla)
			net_neigh_learn(n, AF_INET6, ip->src, r.lla, true);
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
		net_neigh_learn(n, AF_INET6, r.target, r.lla, false);
}
