/* dev: the device layer. A device is a burst receive, a burst transmit and a
 * capability query over struct rte_mbuf; wrappers (fault injector, pcap
 * writer) are devices around another device, as smoltcp's phy middleware.
 * Implementations: a DPDK ethdev queue pair, an in-memory wire pair for tests,
 * a seeded fault injector and a pcap file writer. */
#ifndef SKOPS_STACK_DEV_DEV_H
#define SKOPS_STACK_DEV_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;
struct rte_mempool;
struct clk;
struct dev;

struct dev_caps {
	uint32_t mtu;	  /* largest IP packet (L3) the device carries */
	uint8_t mac[6];	  /* the port's unicast MAC */
	bool tx_ip4_csum; /* RTE_MBUF_F_TX_IP_CKSUM honoured */
	bool tx_tcp_csum; /* RTE_MBUF_F_TX_TCP_CKSUM honoured */
	bool tx_udp_csum; /* RTE_MBUF_F_TX_UDP_CKSUM honoured */
	bool rx_csum;	  /* RTE_MBUF_F_RX_{IP,L4}_CKSUM_* flags are set on rx */
	/* Frames come from a Linux interface (af_packet, tap, af_xdp, virtio_user):
	 * a local sender may have left its L4 checksum to offload, and the PMD
	 * does not say so (DPDK 22.11's af_packet drops TP_STATUS_CSUMNOTREADY). */
	bool rx_host_port;
};

/* Burst calls follow rte_eth_{rx,tx}_burst: rx fills up to n mbufs the caller
 * then owns; tx takes ownership of the first k it returns and leaves the
 * unsent tail with the caller. next_deadline_ns is optional (NULL: none):
 * the earliest time a held frame becomes deliverable (wire delay, fault
 * delay), so a simulation can advance its clock to it. */
struct dev_ops {
	uint16_t (*rx_burst)(struct dev *d, struct rte_mbuf **pkts, uint16_t n);
	uint16_t (*tx_burst)(struct dev *d, struct rte_mbuf **pkts, uint16_t n);
	void (*caps)(const struct dev *d, struct dev_caps *out);
	void (*destroy)(struct dev *d);
	uint64_t (*next_deadline_ns)(const struct dev *d);
};

struct dev {
	const struct dev_ops *ops;
};

static inline uint16_t dev_rx_burst(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	return d->ops->rx_burst(d, pkts, n);
}

static inline uint16_t dev_tx_burst(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	return d->ops->tx_burst(d, pkts, n);
}

static inline void dev_caps(const struct dev *d, struct dev_caps *out)
{
	d->ops->caps(d, out);
}

static inline uint64_t dev_next_deadline_ns(const struct dev *d)
{
	return d->ops->next_deadline_ns ? d->ops->next_deadline_ns(d) : UINT64_MAX;
}

/* Destroys d (a wrapper does not destroy its inner device). NULL is a no-op. */
static inline void dev_destroy(struct dev *d)
{
	if (d)
		d->ops->destroy(d);
}

/* ---- DPDK EAL ---------------------------------------------------------- */

/* rte_eal_init over a copy of argv (the EAL permutes it). Returns the number
 * of arguments consumed or -errno; writes a message to err on failure. */
int dev_eal_init(int argc, char **argv, char *err, size_t err_len);
void dev_eal_cleanup(void);

/* ---- DPDK ethdev port -------------------------------------------------- */

struct dev_ethdev_config {
	uint16_t port_id;	 /* used when name is NULL */
	const char *name;	 /* device name, e.g. "net_af_packet0"; NULL: port_id */
	uint16_t nb_queues;	 /* rx/tx queue pairs (one per lcore); 0 means 1 */
	uint16_t nb_rxd, nb_txd; /* descriptors; 0 means 1024, adjusted to the port */
	uint32_t pool_size;	 /* mbufs in the port's pool; 0 means sized from the rings */
	/* 0: the port's MTU. Above it: mbufs sized for a frame of mtu + 14
	 * where the port takes one (any length on memif, whose MTU is then
	 * this one), and the device asked for it; below: the device's stays. */
	uint32_t mtu;
	bool promisc;	       /* enable promiscuous mode */
	bool no_offload;       /* do every checksum in software */
	uint32_t link_wait_ms; /* bounded link-up wait; 0 means 3000 */
	char *log;	       /* optional: what was configured, offloads dropped */
	size_t log_len;
	char *err; /* message on failure: "dev: ethdev: <where>: <what>" */
	size_t err_len;
};

/* Configures and starts the port; *out is queue 0's device. The port owns a
 * mempool (dev_ethdev_pool) the stack may allocate its tx mbufs from. */
int dev_ethdev_create(const struct dev_ethdev_config *cfg, struct dev **out);
/* A device for another queue of the same port (destroy it before the port). */
int dev_ethdev_queue(struct dev *port, uint16_t queue, struct dev **out);
struct rte_mempool *dev_ethdev_pool(struct dev *port);
/* Mbufs in a port's pool when the config gives none, for mbufs of buf_size
 * bytes (data room with headroom). */
uint32_t dev_ethdev_pool_n(uint16_t nq, uint16_t nb_rxd, uint16_t nb_txd, uint32_t buf_size);
uint16_t dev_ethdev_port_id(const struct dev *port);

/* ---- in-memory wire (tests, simulation) -------------------------------- */

