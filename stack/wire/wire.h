/* wire: views and representations of the protocols below TCP (smoltcp's
 * two levels, docs/style.md): a view is a byte buffer with one accessor per field
 * (byte order handled only here); a repr is the validated host-order struct
 * the stack works with. X_parse runs the one length check on untrusted bytes,
 * validates and normalises; X_emit writes a repr into a buffer of X_len bytes.
 * Addresses stay in network byte order (as in struct ip_meta); everything
 * else in a repr is host order. Checksums per RFC 1071, pseudo-headers per
 * RFC 768 / RFC 8200 §8.1. */
#ifndef SKOPS_STACK_WIRE_WIRE_H
#define SKOPS_STACK_WIRE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rte_mbuf;

/* A borrowed byte range: the bytes of one header and what follows it. */
struct wire_view {
	uint8_t *p;
	size_t len;
};

static inline uint16_t wire_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}
static inline uint32_t wire_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- internet checksum (checksum.c) ------------------------------------ */

/* One's complement sum of len bytes added to sum (32-bit accumulator, not
 * folded). Sums of consecutive ranges combine only when each range before
 * the last has even length; wire_csum_mbuf handles odd splits. */
uint32_t wire_csum_add(uint32_t sum, const void *buf, size_t len);
/* Sum over [off, off+len) of an mbuf chain; the range must lie inside the
 * chain (the caller checked pkt_len). */
uint32_t wire_csum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t sum);
uint16_t wire_csum_fold(uint32_t sum); /* folded, not complemented */
static inline uint16_t wire_csum_finish(uint32_t sum)
{
	return (uint16_t)~wire_csum_fold(sum);
}
/* Pseudo-header sums; addresses network order, l4_len host order. */
uint32_t wire_csum_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, uint32_t l4_len);
uint32_t wire_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16], uint8_t nh,
			   uint32_t l4_len);

/* ---- Ethernet II (eth.c) ----------------------------------------------- */

#define ETH_HDR_LEN   14
#define ETH_TYPE_IP4  0x0800
#define ETH_TYPE_ARP  0x0806
#define ETH_TYPE_IP6  0x86dd
#define ETH_TYPE_VLAN 0x8100

struct eth_repr {
	uint8_t dst[6], src[6];
	uint16_t type;
};

int eth_parse(const struct wire_view *v, struct eth_repr *r);
void eth_emit(const struct eth_repr *r, struct wire_view *v);
bool eth_is_broadcast(const uint8_t mac[6]);
bool eth_is_multicast(const uint8_t mac[6]);

/* ---- ARP for Ethernet/IPv4, RFC 826 (arp.c) ---------------------------- */

#define ARP_LEN	       28
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY   2

struct arp_repr {
	uint16_t op;
	uint8_t sha[6], tha[6];
	uint32_t spa, tpa; /* network order */
};

/* -EINVAL unless hardware Ethernet(1)/6, protocol IPv4/4, op request|reply. */
int arp_parse(const struct wire_view *v, struct arp_repr *r);
void arp_emit(const struct arp_repr *r, struct wire_view *v);

/* ---- IPv4, RFC 791 (ip4.c) --------------------------------------------- */

#define IP4_HDR_LEN 20
#define IP4_FLAG_DF 0x4000
#define IP4_FLAG_MF 0x2000

struct ip4_repr {
	uint32_t src, dst; /* network order */
	uint8_t proto, tos, ttl;
	uint8_t hdr_len;      /* incl. options (parse); emit always writes 20 */
	uint16_t payload_len; /* total length - header length */
	uint16_t id;
	bool df, mf;
	uint16_t frag_off; /* in bytes */
};

/* Checks version, IHL, total length against the buffer (trailing padding is
 * allowed and ignored) and, unless skip_csum, the header checksum (-EBADMSG).
 * Options are skipped, never interpreted. */
int ip4_parse(const struct wire_view *v, struct ip4_repr *r, bool skip_csum);
/* Writes a 20-byte header; the checksum field is left 0 when offloaded. */
void ip4_emit(const struct ip4_repr *r, struct wire_view *v, bool csum_offload);
static inline size_t ip4_len(const struct ip4_repr *r)
{
	(void)r;
	return IP4_HDR_LEN;
}

/* ---- IPv6, RFC 8200 (ip6.c) -------------------------------------------- */

