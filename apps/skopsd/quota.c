/* quota: skopsd's global limits split between users, as the kernel keeps
 * one user from taking every file (RLIMIT_NOFILE, EMFILE), every process
 * (RLIMIT_NPROC, fork's EAGAIN) or all of its memory (ENOBUFS). Each kind
 * has a global limit, a per-uid maximum for every uid but 0, and a reserve
 * of the global limit only uid 0 may take, so one local user can neither
 * starve another nor keep root's apps (and their BPF policy) off skops. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "skopsd.h"

void quota_defaults(struct skopsd *d)
{
	unsigned limit[Q_KINDS] = {
	    [Q_SOCKS] = SKOPSD_MAX_CONNS,
	    [Q_CLIENTS] = SKOPSD_MAX_CLIENTS,
	    [Q_TICKETS] = SKOPSD_MAX_TICKETS,
	    [Q_BUF_KB] = d->buf_limit_kb ? d->buf_limit_kb : 256u * 1024u,
	    [Q_PENDING] = SKOPSD_MAX_CONNS,
	};
	for (int k = 0; k < Q_KINDS; k++) {
		d->limit.n[k] = limit[k];
		/* half for one user, an eighth kept for root */
		if (!d->uid_max.n[k])
			d->uid_max.n[k] = limit[k] / 2;
		d->root_reserve.n[k] = limit[k] / 8;
	}
}

static struct uid_use *find(struct skopsd *d, uid_t uid, bool make)
{
	for (unsigned i = 0; i < d->nuids; i++)
		if (d->uids[i].uid == uid)
			return &d->uids[i];
	if (!make || d->nuids == sizeof(d->uids) / sizeof(d->uids[0]))
		return NULL;
	struct uid_use *u = &d->uids[d->nuids++];
	memset(u, 0, sizeof(*u));
	u->uid = uid;
	return u;
}

static const int global_errno[Q_KINDS] = {[Q_SOCKS] = ENOBUFS,
					  [Q_CLIENTS] = EUSERS,
					  [Q_TICKETS] = EAGAIN,
					  [Q_BUF_KB] = ENOBUFS,
					  [Q_PENDING] = ENOBUFS};
static const int uid_errno[Q_KINDS] = {[Q_SOCKS] = EMFILE,
				       [Q_CLIENTS] = EUSERS,
				       [Q_TICKETS] = EAGAIN,
				       [Q_BUF_KB] = ENOBUFS,
				       [Q_PENDING] = ENOBUFS};

unsigned quota_room(struct skopsd *d, uid_t uid, enum quota_kind k)
{
	if (!d->limit.n[k])
		quota_defaults(d);
	unsigned room = d->limit.n[k];
	if (uid != 0)
		room -= d->root_reserve.n[k];
	room = d->used.n[k] >= room ? 0 : room - d->used.n[k];
	if (uid == 0)
		return room;
	struct uid_use *u = find(d, uid, false);
	unsigned used = u ? u->use.n[k] : 0;
	unsigned mine = used >= d->uid_max.n[k] ? 0 : d->uid_max.n[k] - used;
	return mine < room ? mine : room;
}

int quota_take_n(struct skopsd *d, uid_t uid, enum quota_kind k, unsigned n)
{
	if (!d->limit.n[k]) /* a daemon that set none (the unit tests) */
		quota_defaults(d);
	if (!n)
		return 0;
	unsigned room = d->limit.n[k];
	if (uid != 0)
		room -= d->root_reserve.n[k];
	if (d->used.n[k] >= room || room - d->used.n[k] < n)
		return -global_errno[k];
	struct uid_use *u = find(d, uid, true);
	if (!u)
		return -global_errno[k];
	if (uid != 0 && (u->use.n[k] >= d->uid_max.n[k] || d->uid_max.n[k] - u->use.n[k] < n))
		return -uid_errno[k];
	u->use.n[k] += n;
	d->used.n[k] += n;
	return 0;
}

int quota_take(struct skopsd *d, uid_t uid, enum quota_kind k)
{
	return quota_take_n(d, uid, k, 1);
}

void quota_put_n(struct skopsd *d, uid_t uid, enum quota_kind k, unsigned n)
{
	struct uid_use *u = find(d, uid, false);
	if (!u || !n)
		return;
	if (n > u->use.n[k])
		n = u->use.n[k];
	u->use.n[k] -= n;
	d->used.n[k] -= n;
	for (int i = 0; i < Q_KINDS; i++)
		if (u->use.n[i])
			return;
	*u = d->uids[--d->nuids]; /* nothing left: the slot goes */
}

void quota_put(struct skopsd *d, uid_t uid, enum quota_kind k)
{
	quota_put_n(d, uid, k, 1);
}

bool quota_note_ok(struct skopsd *d)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	uint64_t now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
	if (now - d->last_note_ns >= 1000000000ull) {
		if (d->notes > 10)
			fprintf(stderr, "skopsd: %u more line(s) like the last suppressed\n",
				d->notes - 10);
		d->last_note_ns = now;
		d->notes = 0;
	}
	return ++d->notes <= 10;
}
