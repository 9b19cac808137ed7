/* net: internals shared by the files of stack/net (never included outside). */
#ifndef SKOPS_STACK_NET_NET_INT_H
#define SKOPS_STACK_NET_NET_INT_H

#include "net.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include "../clk.h"
#include "../dev/dev.h"
#include "../wire/wire.h"

#define NET_BURST	     32
#define NET_TXQ		     1024
#define NET_NEIGH_QMAX	     16			    /* the most neigh_queue may hold */
#define NET_NEIGH_QTOTAL     256		    /* packets held per family, all entries */
#define NET_NEIGH_GC_NS	     (60ull * CLK_NS_PER_S) /* Linux gc_stale_time */
#define NET_PMTU_MAX	     32
#define NET_REASM_FRAGS	     64
#define NET_REASM_MAX	     256
#define NET_UDP_MAX	     64
#define NET_PMTU_LIFETIME_NS (600ull * CLK_NS_PER_S) /* RFC 1191 §6.3: 10 minutes */
#define NET_ICMP_RATE	     100		     /* errors per second (RFC 4443 §2.4 f) */
#define NET_HEADROOM	     (ETH_HDR_LEN + IP6_HDR_LEN)
#define IP6_FRAG_HDR_LEN     8 /* RFC 8200 §4.5 */

enum net_neigh_state {
	NET_NEIGH_FREE = 0,
	NET_NEIGH_INCOMPLETE, /* request sent, no answer yet */
	NET_NEIGH_REACHABLE,  /* mac valid until expires */
	NET_NEIGH_STALE,      /* expired: still used while re-probing */
	NET_NEIGH_FAILED,     /* no answer after max probes; until expires */
};

struct net_neigh {
	enum net_neigh_state state;
	uint8_t family;
	/* Learnt from a request to us (Linux neigh_event_ns makes it STALE):
	 * nobody answered us for it, so a full table may give it up. */
	bool unconfirmed;
	uint8_t addr[16];
	uint8_t mac[6];
	uint64_t expires, next_probe;
	uint32_t probes;
	struct rte_mbuf *q[NET_NEIGH_QMAX]; /* L3 packets waiting for the mac */
	uint32_t nq;
	int32_t hnext;	      /* hash chain, or the free list */
	int32_t pprev, pnext; /* the probing list (INCOMPLETE, STALE), oldest first */
};

/* One family's neighbour table (Linux arp_tbl / nd_tbl): a fixed array,
 * chained through a keyed hash so spoofed sources cannot pile into one
 * bucket. */
struct net_neigh_tbl {
	struct net_neigh *e;
	int32_t *bucket;
	uint32_t cap, nbucket; /* nbucket: a power of two */
	uint32_t used, pending, pending_max;
	uint32_t queued; /* packets all unresolved entries hold (NET_NEIGH_QTOTAL) */
	int32_t free, phead, ptail;
	uint32_t key;
};

struct net_pmtu {
	uint8_t family;
	bool locked; /* reported below the floor: sent without DF (Linux) */
	uint8_t addr[16];
	uint32_t mtu;
	uint64_t expires;
};

struct net_frag {
	uint16_t off, len;
	struct rte_mbuf *m; /* data at the fragment's payload */
};

/* What tells one datagram's fragments from another's (RFC 791 §3.2: src,
 * dst, protocol, ID; RFC 8200 §4.5: src, dst, ID). Addresses zero-padded. */
struct net_frag_key {
	uint8_t family;
	uint8_t proto; /* IPv4's protocol; 0 for IPv6 */
	uint8_t src[16], dst[16];
	uint32_t id;
};

/* One fragment as the family code parsed it: its bytes' place in the
 * fragmentable part, whether more follow, the header bytes in front of its
 * data (the first fragment's quote for Time Exceeded) and the protocol
 * that follows (IPv6: its Fragment header's Next Header). */
struct net_frag_desc {
	uint32_t off, len;
	bool more;
	uint16_t hdr_len;
	uint8_t nh;
};

struct net_reasm {
	bool used;
	uint32_t mem;	  /* the buffers its fragments hold */
	uint64_t created; /* eviction order */
	struct net_frag_key key;
	uint8_t nh;	  /* the first fragment's, once it came */
	uint16_t hdr_len; /* the first fragment's */
	uint64_t expires;
	uint32_t total; /* known once the last fragment came; 0 before */
	uint32_t have;	/* payload bytes held */
	uint32_t nfrags;
	struct net_frag frags[NET_REASM_FRAGS];
};

