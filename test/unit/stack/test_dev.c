/* Unit tests of stack/dev: the in-memory wire (delay, FIFO order, tail drop),
 * the fault injector (seeded and reproducible loss, duplication, reordering,
 * single-bit corruption, delay, rate, CE marking), the pcap writer and the
 * EAL arguments built from the port options. */
#include "test_net_util.h"

static struct rte_mempool *pool;
static uint64_t now;
static struct clk clk;

static void setup(void)
{
	pool = tnu_pool("dev");
	now = 5000;
	clk_init_manual(&clk, &now);
}

static void teardown(void)
{
	rte_mempool_free(pool);
}

static struct rte_mbuf *frame(uint32_t tag, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	ck_assert_ptr_nonnull(m);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);
	memset(p, 0, len);
	memcpy(p, &tag, 4);
	return m;
}

static uint32_t tag_of(struct rte_mbuf *m)
{
	uint32_t t;
	memcpy(&t, rte_pktmbuf_mtod(m, void *), 4);
	return t;
}

static unsigned drain(struct dev *d, uint32_t *tags, unsigned max)
{
	struct rte_mbuf *pk[32];
	unsigned got = 0;
	for (int round = 0; round < 1000; round++) {
		uint16_t k = dev_rx_burst(d, pk, 32);
		if (!k)
			break;
		for (uint16_t i = 0; i < k; i++) {
			if (got < max)
				tags[got] = tag_of(pk[i]);
			got++;
			rte_pktmbuf_free(pk[i]);
		}
	}
	return got;
}

START_TEST(wire_delay_order_and_full)
{
	struct dev_wire_config cfg = {.delay_ns = 1000, .queue_len = 4};
	struct dev *a, *b;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&cfg, &clk, &a, &b), 0);
	struct dev_caps ca, cb;
	dev_caps(a, &ca);
	dev_caps(b, &cb);
	ck_assert_uint_eq(ca.mtu, 1500);
	ck_assert_mem_ne(ca.mac, cb.mac, 6);
	struct rte_mbuf *pk[6];
	for (int i = 0; i < 6; i++)
		pk[i] = frame((uint32_t)i, 60);
	ck_assert_uint_eq(dev_tx_burst(a, pk, 6), 4); /* tail stays with the caller */
	rte_pktmbuf_free(pk[4]);
	rte_pktmbuf_free(pk[5]);
	uint32_t tags[8];
	ck_assert_uint_eq(drain(b, tags, 8), 0); /* not yet: delay */
	ck_assert_uint_eq(dev_next_deadline_ns(b), 6000);
	ck_assert_uint_eq(dev_next_deadline_ns(a), UINT64_MAX);
	now = 6000;
	ck_assert_uint_eq(drain(a, tags, 8), 0); /* the other direction is empty */
	ck_assert_uint_eq(drain(b, tags, 8), 4);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(tags[i], i);
	struct dev_wire_stats st;
	dev_wire_stats(a, &st);
	ck_assert_uint_eq(st.tx, 4);
	ck_assert_uint_eq(st.drop_full, 2);
	/* frames still on the wire are freed with it (ASan checks leaks) */
	struct rte_mbuf *m = frame(9, 60);
	ck_assert_uint_eq(dev_tx_burst(b, &m, 1), 1);
	dev_destroy(a);
	dev_destroy(b);
}
END_TEST

static unsigned count_rx(const struct dev_fault_config *fc, unsigned n, uint32_t *tags,
			 struct dev_fault_stats *st)
{
	/* Sends n frames through a fault wrapper on a; returns the number
	 * delivered to b, their tags in arrival order. */
	struct dev_wire_config wc = {.queue_len = 8192};
	struct dev *a, *b, *f;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &clk, &a, &b), 0);
	ck_assert_int_eq(dev_fault_create(a, fc, &clk, &f), 0);
	unsigned got = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = frame(i, 64);
		ck_assert_uint_eq(dev_tx_burst(f, &m, 1), 1);
		now += 1000;
		got += drain(b, tags + got, n * 2 - got);
	}
	for (int i = 0; i < 1000 && dev_next_deadline_ns(f) != UINT64_MAX; i++) {
		uint64_t d = dev_next_deadline_ns(f);
		if (d > now)
			now = d;
		struct rte_mbuf *none[1];
		dev_rx_burst(f, none, 0);
		got += drain(b, tags + got, n * 2 - got);
	}
	dev_fault_stats(f, st);
	dev_destroy(f);
	dev_destroy(a);
	dev_destroy(b);
	return got;
}

