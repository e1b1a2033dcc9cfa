# --for's job names a class the performance file lacks: an error with a suggestion.
whatif dgx-h100:nodes=2 inputs/plan-h100-node0.yaml --clear node --for gpus=4,perf_class=bret --device-perf inputs/perf-two-classes.csv --perf-class bert
