export dgx-h100:nodes=64 --to slurm-tree
