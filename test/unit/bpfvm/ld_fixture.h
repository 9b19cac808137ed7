/* What the loader tests share: a log buffer reset per open, and the path of a
 * test object meson built from elf/NAME.bpf.c. Included once per test
 * program. */
#ifndef SKOPS_TEST_LD_FIXTURE_H
#define SKOPS_TEST_LD_FIXTURE_H

#include <stdio.h>

#include "bpfvm.h"

static char logbuf[8192];
static struct bpfvm_log lg;

static void log_reset(void)
{
	logbuf[0] = 0;
	lg = (struct bpfvm_log){.level = 1, .buf = logbuf, .size = sizeof logbuf};
}

static const char *obj_path(const char *name)
{
	static char p[4096];
	snprintf(p, sizeof p, "%s/%s.bpf.o", LD_ELF_DIR, name);
	return p;
}

#endif