START_TEST(fault_loss_is_seeded_and_near_rate)
{
	static uint32_t t1[4000], t2[4000];
	struct dev_fault_config fc = {.seed = 7, .loss_ppm = 100000};
	struct dev_fault_stats s1, s2;
	unsigned n1 = count_rx(&fc, 2000, t1, &s1);
	unsigned n2 = count_rx(&fc, 2000, t2, &s2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_mem_eq(t1, t2, n1 * sizeof(uint32_t));
	ck_assert_uint_eq(s1.lost, 2000 - n1);
	/* 10% of 2000 = 200, binomial sd ~13 */
	ck_assert_msg(s1.lost > 140 && s1.lost < 260, "lost %lu", (unsigned long)s1.lost);
	fc.seed = 8;
	unsigned n3 = count_rx(&fc, 2000, t2, &s2);
	ck_assert_msg(n3 != n1 || memcmp(t1, t2, n1 * 4), "another seed, another pattern");
}
END_TEST

START_TEST(fault_dup_reorder_delay)
{
	static uint32_t t[4000];
	struct dev_fault_stats st;
	struct dev_fault_config dup = {.seed = 1, .dup_ppm = 200000};
	unsigned n = count_rx(&dup, 1000, t, &st);
	ck_assert_uint_eq(n, 1000 + st.duplicated);
	ck_assert_uint_gt(st.duplicated, 100);
	struct dev_fault_config ro = {.seed = 1, .reorder_ppm = 100000, .reorder_ns = 5000};
	n = count_rx(&ro, 1000, t, &st);
	ck_assert_uint_eq(n, 1000);
	unsigned inversions = 0;
	for (unsigned i = 1; i < n; i++)
		inversions += t[i] < t[i - 1];
	ck_assert_uint_gt(st.reordered, 50);
	ck_assert_uint_gt(inversions, 50);
	/* plain delay: nothing before delay_ns */
	struct dev_wire_config wc = {0};
	struct dev *a, *b, *f;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &clk, &a, &b), 0);
	struct dev_fault_config dl = {.seed = 1, .delay_ns = 10000};
	ck_assert_int_eq(dev_fault_create(a, &dl, &clk, &f), 0);
	struct rte_mbuf *m = frame(1, 64);
	ck_assert_uint_eq(dev_tx_burst(f, &m, 1), 1);
	uint64_t t0 = now;
	ck_assert_uint_eq(dev_next_deadline_ns(f), t0 + 10000);
	now += 9999;
	dev_rx_burst(f, &m, 0);
	ck_assert_uint_eq(drain(b, t, 4), 0);
	now += 1;
	dev_rx_burst(f, &m, 0);
	ck_assert_uint_eq(drain(b, t, 4), 1);
	dev_destroy(f);
	dev_destroy(a);
	dev_destroy(b);
}
END_TEST