struct net_udp_sock {
	bool used;
	uint8_t family;
	bool v6only, reuseaddr, reuseport;
	uint32_t uid;	  /* the owner: an SO_REUSEPORT group is one user's */
	uint32_t seq;	  /* bind order: of equals, the newest takes a datagram */
	uint8_t addr[16]; /* the family's form (AF_INET: 4 bytes); all zero: any */
	uint16_t port;
	/* connect()ed: only datagrams from this source (wire family; 0: none) */
	uint8_t pfam;
	uint8_t paddr[16];
	uint16_t pport;
	/* AF_INET6: the last peer (v4-mapped for IPv4), kept past a disconnect:
	 * IPv6 datagrams from another address miss the socket then, as Linux's
	 * (udp_disconnect clears the IPv4 peer, not sk_v6_daddr) */
	bool v6peer_set;
	uint8_t v6peer[16];
	net_udp_fn fn;
	void *arg;
	net_udp_err_fn err_fn; /* called with arg */
};

struct net {
	struct net_config cfg;
	struct dev *dev;
	struct dev_caps caps;
	uint32_t mtu;
	struct rnd rnd;
	uint64_t now;
	/* No neighbour or reassembly timer is due before this: net_poll scans
	 * those tables only then, not on every busy poll. Lowered by whatever
	 * sets a deadline; never later than the earliest one. */
	uint64_t timers_at;
	uint16_t ip4_id;

	net_l4_fn l4_fn[256];
	void *l4_arg[256];
	net_icmp_fn icmp_fn;
	void *icmp_arg;

	struct rte_mbuf *txq[NET_TXQ];
	uint32_t ntx;

	struct net_neigh_tbl neigh4, neigh6;
	uint32_t frag_mem; /* bytes of buffers the reassembly queues hold */
	struct net_pmtu pmtu[NET_PMTU_MAX];
	struct net_reasm reasm[NET_REASM_MAX];
	struct net_udp_sock udp[NET_UDP_MAX];
	uint16_t udp_next_port;
	uint32_t udp_seq;

	/* ICMP error token bucket */
	uint64_t icmp_tokens_at;
	uint32_t icmp_tokens;

	struct net_stats st;
	bool csum_notice_done;
};

static inline void net_timers_arm(struct net *n, uint64_t at)
{
	if (at < n->timers_at)
		n->timers_at = at;
}

