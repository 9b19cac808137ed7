#!/usr/bin/python3
"""CC trajectories, skops against Linux: the same congestion control and the
same deterministic loss pattern through linkem at a real RTT, the cwnd after
every ACK sampled on both stacks by one sock_ops object (progs/cc_trace.c).

    cc_traj.py [--cc reno,cubic,bbr] [--patterns single,burst,periodic,ecn,rto]
               [--rtt-ms 10] [--bytes N] [--json FILE] [--report FILE]
               [--check [--tries N]]

Each run: a sender in namespace A (a kernel socket, or skcat on af_packet),
linkem in L with half the RTT each way and the pattern on A->B, a kernel
sink in B. The figures compared per run are written to the report (Markdown)
and JSON, marked against TOLERANCE. With --check the figures in GATE decide:
a row outside them is run again (both sides) up to --tries times in all, and
the exit status is 1 when one still is. docs/tcp.md explains the differences
left.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import equiv  # noqa: E402 (sh, cgroup2_root, compile_bpf, kernel_hz)

BUILD = equiv.BUILD
SKCAT = equiv.SKCAT
LINKEM = os.path.join(BUILD, "test", "linkem", "linkem")
TAG = "cctr%d" % os.getpid()
NS_A, NS_L, NS_B = TAG + "a", TAG + "l", TAG + "b"
ADDR_A, ADDR_B = "198.18.6.1", "198.18.6.2"
PORT = 55611

# A->B data segments (counted from 1 by linkem) each pattern loses or marks.
PATTERNS = {
    "single": ["--drop", "300"],
    "burst": ["--drop", "300-303"],
    "periodic": ["--drop", "every:100@300"],
    "ecn": ["--mark", "every:100@300"],
    # the path goes dark for 150 ms from the 300th segment: the flight, fast
    # retransmits and probes are lost, and only the RTO (at least 200 ms
    # on both stacks) gets through
    "rto": ["--blackout", "300,150"],
}

# figure: (largest relative difference, or absolute where noted)
TOLERANCE = {
    "cut_ssthresh": ("rel", 0.15),
    "ss_exit_cwnd": ("rel", 0.25),
    "beta": ("abs", 0.06),
    "reductions": ("abs", 1),
    "hystart_exit": ("abs", 0),
    "growth_10rtt": ("rel", 0.25),
    "growth_30rtt": ("rel", 0.25),
}

# What --check holds a row to: the figures that do not depend on where the
# once-a-round samples fall. The slow-start exit and the factor read "the
# sample before" the cut, which is up to a round (a doubling) earlier on
# either stack from run to run (Linux's own rows moved from 160 to 272); the
# ssthresh the cut set does not. Exact: the count of cuts, of retransmissions
# (a deterministic pattern), the HyStart verdict.
GATE = {
    "cut_ssthresh": ("rel", 0.15),
    "reductions": ("abs", 0),
    "retrans": ("abs", 0),
    "hystart_exit": ("abs", 0),
    "growth_10rtt": ("rel", 0.1),
    "growth_30rtt": ("rel", 0.1),
}

sh = equiv.sh


def setup():
    for ns in (NS_A, NS_L, NS_B):
        sh("ip netns add %s" % ns)
    sh("ip link add %sa0 type veth peer name %sa1" % (TAG, TAG))
    sh("ip link add %sb0 type veth peer name %sb1" % (TAG, TAG))
    sh("ip link set %sa0 netns %s name a0" % (TAG, NS_A))
    sh("ip link set %sb0 netns %s name b0" % (TAG, NS_B))
    sh("ip link set %sa1 netns %s name a1" % (TAG, NS_L))
    sh("ip link set %sb1 netns %s name b1" % (TAG, NS_L))
    for ns in (NS_A, NS_L):
        sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1" % ns)
    for ns, dev in ((NS_A, "a0"), (NS_L, "a1"), (NS_L, "b1"), (NS_B, "b0")):
        sh("ip netns exec %s ethtool -K %s tx off rx off tso off gso off gro off" % (ns, dev),
           check=False)
        sh("ip -n %s link set %s up && ip -n %s link set lo up" % (ns, dev, ns))
    sh("ip -n %s addr add %s/24 dev b0" % (NS_B, ADDR_B))
    sh("ip netns exec %s sysctl -qw net.ipv4.tcp_ecn=1" % NS_B)


def teardown():
    for ns in (NS_A, NS_L, NS_B):
        sh("ip netns del %s" % ns, check=False)


def start_linkem(rtt_ms, pattern, stats):
    half = "%g" % (rtt_ms / 2)
    cmd = ["ip", "netns", "exec", NS_L, LINKEM, "a1", "b1", "--stats", stats,
           "--delay", half, "--a2b"] + PATTERNS[pattern]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    if "relaying" not in p.stderr.readline():
        raise RuntimeError("linkem did not start")
    return p


def start_sink():
    code = ("import socket\n"
            "l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
            "l.bind(('%s', %d)); l.listen(1); l.settimeout(60); c,_=l.accept(); c.settimeout(60)\n"
            "while c.recv(1<<20): pass\n"
            "c.close()\n" % (ADDR_B, PORT))
    p = subprocess.Popen(["ip", "netns", "exec", NS_B, "python3", "-c", code])
    time.sleep(0.3)
    return p


def kernel_send(obj, cc, nbytes, ecn):
    """The kernel sender, with cc_trace attached to its cgroup."""
    sh("ip -n %s addr add %s/24 dev a0" % (NS_A, ADDR_A))
    sh("ip netns exec %s sysctl -qw net.ipv4.tcp_ecn=%d" % (NS_A, 1 if ecn else 0))
    # equiv's kernel side: load, attach to a cgroup of its own, dump, detach
    side = equiv.KernelSide(obj)
    try:
        code = ("import socket,sys\n"
                "s=socket.socket(); s.setsockopt(socket.IPPROTO_TCP, 13, b'%s')\n"
                "s.connect(('%s', %d)); b=b'x'*65536; n=%d\n"
                "while n>0: n-=s.send(b[:min(n,65536)])\n"
                "s.shutdown(socket.SHUT_WR); s.settimeout(60); s.recv(1); s.close()\n"
                % (cc, ADDR_B, PORT, nbytes))
        sh("echo $$ > %s/cgroup.procs && exec ip netns exec %s python3 -c \"%s\""
           % (side.cg, NS_A, code), timeout=120)
        return side.maps()
    finally:
        side.close()
        sh("ip -n %s addr flush dev a0" % NS_A, check=False)


def skops_send(obj, cc, nbytes, ecn, tmp):
    data = os.path.join(tmp, "data")
    with open(data, "wb") as f:
        f.truncate(nbytes)
    mapfile = os.path.join(tmp, "maps.json")
    args = ["--vdev", "net_af_packet0,iface=a0", "--addr", ADDR_A + "/24", "--sockops", obj,
            "--dump-maps=" + mapfile, "--cc", cc, "--tcp-ecn", "1" if ecn else "0", ADDR_B,
            str(PORT)]
    sh("ip netns exec %s env SKOPS_HZ=%d %s %s < %s > /dev/null"
       % (NS_A, equiv.kernel_hz(), SKCAT, " ".join(args), data), timeout=120)
    return json.load(open(mapfile))


def samples(maps):
    by = {m.get("name"): m.get("entries", []) for m in maps}
    raw = {}
    for e in by.get("cc_count", []):
        raw["count"] = int.from_bytes(bytes(int(b, 16) for b in e["value"]), "little")
    n = min(raw.get("count", 0), 16384)
    out = []
    for e in by.get("cc_samples", []):
        k = int.from_bytes(bytes(int(b, 16) for b in e["key"]), "little")
        if k >= n:
            continue
        v = bytes(int(b, 16) for b in e["value"])
        cwnd, ssth, srtt, retr = (int.from_bytes(v[i:i + 4], "little") for i in range(8, 24, 4))
        out.append((k, int.from_bytes(v[0:8], "little"), cwnd, ssth, srtt, retr))
    out.sort()
    return [s[1:] for s in out]


def figures(s, rtt_ms):
    """What the comparison looks at, from (t_ns, cwnd, ssthresh, srtt, retrans)."""
    f = {"samples": len(s)}
    if not s:
        return f
    t0 = s[0][0]
    big = 1 << 30
    first = next((i for i, x in enumerate(s) if x[2] < big), None)
    f["max_cwnd"] = max(x[1] for x in s)
    f["final_cwnd"] = s[-1][1]
    f["retrans"] = s[-1][4]
    f["duration_ms"] = round((s[-1][0] - t0) / 1e6, 1)
    if first is None:
        f["ss_exit_cwnd"] = None
        return f
    f["ss_exit_cwnd"] = max(x[1] for x in s[:first + 1])
    f["ss_exit_ms"] = round((s[first][0] - t0) / 1e6, 1)
    # Slow start left without a retransmission since the sample before:
    # HyStart (or, in the ECN pattern, a CE echo), not a loss.
    f["hystart_exit"] = first > 0 and s[first][4] == s[first - 1][4]
    # a reduction: ssthresh lowered (PRR may lower cwnd only later)
    cuts = [i for i in range(1, len(s)) if s[i][2] < s[i - 1][2]]
    f["reductions"] = len(cuts)
    # A sawtooth repeats the same ssthresh, which the count above misses:
    # also count the drops of cwnd, a run of falling samples as one (outside
    # a reduction Reno and CUBIC only raise cwnd).
    f["cwnd_drops"] = sum(1 for i in range(1, len(s)) if s[i][1] < s[i - 1][1] and
                          (i == 1 or s[i - 1][1] >= s[i - 2][1]))
    if not cuts:
        return f
    first = cuts[0]
    f["cut_ssthresh"] = s[first][2]
    f["beta"] = round(s[first][2] / max(s[first - 1][1], 1), 3)
    # recovery over: cwnd back at ssthresh; growth after it, per RTT
    rec = next((i for i in range(first, len(s)) if s[i][1] >= s[i][2]), None)
    if rec is not None:
        f["recovery_ms"] = round((s[rec][0] - s[first][0]) / 1e6, 1)
        base = s[rec]
        for k in (10, 30):
            tk = base[0] + k * rtt_ms * 1e6
            j = next((i for i in range(rec, len(s)) if s[i][0] >= tk), None)
            if j is not None:
                f["growth_%drtt" % k] = round(s[j][1] / max(base[1], 1), 3)
    return f


def compare(k, s, table=TOLERANCE):
    out = {}
    for name, (kind, tol) in table.items():
        a, b = k.get(name), s.get(name)
        if a is None or b is None:
            out[name] = "same" if a == b else "missing"
            continue
        d = abs(a - b) if kind == "abs" else abs(a - b) / max(abs(a), 1e-9)
        out[name] = "same" if d <= tol else "differs"
    return out


def run_row(a, obj, tmp, cc, pat):
    """One row: the kernel, then skops, through the same pattern."""
    row = {"cc": cc, "pattern": pat}
    for side in ("kernel", "skops"):
        lem = start_linkem(a.rtt_ms, pat, os.path.join(tmp, "lem.json"))
        sink = start_sink()
        try:
            ecn = pat == "ecn"
            maps = (kernel_send(obj, cc, a.bytes, ecn) if side == "kernel" else
                    skops_send(obj, cc, a.bytes, ecn, tmp))
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            # a run that stalls or fails is a row saying so, not the end
            maps = []
            row.setdefault("errors", {})[side] = str(e).splitlines()[0][:200]
        finally:
            try:
                sink.wait(timeout=30)
            except subprocess.TimeoutExpired:
                sink.kill()
            lem.terminate()
            lem.wait(timeout=10)
        row[side] = figures(samples(maps), a.rtt_ms)
        row[side]["linkem"] = json.load(open(os.path.join(tmp, "lem.json")))["a2b"]
    row["verdict"] = compare(row["kernel"], row["skops"])
    row["gate"] = compare(row["kernel"], row["skops"], GATE)
    if "errors" in row:
        row["verdict"]["run"] = row["gate"]["run"] = "failed"
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="reno,cubic,bbr")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--rtt-ms", type=float, default=10)
    ap.add_argument("--bytes", type=int, default=24 << 20)
    ap.add_argument("--json")
    ap.add_argument("--report", default=os.path.join(BUILD, "cc-trajectory-report.md"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tries", type=int, default=5)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("cc_traj: needs root (netns, bpftool, cgroup v2)")
        return 1
    for need in (SKCAT, LINKEM):
        if not os.path.exists(need):
            print("cc_traj: %s is missing: build first" % need)
            return 1
    tmp = tempfile.mkdtemp(prefix=TAG)
    obj = equiv.compile_bpf(os.path.join(HERE, "progs", "cc_trace.c"),
                            os.path.join(tmp, "cc_trace.o"))
    rows = []
    bad = gate_fail = 0
    setup()
    try:
        for cc in a.cc.split(","):
            if not equiv.kernel_has_cc(cc):
                rows.append({"cc": cc, "skipped": "the kernel has no %s" % cc})
                continue
            for pat in a.patterns.split(","):
                for attempt in range(1, (a.tries if a.check else 1) + 1):
                    row = run_row(a, obj, tmp, cc, pat)
                    row["try"] = attempt
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    gate_bad = [k for k, v in row["gate"].items() if v != "same"]
                    if not gate_bad:
                        break
                    print("cc_traj: %s/%s try %d: %s outside the gate%s" % (
                        cc, pat, attempt, ", ".join(gate_bad),
                        ", again" if a.check and attempt < a.tries else ""), flush=True)
                bad += sum(1 for v in row["verdict"].values() if v != "same")
                gate_fail += 1 if gate_bad else 0
    finally:
        teardown()
    with open(a.report, "w") as f:
        f.write("# CC trajectories: skops against Linux, %g ms RTT, %d MiB\n\n"
                % (a.rtt_ms, a.bytes >> 20))
        cols = ["ss_exit_cwnd", "hystart_exit", "cut_ssthresh", "beta", "reductions", "cwnd_drops",
                "recovery_ms", "growth_10rtt", "growth_30rtt", "retrans", "duration_ms"]
        f.write("| cc | pattern | " + " | ".join(cols) + " |\n")
        f.write("|---|---|" + "---|" * len(cols) + "\n")
        for r in rows:
            if "skipped" in r:
                f.write("| %s | %s |\n" % (r["cc"], r["skipped"]))
                continue
            if "errors" in r:
                f.write("| %s | %s | failed: %s |\n" % (r["cc"], r["pattern"], "; ".join(
                    "%s: %s" % kv for kv in r["errors"].items())))
                continue
            cells = []
            for c in cols:
                kv, sv = r["kernel"].get(c), r["skops"].get(c)
                mark = " ✗" if r["verdict"].get(c) == "differs" else ""
                cells.append("%s / %s%s" % (kv, sv, mark))
            pat = r["pattern"] + (" (try %d)" % r["try"] if r.get("try", 1) > 1 else "")
            f.write("| %s | %s | %s |\n" % (r["cc"], pat, " | ".join(cells)))
        f.write("\nEach cell: Linux / skops. ✗: outside the tolerance (%s).\n" % ", ".join(
            "%s %s %g" % (k, kind, t) for k, (kind, t) in TOLERANCE.items()))
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    print("cc_traj: report in %s; %d figures outside tolerance; %d rows outside the gate%s"
          % (a.report, bad, gate_fail, "" if a.check else " (not checked)"))
    return 1 if (a.check and gate_fail) else 0


if __name__ == "__main__":
    sys.exit(main())
