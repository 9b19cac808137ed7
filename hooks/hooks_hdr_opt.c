/* hooks: the TCP header-option helpers of sock_ops (bpf_load_hdr_opt,
 * bpf_store_hdr_opt, bpf_reserve_hdr_opt), with the errnos of Linux's
 * net/core/filter.c (bpf_sock_ops_load_hdr_opt and friends). Options are
 * RFC 9293 §3.1 kind/length/value; kinds 253 and 254 carry an RFC 6994
 * magic. The segment is the ctx's hooks_skb (hooks_call.c). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "hooks_int.h"

#define HK_TCPOPT_EOL	    0
#define HK_TCPOPT_NOP	    1
#define HK_TCPOPT_EXP	    254
#define HK_TCPOPT_EXP2	    253
#define HK_TCP_HDR	    20u
#define HK_TCP_OPT_SPACE    40u
#define HK_LOAD_HDR_OPT_SYN 1ull /* BPF_LOAD_HDR_OPT_TCP_SYN */

static struct hooks_ctx *hk_ctx(uint64_t r1)
{
	return (struct hooks_ctx *)(uintptr_t)r1;
}

/* Find kind (with magic, for the experimental kinds) in [op, end). Returns
 * the option, or NULL with *err -ENOMSG (absent; *eol when an EOL ended the
 * list) or -EFAULT (a malformed length: stop, as tcp_parse_options does). */
static const uint8_t *hk_find_opt(const uint8_t *op, const uint8_t *end, uint8_t kind,
				  const uint8_t *magic, uint8_t magic_len, bool *eol, int *err)
{
	*eol = false;
	*err = -ENOMSG;
	while (op < end) {
		if (op[0] == HK_TCPOPT_EOL) {
			*eol = true;
			return NULL;
		}
		if (op[0] == HK_TCPOPT_NOP) {
			op++;
			continue;
		}
		if (end - op < 2 || op[1] < 2 || end - op < op[1]) {
			*err = -EFAULT;
			return NULL;
		}
		if (op[0] == kind) {
			if (!magic_len)
				return op;
			/* a matching kind too short for the magic ends the search */
			if (magic_len > op[1] - 2)
				return NULL;
			if (!memcmp(op + 2, magic, magic_len))
				return op;
		}
		op += op[1];
	}
	return NULL;
}

static int hk_load_hdr_opt(struct hooks_ctx *ctx, uint8_t *res, uint32_t len, uint64_t flags)
{
	const uint8_t *op, *end, *magic = NULL;
	uint8_t magic_len = 0;
	bool eol;
	int err;

	/* Linux is_locked_tcp_sock_ops: not in the TSTAMP_* ops */
	if (ctx->view.op > HOOKS_OP_WRITE_HDR_OPT_CB)
		return -EOPNOTSUPP;
	if (len < 2 || (flags & ~HK_LOAD_HDR_OPT_SYN))
		return -EINVAL;
	uint8_t kind = res[0], klen = res[1];
	if (klen > len || kind == HK_TCPOPT_NOP || kind == HK_TCPOPT_EOL)
		return -EINVAL;
	if (kind == HK_TCPOPT_EXP || kind == HK_TCPOPT_EXP2) {
		/* the search names a 2- or 4-byte magic after kind and length */
		if (klen != 4 && klen != 6)
			return -EINVAL;
		magic = res + 2;
		magic_len = (uint8_t)(klen - 2);
	} else if (klen) {
		return -EINVAL;
	}
	uint8_t saved[HK_TCP_HDR + HK_TCP_OPT_SPACE];
	if (flags & HK_LOAD_HDR_OPT_SYN) {
		/* the SYN a SYN-ACK answers, else the one TCP_SAVE_SYN kept
		 * (Linux bpf_sock_ops_get_syn) */
		if (ctx->skb && ctx->skb->syn) {
			op = ctx->skb->syn;
			end = ctx->skb->syn + ctx->skb->syn_len;
		} else {
			uint32_t n = sizeof(saved);
			if (!ctx->hs ||
			    ctx->hs->ops->getsockopt(ctx->hs, 6, HOOKS_TCP_SYN, saved, &n) < 0 ||
			    n > sizeof(saved))
				return -ENOENT;
			op = saved;
			end = saved + n;
		}
		if (end - op < (ptrdiff_t)HK_TCP_HDR)
			return -ENOENT;
		op += HK_TCP_HDR;
	} else {
		if (!ctx->skb || ctx->view.op == HOOKS_OP_HDR_OPT_LEN_CB)
			return -EPERM;
		op = ctx->skb->hdr + HK_TCP_HDR;
		end = (const uint8_t *)(uintptr_t)ctx->view.skb_data_end;
	}
	op = hk_find_opt(op, end, kind, magic, magic_len, &eol, &err);
	if (!op)
		return err;
	uint32_t n = op[1];
	int ret = (int)n;
	if (n > len) {
		ret = -ENOSPC;
		n = len;
	}
	memcpy(res, op, n);
	return ret;
}

static const struct bpfvm_helper hooks_hdr_opt_helpers[3];

