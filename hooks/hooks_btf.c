/* The BTF hooks publishes for sock_ops programs (Linux's
 * Documentation/bpf/btf.rst encoding): struct tcp_sock and the structs it
 * embeds, exactly as hooks_int.h lays out what bpf_skc_to_tcp_sock() returns.
 * Member offsets come from offsetof and member types from sizeof, so the BTF
 * cannot drift from the memory it describes. CO-RE relocations resolve
 * against it (bpfvm/loader_core.c) and the verifier admits reads of its
 * integer fields. */
#include <stddef.h>

#include "hooks_btf_uapi.h"
#include "hooks_int.h"

/* The string section: one char array per name, so offsetof gives offsets. */
#define HK_NAMES(N, X)                                                                             \
	X(uchar, "unsigned char")                                                                  \
	X(ushort, "unsigned short")                                                                \
	X(uint, "unsigned int")                                                                    \
	X(ullong, "long long unsigned int")                                                        \
	N(u6_addr8)                                                                                \
	N(u6_addr16)                                                                               \
	N(u6_addr32)                                                                               \
	N(in6_u)                                                                                   \
	N(in6_addr)                                                                                \
	N(sock_common)                                                                             \
	N(skc_daddr)                                                                               \
	N(skc_rcv_saddr)                                                                           \
	N(skc_dport)                                                                               \
	N(skc_num)                                                                                 \
	N(skc_family)                                                                              \
	N(skc_state)                                                                               \
	N(skc_v6_daddr)                                                                            \
	N(skc_v6_rcv_saddr)                                                                        \
	N(sock)                                                                                    \
	N(__sk_common)                                                                             \
	N(sk_mark)                                                                                 \
	N(sk_priority)                                                                             \
	N(sk_txhash)                                                                               \
	N(sk_type)                                                                                 \
	N(sk_protocol)                                                                             \
	N(inet_sock)                                                                               \
	N(sk)                                                                                      \
	N(inet_saddr)                                                                              \
	N(inet_sport)                                                                              \
	N(inet_connection_sock)                                                                    \
	N(icsk_inet)                                                                               \
	N(icsk_retransmits)                                                                        \
	N(minmax_sample)                                                                           \
	N(t)                                                                                       \
	N(v)                                                                                       \
	N(minmax)                                                                                  \
	N(s)                                                                                       \
	N(tcp_sock)                                                                                \
	N(inet_conn)                                                                               \
	N(snd_cwnd)                                                                                \
	N(snd_ssthresh)                                                                            \
	N(srtt_us)                                                                                 \
	N(mss_cache)                                                                               \
	N(rcv_nxt)                                                                                 \
	N(snd_nxt)                                                                                 \
	N(snd_una)                                                                                 \
	N(packets_out)                                                                             \
	N(retrans_out)                                                                             \
	N(lost_out)                                                                                \
	N(sacked_out)                                                                              \
	N(total_retrans)                                                                           \
	N(segs_in)                                                                                 \
	N(segs_out)                                                                                \
	N(data_segs_in)                                                                            \
	N(data_segs_out)                                                                           \
	N(delivered)                                                                               \
	N(delivered_ce)                                                                            \
	N(dsack_dups)                                                                              \
	N(rate_delivered)                                                                          \
	N(rate_interval_us)                                                                        \
	N(ecn_flags)                                                                               \
	N(rtt_min)                                                                                 \
	N(bytes_received)                                                                          \
	N(bytes_acked)                                                                             \
	N(mdev_us)                                                                                 \
	N(rcv_wnd)                                                                                 \
	N(window_clamp)                                                                            \
	N(rcv_wup)                                                                                 \
	N(copied_seq)                                                                              \
	N(write_seq)                                                                               \
	N(snd_wnd)                                                                                 \
	N(snd_wl1)                                                                                 \
	N(rcv_ssthresh)

struct hk_btf_strs {
	char nul;
#define HK_FIELD_N(id)	  char id[sizeof(#id)];
#define HK_FIELD_X(id, s) char id[sizeof(s)];
	HK_NAMES(HK_FIELD_N, HK_FIELD_X)
	HK_UAPI_NAMES(HK_FIELD_N, HK_FIELD_X)
};
#define S(id) ((uint32_t)offsetof(struct hk_btf_strs, id))

/* type ids, in the order of HK_TYPES */
enum {
	T_U8 = 1,
	T_U16,
	T_U32,
	T_U64,
	T_A8x16,
	T_A16x8,
	T_A32x4,
	T_IN6_U,
	T_IN6,
	T_SOCK_COMMON,
	T_SOCK,
	T_INET_SOCK,
	T_ICSK,
	T_MINMAX_SAMPLE,
	T_A_SAMPLE3,
	T_MINMAX,
	T_TCP_SOCK,
	T_VOLATILE_U8,
};
enum { HK_UAPI_IDS(T_VOLATILE_U8 + 1) };
_Static_assert(T_TCP_SOCK == HOOKS_BTF_TCP_SOCK_ID, "struct tcp_sock's id");

#define INFO(kind, vlen)	       (((uint32_t)(kind) << 24) | (uint32_t)(vlen))
#define T_INT(name, size)	       S(name), INFO(1, 0), size, (size)*8
#define T_ARRAY(elem, n)	       0, INFO(3, 0), 0, elem, T_U32, n
#define T_COMP(kind, name, vlen, type) name, INFO(kind, vlen), (uint32_t)sizeof(type)
#define T_STRUCT(name, vlen, type)     T_COMP(4, S(name), vlen, type)
/* a member: name, BTF type, bit offset */
#define M(st, f, type) S(f), type, (uint32_t)(offsetof(st, f) * 8)
/* an unsigned integer member, its BTF type picked by its size */
#define SZ(st, f) sizeof(((st *)0)->f)
#define UINT(st, f)                                                                                \
	(SZ(st, f) == 1 ? T_U8 : SZ(st, f) == 2 ? T_U16 : SZ(st, f) == 4 ? T_U32 : T_U64)
