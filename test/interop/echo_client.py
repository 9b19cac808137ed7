#!/usr/bin/env python3
"""The legitimate transfer beside an attack: echo_client.py HOST PORT MIB
TIMEOUT [SOURCE] sends MIB MiB of random bytes to an echo server while reading them
back, checks they came back equal, and prints {"bytes": N, "seconds": S,
"ok": true|false}. Bounded by TIMEOUT seconds (connect included)."""
import hashlib
import json
import os
import socket
import sys
import threading
import time


def main(host, port, mib, timeout, source=None):
    data = os.urandom(mib << 20)
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    s.settimeout(timeout)
    err = []

    def writer():
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            err.append(str(e))

    w = threading.Thread(target=writer, daemon=True)
    w.start()
    h = hashlib.sha256()
    got = 0
    end = t0 + timeout
    try:
        while got < len(data) and time.monotonic() < end:
            b = s.recv(1 << 20)
            if not b:
                break
            h.update(b)
            got += len(b)
    except OSError as e:
        err.append(str(e))
    el = time.monotonic() - t0
    w.join(1)
    s.close()
    ok = got == len(data) and h.digest() == hashlib.sha256(data).digest() and not err
    print(json.dumps({"bytes": got, "seconds": round(el, 4), "ok": ok, "errors": err}))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]),
                  *sys.argv[5:]))
