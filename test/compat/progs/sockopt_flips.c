// SPDX-License-Identifier: GPL-2.0
/* Selftests style: at TCP_LISTEN_CB, TCP_CONNECT_CB and both ESTABLISHED
 * callbacks, every option bpf_setsockopt takes in Linux 6.1 is read, changed,
 * read back and put back; a flag is flipped, an int set to a value of its
 * own. What fails sets the option's bit in the callback's slot of "flips"
 * (slot 0 listen, 1 connect, 2 active established, 3 passive established),
 * so a run on the kernel and one on skops can be compared bit for bit.
 * The device options are checked for their errnos: an empty name unbinds,
 * a name no device has is -ENODEV, SO_BINDTODEVICE cannot be read. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SOL_SOCKET  1
#define SOL_TCP	    6
#define SOL_IP	    0
#define SOL_IPV6    41
#define AF_INET6    10
#define NOT_A_VALUE 0x7fff0000

struct flips {
	__u32 runs;
	__u32 fails;	 /* options that failed, over all runs */
	__u32 sock_fail; /* bit i: sock_opts[i] */
	__u32 tcp_fail;	 /* bit i: tcp_opts[i]; bit 31 TCP_CONGESTION */
	__u32 ip_fail;	 /* bit 0 IP_TOS / IPV6_TCLASS, bit 1 IPV6_AUTOFLOWLABEL */
	__s32 unbind;	 /* SO_BINDTODEVICE "" */
	__s32 nodev;	 /* SO_BINDTODEVICE to a name no device has */
	__s32 get_dev;	 /* bpf_getsockopt(SO_BINDTODEVICE) */
	__s32 ifindex;	 /* SO_BINDTOIFINDEX read back after SO_BINDTOIFINDEX 0 */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct flips);
} flips SEC(".maps");

/* option, the value to set (0: flip a flag), what reads back */
struct opt {
	int name;
	int set;
	int want;
};

#define N_SOCK 10
static const struct opt sock_opts[N_SOCK] = {
    {2 /* SO_REUSEADDR */, 0, 0},
    {7 /* SO_SNDBUF */, 9000, 18000},
    {8 /* SO_RCVBUF */, 9000, 18000},
    {9 /* SO_KEEPALIVE */, 0, 0},
    {12 /* SO_PRIORITY */, 5, 5},
    {15 /* SO_REUSEPORT */, 0, 0},
    {18 /* SO_RCVLOWAT */, 700, 700},
    {36 /* SO_MARK */, 0x5a5a, 0x5a5a},
    {47 /* SO_MAX_PACING_RATE */, 1000000, 1000000},
    {74 /* SO_TXREHASH */, 0, 0},
};

#define N_TCP 10
static const struct opt tcp_opts[N_TCP] = {
    {1 /* TCP_NODELAY */, 0, 0},
    {4 /* TCP_KEEPIDLE */, 300, 300},
    {5 /* TCP_KEEPINTVL */, 30, 30},
    {6 /* TCP_KEEPCNT */, 7, 7},
    {7 /* TCP_SYNCNT */, 3, 3},
    {10 /* TCP_WINDOW_CLAMP */, 60000, 60000},
    {16 /* TCP_THIN_LINEAR_TIMEOUTS */, 0, 0},
    {18 /* TCP_USER_TIMEOUT */, 30000, 30000},
    {25 /* TCP_NOTSENT_LOWAT */, 4096, 4096},
    {27 /* TCP_SAVE_SYN */, 1, 1},
};

/* 0 when the option read, took the new value, read it back and took the
 * old one again. */
static __always_inline int change(struct bpf_sock_ops *skops, int level, const struct opt *o)
{
	int old = NOT_A_VALUE, v, got = NOT_A_VALUE;

	if (bpf_getsockopt(skops, level, o->name, &old, sizeof(old)))
		return 1;
	/* SO_TXREHASH reads 255 where the stack's default was never taken */
	v = o->set ? o->set : !(old & 1);
	if (bpf_setsockopt(skops, level, o->name, &v, sizeof(v)))
		return 1;
	if (bpf_getsockopt(skops, level, o->name, &got, sizeof(got)))
		return 1;
	if (got != (o->set ? o->want : v))
		return 1;
	return bpf_setsockopt(skops, level, o->name, &old, sizeof(old)) ? 1 : 0;
}

