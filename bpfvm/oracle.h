/* The checked-execution oracle (oracle.c): run-time provenance of every
 * register and stack slot of a verified program, checked at each access and
 * helper call against what the verifier proved (docs/oracle.md). Only the
 * checked interpreter (interp.c built with BPFVM_CHECKED) drives it. */
#ifndef SKOPS_BPFVM_ORACLE_H
#define SKOPS_BPFVM_ORACLE_H

#include "bpfvm_int.h"

/* What a register or a spilled stack slot holds. */
enum oracle_kind {
	OK_SCALAR = 0,
	OK_CTX,	    /* the ctx pointer (plus an offset) */
	OK_STACK,   /* a frame pointer; idx = the frame's depth */
	OK_MAP,	    /* a const map pointer; dereferencing it is a violation */
	OK_FUNC,    /* a callback address */
	OK_PKT,	    /* skb_data (plus an offset) */
	OK_PKT_END, /* skb_data_end */
	OK_REGION,  /* inside a tracked region; idx = its slot in oracle.regions */
};

struct oracle_tag {
	uint8_t kind;
	uint16_t idx;
};

/* What a tracked region is: bounds, rights, lifetime. */
enum oracle_region_kind {
	OR_MAP_VALUE,
	OR_SK_STORAGE, /* from sk_storage_get */
	OR_RINGBUF,    /* a reserved record: a reference until submit/discard */
	OR_SOCK,       /* a socket view (ctx->sk, tcp_sock, a BTF object): read-only */
	OR_KEY,	       /* for_each_map_elem's key: lives while the helper runs */
};

struct oracle_region {
	uint64_t base, size;
	const struct bpfvm_map *map;
	uint8_t kind;
	bool ro, dead;
	uint32_t lock_off; /* 1 + offset of the value's bpf_spin_lock, or 0 */
};

#define ORACLE_REGIONS 256
#define ORACLE_SLOTS   (BPFVM_MAX_CALL_DEPTH * BPFVM_STACK_SIZE / 8)

/* Register tags of one interpreter activation (the program or a callback)
 * and the callee-saved tags of its bpf-to-bpf frames. */
struct oracle_regs {
	struct oracle_tag r[11];
	struct oracle_tag saved[BPFVM_MAX_CALL_DEPTH][5]; /* R6..R10 */
};

/* Tags a callback's arguments get (set by the helper call that runs it). */
struct oracle_cb {
	uint8_t cb_args[4]; /* enum bpfvm_cb_arg */
	struct oracle_tag ctx_arg;
	const struct bpfvm_map *map;
	const struct bpfvm_prog *prog; /* the program calling the helper */
};

struct oracle {
	const struct bpfvm_prog *prog; /* the entry program */
	uint64_t ctx;
	size_t ctx_len;
	uint64_t stack;		  /* base of the frames (interp_state.stack) */
	bool unpriv;		  /* !allow_ptr_leaks: pointer leaks are violations */
	int pkt_off, pkt_end_off; /* ctx offsets of skb_data / skb_data_end, or -1 */
	uint64_t btf_size[BPFVM_BTF_NR];
	bool started;
	uint32_t nest; /* callback activations running */
	struct oracle_cb cb;
	uint32_t refs;			      /* ringbuf records held */
	int lock;			      /* region of the held spin lock, or -1 */
	struct oracle_tag slot[ORACLE_SLOTS]; /* spilled tags per 8-byte stack slot */
	struct oracle_region regions[ORACLE_REGIONS];
	uint32_t nregions;
	/* the first violation */
	bool failed;
	uint32_t pc;
	char why[192];
};

void oracle_init(struct oracle *o, const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
		 uint8_t *stack);
/* An activation starts at frame depth: the program (first call) or a callback. */
void oracle_enter(struct oracle *o, struct oracle_regs *t, uint32_t depth, const uint64_t *args);
/* A frame at depth starts: its slots hold nothing. */
void oracle_frame_enter(struct oracle *o, uint32_t depth);
/* Check insn ip about to run with registers reg (frames: bpf-to-bpf frames
 * of this activation; depth: the interpreter's st->depth) and update the
 * tags; false on a violation (o->why says which). Helper calls are checked
 * by oracle_helper. */
bool oracle_insn(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 const uint64_t *reg, struct oracle_regs *t, uint32_t frames, uint32_t depth);
/* Run helper h for the call at ip under its contract: arguments checked by
 * kind, memory arguments handed over in exact-size bounce buffers and
 * compared afterwards; R0's tag set. Check o->failed afterwards. */
uint64_t oracle_helper(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		       const struct bpfvm_helper *h, const uint64_t *reg, struct oracle_regs *t,
		       struct bpfvm_run *run);
/* [addr, addr+size) lies in memory the oracle tracks and checks itself,
 * which the plain checked run does not know: the packet, socket views,
 * records, and sk_storage values this run got. Those stay valid until the
 * run ends even after bpf_sk_storage_delete (the kernel frees after an RCU
 * grace period, skops when the invocation ends), though the map no longer
 * owns them. */
bool oracle_owns(const struct oracle *o, uint64_t addr, uint64_t size);
/* A plain checked-interpreter stop (an access outside every known object)
 * of a verified program: also a violation. */
void oracle_stop(struct oracle *o, const struct bpfvm_prog *prog, const struct bpfvm_insn *ip,
		 uint64_t addr, uint32_t size);

#endif
