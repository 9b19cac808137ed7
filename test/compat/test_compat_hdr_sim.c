/* Header options between two simulated stacks, as the kernel's
 * tcp_output.c/tcp_input.c run them: progs/hdr_opt_write.c on the connecting
 * socket puts kind 254 (magic 0xa5c3, data 0x1234) in its SYN; the capture
 * shows the option bytes; progs/hdr_opt_synread.c on the listener finds them
 * while its request builds the SYN-ACK, and the accepted socket then parses
 * the timestamp option of every segment. The listener keeps its SYNs
 * (TCP_SAVE_SYN from the program): the accepted socket's program reads the
 * SYN back, and so does the application, once, through TCP_SAVED_SYN.
 * A second connection runs progs/hdr_opt_data.c on both ends: kind 254 with a
 * running count on every segment after the handshake (data, pure ACKs, FINs),
 * parsed as an unknown option by the peer; what each side wrote, what the
 * capture shows and what the other side parsed must be the same numbers. */
#include <errno.h>
#include <netinet/tcp.h>
#include <time.h>

#include "compat_sim.h"

struct synread_stat {
	int32_t syn_rc;
	uint32_t synack_len_cbs;
	uint8_t data[2], pad[2];
	int32_t ts_rc;
	uint32_t parse_cbs;
	int32_t save_rc, save_get;
	int32_t syn_len, syn_ip_len, syn_mac_rc;
	int32_t short_rc;
	int32_t saved_rc, saved_big_rc;
	uint8_t ip0, short0, pad2[2];
	int32_t estab_opt_rc;
	uint16_t syn_dport, pad3;
};

struct hdr_stat {
	int32_t reserve_rc, store_rc, dup_rc;
	uint32_t len_cbs, write_cbs;
};

