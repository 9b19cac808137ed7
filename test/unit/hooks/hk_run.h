/* Shared runner of the program tests: an environment (registry, cgroup tree,
 * hooks instance), ELF loading, and a scenario matrix that runs a program on
 * the socket double and compares reply and setsockopt calls with a model. */
#ifndef SKOPS_TEST_HK_RUN_H
#define SKOPS_TEST_HK_RUN_H

#include "bpfvm.h"
#include "cgroup.h"
#include "hk_double.h"

struct hkr_env {
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hk;
	struct cg_node *root;
	char log[8192];
};

/* One call: which socket, which op. */
struct hkr_scen {
	uint32_t family;
	uint16_t lport, rport;
	bool near;
	bool fullsock;
	uint32_t op;
};

struct hkr_expect {
	int ret;
	unsigned ncalls;
	struct hkd_call calls[HKD_MAX_CALLS];
};

typedef void (*hkr_model_fn)(const struct hkr_scen *sc, struct hkr_expect *e);

void hkr_env_init(struct hkr_env *env);
void hkr_env_fini(struct hkr_env *env);
/* Open path and load its first program as sock_ops; NULL with the error in
 * *err and the log in env->log. obj stays open (maps) until the caller closes it. */
struct bpfvm_prog *hkr_load(struct hkr_env *env, const char *path, bool strict,
			    struct bpfvm_obj **obj, int *err);
/* Attach prog at the root and run it over every scenario (ports 55601 local,
 * 55601 remote, neither; IPv4/IPv6; same/different prefix; op 0-12; full and
 * request socket); fails the test at the first difference from model. */
void hkr_check_matrix(struct hkr_env *env, struct bpfvm_prog *prog, hkr_model_fn model,
		      const char *name);

/* Model building blocks: the seeds' conditions and what the double answers. */
bool hkr_port(const struct hkr_scen *sc);
bool hkr_same44(const struct hkr_scen *sc); /* IPv6 and same upper 44 bits */
bool hkr_same52(const struct hkr_scen *sc); /* IPv6 and same upper 52 bits */
int hkr_sso_int(const struct hkr_scen *sc, struct hkr_expect *e, int level, int opt, int32_t val);
int hkr_sso_str(const struct hkr_scen *sc, struct hkr_expect *e, int level, int opt, const char *s);

#endif
