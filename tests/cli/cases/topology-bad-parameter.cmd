topology show gb200-nvl72:racks=0
