/* stack_int: the stack instance shared by stack.c (wiring, poll loop) and
 * socket.c (the skops_* descriptors). Never included outside stack/. */
#ifndef SKOPS_STACK_STACK_INT_H
#define SKOPS_STACK_STACK_INT_H

#include "skops.h"
#include "tcp/tcp.h"

#define STACK_UDP_QLEN 64

struct rte_mbuf;
struct net_udp_sock;

struct skops_udp_dgram {
	struct rte_mbuf *m;
	uint8_t family;
	uint8_t src[16];
	uint16_t sport;
};

/* A datagram socket's receive queue and what only UDP keeps, taken with
 * the socket (a stream socket's slot carries none of it). */
struct skops_udp_q {
	uint32_t head, len; /* datagrams d[head, head + len) mod STACK_UDP_QLEN */
	uint32_t drops;	    /* datagrams refused with the queue full */
	int so_error;	    /* an ICMP error for the connected peer, until read */
	bool dirty;	    /* on the stack's udp_dirty list */
	struct skops_udp_dgram d[STACK_UDP_QLEN];
};

struct skops_sock {
	int type; /* 0 free, SOCK_STREAM, SOCK_DGRAM */
	int family;
	struct tcb *tcb;
	/* UDP */
	struct net_udp_sock *udp;
	struct skops_udp_q *q;	     /* DGRAM sockets only */
	uint8_t laddr[16], peer[16]; /* the socket family's form (v4-mapped) */
	uint16_t lport, pport;
	bool connected;
	bool v6only;		   /* IPV6_V6ONLY until bound (then the net_udp_sock's) */
	bool reuseaddr, reuseport; /* UDP: SO_REUSEADDR, SO_REUSEPORT (bind uses them) */
	uint32_t uid;		   /* UDP: the owner bind passes on (TCP: the tcb's) */
	int sd;
	struct stack *st;
	/* readiness callback */
	void (*cb)(void *arg, int sd, uint32_t ev);
	void *cb_arg;
	int next_free;
};

struct stack {
	struct stack_config cfg;
	struct net *net;
	struct tcp *tcp;
	struct hooks *hooks;
	bool own_hooks;
	struct cg_node *default_cg;
	uint64_t now;
	struct skops_sock *socks;
	uint32_t nsocks;
	int free_sd;
	uint8_t *scratch; /* linearised chained segments */
	/* UDP sockets with datagrams their callback has not been told of, in
	 * order (nsocks entries; a freed slot's stale entry is skipped). When
	 * it fills (slots freed and reused within one poll), udp_scan asks
	 * for one scan of every slot instead. */
	int *udp_dirty;
	uint32_t n_udp_dirty;
	bool udp_scan;
};

struct skops_sock *stack_sock(struct stack *st, int sd);
void stack_udp_events(struct stack *st);

#endif
