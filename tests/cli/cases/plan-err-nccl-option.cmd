plan gb200-nvl72:racks=2 ../../samples/jobs-nvl72.yaml --nccl NCCL_DEBUG=INFO
