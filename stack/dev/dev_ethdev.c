/* dev: a DPDK ethdev port (net_af_packet or net_af_xdp on a veth, net_tap,
 * net_virtio_user over vhost-net, net_memif, a PCI NIC). Port init follows DPDK's fixed order
 * (examples/skeleton, l3fwd): dev info, mask offloads by capability (logging what was dropped),
 * configure, adjust descriptors, queue setup with a pool sized from the config, start, bounded link
 * wait. One rx/tx queue pair per lcore; each is a struct dev. */
#include "dev.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>

struct ethdev_port;

struct ethdev_queue {
	struct dev dev;
	struct ethdev_port *port;
	uint16_t qid;
};

struct ethdev_port {
	struct ethdev_queue q0; /* first: the port's own device is queue 0 */
	uint16_t port_id;
	uint16_t nb_queues;
	unsigned queues_alive;
	struct rte_mempool *pool;
	struct dev_caps caps;
};

static void ethdev_msg(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Appends to the configuration log (best effort, truncates). */
static void ethdev_log(const struct dev_ethdev_config *cfg, const char *fmt, ...)
{
	if (!cfg->log || !cfg->log_len)
		return;
	size_t used = strnlen(cfg->log, cfg->log_len);
	if (used + 1 >= cfg->log_len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cfg->log + used, cfg->log_len - used, fmt, ap);
	va_end(ap);
}

int dev_eal_init(int argc, char **argv, char *err, size_t err_len)
{
	/* rte_eal_init permutes argv; work on a copy so the caller's stays. */
	char **copy = calloc((size_t)argc + 1, sizeof(char *));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, argv, (size_t)argc * sizeof(char *));
	int rc = rte_eal_init(argc, copy);
	free(copy);
	if (rc < 0) {
		int e = rte_errno ? rte_errno : EINVAL;
		ethdev_msg(err, err_len, "dev: eal: init: %s", rte_strerror(e));
		return -e;
	}
	return rc;
}

void dev_eal_cleanup(void)
{
	rte_eal_cleanup();
}

static struct ethdev_queue *ethdev_q(const struct dev *d)
{
	return (struct ethdev_queue *)d;
}

static uint16_t ethdev_rx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct ethdev_queue *q = ethdev_q(d);
	return rte_eth_rx_burst(q->port->port_id, q->qid, pkts, n);
}

static uint16_t ethdev_tx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct ethdev_queue *q = ethdev_q(d);
	uint16_t ok = rte_eth_tx_prepare(q->port->port_id, q->qid, pkts, n);
	return rte_eth_tx_burst(q->port->port_id, q->qid, pkts, ok);
}

static void ethdev_caps(const struct dev *d, struct dev_caps *out)
{
	*out = ethdev_q(d)->port->caps;
}

static void ethdev_port_free(struct ethdev_port *p)
{
	rte_eth_dev_stop(p->port_id);
	rte_eth_dev_close(p->port_id);
	rte_mempool_free(p->pool);
	free(p);
}

static void ethdev_destroy(struct dev *d)
{
	struct ethdev_queue *q = ethdev_q(d);
	struct ethdev_port *p = q->port;
	if (q != &p->q0)
		free(q);
	if (--p->queues_alive == 0)
		ethdev_port_free(p);
}

static const struct dev_ops ethdev_ops = {
    .rx_burst = ethdev_rx,
    .tx_burst = ethdev_tx,
    .caps = ethdev_caps,
    .destroy = ethdev_destroy,
};

/* Requested offloads masked by what the port reports, each drop logged. */
static uint64_t ethdev_mask(const struct dev_ethdev_config *cfg, const char *dir, uint64_t want,
			    uint64_t capa)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
	    {RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, "ipv4_cksum"},
	    {RTE_ETH_TX_OFFLOAD_TCP_CKSUM, "tcp_cksum"},
	    {RTE_ETH_TX_OFFLOAD_UDP_CKSUM, "udp_cksum"},
	    {RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "multi_segs"},
	};
	uint64_t dropped = want & ~capa;
	if (!strcmp(dir, "tx")) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (dropped & names[i].bit)
				ethdev_log(cfg,
					   "dev: ethdev: tx offload %s not supported, software\n",
					   names[i].name);
	} else if (dropped) {
		ethdev_log(cfg, "dev: ethdev: rx checksum offload not supported, software\n");
	}
	return want & capa;
}

/* Drivers whose frames come from a Linux interface of this host: a local
 * sender's segment may reach us with its L4 checksum left to offload.
 * af_xdp in copy mode on a veth runs the program on the skb the peer sent
 * (veth_xdp_rcv_skb), and virtio_user over vhost-net reads a tap. */
