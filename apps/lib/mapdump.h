/* mapdump: every map of a registry as JSON, in the shapes bpftool prints
 * (`map show -j` fields, `map dump -j` entries with hex bytes: no BTF types
 * are kept here). Used by skcat --dump-maps. */
#ifndef SKOPS_APPS_MAPDUMP_H
#define SKOPS_APPS_MAPDUMP_H

#include <stdio.h>

struct bpfvm_registry;

/* One JSON array on f, one object per live map in ID order, then a newline.
 * Per-CPU maps list "values" for cpus 0..ncpus-1 (1..BPFVM_MAX_CPUS). Maps
 * whose entries cannot be walked (ringbuf, perf event array, sk_storage, prog array)
 * have an empty "entries". Returns 0 or a negative errno. */
int mapdump_json(FILE *f, struct bpfvm_registry *reg, unsigned ncpus);

#endif
