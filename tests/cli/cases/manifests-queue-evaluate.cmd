# Queues and priority classes (Kueue labels, WorkloadPriorityClass, Volcano
# queue) are printed, written to the plan file and read back by evaluate.
plan gb200-nvl72:racks=4 ../data/manifests/gpu-workloads.yaml -o $OUT/plan.yaml && grep -E '^  - name|queue|priority_class' $OUT/plan.yaml && "$bin" evaluate gb200-nvl72:racks=4 $OUT/plan.yaml
