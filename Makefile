# Thin wrapper over meson; see README.md.
.PHONY: all deps build demo test check format clean bench coverage
all: build
deps:
	@scripts/install-deps.sh
build: deps
	@scripts/build.sh build
demo: build
	@scripts/demo.sh
test: deps
	@test/run.sh
# the quick tier (no root, a few minutes): unit + verifier, quick mode, format
check:
	@test/check.sh
format:
	@scripts/format.sh --fix
# line coverage per directory (gcovr) of the quick tier's suites; ALL=1: every suite
coverage: deps
	@scripts/coverage.sh $(if $(ALL),--all)
clean:
	rm -rf build build-asan build-fuzz build-cov
# the benchmark suite against the kernel (root; QUICK=1: a few seconds a figure)
bench: build
	@test/bench/run.sh $(if $(QUICK),--quick)
