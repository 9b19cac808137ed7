/* bpfvm internals shared by the loader, verifier, interpreter and JIT. Never
 * included outside bpfvm/ (and its unit tests). */
#ifndef SKOPS_BPFVM_BPFVM_INT_H
#define SKOPS_BPFVM_BPFVM_INT_H

#include <stdatomic.h>

#include "bpfvm.h"

/* ---- ISA encoding (RFC 9669 §3..5), same values as linux/bpf.h --------- */
#define BPF_CLASS(c) ((c)&0x07)
#define BPF_LD	     0x00
#define BPF_LDX	     0x01
#define BPF_ST	     0x02
#define BPF_STX	     0x03
#define BPF_ALU	     0x04
#define BPF_JMP	     0x05
#define BPF_JMP32    0x06
#define BPF_ALU64    0x07
#define BPF_SIZE(c)  ((c)&0x18)
#define BPF_W	     0x00
#define BPF_H	     0x08
#define BPF_B	     0x10
#define BPF_DW	     0x18
#define BPF_MODE(c)  ((c)&0xe0)
#define BPF_IMM	     0x00
#define BPF_ABS	     0x20
#define BPF_IND	     0x40
#define BPF_MEM	     0x60
#define BPF_MEMSX    0x80
#define BPF_ATOMIC   0xc0
#define BPF_OP(c)    ((c)&0xf0)
#define BPF_SRC(c)   ((c)&0x08)
#define BPF_K	     0x00
#define BPF_X	     0x08
#define BPF_ADD	     0x00
#define BPF_SUB	     0x10
#define BPF_MUL	     0x20
#define BPF_DIV	     0x30
#define BPF_OR	     0x40
#define BPF_AND	     0x50
#define BPF_LSH	     0x60
#define BPF_RSH	     0x70
#define BPF_NEG	     0x80
#define BPF_MOD	     0x90
#define BPF_XOR	     0xa0
#define BPF_MOV	     0xb0
#define BPF_ARSH     0xc0
#define BPF_END	     0xd0
#define BPF_TO_LE    0x00
#define BPF_TO_BE    0x08
#define BPF_JA	     0x00
#define BPF_JEQ	     0x10
#define BPF_JGT	     0x20
#define BPF_JGE	     0x30
#define BPF_JSET     0x40
#define BPF_JNE	     0x50
#define BPF_JSGT     0x60
#define BPF_JSGE     0x70
#define BPF_CALL     0x80
#define BPF_EXIT     0x90
#define BPF_JLT	     0xa0
#define BPF_JLE	     0xb0
#define BPF_JSLT     0xc0
#define BPF_JSLE     0xd0
#define BPF_FETCH    0x01
#define BPF_XCHG     (0xe0 | BPF_FETCH)
#define BPF_CMPXCHG  (0xf0 | BPF_FETCH)

#define BPF_PSEUDO_MAP_FD     1
#define BPF_PSEUDO_MAP_VALUE  2
#define BPF_PSEUDO_CALL	      1 /* call src: bpf-to-bpf, imm = relative insn offset */
#define BPF_PSEUDO_KFUNC_CALL 2 /* call src: a kfunc, imm = the type's kfunc id */
#define BPF_PSEUDO_FUNC	      4 /* ld_imm64 src: callback, see below */

/* ---- instruction predicates: the one definition every pass uses -------- */

