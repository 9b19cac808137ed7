/* tcp_report: the two reports of a connection's state, each filled by one
 * function from the tcb's sub-states: struct skops_tcp_info (tcp_info.h,
 * skops_tcp_info and --info) and the sock_ops context's fields (the hooks'
 * info op, Linux's bpf_sock_ops and bpf_tcp_sock); and the stack's
 * counters. Nothing here writes a tcb. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cgroup.h"
#include "tcp_info.h"
#include "tcp_int.h"

void tcp_get_info(const struct tcb *tcb, struct skops_tcp_info *o)
{
	memset(o, 0, sizeof(*o));
	o->state = tcp_state_kernel(tcb->state);
	snprintf(o->state_name, sizeof(o->state_name), "%s", tcp_state_name(tcb->state));
	o->cwnd = tcb->cc.cwnd;
	o->ssthresh = tcb->cc.ssthresh;
	o->snd_cwnd_clamp = tcb->cc.cwnd_clamp;
	o->max_cwnd = tcb->cc.max_cwnd > tcb->cc.cwnd ? tcb->cc.max_cwnd : tcb->cc.cwnd;
	o->initial_cwnd = tcb->cc.initial_cwnd;
	o->srtt_us = tcb->rtt.srtt_us8 >> 3;
	o->rttvar_us = tcb->rtt.rttvar_us4 >> 2;
	o->rto_ms = tcb->rtt.rto_us / CLK_US_PER_MS;
	o->rtt_min_us = tcb->rtt.min_us;
	o->rcv_wnd = tcb->recv.wnd;
	o->snd_wnd = tcb->send.wnd;
	o->rcv_wscale = (tcb->flags & TCB_F_WS) ? tcb->rcv_wscale : 0;
	o->snd_wscale = (tcb->flags & TCB_F_WS) ? tcb->snd_wscale : 0;
	o->ts_ok = (tcb->flags & TCB_F_TS) != 0;
	o->sack_ok = (tcb->flags & TCB_F_SACK) != 0;
	o->mss = tcb->mss;
	o->rcv_mss = tcb->rcv_mss;
	o->retransmits = tcb->rtx.retransmits;
	o->total_retrans = tcb->cnt.total_retrans;
	o->rack_lost = tcb->rack.lost;
	o->tlp_probes = tcb->tlp.probes;
	o->tlp_recovered = tcb->tlp.recovered;
	o->spurious_rtos = tcb->rec.spurious_rtos;
	o->rcv_rtt_us = tcb->rcvq.rtt_us8 >> 3;
	o->rcv_space = tcb->rcvq.space;
	if (tcb->cc.ops)
		snprintf(o->cc, sizeof(o->cc), "%.15s", tcb->cc.ops->name);
	o->dctcp_alpha = tcb->cc.ops ? cc_dctcp_alpha(tcb) : -1;
	o->ecn = ((tcb->flags & TCB_F_ECN) ? SKOPS_ECN_OK : 0) | tcb->ecn_seen;
	if (tcb->hs.cg)
		snprintf(o->cgroup, sizeof(o->cgroup), "%s", cg_node_path(tcb->hs.cg));
	o->sndbuf = tcb->sndbuf;
	o->rcvbuf = tcb->rcvbuf;
	o->bytes_acked = tcb->cnt.bytes_acked;
	o->bytes_received = tcb->cnt.bytes_received;
	o->bytes_sent = tcb->cnt.bytes_sent;
	o->bytes_retrans = tcb->cnt.bytes_retrans;
	o->segs_in = tcb->cnt.segs_in;
	o->segs_out = tcb->cnt.segs_out;
	o->data_segs_in = tcb->cnt.data_segs_in;
	o->data_segs_out = tcb->cnt.data_segs_out;
	o->unacked = tcb->send.max - tcb->send.una;
	o->notsent = tcb->snd.len - (tcb->send.nxt - tcb->send.una < tcb->snd.len
					 ? tcb->send.nxt - tcb->send.una
					 : tcb->snd.len);
	o->syn_rto_ms = tcb->syn_rto_us / CLK_US_PER_MS;
	o->syn_retrans = tcb->syn_tx ? tcb->syn_tx - 1 : 0;
	_Static_assert(TCP_MAX_SYN_GAPS <= SKOPS_MAX_SYN_GAPS, "skops_tcp_info holds every gap");
	for (int i = 0; i < TCP_MAX_SYN_GAPS; i++)
		o->syn_gaps_us[i] = tcb->syn_gaps_ms[i] * CLK_US_PER_MS;
	o->syn_wnd = tcb->syn_wnd > 65535u ? 65535u : tcb->syn_wnd;
	o->cb_flags = tcb->hs.cb_flags;
	o->pacing_rate = tcb->pace.rate;
	o->max_pacing_rate = tcb->pace.max_rate;
}

void tcp_get_counters(const struct tcp *tcp, struct skops_tcp_counters *o)
{
	memset(o, 0, sizeof(*o));
	o->syncookies_sent = tcp->stats.syncookies_sent;
	o->syncookies_recv = tcp->stats.syncookies_recv;
	o->syncookies_failed = tcp->stats.syncookies_failed;
	o->listen_overflows = tcp->stats.listen_overflows;
	o->listen_drops = tcp->stats.listen_drops;
	o->out_of_window_icmps = tcp->stats.icmp_out_of_window;
	o->rcvbuf_grown = tcp->stats.rcvbuf_grown;
	o->retrans_segs = tcp->stats.retrans;
	o->timeouts = tcp->stats.rto;
	o->fast_retrans = tcp->stats.fast_retrans;
	o->rack_lost = tcp->stats.rack_lost;
	o->loss_probes = tcp->stats.tlp_probes;
	o->loss_probe_recovery = tcp->stats.tlp_recovered;
	o->spurious_rtos = tcp->stats.frto_spurious;
	o->ofo_drop = tcp->stats.ooo_drop;
	for (uint32_t i = 0; i < tcp->ring_cache.n; i++)
		o->ring_cache_bytes += tcp->ring_cache.cap[i];
}

/* ---- the sock_ops context ---- */

