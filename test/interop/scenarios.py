#!/usr/bin/python3
"""Differential TCP scenarios: the same crafted segments to a Linux listener
and to a skcat listener, the answers normalised and compared.

  scenarios.py run      (in the peer netns; see test_scenarios.sh for the env)
  scenarios.py server   (in the kernel's netns: the kernel-side listeners)

Both listeners echo what they read (skcat --echo, a Python echo server on
the kernel) so "data delivered to the application" is the data echoed back.
Port P_ECHO echoes; port P_CLOSER closes first (skcat with stdin at EOF, a
kernel server calling shutdown(SHUT_WR) at once) for the closing races;
port P_CLOSED has no listener. Scapy sends on AF_PACKET sockets, so the
peer netns's nftables drop of its own kernel's RSTs does not touch them.

An answer is normalised per step to a sorted set of records: control and
pure-ACK segments as "FLAGS s=SEQ a=ACK [w0] [options]" with sequence
numbers relative to each side's ISN (a pure ACK whose ACK number a data
segment of the same step also carries is dropped: piggybacking is timing),
FIN as its own record, data as the bytes echoed. ALLOWED lists the
deliberate differences (docs/tcp-scenarios.md).
"""
import json
import os
import random
import select
import socket
import subprocess
import sys
import threading
import time

from scapy.all import IP, TCP, Ether, Raw

P_ECHO, P_CLOSED, P_CLOSER = 7000, 7001, 7002

