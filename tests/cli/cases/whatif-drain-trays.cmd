# Drain two switch trays tonight: what must move first.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --drain r0001/nvsw[0-1]
