plan dgx-h100:nodes=2 inputs/jobs-train-a.yaml --perf-class sgemm
