/* skopsd internals: the daemon (skopsd.c), the control server (srv.c) and
 * its requests (req.h), the sockets (dsock.c) and their pumps (stream.c,
 * dgram.c); docs/skopsd.md "Layers" says which calls which. */
#ifndef SKOPS_APPS_SKOPSD_H
#define SKOPS_APPS_SKOPSD_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "skp_proto.h"

struct stack;
struct hooks;
struct rte_mempool;

#define SKOPSD_MAX_CLIENTS 256
#define SKOPSD_MAX_SOCKS   4096
#define SKOPSD_MAX_TICKETS 64
/* freed sockets' shared memory kept for their creator's next ones (dsock.c),
 * per client and in all: 512 KiB each at most */
#define SKOPSD_POOL_CLIENT 4
#define SKOPSD_POOL_MAX	   64
#define SKOPSD_TICKET_NS   (5ull * 1000000000ull) /* an unclaimed fork ticket lapses */
/* The stack's connections (its tcb pool), the most sockets skopsd serves */
#define SKOPSD_MAX_CONNS 1024
/* guard.c's signal: interrupts a call on a shared file that would sleep */
#define SKOPSD_GUARD_SIG (SIGRTMIN + 5)

struct client;

/* One application socket: the stack's sd and the shared memory. tx_tail
 * and rx_head are ours; shm's other indices are read and checked. The
 * clients holding it (the creator, and the children it forked that
 * adopted it) have its bit in client.holds; the last one's CLOSE closes it. */
struct dsock {
	pid_t pid;  /* the creator's, for the logs */
	int family; /* AF_INET, AF_INET6 (ADOPT tells the shim) */
	unsigned nhold;
	int sd, efd, mfd; /* mfd: the memfd, handed out again after an exec */
	struct skp_shm *shm;
	uint32_t tx_tail, rx_head, rx_tail; /* rx_tail: last checked consumer index */
	bool started;			    /* connect called, or accepted */
	bool listening, eof, err, closing, shut_wr_pending;
	bool acc_ready;
	/* loopback-listen (kloop.c): kernel listeners on loopback, -1: none;
	 * kpend: one may have a connection waiting; kturn: which goes first */
	int kfd[2];
	bool kpend, kturn, kfirst;
	bool kbad;    /* an accept on them would have slept: they are dropped */
	bool linger0; /* SO_LINGER {1, 0}: the last close resets */
	/* the app made a write to its eventfd sleep (it cleared O_NONBLOCK on
	 * the shared file and filled the counter): never written again, the
	 * connection is reset */
	bool hostile;
	uid_t uid;	      /* whose quota it counts in (the creator's) */
	bool dgram;	      /* UDP: records in the rings (dgram.c) */
	uint64_t dgram_drops; /* datagrams the stack refused to send */
	/* the ends as last seen, for the closing log line: a connection reset
	 * in TIME_WAIT (the peer's answer to our ACK of its retransmitted FIN)
	 * is CLOSED and has no peer name left */
	char lname[64], rname[64];
	uint64_t close_deadline_ns;
	unsigned buf_kb[2]; /* SO_RCVBUF, SO_SNDBUF granted (Q_BUF_KB) */
	unsigned pending;   /* accept-queue slots charged (Q_PENDING) */
	/* the client that made it, NULL once gone; shared: another process
	 * (a fork, a ticket, an ADOPT) held it, so its memory may be mapped
	 * outside the creator and is never reused */
	struct client *owner;
	bool shared;
};

/* A freed socket's memfd and mapping, kept for the creator's next socket */
struct pooled {
	int mfd;
	struct skp_shm *shm;
};

struct client {
	int fd, kick;
	int pidfd; /* the peer process, -1 for a ticket: its rights are read while it lives */
	pid_t pid;
	uid_t uid; /* at connect: whose control connection (Q_CLIENTS) it is */
	/* the sender of the request being served, as the kernel vouches for it
	 * (SCM_CREDENTIALS, else the process's fsuid now): whose quota and
	 * socket ownership what the request creates counts in, as the kernel
	 * takes a new socket's owner and its limits from the caller's
	 * credentials at the call, not at some earlier connect */
	uid_t req_uid;
	char cgroup[256];
	uint64_t holds[SKOPSD_MAX_SOCKS / 64]; /* the sockets it may name */
	uint64_t kept[SKOPSD_MAX_SOCKS / 64];  /* exec: the ones the new image took */
	/* a fork ticket (fd -1): holds the parent's sockets until the child claims them */
	uint64_t ticket, ticket_deadline_ns;
	bool spawn; /* SKP_FORK_SPAWN: its child's ADOPTs take the holds over */
	struct pooled pool[SKOPSD_POOL_CLIENT];
	unsigned npool;
};

static inline bool client_holds(const struct client *cl, unsigned id)
{
	return (cl->holds[id / 64] >> (id % 64)) & 1;
}