static bool ethdev_host_driver(const char *name)
{
	static const char *const host[] = {"net_af_packet", "net_tap", "net_af_xdp",
					   "net_virtio_user"};
	for (size_t i = 0; name && i < sizeof(host) / sizeof(host[0]); i++)
		if (!strcmp(name, host[i]))
			return true;
	return false;
}

/* net_memif carries frames of any length, chained over as many of its
 * buffers as they need, but DPDK 22.11's driver has no mtu_set
 * (rte_eth_dev_set_mtu says -ENOTSUP) and reports max_rx_pktlen 1518: its
 * MTU is what the two ends agree on, so a configured one is taken as is. */
static bool ethdev_mtu_free(const struct rte_eth_dev_info *info)
{
	return info->driver_name && !strcmp(info->driver_name, "net_memif");
}

/* The mbuf data room for a configured MTU: a frame of mtu + 14 in one mbuf
 * where the port can receive one that long (its max_rx_pktlen; any length
 * on memif), else DPDK's default (2048 bytes of data). uint16 bounds it. */
static uint16_t ethdev_buf_size(const struct dev_ethdev_config *cfg,
				const struct rte_eth_dev_info *info)
{
	uint32_t frame = cfg->mtu + RTE_ETHER_HDR_LEN;
	if (!ethdev_mtu_free(info) && frame > info->max_rx_pktlen)
		frame = info->max_rx_pktlen;
	uint32_t size = RTE_PKTMBUF_HEADROOM + frame;
	if (size <= RTE_MBUF_DEFAULT_BUF_SIZE)
		return RTE_MBUF_DEFAULT_BUF_SIZE;
	return size > UINT16_MAX ? UINT16_MAX : (uint16_t)size;
}

uint32_t dev_ethdev_pool_n(uint16_t nq, uint16_t nb_rxd, uint16_t nb_txd, uint32_t buf_size)
{
	if (!nq)
		nq = 1;
	/* Rings full on both sides plus bursts in flight plus the stack's own
	 * queues (send buffers, reassembly) with headroom. Jumbo mbufs: the
	 * rings' worth and 1024 more (a 64 KiB pool of 12288 would be 800 MB). */
	if (buf_size > RTE_MBUF_DEFAULT_BUF_SIZE)
		return (uint32_t)nq * (nb_rxd + nb_txd) + 1024u;
	return (uint32_t)nq * (nb_rxd + nb_txd) * 2u + 8192u;
}

static void ethdev_zone_free(struct rte_mempool_memhdr *h, void *zone)
{
	(void)h;
	rte_memzone_free(zone);
}

/* DPDK 22.11's af_xdp takes as its umem the span of populated_size
 * objects from the pool's first one (xdp_umem_configure). A default pool
 * keeps each object inside one page: on 4 KiB pages (--no-huge) that is one
 * 2 KiB mbuf a page, and the pool's memory runs 1.7x past the span (50.3
 * MB against 29.1 for 12288 mbufs). A frame sent from an mbuf past it is
 * an invalid descriptor to the kernel (XDP_STATISTICS tx_invalid_descs),
 * and the copy-mode transmit of Linux 6.18 does not get past one: bulk
 * sending stalled for good after some 10-20 thousand frames. Packed
 * objects in one IOVA-contiguous zone make the span exact. NULL with
 * rte_errno set when the zone cannot be had. */
