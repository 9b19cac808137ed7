/* The conformance-protocol suite: every .data file in test/unit/bpfvm/isa/ (the
 * bpf_conformance format: -- raw u64 insns, -- mem hex bytes, -- result or
 * -- error) is fed to build/apps/bpfvm-plugin exactly as bpf_conformance does
 * (memory hex as argv[1], the plugin options as argv[2], program bytes as hex
 * on stdin) and the printed r0 is compared. Unlike bpf_conformance, which
 * compares the low 32 bits, the full 64-bit r0 must match; an -- error case
 * must exit non-zero with the expected text on stderr.
 * SKOPS_ISA_PLUGIN_OPTS sets argv[2] (default "--interpret"; "--jit" runs the
 * JIT). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"

#define DATA_MAX_FILES	1024
#define DATA_TIMEOUT_MS 20000

static char *data_files[DATA_MAX_FILES];
static int data_nfiles;
static char data_dir[4096];

struct data_case {
	char *raw;    /* program bytes as "xx  " hex, like _base_16_encode */
	char *mem;    /* same for memory */
	char *result; /* text after -- result, or NULL */
	char *error;  /* text after -- error, or NULL */
	bool asm_only;
};

static void sappend(char **s, size_t *len, const char *add)
{
	size_t n = strlen(add);
	char *p = realloc(*s, *len + n + 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p + *len, add, n + 1);
	*s = p;
	*len += n;
}

static void parse_data(const char *path, struct data_case *c)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	enum { S_IGNORE, S_ASM, S_RAW, S_RESULT, S_MEM, S_ERROR } st = S_IGNORE;
	char line[1024];
	size_t rawlen = 0, memlen = 0;
	memset(c, 0, sizeof(*c));
	c->raw = strdup("");
	c->mem = strdup("");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strstr(line, "--")) {
			if (strstr(line, "asm"))
				st = S_ASM;
			else if (strstr(line, "result"))
				st = S_RESULT;
			else if (strstr(line, "mem"))
				st = S_MEM;
			else if (strstr(line, "raw"))
				st = S_RAW;
			else if (strstr(line, "error"))
				st = S_ERROR;
			else
				ck_abort_msg("%s: unknown directive '%s'", path, line);
			continue;
		}
		if (!line[0])
			continue;
		switch (st) {
		case S_ASM:
			c->asm_only = true;
			break;
		case S_RESULT:
			free(c->result);
			c->result = strdup(line);
			break;
		case S_ERROR:
			free(c->error);
			c->error = strdup(line);
			break;
		case S_MEM: {
			char *save, *tok;
			for (tok = strtok_r(line, " \t", &save); tok;
			     tok = strtok_r(NULL, " \t", &save)) {
				char b[8];
				unsigned long v = strtoul(tok, NULL, 16);
				ck_assert_msg(v <= 0xff, "%s: mem byte '%s'", path, tok);
				snprintf(b, sizeof(b), "%02lx  ", v);
				sappend(&c->mem, &memlen, b);
			}
			break;
		}
		case S_RAW: {
			char *save, *tok;
			for (tok = strtok_r(line, " \t", &save); tok;
			     tok = strtok_r(NULL, " \t", &save)) {
				char *end;
				errno = 0;
				unsigned long long v = strtoull(tok, &end, 0);
				ck_assert_msg(!errno && !*end, "%s: raw word '%s'", path, tok);
				for (int k = 0; k < 8; k++) {
					char b[8];
					snprintf(b, sizeof(b), "%02llx  ", (v >> (8 * k)) & 0xff);
					sappend(&c->raw, &rawlen, b);
				}
			}
			break;
		}
		default:
			break;
		}
	}
	fclose(f);
}

