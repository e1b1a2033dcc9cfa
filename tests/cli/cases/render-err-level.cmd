render gb200-nvl72:racks=2 --level rak
