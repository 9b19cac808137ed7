/* tcp_int: what the files of stack/tcp share and nothing outside uses: the
 * per-stack TCP context, the tcb pool, lookup tables, timer wheel, and the
 * functions input/output/timer/sockops call in each other. */
#ifndef SKOPS_STACK_TCP_TCP_INT_H
#define SKOPS_STACK_TCP_TCP_INT_H

#include <sys/socket.h>

#include "cc/cc.h"
#include "tcb.h"
#include "tcp_count.h"
#include "tcp_rcvseq.h"
#include "tcp_rec.h"
#include "tcp.h"

#define TCP_WHEEL_SLOTS 4096u /* 1 ms ticks: one revolution is 4.096 s */
#define TCP_TICK_NS	CLK_NS_PER_MS
#define TCP_EPH_LO	32768u /* Linux ip_local_port_range */
#define TCP_EPH_HI	60999u
#define TCP_BIND_SLOTS	1024u /* port table chains (ports mod 1024) */
/* Drained rings' buffers a stack keeps for reuse (tcb.c): the send and
 * receive rings of 8 busy connections. */
#define TCP_RING_CACHE 16u

/* RFC 6298 §2 and Linux's constants. */
#define TCP_RTO_INIT_US 1000000u
#define TCP_RTO_MIN_US	200000u
#define TCP_RTO_MAX_US	120000000u
/* Linux's TCP_DELACK_MIN and TCP_ATO_MIN: HZ/25 jiffies (40 ms at 100,
 * 250, 300 and 1000). */
#define TCP_DELACK_MIN_J(hz) ((hz) / 25u)
/* TCP_TIMEOUT_MIN_US: what RACK and TLP add (Linux ≥ 6.7; before, 2 jiffies) */
#define TCP_TIMEOUT_MIN_US 2000u
#define TCP_DELACK_MAX_US  200000u
#define TCP_INIT_CWND	   10u	 /* RFC 6928 */
#define TCP_MIN_BUF	   4608u /* SOCK_MIN_SNDBUF-ish: 2 × (2048 + sizeof(sk_buff)) */
#define TCP_KEEP_IDLE_S	   7200u
#define TCP_KEEP_INTVL_S   75u
#define TCP_KEEP_CNT	   9u
#define TCP_FIN_TIMEOUT_MS 60000u

/* IP plus TCP header bytes without options: what an MTU holds beyond the MSS. */
static inline uint32_t tcp_hdrs_len(uint8_t family)
{
	return (family == AF_INET6 ? IP6_HDR_LEN : IP4_HDR_LEN) + TCP_HDR_MIN;
}

struct tcp_stats {
	uint64_t in_segs, in_bad, in_no_conn, in_paws, in_unacceptable, in_challenge_ack, in_rst,
	    challenge_ack_skipped, oow_ack_skipped, out_segs, out_rst, out_err, retrans, rto,
	    fast_retrans, syn_drop, accept_overflow, ooo_drop, pool_empty;
	/* TIME_WAIT connections ended early to make room (Linux counts its
	 * tcp_max_tw_buckets overflow as TCPTimeWaitOverflow) */
	uint64_t tw_recycled;
	/* RFC 8985 / RFC 5682: segments RACK deemed lost, probes sent, losses a
	 * probe repaired, RTOs found spurious (F-RTO or timestamps) and undone */
	uint64_t rack_lost, tlp_probes, tlp_recovered, frto_spurious;
	/* receive buffers autotuning grew (tcp_rcvbuf.c) */
	uint64_t rcvbuf_grown;
	/* Linux's SyncookiesSent/Recv/Failed, ListenOverflows (accept queue
	 * full), ListenDrops (every SYN or final ACK a listener dropped) */
	uint64_t syncookies_sent, syncookies_recv, syncookies_failed, listen_overflows,
	    listen_drops;
	/* Linux OutOfWindowIcmps: ICMP errors quoting a sequence number not in
	 * flight (RFC 5927 §4.1), ignored */
	uint64_t icmp_out_of_window;
};

/* The delivery-rate sample of the ACK being processed (tcp_rate.c): a stack
 * takes one ACK at a time, so one per stack, marked with its connection. */
struct tcp_rate_ack {
	const struct tcb *tcb; /* whose ACK; NULL: none begun */
	uint64_t delivered;    /* the connection's delivered when this ACK began */
	uint32_t lost;	       /* rack.lost when this ACK began */
	uint32_t inflight;     /* bytes in flight when this ACK began */
	bool have;	       /* a segment this ACK delivered had rate state */
	bool app_limited, retrans;
	uint32_t end;
	uint64_t prior_delivered, prior_ns;
	int64_t send_us; /* the send phase of the sampled window */
	/* For the CC's RTT sample (Linux's ca_rtt_us): the send times of the
	 * newest never-resent segment this ACK cumulatively acknowledged and
	 * of the newest it newly SACKed (0: none), and whether it
	 * cumulatively acknowledged a resent one. */
	uint64_t ca_cum_ns, ca_sack_ns;
	bool cum_rtx;
};

