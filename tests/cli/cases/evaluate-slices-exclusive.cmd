# A plan that spreads slices over two SUs and shares an exclusive rack.
evaluate gb200-nvl72:racks=16 inputs/plan-exclusive.yaml
