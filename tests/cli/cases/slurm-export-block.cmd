export gb200-nvl72:racks=8 --to slurm-block