struct tcp {
	struct tcp_config cfg;
	uint64_t now;
	struct tcb *pool;
	struct tcb *free_list;
	uint32_t tw_cursor; /* where the next search for a TIME_WAIT to end starts */
	uint32_t nconn;
	/* open addressing on the 4-tuple, linear probing, backward-shift delete */
	struct tcb **ht;
	uint32_t ht_mask;
	struct tcb *listeners;
	struct tcb *bind_ht[TCP_BIND_SLOTS]; /* bound sockets by local port (tcp_port.c) */
	struct rnd rnd;
	struct tcp_rate_ack rate_ack; /* owner: tcp_rate.c */
	uint64_t isn_key[2];
	struct tcb *wheel[TCP_WHEEL_SLOTS];
	uint64_t wheel_tick; /* last tick processed */
	uint32_t timers_armed;
	struct tcb *dirty;	      /* marked since the last flush */
	struct tcb *flushing;	      /* being delivered by tcp_flush_events */
	struct tcb *pend;	      /* effects to apply when depth returns to 0 */
	struct tcb *outq, *outq_tail; /* waiting for an output turn, in order */
	uint32_t depth;		      /* nesting of entry points (tcp_enter/tcp_leave) */
	struct tcp_stats stats;
	uint64_t challenge_sec;		     /* the second challenge_left belongs to */
	uint32_t challenge_left;	     /* challenge ACKs the stack may still send in it */
	const struct tcp_cc_ops *cc_default; /* what new sockets start with */
	struct tcb *cookie_req;		     /* scratch request for a SYN cookie's SYN-ACK */
	struct {
		uint8_t *buf[TCP_RING_CACHE];
		uint32_t cap[TCP_RING_CACHE];
		uint32_t n; /* oldest first */
	} ring_cache;
};

/* tcp_effect.c: the sock_ops boundary. Every entry point of tcp (input,
 * timers, ICMP, user calls) runs between tcp_enter and tcp_leave; a
 * setsockopt records its effect with tcp_defer and the outermost
 * tcp_leave applies it once, after the call that ran the program has
 * finished with the tcb. */
void tcp_enter(struct tcp *tcp);
void tcp_leave(struct tcp *tcp);
void tcp_defer(struct tcp *tcp, struct tcb *tcb, uint8_t what);
void tcp_pend_forget(struct tcp *tcp, struct tcb *tcb); /* tcb is being freed */

/* Invariant checks, compiled into the ASan and fuzz builds (SKOPS_INVARIANTS):
 * a violated one prints where and aborts. */
#ifdef SKOPS_INVARIANTS
void tcp_inv_fail(const char *file, int line, const char *what);
void tcp_check_tcb(const struct tcp *tcp, const struct tcb *tcb);
void tcp_check_ring(const struct tcp_ring *r);
#define TCP_INV(cond) ((cond) ? (void)0 : tcp_inv_fail(__FILE__, __LINE__, #cond))
#else
#define TCP_INV(cond)		((void)0)
#define tcp_check_tcb(tcp, tcb) ((void)(tcp), (void)(tcb))
#define tcp_check_ring(r)	((void)(r))
#endif

/* tcb.c */
struct tcb *tcb_alloc(struct tcp *tcp, int family);
void tcb_free(struct tcp *tcp, struct tcb *tcb);
/* Makes the ring hold at least cap bytes (allocated lazily). */
int ring_reserve(struct tcp *tcp, struct tcp_ring *r, uint32_t cap);
/* The same for a ring whose wanted size keeps growing (the send buffer
 * follows cwnd): a ring that must grow at least doubles, up to max. */
int ring_reserve_grow(struct tcp *tcp, struct tcp_ring *r, uint32_t cap, uint32_t max);
/* Gives the memory back when the ring is empty (or force: its bytes go). */
void ring_release(struct tcp *tcp, struct tcp_ring *r, bool force);
void ring_cache_free(struct tcp *tcp); /* tcp_destroy */
uint32_t ring_write_at(struct tcp_ring *r, uint32_t off, const uint8_t *p, uint32_t n);
uint32_t ring_read(struct tcp_ring *r, uint8_t *p, uint32_t n, bool consume);
void ring_drop(struct tcp_ring *r, uint32_t n);
void ring_iov(const struct tcp_ring *r, uint32_t off, uint32_t n, struct tcp_iov *iov);

