/* skops-run: runs a program with the skops shim preloaded (like onload).
 *   skops-run [--sock PATH] [--cgroup PATH] -- CMD ARGS...
 * --sock: skopsd's socket (SKOPS_SOCK); --cgroup: the cgroup v2 path whose
 * sock_ops programs apply to the program's sockets instead of its own
 * (SKOPS_CGROUP; skopsd allows it for root). The shim is found next to this
 * binary (preload/libskops_preload.so) unless SKOPS_PRELOAD names it. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"sock", required_argument, NULL, 's'},
					   {"cgroup", required_argument, NULL, 'c'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		if (c == 's')
			setenv("SKOPS_SOCK", optarg, 1);
		else if (c == 'c')
			setenv("SKOPS_CGROUP", optarg, 1);
		else
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	char lib[PATH_MAX + 64];
	const char *env = getenv("SKOPS_PRELOAD");
	if (env && *env) {
		snprintf(lib, sizeof(lib), "%s", env);
	} else {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0) {
			fprintf(stderr, "skops-run: /proc/self/exe: %s\n", strerror(errno));
			return 127;
		}
		self[n] = 0;
		snprintf(lib, sizeof(lib), "%s/preload/libskops_preload.so", dirname(self));
	}
	if (access(lib, R_OK)) {
		fprintf(stderr, "skops-run: %s: %s\n", lib, strerror(errno));
		return 127;
	}
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
	char *pre = malloc(len);
	if (!pre) {
		fprintf(stderr, "skops-run: out of memory\n");
		return 127;
	}
	snprintf(pre, len, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", pre, 1);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "skops-run: %s: %s\n", argv[optind], strerror(errno));
	return 127;
usage:
	fprintf(stderr, "usage: skops-run [--sock PATH] [--cgroup PATH] -- CMD ARGS...\n");
	return 2;
}
