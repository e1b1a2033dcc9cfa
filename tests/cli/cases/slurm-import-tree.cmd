import --from slurm ../data/slurm/uneven-tree.conf --gpus-per-node 4