/* tcp_lookup.c */
uint32_t tcp_tuple_hash(const struct tcp_tuple *t);
int tcp_hash_insert(struct tcp *tcp, struct tcb *tcb);
void tcp_hash_remove(struct tcp *tcp, struct tcb *tcb);
struct tcb *tcp_hash_find(struct tcp *tcp, const struct tcp_tuple *t);
struct tcb *tcp_listener_find(struct tcp *tcp, const struct tcp_tuple *t);
void tcp_listener_add(struct tcp *tcp, struct tcb *tcb);
void tcp_listener_remove(struct tcp *tcp, struct tcb *tcb);
/* Picks a local port for tcb->t (laddr, raddr, rport set) so that the
 * 4-tuple is unused and no bound socket owns the port. */
int tcp_port_alloc(struct tcp *tcp, struct tcb *tcb);
/* IPv6 address kinds of Linux's ipv6_addr_type that decide binds and
 * listener lookup. */
bool tcp_v6_is_any(const uint8_t a[16]);
bool tcp_v6_is_mapped(const uint8_t a[16]);

/* tcp_port.c: the port table of bound sockets (bind, listen) */
bool tcp_port_in_use(const struct tcp *tcp, uint16_t port);
/* 0, or -EADDRINUSE when a bound socket's address overlaps tcb->t.laddr on port
 * and neither SO_REUSEADDR, SO_REUSEPORT nor their devices let them share
 * it (Linux inet_csk_bind_conflict). Run at bind and again at listen. */
int tcp_port_conflict(const struct tcp *tcp, const struct tcb *tcb, uint16_t port);
void tcp_port_add(struct tcp *tcp, struct tcb *tcb);
void tcp_port_remove(struct tcp *tcp, struct tcb *tcb);

/* tcp_pathopt.c: device binding, SO_REUSEPORT, flow labels, thin-stream
 * RTOs. set/get answer -ENOPROTOOPT for options that are not theirs. */
void tcp_pathopt_init(struct tcp *tcp, struct tcb *tcb);
void tcp_pathopt_inherit(struct tcb *c, const struct tcb *l);
int tcp_pathopt_set(struct tcb *tcb, int level, int optname, const void *val, uint32_t len);
int tcp_pathopt_get(const struct tcb *tcb, int level, int optname, int *v);
int tcp_pathopt_devname(const struct tcb *tcb, void *val, uint32_t *len);
bool tcp_dev_ok(const struct tcp *tcp, const struct tcb *tcb); /* sends/receives on our port */
uint32_t tcp_flowlabel(const struct tcb *tcb);
void tcp_rto_rehash(struct tcp *tcp, struct tcb *tcb);
bool tcp_thin_linear(const struct tcb *tcb); /* this RTO does not back off */

/* tcp_isn.c */
uint32_t tcp_isn(struct tcp *tcp, const struct tcp_tuple *t, uint64_t now);
uint32_t tcp_ts_offset(struct tcp *tcp, const struct tcp_tuple *t);
/* The keyed hash behind both, for other tweaks (SYN cookies use 3 and up). */
uint32_t tcp_tuple_hash32(struct tcp *tcp, const struct tcp_tuple *t, uint64_t tweak);

/* tcp_syncookie.c (docs/tcp.md "SYN cookies"). send answers SYN h with a
 * cookie SYN-ACK and keeps nothing; ack takes an ACK to listener l: 0 when
 * it is no cookie of ours (the caller answers as LISTEN does), 1 with *out
 * a new child in SYN-RECEIVED to process the ACK, -1 when a good cookie
 * found no room (accept queue full: drop). */
void tcp_syncookie_send(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
			const struct tcp_repr *h, uint8_t ecn);
int tcp_syncookie_ack(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
		      const struct tcp_repr *h, struct tcb **out);
/* tcp_input.c: a request's fields from its listener and SYN; onto the SYN queue */
void tcp_req_init(struct tcp *tcp, struct tcb *l, struct tcb *c, const struct tcp_tuple *t,
		  const struct tcp_repr *h);
void tcp_req_link(struct tcb *l, struct tcb *c);
/* Linux sk_acceptq_is_full: more than backlog established children wait. */
static inline bool tcp_acc_full(const struct tcb *l)
{
	return l->nq_acc > l->backlog;
}
static inline uint32_t tcp_ts_now(const struct tcp *tcp, const struct tcb *tcb)
{
	return (uint32_t)(tcp->now / CLK_NS_PER_MS) + tcb->ts_off;
}

/* tcp_timer.c */
void tcp_timer_set(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t when);
/* Linux's timer_list timers, at tcp_config.hz (docs/tcp.md "Timers and
 * HZ"): j jiffies from tcp->now, or us rounded up to jiffies first. */