/* Read fd until EOF or the deadline; returns a malloc'd string. */
static char *drain(int fd, struct timespec *deadline, bool *timed_out)
{
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (deadline->tv_sec - now.tv_sec) * 1000 +
			  (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0) {
			*timed_out = true;
			break;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, (int)ms) <= 0)
			continue;
		if (len + 128 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

static int run_plugin(const char *plugin, const struct data_case *c, const char *opts, char **out,
		      char **err)
{
	int in[2], o[2], e[2];
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(o), 0);
	ck_assert_int_eq(pipe(e), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(in[1]);
		close(o[0]);
		close(e[0]);
		execl(plugin, plugin, c->mem, opts, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	close(e[1]);
	/* the whole program fits the pipe buffer for our cases; write then close,
	 * as bpf_conformance does (one line and a newline) */
	signal(SIGPIPE, SIG_IGN);
	size_t len = strlen(c->raw);
	ck_assert_msg(len < 60000, "program too large for one pipe write");
	ck_assert_int_eq(write(in[1], c->raw, len), (ssize_t)len);
	ck_assert_int_eq(write(in[1], "\n", 1), 1);
	close(in[1]);
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += DATA_TIMEOUT_MS / 1000;
	bool timed_out = false;
	*out = drain(o[0], &deadline, &timed_out);
	*err = drain(e[0], &deadline, &timed_out);
	close(o[0]);
	close(e[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(!timed_out, "plugin did not finish within %d ms", DATA_TIMEOUT_MS);
	ck_assert_msg(WIFEXITED(status), "plugin died with signal %d",
		      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

START_TEST(data_case)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", data_dir, data_files[_i]);
	struct data_case c;
	parse_data(path, &c);
	ck_assert_msg(!c.asm_only || c.raw[0], "%s: -- asm needs an assembler; use -- raw", path);
	ck_assert_msg(c.raw[0], "%s: no instructions", path);
	ck_assert_msg(c.result || c.error, "%s: no result or error", path);
	const char *build = getenv("SKOPS_BUILD");
	ck_assert_msg(build, "SKOPS_BUILD not set");
	char plugin[4096];
	snprintf(plugin, sizeof(plugin), "%s/apps/bpfvm-plugin", build);
	ck_assert_msg(access(plugin, X_OK) == 0, "%s: %s", plugin, strerror(errno));
	const char *opts = getenv("SKOPS_ISA_PLUGIN_OPTS");
	if (!opts)
		opts = "--interpret";
	char *out, *err;
	int rc = run_plugin(plugin, &c, opts, &out, &err);
	if (c.error) {
		ck_assert_msg(rc != 0, "%s: expected error '%s', got exit 0 and '%s'",
			      data_files[_i], c.error, out);
		ck_assert_msg(strstr(err, c.error), "%s: expected '%s' in stderr, got '%s'",
			      data_files[_i], c.error, err);
	} else {
		ck_assert_msg(rc == 0, "%s: plugin exit %d: %s", data_files[_i], rc, err);
		char *end;
		errno = 0;
		unsigned long long want =
		    strtoull(c.result, &end, strstr(c.result, "0x") ? 16 : 10);
		ck_assert_msg(!errno && !*end, "%s: bad result '%s'", data_files[_i], c.result);
		errno = 0;
		unsigned long long got = strtoull(out, &end, 16);
		ck_assert_msg(!errno && end != out && (*end == '\n' || !*end),
			      "%s: plugin printed '%s'", data_files[_i], out);
		ck_assert_msg(got == want, "%s: r0 0x%llx, expected 0x%llx", data_files[_i], got,
			      want);
	}
	free(out);
	free(err);
	free(c.raw);
	free(c.mem);
	free(c.result);
	free(c.error);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_files(void)
{
	const char *src = getenv("SKOPS_SRC");
	if (!src)
		return;
	snprintf(data_dir, sizeof(data_dir), "%s/test/unit/bpfvm/isa", src);
	DIR *d = opendir(data_dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) && data_nfiles < DATA_MAX_FILES) {
		size_t n = strlen(de->d_name);
		if (n > 5 && strcmp(de->d_name + n - 5, ".data") == 0)
			data_files[data_nfiles++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(data_files, (size_t)data_nfiles, sizeof(data_files[0]), cmp_str);
}

START_TEST(data_files_present)
{
	ck_assert_msg(getenv("SKOPS_SRC"), "SKOPS_SRC not set");
	ck_assert_msg(data_nfiles >= 100, "%s: only %d .data files", data_dir, data_nfiles);
}
END_TEST

static Suite *data_suite(void)
{
	list_files();
	Suite *s = suite_create("bpfvm_isa_data");
	TCase *tc = tcase_create("plugin");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, data_files_present);
	tcase_add_loop_test(tc, data_case, 0, data_nfiles);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(data_suite)
