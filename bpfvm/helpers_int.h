/* Shared by the helper implementations (helpers_*.c) only. */
#ifndef SKOPS_BPFVM_HELPERS_INT_H
#define SKOPS_BPFVM_HELPERS_INT_H

#include "bpfvm_int.h"

/* The widest field bpfvm_fmt formats: one conversion's output buffer. A
 * wider one is -EINVAL (docs/verifier-diff.md "Run-time budget"). */
#define BPFVM_FMT_MAX_WIDTH 255

/* Format fmt (fmt_size bytes, NUL-terminated within them) with at most
 * max_args of the nargs u64 args into out (size bytes, always NUL-terminated
 * when size > 0); %s strings only from what bpfvm_run_readable(run) admits.
 * Returns the length the full output needs without the NUL, or -EINVAL for a
 * format outside the subset or too few arguments. */
int bpfvm_fmt(const struct bpfvm_run *run, char *out, size_t size, const char *fmt, size_t fmt_size,
	      const uint64_t *args, size_t nargs, size_t max_args);

#endif
