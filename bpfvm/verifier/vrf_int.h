/* Verifier internals: the env (one per bpfvm_verify), abstract register and
 * stack state, and the passes' entry points. Structure after the kernel's
 * bpf_verifier_env / bpf_verifier_state (include/linux/bpf_verifier.h); code
 * and names are our own. Never included outside bpfvm/verifier/. */
#ifndef SKOPS_BPFVM_VRF_INT_H
#define SKOPS_BPFVM_VRF_INT_H

#include <stdint.h>

#include "bpfvm_int.h"
#include "vrf_tnum.h"

#define VRF_NREGS	 11
#define VRF_FP		 10
#define VRF_SLOTS	 (BPFVM_STACK_SIZE / 8)
#define VRF_MAX_FRAMES	 BPFVM_MAX_CALL_DEPTH
#define VRF_MAX_REFS	 16
#define VRF_MAX_STATES	 4096 /* checkpoints kept for pruning */
#define VRF_MAX_PENDING	 8192 /* queued branches */
#define VRF_MAX_MEM_SIZE (1u << 29)
#define VRF_MAX_TRACE	 4096 /* insns kept per path segment for backtracking */
#define VRF_MEM_RDONLY	 1
/* PTR_MEM into a helper's own frame (for_each_map_elem's key): valid only
 * while the callback frame frameno runs, so never stored below it */
#define VRF_MEM_CB_SCOPED 2

enum vrf_rtype {
	VRF_NOT_INIT = 0,
	VRF_SCALAR,
	VRF_PTR_CTX,
	VRF_PTR_STACK,
	VRF_CONST_MAP,
	VRF_MAP_VALUE,
	VRF_MAP_VALUE_OR_NULL,
	VRF_PTR_PKT,
	VRF_PTR_PKT_END,
	VRF_PTR_SOCK,
	VRF_PTR_SOCK_OR_NULL,
	VRF_PTR_MEM, /* ringbuf record, size in range */
	VRF_PTR_MEM_OR_NULL,
	VRF_PTR_FUNC,	  /* callback address, subprog start in off */
	VRF_PTR_TCP_SOCK, /* struct bpf_tcp_sock view, read-only */
	VRF_PTR_TCP_SOCK_OR_NULL,
	VRF_PTR_BTF, /* kernel-typed object, enum bpfvm_btf_obj in range */
	VRF_PTR_BTF_OR_NULL,
	VRF_NTYPES
};

/* One register. For pointers the address is base + off + (the value described
 * by var_off and the ranges); for scalars the ranges are the value itself. */
struct vrf_reg {
	uint8_t type;	 /* enum vrf_rtype */
	uint8_t frameno; /* PTR_STACK: which frame */
	uint8_t pad;	 /* VRF_MEM_RDONLY, VRF_MEM_CB_SCOPED */
	uint8_t precise; /* scalar: some check depended on its range (backtracked) */
	uint32_t id;	 /* null-check / packet range group; 0 = none */
	uint32_t ref;	 /* acquired reference (ringbuf), 0 = none */
	int32_t off;	 /* fixed pointer offset */
	uint32_t range;	 /* PKT: bytes proven readable; MEM: size */
	const struct bpfvm_map *map;
	struct vrf_tnum var;
	int64_t smin, smax;
	uint64_t umin, umax;
	int32_t s32min, s32max;
	uint32_t u32min, u32max;
};

/* Per-byte stack state. */
enum vrf_stype {
	VRF_ST_INVALID = 0, /* never written */
	VRF_ST_MISC,	    /* some scalar byte */
	VRF_ST_ZERO,	    /* known zero byte */
	VRF_ST_SPILL,	    /* part of a spilled 8-byte register */
};

struct vrf_slot {
	uint8_t type[8];
	struct vrf_reg spill; /* valid when all 8 bytes are SPILL */
};

struct vrf_frame {
	struct vrf_reg regs[VRF_NREGS];
	struct vrf_slot stack[VRF_SLOTS]; /* slot i covers fp-8*(i+1) .. fp-8*i-1 */
	int callsite;			  /* insn of the call, -1 in the main frame */
	int subprog;
	bool in_callback; /* frame entered by a helper (bpf_loop...) */
	int32_t cb_ret_min, cb_ret_max;
};

