/* net: the network layer of one stack instance (one lcore): Ethernet, ARP,
 * IPv4 and IPv6 with reassembly and UDP fragmentation, NDP, ICMP/ICMPv6 and
 * UDP, over a struct dev. TCP plugs in as an L4 handler and sends through
 * net_output. Read RFC 826 (ARP), RFC 791/815 (IPv4, reassembly), RFC
 * 792/1191 (ICMP, PMTUD), RFC 8200 (IPv6), RFC 5722/6946/7112/7739 (IPv6
 * fragments), RFC 4861 (NDP), RFC 4443/8201 (ICMPv6, PMTUD), RFC 768 (UDP),
 * RFC 1122 (host requirements). */
#ifndef SKOPS_STACK_NET_NET_H
#define SKOPS_STACK_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;
struct clk;
struct dev;
struct net;

#define NET_MAX_ADDRS 8

/* An address of the interface: family AF_INET (2) or AF_INET6 (10), the
 * address in network byte order and the on-link prefix length. */
struct net_addr {
	uint8_t family;
	uint8_t prefix_len;
	union {
		uint32_t v4;
		uint8_t v6[16];
	} addr;
};

struct net_config {
	struct dev *dev;	  /* not owned */
	struct rte_mempool *pool; /* tx mbufs (replies, ARP/ND, UDP) */
	const struct clk *clk;
	struct net_addr addrs[NET_MAX_ADDRS];
	unsigned naddrs;
	uint32_t gw4;	 /* IPv4 default gateway, network order; 0: none */
	uint8_t gw6[16]; /* IPv6 default gateway; all zero: none */
	uint32_t mtu;	 /* 0: the device's MTU; else min(mtu, device) */
	uint64_t seed;	 /* IPv4 IDs, ephemeral UDP ports */
	/* 0 means the default given in brackets */
	uint32_t neigh_timeout_ms; /* reachable time of a resolved entry [60000] */
	uint32_t neigh_retrans_ms; /* ARP request / NS retransmission [1000] */
	uint32_t neigh_max_probes; /* before the entry fails [3] */
	uint32_t neigh_queue;	   /* packets held per unresolved entry [3] */
	/* Entries per family (Linux gc_thresh3 of arp_tbl / nd_tbl) [1024];
	 * unresolved ones are held to a quarter of that (at least 8), and
	 * hold at most 256 packets together. */
	uint32_t neigh_max;
	uint32_t frag_timeout_ms;    /* IPv4 reassembly lifetime, RFC 791 [30000] */
	uint32_t frag6_timeout_ms;   /* IPv6 reassembly lifetime, RFC 8200 §4.5 [60000] */
	uint32_t frag_max_datagrams; /* concurrent reassemblies, both families [64] */
	uint32_t frag_max_size;	     /* largest reassembled payload [65535] */
	/* Bytes of fragments held (Linux ipfrag_high_thresh) [4 MiB]: past it
	 * the oldest datagrams go until 3/4 of it is left (low_thresh). */
	uint32_t frag_mem_max;
	bool no_gratuitous_arp; /* skip the announcement at start */
};

/* Per-packet IP metadata. Addresses in network byte order. On input l4_len is
 * the L4 length after IP padding is trimmed; on output it is ignored (the
 * mbuf's pkt_len is used). tos is the IPv4 TOS byte / IPv6 traffic class
 * (DSCP << 2 | ECN). ttl 0 on output means 64. */
struct ip_meta {
	uint8_t family; /* AF_INET / AF_INET6 */
	uint8_t proto;	/* IPPROTO_TCP, IPPROTO_UDP, ... */
	uint8_t tos;
	uint8_t ttl;
	uint32_t flow; /* IPv6 flow label on output (0: none) */
	union {
		uint32_t v4;
		uint8_t v6[16];
	} src, dst;
	uint16_t l4_len;
	/* The Ethernet and IP headers still in front of the L4 header in the
	 * mbuf (0: not there, as for a reassembled datagram): TCP_SAVE_SYN
	 * keeps a SYN's headers as they came. */
	uint8_t l2_len;
	uint16_t l3_len;
};

