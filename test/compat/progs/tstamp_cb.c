// SPDX-License-Identifier: GPL-2.0
/* Written in the kernel selftests' style (libbpf headers, BTF maps, an extern
 * __ksym kfunc): BPF TX timestamping of Linux 6.15. At the ESTABLISHED
 * callbacks the program checks SOL_SOCKET SK_BPF_CB_FLAGS (refused values,
 * what a child inherited from its listener, set and read back) and turns on
 * SK_BPF_CB_TX_TIMESTAMPING; then every TSTAMP_SENDMSG_CB marks the write
 * with bpf_sock_ops_enable_tx_tstamp, and the SCHED, SND_SW, SND_HW and ACK
 * callbacks are counted per socket (slot 0 active, 1 passive, 2 the
 * listener). The installed 6.1 uapi header predates all of it, so the
 * numbers are spelled here, as Linux 6.15's include/uapi/linux/bpf.h has them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SOL_SOCKET		  1
#define SOL_TCP			  6
#define SK_BPF_CB_FLAGS		  1009
#define SK_BPF_CB_TX_TIMESTAMPING 1
#define TS_SCHED		  16 /* BPF_SOCK_OPS_TSTAMP_SCHED_CB */
#define TS_SND_SW		  17
#define TS_SND_HW		  18
#define TS_ACK			  19
#define TS_SENDMSG		  20
#define PORT			  55601

/* libbpf matches a kfunc's prototype against the kernel's, and a pointer to
 * a forward declaration does not match one to a struct: a struct, then, of
 * which the program reads nothing (vmlinux.h gives the whole of it). */
struct bpf_sock_ops_kern {
	void *sk;
};
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern int bpf_sock_ops_enable_tx_tstamp(struct bpf_sock_ops_kern *skops, __u64 flags) __ksym;

struct tstamp_res {
	__s32 flags_bad;  /* SK_BPF_CB_FLAGS = 2 */
	__s32 flags_len8; /* an 8-byte optval */
	__s32 flags_tcp;  /* 1009 at SOL_TCP */
	__s32 get0_rc;	  /* getsockopt before this program set it */
	__u32 get0_val;	  /* ... the value (inherited from the listener?) */
	__s32 set_rc;
	__u32 get1_val;
	__s32 kf_first;	  /* the kfunc at the first SENDMSG */
	__s32 kf_flags;	  /* the kfunc with flags 1 */
	__s32 kf_other;	  /* the kfunc at SCHED */
	__s32 sockopt_ts; /* setsockopt in a TSTAMP op */
	__s32 getopt_ts;  /* getsockopt in a TSTAMP op */
	__s32 cbset_ts;	  /* bpf_sock_ops_cb_flags_set in a TSTAMP op */
	__u32 n_sendmsg, n_marked, n_sched, n_sw, n_hw, n_ack;
	__u32 order_bad; /* a callback before the one that must precede it */
	__u32 not_full;	 /* TSTAMP ops on a socket read as not full */
	__u32 seen;	 /* the ESTABLISHED callback ran */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct tstamp_res);
} tstamp SEC(".maps");

static void established(struct bpf_sock_ops *skops, struct tstamp_res *r)
{
	int v = 2, got = -1;
	__u64 v8 = 1;

	r->flags_bad = bpf_setsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &v, sizeof(v));
	r->flags_len8 = bpf_setsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &v8, sizeof(v8));
	v = SK_BPF_CB_TX_TIMESTAMPING;
	r->flags_tcp = bpf_setsockopt(skops, SOL_TCP, SK_BPF_CB_FLAGS, &v, sizeof(v));
	r->get0_rc = bpf_getsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &got, sizeof(got));
	r->get0_val = got;
	r->set_rc = bpf_setsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &v, sizeof(v));
	got = -1;
	bpf_getsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &got, sizeof(got));
	r->get1_val = got;
	r->seen++;
}

static void tstamp_op(struct bpf_sock_ops *skops, struct tstamp_res *r, __u32 op)
{
	int v = 1;

	if (!skops->is_fullsock)
		r->not_full++;
	if (r->n_sendmsg == 0 && r->n_sched == 0 && r->n_ack == 0) {
		r->sockopt_ts = bpf_setsockopt(skops, SOL_TCP, 1 /* TCP_NODELAY */, &v, sizeof(v));
		r->getopt_ts = bpf_getsockopt(skops, SOL_TCP, 1, &v, sizeof(v));
		r->cbset_ts = bpf_sock_ops_cb_flags_set(skops, 0);
	}
	switch (op) {
	case TS_SENDMSG:
		if (r->n_sendmsg++ == 0) {
			r->kf_flags = bpf_sock_ops_enable_tx_tstamp(bpf_cast_to_kern_ctx(skops), 1);
			r->kf_first = bpf_sock_ops_enable_tx_tstamp(bpf_cast_to_kern_ctx(skops), 0);
			if (r->kf_first == 0)
				r->n_marked++;
		} else if (bpf_sock_ops_enable_tx_tstamp(bpf_cast_to_kern_ctx(skops), 0) == 0) {
			r->n_marked++;
		}
		break;
	case TS_SCHED:
		if (r->n_sched++ == 0)
			r->kf_other = bpf_sock_ops_enable_tx_tstamp(bpf_cast_to_kern_ctx(skops), 0);
		if (r->n_sched > r->n_marked)
			r->order_bad++;
		break;
	case TS_SND_SW:
		if (++r->n_sw > r->n_sched)
			r->order_bad++;
		break;
	case TS_SND_HW:
		r->n_hw++;
		break;
	case TS_ACK:
		if (++r->n_ack > r->n_sw)
			r->order_bad++;
		break;
	}
}

SEC("sockops")
int tstamp_cb(struct bpf_sock_ops *skops)
{
	__u32 op = skops->op, slot = skops->local_port == PORT ? 1 : 0;
	struct tstamp_res *r;
	int v = SK_BPF_CB_TX_TIMESTAMPING;

	if (op == BPF_SOCK_OPS_TCP_LISTEN_CB) {
		slot = 2;
		r = bpf_map_lookup_elem(&tstamp, &slot);
		if (r)
			r->set_rc =
			    bpf_setsockopt(skops, SOL_SOCKET, SK_BPF_CB_FLAGS, &v, sizeof(v));
		return 1;
	}
	r = bpf_map_lookup_elem(&tstamp, &slot);
	if (!r)
		return 1;
	if (op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB || op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		established(skops, r);
	else if (op >= TS_SCHED && op <= TS_SENDMSG)
		tstamp_op(skops, r, op);
	return 1;
}

char _license[] SEC("license") = "GPL";
