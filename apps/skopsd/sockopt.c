/* sockopt: the options skopsd answers itself before the stack's own:
 * SO_LINGER (the last close of an {1, 0} socket resets, as the kernel's) and
 * TCP_INFO (Linux's struct tcp_info built from skops_tcp_info, so iperf3,
 * ss-like tools and nginx's $tcpinfo_* see the skops connection). */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "skops.h"
#include "skopsd.h"

static void tcp_info_fill(const struct skops_tcp_info *ti, struct tcp_info *o)
{
	memset(o, 0, sizeof(*o));
	o->tcpi_state = ti->state;
	o->tcpi_retransmits = (uint8_t)(ti->retransmits > 255 ? 255 : ti->retransmits);
	o->tcpi_options = (ti->ts_ok ? TCPI_OPT_TIMESTAMPS : 0) |
			  (ti->sack_ok ? TCPI_OPT_SACK : 0) |
			  (ti->snd_wscale || ti->rcv_wscale ? TCPI_OPT_WSCALE : 0) |
			  ((ti->ecn & SKOPS_ECN_OK) ? TCPI_OPT_ECN : 0);
	o->tcpi_snd_wscale = ti->snd_wscale & 15;
	o->tcpi_rcv_wscale = ti->rcv_wscale & 15;
	o->tcpi_rto = ti->rto_ms * 1000;
	o->tcpi_snd_mss = ti->mss;
	o->tcpi_rcv_mss = ti->rcv_mss;
	o->tcpi_advmss = ti->rcv_mss;
	o->tcpi_unacked = ti->unacked;
	o->tcpi_rtt = ti->srtt_us;
	o->tcpi_rttvar = ti->rttvar_us;
	o->tcpi_snd_ssthresh = ti->ssthresh;
	o->tcpi_snd_cwnd = ti->cwnd;
	o->tcpi_rcv_space = ti->rcv_wnd;
	o->tcpi_total_retrans = ti->total_retrans;
	o->tcpi_bytes_acked = ti->bytes_acked;
	o->tcpi_bytes_received = ti->bytes_received;
	o->tcpi_segs_out = ti->segs_out;
	o->tcpi_segs_in = ti->segs_in;
	o->tcpi_notsent_bytes = ti->notsent;
	o->tcpi_min_rtt = ti->rtt_min_us;
	o->tcpi_data_segs_in = ti->data_segs_in;
	o->tcpi_data_segs_out = ti->data_segs_out;
	o->tcpi_bytes_sent = ti->bytes_sent;
	o->tcpi_bytes_retrans = ti->bytes_retrans;
	o->tcpi_snd_wnd = ti->snd_wnd;
	o->tcpi_pacing_rate = ti->pacing_rate;
	o->tcpi_max_pacing_rate = ti->max_pacing_rate;
}

/* Linux sk_setsockopt's capability checks, on the process as it is now:
 * SO_MARK needs CAP_NET_RAW or CAP_NET_ADMIN, SO_PRIORITY outside 0..6 too,
 * the FORCE buffer sizes CAP_NET_ADMIN (EPERM); the stack clamps SO_RCVBUF
 * and SO_SNDBUF to rmem_max/wmem_max as the kernel does. */
static int sockopt_allowed(struct client *cl, const struct skp_req *r, uint32_t len)
{
	if (r->a != SOL_SOCKET)
		return 0;
	int v = 0;
	if (len >= sizeof(v))
		memcpy(&v, r->data, sizeof(v));
	bool need = false, admin_only = false;
	switch (r->b) {
	case SO_MARK:
		need = true;
		break;
	case SO_PRIORITY:
		need = v < 0 || v > 6;
		break;
	case SO_RCVBUFFORCE:
	case SO_SNDBUFFORCE:
		need = admin_only = true;
		break;
	}
	if (!need || peer_capable(cl, 12 /* CAP_NET_ADMIN */) ||
	    (!admin_only && peer_capable(cl, 13 /* CAP_NET_RAW */)))
		return 0;
	return -EPERM;
}

