#!/usr/bin/python3
"""Counts one meson test run from its machine-readable log (meson-logs/
testlog.json, one JSON object per test): prints "passed failed skipped".
Expected failures pass; timeouts, errors and unexpected passes fail."""
import json
import sys

PASS = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}


def main(path):
    counts = [0, 0, 0]
    try:
        with open(path, encoding="utf-8") as log:
            for line in log:
                if not line.strip():
                    continue
                result = json.loads(line)["result"]
                counts[0 if result in PASS else 2 if result in SKIP else 1] += 1
    except (OSError, ValueError, KeyError) as err:
        print("testlog: %s: %s" % (path, err), file=sys.stderr)
        counts[1] += 1  # an unreadable log is a failed run, never a silent pass
    print(*counts)


if __name__ == "__main__":
    main(sys.argv[1])
