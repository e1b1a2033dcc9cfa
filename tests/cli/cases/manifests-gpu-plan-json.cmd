plan gb200-nvl72:racks=4 ../data/manifests/gpu-workloads.yaml --format json
