# The speed-blind peer beside topo: what ignoring speed costs.
compare dgx-h100:nodes=49 ../../samples/variability/jobs-sync.yaml --device-perf ../../samples/variability/perf-longhorn-sgemm.csv --policies topo,slurm
