/* Verifier entry point: chains the passes (insn encoding, subprograms and
 * CFG, liveness, the path walk, recording) like the kernel's bpf_check, each
 * returning -errno with its reason; the log is written once, on rejection. */
#include <errno.h>
#include <stdlib.h>

#include "vrf_int.h"

int bpfvm_verify(struct bpfvm_prog *prog, struct bpfvm_log *log)
{
	struct vrf_env env;
	int err;

	if (!prog || !prog->type || !prog->type->ctx_access || (!prog->insns && prog->ninsns)) {
		bpfvm_log_printf(log, "verifier: program or program type incomplete\n");
		return -EINVAL;
	}
	/* prog->aux comes from the loader's facts (or vrf_check_insns); the
	 * verifier's own facts start clear */
	for (size_t i = 0; prog->aux && i < prog->ninsns; i++) {
		prog->aux[i].ctx_field = -1;
		prog->aux[i].seen = prog->aux[i].zext_dst = prog->aux[i].map_ptr = 0;
	}
	prog->ctx_fields = 0;
	prog->stack_depth = 0;

	err = vrf_env_init(&env, prog, log);
	env.insn_idx = -1;
	if (!err)
		err = vrf_check_insns(&env);
	if (!err) {
		env.insn_idx = -1;
		err = vrf_check_cfg(&env);
	}
	if (!err)
		err = vrf_compute_liveness(&env);
	if (!err)
		err = vrf_do_check(&env);
	if (!err)
		err = vrf_finish(&env);
	if (err == -ENOMEM && !env.failed)
		bpfvm_log_printf(log, "verifier: out of memory\n");
	else if (err)
		vrf_log_reject(&env, err);
	vrf_env_fini(&env);
	if (!err && log && log->truncated)
		err = -ENOSPC;
	return err;
}
