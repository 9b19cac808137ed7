/* The in-memory socket double (see hk_double.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hk_double.h"

static struct hkd_sock *hkd_of(const struct hooks_sock *hs)
{
	return (struct hkd_sock *)hs;
}

static void hkd_info(const struct hooks_sock *hs, uint32_t groups, struct hooks_sk_info *out)
{
	struct hkd_sock *d = hkd_of(hs);

	d->groups_asked |= groups;
	d->info_calls++;
	/* as the stack does: only the groups asked, one family's addresses,
	 * each as one 16-byte copy (a whole-struct copy here made hooks_bench
	 * measure store-forwarding stalls the stack never causes) */
	const struct hooks_sk_info *in = &d->info;
	if (groups & HOOKS_INFO_ADDR) {
		out->family = in->family;
		if (in->family == HOOKS_AF_INET6) {
			memcpy(out->remote_ip6, in->remote_ip6, 16);
			memcpy(out->local_ip6, in->local_ip6, 16);
		} else {
			out->remote_ip4 = in->remote_ip4;
			out->local_ip4 = in->local_ip4;
		}
		out->remote_port = in->remote_port;
		out->local_port = in->local_port;
		out->is_fullsock = in->is_fullsock;
	}
	if (groups & HOOKS_INFO_TCP) {
		out->snd_cwnd = in->snd_cwnd;
		out->srtt_us = in->srtt_us;
		out->state = in->state;
		out->rtt_min = in->rtt_min;
		out->snd_ssthresh = in->snd_ssthresh;
		out->rcv_nxt = in->rcv_nxt;
		out->snd_nxt = in->snd_nxt;
		out->snd_una = in->snd_una;
		out->mss_cache = in->mss_cache;
		out->ecn_flags = in->ecn_flags;
		out->rate_delivered = in->rate_delivered;
		out->rate_interval_us = in->rate_interval_us;
		out->packets_out = in->packets_out;
		out->retrans_out = in->retrans_out;
		out->total_retrans = in->total_retrans;
		out->segs_in = in->segs_in;
		out->data_segs_in = in->data_segs_in;
		out->segs_out = in->segs_out;
		out->data_segs_out = in->data_segs_out;
		out->lost_out = in->lost_out;
		out->sacked_out = in->sacked_out;
		out->bytes_received = in->bytes_received;
		out->bytes_acked = in->bytes_acked;
		out->dsack_dups = in->dsack_dups;
		out->delivered = in->delivered;
		out->delivered_ce = in->delivered_ce;
		out->icsk_retransmits = in->icsk_retransmits;
		out->mdev_us = in->mdev_us;
		out->rcv_wnd = in->rcv_wnd;
		out->window_clamp = in->window_clamp;
		out->rcv_wup = in->rcv_wup;
		out->copied_seq = in->copied_seq;
		out->write_seq = in->write_seq;
		out->snd_wnd = in->snd_wnd;
		out->snd_wl1 = in->snd_wl1;
		out->rcv_ssthresh = in->rcv_ssthresh;
	}
	if (groups & HOOKS_INFO_SOCK) {
		out->sk_txhash = in->sk_txhash;
		out->sk_type = in->sk_type;
		out->sk_protocol = in->sk_protocol;
		out->sk_mark = in->sk_mark;
		out->sk_priority = in->sk_priority;
	}
}

static int hkd_int_slot(int level, int optname)
{
	/* a small fixed index per (level, option) of the standard int options */
	return ((level * 7) + optname) & 63;
}

static bool hkd_known_cc(const char *name)
{
	return !strcmp(name, "reno") || !strcmp(name, "cubic") || !strcmp(name, "dctcp");
}

static int hkd_apply(struct hkd_sock *d, int level, int optname, const void *val, uint32_t len)
{
	int32_t v = 0;

	if (level == 6 && optname == 13) {
		char name[16];
		if (len >= sizeof(name))
			return -EINVAL;
		memcpy(name, val, len);
		name[len] = '\0';
		if (!hkd_known_cc(name))
			return -ENOENT;
		strcpy(d->cc, name);
		return 0;
	}
	if (len != sizeof(v))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (level == 1 && (optname == 7 || optname == 8)) {
		/* Linux sock_setsockopt: val * 2, at least the minimum; locks it */
		uint32_t want = (uint32_t)v * 2;
		if (optname == 7) {
			d->sndbuf = want > HKD_SOCK_MIN_SNDBUF ? want : HKD_SOCK_MIN_SNDBUF;
			d->sndbuf_locked = true;
		} else {
			d->rcvbuf = want > HKD_SOCK_MIN_RCVBUF ? want : HKD_SOCK_MIN_RCVBUF;
			d->rcvbuf_locked = true;
		}
		return 0;
	}
	if (level == 6 && optname == HOOKS_TCP_IW) {
		if (v <= 0 || d->info.data_segs_out > 0)
			return -EINVAL;
		d->cwnd = (uint32_t)v;
		return 0;
	}
	if (level == 6 && optname == HOOKS_TCP_SNDCWND_CLAMP) {
		if (v <= 0)
			return -EINVAL;
		d->cwnd_clamp = d->ssthresh = (uint32_t)v;
		return 0;
	}
	d->ints[hkd_int_slot(level, optname)] = v;
	return 0;
}

