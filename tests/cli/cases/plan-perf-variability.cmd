# PAL's measured V100 speeds on 392 GPUs: synchronous jobs on equally fast
# GPUs, each with its slowest member's speed and straggler loss.
plan dgx-h100:nodes=49 ../../samples/variability/jobs-sync.yaml --device-perf ../../samples/variability/perf-longhorn-sgemm.csv
