#!/usr/bin/python3
"""report: the benchmark's figures (one JSON line per configuration and
figure, every repetition; rr64_cdf lines carry a latency distribution) into
PREFIX.json (machine, build, each figure's median, min, max and ratio to the
kernel baseline of the same run), PREFIX.md (the table) and the plots
(gnuplot): PREFIX-bulk.png (throughput bars per configuration, with loss),
PREFIX-rr-cdf.png (RR latency CDFs), PREFIX-crr-progs.png (CRR rate vs
programs attached), PREFIX-conns.png (memory vs connections),
PREFIX-apps.png (nginx and redis requests/s, kernel and shim); prints the
table.
  report.py RESULTS.jsonl PREFIX QUICK SECS REPS COMMIT BUILD_DIR"""
import json
import os
import platform
import statistics
import subprocess
import sys

BASELINE = "kernel_kernel_veth_offload"
# a figure the first baseline lacks (loss runs need segments, not GSO
# frames; idle connections run on loopback; nginx and redis on the kernel
# are their own) compares with the next
BASELINES = (BASELINE, "kernel_kernel_veth_nooffload", "kernel_loopback", "kernel_apps",
             "kernel_linkem")
# Gross regressions, judged against the kernel of the same run (so neither a
# slower machine nor a busy one trips them): about 3x past the worst ratio
# seen on the 2-vCPU development VM (docs/bench.md), never noise. Latencies
# have a ceiling, rates a floor.
GUARDS = (
    ("shim_to_kernel", "rr64_p50", "max", 3.0),   # seen 0.8-1.0x
    ("kernel_to_shim", "rr64_p50", "max", 3.0),   # seen 1.0-1.1x
    ("skops_skops_memif", "rr64_p50", "max", 1.0),  # seen 0.17x
    ("shim_apps", "nginx64_req_s", "min", 0.2),   # seen 0.6-1.3x
    ("shim_apps", "redis_get_req_s", "min", 0.12),  # seen 0.4-2.2x
    ("shim_to_kernel", "crr64", "min", 0.05),     # seen 0.2-0.4x
    ("kernel_to_shim", "crr64", "min", 0.05),     # seen 0.2-0.4x
)


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine(build):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    opts = {}
    try:
        for o in json.loads(sh("meson", "introspect", build, "--buildoptions") or "[]"):
            if o["name"] in ("buildtype", "b_sanitize", "optimization", "debug"):
                opts[o["name"]] = o["value"]
    except ValueError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "dpdk": sh("pkg-config", "--modversion", "libdpdk"),
            "iperf3": sh("iperf3", "--version").split("\n")[0], "build_options": opts}