void tcp_timer_set_j(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t j);
void tcp_timer_set_us(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t us);
uint64_t tcp_jiffy_deadline(const struct tcp *tcp, uint64_t now, uint64_t j);
uint64_t tcp_us_to_jiffies(const struct tcp *tcp, uint64_t us); /* rounded up */
uint64_t tcp_jiffies_to_us(const struct tcp *tcp, uint64_t j);	/* truncated */
void tcp_timer_clear(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which);
void tcp_timers_clear_all(struct tcp *tcp, struct tcb *tcb);
void tcp_rearm_rtx(struct tcp *tcp, struct tcb *tcb);
/* tcp_timer.c owns struct tcp_rtt_est: samples (RFC 6298 §2) and the
 * initial RTO (§2.1, and §5 (7) after a lost SYN). */
void tcp_rtt_sample(struct tcp *tcp, struct tcb *tcb, uint32_t rtt_us);
void tcp_rto_init(struct tcb *tcb);
void tcp_rtt_time(struct tcp *tcp, struct tcb *tcb, uint32_t seq); /* Karn: time seq */
/* It owns struct tcp_rtx_state too: new data acknowledged (all of it
 * clears), the handshake completed, the peer's window opened (persist). */
void tcp_rtx_acked(struct tcb *tcb);
void tcp_rtx_established(struct tcb *tcb);
void tcp_rtx_unbackoff(struct tcb *tcb);
uint32_t tcp_syn_gap_us(const struct tcp *tcp, const struct tcb *tcb, uint32_t k);

/* tcp_pacing.c: pacing (docs/tcp.md). on: the connection paces; update
 * after each ACK and at establishment (the CC-driven rate); set_max for
 * SO_MAX_PACING_RATE; hold before a segment: true (TCP_T_PACE armed) when
 * its slot has not come; sent after a data segment left. */
bool tcp_pace_on(const struct tcp *tcp, const struct tcb *tcb);
void tcp_pace_update(struct tcp *tcp, struct tcb *tcb);
void tcp_pace_set_max(struct tcb *tcb, uint64_t rate);
bool tcp_pace_hold(struct tcp *tcp, struct tcb *tcb);
void tcp_pace_sent(struct tcp *tcp, struct tcb *tcb, uint32_t len);
/* It owns struct tcp_pacing: a new tcb's (no limit), a request's from its
 * listener, and the rate a cong_control CC set. */
void tcp_pace_init(struct tcb *tcb);
void tcp_pace_inherit(struct tcb *c, const struct tcb *l);
void tcp_pace_cc_rate(struct tcb *tcb, uint64_t rate);

/* tcp_outq.c: output turns. New data segments tcp_output may send now
 * (UINT32_MAX without tx_room, 0 while tcb waits for its turn). */
uint32_t tcp_out_cap(struct tcp *tcp, const struct tcb *tcb);
void tcp_out_queue(struct tcp *tcp, struct tcb *tcb);	/* has more: at the tail */
void tcp_outq_forget(struct tcp *tcp, struct tcb *tcb); /* tcb is being freed */

/* tcp_output.c */
int tcp_output(struct tcp *tcp, struct tcb *tcb);
void tcp_send_ack(struct tcp *tcp, struct tcb *tcb);
void tcp_send_syn(struct tcp *tcp, struct tcb *tcb); /* SYN or SYN-ACK by state */
void tcp_send_rst(struct tcp *tcp, struct tcb *tcb);
void tcp_send_probe(struct tcp *tcp, struct tcb *tcb); /* seq snd_una - 1: keepalive, persist */
void tcp_reply_rst(struct tcp *tcp, const struct tcp_tuple *t, const struct tcp_repr *seg,
		   uint32_t len);
void tcp_retransmit_head(struct tcp *tcp, struct tcb *tcb);
uint32_t tcp_rcv_space(const struct tcb *tcb);
/* tcp_rcv.c owns struct tcp_rcvseq (tcb->recv; tcp_rcvseq.h has the
 * per-segment writes): IRS and RCV.NXT from the peer's SYN; a window of
 * wnd offered from RCV.NXT as the first one (offer: its cap too) or as the
 * right edge only (set_adv); the window cap no larger than a buffer of
 * max bytes. */
void tcp_rcv_init(struct tcb *tcb, uint32_t irs);
void tcp_rcv_offer(struct tcb *tcb, uint32_t wnd);
void tcp_rcv_set_adv(struct tcb *tcb, uint32_t wnd);
void tcp_rcv_clamp(struct tcb *tcb, uint32_t max);
/* tcp_sockopt.c owns struct tcp_opts (tcb->opt): a new socket's defaults;
 * what a listener's child takes from its listener (Linux sk_clone_lock). */
void tcp_opt_init(struct tcp *tcp, struct tcb *tcb);
void tcp_opt_inherit(struct tcb *c, const struct tcb *l);

/* tcp_rcvbuf.c: receive-buffer autotuning (docs/tcp.md). init when the
 * connection is established, data for each in-order data segment (the
 * receiver's RTT; unread: what the application had not read before it),
 * ooo when a segment was held beyond a hole, copied for the bytes the
 * application read; wnd_max is the largest window rcvbuf lets us offer. */
