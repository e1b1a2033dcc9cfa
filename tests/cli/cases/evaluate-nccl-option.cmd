evaluate gb200-nvl72:racks=2 inputs/plan-tp-straddle.yaml --nccl NCCL_NVLS_ENABLE=0 --nccl NCCL_PROTO=^LL128
