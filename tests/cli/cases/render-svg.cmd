render gb200-nvl72:racks=2 --level rack -o $OUT/topology.svg
