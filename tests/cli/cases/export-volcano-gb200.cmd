export gb200-nvl72:racks=9 --to volcano
