import --from slurm ../data/slurm/errors-tree.conf
