/* JIT internals: the x86-64 encoders (jit_x86_emit.c), image memory
 * (jit_mem.c) and the runtime entry points JIT code calls (jit_runtime.c).
 * Read the Intel SDM vol. 2 (instruction formats, REX, ModRM/SIB) first.
 * Never included outside bpfvm/jit/ and its unit tests. */
#ifndef SKOPS_BPFVM_JIT_INT_H
#define SKOPS_BPFVM_JIT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfvm_int.h"

/* x86-64 register numbers as encoded in ModRM/REX. */
enum {
	JIT_RAX = 0,
	JIT_RCX = 1,
	JIT_RDX = 2,
	JIT_RBX = 3,
	JIT_RSP = 4,
	JIT_RBP = 5,
	JIT_RSI = 6,
	JIT_RDI = 7,
	JIT_R8 = 8,
	JIT_R9 = 9,
	JIT_R10 = 10,
	JIT_R11 = 11,
	JIT_R12 = 12,
	JIT_R13 = 13,
	JIT_R14 = 14,
	JIT_R15 = 15,
};

/* Condition codes (the low nibble of Jcc). */
enum {
	JIT_CC_B = 0x2,
	JIT_CC_AE = 0x3,
	JIT_CC_E = 0x4,
	JIT_CC_NE = 0x5,
	JIT_CC_BE = 0x6,
	JIT_CC_A = 0x7,
	JIT_CC_L = 0xc,
	JIT_CC_GE = 0xd,
	JIT_CC_LE = 0xe,
	JIT_CC_G = 0xf,
	JIT_CC_ALWAYS = -1,
};

/* ModRM reg-field extensions of the group opcodes (81/83, C1/D3, F7, FF). */
enum {
	JIT_X_ADD = 0,
	JIT_X_OR = 1,
	JIT_X_AND = 4,
	JIT_X_SUB = 5,
	JIT_X_XOR = 6,
	JIT_X_CMP = 7,
	JIT_X_SHL = 4,
	JIT_X_SHR = 5,
	JIT_X_SAR = 7,
	JIT_X_NEG = 3,
	JIT_X_DIV = 6,
	JIT_X_IDIV = 7,
	JIT_X_INC = 0,
	JIT_X_DEC = 1,
};

/* Two-operand ALU opcodes in the "op r/m, reg" direction. */
enum {
	JIT_OP_ADD = 0x01,
	JIT_OP_OR = 0x09,
	JIT_OP_AND = 0x21,
	JIT_OP_SUB = 0x29,
	JIT_OP_XOR = 0x31,
	JIT_OP_CMP = 0x39,
	JIT_OP_TEST = 0x85,
	JIT_OP_MOV = 0x89,
};

/* An output buffer whose encoders become no-ops once err is set (out of
 * space): the translator checks err once at the end of a pass. */
struct jit_buf {
	uint8_t *p;
	size_t cap;
	size_t len;
	int err;
};

void jit_emit1(struct jit_buf *b, uint8_t v);
void jit_emit4(struct jit_buf *b, uint32_t v);
void jit_emit8(struct jit_buf *b, uint64_t v);
/* Patch a rel8 emitted at pos to reach the current end (local forward jumps). */
void jit_patch_rel8(struct jit_buf *b, size_t pos);

