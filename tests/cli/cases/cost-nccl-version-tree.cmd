cost gb200-nvl72:racks=20 -c allreduce -s 16G -n 1440 -a ^nvls,nvlstree --nccl-version 2.26.2
