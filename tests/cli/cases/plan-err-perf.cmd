# Every bad row of a performance file, each at its cell.
plan dgx-h100:nodes=2 inputs/jobs-train-a.yaml --device-perf inputs/perf-bad.csv