static __always_inline __u32 congestion(struct bpf_sock_ops *skops)
{
	char old[16] = {}, now[16] = {};
	const char bogus[] = "no_such_cc";
	const char reno[] = "reno";

	if (!bpf_setsockopt(skops, SOL_TCP, 13, (void *)bogus, sizeof(bogus)))
		return 1;
	if (bpf_getsockopt(skops, SOL_TCP, 13, old, sizeof(old)))
		return 1;
	if (bpf_setsockopt(skops, SOL_TCP, 13, (void *)reno, sizeof(reno)))
		return 1;
	if (bpf_getsockopt(skops, SOL_TCP, 13, now, sizeof(now)) || now[0] != 'r' ||
	    now[1] != 'e' || now[2] != 'n' || now[3] != 'o' || now[4])
		return 1;
	return bpf_setsockopt(skops, SOL_TCP, 13, old, sizeof(old)) ? 1 : 0;
}

static __always_inline void devices(struct bpf_sock_ops *skops, struct flips *f)
{
	const char none[] = "";
	const char nodev[] = "skopsnodev9";
	char name[16] = {};
	int zero = 0, idx = NOT_A_VALUE;

	f->unbind = bpf_setsockopt(skops, SOL_SOCKET, 25, (void *)none, sizeof(none));
	f->nodev = bpf_setsockopt(skops, SOL_SOCKET, 25, (void *)nodev, sizeof(nodev));
	f->get_dev = bpf_getsockopt(skops, SOL_SOCKET, 25, name, sizeof(name));
	if (bpf_setsockopt(skops, SOL_SOCKET, 62, &zero, sizeof(zero)) ||
	    bpf_getsockopt(skops, SOL_SOCKET, 62, &idx, sizeof(idx)))
		idx = -1;
	f->ifindex = idx;
}

SEC("sockops")
int sockopt_flips(struct bpf_sock_ops *skops)
{
	struct flips *f;
	__u32 key;
	int i;

	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		key = 0;
		break;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		key = 1;
		break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		key = 2;
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		key = 3;
		break;
	default:
		return 1;
	}
	f = bpf_map_lookup_elem(&flips, &key);
	if (!f)
		return 1;
		/* Failures go straight to the map value, not to registers: a bit
		 * per option in a register would leave the verifier 2^n states. */
#pragma unroll
	for (i = 0; i < N_SOCK; i++)
		if (change(skops, SOL_SOCKET, &sock_opts[i])) {
			f->sock_fail |= 1u << i;
			f->fails++;
		}
#pragma unroll
	for (i = 0; i < N_TCP; i++)
		if (change(skops, SOL_TCP, &tcp_opts[i])) {
			f->tcp_fail |= 1u << i;
			f->fails++;
		}
	if (congestion(skops)) {
		f->tcp_fail |= 1u << 31;
		f->fails++;
	}
	if (skops->family == AF_INET6) {
		struct opt tclass = {67 /* IPV6_TCLASS */, 0x28, 0x28};
		struct opt autolabel = {70 /* IPV6_AUTOFLOWLABEL */, 0, 0};

		if (change(skops, SOL_IPV6, &tclass)) {
			f->ip_fail |= 1;
			f->fails++;
		}
		if (change(skops, SOL_IPV6, &autolabel)) {
			f->ip_fail |= 2;
			f->fails++;
		}
	} else {
		struct opt tos = {1 /* IP_TOS */, 0x28, 0x28};

		if (change(skops, SOL_IP, &tos)) {
			f->ip_fail |= 1;
			f->fails++;
		}
	}
	devices(skops, f);
	f->runs++;
	return 1;
}

char _license[] SEC("license") = "GPL";