enum net_icmp_kind {
	NET_ICMP_UNREACH_PORT = 1, /* ICMP 3/3, ICMPv6 1/4 */
	NET_ICMP_UNREACH_OTHER,	   /* net/host/proto/admin unreachable */
	NET_ICMP_FRAG_NEEDED,	   /* ICMP 3/4, ICMPv6 2 (packet too big): mtu valid */
	NET_ICMP_TIME_EXCEEDED,
	NET_ICMP_PARAM_PROBLEM,
};

/* An ICMP error quoting one of our packets: inner describes the quoted packet
 * as we sent it (src = us), l4 its first 8 L4 bytes (ports, TCP seq). */
struct net_icmp_err {
	enum net_icmp_kind kind;
	uint8_t type, code; /* as on the wire */
	uint32_t mtu;	    /* NET_ICMP_FRAG_NEEDED: the reported next-hop MTU */
	struct ip_meta inner;
	uint8_t l4[8];
};

/* Every drop has its reason. */
struct net_stats {
	uint64_t rx_frames, tx_frames, tx_dev_full;
	uint64_t eth_short, eth_not_for_us, eth_unknown_type;
	uint64_t arp_bad, arp_requests_in, arp_replies_in, arp_requests_out, arp_replies_out;
	/* neigh_table_full: no entry for a next hop (every slot resolved);
	 * neigh_evicted: an unresolved entry (its queue dropped) or a failed
	 * one given up for a new one; neigh_unresolved: packets dropped for a
	 * next hop that never answered (neigh_failed counts the same plus a
	 * failed entry's queue) */
	uint64_t neigh_queue_drop, neigh_failed, neigh_table_full, neigh_evicted;
	uint64_t neigh_ignored; /* ARP/NS about a target not ours: learnt nothing */
	uint64_t ip4_in, ip4_bad_hdr, ip4_bad_csum, ip4_bad_len, ip4_not_for_us, ip4_options;
	uint64_t ip4_frag_in, ip4_reasm_ok, ip4_reasm_timeout, ip4_reasm_drop, ip4_frag_out_drop;
	/* incomplete datagrams given up for newer ones (memory or slots) */
	uint64_t reasm_evicted;
	uint64_t ip4_frag_out; /* fragments sent (UDP over the path MTU) */
	uint64_t ip6_in, ip6_bad_hdr, ip6_bad_len, ip6_not_for_us, ip6_ext_drop;
	uint64_t ip6_frag_in, ip6_reasm_ok, ip6_reasm_timeout, ip6_reasm_drop;
	uint64_t ip6_frag_out; /* fragments sent (UDP over the path MTU) */
	uint64_t icmp_in, icmp_bad, icmp_echo_replies, icmp_errors_in, icmp_errors_out;
	uint64_t icmp6_in, icmp6_bad, icmp6_echo_replies, icmp6_errors_in, ndp_ns_in, ndp_na_in,
	    ndp_ns_out, ndp_na_out;
	uint64_t udp_in, udp_bad, udp_bad_csum, udp_no_port, udp_out;
	uint64_t l4_bad_csum, l4_no_handler, l4_delivered;
	/* TCP/UDP checksums verified good; failed ones whose field holds only
	 * the folded pseudo-header sum (a sender's offloaded, unfilled checksum) */
	uint64_t l4_csum_good, l4_csum_unfilled;
	uint64_t out_no_route, out_too_big, out_nobufs;
	/* pmtu_updates: ICMP frag-needed / packet too big that lowered a path
	 * MTU; pmtu_refused: those ignored (the quote matched no connection or
	 * its sequence number was not in flight, RFC 5927 §4.1; or an IPv6
	 * MTU below 1280); pmtu_floored: IPv4 reports below 552 raised to it
	 * (Linux min_pmtu), the entry then locked (sent without DF) */
	uint64_t pmtu_updates, pmtu_refused, pmtu_floored, pmtu_expired;
};

/* Creates the layer; announces each IPv4 address with a gratuitous ARP on the
 * first net_flush. Returns 0 or -errno (-EINVAL: bad config). */
int net_create(const struct net_config *cfg, struct net **out);
void net_destroy(struct net *n);

