/* tcp: the TCP of the stack, independent of devices and IP so that tests can
 * drive it with reprs at explicit times. The owner (stack.c) feeds parsed
 * segments into tcp_input() and sends what the xmit callback hands it.
 * Read RFC 9293 (§3.10 event processing), RFC 7323, RFC 6298, RFC 5681/6582,
 * RFC 5961, RFC 3168, RFC 6528 and docs/sockops.md §3/§5 first. */
#ifndef SKOPS_STACK_TCP_TCP_H
#define SKOPS_STACK_TCP_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../clk.h"
#include "hooks.h"
#include "../wire/wire.h"

struct cg_node;
struct tcp_cc_ops;

/* Sequence arithmetic modulo 2^32 (RFC 9293 §3.4). */
#define SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)  SEQ_LT(b, a)
#define SEQ_GEQ(a, b) SEQ_LEQ(b, a)

enum tcp_state {
	TCP_CLOSED = 0,
	TCP_LISTEN,
	TCP_SYN_SENT,
	TCP_SYN_RECEIVED,
	TCP_ESTABLISHED,
	TCP_FIN_WAIT_1,
	TCP_FIN_WAIT_2,
	TCP_CLOSE_WAIT,
	TCP_CLOSING,
	TCP_LAST_ACK,
	TCP_TIME_WAIT,
};
const char *tcp_state_name(enum tcp_state s);
uint8_t tcp_state_kernel(enum tcp_state s); /* enum hooks_tcp_state */

/* Addresses in network byte order, ports in host order; zero padding so the
 * struct hashes as bytes. */
struct tcp_tuple {
	union {
		uint32_t v4;
		uint8_t v6[16];
	} laddr, raddr;
	uint16_t lport, rport;
	uint8_t family; /* AF_INET / AF_INET6 */
	uint8_t pad[3];
};

/* Payload of one outgoing segment: at most two pieces of a ring buffer. */
struct tcp_iov {
	const uint8_t *p[2];
	uint32_t n[2];
};

/* Readiness (tcp_events), the values of skops.h's SKOPS_EV_*. */
#define TCP_EV_IN    (1u << 0)
#define TCP_EV_OUT   (1u << 1)
#define TCP_EV_HUP   (1u << 2)
#define TCP_EV_ERR   (1u << 3)
#define TCP_EV_RDHUP (1u << 4)

struct tcp;
/* A connection; its fields are private to stack/tcp (tcb.h). */
struct tcb;