def main(a):
    res, prefix, quick, secs, reps, commit, build = a
    rows = [json.loads(l) for l in open(res) if l.strip()]
    cdfs = {r["config"]: r["cdf"] for r in rows if "cdf" in r}
    rows = [r for r in rows if "values" in r]
    base = {}
    for cfg in reversed(BASELINES):
        for r in rows:
            if r["config"] == cfg and r["values"]:
                base[r["figure"]] = statistics.median(r["values"])
    figs = []
    for r in rows:
        v = r["values"]
        if not v:
            continue
        med = statistics.median(v)
        fig = r["figure"].split("_progs_")[0]
        b = base.get(fig)
        figs.append({**r, "median": med, "min": min(v), "max": max(v),
                     "ratio_to_kernel": round(med / b, 3) if b else None})
    doc = {"commit": commit, "quick": quick == "1", "seconds_per_figure": float(secs),
           "repetitions": int(reps), "baseline": BASELINE, "machine": machine(build),
           "figures": figs, "rr64_cdf": cdfs}
    with open(prefix + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    m = doc["machine"]
    lines = [f"skops benchmark, commit {commit}, {m['cpu']} ({m['cores']} cores), "
             f"kernel {m['kernel']}, DPDK {m['dpdk']}; {secs} s a figure, {reps} run(s) "
             f"(median [min-max]); ratio to the kernel ({', '.join(BASELINES)}, the "
             "first that has the figure).", "",
             "| configuration | figure | value | unit | vs kernel |", "|---|---|---|---|---|"]
    for x in figs:
        spread = f" [{x['min']:.4g}-{x['max']:.4g}]" if len(x["values"]) > 1 else ""
        ratio = f"{x['ratio_to_kernel']:.2f}x" if x["ratio_to_kernel"] else ""
        val = f"{x['median']:.0f}" if x["median"] >= 1000 else f"{x['median']:.4g}"
        lines.append(f"| {x['config']} | {x['figure']} | {val}{spread} | "
                     f"{x['unit']} | {ratio} |")
    md = "\n".join(lines) + "\n"
    with open(prefix + ".md", "w") as f:
        f.write(md)
    print(md)
    print(f"wrote {prefix}.json and {prefix}.md")
    bad = guards(figs)
    ok = plot(figs, prefix)
    ok &= plot_cdf(cdfs, prefix)
    ok &= plot_progs(figs, prefix)
    ok &= plot_conns(figs, prefix)
    ok &= plot_apps(figs, prefix)
    if bad or not ok:
        sys.exit(1)


def guards(figs):
    """The GUARDS this run breaks, each printed; how many."""
    by = {(x["config"], x["figure"]): x for x in figs}
    bad = 0
    for cfg, fig, kind, bound in GUARDS:
        x = by.get((cfg, fig))
        r = x and x["ratio_to_kernel"]
        if r and (r > bound if kind == "max" else r < bound):
            print(f"bench: GROSS REGRESSION: {cfg} {fig} at {r:.2f}x the kernel "
                  f"({kind} {bound}x)", file=sys.stderr)
            bad += 1
    return bad


def gnuplot(prefix, name, script, size="1000,500"):
    """Runs script with the terminal set to PREFIX-NAME.png; False on failure."""
    out = f"{prefix}-{name}.png"
    r = subprocess.run(["gnuplot", "-e", f'set terminal pngcairo noenhanced size {size}; '
                        f'set output "{out}"; ' + script], capture_output=True, text=True)
    if r.returncode:
        print(f"report: gnuplot {name}: {r.stderr.strip()}", file=sys.stderr)
        return False
    print(f"wrote {out}")
    return True


def plot(figs, prefix):
    """PREFIX-bulk.png: bulk throughput bars per configuration (gnuplot)."""
    cols = ["bulk_1", "bulk_4", "bulk_1_loss1pct", "bulk_1_loss5pct", "bulk_1_loss1pct_bbr",
            "bulk_1_loss5pct_bbr"]
    titles = ["1 flow", "4 flows", "1% loss, cubic", "5% loss, cubic", "1% loss, bbr",
              "5% loss, bbr"]
    rows, ratios = {}, {}
    for x in figs:
        if x["figure"] in cols:
            rows.setdefault(x["config"], {})[x["figure"]] = x["median"]
            ratios.setdefault(x["config"], {})[x["figure"]] = x["ratio_to_kernel"]
    if not rows:
        return True
    dat = prefix + "-bulk.dat"
    with open(dat, "w") as f:
        for cfg, v in rows.items():
            r = ratios[cfg]
            f.write(f'"{cfg}" ' + " ".join(str(v.get(c, 0)) for c in cols) + " " +
                    " ".join(f'"{r[c]:.2f}x"' if r.get(c) else '""' for c in cols) + "\n")
    series = ", ".join(f'"{dat}" using {i + 2}' + (":xtic(1)" if i == 0 else "") +
                       f' title "{t}"' for i, t in enumerate(titles))
    # each ratio over its bar: clustered bars sit 1/(columns + gap 2) apart
    w = 1 / (len(cols) + 2)
    labels = ", ".join(f'"" using ($0{(i - (len(cols) - 1) / 2) * w:+.4f}):{i + 2}:{i + 2 + len(cols)} '
                       'with labels offset 0,0.6 font ",8" notitle' for i in range(len(cols)))
    return gnuplot(prefix, "bulk", 'set style data histograms; set style fill solid 0.8; '
                   'set boxwidth 0.9; set ylabel "Mbit/s"; set xtics rotate by -20; '
                   'set key top right; set title "bulk throughput (median; over each bar its '
                   'ratio to the kernel)"; plot ' + series + ", " + labels, "1400,600")


def plot_cdf(cdfs, prefix):
    """PREFIX-rr-cdf.png: the 64-byte RR latency distribution per configuration."""
    if not cdfs:
        return True
    series = []
    for cfg, c in cdfs.items():
        dat = f"{prefix}-rr-cdf-{cfg}.dat"
        with open(dat, "w") as f:
            for p, us in zip(c["p"], c["us"]):
                f.write(f"{max(us, 0.01)} {p / 100}\n")
        series.append(f'"{dat}" using 1:2 with steps title "{cfg}"')
    return gnuplot(prefix, "rr-cdf", 'set logscale x; set xlabel "round trip (us, log)"; '
                   'set ylabel "fraction of transactions"; set key bottom right; '
                   'set grid; set title "64-byte request/response latency CDF (one run)"; '
                   'plot ' + ", ".join(series))


def plot_progs(figs, prefix):
    """PREFIX-crr-progs.png: CRR per second against sock_ops programs attached."""
    by = {x["figure"]: x["median"] for x in figs if x["config"] == "skops_skops_memif"}
    if "crr64" not in by:
        return True
    dat = prefix + "-crr-progs.dat"
    pts = sorted({int(k.split("_")[2]) for k in by if k.startswith("crr64_progs_")})
    with open(dat, "w") as f:
        f.write(f"0 {by['crr64']} {by['crr64']}\n")
        for n in pts:
            f.write(f"{n} {by.get(f'crr64_progs_{n}_jit', 'NaN')} "
                    f"{by.get(f'crr64_progs_{n}_interp', 'NaN')}\n")
    kern = [x["median"] for x in figs if x["config"] == BASELINE and x["figure"] == "crr64"]
    ref = f', {kern[0]} title "kernel (veth)" dashtype 2' if kern else ""
    interp = any(k.endswith("_interp") for k in by)
    return gnuplot(prefix, "crr-progs", 'set xlabel "sock_ops programs attached (each end)"; '
                   'set ylabel "connections/s"; set yrange [0:*]; set key bottom left; '
                   'set title "CRR rate, skperf over memif"; '
                   f'plot "{dat}" using 1:2 with linespoints title "JIT"' +
                   (', "" using 1:3 with linespoints title "interpreter"' if interp else "") + ref)


def plot_conns(figs, prefix):
    """PREFIX-conns.png: memory of idle connections against their number."""
    pts = {}
    for x in figs:
        f = x["figure"]
        if f.startswith("idle_") and f.endswith("_bytes_per_end"):
            n = int(f.split("_")[1])
            pts.setdefault(x["config"], []).append((n, x["median"] * 2 * n / 2**20))
    if not pts:
        return True
    series = []
    for cfg, p in pts.items():
        dat = f"{prefix}-conns-{cfg}.dat"
        with open(dat, "w") as f:
            for n, mib in sorted(p):
                f.write(f"{n} {mib}\n")
        series.append(f'"{dat}" using 1:2 with linespoints title "{cfg}"')
    return gnuplot(prefix, "conns", 'set logscale xy; set xlabel "idle connections"; '
                   'set ylabel "MiB (both ends)"; set key top left; set grid; '
                   'set title "memory of idle connections"; plot ' + ", ".join(series))


def plot_apps(figs, prefix):
    """PREFIX-apps.png: requests/s of nginx and redis, kernel and shim, the
    shim's ratio to the kernel over its bar."""
    cols = [("nginx64_req_s", "nginx 64 B (wrk -c32)"), ("redis_get_req_s", "redis GET"),
            ("redis_set_req_s", "redis SET")]
    by = {(x["config"], x["figure"]): x for x in figs}
    rows = [(t, by.get(("kernel_apps", f)), by.get(("shim_apps", f))) for f, t in cols]
    rows = [r for r in rows if r[1] and r[2]]
    if not rows:
        return True
    dat = prefix + "-apps.dat"
    with open(dat, "w") as f:
        for t, k, s in rows:
            f.write(f'"{t}" {k["median"]} {s["median"]} "{s["ratio_to_kernel"]:.2f}x"\n')
    return gnuplot(prefix, "apps", 'set style data histograms; set style fill solid 0.8; '
                   'set boxwidth 0.9; set ylabel "requests/s"; set yrange [0:*]; '
                   'set key top right; set title "unmodified servers: kernel and shim on skops '
                   '(median; the shim\'s ratio to the kernel)"; '
                   f'plot "{dat}" using 2:xtic(1) title "kernel", "" using 3 title "shim (skopsd, '
                   'af_packet)", "" using 0:3:4 with labels offset 5,1 notitle')


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(sys.argv[1:])
