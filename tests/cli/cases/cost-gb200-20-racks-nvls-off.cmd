cost gb200-nvl72:racks=20 -c allreduce -s 1G -n 1440 --algorithm ^nvls,nvlstree
