/* stack: one instance of the whole stack (one lcore): net + tcp + hooks,
 * the poll loop (read the clock once, receive, timers, callbacks, flush,
 * quiescent state), and the glue that turns TCP reprs into mbufs and
 * received mbufs into reprs (wire/tcp.c): docs/architecture.md "Data path". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <rte_mbuf.h>

#include "cgroup.h"
#include "dev/dev.h"
#include "hooks.h"
#include "stack_int.h"

#define STACK_SCRATCH 65536u

static int st_xmit(void *arg, const struct tcp_tuple *t, uint8_t tos, const struct tcp_repr *r,
		   const struct tcp_iov *d)
{
	struct stack *st = arg;
	struct rte_mbuf *m = net_alloc(st->net);
	if (!m)
		return -ENOBUFS;
	size_t hl = tcp_repr_hdr_len(r);
	size_t total = hl + d->n[0] + d->n[1];
	char *p = rte_pktmbuf_append(m, (uint16_t)total);
	if (total > UINT16_MAX || !p) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	tcp_emit(r, (uint8_t *)p);
	if (d->n[0])
		memcpy(p + hl, d->p[0], d->n[0]);
	if (d->n[1])
		memcpy(p + hl + d->n[0], d->p[1], d->n[1]);
	struct ip_meta meta;
	memset(&meta, 0, sizeof(meta));
	meta.family = t->family;
	meta.proto = IPPROTO_TCP;
	meta.tos = tos;
	meta.flow = r->ip6_flow;
	memcpy(&meta.src, &t->laddr, sizeof(meta.src));
	memcpy(&meta.dst, &t->raddr, sizeof(meta.dst));
	return net_output(st->net, m, &meta);
}

static uint32_t st_tx_room(void *arg)
{
	struct stack *st = arg;
	return net_tx_room(st->net);
}

static int st_route(void *arg, uint8_t family, const void *dst, void *src, uint32_t *mtu)
{
	struct stack *st = arg;
	return net_route(st->net, family, dst, src, mtu);
}

static void st_event(void *arg, struct tcb *tcb)
{
	struct stack *st = arg;
	struct skops_sock *s = stack_sock(st, tcp_tcb_sd(tcb));
	if (!s || !s->cb || s->tcb != tcb)
		return;
	uint32_t ev = tcp_events(tcb);
	if (ev)
		s->cb(s->cb_arg, s->sd, ev);
}

static void st_tcp_rx(void *arg, struct rte_mbuf *m, const struct ip_meta *meta)
{
	struct stack *st = arg;
	uint32_t len = meta->l4_len;
	if (len > rte_pktmbuf_pkt_len(m))
		len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, st->scratch);
	if (!p) {
		rte_pktmbuf_free(m);
		return;
	}
	struct tcp_repr r;
	int hl = tcp_parse(p, len, &r);
	if (hl >= 0) {
		struct tcp_tuple t;
		memset(&t, 0, sizeof(t));
		t.family = meta->family;
		memcpy(&t.laddr, &meta->dst, sizeof(t.laddr));
		memcpy(&t.raddr, &meta->src, sizeof(t.raddr));
		if (t.family == AF_INET) {
			memset(t.laddr.v6 + 4, 0, 12);
			memset(t.raddr.v6 + 4, 0, 12);
		}
		t.lport = r.dport;
		t.rport = r.sport;
		/* The Ethernet and IP headers are still in front of the TCP
		 * header when the segment was read in place. */
		struct tcp_rx_hdrs hdrs = {
		    .mac_len = meta->l2_len, .net_len = meta->l3_len, .tcp_len = (uint16_t)hl};
		uint32_t front = (uint32_t)meta->l2_len + meta->l3_len;
		if (meta->l3_len && p == rte_pktmbuf_mtod(m, const uint8_t *) &&
		    rte_pktmbuf_headroom(m) >= front)
			hdrs.p = p - front;
		tcp_input(st->tcp, st->now, &t, &r, p + hl, len - (uint32_t)hl, meta->tos & 3,
			  hdrs.p ? &hdrs : NULL);
	}
	rte_pktmbuf_free(m);
}

