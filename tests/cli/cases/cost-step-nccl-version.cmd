cost gb200-nvl72:racks=2 --plan inputs/plan-tp-straddle.yaml --job straddle --nccl-version 2.26.2
