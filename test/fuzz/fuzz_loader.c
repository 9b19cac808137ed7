/* libFuzzer target for the ELF loader: any byte string goes to bpfvm_obj_open;
 * it must return an object or a logged -EINVAL/-ENOEXEC/-ENOMEM, never crash,
 * leak or leave maps registered; an object that opens has each program loaded
 * (CO-RE relocation, verifier). Seeds: small clang-built objects, and
 * core_kinds with a CO-RE relocation moved onto each instruction kind
 * (gen_loader_seeds.py). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "bpfvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 0;
	char buf[1024];
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof buf};
	struct bpfvm_obj *obj = NULL;
	int rc = bpfvm_obj_open(reg, NULL, data, size, &log, &obj);
	if (rc && (rc != -EINVAL && rc != -ENOEXEC && rc != -ENOMEM))
		abort();
	if (rc && log.used == 0)
		abort(); /* every rejection names its reason */
	if (!rc) {
		for (size_t i = 0; i < bpfvm_obj_prog_count(obj); i++) {
			const char *sec = bpfvm_obj_prog_section(obj, i);
			if (!sec)
				abort();
			/* load: CO-RE relocations are applied (against no target
			 * BTF: the poisoning path) before the verifier runs */
			struct bpfvm_prog *prog = NULL;
			struct bpfvm_load_opts opts = {.log = &log};
			log.used = 0;
			if (bpfvm_obj_load_prog(obj, sec, &opts, &prog) == 0)
				bpfvm_prog_put(prog);
		}
		bpfvm_obj_close(obj);
	}
	uint32_t next;
	if (bpfvm_map_get_next_id(reg, 0, &next) != -ENOENT)
		abort(); /* a closed or failed object leaves no map behind */
	bpfvm_registry_destroy(reg);
	return 0;
}