static bool st_syn_pressure(void *arg, uint8_t family)
{
	struct stack *st = arg;
	return net_neigh_pressure(st->net, family);
}

static bool st_icmp(void *arg, const struct net_icmp_err *e)
{
	struct stack *st = arg;
	struct tcp_tuple t;
	memset(&t, 0, sizeof(t));
	t.family = e->inner.family;
	memcpy(&t.laddr, &e->inner.src, sizeof(t.laddr));
	memcpy(&t.raddr, &e->inner.dst, sizeof(t.raddr));
	if (t.family == AF_INET) {
		memset(t.laddr.v6 + 4, 0, 12);
		memset(t.raddr.v6 + 4, 0, 12);
	}
	/* the quoted header's first 8 bytes: ports and sequence number */
	t.lport = wire_get16(e->l4);
	t.rport = wire_get16(e->l4 + 2);
	uint32_t seq = wire_get32(e->l4 + 4);
	return tcp_icmp(st->tcp, st->now, &t, seq, e->kind == NET_ICMP_FRAG_NEEDED ? e->mtu : 0,
			e->kind == NET_ICMP_UNREACH_PORT || e->kind == NET_ICMP_UNREACH_OTHER);
}

int stack_create(const struct stack_config *cfg, struct stack **out)
{
	if (!cfg || !out || !cfg->net.clk)
		return -EINVAL;
	struct stack *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = *cfg;
	int rc = -ENOMEM;
	st->scratch = malloc(STACK_SCRATCH);
	uint32_t max_conns = cfg->max_conns ? cfg->max_conns : 1024;
	st->nsocks = cfg->max_socks ? cfg->max_socks : max_conns + 64;
	st->socks = calloc(st->nsocks, sizeof(*st->socks));
	st->udp_dirty = calloc(st->nsocks, sizeof(*st->udp_dirty));
	if (!st->scratch || !st->socks || !st->udp_dirty)
		goto fail;
	for (uint32_t i = 0; i < st->nsocks; i++)
		st->socks[i].next_free = i + 1 < st->nsocks ? (int)i + 1 : -1;
	st->free_sd = 0;
	st->now = clk_now(cfg->net.clk);
	rc = net_create(&cfg->net, &st->net);
	if (rc < 0)
		goto fail;
	if (cfg->cg_tree) {
		rc = cg_lookup(cfg->cg_tree, cfg->default_cgroup ? cfg->default_cgroup : "/", true,
			       &st->default_cg);
		if (rc < 0)
			goto fail;
		st->hooks = cfg->hooks;
		if (!st->hooks) {
			struct hooks_config hc = {
			    .tree = cfg->cg_tree, .reg = cfg->reg, .lcore = cfg->lcore};
			rc = hooks_create(&hc, &st->hooks);
			if (rc < 0)
				goto fail;
			st->own_hooks = true;
		}
		hooks_bind_thread(st->hooks);
	}
	struct tcp_config tc = {
	    .hooks = st->hooks,
	    .default_cg = st->default_cg,
	    .hz = cfg->hz,
	    .syn_linear_timeouts = cfg->syn_linear_timeouts,
	    .seed = cfg->seed,
	    .keys_from_seed = cfg->keys_from_seed,
	    .max_conns = max_conns,
	    .wmem_max = cfg->wmem_max,
	    .rmem_max = cfg->rmem_max,
	    .wmem_default = cfg->wmem_default,
	    .rmem_default = cfg->rmem_default,
	    .tcp_rmem_max = cfg->tcp_rmem_max,
	    .tcp_wmem_max = cfg->tcp_wmem_max,
	    .syn_retries = cfg->syn_retries,
	    .synack_retries = cfg->synack_retries,
	    .msl_ms = cfg->msl_ms,
	    .oow_ratelimit_ms = cfg->oow_ratelimit_ms,
	    .challenge_ack_limit = cfg->challenge_ack_limit,
	    .min_snd_mss = cfg->min_snd_mss,
	    .no_timestamps = cfg->no_timestamps,
	    .no_sack = cfg->no_sack,
	    .no_wscale = cfg->no_wscale,
	    .no_rack = cfg->no_rack,
	    .no_tlp = cfg->no_tlp,
	    .no_frto = cfg->no_frto,
	    .ecn_set = cfg->tcp_ecn_set,
	    .ecn = cfg->tcp_ecn,
	    .syncookies_set = cfg->tcp_syncookies_set,
	    .syncookies = cfg->tcp_syncookies,
	    .pacing = cfg->pacing,
	    .pacing_ss_ratio = cfg->tcp_pacing_ss_ratio,
	    .pacing_ca_ratio = cfg->tcp_pacing_ca_ratio,
	    .abort_on_overflow = cfg->tcp_abort_on_overflow,
	    .cc = cfg->cc,
	    .ifname = cfg->ifname,
	    .ifindex = cfg->ifindex,
	    .xmit = st_xmit,
	    .tx_room = st_tx_room,
	    .syn_pressure = st_syn_pressure,
	    .route = st_route,
	    .event = st_event,
	    .arg = st,
	};
	rc = tcp_create(&tc, &st->tcp);
	if (rc < 0)
		goto fail;
	net_set_l4_handler(st->net, IPPROTO_TCP, st_tcp_rx, st);
	net_set_icmp_handler(st->net, st_icmp, st);
	*out = st;
	return 0;
fail:
	stack_destroy(st);
	return rc;
}

