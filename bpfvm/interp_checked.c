/* The bounds-checked interpreter (bpfvm_interp_run_checked): the same source as
 * interp.c compiled with every memory access and helper pointer checked, for
 * the fuzzer, differential tests and the conformance runner. */
#define BPFVM_CHECKED 1
#include "interp.c"
