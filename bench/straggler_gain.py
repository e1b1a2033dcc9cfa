#!/usr/bin/env python3
"""The step-time gain of speed-aware over speed-blind placement (the straggler
model, topoplan-jobs(5) STRAGGLERS) on a PAL-derived speed set:

  bench/straggler_gain.py BUILD_DIR/cli/topoplan [PERF_CSV]

PERF_CSV defaults to samples/variability/perf-longhorn-sgemm.csv (392 V100 of
TACC Longhorn, PAL's SGEMM runs) on dgx-h100:nodes=49. For synchronous,
compute-bound training jobs of k = 8 ... 128 GPUs (step = 1 / slowest speed):

  idle   one job on the idle cluster, speed-aware (topo with --device-perf)
         against the mean over the places a speed-blind planner puts it (topo
         without --device-perf, the cluster tiled with jobs of k GPUs);
  full   the cluster tiled with floor(392 / k) jobs of k GPUs, the mean step
         speed-aware against speed-blind.

Next to them: the same gain computed from the speeds alone, ignoring the
topology (the k fastest GPUs against k at random), which the reference note
(shared/reference/groq-variability-failures.md) gives as about 6.5 %, 6.9 %,
9.3 % and 11.6 % for k = 8, 16, 64, 128; and PAL's published cluster-level
figure (SC'24: 42 % geomean JCT over variability-blind schedulers; its
artifact: -43 % average JCT on Sia-Philly traces), which measures whole
traces with queueing and locality penalties, so it is an upper reference, not
the same quantity. Target: speed-aware is never slower than speed-blind, and
the idle-cluster gain is within 2 points of the topology-free one.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

TOPO = "dgx-h100:nodes=49"
SIZES = [8, 16, 32, 64, 128]
NOTE = {8: 6.5, 16: 6.9, 64: 9.3, 128: 11.6}


def run(binary, *args):
    out = subprocess.run([binary, *args], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"topoplan {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def speeds_from(perf):
    durations = []
    with open(perf) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    header = lines[0].strip().split(",")
    col = header.index("perf")
    durations = [float(l.split(",")[col]) for l in lines[1:]]
    median = statistics.median(durations)
    return [median / d for d in durations]


def main():
    binary = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.abspath(__file__)) + "/.."
    perf = sys.argv[2] if len(sys.argv) > 2 else f"{root}/samples/variability/perf-longhorn-sgemm.csv"
    speeds = speeds_from(perf)
    rng = random.Random(14)
    status = 0
    print(f"{TOPO}, {len(speeds)} GPUs with PAL's Longhorn SGEMM speeds; compute-bound steps (1 / slowest)")
    print(f"{'k':>4}  {'idle: aware':>11}  {'blind':>7}  {'gain':>6}  {'full: gain':>10}  "
          f"{'speeds only':>11}  {'note':>5}")
    with tempfile.TemporaryDirectory() as tmp:
        for k in SIZES:
            jobs = len(speeds) // k
            tiled = f"{tmp}/tiled-{k}.yaml"
            with open(tiled, "w") as f:
                f.write("jobs:\n" + "".join(f"  - {{name: j{i}, gpus: {k}}}\n" for i in range(jobs)))
            single = f"{tmp}/single-{k}.yaml"
            with open(single, "w") as f:
                f.write(f"jobs:\n  - {{name: j0, gpus: {k}}}\n")
            blind_plan = f"{tmp}/blind-{k}.yaml"
            run(binary, "plan", TOPO, tiled, "-o", blind_plan, "--format", "json")
            blind = run(binary, "evaluate", TOPO, blind_plan, "--device-perf", perf, "--format", "json")
            aware = run(binary, "plan", TOPO, tiled, "--device-perf", perf, "--format", "json")
            one = run(binary, "plan", TOPO, single, "--device-perf", perf, "--format", "json")

            def steps(plan):
                return [1 / j["slowest_speed"] for j in plan["jobs"] if j["placed"]]

            blind_steps, aware_steps = steps(blind), steps(aware)
            assert len(blind_steps) == jobs and len(aware_steps) == jobs, (k, len(blind_steps), len(aware_steps))
            idle_aware = steps(one)[0]
            idle_blind = statistics.mean(blind_steps)
            idle_gain = 100 * (1 - idle_aware / idle_blind)
            full_gain = 100 * (1 - statistics.mean(aware_steps) / statistics.mean(blind_steps))
            fastest = 1 / sorted(speeds, reverse=True)[k - 1]
            at_random = statistics.mean(1 / min(rng.sample(speeds, k)) for _ in range(2000))
            free_gain = 100 * (1 - fastest / at_random)
            note = f"{NOTE[k]:.1f}" if k in NOTE else "-"
            print(f"{k:>4}  {idle_aware:>11.4f}  {idle_blind:>7.4f}  {idle_gain:>5.1f}%  {full_gain:>9.1f}%  "
                  f"{free_gain:>10.1f}%  {note:>5}")
            if idle_gain < -1e-9 or full_gain < -1e-9:
                print(f"  target missed: speed-aware is slower than speed-blind for k = {k}")
                status = 1
            if idle_gain < free_gain - 2:
                print(f"  target missed: the idle gain is more than 2 points below the speeds-only gain for k = {k}")
                status = 1
    print("published: PAL (SC'24) 42 % geomean JCT over variability-blind placement (whole traces, with queueing)")
    return status


if __name__ == "__main__":
    sys.exit(main())