/* One processed insn of the path since its checkpoint parent, for
 * backtracking precision (kernel: jmp_history + backtrack_insn). */
struct vrf_trace {
	int32_t idx;
	int8_t frame;  /* frame the insn ran in */
	int8_t sframe; /* stack access: frame of the slot, else -1 */
	int16_t slot;  /* stack access: 8-byte slot index */
};

struct vrf_state {
	struct vrf_frame *frames[VRF_MAX_FRAMES];
	struct vrf_trace *trace;
	int ntrace, captrace;
	bool trace_lost;  /* segment too long to keep: backtracking gives up */
	bool all_precise; /* checkpoint: every scalar already marked */
	int curframe;
	uint32_t refs[VRF_MAX_REFS]; /* acquired reference ids */
	uint32_t ref_insn[VRF_MAX_REFS];
	int nrefs;
	/* bpf_spin_lock held: the map, the offset in its value and the id of
	 * the value pointer it was taken through (0: a direct value address) */
	const struct bpfvm_map *lock_map;
	int64_t lock_off;
	uint32_t lock_id;
	/* pruning bookkeeping (kernel: branches/parent) */
	struct vrf_state *parent;
	uint32_t branches;
	int insn_idx;
	struct vrf_state *next_at_insn;
	uint32_t hits, misses; /* checkpoint: prunes it made, visits it failed */
};

struct vrf_pending {
	struct vrf_state *st;
	int insn, prev;
	size_t log_pos;
};

struct vrf_subprog {
	int start, end; /* [start, end) */
	uint32_t stack_depth;
	bool is_cb;
};

/* Per-insn facts for the walk (prog->aux carries the persistent ones). */
struct vrf_iaux {
	uint16_t live_in;  /* registers possibly read before written, from here */
	uint16_t sens_in;  /* registers whose scalar value may still reach a range check */
	uint8_t prune : 1; /* jump target / after branch / loop head */
	uint8_t cb_entry : 1;
	uint8_t ldimm_hi : 1; /* second slot of ld_imm64 */
	int subprog;
	struct vrf_state *explored;
	uint32_t nexplored;
	/* ld_imm64 facts */
	const struct bpfvm_map *map;
	uint32_t map_off;
};

struct vrf_env {
	struct bpfvm_prog *prog;
	const struct bpfvm_insn *insns;
	int n;
	struct bpfvm_log *log;
	struct vrf_iaux *ia;
	struct vrf_subprog *sub;
	int nsub;
	struct vrf_state *cur;
	struct vrf_pending *stack;
	int npending, cap_pending;
	struct vrf_state **all; /* every checkpoint, freed at the end */
	int nall, cap_all;
	uint32_t next_id;
	uint64_t processed;
	uint64_t jmps, prev_jmps, prev_processed;
	int insn_idx, prev_insn_idx;
	bool failed;	      /* a reason was logged */
	struct bpfvm_btf btf; /* the type's published BTF, parsed on first use */
	bool btf_parsed;
	int acc_sframe, acc_slot; /* stack slot the current insn accessed */
	char why[160];
};

/* vrf_env.c */
int vrf_env_init(struct vrf_env *env, struct bpfvm_prog *prog, struct bpfvm_log *log);
void vrf_env_fini(struct vrf_env *env);
struct vrf_state *vrf_state_new(void);
int vrf_state_copy(struct vrf_state *dst, const struct vrf_state *src);
void vrf_state_free(struct vrf_state *st);
int vrf_push(struct vrf_env *env, int insn, int prev, struct vrf_state **out);
int vrf_pop(struct vrf_env *env, int *insn, int *prev);
int vrf_keep_state(struct vrf_env *env, struct vrf_state *st);
static inline struct vrf_frame *vrf_cur_frame(struct vrf_env *env)
{
	return env->cur->frames[env->cur->curframe];
}
static inline struct vrf_reg *vrf_cur_regs(struct vrf_env *env)
{
	return vrf_cur_frame(env)->regs;
}

