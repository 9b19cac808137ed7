/* skp: the protocol between skopsd and the LD_PRELOAD shim.
 * Control: one SOCK_SEQPACKET unix connection per process, one struct
 * skp_req per request, one struct skp_rep per reply; HELLO's reply carries
 * the process's kick eventfd, SOCKET's and ACCEPT's the socket's memfd and
 * eventfd (SCM_RIGHTS). Data: per socket, a memfd holding struct skp_shm:
 * two single-producer byte rings (tx: app → daemon, rx: daemon → app) and
 * the daemon's view of the connection. The daemon writes the socket's
 * eventfd after each change the app may wait for; the app writes the kick
 * eventfd after queueing data or freeing a ring the daemon found full.
 * The daemon never trusts what the app writes: every index it reads is
 * checked (skp_ring_*) and a bad one resets that connection. */
#ifndef SKOPS_APPS_SKP_PROTO_H
#define SKOPS_APPS_SKP_PROTO_H

#include <stdatomic.h>
#include <stdint.h>

#define SKP_SOCK_DEFAULT "/run/skops/skopsd.sock"
#define SKP_RING_SIZE	 (256u * 1024u) /* a power of two */
#define SKP_MAGIC	 0x736b7031u	/* "skp1" */

/* skp_shm.state: set by the daemon, read by the app */
#define SKP_ST_CONNECTED (1u << 0) /* established: sending is allowed */
#define SKP_ST_EOF	 (1u << 1) /* peer's FIN, every byte before it is in rx */
#define SKP_ST_ERR	 (1u << 2) /* err holds the connection's error */
#define SKP_ST_ACCEPT	 (1u << 3) /* listener: a connection waits to be accepted */
#define SKP_ST_LISTEN	 (1u << 4)
#define SKP_ST_WRCLOSED	 (1u << 5) /* our FIN was queued (shutdown SHUT_WR applied) */
/* datagram sockets: SKP_ST_CONNECTED means a default peer (connect) */

/* skp_shm.want: what the app waits for (OUT wakes it when tx space frees) */
#define SKP_WANT_OUT (1u << 0)
/* skp_shm.rx_full: the daemon found rx full and stopped; kick when freed */

struct skp_idx {
	_Atomic uint32_t head; /* producer's */
	uint8_t pad0[60];
	_Atomic uint32_t tail; /* consumer's */
	uint8_t pad1[60];
};

struct skp_shm {
	uint32_t magic;
	_Atomic uint32_t state; /* SKP_ST_* */
	_Atomic int32_t err;	/* errno of the connection's failure */
	_Atomic uint32_t want;	/* SKP_WANT_* */
	_Atomic uint32_t rx_full;
	_Atomic uint32_t rcvbuf; /* datagram sockets: SO_RCVBUF as the app set it, 0: default */
	/* datagram sockets: an error reported once (ECONNREFUSED after an
	 * ICMP port unreachable): soft_err, then err_seq moves on; each
	 * process reports a sequence number it has not seen */
	_Atomic int32_t soft_err;
	_Atomic uint32_t err_seq;
	/* the app's O_NONBLOCK as its holders last set it (the kernel's is the
	 * open file's, shared with every process holding it): a holder that
	 * ADOPTs the socket starts with it. skopsd never reads it. */
	_Atomic uint32_t app_nonblock;
	/* Wake-ups only where somebody sleeps (docs/skopsd.md "Waking"):
	 * dsleep: the daemon sleeps in the kernel: a producer that moved an
	 * index kicks it (otherwise its poll loop finds the index itself);
	 * waiters: app threads sleeping on the eventfd in a blocking call,
	 * poll/select or epoll_wait: the daemon writes it at each change
	 * while one sleeps;
	 * epoll_regs: an EPOLLEXCLUSIVE registration holds the socket (the
	 * kernel picks which of its waiters wakes, so the shim cannot count
	 * them): a write at every change;
	 * wseq: eventfd writes so far, so a waiter reads (clears) the
	 * eventfd only when one may have come since its last read;
	 * chg: the daemon's changes so far (one per wake_app, written or
	 * not): an edge-triggered epoll registration reports at most once
	 * per move of it, as the kernel's at each wake-up of the socket.
	 * Each side stores its flag, then a seq_cst fence, then reads the
	 * other's index (and the other way round), so one of the two always
	 * sees the other. */
	_Atomic uint32_t dsleep;
	_Atomic uint32_t waiters;
	_Atomic uint32_t epoll_regs;
	_Atomic uint32_t wseq;
	_Atomic uint32_t chg;
	uint8_t pad[4];
	struct skp_idx tx, rx;
	uint8_t txbuf[SKP_RING_SIZE];
	uint8_t rxbuf[SKP_RING_SIZE];
};

