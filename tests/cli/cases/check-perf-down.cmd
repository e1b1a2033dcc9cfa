# A plan on a GPU the performance file says is down: a problem, exit 1.
check dgx-h100:nodes=2 inputs/plan-h100-node0.yaml --device-perf inputs/perf-down.csv
