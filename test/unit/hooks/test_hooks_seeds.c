/* The Linux 4.13 seed samples (samples/bpf/tcp_*_kern.c of the seed patches),
 * compiled at test time with the SDK: each loads and verifies in
 * compatibility mode, strict mode refuses its "return -1", and on the socket
 * double every op gives the reply and setsockopt calls its source implies.
 * Seeds from $SKOPS_SEEDS, else $SKOPS_SEEDS_DEFAULT; missing → exit 77 (not
 * run): every case here is a seed sample; test_hooks_progs always runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "hk_run.h"

static char objdir[] = "/tmp/skops-seeds-XXXXXX";

/* SO_SNDBUF then SO_RCVBUF of size; the samples' "rv*100 + rv" encoding. */
static int bufs_pair(const struct hkr_scen *sc, struct hkr_expect *e, int32_t size)
{
	int rv = hkr_sso_int(sc, e, 1, 7, size);
	return rv * 100 + hkr_sso_int(sc, e, 1, 8, size);
}

/* tcp_rwnd_kern.c: 40-segment window for IPv6 peers outside the /52. */
static void model_rwnd(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (!hkr_port(sc))
		return;
	if (sc->op == 2 && sc->family == 10 && !hkr_same52(sc))
		e->ret = 40;
}

/* tcp_bufs_kern.c: rwnd 40, 1.5 MB buffers at connect and passive established. */
static void model_bufs(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (!hkr_port(sc))
		return;
	switch (sc->op) {
	case 2:
		e->ret = 40;
		break;
	case 3:
	case 5:
		e->ret = bufs_pair(sc, e, 1500000);
		break;
	case 4:
		e->ret = 0;
		break;
	}
}

/* tcp_cong_kern.c: ECN and DCTCP inside the /44. */
static void model_cong(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (!hkr_port(sc) || !hkr_same44(sc))
		return;
	if (sc->op == 6)
		e->ret = 1;
	else if (sc->op == 4 || sc->op == 5)
		e->ret = hkr_sso_str(sc, e, 6, 13, "dctcp");
}

/* tcp_iw_kern.c: rwnd 40, buffers, initial cwnd 40 on the active side. */
static void model_iw(const struct hkr_scen *sc, struct hkr_expect *e)
{
	e->ret = -1;
	if (!hkr_port(sc))
		return;
	switch (sc->op) {
	case 2:
		e->ret = 40;
		break;
	case 3:
	case 5:
		e->ret = bufs_pair(sc, e, 1500000);
		break;
	case 4:
		e->ret = hkr_sso_int(sc, e, 6, 1001, 40);
		break;
	}
}

/* tcp_clamp_kern.c: inside the /44: SYN RTO 10, buffers 150000, clamp 100. */
static void model_clamp(const struct hkr_scen *sc, struct hkr_expect *e)
{
	int rv;

	e->ret = -1;
	if (!hkr_port(sc) || !hkr_same44(sc))
		return;
	switch (sc->op) {
	case 1:
		e->ret = 10;
		break;
	case 3:
		e->ret = bufs_pair(sc, e, 150000);
		break;
	case 4:
		e->ret = hkr_sso_int(sc, e, 6, 1002, 100);
		break;
	case 5:
		rv = hkr_sso_int(sc, e, 6, 1002, 100);
		rv = rv * 100 + hkr_sso_int(sc, e, 1, 7, 150000);
		e->ret = rv * 100 + hkr_sso_int(sc, e, 1, 8, 150000);
		break;
	}
}

static const struct {
	const char *obj;
	hkr_model_fn model;
} seeds[] = {
    {"tcp_rwnd_kern.o", model_rwnd},   {"tcp_bufs_kern.o", model_bufs},
    {"tcp_cong_kern.o", model_cong},   {"tcp_iw_kern.o", model_iw},
    {"tcp_clamp_kern.o", model_clamp},
};
#define NSEEDS (sizeof(seeds) / sizeof(seeds[0]))