#define MU(st, f) M(st, f, UINT(st, f))

#define SC struct hooks_k_sock_common
#define SK struct hooks_k_sock
#define IS struct hooks_k_inet_sock
#define IC struct hooks_k_inet_connection_sock
#define TP struct hooks_k_tcp_sock
#define MS struct hooks_k_minmax_sample
#define I6 struct hooks_k_in6_addr

#define HK_TYPES                                                                                   \
	T_INT(uchar, 1), T_INT(ushort, 2), T_INT(uint, 4), T_INT(ullong, 8), T_ARRAY(T_U8, 16),    \
	    T_ARRAY(T_U16, 8),                                                                     \
	    T_ARRAY(T_U32, 4), /* union in6_u { u6_addr8, u6_addr16, u6_addr32 } */                \
	    T_COMP(5, 0, 3, I6) /* in6_u: all of in6_addr */, S(u6_addr8), T_A8x16, 0,             \
	    S(u6_addr16), T_A16x8, 0, S(u6_addr32), T_A32x4, 0, T_STRUCT(in6_addr, 1, I6),         \
	    M(I6, in6_u, T_IN6_U), T_STRUCT(sock_common, 8, SC), MU(SC, skc_daddr),                \
	    MU(SC, skc_rcv_saddr), MU(SC, skc_dport), MU(SC, skc_num), MU(SC, skc_family),         \
	    M(SC, skc_state, T_VOLATILE_U8), M(SC, skc_v6_daddr, T_IN6),                           \
	    M(SC, skc_v6_rcv_saddr, T_IN6), T_STRUCT(sock, 6, SK),                                 \
	    M(SK, __sk_common, T_SOCK_COMMON), MU(SK, sk_mark), MU(SK, sk_priority),               \
	    MU(SK, sk_txhash), MU(SK, sk_type), MU(SK, sk_protocol), T_STRUCT(inet_sock, 3, IS),   \
	    M(IS, sk, T_SOCK), MU(IS, inet_saddr), MU(IS, inet_sport),                             \
	    T_STRUCT(inet_connection_sock, 2, IC), M(IC, icsk_inet, T_INET_SOCK),                  \
	    MU(IC, icsk_retransmits), T_STRUCT(minmax_sample, 2, MS), MU(MS, t), MU(MS, v),        \
	    T_ARRAY(T_MINMAX_SAMPLE, 3), T_STRUCT(minmax, 1, struct hooks_k_minmax),               \
	    M(struct hooks_k_minmax, s, T_A_SAMPLE3), T_STRUCT(tcp_sock, 35, TP),                  \
	    M(TP, inet_conn, T_ICSK), MU(TP, snd_cwnd), MU(TP, snd_ssthresh), MU(TP, srtt_us),     \
	    MU(TP, mss_cache), MU(TP, rcv_nxt), MU(TP, snd_nxt), MU(TP, snd_una),                  \
	    MU(TP, packets_out), MU(TP, retrans_out), MU(TP, lost_out), MU(TP, sacked_out),        \
	    MU(TP, total_retrans), MU(TP, segs_in), MU(TP, segs_out), MU(TP, data_segs_in),        \
	    MU(TP, data_segs_out), MU(TP, delivered), MU(TP, delivered_ce), MU(TP, dsack_dups),    \
	    MU(TP, rate_delivered), MU(TP, rate_interval_us), MU(TP, ecn_flags),                   \
	    M(TP, rtt_min, T_MINMAX), MU(TP, bytes_received), MU(TP, bytes_acked),                 \
	    MU(TP, mdev_us), MU(TP, rcv_wnd), MU(TP, window_clamp), MU(TP, rcv_wup),               \
	    MU(TP, copied_seq), MU(TP, write_seq), MU(TP, snd_wnd), MU(TP, snd_wl1),               \
	    MU(TP, rcv_ssthresh), /* volatile unsigned char, skc_state's type in Linux */          \
	    0, INFO(9, 0), T_U8

#define HK_NTYPE_WORDS (sizeof((const uint32_t[]){HK_TYPES, HK_UAPI_TYPES}) / sizeof(uint32_t))

struct hooks_btf_blob {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint32_t types[HK_NTYPE_WORDS];
	struct hk_btf_strs strs;
};

const struct hooks_btf_blob hooks_btf_blob = {
    .magic = 0xeb9f,
    .version = 1,
    .hdr_len = 24,
    .type_off = 0,
    .type_len = HK_NTYPE_WORDS * 4,
    .str_off = HK_NTYPE_WORDS * 4,
    .str_len = sizeof(struct hk_btf_strs),
    .types = {HK_TYPES, HK_UAPI_TYPES},
    .strs =
	{
#define HK_INIT_N(id)	 .id = #id,
#define HK_INIT_X(id, s) .id = s,
	    HK_NAMES(HK_INIT_N, HK_INIT_X) HK_UAPI_NAMES(HK_INIT_N, HK_INIT_X)},
};

_Static_assert(offsetof(struct hooks_btf_blob, types) == 24, "BTF header is 24 bytes");
_Static_assert(offsetof(struct hooks_btf_blob, strs) == 24 + HK_NTYPE_WORDS * 4,
	       "strings follow the types");
_Static_assert(sizeof(struct hooks_btf_blob) == HOOKS_BTF_SIZE, "HOOKS_BTF_SIZE is stale");
