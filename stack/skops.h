/* skops: the native socket API of the stack. Non-blocking and event-driven:
 * one struct stack per lcore, sockets are small integer descriptors of that
 * stack, readiness through skops_events() or a per-socket callback that fires
 * from stack_poll(). Results are 0/count or -errno as the POSIX calls' errno.
 * Read docs/architecture.md and docs/sockops.md §3/§5 (what sock_ops changes). */
#ifndef SKOPS_STACK_SKOPS_H
#define SKOPS_STACK_SKOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "net/net.h"
#include "tcp/tcp_info.h"

struct cg_tree;
struct bpfvm_registry;
struct hooks;
struct stack;

struct stack_config {
	struct net_config net;	 /* device, pool, clock, addresses; net is created by the stack */
	struct cg_tree *cg_tree; /* NULL: no cgroups, sock_ops never run */
	struct bpfvm_registry *reg; /* used only to create hooks when hooks is NULL */
	struct hooks *hooks;	    /* borrowed; NULL with cg_tree: the stack creates its own */
	const char *default_cgroup; /* cgroup of new sockets; NULL → "/" */
	/* Linux's HZ (100, 250, 300, 1000; 0 → 250): TCP timers round to its
	 * jiffies, cubic counts them, TIMEOUT_INIT replies are in them
	 * (--tcp-hz; docs/tcp.md "Timers and HZ") */
	uint32_t hz;
	uint32_t
	    syn_linear_timeouts; /* linear SYN retries before doubling; 0 → 4, UINT32_MAX → none */
	uint64_t seed;		 /* ephemeral ports, txhash, fragment ids */
	/* The ISN and SYN cookie secret (RFC 6528 §3) comes from getrandom();
	 * true derives it from seed instead, for simulations that replay. */
	bool keys_from_seed;
	uint32_t max_conns; /* tcb pool size; 0 → 1024 */
	uint32_t max_socks; /* descriptor table size; 0 → max_conns + 64 */
	unsigned lcore;	    /* the lcore polling this stack, handed to the hooks it creates */
	uint32_t wmem_max, rmem_max; /* SO_SNDBUF/SO_RCVBUF clamp; 0 → no clamp (Linux 4.13) */
	uint32_t wmem_default, rmem_default; /* 0 → 16384 / 131072 (tcp_wmem/tcp_rmem [1]) */
	/* tcp_rmem[2] / tcp_wmem[2]: autotuning's ceiling for buffers the socket
	 * did not set (docs/tcp.md); 0 → 6 MiB / 4 MiB */
	uint32_t tcp_rmem_max, tcp_wmem_max;
	uint32_t syn_retries;	 /* 0 → 6 (tcp_syn_retries) */
	uint32_t synack_retries; /* 0 → 5 (tcp_synack_retries) */
	uint32_t msl_ms;	 /* TIME_WAIT is 2 × msl; 0 → 30000 (Linux: 60 s TIME_WAIT) */
	/* ACKs to refused segments: one per connection per oow_ratelimit_ms
	 * (0 → 500, tcp_invalid_ratelimit; UINT32_MAX → none); RFC 5961 challenge
	 * ACKs a second for the whole stack (0 → none, tcp_challenge_ack_limit's
	 * default). */
	uint32_t oow_ratelimit_ms, challenge_ack_limit;
	uint32_t min_snd_mss; /* floor of the MSS a peer can impose; < 48 → 48 (tcp_min_snd_mss) */
	bool no_timestamps, no_sack, no_wscale; /* tcp_timestamps/sack/window_scaling = 0 */
	/* tcp_recovery = 0 (DupThresh, not RACK), tcp_early_retrans = 0 (no
	 * tail loss probe), tcp_frto = 0 (docs/tcp.md, loss recovery) */
	bool no_rack, no_tlp, no_frto;
	/* net.ipv4.tcp_ecn when tcp_ecn_set (else the kernel's default, 2):
	 * 0 never, 1 ask on active opens and agree when asked, 2 agree only.
	 * A sock_ops NEEDS_ECN or the CC can still ask (docs/sockops.md). */
	bool tcp_ecn_set;
	uint8_t tcp_ecn;
	/* net.ipv4.tcp_syncookies when tcp_syncookies_set (else 1): SYN cookies
	 * when a listener's SYN queue is full; 0 never, 2 always (docs/tcp.md) */
	bool tcp_syncookies_set;
	uint8_t tcp_syncookies;
	/* net.ipv4.tcp_congestion_control: "reno", "newreno", "cubic", "dctcp"
	 * or "bbr"; NULL → "cubic", Linux's default. Any other name fails
	 * stack_create with -ENOENT. */
	const char *cc;
	/* Pacing (docs/tcp.md): every connection paces at its CC-driven rate;
	 * without it only those SO_MAX_PACING_RATE or the CC asks for do. The
	 * rate is tcp_pacing_ss_ratio % of cwnd × MSS / SRTT while cwnd <
	 * ssthresh / 2, else tcp_pacing_ca_ratio %; 0 → 200 / 120, > 1000
	 * fails stack_create (-EINVAL). */
	bool pacing;
	uint32_t tcp_pacing_ss_ratio, tcp_pacing_ca_ratio;
	/* net.ipv4.tcp_abort_on_overflow: reset a handshake whose final ACK
	 * finds the accept queue full (else the ACK is dropped and the peer's
	 * next one may find room). */
	bool tcp_abort_on_overflow;
	/* The stack's port as SO_BINDTODEVICE / SO_BINDTOIFINDEX name it: a
	 * socket bound to another sends and receives nothing (docs/sockops.md
	 * §5). NULL → "skops0", 0 → 1. */
	const char *ifname;
	uint32_t ifindex;
};