/* Quotas (quota.c, docs/skopsd.md "Limits"): the global limits, what one
 * uid other than 0 may hold, and how much of each global limit only uid 0
 * may take */
/* Q_BUF_KB: the KiB of SO_RCVBUF/SO_SNDBUF granted (doubled, as the
 * kernel counts them), against a total like net.ipv4.tcp_mem's high mark */
/* Q_PENDING: the accept-queue slots of listeners (backlog + 1 each), so
 * connections nobody accepts cannot hold the stack's connections for one
 * user beyond its share */
enum quota_kind { Q_SOCKS, Q_CLIENTS, Q_TICKETS, Q_BUF_KB, Q_PENDING, Q_KINDS };
struct quota {
	unsigned n[Q_KINDS];
};

/* One uid's use of the quotas */
struct uid_use {
	uid_t uid;
	struct quota use;
};

struct skopsd {
	struct stack *st;
	struct hooks *hooks;
	int lfd, epfd;
	const char *sock_path;
	gid_t sock_gid; /* --group, (gid_t)-1: the daemon's own */
	bool verbose, draining;
	bool loopback_listen; /* wildcard listeners also take the kernel's loopback */
	struct client *clients[SKOPSD_MAX_CLIENTS];
	struct dsock *socks[SKOPSD_MAX_SOCKS]; /* index: the id the app names */
	unsigned socks_hi;		       /* ids in use are below it */
	/* the poll loop (idle.c): how long it polls after the last work, and
	 * whether it sleeps now (every socket's dsleep says so) */
	uint64_t poll_ns;
	bool sleeping;
	struct client *tickets[SKOPSD_MAX_TICKETS];
	/* ADOPT's index: the live sockets' ids ordered by their eventfd's open
	 * file (kcmp's order), searched in O(log n) kcmp calls */
	uint16_t byfile[SKOPSD_MAX_SOCKS];
	unsigned nbyfile;
	struct quota limit, uid_max, root_reserve, used;
	struct uid_use uids[SKOPSD_MAX_CLIENTS + SKOPSD_MAX_SOCKS];
	unsigned nuids;
	unsigned port_min;	     /* net.ipv4.ip_unprivileged_port_start */
	uint32_t rmem_max, wmem_max; /* the stack's clamps, 0: none */
	unsigned buf_limit_kb;	     /* Q_BUF_KB's total, 0: 256 MiB */
	uint64_t last_note_ns;	     /* rate limit of the logs an app can cause */
	unsigned notes;
	unsigned freed;		  /* sockets freed since the heap was last trimmed */
	unsigned npooled;	  /* struct pooled entries in all clients */
	struct rte_mempool *pool; /* the port's mbufs (stats) */
};

/* idle.c: the poll loop's sleep. Sleeping, each socket's dsleep is set, so
 * apps kick the daemon after moving an index; idle_sleep_begin sets them
 * (and returns after the fence: the caller polls once more before it
 * sleeps), idle_sleep_end clears them once there is work. */
void idle_sleep_begin(struct skopsd *d);
void idle_sleep_end(struct skopsd *d);

/* peer.c: a client's identity and rights, read while its pidfd says it lives */
struct ucred;
/* SO_PEERCRED, a pidfd, the cgroup v2 path; -errno (the client is refused)
 * when the process is gone or its cgroup cannot be read */
int peer_identify(int fd, struct ucred *cr, int *pidfd, char *cg, size_t cglen);
struct peer_st {
	uid_t euid, fsuid;
	uint64_t cap_eff;
};
/* The client's credentials now (a setuid() since it connected counts) */
int peer_status(const struct client *cl, struct peer_st *st);
/* cap (CAP_NET_*) in its effective set now */
bool peer_capable(const struct client *cl, int cap);
unsigned peer_port_min(void);

/* guard.c: calls on files an app shares are bounded (see there) */
int guard_init(void);
void guard_begin(void);
void guard_end(void);

/* quota.c */
/* The global limits; per-uid maxima left 0 get half of them (docs/skopsd.md "Limits") */
void quota_defaults(struct skopsd *d);
/* uid takes one of kind k: 0, or the kernel's errno for what is exhausted
 * (sockets: ENOBUFS for the whole daemon, EMFILE for the uid; control
 * connections: EUSERS; fork tickets: EAGAIN, fork's own) */
int quota_take(struct skopsd *d, uid_t uid, enum quota_kind k);
void quota_put(struct skopsd *d, uid_t uid, enum quota_kind k);
/* How many of kind k uid could take now */
unsigned quota_room(struct skopsd *d, uid_t uid, enum quota_kind k);
/* n at once (Q_BUF_KB) */
int quota_take_n(struct skopsd *d, uid_t uid, enum quota_kind k, unsigned n);
void quota_put_n(struct skopsd *d, uid_t uid, enum quota_kind k, unsigned n);
/* A log line an app can cause: at most 10 a second, then one that says so */
bool quota_note_ok(struct skopsd *d);