START_TEST(fault_corrupt_flips_one_bit_in_a_copy)
{
	struct dev_wire_config wc = {0};
	struct dev *a, *b, *f;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &clk, &a, &b), 0);
	struct dev_fault_config fc = {.seed = 3, .corrupt_ppm = 1000000};
	ck_assert_int_eq(dev_fault_create(a, &fc, &clk, &f), 0);
	struct rte_mbuf *m = frame(0, 100);
	rte_mbuf_refcnt_update(m, 1); /* a retransmission queue holds it too */
	ck_assert_uint_eq(dev_tx_burst(f, &m, 1), 1);
	struct rte_mbuf *r;
	ck_assert_uint_eq(dev_rx_burst(b, &r, 1), 1);
	const uint8_t *p = rte_pktmbuf_mtod(r, const uint8_t *);
	const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned bits = 0;
	for (unsigned i = 0; i < 100; i++) {
		ck_assert_uint_eq(o[i], 0); /* the original is untouched */
		bits += (unsigned)__builtin_popcount(p[i]);
	}
	ck_assert_uint_eq(bits, 1);
	rte_pktmbuf_free(r);
	rte_pktmbuf_free(m);
	struct dev_fault_stats st;
	dev_fault_stats(f, &st);
	ck_assert_uint_eq(st.corrupted, 1);
	dev_destroy(f);
	dev_destroy(a);
	dev_destroy(b);
}
END_TEST

START_TEST(fault_rate_limits)
{
	/* 1000 bytes at 8 Mbit/s = 1 ms per frame. */
	struct dev_wire_config wc = {0};
	struct dev *a, *b, *f;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &clk, &a, &b), 0);
	struct dev_fault_config fc = {.seed = 1, .rate_bps = 8000000, .max_size = 1200};
	ck_assert_int_eq(dev_fault_create(a, &fc, &clk, &f), 0);
	struct rte_mbuf *pk[4] = {frame(0, 1000), frame(1, 1000), frame(2, 1000), frame(3, 1300)};
	ck_assert_uint_eq(dev_tx_burst(f, pk, 4), 4);
	uint64_t t0 = now;
	uint32_t t[8];
	now = t0 + 1000000;
	dev_rx_burst(f, pk, 0);
	ck_assert_uint_eq(drain(b, t, 8), 1);
	now = t0 + 3000000;
	dev_rx_burst(f, pk, 0);
	ck_assert_uint_eq(drain(b, t, 8), 2);
	struct dev_fault_stats st;
	dev_fault_stats(f, &st);
	ck_assert_uint_eq(st.oversize, 1);
	dev_destroy(f);
	dev_destroy(a);
	dev_destroy(b);
	ck_assert_int_eq(
	    dev_fault_create(a, &(struct dev_fault_config){.loss_ppm = 2000000}, &clk, &f),
	    -EINVAL);
}
END_TEST

/* An Ethernet frame of len bytes holding an IPv4 (valid header checksum)
 * or IPv6 header with the given ECN field. */
static struct rte_mbuf *ip_frame(int ver, uint8_t ecn, uint16_t len)
{
	struct rte_mbuf *m = frame(0, len);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = p + 14;
	if (ver == 4) {
		p[12] = 0x08;
		ip[0] = 0x45;
		ip[1] = (uint8_t)(0xb8 | ecn); /* DSCP 46 kept through the marking */
		ip[8] = 64;
		ip[9] = 6;
		uint32_t s = 0;
		for (int i = 0; i < 20; i += 2)
			s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ip[10] = (uint8_t)(~s >> 8);
		ip[11] = (uint8_t)~s;
	} else {
		p[12] = 0x86;
		p[13] = 0xdd;
		ip[0] = 0x6b; /* traffic class 0xb? : DSCP 46 */
		ip[1] = (uint8_t)(0x80 | ecn << 4 | 0x5);
	}
	return m;
}