void stack_destroy(struct stack *st)
{
	if (!st)
		return;
	if (st->socks) {
		/* Stream sockets die with tcp_destroy, silently, as the header
		 * says; datagram sockets give their queued mbufs back. */
		for (uint32_t i = 0; i < st->nsocks; i++) {
			if (st->socks[i].type == SOCK_STREAM)
				tcp_tcb_set_sd(st->socks[i].tcb, -1);
			else if (st->socks[i].type)
				skops_close(st, (int)i);
			free(st->socks[i].q);
		}
	}
	tcp_destroy(st->tcp);
	if (st->net)
		net_destroy(st->net);
	if (st->default_cg)
		cg_node_put(st->default_cg);
	if (st->own_hooks)
		hooks_destroy(st->hooks);
	free(st->socks);
	free(st->udp_dirty);
	free(st->scratch);
	free(st);
}

int stack_poll(struct stack *st)
{
	st->now = clk_now(st->cfg.net.clk);
	if (st->hooks)
		hooks_bind_thread(st->hooks);
	int work = 0;
	for (int i = 0; i < 8; i++) {
		int n = net_poll(st->net, st->now);
		if (n <= 0)
			break;
		work += n;
	}
	work += tcp_timers(st->tcp, st->now);
	tcp_flush_events(st->tcp);
	stack_udp_events(st);
	net_flush(st->net);
	/* Connections that had more than a turn to send take turns while the
	 * device takes frames (tcp_outq.c). */
	for (int i = 0; i < 4; i++) {
		int n = tcp_output_pending(st->tcp, st->now);
		if (n <= 0)
			break;
		work += n;
		net_flush(st->net);
	}
	if (st->hooks)
		hooks_quiescent(st->hooks);
	return work;
}

uint64_t stack_next_deadline_ns(struct stack *st)
{
	uint64_t d = tcp_next_deadline(st->tcp);
	uint64_t n = net_next_deadline_ns(st->net);
	if (n < d)
		d = n;
	if (st->cfg.net.dev) {
		uint64_t v = dev_next_deadline_ns(st->cfg.net.dev);
		if (v < d)
			d = v;
	}
	return d;
}

struct net *stack_net(struct stack *st)
{
	return st->net;
}

uint64_t stack_now_ns(const struct stack *st)
{
	return st->now;
}
