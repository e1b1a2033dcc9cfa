# The same plan as a plan file: each job on the node fast for its class,
# its perf_class kept for evaluate.
plan dgx-h100:nodes=2 inputs/jobs-two-classes.yaml --device-perf inputs/perf-two-classes.csv --format yaml
