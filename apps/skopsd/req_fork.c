/* req_fork: the requests that carry sockets across processes: FORK's
 * tickets and their CLAIM, ADOPT of an inherited socket, and exec's MEMFD
 * and EXEC_DONE; srv.c dispatches to them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "req.h"
#include "skops.h"
#include "skopsd.h"

/* SKP_FORK_LISTED: only the sockets r->data lists (uint32_t ids) */
static bool ticket_takes(const struct skp_req *r, unsigned id)
{
	if (!(r->a & SKP_FORK_LISTED))
		return true;
	uint32_t n = (r->len < sizeof(r->data) ? r->len : sizeof(r->data)) / sizeof(uint32_t);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, r->data + i * sizeof(v), sizeof(v));
		if (v == id)
			return true;
	}
	return false;
}

/* fork: the ticket holds every socket of the parent, so a close in the
 * parent before the child claims them (accept, fork, close: the classic
 * server) does not close what the child inherited, as the kernel's file
 * references would not. The ticket is random and travels only through
 * the parent's memory into the child. */
int req_fork(struct skopsd *d, struct client *cl, const struct skp_req *r, uint64_t *token)
{
	unsigned t;
	for (t = 0; t < SKOPSD_MAX_TICKETS && d->tickets[t]; t++)
		;
	struct client *tk = t < SKOPSD_MAX_TICKETS ? calloc(1, sizeof(*tk)) : NULL;
	if (!tk)
		return -EAGAIN;
	int q = quota_take(d, cl->req_uid, Q_TICKETS);
	if (q) {
		free(tk);
		return q;
	}
	if (getrandom(&tk->ticket, sizeof(tk->ticket), 0) != sizeof(tk->ticket) || !tk->ticket) {
		quota_put(d, cl->req_uid, Q_TICKETS);
		free(tk);
		return -EAGAIN;
	}
	tk->fd = tk->kick = tk->pidfd = -1;
	tk->pid = cl->pid;
	tk->uid = cl->req_uid;
	tk->spawn = r->a & SKP_FORK_SPAWN;
	tk->ticket_deadline_ns = stack_now_ns(d->st) + SKOPSD_TICKET_NS;
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++)
		if (d->socks[i] && client_holds(cl, i) && ticket_takes(r, i))
			dsock_hold(d->socks[i], tk, i);
	d->tickets[t] = tk;
	*token = tk->ticket;
	return 0;
}

/* cl takes the ticket's holds (NULL: nobody, it lapsed); the ticket goes. */
static void ticket_end(struct skopsd *d, unsigned t, struct client *cl)
{
	struct client *tk = d->tickets[t];
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
		if (!d->socks[i] || !client_holds(tk, i))
			continue;
		if (cl)
			dsock_hold(d->socks[i], cl, i);
		if (!dsock_release(d->socks[i], tk, i))
			dsock_close(d, i);
	}
	quota_put(d, tk->uid, Q_TICKETS);
	free(tk);
	d->tickets[t] = NULL;
}

int req_claim(struct skopsd *d, struct client *cl, uint64_t token)
{
	for (unsigned t = 0; t < SKOPSD_MAX_TICKETS; t++) {
		if (d->tickets[t] && token && d->tickets[t]->ticket == token) {
			if (d->verbose)
				fprintf(stderr, "skopsd: pid %d shares pid %d's sockets (fork)\n",
					(int)cl->pid, (int)d->tickets[t]->pid);
			ticket_end(d, t, cl);
			return 0;
		}
	}
	return -ENOENT;
}

void req_expire_tickets(struct skopsd *d)
{
	uint64_t now = stack_now_ns(d->st);
	for (unsigned t = 0; t < SKOPSD_MAX_TICKETS; t++)
		if (d->tickets[t] && now > d->tickets[t]->ticket_deadline_ns)
			ticket_end(d, t, NULL);
}

/* pid's parent (/proc/PID/stat: the field after the state, past the
 * command's closing parenthesis), 0 when unknown */
static pid_t parent_of(pid_t pid)
{
	char p[64], line[512];
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	char *e = strrchr(line, ')');
	int ppid = 0;
	return e && sscanf(e + 1, " %*c %d", &ppid) == 1 ? ppid : 0;
}

/* The child of a system() or popen() (the shim's ticket holds the
 * inheritable sockets while its shell starts) took socket id over: the
 * parent's ticket lets go of it, and goes once it holds nothing. */
static void ticket_pass(struct skopsd *d, struct client *cl, unsigned id)
{
	pid_t ppid = parent_of(cl->pid);
	for (unsigned t = 0; ppid && t < SKOPSD_MAX_TICKETS; t++) {
		struct client *tk = d->tickets[t];
		if (!tk || !tk->spawn || tk->pid != ppid || !client_holds(tk, id))
			continue;
		dsock_release(d->socks[id], tk, id);
		bool left = false;
		for (unsigned k = 0; k < SKOPSD_MAX_SOCKS / 64; k++)
			left |= tk->holds[k] != 0;
		if (!left)
			ticket_end(d, t, NULL);
	}
}

/* ADOPT: fd came from the client, which holds it (SCM_RIGHTS takes the
 * sender's own file, so possession is the kernel's word, as for any
 * inherited socket); the socket it is the eventfd of becomes the client's
 * too. An fd that is none of ours tells nothing and goes back unused. */
int req_adopt(struct skopsd *d, struct client *cl, int fd, struct skp_rep *rep, int *memfd)
{
	int id = dsock_find_file(d, fd);
	close(fd);
	if (id < 0)
		return id;
	struct dsock *s = d->socks[id];
	struct skp_sockinfo in = {.family = s->family,
				  .type = s->dgram ? SOCK_DGRAM : SOCK_STREAM,
				  .listening = s->listening};
	memcpy(rep->data, &in, sizeof(in));
	rep->len = sizeof(in);
	if (s->closing) /* its last holder closed it before this one came */
		return -EBADF;
	if (d->verbose && !client_holds(cl, (unsigned)id))
		fprintf(stderr, "skopsd: pid %d uid %d adopts pid %d's socket %d (inherited)\n",
			(int)cl->pid, (int)cl->uid, (int)s->pid, id);
	dsock_hold(s, cl, (unsigned)id);
	ticket_pass(d, cl, (unsigned)id);
	rep->id = (uint32_t)id;
	*memfd = s->mfd;
	return 0;
}

int req_memfd(struct client *cl, struct dsock *s, unsigned id, int *fds, int *nfds)
{
	/* exec: the same process, a new image (the control socket was
	 * kept open across it) maps the socket again */
	cl->kept[id / 64] |= 1ull << (id % 64);
	fds[0] = s->mfd;
	*nfds = 1;
	return 0;
}

int req_exec_done(struct skopsd *d, struct client *cl)
{
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
		bool kept = (cl->kept[i / 64] >> (i % 64)) & 1;
		if (d->socks[i] && client_holds(cl, i) && !kept &&
		    !dsock_release(d->socks[i], cl, i))
			dsock_close(d, i);
	}
	memset(cl->kept, 0, sizeof(cl->kept));
	return 0;
}