void tcp_rcvbuf_init(struct tcp *tcp, struct tcb *tcb);
void tcp_rcvbuf_data(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t len,
		     uint32_t unread);
void tcp_rcvbuf_ooo(struct tcp *tcp, struct tcb *tcb);
void tcp_rcvbuf_copied(struct tcp *tcp, struct tcb *tcb, uint32_t n);
uint32_t tcp_rcvbuf_wnd_max(const struct tcb *tcb);
uint16_t tcp_adv_window(struct tcp *tcp, struct tcb *tcb);
uint32_t tcp_pick_wscale(const struct tcp *tcp, const struct tcb *tcb);
void tcp_update_mss(struct tcp *tcp, struct tcb *tcb, uint32_t mtu);

/* tcp_output.c: one data and/or FIN segment from the send ring at seq (new
 * data or a retransmission), with all the accounting of a send. */
int tcp_send_data(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t len, bool fin);
uint32_t tcp_seg_room(const struct tcb *tcb);
/* tcp_output.c owns struct tcp_sndseq (tcb->send): the ISS and an empty
 * flight; SND.UNA; SND.WND with SND.WL1/WL2 as given (set_window) or from
 * an acceptable segment (window_update: max_wnd follows); an ACK of new
 * data; go-back-N (nxt back to una); a SYN counted as sent. */
void tcp_snd_init(struct tcb *tcb, uint32_t iss);
void tcp_snd_set_una(struct tcb *tcb, uint32_t una);
void tcp_snd_set_window(struct tcb *tcb, uint32_t wnd, uint32_t wl1, uint32_t wl2);
void tcp_snd_set_max_wnd(struct tcb *tcb, uint32_t wnd);
void tcp_snd_window_update(struct tcb *tcb, uint32_t wnd, uint32_t wl1, uint32_t wl2);
void tcp_snd_acked(struct tcb *tcb, uint32_t ack);
void tcp_snd_rewind(struct tcb *tcb);
void tcp_snd_syn_sent(struct tcb *tcb);

/* tcp_sack.c: the sender's SACK scoreboard (RFC 6675) */
struct tcp_sb_res {
	uint32_t newly_sacked; /* bytes SACKed for the first time */
	int64_t sacked_delta;  /* change of the SACKed bytes since prior_sacked */
	uint32_t invalid;      /* blocks ignored (tcp_is_sackblock_valid) */
	bool dsack, reneged;
	uint32_t dsack_l, dsack_r;
};
struct tcp_sb_seg {
	uint32_t seq, len;
	bool fin;
};
/* After snd_una took the ACK: trims the board, takes h's valid blocks. */
void tcp_sb_update(struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_sacked,
		   struct tcp_sb_res *res);
/* The first of n sorted, disjoint ranges that ends after seq (n when none). */
uint32_t tcp_ranges_first_after(const struct tcp_seq_range *b, uint32_t n, uint32_t seq);
/* p (entries of size bytes, *cap of them) with room for want entries: taken
 * with min, doubled as needed, never past max. NULL when it cannot be; p
 * then stays as it was. */
void *tcp_grow(void *p, uint32_t *cap, uint32_t want, uint32_t min, uint32_t max, size_t size);
void tcp_sb_clear(struct tcb *tcb);
void tcp_sb_free(struct tcb *tcb); /* returns the board's memory */

/* tcp_ooo.c: the receiver's out-of-order ranges and its SACK blocks */
void tcp_ooo_free(struct tcb *tcb);
uint32_t tcp_ooo_first_after(const struct tcb *tcb, uint32_t seq);
bool tcp_ooo_fits(struct tcb *tcb, uint32_t l, uint32_t r);
bool tcp_ooo_insert(struct tcb *tcb, uint32_t l, uint32_t r); /* false: no room */
/* Drops the ranges rcv_nxt reached; the bytes that now follow it in order. */
uint32_t tcp_ooo_pull(struct tcb *tcb, bool *filled);
void tcp_ooo_arrived(struct tcb *tcb, uint32_t seq); /* an out-of-order segment at seq */
uint32_t tcp_ooo_blocks(const struct tcb *tcb, struct tcp_seq_range *out, uint32_t max);
uint32_t tcp_sb_lost_edge(const struct tcb *tcb);
bool tcp_sb_is_lost(const struct tcb *tcb, uint32_t seq);
uint32_t tcp_sb_pipe(struct tcb *tcb);
uint32_t tcp_sb_sacked_in(const struct tcb *tcb, uint32_t l, uint32_t r);
/* The first un-SACKed sequence number at or after seq and its hole's end. */
bool tcp_sb_hole_from(const struct tcb *tcb, uint32_t seq, uint32_t *s, uint32_t *e);
/* NextSeg (RFC 6675 §4) rule 1 (with RACK's losses), rule 3 and rule 4;
 * rule 2 is new data. */
