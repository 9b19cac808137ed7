/* x86-64 JIT entry point. Until the translator lands, programs stay on the
 * interpreter (the documented fallback). */
#include <errno.h>

#include "bpfvm_int.h"

int bpfvm_jit_compile(struct bpfvm_prog *prog, struct bpfvm_log *log)
{
	(void)prog;
	bpfvm_log_printf(log, "jit: not available in this build, using the interpreter\n");
	return -EOPNOTSUPP;
}

void bpfvm_jit_free(struct bpfvm_prog *prog)
{
	(void)prog;
}
