#!/usr/bin/env python3
"""The fill experiment's fidelity against FGD's artifact, over every openb variant.

Runs `headroom sim --experiment fill` (seeds 42-51, all seven policies) on each variant and
holds it against the artifact's per-seed tables (../shared/reference/fgd-atc23): prints the
median table of docs/fill.md (ours / published unallocated GPU %, x outside the issue's window),
per baseline how many seeds replay the artifact's run point for point, and headroom against
FGD's published medians (unallocated at 100% arrived, fragmentation ratio at 90%).

usage: scripts/fill-fidelity.py [--headroom build/bin/headroom] [--variants default,cpu050]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

VARIANTS = ["default", "cpu050", "cpu100", "cpu200", "cpu250", "gpushare40", "gpushare60",
            "gpushare80", "gpushare100", "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33",
            "multigpu20", "multigpu30", "multigpu40", "multigpu50"]
POINTS = [95, 100, 110, 130]
SEEDS = list(range(42, 52))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    traces = os.environ.get("HEADROOM_TRACES", os.path.join(root, "..", "shared", "traces"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headroom", default=os.path.join(root, "build", "bin", "headroom"))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--reference",
                        default=os.path.join(traces, "..", "reference", "fgd-atc23",
                                             "analysis_allo_discrete.csv"))
    parser.add_argument("--out", default=os.path.join(root, "out", "fidelity"))
    args = parser.parse_args()

    def load(path):  # (workload, artifact policy, seed) -> {pct: value}
        table = {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                curve = {p: float(row[str(p)]) for p in range(131) if row.get(str(p), "") != ""}
                table[(row["workload"], row["sc_policy"], int(row["seed"]))] = curve
        return table

    published = load(args.reference)  # Allocated %.
    published_ratio = load(os.path.join(os.path.dirname(args.reference),
                                        "analysis_frag_ratio_discrete.csv"))

    trace_dir = os.path.join(traces, "alibaba-gpu-v2023-openb")
    inside = total = 0
    replayed = {}  # policy -> [full matches, runs, sum of points matched before divergence]
    rows = []
    goal_rows = []
    for variant in args.variants.split(","):
        workload = f"openb_pod_list_{variant}"
        out = os.path.join(args.out, variant)
        subprocess.run([args.headroom, "sim", "--experiment", "fill",
                        "--cluster", f"openb:{trace_dir}/openb_node_list_gpu_node.csv",
                        "--workload", f"openb:{trace_dir}/{workload}.csv", "--policy", "all",
                        "--seeds", "42-51", "--out", out], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        for policy in report["policies"]:
            name, artifact = policy["name"], policy["artifact_policy"]
            ours = {p["arrived_pct"]: p["unallocated_gpu_pct"]["median"]
                    for p in policy["fill_curve"]}
            cells = []
            for pct in POINTS:
                if not artifact:
                    cells.append(f"{ours[pct]:.2f}")
                    continue
                theirs = statistics.median(100 - published[(workload, artifact, s)][pct]
                                           for s in SEEDS)
                window = 0.5 if name == "random" else 0.3
                ok = abs(ours[pct] - theirs) <= window + 1e-9
                inside += ok
                total += 1
                cells.append(f"{ours[pct]:.2f} / {theirs:.2f}" + ("" if ok else " **x**"))
            rows.append(f"| {variant} | {name} | " + " | ".join(cells) + " |")
            if not artifact:
                ratio = {p["arrived_pct"]: p["fragmentation_ratio_pct"]["median"]
                         for p in policy["fill_curve"]}
                fgd = statistics.median(100 - published[(workload, "06-FGD", s)][100]
                                        for s in SEEDS)
                fgd_ratio = statistics.median(published_ratio[(workload, "06-FGD", s)][90]
                                              for s in SEEDS)
                goal_rows.append(f"| {variant} | {ours[100]:.2f} | {fgd:.2f} | {ratio[90]:.1f}% | "
                                 f"{fgd_ratio:.1f}% |")
                continue
            stats = replayed.setdefault(name, [0, 0, 0])
            for run in policy["runs"]:
                theirs = published[(workload, artifact, run["seed"])]
                same = 0
                for pct in range(131):
                    if pct in theirs and run["allocated_gpu_pct"][pct] is not None:
                        if abs(run["allocated_gpu_pct"][pct] - theirs[pct]) > 1e-9:
                            break
                    same += 1
                stats[0] += same == 131
                stats[1] += 1
                stats[2] += same

    print("| variant | policy | 95% | 100% | 110% | 130% |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nwithin the window: {inside} of {total} points\n")
    print("| policy | runs identical at all 131 points | mean points identical before the first"
          " difference |")
    print("|---|---|---|")
    for name, (full, runs, points) in replayed.items():
        print(f"| {name} | {full} of {runs} | {points / runs:.1f} |")
    print("\n| variant | headroom | FGD (published) | frag. ratio headroom | FGD (published) |")
    print("|---|---|---|---|---|")
    print("\n".join(goal_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