/* Datagram sockets carry records in both rings: this header, then len
 * payload bytes, wrapping like any byte. A record is published whole (head
 * moves past its end). tx: family 0 sends to the connected peer; rx: the
 * source. The daemon drops a tx ring whose record claims more than
 * SKP_DGRAM_MAX or more than was published (the socket fails, ECONNRESET). */
struct skp_dgram {
	uint32_t len;
	uint16_t family; /* AF_INET, AF_INET6; 0 (tx): the connected peer */
	uint16_t port;	 /* network order */
	uint8_t addr[16];
};
#define SKP_DGRAM_MAX 65527u /* UDP over IPv6 (IPv4: 65507) */
/* a datagram socket is writable while a largest record fits */
#define SKP_DGRAM_ROOM (sizeof(struct skp_dgram) + SKP_DGRAM_MAX)

enum skp_op {
	SKP_HELLO = 1, /* data: requested cgroup path (may be empty) */
	SKP_SOCKET,    /* a: family, b: SOCK_STREAM (0 too) or SOCK_DGRAM */
	SKP_BIND,      /* data: sockaddr */
	SKP_LISTEN,    /* a: backlog */
	SKP_CONNECT,   /* data: sockaddr */
	SKP_ACCEPT,    /* reply data: peer sockaddr */
	SKP_SHUTDOWN,  /* a: how */
	SKP_CLOSE,
	SKP_SETSOCKOPT, /* a: level, b: name, data: value */
	SKP_GETSOCKOPT, /* a: level, b: name, len: room; reply data: value */
	SKP_GETSOCKNAME,
	SKP_GETPEERNAME,
	SKP_ROUTE, /* data: sockaddr; rc 0 when skopsd routes it */
	SKP_FORK,  /* about to fork: reply token is a ticket holding every socket; a: SKP_FORK_* */
	SKP_CLAIM, /* token: a ticket; the child (or the parent, if fork failed) takes its holds */
	SKP_MEMFD, /* after exec: the socket's memfd again (the new image maps it) */
	SKP_EXEC_DONE, /* after exec: sockets not asked for by MEMFD were close-on-exec */
	/* an fd inherited without a ticket (system(), a raw clone) goes with
	 * the request (SCM_RIGHTS): when it is one of the daemon's socket
	 * eventfds (the same open file), the client takes a hold on that
	 * socket; reply: id, data struct skp_sockinfo, the memfd. -ENOTSOCK:
	 * not a skops socket; -EBADF: one that was closed meanwhile (data
	 * still says what it was) */
	SKP_ADOPT,
	/* the network layer's counters (net_stat_names), for skopsctl
	 * net stats: a: the first counter's index; reply data: "name value\n"
	 * lines from there, as many as fit, id: the index after the last one
	 * sent, rc: how many counters there are. Needs no HELLO. */
	SKP_NET_STATS,
	/* SOCKET, the options set before connect, and CONNECT in one round
	 * trip: the shim's connect() of a socket skopsd does not know yet.
	 * a: family; b: SOCK_STREAM, or SOCK_DGRAM to a daemon whose HELLO
	 * set SKP_F_SOCK_CONNECT_DGRAM (any other b: a stream); data:
	 * struct skp_sconn, the sockaddr (salen bytes), then nopts options,
	 * each struct skp_opt and its value, packed, no padding. The
	 * options are applied in order, their errors not reported (the app's
	 * kernel socket already took them, as with the SETSOCKOPT replay they
	 * replace), then the connect. Reply with the socket's memfd and
	 * eventfd (the socket was made): id and SOCKET's fds, rc the
	 * connect's (0, -EINPROGRESS, its error); without fds: rc says why no
	 * socket was made (-EINVAL: data malformed). Sent only to a daemon
	 * whose HELLO set SKP_F_SOCK_CONNECT. */
	SKP_SOCK_CONNECT,
	SKP_OP_MAX,
};

