#!/usr/bin/env python3
"""The HPCC paper's Figure 11 beside fabricsim (a benchmark report, not pass/fail).

Li et al., "HPCC: High Precision Congestion Control", SIGCOMM'19, section 5.3, Figure 11: on a
320-server fat tree, the 95th-percentile FCT slowdown of each scheme by flow size, for
FB_Hadoop flows at 30% load with 60-to-1 incasts (500 KB per sender) mixed in at 2% of the
network's capacity (11a; 11b: the share of time PFC pauses), or at 50% load alone (11c). This
script builds that experiment from the paper's section 5.1 and its authors' run.py and
mix/fat.txt (alibaba-edu/High-Precision-Congestion-Control, simulation/), runs it under HPCC,
DCQCN, TIMELY and DCTCP, bins the flows as the authors' analysis/fct_analysis.py does (sorted
by size, equal-count 5% bins, the slowdown clamped at 1, FCT to the last ACK at the sender as
theirs, incast flows left out), and prints each bin that holds one of the figure's labelled
sizes beside the figure's value.

The figure's values are read off its plot (approximate, +-10%). The paper simulates 0.1 s or
more of arrivals; this runs --duration of them (default 5 ms, minutes per scheme), so flows of
megabytes are few and the long-flow bins are noisy. Differences from the paper's set-up, kept
on purpose: DCTCP's single marking threshold is the 100 Gb/s one on every port (the paper
scales it with the link rate; the host downlinks are where this non-blocking tree queues), and
DCQCN and TIMELY run without the windowed (+win) variants.

Usage: scripts/hpcc_fig11.py [--figure 11c|11a] [--duration 5ms] [--cc hpcc,dcqcn,timely,dctcp]
                             [--out DIR]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FABRICSIM = os.path.join(ROOT, "build", "release", "tools", "fabricsim")

# 95th-percentile slowdown at the x-axis labels (flow sizes in bytes) the figure marks, read off
# the plot (approximate); None where the curve could not be read. 11a also gives the share of
# time PFC paused (Figure 11b).
PAPER_P95 = {
    "11c": {
        "hpcc": {1000: 1.8, 7000: 2.4, 46000: 3.1, 120000: 5.2},
        "dcqcn": {1000: 5.3, 7000: 5.0, 46000: 5.0, 120000: None},
        "timely": {1000: 6.4, 7000: None, 46000: 5.7, 120000: 5.4},
        "dctcp": {1000: 3.35, 7000: 3.6, 46000: 3.6, 120000: 4.9},
    },
    "11a": {
        "hpcc": {1000: 1.6, 7000: 1.9, 46000: 2.2, 120000: 3.3},
        "dcqcn": {1000: 65.0, 7000: 53.0, 46000: 45.0, 120000: None},
        "timely": {1000: 100.0, 7000: None, 46000: 74.0, 120000: 38.0},
        "dctcp": {1000: 3.0, 7000: 2.9, 46000: 2.9, 120000: 3.6},
    },
}
PAPER_PAUSED = {"hpcc": 0.0, "dcqcn": 5.3, "timely": 8.7, "dctcp": 0.0}  # Figure 11b, %

# Per scheme, the run.py settings (100 Gb/s hosts): ECN thresholds of the host links, the ACK
# class (ACK_HIGH_PRIO) and the congestion-control keys. Common to all: 1000-byte payloads,
# a 32 MiB switch buffer, PFC, MIN_RATE 1 Gb/s.
SCHEMES = {
    # cc hp: U_TARGET 0.95, MI_THRESH 0, GLOBAL_T 1, RATE_AI 10 x bw/25 Mb/s (fabricsim's
    # default w_ai_fraction), ACK_HIGH_PRIO 0.
    "hpcc": ["network.cc=hpcc", "network.ack_class=data", "network.hpcc.max_stage=0",
             "network.hpcc.base_rtt=global", "network.hpcc.min_rate=1000Mbps"],
    # cc dcqcn (the variant the authors say the paper ran): ALPHA_RESUME_INTERVAL 1 us,
    # RATE_DECREASE_INTERVAL 4 us, RP_TIMER 300 us, EWMA_GAIN 1/256, FAST_RECOVERY_TIMES 1,
    # CLAMP_TARGET_RATE 0, RATE_AI 5 x bw/25, RATE_HAI 50 x bw/25 Mb/s; the reference's
    # rules as scripts/cc_reference.sh sets them. Kmin/Kmax 100/400 KB x each port's rate/25G,
    # Pmax 0.2 are fabricsim's defaults.
    "dcqcn": ["network.cc=dcqcn", "network.ack_class=control", "network.dcqcn.g=0.00390625",
              "network.dcqcn.alpha_init=1", "network.dcqcn.byte_counter=0B",
              "network.dcqcn.cnp_interval=0us", "network.dcqcn.min_dec_factor=0",
              "network.dcqcn.alpha_period=1us", "network.dcqcn.rate_reduce_period=4us",
              "network.dcqcn.increase_period=300us", "network.dcqcn.fast_recovery_steps=1",
              "network.dcqcn.clamp=after_timer_increase", "network.dcqcn.rate_ai=20Mbps",
              "network.dcqcn.rate_hai=200Mbps", "network.dcqcn.min_rate=1000Mbps"],
    # cc timely: fabricsim's hpcc_ns3 variant is run.py's timely; ACK_HIGH_PRIO 1.
    "timely": ["network.cc=timely", "network.ack_class=control"],
    # cc dctcp: a window (HAS_WIN 1), g 1/16, Kmin = Kmax = 30 KB x bw/10, Pmax 1,
    # ACK_HIGH_PRIO 0; the 100 Gb/s threshold on every port (fabricsim scales only the
    # default RED thresholds with the port rate).
    "dctcp": ["network.cc=dctcp", "network.ack_class=data", "network.dctcp.g=0.0625",
              "network.ecn_kmin=300KB", "network.ecn_kmax=300KB", "network.ecn_pmax=1"],
}


def fat_tree_yaml(duration, seed, figure):
    """mix/fat.txt as a custom topology: 5 pods of 4 ToRs (16 hosts each, 100 Gb/s) and 4
    aggregation switches, every ToR to every aggregation switch of its pod, aggregation switch
    j of each pod to cores 4j..4j+3; every switch link 400 Gb/s, every link 1 us."""
    lines = ["simulation: {seed: %d, threads: 2}" % seed,
             "cluster:", "  topology: custom", "  host: {gpus: 0, nics: 1}", "  switches:"]
    lines += ["    - {name: tor%d, tier: 0, group: %d}" % (t, t // 4) for t in range(20)]
    lines += ["    - {name: agg%d, tier: 1, group: %d}" % (a, a // 4) for a in range(20)]
    lines += ["    - {name: core%d, tier: 2}" % c for c in range(16)]
    lines.append("  hosts:")
    lines += ["    - {name: h%d}" % h for h in range(320)]
    lines.append("  links:")
    lines += ["    - {a: h%d.nic0, b: tor%d, rate: 100Gbps, delay: 1us}" % (h, h // 16)
              for h in range(320)]
    for t in range(20):
        pod = t // 4
        lines += ["    - {a: tor%d, b: agg%d, rate: 400Gbps, delay: 1us}" % (t, 4 * pod + j)
                  for j in range(4)]
    for a in range(20):
        j = a % 4
        lines += ["    - {a: agg%d, b: core%d, rate: 400Gbps, delay: 1us}" % (a, 4 * j + c)
                  for c in range(4)]
    lines += ["network:", "  mtu: 1000B", "  buffer: 32MiB", "  pfc: true", "  ecn: true",
              "workload:", "  flows:", "    pattern: poisson", "    sizes: fb_hadoop",
              "    load: %s" % ("0.3" if figure == "11a" else "0.5"),
              "    duration: %s" % duration]
    if figure == "11a":
        lines.append("    incasts: {senders: 60, size: 500KB, load: 0.02}")
    return "\n".join(lines) + "\n"


def p95_bins(flows_csv):
    """fct_analysis.py's bins: flows sorted by size, equal-count 5% bins, per bin its largest
    size and the 95th-percentile slowdown (clamped at 1; sorted[int(n x 0.95)]). The slowdown
    is HPCC's: to the last ACK at the sender, over the unloaded time to that ACK."""
    rows = []
    with open(flows_csv, newline="") as f:
        for r in csv.DictReader(f):
            if r["acked_us"] and r["incast"] == "0":  # the incasts are left out, as theirs
                fct = float(r["acked_us"]) - float(r["start_us"])
                rows.append((int(r["bytes"]), max(1.0, fct / float(r["ideal_acked_us"]))))
    rows.sort()
    bins = []
    n = len(rows)
    for i in range(20):
        part = rows[n * i // 20:n * (i + 1) // 20]
        if part:
            s = sorted(x for _, x in part)
            bins.append((part[-1][0], s[int(len(s) * 0.95)]))
    return bins, n


def paused_share(ports_csv, results_json):
    """Percent of port-time a port's data class was paused, over every port, until the last
    ACK (one reading of Figure 11b's "fraction of time paused")."""
    with open(results_json) as f:
        until_us = json.load(f)["results"]["end_us"]  # the last ACK
    paused = ports = 0
    with open(ports_csv, newline="") as f:
        for r in csv.DictReader(f):
            paused += float(r["paused_us"])
            ports += 1
    return 100.0 * paused / (ports * until_us)


def at_size(bins, size):
    """The first bin whose largest flow is at least `size` (the bin the label sits in)."""
    for top, p95 in bins:
        if top >= size:
            return p95
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--figure", default="11c", choices=["11c", "11a"])
    ap.add_argument("--duration", default="5ms")
    ap.add_argument("--cc", default="hpcc,dcqcn,timely,dctcp")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="keep every run's outputs here")
    args = ap.parse_args()
    if not os.access(FABRICSIM, os.X_OK):
        sys.exit("build first: cmake --preset release && cmake --build --preset release")
    out = args.out or tempfile.mkdtemp(prefix="hpcc_fig11_")
    os.makedirs(out, exist_ok=True)
    scenario = os.path.join(out, "hpcc_fig11.yaml")
    with open(scenario, "w") as f:
        f.write(fat_tree_yaml(args.duration, args.seed, args.figure))
    sizes = [1000, 7000, 46000, 120000]
    print("FB_Hadoop, %s, %s of arrivals, 95th-percentile FCT slowdown: paper (Fig. %s, read off "
          "the plot) / fabricsim" % ("30% load + incasts" if args.figure == "11a" else "50% load",
                                     args.duration, args.figure))
    print("%-8s %8s " % ("scheme", "flows") + " ".join("%14s" % ("<= %dB" % s) for s in sizes) +
          ("   paused %" if args.figure == "11a" else ""))
    for cc in args.cc.split(","):
        run_dir = os.path.join(out, cc)
        cmd = [FABRICSIM, "run", scenario, "--quiet", "--out", run_dir]
        for kv in SCHEMES[cc]:
            cmd += ["--set", kv]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        bins, n = p95_bins(os.path.join(run_dir, "flows.csv"))
        cells = []
        for s in sizes:
            paper = PAPER_P95[args.figure][cc][s]
            ours = at_size(bins, s)
            cells.append("%6s / %5s" % ("-" if paper is None else "%.1f" % paper,
                                        "-" if ours is None else "%.1f" % ours))
        if args.figure == "11a":
            cells.append("%5.1f / %4.2f" % (PAPER_PAUSED[cc], paused_share(
                os.path.join(run_dir, "ports.csv"), os.path.join(run_dir, "results.json"))))
        print("%-8s %8d " % (cc, n) + " ".join("%14s" % c for c in cells))
    print("outputs in %s" % out)


if __name__ == "__main__":
    main()
