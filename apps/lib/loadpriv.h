/* loadpriv: whether this process loads BPF programs as a privileged loader,
 * by the rule the kernel applies to bpf(BPF_PROG_LOAD) (perfmon_capable():
 * CAP_PERFMON or CAP_SYS_ADMIN in the effective set). The answer becomes
 * bpfvm_load_opts.allow_ptr_leaks (docs/verifier-diff.md). */
#ifndef SKOPS_APPS_LOADPRIV_H
#define SKOPS_APPS_LOADPRIV_H

#include <stdbool.h>

/* false when the capabilities cannot be read */
bool loadpriv_allow_ptr_leaks(void);

#endif
