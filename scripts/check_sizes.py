#!/usr/bin/env python3
"""Files a reader can hold: no C source or header over 800 lines, no function
over 150 (docs/style.md). A function may be longer only when it is one
dispatch switch whose cases are calls, and a comment within the three lines
above it says so with the words "dispatch switch". Functions are found as
clang-format lays them out here: a line that is only "{" opens a function
body and the next line starting with "}" closes it. Exits 1 naming each
offender."""
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
MAX_FILE = 800
MAX_FUNC = 150
TOPS = ('apps', 'stack', 'hooks', 'bpfvm', 'cgroup', 'test')


def name_of(lines, brace):
    j = brace - 1
    while j > 0 and '(' not in lines[j]:
        j -= 1
    return lines[j].split('(')[0].split()[-1].lstrip('*') if '(' in lines[j] else '?', j


def check(rel, bad):
    with open(os.path.join(ROOT, rel), errors='replace') as f:
        lines = f.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) > MAX_FILE:
        bad.append(f'{rel}: {len(lines)} lines (at most {MAX_FILE})')
    start = None
    for i, line in enumerate(lines):
        if line == '{':
            start = i
        elif line.startswith('}') and start is not None:
            n = i - start + 1
            if n > MAX_FUNC:
                name, head = name_of(lines, start)
                above = ' '.join(lines[max(0, head - 3):head])
                if 'dispatch switch' not in above:
                    bad.append(f'{rel}:{head + 1}: {name}() is {n} lines (at most {MAX_FUNC})')
            start = None


def main():
    bad = []
    files = 0
    for top in TOPS:
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                if n.endswith(('.c', '.h')):
                    files += 1
                    check(os.path.relpath(os.path.join(d, n), ROOT), bad)
    for b in bad:
        print(b)
    print(f'check_sizes: {files} files, {len(bad)} over the limits')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