struct skp_sconn {
	uint16_t salen, nopts;
};
struct skp_opt {
	int32_t level, name;
	uint32_t len;
};

/* FORK's a: LISTED holds only the ids data lists (uint32_t each); SPAWN
 * (system, popen: a child whose shim runs past the fork hook) lets the
 * child's ADOPT of a socket take the ticket's hold over, so the ticket
 * delays no close longer than the child keeps the socket */
#define SKP_FORK_LISTED (1 << 0)
#define SKP_FORK_SPAWN	(1 << 1)

#define SKP_DATA_MAX 240 /* Linux's struct tcp_info (232) fits */

struct skp_req {
	uint32_t op;
	uint32_t id; /* the socket, as SOCKET/ACCEPT returned it */
	int32_t a, b;
	uint32_t len;
	uint64_t token; /* CLAIM */
	uint8_t data[SKP_DATA_MAX];
};

/* skp_rep.flags of HELLO: the daemon's settings the shim follows */
#define SKP_F_LOOPBACK_LISTEN	 (1u << 0) /* a wildcard listener also listens on loopback */
#define SKP_F_SOCK_CONNECT	 (1u << 1) /* takes SKP_SOCK_CONNECT */
#define SKP_F_SOCK_CONNECT_DGRAM (1u << 2) /* ... of a datagram socket too */

struct skp_rep {
	int32_t rc; /* >= 0 or -errno */
	uint32_t id;
	uint32_t len;
	uint32_t flags; /* HELLO: SKP_F_* */
	uint64_t token; /* FORK: the ticket, known only to the parent and its child */
	uint8_t data[SKP_DATA_MAX];
};

/* ADOPT's reply data: what the shim keeps of a socket */
struct skp_sockinfo {
	int32_t family, type; /* AF_INET/AF_INET6, SOCK_STREAM/SOCK_DGRAM */
	uint32_t listening;
};

/* Ring index checks (skp_ring.c), for the side that does not own the index
 * it reads. Indices are free-running uint32_t; used = head - tail. */
/* Bytes readable given the producer's head as read from shared memory and
 * our own tail: -EPROTO when head claims more than the ring holds. */
int skp_ring_used(uint32_t head, uint32_t tail);
/* The consumer moved tail from old_tail to new_tail; head is ours. 0 when
 * it stayed within [old_tail, head], else -EPROTO. */
int skp_ring_check_tail(uint32_t head, uint32_t old_tail, uint32_t new_tail);
/* The longest contiguous span from index idx of at most n bytes. */
uint32_t skp_ring_span(uint32_t idx, uint32_t n);
/* n bytes from/to the ring at index idx, wrapping */
void skp_ring_read(const uint8_t *ring, uint32_t idx, void *dst, uint32_t n);
void skp_ring_write(uint8_t *ring, uint32_t idx, const void *src, uint32_t n);

/* SCM_RIGHTS (skp_fds.c): at most SKP_FDS_MAX fds go with one message */
#define SKP_FDS_MAX 2
struct msghdr;
/* n fds as m's control message, in buf (CMSG_SPACE(SKP_FDS_MAX * sizeof(int))) */
void skp_fds_put(struct msghdr *m, void *buf, const int *fds, int n);
/* The fds m brought, up to room into fds; drop closes the rest. Returns the count. */
int skp_fds_take(struct msghdr *m, int *fds, int room, void (*drop)(int));

#endif