/* The L4 handler of proto (IPPROTO_TCP, ...; UDP is handled here unless a
 * handler is set for it). m's data starts at the L4 header, its length is
 * meta->l4_len, the L4 checksum was verified (or the device vouched for it);
 * the handler consumes m. fn NULL removes the handler. */
typedef void (*net_l4_fn)(void *arg, struct rte_mbuf *m, const struct ip_meta *meta);
void net_set_l4_handler(struct net *n, uint8_t proto, net_l4_fn fn, void *arg);

/* ICMP/ICMPv6 errors whose quoted packet is TCP. The handler returns true
 * when the quote is of a segment in flight on one of its connections (RFC
 * 5927 §4.1); only then does NET_ICMP_FRAG_NEEDED lower the path MTU, to
 * err->mtu (already floored, never above the current one), after the
 * handler ran. */
typedef bool (*net_icmp_fn)(void *arg, const struct net_icmp_err *err);
void net_set_icmp_handler(struct net *n, net_icmp_fn fn, void *arg);
/* Whether the neighbour table of family is under pressure: half of its
 * unresolved entries or more in use (a SYN flood from spoofed on-link
 * sources fills them; TCP then answers SYNs with cookies). */
bool net_neigh_pressure(const struct net *n, uint8_t family);

/* An mbuf from the config pool with headroom for Ethernet + IPv6, data_len 0;
 * NULL when the pool is empty. */
struct rte_mbuf *net_alloc(struct net *n);

/* Sends an L4 packet: m's data starts at the L4 header (may be a chain).
 * meta: family, proto, dst, tos, ttl, and src (zero: chosen by net_route).
 * net computes the L4 checksum for TCP and UDP (offloaded when the device can),
 * prepends IP and Ethernet, resolves the next hop (holding a few packets per
 * unresolved neighbour) and queues the frame for net_flush. Consumes m on
 * every path. Returns 0, or -ENETUNREACH (no route), -EHOSTUNREACH (neighbour
 * failed), -EMSGSIZE (larger than the path MTU: only net_udp_sendto
 * fragments), -ENOBUFS (no headroom/mbuf or tx queue full), -EINVAL. */
int net_output(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta);

/* For dst: the source address to use (4 or 16 bytes, may be NULL) and the path
 * MTU (IP packet size; PMTU learnt from ICMP, else the link MTU). Returns 0 or
 * -ENETUNREACH. */
int net_route(struct net *n, uint8_t family, const void *dst, void *src_out, uint32_t *mtu_out);

/* Receives and processes up to one burst per call, then runs the neighbour
 * and reassembly timers for now_ns. Returns the number of frames handled. */
int net_poll(struct net *n, uint64_t now_ns);
/* Transmits the queued frames (what the device does not take stays queued). */
void net_flush(struct net *n);
/* Frames the transmit queue can still take before net_flush. */
uint32_t net_tx_room(const struct net *n);
/* The earliest ARP/ND/reassembly deadline, or UINT64_MAX. */
uint64_t net_next_deadline_ns(const struct net *n);

bool net_is_local(const struct net *n, uint8_t family, const void *addr);
/* ::ffff:a.b.c.d (RFC 4291 §2.5.5.2) */
bool net_v6_mapped(const uint8_t a[16]);
void net_get_stats(const struct net *n, struct net_stats *out);
/* The drop counters of struct net_stats by name, then the frames in and
 * out, for what users read (skcat --info, skperf -J, skopsctl net stats):
 * NULL-terminated. */
struct net_stat_name {
	const char *name;
	size_t off; /* offsetof(struct net_stats, ...) */
};
extern const struct net_stat_name net_stat_names[];
/* The one line a user needs when a port hands over frames whose checksums a
 * local sender left to offload (a veth peer's default): on a port with
 * rx_host_port, once TCP/UDP segments were dropped for bad checksums and none
 * has passed yet, writes the line with the fix (ethtool -K PEER tx off) into
 * buf and returns its length; once per net, 0 otherwise (and always after). */
size_t net_csum_notice(struct net *n, char *buf, size_t len);
/* The interface MAC and link MTU (after the config clamp). */
void net_link(const struct net *n, uint8_t mac[6], uint32_t *mtu);

