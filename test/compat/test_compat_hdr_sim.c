/* Header options between two simulated stacks, as the kernel's
 * tcp_output.c/tcp_input.c run them: progs/hdr_opt_write.c on the connecting
 * socket puts kind 254 (magic 0xa5c3, data 0x1234) in its SYN; the capture
 * shows the option bytes; progs/hdr_opt_synread.c on the listener finds them
 * while its request builds the SYN-ACK, and the accepted socket then parses
 * the timestamp option of every segment. The listener keeps its SYNs
 * (TCP_SAVE_SYN from the program): the accepted socket's program reads the
 * SYN back, and so does the application, once, through TCP_SAVED_SYN. */
#include <errno.h>
#include <netinet/tcp.h>
#include <time.h>

#include "../sim/sim_harness.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "hooks.h"

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

static struct bpfvm_obj *attach(struct bpfvm_registry *reg, struct cg_tree *tree, const char *name,
				const char *cg)
{
	char log[8192] = "", path[512];
	const char *b = getenv("SKOPS_BUILD");
	struct bpfvm_log bl = {.level = 1, .buf = log, .size = sizeof(log)};
	struct bpfvm_load_opts lo = {.type = &hooks_sock_ops_type, .strict = true, .log = &bl};
	struct bpfvm_obj *obj = NULL;
	struct bpfvm_prog *prog = NULL;
	struct cg_node *node = NULL;

	if (!b) {
		printf("compat_hdr_sim: FAIL: SKOPS_BUILD unset (run through meson test)\n");
		exit(EXIT_FAILURE);
	}
	snprintf(path, sizeof(path), "%s/test/compat/%s.o", b, name);
	if (bpfvm_obj_open(reg, path, NULL, 0, &bl, &obj) < 0 ||
	    bpfvm_obj_load_prog(obj, NULL, &lo, &prog) < 0 ||
	    cg_lookup(tree, cg, true, &node) < 0 ||
	    cg_attach(tree, node, CG_ATTACH_SOCK_OPS, prog, 0, NULL) < 0) {
		printf("compat_hdr_sim: FAIL: load/attach %s: %s\n", path, log);
		exit(EXIT_FAILURE);
	}
	bpfvm_prog_put(prog);
	cg_node_put(node);
	return obj;
}

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

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init("compat_hdr_sim");
	struct bpfvm_registry *reg = NULL;
	struct cg_tree *tree = NULL;
	struct cg_node *root = NULL;
	struct hooks *hk = NULL;
	if (bpfvm_registry_create(&reg) < 0 || cg_tree_create(&hooks_cg_prog_ops, 2, &tree) < 0 ||
	    cg_lookup(tree, "/", false, &root) < 0) {
		printf("compat_hdr_sim: FAIL: registry/cgroup setup\n");
		return EXIT_FAILURE;
	}
	struct hooks_config hc = {.tree = tree, .reg = reg, .netns_cookie = 1};
	if (hooks_create(&hc, &hk) < 0) {
		printf("compat_hdr_sim: FAIL: hooks_create\n");
		return EXIT_FAILURE;
	}
	struct bpfvm_obj *wobj = attach(reg, tree, "hdr_opt_write", "/w");
	struct bpfvm_obj *robj = attach(reg, tree, "hdr_opt_synread", "/r");

	struct sim s;
	const char *fail = NULL;
	if (sim_create_hooks(&s, "compat_hdr", 1, NULL, 8, 262144, true, tree, hk) < 0)
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
	sim_destroy(&s, fails != 0);
	bpfvm_obj_close(wobj);
	bpfvm_obj_close(robj);
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
	rte_eal_cleanup();
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