/* The total of the buffers SO_RCVBUF/SO_SNDBUF ask for (as the kernel
 * makes them: clamped, doubled) is bounded like net.ipv4.tcp_mem's high
 * mark, one uid's share like the other quotas: past it a socket's buffer
 * does not grow (the set is accepted and changes nothing, as buffers stop
 * growing under the kernel's memory pressure), so never-reading
 * connections cannot take the daemon's memory. false: refused. */
static bool buf_grant(struct skopsd *d, struct dsock *s, bool rcv, int v)
{
	uint64_t max = rcv ? d->rmem_max : d->wmem_max;
	uint64_t u = v < 0 ? 0 : (uint64_t)v;
	if (max && u > max)
		u = max;
	unsigned kb = (unsigned)((2 * u + 1023) / 1024);
	unsigned *held = &s->buf_kb[rcv ? 0 : 1];
	if (kb <= *held) { /* shrinking always goes */
		quota_put_n(d, s->uid, Q_BUF_KB, *held - kb);
		*held = kb;
		return true;
	}
	if (quota_take_n(d, s->uid, Q_BUF_KB, kb - *held)) {
		if (quota_note_ok(d))
			fprintf(stderr,
				"skopsd: pid %d uid %d: %s of %u KiB refused: socket buffers at "
				"their limit (%u KiB in all)\n",
				(int)s->pid, (int)s->uid, rcv ? "SO_RCVBUF" : "SO_SNDBUF", kb,
				d->used.n[Q_BUF_KB]);
		return false;
	}
	*held = kb;
	return true;
}

int sockopt_set(struct skopsd *d, struct client *cl, struct dsock *s, const struct skp_req *r)
{
	uint32_t len = r->len <= sizeof(r->data) ? r->len : 0;
	int rc = sockopt_allowed(cl, r, len);
	if (rc)
		return rc;
	if (r->a == SOL_SOCKET && (r->b == SO_RCVBUF || r->b == SO_SNDBUF ||
				   r->b == SO_RCVBUFFORCE || r->b == SO_SNDBUFFORCE)) {
		/* the FORCE options: the kernel lets them past rmem_max/wmem_max;
		 * the stack has no unclamped setter, so they act as the plain one */
		bool rcv = r->b == SO_RCVBUF || r->b == SO_RCVBUFFORCE;
		int name = rcv ? SO_RCVBUF : SO_SNDBUF;
		int v = 0;
		if (len < sizeof(v))
			return -EINVAL;
		memcpy(&v, r->data, sizeof(v));
		if (!buf_grant(d, s, rcv, v))
			return 0; /* under pressure the buffer keeps its size */
		return skops_setsockopt(d->st, s->sd, SOL_SOCKET, name, r->data, len);
	}
	if (r->a == SOL_SOCKET && r->b == SO_LINGER) {
		struct linger l;
		if (len < sizeof(l))
			return -EINVAL;
		memcpy(&l, r->data, sizeof(l));
		s->linger0 = l.l_onoff && !l.l_linger;
		return 0;
	}
	return skops_setsockopt(d->st, s->sd, r->a, r->b, r->data, len);
}

int sockopt_get(struct skopsd *d, struct dsock *s, const struct skp_req *r, struct skp_rep *rep)
{
	socklen_t room = r->len < sizeof(rep->data) ? r->len : sizeof(rep->data);
	if (r->a == SOL_SOCKET && r->b == SO_LINGER) {
		struct linger l = {.l_onoff = s->linger0, .l_linger = 0};
		if (room < sizeof(l))
			return -EINVAL;
		memcpy(rep->data, &l, sizeof(l));
		rep->len = sizeof(l);
		return 0;
	}
	if (r->a == IPPROTO_TCP && r->b == TCP_INFO) {
		struct skops_tcp_info ti;
		struct tcp_info o;
		int rc = skops_tcp_info(d->st, s->sd, &ti);
		if (rc)
			return rc;
		tcp_info_fill(&ti, &o);
		rep->len = room < sizeof(o) ? room : sizeof(o);
		memcpy(rep->data, &o, rep->len);
		return 0;
	}
	socklen_t l = room;
	int rc = skops_getsockopt(d->st, s->sd, r->a, r->b, rep->data, &l);
	rep->len = l;
	return rc;
}
