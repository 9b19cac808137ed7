/* bpfvm: the eBPF runtime's public interface: programs, maps, helpers, object
 * registry. No TCP knowledge lives here; program types (sock_ops) plug in through
 * struct bpfvm_prog_type. Read RFC 9669 (the ISA) and docs/sockops.md §5, §7 first.
 *
 * Ownership: every *_create/_load returns an object holding one reference; the
 * caller drops it with the matching _put. Logs are caller buffers. */
#ifndef SKOPS_BPFVM_BPFVM_H
#define SKOPS_BPFVM_BPFVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One instruction, bit-compatible with the kernel's struct bpf_insn. */
struct bpfvm_insn {
	uint8_t code;
	uint8_t dst : 4;
	uint8_t src : 4;
	int16_t off;
	int32_t imm;
};

#define BPFVM_STACK_SIZE     512 /* bytes per frame */
#define BPFVM_MAX_CALL_DEPTH 8
#define BPFVM_MAX_TAIL_CALLS 33	     /* MAX_TAIL_CALL_CNT */
#define BPFVM_MAX_INSNS	     1000000 /* processed-instruction limit */
#define BPFVM_MAX_USED_MAPS  64	     /* maps one program may reference (MAX_USED_MAPS) */
#define BPFVM_OBJ_NAME_LEN   16
#define BPFVM_TAG_SIZE	     8

/* ---- logs -------------------------------------------------------------- */

/* A caller-owned text buffer. level 0 logs nothing; 1 logs rejections; 2 logs
 * every instruction walked. A message that does not fit sets truncated and the
 * operation that produced it reports -ENOSPC only if it otherwise succeeded. */
struct bpfvm_log {
	uint32_t level;
	char *buf;
	size_t size;
	size_t used;
	bool truncated;
};

