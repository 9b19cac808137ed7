/* x86-64 JIT driver: functions from the load's facts, the multi-pass
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

static int reject(struct bpfvm_log *log, size_t pc, const char *why, int err)
{
	bpfvm_log_printf(log, "jit: insn %zu: %s, using the interpreter\n", pc, why);
	return err;
}

/* Functions from the load's facts (prog_facts.c): the translator needs every
 * jump inside its function and no function running into the next, which a
 * verified program always has; an unverified one without it stays on the
 * interpreter. Then what the JIT adds: each function's saves and frame. */
static int analyse(struct jit_state *st)
{
	const struct bpfvm_prog *prog = st->prog;
	const struct bpfvm_insn *in = prog->insns;
	const struct bpfvm_insn_aux *aux = prog->aux;
	size_t n = st->n;
	if (!prog->facts.built)
		return reject(st->log, 0, "program facts missing", -EINVAL);
	if (prog->facts.flaw_pc >= 0)
		return reject(st->log, (size_t)prog->facts.flaw_pc, prog->facts.flaw, -EINVAL);
	st->nfuncs = prog->facts.nsub;
	st->funcs = calloc(st->nfuncs, sizeof(*st->funcs));
	if (!st->funcs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (aux[i].sub_start)
			st->funcs[aux[i].subprog].pc = (uint32_t)i;
	for (size_t f = 0; f < st->nfuncs; f++) {
		struct jit_func *fn = &st->funcs[f];
		fn->end = f + 1 < st->nfuncs ? st->funcs[f + 1].pc : (uint32_t)n;
		for (uint32_t i = fn->pc; i < fn->end; i++) {
			if (aux[i].ldimm_hi)
				continue;
			for (int r = 6; r <= 10; r++)
				if (in[i].dst == r || in[i].src == r)
					fn->saves |= bpf_callee_saved[r - 6];
			if (in[i].dst == 10 || in[i].src == 10)
				fn->stack = true;
		}
		int npush = __builtin_popcount(fn->saves);
		fn->frame = (fn->stack ? BPFVM_STACK_SIZE : 0) + (npush % 2 == 0 ? 8 : 0);
	}
	st->has_cb = prog->facts.callbacks;
	st->budget = bpfvm_prog_budgeted(prog);
	st->full = prog->facts.calls || st->has_cb || st->budget;
	if (st->full && !st->budget) {
		/* main keeps the run state in r12 (callee-saved in C) */
		struct jit_func *m = &st->funcs[0];
		m->saves |= 1u << JIT_R12;
		int npush = __builtin_popcount(m->saves);
		m->frame = (m->stack ? BPFVM_STACK_SIZE : 0) + (npush % 2 == 0 ? 8 : 0);
	}
	return 0;
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
			if (st->budget)
				jit_abort_stub(st);
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