#define IP6_HDR_LEN	40
#define IP6_NH_HOPOPT	0
#define IP6_NH_ROUTING	43
#define IP6_NH_FRAGMENT 44
#define IP6_NH_ICMP6	58
#define IP6_NH_NONE	59
#define IP6_NH_DSTOPTS	60

struct ip6_repr {
	uint8_t src[16], dst[16];
	uint8_t next_header, hop_limit, tclass;
	uint32_t flow;
	uint16_t payload_len;
};

int ip6_parse(const struct wire_view *v, struct ip6_repr *r);
void ip6_emit(const struct ip6_repr *r, struct wire_view *v);
/* Skips hop-by-hop, routing (segments left 0) and destination options headers
 * from *nh on; returns the offset of the next other header with *nh set: the
 * upper-layer header or a Fragment header (*nh IP6_NH_FRAGMENT, for the
 * caller to reassemble or refuse). -EPROTO for a routing header still to be
 * processed, -EINVAL when truncated. */
int ip6_skip_ext(const struct wire_view *payload, uint8_t *nh);
bool ip6_is_multicast(const uint8_t a[16]);
bool ip6_is_unspecified(const uint8_t a[16]);
/* ff02::1:ffXX:XXXX for a, RFC 4291 §2.7.1 */
void ip6_solicited_node(const uint8_t a[16], uint8_t out[16]);
/* 33:33 + the low 32 bits, RFC 2464 §7 */
void ip6_mcast_mac(const uint8_t a[16], uint8_t mac[6]);

/* ---- ICMPv4, RFC 792 and ICMPv6, RFC 4443 (icmp.c) --------------------- */

#define ICMP_HDR_LEN	      8
#define ICMP_ECHO_REPLY	      0
#define ICMP_UNREACH	      3
#define ICMP_UNREACH_NET      0
#define ICMP_UNREACH_HOST     1
#define ICMP_UNREACH_PROTO    2
#define ICMP_UNREACH_PORT     3
#define ICMP_UNREACH_NEEDFRAG 4
#define ICMP_ECHO	      8
#define ICMP_TIME_EXCEEDED    11
#define ICMP_PARAM_PROBLEM    12

#define ICMP6_UNREACH	     1
#define ICMP6_UNREACH_PORT   4
#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_TIME_EXCEEDED  3
#define ICMP6_PARAM_PROBLEM  4
#define ICMP6_ECHO	     128
#define ICMP6_ECHO_REPLY     129
#define NDP_NS		     135
#define NDP_NA		     136

/* Common to both: type, code, the 32-bit "rest of header" (id << 16 | seq
 * for echo, the MTU for frag-needed / packet-too-big) and the message body
 * (borrowed from the parsed buffer, or the bytes emit copies). */
struct icmp_repr {
	uint8_t type, code;
	uint32_t rest;
	const uint8_t *data;
	size_t data_len;
};

/* v4: the checksum covers the message; -EBADMSG when wrong (unless skip). */
int icmp4_parse(const struct wire_view *v, struct icmp_repr *r, bool skip_csum);
void icmp4_emit(const struct icmp_repr *r, struct wire_view *v);
/* v6: the checksum includes the pseudo-header of src/dst. */
int icmp6_parse(const struct wire_view *v, const uint8_t src[16], const uint8_t dst[16],
		struct icmp_repr *r, bool skip_csum);
void icmp6_emit(const struct icmp_repr *r, const uint8_t src[16], const uint8_t dst[16],
		struct wire_view *v);
static inline size_t icmp_len(const struct icmp_repr *r)
{
	return ICMP_HDR_LEN + r->data_len;
}

/* ---- NDP, RFC 4861 §4.3/§4.4 (ndp.c) ----------------------------------- */

#define NDP_OPT_SLLA	 1
#define NDP_OPT_TLLA	 2
#define NDP_NA_ROUTER	 0x80000000u
#define NDP_NA_SOLICITED 0x40000000u
#define NDP_NA_OVERRIDE	 0x20000000u

struct ndp_repr {
	uint8_t type;	/* NDP_NS or NDP_NA */
	uint32_t flags; /* NA: NDP_NA_* */
	uint8_t target[16];
	bool has_lla;
	uint8_t lla[6]; /* source (NS) or target (NA) link-layer address */
};