static int hkd_setsockopt(struct hooks_sock *hs, int level, int optname, const void *val,
			  uint32_t len)
{
	struct hkd_sock *d = hkd_of(hs);
	int err = hkd_apply(d, level, optname, val, len);

	if (d->ncalls < HKD_MAX_CALLS) {
		struct hkd_call *c = &d->calls[d->ncalls++];
		memset(c, 0, sizeof(*c));
		c->level = level;
		c->optname = optname;
		if (level == 6 && optname == 13)
			memcpy(c->str, val, len < sizeof(c->str) - 1 ? len : sizeof(c->str) - 1);
		else if (len == sizeof(c->val))
			memcpy(&c->val, val, sizeof(c->val));
		c->err = err;
	}
	return err;
}

static int hkd_getsockopt(struct hooks_sock *hs, int level, int optname, void *val, uint32_t *len)
{
	struct hkd_sock *d = hkd_of(hs);
	int32_t v;

	if (level == 6 && optname == 13) {
		size_t n = strlen(d->cc) + 1;
		if (n > *len)
			n = *len;
		memcpy(val, d->cc, n);
		*len = (uint32_t)n;
		return 0;
	}
	if (level == 6 && optname >= HOOKS_TCP_SYN && optname <= HOOKS_TCP_SYN_MAC)
		return -ENOENT; /* no SYN saved */
	if (*len != sizeof(v))
		return -EINVAL;
	if (level == 1 && optname == 7)
		v = (int32_t)d->sndbuf;
	else if (level == 1 && optname == 8)
		v = (int32_t)d->rcvbuf;
	else
		v = d->ints[hkd_int_slot(level, optname)];
	memcpy(val, &v, sizeof(v));
	return 0;
}

static void hkd_set_txhash(struct hooks_sock *hs, uint32_t txhash)
{
	struct hkd_sock *d = hkd_of(hs);

	d->txhash = txhash;
	d->txhash_calls++;
}

const struct hooks_sock_ops hkd_ops = {
    .info = hkd_info,
    .setsockopt = hkd_setsockopt,
    .getsockopt = hkd_getsockopt,
    .set_txhash = hkd_set_txhash,
};

void hkd_init(struct hkd_sock *d, uint32_t family, uint16_t local_port, uint16_t remote_port,
	      bool near)
{
	struct hooks_sk_info *in = &d->info;

	memset(d, 0, sizeof(*d));
	in->family = family;
	in->local_port = local_port;
	in->remote_port = remote_port;
	if (family == 2) {
		in->local_ip4 = htonl(0xc6120001);			/* 198.18.0.1 */
		in->remote_ip4 = htonl(near ? 0xc6120002 : 0xc6130002); /* 198.18/19.0.2 */
	} else {
		/* fd00:1:2345:6000::1 and either fd00:1:2345:6fff::2 (same /52)
		 * or fd00:2:2345:6000::2 (other /32) */
		in->local_ip6[0] = htonl(0xfd000001);
		in->local_ip6[1] = htonl(0x23456000);
		in->local_ip6[3] = htonl(1);
		in->remote_ip6[0] = htonl(near ? 0xfd000001 : 0xfd000002);
		in->remote_ip6[1] = htonl(near ? 0x23456fff : 0x23456000);
		in->remote_ip6[3] = htonl(2);
	}
	in->snd_cwnd = 10;
	in->srtt_us = 800;
	in->state = HOOKS_TCP_ESTABLISHED;
	in->mss_cache = 1448;
	in->sk_type = 1;     /* SOCK_STREAM */
	in->sk_protocol = 6; /* IPPROTO_TCP */
	in->bytes_received = 0x100000001ull;
	in->bytes_acked = 0x200000002ull;
	d->sndbuf = 16384;
	d->rcvbuf = 131072;
	strcpy(d->cc, "cubic");
	d->cwnd = 10;
}

void hkd_reset_calls(struct hkd_sock *d)
{
	d->ncalls = 0;
	d->groups_asked = 0;
	d->info_calls = 0;
}
