# --capacity's job names a class the performance file lacks: an error at the option, as for a plan's jobs.
whatif dgx-h100:nodes=2 inputs/plan-h100-node0.yaml --capacity gpus=4,required=node,perf_class=nosuch --device-perf inputs/perf-two-classes.csv --perf-class bert
