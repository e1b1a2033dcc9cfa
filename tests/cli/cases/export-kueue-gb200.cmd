export gb200-nvl72:racks=2 --to kueue
