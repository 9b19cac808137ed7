/* vdiff: differential verification of bpfvm's verifier against the running
 * kernel's (docs/verifier-diff.md). Shared by the generator (vdiff_gen.c),
 * the kernel side (vdiff_kern.c), the skops side (vdiff_skops.c) and the
 * driver (vdiff.c). */
#ifndef SKOPS_TEST_VERIFIER_VDIFF_H
#define SKOPS_TEST_VERIFIER_VDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfvm.h"

#define VD_MAX_INSNS 4096

/* The maps every program may reference, created alike in both verifiers;
 * ld_imm64 src 1/2 carries the index here, patched to an fd for the kernel. */
enum {
	VD_MAP_ARRAY,	/* array, key 4, value 48, 4 entries */
	VD_MAP_HASH,	/* hash, key 8, value 16, 16 entries */
	VD_MAP_SMALL,	/* array, key 4, value 8, 1 entry */
	VD_MAP_RINGBUF, /* ringbuf, 4096 bytes */
	VD_NMAPS,
};

extern const struct bpfvm_map_def vd_map_defs[VD_NMAPS];

/* Program shapes (bits of vd_prog.shapes, and of the generator's enable mask). */
enum {
	VD_SH_CTX = 1u << 0,	    /* ctx loads and stores */
	VD_SH_ALU = 1u << 1,	    /* ALU/ALU32, bswap, movsx, sdiv */
	VD_SH_BRANCH = 1u << 2,	    /* JMP/JMP32 bounds, nested if/else */
	VD_SH_SPILL = 1u << 3,	    /* spills and fills at every size */
	VD_SH_PTR = 1u << 4,	    /* pointer arithmetic with variable offsets */
	VD_SH_MAP = 1u << 5,	    /* map lookup/update/delete, direct values */
	VD_SH_HELPER_MEM = 1u << 6, /* getsockopt/setsockopt/probe_read with sizes */
	VD_SH_LOOP = 1u << 7,	    /* bpf_loop, for_each_map_elem callbacks */
	VD_SH_NARROW0 = 1u << 8,    /* narrow stores (of zero) loaded as offsets */
	VD_SH_BLOOP = 1u << 9,	    /* bounded backward loops */
	VD_SH_SUBPROG = 1u << 10,   /* bpf-to-bpf calls */
	VD_SH_RINGBUF = 1u << 11,   /* ringbuf reserve/submit references */
	VD_SH_ALL = (1u << 12) - 1,
};

struct vd_prog {
	struct bpfvm_insn insns[VD_MAX_INSNS];
	size_t n;
	uint32_t shapes; /* which shapes the program uses */
};

/* splitmix64: one stream per program, seeded from (run seed, index). */
struct vd_rng {
	uint64_t s;
};
uint64_t vd_rand(struct vd_rng *r);
static inline uint32_t vd_below(struct vd_rng *r, uint32_t n)
{
	return n ? (uint32_t)(vd_rand(r) % n) : 0;
}
static inline bool vd_chance(struct vd_rng *r, uint32_t pct)
{
	return vd_below(r, 100) < pct;
}

/* One program from rng using only the enabled shapes (VD_SH_*). */
void vd_generate(struct vd_rng *r, uint32_t shapes, struct vd_prog *out);
const char *vd_shape_name(unsigned bit);

/* ---- kernel (vdiff_kern.c) ---------------------------------------------- */

struct vd_kern {
	int map_fd[VD_NMAPS];
	int btf_fd;
	char *log;
	size_t log_size;
};
/* Creates the maps; -errno with a message in err when the kernel says no. */
int vd_kern_open(struct vd_kern *k, char *err, size_t err_len);
void vd_kern_close(struct vd_kern *k);
/* Loads as BPF_PROG_TYPE_SOCK_OPS and closes the fd: 0 accepted, else -errno
 * and (when why is not NULL) the log's last error line in why. */
int vd_kern_load(struct vd_kern *k, const struct vd_prog *p, char *why, size_t why_len);

/* ---- skops (vdiff_skops.c) ---------------------------------------------- */

struct vd_skops;
int vd_skops_open(struct vd_skops **out);
void vd_skops_close(struct vd_skops *s);
/* Loads with the sock_ops type as skopsctl does: 0 accepted (*prog set, the
 * caller puts it), else -errno and the log's reason line in why. */
int vd_skops_load(struct vd_skops *s, const struct vd_prog *p, struct bpfvm_prog **prog, char *why,
		  size_t why_len);
/* Runs prog runs times on the checked interpreter with random contexts and
 * map contents from r. Returns 0, or 1 on a fault with a description. */
int vd_skops_check(struct vd_skops *s, const struct bpfvm_prog *prog, struct vd_rng *r,
		   unsigned runs, char *what, size_t what_len);

/* ---- shared ------------------------------------------------------------- */

/* A message with numbers, register names and var_off tuples folded, so that
 * messages differing only in those fall into one bucket. */
void vd_bucket_key(const char *msg, char *out, size_t out_len);

#endif
