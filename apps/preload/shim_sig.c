/* shim_sig: which signal interrupted a wait, and whether its handler asked
 * for SA_RESTART. The kernel restarts an interrupted untimed recv/accept/
 * connect for such a handler; the shim's waits are ppoll, which the kernel
 * never restarts, so the shim installs every handler through a trampoline
 * that notes the signal and goes on waiting itself. The program sees its
 * own handlers and flags in sigaction's old action. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <signal.h>

#include "shim_entry.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
	void *_Atomic fn; /* the program's sa_handler or sa_sigaction */
	_Atomic int flags;
} acts[NSIG];
static __thread volatile sig_atomic_t last_sig;

static void tramp(int sig, siginfo_t *si, void *uc)
{
	last_sig = sig;
	void *fn = atomic_load(&acts[sig].fn);
	if (atomic_load(&acts[sig].flags) & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))fn)(sig, si, uc);
	else
		((void (*)(int))fn)(sig);
}

bool shim_sig_restart(void)
{
	int sig = last_sig;
	return sig > 0 && sig < NSIG && (atomic_load(&acts[sig].flags) & SA_RESTART);
}

void shim_sig_clear(void)
{
	last_sig = 0;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	shim_init();
	if (sig <= 0 || sig >= NSIG)
		return shim_real.sigaction(sig, act, old);
	void *pfn = atomic_load(&acts[sig].fn);
	int pflags = atomic_load(&acts[sig].flags);
	struct sigaction k, prev;
	const struct sigaction *use = act;
	bool wrap = act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
	if (wrap) {
		/* before the kernel's: a signal arriving at once finds its handler */
		atomic_store(&acts[sig].fn, (act->sa_flags & SA_SIGINFO) ? (void *)act->sa_sigaction
									 : (void *)act->sa_handler);
		atomic_store(&acts[sig].flags, act->sa_flags);
		k = *act;
		k.sa_flags |= SA_SIGINFO;
		k.sa_sigaction = tramp;
		use = &k;
	}
	if (shim_real.sigaction(sig, use, &prev)) {
		int e = errno;
		atomic_store(&acts[sig].fn, pfn);
		atomic_store(&acts[sig].flags, pflags);
		errno = e;
		return -1;
	}
	if (old) {
		*old = prev;
		if (prev.sa_sigaction == tramp) {
			old->sa_flags = pflags;
			if (pflags & SA_SIGINFO)
				old->sa_sigaction = (void (*)(int, siginfo_t *, void *))pfn;
			else
				old->sa_handler = (void (*)(int))pfn;
		}
	}
	return 0;
}

/* glibc's signal() reaches the kernel without sigaction's symbol: BSD
 * semantics, the handler restarts calls and blocks its own signal. */
EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	struct sigaction a = {.sa_handler = h, .sa_flags = SA_RESTART}, o;
	sigemptyset(&a.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&a.sa_mask, sig);
	return sigaction(sig, &a, &o) ? SIG_ERR : o.sa_handler;
}