static bool ip4_csum_ok(const uint8_t *ip)
{
	uint32_t s = 0;
	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

START_TEST(fault_ce_marks_above_threshold)
{
	/* 1000 bytes at 8 Mbit/s = 1 ms per frame; frames that wait 2 ms or
	 * more for the line are marked when ECT. */
	struct dev_wire_config wc = {0};
	struct dev *a, *b, *f;
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &clk, &a, &b), 0);
	struct dev_fault_config fc = {.seed = 1, .rate_bps = 8000000, .ce_threshold_ns = 2000000};
	ck_assert_int_eq(dev_fault_create(a, &fc, &clk, &f), 0);
	struct rte_mbuf *pk[7] = {ip_frame(4, 2, 1000), ip_frame(4, 2, 1000), ip_frame(4, 2, 1000),
				  ip_frame(4, 1, 1000), ip_frame(4, 0, 1000), ip_frame(6, 2, 1000),
				  ip_frame(6, 0, 1000)};
	ck_assert_uint_eq(dev_tx_burst(f, pk, 7), 7);
	now += 10000000;
	dev_rx_burst(f, pk, 0);
	static const uint8_t want[7] = {2, 2, 3, 3, 0, 3, 0};
	struct rte_mbuf *rx[8];
	ck_assert_uint_eq(dev_rx_burst(b, rx, 8), 7);
	for (int i = 0; i < 7; i++) {
		const uint8_t *ip = rte_pktmbuf_mtod(rx[i], const uint8_t *) + 14;
		if (i < 5) {
			ck_assert_uint_eq(ip[1] & 3, want[i]);
			ck_assert_uint_eq(ip[1] >> 2, 46);
			ck_assert(ip4_csum_ok(ip));
		} else {
			ck_assert_uint_eq((ip[1] >> 4) & 3, want[i]);
			ck_assert_uint_eq(ip[0], 0x6b);
			ck_assert_uint_eq(ip[1] & 0xcf, 0x85);
		}
		rte_pktmbuf_free(rx[i]);
	}
	struct dev_fault_stats st;
	dev_fault_stats(f, &st);
	ck_assert_uint_eq(st.ect, 5);
	ck_assert_uint_eq(st.ce_marked, 3);
	dev_destroy(f);
	/* at random: every ECT frame with ce_ppm 1e6, no rate needed */
	struct dev_fault_config all = {.seed = 1, .ce_ppm = 1000000};
	ck_assert_int_eq(dev_fault_create(a, &all, &clk, &f), 0);
	pk[0] = ip_frame(4, 2, 200);
	pk[1] = ip_frame(4, 0, 200);
	ck_assert_uint_eq(dev_tx_burst(f, pk, 2), 2);
	ck_assert_uint_eq(dev_rx_burst(b, rx, 8), 2);
	ck_assert_uint_eq(rte_pktmbuf_mtod(rx[0], uint8_t *)[15] & 3, 3);
	ck_assert_uint_eq(rte_pktmbuf_mtod(rx[1], uint8_t *)[15] & 3, 0);
	rte_pktmbuf_free(rx[0]);
	rte_pktmbuf_free(rx[1]);
	dev_destroy(f);
	dev_destroy(a);
	dev_destroy(b);
}
END_TEST

START_TEST(pcap_writes_frames)
{
	char path[] = "/tmp/skops-test-dev-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct dev *a, *b, *p;
	ck_assert_int_eq(dev_wire_pair_create(&clk, &a, &b), 0);
	ck_assert_int_eq(dev_pcap_create(a, path, &clk, &p), 0);
	now = 3000000123ull;
	struct rte_mbuf *m = frame(0xabcd, 60);
	ck_assert_uint_eq(dev_tx_burst(p, &m, 1), 1);
	m = frame(0x1234, 70);
	ck_assert_uint_eq(dev_tx_burst(b, &m, 1), 1);
	struct rte_mbuf *r;
	ck_assert_uint_eq(dev_rx_burst(p, &r, 1), 1);
	rte_pktmbuf_free(r);
	dev_destroy(p);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	uint32_t gh[6], rh[4];
	uint8_t data[128];
	ck_assert_uint_eq(fread(gh, sizeof(gh), 1, f), 1);
	ck_assert_uint_eq(gh[0], 0xa1b23c4du);
	ck_assert_uint_eq(gh[5], 1);
	ck_assert_uint_eq(fread(rh, sizeof(rh), 1, f), 1);
	ck_assert_uint_eq(rh[0], 3);
	ck_assert_uint_eq(rh[1], 123);
	ck_assert_uint_eq(rh[2], 60);
	ck_assert_uint_eq(fread(data, 60, 1, f), 1);
	ck_assert_uint_eq(*(uint32_t *)data, 0xabcd);
	ck_assert_uint_eq(fread(rh, sizeof(rh), 1, f), 1);
	ck_assert_uint_eq(rh[2], 70);
	ck_assert_uint_eq(fread(data, 70, 1, f), 1);
	ck_assert_uint_eq(*(uint32_t *)data, 0x1234);
	ck_assert_uint_eq(fread(data, 1, 1, f), 0);
	fclose(f);
	unlink(path);
	ck_assert_int_eq(dev_pcap_create(b, "/nonexistent/dir/x.pcap", &clk, &p), -ENOENT);
	dev_destroy(a);
	dev_destroy(b);
}
END_TEST

