#!/usr/bin/python3
"""report: the benchmark's figures (one JSON line per configuration and
figure, every repetition) into PREFIX.json (machine, build, each figure's
median, min, max and ratio to the kernel baseline of the same run) and
PREFIX.md (the table) and PREFIX-bulk.png (gnuplot); prints the table.
  report.py RESULTS.jsonl PREFIX QUICK SECS REPS COMMIT BUILD_DIR"""
import json
import os
import platform
import statistics
import subprocess
import sys

BASELINE = "kernel_kernel_veth_offload"


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
    base = {r["figure"]: statistics.median(r["values"]) for r in rows
            if r["config"] == BASELINE and r["values"]}
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
           "figures": figs}
    with open(prefix + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    m = doc["machine"]
    lines = [f"skops benchmark, commit {commit}, {m['cpu']} ({m['cores']} cores), "
             f"kernel {m['kernel']}, DPDK {m['dpdk']}; {secs} s a figure, {reps} run(s) "
             f"(median [min-max]); ratio to {BASELINE}.", "",
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
    plot(figs, prefix)


def plot(figs, prefix):
    """PREFIX-bulk.png: bulk throughput bars per configuration (gnuplot)."""
    rows = {}
    for x in figs:
        if x["figure"] in ("bulk_1", "bulk_4"):
            rows.setdefault(x["config"], {})[x["figure"]] = x["median"]
    if not rows:
        return
    dat = prefix + "-bulk.dat"
    with open(dat, "w") as f:
        for cfg, v in rows.items():
            f.write(f'"{cfg}" {v.get("bulk_1", 0)} {v.get("bulk_4", 0)}\n')
    script = (f'set terminal pngcairo noenhanced size 1000,500; set output "{prefix}-bulk.png";'
              'set style data histograms; set style fill solid 0.8; set boxwidth 0.9;'
              'set ylabel "Mbit/s"; set xtics rotate by -20; set key top right;'
              'set title "bulk throughput (median)";'
              f'plot "{dat}" using 2:xtic(1) title "1 flow", "" using 3 title "4 flows"')
    r = subprocess.run(["gnuplot", "-e", script], capture_output=True, text=True)
    if r.returncode:
        print(f"report: gnuplot: {r.stderr.strip()}", file=sys.stderr)
        sys.exit(1)
    print(f"wrote {prefix}-bulk.png")


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(sys.argv[1:])