static struct rte_mempool *ethdev_packed_pool(const char *name, uint32_t n, uint16_t buf,
					      int socket)
{
	struct rte_mempool *mp = rte_mempool_create_empty(
	    name, n, sizeof(struct rte_mbuf) + buf, 256, sizeof(struct rte_pktmbuf_pool_private),
	    socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (!mp)
		return NULL;
	struct rte_pktmbuf_pool_private priv = {.mbuf_data_room_size = buf};
	int err = -rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (!err) {
		rte_pktmbuf_pool_init(mp, &priv);
		size_t len = (size_t)n * rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL);
		char zname[RTE_MEMZONE_NAMESIZE];
		snprintf(zname, sizeof(zname), "%s_z", name);
		const struct rte_memzone *z =
		    rte_memzone_reserve_aligned(zname, len, socket, RTE_MEMZONE_IOVA_CONTIG, 4096);
		/* once populated, the pool frees the zone (ethdev_zone_free) */
		int got = z ? rte_mempool_populate_iova(mp, z->addr, z->iova, z->len,
							ethdev_zone_free, (void *)(uintptr_t)z)
			    : -rte_errno;
		if (got < 0 && z)
			rte_memzone_free(z);
		err = got < 0 ? -got : got != (int)n ? ENOMEM : 0;
	}
	if (err) {
		rte_mempool_free(mp);
		rte_errno = err;
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

static int ethdev_pool(const struct dev_ethdev_config *cfg, struct ethdev_port *p,
		       const struct rte_eth_dev_info *info, uint16_t nq, uint16_t nb_rxd,
		       uint16_t nb_txd, int socket, uint32_t *pool_n)
{
	uint16_t buf = cfg->mtu ? ethdev_buf_size(cfg, info) : RTE_MBUF_DEFAULT_BUF_SIZE;
	*pool_n = cfg->pool_size ? cfg->pool_size : dev_ethdev_pool_n(nq, nb_rxd, nb_txd, buf);
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "skops_p%u", p->port_id);
	bool xdp = info->driver_name && !strcmp(info->driver_name, "net_af_xdp");
	p->pool = xdp ? ethdev_packed_pool(name, *pool_n, buf, socket)
		      : rte_pktmbuf_pool_create(name, *pool_n, 256, 0, buf, socket);
	if (!p->pool) {
		ethdev_msg(cfg->err, cfg->err_len,
			   "dev: ethdev: port %u: mempool of %u mbufs of %u bytes: %s", p->port_id,
			   *pool_n, buf, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* A configured MTU above the port's asks the device for it; one below only
 * clamps the stack (net's own mtu) and leaves the device, and the host
 * interface behind af_packet, as they are. True when the MTU is ours to
 * set (memif). */
static bool ethdev_raise_mtu(const struct dev_ethdev_config *cfg, uint16_t port,
			     const struct rte_eth_dev_info *info)
{
	uint16_t cur = 0;
	if (!cfg->mtu || (rte_eth_dev_get_mtu(port, &cur) == 0 && cfg->mtu <= cur))
		return false;
	if (ethdev_mtu_free(info))
		return true;
	int rc = rte_eth_dev_set_mtu(port, (uint16_t)cfg->mtu);
	if (rc)
		ethdev_log(cfg, "dev: ethdev: port %u: set mtu %u: %s (kept %u)\n", port, cfg->mtu,
			   rte_strerror(-rc), cur);
	return false;
}

static int ethdev_link_wait(uint16_t port, uint32_t ms)
{
	struct rte_eth_link link;
	for (uint32_t waited = 0;; waited += 100) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return 0;
		if (waited >= ms)
			return -ETIMEDOUT;
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000000L}, NULL);
	}
}

static int ethdev_setup(const struct dev_ethdev_config *cfg, struct ethdev_port *p)
{
	uint16_t port = p->port_id;
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_info_get(port, &info);
	if (rc) {
		ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: dev info: %s", port,
			   rte_strerror(-rc));
		return rc;
	}
	uint16_t nq = cfg->nb_queues ? cfg->nb_queues : 1;
	if (nq > info.max_rx_queues || nq > info.max_tx_queues) {
		ethdev_msg(cfg->err, cfg->err_len,
			   "dev: ethdev: port %u: %u queues requested, port has %u rx/%u tx", port,
			   nq, info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	uint64_t tx_want = 0, rx_want = 0;
	if (!cfg->no_offload) {
		tx_want = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			  RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		rx_want = RTE_ETH_RX_OFFLOAD_CHECKSUM;
	}
	conf.txmode.offloads = ethdev_mask(cfg, "tx", tx_want, info.tx_offload_capa);
	conf.rxmode.offloads = ethdev_mask(cfg, "rx", rx_want, info.rx_offload_capa);
	/* RSS spreads flows over the lcores' queues. */
	if (nq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		    (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
		    info.flow_type_rss_offloads;
	}
	rc = rte_eth_dev_configure(port, nq, nq, &conf);
	if (rc) {
		ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: configure: %s", port,
			   rte_strerror(-rc));
		return rc;
	}
	uint16_t nb_rxd = cfg->nb_rxd ? cfg->nb_rxd : 1024,
		 nb_txd = cfg->nb_txd ? cfg->nb_txd : 1024;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (rc) {
		ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: adjust descriptors: %s",
			   port, rte_strerror(-rc));
		return rc;
	}
	int socket = rte_eth_dev_socket_id(port);
	if (socket < 0)
		socket = (int)rte_socket_id();
	uint32_t pool_n;
	rc = ethdev_pool(cfg, p, &info, nq, nb_rxd, nb_txd, socket, &pool_n);
	if (rc)
		return rc;
	for (uint16_t q = 0; q < nq; q++) {
		struct rte_eth_rxconf rxc = info.default_rxconf;
		rxc.offloads = conf.rxmode.offloads;
		rc = rte_eth_rx_queue_setup(port, q, nb_rxd, (unsigned)socket, &rxc, p->pool);
		if (rc) {
			ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: rx queue %u: %s",
				   port, q, rte_strerror(-rc));
			return rc;
		}
		struct rte_eth_txconf txc = info.default_txconf;
		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(port, q, nb_txd, (unsigned)socket, &txc);
		if (rc) {
			ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: tx queue %u: %s",
				   port, q, rte_strerror(-rc));
			return rc;
		}
	}
	bool mtu_ours = ethdev_raise_mtu(cfg, port, &info);
	rc = rte_eth_dev_start(port);
	if (rc) {
		ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: start: %s", port,
			   rte_strerror(-rc));
		return rc;
	}
	if (cfg->promisc)
		rte_eth_promiscuous_enable(port);
	if (ethdev_link_wait(port, cfg->link_wait_ms ? cfg->link_wait_ms : 3000))
		ethdev_log(cfg, "dev: ethdev: port %u: link still down, continuing\n", port);

	struct rte_ether_addr mac;
	rte_eth_macaddr_get(port, &mac);
	memcpy(p->caps.mac, mac.addr_bytes, 6);
	uint16_t mtu = 1500;
	if (mtu_ours)
		p->caps.mtu = cfg->mtu;
	else if (rte_eth_dev_get_mtu(port, &mtu) == 0 && mtu)
		p->caps.mtu = mtu;
	else
		p->caps.mtu = 1500;
	/* A frame of mtu + 14 must fit one rx mbuf: no scattered rx. */
	uint32_t room =
	    rte_pktmbuf_data_room_size(p->pool) - RTE_PKTMBUF_HEADROOM - RTE_ETHER_HDR_LEN;
	if (p->caps.mtu > room)
		p->caps.mtu = room;
	uint64_t tx = conf.txmode.offloads;
	p->caps.tx_ip4_csum = tx & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	p->caps.tx_tcp_csum = tx & RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
	p->caps.tx_udp_csum = tx & RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	p->caps.rx_csum =
	    (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_CHECKSUM) == RTE_ETH_RX_OFFLOAD_CHECKSUM;
	p->caps.rx_host_port = ethdev_host_driver(info.driver_name);
	ethdev_log(cfg,
		   "dev: ethdev: port %u: %u queue(s), %u/%u descriptors, pool %u, mtu %u, "
		   "mac %02x:%02x:%02x:%02x:%02x:%02x, offloads tx 0x%llx rx 0x%llx\n",
		   port, nq, nb_rxd, nb_txd, pool_n, p->caps.mtu, mac.addr_bytes[0],
		   mac.addr_bytes[1], mac.addr_bytes[2], mac.addr_bytes[3], mac.addr_bytes[4],
		   mac.addr_bytes[5], (unsigned long long)tx,
		   (unsigned long long)conf.rxmode.offloads);
	p->nb_queues = nq;
	return 0;
}

