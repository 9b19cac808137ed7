/* skopsctl prog dump --jited: the JIT image of a loaded program. */
#ifndef SKOPS_APPS_SKOPSCTL_JITED_H
#define SKOPS_APPS_SKOPSCTL_JITED_H

#include <stdbool.h>
#include <stdio.h>

#include "bpfvm.h"

/* Print each instruction (bpftool xlated syntax) followed by its machine code
 * as offset + hex bytes, objdump-style; json prints one array of
 * {"pc","insn","off","bytes"} objects (the prologue has pc -1). Returns 0, or
 * -ENOENT when the program runs on the interpreter (no image). */
int skopsctl_print_jited(FILE *out, const struct bpfvm_prog *prog, bool json);

#endif
