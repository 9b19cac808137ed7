/* Verifier entry point. Until the path walk lands, every program is refused:
 * nothing unproven may run. */
#include <errno.h>

#include "bpfvm_int.h"

int bpfvm_verify(struct bpfvm_prog *prog, struct bpfvm_log *log)
{
	(void)prog;
	bpfvm_log_printf(log, "verifier: not available in this build\n");
	return -EOPNOTSUPP;
}