static inline bool bpfvm_insn_is_ldimm64(const struct bpfvm_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* Bytes a load/store of this opcode moves. */
static inline int bpfvm_insn_size(uint8_t code)
{
	static const int8_t bytes[4] = {
	    [BPF_W >> 3] = 4, [BPF_H >> 3] = 2, [BPF_B >> 3] = 1, [BPF_DW >> 3] = 8};
	return bytes[BPF_SIZE(code) >> 3];
}

/* RFC 9669 §5.3: the imm values an atomic operation may carry. */
static inline bool bpfvm_atomic_op_valid(int32_t imm)
{
	switch (imm) {
	case BPF_ADD:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
	case BPF_ADD | BPF_FETCH:
	case BPF_OR | BPF_FETCH:
	case BPF_AND | BPF_FETCH:
	case BPF_XOR | BPF_FETCH:
	case BPF_XCHG:
	case BPF_CMPXCHG:
		return true;
	default:
		return false;
	}
}

/* Control never continues to the next insn (the kernel's check_cfg rule
 * that a function's last insn must satisfy). */
static inline bool bpfvm_insn_ends_flow(const struct bpfvm_insn *in)
{
	return in->code == (BPF_JMP | BPF_EXIT) || in->code == (BPF_JMP | BPF_JA) ||
	       in->code == (BPF_JMP32 | BPF_JA);
}

/* Offset of a jump (not call/exit): RFC 9669 §4.3, JMP32 JA (gotol) takes
 * its offset from imm. */
static inline int64_t bpfvm_insn_jump_off(const struct bpfvm_insn *in)
{
	bool gotol = in->code == (BPF_JMP32 | BPF_JA);
	return gotol ? in->imm : in->off;
}

/* A conditional or unconditional jump (BPF_JMP/JMP32 other than call, exit). */
static inline bool bpfvm_insn_is_jump(const struct bpfvm_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

#define BPFVM_REG_FP 10 /* R10, the read-only frame pointer */

/* Why an instruction was refused: the insn and a reason without a prefix;
 * each caller logs it under its own name ("prog: insn 3: ..."). */
struct bpfvm_insn_err {
	size_t pc;
	char why[96];
};

/* The encoding check (insn_check.c), run by the loader on every program and
 * by the verifier on programs it is handed directly: 0, or -EINVAL with *e
 * naming the first bad insn, -ENOMEM. Callback addresses (ld_imm64
 * BPF_PSEUDO_FUNC) are checked by whoever resolves them. */
int bpfvm_insns_check(const struct bpfvm_insn *insns, size_t n, struct bpfvm_insn_err *e);

#define BPF_HELPER_TAIL_CALL 12
#define BPF_HELPER_LOOP	     181

/* ---- BTF (btf.c) -------------------------------------------------------- */

/* BTF kinds (Linux's BTF_KIND_*). */
enum {
	BPFVM_BTF_K_INT = 1,
	BPFVM_BTF_K_PTR,
	BPFVM_BTF_K_ARRAY,
	BPFVM_BTF_K_STRUCT,
	BPFVM_BTF_K_UNION,
	BPFVM_BTF_K_ENUM,
	BPFVM_BTF_K_FWD,
	BPFVM_BTF_K_TYPEDEF,
	BPFVM_BTF_K_VOLATILE,
	BPFVM_BTF_K_CONST,
	BPFVM_BTF_K_RESTRICT,
	BPFVM_BTF_K_FUNC,
	BPFVM_BTF_K_FUNC_PROTO,
	BPFVM_BTF_K_VAR,
	BPFVM_BTF_K_DATASEC,
	BPFVM_BTF_K_FLOAT,
	BPFVM_BTF_K_DECL_TAG,
	BPFVM_BTF_K_TYPE_TAG,
	BPFVM_BTF_K_ENUM64,
};

/* A parsed BTF blob; borrows the bytes it was parsed from. */
struct bpfvm_btf {
	const uint8_t *types;
	size_t types_len;
	const char *strs;
	size_t strs_len;
	uint32_t ntypes; /* ids 1..ntypes valid */
	uint32_t *offs;	 /* offs[id] = byte offset of type id in types */
};

/* 0, -ENOMEM, or -EINVAL with the reason in why. */
int bpfvm_btf_parse(const uint8_t *data, size_t size, struct bpfvm_btf *btf, char *why, size_t n);
void bpfvm_btf_fini(struct bpfvm_btf *btf);
uint32_t bpfvm_btf_rd32(const uint8_t *p);
uint32_t bpfvm_btf_kind(const uint8_t *t);
uint32_t bpfvm_btf_vlen(const uint8_t *t);
bool bpfvm_btf_kflag(const uint8_t *t);
const char *bpfvm_btf_str(const struct bpfvm_btf *btf, uint32_t off); /* NULL if bad */
const char *bpfvm_btf_name(const struct bpfvm_btf *btf, const uint8_t *t);
/* Type record of id (12-byte header, kind data after), NULL if id is bad. */
const uint8_t *bpfvm_btf_type(const struct bpfvm_btf *btf, uint32_t id);
/* Follow typedef/const/volatile/restrict/type_tag; *out_id (may be NULL) gets
 * the id reached. NULL on a bad id or a chain too long. */
const uint8_t *bpfvm_btf_skip_mods(const struct bpfvm_btf *btf, uint32_t id, uint32_t *out_id);
int bpfvm_btf_size(const struct bpfvm_btf *btf, uint32_t id, uint64_t *size);
/* 0 when [off, off+size) lies inside one integer or enum member of type id
 * (struct, union, array, through nested ones); *field names the innermost
 * named member on the way. -EINVAL otherwise. */
int bpfvm_btf_scalar_at(const struct bpfvm_btf *btf, uint32_t id, uint64_t off, uint32_t size,
			const char **field);

/* libbpf's poisoned instruction: a CO-RE relocation that could not be
 * resolved becomes `call 0xbad2310`, refused by the verifier only if reached. */
#define BPFVM_CORE_POISON 0xbad2310

/* Why insn pc was poisoned, for the verifier's message. */
struct bpfvm_core_poison {
	size_t pc;
	char why[288];
};

/* bpfvm_prog_load with the insns the loader poisoned (the verifier names
 * the relocation if it reaches one; the rest are dead code). */
int bpfvm_prog_load_core(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
			 struct bpfvm_map *const *maps, size_t nmaps,
			 const struct bpfvm_load_opts *opts, const struct bpfvm_core_poison *poison,
			 size_t npoison, struct bpfvm_prog **out);

/* ---- programs ---------------------------------------------------------- */

/* Per-instruction facts: the structural ones prog_facts.c computes once at
 * load, then the ones the verifier proves; later passes read both. */
struct bpfvm_insn_aux {
	uint32_t subprog;	 /* index of the subprogram holding this insn */
	uint8_t ldimm_hi : 1;	 /* second slot of an ld_imm64 (data, not an insn) */
	uint8_t sub_start : 1;	 /* first insn of a subprogram (0, call or callback target) */
	uint8_t cb_entry : 1;	 /* an ld_imm64 BPF_PSEUDO_FUNC names it */
	uint8_t jump_target : 1; /* some jump lands here */
	int16_t ctx_field;	 /* verifier: ctx access, the type's field index, else -1 */
	uint8_t seen : 1;	 /* verifier: reached by some path */
	uint8_t zext_dst : 1;	 /* verifier: 32-bit result whose upper half the JIT must clear */
	uint8_t map_ptr : 1;	 /* verifier: ld_imm64 of a map (imm pair holds the pointer) */
};

/* Per-program facts (prog_facts.c), shared by the verifier, the JIT and the
 * interpreter as the kernel's JIT reuses the verifier's subprog info. */
struct bpfvm_prog_facts {
	bool built;
	uint32_t nsub;	/* subprograms; aux[].sub_start marks their starts */
	bool calls;	/* some BPF_CALL: helper, tail call or bpf-to-bpf */
	bool backedge;	/* some jump goes backwards */
	bool callbacks; /* some ld_imm64 BPF_PSEUDO_FUNC */
	/* The first flaw a verified program cannot have and an unverified one
	 * may (the interpreter runs it, the JIT refuses it): a jump out of its
	 * subprogram, or a subprogram running into the next. flaw_pc -1: none. */
	int64_t flaw_pc;
	char flaw[96];
};

/* After bpfvm_insns_check and relocation: allocates prog->aux (once; ctx_field
 * -1) and fills it and prog->facts. 0, -ENOMEM, or -EINVAL with *e set for a
 * callback address outside the program. */
int bpfvm_prog_facts_build(struct bpfvm_prog *prog, struct bpfvm_insn_err *e);

typedef uint64_t (*bpfvm_jit_fn)(void *ctx, uint64_t ctx_len, struct bpfvm_run *run);

struct bpfvm_prog {
	_Atomic uint32_t refcnt;
	uint32_t id; /* 0 until registered */
	struct bpfvm_registry *reg;
	const struct bpfvm_prog_type *type;
	char name[BPFVM_OBJ_NAME_LEN];
	uint8_t tag[BPFVM_TAG_SIZE];
	bool strict;
	bool allow_ptr_leaks; /* bpfvm_load_opts.allow_ptr_leaks */

	/* After relocation: ld_imm64 with src BPF_PSEUDO_MAP_FD carries the
	 * struct bpfvm_map pointer in its imm pair (low, high) and keeps src so
	 * passes can tell; BPF_PSEUDO_MAP_VALUE carries the value address + off.
	 * ld_imm64 with src BPF_PSEUDO_FUNC loads the callback's absolute insn
	 * index (pc + imm + 1), which bpfvm_run.call takes. */
	struct bpfvm_insn *insns;
	size_t ninsns;
	struct bpfvm_insn_aux *aux; /* ninsns entries: bpfvm_prog_facts_build
				     * allocates them, the verifier adds its facts */
	struct bpfvm_prog_facts facts;
	struct bpfvm_map **maps; /* referenced maps, one reference each */
	size_t nmaps;
	uint64_t ctx_fields;  /* union of aux[].ctx_field bits */
	uint32_t stack_depth; /* deepest frame use, bytes (verifier) */

	void *jit_image; /* RX mapping, jit_size bytes; NULL when interpreted */
	size_t jit_size;
	size_t jit_len; /* code bytes in the image */
	bpfvm_jit_fn jit_fn;
	bool jit_leaf; /* the image never reads its bpfvm_run: no calls out, no budget */

	uint64_t load_time;
	uint32_t uid;
	_Atomic uint64_t run_cnt, run_time_ns;
	/* Loaded with no_verify (generic type only): engines bound the run with
	 * an instruction budget since nothing proved it terminates. */
	bool no_verify;
	/* Units of work one invocation may spend (bpfvm_load_opts.run_budget or
	 * the registry's default; unverified programs without one: 2^22), and
	 * the invocations that spent it. */
	uint64_t run_budget;
	_Atomic uint64_t budget_stops;
	/* While loading: the insns the loader poisoned (NULL once loaded). */
	const struct bpfvm_core_poison *poison;
	size_t npoison;
};

/* The reason insn pc was poisoned, or NULL if it was not. */
const char *bpfvm_prog_poison(const struct bpfvm_prog *prog, size_t pc);

/* A program whose run the JIT must bound with the run-time budget: one
 * that can repeat work (a backward jump, a callback), or an unverified one
 * that can recurse (its depth is bounded too). Straight-line code is
 * bounded by its length; the interpreter counts every run. */
static inline bool bpfvm_prog_budgeted(const struct bpfvm_prog *prog)
{
	const struct bpfvm_prog_facts *f = &prog->facts;
	return !f->built || f->backedge || f->callbacks || (prog->no_verify && f->nsub > 1);
}

/* Budget of unverified programs whose loader named none: the conformance
 * runner's safety net. */
#define BPFVM_RUN_BUDGET_UNVERIFIED (1ull << 22)

/* registry.c: count one stopped invocation. */
void bpfvm_reg_budget_stop(struct bpfvm_registry *reg);

/* A pc a helper may enter as a callback (bpfvm_run.call): a subprogram start. */
static inline bool bpfvm_prog_is_entry(const struct bpfvm_prog *prog, uint64_t pc)
{
	return pc < prog->ninsns && prog->facts.built && prog->aux[pc].sub_start;
}

/* The verifier (verifier/): 0 when every path is proven safe; fills aux,
 * ctx_fields and stack_depth. -EINVAL/-EACCES/-E2BIG with the log filled. */
int bpfvm_verify(struct bpfvm_prog *prog, struct bpfvm_log *log);

/* The JIT (jit/): 0 and prog->jit_* set, or -errno with a logged reason; the
 * program stays interpretable either way, never half-built. */
int bpfvm_jit_compile(struct bpfvm_prog *prog, bool blind, struct bpfvm_log *log);
void bpfvm_jit_free(struct bpfvm_prog *prog);

/* The interpreter (interp.c). *budget: the units the run may spend in,
 * the units left out; 0 out means the run was stopped (result 0). */
uint64_t bpfvm_interp_run(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
			  uint64_t *budget);

/* Bounds-checked interpreter for the fuzzer and differential tests: every
 * load/store must fall in ctx, the live stack frames or a map value of a map
 * the program uses; otherwise *fault is set, the run stops and 0 is returned. */
struct bpfvm_fault {
	bool hit;
	uint32_t pc;
	uint64_t addr;
	uint32_t size;
};
uint64_t bpfvm_interp_run_checked(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
				  struct bpfvm_fault *fault);

/* Tag (docs/sockops.md §7): SHA-1 over insns with map-reference imms zeroed. */
void bpfvm_prog_tag(const struct bpfvm_insn *insns, size_t n, uint8_t tag[BPFVM_TAG_SIZE]);
/* The same input hashed with SHA-256: the tag Linux 6.18 reports (tag.c). */
void bpfvm_prog_tag_sha256(const struct bpfvm_insn *insns, size_t n, uint8_t tag[BPFVM_TAG_SIZE]);
/* FIPS 180-4 digests (tag.c). */
void bpfvm_sha1(const void *msg, size_t len, uint8_t digest[20]);
void bpfvm_sha256(const void *msg, size_t len, uint8_t digest[32]);

/* ---- memory a running program may still use (run_defer.c) -------------- */

/* The first bytes of a heap block freed with bpfvm_free_deferred, which it
 * overwrites: the block's owner must no longer need them (a list link). */
struct bpfvm_deferred {
	struct bpfvm_deferred *next;
};
/* Every program invocation of a thread runs between these (nested); inline,
 * they sit on every run's path. */
extern _Thread_local unsigned bpfvm_run_depth;
extern _Thread_local bool bpfvm_run_deferred;
void bpfvm_run_reap(void);
static inline void bpfvm_run_enter(void)
{
	bpfvm_run_depth++;
}
static inline void bpfvm_run_exit(void)
{
	if (--bpfvm_run_depth == 0 && bpfvm_run_deferred)
		bpfvm_run_reap();
}
/* free(d) now, or when this thread's outermost invocation ends if one is
 * running: a program that deleted an element may still hold its pointer. */
void bpfvm_free_deferred(struct bpfvm_deferred *d);

/* ---- maps -------------------------------------------------------------- */

struct bpfvm_map_ops {
	int (*alloc)(struct bpfvm_map *map); /* validates def, -EINVAL/-E2BIG/-ENOMEM */
	void (*free)(struct bpfvm_map *map);
	void *(*lookup)(struct bpfvm_map *map, const void *key);
	int (*update)(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags);
	int (*delete)(struct bpfvm_map *map, const void *key);
	int (*get_next_key)(struct bpfvm_map *map, const void *key, void *next_key);
	/* true when [p, p+len) lies inside one value of this map (checked runs) */
	bool (*owns)(const struct bpfvm_map *map, const void *p, size_t len);
};

struct bpfvm_map {
	_Atomic uint32_t refcnt;
	uint32_t id;
	struct bpfvm_registry *reg;
	struct bpfvm_map_def def;
	const struct bpfvm_map_ops *ops;
	void *data;  /* type-private */
	bool frozen; /* no update or delete from anyone any more */
};

bool bpfvm_map_owns(const struct bpfvm_map *map, const void *p, size_t len);
/* An update's copy of value_size bytes into an element: the value's spin lock
 * word is the lock's alone, so it keeps what dst holds (the kernel's
 * copy_map_value); a new element starts with it zeroed. */
void bpfvm_map_copy_value(const struct bpfvm_map *map, void *dst, const void *src);
/* bpfvm implements this map type (enum bpfvm_map_type). */
bool bpfvm_map_type_known(uint32_t type);
/* The loader freezes a .rodata map once it holds the initial bytes (libbpf's
 * BPF_MAP_FREEZE): updates and deletes then fail with -EPERM. */
void bpfvm_map_freeze(struct bpfvm_map *map);
/* Programs may not write the values (BPF_F_RDONLY_PROG). */
bool bpfvm_map_prog_rdonly(const struct bpfvm_map *map);
/* Nothing can change the values any more: read-only to programs and frozen
 * (kernel: bpf_map_is_rdonly); the verifier may trust their contents. */
bool bpfvm_map_is_rdonly(const struct bpfvm_map *map);

/* ringbuf helpers (map_ringbuf.c), kernel semantics: reserve returns NULL when
 * full, for size 0 or flags != 0; submit/discard take reserve's pointer.
 * output and query also accept a PERF_EVENT_ARRAY map, whose records land in
 * the map's own ring (bpf_perf_event_output), drained by bpfvm_ringbuf_consume.
 * output: 0, -EINVAL (flags, size 0, wrong map), -EAGAIN when full. query
 * flags: 0 avail data, 1 ring size, 2 consumer pos, 3 producer pos. */
void *bpfvm_ringbuf_reserve(struct bpfvm_map *map, uint64_t size, uint64_t flags);
void bpfvm_ringbuf_submit(void *rec, uint64_t flags);
void bpfvm_ringbuf_discard(void *rec, uint64_t flags);
/* run_held.c: the ringbuf records a run holds (false: BPFVM_RUN_MAX_RECS
 * already held) and their release, with the lock, by a stopped run. */
bool bpfvm_run_hold_rec(struct bpfvm_run *run, void *rec);
void bpfvm_run_drop_rec(struct bpfvm_run *run, const void *rec);
void bpfvm_run_release(struct bpfvm_run *run);
int bpfvm_ringbuf_output(struct bpfvm_map *map, const void *data, uint64_t size, uint64_t flags);
uint64_t bpfvm_ringbuf_query(struct bpfvm_map *map, uint64_t flags);

/* Tail-call target of a PROG_ARRAY slot, borrowed (the map keeps it alive
 * until the map is freed), or NULL (map_prog_array.c). */
struct bpfvm_prog *bpfvm_prog_array_get(struct bpfvm_map *map, uint32_t index);
/* A loaded program that uses the prog array map: the array takes the
 * program's type (and verified or not) if it has none yet; -EINVAL when it
 * holds programs of another kind. 0 for other maps. */
int bpfvm_prog_array_claim(struct bpfvm_map *map, const struct bpfvm_prog *prog);

/* ---- registry (registry.c) --------------------------------------------- */

int bpfvm_reg_add_prog(struct bpfvm_registry *reg, struct bpfvm_prog *prog);
int bpfvm_reg_add_map(struct bpfvm_registry *reg, struct bpfvm_map *map);
/* Called on the last put; takes the registry lock so get_by_id never sees a
 * dying object. Returns true if the object must now be freed. */
bool bpfvm_reg_release_prog(struct bpfvm_prog *prog);
bool bpfvm_reg_release_map(struct bpfvm_map *map);
/* bpf_trace_printk output: appends one line to the registry's bounded ring
 * (the oldest line is dropped when full); bpfvm_trace_read drains it. */
void bpfvm_trace_write(struct bpfvm_registry *reg, const char *text, size_t len);
/* bpf_get_prandom_u32 state, one per cpu index (seeded at registry create). */
uint32_t bpfvm_reg_prandom(struct bpfvm_registry *reg, unsigned cpu);
/* Tests only: where the next cyclic ID search starts (prog or map space). */
void bpfvm_reg_set_next_id(struct bpfvm_registry *reg, bool map, uint32_t next);

#endif
