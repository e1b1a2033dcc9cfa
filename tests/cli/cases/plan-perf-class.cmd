# Two jobs of different workload classes on the same GPUs: each sees its
# class's speeds (bert falls back to the class-less 0.95 on node 1) and
# takes the node that is fast for it.
plan dgx-h100:nodes=2 inputs/jobs-two-classes.yaml --device-perf inputs/perf-two-classes.csv
