#!/usr/bin/env python3
"""Builds a --device-perf file from PAL's per-GPU measurements.

  bench/pal_perf.py PAL_AGG_CSV HOST_PATTERN GPUS_PER_NODE > perf.csv

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


def main():
    path, host_pattern, per_node = sys.argv[1], sys.argv[2], int(sys.argv[3])
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["uuid"], []).append(float(row["perf"]))
    print("# Per-GPU medians of PAL's measured run times (larger = slower), from")
    print(f"# {path.split('/')[-1]} of PAL's artifact (github.com/hal-uw/blox-pal @ da726cab,")
    print("# MIT licence: Copyright (c) 2015 - present Microsoft Corporation; see")
    print("# LICENSE.blox-pal.txt). Built by bench/pal_perf.py; GPUs in uuid order.")
    print("device,perf,runs")
    for i, uuid in enumerate(sorted(runs)):
        node, gpu = divmod(i, per_node)
        print(f"{host_pattern.format(node)}/gpu{gpu},{statistics.median(runs[uuid]):.6f},{len(runs[uuid])}")


if __name__ == "__main__":
    main()
