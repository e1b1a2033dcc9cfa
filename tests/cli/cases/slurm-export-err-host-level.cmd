export gb200-nvl72:racks=4 --to slurm-block --level node -o $OUT/never.conf
