/* appport: what skcat, skopsd and skperf share about a port: the port keys of the
 * command line and config file (vdev, addr, gw, mtu, eal, port, promisc,
 * no-offload, tcp-hz), and loading a sock_ops object and attaching it to a cgroup. */
#ifndef SKOPS_APPS_APPPORT_H
#define SKOPS_APPS_APPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "dev/dev.h"
#include "net/net.h"

struct bpfvm_registry;
struct cg_tree;

#define APPPORT_MAX_STRS 32

struct appport {
	struct dev_opts dev;
	struct net_config net;
	/* --tcp-hz / tcp-hz: the stack's HZ (stack_config.hz), the tick its
	 * TCP timers and cubic round to as Linux's do; 0: the default, 250. */
	uint32_t tcp_hz;
	char strs[APPPORT_MAX_STRS][256]; /* storage the dev options point into */
	unsigned nstr;
};

/* Applies one port key. Returns 0, -ENOENT when key is not a port key (the
 * caller's own), or another -errno with the reason in err. */
int appport_set(struct appport *p, const char *key, const char *val, char *err, size_t elen);

/* Loads the sock_ops program of obj_path and attaches it to cgroup path cg
 * (created if missing) with CG_F_* flags. strict checks the return range.
 * The load is privileged (pointers may be stored in map values) when this
 * process holds CAP_PERFMON or CAP_SYS_ADMIN, as in the kernel (loadpriv.h).
 * The tree holds the program. err gets "FILE: reason" and the verifier log. */
int appport_attach(struct bpfvm_registry *reg, struct cg_tree *tree, const char *obj_path,
		   const char *cg, uint32_t flags, bool strict, const char *name, char *err,
		   size_t elen);
/* The same; jit false runs the program in the interpreter (what a JIT
 * saves is measured against it: skperf --no-jit). */
int appport_attach_jit(struct bpfvm_registry *reg, struct cg_tree *tree, const char *obj_path,
		       const char *cg, uint32_t flags, bool strict, bool jit, const char *name,
		       char *err, size_t elen);

/* ss as fam's sockaddr for addr (4 or 16 bytes; NULL: the wildcard) and
 * port; returns its length. */
socklen_t appport_sockaddr(int fam, const void *addr, uint16_t port, struct sockaddr_storage *ss);

/* "ADDR:PORT" or "[ADDR]:PORT" (a socket's name as getsockname reports it),
 * "?" for another family; returns buf. */
const char *appport_sa_str(const struct sockaddr_storage *ss, char *buf, size_t len);

/* A seed for a stack's generators (ephemeral ports, txhash, fragment ids):
 * from getrandom(), so they are not guessed from the start time and pid;
 * a clock-and-pid mix only if the kernel has no getrandom. */
uint64_t appport_seed(void);

#endif
