#!/usr/bin/python3
"""dual_probe.py: both sides of test_dualstack.sh. Every line printed names
addresses as tags (A4/A6: the server's own IPv4/IPv6 address, B4/B6: the
peer's; a v4-mapped one as ::ffff:A4) and leaves ephemeral ports out, so
the output of a run under the shim (the server on skops) diffs against one
on the kernel (the same server on a kernel socket in the same place).

  dual_probe.py server PORT A4 A6 B4 B6 KPORT
    1. the API's answers on AF_INET6 sockets, TCP and UDP: IPV6_V6ONLY's
       default, set after bind, a v4-mapped bind of an IPV6_V6ONLY socket,
       bind conflicts between 0.0.0.0:P and [::]:P (dual and IPv6-only,
       with SO_REUSEADDR or SO_REUSEPORT on both);
    2. a dual-stack AF_INET6 socket connects (TCP) and sends (UDP) to
       ::ffff:B4:KPORT (the kernel's echo servers), names checked; an
       IPV6_V6ONLY one is refused it;
    3. serves: a TCP listener and a UDP socket on [::]:PORT (dual stack)
       and on [::]:PORT+1 (IPV6_V6ONLY), echoing, printing each peer's and
       local name, until a UDP "quit" on PORT; and a dual-stack UDP socket
       on [::]:PORT+2 connected to ::ffff:B4:PORT+3, which takes datagrams
       from there only until an "unconnect" makes it connect(AF_UNSPEC)
       (then from any IPv4 source, and still no IPv6 one: Linux keeps the
       old peer's IPv6 form).
  dual_probe.py client A4 A6 B4 B6 PORT
    the kernel's clients of 3, from B4/B6: IPv4 and IPv6, TCP and UDP, to
    both ports; then to PORT+2 from B4:PORT+3, from other IPv4 and IPv6
    sources (refused while it is connected), and again after "unconnect".
"""
import ctypes
import errno
import selectors
import socket
import sys

TAGS = {}


def tag(addr):
    a = addr[0] if isinstance(addr, tuple) else addr
    if a.startswith("::ffff:") and a[7:] in TAGS:
        return "::ffff:" + TAGS[a[7:]]
    return TAGS.get(a, a)


def err(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def sock6(typ, v6only):
    s = socket.socket(socket.AF_INET6, typ)
    r = err(lambda: s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, v6only))
    if r != "ok":
        print("setsockopt IPV6_V6ONLY", v6only, r)
    return s


def api(port):
    for typ, name in ((socket.SOCK_STREAM, "tcp"), (socket.SOCK_DGRAM, "udp")):
        s = socket.socket(socket.AF_INET6, typ)
        step(name + " v6only default", lambda: s.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY))
        s.bind(("::", port))
        print(name, "v6only set after bind", err(lambda: s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)))
        s.close()
        s = sock6(typ, 1)
        print(name, "v6only bind ::ffff:0.0.0.0", err(lambda: s.bind(("::ffff:0.0.0.0", port))))
        s.close()
        for first, second, what, opt in (
                ("4", "6", "0.0.0.0 then dual [::]", None), ("6", "4", "dual [::] then 0.0.0.0", None),
                ("4", "6only", "0.0.0.0 then v6only [::]", None),
                ("6only", "4", "v6only [::] then 0.0.0.0", None),
                ("4", "6", "0.0.0.0 then dual [::] both SO_REUSEADDR", socket.SO_REUSEADDR),
                ("6", "4", "dual [::] then 0.0.0.0 both SO_REUSEPORT", socket.SO_REUSEPORT)):
            held = []
            for kind in (first, second):
                if kind == "4":
                    k = socket.socket(socket.AF_INET, typ)
                else:
                    k = sock6(typ, kind == "6only")
                if opt:
                    k.setsockopt(socket.SOL_SOCKET, opt, 1)
                r = err(lambda: k.bind(("0.0.0.0" if kind == "4" else "::", port + 1)))
                held.append(k)
            print(name, "bind", what, r)
            for k in held:
                k.close()


def step(label, fn):
    """prints label and what fn returns, or the errno it raised (a probe
    that goes on shows every difference, not the first one)"""
    try:
        print(label, fn())
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, "timeout"))


def mapped_client(b4, kport):
    to = ("::ffff:" + b4, kport)
    # TCP: connect to ::ffff:B4, names v4-mapped, a byte echoed
    c = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    c.settimeout(5)
    step("tcp mapped connect", lambda: err(lambda: c.connect(to)))
    step("tcp mapped connect peer", lambda: "%s local %s" % (tag(c.getpeername()), tag(c.getsockname())))
    step("tcp mapped echo", lambda: c.sendall(b"m") or c.recv(10).decode())
    c.close()
    c = sock6(socket.SOCK_STREAM, 1)
    print("tcp v6only connect mapped", err(lambda: c.connect(to)))
    c.close()
    # UDP: sendto ::ffff:B4 (the reply named so), then connected
    u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u.settimeout(5)
    step("udp mapped sendto", lambda: err(lambda: u.sendto(b"u", to)))
    step("udp mapped sendto reply", lambda: (lambda d, a: "%s from %s %s" % (d.decode(), tag(a), a[1] == kport))(*u.recvfrom(100)))
    step("udp mapped connect", lambda: err(lambda: u.connect(to)))
    step("udp mapped connect peer", lambda: "%s local %s" % (tag(u.getpeername()), tag(u.getsockname())))
    step("udp mapped connected reply", lambda: u.send(b"v") and u.recv(100).decode())
    u.close()
    u = sock6(socket.SOCK_DGRAM, 1)
    print("udp v6only sendto mapped", err(lambda: u.sendto(b"x", to)))
    print("udp v6only connect mapped", err(lambda: u.connect(to)))
    u.close()