static void seed_path(size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", objdir, seeds[i].obj);
}

START_TEST(seed_matrix)
{
	struct hkr_env env;
	struct bpfvm_obj *obj;
	struct bpfvm_prog *p;
	char path[256];
	int err;

	hkr_env_init(&env);
	seed_path((size_t)_i, path, sizeof path);
	p = hkr_load(&env, path, false, &obj, &err);
	ck_assert_msg(p != NULL, "%s: load %d: %s", path, err, env.log);
	ck_assert_str_eq(bpfvm_obj_license(obj), "GPL");
	hkr_check_matrix(&env, p, seeds[_i].model, seeds[_i].obj);
	bpfvm_prog_put(p);
	bpfvm_obj_close(obj);
	hkr_env_fini(&env);
}
END_TEST

/* The samples end a port mismatch with "return -1": a current kernel's
 * verifier (and our strict mode) refuses R0 outside [0, 1]. */
START_TEST(seed_strict_rejects)
{
	struct hkr_env env;
	struct bpfvm_obj *obj;
	struct bpfvm_prog *p;
	char path[256];
	int err;

	hkr_env_init(&env);
	seed_path((size_t)_i, path, sizeof path);
	p = hkr_load(&env, path, true, &obj, &err);
	ck_assert_msg(p == NULL && err < 0, "%s: strict load accepted", path);
	ck_assert_msg(env.log[0] != '\0', "%s: rejection without a log line", path);
	if (obj)
		bpfvm_obj_close(obj);
	hkr_env_fini(&env);
}
END_TEST

static Suite *seeds_suite(void)
{
	Suite *s = suite_create("hooks_seeds");
	TCase *tc = tcase_create("seeds");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, seed_matrix, 0, (int)NSEEDS);
	tcase_add_loop_test(tc, seed_strict_rejects, 0, (int)NSEEDS);
	suite_add_tcase(s, tc);
	return s;
}

static void cleanup(void)
{
	char path[256];

	for (size_t i = 0; i < NSEEDS; i++) {
		seed_path(i, path, sizeof path);
		unlink(path);
		path[strlen(path) - 1] = 'c';
		unlink(path);
	}
	rmdir(objdir);
}

int main(void)
{
	const char *seeds_dir = getenv("SKOPS_SEEDS");
	const char *src = getenv("SKOPS_SRC"), *sdk = getenv("SKOPS_SDK");
	char cmd[1024];
	struct stat st;
	int rc, failed;

	if (!seeds_dir || !*seeds_dir)
		seeds_dir = getenv("SKOPS_SEEDS_DEFAULT");
	if (!seeds_dir || stat(seeds_dir, &st) != 0) {
		printf("hooks_seeds: seed patches not found (%s): the seed samples were not run "
		       "(the project's programs are test_hooks_progs)\n",
		       seeds_dir ? seeds_dir : "SKOPS_SEEDS unset");
		return 77;
	}
	if (!src || !sdk || !mkdtemp(objdir)) {
		fprintf(stderr, "hooks_seeds: SKOPS_SRC/SKOPS_SDK unset or no temp dir\n");
		return EXIT_FAILURE;
	}
	snprintf(cmd, sizeof cmd,
		 "sh '%s/test/unit/hooks/build_seeds.sh' '%s' '%s' '%s' >/dev/null", src, seeds_dir,
		 sdk, objdir);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "hooks_seeds: building the seed samples failed (%d)\n", rc);
		cleanup();
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < NSEEDS; i++) {
		char path[256];
		seed_path(i, path, sizeof path);
		if (stat(path, &st) != 0) {
			fprintf(stderr, "hooks_seeds: %s: not among the seed samples\n", path);
			cleanup();
			return EXIT_FAILURE;
		}
	}
	SRunner *sr = srunner_create(seeds_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