bool tcp_sb_next_lost(struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out);
bool tcp_sb_next_unsacked(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out);
bool tcp_sb_rescue(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out);
/* The last un-SACKed segment sent (a tail loss probe's retransmission). */
bool tcp_sb_last_unsacked(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out);

/* tcp_rack.c: RACK (RFC 8985 §6) from the records of struct tcp_rack */
struct tcp_rack_ack {
	bool advanced;	 /* RACK.xmit_ts took a segment this ACK delivered */
	bool orig_acked; /* a never-resent segment below recover was delivered */
};
bool tcp_rack_on(const struct tcb *tcb); /* RACK marks losses, not DupThresh */
/* A segment [seq, end) leaves (before snd_max moves). */
void tcp_rack_sent(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t end);
/* After the scoreboard took the ACK: delivered segments, loss detection. */
void tcp_rack_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
		  const struct tcp_sb_res *res, struct tcp_rack_ack *out);
void tcp_rack_detect(struct tcp *tcp, struct tcb *tcb);
void tcp_rack_timeout(struct tcp *tcp, struct tcb *tcb);       /* TCP_T_REO */
void tcp_rack_mark_all_lost(struct tcp *tcp, struct tcb *tcb); /* RTO */
void tcp_rack_unmark(struct tcb *tcb);			       /* undo */
void tcp_rack_recovery_end(struct tcb *tcb);
uint32_t tcp_rack_lost_bytes(struct tcb *tcb);
/* The lowest un-SACKed part of a segment deemed lost: [s, e). */
bool tcp_rack_next_lost(struct tcb *tcb, uint32_t *s, uint32_t *e);
void tcp_rack_free(struct tcb *tcb);

/* tcp_rate.c: delivery-rate samples over the RACK records (docs/tcp.md).
 * on: the records are kept (SACK with RACK, or a cong_control CC). idle
 * when a send leaves an empty flight, sent for each record that leaves,
 * delivered for each record an ACK delivers; ack_begin before an ACK's
 * processing, gen after it; check_app_limited when the application
 * writes. */
struct tcp_rate_sample;
bool tcp_rate_on(const struct tcp *tcp, const struct tcb *tcb);
void tcp_rate_idle(struct tcb *tcb, uint64_t now);
void tcp_rate_sent(struct tcb *tcb, struct tcp_rack_seg *g);
void tcp_rate_delivered(struct tcb *tcb, const struct tcp_rack_seg *g);
/* A resent segment SACKed earlier is cumulatively acknowledged now. */
void tcp_rate_rtx_acked(struct tcb *tcb);
/* The RTT the CC sees for the ACK being processed, from its records, in µs
 * (Linux's ca_rtt_us); -1 when they give none. *cum (unless NULL): whether
 * a segment sent once was cumulatively acknowledged (seq_rtt_us >= 0). */
int32_t tcp_rate_ca_rtt_us(const struct tcp *tcp, const struct tcb *tcb, bool *cum);
void tcp_rate_ack_begin(struct tcb *tcb);
/* The ACK's rate sample; rtt_us: its ca_rtt_us as the CC was given it
 * (Linux's tcp_ack_update_rtt sets rs->rtt_us to it), -1: none */
void tcp_rate_gen(struct tcp *tcp, struct tcb *tcb, struct tcp_rate_sample *rs, int32_t rtt_us);
void tcp_rate_check_app_limited(struct tcb *tcb);
void tcp_rate_set_app_limited(struct tcb *tcb, uint64_t mark); /* BBR's PROBE_RTT */
/* Bytes in flight: the SACK pipe (RFC 6675), else snd_nxt - snd_una. */
uint32_t tcp_inflight(struct tcb *tcb);

/* tcp_tlp.c: the tail loss probe (RFC 8985 §7) */
void tcp_tlp_arm(struct tcp *tcp, struct tcb *tcb); /* (re)starts or stops the PTO */
void tcp_tlp_timeout(struct tcp *tcp, struct tcb *tcb);
void tcp_tlp_end(struct tcp *tcp, struct tcb *tcb); /* an RTO ends the probe episode */
void tcp_tlp_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
		 const struct tcp_sb_res *res, bool advanced, bool dup);
#ifdef SKOPS_INVARIANTS
void tcp_rack_check(const struct tcb *tcb);
#else
#define tcp_rack_check(tcb) ((void)(tcb))
#endif
#ifdef SKOPS_INVARIANTS
void tcp_sb_check(const struct tcb *tcb);
#else
#define tcp_sb_check(tcb) ((void)(tcb))
#endif

/* tcp_recovery.c: SACK-based loss recovery (RFC 6675 with PRR, RFC 6937),
 * limited transmit (RFC 3042) and RTO recovery that keeps SACKed data. */