# Deliberate differences, each with its reason (docs/tcp-scenarios.md).
ALLOWED = {
    "urgent_data": "RFC 9293 §3.8.5 / RFC 6093 §4: urgent data is delivered inline; Linux "
                   "keeps the last urgent byte out of band unless SO_OOBINLINE",
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- kernel side

def serve_echo(c):
    try:
        while True:
            b = c.recv(65536)
            if not b:
                c.shutdown(socket.SHUT_WR)
                break
            c.sendall(b)
        while c.recv(65536):
            pass
    except OSError:
        pass
    finally:
        c.close()


def serve_closer(c):
    try:
        c.shutdown(socket.SHUT_WR)
        while c.recv(65536):
            pass
    except OSError:
        pass
    finally:
        c.close()


def server():
    socks = []
    for port, fn in ((P_ECHO, serve_echo), (P_CLOSER, serve_closer)):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen(64)
        socks.append((s, fn))
    print("listening", flush=True)
    while True:
        r, _, _ = select.select([s for s, _ in socks], [], [], 1.0)
        for s, fn in socks:
            if s in r:
                c, _ = s.accept()
                threading.Thread(target=fn, args=(c,), daemon=True).start()


# ---------------------------------------------------------------- peer side

FLAGS = "FSRPAUEC"


def flag_str(f):
    return "".join(ch for i, ch in enumerate(FLAGS) if f & (1 << i) and ch != "P") or "-"


class Target:
    """One listener: the interface towards it, its address and MAC."""

    def __init__(self, name, iface, src, dst, mac):
        self.name, self.iface, self.src, self.dst, self.mac = name, iface, src, dst, mac
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
        self.sock.bind((iface, 0))
        self.smac = open(f"/sys/class/net/{iface}/address").read().strip()

    def send(self, pkt):
        self.sock.send(bytes(Ether(src=self.smac, dst=self.mac) / pkt))

    def recv(self, min_s=0.3, quiet_s=0.12, max_s=1.2, sport=None):
        """TCP segments from the target to sport until quiet (bounded)."""
        out = []
        t0 = time.monotonic()
        last = t0
        while True:
            now = time.monotonic()
            if now - t0 >= max_s or (now - t0 >= min_s and now - last >= quiet_s):
                return out
            r, _, _ = select.select([self.sock], [], [], 0.02)
            if not r:
                continue
            data, addr = self.sock.recvfrom(65535)
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            e = Ether(data)
            if IP not in e or TCP not in e or e[IP].src != self.dst:
                continue
            if sport is not None and e[TCP].dport != sport:
                continue
            out.append(e[IP])
            last = time.monotonic()

    def drain(self):
        while select.select([self.sock], [], [], 0)[0]:
            self.sock.recv(65535)


def opt_str(tcp):
    out = []
    for k, v in tcp.options:
        if k == "MSS":
            out.append("MSS%d" % v)
        elif k == "SAckOK":
            out.append("SACKOK")
        elif k == "WScale":
            out.append("WS")
        elif k == "Timestamp":
            out.append("TS")
        elif k == "SAck":
            continue  # a record of its own (sack_str)
        elif k in ("NOP", "EOL"):
            continue
        else:
            out.append(str(k))
    return " ".join(out)


def sack_str(tcp, irs):
    """SACK blocks relative to our ISN (they name our sequence space), or None."""
    for k, v in tcp.options:
        if k == "SAck":
            return ",".join("%d-%d" % ((v[i] - irs) % 2**32, (v[i + 1] - irs) % 2**32)
                            for i in range(0, len(v) - 1, 2))
    return None


class Conn:
    """One connection attempt of a scenario against one target."""

    def __init__(self, tg, sport, dport=P_ECHO):
        self.tg, self.sport, self.dport = tg, sport, dport
        self.iss = random.randrange(1 << 20, 1 << 31)
        self.irs = None  # the target's ISN, from its SYN-ACK
        self.nxt = 1  # our next sequence number, relative
        self.rcv = 0  # what we have received of theirs, relative (SYN counts)
        self.steps = []
        self.echo = b""

    def pkt(self, flags, seq=None, ack=None, data=b"", opts=None, win=65535, urg=0):
        seq = self.nxt if seq is None else seq
        ack = self.rcv if ack is None else ack
        t = TCP(sport=self.sport, dport=self.dport, flags=flags, seq=(self.iss + seq) % 2**32,
                ack=((self.irs or 0) + ack) % 2**32 if "A" in flags else 0, window=win,
                urgptr=urg, options=opts or [])
        p = IP(src=self.tg.src, dst=self.tg.dst) / t
        if data:
            p = p / Raw(data)
        return p

    def step(self, name, pkts, **kw):
        """Sends pkts (spaced by 20 ms), records the normalised answers."""
        for i, p in enumerate(pkts if isinstance(pkts, list) else [pkts]):
            if i:
                time.sleep(0.02)
            self.tg.send(p)
        seglens = kw.pop("seglens", False)
        ans = self.tg.recv(sport=self.sport, **kw)
        recs, carried, datas = set(), set(), []
        for ip in ans:
            t = ip[TCP]
            if self.irs is None and t.flags.S and t.flags.A:
                self.irs = t.seq
            irs = self.irs if self.irs is not None else t.seq
            s = (t.seq - irs) % 2**32
            a = (t.ack - self.iss) % 2**32 if t.flags.A else 0
            n = len(bytes(t.payload))
            f = int(t.flags)
            sk = sack_str(t, self.iss)
            if sk:  # whichever segment carries them
                recs.add((None, "SACK a=%d (%s)" % (a, sk)))
            if f & 0x01:  # FIN: its own record, wherever it rides
                recs.add((None, "FIN s=%d a=%d" % (s + n, a)))
                carried.add(a)
                self.rcv = max(self.rcv, s + n + 1)
            if n:
                datas.append((s, bytes(t.payload)))
                carried.add(a)
                self.rcv = max(self.rcv, s + n)
                continue
            if f & 0x01 and not (f & 0x06):
                continue
            if f & 0x02:
                self.rcv = max(self.rcv, s + 1)
            if f & 0x04 and t.seq == 0:
                s = "0abs"  # RFC 9293 §3.10.7.1: a RST to a segment without ACK
            rec = "%s s=%s a=%d" % (flag_str(f & ~0x01), s, a)
            if t.window == 0 and not (f & 0x04):
                rec += " w0"
            o = opt_str(t)
            if o:
                rec += " [" + o + "]"
            recs.add((a, rec))
        # a pure ACK whose ACK number data or a FIN of the same step
        # carries too: whether it went alone is timing
        out = sorted(r for a, r in recs
                     if a is None or not (r.split(" ")[0] == "A" and a in carried))
        # the bytes by sequence number: a retransmission within the step
        # (we ACK echoed data only with our next segment) is timing
        got, end = b"", None
        for s, d in sorted(datas):
            if end is not None and s < end:
                d = d[end - s:]
                s = end
            got += d
            end = s + len(d) if end is None or s + len(d) > end else end
        if got:
            self.echo += got
            out.append("data=%r" % got)
        if seglens:
            out.append("seglens=%s" % sorted({len(d) for _, d in datas}))
        self.steps.append([name, out])
        return ans

    # ---- building blocks
    def syn(self, opts=None, flags="S", data=b"", name="syn", **kw):
        p = self.pkt(flags, seq=0, data=data, opts=opts if opts is not None else
                     [("MSS", 1460), ("SAckOK", b"")])
        self.nxt = 1
        return self.step(name, p, **kw)

    def open(self, opts=None):
        """Handshake; True when established."""
        self.syn(opts)
        if self.irs is None:
            return False
        self.step("ack", self.pkt("A"))
        return True

    def send(self, data, name="data", flags="PA", **kw):
        p = self.pkt(flags, data=data, **kw)
        self.nxt += len(data)
        return self.step(name, p)

    def works(self):
        """The connection still carries data both ways afterwards."""
        before = len(self.echo)
        probe = b"still-there"
        self.step("probe", self.pkt("PA", data=probe))
        self.nxt += len(probe)
        ok = self.echo[before:].endswith(probe)
        self.steps.append(["works", [str(ok)]])

    def reset(self):
        """Ends the connection without a trace on either side."""
        self.tg.send(self.pkt("R", seq=self.nxt))
        time.sleep(0.02)


# ---------------------------------------------------------------- scenarios
# Each takes a Conn factory mk(dport=P_ECHO) and records steps on the Conns.

SCEN = {}


def scen(fn):
    SCEN[fn.__name__] = fn
    return fn


TS = ("Timestamp", (1000, 0))


@scen
def syn_no_options(mk):
    c = mk()
    c.syn(opts=[])
    c.step("ack", c.pkt("A"))
    c.works()
    c.reset()


@scen
def syn_mss_only(mk):
    c = mk()
    c.open([("MSS", 1000)])
    c.works()
    c.reset()


@scen
def syn_all_options(mk):
    c = mk()
    c.syn(opts=[("MSS", 1460), ("SAckOK", b""), TS, ("NOP", None), ("WScale", 7)])
    c.step("ack", c.pkt("A", opts=[("NOP", None), ("NOP", None), ("Timestamp", (1001, 0))]))
    c.reset()


@scen
def syn_wscale_only(mk):
    c = mk()
    c.syn(opts=[("WScale", 2)])
    c.reset()


@scen
def syn_sackperm_only(mk):
    c = mk()
    c.syn(opts=[("SAckOK", b"")])
    c.reset()


@scen
def syn_timestamps_only(mk):
    c = mk()
    c.syn(opts=[TS])
    c.reset()


@scen
def syn_wscale_too_big(mk):
    c = mk()
    c.syn(opts=[("MSS", 1460), ("WScale", 15)])
    c.reset()


@scen
def ecn_setup(mk):
    c = mk()
    c.syn(flags="SEC")
    c.step("ack", c.pkt("A"))
    c.works()
    c.reset()


@scen
def ecn_ece_only_syn(mk):
    c = mk()
    c.syn(flags="SE")
    c.reset()


@scen
def mss_1(mk):
    c = mk()
    c.open([("MSS", 1)])
    c.step("data200", c.pkt("PA", data=b"m" * 200), seglens=True)
    c.nxt += 200
    c.reset()


@scen
def syn_with_data(mk):
    c = mk()
    c.syn(data=b"early")
    c.step("ack", c.pkt("A"))
    c.works()
    c.reset()


@scen
def syn_retransmitted(mk):
    c = mk()
    c.syn()
    c.syn(name="syn-again")
    c.step("ack", c.pkt("A"))
    c.works()
    c.reset()


@scen
def synrecv_rst(mk):
    c = mk()
    c.syn()
    c.step("rst", c.pkt("R", seq=1))
    c.step("ack", c.pkt("A"))


@scen
def synrecv_new_syn_in_window(mk):
    c = mk()
    c.syn()
    c.step("syn-new-isn", c.pkt("S", seq=1000, opts=[("MSS", 1460)]))
    c.step("ack", c.pkt("A"))


@scen
def synrecv_bad_ack(mk):
    c = mk()
    c.syn()
    c.step("bad-ack", c.pkt("A", ack=c.rcv + 1000))
    c.step("ack", c.pkt("A"))
    c.works()
    c.reset()


@scen
def synrecv_ack_with_data(mk):
    c = mk()
    c.syn()
    c.send(b"first", name="ack+data")
    c.works()
    c.reset()


@scen
def synrecv_ack_with_fin(mk):
    c = mk()
    c.syn()
    c.step("ack+fin", c.pkt("FA"))
    c.nxt += 1
    c.step("ack-their-fin", c.pkt("A"))


@scen
def synrecv_rst_ack(mk):
    c = mk()
    c.syn()
    c.step("rst+ack", c.pkt("RA", seq=1))
    c.step("ack", c.pkt("A"))


@scen
def data_in_window(mk):
    c = mk()
    c.open()
    c.send(b"hello")
    c.works()
    c.reset()


@scen
def data_beyond_window(mk):
    c = mk()
    c.open()
    c.step("far", c.pkt("PA", seq=c.nxt + 3_000_000, data=b"far"))
    c.works()
    c.reset()


@scen
def data_old_duplicate(mk):
    c = mk()
    c.open()
    c.send(b"hello")
    c.step("dup", c.pkt("PA", seq=c.nxt - 5, data=b"hello"))
    c.works()
    c.reset()


@scen
def data_overlap(mk):
    c = mk()
    c.open()
    c.send(b"hello")
    c.step("overlap", c.pkt("PA", seq=c.nxt - 3, data=b"llo world"))
    c.nxt += 6
    c.works()
    c.reset()


@scen
def out_of_order_then_fill(mk):
    c = mk()
    c.open()
    c.step("ooo", c.pkt("PA", seq=c.nxt + 5, data=b"world"))
    c.send(b"hello", name="fill")
    c.nxt += 5
    c.works()
    c.reset()


@scen
def out_of_order_overlapping(mk):
    c = mk()
    c.open()
    c.step("ooo1", c.pkt("PA", seq=c.nxt + 4, data=b"AAAA"))
    c.step("ooo2", c.pkt("PA", seq=c.nxt + 6, data=b"BBBB"))
    c.send(b"0123", name="fill")
    c.nxt += 6
    c.works()
    c.reset()


@scen
def out_of_order_fin(mk):
    c = mk()
    c.open()
    c.step("ooo-data+fin", c.pkt("FPA", seq=c.nxt + 5, data=b"world"))
    c.send(b"hello", name="fill")
    c.nxt += 6
    c.step("ack-their-fin", c.pkt("A"))


@scen
def blind_data_ack_future(mk):
    c = mk()
    c.open()
    c.step("inject", c.pkt("PA", ack=c.rcv + (1 << 20), data=b"evil"))
    c.works()
    c.reset()


@scen
def blind_data_ack_too_old(mk):
    c = mk()
    c.open()
    c.step("inject", c.pkt("PA", ack=c.rcv - (1 << 30), data=b"evil"))
    c.works()
    c.reset()


@scen
def blind_fin_ack_future(mk):
    c = mk()
    c.open()
    c.step("inject-fin", c.pkt("FA", ack=c.rcv + (1 << 20)))
    c.works()
    c.reset()


@scen
def ack_future_no_data(mk):
    c = mk()
    c.open()
    c.step("ack-future", c.pkt("A", ack=c.rcv + 5000))
    c.works()
    c.reset()


@scen
def ack_duplicate(mk):
    c = mk()
    c.open()
    c.step("dupack", [c.pkt("A"), c.pkt("A")])
    c.works()
    c.reset()


@scen
def data_without_ack_flag(mk):
    c = mk()
    c.open()
    c.step("no-ack-flag", c.pkt("P", data=b"noack"))
    c.works()
    c.reset()


@scen
def rst_exact(mk):
    c = mk()
    c.open()
    c.step("rst", c.pkt("R"))
    c.step("data-after", c.pkt("PA", data=b"gone"))


@scen
def rst_in_window_not_exact(mk):
    c = mk()
    c.open()
    c.step("rst+10", c.pkt("R", seq=c.nxt + 10))
    c.works()
    c.reset()


@scen
def rst_out_of_window(mk):
    c = mk()
    c.open()
    c.step("rst-far", c.pkt("R", seq=c.nxt + 5_000_000))
    c.works()
    c.reset()


@scen
def rst_ack_exact(mk):
    c = mk()
    c.open()
    c.step("rst+ack", c.pkt("RA"))
    c.step("data-after", c.pkt("PA", data=b"gone"))


@scen
def syn_in_window_established(mk):
    c = mk()
    c.open()
    c.step("syn", c.pkt("S", seq=c.nxt + 10, opts=[("MSS", 1460)]))
    c.works()
    c.reset()


@scen
def syn_old_established(mk):
    c = mk()
    c.open()
    c.step("syn-old", c.pkt("S", seq=0, opts=[("MSS", 1460)]))
    c.works()
    c.reset()


@scen
def zero_window_from_peer(mk):
    c = mk()
    c.open()
    c.send(b"wait", win=0, name="data-win0")
    c.step("open-window", c.pkt("A", win=65535))
    c.works()
    c.reset()


@scen
def urgent_data(mk):
    c = mk()
    c.open()
    c.send(b"urgent", flags="PAU", urg=6)
    c.works()
    c.reset()


@scen
def keepalive_style_probe(mk):
    c = mk()
    c.open()
    c.send(b"abc")
    c.step("probe", c.pkt("A", seq=c.nxt - 1))
    c.works()
    c.reset()


@scen
def fin_then_close(mk):
    c = mk()
    c.open()
    c.step("fin", c.pkt("FA"))
    c.nxt += 1
    c.step("ack-their-fin", c.pkt("A"))
    c.step("data-after-close", c.pkt("PA", data=b"late"))


@scen
def fin_retransmitted(mk):
    c = mk()
    c.open()
    c.send(b"bye")
    c.step("fin", c.pkt("FA"))
    c.step("fin-again", c.pkt("FA", seq=c.nxt))
    c.nxt += 1
    c.step("ack-their-fin", c.pkt("A"))


@scen
def data_after_our_fin(mk):
    c = mk()
    c.open()
    c.step("fin", c.pkt("FA"))
    c.nxt += 1
    c.step("data-after-fin", c.pkt("PA", data=b"late"))


@scen
def data_with_fin(mk):
    c = mk()
    c.open()
    c.step("data+fin", c.pkt("FPA", data=b"last"))
    c.nxt += 5
    c.step("ack-their-fin", c.pkt("A"))


@scen
def data_fin_retransmitted(mk):
    """Data+FIN again after both were taken: D-SACK edges count the FIN."""
    c = mk()
    c.open()
    c.step("data+fin", c.pkt("FPA", data=b"last"))
    c.step("again", c.pkt("FPA", ack=1, data=b"last"))
    c.nxt += 5
    c.step("ack-their-fin", c.pkt("A"))


@scen
def closed_port_syn(mk):
    c = mk(P_CLOSED)
    c.syn()


@scen
def closed_port_ack(mk):
    c = mk(P_CLOSED)
    c.irs = 77777
    c.step("ack", c.pkt("A", ack=100))


@scen
def closed_port_data(mk):
    c = mk(P_CLOSED)
    c.irs = 77777
    c.step("data", c.pkt("PA", ack=100, data=b"hi"))


@scen
def closed_port_rst(mk):
    c = mk(P_CLOSED)
    c.step("rst", c.pkt("R"))


@scen
def closed_port_fin(mk):
    c = mk(P_CLOSED)
    c.step("fin", c.pkt("F"))


@scen
def closed_port_syn_data(mk):
    c = mk(P_CLOSED)
    c.syn(data=b"payload")


@scen
def listen_ack_only(mk):
    c = mk()
    c.irs = 77777
    c.step("ack", c.pkt("A", ack=100))


@scen
def listen_rst_only(mk):
    c = mk()
    c.step("rst", c.pkt("R"))


@scen
def listen_fin_only(mk):
    c = mk()
    c.step("fin", c.pkt("F"))


# Closing races against a listener that closes first (one per skcat run).
CLOSER = {}


def closer(fn):
    CLOSER[fn.__name__] = fn
    return fn


def closer_open(mk):
    c = mk(P_CLOSER)
    c.syn()
    c.step("ack", c.pkt("A"), min_s=0.4)  # their FIN follows the accept
    return c


@closer
def time_wait_fin_retransmit(mk):
    """Our last ACK is lost: the retransmitted FIN is still answered."""
    c = closer_open(mk)
    c.step("ack-their-fin+our-fin", c.pkt("FA"))
    c.nxt += 1
    time.sleep(0.5)
    c.step("fin-again", c.pkt("FA", seq=c.nxt - 1))


@closer
def simultaneous_close(mk):
    """Our FIN crosses theirs: it does not acknowledge their FIN."""
    c = closer_open(mk)
    c.step("fin-not-acking-theirs", c.pkt("FA", ack=c.rcv - 1))
    c.nxt += 1
    c.step("ack-their-fin", c.pkt("A"))


@closer
def fin_wait2_data(mk):
    """After their FIN, data still flows towards them."""
    c = closer_open(mk)
    c.send(b"after-their-fin", flags="PA", name="data")
    c.step("fin", c.pkt("FA"))
    c.nxt += 1


# ---------------------------------------------------------------- runner

def run_all(tg, names, table, base):
    res = {}
    for i, n in enumerate(names):
        conns = []

        def mk(dport=P_ECHO):
            c = Conn(tg, base + i * 4 + len(conns), dport)
            conns.append(c)
            return c
        t0 = time.monotonic()
        try:
            table[n](mk)
            res[n] = [s for c in conns for s in c.steps]
        except Exception as e:  # a scenario's crash is a difference, not a pass
            res[n] = [["error", [repr(e)]]]
        if os.environ.get("SC_TIMES"):
            log("%s %s %.2fs" % (tg.name, n, time.monotonic() - t0))
    return res


def start_skcat(args, ready_s=30):
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    t0 = time.monotonic()
    buf = b""
    fd = p.stderr.fileno()
    while time.monotonic() - t0 < ready_s:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
        if b"port 0:" in buf:
            def drain():
                while os.read(fd, 65536):
                    pass
            threading.Thread(target=drain, daemon=True).start()
            time.sleep(0.3)
            return p
    p.kill()
    raise SystemExit("skcat did not start: " + buf.decode(errors="replace"))


def stop(p):
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(3)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_round(kern, skops, skcat, names, cnames, ebase, cbase):
    """Runs names against one echo skcat and each of cnames against its own
    closing skcat, both targets at once; returns {"kernel": .., "skops": ..}."""
    results = {"kernel": {}, "skops": {}}
    if names:
        sk = start_skcat(skcat + ["--echo", "--conns", "64", "-l", str(P_ECHO)])
        out = {}

        def side(tg, key):
            out[key] = run_all(tg, names, SCEN, ebase)
        th = [threading.Thread(target=side, args=(kern, "kernel")),
              threading.Thread(target=side, args=(skops, "skops"))]
        for t in th:
            t.start()
        for t in th:
            t.join(300)
        stop(sk)
        results["kernel"].update(out.get("kernel", {}))
        results["skops"].update(out.get("skops", {}))
    # one skcat per closing race: it serves one connection, then exits
    for i, n in enumerate(cnames):
        sk = start_skcat(skcat + ["-l", str(P_CLOSER)])
        out = {}
        th = [threading.Thread(target=lambda: out.update(
                  kernel=run_all(kern, [n], CLOSER, cbase + i * 8))),
              threading.Thread(target=lambda: out.update(
                  skops=run_all(skops, [n], CLOSER, cbase + i * 8)))]
        for t in th:
            t.start()
        for t in th:
            t.join(60)
        try:
            sk.wait(5)
        except subprocess.TimeoutExpired:
            pass
        stop(sk)
        results["kernel"].update(out.get("kernel", {}))
        results["skops"].update(out.get("skops", {}))
    return results


def differs(results, n):
    k, s = results["kernel"].get(n), results["skops"].get(n)
    return not (k == s and k is not None and not any(st[0] == "error" for st in k))


def run():
    env = os.environ
    kern = Target("kernel", env["SC_IF_K"], env["SC_SRC_K"], env["SC_DST_K"], env["SC_MAC_K"])
    skops = Target("skops", env["SC_IF_S"], env["SC_SRC_S"], env["SC_DST_S"], env["SC_MAC_S"])
    skcat = env["SC_SKCAT"].split("\x1f")
    only = env.get("SC_ONLY", "").split(",") if env.get("SC_ONLY") else None
    names = [n for n in SCEN if not only or n in only]
    cnames = [n for n in CLOSER if not only or n in only]
    results = run_round(kern, skops, skcat, names, cnames, 20000, 40000)
    # A difference may be timing: a retransmission timer firing inside one
    # side's answer window on a loaded machine. Run each differing scenario
    # once more on fresh connections; only a difference seen twice counts, and
    # the retried ones are named in the report.
    again = [n for n in names + cnames if n not in ALLOWED and differs(results, n)]
    retried = []
    if again:
        second = run_round(kern, skops, skcat, [n for n in names if n in again],
                           [n for n in cnames if n in again], 30000, 50000)
        for n in again:
            if not differs(second, n):
                print("retried %s: differed once (below), same on the second run (timing)" % n)
                show(results["kernel"].get(n), results["skops"].get(n))
                retried.append(n)
                for side in ("kernel", "skops"):
                    results[side][n] = second[side][n]
    if env.get("SC_JSON"):
        with open(env["SC_JSON"], "w") as f:
            json.dump(results, f, indent=1)
    rc = compare(results, names + cnames)
    if retried:
        print("scenarios: %d retried after a timing difference: %s" % (len(retried),
                                                                      ", ".join(retried)))
    return rc


def show(k, s):
    for a, b in zip(k or [], s or []):
        mark = "  " if a == b else "!="
        print("   %s kernel %s: %s" % (mark, a[0], " | ".join(a[1])))
        if a != b:
            print("      skops  %s: %s" % (b[0], " | ".join(b[1])))
    if len(k or []) != len(s or []):
        print("   steps: kernel %d, skops %d" % (len(k or []), len(s or [])))
        for extra in (k or [])[len(s or []):]:
            print("      kernel only %s" % extra)
        for extra in (s or [])[len(k or []):]:
            print("      skops only  %s" % extra)


def compare(results, names):
    same = allowed = differ = 0
    for n in names:
        k, s = results["kernel"].get(n), results["skops"].get(n)
        if k == s and k is not None and not any(st[0] == "error" for st in k):
            same += 1
            print("same    %s" % n)
            continue
        if n in ALLOWED:
            allowed += 1
            print("allowed %s: %s" % (n, ALLOWED[n]))
        else:
            differ += 1
            print("DIFFER  %s" % n)
        show(k, s)
    print("scenarios: %d run, %d same, %d allowed, %d differ" % (len(names), same, allowed,
                                                                  differ))
    return 1 if differ or len(names) < 45 and not os.environ.get("SC_ONLY") else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["server"]:
        server()
    elif sys.argv[1:] == ["run"]:
        sys.exit(run())
    elif sys.argv[1:] == ["list"]:
        print("\n".join(list(SCEN) + list(CLOSER)))
    else:
        raise SystemExit("usage: scenarios.py run|server|list")
