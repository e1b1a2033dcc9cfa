render gb200-nvl72:racks=2 -o topology.pdf
