evaluate gb200-nvl72:racks=2 inputs/plan-tp-straddle.yaml --nccl-version 2.26.2
