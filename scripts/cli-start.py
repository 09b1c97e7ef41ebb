#!/usr/bin/env python3
"""Times the CLI's start against sbatch's (docs/cli.md "Start time").

Runs `headroom submit --dry-run` (parses a whole job from flags and prints it; no daemon) and
`sbatch --version` one after the other, ROUNDS times RUNS each, and prints each round's median
wall time per process and the ratio. A process is started with posix_spawn and waited for, so
both pay the same cost around them. sbatch reads a slurm.conf even for --version: without
$SLURM_CONF a one-node file is written to a temporary directory. Without sbatch only the CLI
is timed.

  scripts/cli-start.py build/bin/headroom [--rounds 3] [--runs 300]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time


def time_runs(argv, runs, env):
    times = []
    with open(os.devnull, "wb") as null:
        for _ in range(runs):
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, env,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1)])
            _, status = os.waitpid(pid, 0)
            times.append(time.perf_counter() - start)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"cli-start: {' '.join(argv)} exited with {status}")
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("headroom", help="path of the headroom binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    cli = [os.path.abspath(args.headroom), "submit", "--dry-run", "-t", "1h", "-G", "1", "--",
           "sleep", "60"]
    env = dict(os.environ)
    sbatch = shutil.which("sbatch")
    workdir = tempfile.TemporaryDirectory()
    if sbatch and "SLURM_CONF" not in env:
        conf = os.path.join(workdir.name, "slurm.conf")
        with open(conf, "w") as out:
            out.write("ClusterName=t\nSlurmctldHost=localhost\n"
                      "NodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1 Default=YES\n")
        env["SLURM_CONF"] = conf
    time_runs(cli, 20, env)  # warm the page cache: the first start after a build reads the file
    if sbatch:
        time_runs([sbatch, "--version"], 20, env)
    print(f"{'round':>5}  {'headroom submit --dry-run':>26}  {'sbatch --version':>17}  ratio")
    for round_number in range(1, args.rounds + 1):
        ours = time_runs(cli, args.runs, env)
        if sbatch:
            theirs = time_runs([sbatch, "--version"], args.runs, env)
            print(f"{round_number:>5}  {ours * 1e3:>23.2f} ms  {theirs * 1e3:>14.2f} ms  "
                  f"{ours / theirs:.2f}x")
        else:
            print(f"{round_number:>5}  {ours * 1e3:>23.2f} ms  {'(no sbatch)':>17}")


if __name__ == "__main__":
    main()
