import --from slurm ../data/slurm/multi.yaml --slurm-topology topo1 --gpus-per-node 2
