import --from slurm ../data/slurm/uneven-tree.conf ../data/slurm/multi.yaml