struct tcp_config {
	struct hooks *hooks; /* NULL: no sock_ops */
	struct cg_node *default_cg;
	uint32_t hz;
	uint32_t syn_linear_timeouts; /* 0 → 4; UINT32_MAX → 0 (Linux 4.13) */
	uint64_t seed;
	bool keys_from_seed; /* skops.h stack_config */
	uint32_t max_conns;
	uint32_t wmem_max, rmem_max, wmem_default, rmem_default;
	/* net.ipv4.tcp_rmem[2] / tcp_wmem[2]: how far autotuning grows a
	 * buffer SO_RCVBUF / SO_SNDBUF did not set; 0 → 6 MiB / 4 MiB. The
	 * window scale of a SYN is chosen for tcp_rmem_max (or rmem_max). */
	uint32_t tcp_rmem_max, tcp_wmem_max;
	uint32_t syn_retries, synack_retries;
	uint32_t msl_ms;
	/* RFC 5961 §7 throttling of challenge ACKs (and of ACKs for
	 * out-of-window segments), as Linux: per connection one per
	 * oow_ratelimit_ms (tcp_invalid_ratelimit; 0 → 500, UINT32_MAX → none),
	 * per stack a randomised budget of about challenge_ack_limit a second
	 * (tcp_challenge_ack_limit; 0 → none, current kernels' default). */
	uint32_t oow_ratelimit_ms;
	uint32_t challenge_ack_limit;
	uint32_t min_snd_mss; /* floor of the peer's MSS; < 48 → 48 (tcp_min_snd_mss) */
	bool no_timestamps, no_sack, no_wscale;
	/* Loss recovery of SACK connections: no_rack is net.ipv4.tcp_recovery
	 * = 0 (DupThresh marks losses, RFC 6675), no_tlp tcp_early_retrans = 0,
	 * no_frto tcp_frto = 0. */
	bool no_rack, no_tlp, no_frto;
	/* net.ipv4.tcp_ecn (0 never, 1 ask and agree, 2 agree when asked) if
	 * ecn_set, else 2, the kernel's default; > 2 is refused. */
	bool ecn_set;
	uint8_t ecn;
	/* net.ipv4.tcp_syncookies if syncookies_set, else 1: cookies when a
	 * listener's SYN queue is full; 0 never, 2 always; > 2 is refused. */
	bool syncookies_set;
	uint8_t syncookies;
	/* net.ipv4.tcp_congestion_control: the algorithm new sockets start
	 * with; NULL → "cubic"; a name the stack lacks fails tcp_create
	 * (-ENOENT). */
	const char *cc;
	/* Pacing (docs/tcp.md): every connection paces at its CC-driven rate
	 * (else only those SO_MAX_PACING_RATE or their CC asks for), and the
	 * rate's percentages of cwnd × MSS / SRTT in slow start and after
	 * (net.ipv4.tcp_pacing_ss_ratio / tcp_pacing_ca_ratio, 0 → 200 / 120). */
	bool pacing;
	uint32_t pacing_ss_ratio, pacing_ca_ratio;
	/* net.ipv4.tcp_abort_on_overflow: a final ACK finding the accept queue
	 * full is answered with a reset instead of being dropped. */
	bool abort_on_overflow;
	/* The one port the stack sends and receives on, as SO_BINDTODEVICE and
	 * SO_BINDTOIFINDEX name it (docs/sockops.md §5); NULL → "skops0", 0 → 1. */
	const char *ifname;
	uint32_t ifindex;
	/* The owner's output: one segment for tuple t with IP tos (ECN in the low
	 * bits). Returns 0 or -errno (the segment is lost; timers recover). */
	int (*xmit)(void *arg, const struct tcp_tuple *t, uint8_t tos, const struct tcp_repr *r,
		    const struct tcp_iov *d);
	/* Source address and MTU towards dst (connect); NULL: laddr must be set. */
	int (*route)(void *arg, uint8_t family, const void *dst, void *src_out, uint32_t *mtu);
	/* Frames the owner's transmit queue can still take; NULL: no limit.
	 * With it, tcp_output sends new data in turns of at most TCP_OUT_BURST
	 * segments, round-robin over the connections that have more, and
	 * keeps TCP_TX_RESERVE frames for ACKs, handshakes and
	 * retransmissions (tcp_outq.c); the owner runs tcp_output_pending. */
	uint32_t (*tx_room)(void *arg);
	/* Whether replies to family's new peers strain the owner (its
	 * neighbour table filling with unresolved sources): a listener then
	 * answers SYNs with cookies, as with a full SYN queue. NULL: never. */
	bool (*syn_pressure)(void *arg, uint8_t family);
	/* Readiness changed for tcb->sd (called from tcp_flush_events). */
	void (*event)(void *arg, struct tcb *tcb);
	void *arg;
};

int tcp_create(const struct tcp_config *cfg, struct tcp **out);
void tcp_destroy(struct tcp *tcp);

/* ---- input/output/timers (now in ns from the owner's clock) ---- */

/* A received segment's headers as they came, contiguous from the Ethernet
 * header through the TCP header's options (mac_len may be 0). */
struct tcp_rx_hdrs {
	const uint8_t *p;
	uint16_t mac_len, net_len, tcp_len;
};
/* One segment addressed to us: src/dst as on the wire (dst is ours). ecn is
 * the IP ECN field. payload is copied. hdrs (NULL when the caller has no
 * contiguous copy) is read only for a SYN to a TCP_SAVE_SYN listener. */
void tcp_input(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t, const struct tcp_repr *seg,
	       const uint8_t *payload, uint32_t len, uint8_t ecn, const struct tcp_rx_hdrs *hdrs);
/* An ICMP error quoting one of our segments (RFC 5927 checks). mtu > 0 is a
 * frag-needed / packet-too-big; unreach marks a hard error in SYN_SENT.
 * Returns true when the quote is of a segment in flight on a connection that
 * takes a path MTU (not a listener's request, as Linux's tcp_req_err): only
 * then may the owner lower the path MTU. */