void jit_alu_rr(struct jit_buf *b, bool w, uint8_t op, int dst, int src);
void jit_alu_ri(struct jit_buf *b, bool w, int ext, int dst, int32_t imm);
void jit_mov_rr(struct jit_buf *b, bool w, int dst, int src);
/* dst = imm: w sign-extends to 64 bits, !w zero-extends the 32-bit value. */
void jit_mov_ri(struct jit_buf *b, bool w, int dst, int32_t imm);
void jit_mov_ri64(struct jit_buf *b, int dst, uint64_t imm);
void jit_test_ri(struct jit_buf *b, bool w, int dst, int32_t imm);
void jit_imul_rr(struct jit_buf *b, bool w, int dst, int src);
void jit_imul_ri(struct jit_buf *b, bool w, int dst, int32_t imm);
void jit_grp3(struct jit_buf *b, bool w, int ext, int rm); /* F7 /ext: neg, div, idiv */
void jit_shift_ri(struct jit_buf *b, bool w, int ext, int dst, uint8_t count);
void jit_shift_cl(struct jit_buf *b, bool w, int ext, int dst);
void jit_cqo(struct jit_buf *b, bool w); /* cqo / cdq */
void jit_bswap(struct jit_buf *b, bool w, int r);
void jit_rol16_8(struct jit_buf *b, int r);
void jit_movzx_rr(struct jit_buf *b, int dst, int src, int size);	  /* size 1, 2 */
void jit_movsx_rr(struct jit_buf *b, bool w, int dst, int src, int size); /* 1, 2, 4 */
void jit_load(struct jit_buf *b, int size, bool sx, int dst, int base, int32_t disp);
void jit_store_r(struct jit_buf *b, int size, int base, int32_t disp, int src);
void jit_store_i(struct jit_buf *b, int size, int base, int32_t disp, int32_t imm);
void jit_lea(struct jit_buf *b, int dst, int base, int32_t disp);
/* Memory-operand group ops: 83 /ext imm8 (w) and FF /ext (inc/dec). */
void jit_mem_alu_i8(struct jit_buf *b, int ext, int base, int32_t disp, int8_t imm);
void jit_mem_incdec(struct jit_buf *b, int ext, int base, int32_t disp);
void jit_mem_cmp_i8(struct jit_buf *b, int base, int32_t disp, int8_t imm);
/* lock-prefixed (or implicitly locked) read-modify-write: op is one of
 * JIT_OP_ADD/OR/AND/XOR, or 0xC1 (xadd), 0x87 (xchg), 0xB1 (cmpxchg). */
void jit_atomic(struct jit_buf *b, int size, uint8_t op, int reg, int base, int32_t disp);
void jit_push(struct jit_buf *b, int r);
void jit_pop(struct jit_buf *b, int r);
void jit_ret(struct jit_buf *b);
void jit_call_r(struct jit_buf *b, int r);
/* A jump (cc JIT_CC_ALWAYS: jmp) placed at image offset from (estimated) to
 * offset to: the short form when the rel8 reaches, else rel32. force_near
 * always emits rel32 (the sizes of the first pass). */
void jit_jump(struct jit_buf *b, int cc, int64_t from, int64_t to, bool force_near);
/* call rel32 placed at from to to. */
void jit_call_rel(struct jit_buf *b, int64_t from, int64_t to, bool force_near);
/* Short jcc with a placeholder displacement; returns its position for
 * jit_patch_rel8. */
size_t jit_jcc8_fwd(struct jit_buf *b, int cc);

/* ---- translator state (jit_x86.c drives; jit_x86_insn.c translates) ---- */

/* One BPF function (main or a subprogram/callback): insns [pc, end). */
struct jit_func {
	uint32_t pc, end;
	uint16_t saves; /* bit per x86 register pushed by the prologue */
	bool stack;	/* R10 referenced: a 512-byte frame */
	uint32_t frame; /* bytes subtracted from rsp after the pushes */
};

/* Label space: insn starts [0, n), then function starts, function
 * epilogues, the abort stub and the callback thunk. */
struct jit_state {
	struct bpfvm_prog *prog;
	struct bpfvm_log *log;
	struct jit_buf b;
	size_t n;
	struct jit_func *funcs;
	size_t nfuncs;
	uint32_t *cur, *prev; /* label offsets of this and the previous pass */
	size_t nlabels;
	bool have_prev;
	bool full;		  /* r12 = run: helpers, calls, tail calls, callbacks or budget */
	bool budget;		  /* back-edges or callbacks (bpfvm_prog_budgeted): entry frame */
	bool has_cb;		  /* PSEUDO_FUNC: thunk + bpfvm_run.call */
	uintptr_t base, base_end; /* the image mapping: direct helper calls */
	bool blind;		  /* constant blinding (load option jit_blind), jit_blind.c */
	uint64_t blind_key;
	uint32_t anchor_cur, anchor_prev;
	char why[96]; /* first translation failure */
	uint32_t why_pc;
};

static inline size_t jit_lbl_fstart(const struct jit_state *st, size_t f)
{
	return st->n + f;
}
static inline size_t jit_lbl_fepi(const struct jit_state *st, size_t f)
{
	return st->n + st->nfuncs + f;
}
static inline size_t jit_lbl_abort(const struct jit_state *st)
{
	return st->n + 2 * st->nfuncs;
}
static inline size_t jit_lbl_cb(const struct jit_state *st)
{
	return st->n + 2 * st->nfuncs + 1;
}