/* vrf_cfg.c */
int vrf_check_insns(struct vrf_env *env);
int vrf_check_cfg(struct vrf_env *env);

/* vrf_regs.c: ranges, ALU; vrf_branch.c: branch refinement */
void vrf_mark_unknown(struct vrf_reg *r);
void vrf_mark_const(struct vrf_reg *r, uint64_t v);
void vrf_mark_not_init(struct vrf_reg *r);
void vrf_mark_ptr(struct vrf_reg *r, uint8_t type);
void vrf_reg_bounds_sync(struct vrf_reg *r);
void vrf_reg_bound_size(struct vrf_reg *r, int size, bool sign);
bool vrf_reg_is_const(const struct vrf_reg *r);
bool vrf_reg_is_ptr(const struct vrf_reg *r);
bool vrf_reg_empty(const struct vrf_reg *r);
int vrf_check_alu(struct vrf_env *env, const struct bpfvm_insn *insn);
int vrf_check_cond_jmp(struct vrf_env *env, const struct bpfvm_insn *insn, int *next);
bool vrf_type_is_or_null(uint8_t t);
void vrf_mark_ptr_or_null(struct vrf_state *st, uint32_t id, bool is_null);
int vrf_alu_eval(uint8_t code, int16_t off, int32_t imm, uint64_t a, uint64_t b, uint64_t *out);
void vrf_scalar_alu(struct vrf_reg *d, const struct vrf_reg *s, uint8_t op, bool is64);

/* vrf_mem.c */
void *vrf_map_value0(const struct bpfvm_map *map);
int vrf_check_mem(struct vrf_env *env, const struct bpfvm_insn *insn);
int vrf_check_ld_imm64(struct vrf_env *env, const struct bpfvm_insn *insn);
/* a helper memory argument of size_min..size_max bytes, accessed as its
 * contract says (enum bpfvm_mem_access): all size_max must be accessible; an
 * UNINIT_WRITE initialises only the size_min bytes the helper surely writes */
int vrf_check_mem_range(struct vrf_env *env, int regno, uint64_t size_min, uint64_t size_max,
			uint8_t access, bool zero_ok);

/* vrf_call.c */
int vrf_check_call(struct vrf_env *env, const struct bpfvm_insn *insn, int *next);
int vrf_check_exit(struct vrf_env *env, int *next, bool *done);

/* vrf_prune.c */
int vrf_compute_liveness(struct vrf_env *env);
/* 1: pruned, 0: go on, <0: error */
int vrf_is_state_visited(struct vrf_env *env, int insn);
void vrf_update_branch_counts(struct vrf_env *env, struct vrf_state *st);

/* vrf_precise.c */
/* append one processed insn (idx, run in frame) to st's path segment */
int vrf_trace_add(struct vrf_state *st, int idx, int frame, int sframe, int slot);
int vrf_mark_precise(struct vrf_env *env, uint16_t regs, uint64_t slots);
void vrf_mark_reg_precise(struct vrf_env *env, int regno);
void vrf_mark_all_precise(struct vrf_env *env);
void vrf_propagate_precision(struct vrf_env *env, const struct vrf_state *old);

/* vrf_walk.c */
int vrf_do_check(struct vrf_env *env);

/* vrf_rewrite.c */
int vrf_record_ctx_field(struct vrf_env *env, int insn, int field);
void vrf_mark_zext(struct vrf_env *env, int insn);
int vrf_finish(struct vrf_env *env);

/* vrf_log.c */
int vrf_err(struct vrf_env *env, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vrf_log_insn(struct vrf_env *env, int idx);
void vrf_log_state(struct vrf_env *env);
void vrf_log_reject(struct vrf_env *env, int err);
const char *vrf_type_name(uint8_t t);

/* disasm.c */
const char *vrf_helper_name(uint32_t id);
/* map_id resolves a map reference's pointer (NULL: print it raw) */
int vrf_disasm(const struct bpfvm_insn *in, const struct bpfvm_insn *next,
	       uint32_t (*map_id)(void *arg, uint64_t ptr), void *arg, char *buf, size_t size);

#endif
