/* req: the control requests' handlers (req_sock.c, req_fork.c), the layer
 * under the control server (srv.c): srv.c has checked that the client
 * holds the socket s a request names. Each returns the reply's rc and
 * fills rep, and fds/nfds with what goes with the reply. */
#ifndef SKOPS_APPS_SKOPSD_REQ_H
#define SKOPS_APPS_SKOPSD_REQ_H

#include "skopsd.h"

/* req_sock.c */
int req_hello(struct skopsd *d, struct client *cl, const struct skp_req *r, struct skp_rep *rep,
	      int *fds, int *nfds);
int req_socket(struct skopsd *d, struct client *cl, const struct skp_req *r, struct skp_rep *rep,
	       int *fds, int *nfds);
/* SOCKET, the options and CONNECT of SKP_SOCK_CONNECT: fds come when the
 * socket was made, and the rc is then the connect's */
int req_sock_connect(struct skopsd *d, struct client *cl, const struct skp_req *r,
		     struct skp_rep *rep, int *fds, int *nfds);
int req_bind(struct skopsd *d, struct client *cl, struct dsock *s, const struct skp_req *r);
/* rfds: the nk kernel loopback listeners that came with it (kept or closed) */
int req_listen(struct skopsd *d, struct dsock *s, const struct skp_req *r, int *rfds, int nk);
int req_connect(struct skopsd *d, struct dsock *s, const struct skp_req *r);
/* 0 when answered (the reply carries the new socket), else the error */
int req_accept(struct skopsd *d, struct client *cl, struct dsock *s, unsigned id);
int req_shutdown(struct skopsd *d, struct dsock *s, const struct skp_req *r);
/* no reply: a close never waits */
void req_close(struct skopsd *d, struct client *cl, struct dsock *s, unsigned id);
int req_name(struct skopsd *d, struct dsock *s, const struct skp_req *r, struct skp_rep *rep);
int req_route(struct skopsd *d, const struct skp_req *r);
int req_net_stats(struct skopsd *d, const struct skp_req *r, struct skp_rep *rep);

/* req_fork.c */
int req_fork(struct skopsd *d, struct client *cl, const struct skp_req *r, uint64_t *token);
int req_claim(struct skopsd *d, struct client *cl, uint64_t token);
/* fd: the one the client sent (closed here); *memfd: the socket's memfd */
int req_adopt(struct skopsd *d, struct client *cl, int fd, struct skp_rep *rep, int *memfd);
int req_memfd(struct client *cl, struct dsock *s, unsigned id, int *fds, int *nfds);
int req_exec_done(struct skopsd *d, struct client *cl);

#endif