bool tcp_icmp(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t, uint32_t seq, uint32_t mtu,
	      bool unreach);
/* Expired timers; returns how many fired. */
int tcp_timers(struct tcp *tcp, uint64_t now);
uint64_t tcp_next_deadline(struct tcp *tcp);
/* Gives the connections waiting for an output turn (tx_room) one turn
 * each, round after round, while the transmit queue has room. Returns the
 * segments sent. */
int tcp_output_pending(struct tcp *tcp, uint64_t now);
/* Runs the event callback for connections whose readiness changed. */
void tcp_flush_events(struct tcp *tcp);

/* ---- user calls (socket.c) ---- */

int tcp_open(struct tcp *tcp, int family, struct tcb **out);
/* addr as the socket's family holds it: 4 bytes, or 16 for AF_INET6 (::,
 * a v4-mapped ::ffff:a.b.c.d, or an IPv6 address). Linux's bind conflict
 * rules (tcp_port.c); the caller checks the address is local. */
int tcp_bind(struct tcp *tcp, struct tcb *tcb, const void *addr, uint16_t port);
/* IPV6_V6ONLY: AF_INET6 sockets only, before bind (-EINVAL after). */
int tcp_set_v6only(struct tcb *tcb, bool on);
int tcp_listen(struct tcp *tcp, struct tcb *tcb, int backlog, uint64_t now);
int tcp_connect(struct tcp *tcp, struct tcb *tcb, const void *raddr, uint16_t rport, uint64_t now);
struct tcb *tcp_accept(struct tcp *tcp, struct tcb *listener);
int32_t tcp_send(struct tcp *tcp, struct tcb *tcb, const void *buf, uint32_t len, uint64_t now);
int32_t tcp_recv(struct tcp *tcp, struct tcb *tcb, void *buf, uint32_t len, bool peek,
		 uint64_t now);
int tcp_shutdown(struct tcp *tcp, struct tcb *tcb, bool rd, bool wr, uint64_t now);
/* The user is done with tcb; it lingers in the background as RFC 9293 says. */
void tcp_close(struct tcp *tcp, struct tcb *tcb, uint64_t now);
/* Frees immediately (stack_destroy, tests). */
void tcp_abort(struct tcp *tcp, struct tcb *tcb, uint64_t now, bool send_rst);
uint32_t tcp_events(const struct tcb *tcb); /* TCP_EV_* */
/* What the socket layer reads of a connection. */
int tcp_tcb_sd(const struct tcb *tcb); /* -1: orphaned */
void tcp_tcb_set_sd(struct tcb *tcb, int sd);
enum tcp_state tcp_tcb_state(const struct tcb *tcb);
const struct tcp_tuple *tcp_tcb_tuple(const struct tcb *tcb);
int tcp_tcb_family(const struct tcb *tcb); /* the socket's (AF_INET6 for a v4-mapped peer) */
bool tcp_tcb_v6only(const struct tcb *tcb);
int tcp_setsockopt(struct tcb *tcb, int level, int optname, const void *val, uint32_t len,
		   bool from_bpf);
int tcp_getsockopt(struct tcb *tcb, int level, int optname, void *val, uint32_t *len);
int tcp_set_cgroup(struct tcb *tcb, struct cg_node *cg);
/* The user owning the socket: SO_REUSEPORT shares a port between sockets of
 * one owner only (0 until set). */
void tcp_set_owner(struct tcb *tcb, uint32_t uid);
struct skops_tcp_info;
void tcp_get_info(const struct tcb *tcb, struct skops_tcp_info *out);
uint32_t tcp_sndbuf_free(const struct tcb *tcb);
void tcp_sndbuf_expand(struct tcb *tcb);
uint32_t tcp_conn_count(const struct tcp *tcp);
struct skops_tcp_counters;
void tcp_get_counters(const struct tcp *tcp, struct skops_tcp_counters *out);
/* The congestion controls TCP_CONGESTION and tcp_config.cc take, separated
 * by spaces (net.ipv4.tcp_available_congestion_control). */
const char *tcp_cc_available(void);

#endif
