import --from slurm ../data/slurm/multi.yaml --gpus-per-node 2