/* ---- UDP (native API; skops_sendto/recvfrom sit on top) ---------------- */

struct net_udp_sock;

/* Delivery of one datagram: m's data is the UDP payload (m consumed by the
 * callback); meta is the IP metadata, ports in host order. */
typedef void (*net_udp_fn)(void *arg, struct rte_mbuf *m, const struct ip_meta *meta,
			   uint16_t sport, uint16_t dport);

/* Binds family (AF_INET / AF_INET6) addr (NULL or all-zero: any) and port
 * (host order; 0 picks an ephemeral port in 49152-65535). -EADDRINUSE when
 * taken, -EADDRNOTAVAIL for a non-local address. An AF_INET6 socket is dual
 * stack as Linux's: on :: it also takes IPv4 (the callback's meta says
 * AF_INET) unless v6only; on ::ffff:a.b.c.d it is an IPv4 socket of
 * a.b.c.d (-EINVAL with v6only); on another address it is IPv6 only. The
 * port conflicts follow (Linux inet_rcv_saddr_equal): 0.0.0.0:P and a
 * dual-stack [::]:P do not share P, unless both have SO_REUSEADDR or both
 * SO_REUSEPORT and one owner (Linux udp_lib_lport_inuse). */
struct net_udp_opts {
	bool v6only;	/* IPV6_V6ONLY */
	bool reuseaddr; /* SO_REUSEADDR: shares the port with others that have it */
	bool reuseport; /* SO_REUSEPORT: likewise if of one uid; datagrams spread by source */
	uint32_t uid;	/* the owner (Linux sk_uid) */
};
int net_udp_open_opts(struct net *n, uint8_t family, const void *addr, uint16_t port,
		      const struct net_udp_opts *o, net_udp_fn fn, void *arg,
		      struct net_udp_sock **out);
/* net_udp_open_opts with the defaults */
int net_udp_open(struct net *n, uint8_t family, const void *addr, uint16_t port, net_udp_fn fn,
		 void *arg, struct net_udp_sock **out);
/* IPV6_V6ONLY as bound: set, or implied by a specific IPv6 address */
bool net_udp_v6only(const struct net_udp_sock *s);
uint16_t net_udp_port(const struct net_udp_sock *s);
/* Takes datagrams from dst:dport only (wire family: AF_INET for a v4-mapped
 * peer); family 0 takes them from anyone again, but for an AF_INET6 socket
 * IPv6 ones from the last peer's address only (Linux keeps sk_v6_daddr). A
 * connected socket beats unconnected ones bound alike, and a datagram from
 * another source goes to one of those or gets port unreachable (Linux
 * compute_score). */
void net_udp_connect(struct net_udp_sock *s, uint8_t family, const void *dst, uint16_t dport);
/* Copies len bytes into a datagram to dst/dport; family is the wire's
 * (AF_INET from a dual-stack AF_INET6 socket: a v4-mapped peer; from an
 * IPv6-only one -ENETUNREACH). Over the path MTU it goes out as fragments;
 * -EMSGSIZE over 65507 (IPv4) / 65527 (IPv6) bytes, else as net_output. */
int net_udp_sendto(struct net *n, struct net_udp_sock *s, const void *buf, size_t len,
		   uint8_t family, const void *dst, uint16_t dport);
void net_udp_close(struct net *n, struct net_udp_sock *s);
/* ICMP/ICMPv6 errors quoting a datagram s sent (RFC 1122 §4.1.3.3: UDP hands
 * them to the application layer); fn NULL ignores them. */
typedef void (*net_udp_err_fn)(void *arg, const struct net_icmp_err *err);
void net_udp_set_err(struct net_udp_sock *s, net_udp_err_fn fn);

/* ---- addresses in text ------------------------------------------------- */

/* "198.18.0.2/24", "fd00:1::2/64" (a missing prefix means /32 or /128). */
int net_addr_parse(const char *s, struct net_addr *out);
/* A bare IPv4 or IPv6 address: family and 4 or 16 bytes (network order). */
int net_ip_parse(const char *s, uint8_t *family, void *addr);

#endif