static inline size_t net_alen(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

/* net.c */
const struct net_addr *net_addr_match(const struct net *n, uint8_t family, const void *dst);
uint32_t net_path_mtu(struct net *n, uint8_t family, const void *dst);
/* The entry of dst when one is valid (expired ones are dropped). */
struct net_pmtu *net_pmtu_find(struct net *n, uint8_t family, const void *dst);
/* What a reported next-hop MTU would make dst's path MTU: floored (IPv4:
 * 552, *locked set, Linux min_pmtu; 0 from an old router too), never above
 * the current value. IPv6 reports below 1280 return 0: ignored. */
uint32_t net_pmtu_candidate(struct net *n, uint8_t family, const void *dst, uint32_t reported,
			    bool *locked);
/* Lowers dst's path MTU to mtu (from net_pmtu_candidate) for 10 minutes. */
void net_pmtu_update(struct net *n, uint8_t family, const void *dst, uint32_t mtu, bool locked);
bool net_icmp_allow(struct net *n);
bool net_l4_csum_ok(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta);

/* net_out.c: m at L3; queues an Ethernet frame to the next hop of dst. */
int net_l2_output(struct net *n, struct rte_mbuf *m, uint8_t family, const void *dst);
/* m at L4; builds the IP header (no L4 checksum work) and sends. */
int net_ip_output(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta);
/* A datagram whose L4 bytes are l4hdr (hlen) then data (len), checksum
 * already final, sent as fragments of at most mtu bytes (RFC 791 §3.2; over
 * IPv6 with a Fragment header, RFC 8200 §4.5). Returns 0, -EMSGSIZE (over
 * the family's largest datagram) or the first fragment's error. */
int net_ip_output_frags(struct net *n, const struct ip_meta *meta, const uint8_t *l4hdr,
			uint32_t hlen, const uint8_t *data, uint32_t len, uint32_t mtu);
/* An ICMP message of ours (an echo reply to a reassembled request) in a
 * flat buffer, checksum final: in one packet when it fits the path MTU and
 * an mbuf, else as fragments (Linux's ip_fragment/ip6_fragment of a reply
 * as long as its request). */
int net_ip_output_flat(struct net *n, const struct ip_meta *meta, const uint8_t *l4, uint32_t len);
/* The L4 bytes of m, contiguous: m's own when it is one segment (or can
 * be made one), else a malloc'd copy in *copy (free it). NULL: no memory. */
uint8_t *net_l4_flat(struct rte_mbuf *m, uint8_t **copy);
/* Queues a complete Ethernet frame for net_flush. */
int net_tx_frame(struct net *n, struct rte_mbuf *m);
/* Prepends an Ethernet header and queues the frame. */
int net_eth_send(struct net *n, struct rte_mbuf *m, const uint8_t dst_mac[6], uint16_t type);

/* net_neigh.c */
void net_arp_input(struct net *n, struct rte_mbuf *m);
void net_ndp_input(struct net *n, const struct ip6_repr *ip, const struct icmp_repr *icmp);
/* addr is at mac: create makes an entry when there is none (a request for
 * one of our addresses); confirm says a neighbour answered us (ARP reply,
 * NA), so a full table never gives the entry up. */
void net_neigh_learn(struct net *n, uint8_t family, const void *addr, const uint8_t mac[6],
		     bool create, bool confirm);
/* Sends m (at L3) to nexthop, or holds it while resolving. Consumes m. */
int net_neigh_output(struct net *n, struct rte_mbuf *m, uint8_t family, const void *nexthop);
/* Probes and expires what is due; returns when it has work next. */
uint64_t net_neigh_timers(struct net *n);
uint64_t net_neigh_deadline(const struct net *n);
void net_arp_announce(struct net *n);
int net_neigh_init(struct net *n);
void net_neigh_fini(struct net *n);

/* net_frag.c: adds a fragment (m at its data) to k's queue; when that
 * completes the datagram returns its fragmentable part as a chain (the first
 * fragment's segment first) and sets *nh_out (if not NULL) to the first
 * fragment's d->nh, else NULL. m is consumed. */
struct rte_mbuf *net_frag_add(struct net *n, const struct net_frag_key *k, struct rte_mbuf *m,
			      const struct net_frag_desc *d, uint8_t *nh_out);
/* Expires what is due; returns when it has work next. */
uint64_t net_reasm_timers(struct net *n);
uint64_t net_reasm_deadline(const struct net *n);
void net_reasm_fini(struct net *n);

/* net_ip4.c */
void net_ip4_input(struct net *n, struct rte_mbuf *m);
/* Error about the datagram m (data at its IPv4 header); m is not consumed. */
void net_icmp4_error(struct net *n, const struct rte_mbuf *m, uint8_t type, uint8_t code,
		     uint32_t rest);

/* net_ip6.c */
void net_ip6_input(struct net *n, struct rte_mbuf *m);
void net_icmp6_error(struct net *n, const struct rte_mbuf *m, uint8_t type, uint8_t code,
		     uint32_t rest);
/* Sends an ICMPv6 message built in body to dst (src chosen), hop limit hl. */
int net_icmp6_send(struct net *n, const uint8_t src[16], const uint8_t dst[16], uint8_t hl,
		   const struct icmp_repr *r, const uint8_t *dst_mac);

/* net_udp.c: m at the UDP header, checksum verified; hdr_len is the IP header
 * length still in front of m (for port unreachable). */
/* An ICMP error quoting a UDP datagram: to the socket that sent it. */
/* Returns whether a socket sent it (Linux updates the path MTU then). */
bool net_udp_icmp(struct net *n, const struct net_icmp_err *e);
void net_udp_input(struct net *n, struct rte_mbuf *m, const struct ip_meta *meta,
		   uint16_t ip_hdr_len);

/* Delivers an L4 packet (m at L4, csum not yet checked). */
void net_l4_deliver(struct net *n, struct rte_mbuf *m, struct ip_meta *meta, uint16_t hdr_len);

#endif
