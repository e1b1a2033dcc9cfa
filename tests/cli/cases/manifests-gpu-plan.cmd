# One workload of each kind with GPUs on four NVL72 racks: all placed.
plan gb200-nvl72:racks=4 ../data/manifests/gpu-workloads.yaml