struct dev_wire_config {
	uint32_t mtu;		    /* 0 means 1500 */
	uint64_t delay_ns;	    /* one-way propagation delay */
	uint32_t queue_len;	    /* frames held per direction; 0 means 1024; tail drop */
	uint8_t mac_a[6], mac_b[6]; /* all zero: 02:00:00:00:00:01 / :02 */
};

/* Two endpoints: what a transmits b receives after delay_ns by clk, and the
 * other way round. Frames are passed without copying. _create: the default
 * config (every field 0). */
int dev_wire_pair_create(const struct clk *clk, struct dev **a, struct dev **b);
int dev_wire_pair_create_cfg(const struct dev_wire_config *cfg, const struct clk *clk,
			     struct dev **a, struct dev **b);

struct dev_wire_stats {
	uint64_t tx, rx, drop_full;
};
void dev_wire_stats(const struct dev *d, struct dev_wire_stats *out);

/* ---- fault injector ---------------------------------------------------- */

/* Applied to the frames transmitted through the wrapper; wrap both ends of a
 * wire to impair both directions. ppm = parts per million per frame. */
struct dev_fault_config {
	uint64_t seed;
	uint32_t loss_ppm;
	uint32_t dup_ppm;
	uint32_t reorder_ppm; /* held back by reorder_ns (default 2 x delay, min 1 ms) */
	uint32_t corrupt_ppm; /* a single bit flip in the frame */
	uint64_t delay_ns;    /* added to every frame */
	uint64_t jitter_ns;   /* uniform extra delay in [0, jitter_ns) (can reorder) */
	uint64_t rate_bps;    /* line rate, serialization before delay_ns; 0: unlimited */
	uint64_t reorder_ns;
	uint32_t max_size;  /* frames above are dropped; 0: no limit */
	uint32_t queue_len; /* held frames; 0 means 4096; tail drop (taken, counted, freed) */
	/* ECN marking (RFC 3168 §5) of ECT frames, IPv4 or IPv6: CE when the
	 * frame waits at least ce_threshold_ns for the line (a queue above a
	 * threshold, as a DCTCP switch's K; needs rate_bps), and at random
	 * with ce_ppm. Not-ECT frames are never marked. */
	uint64_t ce_threshold_ns;
	uint32_t ce_ppm;
};

struct dev_fault_stats {
	uint64_t tx, lost, duplicated, reordered, corrupted, oversize, drop_full;
	uint64_t ect, ce_marked; /* ECT frames seen, of them marked CE */
};

/* The wrapper takes no ownership of inner (destroy inner after the wrapper).
 * Needs a pool for duplicates: taken from the duplicated mbuf's own pool. */
int dev_fault_create(struct dev *inner, const struct dev_fault_config *cfg, const struct clk *clk,
		     struct dev **out);
void dev_fault_stats(const struct dev *d, struct dev_fault_stats *out);
/* A scripted loss: the next n frames transmitted through d are dropped
 * (counted as lost), whatever loss_ppm says. */
void dev_fault_drop_next(struct dev *d, uint32_t n);

/* ---- pcap writer ------------------------------------------------------- */

/* Writes every frame received or transmitted through the wrapper to a pcap
 * file (LINKTYPE_ETHERNET, ns timestamps from clk). Creating fails with
 * -errno when the file cannot be opened. */
int dev_pcap_create(struct dev *inner, const char *path, const struct clk *clk, struct dev **out);

/* ---- bring-up from options (skcat, test programs) ---------------------- */

#define DEV_OPTS_MAX_VDEV 8

/* What a command line or config file says about the port. */
struct dev_opts {
	const char *prog;		      /* argv[0] for the EAL */
	const char *vdevs[DEV_OPTS_MAX_VDEV]; /* --vdev DEVARGS */
	unsigned nvdev;
	const char *eal;  /* extra EAL arguments, split at blanks */
	const char *port; /* device name or PCI address; NULL: the first port */
	uint16_t queues, rxd, txd;
	uint32_t pool, mtu, link_wait_ms;
	bool promisc, no_offload;
};

/* Frames in each ring of an af_packet vdev whose devargs name none. */
#define DEV_AF_PACKET_FRAMES 4096u

/* Builds the EAL arguments: the vdevs (an af_packet one with
 * framecnt=DEV_AF_PACKET_FRAMES unless it sets framecnt, a memif one at an mtu
 * above 1500 with a bsize that holds a frame unless it sets bsize), then, with
 * vdevs only, the defaults --no-pci --no-huge -m 256 (more for a jumbo mtu's
 * pool) (each left out when the extra arguments set a
 * conflicting option), a unique --file-prefix unless one is given,
 * --log-level=error, then the extra arguments. Writes up to max pointers into
 * argv (into storage buf) and returns argc or -E2BIG. */
int dev_opts_eal_argv(const struct dev_opts *o, char *buf, size_t buf_len, char **argv, int max);
/* EAL init with those arguments, then dev_ethdev_create on the chosen port.
 * log gets the configuration notes (offloads dropped, ...). */
int dev_opts_open(const struct dev_opts *o, struct dev **port, char *log, size_t log_len, char *err,
		  size_t err_len);

/* Reads "key = value" lines ('#' starts a comment, blank lines skipped, the
 * value may be quoted with "..."), calling fn for each in order; stops at the
 * first error, reporting "<path>:<line>: <what>". */
typedef int (*dev_conf_fn)(void *arg, const char *key, const char *val, char *err, size_t err_len);
int dev_conf_read(const char *path, dev_conf_fn fn, void *arg, char *err, size_t err_len);

#endif