static int fails;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("compat_hdr_sim: FAIL %s: ", #cond);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

/* The kind-254 option of the first SYN in the capture, or an empty result. */
static int syn_option(const char *pcap, uint8_t out[8])
{
	FILE *f = fopen(pcap, "rb");
	uint8_t rec[16], pkt[256];
	if (!f)
		return -1;
	if (fseek(f, 24, SEEK_SET) != 0) { /* pcap global header */
		fclose(f);
		return -1;
	}
	while (fread(rec, 1, 16, f) == 16) {
		uint32_t incl;
		memcpy(&incl, rec + 8, 4);
		size_t n = incl < sizeof(pkt) ? incl : sizeof(pkt);
		if (fread(pkt, 1, n, f) != n)
			break;
		if (incl > n && fseek(f, (long)(incl - n), SEEK_CUR) != 0)
			break;
		/* Ethernet + IPv4 (no IP options in the simulation) + TCP */
		if (n < 14 + 20 + 20 || pkt[12] != 0x08 || pkt[13] != 0x00 || pkt[23] != 6)
			continue;
		const uint8_t *t = pkt + 14 + (pkt[14] & 0xf) * 4;
		if ((t[13] & 0x12) != 0x02)
			continue;
		size_t hl = (size_t)(t[12] >> 4) * 4;
		for (size_t i = 20; i + 1 < hl && t + i + 1 < pkt + n;) {
			if (t[i] == 0)
				break;
			if (t[i] == 1) {
				i++;
				continue;
			}
			if (t[i] == 254 && t[i + 1] <= 8) {
				memcpy(out, t + i, t[i + 1]);
				fclose(f);
				return t[i + 1];
			}
			i += t[i + 1] ? t[i + 1] : 1;
		}
		break; /* the first SYN had no such option */
	}
	fclose(f);
	return 0;
}

struct opt_count {
	uint32_t mss_len_cbs, seg_len_cbs, reserve_fail;
	uint32_t data_out, fin_out, ack_out;
	int32_t store_rc;
	uint32_t data_in, fin_in, ack_in;
	uint32_t in_order, out_of_order;
	uint32_t parse_cbs, parse_miss;
	uint32_t max_seg_len;
};

/* Segments of port's connection in the capture sent by addr (network order),
 * by class (data, FIN, pure ACK), that carry kind 254 with magic 0x5c0b;
 * *without counts those after the handshake that do not. */
static void wire_opts(const char *pcap, uint32_t addr, uint16_t port, uint32_t with[3],
		      uint32_t *without)
{
	FILE *f = fopen(pcap, "rb");
	uint8_t rec[16], pkt[256];
	memset(with, 0, 3 * sizeof(*with));
	*without = 0;
	if (!f || fseek(f, 24, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return;
	}
	while (fread(rec, 1, 16, f) == 16) {
		uint32_t incl, orig;
		memcpy(&incl, rec + 8, 4);
		memcpy(&orig, rec + 12, 4);
		size_t n = incl < sizeof(pkt) ? incl : sizeof(pkt);
		if (fread(pkt, 1, n, f) != n)
			break;
		if (incl > n && fseek(f, (long)(incl - n), SEEK_CUR) != 0)
			break;
		if (n < 14 + 20 + 20 || pkt[12] != 0x08 || pkt[13] != 0x00 || pkt[23] != 6 ||
		    memcmp(pkt + 26, &addr, 4) != 0)
			continue;
		size_t ihl = (size_t)(pkt[14] & 0xf) * 4;
		const uint8_t *t = pkt + 14 + ihl;
		uint16_t sp = (uint16_t)(t[0] << 8 | t[1]), dp = (uint16_t)(t[2] << 8 | t[3]);
		if ((sp != port && dp != port) || (t[13] & 0x02) || (t[13] & 0x04))
			continue;
		size_t hl = (size_t)(t[12] >> 4) * 4;
		size_t iplen = (size_t)(pkt[16] << 8 | pkt[17]);
		int cls = (t[13] & 0x01) ? 1 : iplen > ihl + hl ? 0 : 2;
		bool found = false;
		for (size_t i = 20; i + 1 < hl && t + i + 3 < pkt + n;) {
			if (t[i] == 0)
				break;
			if (t[i] == 1) {
				i++;
				continue;
			}
			if (t[i] == 254 && t[i + 1] == 8 && t[i + 2] == 0x5c && t[i + 3] == 0x0b)
				found = true;
			if (t[i + 1] < 2)
				break;
			i += t[i + 1];
		}
		if (found)
			with[cls]++;
		else
			(*without)++;
	}
	fclose(f);
}

/* A connection whose both ends run hdr_opt_data: the client sends 64 KiB, the
 * server answers 16 KiB, then both close. Ends the simulation (to read the
 * whole capture). */
static void data_phase(struct sim *s, struct bpfvm_obj *dobj)
{
	const uint16_t port = 5005;
	const uint32_t up = 64 * 1024, down = 16 * 1024;
	const char *fail = NULL;
	int l = skops_socket(s->b, AF_INET, SOCK_STREAM), a = -1;
	struct sockaddr_in sb = sim_sin(0, port), to = sim_sin(s->b4, port);
	if (skops_bind(s->b, l, (struct sockaddr *)&sb, sizeof(sb)) < 0 ||
	    skops_set_cgroup(s->b, l, "/d") < 0 || skops_listen(s->b, l, 8) < 0)
		fail = "listener";
	int c = skops_socket(s->a, AF_INET, SOCK_STREAM);
	if (!fail && (skops_set_cgroup(s->a, c, "/d") < 0 ||
		      skops_connect(s->a, c, (struct sockaddr *)&to, sizeof(to)) != -EINPROGRESS))
		fail = "connect";
	uint8_t buf[4096];
	memset(buf, 0x3c, sizeof(buf));
	uint32_t sent = 0, rcvd = 0, back = 0, got = 0;
	bool c_closed = false, a_closed = false, eof_a = false, eof_c = false;
	int maxseg = 0;
	clock_t c0 = clock();
	for (uint64_t steps = 0; !fail && !(c_closed && a_closed && eof_a && eof_c); steps++) {
		if (a < 0) {
			a = skops_accept(s->b, l, NULL, NULL);
			if (a < -1)
				a = -1;
		}
		while (sent < up && (skops_events(s->a, c) & SKOPS_EV_OUT)) {
			uint32_t n = up - sent < sizeof(buf) ? up - sent : (uint32_t)sizeof(buf);
			ssize_t r = skops_send(s->a, c, buf, n, 0);
			if (r <= 0)
				break;
			sent += (uint32_t)r;
		}
		if (sent == up && !c_closed && got == down) {
			socklen_t ml = sizeof(maxseg);
			skops_getsockopt(s->a, c, IPPROTO_TCP, TCP_MAXSEG, &maxseg, &ml);
			skops_shutdown(s->a, c, SHUT_WR);
			c_closed = true;
		}
		for (ssize_t r; a >= 0 && (r = skops_recv(s->b, a, buf, sizeof(buf), 0)) > 0;)
			rcvd += (uint32_t)r;
		if (a >= 0 && skops_recv(s->b, a, buf, sizeof(buf), 0) == 0)
			eof_a = true;
		while (a >= 0 && back < down && rcvd >= up / 2) {
			ssize_t r =
			    skops_send(s->b, a, buf, down - back < 1024 ? down - back : 1024, 0);
			if (r <= 0)
				break;
			back += (uint32_t)r;
		}
		if (eof_a && back == down && !a_closed) {
			skops_close(s->b, a);
			a_closed = true;
		}
		for (ssize_t r; (r = skops_recv(s->a, c, buf, sizeof(buf), 0)) > 0;)
			got += (uint32_t)r;
		if (a_closed && skops_recv(s->a, c, buf, sizeof(buf), 0) == 0)
			eof_c = true;
		if (!sim_step(s))
			fail = "stalled";
		if (steps > 2000000ull || (double)(clock() - c0) / CLOCKS_PER_SEC > 60.0)
			fail = "step or wall-clock limit";
	}
	EXPECT(!fail, "data phase: %s (sent %u rcvd %u back %u got %u)", fail ? fail : "", sent,
	       rcvd, back, got);
	/* the last ACK reaches the server in LAST_ACK */
	for (int i = 0; i < 1000 && sim_step(s); i++)
		;

	uint32_t k0 = 0, k1 = 1;
	struct bpfvm_map *m = bpfvm_obj_map_by_name(dobj, "optcnt");
	const struct opt_count *cl = bpfvm_map_lookup(m, &k0), *sv = bpfvm_map_lookup(m, &k1);
	uint32_t wc[3], ws[3], wc_none, ws_none;
	sim_close(s); /* the capture on disk, whole */
	wire_opts(s->pcap, s->a4, port, wc, &wc_none);
	wire_opts(s->pcap, s->b4, port, ws, &ws_none);
	for (int i = 0; i < 2; i++) {
		const struct opt_count *o = i ? sv : cl;
		printf("compat_hdr_sim: %s: LEN_CB current MSS %u, segment %u (refused %u); wrote "
		       "data %u FIN %u ACK %u (store error %d, longest %u); parsed %u headers: "
		       "data %u FIN %u ACK %u, %u in order, %u not, %u without\n",
		       i ? "server" : "client", o->mss_len_cbs, o->seg_len_cbs, o->reserve_fail,
		       o->data_out, o->fin_out, o->ack_out, o->store_rc, o->max_seg_len,
		       o->parse_cbs, o->data_in, o->fin_in, o->ack_in, o->in_order, o->out_of_order,
		       o->parse_miss);
	}
	printf("compat_hdr_sim: on the wire: client data %u FIN %u ACK %u (%u without); server "
	       "data %u FIN %u ACK %u (%u without); client TCP_MAXSEG %d\n",
	       wc[0], wc[1], wc[2], wc_none, ws[0], ws[1], ws[2], ws_none, maxseg);
	EXPECT(cl->mss_len_cbs > 0 && sv->mss_len_cbs > 0,
	       "HDR_OPT_LEN_CB asked for the current MSS on both sides");
	EXPECT(cl->reserve_fail == 0 && sv->reserve_fail == 0 && cl->store_rc == 0 &&
		   sv->store_rc == 0,
	       "every reservation and store succeeded");
	EXPECT(cl->data_out >= up / 1460 && sv->data_out >= down / 1460,
	       "data segments carried the option");
	EXPECT(cl->fin_out == 1 && sv->fin_out == 1, "each FIN carried it");
	EXPECT(sv->ack_out > 0, "the server's pure ACKs carried it");
	EXPECT(wc[0] == cl->data_out && wc[1] == cl->fin_out && wc[2] == cl->ack_out &&
		   ws[0] == sv->data_out && ws[1] == sv->fin_out && ws[2] == sv->ack_out,
	       "the capture shows what each side wrote");
	/* the client's handshake ACK left before the server's socket was
	 * established: the server sees all but that one */
	EXPECT(sv->data_in == cl->data_out && sv->fin_in == cl->fin_out &&
		   cl->data_in == sv->data_out && cl->fin_in == sv->fin_out &&
		   cl->ack_in == sv->ack_out && sv->ack_in + 1 == cl->ack_out,
	       "each side parsed what the other wrote");
	EXPECT(cl->out_of_order == 0 && sv->out_of_order == 1 && cl->parse_miss == 0 &&
		   sv->parse_miss == 0,
	       "counts arrive in order, PARSE_UNKNOWN only for headers with the option");
	EXPECT(maxseg > 0 && cl->max_seg_len == (uint32_t)maxseg + 20 + 12,
	       "a full segment is the MSS less the 8 option bytes (longest %u, mss %d)",
	       cl->max_seg_len, maxseg);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init("compat_hdr_sim");
	struct compat_env e;
	compat_env_init(&e, "compat_hdr_sim");
	struct bpfvm_obj *wobj = compat_attach(&e, "hdr_opt_write", "/w");
	struct bpfvm_obj *robj = compat_attach(&e, "hdr_opt_synread", "/r");
	struct bpfvm_obj *dobj = compat_attach(&e, "hdr_opt_data", "/d");

	struct sim s;
	const char *fail = NULL;
	if (sim_create_hooks(&s, "compat_hdr", 1, NULL, 8, 262144, true, e.tree, e.hk) < 0)
		fail = "sim setup";
	int l = -1, a = -1, c = -1;
	if (!fail) {
		l = skops_socket(s.b, AF_INET, SOCK_STREAM);
		struct sockaddr_in sb = sim_sin(0, 5004);
		skops_bind(s.b, l, (struct sockaddr *)&sb, sizeof(sb));
		if (skops_set_cgroup(s.b, l, "/r") < 0)
			fail = "listener cgroup";
		skops_listen(s.b, l, 8);
		c = skops_socket(s.a, AF_INET, SOCK_STREAM);
		if (skops_set_cgroup(s.a, c, "/w") < 0)
			fail = "client cgroup";
		struct sockaddr_in to = sim_sin(s.b4, 5004);
		if (!fail &&
		    skops_connect(s.a, c, (struct sockaddr *)&to, sizeof(to)) != -EINPROGRESS)
			fail = "connect";
	}
	uint8_t buf[2048];
	memset(buf, 0x5a, sizeof(buf));
	uint32_t rcvd = 0;
	bool sent = false;
	clock_t c0 = clock();
	for (uint64_t steps = 0; !fail && rcvd < 4 * sizeof(buf); steps++) {
		if (a < 0) {
			a = skops_accept(s.b, l, NULL, NULL);
			if (a < -1)
				a = -1;
		}
		if (!sent && (skops_events(s.a, c) & SKOPS_EV_OUT)) {
			for (int i = 0; i < 4; i++)
				skops_send(s.a, c, buf, sizeof(buf), 0);
			sent = true;
		}
		for (ssize_t r; a >= 0 && (r = skops_recv(s.b, a, buf, sizeof(buf), 0)) > 0;)
			rcvd += (uint32_t)r;
		if (!sim_step(&s))
			fail = "stalled";
		if (steps > 1000000ull || (double)(clock() - c0) / CLOCKS_PER_SEC > 60.0)
			fail = "step or wall-clock limit";
	}
	EXPECT(!fail, "%s", fail ? fail : "");

	uint32_t k = 0;
	const struct hdr_stat *w = bpfvm_map_lookup(bpfvm_obj_map_by_name(wobj, "stat"), &k);
	const struct synread_stat *r = bpfvm_map_lookup(bpfvm_obj_map_by_name(robj, "synread"), &k);
	uint8_t opt[8] = {0};
	int on_wire = syn_option(s.pcap, opt);
	printf("compat_hdr_sim: writer reserve %d store %d dup %d; SYN option on the wire %d bytes "
	       "%02x %02x %02x %02x %02x %02x; listener found %d (data %02x%02x) in %u SYN-ACK "
	       "callbacks; accepted side parsed %u headers, timestamp option %d\n",
	       w->reserve_rc, w->store_rc, w->dup_rc, on_wire, opt[0], opt[1], opt[2], opt[3],
	       opt[4], opt[5], r->syn_rc, r->data[0], r->data[1], r->synack_len_cbs, r->parse_cbs,
	       r->ts_rc);
	EXPECT(w->reserve_rc == 0 && w->store_rc == 0 && w->dup_rc == -EEXIST, "writer answers");
	static const uint8_t want[6] = {254, 6, 0xa5, 0xc3, 0x12, 0x34};
	EXPECT(on_wire == 6 && !memcmp(opt, want, 6), "the SYN on the wire carries the option");
	EXPECT(r->synack_len_cbs >= 1, "listener's request ran HDR_OPT_LEN_CB");
	EXPECT(r->syn_rc == 6 && r->data[0] == 0x12 && r->data[1] == 0x34,
	       "listener found the SYN's option");
	EXPECT(r->parse_cbs >= 1 && r->ts_rc == 10, "accepted side parsed headers");

	/* TCP_SAVE_SYN: the SYN's TCP header is 20 bytes, its options the MSS,
	 * SACK-permitted, timestamps, window scale and the 6-byte kind 254. */
	printf("compat_hdr_sim: TCP_SAVE_SYN set %d read %d; saved SYN: TCP %d bytes (dport %u), "
	       "IP+TCP %d (first byte %02x), MAC %d, 8-byte buffer %d (%02x), TCP_SAVED_SYN %d/%d, "
	       "option %d\n",
	       r->save_rc, r->save_get, r->syn_len, r->syn_dport, r->syn_ip_len, r->ip0,
	       r->syn_mac_rc, r->short_rc, r->short0, r->saved_rc, r->saved_big_rc,
	       r->estab_opt_rc);
	EXPECT(r->save_rc == 0 && r->save_get == 1, "TCP_SAVE_SYN from the program");
	EXPECT(r->syn_len >= 20 + 6 && r->syn_len % 4 == 0 && r->syn_dport == 5004,
	       "TCP_BPF_SYN is the SYN's TCP header");
	EXPECT(r->syn_ip_len == 20 + r->syn_len && r->ip0 == 0x45,
	       "TCP_BPF_SYN_IP adds the IPv4 header");
	EXPECT(r->syn_mac_rc == -ENOENT, "no Ethernet header kept with TCP_SAVE_SYN 1");
	EXPECT(r->short_rc == -ENOSPC && r->short0 == 0x45, "a short buffer gets what fits");
	EXPECT(r->saved_rc == 0 && r->saved_big_rc == -EINVAL,
	       "TCP_SAVED_SYN from a program: at most what was saved");
	EXPECT(r->estab_opt_rc == 6, "BPF_LOAD_HDR_OPT_TCP_SYN finds the option in the saved SYN");
	if (a >= 0) {
		uint8_t syn[256];
		socklen_t n = 8;
		EXPECT(skops_getsockopt(s.b, a, IPPROTO_TCP, TCP_SAVED_SYN, syn, &n) == -EINVAL &&
			   n == (socklen_t)r->syn_ip_len,
		       "a short buffer learns the length (%u)", (unsigned)n);
		n = sizeof(syn);
		EXPECT(skops_getsockopt(s.b, a, IPPROTO_TCP, TCP_SAVED_SYN, syn, &n) == 0 &&
			   n == (socklen_t)r->syn_ip_len && syn[0] == 0x45 && syn[9] == 6,
		       "the application reads the SYN's IP and TCP headers (%u bytes)",
		       (unsigned)n);
		n = sizeof(syn);
		EXPECT(skops_getsockopt(s.b, a, IPPROTO_TCP, TCP_SAVED_SYN, syn, &n) == 0 && n == 0,
		       "only once");
		int v = 3;
		EXPECT(skops_setsockopt(s.b, l, IPPROTO_TCP, TCP_SAVE_SYN, &v, sizeof(v)) ==
			   -EINVAL,
		       "TCP_SAVE_SYN 3 is refused");
	}
	if (!fail)
		data_phase(&s, dobj);
	sim_destroy(&s, fails != 0);
	bpfvm_obj_close(dobj);
	bpfvm_obj_close(wobj);
	bpfvm_obj_close(robj);
	compat_env_fini(&e);
	rte_eal_cleanup();
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
