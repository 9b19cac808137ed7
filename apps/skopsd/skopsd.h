/* skopsd internals: the daemon (skopsd.c), its clients and their control
 * requests (srv.c), and the sockets' shared-memory rings (dsock.c). */
#ifndef SKOPS_APPS_SKOPSD_H
#define SKOPS_APPS_SKOPSD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "skp_proto.h"

struct stack;

#define SKOPSD_MAX_CLIENTS 256
#define SKOPSD_MAX_SOCKS   4096

struct client;

/* One application socket: the stack's sd and the shared memory. tx_tail
 * and rx_head are ours; shm's other indices are read and checked. */
struct dsock {
	struct client *cl;
	int sd, efd;
	struct skp_shm *shm;
	uint32_t tx_tail, rx_head, rx_tail; /* rx_tail: last checked consumer index */
	bool started;			    /* connect called, or accepted */
	bool listening, eof, err, closing, shut_wr_pending;
	bool acc_ready;
	uint64_t close_deadline_ns;
};

struct client {
	int fd, kick;
	pid_t pid;
	uid_t uid;
	char cgroup[256];
};

struct skopsd {
	struct stack *st;
	int lfd, epfd;
	const char *sock_path;
	bool verbose, draining;
	struct client *clients[SKOPSD_MAX_CLIENTS];
	struct dsock *socks[SKOPSD_MAX_SOCKS]; /* index: the id the app names */
};

/* srv.c */
int srv_listen(struct skopsd *d, char *err, size_t elen);
void srv_accept(struct skopsd *d);
/* Serves every pending request of client ci; drops it on EOF or error. */
void srv_client(struct skopsd *d, unsigned ci);
void srv_drop_client(struct skopsd *d, unsigned ci);

/* dsock.c */
/* New shared memory and eventfd for sd; returns the id or -errno. */
int dsock_create(struct skopsd *d, struct client *cl, int sd, int *memfd);
/* Moves data between the rings and the stack, updates state, wakes the app.
 * Returns the work done. Frees the socket once a close has finished. */
int dsock_pump(struct skopsd *d, unsigned id);
/* The app closed it: the tx ring is flushed, then the stack socket closed. */
void dsock_close(struct skopsd *d, unsigned id);
/* The app is gone: reset the connection, free everything now. */
void dsock_abort(struct skopsd *d, unsigned id);
void dsock_wake(struct dsock *s);

#endif