/* Mark a label at the current output position (also the anchor from which
 * jump displacements are estimated with the previous pass's offsets). */
void jit_label(struct jit_state *st, size_t lbl);
void jit_jump_lbl(struct jit_state *st, int cc, size_t lbl);
void jit_call_lbl(struct jit_state *st, size_t lbl);
void jit_prologue(struct jit_state *st, size_t f);
void jit_epilogue(struct jit_state *st, size_t f);
void jit_cb_thunk(struct jit_state *st);
void jit_abort_stub(struct jit_state *st);
/* BPF register index standing for r10 in rewritten insns (blinding). */
#define JIT_BREG_SCRATCH 11
/* Constant blinding: when in carries an attacker-chosen immediate, emit its
 * value into r10 without the immediate appearing in the image and return the
 * equivalent register-form insn in *out (true); false leaves in as it is.
 * ld_imm64 is emitted completely (*done set). */
bool jit_blind(struct jit_state *st, const struct bpfvm_insn *in, struct bpfvm_insn *out,
	       bool *done);

/* Translate insn pc of function f; returns the insns consumed (1, or 2 for
 * ld_imm64), 0 with st->why set when the insn cannot be translated. */
int jit_insn(struct jit_state *st, size_t f, uint32_t pc);

/* ---- image memory (jit_mem.c) ------------------------------------------ */

/* Largest image accepted: programs are at most BPFVM_MAX_INSNS insns, but a
 * JIT image beyond this is refused and the program stays interpreted. */
#define JIT_MAX_IMAGE (64u << 20)

/* Map len bytes RW, copy code in, flip to RX (never writable and executable
 * at once). 0 and *out, *size set, or -E2BIG/-ENOMEM/-errno of mprotect. */
int jit_mem_install(const void *code, size_t len, void **out, size_t *size);
/* The two halves of install, for code that must know its final address
 * while it is generated: at least len RW bytes at *out (a cache-line offset
 * into a fresh mapping, which ends at *out + *size), then unmap the pages
 * past used and flip the mapping to RX (*size updated). */
int jit_mem_reserve(size_t len, void **out, size_t *size);
int jit_mem_seal(void *image, size_t *size, size_t used);
void jit_mem_free(void *image, size_t size);

/* ---- runtime (jit_runtime.c) ------------------------------------------- */

/* Per-image metadata after the code (8-byte aligned at jit_len): function
 * entries for bpfvm_run.call and the callback thunk, then the code offset of
 * every insn (uint32_t[ninsns], for dumps). Read-only with the image. */
#define JIT_META_MAGIC 0x4a495478u /* "xTIJ" */
struct jit_func_ent {
	uint32_t pc;
	uint32_t off;
};
struct jit_meta {
	uint32_t magic;
	uint32_t nfuncs;
	uint32_t cb_off; /* callback thunk, 0 when the program has no callbacks */
	uint32_t ninsns;
	struct jit_func_ent funcs[];
};

/* The run state fields JIT code reaches through r12 (which holds the
 * struct bpfvm_run of every program that is not a leaf). */
#define JIT_RUN_BUDGET ((int32_t)offsetof(struct bpfvm_run, budget))
#define JIT_RUN_SP     ((int32_t)offsetof(struct bpfvm_run, jit_sp))
#define JIT_RUN_DEPTH  ((int32_t)offsetof(struct bpfvm_run, jit_depth))

/* Tail call from JIT code: the helper ABI with r0 in the fourth argument.
 * Returns the program result in r0 and taken != 0 when a target ran. */
struct jit_tail_ret {
	uint64_t r0;
	uint64_t taken;
};
struct jit_tail_ret jit_tail_call(void *ctx, uint64_t map, uint64_t index, uint64_t r0, uint64_t r5,
				  struct bpfvm_run *run);
const struct jit_meta *jit_meta_of(const struct bpfvm_prog *prog);
/* bpfvm_run.call of JIT programs: run callback pc of run->prog. */
uint64_t jit_run_call(struct bpfvm_run *run, uint32_t pc, uint64_t r1, uint64_t r2, uint64_t r3,
		      uint64_t r4);

#endif
