/* Shared by the verifier corpus programs: the SDK's seed-style headers. */
#include <uapi/linux/bpf.h>
#include "bpf_helpers.h"

#define NOINLINE __attribute__((noinline))
/* a program written in BPF assembly, every register and insn as given */
#define NAKED __attribute__((naked))
