/* x86-64 JIT driver: structural checks, function discovery, the multi-pass
 * layout (like the Linux x86 JIT: every pass reuses the previous pass's
 * offsets, jumps only shrink from rel32 to rel8, stop when nothing moves),
 * then the W^X install. Any failure leaves the program interpreted with a
 * logged "jit: insn N: reason"; no image is ever half-built. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "jit_int.h"

#define JIT_MAX_PASSES 20
#define JIT_INSN_BYTES 96 /* upper bound of one insn's code (blinded div: ~70) */

static const uint16_t bpf_callee_saved[5] = {
    1u << JIT_RBX, 1u << JIT_R13, 1u << JIT_R14, 1u << JIT_R15, 1u << JIT_RBP,
};

static bool is_jump(const struct bpfvm_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

/* The register fields an insn uses name R0..R10 (ld_imm64 checked apart). */
static bool regs_ok(const struct bpfvm_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool jmp = cls == BPF_JMP || cls == BPF_JMP32;
	bool dst_used = !(jmp && (op == BPF_JA || op == BPF_CALL || op == BPF_EXIT));
	bool src_used = cls == BPF_LDX || cls == BPF_STX ||
			((cls == BPF_ALU || cls == BPF_ALU64 || jmp) &&
			 BPF_SRC(in->code) == BPF_X && op != BPF_END);
	return (!dst_used || in->dst <= 10) && (!src_used || in->src <= 10);
}

static int reject(struct bpfvm_log *log, size_t pc, const char *why, int err)
{
	bpfvm_log_printf(log, "jit: insn %zu: %s, using the interpreter\n", pc, why);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Structure the translator relies on (a verified program always has it; an
 * unverified one without it stays on the interpreter): jumps land on insns
 * of their own function, no flow falls into the next function or off the
 * end, every ld_imm64 has its second slot. */
static int analyse(struct jit_state *st)
{
	const struct bpfvm_insn *in = st->prog->insns;
	size_t n = st->n;
	uint32_t *entries = calloc(n + 1, sizeof(*entries));
	bool *second = calloc(n, sizeof(*second));
	st->is_target = calloc(n, 1);
	int err = -ENOMEM;
	if (!entries || !second || !st->is_target)
		goto out;
	size_t ne = 0;
	entries[ne++] = 0;
	bool backedge = false, calls = false;
	err = -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (second[i])
			continue;
		if (bpfvm_insn_is_ldimm64(&in[i])) {
			if (i + 1 >= n || in[i + 1].code != 0 || in[i].dst > 10) {
				err = reject(st->log, i, "truncated ld_imm64", -EINVAL);
				goto out;
			}
			second[i + 1] = true;
			uint8_t s = in[i].src;
			if (s != 0 && s != BPF_PSEUDO_MAP_FD && s != BPF_PSEUDO_MAP_VALUE &&
			    s != BPF_PSEUDO_FUNC) {
				err =
				    reject(st->log, i, "unsupported ld_imm64 source", -EOPNOTSUPP);
				goto out;
			}
			if (s == BPF_PSEUDO_FUNC) {
				uint64_t v = (uint64_t)(uint32_t)in[i].imm |
					     (uint64_t)(uint32_t)in[i + 1].imm << 32;
				if (v >= n) {
					err = reject(st->log, i, "callback out of range", -EINVAL);
					goto out;
				}
				entries[ne++] = (uint32_t)v;
				st->has_cb = true;
			}
			continue;
		}
		uint8_t cls = BPF_CLASS(in[i].code), op = BPF_OP(in[i].code);
		if (!regs_ok(&in[i])) {
			err = reject(st->log, i, "register number out of range", -EINVAL);
			goto out;
		}
		if (cls == BPF_JMP && op == BPF_CALL) {
			calls = true;
			if (in[i].src == BPF_PSEUDO_CALL) {
				int64_t t = (int64_t)i + 1 + in[i].imm;
				if (t < 0 || t >= (int64_t)n) {
					err = reject(st->log, i, "call out of range", -EINVAL);
					goto out;
				}
				if (ne > n) {
					err = reject(st->log, i, "too many functions", -E2BIG);
					goto out;
				}
				entries[ne++] = (uint32_t)t;
			}
		}
		if (is_jump(&in[i])) {
			int64_t rel = (cls == BPF_JMP32 && op == BPF_JA) ? in[i].imm : in[i].off;
			int64_t t = (int64_t)i + 1 + rel;
			if (t < 0 || t >= (int64_t)n) {
				err = reject(st->log, i, "jump out of range", -EINVAL);
				goto out;
			}
			if (t <= (int64_t)i)
				backedge = true;
			st->is_target[t] = 1;
		}
	}
	/* dedupe the entries; ne may exceed n only through duplicates */
	qsort(entries, ne, sizeof(*entries), cmp_u32);
	size_t nf = 0;
	for (size_t i = 0; i < ne; i++)
		if (nf == 0 || entries[nf - 1] != entries[i])
			entries[nf++] = entries[i];
	st->funcs = calloc(nf, sizeof(*st->funcs));
	err = -ENOMEM;
	if (!st->funcs)
		goto out;
	st->nfuncs = nf;
	err = -EINVAL;
	for (size_t f = 0; f < nf; f++) {
		struct jit_func *fn = &st->funcs[f];
		fn->pc = entries[f];
		fn->end = f + 1 < nf ? entries[f + 1] : (uint32_t)n;
		if (second[fn->pc]) {
			err = reject(st->log, fn->pc, "function starts inside ld_imm64", -EINVAL);
			goto out;
		}
		uint32_t last = fn->end - 1;
		if (second[last])
			last--;
		if (!bpfvm_insn_ends_flow(&in[last])) {
			err = reject(st->log, last, "falls through past its function", -EINVAL);
			goto out;
		}
		for (uint32_t i = fn->pc; i < fn->end; i++) {
			if (second[i])
				continue;
			for (int r = 6; r <= 10; r++)
				if (in[i].dst == r || in[i].src == r)
					fn->saves |= bpf_callee_saved[r - 6];
			if (in[i].dst == 10 || in[i].src == 10)
				fn->stack = true;
			if (is_jump(&in[i])) {
				bool j32a = BPF_CLASS(in[i].code) == BPF_JMP32 &&
					    BPF_OP(in[i].code) == BPF_JA;
				int64_t t = (int64_t)i + 1 + (j32a ? in[i].imm : in[i].off);
				if (t < fn->pc || t >= fn->end || second[t]) {
					err =
					    reject(st->log, i,
						   "jump leaves its function or lands in ld_imm64",
						   -EINVAL);
					goto out;
				}
			}
		}
		int npush = __builtin_popcount(fn->saves);
		fn->frame = (fn->stack ? BPFVM_STACK_SIZE : 0) + (npush % 2 == 0 ? 8 : 0);
	}
	st->budget = st->prog->no_verify && (backedge || nf > 1);
	st->full = calls || st->has_cb || st->budget;
	if (st->full && !st->budget) {
		/* main keeps the run state in r12 (callee-saved in C) */
		struct jit_func *m = &st->funcs[0];
		m->saves |= 1u << JIT_R12;
		int npush = __builtin_popcount(m->saves);
		m->frame = (m->stack ? BPFVM_STACK_SIZE : 0) + (npush % 2 == 0 ? 8 : 0);
	}
	err = 0;
out:
	free(entries);
	free(second);
	return err;
}

static int emit_pass(struct jit_state *st)
{
	st->b.len = 0;
	st->b.err = 0;
	for (size_t f = 0; f < st->nfuncs; f++) {
		const struct jit_func *fn = &st->funcs[f];
		jit_label(st, jit_lbl_fstart(st, f));
		jit_prologue(st, f);
		for (uint32_t pc = fn->pc; pc < fn->end;) {
			jit_label(st, pc);
			int k = jit_insn(st, f, pc);
			if (k == 0)
				return -EOPNOTSUPP;
			if (k == 2)
				st->cur[pc + 1] = (uint32_t)st->b.len;
			pc += (uint32_t)k;
		}
		jit_label(st, jit_lbl_fepi(st, f));
		if (f != 0 || st->full)
			jit_epilogue(st, f);
		if (f == 0) {
			jit_label(st, jit_lbl_abort(st));
			if (st->budget) {
				jit_alu_rr(&st->b, false, JIT_OP_XOR, JIT_RAX, JIT_RAX);
				jit_jump_lbl(st, JIT_CC_ALWAYS, jit_lbl_fepi(st, 0));
			}
		}
	}
	jit_label(st, jit_lbl_cb(st));
	if (st->has_cb)
		jit_cb_thunk(st);
	return st->b.err;
}

static size_t meta_size(const struct jit_state *st)
{
	return 8 + sizeof(struct jit_meta) + st->nfuncs * sizeof(struct jit_func_ent) +
	       st->n * sizeof(uint32_t);
}

/* Code, then (8-byte aligned) the metadata jit_runtime.c reads, into the
 * reserved RW mapping; then RX. */
static int install(struct jit_state *st, void *image, size_t *size)
{
	size_t code = st->b.len, moff = (code + 7) & ~(size_t)7;
	size_t total = moff + meta_size(st) - 8;
	if (total > *size)
		return -E2BIG;
	uint8_t *img = image;
	memcpy(img, st->b.p, code);
	memset(img + code, 0xcc, moff - code);
	struct jit_meta *m = (struct jit_meta *)(img + moff);
	m->magic = JIT_META_MAGIC;
	m->nfuncs = (uint32_t)st->nfuncs;
	m->cb_off = st->has_cb ? st->cur[jit_lbl_cb(st)] : 0;
	m->ninsns = (uint32_t)st->n;
	for (size_t f = 0; f < st->nfuncs; f++) {
		m->funcs[f].pc = st->funcs[f].pc;
		m->funcs[f].off = st->cur[jit_lbl_fstart(st, f)];
	}
	memcpy(&m->funcs[st->nfuncs], st->cur, st->n * sizeof(uint32_t));
	int err = jit_mem_seal(image, size, total);
	if (err)
		return err;
	st->prog->jit_image = image;
	st->prog->jit_size = *size;
	st->prog->jit_len = code;
	st->prog->jit_fn = (bpfvm_jit_fn)image;
	st->prog->jit_leaf = !st->full;
	return 0;
}

int bpfvm_jit_compile(struct bpfvm_prog *prog, bool blind, struct bpfvm_log *log)
{
	struct jit_state st = {.prog = prog, .log = log, .n = prog->ninsns};
	void *image = NULL;
	size_t image_size = 0;
	if (prog->jit_image)
		return -EEXIST;
	if (st.n == 0 || !prog->insns)
		return reject(log, 0, "empty program", -EINVAL);
	if (st.n > JIT_MAX_IMAGE / JIT_INSN_BYTES)
		return reject(log, 0, "program too large to JIT", -E2BIG);
	if (blind) { /* jit_blind.c */
		if (getrandom(&st.blind_key, sizeof st.blind_key, 0) != sizeof st.blind_key)
			return reject(log, 0, "no randomness for constant blinding", -EAGAIN);
		st.blind_key |= 0x80000001u; /* never 0, never an imm8 */
		st.blind = true;
	}
	int err = analyse(&st);
	if (err)
		goto out;
	st.nlabels = st.n + 2 * st.nfuncs + 2;
	st.cur = calloc(st.nlabels, sizeof(*st.cur));
	st.prev = calloc(st.nlabels, sizeof(*st.prev));
	st.b.cap = st.n * JIT_INSN_BYTES + st.nfuncs * 128 + 256;
	st.b.p = malloc(st.b.cap);
	err = -ENOMEM;
	if (!st.cur || !st.prev || !st.b.p) {
		reject(log, 0, "out of memory", err);
		goto out;
	}
	/* the final address first, so helper calls can be direct */
	err = jit_mem_reserve(st.b.cap + meta_size(&st), &image, &image_size);
	if (err) {
		reject(log, 0, "cannot map an image", err);
		goto out;
	}
	st.base = (uintptr_t)image;
	st.base_end = st.base + image_size;
	size_t prev_len = 0;
	int pass;
	for (pass = 0; pass < JIT_MAX_PASSES; pass++) {
		err = emit_pass(&st);
		if (err == -EOPNOTSUPP) {
			reject(log, st.why_pc, st.why, err);
			goto out;
		}
		if (err) {
			reject(log, 0, err == -E2BIG ? "image too large" : "encoding failed", err);
			goto out;
		}
		if (st.have_prev && st.b.len == prev_len &&
		    memcmp(st.cur, st.prev, st.nlabels * sizeof(*st.cur)) == 0)
			break;
		uint32_t *t = st.prev;
		st.prev = st.cur;
		st.cur = t;
		st.have_prev = true;
		prev_len = st.b.len;
	}
	if (pass == JIT_MAX_PASSES) {
		err = reject(log, 0, "jump layout did not converge", -ELOOP);
		goto out;
	}
	err = install(&st, image, &image_size);
	if (err) {
		reject(log, 0, "cannot map the image W^X", err);
		goto out;
	}
	image = NULL; /* the program owns it now */
	if (log && log->level >= 2)
		bpfvm_log_printf(log, "jit: %zu insns -> %zu bytes in %d passes\n", st.n,
				 prog->jit_len, pass + 1);
out:
	jit_mem_free(image, image_size);
	free(st.is_target);
	free(st.funcs);
	free(st.cur);
	free(st.prev);
	free(st.b.p);
	return err;
}

void bpfvm_jit_free(struct bpfvm_prog *prog)
{
	jit_mem_free(prog->jit_image, prog->jit_size);
	prog->jit_image = NULL;
	prog->jit_size = 0;
	prog->jit_len = 0;
	prog->jit_leaf = false;
	prog->jit_fn = NULL;
}
