/* The uapi context structs in the sock_ops BTF (included by hooks_btf.c, after
 * its type macros): struct bpf_sock_ops, and struct bpf_sock that its sk
 * points at, laid out as hooks_int.h's views (the 6.1 layouts). Programs
 * built against vmlinux.h read the context through CO-RE relocations against
 * these names (vmlinux.h marks every struct preserve_access_index), as libbpf
 * resolves them against the kernel's BTF; they resolve to the uapi offsets
 * the context rules (hooks_type.c) then check. Only names hooks_btf.c does
 * not already have are added. */
#ifndef SKOPS_HOOKS_BTF_UAPI_H
#define SKOPS_HOOKS_BTF_UAPI_H

#define HK_UAPI_NAMES(N, X)                                                                        \
	X(sint, "int")                                                                             \
	N(bpf_sock_ops)                                                                            \
	N(op)                                                                                      \
	N(args)                                                                                    \
	N(reply)                                                                                   \
	N(replylong)                                                                               \
	N(family)                                                                                  \
	N(remote_ip4)                                                                              \
	N(local_ip4)                                                                               \
	N(remote_ip6)                                                                              \
	N(local_ip6)                                                                               \
	N(remote_port)                                                                             \
	N(local_port)                                                                              \
	N(is_fullsock)                                                                             \
	N(bpf_sock_ops_cb_flags)                                                                   \
	N(state)                                                                                   \
	N(skb_data)                                                                                \
	N(skb_data_end)                                                                            \
	N(skb_len)                                                                                 \
	N(skb_tcp_flags)                                                                           \
	N(bpf_sock)                                                                                \
	N(bound_dev_if)                                                                            \
	N(type)                                                                                    \
	N(protocol)                                                                                \
	N(mark)                                                                                    \
	N(priority)                                                                                \
	N(src_ip4)                                                                                 \
	N(src_ip6)                                                                                 \
	N(src_port)                                                                                \
	N(dst_port)                                                                                \
	N(dst_ip4)                                                                                 \
	N(dst_ip6)                                                                                 \
	N(rx_queue_mapping)

/* type ids, following hooks_btf.c's last one, in the order of HK_UAPI_TYPES */
#define HK_UAPI_IDS(first) T_S32 = (first), T_OPS_ARGS, T_BPF_SOCK_OPS, T_BPF_SOCK, T_PTR_BPF_SOCK

#define OV struct hooks_sock_ops_view
#define BS struct hooks_bpf_sock_view
#define HK_UAPI_TYPES                                                                              \
	S(sint), INFO(1, 0), 4, (1u << 24) | 32,                                                   \
	    /* signed */ /* union { __u32 args[4]; __u32 reply; __u32 replylong[4]; } */           \
	    T_COMP(5, 0, 3, uint32_t[4]), S(args), T_A32x4, 0, S(reply), T_U32, 0, S(replylong),   \
	    T_A32x4, 0, T_STRUCT(bpf_sock_ops, 40, OV), MU(OV, op), 0, T_OPS_ARGS,                 \
	    (uint32_t)(offsetof(OV, args) * 8), MU(OV, family), MU(OV, remote_ip4),                \
	    MU(OV, local_ip4), M(OV, remote_ip6, T_A32x4), M(OV, local_ip6, T_A32x4),              \
	    MU(OV, remote_port), MU(OV, local_port), MU(OV, is_fullsock), MU(OV, snd_cwnd),        \
	    MU(OV, srtt_us), MU(OV, bpf_sock_ops_cb_flags), MU(OV, state), MU(OV, rtt_min),        \
	    MU(OV, snd_ssthresh), MU(OV, rcv_nxt), MU(OV, snd_nxt), MU(OV, snd_una),               \
	    MU(OV, mss_cache), MU(OV, ecn_flags), MU(OV, rate_delivered),                          \
	    MU(OV, rate_interval_us), MU(OV, packets_out), MU(OV, retrans_out),                    \
	    MU(OV, total_retrans), MU(OV, segs_in), MU(OV, data_segs_in), MU(OV, segs_out),        \
	    MU(OV, data_segs_out), MU(OV, lost_out), MU(OV, sacked_out), MU(OV, sk_txhash),        \
	    MU(OV, bytes_received), MU(OV, bytes_acked), M(OV, sk, T_PTR_BPF_SOCK),                \
	    MU(OV, skb_data), MU(OV, skb_data_end), MU(OV, skb_len), MU(OV, skb_tcp_flags),        \
	    T_STRUCT(bpf_sock, 14, BS), MU(BS, bound_dev_if), MU(BS, family), MU(BS, type),        \
	    MU(BS, protocol), MU(BS, mark), MU(BS, priority), MU(BS, src_ip4),                     \
	    M(BS, src_ip6, T_A32x4), MU(BS, src_port), MU(BS, dst_port), MU(BS, dst_ip4),          \
	    M(BS, dst_ip6, T_A32x4), MU(BS, state), M(BS, rx_queue_mapping, T_S32), 0, INFO(2, 0), \
	    T_BPF_SOCK

#endif