/* What an acceptable ACK of a SACK connection told the scoreboard and RACK
 * (tcp_rec_sack), for the recovery step that follows (tcp_rec_ack). */
struct tcp_rec_in {
	struct tcp_sb_res res;
	struct tcp_rack_ack ra;
	uint32_t prior_sacked; /* sb.sacked before the ACK */
	uint32_t edge0;	       /* the DupThresh loss edge before it */
	uint64_t marked0;      /* RACK's loss marks before it */
};
/* The scoreboard and RACK take the ACK, after snd_una did (Linux's
 * tcp_sacktag_write_queue and tcp_clean_rtx_queue's walk): before the CC's
 * pkts_acked, whose RTT sample the delivered segments give. */
void tcp_rec_sack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_sacked,
		  struct tcp_rec_in *in);
/* Then loss recovery (Linux's tcp_fastretrans_alert). true: recovery sized
 * cwnd for this ACK (no congestion avoidance). */
bool tcp_rec_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_una,
		 const struct tcp_rec_in *in, bool dup_shape);
/* An RTO, instead of go-back-N; reduced: it took a new ssthresh (tcp_cc_rto). */
void tcp_rec_rto(struct tcp *tcp, struct tcb *tcb, bool reduced);
/* Extra bytes the first two duplicate ACKs let new data use (RFC 3042). */
uint32_t tcp_rec_lt_bytes(const struct tcb *tcb);
/* Bytes recovery lets tcp_output send now (RFC 6675 (C), PRR). */
uint32_t tcp_rec_room(struct tcb *tcb);
int tcp_rec_send_lost(struct tcp *tcp, struct tcb *tcb);
int tcp_rec_send_more(struct tcp *tcp, struct tcb *tcb);
/* A segment left (rtx: a retransmission): PRR and undo accounting. */
void tcp_rec_sent(struct tcb *tcb, uint32_t seglen, bool rtx);
/* RACK's timer found losses: enter recovery if open. */
void tcp_rec_rack_lost(struct tcp *tcp, struct tcb *tcb);
/* F-RTO step 2b asked this output to send new data, not holes (once). */
bool tcp_rec_take_frto_new(struct tcb *tcb);
/* An ECE's reduction (CA state CWR) begins, and then an ACK that
 * delivered bytes in it: false when the reduction is over (cwnd at
 * ssthresh, CA state open) and the CC may grow the window again. */
void tcp_rec_cwr_begin(struct tcb *tcb);
bool tcp_rec_cwr_ack(struct tcb *tcb, uint32_t delivered, bool una_advanced);
/* RFC 6582's recovery point: a reduction (NewReno's fast retransmit, an
 * RTO; an ECE's through tcp_rec_cwr_begin) or the handshake's ISS sets it
 * (tcp_rec.h has the per-ACK writes to tcb->rec). */
void tcp_rec_set_recover(struct tcb *tcb, uint32_t seq);
void tcp_rec_established(struct tcb *tcb); /* the ISS, HighRxt at the first data byte */

/* tcp_cc.c: the only caller of the congestion control's ops (cc/cc.h);
 * each runs the op on a view of tcb and takes its decisions back. */
void tcp_cc_init(struct tcb *tcb);
void tcp_cc_release(struct tcb *tcb);
/* tcp_cc.c owns struct tcp_cc_state: every change of the window goes
 * through these. attach: tcb runs ops from now (its state zeroed). */
void tcp_cc_attach(struct tcb *tcb, const struct tcp_cc_ops *ops);
void tcp_cc_set_cwnd(struct tcb *tcb, uint32_t cwnd);	/* recovery sizes it */
void tcp_cc_set_iw(struct tcb *tcb, uint32_t iw);	/* TCP_BPF_IW */
void tcp_cc_set_clamp(struct tcb *tcb, uint32_t clamp); /* TCP_BPF_SNDCWND_CLAMP */
/* A reduction begins: prior_* keep the window for an undo, ssthresh from
 * the CC within the clamp. */
void tcp_cc_reduce(struct tcb *tcb);
/* RFC 5681 §3.1 (4)-(5), loss window of one; reduce: a new ssthresh too. */
void tcp_cc_rto(struct tcb *tcb, bool reduce);
void tcp_cc_undo(struct tcb *tcb); /* the reduction was spurious */
/* After an ACK's window growth: the clamp, max_cwnd. */
void tcp_cc_ack_done(struct tcb *tcb);
void tcp_init_cwnd(struct tcp *tcp, struct tcb *tcb); /* at establishment */
void tcp_cc_set_state(struct tcb *tcb, uint8_t st);   /* the op, then cc_state = st */
void tcp_cc_event(struct tcb *tcb, enum tcp_ca_event ev);
void tcp_cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us);
void tcp_cc_in_ack_event(struct tcb *tcb, uint32_t ack, uint32_t flags);
/* cong_avoid, unless cong_control sizes the window. */
void tcp_cc_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked);
uint32_t tcp_cc_ssthresh(struct tcb *tcb);  /* what the CC would set now */
uint32_t tcp_cc_undo_cwnd(struct tcb *tcb); /* the window an undo restores */
/* cwnd_before: the window before recovery touched it this ACK. */
void tcp_cc_cong_control(struct tcb *tcb, uint32_t ack, const struct tcp_rate_sample *rs,
			 uint32_t cwnd_before);