static void so_mapped(uint32_t ip6[4], uint32_t v4)
{
	uint8_t m[16] = {[10] = 0xff, [11] = 0xff};
	memcpy(m + 12, &v4, 4);
	memcpy(ip6, m, 16);
}

/* Linux counts sequence space, not data (tcp_snd_una_update): bytes_acked
 * takes the SYN on the active side (a child starts with snd_una past its
 * SYN-ACK, tcp_create_openreq_child) and the FIN once acked. The stack's own
 * counter, also tcp_info's, stays data only. */
static uint64_t so_bytes_acked(const struct tcb *tcb)
{
	uint64_t n = tcb->cnt.bytes_acked;
	if (!(tcb->flags & TCB_F_LISTEN_CHILD) && SEQ_GT(tcb->send.una, tcb->send.iss))
		n++;
	if ((tcb->flags & TCB_F_FIN_SENT) && SEQ_GT(tcb->send.una, tcb->fin_seq))
		n++;
	return n;
}

/* Linux tcp_rcv_nxt_update: the FIN moves rcv_nxt and counts; the SYN does
 * not (tcp_rcv_synsent_state_process sets rcv_nxt directly). */
static uint64_t so_bytes_received(const struct tcb *tcb)
{
	return tcb->cnt.bytes_received + ((tcb->flags & TCB_F_FIN_RCVD) ? 1u : 0u);
}

/* The struct tcp_sock fields only bpf_skc_to_tcp_sock shows, as Linux keeps
 * them: rcv_wup is rcv_nxt when the window was last advertised, copied_seq the
 * next byte the application reads (the FIN is not one), write_seq the end of
 * what it wrote (a SYN in flight and a queued FIN count), window_clamp never 0
 * (without TCP_WINDOW_CLAMP the largest window the scale can say). */
