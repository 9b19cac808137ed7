/* Memory access of the interpreter (RFC 9669 §5): unaligned-safe loads and
 * stores and the atomic operations, inlined into interp.c's dispatch loop.
 * The checks of a checked run are interp_checks.h's, made before these run.
 * Include only from interp.c. */
#ifndef SKOPS_BPFVM_INTERP_MEM_H
#define SKOPS_BPFVM_INTERP_MEM_H

#include "interp_int.h"

/* Unaligned-safe accessors: memcpy compiles to one mov on x86-64. */
#define INTERP_LOADT(T, a)                                                                         \
	({                                                                                         \
		T v_;                                                                              \
		memcpy(&v_, (const void *)(uintptr_t)(a), sizeof(v_));                             \
		v_;                                                                                \
	})
#define INTERP_STORET(T, a, v)                                                                     \
	do {                                                                                       \
		T v_ = (T)(v);                                                                     \
		memcpy((void *)(uintptr_t)(a), &v_, sizeof(v_));                                   \
	} while (0)

/* Atomic op imm of type T at address a (RFC 9669 §5.3): sequentially
 * consistent like the kernel's lock-prefixed ops; FETCH returns the old value
 * in *src, zero-extended for 32 bits; cmpxchg compares with and returns in
 * *r0. false: imm is no atomic op (the run stops at a). */
#define INTERP_ATOMIC(name, T)                                                                     \
	INTERP_INLINE bool name(uint64_t a, int32_t imm, uint64_t *src, uint64_t *r0)              \
	{                                                                                          \
		T *p = (T *)(uintptr_t)a;                                                          \
		T s = (T)*src, old;                                                                \
		switch (imm) {                                                                     \
		case BPF_ADD:                                                                      \
		case BPF_ADD | BPF_FETCH:                                                          \
			old = __atomic_fetch_add(p, s, __ATOMIC_SEQ_CST);                          \
			break;                                                                     \
		case BPF_OR:                                                                       \
		case BPF_OR | BPF_FETCH:                                                           \
			old = __atomic_fetch_or(p, s, __ATOMIC_SEQ_CST);                           \
			break;                                                                     \
		case BPF_AND:                                                                      \
		case BPF_AND | BPF_FETCH:                                                          \
			old = __atomic_fetch_and(p, s, __ATOMIC_SEQ_CST);                          \
			break;                                                                     \
		case BPF_XOR:                                                                      \
		case BPF_XOR | BPF_FETCH:                                                          \
			old = __atomic_fetch_xor(p, s, __ATOMIC_SEQ_CST);                          \
			break;                                                                     \
		case BPF_XCHG:                                                                     \
			old = __atomic_exchange_n(p, s, __ATOMIC_SEQ_CST);                         \
			break;                                                                     \
		case BPF_CMPXCHG:                                                                  \
			old = (T)*r0;                                                              \
			__atomic_compare_exchange_n(p, &old, s, false, __ATOMIC_SEQ_CST,           \
						    __ATOMIC_SEQ_CST);                             \
			*r0 = old;                                                                 \
			return true;                                                               \
		default:                                                                           \
			return false;                                                              \
		}                                                                                  \
		if (imm & BPF_FETCH)                                                               \
			*src = old;                                                                \
		return true;                                                                       \
	}
INTERP_ATOMIC(interp_atomic32, uint32_t)
INTERP_ATOMIC(interp_atomic64, uint64_t)
#undef INTERP_ATOMIC

#endif
