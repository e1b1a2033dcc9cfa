#!/usr/bin/env python3
"""Builds a --device-perf file from PAL's per-GPU measurements.

  bench/pal_perf.py PAL_AGG_CSV HOST_PATTERN GPUS_PER_NODE > perf.csv
  bench/pal_perf.py CLASS=PAL_AGG_CSV... HOST_PATTERN GPUS_PER_NODE > perf.csv

With CLASS=FILE pairs (one workload class each, e.g. bert=...bert-agg.csv
resnet=...resnet-agg.csv) it writes a `class` column and keeps the GPUs that
every file measured, so each device has a row per class.

PAL_AGG_CSV is one of the aggregated files of PAL's artifact (hal-uw/blox-pal
@ da726cab, MIT; e.g. aggregated_data/sim/sgemm-longhorn-agg.csv, one row per
run with the GPU's `uuid` and the run's `perf`, a duration: larger is slower).
Per GPU it takes the median `perf` over its runs, as PAL does
(blox/cluster_state.py); topoplan makes them relative to their median when it
reads the file. GPUs are assigned to devices HOST_PATTERN.format(node)/gpuK in
the order of their uuids: the file says which GPU was measured, not where it
sat (Longhorn's SGEMM rows have cabinet = node = -1), and uuid order is as
good as random. Deterministic: same input, same output.
"""
import csv
import statistics
import sys


def medians(path):
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["uuid"], []).append(float(row["perf"]))
    return runs


def main():
    *sources, host_pattern, per_node = sys.argv[1:]
    per_node = int(per_node)
    classes = [s.split("=", 1) if "=" in s else ["", s] for s in sources]
    runs = {name: medians(path) for name, path in classes}
    uuids = sorted(set.intersection(*(set(r) for r in runs.values())))
    files = ", ".join(path.split("/")[-1] for _, path in classes)
    print("# Per-GPU medians of PAL's measured run times (larger = slower), from")
    print(f"# {files} of PAL's artifact (github.com/hal-uw/blox-pal @ da726cab,")
    print("# MIT licence: Copyright (c) 2015 - present Microsoft Corporation; see")
    print("# LICENSE.blox-pal.txt). Built by bench/pal_perf.py; GPUs in uuid order.")
    tagged = any(name for name, _ in classes)
    print("device,perf,runs,class" if tagged else "device,perf,runs")
    for name, _ in classes:
        for i, uuid in enumerate(uuids):
            node, gpu = divmod(i, per_node)
            r = runs[name][uuid]
            print(f"{host_pattern.format(node)}/gpu{gpu},{statistics.median(r):.6f},{len(r)}" + (f",{name}" if tagged else ""))


if __name__ == "__main__":
    main()