static void so_info_tcp_sock(const struct tcb *tcb, struct hooks_sk_info *o)
{
	uint32_t wnd = tcb->recv.wnd;
	if (!wnd && SEQ_GT(tcb->recv.adv, tcb->recv.nxt))
		wnd = tcb->recv.adv - tcb->recv.nxt; /* only the SYN's window so far */
	o->mdev_us = tcb->rtt.rttvar_us4;
	o->rcv_wnd = wnd;
	o->rcv_wup = wnd ? tcb->recv.adv - wnd : tcb->recv.nxt;
	o->window_clamp = tcb->opt.window_clamp
			      ? tcb->opt.window_clamp
			      : 65535u << ((tcb->flags & TCB_F_WS) ? tcb->rcv_wscale : 0);
	o->copied_seq = tcb->recv.nxt - tcb->rcv.len - ((tcb->flags & TCB_F_FIN_RCVD) ? 1u : 0u);
	uint32_t w = tcb->send.una + tcb->snd.len;
	if (tcb->send.una == tcb->send.iss && tcb->send.max != tcb->send.iss)
		w++;
	o->write_seq = (tcb->flags & TCB_F_FIN_QUEUED) ? tcb->fin_seq + 1 : w;
	o->snd_wnd = tcb->send.wnd;
	o->snd_wl1 = tcb->send.wl1;
	o->rcv_ssthresh = tcb->recv.ssthresh;
}

/* The sock_ops context's fields of a connection (hooks_sock_ops.info). */
void tcp_so_info(const struct hooks_sock *hs, uint32_t groups, struct hooks_sk_info *o)
{
	const struct tcb *tcb = tcb_of_hs(hs);
	if (groups & HOOKS_INFO_ADDR) {
		o->family = tcb->sk_family;
		if (tcb->t.family == AF_INET) {
			o->remote_ip4 = tcb->t.raddr.v4;
			o->local_ip4 = tcb->t.laddr.v4;
			/* An IPv4 connection of an AF_INET6 socket: Linux shows
			 * family AF_INET6, the IPv4 addresses in the ip4 fields and
			 * their v4-mapped forms in the ip6 fields. */
			if (tcb->sk_family == AF_INET6) {
				so_mapped(o->remote_ip6, tcb->t.raddr.v4);
				so_mapped(o->local_ip6, tcb->t.laddr.v4);
			}
		} else {
			memcpy(o->remote_ip6, tcb->t.raddr.v6, 16);
			memcpy(o->local_ip6, tcb->t.laddr.v6, 16);
		}
		o->remote_port = tcb->t.rport;
		o->local_port = tcb->t.lport;
		o->is_fullsock = hs->fullsock;
	}
	if ((groups & HOOKS_INFO_TCP) && hs->fullsock) {
		o->snd_cwnd = tcb->cc.cwnd;
		o->srtt_us = tcb->rtt.srtt_us8;
		o->state = tcp_state_kernel(tcb->state);
		o->rtt_min = tcb->rtt.min_us;
		o->snd_ssthresh = tcb->cc.ssthresh;
		o->rcv_nxt = tcb->recv.nxt;
		o->snd_nxt = tcb->send.nxt;
		o->snd_una = tcb->send.una;
		o->mss_cache = tcb->mss;
		o->ecn_flags = (tcb->flags & TCB_F_ECN) ? 1u : 0u; /* TCP_ECN_OK */
		uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
		o->packets_out = (tcb->send.max - tcb->send.una + mss - 1) / mss;
		o->total_retrans = tcb->cnt.total_retrans;
		o->segs_in = tcb->cnt.segs_in;
		o->data_segs_in = tcb->cnt.data_segs_in;
		o->segs_out = tcb->cnt.segs_out;
		o->data_segs_out = tcb->cnt.data_segs_out;
		o->bytes_received = so_bytes_received(tcb);
		o->bytes_acked = so_bytes_acked(tcb);
		o->icsk_retransmits = tcb->rtx.retransmits;
		so_info_tcp_sock(tcb, o);
	}
	if (groups & HOOKS_INFO_SOCK) {
		o->sk_type = SOCK_STREAM;
		o->sk_protocol = IPPROTO_TCP;
		o->sk_mark = tcb->opt.mark;
		o->sk_priority = tcb->opt.priority;
		o->sk_txhash = tcb->txhash;
	}
}
