cost gb200-nvl72:racks=2 --collective allreduce --size 1G --first 144
