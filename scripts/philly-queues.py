#!/usr/bin/env python3
"""Writes a queues file (docs/engine.md "Queues and quotas") from Philly's virtual clusters.

Philly's 11 virtual clusters (philly_vc.csv: vc, node num; from the Helios artifact) become 11
top-level queues whose guarantees split the cluster's GPUs in proportion to their node counts
(largest remainders, so they sum to exactly --gpus). The public 15,000-job slice names users, not
VCs, so users are assigned to VCs here: by descending GPU-hours asked, each to the VC whose
assigned GPU-hours per guaranteed GPU is lowest (ties: the VC listed first). Deterministic: the
same files give the same queues.

  scripts/philly-queues.py $HEADROOM_TRACES/microsoft-philly > philly-queues.yaml
  headroom sim --cluster philly:$HEADROOM_TRACES/microsoft-philly/cluster_machine_list \\
    --workload philly:$HEADROOM_TRACES/microsoft-philly/philly_data_training.csv \\
    --queues philly-queues.yaml --policy headroom --preemption on
"""
import argparse
import csv
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("philly_dir", help="the microsoft-philly traces folder")
    parser.add_argument("--gpus", type=int, default=2490,
                        help="GPUs the guarantees split (cluster_machine_list has 2,490)")
    args = parser.parse_args()

    with open(os.path.join(args.philly_dir, "philly_vc.csv"), newline="") as f:
        vcs = [(row["vc"], int(row["node num"])) for row in csv.DictReader(f)]
    nodes = sum(n for _, n in vcs)
    exact = [n * args.gpus / nodes for _, n in vcs]
    guaranteed = [int(x) for x in exact]
    by_remainder = sorted(range(len(vcs)), key=lambda i: (-(exact[i] - guaranteed[i]), i))
    for i in by_remainder[: args.gpus - sum(guaranteed)]:
        guaranteed[i] += 1

    demand = {}
    with open(os.path.join(args.philly_dir, "philly_data_training.csv"), newline="") as f:
        for row in csv.DictReader(f):
            user = int(row["user"])
            demand[user] = demand.get(user, 0) + int(row["gpu_num"]) * int(row["run_time"]) / 3600
    assigned = [0.0] * len(vcs)
    tenants = [[] for _ in vcs]
    for user in sorted(demand, key=lambda u: (-demand[u], u)):
        vc = min(range(len(vcs)), key=lambda i: (assigned[i] / guaranteed[i], i))
        assigned[vc] += demand[user]
        tenants[vc].append(f"user-{user}")

    out = sys.stdout
    out.write("# Philly's virtual clusters as queues: written by scripts/philly-queues.py\n"
              f"# ({args.gpus} GPUs split by the VCs' node counts; users assigned by demand).\n"
              "queues:\n")
    for (vc, _), gpus, users in zip(vcs, guaranteed, tenants):
        out.write(f"  - name: vc-{vc}\n    guaranteed: {{devices: {gpus}}}\n")
        out.write(f"    tenants: [{', '.join(sorted(users, key=lambda u: int(u[5:])))}]\n")


if __name__ == "__main__":
    main()