/* Copies cfg (not what it points at); creates net on cfg->net. */
int stack_create(const struct stack_config *cfg, struct stack **out);
/* Closes every socket without sending anything and frees the stack. */
void stack_destroy(struct stack *st);
/* Reads the clock once, receives (net_poll), runs expired TCP timers,
 * delivers socket callbacks, flushes the device (segments queued by
 * skops_send outside a poll leave here too) and reports a quiescent state to
 * hooks. Returns the amount of work done (0 when idle). */
int stack_poll(struct stack *st);
/* Absolute clock time of the next timer, UINT64_MAX when none. */
uint64_t stack_next_deadline_ns(struct stack *st);
/* The net layer (for UDP, statistics, addresses). */
struct net *stack_net(struct stack *st);
uint64_t stack_now_ns(const struct stack *st);

/* ---- sockets ----------------------------------------------------------- */

#define SKOPS_EV_IN    (1u << 0) /* readable: data, EOF, or a pending accept */
#define SKOPS_EV_OUT   (1u << 1) /* writable: connected and send space */
#define SKOPS_EV_HUP   (1u << 2) /* both directions closed (or reset) */
#define SKOPS_EV_ERR   (1u << 3) /* SO_ERROR is set */
#define SKOPS_EV_RDHUP (1u << 4) /* peer sent FIN */

/* family AF_INET/AF_INET6, type SOCK_STREAM or SOCK_DGRAM. Returns sd >= 0. */
int skops_socket(struct stack *st, int family, int type);
int skops_bind(struct stack *st, int sd, const struct sockaddr *addr, socklen_t len);
/* Runs TCP_LISTEN_CB. */
int skops_listen(struct stack *st, int sd, int backlog);
/* -EAGAIN when the accept queue is empty. addr/len may be NULL. */
int skops_accept(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len);
/* TCP: -EINPROGRESS, completion as SKOPS_EV_OUT, failure as SKOPS_EV_ERR and
 * SO_ERROR. UDP: sets the default peer, returns 0. */
int skops_connect(struct stack *st, int sd, const struct sockaddr *addr, socklen_t len);
/* Bytes queued (may be short), -EAGAIN when the send buffer is full, -EPIPE
 * after shutdown(SHUT_WR) or a reset, -ENOTCONN before established. */
