/* tcp_wire: the TCP header as a view over bytes and as a parsed, host-order
 * repr (smoltcp's wire split). Options are parsed once here: MSS, window
 * scale, SACK-permitted, SACK blocks, timestamps (RFC 9293 §3.1, RFC 7323,
 * RFC 2018). Checksums cover the IPv4/IPv6 pseudo-header (RFC 9293 §3.1). */
#ifndef SKOPS_STACK_TCP_TCP_WIRE_H
#define SKOPS_STACK_TCP_TCP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* Offset of the checksum field in the TCP header. */
#define TCP_CSUM_OFF 16

#endif
