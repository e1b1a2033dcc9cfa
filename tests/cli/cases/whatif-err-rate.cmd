# A negative failure rate: one clear error, exit 2.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --mtbf inputs/whatif-negative-rate.yaml --seed 1