ssize_t skops_send(struct stack *st, int sd, const void *buf, size_t len, int flags);
/* 0 at EOF, -EAGAIN when nothing is buffered, -ECONNRESET after a reset. */
ssize_t skops_recv(struct stack *st, int sd, void *buf, size_t len, int flags);
ssize_t skops_sendto(struct stack *st, int sd, const void *buf, size_t len, int flags,
		     const struct sockaddr *to, socklen_t tolen);
ssize_t skops_recvfrom(struct stack *st, int sd, void *buf, size_t len, int flags,
		       struct sockaddr *from, socklen_t *fromlen);
int skops_shutdown(struct stack *st, int sd, int how);
/* Frees the descriptor; a TCP connection finishes its close (FIN, TIME_WAIT)
 * in the background, or is reset when unread data was pending (RFC 9293 §3.10.4). */
int skops_close(struct stack *st, int sd);
/* Resets a TCP connection (RST unless it is closed, listening, in SYN-SENT
 * or TIME-WAIT; a listener's unaccepted children are reset) and frees the
 * descriptor now: Linux's close with SO_LINGER 0, and what skopsd does to
 * the sockets of a process that died. */
int skops_abort(struct stack *st, int sd);
/* Linux numbering: SOL_SOCKET (SO_SNDBUF, SO_RCVBUF, SO_ERROR, SO_KEEPALIVE,
 * SO_REUSEADDR, SO_MARK, SO_PRIORITY, SO_RCVLOWAT, SO_TYPE), SOL_TCP
 * (TCP_NODELAY, TCP_MAXSEG, TCP_KEEPIDLE/INTVL/CNT, TCP_SYNCNT,
 * TCP_WINDOW_CLAMP, TCP_CONGESTION, TCP_USER_TIMEOUT, TCP_NOTSENT_LOWAT,
 * TCP_SAVE_SYN, getsockopt TCP_SAVED_SYN (once, as Linux) and the HOOKS_TCP_*
 * options), SOL_IP IP_TOS, SOL_IPV6 IPV6_TCLASS. */
int skops_setsockopt(struct stack *st, int sd, int level, int optname, const void *val,
		     socklen_t len);
int skops_getsockopt(struct stack *st, int sd, int level, int optname, void *val, socklen_t *len);
int skops_getsockname(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len);
int skops_getpeername(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len);
/* Current readiness (level-triggered). 0 for an unknown sd. A connected UDP
 * socket has SKOPS_EV_ERR after an ICMP port unreachable from its peer,
 * until SO_ERROR (ECONNREFUSED) is read. */
uint32_t skops_events(struct stack *st, int sd);
/* fn runs from stack_poll() (never re-entrantly from a skops_* call) each
 * time the socket's state changed, with its current events (as
 * skops_events); NULL removes it. */
int skops_set_callback(struct stack *st, int sd, void (*fn)(void *arg, int sd, uint32_t ev),
		       void *arg);
/* Moves the socket to cgroup path (created if missing); before connect/listen
 * this decides which programs see the socket's callbacks. */
int skops_set_cgroup(struct stack *st, int sd, const char *path);
/* The user owning the socket (Linux sk_uid): SO_REUSEPORT lets sockets of
 * one owner share a port (skopsd sets the client's uid; 0 until set). A UDP
 * socket's is set before bind (-EISCONN after). */
int skops_set_owner(struct stack *st, int sd, uint32_t uid);

/* Per-connection information, in the spirit of struct tcp_info (its
 * struct, with the counters', is tcp/tcp_info.h's, which TCP fills). */
int skops_tcp_info(struct stack *st, int sd, struct skops_tcp_info *out);
int skops_tcp_counters(struct stack *st, struct skops_tcp_counters *out);
/* Names stack_config.cc and TCP_CONGESTION take, separated by spaces. */
const char *skops_cc_available(void);

#endif
