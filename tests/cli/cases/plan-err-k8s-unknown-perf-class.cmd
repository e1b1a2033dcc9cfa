# A Kubernetes Job's perf-class annotation names a class the file lacks: an error at the annotation.
plan dgx-h100:nodes=2 inputs/k8s-unknown-perf-class.yaml --device-perf inputs/perf-two-classes.csv