/* stats.c: one line of what the daemon holds (SIGUSR1), numbered seq */
void stats_dump(struct skopsd *d, unsigned seq);

/* srv.c */
int srv_listen(struct skopsd *d, char *err, size_t elen);
void srv_accept(struct skopsd *d);
/* Serves every pending request of client ci; drops it on EOF or error. */
void srv_client(struct skopsd *d, unsigned ci);
/* The client hung up (reset false: its sockets closed as the kernel closes a
 * dead process's fds) or skopsd exits (reset true). */
void srv_drop_client(struct skopsd *d, unsigned ci, bool reset);
/* req_fork.c: fork tickets nobody claimed in time release their holds. */
void req_expire_tickets(struct skopsd *d);

/* ctl.c: the control connection's messages */
/* One reply and nfds fds (up to 2) with it: 0 or -errno. */
int ctl_reply(int fd, const struct skp_rep *rep, const int *fds, int nfds);
/* One request, the fds that came with it (up to 2, close-on-exec) and its
 * sender's credentials (cr->pid 0: none came); recvmsg's return. */
struct ucred;
ssize_t ctl_request(int fd, struct skp_req *r, int *fds, int *nfds, struct ucred *cr);

/* epoll data of a kernel loopback listener: this tag | the socket's id
 * (clients' are their index, their kick eventfds' 0x80000000 | index) */
#define SKOPSD_TAG_KLOOP 0x40000000u

/* kloop.c: a wildcard listener's kernel listeners on loopback */
/* Keeps fds (up to 2 listening kernel sockets) with s; on failure closes
 * them and any kept before. */
int kloop_adopt(struct skopsd *d, struct dsock *s, unsigned id, const int *fds, int nfds);
/* A connection from them (its fd, non-blocking, close-on-exec; its peer
 * in sa) or -EAGAIN */
int kloop_accept(struct dsock *s, void *sa, socklen_t *len);
void kloop_close(struct skopsd *d, struct dsock *s);

/* sockopt.c: SO_LINGER and TCP_INFO here, the rest by the stack */
int sockopt_set(struct skopsd *d, struct client *cl, struct dsock *s, const struct skp_req *r);
int sockopt_get(struct skopsd *d, struct dsock *s, const struct skp_req *r, struct skp_rep *rep);

/* The pumps: a socket's data between its rings and the stack. *bad: an
 * index or record the app wrote is out of range (the caller resets). */
/* dgram.c: a UDP socket's records */
int dgram_pump(struct skopsd *d, struct dsock *s, bool *bad);
/* stream.c: a TCP socket's bytes (received ones only while not closing) */
int stream_pump(struct skopsd *d, struct dsock *s, bool *bad);

/* wake.c: each change counted (chg); the app's eventfd (never again once
 * it would block: hostile) written only while an app thread sleeps on it
 * (waiters) or an EPOLLEXCLUSIVE registration exists (skp_proto.h) */
void wake_app(struct dsock *s);
/* tx space freed: a wake only if the app asked for it (SKP_WANT_OUT) */
void wake_tx(struct dsock *s);
/* the connection failed with err (once): SKP_ST_ERR, then a wake */
void wake_fail(struct dsock *s, int err);

/* dsock.c */
/* New shared memory and eventfd for sd; returns the id or -errno. */
int dsock_create(struct skopsd *d, struct client *cl, int sd, int family, int *memfd);
/* Moves data between the rings and the stack, updates state, wakes the app.
 * Returns the work done. Frees the socket once a close has finished. */
int dsock_pump(struct skopsd *d, unsigned id);
/* The socket whose eventfd is the open file fd names (an fd a client
 * sent: it holds that file, as a process holds an inherited socket): its
 * id (it may be closing), -ENOTSOCK when none. */
int dsock_find_file(struct skopsd *d, int fd);
/* A client is gone: its pooled shared memory is freed, and its sockets
 * still flushing no longer name it as their owner. */
void dsock_pool_drop(struct skopsd *d, struct client *cl);
/* cl takes (hold) or drops (release) its hold on the socket. */
void dsock_hold(struct dsock *s, struct client *cl, unsigned id);
/* Returns the holds left. */
unsigned dsock_release(struct dsock *s, struct client *cl, unsigned id);
/* The last holder closed it: the tx ring is flushed, then the stack socket
 * closed; reset at once with SO_LINGER 0 or received data left unread. */
void dsock_close(struct skopsd *d, unsigned id);
/* One line per connection on stderr (-v): what the sock_ops programs did. */
void dsock_log(struct skopsd *d, unsigned id, const char *why);
/* The app is gone: reset the connection, free everything now. */
void dsock_abort(struct skopsd *d, unsigned id);

#endif
