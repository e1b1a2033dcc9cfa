render gb200-nvl72:racks=64 -o $OUT/topology.dot
