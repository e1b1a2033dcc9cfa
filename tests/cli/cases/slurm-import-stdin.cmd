import --from slurm - --slurm-topology topo1 --gpus-per-node 1 < ../data/slurm/multi.yaml
