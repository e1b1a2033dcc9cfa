export dgx-h100:nodes=96 --to slurm-block