void bpfvm_log_printf(struct bpfvm_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- maps -------------------------------------------------------------- */

/* Map types use the kernel's enum bpf_map_type numbers. */
enum bpfvm_map_type {
	BPFVM_MAP_HASH = 1,
	BPFVM_MAP_ARRAY = 2,
	BPFVM_MAP_PROG_ARRAY = 3,
	BPFVM_MAP_PERF_EVENT_ARRAY = 4,
	BPFVM_MAP_PERCPU_HASH = 5,
	BPFVM_MAP_PERCPU_ARRAY = 6,
	BPFVM_MAP_LRU_HASH = 9,
	BPFVM_MAP_SOCKMAP = 15,
	BPFVM_MAP_SOCKHASH = 18,
	BPFVM_MAP_SK_STORAGE = 24,
	BPFVM_MAP_RINGBUF = 27,
};

/* Update flags as the kernel's (BPF_ANY/BPF_NOEXIST/BPF_EXIST). */
enum { BPFVM_ANY = 0, BPFVM_NOEXIST = 1, BPFVM_EXIST = 2 };

struct bpfvm_map_def {
	uint32_t type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
	char name[BPFVM_OBJ_NAME_LEN];
	/* The value's struct bpf_spin_lock, which the loader finds in the map's
	 * BTF value type (as the kernel, which needs BTF to know where it is):
	 * only bpf_spin_lock/unlock may touch its 4 bytes, and only maps that
	 * have one may be locked. */
	bool has_spin_lock;
	uint32_t spin_lock_off;
};

struct bpfvm_map_info {
	uint32_t type, id, key_size, value_size, max_entries, map_flags;
	char name[BPFVM_OBJ_NAME_LEN];
};

struct bpfvm_registry;
struct bpfvm_map;
struct bpfvm_prog;

/* Per-cpu maps and get_smp_processor_id() use the caller's cpu index, set once
 * per thread (an lcore id); it must be < BPFVM_MAX_CPUS. Default 0. */
#define BPFVM_MAX_CPUS 64
void bpfvm_set_cpu(unsigned cpu);
unsigned bpfvm_cpu(void);

int bpfvm_map_create(struct bpfvm_registry *reg, const struct bpfvm_map_def *def,
		     struct bpfvm_map **out);
void bpfvm_map_get(struct bpfvm_map *map);
void bpfvm_map_put(struct bpfvm_map *map);
/* Borrowed pointer to the value (this cpu's slot for per-cpu maps), or NULL. */
void *bpfvm_map_lookup(struct bpfvm_map *map, const void *key);
int bpfvm_map_update(struct bpfvm_map *map, const void *key, const void *value, uint64_t flags);
int bpfvm_map_delete(struct bpfvm_map *map, const void *key);
/* key NULL → first key; -ENOENT after the last. */
int bpfvm_map_get_next_key(struct bpfvm_map *map, const void *key, void *next_key);
/* Per-cpu maps: copy all cpus' values (value_size rounded up to 8, per cpu). */
int bpfvm_map_lookup_percpu(struct bpfvm_map *map, const void *key, void *values);
void bpfvm_map_info(const struct bpfvm_map *map, struct bpfvm_map_info *info);
uint32_t bpfvm_map_id(const struct bpfvm_map *map);
const struct bpfvm_map_def *bpfvm_map_def(const struct bpfvm_map *map);

/* sk_storage maps hold one value per owner (a socket). The owner calls
 * bpfvm_sock_release(owner) when it dies, removing it from every map. */
void *bpfvm_sk_storage_get(struct bpfvm_map *map, const void *owner, const void *init,
			   uint64_t flags);
int bpfvm_sk_storage_delete(struct bpfvm_map *map, const void *owner);

/* SOCKMAP / SOCKHASH hold sockets (owner, cookie) inserted by the sock_ops
 * helpers; user-space lookup gives the cookie (value_size 8), user-space
 * update is -EOPNOTSUPP (no socket fds). update: 0, -EINVAL (flags, type),
 * -E2BIG (index out of range, map full), -EEXIST/-ENOENT (NOEXIST/EXIST).
 * The owner calls bpfvm_sock_release(owner) when it closes. */
int bpfvm_sock_map_update(struct bpfvm_map *map, const void *key, const void *owner,
			  uint64_t cookie, uint64_t flags);
const void *bpfvm_sock_map_owner(struct bpfvm_map *map, const void *key);
/* A socket closed: its sk_storage values and its socket-map entries go, in
 * one walk of the registry's maps. */
void bpfvm_sock_release(struct bpfvm_registry *reg, const void *owner);

/* ringbuf / perf output: user space drains records. Returns bytes copied, 0 if
 * empty, -ENOSPC if buf is too small for the next record. */
int bpfvm_ringbuf_consume(struct bpfvm_map *map, void *buf, size_t size);

/* ---- helpers ----------------------------------------------------------- */

struct bpfvm_run; /* per-invocation state, see bpfvm_run_* below */

/* Helpers get the five argument registers and the run state (JIT passes it in
 * the sixth C argument register). */
typedef uint64_t (*bpfvm_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
				    struct bpfvm_run *run);

/* ---- the helper contract ----------------------------------------------
 * Every helper's prototype is one declarative entry (struct bpfvm_helper):
 * the verifier checks calls against it, the checked interpreter checks runs
 * against it, docs/helpers.md is generated from it, and the helper's C code
 * touches no memory its entry does not declare. The kernel's bpf_func_proto
 * (ARG_PTR_TO_MEM with MEM_RDONLY / MEM_WRITE / MEM_UNINIT) is the model;
 * docs/helpers.md explains each field. */

/* What an argument register holds. */
enum bpfvm_arg_kind {
	BPFVM_ARG_NONE = 0,
	/* A value the helper uses as a number (a flag, a length, something it
	 * prints or stores where user space sees it). Pointers only from a
	 * privileged loader (allow_ptr_leaks): anything else would leak an
	 * address, as the kernel's ARG_ANYTHING. May be left unset by a
	 * variadic call (bpf_trace_printk's unused slots). */
	BPFVM_ARG_ANYTHING,
	BPFVM_ARG_SCALAR, /* an initialised scalar, from any loader */
	BPFVM_ARG_CTX,	  /* the program's ctx pointer, offset 0 */
	BPFVM_ARG_MAP,	  /* a map pointer (ld_imm64); type in map_types; .access */
	/* key_size / value_size bytes of the (one) MAP argument's map, with
	 * the access mode in .access */
	BPFVM_ARG_MAP_KEY,
	BPFVM_ARG_MAP_VALUE,
	/* memory of the program (stack, map value, packet, record): .access
	 * says what the helper does with it, .size_arg (1-based) names the
	 * SIZE argument giving the byte count, or .size is that count */
	BPFVM_ARG_MEM,
	BPFVM_ARG_SIZE,	       /* the byte count of the MEM argument .size_arg names */
	BPFVM_ARG_FUNC,	       /* a callback (ld_imm64 BPF_PSEUDO_FUNC); .cb_args */
	BPFVM_ARG_CB_CTX,      /* any value, handed to the callback unchanged (type and all) */
	BPFVM_ARG_ADDR,	       /* an address the helper confines itself and never reveals */
	BPFVM_ARG_SOCK,	       /* a socket pointer: ctx->sk, a bpf_tcp_sock, a BTF tcp_sock */
	BPFVM_ARG_RINGBUF_MEM, /* a record ringbuf_reserve returned, offset 0 */
	/* a NUL-terminated constant string: read-only frozen map, constant
	 * offset (the kernel's ARG_PTR_TO_CONST_STR) */
	BPFVM_ARG_STR,
	/* the struct bpf_spin_lock word of a map value (4 bytes) at the offset
	 * the map's BTF names (bpfvm_map_def.spin_lock_off) */
	BPFVM_ARG_SPIN_LOCK,
	/* the kernel context pointer bpf_cast_to_kern_ctx returned (kfuncs:
	 * the kernel's KF_TRUSTED_ARGS pointer to the kern ctx struct) */
	BPFVM_ARG_KERN_CTX,
};

/* What the helper does with the bytes of a memory argument (MEM, MAP_KEY,
 * MAP_VALUE): the kernel's MEM_RDONLY, MEM_WRITE, MEM_UNINIT | MEM_WRITE; for a
 * MAP argument READ or WRITE (the helper changes the map's elements). */
enum bpfvm_mem_access {
	BPFVM_MEM_NONE = 0,
	BPFVM_MEM_READ,	 /* reads them: initialised, no pointer in them, unchanged */
	BPFVM_MEM_WRITE, /* reads them and may write any: initialised, unknown after */
	/* writes every declared byte (all size_arg says, whatever it returns)
	 * and reads none: may be uninitialised, initialised after */
	BPFVM_MEM_UNINIT_WRITE,
};

/* Argument flags. */
#define BPFVM_ARGF_OR_NULL 0x01u /* the constant 0 is accepted too (MEM: with size 0) */
#define BPFVM_ARGF_ZERO_OK 0x02u /* SIZE: 0 bytes is accepted */
/* the call gives back what the argument holds: the reference of a
 * RINGBUF_MEM, the lock of a SPIN_LOCK (bpf_spin_unlock) */
#define BPFVM_ARGF_RELEASE 0x04u

struct bpfvm_arg {
	uint8_t kind;	  /* enum bpfvm_arg_kind */
	uint8_t access;	  /* enum bpfvm_mem_access, for MEM / MAP_KEY / MAP_VALUE / MAP */
	uint8_t flags;	  /* BPFVM_ARGF_* */
	uint8_t size_arg; /* MEM: 1-based SIZE argument; SIZE: 1-based MEM argument it sizes */
	uint32_t size;	  /* MEM without size_arg: the constant byte count */
};

enum bpfvm_ret {
	BPFVM_RET_INTEGER = 0,	     /* a scalar in [ret_min, ret_max] */
	BPFVM_RET_VOID,		     /* R0 is not readable after the call */
	BPFVM_RET_MAP_VALUE_OR_NULL, /* value of the MAP argument's map */
	BPFVM_RET_MEM_OR_NULL,	     /* ringbuf_reserve: size from arg 2 (constant) */
	/* struct bpf_tcp_sock (BPFVM_TCP_SOCK_VIEW_SIZE bytes, read-only) or NULL:
	 * the kernel's RET_PTR_TO_TCP_SOCK_OR_NULL */
	BPFVM_RET_TCP_SOCK_OR_NULL,
	/* kernel-typed objects or NULL (RET_PTR_TO_BTF_ID_OR_NULL) */
	BPFVM_RET_BTF_TCP_SOCK_OR_NULL,
	BPFVM_RET_BTF_MPTCP_SOCK_OR_NULL,
	/* the kernel context (BPFVM_BTF_KERN_CTX), never NULL */
	BPFVM_RET_BTF_KERN_CTX,
};

/* What a callback gets in r1..r4 from its helper (FUNC arguments). */
enum bpfvm_cb_arg {
	BPFVM_CB_NONE = 0,
	BPFVM_CB_INDEX,	    /* the iteration, a scalar in [0, BPFVM_MAX_LOOPS) */
	BPFVM_CB_MAP,	    /* the helper's MAP argument */
	BPFVM_CB_MAP_KEY,   /* key_size read-only bytes, valid while the callback runs */
	BPFVM_CB_MAP_VALUE, /* value_size bytes of the element */
	BPFVM_CB_CTX,	    /* the helper's CB_CTX argument, as passed */
};
#define BPFVM_MAX_LOOPS (1u << 23) /* bpf_loop's limit (BPF_MAX_LOOPS) */

/* Helper flags. */
#define BPFVM_HF_ACQUIRE 0x01u /* a non-NULL R0 holds a reference the program must release */
#define BPFVM_HF_NO_REFS 0x02u /* refused while the program holds references (tail_call) */
#define BPFVM_HF_PRIV	 0x04u /* privileged loaders only (allow_ptr_leaks) */

/* The kernel-typed objects helpers may return. Programs reach their fields
 * through CO-RE relocations against the BTF the program type publishes
 * (bpfvm_prog_type.btf); the verifier admits reads that fall inside one
 * integer field of the published struct, nothing else. */
enum bpfvm_btf_obj {
	BPFVM_BTF_NONE = 0,
	BPFVM_BTF_TCP_SOCK,   /* struct tcp_sock */
	BPFVM_BTF_MPTCP_SOCK, /* struct mptcp_sock */
	/* the program type's kernel context (sock_ops: struct
	 * bpf_sock_ops_kern), what the kfunc bpf_cast_to_kern_ctx returns:
	 * nothing in it is readable here, it only passes to kfuncs */
	BPFVM_BTF_KERN_CTX,
	BPFVM_BTF_NR,
};

/* struct bpf_tcp_sock (uapi): u32 fields, but bytes_received and bytes_acked
 * (u64 at 80 and 88); 112 bytes up to icsk_retransmits. */
#define BPFVM_TCP_SOCK_VIEW_SIZE 112u
#define BPFVM_TCP_SOCK_U64_A	 80u
#define BPFVM_TCP_SOCK_U64_B	 88u

/* Map type bits for bpfvm_helper.map_types. */
#define BPFVM_MAPT(t) (1ull << (t))
#define BPFVM_MAPT_DATA                                                                            \
	(BPFVM_MAPT(BPFVM_MAP_HASH) | BPFVM_MAPT(BPFVM_MAP_ARRAY) |                                \
	 BPFVM_MAPT(BPFVM_MAP_PERCPU_HASH) | BPFVM_MAPT(BPFVM_MAP_PERCPU_ARRAY) |                  \
	 BPFVM_MAPT(BPFVM_MAP_LRU_HASH))

struct bpfvm_helper {
	uint32_t id; /* enum bpf_func_id */
	const char *name;
	bpfvm_helper_fn fn;
	struct bpfvm_arg args[5];
	enum bpfvm_ret ret;
	int64_t ret_min, ret_max; /* RET_INTEGER: every value the helper returns */
	uint32_t flags;		  /* BPFVM_HF_* */
	uint64_t map_types;	  /* MAP argument: the accepted map types (BPFVM_MAPT) */
	/* The ops (the program type's numbering, bit n = op n, read from the
	 * ctx by bpfvm_prog_type.ctx_op) in which the helper acts; in any other
	 * it returns -EPERM and touches nothing. 0: every op. */
	uint64_t ops;
	uint8_t cb_args[4]; /* FUNC: enum bpfvm_cb_arg for the callback's r1..r4 */
};

/* Shorthands for helper tables (one argument each). */
#define BPFVM_A(k)                                                                                 \
	{                                                                                          \
		.kind = BPFVM_ARG_##k                                                              \
	}
#define BPFVM_A_OR_NULL(k)                                                                         \
	{                                                                                          \
		.kind = BPFVM_ARG_##k, .flags = BPFVM_ARGF_OR_NULL                                 \
	}
/* a MAP argument: READ, or WRITE when the helper changes the map (update,
 * delete, create, output): refused for maps programs may only read */
#define BPFVM_A_MAP(acc)                                                                           \
	{                                                                                          \
		.kind = BPFVM_ARG_MAP, .access = BPFVM_MEM_##acc                                   \
	}
#define BPFVM_A_KEY(acc)                                                                           \
	{                                                                                          \
		.kind = BPFVM_ARG_MAP_KEY, .access = BPFVM_MEM_##acc                               \
	}
#define BPFVM_A_VALUE(acc)                                                                         \
	{                                                                                          \
		.kind = BPFVM_ARG_MAP_VALUE, .access = BPFVM_MEM_##acc                             \
	}
#define BPFVM_A_MEM(acc, sz_arg)                                                                   \
	{                                                                                          \
		.kind = BPFVM_ARG_MEM, .access = BPFVM_MEM_##acc, .size_arg = (sz_arg)             \
	}
#define BPFVM_A_MEM_OR_NULL(acc, sz_arg)                                                           \
	{                                                                                          \
		.kind = BPFVM_ARG_MEM, .access = BPFVM_MEM_##acc, .flags = BPFVM_ARGF_OR_NULL,     \
		.size_arg = (sz_arg)                                                               \
	}
#define BPFVM_A_SIZE(mem_arg)                                                                      \
	{                                                                                          \
		.kind = BPFVM_ARG_SIZE, .size_arg = (mem_arg)                                      \
	}
#define BPFVM_A_SIZE_OR_ZERO(mem_arg)                                                              \
	{                                                                                          \
		.kind = BPFVM_ARG_SIZE, .flags = BPFVM_ARGF_ZERO_OK, .size_arg = (mem_arg)         \
	}
#define BPFVM_A_RELEASE(k)                                                                         \
	{                                                                                          \
		.kind = BPFVM_ARG_##k, .flags = BPFVM_ARGF_RELEASE                                 \
	}
/* an integer result: any value / errno or 0 */
#define BPFVM_ERRNO_MIN		(-4095)
#define BPFVM_RET_ANY		.ret = BPFVM_RET_INTEGER, .ret_min = INT64_MIN, .ret_max = INT64_MAX
#define BPFVM_RET_RANGE(lo, hi) .ret = BPFVM_RET_INTEGER, .ret_min = (lo), .ret_max = (hi)

/* The helper's contract for the running op: false when the entry limits
 * the ops and run's ctx is in another one (the helper then returns -EPERM). */
bool bpfvm_helper_op_ok(const struct bpfvm_helper *h, const struct bpfvm_run *run);

/* Base helpers any program type may use (docs/sockops.md §5 "Base"). */
const struct bpfvm_helper *bpfvm_base_helper(uint32_t id);

/* Helper ids are below this (enum bpf_func_id as skops knows it). */
#define BPFVM_MAX_HELPER_ID 256

/* ---- program types ----------------------------------------------------- */

/* What a ctx access resolves to; filled by the type's ctx_access(). */
enum bpfvm_ctx_reg {
	BPFVM_CTX_SCALAR = 0,	/* the load yields a scalar */
	BPFVM_CTX_SOCK_OR_NULL, /* the load yields a socket pointer or NULL */
	BPFVM_CTX_PKT,		/* packet data start */
	BPFVM_CTX_PKT_END,	/* packet data end */
};

struct bpfvm_ctx_access {
	int field;		   /* type-defined field index, recorded per insn */
	enum bpfvm_ctx_reg result; /* for loads */
};

struct bpfvm_prog_type {
	const char *name;
	uint32_t type;	   /* enum bpf_prog_type */
	uint32_t ctx_size; /* bytes of the user-visible ctx */
	/* 0 if a load (write=false) or store of size bytes at off is allowed;
	 * otherwise -EACCES with a reason of at most 64 chars in why. */
	int (*ctx_access)(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			  char *why, size_t why_len);
	/* Helper allowed for this type, or NULL. Usually falls back to base. */
	const struct bpfvm_helper *(*helper)(uint32_t id);
	/* Optional: the op the ctx is running (bit index for bpfvm_helper.ops);
	 * types without ops leave it NULL and every op mask is ignored. */
	uint32_t (*ctx_op)(const void *ctx);
	int32_t ret_min, ret_max; /* R0 range enforced in strict mode */
	uint32_t nr_fields;	  /* field indices are < nr_fields (<= 64) */
	/* Optional: the type's own view of the kernel types its programs may
	 * read through helper-returned pointers, as raw BTF (header, types,
	 * strings). CO-RE relocations resolve against it, and each struct in it
	 * must be laid out exactly as the object the helper returns. btf_ids[o]
	 * is the BTF id of enum bpfvm_btf_obj o (0: not published). */
	const uint8_t *btf;
	uint32_t btf_len;
	uint32_t btf_ids[BPFVM_BTF_NR];
	/* Optional: kernel functions (kfuncs) the type offers. A program calls
	 * one through an extern __ksym; the loader relocates the call by the
	 * symbol's name with kfunc_id (0: unknown) into a BPF_PSEUDO_KFUNC_CALL
	 * whose imm is that id, and kfunc(id) is its contract, checked as a
	 * helper's. Ids are >= BPFVM_KFUNC_ID_BASE, apart from helper ids. */
	uint32_t (*kfunc_id)(const char *name);
	const struct bpfvm_helper *(*kfunc)(uint32_t id);
};
#define BPFVM_KFUNC_ID_BASE 0x10000u

/* The contract a call insn names: a helper (src 0) or a kfunc
 * (BPF_PSEUDO_KFUNC_CALL) of the type; NULL when the type has none. */
const struct bpfvm_helper *bpfvm_call_proto(const struct bpfvm_prog_type *type, uint8_t src,
					    int32_t imm);

/* Every helper the type allows, in id order, into out (at most max); returns
 * how many there are (docs/helpers.md is checked against this walk). */
size_t bpfvm_type_helpers(const struct bpfvm_prog_type *type, const struct bpfvm_helper **out,
			  size_t max);

/* The generic type used by tests and the conformance runner: r1 = memory,
 * r2 = its length; base helpers only. */
extern const struct bpfvm_prog_type bpfvm_type_generic;

/* ---- registry ---------------------------------------------------------- */

/* The registry is the equivalent of the kernel's IDR namespace: it owns ID
 * allocation (cyclic from 1, never reused while the object lives). */
int bpfvm_registry_create(struct bpfvm_registry **out);
/* Objects still alive keep the registry alive until their last put. */
void bpfvm_registry_destroy(struct bpfvm_registry *reg);

int bpfvm_prog_get_next_id(struct bpfvm_registry *reg, uint32_t start, uint32_t *next);
int bpfvm_map_get_next_id(struct bpfvm_registry *reg, uint32_t start, uint32_t *next);
/* New reference, or -ENOENT. */
int bpfvm_prog_get_by_id(struct bpfvm_registry *reg, uint32_t id, struct bpfvm_prog **out);
int bpfvm_map_get_by_id(struct bpfvm_registry *reg, uint32_t id, struct bpfvm_map **out);
/* Drain bpf_trace_printk lines (oldest first) into buf: whole lines only,
 * NUL-terminated; returns the bytes copied, 0 when empty. */
size_t bpfvm_trace_read(struct bpfvm_registry *reg, char *buf, size_t size);
/* The run-time budget programs loaded from now on get when their load
 * options name none (BPFVM_RUN_BUDGET_DEFAULT until set; 0 restores it),
 * and how many invocations of this registry's programs the budget stopped. */
#define BPFVM_RUN_BUDGET_DEFAULT (1ull << 24)
void bpfvm_registry_set_run_budget(struct bpfvm_registry *reg, uint64_t units);
uint64_t bpfvm_registry_run_budget(const struct bpfvm_registry *reg);
uint64_t bpfvm_registry_budget_stops(const struct bpfvm_registry *reg);

/* ---- programs ---------------------------------------------------------- */

struct bpfvm_load_opts {
	const struct bpfvm_prog_type *type; /* NULL → generic */
	const char *name;		    /* up to 15 chars kept */
	bool strict;			    /* R0 must lie in type->ret_min..ret_max */
	bool no_verify;			    /* generic type only: the conformance runner */
	bool jit;			    /* try the JIT; falls back to the interpreter */
	bool jit_blind; /* blind immediates in the JIT image (untrusted loads, docs/jit.md) */
	/* The loader is privileged (the kernel's allow_ptr_leaks: CAP_PERFMON or
	 * CAP_SYS_ADMIN; apps decide): the program may store pointers into map
	 * values, which user space can read. Nothing else is relaxed
	 * (docs/verifier-diff.md). */
	bool allow_ptr_leaks;
	uint32_t uid; /* created_by_uid */
	/* Run-time budget of one invocation (docs/verifier-diff.md "Run-time
	 * budget"): back-edges taken plus callbacks entered; 0 takes the
	 * registry's default (bpfvm_registry_set_run_budget). */
	uint64_t run_budget;
	struct bpfvm_log *log;
};

/* insns with ld_imm64 src=BPF_PSEUDO_MAP_FD (1) take imm as an index into maps;
 * BPF_PSEUDO_MAP_VALUE (2) likewise with the second imm as the value offset. */
int bpfvm_prog_load(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
		    struct bpfvm_map *const *maps, size_t nmaps, const struct bpfvm_load_opts *opts,
		    struct bpfvm_prog **out);
void bpfvm_prog_get(struct bpfvm_prog *prog);
void bpfvm_prog_put(struct bpfvm_prog *prog);

struct bpfvm_prog_info {
	uint32_t type, id;
	uint8_t tag[BPFVM_TAG_SIZE];
	char name[BPFVM_OBJ_NAME_LEN];
	uint32_t jited_prog_len, xlated_prog_len; /* bytes */
	uint32_t nr_map_ids;
	uint32_t map_ids[BPFVM_MAX_USED_MAPS];
	uint64_t load_time; /* ns, CLOCK_REALTIME */
	uint32_t created_by_uid;
	uint64_t run_cnt, run_time_ns;
	uint64_t run_budget;   /* units one invocation may spend */
	uint64_t budget_stops; /* invocations stopped by the budget */
};
void bpfvm_prog_info(const struct bpfvm_prog *prog, struct bpfvm_prog_info *info);
uint32_t bpfvm_prog_id(const struct bpfvm_prog *prog);
const struct bpfvm_prog_type *bpfvm_prog_type(const struct bpfvm_prog *prog);
/* Instructions as loaded (after relocation), for dump and tests. */
const struct bpfvm_insn *bpfvm_prog_insns(const struct bpfvm_prog *prog, size_t *n);
/* Bit i set when the program reads ctx field i (as the type numbers them);
 * lets the caller fill only what the program looks at. */
uint64_t bpfvm_prog_ctx_fields(const struct bpfvm_prog *prog);
/* JIT image (NULL, 0 when interpreted). */
const void *bpfvm_prog_jited(const struct bpfvm_prog *prog, size_t *len);
/* Image offset where each instruction's code starts (*n = the insn count of
 * bpfvm_prog_insns; the second slot of ld_imm64 points past its code); NULL,
 * 0 when interpreted. Code before offset[0] is the prologue. */
const uint32_t *bpfvm_prog_jited_offsets(const struct bpfvm_prog *prog, size_t *n);
/* Accumulate run statistics (callers that time runs, e.g. hooks with stats on). */
void bpfvm_prog_add_stats(struct bpfvm_prog *prog, uint64_t cnt, uint64_t ns);

/* Run: r1 = ctx, r2 = ctx_len. Uses the JIT image when there is one. A run
 * that spends its budget (or, unverified, exceeds the call depth) stops at
 * once and returns 0; bpfvm_prog_exec tells the caller. */
uint64_t bpfvm_prog_run(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len);
/* As bpfvm_prog_run: 0 and *r0 after the program's exit, or -ETIME when the
 * run was stopped before it (budget spent, call depth of an unverified
 * program): whatever the program did should then be abandoned by the caller.
 * Stops are counted in bpfvm_prog_info.budget_stops and the registry's
 * bpfvm_registry_budget_stops. */
int bpfvm_prog_exec(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len, uint64_t *r0);
/* The JIT image of a program that calls nothing (no helper, tail call or
 * subprogram) and has no run-time budget, or NULL. Such a run cannot be
 * stopped and touches only ctx and its own stack, so fn(ctx, ctx_len, NULL)
 * is bpfvm_prog_exec without the call around it; a caller running many
 * times may keep fn while it holds a reference on prog. */
typedef uint64_t (*bpfvm_leaf_fn)(void *ctx, uint64_t ctx_len, struct bpfvm_run *run);
bpfvm_leaf_fn bpfvm_prog_leaf_fn(const struct bpfvm_prog *prog);
uint64_t bpfvm_prog_run_interp(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len);
/* Bounds-checked interpreter run (conformance runner, fuzzing): *stop_pc is -1
 * after a normal exit, else the insn where the run stopped (an access outside
 * ctx/stack/map values, the call depth, or the no_verify instruction budget)
 * and 0 is returned. */
uint64_t bpfvm_prog_run_checked(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
				int64_t *stop_pc);

/* The checked-execution oracle (docs/oracle.md): the checked interpreter
 * following every pointer's provenance and each helper's contract. A
 * violation means a verified program did what the verifier proved it never
 * does: violation is set, pc names the insn and why the broken rule
 * ("oracle: insn 7: program map_value read at off 16 size 8 of 16"). pc is
 * -1 after a normal exit. Unverified (no_verify) programs run checked only. */
struct bpfvm_oracle_report {
	bool violation;
	int64_t pc;
	char why[192];
};
uint64_t bpfvm_prog_run_oracle(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
			       struct bpfvm_oracle_report *rep);

/* Ringbuf records one run may hold at once: the verifier's limit on
 * acquired references; an unverified program's reserve past it fails. */
#define BPFVM_RUN_MAX_RECS 16

/* The run state helpers receive. */
struct bpfvm_run {
	const struct bpfvm_prog *prog; /* running program (changes on tail call) */
	void *ctx;
	/* Call a BPF subprogram (callbacks of bpf_loop/for_each_map_elem) of prog
	 * starting at insn index pc with r1..r4; returns its r0. */
	uint64_t (*call)(struct bpfvm_run *run, uint32_t pc, uint64_t r1, uint64_t r2, uint64_t r3,
			 uint64_t r4);
	void *engine; /* engine-private */
	uint32_t tail_calls;
	/* Helper-owned memory a callback may read while the helper runs (the
	 * key for_each_map_elem passes); the checked interpreter admits it. */
	const void *scratch;
	size_t scratch_len;
	/* The calling frame's r10 at the latest helper call (0: the function
	 * has no stack), set by the engine: a helper that takes an address
	 * from a program number (bpf_snprintf's %s) reads only memory
	 * bpfvm_run_readable admits. */
	uint64_t fp;
	/* Units left of the run-time budget (back-edges and callback entries);
	 * 0 once the run was stopped: helpers that call back stop looping
	 * (bpfvm_run_stopped) and the engine unwinds to its entry. */
	uint64_t budget;
	uint64_t jit_sp;    /* JIT: stack pointer of the innermost entry frame */
	uint64_t jit_depth; /* JIT: bpf-to-bpf depth of unverified programs */
	/* What the program holds: the bpf_spin_lock word it took and the
	 * ringbuf records it reserved and has not submitted or discarded. The
	 * verifier makes a finished run release them; a run the budget stopped
	 * may not have, so the engine releases them before it returns
	 * (bpfvm_run_release). */
	uint32_t *held_lock;
	uint32_t held_nrecs;
	void *held_recs[BPFVM_RUN_MAX_RECS];
};

/* How many bytes from addr (at most max) the running program may read: its
 * current frame's 512 stack bytes, its ctx (the type's ctx_size), the values
 * of its maps (.rodata too). 0 when addr lies in none of them. */
size_t bpfvm_run_readable(const struct bpfvm_run *run, uint64_t addr, size_t max);

static inline bool bpfvm_run_stopped(const struct bpfvm_run *run)
{
	return run->budget == 0;
}

/* A helper's work, in bytes it copies or clears, spent from the run-time
 * budget: one unit a 64-byte line (a unit, a back-edge, is 10-50 ns; so is
 * a line copied), so a loop of 4 MiB map updates stops after a few hundred
 * rather than running for minutes. A run it exhausts stops when the helper
 * returns (the engines look at the budget after every helper call of a
 * budgeted program; a program with neither loops nor callbacks is stopped
 * at its end, its effects undone). */
static inline void bpfvm_run_charge(struct bpfvm_run *run, uint64_t bytes)
{
	uint64_t units = bytes >> 6;
	if (run && units && run->budget)
		run->budget = run->budget > units ? run->budget - units : 0;
}

/* ---- ELF objects ------------------------------------------------------- */

struct bpfvm_obj;

/* Parse an ELF object (from path, or from buf/len when path is NULL), create its
 * maps (registered, with IDs) and relocate its programs. Errors go to log as
 * "loader: FILE: section 'S': insn N: reason" and return -EINVAL/-ENOEXEC/-ENOMEM. */
int bpfvm_obj_open(struct bpfvm_registry *reg, const char *path, const void *buf, size_t len,
		   struct bpfvm_log *log, struct bpfvm_obj **out);
void bpfvm_obj_close(struct bpfvm_obj *obj);
size_t bpfvm_obj_prog_count(const struct bpfvm_obj *obj);
const char *bpfvm_obj_prog_section(const struct bpfvm_obj *obj, size_t i);
const char *bpfvm_obj_license(const struct bpfvm_obj *obj);
size_t bpfvm_obj_map_count(const struct bpfvm_obj *obj);
/* borrowed; NULL for a map whose type skops lacks (its users fail to load) */
struct bpfvm_map *bpfvm_obj_map(const struct bpfvm_obj *obj, size_t i);
struct bpfvm_map *bpfvm_obj_map_by_name(const struct bpfvm_obj *obj, const char *name);
/* Verify and load the program of section (NULL → the first program section). */
int bpfvm_obj_load_prog(struct bpfvm_obj *obj, const char *section,
			const struct bpfvm_load_opts *opts, struct bpfvm_prog **out);

/* ---- BTF --------------------------------------------------------------- */

/* The named structs and unions of a raw BTF blob (bpfvm_prog_type.btf) as C
 * declarations, byte offsets in comments, NUL-terminated in buf (truncated
 * if small). Returns the length of the whole text (as snprintf), -EINVAL for
 * malformed BTF, -ENOMEM. */
int bpfvm_btf_dump_c(const uint8_t *btf, size_t len, char *buf, size_t size);

/* ---- disassembly ------------------------------------------------------- */

/* One instruction in bpftool's xlated syntax ("r1 = *(u32 *)(r1 +4)"); for
 * ld_imm64 pass both slots (next may be NULL otherwise). Returns chars written. */
int bpfvm_disasm(const struct bpfvm_insn *insn, const struct bpfvm_insn *next, char *buf,
		 size_t size);

#endif