static int hk_store_hdr_opt(struct hooks_ctx *ctx, const uint8_t *from, uint32_t len,
			    uint64_t flags)
{
	const uint8_t *magic = NULL;
	uint8_t magic_len = 0;
	bool eol;
	int err;

	if (!hooks_helper_op_ok(&hooks_hdr_opt_helpers[1], ctx) || !ctx->skb)
		return -EPERM;
	if (len < 2 || flags)
		return -EINVAL;
	uint8_t kind = from[0], klen = from[1];
	if (klen > len || kind == HK_TCPOPT_NOP || kind == HK_TCPOPT_EOL)
		return -EINVAL;
	if (klen > ctx->remaining_opt_len)
		return -ENOSPC;
	if (kind == HK_TCPOPT_EXP || kind == HK_TCPOPT_EXP2) {
		if (klen < 4)
			return -EINVAL;
		/* duplicates are judged on the 2-byte magic (RFC 6994 allows 2
		 * or 4): the conservative match */
		magic = from + 2;
		magic_len = 2;
	}
	uint8_t *end = (uint8_t *)(uintptr_t)ctx->view.skb_data_end;
	if (hk_find_opt(ctx->skb->hdr + HK_TCP_HDR, end, kind, magic, magic_len, &eol, &err))
		return -EEXIST;
	if (err != -ENOMSG)
		return err;
	if (eol)
		return -ENOSPC; /* the option list was ended: nothing may follow */
	memcpy(end, from, klen);
	ctx->remaining_opt_len -= klen;
	ctx->view.skb_data_end += klen;
	return 0;
}

static int hk_reserve_hdr_opt(struct hooks_ctx *ctx, uint32_t len, uint64_t flags)
{
	if (!hooks_helper_op_ok(&hooks_hdr_opt_helpers[2], ctx))
		return -EPERM;
	if (flags || len < 2)
		return -EINVAL;
	if (len > ctx->remaining_opt_len)
		return -ENOSPC;
	ctx->remaining_opt_len -= len;
	return 0;
}

static uint64_t hooks_load_hdr_opt(uint64_t r1, uint64_t res, uint64_t len, uint64_t flags,
				   uint64_t r5, struct bpfvm_run *run)
{
	(void)r5, (void)run;
	return (uint64_t)(int64_t)hk_load_hdr_opt(hk_ctx(r1), (uint8_t *)(uintptr_t)res,
						  (uint32_t)len, flags);
}

static uint64_t hooks_store_hdr_opt(uint64_t r1, uint64_t from, uint64_t len, uint64_t flags,
				    uint64_t r5, struct bpfvm_run *run)
{
	(void)r5, (void)run;
	return (uint64_t)(int64_t)hk_store_hdr_opt(hk_ctx(r1), (const uint8_t *)(uintptr_t)from,
						   (uint32_t)len, flags);
}

static uint64_t hooks_reserve_hdr_opt(uint64_t r1, uint64_t len, uint64_t flags, uint64_t r4,
				      uint64_t r5, struct bpfvm_run *run)
{
	(void)r4, (void)r5, (void)run;
	return (uint64_t)(int64_t)hk_reserve_hdr_opt(hk_ctx(r1), (uint32_t)len, flags);
}

/* load_hdr_opt reads the search (kind, length, magic) from its buffer and
 * writes the option found over it: read and write (the kernel's MEM_WRITE);
 * store only reads; store and reserve act in their one op (bit = op number,
 * hooks_type.c's ctx_op). */
static const struct bpfvm_helper hooks_hdr_opt_helpers[] = {
    {.id = 142,
     .name = "load_hdr_opt",
     .fn = hooks_load_hdr_opt,
     .args = {BPFVM_A(CTX), BPFVM_A_MEM(WRITE, 3), BPFVM_A_SIZE(2), BPFVM_A(ANYTHING)},
     BPFVM_RET_ANY},
    {.id = 143,
     .name = "store_hdr_opt",
     .fn = hooks_store_hdr_opt,
     .args = {BPFVM_A(CTX), BPFVM_A_MEM(READ, 3), BPFVM_A_SIZE(2), BPFVM_A(ANYTHING)},
     BPFVM_RET_ANY,
     .ops = 1ull << HOOKS_OP_WRITE_HDR_OPT_CB},
    {.id = 144,
     .name = "reserve_hdr_opt",
     .fn = hooks_reserve_hdr_opt,
     .args = {BPFVM_A(CTX), BPFVM_A(ANYTHING), BPFVM_A(ANYTHING)},
     BPFVM_RET_ANY,
     .ops = 1ull << HOOKS_OP_HDR_OPT_LEN_CB},
};

const struct bpfvm_helper *hooks_hdr_opt_helper(uint32_t id)
{
	for (size_t i = 0; i < sizeof(hooks_hdr_opt_helpers) / sizeof(hooks_hdr_opt_helpers[0]);
	     i++)
		if (hooks_hdr_opt_helpers[i].id == id)
			return &hooks_hdr_opt_helpers[i];
	return NULL;
}
