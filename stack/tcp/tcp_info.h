/* tcp_info: what TCP reports of a connection (struct skops_tcp_info, in
 * the spirit of Linux's struct tcp_info) and of the stack (its counters).
 * skops.h hands both to applications; the TCP fills them (tcp_report.c)
 * without including skops.h, which sits above it. */
#ifndef SKOPS_STACK_TCP_TCP_INFO_H
#define SKOPS_STACK_TCP_TCP_INFO_H

#include <stdbool.h>
#include <stdint.h>

#define SKOPS_ECN_OK	   (1u << 0) /* negotiated */
#define SKOPS_ECN_ECT_SEEN (1u << 1) /* peer's data carried ECT */
#define SKOPS_ECN_CE_SEEN  (1u << 2) /* a CE mark was received */
#define SKOPS_ECN_ECE_SEEN (1u << 3) /* an ECE came back */
#define SKOPS_MAX_SYN_GAPS 8	     /* SYN retransmission gaps skops_tcp_info reports */

struct skops_tcp_info {
	uint8_t state;	     /* enum hooks_tcp_state numbering (kernel TCP_*) */
	char state_name[16]; /* "ESTABLISHED", ... */
	uint32_t cwnd, ssthresh, snd_cwnd_clamp, initial_cwnd, max_cwnd; /* segments */
	uint32_t srtt_us, rttvar_us, rto_ms, rtt_min_us;
	uint32_t rcv_wnd, snd_wnd; /* bytes, unscaled */
	uint8_t rcv_wscale, snd_wscale;
	bool ts_ok, sack_ok;
	uint32_t mss;	  /* send MSS */
	uint32_t rcv_mss; /* our advertised MSS */
	uint32_t retransmits, total_retrans;
	char cc[16];
	int32_t dctcp_alpha; /* DCTCP's alpha in 1024ths (tcp_dctcp_info), -1 without DCTCP */
	uint32_t ecn;	     /* SKOPS_ECN_* */
	char cgroup[128];
	uint32_t sndbuf, rcvbuf;
	uint64_t bytes_acked, bytes_received, bytes_sent, bytes_retrans;
	uint32_t segs_in, segs_out, data_segs_in, data_segs_out;
	uint32_t unacked, notsent;
	/* SYN (or SYN-ACK) transmissions: first RTO and the gaps in µs (whole ms) */
	uint32_t syn_rto_ms;
	uint32_t syn_retrans;
	uint32_t syn_gaps_us[SKOPS_MAX_SYN_GAPS];
	uint32_t syn_wnd; /* window field we sent in the SYN / SYN-ACK */
	uint32_t cb_flags;
	/* loss recovery (docs/tcp.md): segments RACK deemed lost, tail loss
	 * probes sent, losses a probe repaired, RTOs undone as spurious
	 * (Linux's TCPLossProbes, TCPLossProbeRecovery, TCPSpuriousRTOs) */
	uint32_t rack_lost, tlp_probes, tlp_recovered, spurious_rtos;
	/* receive autotuning (Linux tcpi_rcv_rtt, tcpi_rcv_space): the
	 * receiver's RTT estimate (0: none) and the bytes read in one */
	uint32_t rcv_rtt_us, rcv_space;
	/* pacing (Linux tcpi_pacing_rate, tcpi_max_pacing_rate): bytes a
	 * second, UINT64_MAX for no limit */
	uint64_t pacing_rate, max_pacing_rate;
};

/* The stack's TCP counters, named as Linux's netstat: SyncookiesSent,
 * SyncookiesRecv, SyncookiesFailed, ListenOverflows, ListenDrops; how often
 * receive autotuning grew a buffer; and loss recovery: RetransSegs,
 * TCPTimeouts, TCPFastRetrans (recovery episodes entered), segments RACK
 * marked lost, TCPLossProbes, TCPLossProbeRecovery, TCPSpuriousRTOs, and
 * segments dropped out of order for want of room (TCPOFODrop). */
struct skops_tcp_counters {
	uint64_t syncookies_sent, syncookies_recv, syncookies_failed;
	uint64_t listen_overflows, listen_drops;
	uint64_t rcvbuf_grown;
	uint64_t retrans_segs, timeouts, fast_retrans, rack_lost;
	uint64_t loss_probes, loss_probe_recovery, spurious_rtos, ofo_drop;
	uint64_t out_of_window_icmps; /* OutOfWindowIcmps (RFC 5927 §4.1) */
	/* not a counter: the bytes of freed send/receive buffers the stack
	 * keeps for its next connections (TCP_RING_CACHE), so a heap figure
	 * can tell a leak from this cache */
	uint64_t ring_cache_bytes;
};

#endif