int dev_ethdev_create(const struct dev_ethdev_config *cfg, struct dev **out)
{
	if (!cfg || !out)
		return -EINVAL;
	uint16_t port = cfg->port_id;
	if (cfg->name) {
		if (rte_eth_dev_get_port_by_name(cfg->name, &port)) {
			ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: no port named '%s'",
				   cfg->name);
			return -ENODEV;
		}
	}
	if (!rte_eth_dev_is_valid_port(port)) {
		ethdev_msg(cfg->err, cfg->err_len, "dev: ethdev: port %u: not a valid port", port);
		return -ENODEV;
	}
	struct ethdev_port *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->port_id = port;
	int rc = ethdev_setup(cfg, p);
	if (rc) {
		rte_eth_dev_stop(port);
		rte_mempool_free(p->pool);
		free(p);
		return rc < 0 ? rc : -EIO;
	}
	p->q0.dev.ops = &ethdev_ops;
	p->q0.port = p;
	p->q0.qid = 0;
	p->queues_alive = 1;
	*out = &p->q0.dev;
	return 0;
}

int dev_ethdev_queue(struct dev *port, uint16_t queue, struct dev **out)
{
	struct ethdev_port *p = ethdev_q(port)->port;
	if (queue >= p->nb_queues)
		return -EINVAL;
	if (queue == 0) {
		*out = port;
		return 0;
	}
	struct ethdev_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->dev.ops = &ethdev_ops;
	q->port = p;
	q->qid = queue;
	p->queues_alive++;
	*out = &q->dev;
	return 0;
}

struct rte_mempool *dev_ethdev_pool(struct dev *port)
{
	return ethdev_q(port)->port->pool;
}

uint16_t dev_ethdev_port_id(const struct dev *port)
{
	return ethdev_q(port)->port->port_id;
}
