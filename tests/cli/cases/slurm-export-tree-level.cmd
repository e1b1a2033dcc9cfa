export gb200-nvl72:racks=20 --to slurm-tree --level su