def unconnect(s):
    """connect(AF_UNSPEC), which Python has no call for; through the libc
    symbol the shim overrides"""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.connect(s.fileno(), (ctypes.c_ushort * 8)(socket.AF_UNSPEC), 16):
        raise OSError(ctypes.get_errno(), "connect AF_UNSPEC")


def serve(port, b4):
    sel = selectors.DefaultSelector()
    c = sock6(socket.SOCK_DGRAM, 0)
    c.bind(("::", port + 2))
    c.connect(("::ffff:" + b4, port + 3))
    sel.register(c, selectors.EVENT_READ, ("udpc", port + 2))
    for p, v6only in ((port, 0), (port + 1, 1)):
        t = sock6(socket.SOCK_STREAM, v6only)
        t.bind(("::", p))
        t.listen(8)
        sel.register(t, selectors.EVENT_READ, ("tcp", p))
        u = sock6(socket.SOCK_DGRAM, v6only)
        u.bind(("::", p))
        sel.register(u, selectors.EVENT_READ, ("udp", p))
        print("listening", p, "v6only", v6only, "name", tag(t.getsockname()), tag(u.getsockname()))
    print("up", flush=True)
    for _ in range(200):
        for key, _ in sel.select(10):
            kind, p = key.data
            s = key.fileobj
            if kind == "udpc":
                d, a = s.recvfrom(100)
                print("udp connected from", tag(a), a[1] == port + 3, "data", d.decode(), flush=True)
                if d == b"unconnect":
                    unconnect(s)
                s.sendto(d, a)
                continue
            if kind == "udp":
                d, a = s.recvfrom(100)
                if d == b"quit":
                    return
                print("udp", p, "from", tag(a), "len", len(a), "data", d.decode(), flush=True)
                s.sendto(d, a)
                continue
            c, a = s.accept()
            c.settimeout(5)
            print("tcp", p, "accepted", tag(a), "peer", tag(c.getpeername()), "local",
                  tag(c.getsockname()), flush=True)
            c.sendall(c.recv(100))
            c.close()


def client(a4, a6, b4, b6, port):
    for host, src in ((a4, b4), (a6, b6)):
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        for p in (port, port + 1):
            t = socket.socket(fam, socket.SOCK_STREAM)
            t.bind((src, 0))
            t.settimeout(5)
            r = err(lambda: t.connect((host, p)))
            if r == "ok":
                t.sendall(b"t")
                r = "echo " + t.recv(10).decode()
            print("client tcp", tag(host), p - port, r, flush=True)
            t.close()
            u = socket.socket(fam, socket.SOCK_DGRAM)
            u.settimeout(2)
            u.bind((src, 0))
            u.connect((host, p))
            u.send(b"d")
            try:
                d, a = u.recvfrom(100)
                r = "reply %s from %s %s" % (d.decode(), tag(a), a[1] == p)
            except OSError as e:
                r = errno.errorcode.get(e.errno, "timeout")
            print("client udp", tag(host), p - port, r, flush=True)
            u.close()
    connected_peer(a4, a6, b4, b6, port)
    q = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    q.sendto(b"quit", (a4, port))


def connected_peer(a4, a6, b4, b6, port):
    """the server's UDP socket on PORT+2, connected to B4:PORT+3"""
    def udp(src, sport, host):
        u = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(2)
        u.bind((src, sport))
        u.connect((host, port + 2))
        return u

    def ask(what, u, d):
        u.send(d)
        try:
            r = "reply " + u.recv(100).decode()
        except OSError as e:
            r = errno.errorcode.get(e.errno, "timeout")
        print("client udp connected", what, r, flush=True)

    peer = udp(b4, port + 3, a4)
    ask("peer", peer, b"p")
    other4, other6 = udp(b4, 0, a4), udp(b6, 0, a6)
    ask("other A4", other4, b"o")
    ask("other A6", other6, b"s")
    ask("peer unconnect", peer, b"unconnect")
    ask("other A4 after", other4, b"a")
    ask("other A6 after", other6, b"b")
    for u in (peer, other4, other6):
        u.close()


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "server":
        port, a4, a6, b4, b6, kport = sys.argv[2:]
        TAGS.update({b4: "B4", b6: "B6", a4: "A4", a6: "A6"})
        api(int(port) + 10)
        mapped_client(b4, int(kport))
        serve(int(port), b4)
    elif len(sys.argv) == 7 and sys.argv[1] == "client":
        a4, a6, b4, b6, port = sys.argv[2:]
        TAGS.update({a4: "A4", a6: "A6", b4: "B4", b6: "B6"})
        client(a4, a6, b4, b6, int(port))
    else:
        sys.exit(__doc__)


main()
