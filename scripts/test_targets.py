#!/usr/bin/python3
"""test_targets.py BUILD_DIR SUITE...: the ninja targets (output paths
relative to BUILD_DIR) that the tests of these suites need, one per line, from
meson's introspection. The sanitizer and fuzz configurations build only these
instead of the whole tree (test/run.sh), then run `meson test --no-rebuild`."""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", build, what], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main(build, suites):
    targets = {t["id"]: t for t in introspect(build, "--targets")}
    want = set()
    for test in introspect(build, "--tests"):
        names = {s.split(":", 1)[-1] for s in test["suite"]}
        if not names & suites:
            continue
        want.update(test["depends"])
        # a test whose command is a built executable depends on it too
        for t in targets.values():
            if test["cmd"] and test["cmd"][0] in t["filename"]:
                want.add(t["id"])
    outs = set()
    for tid in want:
        t = targets.get(tid)
        if t is None:
            continue
        for f in t["filename"]:
            outs.add(os.path.relpath(f, os.path.abspath(build)))
    print("\n".join(sorted(outs)))
    return 0 if outs else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], set(sys.argv[2:])))
