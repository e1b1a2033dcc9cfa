# A drained GPU (--device-perf) is not capacity: node 1 keeps 7 GPUs, so one
# more 4-GPU job fits now (node 0 is the plan's) and three on the empty
# cluster (two on node 0, one on node 1), against 2 and 4 without the file.
whatif dgx-h100:nodes=2 inputs/plan-h100-node0.yaml --capacity gpus=4,required=node --device-perf inputs/perf-drain-h100-node1.csv --format json
