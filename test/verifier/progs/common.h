/* Shared by the verifier corpus programs: the SDK's seed-style headers. */
#include <uapi/linux/bpf.h>
#include "bpf_helpers.h"

#define NOINLINE __attribute__((noinline))
/* a program written in BPF assembly, every register and insn as given */
#define NAKED __attribute__((naked))

/* BTF-defined maps (libbpf's encoding), for values that hold a struct
 * bpf_spin_lock: skops, as the kernel, finds the lock only through BTF. */
#define __uint(name, val) int(*name)[val]
#define __type(name, val) typeof(val) *name
