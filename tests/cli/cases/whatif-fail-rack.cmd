# A rack fails: who stops, who moves, the guarantee, capacity lost.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --fail r0003
