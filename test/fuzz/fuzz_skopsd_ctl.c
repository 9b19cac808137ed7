/* libFuzzer target for skopsd's control protocol: requests as a hostile
 * app sends them on its SOCK_SEQPACKET connection, served by srv.c against
 * a simulated stack (test/sim/sim_harness.h). Per input one client (a
 * socketpair, the fuzzer at the app's end), the input cut into requests;
 * every reply read and its fds closed; then the client hangs up and its
 * sockets and fork tickets go. No crash, no sanitizer report, no fd or
 * socket left behind, no hang.
 *
 * Input: records of 1 + sizeof(struct skp_req) bytes: [flags] then the
 * request (flags bit 0: op taken modulo SKP_OP_MAX so most reach a
 * handler; bit 1: id replaced by the n-th socket made so far). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "../sim/sim_harness.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "hooks.h"
#include "skopsd.h"

static struct sim S;
static struct skopsd D;
/* the cgroup tree a stream socket is placed in (skops_set_cgroup): without
 * one every stream SOCKET fails and no request past it is reached. Each of
 * the two stacks reads it on a core of its own. */
static struct cg_tree *T;
static struct bpfvm_registry *R;

static void with_tree(struct stack_config *c)
{
	static unsigned lcore;
	c->reg = R;
	c->lcore = lcore++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sim_eal_init("fuzz_skopsd_ctl");
	if (bpfvm_registry_create(&R) || cg_tree_create(&hooks_cg_prog_ops, 2, &T) ||
	    sim_create_tweak(&S, "fuzzctl", 7, NULL, 256, 0, false, T, NULL, NULL, with_tree)) {
		fprintf(stderr, "fuzz_skopsd_ctl: no simulated stacks\n");
		exit(1);
	}
	D.st = S.a;
	D.epfd = epoll_create1(EPOLL_CLOEXEC);
	D.sock_gid = (gid_t)-1;
	quota_defaults(&D);
	D.port_min = 1024;
	return 0;
}

/* the replies so far; their fds closed, the new sockets' ids kept */
static void drain(int app, uint32_t *ids, unsigned *nids)
{
	for (;;) {
		struct skp_rep rep;
		union {
			char buf[CMSG_SPACE(SKP_FDS_MAX * sizeof(int))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {.iov_base = &rep, .iov_len = sizeof(rep)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = u.buf,
				   .msg_controllen = sizeof(u.buf)};
		ssize_t n = recvmsg(app, &m, MSG_DONTWAIT);
		if (n <= 0)
			return;
		int fds[SKP_FDS_MAX];
		int k = skp_fds_take(&m, fds, SKP_FDS_MAX, (void (*)(int))close);
		for (int i = 0; i < k; i++)
			close(fds[i]);
		/* SOCK_CONNECT's socket comes with an error rc (the connect's) */
		if ((rep.rc >= 0 || k == SKP_FDS_MAX) && rep.id && *nids < 64)
			ids[(*nids)++] = rep.id;
	}
}

/* ids are the lowest free ones: an input makes at most one a record */
#define IDS_USED 256

static bool pump_all(void)
{
	bool any = false;
	for (unsigned k = 1; k < IDS_USED; k++)
		if (D.socks[k]) {
			dsock_pump(&D, k);
			any = true;
		}
	return any;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
		return 0;
	struct client *cl = calloc(1, sizeof(*cl));
	cl->fd = sp[0];
	cl->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	cl->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	cl->pid = getpid();
	cl->uid = 0;
	snprintf(cl->cgroup, sizeof(cl->cgroup), "/");
	quota_take(&D, 0, Q_CLIENTS);
	D.clients[0] = cl;
	uint32_t ids[64];
	unsigned nids = 0;
	const size_t rec = 1 + sizeof(struct skp_req);
	for (size_t off = 0; off + rec <= size && D.clients[0]; off += rec) {
		struct skp_req r;
		memcpy(&r, data + off + 1, sizeof(r));
		if (data[off] & 1)
			r.op = r.op % SKP_OP_MAX;
		if ((data[off] & 2) && nids)
			r.id = ids[r.id % nids];
		if (send(sp[1], &r, sizeof(r), MSG_DONTWAIT) != (ssize_t)sizeof(r))
			break;
		srv_client(&D, 0);
		drain(sp[1], ids, &nids);
		for (int i = 0; i < 4; i++) {
			pump_all();
			sim_step(&S);
		}
	}
	if (D.clients[0])
		srv_drop_client(&D, 0, true);
	close(sp[1]);
	S.now += 6000000000ull; /* past every ticket's lapse */
	req_expire_tickets(&D);
	for (int i = 0; i < 200 && pump_all(); i++)
		if (!sim_step(&S))
			S.now += 100000000ull;
	for (unsigned k = 1; k < SKOPSD_MAX_SOCKS; k++)
		if (D.socks[k])
			dsock_abort(&D, k);
	return 0;
}
