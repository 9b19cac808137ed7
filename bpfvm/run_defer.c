/* Memory a running program may still point at: the kernel frees a deleted
 * local-storage element only after an RCU grace period, so a program that
 * fetched the element's pointer and then deleted it (bpf_sk_storage_get,
 * then bpf_sk_storage_delete) keeps reading valid memory until it exits.
 * Here a thread's program invocations mark themselves (bpfvm_run_enter and
 * _exit, nested for tail calls and test harnesses), and memory freed
 * meanwhile waits on that thread's list until the outermost invocation
 * ends: the grace period is "the invocation that saw the element". */
#include <stdlib.h>

#include "bpfvm_int.h"

_Thread_local unsigned bpfvm_run_depth;
_Thread_local bool bpfvm_run_deferred;
static _Thread_local struct bpfvm_deferred *limbo;

void bpfvm_run_reap(void)
{
	bpfvm_run_deferred = false;
	while (limbo) {
		struct bpfvm_deferred *d = limbo;
		limbo = d->next;
		free(d);
	}
}

void bpfvm_free_deferred(struct bpfvm_deferred *d)
{
	if (!d)
		return;
	if (!bpfvm_run_depth) {
		free(d);
		return;
	}
	d->next = limbo;
	limbo = d;
	bpfvm_run_deferred = true;
}
