/* Caller-owned logs: every message of the loader and verifier lands here, never
 * on stderr (docs/style.md "Errors"). */
#include <stdarg.h>
#include <stdio.h>

#include "bpfvm.h"

void bpfvm_log_printf(struct bpfvm_log *log, const char *fmt, ...)
{
	if (!log || !log->level || !log->buf || log->size == 0)
		return;
	if (log->used >= log->size - 1) {
		log->truncated = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	size_t room = log->size - log->used;
	int n = vsnprintf(log->buf + log->used, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		log->used = log->size - 1;
		log->truncated = true;
	} else {
		log->used += (size_t)n;
	}
}
