#!/usr/bin/env python3
"""The layering rule of docs/architecture.md, checked over the includes.

Every product source belongs to one component; a component may include its
own headers and those of the components it sits on (transitively), never a
header of a component above it or beside it. Tests (test/) and the BPF C
sources (hooks/sdk, hooks/progs) are not product code and are not checked.
Run from anywhere: exits 1 and names each offending include."""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

# component: (path prefixes, components it sits on). The longest matching
# prefix decides a file's component.
COMPONENTS = {
    'bpfvm': (['bpfvm/'], []),
    'cgroup': (['cgroup/'], []),
    'hooks': (['hooks/'], ['bpfvm', 'cgroup']),
    'stack/clk': (['stack/clk.'], []),
    'stack/wire': (['stack/wire/'], ['stack/clk']),
    'stack/dev': (['stack/dev/'], ['stack/wire']),
    'stack/net': (['stack/net/'], ['stack/dev']),
    # congestion control sees only its view (cc.h): no tcb, no sending
    'stack/tcp/cc': (['stack/tcp/cc/'], []),
    # the stack calls hooks through one wrapper per call site and cgroup to
    # place a socket; it knows nothing of BPF
    'stack/tcp': (['stack/tcp/'], ['stack/tcp/cc', 'stack/wire', 'hooks', 'cgroup']),
    'stack': (['stack/'], ['stack/net', 'stack/tcp']),
    # what several tools share: port options, the shim<->daemon protocol
    'apps/lib': (['apps/lib/'], ['stack', 'bpfvm', 'cgroup', 'hooks']),
    'apps/skp': (['apps/skp/'], ['stack']),
    # the shim: entry points on top of the fd table on top of the transport
    # (docs/skopsd.md "Layers")
    'shim/transport': (['apps/preload/shim_transport.h', 'apps/preload/shim_ctl.',
                        'apps/preload/shim_wait.', 'apps/preload/shim_shm.'], ['apps/skp']),
    'shim/fdtab': (['apps/preload/shim_fdtab.h', 'apps/preload/shim_fd.',
                    'apps/preload/shim_dgram.', 'apps/preload/shim_loop.',
                    'apps/preload/shim_inherit.'], ['shim/transport']),
    'apps/preload': (['apps/preload/'], ['shim/fdtab', 'apps/lib']),
    'apps/skopsd': (['apps/skopsd/'], ['apps/skp', 'apps/lib']),
    'apps/skperf': (['apps/skperf/'], ['apps/lib']),
    'apps/jited': (['apps/jited/'], ['apps/lib']),
    'apps': (['apps/'], ['apps/lib', 'apps/jited', 'apps/skp']),
}
EXCLUDE = ('hooks/sdk/', 'hooks/progs/')
# where "x.h" is looked for after the including file's own directory (the
# public include directories meson gives dependants)
SEARCH = ['bpfvm/include', 'cgroup/include', 'hooks/include', 'stack', 'stack/tcp', 'stack/net',
          'stack/dev', 'stack/wire', 'apps/lib', 'apps/skp']

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def component(rel):
    best = None
    for name, (prefixes, _) in COMPONENTS.items():
        for p in prefixes:
            if rel.startswith(p) and (best is None or len(p) > best[1]):
                best = (name, len(p))
    return best[0] if best else None


def below(name, seen=None):
    seen = set() if seen is None else seen
    for dep in COMPONENTS[name][1]:
        if dep not in seen:
            seen.add(dep)
            below(dep, seen)
    return seen


def resolve(rel, inc, headers):
    here = os.path.dirname(rel)
    for d in [here] + SEARCH:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    # a directory's own include_directories (meson): a unique basename
    found = headers.get(os.path.basename(inc), [])
    return found[0] if len(found) == 1 else None


def sources():
    for top in ('apps', 'stack', 'hooks', 'bpfvm', 'cgroup'):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(d, n), ROOT)
                if n.endswith(('.c', '.h')) and not rel.startswith(EXCLUDE):
                    yield rel


def main():
    headers = {}
    for rel in sources():
        if rel.endswith('.h'):
            headers.setdefault(os.path.basename(rel), []).append(rel)
    bad = []
    files = 0
    for rel in sources():
        files += 1
        me = component(rel)
        ok = below(me) | {me}
        with open(os.path.join(ROOT, rel), errors='replace') as f:
            for ln, line in enumerate(f, 1):
                m = INC.match(line)
                if not m:
                    continue
                target = resolve(rel, m.group(1), headers)
                if target is None:
                    bad.append(f'{rel}:{ln}: "{m.group(1)}" is no header of the project')
                elif not target.startswith(EXCLUDE) and component(target) not in ok:
                    bad.append(f'{rel}:{ln}: {me} includes {target} of {component(target)}, '
                               'which is not below it')
    for b in bad:
        print(b)
    print(f'check_layers: {files} files, {len(bad)} includes against the layering rule')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
