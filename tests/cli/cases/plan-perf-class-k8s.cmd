# Kubernetes Jobs name their workload class with topoplan.io/perf-class: each takes the node fast for its class.
plan dgx-h100:nodes=2 inputs/k8s-perf-class.yaml --device-perf inputs/perf-two-classes.csv
