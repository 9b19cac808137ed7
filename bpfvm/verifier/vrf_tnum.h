/* Tracked numbers (known bits) for the verifier's scalar tracking. */
#ifndef SKOPS_BPFVM_VRF_TNUM_H
#define SKOPS_BPFVM_VRF_TNUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vrf_tnum {
	uint64_t value, mask; /* bit known iff mask bit clear */
};

struct vrf_tnum vrf_tnum_const(uint64_t v);
struct vrf_tnum vrf_tnum_unknown(void);
bool vrf_tnum_is_const(struct vrf_tnum t);
struct vrf_tnum vrf_tnum_range(uint64_t min, uint64_t max);
struct vrf_tnum vrf_tnum_add(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_sub(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_and(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_or(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_xor(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_mul(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_lshift(struct vrf_tnum a, unsigned s);
struct vrf_tnum vrf_tnum_rshift(struct vrf_tnum a, unsigned s);
struct vrf_tnum vrf_tnum_arshift(struct vrf_tnum a, unsigned s, bool is32);
struct vrf_tnum vrf_tnum_intersect(struct vrf_tnum a, struct vrf_tnum b);
bool vrf_tnum_conflict(struct vrf_tnum a, struct vrf_tnum b);
bool vrf_tnum_in(struct vrf_tnum a, struct vrf_tnum b);
struct vrf_tnum vrf_tnum_subreg(struct vrf_tnum a);
struct vrf_tnum vrf_tnum_with_subreg(struct vrf_tnum a, struct vrf_tnum lo);
int vrf_tnum_str(char *buf, size_t size, struct vrf_tnum t);

#endif
