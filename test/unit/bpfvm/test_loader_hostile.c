/* The hostile-ELF corpus (hostile/gen_hostile.c, generated at build time):
 * every file must be refused with a "loader: FILE: ..." line and one of the
 * loader's errnos, leaving nothing registered; none may crash or hang (the
 * ASan+UBSan build runs this too). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "check_main.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(corpus_rejected)
{
	const char *dir =
	    getenv("SKOPS_HOSTILE_DIR") ? getenv("SKOPS_HOSTILE_DIR") : LD_HOSTILE_DIR;
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "corpus %s: %s (built by gen_hostile)", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < 100000) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".o") != 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	/* five objects times several hundred faults each */
	ck_assert_msg(n >= 1000, "only %zu corpus files in %s", n, dir);
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	static char logbuf[4096];
	for (size_t i = 0; i < n; i++) {
		char path[4096], want[4200];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct bpfvm_log lg = {.level = 1, .buf = logbuf, .size = sizeof logbuf};
		logbuf[0] = 0;
		struct bpfvm_obj *o = NULL;
		int rc = bpfvm_obj_open(reg, path, NULL, 0, &lg, &o);
		ck_assert_msg(rc == -EINVAL || rc == -ENOEXEC || rc == -ENOMEM,
			      "%s: rc %d (log: %s)", names[i], rc, logbuf);
		ck_assert_ptr_null(o);
		snprintf(want, sizeof want, "loader: %s: ", path);
		ck_assert_msg(strncmp(logbuf, want, strlen(want)) == 0, "%s: log '%s'", names[i],
			      logbuf);
		ck_assert_msg(logbuf[strlen(logbuf) - 1] == '\n', "%s: '%s'", names[i], logbuf);
		free(names[i]);
	}
	free(names);
	uint32_t next;
	ck_assert_int_eq(bpfvm_map_get_next_id(reg, 0, &next), -ENOENT);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("bpfvm_loader_hostile");
	TCase *tc = tcase_create("corpus");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, corpus_rejected);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(hostile_suite)
