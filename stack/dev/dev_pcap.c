/* dev: a pcap writer wrapping any device (nanosecond pcap, LINKTYPE_ETHERNET),
 * so the simulation and skcat can hand a capture to tcpdump/scapy. Transmitted
 * frames are recorded when the inner device accepts them. */
#include "dev.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "../clk.h"

#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_SNAPLEN  65535u

struct pcap_dev {
	struct dev dev;
	struct dev *inner;
	const struct clk *clk;
	FILE *f;
};

static void pcap_record(struct pcap_dev *p, const struct rte_mbuf *m)
{
	uint64_t t = clk_now(p->clk);
	uint32_t cap = m->pkt_len < PCAP_SNAPLEN ? m->pkt_len : PCAP_SNAPLEN;
	uint32_t hdr[4] = {(uint32_t)(t / CLK_NS_PER_S), (uint32_t)(t % CLK_NS_PER_S), cap,
			   m->pkt_len};
	fwrite(hdr, sizeof(hdr), 1, p->f);
	for (const struct rte_mbuf *s = m; s && cap; s = s->next) {
		uint32_t n = s->data_len < cap ? s->data_len : cap;
		fwrite(rte_pktmbuf_mtod(s, const void *), 1, n, p->f);
		cap -= n;
	}
}

static uint16_t pcap_rx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct pcap_dev *p = (struct pcap_dev *)d;
	uint16_t k = dev_rx_burst(p->inner, pkts, n);
	for (uint16_t i = 0; i < k; i++)
		pcap_record(p, pkts[i]);
	return k;
}

static uint16_t pcap_tx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct pcap_dev *p = (struct pcap_dev *)d;
	/* Record before handing over (the inner device may free at once), then
	 * drop the records of what it refused by rewinding the file. */
	long pos = ftell(p->f);
	long ends[n > 0 ? n : 1];
	for (uint16_t i = 0; i < n; i++) {
		pcap_record(p, pkts[i]);
		ends[i] = ftell(p->f);
	}
	uint16_t k = dev_tx_burst(p->inner, pkts, n);
	if (k < n && pos >= 0) {
		long keep = k ? ends[k - 1] : pos;
		fflush(p->f);
		if (fseek(p->f, keep, SEEK_SET) == 0 && ftruncate(fileno(p->f), keep) == 0)
			(void)0;
	}
	return k;
}

static void pcap_caps(const struct dev *d, struct dev_caps *out)
{
	const struct pcap_dev *p = (const struct pcap_dev *)d;
	dev_caps(p->inner, out);
	/* Software checksums, so the capture shows the bytes that really
	 * travel. */
	out->tx_ip4_csum = out->tx_tcp_csum = out->tx_udp_csum = false;
}

static uint64_t pcap_deadline(const struct dev *d)
{
	return dev_next_deadline_ns(((const struct pcap_dev *)d)->inner);
}

static void pcap_destroy(struct dev *d)
{
	struct pcap_dev *p = (struct pcap_dev *)d;
	fclose(p->f);
	free(p);
}

static const struct dev_ops pcap_ops = {
    .rx_burst = pcap_rx,
    .tx_burst = pcap_tx,
    .caps = pcap_caps,
    .destroy = pcap_destroy,
    .next_deadline_ns = pcap_deadline,
};

int dev_pcap_create(struct dev *inner, const char *path, const struct clk *clk, struct dev **out)
{
	if (!inner || !path || !clk || !out)
		return -EINVAL;
	struct pcap_dev *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->f = fopen(path, "wb");
	if (!p->f) {
		int e = errno;
		free(p);
		return -e;
	}
	/* version 2.4, thiszone 0, sigfigs 0, snaplen, LINKTYPE_ETHERNET (1) */
	uint32_t gh[6] = {PCAP_MAGIC_NS, 0x00040002u, 0, 0, PCAP_SNAPLEN, 1};
	if (fwrite(gh, sizeof(gh), 1, p->f) != 1) {
		fclose(p->f);
		free(p);
		return -EIO;
	}
	p->dev.ops = &pcap_ops;
	p->inner = inner;
	p->clk = clk;
	*out = &p->dev;
	return 0;
}
