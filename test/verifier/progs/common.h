/* Shared by the verifier corpus programs: the SDK's seed-style headers. */
#include <uapi/linux/bpf.h>
#include "bpf_helpers.h"

#define NOINLINE __attribute__((noinline))