/* DCTCP's alpha in 1024ths, -1 unless tcb runs dctcp. */
int32_t cc_dctcp_alpha(const struct tcb *tcb);
/* BBR's state for tcp_info: false unless tcb runs bbr. */
bool cc_bbr_get_info(const struct tcb *tcb, struct cc_bbr_info *out);

/* tcp_input.c / tcp_user.c */
void tcp_set_state(struct tcp *tcp, struct tcb *tcb, enum tcp_state st);
void tcp_mark_event(struct tcp *tcp, struct tcb *tcb);
/* The connection is over: release it now if the user has closed it. */
void tcp_done(struct tcp *tcp, struct tcb *tcb, int err);
void tcp_enter_time_wait(struct tcp *tcp, struct tcb *tcb);
/* Frees tcb now (unlinks it from its listener first). */
void tcp_release(struct tcp *tcp, struct tcb *tcb);
void tcp_init_buffers(struct tcp *tcp, struct tcb *tcb);
/* Off every list and out of hooks, without freeing (release, cookie scratch) */
void tcp_conn_scrub(struct tcp *tcp, struct tcb *tcb);

/* tcp_sockops.c: call sites (docs/sockops.md §3) */
extern const struct hooks_sock_ops tcp_hooks_ops;
/* tcp_report.c: the hooks' info op */
void tcp_so_info(const struct hooks_sock *hs, uint32_t groups, struct hooks_sk_info *o);
void tcp_so_sock_init(struct tcp *tcp, struct tcb *tcb, struct cg_node *cg, bool fullsock);
void tcp_so_sock_fini(struct tcb *tcb);
void tcp_so_active_open(struct tcp *tcp, struct tcb *tcb); /* before the SYN */
/* before the SYN-ACK; ecn_ok: tcp_ecn agrees to ECN if the SYN asks */
void tcp_so_passive_request(struct tcp *tcp, struct tcb *req, bool ecn_ok, bool cookie);
bool tcp_so_synack_ect(struct tcp *tcp, struct tcb *req); /* each SYN-ACK sent */
void tcp_so_established(struct tcp *tcp, struct tcb *tcb, bool active);
void tcp_so_listen(struct tcp *tcp, struct tcb *tcb);
void tcp_so_state(struct tcp *tcp, struct tcb *tcb, enum tcp_state old, enum tcp_state st);
/* Before the retransmission, with the RTO that expired; expired: giving up. */
void tcp_so_rto(struct tcp *tcp, struct tcb *tcb, uint32_t rto_us, bool expired);
/* After the retransmission is accounted (snd_nxt, snd_max, counters, timer). */
void tcp_so_retrans(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t segs, int32_t res);
void tcp_so_rtt(struct tcp *tcp, struct tcb *tcb);
/* BPF TX timestamping (Linux 6.15): a send queued len bytes ending at
 * send.una + snd.len; a segment [seq, seq + len) left for the device; the
 * ACK moved SND.UNA from prior to una. */
void tcp_so_tstamp_sendmsg(struct tcp *tcp, struct tcb *tcb, uint32_t len);
void tcp_so_tstamp_xmit(struct tcb *tcb, uint32_t seq, uint32_t len);
void tcp_so_tstamp_acked(struct tcb *tcb, uint32_t prior, uint32_t una);
/* Header options: programs' options for a segment about to leave (into
 * r->xopt; len is its payload), the option space they want off every data
 * segment (tcb->so_opt_mss, refreshed before a send), and PARSE_HDR_OPT_CB for
 * an accepted segment of a synchronized connection (Linux's bpf_skops_* in
 * tcp_output.c / tcp_input.c). */
void tcp_so_hdr_opt(struct tcp *tcp, struct tcb *tcb, struct tcp_repr *r, uint32_t len);
void tcp_so_current_mss(struct tcp *tcp, struct tcb *tcb);
void tcp_so_save_syn(struct tcb *req, const struct tcp_repr *syn);
void tcp_so_syn_free(struct tcb *tcb);
void tcp_so_parse_hdr(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t len);
/* Effective initial window in bytes from RWND_INIT (0: default). */
uint32_t tcp_rwnd_init_bytes(const struct tcb *tcb, int reply);

static inline struct tcb *tcb_of_hs(const struct hooks_sock *hs)
{
	return (struct tcb *)((const char *)hs - offsetof(struct tcb, hs));
}

#endif
