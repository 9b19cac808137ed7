#!/usr/bin/env python3
"""The kernel side of test_dual_listen.sh.

clients ADDR4 ADDR6 PORT NBYTES: opens an IPv4 and an IPv6 connection to
  an echo server at once, sends NBYTES of random data on each while reading
  the echo, half-closes, checks every byte came back, and prints one line per
  connection: "v4 ADDR PORT" / "v6 ADDR PORT", the client's local address.
reference MODE ADDR4 ADDR6: what Linux itself reports. Builds a listener
  shaped like skcat's (MODE dual: one AF_INET6 socket on [::] with
  IPV6_V6ONLY 0; MODE v6only: AF_INET on 0.0.0.0 and AF_INET6 on [::] with
  IPV6_V6ONLY 1, same port), connects to it from ADDR4 and ADDR6 (the
  kernel's own addresses) and prints how the accepted sockets name their
  peers, formatted as skcat -v prints addresses: "v4 [::ffff:a.b.c.d]" or
  "v4 a.b.c.d", "v6 [x::y]".
"""
import os
import select
import socket
import sys
import time

DEADLINE_S = 120


def fmt(sa, family):
    return "[%s]" % sa[0] if family == socket.AF_INET6 else sa[0]


def clients(addr4, addr6, port, nbytes):
    socks = []
    for fam, addr in ((socket.AF_INET, addr4), (socket.AF_INET6, addr6)):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setblocking(False)
        rc = s.connect_ex((addr, port))
        if rc not in (0, 115):  # EINPROGRESS
            sys.exit("connect %s %d: %s" % (addr, port, os.strerror(rc)))
        socks.append(s)
    # both connections are open before either moves data
    end = time.monotonic() + 20
    for s in socks:
        while True:
            if time.monotonic() > end:
                sys.exit("connect: timeout")
            _, w, _ = select.select([], [s], [], 1)
            if w:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    sys.exit("connect %s: %s" % (s.family.name, os.strerror(err)))
                break
    st = [{"out": os.urandom(nbytes), "off": 0, "in": bytearray(), "eof": False,
           "shut": False} for _ in socks]
    end = time.monotonic() + DEADLINE_S
    while not all(x["eof"] for x in st):
        if time.monotonic() > end:
            sys.exit("timeout: %s" % [(len(x["in"]), x["off"]) for x in st])
        rl = [s for s, x in zip(socks, st) if not x["eof"]]
        wl = [s for s, x in zip(socks, st) if not x["shut"]]
        r, w, _ = select.select(rl, wl, [], 1)
        for s, x in zip(socks, st):
            if s in w:
                if x["off"] < nbytes:
                    try:
                        x["off"] += s.send(x["out"][x["off"]:x["off"] + 65536])
                    except BlockingIOError:
                        pass
                if x["off"] == nbytes and not x["shut"]:
                    s.shutdown(socket.SHUT_WR)
                    x["shut"] = True
            if s in r:
                try:
                    d = s.recv(262144)
                except BlockingIOError:
                    continue
                if d:
                    x["in"] += d
                else:
                    x["eof"] = True
    for s, x in zip(socks, st):
        name = "v4" if s.family == socket.AF_INET else "v6"
        if bytes(x["in"]) != x["out"]:
            sys.exit("%s: echo differs (%d of %d bytes back)" % (name, len(x["in"]), nbytes))
        local = s.getsockname()
        print("%s %s %d" % (name, local[0], local[1]))
        s.close()


def reference(mode, addr4, addr6):
    lsn = []
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1 if mode == "v6only" else 0)
    s6.bind(("::", 0))
    port = s6.getsockname()[1]
    lsn.append(s6)
    if mode == "v6only":
        s4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s4.bind(("0.0.0.0", port))  # allowed only because s6 is IPV6_V6ONLY
        lsn.append(s4)
    for s in lsn:
        s.listen(4)
        s.settimeout(5)
    for name, fam, addr in (("v4", socket.AF_INET, addr4), ("v6", socket.AF_INET6, addr6)):
        c = socket.create_connection((addr, port), timeout=5)
        lst = s6 if fam == socket.AF_INET6 or mode == "dual" else lsn[1]
        a, peer = lst.accept()
        print("%s %s" % (name, fmt(peer, a.family)))
        a.close()
        c.close()


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "clients":
        clients(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) == 5 and sys.argv[1] == "reference" and sys.argv[2] in ("dual", "v6only"):
        reference(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