/* argv as one string, arguments separated by blanks */
static const char *eal_line(const struct dev_opts *o, char *line, size_t len)
{
	char buf[2048];
	char *argv[32];
	int n = dev_opts_eal_argv(o, buf, sizeof(buf), argv, 32);
	ck_assert_int_gt(n, 0);
	line[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(line + strlen(line), len - strlen(line), "%s%s", i ? " " : "", argv[i]);
	return line;
}

START_TEST(eal_args_af_packet_ring)
{
	char line[2048];
	struct dev_opts o = {.prog = "t", .nvdev = 2};
	o.vdevs[0] = "net_af_packet0,iface=veth0";
	o.vdevs[1] = "net_memif0,role=client";
	eal_line(&o, line, sizeof(line));
	ck_assert_msg(strstr(line, "--vdev=net_af_packet0,iface=veth0,framecnt=4096 "), "%s", line);
	ck_assert_msg(strstr(line, "--vdev=net_memif0,role=client --no-pci --no-huge -m 256"), "%s",
		      line);
	/* the user's ring size and memory options stand */
	o.vdevs[0] = "net_af_packet0,iface=veth0,framecnt=1024";
	o.nvdev = 1;
	o.eal = "-m 512 -l 1";
	eal_line(&o, line, sizeof(line));
	ck_assert_msg(strstr(line, "--vdev=net_af_packet0,iface=veth0,framecnt=1024 --no-pci "),
		      "%s", line);
	ck_assert_msg(!strstr(line, "--no-huge") && strstr(line, " -m 512 -l 1"), "%s", line);
	/* a jumbo MTU: a memif buffer holds a frame (9014 bytes in whole
	 * cache lines) and the EAL gets room for 3072 mbufs of 9142 bytes */
	struct dev_opts j = {.prog = "t", .nvdev = 1, .mtu = 9000};
	j.vdevs[0] = "net_memif0,role=client";
	eal_line(&j, line, sizeof(line));
	ck_assert_msg(
	    strstr(line, "--vdev=net_memif0,role=client,bsize=9024 --no-pci --no-huge -m 284"),
	    "%s", line);
	j.vdevs[0] = "net_memif0,role=client,bsize=16384"; /* the user's stands */
	eal_line(&j, line, sizeof(line));
	ck_assert_msg(strstr(line, "--vdev=net_memif0,role=client,bsize=16384 "), "%s", line);
	/* a PCI port: no vdev defaults */
	struct dev_opts p = {.prog = "t", .port = "0000:03:00.0"};
	eal_line(&p, line, sizeof(line));
	ck_assert_msg(!strstr(line, "--no-pci") && !strstr(line, "framecnt"), "%s", line);
}
END_TEST

static Suite *dev_suite(void)
{
	Suite *s = suite_create("dev");
	TCase *tc = tcase_create("dev");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, wire_delay_order_and_full);
	tcase_add_test(tc, fault_loss_is_seeded_and_near_rate);
	tcase_add_test(tc, fault_dup_reorder_delay);
	tcase_add_test(tc, fault_corrupt_flips_one_bit_in_a_copy);
	tcase_add_test(tc, fault_rate_limits);
	tcase_add_test(tc, fault_ce_marks_above_threshold);
	tcase_add_test(tc, pcap_writes_frames);
	tcase_add_test(tc, eal_args_af_packet_ring);
	suite_add_tcase(s, tc);
	return s;
}

TNU_MAIN("test_dev", dev_suite)