/* From a parsed ICMPv6 message: RFC 4861 §7.1.1/§7.1.2 checks (code 0,
 * length, target not multicast, every option length non-zero). Hop limit 255
 * is checked by the caller, which has the IPv6 header. */
int ndp_parse(const struct icmp_repr *icmp, struct ndp_repr *r);
/* The ICMPv6 body (after the 4-byte reserved/flags word) into buf, returns its
 * length (16 + 8 with an LLA option); fills icmp to be emitted by icmp6_emit. */
size_t ndp_emit_body(const struct ndp_repr *r, uint8_t *buf, size_t buf_len,
		     struct icmp_repr *icmp);

/* ---- UDP, RFC 768 (udp.c) ---------------------------------------------- */

#define UDP_HDR_LEN  8
#define UDP_CSUM_OFF 6 /* the checksum field's offset in the header */

struct udp_repr {
	uint16_t sport, dport;
	uint16_t len; /* header + payload, from the header */
};

/* Checks the length field against the buffer (trailing bytes beyond it are
 * ignored). Destination port 0 is refused; source port 0 is legal (RFC 768:
 * "optional"). */
int udp_parse(const struct wire_view *v, struct udp_repr *r);
/* Header only; the checksum is computed by the caller over the whole
 * datagram (it may span an mbuf chain). */
void udp_emit(const struct udp_repr *r, struct wire_view *v);

/* ---- TCP, RFC 9293 §3.1 (tcp.c) ---------------------------------------- */

/* The header as a parsed, host-order repr. Options are parsed once here:
 * MSS, window scale, SACK-permitted, SACK blocks, timestamps (RFC 7323,
 * RFC 2018). */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20
#define TCP_ECE 0x40
#define TCP_CWR 0x80

#define TCP_HDR_MIN    20
#define TCP_HDR_MAX    60
#define TCP_MAX_WSCALE 14 /* RFC 7323 §2.3 */
#define TCP_SACK_MAX   4
#define TCP_OPT_SPACE  40 /* option bytes a header can hold, RFC 9293 §3.1 */

struct tcp_repr {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;	 /* TCP_FIN .. TCP_CWR */
	uint16_t window; /* as on the wire (unscaled) */
	uint16_t urg;
	uint16_t mss;  /* 0: no MSS option */
	int8_t wscale; /* -1: no window scale option */
	bool sack_perm;
	bool ts;
	uint32_t tsval, tsecr;
	uint8_t nsack;
	struct {
		uint32_t l, r;
	} sack[TCP_SACK_MAX];
	/* sock_ops header options (docs/sockops.md §5). Emit: xopt_len bytes (a
	 * multiple of 4) appended after the options above. Parse: the option
	 * area as received, and whether it holds a kind none of the fields
	 * above take (Linux's "unknown" option for PARSE_UNKNOWN_HDR_OPT). */
	uint8_t xopt_len, rxopt_len;
	bool unknown_opt;
	/* Emit only, not a TCP field: the flow label the sender wants in the
	 * IPv6 header carrying the segment (0: none; IPV6_AUTOFLOWLABEL). */
	uint32_t ip6_flow;
	uint8_t xopt[TCP_OPT_SPACE], rxopt[TCP_OPT_SPACE];
};

/* Parses the header of a segment of len bytes. Returns the header length
 * (data follows it) or -EINVAL for a truncated header, a bad data offset,
 * port 0 or an illegal flag mix (SYN+FIN, SYN+RST). Malformed options end
 * option parsing (the segment is kept, as Linux's tcp_parse_options). */
int tcp_parse(const uint8_t *buf, size_t len, struct tcp_repr *r);
/* Header bytes (options padded to 4) that tcp_emit writes for r. */
size_t tcp_repr_hdr_len(const struct tcp_repr *r);
/* Writes the header (checksum 0) into buf of at least tcp_repr_hdr_len(r). */
void tcp_emit(const struct tcp_repr *r, uint8_t *buf);

/* Internet checksum of a TCP segment with its pseudo-header; addresses in
 * network order (4 or 16 bytes by family). A valid segment sums to 0. */
uint16_t tcp_checksum(int family, const void *src, const void *dst, const void *seg, size_t len);
#define TCP_CSUM_OFF 16 /* the checksum field's offset in the header */

#endif
